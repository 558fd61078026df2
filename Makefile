# ccsim: one non-recursive Makefile.
#   make            bin/ccsim and libccsim.a (optimised)
#   make test       sanitizer build in build/test/, then unit, malformed-input and golden tests
#   make bench      speed and memory tables (see tests/bench/)
#   make check-deps the arrows between files (no circle, layers one way; tests/tools/check_deps.sh)
#   make check-size file and function lengths (tests/tools/check_size.sh)
#   make check-consts no physical constant outside the parameter tables (tests/tools/check_consts.sh)
#   make golden-update   rewrite tests/golden/*.out from the current build (review the diff)
#   make fuzz       libFuzzer harnesses (tests/fuzz/, clang) run FUZZ_SECONDS each, with a table
#   make plugins    the NCCL plugins (calibrate/nccl/): build/plugins/libnccl-*-ccsim.so
CC      ?= cc
WERROR  ?= 1
PKGS    := yaml-0.1 gsl sqlite3 expat
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -lyaml -lgsl -lgslcblas -lsqlite3 -lexpat)

WARN := -std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wvla \
        -Wformat=2 -Wdouble-promotion
ifeq ($(WERROR),1)
WARN += -Werror
endif
CPPFLAGS := -D_POSIX_C_SOURCE=200809L $(PKG_CFLAGS)
OPT_CFLAGS  := -O2 -g $(WARN)
TEST_CFLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
               -fno-sanitize-recover=undefined -DCCS_TEST_HOOKS $(WARN)
LDLIBS := $(PKG_LIBS) -lglpk -lm -ldl

# Sources are found by wildcard: a new file in one of these folders is built
# into the library (model/, sim/, sim/sched/, calibrate/) or the command line
# (sim/cli/, sim/cli/run/); a new tests/unit/test_<module>.c is a unit test
# and a new tests/prop/prop_<name>.c a seeded property test.
LIB_SRC := $(wildcard model/*.c sim/*.c sim/sched/*.c sim/synth/*.c) \
           $(filter-out calibrate/bench_%,$(wildcard calibrate/*.c))
CLI_SRC := $(wildcard sim/cli/*.c sim/cli/run/*.c)
UNIT_TESTS := $(patsubst tests/unit/%.c,%,$(wildcard tests/unit/test_*.c))
PROP_TESTS := $(patsubst tests/prop/%.c,%,$(wildcard tests/prop/prop_*.c))
BENCH_SRC := tests/bench/bench_topo.c tests/bench/bench_classes.c tests/bench/bench_a2a.c tests/bench/bench_synth.c
# tests/fuzz/fuzz_<reader>.c: one harness per reader; make test replays their
# corpus and crash inputs (tests/fuzz/replay.c), make fuzz runs libFuzzer
FUZZ_NAMES := $(patsubst tests/fuzz/fuzz_%.c,%,$(filter-out tests/fuzz/fuzz_util.c,$(wildcard tests/fuzz/fuzz_*.c)))

REL := build/rel
TST := build/test

REL_LIB_OBJ := $(LIB_SRC:%.c=$(REL)/%.o)
REL_CLI_OBJ := $(CLI_SRC:%.c=$(REL)/%.o)
TST_LIB_OBJ := $(LIB_SRC:%.c=$(TST)/%.o)
TST_CLI_OBJ := $(CLI_SRC:%.c=$(TST)/%.o)

.PHONY: all test bench validate golden-update clean benches check-deps check-size check-consts fuzz fuzz-cc plugins
.SECONDARY:
# `ccsim run --mpi` (sim/cli/run/mpi.c) loads bin/ccsim-mpi.so, MPI behind a
# table of calls (sim/cli/run/mpi_abi.h): built with mpicc where it is found
# (Debian: openmpi-bin, libopenmpi-dev), so nothing else ever links MPI.
# Defined before the rules that name it: make expands a rule's
# prerequisites when it reads the rule.
MPICC ?= $(shell command -v mpicc 2>/dev/null)
MPI_PLUGIN := $(if $(MPICC),bin/ccsim-mpi.so)

all: bin/ccsim libccsim.a benches $(MPI_PLUGIN)
bin/ccsim-mpi.so: sim/cli/mpi/plugin.c sim/cli/run/mpi_abi.h
	@mkdir -p bin
	$(MPICC) -O2 -g -shared -fPIC $(WARN) -o $@ $<

# The calibration benches (calibrate/bench_*): built where their toolkits
# are, skipped with a message where not.  CUDA_HOME/bin/nvcc, else nvcc on
# PATH; ibverbs from libibverbs-dev.  The RDMA bench registers GPU memory
# (GPUDirect) when CUDA is there too.
CUDA_HOME ?= /usr/local/cuda
NVCC ?= $(firstword $(wildcard $(CUDA_HOME)/bin/nvcc) $(shell command -v nvcc 2>/dev/null))
NVCC_FLAGS := -O2 -std=c++17 -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
              -gencode arch=compute_90,code=compute_90 -Xcompiler -Wall,-Wextra
HAVE_VERBS := $(shell printf '\043include <infiniband/verbs.h>\n' | $(CC) -E -x c - >/dev/null 2>&1 && echo 1)
BENCHES :=
ifneq ($(NVCC),)
BENCHES += bin/ccsim-bench-cuda
RDMA_CUDA := -DCCS_HAVE_CUDA -I$(CUDA_HOME)/include
RDMA_CUDA_LIBS := -L$(CUDA_HOME)/lib64 -lcudart_static -ldl -lrt -lpthread
endif
ifeq ($(HAVE_VERBS),1)
BENCHES += bin/ccsim-bench-rdma
endif

benches: $(BENCHES)
ifeq ($(NVCC),)
	@echo "calibrate: no nvcc ($(CUDA_HOME)/bin or PATH): ccsim-bench-cuda not built"
endif
ifneq ($(HAVE_VERBS),1)
	@echo "calibrate: no <infiniband/verbs.h> (libibverbs-dev): ccsim-bench-rdma not built"
endif

bin/ccsim-bench-cuda: calibrate/bench_cuda.cu
	@mkdir -p bin
	$(NVCC) $(NVCC_FLAGS) -o $@ $<

bin/ccsim-bench-rdma: calibrate/bench_rdma.c
	@mkdir -p bin
	$(CC) $(CPPFLAGS) $(RDMA_CUDA) $(OPT_CFLAGS) -o $@ $< -libverbs $(RDMA_CUDA_LIBS)

$(REL)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(OPT_CFLAGS) -MMD -MP -c $< -o $@

$(TST)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(TEST_CFLAGS) -MMD -MP -c $< -o $@

libccsim.a: $(REL_LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

bin/ccsim: $(REL_CLI_OBJ) libccsim.a
	@mkdir -p bin
	$(CC) $(OPT_CFLAGS) -o $@ $(REL_CLI_OBJ) libccsim.a $(LDLIBS)

$(TST)/libccsim.a: $(TST_LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

$(TST)/ccsim: $(TST_CLI_OBJ) $(TST)/libccsim.a
	$(CC) $(TEST_CFLAGS) -o $@ $(TST_CLI_OBJ) $(TST)/libccsim.a $(LDLIBS)

$(TST)/test_%: $(TST)/tests/unit/test_%.o $(TST)/libccsim.a
	$(CC) $(TEST_CFLAGS) -o $@ $< $(TST)/libccsim.a $(LDLIBS)

$(TST)/prop_%: $(TST)/tests/prop/prop_%.o $(TST)/libccsim.a
	$(CC) $(TEST_CFLAGS) -o $@ $< $(TST)/libccsim.a $(LDLIBS)

$(REL)/validate: $(REL)/tests/validate/validate.o $(REL)/tests/validate/logo.o libccsim.a
	$(CC) $(OPT_CFLAGS) -o $@ $(filter %.o,$^) libccsim.a $(LDLIBS)

$(REL)/bench_topo: $(REL)/tests/bench/bench_topo.o libccsim.a
	$(CC) $(OPT_CFLAGS) -o $@ $< libccsim.a $(LDLIBS)
$(REL)/bench_classes: $(REL)/tests/bench/bench_classes.o libccsim.a
	$(CC) $(OPT_CFLAGS) -o $@ $< libccsim.a $(LDLIBS)
$(REL)/bench_a2a: $(REL)/tests/bench/bench_a2a.o libccsim.a
	$(CC) $(OPT_CFLAGS) -o $@ $< libccsim.a $(LDLIBS)
$(REL)/bench_synth: $(REL)/tests/bench/bench_synth.o libccsim.a
	$(CC) $(OPT_CFLAGS) -o $@ $< libccsim.a $(LDLIBS)

$(TST)/validate: $(TST)/tests/validate/validate.o $(TST)/tests/validate/logo.o $(TST)/libccsim.a
	$(CC) $(TEST_CFLAGS) -o $@ $(filter %.o,$^) $(TST)/libccsim.a $(LDLIBS)

# the replay drivers: each harness with tests/fuzz/replay.c, the command
# line's objects but main.o (fuzz_scenario calls ccs_cmd_run)
TST_CLI_NOMAIN := $(filter-out $(TST)/sim/cli/main.o,$(TST_CLI_OBJ))
$(TST)/fuzz_%: $(TST)/tests/fuzz/fuzz_%.o $(TST)/tests/fuzz/fuzz_util.o $(TST)/tests/fuzz/replay.o $(TST_CLI_NOMAIN) $(TST)/libccsim.a
	$(CC) $(TEST_CFLAGS) -o $@ $^ $(LDLIBS)

# the libc allocation-failure and write-failure shims (tests/alloc.sh),
# preloaded into bin/ccsim
$(TST)/failmalloc.so: tests/tools/failmalloc.c
	@mkdir -p $(dir $@)
	$(CC) -O1 -shared -fPIC -Wall -Wextra -o $@ $<
$(TST)/failwrite.so: tests/tools/failwrite.c
	@mkdir -p $(dir $@)
	$(CC) -O1 -shared -fPIC -Wall -Wextra -o $@ $< -ldl

# The NCCL plugins (calibrate/nccl/): shared libraries holding the model's
# objects built position-independent with hidden symbols, so that nm -D
# shows only the plugin symbols; neither CUDA nor NCCL's headers are needed.
# The test build's copy (ASan) is what tests/nccl/host.c loads in make test.
PLUGINS := tuner profiler
PLUGIN_LIB_SRC := $(wildcard model/*.c)
PLUGIN_LIBS := -lyaml -lexpat -lm
PIC_CFLAGS := -O2 -g -fPIC -fvisibility=hidden $(WARN)
TPIC_CFLAGS := $(TEST_CFLAGS) -fPIC -fvisibility=hidden
$(REL)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(PIC_CFLAGS) -MMD -MP -c $< -o $@
$(TST)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(TPIC_CFLAGS) -MMD -MP -c $< -o $@
build/plugins/libnccl-%-ccsim.so: $(REL)/pic/calibrate/nccl/%.o $(PLUGIN_LIB_SRC:%.c=$(REL)/pic/%.o)
	@mkdir -p $(dir $@)
	$(CC) $(PIC_CFLAGS) -shared -Wl,--no-undefined -o $@ $^ $(PLUGIN_LIBS)
$(TST)/plugins/libnccl-%-ccsim.so: $(TST)/pic/calibrate/nccl/%.o $(PLUGIN_LIB_SRC:%.c=$(TST)/pic/%.o)
	@mkdir -p $(dir $@)
	$(CC) $(TPIC_CFLAGS) -shared -o $@ $^ $(PLUGIN_LIBS)
# the profiler needs none of the model
build/plugins/libnccl-profiler-ccsim.so: $(REL)/pic/calibrate/nccl/profiler.o
	@mkdir -p $(dir $@)
	$(CC) $(PIC_CFLAGS) -shared -Wl,--no-undefined -o $@ $^
$(TST)/plugins/libnccl-profiler-ccsim.so: $(TST)/pic/calibrate/nccl/profiler.o
	@mkdir -p $(dir $@)
	$(CC) $(TPIC_CFLAGS) -shared -o $@ $^
plugins: $(PLUGINS:%=build/plugins/libnccl-%-ccsim.so)
# the harness that loads them as NCCL does (make test; make bench times it)
$(TST)/nccl_host: $(TST)/tests/nccl/host.o $(TST)/libccsim.a
	$(CC) $(TEST_CFLAGS) -o $@ $< $(TST)/libccsim.a $(LDLIBS) -ldl
$(REL)/nccl_host: $(REL)/tests/nccl/host.o libccsim.a
	$(CC) $(OPT_CFLAGS) -o $@ $< libccsim.a $(LDLIBS) -ldl
$(TST)/nccl_prof_host: $(TST)/tests/nccl/prof_host.o $(TST)/libccsim.a
	$(CC) $(TEST_CFLAGS) -o $@ $< $(TST)/libccsim.a $(LDLIBS) -ldl
$(REL)/nccl_prof_host: $(REL)/tests/nccl/prof_host.o libccsim.a
	$(CC) $(OPT_CFLAGS) -o $@ $< libccsim.a $(LDLIBS) -ldl

test: $(TST)/ccsim $(TST)/validate $(UNIT_TESTS:%=$(TST)/%) $(PROP_TESTS:%=$(TST)/%) $(FUZZ_NAMES:%=$(TST)/fuzz_%) \
      bin/ccsim $(MPI_PLUGIN) $(TST)/failmalloc.so $(TST)/failwrite.so benches plugins $(PLUGINS:%=$(TST)/plugins/libnccl-%-ccsim.so) \
      $(PLUGINS:%=$(TST)/pic/calibrate/nccl/%.o) $(TST)/nccl_host $(TST)/nccl_prof_host $(REL)/nccl_host $(REL)/nccl_prof_host
	@sh tests/run.sh $(TST)

# libFuzzer builds: clang with ASan, UBSan and float-cast-overflow (which gcc's
# UBSan in make test lacks); not needed by make or make test
FUZZ_CC ?= clang
FUZZ := build/fuzz
FUZZ_SECONDS ?= 60
FUZZ_CFLAGS := -O1 -g -fsanitize=fuzzer-no-link,address,undefined,float-cast-overflow -fno-sanitize-recover=all \
               -fno-omit-frame-pointer -std=c11 -Wall -Wextra
FUZZ_LIB_OBJ := $(LIB_SRC:%.c=$(FUZZ)/%.o)
FUZZ_CLI_OBJ := $(filter-out $(FUZZ)/sim/cli/main.o,$(CLI_SRC:%.c=$(FUZZ)/%.o))
$(FUZZ)/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) -MMD -MP -c $< -o $@
$(FUZZ)/bin/fuzz_%: $(FUZZ)/tests/fuzz/fuzz_%.o $(FUZZ)/tests/fuzz/fuzz_util.o $(FUZZ_CLI_OBJ) $(FUZZ_LIB_OBJ)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)
fuzz-cc:
	@command -v $(FUZZ_CC) >/dev/null || { echo "make fuzz needs clang with libFuzzer (Debian: apt-get install clang)"; exit 1; }
$(FUZZ_LIB_OBJ) $(FUZZ_CLI_OBJ): | fuzz-cc
fuzz: fuzz-cc $(FUZZ_NAMES:%=$(FUZZ)/bin/fuzz_%)
	@sh tests/fuzz/run.sh $(FUZZ)/bin $(FUZZ_SECONDS) $(FUZZ_NAMES)

bench: bin/ccsim $(MPI_PLUGIN) $(REL)/bench_topo $(REL)/bench_classes $(REL)/bench_a2a $(REL)/bench_synth $(REL)/nccl_host $(REL)/nccl_prof_host plugins
	@$(REL)/bench_topo; a=$$?; echo; $(REL)/bench_classes; b=$$?; echo; $(REL)/bench_a2a; c=$$?; echo; \
	$(REL)/bench_synth; e=$$?; echo; \
	sh tests/bench/shards.sh bin/ccsim; echo; sh tests/bench/predict.sh bin/ccsim; echo; \
	$(REL)/nccl_host build/plugins/libnccl-tuner-ccsim.so | grep -E '^(tuner|nccl_host)'; \
	d=$$(mktemp -d) && $(REL)/nccl_prof_host build/plugins/libnccl-profiler-ccsim.so $$d --bench; rm -rf "$$d"; \
	[ $$a -eq 0 ] && [ $$b -eq 0 ] && [ $$c -eq 0 ] && [ $$e -eq 0 ]

check-deps: bin/ccsim $(PLUGINS:%=$(REL)/pic/calibrate/nccl/%.o)
	@sh tests/tools/check_deps.sh $(REL)

check-size:
	@sh tests/tools/check_size.sh

check-consts:
	@sh tests/tools/check_consts.sh

VALIDATION ?= ../shared/validation/published.csv
validate: $(REL)/validate
	@$(REL)/validate $(VALIDATION) docs/validation.md

golden-update: $(TST)/ccsim
	@sh tests/run.sh $(TST) --update-golden

clean:
	rm -rf build bin libccsim.a

-include $(shell find build -name '*.d' 2>/dev/null)
