#!/bin/sh
# tests/readme.sh BUILD_DIR: every `bin/ccsim` command in the sh blocks of
# README.md and docs/features.md runs as written (continuation lines joined,
# trailing comments dropped, NCCL_* prefixes kept) and exits 0 (diagnose:
# one of its verdicts, 0, 3 or 4), in a scratch directory that sees the
# shipped topologies/ and scenarios/, so that what it writes (compare.md,
# dgx.dot, out.json, runs) lands there.  What the reader would bring is a
# fixture there: all_reduce_perf.log (a shipped 8 x H100 nccl-tests log),
# box.xml (a shipped HGX H100 topology dump), my-cluster.yaml (a shipped
# topology); a step before `&&` that runs something other than ccsim (an
# nccl-tests binary) is left out, said so.  Skipped, each said with why:
# what a test machine lacks (mpirun, a Slurm submission); the setup lines
# (.ci/deps, make) are what CI itself runs.
# Ends with "readme: N passed, N failed".
B=$(cd "${1:?usage: tests/readme.sh BUILD_DIR}" && pwd)
ROOT=$(pwd)
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
ln -s "$ROOT/topologies" "$w/topologies"
ln -s "$ROOT/scenarios" "$w/scenarios"
cp "$ROOT/tests/data/calib/all_reduce_perf-h100x8-mooncake.log" "$w/all_reduce_perf.log"
cp "$ROOT/tests/data/topo/hgx-h100-dump.xml" "$w/box.xml"
sed 's|extends: *|&topologies/|' "$ROOT/topologies/hgx-h100-cluster.yaml" >"$w/my-cluster.yaml"
pass=0
fail=0
skip=0

# the commands, one per line
awk '/^```sh/ { f = 1; next } /^```/ { f = 0; next }
     f { if (sub(/\\$/, "")) { acc = acc $0; next } print acc $0; acc = "" }' "$ROOT/README.md" "$ROOT/docs/features.md" >"$w/cmds"

while IFS= read -r line; do
	case "$line" in
	*bin/ccsim*) ;;
	*) continue ;;
	esac
	case "$line" in
	*mpirun*) why="needs mpirun and several hosts" ;;
	*--submit*) why="submits to Slurm" ;;
	*) why= ;;
	esac
	if [ -n "$why" ]; then
		skip=$((skip + 1))
		echo "readme: skipped ($why): $line"
		continue
	fi
	# a trailing comment is the README's, not the command's
	# (and the first command's setup is what CI itself runs)
	cmd=$(printf '%s\n' "$line" | sed -e 's/[[:space:]][[:space:]]*#[[:space:]].*$//' -e 's/^sh \.ci\/deps && make && //')
	# a first step that runs something else (all_reduce_perf) is the reader's
	case "$cmd" in
	*"&&"*)
		first=${cmd%%&&*}
		case "$first" in
		*bin/ccsim*) ;;
		*) echo "readme: left out of '$line': the step before && ($first)"; cmd=${cmd#*&& } ;;
		esac
		;;
	esac
	cmd=$(printf '%s\n' "$cmd" | sed -e "s|bin/ccsim|$B/ccsim|g")
	(cd "$w" && timeout 600 sh -c "$cmd" >"$w/out" 2>"$w/err")
	rc=$?
	case "$cmd" in *" diagnose "*) [ "$rc" -eq 3 ] || [ "$rc" -eq 4 ] && rc=0 ;; esac
	if [ "$rc" -eq 0 ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: readme: $line"
		tail -n 5 "$w/err"
	fi
done <"$w/cmds"
echo "readme: $skip commands skipped (above, each with why)"
echo "readme: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
