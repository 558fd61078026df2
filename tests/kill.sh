#!/bin/sh
# tests/kill.sh BUILD_DIR: SIGKILL at seeded random moments (CCSIM_SEED, printed
# on failure) of `ccsim run` and of `calibrate ingest`, each then run again to
# the end: the results equal an uninterrupted run's (nothing lost, nothing
# doubled) and the database passes PRAGMA integrity_check after every kill.
# Ends with "kill: N passed, N failed".
B=$(cd "${1:?usage: tests/kill.sh BUILD_DIR}" && pwd)
ROOT=$(pwd)
C="$B/ccsim"
SEED=${CCSIM_SEED:-$(date +%s)}
pass=0
fail=0
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: kill (CCSIM_SEED=$SEED): $1"; }
# delay K: the Kth seeded delay, 0.05 to MAX seconds
delay() { awk -v s="$SEED" -v k="$1" -v m="$2" 'BEGIN { srand(s + 7919 * k); printf "%.2f", 0.05 + rand() * (m - 0.05) }'; }
rows() { sqlite3 "$1" "SELECT point, topo_hash, design, workload, axes, ranks, algo, size, t_model_s, t_sim_s FROM results ORDER BY point, topo_hash"; }
intact() { [ "$(sqlite3 "$1" 'PRAGMA integrity_check' 2>&1)" = ok ]; }

# ---- ccsim run: a reference run, then 6 kills and a rerun that finishes ----
S="$ROOT/scenarios/nic-vs-spine.yaml"
"$C" run "$S" --quick --db "$w/ref.db" --no-plots >/dev/null 2>&1 || bad "reference run"
rows "$w/ref.db" >"$w/ref.rows"
for k in 1 2 3 4 5 6; do
	"$C" run "$S" --quick --db "$w/k.db" --no-plots -j 2 >/dev/null 2>&1 &
	pid=$!
	sleep "$(delay "$k" 3)"
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	if [ -f "$w/k.db" ]; then intact "$w/k.db" && ok || bad "run: integrity after kill $k"; fi
done
"$C" run "$S" --quick --db "$w/k.db" --no-plots >/dev/null 2>&1 && ok || bad "run: the rerun after the kills failed"
rows "$w/k.db" >"$w/k.rows"
cmp -s "$w/ref.rows" "$w/k.rows" && ok || { bad "run: rows after kills differ from an uninterrupted run"; diff "$w/ref.rows" "$w/k.rows" | head -5; }

# ---- calibrate ingest of a large log: a run is stored whole or not at all ----
awk 'BEGIN { print "# Collective test starting: all_reduce_perf"
             print "#  Rank  0 Group  0 Pid 1 on hostk device  0 [0x00] NVIDIA H100"
             print "#  Rank  7 Group  0 Pid 8 on hostk device  7 [0x00] NVIDIA H100"
             print "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong"
             for (i = 0; i < 60000; i++) { s = 1024 + 8 * i; t = 20 + s / 3e5
                     printf "%12d %12d %8s %6s %6d %9.2f %7.2f %7.2f %5d %9.2f %7.2f %7.2f %5d\n", s, s / 4, "float", "sum", -1, t, s / t / 1e3, 1.75 * s / t / 1e3, 0, t, s / t / 1e3, 1.75 * s / t / 1e3, 0 } }' >"$w/big.log"
n_ok=0
for k in 1 2 3 4 5; do
	"$C" calibrate ingest "$w/big.log" --db "$w/i.db" >/dev/null 2>&1 &
	pid=$!
	sleep "$(delay $((k + 10)) 2)"
	if kill -KILL "$pid" 2>/dev/null; then wait "$pid" 2>/dev/null; else wait "$pid" && n_ok=$((n_ok + 1)); fi
	[ -f "$w/i.db" ] || continue
	intact "$w/i.db" && ok || bad "ingest: integrity after kill $k"
done
"$C" calibrate ingest "$w/big.log" --db "$w/i.db" >/dev/null 2>&1 && n_ok=$((n_ok + 1)) || bad "ingest: the last ingest failed"
runs=$(sqlite3 "$w/i.db" 'SELECT count(*) FROM runs')
meas=$(sqlite3 "$w/i.db" 'SELECT count(*) FROM measurements')
per=$(sqlite3 "$w/i.db" 'SELECT count(*) FROM measurements GROUP BY run_id' | sort -u)
[ "$runs" -ge "$n_ok" ] && [ "$per" = "$(sqlite3 "$w/i.db" 'SELECT count(*) FROM measurements WHERE run_id = (SELECT max(id) FROM runs)')" ] && ok ||
	bad "ingest: $runs runs, $meas measurements; per run: $per (every stored run must be whole)"
echo "kill: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
