#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Per-process rules live (issue #13): the real daemon over the emulator and a real light process, `hog --duty 2
# --period-ms 10` pinned to CPU 1 (0.2 ms of work every 10 ms), started after the daemon. With a rule
# `comm = hog`, `min_util = 1024` its policy goes to the maximum within a few ms of its wake-ups; without the
# rule it does not (the emulator's write log). A comm= rule is matched on the name the scheduler events carry,
# an exe= rule on the executable the proc connector's exec event leads to (manager-rules.c).

. "$(dirname "$0")/lib.sh"

HOG="$BUILD/tests/helpers/hog"
TMP=$(mktemp -d /tmp/schedfreqd-test-rules.XXXXXX)
at_exit 'rm -rf "$TMP"'
CPUFREQ=/sys/devices/system/cpu/cpufreq
MAX=2400000
daemon_pid=
at_exit '[ -n "$daemon_pid" ] && kill -KILL "$daemon_pid" 2>/dev/null'

emu_start "$REPO/tests/fixtures/topology/two-policies.ini" || { fail "emulator starts"; finish; }

# run_case NAME CONFIG_TEXT: the daemon with CONFIG_TEXT, the light process for 0.6 s; sets START, END and
# SETS (policy1's scaling_cur_freq sets during the run: "ms-since-start kHz" lines).
run_case() {
	printf '%b' "$2" >"$TMP/$1.conf"
	rm -f "$TMP/state"
	nsenter -m -t "$EMU_NS_PID" -- "$SCHEDFREQD" -c "$TMP/$1.conf" --state-file "$TMP/state" --no-bus \
		>/dev/null 2>"$TMP/$1.err" &
	daemon_pid=$!
	if ! wait_for '[ -e "$TMP/state" ] && [ "$(emu_sh "cat $CPUFREQ/policy*/scaling_governor | sort -u")" = userspace ]' 10; then
		fail "$1: daemon takes over" "$(tail -n 20 "$TMP/$1.err")"
		return 1
	fi
	: >"$EMU_LOG"
	"$HOG" --cpu 1 --seconds 0.6 --duty 2 --period-ms 10 >"$TMP/$1.hog"
	START=$(awk '/^start/ { print $2 }' "$TMP/$1.hog")
	END=$(awk '/^end/ { print $2 }' "$TMP/$1.hog")
	kill -TERM "$daemon_pid"
	wait "$daemon_pid"
	daemon_pid=
	SETS=$(awk -v s="$START" -v e="$END" '$2 == "cpufreq/policy1/scaling_cur_freq" && $4 == "set" && $1 >= s && $1 <= e {
		printf "%.3f %s\n", ($1 - s) / 1e6, $3 }' "$EMU_LOG")
}

if run_case rule '[rule:light]\ncomm = hog\nmin_util = 1024\n'; then
	first=$(awk -v m="$MAX" '$2 == m { print $1; exit }' <<<"$SETS")
	late_max=$(awk -v m="$MAX" '$1 >= 300 && $2 == m' <<<"$SETS" | wc -l)
	if under_valgrind; then
		ok "rule: the daemon ran with a rule (timing not judged under valgrind)"
	elif [ -n "$first" ] && awk -v f="$first" 'BEGIN { exit !(f < 5) }' && [ "$late_max" -ge 10 ]; then
		ok "rule: policy1 at max $first ms after the light process started, and at $late_max of its wake-ups in the last 300 ms"
	else
		fail "rule: min_util = 1024 raises policy1 at the light process's wake-ups" "first max at: ${first:-never} ms;" \
			"max sets after 300 ms: $late_max" "sets (ms kHz):" "$(head -n 20 <<<"$SETS")" "$(tail -n 5 "$TMP/rule.err")"
	fi
fi

# The same by executable: matched from the proc connector's exec event (/proc/PID/exe), not the name.
if run_case exe '[rule:by-exe]\nexe = */tests/helpers/hog\nmin_util = 1024\n'; then
	late_max=$(awk -v m="$MAX" '$1 >= 300 && $2 == m' <<<"$SETS" | wc -l)
	if under_valgrind || [ "$late_max" -ge 10 ]; then
		ok "exe rule: policy1 at max at $late_max of the light process's wake-ups in the last 300 ms"
	else
		fail "exe rule: exe = */tests/helpers/hog raises policy1" "max sets after 300 ms: $late_max" \
			"$(head -n 20 <<<"$SETS")" "$(tail -n 5 "$TMP/exe.err")"
	fi
fi

if run_case none ''; then
	late_max=$(awk -v m="$MAX" '$1 >= 300 && $2 == m' <<<"$SETS" | wc -l)
	if [ "$late_max" -eq 0 ]; then
		ok "no rule: the same light process leaves policy1 below max after its start-up"
	else
		fail "no rule: policy1 stays below max" "max sets after 300 ms: $late_max" "$(head -n 20 <<<"$SETS")"
	fi
fi
emu_stop
finish
