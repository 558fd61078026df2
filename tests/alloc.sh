#!/bin/sh
# tests/alloc.sh BUILD_DIR [--full]: every command of tests/alloc/cmds.txt with
# one fault injected at a time, four ways:
#   ccs    the Nth allocation fails through ccsim's hook in the test build
#          (CCS_FAIL_ALLOC=N; SQLite allocates through it too);
#   libc   the Nth malloc/calloc/realloc fails in the release build with
#          tests/tools/failmalloc.c preloaded (CCS_FAIL_LIBC=N: libyaml's,
#          GSL's, expat's and libc's own allocations as well);
#   write  the Nth write, pwrite, writev or fsync to a file fails with ENOSPC
#          (EIO for fsync) in the release build with tests/tools/failwrite.c
#          preloaded (CCS_FAIL_WRITE=N: SQLite's database and journal writes);
#   fsize  every file the command writes is capped at N bytes (prlimit
#          --fsize, SIGXFSZ ignored: a write past it fails with EFBIG, as on
#          a full disk), which reaches stdio's writes the shim cannot see.
# A run passes when it ends with a message and a non-zero status that is not
# a sanitizer's (98, 99) or a signal's, or with status 0 and exactly the
# outputs of the run without a fault: the same stdout and stderr, the same
# files under the scratch folder, the same number of rows in every table of
# the database (the fault was one it could do without).  A results database
# it wrote passes PRAGMA integrity_check either way.  Each command also runs
# with its stdout on /dev/full: it must fail saying "cannot write" unless it
# writes nothing there.  `make test` tries the first 8 faults and 24 more
# spread over the rest (fsize: 0, 512 bytes and every 4th power above, to the
# largest file written); --full tries every one.  ALLOC_MODES="write" (say)
# runs only the named sweeps.  Ends with "alloc: N passed, N failed".
B=$(cd "${1:?usage: tests/alloc.sh BUILD_DIR [--full]}" && pwd)
FULL=${2:-}
C="$B/ccsim"
REL=$(pwd)/bin/ccsim
SHIM="$B/failmalloc.so"
WSHIM="$B/failwrite.so"
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
# a shard to merge (@SHARD@): half of another study and a calibration run
"$C" run scenarios/nic-vs-spine.yaml --quick --engine model --shard 1/2 --db "$w/shard.db" >/dev/null 2>&1
"$C" calibrate ingest --db "$w/shard.db" tests/data/calib/all_gather_perf-rtx4090.log >/dev/null 2>&1

# fresh DB and scratch folder; $l is LINE with them filled in
fresh() {
	cp "$w/base.db" "$w/db"
	rm -rf "$w/t" && mkdir "$w/t"
	l=$(echo "$1" | sed "s#@DB@#$w/db#g; s#@TMP@#$w/t#g; s#@SHARD@#$w/shard.db#g")
}
# one run of $l in MODE with fault K (0: none), into $w/out and $rc
try() {
	fresh "$2"
	# shellcheck disable=SC2086
	case $1 in
	ccs) CCS_FAIL_ALLOC=$3 "$C" $l >"$w/out" 2>&1 ;;
	libc) CCS_FAIL_LIBC=$3 LD_PRELOAD="$SHIM" "$REL" $l >"$w/out" 2>&1 ;;
	write) CCS_FAIL_WRITE=$3 LD_PRELOAD="$WSHIM" "$REL" $l >"$w/out" 2>&1 ;;
	fsize)
		# stdout and stderr through a pipe, which the cap does not reach
		lim="--fsize=$3"
		[ "$3" -eq 0 ] && lim="--fsize=unlimited"
		(
			trap '' XFSZ
			prlimit "$lim" "$REL" $l 2>&1
			echo $? >"$w/rc"
		) | cat >"$w/out"
		return ;;
	esac
	echo $? >"$w/rc"
}
# how many faults LINE can take in MODE: allocations, file writes, or (fsize)
# the size of the largest file it leaves
count() {
	fresh "$2"
	# shellcheck disable=SC2086
	case $1 in
	ccs) CCS_COUNT_ALLOC=1 "$C" $l 2>&1 >/dev/null | sed -n 's/^ccsim: \([0-9]*\) allocations$/\1/p' ;;
	libc) CCS_COUNT_LIBC=1 LD_PRELOAD="$SHIM" "$REL" $l 2>&1 >/dev/null | sed -n 's/^failmalloc: \([0-9]*\) allocations$/\1/p' ;;
	write) CCS_COUNT_WRITE=1 LD_PRELOAD="$WSHIM" "$REL" $l 2>&1 >/dev/null | sed -n 's/^failwrite: \([0-9]*\) writes$/\1/p' ;;
	fsize)
		"$REL" $l >/dev/null 2>&1
		# nothing written: 0 (no sweep)
		if cmp -s "$w/db" "$w/base.db" && [ -z "$(find "$w/t" -type f)" ]; then
			echo 0
		else
			find "$w/db" "$w/t" -type f -size +0 -exec wc -c {} + | awk '$2 != "total" && $1 > m { m = $1 } END { print m + 0 }'
		fi ;;
	esac
}
# rows per table of database $1
rows() {
	for tb in $(sqlite3 "$1" "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"); do
		echo "$1 $tb $(sqlite3 "$1" "SELECT count(*) FROM \"$tb\"")"
	done
}
# what a run left: its files' sums, and for a database (which holds the
# times it was written) its rows per table
state() {
	for f in $(cd "$w/t" && find . -type f | sort); do
		case $f in
		*.db) rows "$w/t/$f" ;;
		*.db-wal | *.db-shm | *.db-journal) ;;
		*) (cd "$w/t" && md5sum "$f") ;;
		esac
	done
	[ -f "$w/db" ] && rows "$w/db"
}
# the faults to try in MODE for a line that can take N
points() {
	if [ "$1" = fsize ]; then
		echo 512 | awk -v n="$2" '{ print 1; for (k = 512; k < 4 * n; k *= 4) print k }'
	elif [ "$FULL" = "--full" ]; then
		seq 1 "$2"
	else
		(seq 1 8; seq 1 24 | awk -v n="$2" '{ print int(8 + $1 * (n - 8) / 24) }') | awk -v n="$2" '$1 >= 1 && $1 <= n' | sort -un
	fi
}
# sweep MODE LINE: the failing runs; bad counts the ones that fail the rules
sweep() {
	n=$(count "$1" "$2")
	try "$1" "$2" 0
	rc=$(cat "$w/rc")
	cp "$w/out" "$w/want"
	state >"$w/want-state"
	if [ "$rc" -ne 0 ] || [ -z "$n" ]; then
		bad=$((bad + 1))
		echo "FAIL: alloc ($1): '$2' fails without a fault (exit $rc)"
		head -n 5 "$w/out"
		return
	fi
	[ "$n" -eq 0 ] && return
	shown=0
	for k in $(points "$1" "$n"); do
		try "$1" "$2" "$k"
		rc=$(cat "$w/rc")
		nrun=$((nrun + 1))
		why=""
		if [ "$rc" -eq 0 ]; then
			if ! cmp -s "$w/out" "$w/want"; then
				why="exit 0 with output that differs from the run without a fault"
			elif [ "$(state)" != "$(cat "$w/want-state")" ]; then
				why="exit 0 with files or database rows that differ from the run without a fault"
			fi
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
			[ "$shown" -le 3 ] && { echo "FAIL: alloc ($1): fault $k of ccsim $2: $why"; tail -n 4 "$w/out"; }
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
if [ -x "$REL" ] && [ -f "$SHIM" ] && [ -f "$WSHIM" ]; then
	modes="ccs libc write"
	if command -v prlimit >/dev/null; then modes="$modes fsize"; else echo "alloc: no prlimit (util-linux): the fsize sweep skipped"; fi
else
	echo "alloc: no $REL, $SHIM or $WSHIM: the libc, write and fsize sweeps skipped"
fi
# ALLOC_MODES="write fsize" (say) runs only those
[ -n "${ALLOC_MODES:-}" ] && modes=$ALLOC_MODES
while IFS= read -r line; do
	case "$line" in '#'* | '') continue ;; esac
	ncmd=$((ncmd + 1))
	bad=0
	for m in $modes; do sweep "$m" "$line"; done
	full "$line"
	if [ "$bad" -eq 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
done <tests/alloc/cmds.txt
echo "alloc: $ncmd commands ($modes), $nrun failing runs"
echo "alloc: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
