#!/bin/bash
# Take-over and restore (daemon/actuator/actuator.c) end to end. The scenario tests of the test-actuator unit binary
# (take over + set + pause/resume + restore, crash, `restore` from the state file, no userspace governor,
# failure midway) run in a private mount namespace over
#  1. the cpufreq emulator (tests/emu-run, kernel semantics, a write log): every attribute is compared with
#     its snapshot, and the log shows what was written, in which order;
#  2. copies of plain-file trees (tests/fixtures/sysfs), for what the emulator cannot stage (a policy whose
#     scaling_setspeed cannot be opened) and for catching writes by mtime.
# asan: yes
set -u
. "$(dirname "$0")/lib.sh"
cd "$REPO" || exit 1

BIN=$BUILD/tests/unit/test-actuator
work=$(mktemp -d /tmp/test-actuator.XXXXXX)
at_exit 'rm -rf "$work"'
state=$work/run/schedfreqd/state

# Runs one scenario; passes when the binary reports "ok - SCENARIO". COMMAND... enters the namespace.
scenario() { # SCENARIO COMMAND...
	local name=$1 out
	shift
	out=$(SCHEDFREQD_TEST_ACTUATOR_STATE=$state "$@" "$BIN" "$name" 2>&1)
	printf '%s\n' "$out" | grep -q "^ok - $name\$" && return 0
	printf '%s\n' "$out"
	return 1
}

# ---- 1. the emulator ----

# Every attribute of the emulated tree, one "path: value" line each. The current frequency of a policy under
# a governor other than userspace is that governor's choice, not something to put back: masked.
snapshot() {
	emu_sh 'cd /sys/devices/system/cpu && find . -type f | sort | while read -r f; do
		case $f in
		*/scaling_cur_freq|*/cpuinfo_cur_freq)
			[ "$(cat "${f%/*}/scaling_governor")" = userspace ] || { echo "$f: (governor'\''s choice)"; continue; } ;;
		esac
		printf "%s: %s\n" "$f" "$(cat "$f" 2>&1)"
	done'
}

same_snapshot() { # FILE
	snapshot >"$work/after" && diff "$1" "$work/after"
}

# Write-log lines since line N+1, without the emulator's own frequency lines ("... set").
log_writes_since() { # N
	tail -n +"$(($1 + 1))" "$EMU_LOG" | grep -v ' set$'
}

log_lines() {
	wc -l <"$EMU_LOG"
}

in_emu() {
	emu_exec env SCHEDFREQD_TEST_ACTUATOR_KERNEL=1 "$@"
}

# A variant of two-policies.ini: policy1 already under userspace at 1600000 (its speed must come back), and
# policy0's scaling_max below cpuinfo_max (room to move the limits behind the daemon's back).
sed -e '/^\[policy0\]/a scaling_max_khz = 2000000' \
	-e '/^\[policy1\]/a cur_khz = 1600000' \
	-e '/^\[policy1\]/,$ s/^governor = schedutil/governor = userspace/' \
	tests/fixtures/topology/two-policies.ini >"$work/two-policies.ini"

emu_start "$work/two-policies.ini" || { fail actuator/emulated/start; finish; }
snapshot >"$work/before"
mark=$(log_lines)
check actuator/emulated/take-over-restore scenario scenario_take_over_restore in_emu
check actuator/emulated/tree-restored same_snapshot "$work/before"
check actuator/emulated/writes-accepted sh -c "! tail -n +$((mark + 1)) '$EMU_LOG' | grep -v ' set\$' | grep -v ' ok\$'"
check actuator/emulated/limits-not-rewritten sh -c "! tail -n +$((mark + 1)) '$EMU_LOG' | grep -q '_m[ai][xn]_freq '"
check actuator/emulated/userspace-governor-not-rewritten \
	sh -c "! tail -n +$((mark + 1)) '$EMU_LOG' | grep -q 'policy1/scaling_governor'"
check actuator/emulated/userspace-speed-back \
	sh -c "tail -n +$((mark + 1)) '$EMU_LOG' | grep 'policy1/scaling_setspeed' | tail -n 1 | grep -q ' 1600000 ok\$'"
check actuator/emulated/no-state-file test ! -e "$state"

# Crash while held, limits moved meanwhile by another tool: restore puts back the governors and the
# userspace speed, and leaves the limits as that tool set them (it never writes a limit).
check actuator/emulated/crash scenario scenario_crash in_emu
check actuator/emulated/crash/state-file-left test -s "$state"
check actuator/emulated/crash/state-file-root-only sh -c "[ \$(stat -c %a '$state') = 600 ]"
check actuator/emulated/crash/still-userspace \
	emu_sh 'grep -qx userspace /sys/devices/system/cpu/cpufreq/policy0/scaling_governor'
check actuator/emulated/crash/move-limits emu_sh 'cd /sys/devices/system/cpu/cpufreq/policy0 &&
	echo 2400000 >scaling_max_freq && echo 2400000 >scaling_min_freq'
mark=$(log_lines)
check actuator/emulated/crash/restore scenario scenario_restore_state in_emu
check actuator/emulated/crash/governors-back emu_sh 'cd /sys/devices/system/cpu/cpufreq &&
	grep -qx schedutil policy0/scaling_governor && grep -qx userspace policy1/scaling_governor'
check actuator/emulated/crash/limits-left-as-moved emu_sh 'cd /sys/devices/system/cpu/cpufreq/policy0 &&
	grep -qx 2400000 scaling_min_freq && grep -qx 2400000 scaling_max_freq'
log_writes_since "$mark" >"$work/restore-writes"
check actuator/emulated/crash/no-limit-written sh -c "! grep -q '_m[ai][xn]_freq ' '$work/restore-writes'"
# Everything else is as before the take-over.
snapshot >"$work/after"
check actuator/emulated/crash/rest-restored diff <(grep -v '^./cpufreq/policy0/scaling_m[ai][xn]_freq:' "$work/before") \
	<(grep -v '^./cpufreq/policy0/scaling_m[ai][xn]_freq:' "$work/after")
emu_stop

# intel_pstate in active mode: refused with the passive hint, and not one write.
emu_start tests/fixtures/topology/intel_pstate.ini || { fail actuator/emulated/start-intel_pstate; finish; }
rm -rf "$work/run"
snapshot >"$work/before"
mark=$(log_lines)
check actuator/emulated/no-userspace scenario scenario_no_userspace in_emu
check actuator/emulated/no-userspace/nothing-written test -z "$(log_writes_since "$mark")"
check actuator/emulated/no-userspace/tree-unchanged same_snapshot "$work/before"
check actuator/emulated/no-userspace/no-state-dir test ! -e "$work/run"
emu_stop

# ---- 2. plain-file trees ----
# Plain files are not sysfs: a shorter write leaves the old tail and scaling_setspeed never turns back into
# "<unsupported>", so scaling_setspeed of policies that were not under userspace is not compared.

tree=$work/cpu

# A fresh copy of a fixture tree, its snapshot, and a stamp older than any write to come.
prepare() {
	rm -rf "$tree" "$work/before" "$work/run" "$work/stamp"
	cp -a "tests/fixtures/sysfs/$1/cpu" "$tree"
	cp -a "$tree" "$work/before"
	touch "$work/stamp"
	sleep 0.05 # file times are jiffy-grained
}

over_tree() {
	unshare --mount --propagation private -- \
		sh -c 'mount --bind "$1" /sys/devices/system/cpu && shift && exec "$@"' sh "$tree" "$@"
}

same_tree() {
	diff -r -x scaling_setspeed "$work/before" "$tree"
}

unwritten() { # FILE... (relative to the tree)
	local f
	for f in "$@"; do
		[ "$tree/$f" -nt "$work/stamp" ] && { echo "$f was written"; return 1; }
	done
	return 0
}

prepare modern-two-policies
check actuator/plain/take-over-restore scenario scenario_take_over_restore over_tree
check actuator/plain/tree-restored same_tree
check actuator/plain/equal-limits-not-rewritten unwritten cpufreq/policy0/scaling_min_freq \
	cpufreq/policy0/scaling_max_freq cpufreq/policy2/scaling_min_freq cpufreq/policy2/scaling_max_freq
check actuator/plain/state-dir-0755 test "$(stat -c %a "$work/run/schedfreqd")" = 755

prepare intel-pstate
check actuator/plain/no-userspace scenario scenario_no_userspace over_tree
check actuator/plain/no-userspace/nothing-written test -z "$(find "$tree" -newer "$work/stamp")"

# A failure midway (policy2's scaling_setspeed cannot be opened, after its governor was switched): both
# governors go back, the state file goes, the error comes out.
prepare modern-two-policies
rm "$tree/cpufreq/policy2/scaling_setspeed" "$work/before/cpufreq/policy2/scaling_setspeed"
check actuator/plain/roll-back scenario scenario_roll_back over_tree
check actuator/plain/roll-back/tree-restored same_tree
check actuator/plain/roll-back/no-state-file test ! -e "$state"

check actuator/no-mount-left-behind sh -c '! grep " /sys/devices/system/cpu " /proc/self/mountinfo'
finish
