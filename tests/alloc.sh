#!/bin/sh
# tests/alloc.sh BUILD_DIR [--full]: every command of tests/alloc/cmds.txt with
# its Nth allocation failing, two ways: through ccsim's hook in the test
# build (CCS_FAIL_ALLOC=N; SQLite allocates through it too), and through
# libc in the release build with tests/tools/failmalloc.c preloaded
# (CCS_FAIL_LIBC=N: libyaml's, GSL's, expat's and libc's own allocations as
# well).  A run passes when it ends with a message and a non-zero status
# that is not a sanitizer's (98, 99) or a signal's, or with status 0 and
# exactly the output of the run without a failure (the allocation was one
# it could do without); a results database it wrote passes PRAGMA
# integrity_check.  Each command also runs with its stdout on /dev/full (a
# full disk): it must fail saying "cannot write" unless it writes nothing
# there.  `make test` tries the first 8 allocations and 24 more spread over
# the rest; --full tries every one.  Ends with "alloc: N passed, N failed".
B=$(cd "${1:?usage: tests/alloc.sh BUILD_DIR [--full]}" && pwd)
FULL=${2:-}
C="$B/ccsim"
REL=$(pwd)/bin/ccsim
SHIM="$B/failmalloc.so"
pass=0
fail=0
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
export ASAN_OPTIONS=detect_leaks=1:exitcode=99
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=98

# the databases the commands start from: two ingested runs and a stored study
"$C" calibrate ingest --db "$w/base.db" tests/data/calib/all_reduce_perf-h100x8-mooncake.log >/dev/null 2>&1
"$C" calibrate ingest --db "$w/base.db" tests/data/calib/all_reduce_perf-h100x8-mooncake.log >/dev/null 2>&1
"$C" run tests/data/scenarios/kv.yaml --db "$w/base.db" --out "$w/o0" --no-plots >/dev/null 2>&1

# fresh DB and scratch folder; $l is LINE with them filled in
fresh() {
	cp "$w/base.db" "$w/db"
	rm -rf "$w/t" && mkdir "$w/t"
	l=$(echo "$1" | sed "s#@DB@#$w/db#g; s#@TMP@#$w/t#g")
}
# one run of $l in MODE (ccs or libc) with allocation K failing (0: none), into $w/out
try() {
	fresh "$2"
	# shellcheck disable=SC2086
	case $1 in
	ccs) CCS_FAIL_ALLOC=$3 "$C" $l >"$w/out" 2>&1 ;;
	libc) CCS_FAIL_LIBC=$3 LD_PRELOAD="$SHIM" "$REL" $l >"$w/out" 2>&1 ;;
	esac
	rc=$?
}
# how many allocations LINE makes in MODE
count() {
	fresh "$2"
	# shellcheck disable=SC2086
	case $1 in
	ccs) CCS_COUNT_ALLOC=1 "$C" $l 2>&1 >/dev/null | sed -n 's/^ccsim: \([0-9]*\) allocations$/\1/p' ;;
	libc) CCS_COUNT_LIBC=1 LD_PRELOAD="$SHIM" "$REL" $l 2>&1 >/dev/null | sed -n 's/^failmalloc: \([0-9]*\) allocations$/\1/p' ;;
	esac
}
# sweep MODE LINE: the failing runs; bad counts the ones that fail the rules
sweep() {
	n=$(count "$1" "$2")
	try "$1" "$2" 0
	cp "$w/out" "$w/want"
	if [ "$rc" -ne 0 ] || [ -z "$n" ]; then
		bad=$((bad + 1))
		echo "FAIL: alloc ($1): '$2' fails without a fault (exit $rc)"
		head -n 5 "$w/out"
		return
	fi
	if [ "$FULL" = "--full" ]; then
		ks=$(seq 1 "$n")
	else
		ks=$( (seq 1 8; seq 1 24 | awk -v n="$n" '{ print int(8 + $1 * (n - 8) / 24) }') | awk -v n="$n" '$1 >= 1 && $1 <= n' | sort -un)
	fi
	shown=0
	for k in $ks; do
		try "$1" "$2" "$k"
		nrun=$((nrun + 1))
		why=""
		if [ "$rc" -eq 0 ]; then
			cmp -s "$w/out" "$w/want" || why="exit 0 with output that differs from the run without a fault"
		elif [ "$rc" -eq 98 ] || [ "$rc" -eq 99 ] || [ "$rc" -ge 128 ]; then
			why="exit $rc (sanitizer or signal)"
		elif [ ! -s "$w/out" ]; then
			why="exit $rc without a message"
		fi
		if [ -z "$why" ] && [ -f "$w/db" ] && [ "$(sqlite3 "$w/db" 'PRAGMA integrity_check' 2>&1)" != ok ]; then
			why="the database fails its integrity check"
		fi
		if [ -n "$why" ]; then
			bad=$((bad + 1))
			shown=$((shown + 1))
			[ "$shown" -le 3 ] && { echo "FAIL: alloc ($1): allocation $k of ccsim $2: $why"; tail -n 4 "$w/out"; }
		fi
	done
}
# full LINE: stdout on /dev/full fails with "cannot write", unless the
# command writes nothing on stdout
full() {
	fresh "$1"
	# shellcheck disable=SC2086
	"$C" $l >/dev/full 2>"$w/err"
	frc=$?
	fresh "$1"
	# shellcheck disable=SC2086
	wrote=$("$C" $l 2>/dev/null | head -c 1 | wc -c)
	if [ "$frc" -eq 0 ] && [ "$wrote" -gt 0 ]; then
		bad=$((bad + 1))
		echo "FAIL: alloc: ccsim $1 >/dev/full: exit 0 (the output lost without a word)"
	elif [ "$frc" -ne 0 ] && ! grep -q "cannot write" "$w/err"; then
		bad=$((bad + 1))
		echo "FAIL: alloc: ccsim $1 >/dev/full: exit $frc without 'cannot write'"
		tail -n 3 "$w/err"
	fi
}

ncmd=0
nrun=0
modes=ccs
if [ -x "$REL" ] && [ -f "$SHIM" ]; then modes="ccs libc"; else echo "alloc: no $REL or $SHIM: the libc sweep skipped"; fi
while IFS= read -r line; do
	case "$line" in '#'* | '') continue ;; esac
	ncmd=$((ncmd + 1))
	bad=0
	case "$line" in
	'ccs-only '*) line=${line#ccs-only }; sweep ccs "$line" ;;
	*) for m in $modes; do sweep "$m" "$line"; done ;;
	esac
	full "$line"
	if [ "$bad" -eq 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
done <tests/alloc/cmds.txt
echo "alloc: $ncmd commands ($modes), $nrun failing runs"
echo "alloc: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
