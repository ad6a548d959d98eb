#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# End-to-end figures for the ring wakeup policy ([events] wakeup = adaptive | watermark | immediate):
# the real daemon over the emulated cpufreq (tests/emu-run), real scheduler events. Per mode, RUNS times:
#   - messaging: wall time of `perf bench sched messaging -l LOOPS` with the daemon running, and the same with
#     no daemon, interleaved in one run (the VM is noisy: medians, ratios side by side);
#   - daemon CPU % over the messaging run (utime+stime from /proc/PID/stat);
#   - events/s the daemon handled, lost events;
#   - reaction: ms from launching a hog on CPU 1 to policy1 >= 90 % of max (emulator write log).
# Ring-level sample-to-delivery latency per mode is measured by bench/bench-events.c.
# Usage: bench/bench-daemon.sh [BUILD] [RUNS] [LOOPS]     (root)
set -u
BUILD=${1:-build}
RUNS=${2:-5}
LOOPS=${3:-300}
REPO=$(cd "$(dirname "$0")/.." && pwd)
. "$REPO/tests/integration/lib.sh"
TMP=$(mktemp -d /tmp/schedfreqd-bench.XXXXXX)
at_exit 'rm -rf "$TMP"'
TOPO="$REPO/tests/fixtures/topology/two-policies.ini"
HZ_TICKS=$(getconf CLK_TCK)

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR == 0) { print "n/a"; exit } m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; print m }'; }

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

messaging() { # prints seconds
	perf bench sched messaging -l "$LOOPS" 2>/dev/null | awk '/Total time/ { print $3 }'
}

run_mode() { # MODE RUN
	local mode=$1 run=$2 pid t0 t1 c0 c1 secs hog_start rise
	printf '[events]\nwakeup = %s\n' "$mode" >"$TMP/$mode.conf"
	: >"$EMU_LOG"
	nsenter -m -t "$EMU_NS_PID" -- "$BUILD/schedfreqd" -c "$TMP/$mode.conf" --state-file "$TMP/state" \
		>/dev/null 2>"$TMP/err.$mode.$run" &
	pid=$!
	wait_for '[ -e "$TMP/state" ]' 10 || { echo "daemon did not start" >&2; cat "$TMP/err.$mode.$run" >&2; return 1; }

	# Reaction to a hog on CPU 1, from an idle policy.
	wait_for '[ "$(emu_exec cat /sys/devices/system/cpu/cpufreq/policy1/scaling_cur_freq)" -le 800000 ]' 3
	# From the hog's launch, not its "start" line: a new task's initial util (half the CPU's spare
	# capacity) and its exec on CPU 1 can raise policy1 before the hog pins itself and starts spinning.
	launch=$("$BUILD/tests/helpers/monotonic")
	"$BUILD/tests/helpers/hog" --cpu 1 --seconds 1 >/dev/null
	rise=$(awk -v s="$launch" '$2 == "cpufreq/policy1/scaling_cur_freq" && $1 >= s && $3 >= 2160000 { printf "%.0f", ($1 - s) / 1e6; exit }' "$EMU_LOG")
	echo "${rise:-9999}" >>"$TMP/rise.$mode"

	# Workload slowdown and daemon cost under heavy messaging.
	c0=$(cpu_ticks "$pid"); t0=$(date +%s.%N)
	secs=$(messaging)
	c1=$(cpu_ticks "$pid"); t1=$(date +%s.%N)
	echo "$secs" >>"$TMP/msg.$mode"
	awk -v c=$((c1 - c0)) -v hz="$HZ_TICKS" -v t0="$t0" -v t1="$t1" 'BEGIN { printf "%.1f\n", 100 * c / hz / (t1 - t0) }' >>"$TMP/cpu.$mode"

	kill -TERM "$pid"; wait "$pid"
	awk -v t0="$t0" -v t1="$t1" '/Events:/ { gsub(/[(,]/, " "); print $2 }' "$TMP/err.$mode.$run" >>"$TMP/events.$mode"
	awk '/Events:/ { gsub(/[(,)]/, " "); for (i = 1; i <= NF; i++) if ($i == "lost") print $(i + 1) }' "$TMP/err.$mode.$run" >>"$TMP/lost.$mode"
	awk -v t0="$t0" -v t1="$t1" 'BEGIN { printf "%.3f\n", t1 - t0 }' >>"$TMP/wall.$mode"
}

emu_start "$TOPO" || exit 1
echo "machine: $(nproc) CPUs, $(uname -r), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "runs: $RUNS per mode, perf bench sched messaging -l $LOOPS"
for run in $(seq 1 "$RUNS"); do
	messaging >>"$TMP/msg.none"
	for mode in adaptive watermark immediate; do
		run_mode "$mode" "$run" || exit 1
	done
done
base=$(median <"$TMP/msg.none")
printf '\n%-10s %12s %8s %9s %12s %6s %14s\n' mode messaging_s ratio daemon_cpu events_total lost hog_to_90%_ms
printf '%-10s %12s %8s %9s %12s %6s %14s\n' none "$base" 1.00 - - - -
for mode in adaptive watermark immediate; do
	m=$(median <"$TMP/msg.$mode")
	printf '%-10s %12s %8s %8s%% %12s %6s %14s\n' "$mode" "$m" "$(awk -v a="$m" -v b="$base" 'BEGIN { printf "%.2f", a / b }')" \
		"$(median <"$TMP/cpu.$mode")" "$(median <"$TMP/events.$mode")" "$(median <"$TMP/lost.$mode")" \
		"$(median <"$TMP/rise.$mode")"
done
emu_stop
