#!/bin/sh
# tests/shards.sh BUILD_DIR: one scenario run three ways, which must store the
# same rows (keys and numbers): `run -j 2`; as 3 shards (`--shard K/3`)
# joined by `ccsim merge`; and under `mpirun --oversubscribe -n 3 ... --mpi`.
# Then the Slurm scripts of `--slurm`, run once per array index with
# SLURM_ARRAY_TASK_ID set and then their merge step (as Slurm would), give
# the same rows; a rerun leaves complete shards out; --submit goes through a
# stand-in sbatch.  SIGKILL of a shard, of the whole MPI job and of merge at
# seeded moments (CCSIM_SEED, printed on failure), each then run again: no row
# lost or doubled, PRAGMA integrity_check ok.  Merge conflicts, a shard with
# a flipped byte, a negative schema version and bad arguments are refused
# with their messages.  The shards and merges run in
# the sanitizer build; MPI in bin/ccsim (Open MPI's own allocations are not
# ours to check).  Ends with "shards: N passed, N failed".
B=$(cd "${1:?usage: tests/shards.sh BUILD_DIR}" && pwd)
ROOT=$(pwd)
C="$B/ccsim"
REL="$ROOT/bin/ccsim"
SEED=${CCSIM_SEED:-$(date +%s)}
pass=0
fail=0
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: shards (CCSIM_SEED=$SEED): $1"; }
check() { if eval "$2"; then ok; else bad "$1"; fi; }
delay() { awk -v s="$SEED" -v k="$1" -v m="$2" 'BEGIN { srand(s + 7919 * k); printf "%.3f", 0.005 + rand() * (m - 0.005) }'; }
rows() {
	sqlite3 "$1" "SELECT c.hash, r.point, r.topo_hash, r.design, r.workload, r.axes, r.ranks, r.collective, r.algo,
	              r.size, r.t_model_s, r.t_sim_s, r.bw_model_Bps, r.bw_sim_Bps, r.lat_s, r.bwterm_s, r.step_s, r.bound, r.ord
	              FROM results r JOIN scenarios c ON c.id = r.scenario_id ORDER BY r.point, r.topo_hash"
}
same() { rows "$2" >"$w/got" && cmp -s "$w/$1.rows" "$w/got" || { diff "$w/$1.rows" "$w/got" | head -4; return 1; }; }
intact() { [ "$(sqlite3 "$1" 'PRAGMA integrity_check' 2>&1)" = ok ]; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
S="$ROOT/scenarios/nic-vs-spine.yaml"
Q="--quick --no-plots"

# ---- three ways: -j 2, 3 shards merged, MPI ----
"$C" run "$S" $Q -j 2 --db "$w/j2.db" >/dev/null 2>&1 && ok || bad "run -j 2"
rows "$w/j2.db" >"$w/ref.rows"
check "the reference has 8 rows" '[ "$(wc -l <"$w/ref.rows")" -eq 8 ]'
for k in 0 1 2; do
	"$C" run "$S" $Q --shard "$k/3" --db "$w/s$k.db" >"$w/s$k.out" 2>&1 || bad "shard $k/3"
done
n=$(cat "$w/s0.out" "$w/s1.out" "$w/s2.out" | sed -n 's/^# \([0-9]*\) points:.*/\1/p' | awk '{ t += $1 } END { print t }')
check "the 3 shards hold 8 points between them ($n)" '[ "$n" = 8 ]'
"$C" merge "$w/m.db" "$w/s0.db" "$w/s1.db" "$w/s2.db" >"$w/merge.out" 2>&1 && ok || bad "merge: $(cat "$w/merge.out")"
check "3 shards merged = run -j 2" 'same ref "$w/m.db"'
check "merge says what it added" 'grep -q "3 of 3 shards merged: 8 results added, 0 already there; 1 scenarios added" "$w/merge.out"'
"$C" merge "$w/m.db" "$w/s2.db" "$w/s0.db" "$w/s1.db" "$w/j2.db" >"$w/merge2.out" 2>&1 && ok || bad "merge again"
check "merging again adds nothing" 'grep -q "4 of 4 shards merged: 0 results added, 16 already there" "$w/merge2.out" && same ref "$w/m.db"'
"$C" report nic-vs-spine --db "$w/j2.db" -o "$w/r-local.md" >/dev/null 2>&1 || bad "report on the local run"
"$C" report nic-vs-spine --db "$w/m.db" -o "$w/r-merged.md" >/dev/null 2>&1 || bad "report on the merged database"
sed 's/created [^;]*;//' "$w/r-local.md" >"$w/r1" && sed 's/created [^;]*;//' "$w/r-merged.md" >"$w/r2"
check "report on the merged database = on the local run (but the scenario's date)" 'cmp -s "$w/r1" "$w/r2"'
"$C" run "$S" $Q --db "$w/m.db" >"$w/rerun.out" 2>&1 && ok || bad "run on the merged database"
check "run on the merged database computes nothing" 'grep -q "8 points: 0 run now, 8 from" "$w/rerun.out"'
if command -v mpirun >/dev/null 2>&1 && [ -f "$ROOT/bin/ccsim-mpi.so" ]; then
	mpirun --oversubscribe -n 3 "$REL" run "$S" $Q --mpi --db "$w/mpi.db" >"$w/mpi.out" 2>&1 && ok || bad "mpirun -n 3: $(tail -3 "$w/mpi.out")"
	check "mpirun --oversubscribe -n 3 --mpi = run -j 2" 'same ref "$w/mpi.db"'
	check "rank 0 alone prints the tables" '[ "$(grep -c "^# 8 points: 8 run now" "$w/mpi.out")" = 1 ]'
	"$REL" run "$S" $Q -j 2 --db "$w/relj2.db" >/dev/null 2>&1
	rows "$w/relj2.db" >"$w/rel.rows"
	check "the release build stores the sanitizer build's numbers" 'cmp -s "$w/ref.rows" "$w/rel.rows"'
	"$REL" run "$S" $Q --mpi --db "$w/mpi1.db" >/dev/null 2>&1 && ok || bad "--mpi without mpirun (one rank)"
	check "--mpi on one rank = run -j 2" 'same ref "$w/mpi1.db"'
else
	bad "Open MPI (mpirun, bin/ccsim-mpi.so) is missing: sh .ci/deps installs it and make builds the plugin"
fi
CCSIM_MPI_PLUGIN=/nonexistent.so "$C" run "$S" $Q --mpi --db "$w/x.db" >"$w/np.out" 2>&1
check "--mpi without the plugin says so" '[ $? -eq 1 ] && grep -q "needs the MPI plugin" "$w/np.out"'

# ---- a point's shard is its key's: the same file with its lists reversed
# (another file hash, so another study) puts every point in the same shard ----
R="$w/reordered.yaml"
sed -e 's/\[200Gb\/s, 400Gb\/s, 800Gb\/s\]/[800Gb\/s, 200Gb\/s, 400Gb\/s]/' -e 's/\[1, 2, 4\]/[4, 1, 2]/' \
	-e "s#\.\./topologies/#$ROOT/topologies/#" "$S" >"$R"
for k in 0 1 2; do
	"$C" run "$S" --engine model --shard "$k/3" --db "$w/o$k.db" >/dev/null 2>&1
	"$C" run "$R" --engine model --shard "$k/3" --db "$w/r$k.db" >/dev/null 2>&1
	check "shard $k/3 holds the same points with the lists reordered" '[ "$(sqlite3 "$w/o$k.db" "SELECT point FROM results ORDER BY point")" = \
		"$(sqlite3 "$w/r$k.db" "SELECT point FROM results ORDER BY point")" ] && [ -n "$(sqlite3 "$w/o$k.db" "SELECT point FROM results")" ]'
done
check "the reordered file is another study (its own hash)" '[ "$(sqlite3 "$w/o0.db" "SELECT hash FROM scenarios")" != "$(sqlite3 "$w/r0.db" "SELECT hash FROM scenarios")" ]'

# ---- Slurm: the scripts run as Slurm would ----
sl="$w/slurm"
"$C" run "$S" --quick --slurm --shards 3 --slurm-dir "$sl" --db "$w/sl.db" --partition batch --time 10:00 \
	--sbatch "--mem=4G" >"$w/sl.out" 2>&1 && ok || bad "--slurm: $(cat "$w/sl.out")"
check "the array script is valid bash" 'bash -n "$sl/array.sbatch"'
check "the merge script is valid bash" 'bash -n "$sl/merge.sbatch"'
check "the array spans the 3 shards" 'grep -qx "#SBATCH --array=0-2" "$sl/array.sbatch" && grep -qx "#SBATCH --partition=batch" "$sl/array.sbatch"'
if command -v sbatch >/dev/null 2>&1; then
	sbatch --test-only "$sl/array.sbatch" >/dev/null 2>&1 && ok || bad "sbatch --test-only refuses the array script"
fi
for k in 0 1 2; do (cd / && SLURM_ARRAY_TASK_ID=$k bash "$sl/array.sbatch") >/dev/null 2>&1 || bad "array task $k"; done
(cd / && bash "$sl/merge.sbatch") >"$w/slm.out" 2>&1 && ok || bad "the merge step: $(cat "$w/slm.out")"
check "the Slurm array and merge = run -j 2" 'same ref "$w/sl.db"'
bash "$sl/array.sbatch" >/dev/null 2>&1
check "an array script run outside Slurm refuses" '[ $? -ne 0 ]'
rm -f "$sl"/shard-1-of-3.db*
"$C" run "$S" --quick --slurm --shards 3 --slurm-dir "$sl" --db "$w/sl.db" >"$w/sl2.out" 2>&1
check "a rerun leaves complete shards out" 'grep -qx "#SBATCH --array=1" "$sl/array.sbatch" && grep -q "1 to run (2 complete" "$w/sl2.out"'
mkdir -p "$w/bin"
cat >"$w/bin/sbatch" <<'EOF'
#!/bin/sh
echo "$*" >>"$SBATCH_LOG"
n=$(wc -l <"$SBATCH_LOG")
echo "$((4240 + n));testcluster"
EOF
chmod +x "$w/bin/sbatch"
SBATCH_LOG="$w/sbatch.log" PATH="$w/bin:$PATH" "$C" run "$S" --quick --slurm --shards 3 --slurm-dir "$sl" \
	--db "$w/sl.db" --submit >"$w/sub.out" 2>&1 && ok || bad "--submit: $(cat "$w/sub.out")"
check "--submit: the array, then the merge after it" 'grep -q "submitted array job 4241 (1 of 3 shards) and merge job 4242" "$w/sub.out" &&
	[ "$(sed -n 2p "$w/sbatch.log")" = "--parsable --dependency=afterok:4241 $sl/merge.sbatch" ]'

# ---- kills: a shard, the MPI job, merge ----
for k in 1 2 3 4; do
	"$C" run "$S" $Q --shard 1/3 --db "$w/ks.db" >/dev/null 2>&1 &
	pid=$!
	sleep "$(delay "$k" 1.5)"
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	if [ -f "$w/ks.db" ]; then intact "$w/ks.db" && ok || bad "shard: integrity after kill $k"; fi
done
"$C" run "$S" $Q --shard 1/3 --db "$w/ks.db" >/dev/null 2>&1 && ok || bad "shard: the rerun after the kills"
"$C" merge "$w/km.db" "$w/s0.db" "$w/ks.db" "$w/s2.db" >/dev/null 2>&1 && ok || bad "merge after the shard kills"
check "a killed and rerun shard merges to run -j 2" 'same ref "$w/km.db"'
if command -v mpirun >/dev/null 2>&1 && [ -f "$ROOT/bin/ccsim-mpi.so" ] && command -v setsid >/dev/null 2>&1; then
	for k in 5 6 7; do
		# the whole job at once, as scancel or a lost node does
		setsid mpirun --oversubscribe -n 3 "$REL" run "$S" $Q --mpi --db "$w/kmpi.db" >/dev/null 2>&1 &
		pid=$!
		sleep "$(delay "$k" 3)"
		kill -KILL -- "-$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		sleep 0.2
		if [ -f "$w/kmpi.db" ]; then intact "$w/kmpi.db" && ok || bad "mpi: integrity after kill $k"; fi
	done
	mpirun --oversubscribe -n 3 "$REL" run "$S" $Q --mpi --db "$w/kmpi.db" >/dev/null 2>&1 && ok || bad "mpi: the rerun after the kills"
	check "a killed and rerun MPI job = run -j 2" 'same ref "$w/kmpi.db"'
fi
# merge: 1,800 closed-form points in 4 shards, merged and killed part way
T="$ROOT/tests/data/scenarios/shards.yaml"
for k in 0 1 2 3; do "$C" run "$T" --shard "$k/4" --db "$w/b$k.db" >/dev/null 2>&1 || bad "big shard $k"; done
"$C" merge "$w/bref.db" "$w/b0.db" "$w/b1.db" "$w/b2.db" "$w/b3.db" >/dev/null 2>&1 || bad "big merge"
rows "$w/bref.db" >"$w/big.rows"
cum="0"
t=0
for k in 0 1 2 3; do t=$((t + $(sqlite3 "$w/b$k.db" "SELECT count(*) FROM results"))); cum="$cum $t"; done
check "the big merge holds 1,800 rows" '[ "$(wc -l <"$w/big.rows")" = 1800 ]'
for k in 8 9 10 11 12 13; do
	"$C" merge "$w/bk.db" "$w/b0.db" "$w/b1.db" "$w/b2.db" "$w/b3.db" >/dev/null 2>&1 &
	pid=$!
	sleep "$(delay "$k" 0.4)"
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	if [ -f "$w/bk.db" ]; then intact "$w/bk.db" && ok || bad "merge: integrity after kill $k"; fi
	n=$(sqlite3 "$w/bk.db" "SELECT count(*) FROM results" 2>/dev/null || echo 0)
	# each shard is one transaction: the rows are whole shards, never part of one
	check "merge: killed after whole shards only ($n rows; whole: $cum)" 'echo " $cum " | grep -q " $n "'
done
"$C" merge "$w/bk.db" "$w/b0.db" "$w/b1.db" "$w/b2.db" "$w/b3.db" >/dev/null 2>&1 && ok || bad "merge: the rerun after the kills"
check "a killed and rerun merge = an uninterrupted one" 'same big "$w/bk.db"'

# ---- refused: conflicts, bad shards, bad arguments ----
cp "$w/s1.db" "$w/conf.db"
sqlite3 "$w/conf.db" "DROP TRIGGER results_ro_u; UPDATE results SET t_model_s = t_model_s * 1.01 WHERE id = 1"
cp "$w/m.db" "$w/m2.db"
"$C" merge "$w/m2.db" "$w/conf.db" >"$w/conf.out" 2>&1
check "a point computed differently is refused" '[ $? -eq 1 ] && grep -q "differs: t_model_s: " "$w/conf.out" &&
	grep -q "1 point computed differently here than in" "$w/conf.out" && same ref "$w/m2.db"'
"$C" merge "$w/m2.db" "$w/none.db" >"$w/none.out" 2>&1
check "a missing shard is named" '[ $? -eq 1 ] && grep -q "none.db: cannot read it: No such file or directory" "$w/none.out"'
echo "not a database" >"$w/text.db"
"$C" merge "$w/m2.db" "$w/text.db" >"$w/text.out" 2>&1
check "a file that is not a database is refused" '[ $? -eq 1 ] && grep -q "text.db: " "$w/text.out"'
"$C" merge "$w/m2.db" "$w/m2.db" >"$w/self.out" 2>&1
check "merging a database into itself is refused" '[ $? -eq 1 ] && grep -q "is the database merged into" "$w/self.out"'
# a shard damaged on disk: one byte of a point key flipped in the results
# table's page, so its unique index no longer matches (SQLite's
# integrity_check says so); merge used to store it silently
cp "$w/s1.db" "$w/flip.db"
p=$(sqlite3 "$w/flip.db" "SELECT point FROM results LIMIT 1")
root=$(sqlite3 "$w/flip.db" "SELECT rootpage FROM sqlite_master WHERE name='results'")
psz=$(sqlite3 "$w/flip.db" "PRAGMA page_size")
for off in $(grep -obUaF "$p" "$w/flip.db" | cut -d: -f1); do
	if [ $((off / psz + 1)) -eq "$root" ]; then
		printf 'X' | dd of="$w/flip.db" bs=1 seek=$((off + 7)) conv=notrunc 2>/dev/null
		break
	fi
done
check "the flipped shard fails SQLite's own check" '[ "$(sqlite3 "$w/flip.db" "PRAGMA integrity_check" | head -n 1)" != ok ]'
"$C" merge "$w/m2.db" "$w/flip.db" >"$w/flip.out" 2>&1
check "a damaged shard is refused and nothing of it stored" '[ $? -eq 1 ] && grep -q "flip.db: integrity check: row" "$w/flip.out" &&
	same ref "$w/m2.db"'
# a schema version no ccsim writes (negative: it indexed the migrations)
cp "$w/s1.db" "$w/neg.db"
sqlite3 "$w/neg.db" "PRAGMA user_version=-5"
"$C" merge "$w/m2.db" "$w/neg.db" >"$w/neg.out" 2>&1
check "a negative schema version is refused" '[ $? -eq 1 ] && grep -q "neg.db: schema version -5 is not one ccsim writes" "$w/neg.out"'
"$C" merge "$w/neg.db" "$w/s1.db" >"$w/neg2.out" 2>&1
check "... as the database merged into too" '[ $? -eq 1 ] && grep -q "schema version -5" "$w/neg2.out"'
"$C" report "$S" --db "$w/neg.db" >"$w/neg3.out" 2>&1
check "... and by report" '[ $? -ne 0 ] && grep -q "schema version -5" "$w/neg3.out"'
for a in "3/3" "a/3" "1/0" "-1/3" "1/" "/3" "1/3x"; do
	"$C" run "$S" --shard "$a" >"$w/arg.out" 2>&1
	check "--shard $a is refused" '[ $? -eq 2 ] && grep -q "expected K/N with 0 <= K < N" "$w/arg.out"'
done
"$C" run "$S" --submit >"$w/arg.out" 2>&1
check "--submit needs --slurm" '[ $? -eq 2 ] && grep -q "go with --slurm" "$w/arg.out"'
"$C" run "$S" --slurm --mpi >"$w/arg.out" 2>&1
check "--slurm and --mpi exclude each other" '[ $? -eq 2 ]'
"$C" merge "$w/m2.db" >"$w/arg.out" 2>&1
check "merge needs a shard" '[ $? -eq 2 ] && grep -q "usage: ccsim merge" "$w/arg.out"'
echo "shards: $pass passed, $fail failed"
