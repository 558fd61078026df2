#!/bin/sh
# tests/bench/shards.sh: one study (nic-vs-spine --quick: 8 points, closed
# form and simulator) run the ways `ccsim run` fans out, each into a fresh
# database, timed in the same command; ratios against -j 2 (make bench).
#   -j 2              two worker processes on this machine
#   3 shards, serial  --shard K/3 one after another, then ccsim merge
#   3 shards, at once --shard K/3 all started together (Slurm's array on one node), then merge
#   mpirun --oversubscribe -n 3       rank 0 hands out, 2 ranks compute (when Open MPI is here)
C=${1:-bin/ccsim}
S=scenarios/nic-vs-spine.yaml
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
now() { date +%s.%N; }
t() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
a=$(now); "$C" run $S --quick --no-plots -j 2 --db "$w/j2.db" >/dev/null 2>&1; b=$(now); j2=$(t "$a" "$b")
a=$(now)
for k in 0 1 2; do "$C" run $S --quick --shard $k/3 --db "$w/s$k.db" >/dev/null 2>&1; done
"$C" merge "$w/m.db" "$w/s0.db" "$w/s1.db" "$w/s2.db" >/dev/null 2>&1
b=$(now); ser=$(t "$a" "$b")
a=$(now)
for k in 0 1 2; do "$C" run $S --quick --shard $k/3 --db "$w/p$k.db" >/dev/null 2>&1 & done
wait
"$C" merge "$w/pm.db" "$w/p0.db" "$w/p1.db" "$w/p2.db" >/dev/null 2>&1
b=$(now); par=$(t "$a" "$b")
mpi=-
if command -v mpirun >/dev/null 2>&1 && [ -f "$(dirname "$C")/ccsim-mpi.so" ]; then
	a=$(now); mpirun --oversubscribe -n 3 "$C" run $S --quick --no-plots --mpi --db "$w/mpi.db" >/dev/null 2>&1; b=$(now); mpi=$(t "$a" "$b")
fi
printf '%-28s %8s %8s\n' "fan-out (8 points)" "wall s" "vs -j 2"
for r in "-j 2:$j2" "3 shards, serial + merge:$ser" "3 shards, at once + merge:$par" "mpirun -n 3 --mpi:$mpi"; do
	n=${r%%:*}
	v=${r#*:}
	ratio=$(awk -v x="$v" -v y="$j2" 'BEGIN { if (x == "-") print "-"; else printf "%.2f", x / y }')
	printf '%-28s %8s %8s\n' "$n" "$v" "$ratio"
done
