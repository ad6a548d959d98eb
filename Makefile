# schedfreqd — one non-recursive Makefile (see README.md).
#
#   make                 build schedfreqd, schedfreqctl and the test tools into $(BUILD)/
#   make run             install missing build dependencies (root, apt), build, run the main job
#   make check           install missing dependencies, build, run the whole suite (plus an ASan+UBSan pass)
#   make install DESTDIR= PREFIX=
#
# Knobs: BUILD=dir, SANITIZE=address,undefined, WERROR=1 (on by default when CI=true), CC=clang.

VERSION := $(shell git describe --always --dirty 2>/dev/null || echo 0.1)

BUILD ?= build
CC ?= cc
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

DAEMON_PKGS := libsystemd libnl-3.0 libnl-genl-3.0 inih libtraceevent libtracefs
EMU_PKGS := fuse3

pkg_cflags = $(shell $(PKG_CONFIG) --cflags $(1) 2>/dev/null)
pkg_libs = $(shell $(PKG_CONFIG) --libs $(1) 2>/dev/null)

BASE_CPPFLAGS := -Iinclude -D_GNU_SOURCE -DVERSION=\"$(VERSION)\" -MMD -MP
ALL_CFLAGS := -std=gnu11 $(WARNINGS) $(SAN_FLAGS) $(CFLAGS)
DAEMON_CPPFLAGS := $(BASE_CPPFLAGS) $(call pkg_cflags,$(DAEMON_PKGS))
DAEMON_LIBS := $(call pkg_libs,$(DAEMON_PKGS)) -lcpupower -lm
EMU_CPPFLAGS := $(BASE_CPPFLAGS) -Itests/emu $(call pkg_cflags,$(EMU_PKGS))
EMU_LIBS := $(call pkg_libs,$(EMU_PKGS))
ALL_LDFLAGS := $(SAN_FLAGS) $(LDFLAGS)

# Every daemon/*.c except the two mains is "library": linked into schedfreqd, schedfreqctl and every test.
MAINS := daemon/main.c daemon/schedfreqctl.c
LIB_SRC := $(filter-out $(MAINS),$(sort $(wildcard daemon/*.c)))
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)

# The emulator (tests/emu/*.c) reuses the topology parser and the CPU-list helpers only.
EMU_SRC := $(sort $(wildcard tests/emu/*.c))
EMU_SHARED := daemon/topology.c daemon/cpulist.c daemon/log.c
EMU_OBJ := $(EMU_SRC:%.c=$(BUILD)/%.o) $(EMU_SHARED:%.c=$(BUILD)/emu/%.o)

UNIT_SRC := $(sort $(wildcard tests/unit/test-*.c))
UNIT_BIN := $(UNIT_SRC:%.c=$(BUILD)/%)

BENCH_SRC := $(sort $(wildcard bench/*.c))
BENCH_BIN := $(BENCH_SRC:%.c=$(BUILD)/%)

HELPER_SRC := $(sort $(wildcard tests/helpers/*.c))
HELPER_BIN := $(HELPER_SRC:%.c=$(BUILD)/%)

BINS := $(BUILD)/schedfreqd $(if $(wildcard daemon/schedfreqctl.c),$(BUILD)/schedfreqctl)

.PHONY: all deps run check check-unit check-asan install uninstall clean
.DEFAULT_GOAL := all

all: $(BINS) $(BUILD)/cpufreq-emu $(UNIT_BIN) $(BENCH_BIN) $(HELPER_BIN)

$(BUILD)/daemon/%.o: daemon/%.c
	@mkdir -p $(@D)
	$(CC) $(DAEMON_CPPFLAGS) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/emu/daemon/%.o: daemon/%.c
	@mkdir -p $(@D)
	$(CC) $(BASE_CPPFLAGS) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/tests/emu/%.o: tests/emu/%.c
	@mkdir -p $(@D)
	$(CC) $(EMU_CPPFLAGS) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/schedfreqd: $(BUILD)/daemon/main.o $(LIB_OBJ)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(DAEMON_LIBS)

$(BUILD)/schedfreqctl: $(BUILD)/daemon/schedfreqctl.o $(LIB_OBJ)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(DAEMON_LIBS)

$(BUILD)/cpufreq-emu: $(EMU_OBJ)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(EMU_LIBS)

$(BUILD)/tests/unit/%: tests/unit/%.c tests/test.h $(LIB_OBJ)
	@mkdir -p $(@D)
	$(CC) $(DAEMON_CPPFLAGS) -Itests $(ALL_CFLAGS) -DFIXTURES=\"$(CURDIR)/tests/fixtures\" -o $@ $< $(LIB_OBJ) $(ALL_LDFLAGS) $(DAEMON_LIBS)

$(BUILD)/tests/helpers/%: tests/helpers/%.c
	@mkdir -p $(@D)
	$(CC) $(BASE_CPPFLAGS) $(ALL_CFLAGS) -o $@ $< $(ALL_LDFLAGS) -lm -lpthread

$(BUILD)/bench/%: bench/%.c $(LIB_OBJ)
	@mkdir -p $(@D)
	$(CC) $(DAEMON_CPPFLAGS) $(ALL_CFLAGS) -o $@ $< $(LIB_OBJ) $(ALL_LDFLAGS) $(DAEMON_LIBS)

deps:
	@scripts/install-deps

run: deps
	@$(MAKE) --no-print-directory all
	@scripts/run-demo $(BUILD)

# The whole suite: unit tests and root integration tests on the normal build, then the unit tests and the
# daemon integration tests again under ASan+UBSan.
check: deps
	@$(MAKE) --no-print-directory all
	@$(MAKE) --no-print-directory BUILD=build-asan SANITIZE=address,undefined all
	@tests/run-tests $(BUILD) build-asan

check-unit: all
	@tests/run-tests --unit-only $(BUILD)

PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
BINDIR ?= $(PREFIX)/bin
SYSCONFDIR ?= /etc

install: all
	install -Dm755 $(BUILD)/schedfreqd $(DESTDIR)$(SBINDIR)/schedfreqd
	@if [ ! -e $(DESTDIR)$(SYSCONFDIR)/schedfreqd.conf ]; then \
		install -Dm644 conf/schedfreqd.conf $(DESTDIR)$(SYSCONFDIR)/schedfreqd.conf; \
	else echo "keeping existing $(DESTDIR)$(SYSCONFDIR)/schedfreqd.conf"; fi

uninstall:
	rm -f $(DESTDIR)$(SBINDIR)/schedfreqd

clean:
	rm -rf build build-asan

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
