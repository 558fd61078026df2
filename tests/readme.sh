#!/bin/sh
# tests/readme.sh BUILD_DIR: every `bin/ccsim` command in README.md's sh
# blocks runs as written (continuation lines joined, trailing comments
# dropped, NCCL_* prefixes kept) and exits 0, in a scratch directory that
# sees the shipped topologies/ and scenarios/, so that what it writes
# (compare.md, dgx.dot, out.json, runs) lands there.  Skipped, each said
# with why: commands that need what a test machine lacks (mpirun, a Slurm
# submission, a log or dump the reader brings, their own YAML); the setup
# lines (.ci/deps, make) are what CI itself runs.
# Ends with "readme: N passed, N failed".
B=$(cd "${1:?usage: tests/readme.sh BUILD_DIR}" && pwd)
ROOT=$(pwd)
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
ln -s "$ROOT/topologies" "$w/topologies"
ln -s "$ROOT/scenarios" "$w/scenarios"
pass=0
fail=0
skip=0

# the commands, one per line
awk '/^```sh/ { f = 1; next } /^```/ { f = 0; next }
     f { if (sub(/\\$/, "")) { acc = acc $0; next } print acc $0; acc = "" }' "$ROOT/README.md" >"$w/cmds"

while IFS= read -r line; do
	case "$line" in
	*bin/ccsim*) ;;
	*) continue ;;
	esac
	case "$line" in
	*mpirun*) why="needs mpirun and several hosts" ;;
	*--submit*) why="submits to Slurm" ;;
	*all_reduce_perf.log* | *box.xml*) why="reads the reader's own nccl-tests log or NCCL topology dump" ;;
	*my-cluster.yaml*) why="checks the reader's own topology" ;;
	*) why= ;;
	esac
	if [ -n "$why" ]; then
		skip=$((skip + 1))
		echo "readme: skipped ($why): $line"
		continue
	fi
	# a trailing comment is the README's, not the command's
	# (and the first command's setup is what CI itself runs)
	cmd=$(printf '%s\n' "$line" | sed -e 's/[[:space:]][[:space:]]*#[[:space:]].*$//' -e 's/^sh \.ci\/deps && make && //' \
		-e "s|bin/ccsim|$B/ccsim|g")
	if (cd "$w" && timeout 600 sh -c "$cmd" >"$w/out" 2>"$w/err"); then
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
