#!/bin/sh
# tests/tools/check_size.sh: every C file of the tree small enough to read.
#   - no file over 900 lines;
#   - no function over 120 lines (from its opening brace in column 0 to its
#     closing one), and at most 10 over 80, each with "one idea" in the
#     comment just above it saying why it is one.
# What is still over is listed, with its length, in tests/tools/size-debt.txt
# ("function FILE NAME LINES" or "file FILE LINES"): a listed item may
# shrink but not grow, and nothing new may join it; an item that meets the
# limits must leave the list.  Exit 1, each problem on one line, when a rule
# breaks; else one line "check-size: ... ok".
# With --list it prints what is over the limits now, in the list's format
# (to rewrite the list after a change that only shrank or moved items).
set -u
cd "$(dirname "$0")/../.." || exit 2
debt=tests/tools/size-debt.txt
if [ "${1:-}" = --list ]; then
	sh "$0" --against /dev/null | sed -n -E \
		-e 's/^check-size: ([^:]+):[0-9]+: ([A-Za-z_0-9]+) has ([0-9]+) lines.*/function \1 \2 \3/p' \
		-e 's/^check-size: ([^ :]+) has ([0-9]+) lines \(at most 900\)/file \1 \2/p'
	exit 0
fi
[ "${1:-}" = --against ] && debt=$2
files=$(git ls-files -co --exclude-standard '*.c' '*.h' '*.cu' 2>/dev/null)
[ -n "$files" ] || files=$(find model sim calibrate tests -name '*.[ch]' | sort)
# shellcheck disable=SC2086
awk -v debtf="$debt" '
BEGIN {
	while ((getline l < debtf) > 0) {
		if (l ~ /^#/ || l ~ /^[ \t]*$/) continue
		n = split(l, w, " ")
		if (w[1] == "function") { dfun[w[2] " " w[3]] = w[4] + 0; ndebt++ }
		else if (w[1] == "file") { dfile[w[2]] = w[3] + 0; ndebt++ }
	}
}
function endfile(f, lines) {
	if (f == "") return
	if (f in dfile) {
		seenfile[f] = 1
		if (lines > dfile[f]) { printf "check-size: %s grew to %d lines (listed at %d)\n", f, lines, dfile[f]; bad = 1 }
		else if (lines <= 900) { printf "check-size: %s is %d lines now: take it off %s\n", f, lines, debtf; bad = 1 }
		else owed++
	} else if (lines > 900) { printf "check-size: %s has %d lines (at most 900)\n", f, lines; bad = 1 }
}
FNR == 1 { endfile(prev, plines); prev = FILENAME; inf = 0; cmt = ""; sig = ""; incmt = 0 }
{ plines = FNR }
!inf && /^\/\*/ { cmt = ""; incmt = 1 }
incmt { cmt = cmt " " $0; if ($0 ~ /\*\//) incmt = 0; next }
!inf && /^[A-Za-z_].*\(/ { sig = $0; sigcmt = cmt }
!inf && /^{/ { inf = 1; start = FNR; name = sig; sub(/\(.*/, "", name); n = split(name, w, /[ *]+/); name = w[n]
               why = tolower(sigcmt); gsub(/[ \t]+\*[ \t]+/, " ", why); gsub(/[ \t]+/, " ", why) }
inf && /^}/ {
	inf = 0; len = FNR - start + 1; key = FILENAME " " name
	if (key in dfun) {
		seenfun[key] = 1
		if (len > dfun[key]) { printf "check-size: %s:%d: %s grew to %d lines (listed at %d)\n", FILENAME, start, name, len, dfun[key]; bad = 1 }
		else if (len <= 80) { printf "check-size: %s:%d: %s is %d lines now: take it off %s\n", FILENAME, start, name, len, debtf; bad = 1 }
		else owed++
	} else if (len > 120) { printf "check-size: %s:%d: %s has %d lines (at most 120)\n", FILENAME, start, name, len; bad = 1 }
	else if (len > 80) {
		nlong++
		if (why !~ /one idea/) { printf "check-size: %s:%d: %s has %d lines: over 80 needs a comment saying why it is one idea\n", FILENAME, start, name, len; bad = 1 }
	}
	cmt = ""; sig = ""
}
!inf && /^$/ { cmt = "" }
END {
	endfile(prev, plines)
	for (k in dfun) if (!(k in seenfun)) { printf "check-size: %s is listed in %s but not found: take it off\n", k, debtf; bad = 1 }
	for (k in dfile) if (!(k in seenfile)) { printf "check-size: %s is listed in %s but not found: take it off\n", k, debtf; bad = 1 }
	if (nlong > 10) { printf "check-size: %d functions over 80 lines (at most 10)\n", nlong; bad = 1 }
	if (!bad) printf "check-size: %d functions of 81-120 lines saying why, %d items still owed (%s): ok\n", nlong, owed, debtf
	exit bad
}' $files
