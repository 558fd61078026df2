# tests/tools/consts.awk: print "FILE LITERAL" for each floating literal of
# a C file outside comments, strings and preprocessor lines, except exact
# powers of ten and of two (unit conversions, halves, byte sizes).
function trivial(t,   v, m) {
	m = t; sub(/[eE].*/, "", m)
	if (m ~ /^0*1?0*\.?0*1?0*$/ && m ~ /1/ && gsub(/1/, "1", m) == 1) return 1   # 1, 10, 0.01, 1e-9
	v = t + 0
	if (v == 0) return 1
	while (v < 1) v *= 2
	while (v > 1 && v == int(v) && v % 2 == 0) v /= 2
	return v == 1
}
{
	line = $0
	if (inc) { if (match(line, /\*\//)) { line = substr(line, RSTART + 2); inc = 0 } else next }
	while (match(line, /\/\*/)) {
		pre = substr(line, 1, RSTART - 1); rest = substr(line, RSTART + 2)
		if (match(rest, /\*\//)) line = pre " " substr(rest, RSTART + 2); else { line = pre; inc = 1 }
	}
	sub(/\/\/.*/, "", line)
	gsub(/"([^"\\]|\\.)*"/, "\"\"", line)
	gsub(/'([^'\\]|\\.)*'/, "' '", line)
	if (line ~ /^[ \t]*#/) next
	s = line
	while (match(s, /(^|[^A-Za-z0-9_.])([0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)([eE][-+]?[0-9]+)?/)) {
		tok = substr(s, RSTART, RLENGTH); sub(/^[^0-9.]/, "", tok)
		s = substr(s, RSTART + RLENGTH)
		if (tok ~ /[.eE]/ && tok !~ /^0[xX]/ && !trivial(tok)) print FILENAME " " tok
	}
}
