#!/bin/bash
# asan: yes
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The daemon end to end: real scheduler events (perf tracepoints on this machine's CPUs), the emulated cpufreq
# sysfs in a private mount namespace, a real CPU hog pinned to CPU 1.
#   - refuses a machine without cpufreq, and an intel_pstate (active) machine, touching nothing;
#   - rejects a bad config with FILE:LINE, touching nothing;
#   - says its tick and where it came from (tick_ms = auto: the kernel's CONFIG_HZ, from /proc/config.gz or
#     /boot/config-$(uname -r));
#   - policy1 rises to >= 90 % of max within 1 s of the hog starting, and falls after it stops;
#   - SIGTERM puts every file back byte for byte; kill -9 + `schedfreqd restore` does too.

. "$(dirname "$0")/lib.sh"

SFD=$SCHEDFREQD
HOG="$BUILD/tests/helpers/hog"
TMP=$(mktemp -d /tmp/schedfreqd-test-daemon.XXXXXX)
: >"$TMP/none.conf" # an explicit -c FILE must exist: "none.conf" is an empty one (every default)
at_exit 'rm -rf "$TMP"'

# Every policy file, "name: content", except the current-frequency readouts (they belong to whichever governor
# runs; the emulator's schedutil does not move them).
SNAPSHOT='cd /sys/devices/system/cpu/cpufreq && for f in policy*/*; do case $f in *cur_freq) continue;; esac; printf "%s: %s\n" "$f" "$(cat "$f" 2>&1)"; done'

daemon_pid=
start_daemon() { # EXTRA ARGS...
	nsenter -m -t "$EMU_NS_PID" -- "$SFD" -c "$TMP/schedfreqd.conf" --state-file "$TMP/state" --print-decisions "$@" \
		>"$TMP/out" 2>"$TMP/err" &
	daemon_pid=$!
	# Take-over is complete when the state file exists and every governor says userspace.
	wait_for '[ -e "$TMP/state" ] && [ "$(emu_sh "cat /sys/devices/system/cpu/cpufreq/policy*/scaling_governor | sort -u")" = userspace ]' 10
}
at_exit '[ -n "$daemon_pid" ] && kill -KILL "$daemon_pid" 2>/dev/null'

show_daemon_log() {
	sed 's/^/# daemon: /' "$TMP/err" | tail -n 30
}

# --- a machine without cpufreq: a plain sysfs tree with two CPUs and an empty cpufreq directory -----------
bare="$TMP/bare"
mkdir -p "$bare/cpu0" "$bare/cpu1" "$bare/cpufreq"
for f in online possible present; do echo 0-1 >"$bare/$f"; done
before=$(cd "$bare" && find . -printf '%p %s %T@\n' | sort)
out=$(unshare --mount --propagation private sh -c \
	"mount --bind '$bare' /sys/devices/system/cpu && exec '$SFD' -c '$TMP/none.conf' --state-file '$TMP/bare-state'" 2>&1)
rc=$?
after=$(cd "$bare" && find . -printf '%p %s %T@\n' | sort)
wide=$(awk 'length($0) > 80' <<<"$out")
if [ $rc -ne 0 ] && grep -q "^cpufreq driver (a VM or container?), nothing to govern\.$" <<<"$out" &&
	grep -q "make run (in the source tree)" <<<"$out" && grep -q "schedfreqd replay --topology FILE TRACE" <<<"$out" &&
	[ -z "$wide" ] &&
	[ ! -e "$TMP/bare-state" ] && [ "$before" = "$after" ]; then
	ok "bare machine: clear error naming the next step (make run, replay) in lines of <= 80 columns, nothing touched"
else
	fail "bare machine: clear error, nothing touched" "rc=$rc" "$out"
fi
# The first commands a new user tries there lead somewhere: the topology verb names the fixtures and the format,
# observe mode says why it cannot run and what to do instead (issue #24).
# bare_says NAME PATTERN ARGS...: the program on the bare tree fails, says PATTERN and names make run, in lines of
# <= 80 columns (a terminal's: it is likely a new user's first command).
bare_says() {
	local name=$1 pattern=$2 out rc
	shift 2
	out=$(unshare --mount --propagation private sh -c "mount --bind '$bare' /sys/devices/system/cpu && exec \"\$@\"" \
		sh "$SFD" "$@" 2>&1)
	rc=$?
	if [ $rc -ne 0 ] && grep -q "$pattern" <<<"$out" && grep -q "make run" <<<"$out" &&
		[ -z "$(awk 'length($0) > 80' <<<"$out")" ]; then
		ok "bare machine: $name"
	else
		fail "bare machine: $name" "rc=$rc" "$out"
	fi
}
bare_says "'schedfreqd topology' names the fixtures, the format and make run" \
	"one of tests/fixtures/topology/\*.ini; the format\$" topology
bare_says "--observe says why it cannot run and what to do instead" \
	"nothing to observe (observe mode compares\$" --observe -c "$TMP/none.conf"

# --- intel_pstate in active mode offers no userspace governor -------------------------------------------
emu_start "$REPO/tests/fixtures/topology/intel_pstate.ini" || { fail "emulator start"; finish; }
before=$(emu_sh "$SNAPSHOT")
out=$(emu_exec "$SFD" -c "$TMP/none.conf" --state-file "$TMP/ip-state" 2>&1)
rc=$?
writes=$(grep -v ' set$' "$EMU_LOG")
if [ $rc -ne 0 ] && grep -q "intel_pstate=passive" <<<"$out" && [ -z "$writes" ] && [ ! -e "$TMP/ip-state" ] \
	&& [ "$before" = "$(emu_sh "$SNAPSHOT")" ]; then
	ok "intel_pstate: refused with the passive hint, nothing written"
else
	fail "intel_pstate: refused with the passive hint, nothing written" "rc=$rc" "$out" "$writes"
fi
emu_stop

# --- the main scenario -----------------------------------------------------------------------------------
# policy0 starts under performance (so restoring it puts back even its current frequency), policy1 under
# schedutil with a lowered scaling_max, both of which must come back exactly.
sed -e '/^\[policy0\]/,/^\[policy1\]/ s/^governor = .*/governor = performance/' \
	"$REPO/tests/fixtures/topology/two-policies.ini" >"$TMP/topology.ini"
emu_start "$TMP/topology.ini" || { fail "emulator start"; finish; }
emu_sh 'echo 2000000 > /sys/devices/system/cpu/cpufreq/policy1/scaling_max_freq' &&
emu_sh 'echo 2400000 > /sys/devices/system/cpu/cpufreq/policy1/scaling_max_freq'
original=$(emu_sh "$SNAPSHOT")
original_cur0=$(emu_exec cat /sys/devices/system/cpu/cpufreq/policy0/scaling_cur_freq)

# A bad config is refused before anything is touched.
printf '[governor]\nheadroom = 1.25\nfrobnicate = 3\n' >"$TMP/bad.conf"
out=$(emu_exec "$SFD" -c "$TMP/bad.conf" --state-file "$TMP/state" 2>&1)
rc=$?
if [ $rc -ne 0 ] && grep -q "$TMP/bad.conf:3:" <<<"$out" && [ ! -e "$TMP/state" ] && [ "$original" = "$(emu_sh "$SNAPSHOT")" ]; then
	ok "bad config: FILE:LINE error, nothing touched"
else
	fail "bad config: FILE:LINE error, nothing touched" "rc=$rc" "$out"
fi

printf '[events]\nwakeup = adaptive\n' >"$TMP/schedfreqd.conf"
if start_daemon; then
	ok "daemon takes over both policies"
else
	fail "daemon takes over both policies" "$(show_daemon_log)"
	finish
fi

state_governors=$(grep -c '^governor *= *\(performance\|schedutil\)' "$TMP/state")
[ "$state_governors" = 2 ] && ok "state file records the original governors" \
	|| fail "state file records the original governors" "$(cat "$TMP/state")"

# Idle: policy1 settles at its minimum before the hog starts (its CPU is idle apart from noise).
# NOHZ: an idle CPU keeps its frequency until an event on it, so give it one (a short task) while waiting.
# The assertions about an idle machine and about time (this one, the idle wake-ups, the rise within 1 s, the
# falls) do not run under valgrind: the daemon's own CPU use there is load on the CPUs it governs.
if ! under_valgrind; then
	wait_for 'taskset -c 1 true; [ "$(emu_exec cat /sys/devices/system/cpu/cpufreq/policy1/scaling_cur_freq)" -le 1200000 ]' 5 \
		|| fail "policy1 settles low while idle" "$(emu_exec cat /sys/devices/system/cpu/cpufreq/policy1/scaling_cur_freq)"
fi

# Idle cost: on a quiet machine nothing periodic runs (the tick only while a CPU runs a task, no drain timer
# in immediate mode, no limits timer, lazy wake-ups that leave the light tasks' wake-ups in the rings, and
# lost switch-outs ended by the events' context and by the silence of sched_stat_runtime). The daemon's own
# wake-ups over a 5 s window (a measurement, not a synchronisation), after 5 s for the quiet set to settle,
# by bench/bench-wakeups (one process that sleeps through the window: the test's own commands would be
# events the daemon reacts to), normalised to a quiet machine (lib.sh idle_wakeups: a busy host is no failure,
# a timer is). bench/bench-idle.sh measures ~2/s on this VM (docs/benchmarks.md). Bound 6/s: the build before the lost-switch repair makes ~14/s (the VM agent's threads, whose switch-outs are
# never recorded, looked busy and were never quiet), a daemon with an idle tick ~290/s.
# On the BPF source every wake-up is a decision record or the kernel side's once-a-second one: test-bpf-source.sh
# judges that against the frequency writes of the same window, whatever the machine's background.
if ! under_valgrind && [ "$(events_source)" != bpf ]; then
	idle_wakeups "$daemon_pid" 6
	if [ -n "$IDLE_NORM" ] && awk -v r="$IDLE_NORM" 'BEGIN { exit !(r <= 6) }'; then
		ok "idle: the daemon wakes $IDLE_NORM times a second on a quiet machine's scale (<= 6; raw $IDLE_RATE/s, machine-wide $IDLE_MACHINE_RATE context switches/s; windows: ${IDLE_WINDOWS[*]})"
	else
		fail "idle: the daemon wakes at most 6 times a second (normalised, lib.sh idle_wakeups)" "windows: ${IDLE_WINDOWS[*]}" "${IDLE_JSON:-bench-wakeups failed}" \
			"frequency writes before and in the last window:" \
			"$(awk -v a="$IDLE_W0" -v b="$IDLE_W1" '$1 <= b && $2 ~ /scaling_setspeed/ { print ($1 < a ? "before" : "in"), $0 }' "$EMU_LOG" | tail -12)" \
			"$(show_daemon_log)"
	fi
fi


# Timed from the hog's launch, not its "start" line: the new task's initial util (half the CPU's spare
# capacity) can raise policy1 while it execs on CPU 1, before it pins itself and prints "start". From policy1
# low: other work on CPU 1 (the idle check's helpers) can hold it at its maximum a moment, and a rise measured
# from there never comes (a CI run: "rise=never", policy1 at 2.4 GHz 0.2 s before the launch).
wait_for 'taskset -c 1 true; [ "$(emu_exec cat /sys/devices/system/cpu/cpufreq/policy1/scaling_cur_freq)" -le 1200000 ]' 5 ||
	under_valgrind || fail "policy1 low before the hog" "$(emu_exec cat /sys/devices/system/cpu/cpufreq/policy1/scaling_cur_freq)"
hog_start=$("$BUILD/tests/helpers/monotonic")
"$HOG" --cpu 1 --seconds 2 >"$TMP/hog"
hog_end=$(awk '/^end/ { print $2 }' "$TMP/hog")

# From the emulator's write log: the first time policy1's frequency reached >= 90 % of 2.4 GHz after the hog
# was launched, and the first time it came back to <= 1.2 GHz after the hog ended.
# policy1 may also have risen in the instant between the "low" check above and the launch (other work on CPU 1:
# a CI run under its concurrent valgrind pass, 800 MHz -> 2.4 GHz 0.3 ms before the launch, held through the
# hog's 2 s): then it is high from the launch on, a rise of 0.
rise=$(awk -v s="$hog_start" '$2 == "cpufreq/policy1/scaling_cur_freq" {
		if ($1 < s) { cur = $3; next }
		if (cur >= 2160000) { print 0; exit }
		if ($3 >= 2160000) { print $1 - s; exit }
		cur = $3
	}
	END { if (cur >= 2160000 && NR > 0) print 0 }' "$EMU_LOG" | head -n 1)
if under_valgrind; then
	:
elif [ -n "$rise" ] && [ "$rise" -le 1000000000 ]; then
	ok "hog on CPU 1: policy1 >= 90% of max after $((rise / 1000000)) ms"
else
	fail "hog on CPU 1: policy1 >= 90% of max within 1 s" "rise=${rise:-never}" "$(grep policy1 "$EMU_LOG" | tail -20)" "$(show_daemon_log)"
fi
fall_cond='[ -n "$(awk -v e="$hog_end" '"'"'$2 == "cpufreq/policy1/scaling_cur_freq" && $1 >= e && $3 <= 1200000 { print; exit }'"'"' "$EMU_LOG")" ]'
if under_valgrind; then
	:
elif wait_for "$fall_cond" 3; then
	fall=$(awk -v e="$hog_end" '$2 == "cpufreq/policy1/scaling_cur_freq" && $1 >= e && $3 <= 1200000 { print $1 - e; exit }' "$EMU_LOG")
	ok "hog stopped: policy1 falls to <= 1.2 GHz after $((fall / 1000000)) ms"
else
	fail "hog stopped: policy1 falls" "$(grep policy1 "$EMU_LOG" | tail -20)"
fi

# The daemon writes only through scaling_setspeed after take-over, and only changes.
dups=$(awk '$2 ~ /scaling_setspeed$/ { if (last[$2] == $3) d++; last[$2] = $3 } END { print d + 0 }' "$EMU_LOG")
[ "$dups" = 0 ] && ok "no redundant setspeed writes" || fail "no redundant setspeed writes" "$dups repeated values"
grep -q ' EINVAL$\| EACCES$' "$EMU_LOG" && fail "no rejected writes" "$(grep -v ' ok$\| set$' "$EMU_LOG")" || ok "no rejected writes"

# Limits changed under the daemon (sysfs cannot notify us): the daemon re-reads them and applies them at once
# (sugov_limits()). The kernel's userspace governor clamps the frequency itself, so what the daemon adds is its
# own picture of the limits, which it reports; the frequency must also come back down when they are lowered.
P1=/sys/devices/system/cpu/cpufreq/policy1
emu_sh "echo 2000000 > $P1/scaling_min_freq"
if wait_for "grep -q 'policy1: scaling limits changed to 2000000..2400000 kHz' \"\$TMP/err\"" 5; then
	ok "a scaling_min raised under the daemon is noticed"
else
	fail "a scaling_min raised under the daemon is noticed" "$(show_daemon_log)"
fi
emu_sh "echo 800000 > $P1/scaling_min_freq"
if wait_for "grep -q 'policy1: scaling limits changed to 800000..2400000 kHz' \"\$TMP/err\"" 5 && { under_valgrind ||
	wait_for 'taskset -c 1 true; [ "$(emu_exec cat $P1/scaling_cur_freq)" -le 1200000 ]' 5; }; then
	ok "a scaling_min lowered again is noticed$(under_valgrind || echo ", the frequency comes back down")"
else
	fail "a scaling_min lowered again is noticed, the frequency comes back down" "$(grep policy1 "$EMU_LOG" | tail)" "$(show_daemon_log)"
fi

kill -TERM "$daemon_pid"
wait "$daemon_pid"
rc=$?
daemon_pid=
show_daemon_log
now=$(emu_sh "$SNAPSHOT")
now_cur0=$(emu_exec cat /sys/devices/system/cpu/cpufreq/policy0/scaling_cur_freq)
# In the initial pid namespace the proc connector works: it must have been used (names, exits of the hog); the
# BPF source without rules does not subscribe (a decision's task is named from /proc; test-dbus checks the name).
if [ "$(events_source)" = bpf ]; then
	if grep -q 'Proc connector not subscribed: the bpf source has no per-process rules' "$TMP/err" &&
		! grep -q 'Proc connector: [0-9]* messages' "$TMP/err"; then
		ok "bpf without rules: the proc connector is not subscribed, and says so"
	else
		fail "bpf without rules: the proc connector is not subscribed" "$(show_daemon_log)"
	fi
elif grep -q 'Proc connector: [1-9][0-9]* messages' "$TMP/err"; then
	ok "proc connector subscribed and delivering"
else
	fail "proc connector subscribed and delivering" "$(show_daemon_log)"
fi
# The iowait boost: said once at start-up, whichever way this kernel goes (the test machines have no
# CONFIG_SCHEDSTATS, so no sched_stat_iowait; docs/platform.md).
if [ -d /sys/kernel/tracing/events/sched/sched_stat_iowait ]; then
	iowait_msg='iowait boost from sched:sched_stat_iowait\|kernel.sched_schedstats=0: sched:sched_stat_iowait does not fire'
else
	iowait_msg='No sched:sched_stat_iowait tracepoint (kernel without CONFIG_SCHEDSTATS): no iowait boost.'
fi
# The BPF source reads the waking task's in_iowait in the kernel: no tracepoint needed.
[ "$(events_source)" = bpf ] && iowait_msg="iowait boost from the waking task's in_iowait, read in the kernel."
[ "$(grep -c "$iowait_msg" "$TMP/err")" = 1 ] && ok "iowait boost availability reported once" \
	|| fail "iowait boost availability reported once" "expected: $iowait_msg" "$(show_daemon_log)"
# The tick (tick_ms = auto, issue 25 item 3): the running kernel's CONFIG_HZ, from /proc/config.gz or else
# /boot/config-$(uname -r) (this mount namespace shares both with the host), said once with its source; without
# either, CONFIG_HZ=250's 4 ms and why. The expected line is worked out here from the same files.
kernel_hz() { # FILE (gzip or plain): its last CONFIG_HZ=N
	{ if [ "${1%.gz}" != "$1" ]; then zcat "$1"; else cat "$1"; fi; } 2>/dev/null |
		sed -n 's/^CONFIG_HZ=\([0-9][0-9]*\)$/\1/p' | tail -n 1
}
tick_src= tick_hz=
for f in /proc/config.gz "/boot/config-$(uname -r)"; do
	tick_hz=$(kernel_hz "$f")
	[ -n "$tick_hz" ] && { tick_src=$f; break; }
done
if [ -n "$tick_src" ]; then
	tick_line="Tick: $(awk -v hz="$tick_hz" 'BEGIN { us = int((int((1e9 + int(hz / 2)) / hz) + 500) / 1000)
		s = sprintf("%d.%03d", int(us / 1000), us % 1000); sub(/0+$/, "", s); sub(/\.$/, "", s); print s }') ms"
	tick_line="$tick_line (CONFIG_HZ=$tick_hz, $tick_src)."
else
	tick_line="Tick: 4 ms (no kernel config found: the default, CONFIG_HZ=250)."
fi
[ "$(grep -cxF "$tick_line" "$TMP/err")" = 1 ] && ok "tick from the kernel's config, said once with its source" \
	|| fail "tick from the kernel's config, said once with its source" "expected: $tick_line" \
		"$(grep '^Tick' "$TMP/err")"
# A normal run's log, start-up to exit summary, in lines of at most 120 characters (issue #24), the summary in
# its parsed shape (bench/bench-sources.sh summary(), bench/lib-peers.sh peer_events()): one statement a line.
long=$(LC_ALL=C.UTF-8 bash -c 'while IFS= read -r l; do [ "${#l}" -gt 120 ] && printf "%d: %s\n" "${#l}" "$l"; done' \
	<"$TMP/err")
if [ -z "$long" ] && grep -q '^Events ([a-z]*[,)].*: [0-9]*[ ,]' "$TMP/err" &&
	grep -q '^Decisions: [0-9]* local, [0-9]* remote, [0-9]* deferred' "$TMP/err" &&
	grep -q '^Frequency writes: [1-9][0-9]*\.$' "$TMP/err"; then
	ok "the run's log: every line <= 120 characters; the exit summary's Events, Decisions, Frequency writes lines"
else
	fail "the run's log: every line <= 120 characters, the summary's lines" "${long:-(none too long)}" \
		"$(show_daemon_log)"
fi
if [ $rc -eq 0 ] && [ "$now" = "$original" ] && [ "$now_cur0" = "$original_cur0" ] && [ ! -e "$TMP/state" ]; then
	ok "SIGTERM: every file restored byte for byte, state file removed"
else
	fail "SIGTERM: every file restored byte for byte, state file removed" "rc=$rc" "$(diff <(echo "$original") <(echo "$now"))"
fi

# --- crash: kill -9, then `schedfreqd restore` -------------------------------------------------------------
start_daemon || fail "daemon restarts" "$(show_daemon_log)"
"$HOG" --cpu 1 --seconds 0.5 >/dev/null
kill -KILL "$daemon_pid"
wait "$daemon_pid" 2>/dev/null
daemon_pid=
crashed=$(emu_sh "$SNAPSHOT")
[ "$crashed" != "$original" ] && [ -e "$TMP/state" ] && ok "kill -9 leaves the policies taken over and the state file" \
	|| fail "kill -9 leaves the policies taken over and the state file"
out=$(emu_exec "$SFD" restore --state-file "$TMP/state" 2>&1)
rc=$?
now=$(emu_sh "$SNAPSHOT")
if [ $rc -eq 0 ] && [ "$now" = "$original" ] && [ ! -e "$TMP/state" ]; then
	ok "schedfreqd restore after kill -9: restored byte for byte"
else
	fail "schedfreqd restore after kill -9: restored byte for byte" "rc=$rc" "$out" "$(diff <(echo "$original") <(echo "$now"))"
fi
out=$(emu_exec "$SFD" restore --state-file "$TMP/state" 2>&1)
[ $? -eq 0 ] && grep -q "Nothing to restore" <<<"$out" && ok "restore without a state file is a no-op" \
	|| fail "restore without a state file is a no-op" "$out"

emu_stop
finish
