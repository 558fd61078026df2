#!/bin/sh
# tests/determinism.sh BUILD_DIR: the same command twice gives byte-identical
# output: predict (table, CSV, JSON), simulate with a trace JSON and --links,
# MoE dispatch simulated, and `ccsim run` with -j 1 and -j 2 (its CSV and its
# database rows, bar the 'created' timestamps the schema declares).
# Ends with "determinism: N passed, N failed".
B=$(cd "${1:?usage: tests/determinism.sh BUILD_DIR}" && pwd)
ROOT=$(pwd)
C="$B/ccsim"
T="$ROOT/topologies/hgx-h100-cluster.yaml"
pass=0
fail=0
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: determinism: $1"; }
# twice NAME ARGS...: run twice (in $w/1 and $w/2, each with its own trace.json)
twice() {
	name=$1
	shift
	for i in 1 2; do
		mkdir -p "$w/$i"
		(cd "$w/$i" && "$C" "$@" >"$w/$i/$name.out" 2>&1)
	done
	cmp -s "$w/1/$name.out" "$w/2/$name.out" && ok || { bad "$name: output differs"; diff "$w/1/$name.out" "$w/2/$name.out" | head -5; }
}
twice predict predict -t "$T" --set nodes=4 -c allreduce -b 8 -e 8G -f 4
twice predict-csv predict -t "$T" --set nodes=4 -c allgather -b 8 -e 1G -f 8 --format csv
twice predict-json predict -t "$T" --set nodes=4 -c reducescatter -b 8 -e 1G -f 8 --format json
twice simulate simulate -t "$T" --set nodes=2 -c allreduce -b 64MiB -e 64MiB --links --trace trace.json
cmp -s "$w/1/trace.json" "$w/2/trace.json" && [ -s "$w/1/trace.json" ] && ok || bad "trace JSON differs (or is empty)"
twice moe simulate -t "$T" --set nodes=2 -c dispatch --tokens 128
for j in 1 2; do
	"$C" run "$ROOT/scenarios/default.yaml" --quick --db "$w/j$j.db" --no-plots -j "$j" --format csv >"$w/j$j.csv" 2>&1 ||
		bad "run -j $j failed"
	sqlite3 "$w/j$j.db" "SELECT point, topo_hash, design, workload, axes, ranks, collective, algo, size, t_model_s, t_sim_s,
	                     bw_model_Bps, bw_sim_Bps, lat_s, bwterm_s, step_s, bound, ord FROM results ORDER BY point, topo_hash" >"$w/j$j.rows"
done
cmp -s "$w/j1.csv" "$w/j2.csv" && ok || { bad "run CSV differs between -j 1 and -j 2"; diff "$w/j1.csv" "$w/j2.csv" | head -5; }
cmp -s "$w/j1.rows" "$w/j2.rows" && [ -s "$w/j1.rows" ] && ok || { bad "run database rows differ between -j 1 and -j 2"; diff "$w/j1.rows" "$w/j2.rows" | head -5; }
echo "determinism: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
