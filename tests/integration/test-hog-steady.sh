#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A CPU hog keeps its policy up for as long as it runs, whatever the ring wakeup state. The model ends a task's
# run when its CPU has been silent for 3 ticks (a switch-out lost in the CPU's idle context, demand.c): that is
# only sound while the busy detector (sched_stat_runtime, runtime >= 1 ms) reports running tasks, so the
# detector must be on in every state, not only in lazy mode (perf-events.c role_enabled_in()). Per wakeup mode
# (watermark: never lazy; immediate: lazy only once a quiet set is chosen; adaptive, the default), the real
# daemon over the emulator and a 1 s hog pinned to CPU 1: policy1 reaches >= 90 % of max and no frequency
# below that is set until the hog ends (the emulator's write log).

. "$(dirname "$0")/lib.sh"

HOG="$BUILD/tests/helpers/hog"
GRACE_MS=50 # a rise that was there before the hog may fall back within this (see below)
LAUNCH_MS=5 # any rise may fall back within this: the hog's launch, its write delayed past the start (below)
TMP=$(mktemp -d /tmp/schedfreqd-test-hog.XXXXXX)
at_exit 'rm -rf "$TMP"'
HIGH=2160000 # 90 % of 2.4 GHz

emu_start "$REPO/tests/fixtures/topology/two-policies.ini" || { fail "emulator starts"; finish; }

for mode in watermark immediate adaptive; do
	printf '[events]\nwakeup = %s\n' "$mode" >"$TMP/$mode.conf"
	if ! emu_daemon_start "$TMP/state" "$TMP/$mode.conf" "$TMP/$mode.err" /dev/null; then
		fail "wakeup=$mode: daemon takes over" "$(tail -n 20 "$TMP/$mode.err")"
		emu_daemon_stop
		continue
	fi
	# From policy1 at its minimum, so that a rise is the hog's: the daemon takes over at the maximum and lowers an
	# idle policy only at its CPU's next event, which in watermark mode can come after the hog's start.
	if ! emu_policy_wait_at_most 1 800000; then
		fail "wakeup=$mode: policy1 falls to its minimum while idle" "$(emu_exec cat $EMU_CPUFREQ/policy1/scaling_cur_freq)"
		emu_daemon_stop
		continue
	fi
	"$HOG" --cpu 1 --seconds 1 >"$TMP/$mode.hog"
	start=$(awk '/^start/ { print $2 }' "$TMP/$mode.hog")
	end=$(awk '/^end/ { print $2 }' "$TMP/$mode.hog")
	emu_daemon_stop
	# policy1's frequency at the hog's start (its last change before) and its changes until the hog's end, in ms
	# since the start: the first at >= HIGH (0 if it was there already), then any below it.
	steps=$(emu_policy_steps 1 "$start" "$end")
	# Already up at the start (a CI run: the hog's own fork and exec on CPU 1 raised it between the wait and its
	# "start", and that fell back at 2.3 ms before the hog's util took it up again at 10.3 ms): a fall within the
	# first GRACE_MS is that launch decaying, and the hog's rise is judged from the next one. In watermark mode the
	# launch's events can be read, and its rise and fall written, after the start (CI: up at 1.956 ms, down at
	# 2.015, up for good at 2.151, one batch): a fall within LAUNCH_MS is that too. The silence rule this test
	# guards ends a run only after 3 ticks without evidence, well past LAUNCH_MS.
	read -r rise drop <<<"$(awk -v h="$HIGH" -v grace="$GRACE_MS" -v launch="$LAUNCH_MS" '
		NR == 1 { if ($2 >= h) { up = 1; rise = $1; inherited = 1 }; next }
		!up && $2 >= h { up = 1; rise = $1; inherited = 0; next }
		up && $2 < h { if ((inherited && $1 < grace) || $1 < launch) { up = 0; inherited = 0; next }
		               if (drop == "") drop = $1 "ms:" $2 "kHz" }
		END { print rise, drop }' <<<"$steps")"
	if under_valgrind; then
		ok "wakeup=$mode: the daemon ran a hog through (timing not judged under valgrind)"
	elif [ -n "$rise" ] && [ -z "$drop" ]; then
		ok "wakeup=$mode: policy1 >= 90 % of max $rise ms into a 1 s hog, and stays there until it ends"
	else
		fail "wakeup=$mode: policy1 stays up while a hog runs" "rise at: ${rise:-never}; drop at: ${drop:-none}" \
			"steps (ms since the hog's start, kHz):" "$steps" "$(tail -n 5 "$TMP/$mode.err")"
	fi
	: >"$EMU_LOG" # the next daemon's take-over is logged from the start
done
emu_stop
finish
