#!/bin/sh
# tests/run.sh BUILD_DIR [--update-golden]: every test, from the repository root.
#   unit     BUILD_DIR/test_* (tests/unit/) and BUILD_DIR/prop_* (tests/prop/, seeded
#            properties), each ending "name: N passed, N failed"
#   bad      tests/bad/NAME.yaml: `ccsim topo check` must exit 1, print nothing on stdout
#            and exactly tests/bad/NAME.err on stderr; NAME.args holds --set values
#   bad-sched tests/bad-sched/NAME.yaml: `ccsim simulate --schedule` on hgx-h100 must
#            exit 1, print nothing on stdout and exactly NAME.err on stderr
#   golden   tests/golden/NAME.cmd: ccsim's arguments; stdout and stderr together must
#            equal NAME.out and the exit status NAME.rc (0 when absent); NAME.env holds
#            VAR=value words for the environment; docs/model.md's parameter table must be
#            what `ccsim params --format md` prints
#   calib    tests/calib.sh: `ccsim calibrate` end to end in a scratch directory
#   scenarios tests/scenarios.sh: `ccsim run` on the shipped scenarios, plots, resume, compare, report
#   diagnose tests/diagnose.sh: `ccsim diagnose` finds planted faults in ccsim-made logs
#   roundtrip tests/roundtrip.sh: every shipped topology x fault kind x algorithm, the log
#            predict --fault writes (nccl-tests' layout, launcher prefixes) diagnosed right
#   alloc    tests/alloc.sh: every command with its Nth allocation or file write failing, or its files capped, ends cleanly
#   kill     tests/kill.sh: SIGKILL of run and calibrate ingest at seeded moments loses and doubles nothing
#   determinism tests/determinism.sh: the same command twice, and run with -j 1 and -j 2, give the same bytes
#   readme   tests/readme.sh: every bin/ccsim command in README.md and docs/features.md runs as written
#   toyalgo  tests/toyalgo.sh: a copy of the sources with a toy algorithm added at its table row,
#            cost term and builder alone builds, and both engines know it
#   shards   tests/shards.sh: run -j 2, --shard K/N + merge, --mpi under mpirun and the --slurm scripts store
#            the same rows; kills of a shard, the MPI job and merge lose and double nothing
#   nccl     BUILD_DIR/nccl_host and nccl_prof_host load the tuner and profiler plugins as
#            NCCL does (tests/nccl/); the release plugins export exactly their versioned symbols
#   fuzz     BUILD_DIR/fuzz_* replay tests/fuzz/corpus/NAME, tests/fuzz/regress/NAME and
#            the seeds of tests/fuzz/seeds.txt (the harnesses of make fuzz, without libFuzzer)
#   house    tests/tools/check_deps.sh (no circle between files, arrows one way, an
#            engine that reaches no fabric), tests/tools/check_size.sh (file and
#            function lengths, with the debt it lists) and tests/tools/check_consts.sh
#            (no floating constant outside the parameter tables unless listed with why)
#   validate when ../shared/validation/published.csv is there: the model against the
#            published measurements must meet its targets (tests/validate/validate.c)
# The binaries are built with AddressSanitizer and UndefinedBehaviorSanitizer: a
# sanitizer report changes the exit status and the output, so it fails the test.
# Ends with one line "N passed, N failed".
B=${1:?usage: tests/run.sh BUILD_DIR [--update-golden]}
UPDATE=${2:-}
export ASAN_OPTIONS=detect_leaks=1:exitcode=99
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=98
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for t in "$B"/test_* "$B"/prop_*; do
	[ -x "$t" ] || continue
	"$t" >"$tmp/unit.out" 2>&1
	rc=$?
	cat "$tmp/unit.out"
	line=$(grep -E '^[a-z_]+: [0-9]+ passed, [0-9]+ failed$' "$tmp/unit.out" | tail -n 1)
	p=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed.*/\1/')
	f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed$/\1/')
	[ -n "$p" ] || p=0
	[ -n "$f" ] || f=0
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "FAIL: $t exited $rc"
		f=1
	fi
	pass=$((pass + p))
	fail=$((fail + f))
done

# judge_bad FILE RC: a rejected input must exit 1, print nothing on stdout and
# exactly FILE's .err on stderr (the command's output is in $tmp/out, $tmp/err)
judge_bad() {
	n=${1%.yaml}
	if [ "$2" -eq 1 ] && [ ! -s "$tmp/out" ] && cmp -s "$tmp/err" "$n.err"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: $1: exit $2"
		echo "  expected: $(cat "$n.err" 2>/dev/null)"
		echo "  got:      $(cat "$tmp/err")"
	fi
}

nbad=0
for y in tests/bad/*.yaml; do
	n=${y%.yaml}
	if [ -f "$n.args" ]; then
		"$B/ccsim" topo check "$y" --set "$(cat "$n.args")" >"$tmp/out" 2>"$tmp/err"
	else
		"$B/ccsim" topo check "$y" >"$tmp/out" 2>"$tmp/err"
	fi
	judge_bad "$y" $?
	nbad=$((nbad + 1))
done
echo "bad inputs: $nbad files checked"

# inputs that cost quadratic time before their limits applied: 200,000
# nested flow sequences (libyaml's scanner walks every open level per token)
# and a mapping of 200,000 keys (each checked against all before it); both
# refused with a position, each well inside a minute (they took minutes)
awk 'BEGIN { printf "name: deep\nnodes: "; for (i = 0; i < 200000; i++) printf "["; for (i = 0; i < 200000; i++) printf "]"; printf "\n" }' \
	>"$tmp/deep.yaml"
awk 'BEGIN { printf "name: wide\nnodes: 1\nfoo:\n"; for (i = 0; i < 200000; i++) printf "  k%d: 1\n", i; printf "  k7: 2\n" }' \
	>"$tmp/wide.yaml"
for q in "deep.yaml:2:71: nesting deeper than 64 levels" "wide.yaml:200004:3: duplicate key 'k7' (first at line 11)"; do
	f=${q%%:*}
	timeout 60 "$B/ccsim" topo check "$tmp/$f" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -eq 1 ] && grep -qF "$q" "$tmp/err"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: $f (exit $rc; 124: over a minute): $(head -c 300 "$tmp/err")"
	fi
done

nbs=0
for y in tests/bad-sched/*.yaml; do
	"$B/ccsim" simulate -t topologies/hgx-h100.yaml --schedule "$y" >"$tmp/out" 2>"$tmp/err"
	judge_bad "$y" $?
	nbs=$((nbs + 1))
done
echo "bad schedules: $nbs files checked"

ngold=0
for c in tests/golden/*.cmd; do
	n=${c%.cmd}
	want_rc=0
	[ -f "$n.rc" ] && want_rc=$(cat "$n.rc")
	envs=""
	[ -f "$n.env" ] && envs=$(cat "$n.env")
	# shellcheck disable=SC2046,SC2086
	env $envs "$B/ccsim" $(cat "$c") >"$tmp/out" 2>&1
	rc=$?
	if [ "$UPDATE" = "--update-golden" ]; then
		cp "$tmp/out" "$n.out"
		if [ "$rc" -ne 0 ]; then echo "$rc" >"$n.rc"; else rm -f "$n.rc"; fi
	fi
	if [ "$rc" -eq "$want_rc" ] && cmp -s "$tmp/out" "$n.out"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: $c: exit $rc (want $want_rc)"
		diff -u "$n.out" "$tmp/out" | head -n 20
	fi
	ngold=$((ngold + 1))
done
echo "golden: $ngold commands checked"

# simulate's progress line: on a terminal (script(1) gives one) past
# CCSIM_PROGRESS_AFTER seconds, with the closed form's time and an ETA, erased
# before the table; nothing on stderr off a terminal
if command -v script >/dev/null 2>&1; then
	pcmd="$B/ccsim simulate -t topologies/hgx-h100-cluster.yaml --set nodes=4 -c allreduce -b 64M -e 64M -a ring --per-flow"
	CCSIM_PROGRESS_AFTER=0 script -qec "$pcmd" /dev/null >"$tmp/prog" 2>&1
	CCSIM_PROGRESS_AFTER=0 $pcmd >/dev/null 2>"$tmp/prog-err"
	if tr '\r' '\n' <"$tmp/prog" | grep -q 'simulating AllReduce 64 MiB ring/[A-Za-z0-9]*: [0-9.]* of ~[0-9.]* us, .*ETA' &&
		tr '\r' '\n' <"$tmp/prog" | grep -q '^.\[K# ccsim simulate' && [ ! -s "$tmp/prog-err" ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: simulate's progress line on a terminal (or something on stderr off one)"
		head -c 600 "$tmp/prog" | tr '\r' '\n'
	fi
fi

# docs/model.md section 6 holds the parameter table as ccsim params --format md prints it
sed -n '/^<!-- ccsim params --format md: begin -->$/,/^<!-- ccsim params --format md: end -->$/p' docs/model.md |
	sed '1d;$d' >"$tmp/doc-params"
"$B/ccsim" params --format md >"$tmp/params-md" 2>&1
if [ -s "$tmp/doc-params" ] && cmp -s "$tmp/doc-params" "$tmp/params-md"; then
	pass=$((pass + 1))
else
	fail=$((fail + 1))
	echo "FAIL: docs/model.md's parameter table is not what 'ccsim params --format md' prints"
	diff -u "$tmp/doc-params" "$tmp/params-md" | head -n 20
fi

# stateful end-to-end scripts (scratch databases and folders): calibrate
# (tests/calib.sh) and scenarios (tests/scenarios.sh)
for script in calib scenarios diagnose roundtrip alloc kill determinism shards readme toyalgo; do
	sh "tests/$script.sh" "$B" >"$tmp/$script.out" 2>&1
	crc=$?
	cat "$tmp/$script.out"
	line=$(grep -E "^$script: [0-9]+ passed, [0-9]+ failed\$" "$tmp/$script.out" | tail -n 1)
	p=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed.*/\1/')
	f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed$/\1/')
	[ -n "$p" ] || p=0
	[ -n "$f" ] || f=1
	[ "$crc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
	pass=$((pass + p))
	fail=$((fail + f))
done

# fuzz replay: each harness (tests/fuzz/fuzz_NAME.c linked with replay.c)
# over its corpus, its crash inputs (tests/fuzz/regress/NAME) and its seeds
for t in "$B"/fuzz_*; do
	[ -x "$t" ] || continue
	n=${t##*/fuzz_}
	seeds=$(awk -v n="$n" '$1 == n { for (i = 2; i <= NF; i++) printf "%s ", $i }' tests/fuzz/seeds.txt)
	# shellcheck disable=SC2086
	if "$t" "tests/fuzz/corpus/$n" "tests/fuzz/regress/$n" $seeds >"$tmp/fuzz.out" 2>"$tmp/fuzz.err" &&
	   grep -q "inputs replayed" "$tmp/fuzz.out"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: fuzz replay $n"
		tail -n 15 "$tmp/fuzz.err"
	fi
	cat "$tmp/fuzz.out"
done

# the NCCL tuner plugin, loaded as NCCL loads it (tests/nccl/host.c), with
# calibrations fitted here for hgx-h100 and gb200-nvl72 from shipped logs; the
# release libraries export exactly the plugin symbols
if [ -x "$B/nccl_host" ] && [ -f "$B/plugins/libnccl-tuner-ccsim.so" ]; then
	bin/ccsim calibrate ingest --db "$tmp/nccl.db" tests/data/calib/all_reduce_perf-h100x8-mooncake.log >/dev/null 2>&1
	bin/ccsim calibrate fit --db "$tmp/nccl.db" -t topologies/hgx-h100.yaml -o "$tmp/nccl-cal.yaml" >/dev/null 2>&1
	bin/ccsim calibrate ingest --db "$tmp/nccl72.db" tests/data/calib/all_reduce_perf-gb200-nvl72.log >/dev/null 2>&1
	bin/ccsim calibrate fit --db "$tmp/nccl72.db" -t topologies/gb200-nvl72.yaml -o "$tmp/nccl-cal72.yaml" >/dev/null 2>&1
	if "$B/nccl_host" "$B/plugins/libnccl-tuner-ccsim.so" "$tmp/nccl-cal.yaml" "$tmp/nccl-cal72.yaml" >"$tmp/nccl.out" 2>&1; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: tests/nccl/host.c"
		tail -n 15 "$tmp/nccl.out"
	fi
	grep -E '^(topologies|tuner|nccl_host)' "$tmp/nccl.out"
	# exactly the versions NCCL defines (src/include/plugin/, 2.30.7)
	for want in "tuner ncclTunerPlugin_v4 ncclTunerPlugin_v5 ncclTunerPlugin_v6 " \
		"profiler ncclProfiler_v5 ncclProfiler_v6 "; do
		lib=build/plugins/libnccl-${want%% *}-ccsim.so
		syms="${want%% *} $(nm -D --defined-only "$lib" 2>/dev/null | awk '{ print $3 }' | sort | tr '\n' ' ')"
		if [ "$syms" = "$want" ]; then
			pass=$((pass + 1))
		else
			fail=$((fail + 1))
			echo "FAIL: $lib exports '${syms#* }'"
		fi
	done
fi
# the profiler plugin's event sequence and its log back through ingest
# (tests/nccl/prof_host.c)
if [ -x "$B/nccl_prof_host" ] && [ -f "$B/plugins/libnccl-profiler-ccsim.so" ]; then
	mkdir -p "$tmp/prof"
	if "$B/nccl_prof_host" "$B/plugins/libnccl-profiler-ccsim.so" "$tmp/prof" >"$tmp/prof.out" 2>&1; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: tests/nccl/prof_host.c"
		tail -n 15 "$tmp/prof.out"
	fi
	tail -n 1 "$tmp/prof.out"
fi

# both plugins' hosts again, release builds under valgrind: no invalid
# access, no definite leak (20 load/unload cycles, 16 concurrent inits)
if command -v valgrind >/dev/null 2>&1 && [ -x build/rel/nccl_host ] && [ -x build/rel/nccl_prof_host ]; then
	mkdir -p "$tmp/vprof"
	for h in "nccl_host build/plugins/libnccl-tuner-ccsim.so" \
		"nccl_prof_host build/plugins/libnccl-profiler-ccsim.so $tmp/vprof"; do
		# shellcheck disable=SC2086
		if valgrind --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite -q build/rel/$h \
			>"$tmp/vg.out" 2>&1; then
			pass=$((pass + 1))
		else
			fail=$((fail + 1))
			echo "FAIL: valgrind build/rel/${h%% *}"
			tail -n 20 "$tmp/vg.out"
		fi
	done
	echo "valgrind: both plugin hosts clean"
else
	echo "valgrind: not installed (or release hosts not built); skipped"
fi

# `make` builds the MPI plugin wherever mpicc is (the rule named it before
# MPI_PLUGIN was defined, so it never did): with plugin.c taken as new, the
# default goal must rebuild bin/ccsim-mpi.so
if command -v mpicc >/dev/null 2>&1; then
	if make -n -W sim/cli/mpi/plugin.c all 2>/dev/null | grep -q 'ccsim-mpi.so'; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: make (all) does not build bin/ccsim-mpi.so although mpicc is installed"
	fi
fi

for chk in check_deps check_size check_consts; do
	if sh "tests/tools/$chk.sh" "$B"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: tests/tools/$chk.sh"
	fi
done

if [ -f ../shared/validation/published.csv ] && [ -x "$B/validate" ]; then
	if "$B/validate" ../shared/validation/published.csv "$tmp/validation.md" --check; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: validation targets"
	fi
else
	echo "validate: ../shared/validation/published.csv not found; skipped"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
