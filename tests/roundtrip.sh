#!/bin/sh
# tests/roundtrip.sh BUILD_DIR: the diagnose round trip as a property
# (issue 19).  For every shipped topology (2 nodes), every fault kind that
# diagnose knows and three algorithm settings (NCCL's choice, NCCL_ALGO=ring,
# NCCL_ALGO=tree), the log that `ccsim predict --fault F` writes, rewritten
# in nccl-tests' 13-column layout (its command line, Rank lines, the NCCL
# INFO line that states NCCL_ALGO, the footer; plain, behind srun --label's
# " 0: " or mpirun --tag-output's "[1,0]<stdout>:", one of the three by the
# seed) under a name that does not say the test, is diagnosed with F first,
# or a hypothesis with the same predictions (an equivalent the log cannot
# tell apart), or, where F moves no row by more than 4.5% (1.5x the 3%
# tolerance: within the model's noise), "no fault found"; the healthy log
# gives "no fault found".  The resource each fault
# hits is drawn from CCSIM_SEED (default 19), printed on every failure.
# Ends with "roundtrip: N passed, N failed".
B=$(cd "${1:?usage: tests/roundtrip.sh BUILD_DIR}" && pwd)
ROOT=$(pwd)
C="$B/ccsim"
SEED=${CCSIM_SEED:-19}
pass=0
fail=0
cases=0
skipped=0
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT

# rnd KEY N: a number in [0, N) from the seed and KEY
rnd() {
	awk -v s="$SEED" -v k="$1" -v n="$2" 'BEGIN { h = s; for (i = 1; i <= length(k); i++) h = (h * 31 + index("abcdefghijklmnopqrstuvwxyz0123456789/:-_%.", substr(k, i, 1))) % 1000003;
		srand(h); print int(rand() * n) }'
}

# nt13 ALGO LAYOUT < predict's table > nccl-tests' layout
nt13() {
	awk -v algo="$1" -v lay="$2" '
	function out(s) { if (lay == 1) s = " 0: " s; else if (lay == 2) s = "[1,0]<stdout>:" s; print s }
	/^# ccsim predict:/ { for (i = 1; i <= NF; i++) if ($(i + 1) == "ranks") n = $i }
	/^ +[0-9]/ { row[++nr] = $0 }
	END {
		out("$ mpirun -np " n " ./build/all_reduce_perf -b 1M -e 4G -f 4 -g 1");
		out("# nThread 1 nGpus 1 minBytes 1048576 maxBytes 4294967296 step: 4(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0");
		out("#");
		out("# Using devices");
		for (r = 0; r < n; r++)
			out(sprintf("#  Rank %2d Group  0 Pid %6d on     synth%d device %2d [0x%02x] NVIDIA H100 80GB HBM3", r, 1000 + r, int(r / 8), r % 8, r % 8));
		if (algo != "")
			out("synth0:1000:1000 [0] NCCL INFO NCCL_ALGO set by environment to " algo);
		out("#");
		out("#                                                              out-of-place                       in-place          ");
		out("#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong");
		out("#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       ");
		for (i = 1; i <= nr; i++) {
			split(row[i], f, " ");
			out(sprintf("%12s %12s %8s %6s %6s %8s %7s %7s %6s %8s %7s %7s %6s", f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], 0, f[6], f[7], f[8], 0));
			s += f[8];
		}
		out("# Out of bounds values : 0 OK");
		out(sprintf("# Avg bus bandwidth    : %g ", nr ? s / nr : 0));
		out("#");
	}'
}

# mklog FILE ALGO LAYOUT [predict args...]: 0 when predict applies
mklog() {
	mk_f=$1 mk_a=$2 mk_l=$3
	shift 3
	set -- -t "$t" --set nodes=2 -c allreduce -b 1M -e 4G -f 4 "$@"
	[ -n "$mk_a" ] && set -- "$@" -a "$mk_a"
	"$C" predict "$@" >"$w/pred" 2>"$w/pred.err" || return 1
	nt13 "$mk_a" "$mk_l" <"$w/pred" >"$mk_f"
}

# verdict FAULT LOG DESC: the property on one log
verdict() {
	cases=$((cases + 1))
	"$C" diagnose -t "$t" --set nodes=2 --tolerance 3% "$2" --list --top 1 >"$w/out" 2>&1
	if [ "$1" = healthy ]; then
		grep -q '^no fault found' "$w/out" && return 0
	elif grep -q "^        all: \(.* \)\{0,1\}$1\( \|\$\)" "$w/out"; then
		return 0
	elif grep -q '^     1        0\.0%  0\.00[0-9][0-9]   ' "$w/out"; then
		return 0    # the same predictions as F (within 0.05%, rms below 1% of the tolerance): an equivalent
	elif grep -q '^# healthy: fits within \([0-3]\.[0-9]\|4\.[0-4]\)%' "$w/out" && grep -q '^no fault found' "$w/out"; then
		return 0    # F moves no row by more than half as much again as the 3% tolerance: within the noise
	fi
	fail=$((fail + 1))
	echo "FAIL: roundtrip: CCSIM_SEED=$SEED, $3, planted $1:"
	sed -n '1,6p' "$w/out"
	return 1
}

for t in "$ROOT"/topologies/*.yaml; do
	n=$(basename "$t" .yaml)
	dot=$("$C" topo dot "$t" --set nodes=2 2>/dev/null | grep -o '"node[01]/[a-z]*[0-9]*"' | tr -d '"' | sort -u)
	gpus=$(echo "$dot" | grep -E '/(gpu|npu)[0-9]')
	nics=$(echo "$dot" | grep -E '/(nic|efa)[0-9]')
	ng=$(echo "$gpus" | grep -c .)
	nn=$(echo "$nics" | grep -c .)
	for algo in "" ring tree; do
		d="$n, ${algo:-NCCL's choice}"
		lay=$(rnd "$n$algo" 3)
		if ! mklog "$w/healthy.txt" "$algo" "$lay"; then
			skipped=$((skipped + 1))
			continue    # the algorithm does not run here (one NVLink domain ...)
		fi
		verdict healthy "$w/healthy.txt" "$d, layout $lay" || continue
		gpu=$(echo "$gpus" | sed -n "$(($(rnd "$n$algo/g" "$ng") + 1))p")
		nic=$(echo "$nics" | sed -n "$(($(rnd "$n$algo/n" "$nn") + 1))p")
		pct=$(echo "25 50 75" | cut -d' ' -f$(($(rnd "$n$algo/p" 3) + 1)))
		pc=$(echo "x8 x4 gen4 gen3" | cut -d' ' -f$(($(rnd "$n$algo/c" 4) + 1)))
		us=$((10 + 10 * $(rnd "$n$algo/s" 6)))
		# a wrong NIC: the farthest NIC of the GPU's node that predict takes
		rail=""
		for x in $(echo "$nics" | grep "^${gpu%%/*}/" | sort -r); do
			"$C" predict -t "$t" --set nodes=2 -c allreduce -b 1M -e 1M --fault "rail:$gpu:$x" >/dev/null 2>&1 &&
				{ rail="rail:$gpu:$x"; break; }
		done
		for f in ${nic:+nic:$nic:down} ${nic:+nic:$nic:$pct%} "pcie:$gpu:$pc" "gdr:$gpu:off" gdr:all:off $rail acs:all:on \
		         p2p:all:off "straggler:$gpu:${us}us" transport:socket; do
			lay=$(rnd "$n$algo$f" 3)
			if [ "$f" = transport:socket ]; then
				mklog "$w/fault.txt" "$algo" "$lay" --set model.transport=socket || { skipped=$((skipped + 1)); continue; }
			else
				mklog "$w/fault.txt" "$algo" "$lay" --fault "$f" || { skipped=$((skipped + 1)); continue; }
			fi
			verdict "$f" "$w/fault.txt" "$d, layout $lay"
		done
	done
done
echo "roundtrip: $cases cases on $(ls "$ROOT"/topologies/*.yaml | wc -l) topologies ($skipped where the fault or algorithm does not apply), seed $SEED"
pass=$((cases - fail))
echo "roundtrip: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
