#!/bin/sh
# tests/fuzz/run.sh BIN_DIR SECONDS NAME...: each libFuzzer harness BIN_DIR/fuzz_NAME
# for SECONDS, from tests/fuzz/corpus/NAME (written to) and its seeds
# (tests/fuzz/seeds.txt), with tests/fuzz/dict/NAME.dict; then the corpus is
# minimised back into tests/fuzz/corpus/NAME.  Crashes land in
# tests/fuzz/crashes/NAME-*; once fixed, move each to tests/fuzz/regress/NAME/
# (make test replays it).  Prints a table: harness, execs, execs/s, coverage
# (edges), features, corpus, crashes.  Exit 1 when anything crashed.  A unit
# slower than libFuzzer's 10 s report threshold is not a crash: it goes to
# build/fuzz/slow/ (the -timeout of 20 s, 120 s for scenarios, is one).
BIN=${1:?usage: tests/fuzz/run.sh BIN_DIR SECONDS NAME...}
SECS=${2:?}
shift 2
mkdir -p tests/fuzz/crashes build/fuzz/logs
printf '%-10s %12s %9s %7s %8s %7s %8s\n' harness execs execs/s cov ft corpus crashes
bad=0
for n in "$@"; do
	c=tests/fuzz/corpus/$n
	mkdir -p "$c"
	seeds=$(awk -v n="$n" '$1 == n { for (i = 2; i <= NF; i++) printf "%s ", $i }' tests/fuzz/seeds.txt)
	dict=""
	[ -f "tests/fuzz/dict/$n.dict" ] && dict="-dict=tests/fuzz/dict/$n.dict"
	# a scenario check builds every design's topologies: slower inputs are normal there
	to=20
	[ "$n" = scenario ] && to=120
	before=$(ls tests/fuzz/crashes 2>/dev/null | grep "^$n-" | grep -vc "^$n-slow-unit-")
	# shellcheck disable=SC2086
	"$BIN/fuzz_$n" -max_total_time="$SECS" -timeout="$to" -rss_limit_mb=3072 -max_len=16384 -close_fd_mask=3 \
		-print_final_stats=1 -artifact_prefix="tests/fuzz/crashes/$n-" $dict "$c" $seeds >"build/fuzz/logs/$n.log" 2>&1
	# a slow unit (over libFuzzer's 10 s, sanitizers on) is not a crash:
	# it is kept in build/fuzz/slow/ and counted apart
	mkdir -p build/fuzz/slow
	for f in tests/fuzz/crashes/"$n"-slow-unit-*; do [ -f "$f" ] && mv "$f" build/fuzz/slow/; done
	after=$(ls tests/fuzz/crashes 2>/dev/null | grep -c "^$n-")
	line=$(grep -E '^#[0-9]+' "build/fuzz/logs/$n.log" | tail -n 1)
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "build/fuzz/logs/$n.log")
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "build/fuzz/logs/$n.log")
	cov=$(echo "$line" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
	ft=$(echo "$line" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
	# keep the corpus small: what adds coverage, merged into a fresh folder
	rm -rf "build/fuzz/merge-$n" && mkdir -p "build/fuzz/merge-$n"
	"$BIN/fuzz_$n" -merge=1 -close_fd_mask=3 -max_len=16384 "build/fuzz/merge-$n" "$c" >/dev/null 2>&1 &&
		rm -rf "$c" && mv "build/fuzz/merge-$n" "$c"
	ncorp=$(ls "$c" | wc -l)
	new=$((after - before))
	[ "$new" -gt 0 ] && bad=1
	printf '%-10s %12s %9s %7s %8s %7s %8s\n' "$n" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "$ncorp" "$new"
done
[ "$bad" -eq 0 ]
