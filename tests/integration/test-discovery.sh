#!/bin/bash
# Discovery (daemon/topology/cpufreq-discover.c), run by the cpufreq-sysfs unit test binary where libcpupower can see the
# tree, i.e. at the real path /sys/devices/system/cpu, inside a private mount namespace:
#  1. plain-file trees: every tests/fixtures/sysfs/<case>/cpu is bind-mounted read-only over
#     /sys/devices/system/cpu and discover_fixture compares the result with <case>/expected.ini and <case>/dirs
#     (modern 2-policy, shared policy, legacy per-CPU directories, empty related_cpus, CPUs without a cpufreq
#     entry, sparse numbering, offline CPUs, intel_pstate, no cpufreq at all: -ENODEV);
#  2. the cpufreq emulator (tests/emu-run) serving each tests/fixtures/topology/*.ini: discover_emulated
#     must give that topology back.
# The mounts die with their namespaces; nothing outside changes.
# asan: yes
set -u
. "$(dirname "$0")/lib.sh"
cd "$REPO" || exit 1

BIN=$BUILD/tests/unit/test-cpufreq-sysfs

# Runs "$BIN TEST" through COMMAND...; passes when the binary reports "ok - TEST".
runs_ok() { # TEST COMMAND...
	local test=$1 out
	shift
	out=$("$@" 2>&1)
	printf '%s\n' "$out" | grep -q "^ok - $test\$" && return 0
	printf '%s\n' "$out"
	return 1
}

fixture_discovery() { # CASE_DIR
	SCHEDFREQD_TEST_SYSFS_CASE=$1 runs_ok discover_fixture unshare --mount --propagation private -- \
		sh -c 'mount --bind -o ro "$1" /sys/devices/system/cpu && exec "$2" discover_fixture' \
		sh "$1/cpu" "$BIN"
}

emulated_discovery() { # TOPOLOGY
	SCHEDFREQD_TEST_TOPOLOGY=$1 runs_ok discover_emulated \
		"$REPO/tests/emu-run" --build "$BUILD" "$1" -- "$BIN" discover_emulated
}

for case_dir in "$REPO"/tests/fixtures/sysfs/*/; do
	case_dir=${case_dir%/}
	check "discovery/sysfs/$(basename "$case_dir")" fixture_discovery "$case_dir"
done

for topology in "$REPO"/tests/fixtures/topology/*.ini; do
	check "discovery/emulated/$(basename "$topology" .ini)" emulated_discovery "$topology"
done

check discovery/no-mount-left-behind sh -c '! grep " /sys/devices/system/cpu " /proc/self/mountinfo'
finish
