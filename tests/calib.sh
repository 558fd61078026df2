#!/bin/sh
# tests/calib.sh BUILD_DIR: `ccsim calibrate` end to end, in a scratch directory:
# ingest, show, fit -> calibration file -> predict, check and diff with JUnit,
# bad logs, the database read with the sqlite3 shell, append-only history, and
# benches that find no device.  Ends with "calib: N passed, N failed".
B=$(cd "${1:?usage: tests/calib.sh BUILD_DIR}" && pwd)
ROOT=$(pwd)
C="$B/ccsim"
T="$ROOT/topologies/hgx-h100.yaml"
D="$ROOT/tests/data/calib"
pass=0
fail=0
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
cd "$w" || exit 1

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: calib: $1"; [ -f out ] && head -n 15 out; }
# expect RC DESCRIPTION -- COMMAND...: run, keep stdout+stderr in ./out
expect() {
	want=$1; what=$2; shift 3
	"$@" >out 2>&1
	rc=$?
	if [ "$rc" -eq "$want" ]; then ok; else bad "$what: exit $rc, want $want"; fi
}
has() { if grep -q -- "$1" out; then ok; else bad "output lacks '$1'"; fi; }

# An nccl-tests log made by the model with known parameters (13 columns):
# synthn TOPO RANKS ARGS... writes the first and the last rank's lines (8
# ranks per host; the first host synth-host), which give the rank count,
# and the model's rows; GPU names the device (H100); synth is hgx-h100 at 8.
synthn() {
	topo=$1 n=$2
	shift 2
	"$C" predict -t "$topo" -n "$n" -c allreduce -b 8 -e 8G -f 2 "$@" | awk -v n="$n" -v gpu="${GPU:-H100}" '
		BEGIN { for (r = 0; r < n; r += n - 1)
		                printf "#  Rank %2d Group  0 Pid %d on synth-host%s device %2d [0x00] NVIDIA %s\n", r, r + 1,
		                       r < 8 ? "" : int(r / 8), r % 8, gpu;
		        print "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong" }
		/^ +[0-9]/ { printf "%12s %12s %8s %6s %6s %9s %7s %7s %5s %9s %7s %7s %5s\n", $1, $2, $3, $4, $5, $6, $7, $8, 0, $6, $7, $8, 0 }'
}
synth() { synthn "$T" 8 "$@"; }

# ---- ingest and show ----
synth --set model.efficiency.nvlink=0.6 --set model.step_overhead.ll=0.5us >all_reduce_perf.log
expect 0 "ingest" -- "$C" calibrate ingest all_reduce_perf.log "$D/perftest-write-bw-sweep.log" -t "$T"
has "run 1: 65 measurements from 2 logs, host synth-host, stored in ccsim.db"
expect 0 "show" -- "$C" calibrate show
has "synth-host"
expect 0 "show 1" -- "$C" calibrate show 1
has "allreduce/8          oop float        31"
expect 1 "show a run that is not there" -- "$C" calibrate show 9
has "no run 9 (the database has runs 1 to 1)"

# ---- the database is plain SQLite, readable and append-only ----
if command -v sqlite3 >/dev/null; then
	[ "$(sqlite3 ccsim.db 'PRAGMA integrity_check')" = ok ] && ok || bad "integrity_check"
	[ "$(sqlite3 ccsim.db 'PRAGMA journal_mode')" = wal ] && ok || bad "journal mode is not WAL"
	[ "$(sqlite3 ccsim.db "SELECT count(*) FROM measurements WHERE source = 'perftest'")" = 3 ] && ok || bad "perftest rows"
	[ "$(sqlite3 ccsim.db 'SELECT measurements FROM run_summary WHERE run = 1')" = 65 ] && ok || bad "run_summary view"
	sqlite3 ccsim.db 'DELETE FROM measurements' >out 2>&1 && bad "DELETE allowed" || has "history is append-only"
	sqlite3 ccsim.db "UPDATE runs SET kind = 'run'" >out 2>&1 && bad "UPDATE allowed" || has "history is append-only"
else
	bad "the sqlite3 shell is missing (.ci/deps installs it)"
fi

# ---- a copy cut inside its last row: the rows before it kept, the cut one named ----
expect 0 "truncated log" -- "$C" calibrate ingest "$D/bad-nt-truncated-h20.log" --db t.db
has "bad-nt-truncated-h20.log:12:"
has "the log ends inside this row: skipped"
[ "$(sqlite3 t.db 'SELECT count(*) FROM measurements' 2>/dev/null)" = 20 ] && ok || bad "the truncated log's whole rows"
# ---- bad logs: nothing stored, the line named ----
cat all_reduce_perf.log "$D/perftest-write-bw-sweep.log" >mixed.log
expect 1 "an nccl-tests log with a perftest table pasted after it" -- "$C" calibrate ingest mixed.log --db x.db
has "mixed.log:36:"
printf 'hello\nworld\n' >notes.txt
expect 1 "not a log" -- "$C" calibrate ingest notes.txt --db x.db
has "notes.txt:1:1: not a nccl-tests, perftest, ccsim-bench or ccsim-profiler log"
printf '# ccsim-bench 1\n# host: dgx-z\nname=h2d class=pcie size=4096 iters=10 median=3e-06 unit=s\nname=h2d size=8192 iters=10 median=oops unit=s\nname=h2d class=pcie size=16384 iters=10 median=3.6e-06 unit=s\nname=h2d class=pcie size=32768 iters=10 median=4.3e-06 unit=s\nname=h2d cla' >bench.log
expect 0 "bench log with bad lines" -- "$C" calibrate ingest bench.log --db b.db
has "warning: bench.log:4:36: expected a positive time, got 'oops'; record skipped"
has "warning: bench.log:7:10: expected key=value, got 'cla'; record skipped"
has "run 1: 3 measurements from 1 log, host dgx-z"
expect 1 "newer schema" -- sh -c "sqlite3 new.db 'PRAGMA user_version=99; CREATE TABLE t(x)' && '$C' calibrate show --db new.db"
has "new.db: schema version 99 is newer than this ccsim knows (5)"
expect 1 "somebody else's database" -- sh -c "sqlite3 other.db 'CREATE TABLE t(x)' && '$C' calibrate ingest all_reduce_perf.log --db other.db"
has "a SQLite database that ccsim did not create"

# ---- fit: the calibration file reproduces the log ----
expect 0 "fit" -- "$C" calibrate fit -o fitted.yaml
has "nvlink efficiency 0.600"
grep -q "ll: 0.49" fitted.yaml && ok || bad "LL step overhead not recovered: $(grep 'll:' fitted.yaml)"
"$C" topo check "$T" --set calibration="$w/fitted.yaml" >out 2>&1 && ok || bad "topology with the calibration file"
synth --set calibration="$w/fitted.yaml" >after.log
worst=$(paste all_reduce_perf.log after.log | awk '/^ +[0-9]/ { e = $19 / $6 - 1; if (e < 0) e = -e; if (e > m) m = e } END { printf "%.4f", m }')
awk -v m="$worst" 'BEGIN { exit !(m < 0.005) }' && ok || bad "predictions with the calibration file off the log by $worst"
expect 0 "fit with residuals" -- "$C" calibrate fit --run 1 -o fitted2.yaml --residuals
has "residuals of nccl/allreduce/8, 64 MiB-8 GiB:"
expect 0 "fit to stdout" -- "$C" calibrate fit --run 1 -t "$T"
has "  efficiency:"
has "rdma_write_bw"
expect 1 "fit a run that is not there" -- "$C" calibrate fit --run 7
has "no run 7"

# ---- check: an unchanged rerun passes, a 20% bandwidth drop does not ----
expect 0 "ingest the rerun" -- "$C" calibrate ingest all_reduce_perf.log -t "$T"
expect 0 "check unchanged" -- "$C" calibrate check --baseline previous --junit same.xml
has "0 regressions beyond 5.0%"
grep -q 'failures="0"' same.xml && ok || bad "JUnit of an unchanged run"
synth --set model.efficiency.nvlink=0.48 --set model.step_overhead.ll=0.5us >all_reduce_perf.log
expect 0 "ingest the slow run" -- "$C" calibrate ingest all_reduce_perf.log -t "$T"
expect 1 "check a 20% drop" -- "$C" calibrate check --baseline previous --tolerance 5% --junit drop.xml
has "REGRESSION"
has "allreduce/8 oop float busbw"
has "nvlink efficiency (fit)"
grep -q '<failure type="regression"' drop.xml && ok || bad "JUnit has no failure"
grep -q '<testsuites tests="[0-9]*" failures="[1-9]' drop.xml && ok || bad "JUnit failure count"
expect 0 "check against run 2 with a loose tolerance" -- "$C" calibrate check --baseline 2 --tolerance 30%
expect 2 "check without a baseline" -- "$C" calibrate check
has "'--baseline RUN|previous' is required"
expect 0 "diff" -- "$C" calibrate diff 2 3
has "oop float busbw               8 GiB   358.3 GB/s   295.3 GB/s    -17.6%  REGRESSION"
expect 2 "bad tolerance" -- "$C" calibrate check --baseline previous --tolerance five
has "must be a percentage"

# ---- transfer: a 1-node and a 2-node log of a perturbed machine (seeded) ----
# The model writes both logs from aws-p4de with efficiencies drawn from the
# seed; the fit must recover them within 5%, and with the calibration the
# prediction at 4 nodes (never shown to the fit) must be closer to the
# perturbed machine's than without it.
P4=$ROOT/topologies/aws-p4de.yaml
SEED=${CCSIM_SEED:-18}
set -- $(awk -v s="$SEED" 'BEGIN { srand(s); printf "%.3f %.3f", 0.6 + 0.2 * rand(), 0.6 + 0.3 * rand() }')
e_nvl=$1 e_eth=$2
GPU=A100
PERT="--set model.efficiency.nvlink=$e_nvl --set model.efficiency.ethernet=$e_eth"
mkdir -p p4/one p4/two
# shellcheck disable=SC2086
synthn "$P4" 8 $PERT >p4/one/all_reduce_perf.log
# shellcheck disable=SC2086
synthn "$P4" 16 $PERT >p4/two/all_reduce_perf.log
# shellcheck disable=SC2086
synthn "$P4" 32 --set nodes=4 $PERT >p4/four.log
expect 0 "ingest 1 and 2 nodes" -- "$C" calibrate ingest p4/one/all_reduce_perf.log p4/two/all_reduce_perf.log -t "$P4" --db p4.db
expect 0 "fit 1 and 2 nodes" -- "$C" calibrate fit -t "$P4" --db p4.db -o p4.yaml
for pair in "nvlink $e_nvl" "ethernet $e_eth"; do
	set -- $pair
	got=$(awk -v k="$1:" '$1 == k { print $2 }' p4.yaml)
	awk -v g="$got" -v w="$2" 'BEGIN { e = g / w - 1; exit !(g != "" && e < 0.05 && e > -0.05) }' && ok ||
		bad "seed $SEED: $1 efficiency $2 recovered as '$got'"
done
synthn "$P4" 32 --set nodes=4 >p4/four-raw.log
synthn "$P4" 32 --set nodes=4 --set calibration="$w/p4.yaml" >p4/four-cal.log
errs=$(paste p4/four.log p4/four-raw.log p4/four-cal.log | awk '/^ +[0-9]/ {
	a = $19 / $6 - 1; b = $32 / $6 - 1; if (a < 0) a = -a; if (b < 0) b = -b; sa += a; sb += b; k++ }
	END { printf "%.4f %.4f", sa / k, sb / k }')
set -- $errs
awk -v a="$1" -v b="$2" 'BEGIN { exit !(b < a && b < 0.05) }' && ok ||
	bad "seed $SEED: at 4 nodes mean error $2 with the calibration, $1 without"

# ---- refused fits: values outside physical bounds are not written ----
# shellcheck disable=SC2086
synthn "$P4" 16 --set model.efficiency.ethernet=0.1 >p4/two/all_reduce_perf.log
expect 0 "ingest a slow 2-node log" -- "$C" calibrate ingest p4/two/all_reduce_perf.log -t "$P4" --db slow.db
expect 1 "fit a too slow machine" -- sh -c "'$C' calibrate fit -t '$P4' --db slow.db -o slow.yaml 2>&1 >/dev/null"
cmp -s out "$D/refused-slow.err" && ok || { bad "refused fit message (slow)"; diff "$D/refused-slow.err" out | head -5; }
[ ! -e slow.yaml ] && ok || bad "a refused fit wrote slow.yaml"
synthn "$P4" 8 >p4/one/all_reduce_perf.log
synthn "$P4" 16 >p4/two/all_reduce_perf.log
expect 0 "ingest a healthy machine" -- "$C" calibrate ingest p4/one/all_reduce_perf.log p4/two/all_reduce_perf.log -t "$P4" --db fast.db
expect 1 "fit against a topology with slower NICs" -- sh -c "'$C' calibrate fit -t '$P4' --db fast.db --set node.devices.3.bandwidth=25Gb/s -o fast.yaml 2>&1 >/dev/null"
cmp -s out "$D/refused-fast.err" && ok || { bad "refused fit message (fast)"; diff "$D/refused-fast.err" out | head -5; }
[ ! -e fast.yaml ] && ok || bad "a refused fit wrote fast.yaml"

# ---- benches: built here only where their toolkits are; no device, no run ----
mkdir benches
for b in ccsim-bench-cuda ccsim-bench-rdma; do
	[ -x "$ROOT/bin/$b" ] && cp "$ROOT/bin/$b" benches/
done
expect 1 "calibrate run without devices" -- "$C" calibrate run --bench-dir benches --db r.db
if [ -x benches/ccsim-bench-cuda ]; then has "no CUDA device"; fi
if [ -x benches/ccsim-bench-rdma ]; then has "no RDMA device"; fi
has "nothing stored"

# ---- check across sweeps and kinds of run (ck.db) ----
# The baseline sweeps powers of 2, the newest run powers of 3: busbw is
# compared at the newest's sizes, the baseline interpolated between its own;
# 'previous' passes over the perftest-only run in between (nothing in
# common); the host's first run has nothing to compare yet, which is no
# regression (the README's 'ingest && check --baseline previous' on a first
# day exits 0, its JUnit case passes); nothing in common writes JUnit in error.
synth >pow2.log
expect 0 "ingest powers of 2" -- "$C" calibrate ingest pow2.log --db ck.db --host box
expect 0 "ingest a perftest run" -- "$C" calibrate ingest "$D/perftest-write-bw-sweep.log" --db ck.db --host box
expect 0 "check a first run" -- "$C" calibrate check --db ck.db --run 1 --baseline previous --junit first.xml
has "run 1 is the first of host box: nothing to compare with yet"
grep -q '<testsuites tests="1" failures="0" errors="0">' first.xml && grep -q "name=\"baseline comparison (the host's first run)\"" first.xml && ok || bad "JUnit of a first run"
synth -f 3 >pow3.log
expect 0 "ingest powers of 3" -- "$C" calibrate ingest pow3.log --db ck.db --host box
expect 0 "check powers of 3 against powers of 2" -- "$C" calibrate check --db ck.db --baseline previous --junit pow.xml
has "run 3 (box,"
has "against baseline run 1 (box,"
has "allreduce/8 oop float busbw (interp.)"
has " 0 regressions beyond 5.0%"
grep -q '<testsuites tests="[1-9][0-9]*" failures="0" errors="0">' pow.xml && ok || bad "JUnit of an interpolated check"
synth -f 3 --set model.efficiency.nvlink=0.6 >pow3slow.log
expect 0 "ingest slower powers of 3" -- "$C" calibrate ingest pow3slow.log --db ck.db --host box
expect 1 "check slower powers of 3 against powers of 2" -- "$C" calibrate check --db ck.db --baseline 1
has "(interp.)"
has "REGRESSION"
expect 1 "check against the perftest run" -- "$C" calibrate check --db ck.db --baseline 2 --junit none.xml
has "nothing in common"
grep -q 'errors="1"' none.xml && ok || bad "JUnit when nothing is compared"

# a quoted AllGather table saved as job.txt: refused until -c says which
printf '%s\n' '# size count type redop root time algbw busbw #wrong time algbw busbw #wrong' \
	'   134217728       4194304     float    none      -1   480.5  279.33  244.41      0   479.9  279.68  244.72      0' >job.txt
expect 1 "ingest a log that does not name its collective" -- "$C" calibrate ingest job.txt --db q.db
has "job.txt:2:1: which collective?"
has "say it with -c"
expect 0 "ingest -c allgather --ppn 4" -- "$C" calibrate ingest job.txt --db q.db -c allgather --ppn 4
expect 0 "show the run" -- "$C" calibrate show --db q.db 1
has "allgather"
expect 1 "ingest -n contradicting busbw / algbw" -- "$C" calibrate ingest job.txt --db q.db -c allgather -n 16
has "job.txt:2:1: the log shows 8 ranks (its busbw / algbw), -n says 16"
expect 2 "ingest -c with an unknown collective" -- "$C" calibrate ingest job.txt --db q.db -c allgahter
has "unknown collective 'allgahter'"

# numbers that contradict themselves are stored with a flag, shown apart by
# show and kept out of what check compares
expect 0 "ingest a log with contradicting rows" -- "$C" calibrate ingest "$D/bad-nt-contradict.log" --db flag.db
has "8 measurements"
has "3 row half(s) whose numbers contradict themselves stored with a flag, kept out of fits and checks"
expect 0 "show the flagged run" -- "$C" calibrate show --db flag.db 1
has "3 measurements stored with a flag, kept out of fits and checks; the first, bad-nt-contradict.log:"
[ "$(sqlite3 flag.db "SELECT count(*) FROM measurements WHERE flag != ''")" = 3 ] && ok || bad "3 flagged rows in the database"
expect 0 "ingest it again" -- "$C" calibrate ingest "$D/bad-nt-contradict.log" --db flag.db
expect 0 "check the second against the first: the flagged rows are not compared" -- "$C" calibrate check --db flag.db --baseline 1
has "5 compared, 0 regressions beyond 5.0%"

# forms operators save (tests/data/calib/README.md): each ingests what ran
# and names what it kept out
expect 0 "ingest a table pasted without '#', indented" -- "$C" calibrate ingest "$D/form-nt-indented.log" --db forms.db
has "4 measurements"
expect 0 "ingest #wrong printed as N/A" -- "$C" calibrate ingest "$D/form-nt-wrong-na.log" --db forms.db
has "4 measurements"
expect 0 "ingest a row of size 0" -- "$C" calibrate ingest "$D/form-nt-size0.log" --db forms.db
has "2 measurements"
has "form-nt-size0.log:3:1: 2 row half(s) of size 0 kept out"
expect 0 "ingest srun and Open MPI lines between rows" -- "$C" calibrate ingest "$D/form-nt-slurm-ompi.log" --db forms.db
has "4 measurements"
expect 0 "ingest perftest stopping mid-sweep" -- "$C" calibrate ingest "$D/form-pf-abort.log" --db forms.db
has "3 measurements"
has "form-pf-abort.log:21:2: the test stopped: Completion with error at client; the 3 size(s) before it kept"
expect 1 "ingest perftest failing before its table" -- "$C" calibrate ingest "$D/form-pf-connect-fail.log" --db forms.db
has "form-pf-connect-fail.log:17:2: no perftest row: the test failed: Couldn't connect to 10.0.0.2:18515"

echo "calib: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
