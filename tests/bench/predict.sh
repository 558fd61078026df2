#!/bin/sh
# tests/bench/predict.sh: `ccsim predict` from the command line over 71,875
# sizes of an 8-GPU HGX H100 AllReduce (NCCL's choice), the median of 5 runs
# each, in the same command: CSV (the time, no second choice) against the
# table (which also prices ccsim's fastest algorithm beside NCCL's for its
# last column); rows per second include starting the process and loading
# the topology (make bench).
C=${1:-bin/ccsim}
T=topologies/hgx-h100.yaml
now() { date +%s.%N; }
med() {
	fmt=$1
	for i in 1 2 3 4 5; do
		a=$(now)
		"$C" predict -t $T -c allreduce -b 1 -e 1T -f 1.00028 --format "$fmt" >/dev/null
		b=$(now)
		awk -v a="$a" -v b="$b" 'BEGIN { printf "%.4f\n", b - a }'
	done | sort -n | sed -n 3p
}
rows=$("$C" predict -t $T -c allreduce -b 1 -e 1T -f 1.00028 --format csv | tail -n +2 | wc -l)
csv=$(med csv)
tab=$(med table)
printf '%-40s %8s %10s %12s %10s\n' "predict from the command line" "rows" "wall s" "rows/s" "vs table"
awk -v r="$rows" -v c="$csv" -v t="$tab" 'BEGIN {
	printf "%-40s %8d %10.3f %12.0f %10.2f\n", "--format csv", r, c, r / c, t / c;
	printf "%-40s %8d %10.3f %12.0f %10.2f\n", "--format table (with the other choice)", r, t, r / t, 1 }'
