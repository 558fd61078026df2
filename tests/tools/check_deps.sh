#!/bin/sh
# tests/tools/check_deps.sh BUILD_DIR: the arrows between files, from the
# objects' symbols (nm: who calls whom) and the headers' include lines.
# Fails (exit 1, each problem on one line) on
#   - a circle between files: A calls B and B (through any others) calls A;
#     or headers that include each other round; or modules (a file without
#     .c/.h, its X_int.h counted in X) that use each other round through
#     their include lines (types, macros, inline functions);
#   - an arrow against the layers, by calls or by includes: model/ uses only model/; calibrate/ only
#     model/; the simulator (sim/*.c, sim/sched/) only model/ and itself;
#     only sim/cli/ uses calibrate/ and sim/ together, and nothing uses sim/cli/;
#   - the engine (sim/engine.c) reaching the fabric or the flow solver:
#     including fabric.h, fabric_int.h or flow.h, directly or through other
#     headers, or calling a ccs_fabric_ or ccs_flows_ function;
#   - two library objects with one name (ar keeps only one of them).
# Prints "check-deps: N files, E arrows: ok" when all hold.
set -u
B=${1:-build/rel}
cd "$(dirname "$0")/../.." || exit 2
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
# the objects of today's sources (a build folder may keep older ones)
srcs=$(git ls-files -co --exclude-standard 'model/*.c' 'sim/*.c' 'calibrate/*.c' 2>/dev/null)
[ -n "$srcs" ] || srcs=$(find model sim calibrate -name '*.c')
# the MPI plugin (sim/cli/mpi/) is built by mpicc straight into a .so, no
# object to read; the NCCL plugins' sources (calibrate/nccl/) are built position-independent
# into BUILD_DIR/pic/ (make plugins)
objs=$(for s in $srcs; do case $s in calibrate/bench_*) ;; sim/cli/mpi/*) ;; calibrate/nccl/*) echo "$B/pic/${s%.c}.o" ;; *) echo "$B/${s%.c}.o" ;; esac; done | sort)
for o in $objs; do
	[ -f "$o" ] || { echo "check-deps: $o missing (build first)"; exit 2; }
done
fail=0

# --- call graph: "user definer" per symbol the user takes from another file
for o in $objs; do
	f=${o#"$B"/}
	f=${f#pic/}
	f=${f%.o}
	nm "$o" | awk -v f="$f" '$2 ~ /^[TDBRC]$/ { print "D", f, $3 } $1 == "U" { print "U", f, $2 }'
done >"$tmp/syms"
awk '$1 == "D" { def[$3] = $2 } $1 == "U" { n++; uf[n] = $2; us[n] = $3 }
     END { for (i = 1; i <= n; i++) if ((us[i] in def) && def[us[i]] != uf[i]) print uf[i], def[us[i]], us[i] }' \
	"$tmp/syms" | sort -u >"$tmp/calls"
awk '{ print $1, $2 }' "$tmp/calls" | sort -u >"$tmp/edges"

# --- layers: model/ uses only model/; calibrate/ and sim/ model/ and
# themselves; the command line (sim/cli/) all three.  LAYERS prints
# "A B WHAT" for each arrow against them.
LAYERS='
function layer(f) {
	if (f ~ /^model\//) return "model"
	if (f ~ /^calibrate\//) return "calibrate"
	if (f ~ /^sim\/cli\//) return "cli"
	if (f ~ /^sim\//) return "sim"
	return "?"
}
{
	a = layer($1); b = layer($2)
	ok = a == b || b == "model" || (a == "cli" && (b == "sim" || b == "calibrate"))
	if (!ok) { print $1, $2, $3, a, b; bad = 1 }
}
END { exit bad }'
awk "$LAYERS" "$tmp/calls" | awk '{ printf "check-deps: %s -> %s (%s): %s may not use %s\n", $1, $2, $3, $4, $5; bad = 1 } END { exit bad }' || fail=1

# --- the engine knows times, events and callbacks only
if grep '^sim/engine ' "$tmp/calls" | grep -E ' (ccs_fabric_|ccs_flows_)' >"$tmp/eng"; then
	sed 's/^\([^ ]*\) \([^ ]*\) \(.*\)/check-deps: sim\/engine.c calls \3 (\2): the engine reaches no fabric or flow solver/' "$tmp/eng"
	fail=1
fi

# --- include lines: header -> header (and the engine's closure)
for h in $(find model calibrate sim -name '*.[ch]' | sort); do
	d=$(dirname "$h")
	sed -n 's/^#include "\(.*\)".*/\1/p' "$h" | while read -r inc; do
		p=$(realpath -m --relative-to=. "$d/$inc")
		echo "$h $p"
	done
done >"$tmp/incs"
awk '
{ e[$1] = e[$1] " " $2 }
END {
	todo = "sim/engine.c"; seen["sim/engine.c"] = 1
	while (todo != "") {
		n = split(todo, q, " "); todo = ""
		for (i = 1; i <= n; i++) {
			m = split(e[q[i]], to, " ")
			for (j = 1; j <= m; j++) if (!(to[j] in seen)) { seen[to[j]] = 1; todo = todo " " to[j]; via[to[j]] = q[i] }
		}
	}
	for (h in seen) if (h ~ /^sim\/(fabric|fabric_int|flow)\.h$/) {
		printf "check-deps: sim/engine.c includes %s (through %s): the engine reaches no fabric or flow solver\n", h, via[h]
		bad = 1
	}
	exit bad
}' "$tmp/incs" || fail=1

# --- modules through their include lines: a file's module is its name
# without .c or .h (a module's own X_int.h is part of X); A uses B when a
# file of A includes B's header (its types, macros and inline functions),
# which the symbols above do not show.  Same layers as the calls.
awk '
function mod(f) { sub(/\.[ch]$/, "", f); sub(/_int$/, "", f); return f }
{ a = mod($1); b = mod($2); if (a != b) print a, b, $2 }' "$tmp/incs" | sort -u >"$tmp/mods"
awk "$LAYERS" "$tmp/mods" | awk '{ printf "check-deps: %s includes %s: %s may not use %s\n", $1, $3, $4, $5; bad = 1 } END { exit bad }' || fail=1

# --- circles: tsort reports a loop in the calls, in headers including
# headers, or in the modules through their include lines
for g in calls incs modules; do
	case $g in
	calls) cp "$tmp/edges" "$tmp/g" ;;
	incs) awk '$1 ~ /\.h$/ && $2 ~ /\.h$/' "$tmp/incs" >"$tmp/g" ;;
	modules) awk '{ print $1, $2 }' "$tmp/mods" | sort -u >"$tmp/g" ;;
	esac
	if ! tsort "$tmp/g" >/dev/null 2>"$tmp/loop"; then
		echo "check-deps: a circle in the $g graph:"
		grep -v 'input contains a loop' "$tmp/loop" | sed 's/^tsort: /  /'
		fail=1
	fi
done

# --- one name per library object
for o in $objs; do basename "$o"; done | grep -v '^main\.o$' | sort | uniq -d | while read -r dup; do
	echo "check-deps: two objects named $dup: ar would keep one"
	exit 1
done || fail=1

[ $fail -eq 0 ] || exit 1
echo "check-deps: $(echo "$objs" | wc -l) files, $(wc -l <"$tmp/edges") arrows, $(awk '{ print $1, $2 }' "$tmp/mods" | sort -u | wc -l) module includes: ok"
