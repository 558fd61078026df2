#!/bin/sh
# tests/scenarios.sh BUILD_DIR: `ccsim run` on every shipped scenario (reduced
# with --quick), its plots (real PNG and SVG that gnuplot drew), the results
# database (rows, integrity, resume after SIGINT / SIGTERM / a stop after N
# points, two runs writing at once), and `ccsim compare` / `ccsim report`.
# Ends with "scenarios: N passed, N failed".
B=$(cd "${1:?usage: tests/scenarios.sh BUILD_DIR}" && pwd)
ROOT=$(pwd)
C="$B/ccsim"
pass=0
fail=0
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: scenarios: $1"; [ -f "$w/out" ] && head -n 20 "$w/out"; }
has() { if grep -q -- "$1" "$w/out"; then ok; else bad "output lacks '$1'"; fi; }
q() { sqlite3 "$w/s.db" "$1"; }

# is_png FILE / is_svg FILE: what gnuplot's pngcairo and svg terminals write
is_png() { [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; }
is_svg() { grep -q '<svg' "$1" && grep -q 'Produced by GNUPLOT' "$1"; }

if ! command -v gnuplot >/dev/null || ! command -v sqlite3 >/dev/null; then
	bad "gnuplot or the sqlite3 shell is missing (.ci/deps installs both)"
fi

# ---- every shipped scenario, reduced ----
for y in "$ROOT"/scenarios/*.yaml; do
	n=$(basename "$y" .yaml)
	case "$n" in bisection-2to1|incast-2node|ring4-allgather) continue ;; esac   # schedule files, not scenarios
	"$C" run "$y" --quick -j 2 --db "$w/s.db" --out "$w/plots/$n" >"$w/out" 2>&1
	rc=$?
	[ "$rc" -eq 0 ] && ok || bad "$n: exit $rc"
	drawn=$(sed -n 's/^# plots: \([0-9]*\) of \([0-9]*\) drawn.*/\1 \2/p' "$w/out")
	set -- $drawn
	if [ -n "${1:-}" ] && [ "$1" = "$2" ] && [ "$1" -gt 0 ]; then ok; else bad "$n: plots drawn: '$drawn'"; fi
	imgs=0
	for p in $(sed -n 's/^#   \(.*\)\.png$/\1/p' "$w/out"); do
		if is_png "$p.png" && is_svg "$p.svg" && [ -s "$p.dat" ] && [ -s "$p.gp" ]; then imgs=$((imgs + 1)); else bad "$n: $p is not a gnuplot PNG+SVG with its .dat and .gp"; fi
	done
	[ "$imgs" -gt 0 ] && ok || bad "$n: no image listed"
	rows=$(q "SELECT count(*) FROM results r JOIN scenarios s ON s.id = r.scenario_id WHERE s.name = '$n'")
	pts=$(sed -n 's/^# \([0-9]*\) points:.*/\1/p' "$w/out")
	[ -n "$pts" ] && [ "$rows" = "$pts" ] && ok || bad "$n: $rows rows in the database for $pts points"
done
# the default study's designs on one chart per swept workload, closed form and
# simulated named in the key; per design, the key says which engine; the
# breakdown's bars name the point; axes and heatmaps in words, not keys
d="$w/plots/default"
head -2 "$d/compare-allreduce.dat" | grep -q '"HGX H100 x 4 (32 GPUs, 400G IB), closed form" "HGX H100 x 4 (32 GPUs, 400G IB), simulated" "GB200 NVL72 (32 of 72 GPUs), closed form"' &&
	grep -q 'lc (i-1)/2' "$d/compare-allreduce.gp" && grep -q 'dt 2' "$d/compare-allreduce.gp" && ok || bad "default: compare-allreduce"
[ ! -e "$d/compare-alltoall-64MiB.dat" ] && ok || bad "default: a one-size workload has no comparison chart"
grep -q '"closed form" "simulated"' "$d/busbw-allreduce-HGX-H100-x-4-32-GPUs-400G-IB.dat" && ok || bad "default: busbw key"
grep -q 'message size 256MiB' "$d/breakdown-allreduce.gp" && grep -q '"sync: a wait per pipeline step"' "$d/breakdown-allreduce.dat" && ok ||
	bad "default: breakdown names its point and its parts"
grep -q "set xlabel 'ranks'" "$w/plots/supernode-compare/time-allreduce-1GiB-vs-workload.ranks.gp" && ok || bad "supernode-compare: axis in words"
h=$(ls "$w/plots/nic-vs-spine/"links-*.gp | head -1)
grep -q 'link utilisation over time\\nHGX H100 x 16, fat tree' "$h" && ! grep -q 'design=' "$h" && ok || bad "nic-vs-spine: heatmap title in words"
# the busbw plot of the algorithm study has a line per algorithm/protocol
grep -q '"ring ll128"' "$w/plots/algo-compare-1k/busbw-allreduce-HGX-H100-x-128-1-024-GPUs.dat" && ok || bad "algo-compare busbw series"
[ "$(q 'PRAGMA integrity_check')" = ok ] && ok || bad "integrity_check after the shipped scenarios"

# ---- rerun: nothing to do ----
"$C" run "$ROOT/scenarios/default.yaml" --quick --db "$w/s.db" --out "$w/plots/default" >"$w/out" 2>&1
has "points: 0 run now"

# ---- a stop after 5 points (the test hook), then the rest ----
CCS_RUN_STOP_AFTER=5 "$C" run "$ROOT/scenarios/default.yaml" --db "$w/r.db" --no-plots -j 2 >"$w/out" 2>&1
rc=$?
[ "$rc" -eq 130 ] && ok || bad "stopped run: exit $rc, want 130"
has "interrupted: "
has "run the same command again to finish"
stored=$(sqlite3 "$w/r.db" 'SELECT count(*) FROM results')
[ "$stored" -ge 5 ] && [ "$stored" -le 7 ] && ok || bad "stopped after 5: $stored stored"
"$C" run "$ROOT/scenarios/default.yaml" --db "$w/r.db" --no-plots -j 2 >"$w/out" 2>&1
has "# 30 points: $((30 - stored)) run now, $stored from"
[ "$(sqlite3 "$w/r.db" 'SELECT count(*) FROM results')" = 30 ] && ok || bad "30 rows after the rerun"

# ---- SIGINT and SIGTERM in the middle ----
for sig in INT TERM; do
	rm -f "$w/i.db" "$w/i.db-wal" "$w/i.db-shm"
	"$C" run "$ROOT/scenarios/nic-vs-spine.yaml" --quick --db "$w/i.db" --no-plots >"$w/out" 2>&1 &
	pid=$!
	sleep 2
	kill -"$sig" "$pid" 2>/dev/null
	wait "$pid"
	rc=$?
	have=$(sqlite3 "$w/i.db" 'SELECT count(*) FROM results' 2>/dev/null || echo 0)
	if [ "$rc" -eq 130 ]; then
		has "interrupted: $have of 8 points stored"
	elif [ "$rc" -eq 0 ]; then
		ok   # finished before the signal came: nothing to resume
	else
		bad "SIG$sig: exit $rc"
	fi
	[ "$(sqlite3 "$w/i.db" 'PRAGMA integrity_check')" = ok ] && ok || bad "integrity after SIG$sig"
	"$C" run "$ROOT/scenarios/nic-vs-spine.yaml" --quick --db "$w/i.db" --no-plots >"$w/out" 2>&1
	has "# 8 points: $((8 - have)) run now, $have from"
done

# ---- two runs writing to one database at once lose nothing ----
rm -f "$w/c.db"
"$C" run "$ROOT/scenarios/algo-compare-1k.yaml" --quick --db "$w/c.db" --no-plots >"$w/c1" 2>&1 &
p1=$!
"$C" run "$ROOT/scenarios/supernode-compare.yaml" --quick --db "$w/c.db" --no-plots >"$w/c2" 2>&1 &
p2=$!
"$C" run "$ROOT/scenarios/algo-compare-1k.yaml" --quick --db "$w/c.db" --no-plots -j 2 >"$w/c3" 2>&1
r3=$?
wait $p1; r1=$?
wait $p2; r2=$?
[ "$r1$r2$r3" = 000 ] && ok || bad "concurrent runs exited $r1 $r2 $r3"
n1=$(sed -n 's/^# \([0-9]*\) points:.*/\1/p' "$w/c1")
n2=$(sed -n 's/^# \([0-9]*\) points:.*/\1/p' "$w/c2")
[ "$(sqlite3 "$w/c.db" 'SELECT count(*) FROM results')" = "$((n1 + n2))" ] && ok || bad "concurrent runs: rows $(sqlite3 "$w/c.db" 'SELECT count(*) FROM results'), want $n1 + $n2"
[ "$(sqlite3 "$w/c.db" 'PRAGMA integrity_check')" = ok ] && ok || bad "integrity after concurrent runs"

# ---- compare and report ----
"$C" compare --db "$w/s.db" default supernode-compare >"$w/out" 2>&1
[ $? -eq 1 ] && ok || bad "compare of two unrelated scenarios should fail"
has "nothing in common"
"$C" compare -t "$ROOT/topologies/hgx-h100.yaml" -t "$ROOT/topologies/hgx-b200.yaml" -c allreduce -b 1M -e 1G -f 32 >"$w/out" 2>&1
[ $? -eq 0 ] && ok || bad "compare of two designs"
has "hgx-b200 / hgx-h100"
"$C" compare --db "$w/s.db" default --design "HGX H100 x 4 (32 GPUs, 400G IB)" --design "GB200 NVL72 (32 of 72 GPUs)" >"$w/out" 2>&1
[ $? -eq 0 ] && ok || bad "compare two designs of one scenario"
has "ratio"
"$C" report --db "$w/s.db" default -o "$w/report.md" --out "$w/plots/default" >"$w/out" 2>&1
[ $? -eq 0 ] && ok || bad "report md"
grep -q '^| ' "$w/report.md" && grep -q '!\[' "$w/report.md" && ok || bad "report.md has no table or image"
"$C" report --db "$w/s.db" nic-vs-spine --format html -o "$w/report.html" --out "$w/plots/nic-vs-spine" >"$w/out" 2>&1
[ $? -eq 0 ] && ok || bad "report html"
grep -q '<table' "$w/report.html" && [ "$(grep -c '<svg' "$w/report.html")" -ge 4 ] && ! grep -q '<img src=' "$w/report.html" &&
	grep -q 'Designs and assumptions' "$w/report.html" && grep -q 'scale-out routing' "$w/report.html" && ok ||
	bad "report.html: no table, fewer than 4 charts inline, a file referenced, or no designs"
# the default study's page in a browser: one file, summary, charts inline,
# designs; headless Chromium draws it (a screenshot of the asked size, far
# from blank) and its DOM holds the charts
"$C" report --db "$w/s.db" default --format html -o "$w/default.html" --out "$w/plots/default" >"$w/out" 2>&1
has "charts inline"
grep -q '<h2>Summary</h2>' "$w/default.html" && grep -q 'is fastest' "$w/default.html" && grep -q 'x slower' "$w/default.html" &&
	grep -q 'compare-allreduce\|allreduce bus bandwidth, every design' "$w/default.html" && ok || bad "default.html: summary or comparison chart"
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -n "$browser" ]; then
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1200,3000 \
		--screenshot="$w/shot.png" "file://$w/default.html" >/dev/null 2>&1
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu --dump-dom "file://$w/default.html" >"$w/dom.html" 2>/dev/null
	# PNG: IHDR width and height (bytes 17-24); a blank page of this size is
	# about 20 KB, charts and tables make it hundreds
	dims=$(od -An -tu1 -j16 -N8 "$w/shot.png" 2>/dev/null | awk '{print $1*16777216+$2*65536+$3*256+$4, $5*16777216+$6*65536+$7*256+$8}')
	sz=$(wc -c <"$w/shot.png" 2>/dev/null || echo 0)
	if is_png "$w/shot.png" && [ "$dims" = "1200 3000" ] && [ "$sz" -gt 150000 ]; then ok; else bad "report screenshot: '$dims', $sz bytes"; fi
	[ "$(grep -o '<svg' "$w/dom.html" | wc -l)" -ge 6 ] && grep -q 'Designs and assumptions' "$w/dom.html" && ok ||
		bad "report in the browser: charts or designs missing from its DOM"
else
	echo "scenarios: no Chromium: the report's browser check skipped (.ci/deps installs it)"
fi

echo "scenarios: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
