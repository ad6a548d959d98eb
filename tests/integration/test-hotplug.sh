#!/bin/bash
# asan: yes
# SPDX-License-Identifier: GPL-2.0-or-later
#
# CPU hotplug while the daemon's perf rings are open (issue #11 item 3). No real CPU ever goes offline: the
# emulator (EMU_NET=1: tests/emu-run --net --uevents) plays the kernel, changing cpu1's state in the emulated
# /sys/devices/system/cpu and announcing it with the kernel's uevent (offline@/devices/system/cpu/cpu1 ...)
# on NETLINK_KOBJECT_UEVENT, in a private network namespace shared by the emulator and the daemon, so the
# fake uevents never reach the host's udev. The daemon runs without D-Bus (the log says what it does).
#   - cpu1 goes offline: the daemon closes its events and drops it from the model (one log line);
#   - cpu1 comes back: the daemon re-opens its events (one log line) and governs policy1 again;
#   - 10 offline/online cycles leave the daemon with as many fds as before (nothing leaked), alive;
#   - afterwards a hog on cpu1 still raises policy1 to its maximum: the re-opened ring delivers;
#   - policy1 backing off from write faults when cpu1 goes offline is offline all the same, and governed again
#     as soon as cpu1 is back.

. "$(dirname "$0")/lib.sh"

HOG="$BUILD/tests/helpers/hog"
TMP=$(mktemp -d /tmp/schedfreqd-test-hotplug.XXXXXX)
at_exit 'rm -rf "$TMP"'
CPU=/sys/devices/system/cpu
CYCLES=${HOTPLUG_CYCLES:-10}
OFFLINE_LINE="cpu1 went offline: its events closed, dropped from the model"
ONLINE_LINE="cpu1 is back online: events re-opened"

daemon_pid=
at_exit '[ -n "$daemon_pid" ] && kill -KILL "$daemon_pid" 2>/dev/null'
show_daemon_log() { sed 's/^/# daemon: /' "$TMP/err" | tail -n 30; }
govs() { emu_sh "cat $CPU/cpufreq/policy*/scaling_governor | sort -u"; }
count() { grep -cF -- "$1" "$TMP/err"; }
fds() { ls "/proc/$daemon_pid/fd" 2>/dev/null | wc -l; }
set_online() { emu_sh "echo $1 > $CPU/cpu1/online"; }

EMU_NET=1 emu_start "$REPO/tests/fixtures/topology/two-policies.ini" || { fail "emulator start (--net --uevents)"; finish; }
# Watermark wake-ups: no lazy mode, whose fds come and go with the load (4 per CPU per quiet set), so the
# daemon's fd count moves only with what this test does.
printf '[events]\nwakeup = watermark\n' >"$TMP/schedfreqd.conf"

# The emulator and whatever emu_exec runs share a network namespace that is not ours.
if [ "$(readlink /proc/self/ns/net)" != "$(emu_exec readlink /proc/self/ns/net)" ] &&
	[ "$(emu_exec readlink /proc/self/ns/net)" = "$(readlink "/proc/$EMU_PID/ns/net")" ]; then
	ok "emulator and daemon share a private network namespace"
else
	fail "emulator and daemon share a private network namespace"
	finish
fi

# nsenter itself, not emu_exec (a function: `&` would give the PID of a subshell): $! is the daemon's PID.
# shellcheck disable=SC2046
nsenter $(emu_ns_options) -t "$EMU_NS_PID" -- "$SCHEDFREQD" -c "$TMP/schedfreqd.conf" --state-file "$TMP/state" \
	--no-bus >"$TMP/out" 2>"$TMP/err" &
daemon_pid=$!
if wait_for '[ -e "$TMP/state" ] && [ "$(govs)" = userspace ]' 10; then
	ok "daemon takes over both policies"
else
	fail "daemon takes over both policies" "$(show_daemon_log)"
	finish
fi
# Settled: the fd count has stopped moving (start-up's last opens), and the limits watch holds its files
# (manager-watch.c opens them at its first poll, which a slow daemon, under valgrind, reaches after 0.2 s of
# stillness: a "before" of 38 against 44 after the cycles, no leak). Polled (bounded): the watched files are open
# and the count is the same 0.2 s apart.
watched() { ls -l "/proc/$daemon_pid/fd" 2>/dev/null | grep -c 'cpufreq/policy[0-9]*/scaling_governor$'; }
wait_for '[ "$(watched)" -ge 2 ] && a=$(fds) && sleep 0.2 && [ "$(fds)" = "$a" ]' 10
fds_before=$(fds)

# --- one cycle, step by step ----------------------------------------------------------------------------------
set_online 0
if wait_for '[ "$(count "$OFFLINE_LINE")" -ge 1 ]' 10; then
	ok "cpu1 offline: the daemon says \"$OFFLINE_LINE\""
else
	fail "cpu1 offline: the daemon says \"$OFFLINE_LINE\"" "$(show_daemon_log)"
fi
# perf: the CPU's fds and ring go with it (the kernel drops its events for good); the BPF source keeps its
# programs, which leave an offline CPU out of its policy, and closes nothing.
if [ "$(events_source)" = bpf ]; then
	[ "$(fds)" = "$fds_before" ] && ok "cpu1 offline: the BPF source closes nothing ($(fds) fds)" ||
		fail "cpu1 offline: the BPF source closes nothing" "$(fds) fds, $fds_before before"
else
	[ "$(fds)" -lt "$fds_before" ] && ok "cpu1 offline: its perf fds are closed ($(fds) < $fds_before fds)" ||
		fail "cpu1 offline: its perf fds are closed" "$(fds) fds, $fds_before before"
fi
kill -0 "$daemon_pid" 2>/dev/null && ok "cpu1 offline: the daemon runs on" || fail "cpu1 offline: the daemon runs on"
# policy1's only CPU: the policy is offline at once (no failed write needed to find out).
if wait_for '[ "$(count "policy1: all its CPUs are offline")" -ge 1 ]' 5 && [ "$(count "policy0: all its CPUs")" = 0 ]; then
	ok "cpu1 offline: policy1 (its only CPU) offline, policy0 not"
else
	fail "cpu1 offline: policy1 (its only CPU) offline, policy0 not" "$(show_daemon_log)"
fi

set_online 1
if wait_for '[ "$(count "$ONLINE_LINE")" -ge 1 ]' 10; then
	ok "cpu1 online: the daemon says \"$ONLINE_LINE\""
else
	fail "cpu1 online: the daemon says \"$ONLINE_LINE\"" "$(show_daemon_log)"
fi
if wait_for '[ "$(govs)" = userspace ] && [ "$(count "policy1: back online, governed again")" -ge 1 ]' 10; then
	ok "cpu1 online: policy1 governed again"
else
	fail "cpu1 online: policy1 governed again" "$(emu_sh "grep . $CPU/cpufreq/policy*/scaling_governor")"
fi

# --- CYCLES cycles: no fd leaked ------------------------------------------------------------------------------
for ((i = 2; i <= CYCLES + 1; i++)); do
	set_online 0
	wait_for "[ \"\$(count \"\$OFFLINE_LINE\")\" -ge $i ]" 10 || { set_online 1; break; }
	set_online 1
	wait_for "[ \"\$(count \"\$ONLINE_LINE\")\" -ge $i ]" 10 || break
done
if [ "$(count "$OFFLINE_LINE")" = $((CYCLES + 1)) ] && [ "$(count "$ONLINE_LINE")" = $((CYCLES + 1)) ]; then
	ok "$CYCLES more cycles: one offline and one online line each"
else
	fail "$CYCLES more cycles: one offline and one online line each" \
		"offline lines: $(count "$OFFLINE_LINE"), online lines: $(count "$ONLINE_LINE")" "$(show_daemon_log)"
fi
# The policy's own fds come back with the watch (at most a second); bounded, then compared.
wait_for '[ "$(govs)" = userspace ] && [ "$(fds)" = "$fds_before" ]' 10
if [ "$(fds)" = "$fds_before" ]; then
	ok "after $CYCLES cycles the daemon holds as many fds as before ($fds_before)"
else
	fail "after $CYCLES cycles the daemon holds as many fds as before" "$(fds) fds, $fds_before before" \
		"$(ls -l "/proc/$daemon_pid/fd" 2>&1)"
fi
kill -0 "$daemon_pid" 2>/dev/null && ok "the daemon is alive after $CYCLES cycles" ||
	fail "the daemon is alive after $CYCLES cycles" "$(show_daemon_log)"

# --- the re-opened ring delivers: a hog on cpu1 raises policy1 ------------------------------------------------
max=$(emu_sh "cat $CPU/cpufreq/policy1/cpuinfo_max_freq")
# shellcheck disable=SC2046
nsenter $(emu_ns_options) -t "$EMU_NS_PID" -- "$HOG" --cpu 1 --seconds 5 >/dev/null &
hog=$!
if wait_for "[ \"\$(emu_sh 'cat $CPU/cpufreq/policy1/scaling_cur_freq')\" = $max ]" 5; then
	ok "a hog on cpu1 after the cycles raises policy1 to $max kHz"
else
	fail "a hog on cpu1 after the cycles raises policy1 to $max kHz" \
		"policy1 at $(emu_sh "cat $CPU/cpufreq/policy1/scaling_cur_freq")" "$(show_daemon_log)"
fi
kill "$hog" 2>/dev/null
wait "$hog" 2>/dev/null

# --- a policy backing off when its last CPU goes: offline, and governed again at the CPU's return ------------
# An injected EIO on every policy1 write (emulator fault rule, no count: until cleared) has it backing off; cpu1
# going offline makes it offline all the same (the kernel's EBUSY), and its return re-governs it at once, no
# write needed (there is none: nothing runs on cpu1 then). A policy left backing off would wait for a write.
fault() { emu_sh "echo '$*' >$CPU/.emu-faults"; }
emu_policy_wait_at_most 1 1200000 # the hog's raise has decayed: the next hog needs a write
fault fail cpufreq/policy1/scaling_setspeed EIO
# shellcheck disable=SC2046
nsenter $(emu_ns_options) -t "$EMU_NS_PID" -- "$HOG" --cpu 1 --seconds 5 >/dev/null &
hog=$!
wait_for '[ "$(count "policy1: cannot write scaling_setspeed (Input/output error): backing off")" -ge 1 ]' 10
kill "$hog" 2>/dev/null
wait "$hog" 2>/dev/null
offline_before=$(count "policy1: all its CPUs are offline")
online_before=$(count "policy1: back online, governed again")
set_online 0
if [ "$(count "policy1: cannot write scaling_setspeed")" -ge 1 ] &&
	wait_for "[ \"\$(count \"policy1: all its CPUs are offline\")\" -gt $offline_before ]" 10; then
	ok "policy1 backing off (injected EIO), cpu1 offline: policy1 offline"
else
	fail "policy1 backing off (injected EIO), cpu1 offline: policy1 offline" "$(show_daemon_log)"
fi
fault clear
set_online 1
if wait_for "[ \"\$(count \"policy1: back online, governed again\")\" -gt $online_before ]" 10; then
	ok "cpu1 online again: policy1 governed again at once (\"policy1: back online, governed again\")"
else
	fail "cpu1 online again: policy1 governed again at once" "$(show_daemon_log)"
fi

kill -TERM "$daemon_pid"
if wait_for '! kill -0 "$daemon_pid" 2>/dev/null' 10; then
	wait "$daemon_pid"
	rc=$?
	daemon_pid=
	[ "$rc" = 0 ] && ok "SIGTERM: the daemon exits 0" || fail "SIGTERM: the daemon exits 0" "status $rc" "$(show_daemon_log)"
else
	fail "SIGTERM: the daemon exits" "$(show_daemon_log)"
fi
finish
