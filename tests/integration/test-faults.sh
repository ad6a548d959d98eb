#!/bin/bash
# asan: yes
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The machine misbehaving under a running daemon (issue #11), on the emulated cpufreq tree with real scheduler
# events, real cpupower as the other tool, and the daemon's state read over a private D-Bus:
#   - another tool changes a policy's scaling limits: the daemon follows them, and leaves them on exit;
#   - a policy's only CPU goes offline: the daemon marks it offline (one log line, State=offline), keeps the
#     other policy governed, and governs it again when the CPU comes back;
#   - another tool switches a policy's governor: the daemon releases it at its next write (State=released),
#     never writes it again (no fight: the write log is counted), and leaves it as that tool set it on exit;
#   - stopped while a policy is offline: the state file stays for that policy, exit status non-zero, and
#     `schedfreqd restore` once the CPU is back puts everything back byte for byte;
#   - faults injected by the emulator (.emu-faults): EIO on scaling_setspeed backs off (few writes, one log
#     line, State=backing-off) and recovers; EBUSY on a scaling_governor write at take-over refuses to start
#     with nothing changed; EIO on one at exit keeps the state file and `schedfreqd restore` finishes the job;
#   - a perf ring overflows (one page, the daemon stopped while tasks run): the loss is counted (EventsLost,
#     RingOverflows), logged once per CPU with the knob to turn, and governing goes on;
#   - a tracepoint whose tracefs format changed shape (a bad format bind-mounted over sched_migrate_task's, in
#     the test's mount namespace only): the daemon refuses to start, naming the file and the field, and
#     changes nothing.

. "$(dirname "$0")/lib.sh"
. "$REPO/tests/dbus/bus.sh"

SFD=$SCHEDFREQD
HOG="$BUILD/tests/helpers/hog"
TMP=$(mktemp -d /tmp/schedfreqd-test-faults.XXXXXX)
at_exit 'rm -rf "$TMP"'
CPU=/sys/devices/system/cpu
CPUFREQ=$CPU/cpufreq
# Every policy file except the frequency readouts (the driver's, not ours to restore).
SNAPSHOT='cd /sys/devices/system/cpu/cpufreq && for f in policy*/*; do case $f in *cur_freq) continue;; esac; printf "%s: %s\n" "$f" "$(cat "$f" 2>&1)"; done'

daemon_pid=
at_exit '[ -n "$daemon_pid" ] && kill -KILL "$daemon_pid" 2>/dev/null'
show_daemon_log() { sed 's/^/# daemon: /' "$TMP/err" | tail -n 30; }
govs() { emu_sh "cat $CPUFREQ/policy*/scaling_governor | sort -u"; }
prop() { # POLICY PROPERTY: the value only
	busctl --system --no-pager get-property "$NAME" "$OBJ/policy/$1" "$NAME.Policy" "$2" 2>/dev/null | cut -d' ' -f2- | tr -d '"'
}
# Lines of the write log from line N+1 on that are writes (not the emulator's own frequency changes).
writes_since() { # N
	tail -n +"$(($1 + 1))" "$EMU_LOG" | grep -v ' set$'
}
log_lines() { wc -l <"$EMU_LOG"; }
# An event on CPU N now: a short task there (an idle CPU's policy moves only at its CPU's events: NOHZ).
poke() { taskset -c "$1" true; }
# The daemon's idea of policy N's frequency is the emulated driver's: nothing left stale. A read takes a few
# processes (busctl, nsenter, cat), and on a slow host each may run long enough on CPU N to move policy N between
# the daemon's answer and the driver's, read after by another process (the likely cause of one CI failure, 5 s of
# mismatches after the ring overflow, perf source). So the reads run on the other CPU, and the answer must be a
# frequency the driver had in force at some moment of the read: before it, set during it (the emulator's
# scaling_cur_freq lines), or after it. A stale value (the driver elsewhere for good) is none.
in_sync() { # N
	local from before answer after

	from=$(log_lines)
	read -r before answer after < <(
		taskset -p -c "$((1 - $1))" "$BASHPID" >/dev/null
		b=$(emu_exec cat "$CPUFREQ/policy$1/scaling_cur_freq")
		a=$(prop "$1" CurrentKHz)
		echo "$b ${a:--} $(emu_exec cat "$CPUFREQ/policy$1/scaling_cur_freq")"
	)
	SYNC_SEEN="policy$1: the daemon says ${answer:-?} kHz, the driver ${before:-?} before, ${after:-?} after"
	[ "$answer" = "$before" ] || [ "$answer" = "$after" ] ||
		tail -n +"$((from + 1))" "$EMU_LOG" | awk -v p="cpufreq/policy$1/scaling_cur_freq" -v f="$answer" \
			'$2 == p && $3 == f && $4 == "set" { found = 1 } END { exit !found }'
}
# Something busy now and then, so that the daemon's once-a-second look at the policies happens.
busy_poke() { # N
	"$HOG" --cpu "$1" --seconds 0.05 >/dev/null
}

start_daemon() {
	nsenter -m -t "$EMU_NS_PID" -- "$SFD" -c "$TMP/schedfreqd.conf" --state-file "$TMP/state" \
		--bus-address "$DBUS_ADDRESS" >"$TMP/out" 2>"$TMP/err" &
	daemon_pid=$!
	wait_for '[ -e "$TMP/state" ] && [ "$(govs)" = userspace ] && [ -n "$(prop 1 State)" ]' 10
}

dbus_start "$TMP/bus" || { fail "private dbus-daemon starts"; finish; }
emu_start "$REPO/tests/fixtures/topology/two-policies.ini" || { fail "emulator start"; finish; }
: >"$TMP/schedfreqd.conf"
original=$(emu_sh "$SNAPSHOT")

if start_daemon && [ "$(prop 0 State)" = governed ] && [ "$(prop 1 State)" = governed ]; then
	ok "daemon takes over; both policies State=governed"
	modes=$(stat -c '%n %a %U' "$TMP/state" "$TMP/lock" | sed "s|$TMP/||")
	[ "$modes" = "$(printf 'state 600 root\nlock 600 root')" ] && ok "state and lock files are root's only (0600)" ||
		fail "state and lock files are root's only (0600)" "$modes"
else
	fail "daemon takes over; both policies State=governed" "$(show_daemon_log)"
	finish
fi

# --- another tool changes policy0's limits ----------------------------------------------------------------
mark=$(log_lines)
emu_exec cpupower -c 0 frequency-set -u 1200MHz >/dev/null 2>&1
"$HOG" --cpu 0 --seconds 1.5 >/dev/null
if wait_for 'grep -q "policy0: scaling limits changed to 800000..1200000 kHz" "$TMP/err"' 5 &&
	[ "$(prop 0 MaxKHz)" = 1200000 ]; then
	ok "limits changed by cpupower: followed (log line, MaxKHz)"
else
	fail "limits changed by cpupower: followed (log line, MaxKHz)" "$(show_daemon_log)"
fi
# Once it has seen the limit (at most a second late: the kernel's userspace governor clamps meanwhile), no
# write asks for more.
mark2=$(log_lines)
"$HOG" --cpu 0 --seconds 0.5 >/dev/null
over=$(writes_since "$mark2" | awk '$2 == "cpufreq/policy0/scaling_setspeed" && $3 + 0 > 1200000' | wc -l)
limit_writes=$(writes_since "$mark" | grep -c 'scaling_m[ai][xn]_freq')
if [ "$over" -eq 0 ] && [ "$limit_writes" -eq 1 ]; then
	ok "no setspeed above the new limit once seen; the only limit write is cpupower's"
else
	fail "no setspeed above the new limit once seen; the only limit write is cpupower's" \
		"above: $over, limit writes: $limit_writes" "$(writes_since "$mark" | tail -n 20)"
fi

# --- policy1's only CPU goes offline, and comes back ------------------------------------------------------
emu_sh "echo 0 >$CPU/cpu1/online"
mark=$(log_lines)
# The daemon notices at its next look at the policies (while something is busy) or its next write to it.
if wait_for 'busy_poke 1; [ "$(prop 1 State)" = offline ]' 5 && grep -q 'policy1: all its CPUs are offline' "$TMP/err"; then
	ok "cpu1 offline: policy1 State=offline, one log line"
else
	fail "cpu1 offline: policy1 State=offline, one log line" "State=$(prop 1 State)" "$(show_daemon_log)"
fi
n=$(grep -c 'policy1: all its CPUs are offline' "$TMP/err")
busy=$(writes_since "$mark" | grep -c 'policy1/scaling_setspeed .* EBUSY')
[ "$n" -eq 1 ] && [ "$busy" -le 12 ] && ok "offline: logged once, $busy refused writes (back-off)" ||
	fail "offline: logged once, few refused writes (back-off)" "log lines $n, EBUSY writes $busy"
"$HOG" --cpu 0 --seconds 0.3 >/dev/null
if [ "$(prop 0 State)" = governed ] && wait_for 'poke 0; in_sync 0' 5; then
	ok "offline policy1: policy0 still governed, in sync with the driver"
else
	fail "offline policy1: policy0 still governed, in sync with the driver" "State=$(prop 0 State); $SYNC_SEEN"
fi

emu_sh "echo 1 >$CPU/cpu1/online"
if wait_for 'busy_poke 1; [ "$(prop 1 State)" = governed ]' 15 && grep -q 'policy1: back online, governed again' "$TMP/err"; then
	ok "cpu1 online again: policy1 governed again (State, log line)"
else
	fail "cpu1 online again: policy1 governed again (State, log line)" "State=$(prop 1 State)" "$(show_daemon_log)"
fi
"$HOG" --cpu 1 --seconds 0.5 >/dev/null
if wait_for 'poke 1; in_sync 1' 5 && [ "$(emu_sh "cat $CPUFREQ/policy1/scaling_governor")" = userspace ]; then
	ok "back online: policy1 on userspace, the daemon in sync with the driver"
else
	fail "back online: policy1 on userspace, the daemon in sync with the driver" \
		"$SYNC_SEEN" "governor $(emu_sh "cat $CPUFREQ/policy1/scaling_governor")"
fi

# --- another tool switches policy1's governor ---------------------------------------------------------------
emu_exec cpupower -c 1 frequency-set -g performance >/dev/null 2>&1
mark=$(log_lines)
# Seen at the daemon's next look at the policies, or its next write (refused with EINVAL): released.
if wait_for 'busy_poke 1; [ "$(prop 1 State)" = released ]' 10 &&
	grep -q "policy1: governor switched to 'performance' by another tool: released" "$TMP/err"; then
	ok "cpupower -g performance on policy1: State=released, one log line"
else
	fail "cpupower -g performance on policy1: State=released, one log line" "State=$(prop 1 State)" "$(show_daemon_log)"
fi
"$HOG" --cpu 1 --seconds 0.5 >/dev/null
for _ in 1 2 3 4 5; do poke 1; done
fights=$(writes_since "$mark" | grep -c 'policy1/scaling_')
if [ "$fights" -le 1 ]; then
	ok "released: no fight ($fights writes to policy1 after the switch, at most the one that found it)"
else
	fail "released: no fight" "$(writes_since "$mark" | grep 'policy1/' | head -n 20)"
fi
"$HOG" --cpu 0 --seconds 0.3 >/dev/null
if [ "$(prop 0 State)" = governed ] && wait_for 'poke 0; in_sync 0' 5; then
	ok "released policy1: policy0 still governed, in sync with the driver"
else
	fail "released policy1: policy0 still governed, in sync with the driver" "State=$(prop 0 State); $SYNC_SEEN"
fi
check "schedfreqctl status shows the released policy" sh -c \
	"$SCHEDFREQCTL status | grep -q '^policy1: released: another tool switched its governor'"

# --- stop: policy0 back to schedutil under cpupower's limit, policy1 left on performance ------------------
kill -TERM "$daemon_pid"
wait "$daemon_pid"
rc=$?
daemon_pid=
now=$(emu_sh "$SNAPSHOT")
expected=$(sed -e 's|^policy1/scaling_governor: .*|policy1/scaling_governor: performance|' \
	-e 's|^policy0/scaling_max_freq: .*|policy0/scaling_max_freq: 1200000|' <<<"$original")
if [ $rc -eq 0 ] && [ "$now" = "$expected" ] && [ ! -e "$TMP/state" ]; then
	ok "SIGTERM: policy0 restored (the other tool's limit kept), policy1 left as the other tool set it"
else
	fail "SIGTERM: policy0 restored (the other tool's limit kept), policy1 left as the other tool set it" "rc=$rc" \
		"$(diff <(echo "$expected") <(echo "$now"))" "$(show_daemon_log)"
fi

# --- stopped while a policy is offline ----------------------------------------------------------------------
emu_exec cpupower -c 1 frequency-set -g schedutil >/dev/null 2>&1
emu_exec cpupower -c 0 frequency-set -u 2400MHz >/dev/null 2>&1
original=$(emu_sh "$SNAPSHOT")
start_daemon || fail "daemon starts again" "$(show_daemon_log)"
emu_sh "echo 0 >$CPU/cpu1/online"
kill -TERM "$daemon_pid"
wait "$daemon_pid"
rc=$?
daemon_pid=
if [ $rc -ne 0 ] && [ -s "$TMP/state" ] && grep -q "policy1" "$TMP/state" && grep -q 'policy1.*scaling_governor' "$TMP/err"; then
	ok "stopped with policy1 offline: exit $rc, the error names policy1, the state file stays"
else
	fail "stopped with policy1 offline: exit status non-zero, the error names policy1, the state file stays" \
		"rc=$rc" "$(show_daemon_log)"
fi
emu_sh "echo 1 >$CPU/cpu1/online"
check "schedfreqd restore once cpu1 is back" emu_exec "$SFD" restore --state-file "$TMP/state"
now=$(emu_sh "$SNAPSHOT")
if [ "$now" = "$original" ] && [ ! -e "$TMP/state" ]; then
	ok "after restore every policy file is as before, byte for byte"
else
	fail "after restore every policy file is as before, byte for byte" "$(diff <(echo "$original") <(echo "$now"))"
fi

# --- injected faults ----------------------------------------------------------------------------------------
fault() { emu_sh "echo '$*' >$CPU/.emu-faults"; }
hits() { # PATH: how many ops the rule for PATH failed
	emu_sh "cat $CPU/.emu-faults" | awk -v p="$1" '$2 == p { for (i = 3; i <= NF; i++) if ($i ~ /^hits=/) print substr($i, 6) }'
}
# Moves policy N's frequency: its max limit down and up (cpupower, another tool), with events on CPU N.
wiggle() { # N
	emu_exec cpupower -c "$1" frequency-set -u 1600MHz >/dev/null 2>&1
	busy_poke "$1"
	emu_exec cpupower -c "$1" frequency-set -u 2400MHz >/dev/null 2>&1
	busy_poke "$1"
}

original=$(emu_sh "$SNAPSHOT")
start_daemon || fail "daemon starts for the injected faults" "$(show_daemon_log)"
fault fail cpufreq/policy1/scaling_setspeed EIO count=3
if wait_for 'wiggle 1; [ "$(hits cpufreq/policy1/scaling_setspeed)" = 3 ] && [ "$(prop 1 State)" = governed ]' 30 &&
	grep -q 'policy1: cannot write scaling_setspeed (Input/output error): backing off' "$TMP/err" &&
	grep -q 'policy1: writes work again, governed again (3 failed writes so far)' "$TMP/err"; then
	ok "3 injected EIO on policy1's scaling_setspeed: backed off, then governed again (log lines)"
else
	fail "3 injected EIO on policy1's scaling_setspeed: backed off, then governed again (log lines)" \
		"hits=$(hits cpufreq/policy1/scaling_setspeed) State=$(prop 1 State)" "$(show_daemon_log)"
fi
check "WriteErrors=3 for policy1" test "$(prop 1 WriteErrors)" = 3
n=$(grep -c 'policy1: cannot write scaling_setspeed' "$TMP/err")
[ "$n" -eq 1 ] && ok "one warning for the three failures" || fail "one warning for the three failures" "$n lines"

# EINVAL is also what a switched-away governor gives; with the governor still userspace it is only a fault.
fault clear
fault fail cpufreq/policy1/scaling_setspeed EINVAL count=2
if wait_for 'wiggle 1; [ "$(hits cpufreq/policy1/scaling_setspeed)" = 2 ] && [ "$(prop 1 State)" = governed ]' 30 &&
	[ "$(grep -c 'policy1: governor switched' "$TMP/err")" = 0 ]; then
	ok "2 injected EINVAL with the governor still userspace: backed off, not released, governed again"
else
	fail "2 injected EINVAL with the governor still userspace: backed off, not released, governed again" \
		"hits=$(hits cpufreq/policy1/scaling_setspeed) State=$(prop 1 State)" "$(show_daemon_log)"
fi
fault clear

# A policy that fails every write for 3 s: a handful of tries (10 ms doubling), not one per event.
fault fail cpufreq/policy0/scaling_setspeed EIO
mark=$(log_lines)
start_s=$SECONDS
wait_for 'wiggle 0; [ "$(prop 0 State)" = backing-off ]' 10 || true
while [ $((SECONDS - start_s)) -lt 4 ]; do wiggle 0; done
tries=$(writes_since "$mark" | grep -c 'policy0/scaling_setspeed .* EIO injected')
if [ "$(prop 0 State)" = backing-off ] && [ "$tries" -ge 1 ] && [ "$tries" -le 12 ]; then
	ok "every write failing for ~3 s: State=backing-off, $tries tries (no fight)"
else
	fail "every write failing for ~3 s: State=backing-off, a handful of tries" "State=$(prop 0 State) tries=$tries" \
		"$(show_daemon_log)"
fi
check "LastWriteErrno=EIO" test "$(prop 0 LastWriteErrno)" = 5
fault clear
if wait_for 'wiggle 0; [ "$(prop 0 State)" = governed ]' 30; then
	ok "faults cleared: policy0 governed again"
else
	fail "faults cleared: policy0 governed again" "State=$(prop 0 State)" "$(show_daemon_log)"
fi

# A governor write that fails at exit: the error names the policy, the state file stays, restore finishes.
fault fail cpufreq/policy0/scaling_governor EIO count=1
kill -TERM "$daemon_pid"
wait "$daemon_pid"
rc=$?
daemon_pid=
if [ $rc -ne 0 ] && [ -s "$TMP/state" ] && grep -q 'policy0: cannot write schedutil to .*scaling_governor' "$TMP/err"; then
	ok "EIO on policy0's governor at exit: exit $rc, the error names policy0, the state file stays"
else
	fail "EIO on policy0's governor at exit: exit status non-zero, the error names policy0, the state file stays" \
		"rc=$rc" "$(show_daemon_log)"
fi
check "schedfreqd restore after the failed exit" emu_exec "$SFD" restore --state-file "$TMP/state"
now=$(emu_sh "$SNAPSHOT")
if [ "$now" = "$original" ] && [ ! -e "$TMP/state" ]; then
	ok "after restore every policy file is as before the injected faults, byte for byte"
else
	fail "after restore every policy file is as before the injected faults, byte for byte" \
		"$(diff <(echo "$original") <(echo "$now"))"
fi

# EBUSY on a governor switch at take-over: the start is refused, nothing is left changed.
mark=$(log_lines)
fault fail cpufreq/policy1/scaling_governor EBUSY count=1
nsenter -m -t "$EMU_NS_PID" -- "$SFD" -c "$TMP/schedfreqd.conf" --state-file "$TMP/state" --no-bus \
	>"$TMP/out" 2>"$TMP/err"
rc=$?
now=$(emu_sh "$SNAPSHOT")
if [ $rc -ne 0 ] && grep -q 'policy1: cannot switch cpu1 to the userspace governor: Device or resource busy' "$TMP/err" &&
	[ "$now" = "$original" ] && [ ! -e "$TMP/state" ]; then
	ok "EBUSY on policy1's governor at take-over: refused (exit $rc, names policy1), nothing left changed"
else
	fail "EBUSY on policy1's governor at take-over: refused, nothing left changed" "rc=$rc" "$(show_daemon_log)" \
		"$(diff <(echo "$original") <(echo "$now"))"
fi
fault clear


# --- a ring overflows ----------------------------------------------------------------------------------------
# perf's rings (the default source, auto, is bpf where the kernel has BTF: no rings).
printf '[events]\nsource = perf\nring_pages = 1\n' >"$TMP/schedfreqd.conf"
original=$(emu_sh "$SNAPSHOT")
start_daemon || fail "daemon starts with one-page rings" "$(show_daemon_log)"
kill -STOP "$daemon_pid"
wait_for '[ "$(awk "{ print \$3 }" "/proc/$daemon_pid/stat")" = T ]' 5
for _ in $(seq 100); do taskset -c 1 true; done
kill -CONT "$daemon_pid"
if wait_for 'poke 1; [ "$(busctl --system --no-pager get-property "$NAME" "$OBJ" "$NAME" RingOverflows | cut -d" " -f2)" -gt 0 ]' 10 &&
	[ "$(busctl --system --no-pager get-property "$NAME" "$OBJ" "$NAME" EventsLost | cut -d" " -f2)" -gt 0 ] &&
	grep -A1 'CPU 1: [0-9]* scheduler events lost (its perf ring was full)' "$TMP/err" |
		grep -q '^If this repeats, raise ring_pages in \[events\] (now 1)\.$'; then
	ok "ring overflow: EventsLost and RingOverflows counted, one warning naming ring_pages"
else
	fail "ring overflow: EventsLost and RingOverflows counted, one warning naming ring_pages" "$(show_daemon_log)"
fi
n=$(grep -c 'CPU 1: [0-9]* scheduler events lost' "$TMP/err")
[ "$n" -eq 1 ] && ok "the loss is logged once for CPU 1" || fail "the loss is logged once for CPU 1" "$n lines"
"$HOG" --cpu 1 --seconds 0.3 >/dev/null
if [ "$(prop 1 State)" = governed ] && wait_for 'poke 1; in_sync 1' 5; then
	ok "after the overflow: policy1 governed, in sync with the driver"
else
	fail "after the overflow: policy1 governed, in sync with the driver" "State=$(prop 1 State); $SYNC_SEEN" \
		"$(show_daemon_log)"
fi
kill -TERM "$daemon_pid"
wait "$daemon_pid"
rc=$?
daemon_pid=
now=$(emu_sh "$SNAPSHOT")
if [ $rc -eq 0 ] && [ "$now" = "$original" ] && [ ! -e "$TMP/state" ] && grep -q 'ring overflows' "$TMP/err"; then
	ok "after the overflow SIGTERM restores every file byte for byte (summary counts the overflows)"
else
	fail "after the overflow SIGTERM restores every file byte for byte" "rc=$rc" "$(diff <(echo "$original") <(echo "$now"))"
fi


# --- a tracefs format that changed shape ---------------------------------------------------------------------
fmt=$(emu_sh 'd=$(awk "\$3 == \"tracefs\" { print \$2; exit }" /proc/mounts); echo "$d/events/sched/sched_migrate_task/format"')
if emu_sh "mount --bind '$REPO/tests/fixtures/formats/bad/sched_migrate_task-no-dest_cpu.format' '$fmt'"; then
	printf '[events]\nsource = perf\n' >"$TMP/schedfreqd.conf" # the formats are perf's to read
	original=$(emu_sh "$SNAPSHOT")
	nsenter -m -t "$EMU_NS_PID" -- "$SFD" -c "$TMP/schedfreqd.conf" --state-file "$TMP/state" --no-bus \
		>"$TMP/out" 2>"$TMP/err"
	rc=$?
	now=$(emu_sh "$SNAPSHOT")
	if [ $rc -ne 0 ] && grep -q "not laid out as schedfreqd reads them, refusing to guess: .*sched_migrate_task/format.*dest_cpu" "$TMP/err" &&
		[ "$now" = "$original" ] && [ ! -e "$TMP/state" ]; then
		ok "a changed tracefs format: refused (exit $rc), naming the file and the field; nothing changed"
	else
		fail "a changed tracefs format: refused, naming the file and the field; nothing changed" "rc=$rc" \
			"$(show_daemon_log)" "$(diff <(echo "$original") <(echo "$now"))"
	fi
	emu_sh "umount '$fmt'"
else
	fail "bind-mount a bad format over $fmt in the test's mount namespace"
fi

finish
