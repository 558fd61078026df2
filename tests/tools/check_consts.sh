#!/bin/sh
# tests/tools/check_consts.sh: no physical constant outside the tables.
# The model's constants live in model/params.c (the parameter table, each row
# with its kind and source), NCCL's own tuning constants in
# model/nccl_tune.c (each beside its NCCL source line), parts' datasheet
# figures in model/topo_parts.c and unit factors in model/units.c.  Every
# other floating literal in model/, sim/ and calibrate/ (outside comments,
# strings and preprocessor lines; exact powers of ten and two pass: unit
# conversions, halves, byte sizes) must be listed with why in
# tests/tools/consts-ok.txt; a listed one no longer there must leave the list.
# Integer literals are not checked (indices, counts, bit widths).
# Exit 1 with one line per problem; else one line "check-consts: ... ok".
set -u
cd "$(dirname "$0")/../.." || exit 2
ok=tests/tools/consts-ok.txt
tables='^model/(params|nccl_tune|topo_parts|units)\.c$'
found=$(find model sim calibrate \( -name '*.c' -o -name '*.h' -o -name '*.cu' \) | LC_ALL=C sort | grep -vE "$tables" |
	while read -r f; do awk -f tests/tools/consts.awk "$f"; done | LC_ALL=C sort -u)
listed=$(grep -vE '^#|^[[:space:]]*$' "$ok" | awk '{print $1, $2}' | LC_ALL=C sort -u)
new=$(printf '%s\n' "$found" | grep -v '^$' | LC_ALL=C comm -23 - "$(printf '%s\n' "$listed" > "${TMPDIR:-/tmp}/consts.$$"; echo "${TMPDIR:-/tmp}/consts.$$")")
gone=$(printf '%s\n' "$listed" | grep -v '^$' | LC_ALL=C comm -23 - "$(printf '%s\n' "$found" > "${TMPDIR:-/tmp}/consts2.$$"; echo "${TMPDIR:-/tmp}/consts2.$$")")
rm -f "${TMPDIR:-/tmp}/consts.$$" "${TMPDIR:-/tmp}/consts2.$$"
bad=0
if [ -n "$new" ]; then
	printf '%s\n' "$new" | sed 's/^\([^ ]*\) \(.*\)/check-consts: \1: literal \2 outside the parameter table (model\/params.c) and not in tests\/tools\/consts-ok.txt/'
	bad=1
fi
if [ -n "$gone" ]; then
	printf '%s\n' "$gone" | sed 's/^\([^ ]*\) \(.*\)/check-consts: \1: \2 is listed in tests\/tools\/consts-ok.txt but no longer in the file/'
	bad=1
fi
[ $bad = 0 ] && echo "check-consts: $(printf '%s\n' "$found" | grep -c .) literals outside the tables, each listed with why: ok"
exit $bad
