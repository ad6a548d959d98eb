#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck disable=SC2016
#
# bench/bench-reaction.sh [BUILD]: reaction latency of each governor (issue #12 item 1), measured outside the
# governors: bench/reaction-trigger.c stamps the triggering action (CLOCK_MONOTONIC) and the emulator's write log
# stamps the resulting change of policy1's frequency (`cpufreq/policy1/scaling_cur_freq <kHz> set`). One emulator
# (tests/fixtures/topology/two-policies.ini: two per-CPU acpi-cpufreq policies, 0.8-2.4 GHz) for the whole run;
# each governor of bench/lib-peers.sh ($PEER_NAMES) in turn governs it.
#
# Reaction (the same for every governor): from the trigger to the first `scaling_cur_freq ... set` line of
# policy1 stamped at or after the trigger with a frequency above the one policy1 had at the trigger; a trial
# starts only once policy1 reads <= its scaling_min_freq (bounded wait; if it does not fall in time the wait is
# redone and counted, and a trial in which it rose between that check and the trigger is redone and counted).
# Time to max: to the first such line at scaling_max_freq. Either is -1 (a miss) if not within the bound.
#
# Scenarios, target policy1 (CPU 1), trigger on CPU 0 unless said (details in bench/reaction-trigger.c):
#   a  the article's: a light periodic task on CPU 1 (1 ms every 6 ms), a heavy task pinned to CPU 1 with a high
#      util_est (300 ms busy once), woken by a waker on CPU 0 while the light task runs; trigger: the waker's
#      clock read right before the eventfd write. schedfreqd (remote = yes) and schedfreqd-local (remote = no)
#      in the same run.
#   b  a CPU hog starts on an idle CPU 1: a launcher thread on CPU 1 creates it (sched_wakeup_new raised in the
#      launcher's context on CPU 1, not in CPU 1's idle context, where this VM loses events: docs/platform.md);
#      trigger: the launcher's clock read right before pthread_create().
#   c  an RT (SCHED_FIFO 10) task pinned to CPU 1 wakes, woken from CPU 0 as in (a), the light task running.
#   Under load, also schedfreqd-immediate: schedfreqd with [events] wakeup = immediate (REACTION_IMMEDIATE=1,
#   the default; 0: not run), since the default adaptive mode switches to watermark wake-ups and a 4 ms drain
#   timer above adaptive_threshold (20,000 events/s), which the load exceeds.
#   Each trial's busy phase lasts until policy1 reached its maximum plus 2 ms, or the bound.
#   In (b) and (c) every event that raises policy1 is recorded on CPU 1 or is a wake-up whose switch-in on CPU 1
#   follows within microseconds, so schedfreqd-local behaves as schedfreqd: only schedfreqd runs there
#   (REACTION_LOCAL_BC=1 runs schedfreqd-local too).
# Loads: idle, and loaded = `stress-ng --switch 1` and a loop of `perf bench sched messaging` both pinned to CPU 0
# (taskset), started before the trials and stopped after.
#
# Fairness: a real sysfs write completes in the writer's context, but here the emulator's FUSE thread must run
# before the write log stamps it. The emulator is pinned to CPU 0 (REACTION_EMU_CPU; empty: anywhere; unpinned,
# it was woken behind the RT task spinning on CPU 1 in (c) and stamped 2 ms after schedfreqd's decision) at
# nice -20. Under the CPU 0 load it still competes with ~400 tasks: schedfreqd decided 5-30 us after the trigger
# but the emulator stamped the write 0.1-5.8 ms later (measured with --print-decisions, wakeup = immediate), so
# the loaded tails are mostly the emulator's. REACTION_EMU_PRIO=N runs it SCHED_FIFO N instead, with policy0
# held at its maximum (scaling_min_freq = scaling_max_freq) for the whole run: schedfreqd asks for the maximum
# while an RT task is runnable (as schedutil does), so an RT emulator woken by each write of a policy0 that can
# move feeds back into the next decision (100k writes in 4 s, measured); nothing here measures policy0. Then the
# loaded figures are the governor's (schedfreqd-immediate, loaded, (a): 87-209 us), but idle ones gain ~100 us
# (45-50 -> 140-160 us p50 in (a), interleaved runs; cause not found). The controller (the waker, on CPU 0) runs
# at nice -20 (REACTION_WAKER_NICE), not SCHED_FIFO, for the same RT reason, so that the load hardly preempts it
# between its clock read and its eventfd write.
#
# Knobs (environment): REACTION_TRIALS (200; BENCH_QUICK=1: 4) and REACTION_TRIALS_CPUFREQD (40; quick 2) per
# governor, scenario and load; REACTION_BOUND_MS (200) and REACTION_BOUND_MS_CPUFREQD (1500); REACTION_FALL_MS
# (2000) and REACTION_FALL_MS_CPUFREQD (4000), the bound of each wait for policy1 to fall; REACTION_SCENARIOS
# ("a b c"), REACTION_LOADS ("idle loaded"), REACTION_GOVERNORS ($PEER_NAMES), REACTION_LOCAL_BC (0),
# REACTION_SHOWCASE_MS (600; 0: none): the heavy phase of the one representative scenario-(a) trial per governor
# (idle, after rebuilding the heavy task's util) whose frequency steps go to reaction-freq-a.csv.
#
# Output, in ${BENCH_OUT:-BUILD/bench-out}:
#   reaction.csv         governor,scenario,load,trial,latency_us,to_max_us   (-1: none within the bound)
#   reaction-freq-a.csv  governor,t_ms,khz   policy1's steps from 20 ms before the wake-up to the heavy phase's end
#   reaction-redo.csv    governor,scenario,load,trials,nofall,raised
# and the summary table on stdout. Exit 1 if the harness failed (not if a target was missed).
set -u
REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-build}
case $BUILD in /*) ;; *) BUILD="$REPO/$BUILD" ;; esac
. "$REPO/tests/integration/lib.sh"
. "$REPO/bench/lib-peers.sh"

QUICK=${BENCH_QUICK:-0}
if [ "$QUICK" = 1 ]; then
	TRIALS=${REACTION_TRIALS:-4}
	TRIALS_CPUFREQD=${REACTION_TRIALS_CPUFREQD:-2}
	SHOWCASE_MS=${REACTION_SHOWCASE_MS:-300}
else
	TRIALS=${REACTION_TRIALS:-200}
	TRIALS_CPUFREQD=${REACTION_TRIALS_CPUFREQD:-40}
	SHOWCASE_MS=${REACTION_SHOWCASE_MS:-600}
fi
BOUND_MS=${REACTION_BOUND_MS:-200}
BOUND_MS_CPUFREQD=${REACTION_BOUND_MS_CPUFREQD:-1500}
FALL_MS=${REACTION_FALL_MS:-2000}
FALL_MS_CPUFREQD=${REACTION_FALL_MS_CPUFREQD:-4000}
SCENARIOS=${REACTION_SCENARIOS:-a b c}
LOADS=${REACTION_LOADS:-idle loaded}
GOVERNORS=${REACTION_GOVERNORS:-$PEER_NAMES}
LOCAL_BC=${REACTION_LOCAL_BC:-0}
IMMEDIATE=${REACTION_IMMEDIATE:-1}
EMU_PRIO=${REACTION_EMU_PRIO:-0}
EMU_CPU=${REACTION_EMU_CPU-0}
WAKER_NICE=${REACTION_WAKER_NICE:--20}
OUT=${BENCH_OUT:-$BUILD/bench-out}
TOPO="$REPO/tests/fixtures/topology/two-policies.ini"
POLICY1=/sys/devices/system/cpu/cpufreq/policy1
TRIGGER="$BUILD/bench/reaction-trigger"

[ "$(id -u)" -eq 0 ] || { echo "bench-reaction: run as root" >&2; exit 1; }
[ -x "$TRIGGER" ] || { echo "bench-reaction: $TRIGGER is missing (make BUILD=$BUILD all)" >&2; exit 1; }
for tool in stress-ng perf taskset setsid renice chrt; do
	command -v "$tool" >/dev/null || { echo "bench-reaction: $tool is missing" >&2; exit 1; }
done
mkdir -p "$OUT"
TMP=$(mktemp -d /tmp/schedfreqd-bench-reaction.XXXXXX)
at_exit '[ -n "${REACTION_KEEP_TMP:-}" ] || rm -rf "$TMP"'
at_exit 'peer_stop'

# --- background load on CPU 0 -------------------------------------------------------------------------------
LOAD_PIDS=()
load_start() {
	# Each in a session of its own (setsid execs in place: $! is the group leader), so that the whole group
	# (stress-ng's workers, messaging's 400 tasks) is stopped by its id.
	setsid taskset -c 0 stress-ng --switch 1 --timeout 0 >/dev/null 2>&1 </dev/null &
	LOAD_PIDS+=($!)
	setsid taskset -c 0 bash -c 'while :; do perf bench sched messaging -l 100000 >/dev/null 2>&1; done' </dev/null &
	LOAD_PIDS+=($!)
	# Running: both groups have their workers (bounded).
	wait_for '[ "$(pgrep -g "${LOAD_PIDS[0]}" | wc -l)" -ge 3 ] && [ "$(pgrep -g "${LOAD_PIDS[1]}" | wc -l)" -ge 40 ]' 10
}
load_stop() {
	local p
	for p in "${LOAD_PIDS[@]}"; do
		kill -TERM -- "-$p" 2>/dev/null
	done
	for p in "${LOAD_PIDS[@]}"; do
		wait_for '[ -z "$(pgrep -g "$p")" ]' 10 || kill -KILL -- "-$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	LOAD_PIDS=()
}
at_exit 'load_stop'

# --- one (governor, scenario, load) ---------------------------------------------------------------------------
# run_case GOV SCENARIO LOAD [SHOWCASE_MS]: appends to reaction.csv and reaction-redo.csv, and with SHOWCASE_MS
# to reaction-freq-a.csv; returns 1 if the trigger program failed.
run_case() {
	local gov=$1 s=$2 load=$3 showcase=${4:-0} n=$TRIALS bound=$BOUND_MS fall=$FALL_MS out rc
	if [ "$gov" = cpufreqd ]; then
		n=$TRIALS_CPUFREQD bound=$BOUND_MS_CPUFREQD fall=$FALL_MS_CPUFREQD
	fi
	out="$TMP/$gov.$s.$load"
	emu_exec "$TRIGGER" --scenario "$s" --log "$EMU_LOG" --freq-file "$POLICY1/scaling_cur_freq" --trials "$n" \
		--cpu 1 --waker-cpu 0 --policy 1 --low-khz "$LOW_KHZ" --max-khz "$MAX_KHZ" --bound-ms "$bound" \
		--fall-timeout-ms "$fall" --waker-nice "$WAKER_NICE" --showcase-ms "$showcase" >"$out" 2>"$out.err"
	rc=$?
	awk -v g="$gov" -v s="$s" -v l="$load" '$1 == "trial" {
		printf "%s,%s,%s,%d,%s,%s\n", g, s, l, $2, $5 < 0 ? -1 : sprintf("%.1f", $5 / 1000), $6 < 0 ? -1 : sprintf("%.1f", $6 / 1000) }' \
		"$out" >>"$OUT/reaction.csv"
	awk -v g="$gov" -v s="$s" -v l="$load" '$1 == "done" { split($2, a, "="); split($3, b, "="); split($4, c, "=")
		printf "%s,%s,%s,%d,%d,%d\n", g, s, l, a[2], b[2], c[2] }' "$out" >>"$OUT/reaction-redo.csv"
	awk -v g="$gov" '$1 == "step" { printf "%s,%.3f,%d\n", g, $2 / 1e6, $3 }' "$out" >>"$OUT/reaction-freq-a.csv"
	if [ $rc -ne 0 ]; then
		echo "bench-reaction: $gov, scenario $s, $load: reaction-trigger failed (exit $rc)" >&2
		sed 's/^/  /' "$out.err" >&2
		tail -n 20 "$PEER_DIR/log" 2>/dev/null | sed 's/^/  governor: /' >&2
		return 1
	fi
	return 0
}

applies() { # GOV SCENARIO: whether the pair runs
	[ "$1" = schedfreqd-local ] && [ "$2" != a ] && [ "$LOCAL_BC" != 1 ] && return 1
	return 0
}

# --- the summary ---------------------------------------------------------------------------------------------
# Percentiles by nearest rank over all trials, a miss counting as infinitely late (">bound" when one is hit).
summary() {
	awk -F, '
	FILENAME == ARGV[1] && FNR > 1 { k = $1 SUBSEP $2 SUBSEP $3; redo_nf[k] = $5; redo_r[k] = $6; next }
	FILENAME == ARGV[2] && FNR > 1 {
		k = $1 SUBSEP $2 SUBSEP $3
		if (!(k in n)) { order[++nk] = k }
		n[k]++; v[k, n[k]] = $5 < 0 ? 1e18 : $5 + 0; miss[k] += $5 < 0
		m[k, n[k]] = $6 < 0 ? 1e18 : $6 + 0
	}
	function sortk(k, arr, out,   i, j, t, c) {
		c = n[k]
		for (i = 1; i <= c; i++) out[i] = arr[k, i]
		for (i = 2; i <= c; i++) { t = out[i]; for (j = i - 1; j >= 1 && out[j] > t; j--) out[j + 1] = out[j]; out[j + 1] = t }
	}
	function pct(out, c, p,   i) { i = int(p * c + 0.999999); if (i < 1) i = 1; if (i > c) i = c; return out[i] }
	function fmt(x) { return x >= 1e18 ? "miss" : (x >= 10000 ? sprintf("%.0f", x) : sprintf("%.1f", x)) }
	function ratio(a, b) { return (a >= 1e18 || b >= 1e18 || b <= 0) ? "-" : sprintf("%.1f", a / b) }
	END {
		printf "%-17s %-3s %-7s %7s %6s %6s %10s %10s %10s %10s %10s %9s %9s\n", "governor", "sc", "load", "trials", "misses", "redos", \
			"p50_us", "p90_us", "p99_us", "max_us", "p50max_us", "p50/sfd", "p99/sfd"
		for (i = 1; i <= nk; i++) {
			k = order[i]; split(k, f, SUBSEP)
			delete s; sortk(k, v, s); c = n[k]
			p50[k] = pct(s, c, 0.5); p99[k] = pct(s, c, 0.99)
			p90 = pct(s, c, 0.9); mx = s[c]
			delete t; sortk(k, m, t); tm = pct(t, c, 0.5)
			base = "schedfreqd" SUBSEP f[2] SUBSEP f[3]
			printf "%-17s %-3s %-7s %7d %6d %6s %10s %10s %10s %10s %10s %9s %9s\n", f[1], f[2], f[3], c, miss[k], \
				(redo_nf[k] + redo_r[k]) "", fmt(p50[k]), fmt(p90), fmt(p99[k]), fmt(mx), fmt(tm), \
				(base in p50) ? ratio(p50[k], p50[base]) : "-", (base in p99) ? ratio(p99[k], p99[base]) : "-"
		}
		printf "\nremote vs forbidden in (a): schedfreqd-local / schedfreqd (target >= 10x)\n"
		for (i = 1; i <= nk; i++) {
			k = order[i]; split(k, f, SUBSEP)
			if (f[1] != "schedfreqd" || f[2] != "a") continue
			l = "schedfreqd-local" SUBSEP "a" SUBSEP f[3]
			if (l in p50) printf "  %-7s p50 %s us vs %s us: %sx; p99 %s us vs %s us: %sx\n", f[3], fmt(p50[k]), fmt(p50[l]), \
				ratio(p50[l], p50[k]), fmt(p99[k]), fmt(p99[l]), ratio(p99[l], p99[k])
		}
		printf "schedfreqd targets: p50 <= 100 us and p99 <= 500 us in (a)-(c), idle and loaded\n"
		for (i = 1; i <= nk; i++) {
			k = order[i]; split(k, f, SUBSEP)
			if (f[1] != "schedfreqd") continue
			printf "  %s %-7s p50 %s (%s), p99 %s (%s)\n", f[2], f[3], fmt(p50[k]), p50[k] <= 100 ? "met" : "MISSED", \
				fmt(p99[k]), p99[k] <= 500 ? "met" : "MISSED"
		}
		printf "cpufreqd / schedfreqd p50 (target >= 1000x):"
		for (i = 1; i <= nk; i++) {
			k = order[i]; split(k, f, SUBSEP)
			if (f[1] != "cpufreqd") continue
			base = "schedfreqd" SUBSEP f[2] SUBSEP f[3]
			if (base in p50) printf " %s/%s %sx;", f[2], f[3], ratio(p50[k], p50[base])
		}
		printf "\n"
	}' "$OUT/reaction-redo.csv" "$OUT/reaction.csv"
}

# --- main ----------------------------------------------------------------------------------------------------
t_start=$(date +%s)
echo "machine: $(nproc) CPUs, $(uname -r), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "reaction: trigger -> the first scaling_cur_freq set line of policy1 above its frequency at the trigger" \
	"(emulator's write log, CLOCK_MONOTONIC); p50max: trigger -> policy1 at scaling_max_freq; a miss: none" \
	"within the bound (${BOUND_MS} ms, cpufreqd ${BOUND_MS_CPUFREQD} ms); redos: trials redone because policy1" \
	"had not fallen to scaling_min_freq or rose before the trigger"
echo "trials: $TRIALS per governor, scenario and load (cpufreqd $TRIALS_CPUFREQD); scenarios: $SCENARIOS; loads: $LOADS" \
	"(loaded: stress-ng --switch 1 + perf bench sched messaging, both on CPU 0); governors: $GOVERNORS"
[ "$LOCAL_BC" = 1 ] || echo "schedfreqd-local runs in (a) only: in (b) and (c) it behaves as schedfreqd (local events)"

emu_start "$TOPO" || exit 1
if [ -n "$EMU_CPU" ]; then
	taskset -a -p -c "$EMU_CPU" "$EMU_PID" >/dev/null || { echo "bench-reaction: pinning the emulator failed" >&2; exit 1; }
fi
POLICY0=/sys/devices/system/cpu/cpufreq/policy0
if [ "$EMU_PRIO" -gt 0 ]; then # every thread (new ones inherit it); policy0 cannot move, so no feedback
	if ! emu_sh "cat $POLICY0/scaling_max_freq >$POLICY0/scaling_min_freq" || ! chrt -a -f -p "$EMU_PRIO" "$EMU_PID" >/dev/null; then
		echo "bench-reaction: emulator set-up failed" >&2
		exit 1
	fi
	EMU_SCHED="SCHED_FIFO $EMU_PRIO, policy0 held at $(emu_exec cat "$POLICY0/scaling_min_freq") kHz"
else
	for task in /proc/"$EMU_PID"/task/*; do
		renice -n -20 -p "${task##*/}" >/dev/null || { echo "bench-reaction: renice of the emulator failed" >&2; exit 1; }
	done
	EMU_SCHED="nice -20"
fi
LOW_KHZ=$(emu_exec cat "$POLICY1/scaling_min_freq")
MAX_KHZ=$(emu_exec cat "$POLICY1/scaling_max_freq")
echo "policy1: $LOW_KHZ-$MAX_KHZ kHz; emulator on CPU ${EMU_CPU:-any}, $EMU_SCHED; waker at nice $WAKER_NICE"

echo "governor,scenario,load,trial,latency_us,to_max_us" >"$OUT/reaction.csv"
echo "governor,t_ms,khz" >"$OUT/reaction-freq-a.csv"
echo "governor,scenario,load,trials,nofall,raised" >"$OUT/reaction-redo.csv"

rc=0
for load in $LOADS; do
	if [ "$load" = loaded ]; then
		load_start || { echo "bench-reaction: the background load did not start" >&2; rc=1; break; }
	fi
	for gov in $GOVERNORS; do
		t0=$(date +%s)
		peer_start "$gov" || { rc=1; continue; }
		for s in $SCENARIOS; do
			applies "$gov" "$s" || continue
			showcase=0
			[ "$s" = a ] && [ "$load" = idle ] && showcase=$SHOWCASE_MS
			run_case "$gov" "$s" "$load" "$showcase" || rc=1
		done
		peer_stop
		echo "  $load, $gov: $(($(date +%s) - t0)) s" >&2
	done
	# What it takes under load: the daemon with [events] wakeup = immediate (adaptive turns to watermark wake-ups
	# and the 4 ms drain timer above adaptive_threshold events/s, which the load exceeds).
	if [ "$load" = loaded ] && [ "$IMMEDIATE" = 1 ] && [[ " $GOVERNORS " == *" schedfreqd "* ]]; then
		t0=$(date +%s)
		printf '[events]\nwakeup = immediate\n' >"$TMP/immediate.conf"
		if peer_start schedfreqd "$TMP/immediate.conf"; then
			for s in $SCENARIOS; do
				run_case schedfreqd-immediate "$s" "$load" 0 || rc=1
			done
			peer_stop
		else
			rc=1
		fi
		echo "  $load, schedfreqd-immediate: $(($(date +%s) - t0)) s" >&2
	fi
	[ "$load" = loaded ] && load_stop
done
emu_stop

echo
summary
echo "wall time: $(($(date +%s) - t_start)) s; CSVs in $OUT"
exit $rc
