#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The rate limit (issue #9 item 4), on the cpufreq emulator:
#   - the emulator's schedutil tunables: cpufreq/schedutil/rate_limit_us (global) or policyN/schedutil/ (a driver
#     with a governor per policy) exists only while schedutil governs, parses writes with kstrtouint(10), and
#     starts again from the kernel default (latency x 1.5) after a switch away and back;
#   - `schedfreqd topology` shows the tunable as rate_limit_us;
#   - the daemon takes schedutil's own value over the computed default (log line, and the spacing of its
#     scaling_setspeed writes under a CPU hog), a configured rate_limit_us wins over both, and the tunable is
#     put back when schedutil is restored.

. "$(dirname "$0")/lib.sh"

SFD=$SCHEDFREQD
HOG="$BUILD/tests/helpers/hog"
TMP=$(mktemp -d /tmp/schedfreqd-test-ratelimit.XXXXXX)
at_exit 'rm -rf "$TMP"'
CF=/sys/devices/system/cpu/cpufreq

# expect NAME ACTUAL EXPECTED
expect() {
	if [ "$2" = "$3" ]; then ok "$1"; else fail "$1" "expected: $3" "actual:   $2"; fi
}

# Two single-CPU policies on DRIVER, 100 us latency (default rate limit 150 us), both under schedutil;
# policy0 carries rate_limit_us = RATE (the global tunable starts from it).
topology() { # DRIVER RATE
	local p
	for p in 0 1; do
		printf '[policy%s]\ncpus = %s\ndriver = %s\ncpuinfo_min_khz = 500000\ncpuinfo_max_khz = 2000000\n' "$p" "$p" "$1"
		printf 'frequencies_khz = 500000 1000000 1500000 2000000\ntransition_latency_ns = 100000\n'
		printf 'governor = schedutil\ncur_khz = 500000\n'
		[ "$p" = 0 ] && printf 'rate_limit_us = %s\n' "$2"
		echo
	done
}

# --- the emulator: global tunables ------------------------------------------------------------------------
topology acpi-cpufreq 7777 >"$TMP/global.ini"
emu_start "$TMP/global.ini" || { fail "emulator start"; finish; }
expect "global tunable from the topology" "$(emu_exec cat $CF/schedutil/rate_limit_us)" 7777
expect "no per-policy tunable for acpi-cpufreq" "$(emu_sh "ls $CF/policy0 | grep -c schedutil")" 0
out=$(emu_sh "cd $CF/schedutil
	for v in 0x10 12a ' 5' 4294967296 -1; do printf %s \"\$v\" >rate_limit_us 2>/dev/null && echo \"accepted \$v\"; done
	echo +42 >rate_limit_us; cat rate_limit_us; printf 0 >rate_limit_us; cat rate_limit_us; echo 7777 >rate_limit_us")
expect "kstrtouint(10) parsing: only decimal, 0 valid" "$out" "$(printf '42\n0')"
emu_sh "echo userspace >$CF/policy0/scaling_governor"
expect "shared while policy1 still runs schedutil" "$(emu_exec cat $CF/schedutil/rate_limit_us)" 7777
emu_sh "echo userspace >$CF/policy1/scaling_governor"
expect "gone with the last schedutil policy" "$(emu_sh "ls $CF; cat $CF/schedutil/rate_limit_us 2>&1 >/dev/null | grep -c 'No such file'")" \
	"$(printf 'policy0\npolicy1\n1')"
emu_sh "echo schedutil >$CF/policy1/scaling_governor"
expect "back with the kernel default (100 us x 1.5)" "$(emu_exec cat $CF/schedutil/rate_limit_us)" 150
emu_stop

# --- the emulator: a governor per policy (scmi) ------------------------------------------------------------
topology scmi 7777 >"$TMP/per-policy.ini"
emu_start "$TMP/per-policy.ini" || { fail "emulator start"; finish; }
expect "per-policy tunables" "$(emu_sh "cat $CF/policy0/schedutil/rate_limit_us $CF/policy1/schedutil/rate_limit_us; ls $CF")" \
	"$(printf '7777\n150\npolicy0\npolicy1')"
emu_sh "echo performance >$CF/policy0/scaling_governor; echo schedutil >$CF/policy0/scaling_governor"
expect "per-policy tunable restarts from the default" "$(emu_exec cat $CF/policy0/schedutil/rate_limit_us)" 150
expect "topology shows each policy's tunable" "$(emu_exec "$SFD" topology | grep rate_limit_us)" \
	"$(printf 'rate_limit_us = 150\nrate_limit_us = 150')"
emu_stop

# --- the daemon ------------------------------------------------------------------------------------------------
daemon_pid=
at_exit '[ -n "$daemon_pid" ] && kill -KILL "$daemon_pid" 2>/dev/null'
start_daemon() { # CONFIG
	nsenter -m -t "$EMU_NS_PID" -- "$SFD" -c "$1" --state-file "$TMP/state" --print-decisions \
		>"$TMP/out" 2>"$TMP/err" &
	daemon_pid=$!
	wait_for '[ -e "$TMP/state" ] && [ "$(emu_sh "cat $CF/policy*/scaling_governor | sort -u")" = userspace ] && grep -q "running" "$TMP/err"' 10
}
stop_daemon() {
	kill -TERM "$daemon_pid" 2>/dev/null
	wait "$daemon_pid" 2>/dev/null
	daemon_pid=
}

# A 200 ms tunable: the default would be 150 us, so the spacing tells which one the daemon uses.
topology acpi-cpufreq 200000 >"$TMP/slow.ini"
emu_start "$TMP/slow.ini" || { fail "emulator start"; finish; }
expect "topology shows the global tunable" "$(emu_exec "$SFD" topology | grep -c '^rate_limit_us = 200000$')" 2
: >"$TMP/empty.conf"
start_daemon "$TMP/empty.conf" || fail "daemon start" "$(tail -n 20 "$TMP/err")"
for p in 0 1; do
	if grep -q "policy$p: rate limit 200000 us (the kernel's schedutil/rate_limit_us)" "$TMP/err"; then
		ok "policy$p: log names the kernel's tunable"
	else
		fail "policy$p: log names the kernel's tunable" "$(grep -i 'rate limit' "$TMP/err")"
	fi
done
expect "the tunable is gone while we hold the policies" "$(emu_sh "ls $CF")" "$(printf 'policy0\npolicy1')"
expect "the state file keeps the tunable" "$(grep -c '^rate_limit_us = 200000$' "$TMP/state")" 2

# Writes to policy1 while a hog runs on CPU 1 and after it stops: at least two (the ramp), and the decisions
# behind them never closer than the rate limit. The rate limit is on the decisions' event times, as the kernel's
# (sugov_should_update_freq() compares the update's time): the writes themselves may come closer when the
# daemon catches up on a backlog (under valgrind, the first decision of a hog is written ~100 ms late).
start_line=$(wc -l <"$EMU_LOG")
start_out=$(wc -l <"$TMP/out")
"$HOG" --cpu 1 --seconds 1.5 >/dev/null
wait_for "[ \$(tail -n +$((start_line + 1)) \"$EMU_LOG\" | grep -c 'policy1/scaling_setspeed') -ge 3 ]" 3
n_writes=$(tail -n +$((start_line + 1)) "$EMU_LOG" | grep -c 'policy1/scaling_setspeed')
gaps=$(tail -n +$((start_out + 1)) "$TMP/out" | awk '/ policy=1 / && !/reason=limits/ {
	sub(/^t=/, "", $1); if (n++) { g = ($1 - t) / 1000; if (min == "" || g < min) min = g } t = $1 }
	END { printf "%d %d\n", n, min }')
read -r n_decisions min_gap_us <<<"$gaps"
if [ "$n_writes" -ge 2 ] && [ "$n_decisions" -ge 2 ] && [ "$min_gap_us" -ge 200000 ]; then
	ok "writes spaced by the kernel's 200 ms ($n_writes writes; $n_decisions decisions, min gap $min_gap_us us)"
else
	fail "writes spaced by the kernel's 200 ms" "$n_writes writes; $n_decisions decisions, min gap $min_gap_us us" \
		"$(tail -n +$((start_out + 1)) "$TMP/out" | grep ' policy=1 ')" \
		"$(tail -n +$((start_line + 1)) "$EMU_LOG" | grep policy1/scaling_setspeed)"
fi

stop_daemon
expect "restore puts the tunable back" "$(emu_exec cat $CF/schedutil/rate_limit_us)" 200000
expect "restore wrote it once" "$(grep -c 'schedutil/rate_limit_us 200000' "$EMU_LOG")" 1

# The configuration wins over the tunable.
printf '[governor]\nrate_limit_us = 500\n' >"$TMP/config.conf"
start_daemon "$TMP/config.conf" || fail "daemon start" "$(tail -n 20 "$TMP/err")"
if grep -q "policy1: rate limit 500 us (from the configuration)" "$TMP/err"; then
	ok "configured rate_limit_us wins"
else
	fail "configured rate_limit_us wins" "$(grep -i 'rate limit' "$TMP/err")"
fi
stop_daemon
emu_stop

# No tunable to read (the policies start under performance): the running kernel's rule.
topology acpi-cpufreq 1 | sed -e 's/^governor = schedutil/governor = performance/' -e '/^rate_limit_us/d' >"$TMP/perf.ini"
emu_start "$TMP/perf.ini" || { fail "emulator start"; finish; }
start_daemon "$TMP/empty.conf" || fail "daemon start" "$(tail -n 20 "$TMP/err")"
if grep -Eq "policy0: rate limit [0-9]+ us \(cpuinfo_transition_latency 100000 ns, as Linux [0-9.+-]+( and older)? computes it" "$TMP/err"; then
	ok "computed from the latency for the running kernel"
else
	fail "computed from the latency for the running kernel" "$(grep -i 'rate limit' "$TMP/err")"
fi
stop_daemon
emu_stop

finish
