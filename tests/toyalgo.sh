#!/bin/sh
# tests/toyalgo.sh BUILD_DIR: what adding an algorithm takes.  An algorithm
# is one row of the algorithm table (model/coll.c, its name closing
# model/coll.h's enum), its cost term (model/cost_term.c, in term_of[]) and its
# schedule builder (sim/sched/build.c, in builders[]).  A copy of the
# sources gets a toy, "star" AllReduce (tests/toyalgo/*.frag: every rank to
# rank 0 and back), at exactly those places and nowhere else; the copy must
# build, and its ccsim must then know star wherever algorithms are named:
# predict and simulate agree on it, the usage lists it, the collectives and
# machines it does not cover are refused with its own reasons (the row's for
# a collective, in both engines), NCCL's choice never takes it.  BUILD_DIR is unused (the copy builds its
# own release binary).  Ends "toyalgo: N passed, N failed".
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: toyalgo: $*"; }
tmp=$(mktemp -d) || exit 1
[ -n "${TOYALGO_KEEP:-}" ] && echo "toyalgo: the copy is $tmp"
[ -n "${TOYALGO_KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT INT TERM
F=tests/toyalgo

# the sources as git has them (committed, and new files not ignored)
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$tmp" 2>/dev/null
else
	cp -R Makefile model sim calibrate topologies scenarios "$tmp"/
fi

# insert FRAG before the first line of FILE matching RE (after the line
# matching AFTER, when given); fails when there is no such line
put() {
	awk -v re="$2" -v frag="$3" -v after="${4:-}" '
		BEGIN { armed = after == "" }
		!done && armed && $0 ~ re { while ((getline l < frag) > 0) print l; done = 1 }
		!armed && after != "" && $0 ~ after { armed = 1 }
		{ print }
		END { exit !done }' "$tmp/$1" >"$tmp/$1.new" && mv "$tmp/$1.new" "$tmp/$1"
}
printf '\tCCS_ALGO_STAR,\n' >"$tmp/enum.frag"
printf '\t[CCS_ALGO_STAR] = term_star,\n' >"$tmp/term_row.frag"
printf '\t[CCS_ALGO_STAR] = b_star,\n' >"$tmp/build_row.frag"
if put model/coll.h '^ *CCS_ALGO_N *};' "$tmp/enum.frag" &&
   put model/coll.c '^};' "$F/row.frag" 'ccs_algo_desc\[CCS_ALGO_N\] = \{' &&
   put model/cost_term.c 'term_of\[CCS_ALGO_N\]\)' "$F/term.frag" &&
   put model/cost_term.c '^};' "$tmp/term_row.frag" 'term_of\[CCS_ALGO_N\]\)' &&
   put sim/sched/build.c 'builders\[CCS_ALGO_N\]\)' "$F/builder.frag" &&
   put sim/sched/build.c '^};' "$tmp/build_row.frag" 'builders\[CCS_ALGO_N\]\)'; then
	ok
else
	bad "an anchor of the five places is gone (model/coll.h's enum end, the tables ccs_algo_desc, term_of, builders)"
fi
sed -i 's/^ *CCS_ALGO_N *};/                CCS_ALGO_N };/' "$tmp/model/coll.h"

# every file but those three differs from the sources in nothing
n=0
for f in model/coll.h model/coll.c model/cost_term.c sim/sched/build.c; do
	n=$((n + $(diff "$f" "$tmp/$f" | grep -c '^>')))
done
want=$(( 1 + $(wc -l <"$F/row.frag") + $(wc -l <"$F/term.frag") + 1 + $(wc -l <"$F/builder.frag") + 1 ))
if [ "$n" -eq "$want" ]; then ok; else bad "the copy differs by $n lines, the toy has $want"; fi

if make -C "$tmp" -s -j2 bin/ccsim >"$tmp/make.out" 2>&1; then
	ok
else
	bad "the copy with star does not build"
	tail -n 20 "$tmp/make.out"
	echo "toyalgo: $pass passed, $fail failed"
	exit 1
fi
cc="$tmp/bin/ccsim"
H=topologies/hgx-h100.yaml

# both engines, every size: star in the algo column, times within 1%
if "$cc" predict -t $H -c allreduce -a star -b 64K -e 1G -f 4 --format csv >"$tmp/p.csv" 2>&1 &&
   "$cc" simulate -t $H -c allreduce -a star -b 64K -e 1G -f 4 --format csv >"$tmp/s.csv" 2>&1; then
	ok
else
	bad "predict or simulate -a star failed"
	cat "$tmp/p.csv" "$tmp/s.csv"
fi
col=$(head -n 1 "$tmp/p.csv" | tr ',' '\n' | grep -n '^time_us$' | cut -d: -f1)
acol=$(head -n 1 "$tmp/p.csv" | tr ',' '\n' | grep -n '^algo$' | cut -d: -f1)
rows=$(paste -d, "$tmp/p.csv" "$tmp/s.csv" | awk -F, -v c="$col" -v a="$acol" -v m="$(head -n 1 "$tmp/p.csv" | tr ',' '\n' | wc -l)" '
	NR > 1 && $a == "star" && $(a + m) == "star" && $c > 0 { d = $(c + m) / $c - 1; if (d < 0) d = -d; if (d <= 0.01) good++; n++ }
	END { print good + 0, n + 0 }')
if [ "$rows" = "8 8" ]; then ok; else bad "star rows in both engines within 1% (agreeing, of all): $rows"; fi

# it is costed as drawn: at 1 GiB 2 (p - 1) S through rank 0's port, so 8 ranks take
# about p = 8 times the ring's (the ring moves 2 (p - 1) S / p through each port)
r=$("$cc" predict -t $H -c allreduce -a ring -p Simple -b 1G -e 1G --format csv | tail -n 1 | cut -d, -f"$col")
s=$(tail -n 1 "$tmp/p.csv" | cut -d, -f"$col")
if awk -v r="$r" -v s="$s" 'BEGIN { x = s / r; exit !(x > 6 && x < 9) }'; then ok; else bad "1 GiB: star $s us against the ring's $r us (p = 8: about 8x)"; fi

# the usage names it; its row's reasons refuse what it does not cover
if ! "$cc" simulate -t $H -c allgather -a star >"$tmp/e3" 2>&1 && grep -q "star applies to AllReduce" "$tmp/e3"; then
	ok
else
	bad "simulate AllGather with star: $(cat "$tmp/e3")"
fi
if "$cc" predict --help 2>&1 | grep -q ' star'; then ok; else bad "predict --help does not list star"; fi
if ! "$cc" predict -t $H -c allgather -a star >"$tmp/e1" 2>&1 && grep -q "star applies to AllReduce" "$tmp/e1"; then
	ok
else
	bad "AllGather with star: $(cat "$tmp/e1")"
fi
if ! "$cc" predict -t topologies/hgx-h100-cluster.yaml -n 16 -c allreduce -a star >"$tmp/e2" 2>&1 &&
   grep -q "star needs every rank on one scale-up domain" "$tmp/e2"; then
	ok
else
	bad "2 nodes with star: $(cat "$tmp/e2")"
fi
# NCCL's choice never takes an algorithm NCCL does not have
if "$cc" predict -t $H -c allreduce -b 8 -e 8G -f 8 --format csv | grep -q ',star,'; then
	bad "NCCL's choice took star"
else
	ok
fi
echo "toyalgo: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
