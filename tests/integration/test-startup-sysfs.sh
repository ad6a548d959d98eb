#!/bin/bash
# asan: yes
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The sysfs traffic of a start-up, counted, not timed (issue #25 item 4): over the emulator serving
# bench/gen-topology.sh 256 64 (64 acpi-cpufreq-like policies of 4 CPUs, schedutil), the requests the emulator
# serves (its .emu-ops counters, tests/emu/main.c) from the daemon's exec to the end of its take-over, where
# SCHEDFREQD_CRASH_AT=take-over:done:STOP stops it (nothing after it counts: no poll, no decision), must stay
# within a bound per policy. Each request is a FUSE round trip (tens of µs); on a 1024-CPU / 256-policy tree
# the start-up is mostly these. What the bounds hold (cpufreq-discover.c, actuator.c, tests/emu/main.c say why):
#   - global files once per start-up, not once per policy: online, possible, schedutil/rate_limit_us;
#   - each policy's single values read once, through one fd of its directory; libcpupower reads the lists
#     (related_cpus, available frequencies, boost frequencies) through cpuN/cpufreq; what belongs to the
#     driver, not to a policy (scaling_driver, scaling_available_governors, cpu_capacity's presence), once;
#   - the take-over takes what discovery read and where it found the policy, reads the governor once more,
#     and switches with libcpupower: no online, no stat, no second read of the limits or the rate limit;
#   - the emulator, like sysfs's dcache, looks a name up once and keeps link targets: a path walk through
#     cpufreq/policyN/ or cpuN/cpufreq costs no LOOKUP or READLINK once the names are known (the snapshot
#     and the reads below have touched every policy file and cpuN/cpufreq link before the daemon starts).
# The counts are exact from run to run (event source alike). Before (b5c435f) and after, for 16 policies:
# open 322 -> 227, read 290 -> 195, getattr (lookups) 1843 -> 694, readlink 256 -> 96, write 16 -> 16; then
# (names and links cached by the emulator) getattr 694 -> 85, readlink 96 -> 16; at 64 policies, a second
# start-up on the same emulator: getattr 129, readlink 0, opendir 129, open 899, read 771, write 64; then the
# driver's values read once (scaling_driver, scaling_available_governors, whether cpu_capacity exists;
# cpufreq-discover.c DiscoverShared): getattr 71, opendir 130 (+1: cpufreq/ listed to read ahead), open 773, read 645
# (the policies read on several threads change the timing, not the counts). The bounds
# are those figures per policy plus a fixed slack smaller than the number of policies: one redundant access
# per policy coming back fails them, and so does a lookup or a readlink per path component (the emulator's
# zero timeouts before: ~43 getattr and 6 readlinks a policy). Then the daemon goes on (SIGCONT), governs, and
# puts everything back at SIGTERM. Last, a take-over whose reads, then whose switches, fail on two policies is
# refused naming the first, with nothing left changed.

. "$(dirname "$0")/lib.sh"

TMP=$(mktemp -d /tmp/schedfreqd-test-startup-sysfs.XXXXXX)
at_exit 'rm -rf "$TMP"'
CPU=/sys/devices/system/cpu
POLICIES=64
# Per policy, then the fixed part: online, possible and schedutil/rate_limit_us once, and slack (< POLICIES).
# getattr: the file a policy lacks here (scaling_boost_frequencies: a cpufreq-dt policy may have it where another
# has not, so it is asked each time); cpuN/cpu_capacity is asked once (all CPUs have it or none).
MAX_OPEN=12 MAX_GETATTR=1 MAX_READLINK=0 MAX_OPENDIR=2 MAX_READ=10 MAX_FIXED=12

daemon_pid=
at_exit '[ -n "$daemon_pid" ] && kill -KILL "$daemon_pid" 2>/dev/null'
show_daemon_log() { sed 's/^/# daemon: /' "$TMP/err" | tail -n 20; }
SNAPSHOT='cd /sys/devices/system/cpu/cpufreq && for f in policy*/*; do case $f in *cur_freq) continue;; esac; printf "%s: %s\n" "$f" "$(cat "$f" 2>&1)"; done'
ops() { emu_sh "cat $CPU/.emu-ops"; }
op_count() { # KIND: from the counters saved in $TMP/ops
	awk -v k="$1" '$1 == k { print $2 }' "$TMP/ops"
}

"$REPO/bench/gen-topology.sh" $((POLICIES * 4)) "$POLICIES" >"$TMP/topo.ini" || { fail startup-sysfs/topology; finish; }
emu_start "$TMP/topo.ini" || { fail startup-sysfs/emulator; finish; }
: >"$TMP/schedfreqd.conf"
original=$(emu_sh "$SNAPSHOT")

# The counters themselves: a reset zeroes them, the control files do not count, a bad command is refused.
emu_sh "echo reset >$CPU/.emu-ops"
check "startup-sysfs/counters-reset" test "$(ops | awk '{ s += $2 } END { print s }')" = 0
emu_sh "cat $CPU/cpufreq/policy0/scaling_governor >/dev/null"
ops >"$TMP/ops"
check "startup-sysfs/counters-count-a-read" test "$(op_count open)" = 1 -a "$(op_count read)" -ge 1
check "startup-sysfs/counters-refuse-junk" sh -c "! nsenter -m -t $EMU_NS_PID -- sh -c 'echo junk >$CPU/.emu-ops' 2>/dev/null"

# Every CPU's way to its policy, and the frequencies the snapshot leaves out, looked up once, as `cpupower
# frequency-info` would have: what the daemon then adds is its own traffic, not the first lookup of each name.
emu_sh "cat $CPU/cpu*/cpufreq/related_cpus $CPU/cpufreq/policy*/scaling_cur_freq >/dev/null"
emu_sh "echo reset >$CPU/.emu-ops"
rm -f "$TMP/state"
SCHEDFREQD_CRASH_AT=take-over:done:STOP nsenter -m -t "$EMU_NS_PID" -- "$SCHEDFREQD" -c "$TMP/schedfreqd.conf" \
	--state-file "$TMP/state" --no-bus --log-level debug >"$TMP/out" 2>"$TMP/err" &
daemon_pid=$!
if wait_for '[ "$(awk "{ print \$3 }" "/proc/$daemon_pid/stat" 2>/dev/null)" = T ]' 30; then
	ok "startup-sysfs/stopped-after-take-over"
else
	fail "startup-sysfs/stopped-after-take-over" "$(show_daemon_log)"
	finish
fi
ops >"$TMP/ops"
taken=$(grep -c 'taken over from governor' "$TMP/err")
check "startup-sysfs/all-taken-over" test "$taken" = "$POLICIES"
# The policies after the first were read ahead on several threads (cpufreq-discover.c ReadAhead), not in turn: the
# counts above are the same either way, the time is not (docs/benchmarks.md).
check "startup-sysfs/read-ahead: $((POLICIES - 1)) policies on several threads" \
	grep -Eq "Read $((POLICIES - 1)) cpufreq policies ahead on [2-9] threads" "$TMP/err"
echo "# emulator requests from exec to the end of the take-over, $POLICIES policies: $(tr '\n' ' ' <"$TMP/ops")"

bounded() { # KIND PER_POLICY
	local n max
	n=$(op_count "$1")
	max=$(($2 * POLICIES + MAX_FIXED))
	if [ -n "$n" ] && [ "$n" -le "$max" ]; then
		ok "startup-sysfs/$1: $n <= $2 a policy + $MAX_FIXED ($max)"
	else
		fail "startup-sysfs/$1: ${n:-?} <= $2 a policy + $MAX_FIXED ($max)" \
			"a redundant sysfs access is back on the start-up path (discovery: daemon/topology/cpufreq-discover.c," \
			"take-over: daemon/actuator/actuator.c); strace -f -y of a start-up shows which"
	fi
}
bounded open "$MAX_OPEN"
bounded getattr "$MAX_GETATTR"
bounded readlink "$MAX_READLINK"
bounded opendir "$MAX_OPENDIR"
bounded read "$MAX_READ"
# Nothing written but the take-over's: one governor switch a policy (its setspeed is opened, not yet written).
check "startup-sysfs/writes: one a policy" test "$(op_count write)" = "$POLICIES"

# The rest of its life as usual: it governs, then puts every policy back.
kill -CONT "$daemon_pid"
if wait_for "[ \"\$(emu_sh 'cat $CPU/cpufreq/policy*/scaling_governor | sort -u')\" = userspace ]" 10; then
	ok "startup-sysfs/governs-after-continue"
else
	fail "startup-sysfs/governs-after-continue" "$(show_daemon_log)"
fi
kill -TERM "$daemon_pid"
wait "$daemon_pid"
rc=$?
daemon_pid=
now=$(emu_sh "$SNAPSHOT")
if [ $rc -eq 0 ] && [ "$now" = "$original" ] && [ ! -e "$TMP/state" ]; then
	ok "startup-sysfs/restored: exit 0, every policy file as before, no state file"
else
	fail "startup-sysfs/restored: exit 0, every policy file as before, no state file" "rc=$rc" \
		"$(diff <(echo "$original") <(echo "$now"))" "$(show_daemon_log)"
fi

# A take-over whose steps fail on two policies, run several policies at a time (actuator_each()): the start is
# refused naming the first policy in policy order, whichever thread failed first, and nothing is left changed.
refused() { # NAME FIRST LATER MESSAGE RULE (policyN/ in RULE is each of FIRST and LATER in turn)
	local name=$1 first=$2 later=$3 message=$4 rule=$5 rc now
	emu_sh "echo 'fail cpufreq/policy$later/$rule' >$CPU/.emu-faults"
	emu_sh "echo 'fail cpufreq/policy$first/$rule' >$CPU/.emu-faults"
	nsenter -m -t "$EMU_NS_PID" -- "$SCHEDFREQD" -c "$TMP/schedfreqd.conf" --state-file "$TMP/state" --no-bus \
		>"$TMP/out" 2>"$TMP/err"
	rc=$?
	emu_sh "echo clear >$CPU/.emu-faults"
	now=$(emu_sh "$SNAPSHOT")
	if [ $rc -ne 0 ] && grep -q "policy$first: $message" "$TMP/err" && ! grep -q "policy$later" "$TMP/err" &&
		[ "$now" = "$original" ] && [ ! -e "$TMP/state" ]; then
		ok "startup-sysfs/$name: refused (exit $rc), naming policy$first (not policy$later), nothing left changed"
	else
		fail "startup-sysfs/$name: refused, naming policy$first (not policy$later), nothing left changed" "rc=$rc" \
			"$(show_daemon_log)" "$(diff <(echo "$original") <(echo "$now"))"
	fi
}
# The governor read again (after=1: discovery's read passes, the take-over's fails).
refused save-failure 40 200 "cannot read .*policy40/scaling_governor" "scaling_governor EIO op=read after=1"
# The switch refused (EBUSY, a driver busy with a transition): what was switched by then is put back.
refused switch-failure 36 100 "cannot switch cpu36 to the userspace governor" "scaling_governor EBUSY"

finish
