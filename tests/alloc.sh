#!/bin/sh
# tests/alloc.sh BUILD_DIR [--full]: every command of tests/alloc/cmds.txt with
# its Nth allocation failing (CCS_FAIL_ALLOC=N; test builds route SQLite's
# allocations through the same hook).  A run passes when it ends with a
# message and a non-zero status that is not a sanitizer's (98, 99) or a
# signal's, or with status 0 and exactly the output of the run without a
# failure (the allocation was one it could do without); a results database
# it wrote passes PRAGMA integrity_check.  Each command also runs with its
# stdout on /dev/full (a full disk): it must fail saying "cannot write"
# unless it writes nothing there.  `make test` tries the first 8
# allocations and 24 more spread over the rest of each command; --full tries
# every one.  Ends with "alloc: N passed, N failed".
B=$(cd "${1:?usage: tests/alloc.sh BUILD_DIR [--full]}" && pwd)
FULL=${2:-}
C="$B/ccsim"
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

# one LINE with allocation K failing (0: none) into $w/out; its status in rc
try() {
	cp "$w/base.db" "$w/db"
	rm -rf "$w/t" && mkdir "$w/t"
	l=$(echo "$1" | sed "s#@DB@#$w/db#g; s#@TMP@#$w/t#g")
	# shellcheck disable=SC2086
	CCS_FAIL_ALLOC=$2 "$C" $l >"$w/out" 2>&1
	rc=$?
}

ncmd=0
nrun=0
while IFS= read -r line; do
	case "$line" in '#'* | '') continue ;; esac
	ncmd=$((ncmd + 1))
	cp "$w/base.db" "$w/db"
	l=$(echo "$line" | sed "s#@DB@#$w/db#g; s#@TMP@#$w/t#g")
	rm -rf "$w/t" && mkdir "$w/t"
	# shellcheck disable=SC2086
	n=$(CCS_COUNT_ALLOC=1 "$C" $l 2>&1 >/dev/null | sed -n 's/^ccsim: \([0-9]*\) allocations$/\1/p')
	try "$line" 0
	cp "$w/out" "$w/want"
	if [ "$rc" -ne 0 ] || [ -z "$n" ]; then
		fail=$((fail + 1))
		echo "FAIL: alloc: '$line' fails without a fault (exit $rc)"
		head -n 5 "$w/out"
		continue
	fi
	if [ "$FULL" = "--full" ]; then
		ks=$(seq 1 "$n")
	else
		ks=$( (seq 1 8; seq 1 24 | awk -v n="$n" '{ print int(8 + $1 * (n - 8) / 24) }') | awk -v n="$n" '$1 >= 1 && $1 <= n' | sort -un)
	fi
	bad=0
	for k in $ks; do
		try "$line" "$k"
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
			[ "$bad" -le 3 ] && { echo "FAIL: alloc: CCS_FAIL_ALLOC=$k ccsim $line: $why"; tail -n 4 "$w/out"; }
		fi
	done
	# a full disk: stdout on /dev/full fails the command with a message,
	# unless it had nothing to write there
	cp "$w/base.db" "$w/db"
	rm -rf "$w/t" && mkdir "$w/t"
	# shellcheck disable=SC2086
	"$C" $l >/dev/full 2>"$w/err"
	frc=$?
	if [ "$frc" -eq 0 ] && grep -qv '^ccsim: [0-9]* allocations$' "$w/want" 2>/dev/null &&
	   [ -n "$(CCS_FAIL_ALLOC=0 "$C" $l 2>/dev/null | head -c 1)" ]; then
		bad=$((bad + 1))
		echo "FAIL: alloc: ccsim $line >/dev/full: exit 0 (output lost without a word)"
	elif [ "$frc" -ne 0 ] && ! grep -q "cannot write" "$w/err"; then
		bad=$((bad + 1))
		echo "FAIL: alloc: ccsim $line >/dev/full: exit $frc without 'cannot write'"
		tail -n 3 "$w/err"
	fi
	if [ "$bad" -eq 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
done <tests/alloc/cmds.txt
echo "alloc: $ncmd commands, $nrun failing runs"
echo "alloc: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
