# schedfreqd — one non-recursive Makefile (see README.md).
#
#   make                 build schedfreqd, schedfreqctl and the test tools into $(BUILD)/
#   make run             install missing build dependencies (root, apt), build, run the main job
#   make try             the same, then the daemon on the emulated cpufreq tree with a private D-Bus bus, and a shell
#                        there (schedfreqctl status/watch/explain); TOPOLOGY=FILE another emulated topology
#   make check           install missing dependencies, build, run the whole suite (plus an ASan+UBSan pass)
#   make fuzz            build the libFuzzer targets (clang) into $(BUILD)/fuzz/ and run each for FUZZ_SECONDS
#   make install DESTDIR= PREFIX=
#
# Knobs: BUILD=dir, SANITIZE=address,undefined, WERROR=1 (on by default when CI=true), CC=clang, V=1 (print
# every command line in full instead of one short line per step).

# The release number; --version, the D-Bus Version property and the start-up line add the commit when the tree
# is a git checkout ("0.1.0 (git 7f7a6de)", "-dirty" with uncommitted changes). Bump VERSION at a release.
VERSION := 0.1.0
GIT_COMMIT := $(shell git -C '$(CURDIR)' describe --always --dirty --abbrev=7 --exclude='*' 2>/dev/null)
VERSION_STRING := $(VERSION)$(if $(GIT_COMMIT), (git $(GIT_COMMIT)))

BUILD ?= build
CC ?= cc

# Quiet output, as the kernel's Kbuild and systemd's meson/ninja print it: one short line per step,
# "  CC      daemon/engine.o", "  LD      build/schedfreqd"; V=1 prints the full command lines instead, and
# `make -s` nothing but failures. A failing command is printed in full after its own output (the compiler's
# errors), so a quiet log (CI's `make check CI=true` too) still shows exactly what failed and how to rerun it.
# In a recipe: $(Q)$(call run,TAG,WHAT,COMMAND); COMMAND must not contain a literal comma (put it in a variable).
V ?= 0
# $(call runv,...) is the same for a command inside an @-line (a shell `if`), which make itself does not echo.
comma := ,
run_quote = '$(subst ','\'',$(strip $(1)))'
ifeq ($(V),1)
Q :=
run = $(3)
runv = printf '%s\n' $(call run_quote,$(3)); $(3)
else
Q := @
run_say = $(if $(findstring s,$(firstword -$(MAKEFLAGS))),:,printf '  %-7s %s\n' '$(1)' '$(2)')
run = $(run_say); { $(3); } || { rc=$$?; printf 'make: failed (exit %d): %s\n' $$rc $(call run_quote,$(3)) >&2; exit $$rc; }
runv = $(run)
endif
# An object is named by its path under $(BUILD) (its source's path), a program by where it is.
obj = $(patsubst $(BUILD)/%,%,$@)
CFLAGS ?= -O2 -g
PKG_CONFIG ?= pkg-config

WARNINGS := -Wall -Wextra -Wformat-security -Wshadow -Wmissing-prototypes -Wstrict-prototypes \
	-Wno-missing-field-initializers -Wno-unused-parameter -Wvla -Wpointer-arith -Wundef
ifeq ($(CI),true)
WERROR ?= 1
endif
ifeq ($(WERROR),1)
WARNINGS += -Werror
endif

ifneq ($(SANITIZE),)
SAN_FLAGS := -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=undefined
endif

DAEMON_PKGS := libsystemd libnl-3.0 libnl-genl-3.0 inih libtraceevent libtracefs libtracecmd zlib
EMU_PKGS := fuse3

pkg_cflags = $(shell $(PKG_CONFIG) --cflags $(1) 2>/dev/null)
pkg_libs = $(shell $(PKG_CONFIG) --libs $(1) 2>/dev/null)

# The version is a generated header, $(BUILD)/include/version.h, rewritten only when its text changes: the
# objects that print it depend on it (-MMD), so a new commit rebuilds them and nothing else. A -D flag would not:
# make does not see a changed command line.
VERSION_H := $(BUILD)/include/version.h
version_h_text := \#define VERSION "$(VERSION)"\n\#define VERSION_STRING "$(VERSION_STRING)"
$(shell mkdir -p '$(dir $(VERSION_H))' && printf '$(version_h_text)\n' | cmp -s - '$(VERSION_H)' || \
	printf '$(version_h_text)\n' >'$(VERSION_H)')

BASE_CPPFLAGS := -Iinclude -I$(BUILD)/include -D_GNU_SOURCE -MMD -MP
ALL_CFLAGS := -std=gnu11 $(WARNINGS) $(SAN_FLAGS) $(CFLAGS)
DAEMON_CPPFLAGS := $(BASE_CPPFLAGS) $(call pkg_cflags,$(DAEMON_PKGS))
DAEMON_LIBS := $(call pkg_libs,$(DAEMON_PKGS)) -lcpupower -lm
EMU_CPPFLAGS := $(BASE_CPPFLAGS) -Itests/emu $(call pkg_cflags,$(EMU_PKGS))
EMU_LIBS := $(call pkg_libs,$(EMU_PKGS))
ALL_LDFLAGS := $(SAN_FLAGS) $(LDFLAGS)

# schedfreqctl, the D-Bus client, is its own program in daemon/schedfreqctl/ (one concern a file).
CTL_SRC := $(sort $(wildcard daemon/schedfreqctl/*.c))
CTL_OBJ := $(CTL_SRC:%.c=$(BUILD)/%.o)

# One folder a subsystem (docs/architecture.md): daemon/SUBSYSTEM/*.c. Each folder's private headers sit beside its
# sources, where only its own files find them (#include "x.h" looks in the including file's folder first); what
# the rest of the tree may use is in include/. Every daemon/*/*.c except main.c and schedfreqctl is "library":
# linked into schedfreqd and every test.
SUBSYSTEMS := shared topology config events model governor actuator replay service
MAINS := daemon/service/main.c $(CTL_SRC)
LIB_SRC := $(filter-out $(MAINS),$(sort $(foreach d,$(SUBSYSTEMS),$(wildcard daemon/$(d)/*.c))))
# The tests, fuzzers and benchmarks are white-box: they may include a subsystem's private headers.
PRIVATE_CPPFLAGS := $(SUBSYSTEMS:%=-Idaemon/%)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
# The same objects as an archive, for schedfreqctl: the linker takes from it only the members the client's code
# needs (check-config's parser and topology, the OpenMetrics writer, and what they call), none of the daemon's
# events, model or actuation. The client is not the daemon.
LIB_ARCHIVE := $(BUILD)/daemon/libdaemon.a

# The emulator (tests/emu/*.c) reuses the topology parser and the shared helpers it calls (strings, CPU lists, log,
# array growth) only.
EMU_SRC := $(sort $(wildcard tests/emu/*.c))
EMU_SHARED := daemon/topology/topology.c daemon/topology/topology-parse.c daemon/topology/topology-keys.c daemon/topology/cpufreq-driver.c \
	daemon/shared/string-util.c daemon/shared/cpulist.c daemon/shared/log.c daemon/shared/alloc-util.c
EMU_OBJ := $(EMU_SRC:%.c=$(BUILD)/%.o) $(EMU_SHARED:%.c=$(BUILD)/emu/%.o)

UNIT_SRC := $(sort $(wildcard tests/unit/test-*.c))
UNIT_BIN := $(UNIT_SRC:%.c=$(BUILD)/%)

BENCH_SRC := $(sort $(wildcard bench/*.c))
BENCH_BIN := $(BENCH_SRC:%.c=$(BUILD)/%)

HELPER_SRC := $(sort $(wildcard tests/helpers/*.c))
HELPER_BIN := $(HELPER_SRC:%.c=$(BUILD)/%)

# Fuzz harnesses (tests/fuzz/fuzz-NAME.c, seed corpus tests/fuzz/corpus/NAME/): `all` builds each as a corpus
# replay driver with the normal compiler and flags, which tests/run-tests runs (so `make check` replays the
# corpora, also under ASan+UBSan); `make fuzz` builds them with libFuzzer.
FUZZ_SRC := $(sort $(wildcard tests/fuzz/fuzz-*.c))
FUZZ_NAMES := $(FUZZ_SRC:tests/fuzz/fuzz-%.c=%)
FUZZ_REPLAY_BIN := $(FUZZ_SRC:%.c=$(BUILD)/%)

BINS := $(BUILD)/schedfreqd $(if $(CTL_SRC),$(BUILD)/schedfreqctl)

.PHONY: all deps quiet-all run try check check-unit check-asan install uninstall clean fuzz fuzz-build analyze analyze-gcc \
	analyze-cppcheck
.DEFAULT_GOAL := all

all: $(BINS) $(BUILD)/cpufreq-emu $(UNIT_BIN) $(BENCH_BIN) $(HELPER_BIN) $(FUZZ_REPLAY_BIN)

$(BUILD)/daemon/%.o: daemon/%.c
	@mkdir -p $(@D)
	$(Q)$(call run,CC,$(obj),$(CC) $(DAEMON_CPPFLAGS) $(ALL_CFLAGS) -c -o $@ $<)

# An object by the name the short lines give it: `make V=1 -B daemon/governor/engine.o` rebuilds
# $(BUILD)/daemon/governor/engine.o.
ifneq ($(abspath $(BUILD)),$(CURDIR))
daemon/%.o: $(BUILD)/daemon/%.o ;
endif

$(BUILD)/emu/daemon/%.o: daemon/%.c
	@mkdir -p $(@D)
	$(Q)$(call run,CC,$(obj),$(CC) $(BASE_CPPFLAGS) $(ALL_CFLAGS) -c -o $@ $<)

$(BUILD)/tests/emu/%.o: tests/emu/%.c
	@mkdir -p $(@D)
	$(Q)$(call run,CC,$(obj),$(CC) $(EMU_CPPFLAGS) $(ALL_CFLAGS) -c -o $@ $<)

$(BUILD)/schedfreqd: $(BUILD)/daemon/service/main.o $(LIB_OBJ)
	$(Q)$(call run,LD,$@,$(CC) $(ALL_LDFLAGS) -o $@ $^ $(DAEMON_LIBS))

$(LIB_ARCHIVE): $(LIB_OBJ)
	$(Q)$(call run,AR,$@,rm -f $@ && $(AR) rcs $@ $^)

# --as-needed: of the daemon's libraries the client keeps only those its members call (no libbpf, no libnl).
$(BUILD)/schedfreqctl: $(CTL_OBJ) $(LIB_ARCHIVE)
	$(Q)$(call run,LD,$@,$(CC) $(ALL_LDFLAGS) -Wl$(comma)--as-needed -o $@ $^ $(DAEMON_LIBS))

$(BUILD)/cpufreq-emu: $(EMU_OBJ)
	$(Q)$(call run,LD,$@,$(CC) $(ALL_LDFLAGS) -o $@ $^ $(EMU_LIBS))

# Long commands are variables (expanded in the recipe, so $@ and $< are the rule's): a backslash-newline inside
# $(call run,...) would reach the printed command.
cmd_unit = $(CC) $(DAEMON_CPPFLAGS) $(PRIVATE_CPPFLAGS) -Itests $(ALL_CFLAGS) -DFIXTURES=\"$(CURDIR)/tests/fixtures\" -o $@ $< \
	$(LIB_OBJ) $(ALL_LDFLAGS) $(DAEMON_LIBS)
$(BUILD)/tests/unit/%: tests/unit/%.c tests/test.h $(LIB_OBJ)
	@mkdir -p $(@D)
	$(Q)$(call run,CCLD,$@,$(cmd_unit))

# The emulator's fault rules (tests/emu/fault.c) are pure: their unit test links that one object, no FUSE.
cmd_unit_emu_fault = $(CC) $(BASE_CPPFLAGS) -Itests -Itests/emu $(ALL_CFLAGS) -o $@ $< $(BUILD)/tests/emu/fault.o \
	$(ALL_LDFLAGS)
$(BUILD)/tests/unit/test-emu-fault: tests/unit/test-emu-fault.c tests/test.h $(BUILD)/tests/emu/fault.o
	@mkdir -p $(@D)
	$(Q)$(call run,CCLD,$@,$(cmd_unit_emu_fault))

cmd_fuzz_replay = $(CC) $(DAEMON_CPPFLAGS) $(PRIVATE_CPPFLAGS) -Itests/fuzz $(ALL_CFLAGS) -DFIXTURES=\"$(CURDIR)/tests/fixtures\" \
	-DFUZZ_CORPUS_DIR=\"$(CURDIR)/tests/fuzz/corpus/$*\" -o $@ $< tests/fuzz/replay-main.c $(LIB_OBJ) \
	$(ALL_LDFLAGS) $(DAEMON_LIBS)
$(BUILD)/tests/fuzz/fuzz-%: tests/fuzz/fuzz-%.c tests/fuzz/replay-main.c tests/fuzz/fuzz.h $(LIB_OBJ)
	@mkdir -p $(@D)
	$(Q)$(call run,CCLD,$@,$(cmd_fuzz_replay))

$(BUILD)/tests/helpers/%: tests/helpers/%.c
	@mkdir -p $(@D)
	$(Q)$(call run,CCLD,$@,$(CC) $(BASE_CPPFLAGS) $(ALL_CFLAGS) -o $@ $< $(ALL_LDFLAGS) -lm -lpthread)

$(BUILD)/bench/%: bench/%.c $(LIB_OBJ)
	@mkdir -p $(@D)
	$(Q)$(call run,CCLD,$@,$(CC) $(DAEMON_CPPFLAGS) $(PRIVATE_CPPFLAGS) -Itests $(ALL_CFLAGS) -o $@ $< $(LIB_OBJ) $(ALL_LDFLAGS) $(DAEMON_LIBS))

# --- kernel PELT oracle (issue 9 item 7) --------------------------------------------------------------------
# tests/oracle/pelt-oracle: a libbpf loader for pelt-oracle.bpf.c (tp_btf on pelt_cfs_tp, pelt_rt_tp and
# sched_util_est_cfs_tp); tests/oracle/oracle-compare: compares its output with `schedfreqd replay --print-util`.
# vmlinux.h and the skeleton are generated here, in $(BUILD)/tests/oracle/, from the running kernel's BTF (never
# committed). Needs clang, bpftool and libbpf-dev (scripts/install-deps).
ORACLE_DIR := $(BUILD)/tests/oracle
ORACLE_BTF ?= /sys/kernel/btf/vmlinux
BPF_CLANG ?= clang
BPFTOOL ?= bpftool
ORACLE_ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/' -e 's/ppc64le/powerpc/' \
	-e 's/riscv64/riscv/' -e 's/s390x/s390/' -e 's/loongarch64/loongarch/')
ORACLE_BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ORACLE_ARCH) -Wall $(if $(filter 1,$(WERROR)),-Werror)
ORACLE_LIBS := $(or $(call pkg_libs,libbpf),-lbpf) -lelf -lz
ORACLE_CFLAGS := $(call pkg_cflags,libbpf)
ORACLE_BINS := $(ORACLE_DIR)/pelt-oracle $(ORACLE_DIR)/oracle-compare

all: $(ORACLE_BINS)

$(ORACLE_DIR)/vmlinux.h: $(ORACLE_BTF)
	@mkdir -p $(@D)
	$(Q)$(call run,GEN,$@,$(BPFTOOL) btf dump file $(ORACLE_BTF) format c >$@.tmp && mv $@.tmp $@)

$(ORACLE_DIR)/pelt-oracle.bpf.o: tests/oracle/pelt-oracle.bpf.c tests/oracle/pelt-oracle.h $(ORACLE_DIR)/vmlinux.h
	$(Q)$(call run,BPF,$(obj),$(BPF_CLANG) $(ORACLE_BPF_CFLAGS) -I$(ORACLE_DIR) -Itests/oracle -c -o $@ $<)

$(ORACLE_DIR)/pelt-oracle.skel.h: $(ORACLE_DIR)/pelt-oracle.bpf.o
	$(Q)$(call run,GEN,$@,$(BPFTOOL) gen skeleton $< name pelt_oracle_bpf >$@.tmp && mv $@.tmp $@)

cmd_pelt_oracle = $(CC) $(BASE_CPPFLAGS) -I$(ORACLE_DIR) -Itests/oracle $(ORACLE_CFLAGS) $(ALL_CFLAGS) -o $@ $< \
	$(ALL_LDFLAGS) $(ORACLE_LIBS)
$(ORACLE_DIR)/pelt-oracle: tests/oracle/pelt-oracle.c tests/oracle/pelt-oracle.h $(ORACLE_DIR)/pelt-oracle.skel.h
	$(Q)$(call run,CCLD,$@,$(cmd_pelt_oracle))

$(ORACLE_DIR)/oracle-compare: tests/oracle/oracle-compare.c
	@mkdir -p $(@D)
	$(Q)$(call run,CCLD,$@,$(CC) $(BASE_CPPFLAGS) $(ALL_CFLAGS) -o $@ $< $(ALL_LDFLAGS) -lm)
# --- end of the kernel PELT oracle ----------------------------------------------------------------------------

# --- libFuzzer targets (issue 10 item 7) ----------------------------------------------------------------------
# $(BUILD)/fuzz/fuzz-NAME: clang, -fsanitize=fuzzer,address,undefined, the daemon's library objects rebuilt with
# the same instrumentation in $(BUILD)/fuzz/obj/. `make fuzz` runs each target for FUZZ_SECONDS, one after the
# other, on a working corpus in $(BUILD)/fuzz/corpus/NAME/ seeded from tests/fuzz/corpus/NAME/ (which it never
# writes); crashing inputs go to $(BUILD)/fuzz/crash-NAME-*. FUZZ_ARGS adds libFuzzer options (-jobs=, -dict=).
# Minimise what a run found back into the seed corpus (docs/reliability.md):
#   $(BUILD)/fuzz/fuzz-NAME -merge=1 -use_counters=0 tests/fuzz/corpus/NAME $(BUILD)/fuzz/corpus/NAME
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_ARGS ?=
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CFLAGS := -std=gnu11 $(WARNINGS) $(FUZZ_SAN) -fsanitize=fuzzer-no-link -O1 -g
FUZZ_DIR := $(BUILD)/fuzz
FUZZ_LIB_OBJ := $(LIB_SRC:%.c=$(FUZZ_DIR)/obj/%.o)
FUZZ_BIN := $(FUZZ_NAMES:%=$(FUZZ_DIR)/fuzz-%)

$(FUZZ_DIR)/obj/daemon/%.o: daemon/%.c
	@mkdir -p $(@D)
	$(Q)$(call run,CC,$(obj),$(FUZZ_CC) $(DAEMON_CPPFLAGS) $(FUZZ_CFLAGS) -c -o $@ $<)

cmd_fuzz = $(FUZZ_CC) $(DAEMON_CPPFLAGS) $(PRIVATE_CPPFLAGS) -Itests/fuzz $(FUZZ_CFLAGS) -DFIXTURES=\"$(CURDIR)/tests/fixtures\" \
	-fsanitize=fuzzer -o $@ $< $(FUZZ_LIB_OBJ) $(DAEMON_LIBS)
$(FUZZ_DIR)/fuzz-%: tests/fuzz/fuzz-%.c tests/fuzz/fuzz.h $(FUZZ_LIB_OBJ)
	@mkdir -p $(@D)
	$(Q)$(call run,CCLD,$@,$(cmd_fuzz))

fuzz-build: $(FUZZ_LIB_OBJ) $(FUZZ_BIN)

# Every target runs even when one fails; the failed ones are named at the end (and make fails).
fuzz: fuzz-build
	@failed=; for n in $(FUZZ_NAMES); do \
		mkdir -p $(FUZZ_DIR)/corpus/$$n; \
		echo "== fuzz-$$n: $(FUZZ_SECONDS) s"; \
		$(FUZZ_DIR)/fuzz-$$n -max_total_time=$(FUZZ_SECONDS) -timeout=10 -print_final_stats=1 \
			-artifact_prefix=$(FUZZ_DIR)/crash-$$n- $(FUZZ_ARGS) $(FUZZ_DIR)/corpus/$$n tests/fuzz/corpus/$$n \
			|| failed="$$failed $$n"; \
	done; \
	if [ -n "$$failed" ]; then echo "fuzz: findings in:$$failed (inputs in $(FUZZ_DIR)/crash-*)"; exit 1; fi
# --- end of the libFuzzer targets ---------------------------------------------------------------------------

# --- static analysis (issue 11 item 5) --------------------------------------------------------------------------
# `make analyze`: gcc -fanalyzer over daemon/*.c and tests/emu/*.c, one object per file in $(BUILD)/analyze/ (so
# make -j runs them in parallel and reruns only what changed), then cppcheck over the same sources. Any finding
# fails (-Werror, --error-exitcode=1). The analyzer must be gcc, whatever CC is; it runs at -O2, as the build does
# (which findings gcc 12 reports depends on the optimisation level). A false positive is silenced where it is,
# with ANALYZER_FALSE_POSITIVE_BEGIN/END (include/macro.h) and its reason; cppcheck's in tests/cppcheck.supp or
# as "// cppcheck-suppress ID ; REASON". Every finding and what was done about it: docs/reliability.md.
ANALYZE_CC ?= gcc
CPPCHECK ?= cppcheck
ANALYZE_DIR := $(BUILD)/analyze
ANALYZE_FLAGS := -std=gnu11 $(WARNINGS) -Werror -O2 -g -fanalyzer -fdiagnostics-path-format=separate-events
ANALYZE_OBJ := $(LIB_SRC:%.c=$(ANALYZE_DIR)/%.o) $(MAINS:%.c=$(ANALYZE_DIR)/%.o) $(EMU_SRC:%.c=$(ANALYZE_DIR)/%.o)
CPPCHECK_FLAGS := --enable=warning,style,performance,portability --std=c11 --library=gnu --inline-suppr \
	--suppressions-list=tests/cppcheck.supp --error-exitcode=1 --quiet -j2 -D_GNU_SOURCE -DVERSION=\"0\" -DVERSION_STRING=\"0\" \
	-Iinclude -Itests/emu --template='{file}:{line}:{column}: {severity}: {message} [{id}]'

# Known findings silenced for a whole file (docs/reliability.md, "Static analysis", lists each). Remove a line
# once its file is clean.
# tests/emu/main.c: e "NULL" after emu_load() succeeded: gcc 12 can't tell that log_error_errno() is < 0.
$(ANALYZE_DIR)/tests/emu/main.o: ANALYZE_KNOWN := -Wno-analyzer-null-dereference

$(ANALYZE_DIR)/daemon/%.o: daemon/%.c
	@mkdir -p $(@D)
	$(Q)$(call run,ANALYZE,$<,$(ANALYZE_CC) $(DAEMON_CPPFLAGS) $(ANALYZE_FLAGS) $(ANALYZE_KNOWN) -c -o $@ $<)

$(ANALYZE_DIR)/tests/emu/%.o: tests/emu/%.c
	@mkdir -p $(@D)
	$(Q)$(call run,ANALYZE,$<,$(ANALYZE_CC) $(EMU_CPPFLAGS) $(ANALYZE_FLAGS) $(ANALYZE_KNOWN) -c -o $@ $<)

analyze-gcc: $(ANALYZE_OBJ)

analyze-cppcheck:
	$(Q)$(call run,CPPCHECK,daemon tests/emu,$(CPPCHECK) $(CPPCHECK_FLAGS) daemon tests/emu)

analyze: analyze-gcc analyze-cppcheck
# --- end of static analysis -------------------------------------------------------------------------------------

# --- BPF event source (issue #23) -------------------------------------------------------------------------------
# daemon/governor/bpf/schedfreqd.bpf.c (tp_btf programs: schedutil's decision in the kernel, docs/bpf-source.md) is compiled
# with clang for the BPF target (-mcpu=v3: the atomics that claim a frequency change), and bpftool turns it into
# $(BUILD)/daemon/governor/bpf/schedfreqd.skel.h, which daemon/governor/bpf-events.c includes; vmlinux.h is generated beside it from
# the build machine's BTF (never committed), as the PELT oracle's is. Reuses BPF_CLANG, BPFTOOL and ORACLE_ARCH.
# A build machine without BTF builds bpf-events.o with -DSCHEDFREQD_NO_BPF: no libbpf, and bpf_events_new() says
# -EOPNOTSUPP ("built without BPF"), so the daemon still builds and runs on its perf source.
BPF_BTF ?= /sys/kernel/btf/vmlinux
BPF_DIR := $(BUILD)/daemon/governor/bpf
HAVE_BPF ?= $(if $(wildcard $(BPF_BTF)),1,0)
ifeq ($(HAVE_BPF),1)
BPF_SKEL := $(BPF_DIR)/schedfreqd.skel.h
BPF_EVENTS_CPPFLAGS := -I$(BPF_DIR) -Idaemon/governor/bpf $(call pkg_cflags,libbpf)
DAEMON_LIBS += $(or $(call pkg_libs,libbpf),-lbpf) -lelf -lz
BPF_PROG_CFLAGS := -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ORACLE_ARCH) -Wall $(if $(filter 1,$(WERROR)),-Werror)

$(BPF_DIR)/vmlinux.h: $(BPF_BTF)
	@mkdir -p $(@D)
	$(Q)$(call run,GEN,$@,$(BPFTOOL) btf dump file $(BPF_BTF) format c >$@.tmp && mv $@.tmp $@)

$(BPF_DIR)/schedfreqd.bpf.o: daemon/governor/bpf/schedfreqd.bpf.c daemon/governor/bpf/schedfreqd-bpf.h $(BPF_DIR)/vmlinux.h
	$(Q)$(call run,BPF,$(obj),$(BPF_CLANG) $(BPF_PROG_CFLAGS) -I$(BPF_DIR) -Idaemon/governor/bpf -c -o $@ $<)

$(BPF_SKEL): $(BPF_DIR)/schedfreqd.bpf.o
	$(Q)$(call run,GEN,$@,$(BPFTOOL) gen skeleton $< name schedfreqd_bpf >$@.tmp && mv $@.tmp $@)
else
BPF_SKEL :=
BPF_EVENTS_CPPFLAGS := -DSCHEDFREQD_NO_BPF
endif

$(BUILD)/daemon/governor/bpf-events.o: DAEMON_CPPFLAGS += $(BPF_EVENTS_CPPFLAGS)
$(BUILD)/daemon/governor/bpf-events.o: $(BPF_SKEL)
$(ANALYZE_DIR)/daemon/governor/bpf-events.o: DAEMON_CPPFLAGS += $(BPF_EVENTS_CPPFLAGS)
$(ANALYZE_DIR)/daemon/governor/bpf-events.o: $(BPF_SKEL)
# The fuzz targets never load programs: their copy of the library has the BPF source compiled out.
$(FUZZ_DIR)/obj/daemon/governor/bpf-events.o: DAEMON_CPPFLAGS += -DSCHEDFREQD_NO_BPF
# cppcheck reads host C: the BPF program (SEC(), BPF_PROG(), vmlinux.h) is clang's and the verifier's business.
CPPCHECK_FLAGS += -idaemon/governor/bpf
# --- end of the BPF event source --------------------------------------------------------------------------------

deps:
	@scripts/install-deps

# The build's own lines go to a log for run and try (~200 of them on a fresh clone, the demo is ~40): one line
# says so, and a failed build shows the log's end.
quiet-all:
	@mkdir -p $(BUILD)
	@printf 'Building (make all; its output: %s) ... ' '$(BUILD)/build.log'
	@if $(MAKE) --no-print-directory all >'$(BUILD)/build.log' 2>&1; then echo done.; \
	else echo failed:; tail -n 30 '$(BUILD)/build.log'; exit 1; fi

run: deps
	@$(MAKE) --no-print-directory quiet-all
	@scripts/run-demo $(BUILD)

# A session to poke at (scripts/try, root): the emulated cpufreq tree (tests/emu) in a private mount namespace, a
# private D-Bus system bus, schedfreqd governing the tree, and an interactive shell inside with schedfreqctl and
# the bus address set; `exit` stops it all. Always the emulator, also where cpufreq exists: never real policies.
# TOPOLOGY=tests/fixtures/topology/NAME.ini another topology (default two-policies.ini).
try: deps
	@$(MAKE) --no-print-directory quiet-all
	@scripts/try --build $(BUILD) $(if $(TOPOLOGY),--topology '$(TOPOLOGY)')

# The whole suite: unit tests and root integration tests on the normal build, then the unit tests and the
# daemon integration tests again under ASan+UBSan.
check: deps
	@$(MAKE) --no-print-directory all
	@$(MAKE) --no-print-directory BUILD=build-asan SANITIZE=address,undefined all
	@tests/run-tests $(BUILD) build-asan

check-unit: all
	@tests/run-tests --unit-only $(BUILD)

# The load and soak test (issue 11 item 4; root, about 12 min, loads both CPUs, not part of `make check`):
# tests/soak/run-soak.sh for SOAK_SECONDS (default 600; see the script for the other SOAK_* knobs), plotting into
# docs/soak-*.png; then, when it exists, the kill test with 1000 kills (KILLS_N). Both run; make fails if either did.
.PHONY: soak
soak: deps
	@$(MAKE) --no-print-directory all
	@rc=0; tests/soak/run-soak.sh $(BUILD) || rc=1; \
	if [ -f tests/integration/test-kills.sh ]; then \
		echo "== tests/integration/test-kills.sh, KILLS_N=1000"; \
		KILLS_N=1000 BUILD=$(BUILD) bash tests/integration/test-kills.sh $(BUILD) || rc=1; \
	fi; exit $$rc

# The benchmarks side by side with the peers (issue 12; root, about 15 min, not part of `make check`):
# bench/run-all.sh runs each bench/bench-*.sh part alone, writes CSVs and summaries to $(BUILD)/bench-out/ and
# the plots to docs/bench/. BENCH_PARTS and the parts' knobs (see each script) narrow it.
.PHONY: bench
bench: deps
	@scripts/install-deps bench
	@$(MAKE) --no-print-directory all
	@bench/run-all.sh $(BUILD)

PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
BINDIR ?= $(PREFIX)/bin
SYSCONFDIR ?= /etc
# --- install layout (issue 4) ------------------------------------------------------------------------------
# PREFIX=/usr is the distribution layout: units go where this systemd wants packages' units (its pkg-config
# systemdsystemunitdir: /lib/systemd/system on Debian 12) and the bus policy to /usr/share/dbus-1/system.d.
# Any other PREFIX (default /usr/local) is a local install: units in $(PREFIX)/lib/systemd/system (systemd
# searches /usr/local/lib/systemd/system), and the bus policy in /etc/dbus-1/system.d, because dbus-daemon
# reads only /usr/share/dbus-1/system.d and /etc/dbus-1/system.d (a policy under /usr/local would be inert).
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
ifeq ($(PREFIX),/usr)
SYSTEMDUNITDIR ?= $(or $(shell $(PKG_CONFIG) --variable=systemdsystemunitdir systemd 2>/dev/null),/lib/systemd/system)
DBUSPOLICYDIR ?= $(DATADIR)/dbus-1/system.d
else
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
DBUSPOLICYDIR ?= $(SYSCONFDIR)/dbus-1/system.d
endif
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
DBUS_POLICY := $(wildcard systemd/*.conf)
BASH_COMPLETION := $(wildcard shell-completion/bash/schedfreqctl)
HAVE_CTL := $(CTL_SRC)

CONF_DEST = $(DESTDIR)$(SYSCONFDIR)/schedfreqd.conf
cmd_unit_file = sed -e 's|@SBINDIR@|$(SBINDIR)|g' systemd/schedfreqd.service.in >$(BUILD)/schedfreqd.service
# $(call install_file,MODE,FILE,DEST)
install_file = $(call run,INSTALL,$(3),install -Dm$(1) $(2) $(3))

# The unit is generated from systemd/schedfreqd.service.in so that ExecStart= names the installed binary.
# /etc/schedfreqd.conf is never overwritten; uninstall removes it only while it is unchanged.
install: all
	$(Q)$(call run,GEN,$(BUILD)/schedfreqd.service,$(cmd_unit_file))
	$(Q)$(call install_file,755,$(BUILD)/schedfreqd,$(DESTDIR)$(SBINDIR)/schedfreqd)
	$(Q)$(if $(HAVE_CTL),$(call install_file,755,$(BUILD)/schedfreqctl,$(DESTDIR)$(BINDIR)/schedfreqctl))
	$(Q)$(call install_file,644,$(BUILD)/schedfreqd.service,$(DESTDIR)$(SYSTEMDUNITDIR)/schedfreqd.service)
	$(Q)$(foreach f,$(DBUS_POLICY),$(call install_file,644,$(f),$(DESTDIR)$(DBUSPOLICYDIR)/$(notdir $(f)));)
	$(Q)$(call install_file,644,docs/man/schedfreqd.8,$(DESTDIR)$(MANDIR)/man8/schedfreqd.8)
	$(Q)$(call install_file,644,docs/man/schedfreqd.conf.5,$(DESTDIR)$(MANDIR)/man5/schedfreqd.conf.5)
	$(Q)$(if $(HAVE_CTL),$(call install_file,644,docs/man/schedfreqctl.1,$(DESTDIR)$(MANDIR)/man1/schedfreqctl.1))
	$(Q)$(if $(and $(HAVE_CTL),$(BASH_COMPLETION)),$(call install_file,644,$(BASH_COMPLETION),$(DESTDIR)$(BASHCOMPDIR)/schedfreqctl))
	$(Q)$(call install_file,644,shell-completion/bash/schedfreqd,$(DESTDIR)$(BASHCOMPDIR)/schedfreqd)
	@if [ ! -e $(DESTDIR)$(SYSCONFDIR)/schedfreqd.conf ]; then \
		$(call runv,INSTALL,$(CONF_DEST),install -Dm644 conf/schedfreqd.conf $(CONF_DEST)); \
	else echo "keeping existing $(DESTDIR)$(SYSCONFDIR)/schedfreqd.conf"; fi
	@[ -n "$(DESTDIR)" ] || echo "Now: systemctl daemon-reload && systemctl enable --now schedfreqd"

UNINSTALL_FILES = $(DESTDIR)$(SBINDIR)/schedfreqd $(DESTDIR)$(BINDIR)/schedfreqctl \
	$(DESTDIR)$(SYSTEMDUNITDIR)/schedfreqd.service \
	$(foreach f,$(DBUS_POLICY),$(DESTDIR)$(DBUSPOLICYDIR)/$(notdir $(f))) \
	$(DESTDIR)$(MANDIR)/man8/schedfreqd.8 $(DESTDIR)$(MANDIR)/man5/schedfreqd.conf.5 \
	$(DESTDIR)$(MANDIR)/man1/schedfreqctl.1 $(DESTDIR)$(BASHCOMPDIR)/schedfreqctl $(DESTDIR)$(BASHCOMPDIR)/schedfreqd
uninstall:
	$(Q)$(foreach f,$(UNINSTALL_FILES),$(call run,RM,$(f),rm -f $(f));)
	@if cmp -s conf/schedfreqd.conf $(DESTDIR)$(SYSCONFDIR)/schedfreqd.conf; then \
		$(call runv,RM,$(DESTDIR)$(SYSCONFDIR)/schedfreqd.conf,rm -f $(DESTDIR)$(SYSCONFDIR)/schedfreqd.conf); \
	elif [ -e $(DESTDIR)$(SYSCONFDIR)/schedfreqd.conf ]; then \
		echo "keeping modified $(DESTDIR)$(SYSCONFDIR)/schedfreqd.conf"; fi

clean:
	rm -rf build build-asan

-include $(shell find $(BUILD) -path '$(BUILD)/peers' -prune -o -type f -name '*.d' -print 2>/dev/null)
