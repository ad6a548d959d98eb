#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# asan: yes
#
# The cpufreq emulator (tests/emu/) and tests/emu-run against the kernel's cpufreq sysfs behaviour
# (shared/reference/schedutil.md §7; drivers/cpufreq/cpufreq.c, cpufreq_userspace.c, freq_table.c),
# using real clients where there are some: cpupower, the shell, python's os.write for errno values.
# Run as root by tests/run-tests (BUILD set); needs /dev/fuse, fusermount3, cpupower, python3.
# shellcheck disable=SC2016 # single-quoted code runs inside the namespace or later, on purpose
set -u
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

FIX="$REPO/tests/fixtures/topology"
C=/sys/devices/system/cpu
P0=$C/cpufreq/policy0
P1=$C/cpufreq/policy1

# ---- small assertion helpers: one test = several checks, one ok/not ok line ----

T_NAME=
T_ERRS=()
t_begin() { T_NAME=$1; T_ERRS=(); }
t_eq() { # ACTUAL EXPECTED [WHAT]
	[ "$1" = "$2" ] || T_ERRS+=("${3:-value}: got '$1', expected '$2'")
}
t_true() { # WHAT CMD...
	local what=$1
	shift
	"$@" >/dev/null 2>&1 || T_ERRS+=("$what: '$*' failed")
}
t_false() { # WHAT CMD...
	local what=$1
	shift
	! "$@" >/dev/null 2>&1 || T_ERRS+=("$what: '$*' unexpectedly succeeded")
}
t_match() { # TEXT REGEX [WHAT]
	grep -qE -- "$2" <<<"$1" || T_ERRS+=("${3:-text} does not match /$2/: $(head -c 400 <<<"$1")")
}
t_end() {
	if [ ${#T_ERRS[@]} -eq 0 ]; then ok "$T_NAME"; else fail "$T_NAME" "${T_ERRS[@]}"; fi
}

# ---- accessors inside the emulator's namespace ----

rd() { emu_exec cat "$1" 2>&1; }

# Shell write of VALUE (no single quotes) with echo, as a user would; prints the shell's error, if any.
sh_write() { # FILE VALUE
	emu_sh "echo '$2' > $1" 2>&1
}

# One write(2) of VALUE (python escapes like \n allowed) at OFFSET; prints "ok" or the errno name, from
# the open() or from the write().
py_write() { # FILE VALUE [OFFSET]
	emu_exec python3 -c '
import errno, os, sys
path, value, off = sys.argv[1], sys.argv[2].encode().decode("unicode_escape").encode("latin-1"), int(sys.argv[3])
try:
    fd = os.open(path, os.O_WRONLY)
    os.pwrite(fd, value, off) if off else os.write(fd, value)
    print("ok")
except OSError as e:
    print(errno.errorcode[e.errno])
' "$1" "$2" "${3:-0}"
}

mounts_with_cpu() { findmnt | grep -c cpu; }

# ---- preconditions ----

if [ "$(id -u)" -ne 0 ] || [ ! -c /dev/fuse ]; then
	fail emulator "needs root and /dev/fuse"
	finish
fi
if [ ! -x "$BUILD/cpufreq-emu" ]; then
	fail emulator-built "$BUILD/cpufreq-emu is missing (make $BUILD/cpufreq-emu)"
	finish
fi
MOUNTS_BEFORE=$(mounts_with_cpu)
TMP=$(mktemp -d /tmp/schedfreqd-test-emu.XXXXXX)
at_exit 'rm -rf "$TMP"'

# ==== tests/emu-run ====

t_begin emu_run_status_env_and_isolation
out=$("$REPO/tests/emu-run" --build "$BUILD" "$FIX/two-policies.ini" -- sh -c '
	echo "pid=$SCHEDFREQD_EMU_PID"
	test -f "$SCHEDFREQD_EMU_LOG" && echo log-ok
	cat /sys/devices/system/cpu/cpufreq/policy1/scaling_driver
	exit 7' 2>&1)
rc=$?
t_eq "$rc" 7 "exit status"
t_match "$out" '^log-ok$' "SCHEDFREQD_EMU_LOG"
t_match "$out" '^acpi-cpufreq$' "emulated tree"
emu_pid=$(sed -n 's/^pid=//p' <<<"$out")
t_match "$emu_pid" '^[0-9]+$' "SCHEDFREQD_EMU_PID"
t_false "emulator gone after return" kill -0 "${emu_pid:-999999999}"
t_false "host tree untouched" test -e $P1
t_eq "$(mounts_with_cpu)" "$MOUNTS_BEFORE" "mounts after return"
t_end

t_begin emu_run_command_killed
"$REPO/tests/emu-run" --build "$BUILD" --log "$TMP/killed.log" "$FIX/two-policies.ini" -- \
	sh -c 'echo $SCHEDFREQD_EMU_PID > '"$TMP"'/killed.pid; kill -9 $$' >/dev/null 2>&1
t_eq "$?" 137 "exit status"
t_false "emulator gone" kill -0 "$(cat "$TMP/killed.pid" 2>/dev/null || echo 999999999)"
t_eq "$(mounts_with_cpu)" "$MOUNTS_BEFORE" "mounts"
t_match "$(cat "$TMP/killed.log")" 'cpufreq/policy0/scaling_cur_freq 2400000 set' "the log given with --log"
t_end

t_begin emu_run_terminated_while_command_runs
"$REPO/tests/emu-run" --build "$BUILD" "$FIX/two-policies.ini" -- \
	sh -c 'echo $SCHEDFREQD_EMU_PID > '"$TMP"'/term.pid; exec sleep 1000' >/dev/null 2>&1 &
run_pid=$!
wait_for "test -s '$TMP/term.pid'" 10
kill -TERM "$run_pid"
wait_for "! kill -0 $run_pid 2>/dev/null" 10
wait "$run_pid"
t_eq "$?" 143 "exit status"
t_false "emulator gone" kill -0 "$(cat "$TMP/term.pid" 2>/dev/null || echo 999999999)"
t_eq "$(mounts_with_cpu)" "$MOUNTS_BEFORE" "mounts"
t_end

t_begin emu_run_survives_emulator_crash
out=$("$REPO/tests/emu-run" --build "$BUILD" "$FIX/two-policies.ini" -- \
	sh -c 'kill -9 $SCHEDFREQD_EMU_PID; while kill -0 $SCHEDFREQD_EMU_PID 2>/dev/null && ! grep -q Z /proc/$SCHEDFREQD_EMU_PID/stat; do :; done; cat /sys/devices/system/cpu/online; exit 3' 2>&1)
t_eq "$?" 3 "exit status"
t_match "$out" 'Transport endpoint is not connected' "dead mount seen by the command"
t_eq "$(mounts_with_cpu)" "$MOUNTS_BEFORE" "mounts"
t_end

t_begin emulator_unmounts_on_sigint
out=$("$REPO/tests/emu-run" --build "$BUILD" "$FIX/two-policies.ini" -- sh -c '
	kill -INT $SCHEDFREQD_EMU_PID
	while grep -qs "^State:.*[RSD]" /proc/$SCHEDFREQD_EMU_PID/status; do sleep 0.02; done
	findmnt -n -M /sys/devices/system/cpu -o FSTYPE
	echo done' 2>&1)
t_eq "$?" 0 "exit status (the emulator exited 0)"
t_eq "$out" done "no mount left once it is gone"
t_end

t_begin bad_topology_is_reported_with_line
printf '[policy0]\ncpus = 0\ndriver = acpi-cpufreq\ncpuinfo_min_khz = 2000\ncpuinfo_max_khz = 1000\n' >"$TMP/bad.ini"
out=$("$BUILD/cpufreq-emu" --topology "$TMP/bad.ini" --foreground "$TMP" 2>&1)
t_eq "$?" 1 "cpufreq-emu exit status"
t_eq "$out" "$TMP/bad.ini:4: cpuinfo_min_khz 2000 is above cpuinfo_max_khz 1000" "message"
out=$("$REPO/tests/emu-run" --build "$BUILD" "$TMP/bad.ini" -- true 2>&1)
t_eq "$?" 125 "emu-run exit status"
t_match "$out" 'bad.ini:4: ' "emu-run passes the message on"
t_eq "$(mounts_with_cpu)" "$MOUNTS_BEFORE" "mounts"
t_end

# ==== the tree (two per-CPU acpi-cpufreq policies with a table) ====

emu_start "$FIX/two-policies.ini" || { fail emu_start "cannot start the emulator"; finish; }

t_begin top_level_files
t_eq "$(rd $C/possible)" 0-1 possible
t_eq "$(rd $C/present)" 0-1 present
t_eq "$(rd $C/online)" 0-1 online
t_eq "$(emu_exec od -An -c $C/offline | tr -d ' ')" '\n' "offline is an empty line"
t_eq "$(rd $C/kernel_max)" 1023 kernel_max
t_end

t_begin cpu_directories
t_false "cpu0 has no online file (x86)" emu_exec test -e $C/cpu0/online
t_eq "$(rd $C/cpu1/online)" 1 "cpu1/online"
t_eq "$(emu_exec readlink $C/cpu0/cpufreq)" ../cpufreq/policy0 "cpu0/cpufreq link"
t_eq "$(emu_exec readlink $C/cpu1/cpufreq)" ../cpufreq/policy1 "cpu1/cpufreq link"
t_eq "$(rd $C/cpu1/cpufreq/scaling_driver)" acpi-cpufreq "read through the link"
t_eq "$(rd $C/cpu1/topology/core_id)" 1 core_id
t_eq "$(rd $C/cpu1/topology/physical_package_id)" 0 physical_package_id
t_eq "$(rd $C/cpu1/topology/thread_siblings_list)" 1 thread_siblings_list
t_eq "$(rd $C/cpu1/topology/core_cpus_list)" 1 core_cpus_list
t_eq "$(rd $C/cpu1/topology/package_cpus_list)" 0-1 package_cpus_list
t_false "no cpu_capacity without capacity" emu_exec test -e $C/cpu1/cpu_capacity
t_eq "$(emu_exec ls $C/cpufreq | tr '\n' ' ')" "policy0 policy1 schedutil " "cpufreq/ (schedutil's global tunables)"
t_end

t_begin policy_files
t_eq "$(rd $P1/scaling_driver)" acpi-cpufreq scaling_driver
t_eq "$(rd $P1/cpuinfo_min_freq) $(rd $P1/cpuinfo_max_freq)" "800000 2400000" cpuinfo
t_eq "$(rd $P1/scaling_min_freq) $(rd $P1/scaling_max_freq)" "800000 2400000" scaling
t_eq "$(rd $P1/cpuinfo_transition_latency)" 10000 latency
t_eq "$(rd $P1/related_cpus) $(rd $P1/affected_cpus)" "1 1" "related/affected"
# show_available_freqs() and show_scaling_available_governors() end every item with a space.
t_eq "$(rd $P1/scaling_available_frequencies)" "800000 1200000 1600000 2000000 2400000 " frequencies
t_eq "$(rd $P1/scaling_available_governors)" \
	"conservative ondemand userspace powersave performance schedutil " governors
t_eq "$(rd $P1/scaling_governor)" schedutil governor
t_eq "$(rd $P1/scaling_cur_freq) $(rd $P1/cpuinfo_cur_freq)" "2400000 2400000" "cur"
t_eq "$(rd $P1/scaling_setspeed)" "<unsupported>" "setspeed without userspace"
t_end

t_begin sysfs_like_modes_and_sizes
t_eq "$(emu_exec stat -c '%s %a' $P1/scaling_governor)" "4096 644" scaling_governor
t_eq "$(emu_exec stat -c '%s %a' $P1/cpuinfo_cur_freq)" "4096 400" cpuinfo_cur_freq
t_eq "$(emu_exec stat -c '%s %a' $P1/cpuinfo_max_freq)" "4096 444" cpuinfo_max_freq
t_eq "$(emu_exec stat -c '%U %G' $P1/scaling_setspeed)" "root root" owner
t_end

t_begin cpupower_frequency_info
out=$(emu_exec cpupower -c 1 frequency-info 2>/dev/null)
t_match "$out" 'driver: acpi-cpufreq'
t_match "$out" 'hardware limits: 800 MHz - 2.40 GHz'
t_match "$out" 'available frequency steps: +800 MHz, 1.20 GHz, 1.60 GHz, 2.00 GHz, 2.40 GHz'
t_match "$out" 'maximum transition latency: 10.0 us'
t_match "$out" 'The governor "schedutil" may decide'
t_match "$out" 'current CPU frequency: 2.40 GHz'
t_end

t_begin cpupower_sets_userspace_and_frequency
t_true "frequency-set -g userspace" emu_exec cpupower -c 1 frequency-set -g userspace
t_eq "$(rd $P1/scaling_governor)" userspace "policy1 governor"
t_eq "$(rd $P0/scaling_governor)" schedutil "policy0 untouched"
t_eq "$(rd $P1/scaling_setspeed)" 2400000 "setspeed shows cur under userspace"
t_true "frequency-set -f 1300000" emu_exec cpupower -c 1 frequency-set -f 1300000
t_eq "$(rd $P1/scaling_cur_freq)" 1600000 "resolved to the next table entry up"
t_eq "$(rd $P1/scaling_setspeed)" 1600000 "setspeed reads policy->cur"
t_match "$(emu_exec cpupower -c 1 frequency-info -f 2>/dev/null)" 'current CPU frequency: 1600000 ' "cpupower reads it back"
t_end

t_begin shell_write_invalid_governor
out=$(sh_write $P1/scaling_governor foo)
t_match "$out" 'Invalid argument' "echo foo > scaling_governor"
t_eq "$(rd $P1/scaling_governor)" userspace "unchanged"
out=$(sh_write $P1/cpuinfo_max_freq 5)
t_match "$out" 'Permission denied' "echo > a read-only attribute"
t_end

t_begin errno_values
t_eq "$(py_write $P1/scaling_governor 'bogus\n')" EINVAL "unknown governor"
t_eq "$(py_write $P1/scaling_governor '\n')" EINVAL "empty governor"
t_eq "$(py_write $P1/scaling_governor '   ')" EINVAL "blank governor"
t_eq "$(py_write $P1/cpuinfo_max_freq 5)" EACCES "O_WRONLY on a read-only attribute (root)"
t_eq "$(py_write $P1/scaling_driver x)" EACCES "O_WRONLY on scaling_driver"
t_eq "$(py_write $P1/cpuinfo_cur_freq 5)" EACCES "O_WRONLY on cpuinfo_cur_freq"
t_eq "$(py_write $P1/scaling_governor 'userspace\n')" ok "valid governor with newline"
t_end

t_begin write_replaces_value
t_eq "$(py_write $P1/scaling_governor performance)" ok "performance"
t_eq "$(py_write $P1/scaling_governor ondemand)" ok "shorter name after a longer one"
t_eq "$(rd $P1/scaling_governor)" ondemand "no leftover of the previous value"
t_eq "$(py_write $P1/scaling_governor performance 5)" ok "pwrite at offset 5"
t_eq "$(rd $P1/scaling_governor)" performance "the offset is ignored"
t_eq "$(py_write $P1/scaling_governor 'PowerSave extra words')" ok "first word, case-insensitive"
t_eq "$(rd $P1/scaling_governor)" powersave "canonical name"
t_true "O_TRUNC (shell >)" emu_sh "echo schedutil > $P1/scaling_governor"
t_true "truncate(2)" emu_exec truncate -s 0 $P1/scaling_governor
t_eq "$(rd $P1/scaling_governor)" schedutil "truncate changes nothing"
t_end

t_begin governor_switch_effects
t_eq "$(py_write $P1/scaling_governor performance)" ok
t_eq "$(rd $P1/scaling_cur_freq)" 2400000 "performance: cur = max"
t_eq "$(py_write $P1/scaling_governor powersave)" ok
t_eq "$(rd $P1/scaling_cur_freq)" 800000 "powersave: cur = min"
t_eq "$(py_write $P1/scaling_governor ondemand)" ok
t_eq "$(rd $P1/scaling_cur_freq)" 800000 "ondemand leaves cur"
t_eq "$(py_write $P1/scaling_governor userspace)" ok
t_eq "$(rd $P1/scaling_cur_freq)" 800000 "userspace keeps cur"
t_eq "$(rd $P1/scaling_setspeed)" 800000 "userspace saved speed = cur"
t_end

t_begin setspeed_only_under_userspace
t_eq "$(py_write $P1/scaling_governor schedutil)" ok
t_eq "$(rd $P1/scaling_setspeed)" "<unsupported>" "read"
t_eq "$(py_write $P1/scaling_setspeed 1200000)" EINVAL "write under schedutil"
t_match "$(sh_write $P1/scaling_setspeed 1200000)" 'Invalid argument' "shell write under schedutil"
t_eq "$(rd $P1/scaling_cur_freq)" 800000 "cur unchanged"
t_end

t_begin setspeed_parsing_kstrtouint
t_eq "$(py_write $P1/scaling_governor userspace)" ok
t_eq "$(py_write $P1/scaling_setspeed '2000000\n')" ok "decimal + newline"
t_eq "$(rd $P1/scaling_cur_freq)" 2000000
t_eq "$(py_write $P1/scaling_setspeed 0x124f80)" ok "hex"
t_eq "$(rd $P1/scaling_cur_freq)" 1200000 "0x124f80 = 1200000"
t_eq "$(py_write $P1/scaling_setspeed '+1600000')" ok "leading +"
t_eq "$(rd $P1/scaling_cur_freq)" 1600000
for bad in '12abc' ' 1200000' '1200000 kHz' '-5' '\n' '1200000\n\n' '0x'; do
	t_eq "$(py_write $P1/scaling_setspeed "$bad")" EINVAL "setspeed '$bad'"
done
t_eq "$(py_write $P1/scaling_setspeed 99999999999)" ERANGE "overflow"
t_eq "$(rd $P1/scaling_cur_freq)" 1600000 "rejected writes change nothing"
t_end

t_begin setspeed_clamp_and_resolve
t_eq "$(py_write $P1/scaling_setspeed 100)" ok
t_eq "$(rd $P1/scaling_cur_freq)" 800000 "below min: min"
t_eq "$(py_write $P1/scaling_setspeed 3000000)" ok
t_eq "$(rd $P1/scaling_cur_freq)" 2400000 "above max: max"
t_eq "$(py_write $P1/scaling_setspeed 1200001)" ok
t_eq "$(rd $P1/scaling_cur_freq)" 1600000 "between entries: next one up"
t_eq "$(py_write $P1/scaling_setspeed 2000000)" ok
t_eq "$(rd $P1/scaling_cur_freq)" 2000000 "exact entry"
t_end

t_begin limits_reapply_userspace_speed
t_eq "$(py_write $P1/scaling_setspeed 2400000)" ok
t_eq "$(py_write $P1/scaling_max_freq 1600000)" ok
t_eq "$(rd $P1/scaling_max_freq)" 1600000 "max"
t_eq "$(rd $P1/scaling_cur_freq)" 1600000 "cur follows the lower max"
t_eq "$(py_write $P1/scaling_max_freq 2400000)" ok
t_eq "$(rd $P1/scaling_cur_freq)" 2400000 "saved speed re-applied when max rises"
t_eq "$(py_write $P1/scaling_setspeed 1200000)" ok
t_eq "$(py_write $P1/scaling_min_freq 2000000)" ok
t_eq "$(rd $P1/scaling_cur_freq)" 2000000 "cur follows the higher min"
t_eq "$(py_write $P1/scaling_min_freq 800000)" ok
t_eq "$(rd $P1/scaling_cur_freq)" 1200000 "saved speed re-applied when min drops"
t_end

t_begin limits_semantics
t_eq "$(py_write $P1/scaling_max_freq 1700000)" ok
t_eq "$(rd $P1/scaling_max_freq)" 1600000 "max resolves down to a table entry"
t_eq "$(py_write $P1/scaling_min_freq 900000)" ok
t_eq "$(rd $P1/scaling_min_freq)" 1200000 "min resolves up to a table entry"
t_eq "$(py_write $P1/scaling_min_freq 2400000)" ok
t_eq "$(rd $P1/scaling_min_freq)" 1600000 "min above max is clamped down to max"
t_eq "$(py_write $P1/scaling_max_freq 2400000)" ok
t_eq "$(rd $P1/scaling_min_freq)" 2400000 "the min request persists (freq QoS)"
t_eq "$(py_write $P1/scaling_min_freq 1)" ok
t_eq "$(rd $P1/scaling_min_freq)" 800000 "clamped to cpuinfo_min"
t_eq "$(py_write $P1/scaling_max_freq 5000000)" ok
t_eq "$(rd $P1/scaling_max_freq)" 2400000 "clamped to cpuinfo_max"
t_eq "$(py_write $P1/scaling_max_freq '2000000kHz')" ok "sscanf(%lu) ignores trailing text"
t_eq "$(rd $P1/scaling_max_freq)" 2000000
t_eq "$(py_write $P1/scaling_max_freq abc)" EINVAL "no number"
t_eq "$(py_write $P1/scaling_max_freq -1)" EINVAL "negative"
t_eq "$(py_write $P1/scaling_max_freq 4294967295)" EINVAL "negative as the s32 QoS value"
t_eq "$(py_write $P1/scaling_max_freq 2400000)" ok
t_end

t_begin limits_under_performance_and_powersave
t_eq "$(py_write $P1/scaling_governor performance)" ok
t_eq "$(py_write $P1/scaling_max_freq 1600000)" ok
t_eq "$(rd $P1/scaling_cur_freq)" 1600000 "performance follows max"
t_eq "$(py_write $P1/scaling_governor powersave)" ok
t_eq "$(py_write $P1/scaling_min_freq 1200000)" ok
t_eq "$(rd $P1/scaling_cur_freq)" 1200000 "powersave follows min"
t_eq "$(py_write $P1/scaling_max_freq 2400000)$(py_write $P1/scaling_min_freq 800000)" okok "restore"
t_end

t_begin cpu_hotplug
t_eq "$(sh_write $C/cpu1/online 0)" "" "offline cpu1"
t_eq "$(rd $C/online) $(rd $C/offline)" "0 1" "online/offline"
t_false "no topology/ while offline" emu_exec test -e $C/cpu1/topology
# Names stay cached in the kernel (tests/emu/main.c, entry_timeout), cpu1/topology/core_id was read above: gone is
# still ENOENT for every way in, as on sysfs.
t_match "$(rd $C/cpu1/topology/core_id)" 'No such file' "open of a name read before it went"
t_false "opendir of a directory gone" emu_exec ls $C/cpu1/topology
t_eq "$(emu_exec python3 -c 'import os, sys; print(os.access(sys.argv[1], os.F_OK))' $C/cpu1/topology/core_id)" \
	False "access(2) of a file gone"
t_eq "$(emu_exec readlink $C/cpu1/cpufreq)" ../cpufreq/policy1 "the link stays (add_cpu_dev_symlink)"
t_match "$(rd $P1/scaling_cur_freq)" 'Device or resource busy' "inactive policy: EBUSY"
t_eq "$(py_write $P1/scaling_governor userspace)" EBUSY "write to an inactive policy"
t_eq "$(sh_write $C/cpu1/online yes)" "" "online again (kstrtobool)"
t_eq "$(rd $P1/affected_cpus)" 1 "affected_cpus"
t_eq "$(rd $C/cpu1/topology/core_id)" 1 "topology/ back"
t_eq "$(py_write $C/cpu1/online maybe)" EINVAL "kstrtobool rejects"
t_end

t_begin other_users
nobody() { emu_exec setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
t_match "$(nobody cat $P1/cpuinfo_cur_freq 2>&1)" 'Permission denied' "cpuinfo_cur_freq is 0400"
t_eq "$(nobody cat $P1/scaling_cur_freq 2>&1)" "$(rd $P1/scaling_cur_freq)" "0444 is readable (allow_other)"
t_match "$(nobody sh -c "echo userspace > $P1/scaling_governor" 2>&1)" 'Permission denied' "0644 is root's"
t_end

t_begin write_log
before=$(emu_exec python3 -c 'import time; print(time.monotonic_ns())')
: "$(py_write $P1/scaling_governor userspace)"
: "$(py_write $P1/scaling_setspeed 1300000)"
: "$(py_write $P1/scaling_setspeed 'bad value ')"
: "$(sh_write $C/cpu1/cpufreq/scaling_setspeed 2000000)"
: "$(py_write $P0/cpuinfo_max_freq 1)"
after=$(emu_exec python3 -c 'import time; print(time.monotonic_ns())')
log=$(awk -v b="$before" -v a="$after" '$1 >= b && $1 <= a' "$EMU_LOG")
t_match "$log" '^[0-9]+ cpufreq/policy1/scaling_governor userspace ok$' "governor write"
t_match "$log" '^[0-9]+ cpufreq/policy1/scaling_setspeed 1300000 ok$' "setspeed write"
t_match "$log" '^[0-9]+ cpufreq/policy1/scaling_cur_freq 1600000 set$' "derived frequency change"
t_match "$log" '^[0-9]+ cpufreq/policy1/scaling_setspeed bad value  EINVAL$' "failed write, spaces kept"
t_match "$log" '^[0-9]+ cpufreq/policy1/scaling_setspeed 2000000 ok$' "write through cpu1/cpufreq, trailing newline stripped"
t_match "$log" '^[0-9]+ cpufreq/policy0/cpuinfo_max_freq  EACCES$' "refused open for writing"
t_eq "$(wc -l <<<"$log")" 7 "lines in the window"
t_eq "$(awk '{ print $1 }' <<<"$log" | sort -n | tr '\n' ' ')" "$(awk '{ print $1 }' <<<"$log" | tr '\n' ' ')" "monotonic order"
t_eq "$(awk '/setspeed 1300000 ok/ { w = NR } /scaling_cur_freq 1600000 set/ { c = NR } END { print (w && c == w + 1) }' <<<"$log")" 1 "the cause comes before its effect"
t_end

emu_pid=${EMU_PID:?}
emu_stop
t_begin emu_stop_leaves_nothing
t_false "emulator gone" kill -0 "$emu_pid"
t_eq "$(mounts_with_cpu)" "$MOUNTS_BEFORE" "mounts"
t_end

# ==== intel_pstate (setpolicy, no userspace), intel_cpufreq (no table), cpufreq-dt (shared) ====

emu_start "$FIX/intel_pstate.ini" || { fail emu_start "intel_pstate.ini"; finish; }
t_begin intel_pstate_refuses_userspace
t_eq "$(rd $P0/scaling_available_governors)" "performance powersave" "governors (no trailing space)"
t_eq "$(rd $P0/scaling_governor) $(rd $P0/scaling_cur_freq)" "powersave 400000" "powersave pins min"
t_false "cpupower frequency-set -g userspace fails" emu_exec cpupower -c 0 frequency-set -g userspace
t_match "$(sh_write $P0/scaling_governor userspace)" 'Invalid argument' "echo userspace"
t_eq "$(rd $P0/scaling_governor)" powersave "unchanged"
t_eq "$(rd $P0/scaling_setspeed)" "<unsupported>" "setspeed"
t_eq "$(py_write $P0/scaling_setspeed 1000000)" EINVAL "setspeed write"
t_false "no frequency table" emu_exec test -e $P0/scaling_available_frequencies
t_eq "$(py_write $P0/scaling_governor performance)" ok
t_eq "$(rd $P0/scaling_cur_freq)" 4700000 "performance pins max"
t_end
emu_stop

emu_start "$FIX/continuous.ini" || { fail emu_start "continuous.ini"; finish; }
t_begin continuous_frequencies
t_false "no frequency table" emu_exec test -e $P1/scaling_available_frequencies
t_eq "$(rd $P1/scaling_driver)" intel_cpufreq
t_true "cpupower -f" emu_exec cpupower -c 1 frequency-set -f 1234567
t_eq "$(rd $P1/scaling_cur_freq)" 1234567 "any frequency"
t_eq "$(py_write $P1/scaling_setspeed 100)" ok
t_eq "$(rd $P1/scaling_cur_freq)" 400000 "clamped to min"
t_eq "$(py_write $P1/scaling_max_freq 3000001)" ok
t_eq "$(rd $P1/scaling_max_freq)" 3000001 "max kept as written"
t_end
emu_stop

emu_start "$FIX/shared-dt.ini" || { fail emu_start "shared-dt.ini"; finish; }
t_begin shared_policies
t_eq "$(emu_exec ls $C/cpufreq | tr '\n' ' ')" "policy0 policy2 schedutil " "cpufreq/ (schedutil's global tunables)"
t_eq "$(rd $C/cpufreq/policy2/related_cpus)" "2 3" "related_cpus (space separated, like show_cpus())"
t_eq "$(rd $C/cpufreq/policy2/affected_cpus)" "2 3" affected_cpus
t_eq "$(emu_exec readlink $C/cpu3/cpufreq)" ../cpufreq/policy2 "cpu3/cpufreq"
t_eq "$(rd $C/cpu1/cpu_capacity) $(rd $C/cpu3/cpu_capacity)" "446 1024" "cpu_capacity"
t_eq "$(rd $C/cpu3/cpufreq/scaling_driver)" cpufreq-dt
t_eq "$(py_write $C/cpu3/cpufreq/scaling_governor userspace)" ok "write through cpu3/cpufreq"
t_match "$(cat "$EMU_LOG")" ' cpufreq/policy2/scaling_governor userspace ok$' "logged under the policy"
t_eq "$(sh_write $C/cpu3/online 0)" "" "offline cpu3"
t_eq "$(rd $C/cpufreq/policy2/affected_cpus)" 2 "affected_cpus without cpu3"
t_eq "$(rd $C/cpufreq/policy2/related_cpus)" "2 3" "related_cpus keeps cpu3"
t_eq "$(rd $C/cpufreq/policy2/scaling_governor)" userspace "policy stays active"
t_end
emu_stop

# ==== 1024 CPUs ====

{
	echo "[system]"
	echo "possible = 0-1023"
	for cpu in $(seq 0 1023); do
		printf '[policy%d]\ncpus = %d\ndriver = acpi-cpufreq\nfrequencies_khz = 800000 1600000 2400000\n' "$cpu" "$cpu"
	done
} >"$TMP/1024.ini"
t_begin cpus_1024_per_cpu_policies
out=$("$REPO/tests/emu-run" --build "$BUILD" "$TMP/1024.ini" -- sh -c '
	cd /sys/devices/system/cpu
	cat possible
	ls -d cpu[0-9]* | wc -l
	ls cpufreq | wc -l
	readlink cpu1023/cpufreq
	ls cpu1023/cpufreq/ | grep -c .
	cat cpu1023/cpufreq/scaling_driver cpu1023/cpufreq/related_cpus
	echo userspace > cpu1023/cpufreq/scaling_governor && echo 1000000 > cpu1023/cpufreq/scaling_setspeed
	cat cpufreq/policy1023/scaling_cur_freq' 2>&1)
t_eq "$out" "$(printf '0-1023\n1024\n1025\n../cpufreq/policy1023\n14\nacpi-cpufreq\n1023\n1600000')" "tree (1024 policies and schedutil/)"
t_eq "$(mounts_with_cpu)" "$MOUNTS_BEFORE" "mounts"
t_end

{
	echo "[policy0]"
	echo "cpus = 0-1023"
	echo "driver = cpufreq-dt"
	echo "frequencies_khz = 500000 1000000"
	echo "capacity = 1024"
} >"$TMP/1024-shared.ini"
t_begin cpus_1024_one_shared_policy
out=$("$REPO/tests/emu-run" --build "$BUILD" "$TMP/1024-shared.ini" -- sh -c '
	cd /sys/devices/system/cpu
	readlink cpu1023/cpufreq
	cat cpu1023/cpu_capacity
	tr " " "\n" < cpufreq/policy0/related_cpus | tail -n 1
	wc -w < cpufreq/policy0/affected_cpus' 2>&1)
t_eq "$out" "$(printf '../cpufreq/policy0\n1024\n1023\n1024')" "tree"
t_end

t_begin nothing_left_behind
t_eq "$(mounts_with_cpu)" "$MOUNTS_BEFORE" "mounts"
t_eq "$(find /tmp -maxdepth 1 -name 'schedfreqd-emu-run.*' -newer "$TMP" | wc -l)" 0 "emu-run temp dirs"
t_end

finish
