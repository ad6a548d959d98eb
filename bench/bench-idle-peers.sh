#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck disable=SC2016 # conditions for wait_for are evaluated later, on purpose
#
# bench/bench-idle-peers.sh [BUILD]: each governor's own cost on a quiet machine, side by side (issue #12 item 3):
# wake-ups per second (context switches of all its threads) and CPU ms per second, measured by
# bench/bench-wakeups.c over IDLE_SECONDS (default 10) after IDLE_SETTLE_S (2) from the moment it governs,
# for nothing (the emulator alone), schedfreqd (defaults), the ondemand-style sampler and cpufreqd
# (bench/lib-peers.sh), IDLE_RUNS times (3) interleaved over the emulated tree
# (tests/fixtures/topology/two-policies.ini). Beside them the emulator's wake-ups (a governor's sysfs writes
# wake it) and the background: the machine-wide context-switch rate minus what the governor and the emulator
# account for (each wake-up is two switches, in and out), as bench/bench-idle.sh counts it. Each window waits
# (up to IDLE_QUIET_WAIT_S, 30 s) for a quiet machine (<= IDLE_QUIET_MAX, 150 ctxt/s over 1 s) and is marked
# noisy if it was not, or if the background was above IDLE_QUIET_MAX in it; medians over all windows and over
# the quiet ones. bench/bench-idle.sh compares builds of schedfreqd the same way, with more detail;
# `bench/bench-idle.sh peers BUILD [SECONDS [RUNS]]` runs this script.
#
# Output: ${BENCH_OUT:-BUILD/bench-out}/idle.csv
#   governor,run,wakeups_per_s,cpu_ms_per_s,emu_wakeups_per_s,background_ctxt_per_s,quiet
# and the summary on stdout. BENCH_QUICK=1: 1 run of 2 s windows, each waiting 3 s at most for quiet.
set -u
REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-build}
case $BUILD in /*) ;; *) BUILD="$REPO/$BUILD" ;; esac
. "$REPO/tests/integration/lib.sh"
. "$REPO/bench/lib-peers.sh"

if [ "${BENCH_QUICK:-0}" = 1 ]; then
	RUNS=${IDLE_RUNS:-1} SECS=${IDLE_SECONDS:-2} SETTLE_S=${IDLE_SETTLE_S:-1}
else
	RUNS=${IDLE_RUNS:-3} SECS=${IDLE_SECONDS:-10} SETTLE_S=${IDLE_SETTLE_S:-2}
fi
QUIET_MAX=${IDLE_QUIET_MAX:-150}
QUIET_WAIT_S=${IDLE_QUIET_WAIT_S:-$([ "${BENCH_QUICK:-0}" = 1 ] && echo 3 || echo 30)}
GOVERNORS=${IDLE_GOVERNORS:-none schedfreqd ondemand cpufreqd}
OUT=${BENCH_OUT:-$BUILD/bench-out}
mkdir -p "$OUT"
CSV="$OUT/idle.csv"
BW="$BUILD/bench/bench-wakeups"

machine_ctxt() { awk '$1 == "ctxt" { print $2 }' /proc/stat; }

quiet_gate() { # 1 if the machine got quiet within QUIET_WAIT_S, else 0
	local deadline=$((SECONDS + QUIET_WAIT_S)) c0 c1
	while :; do
		c0=$(machine_ctxt); sleep 1; c1=$(machine_ctxt)
		[ $((c1 - c0)) -le "$QUIET_MAX" ] && { echo 1; return; }
		[ "$SECONDS" -ge "$deadline" ] && { echo 0; return; }
	done
}

jfield() { # PID FIELD < JSON
	jq -r --argjson pid "$1" --arg f "$2" '.processes[] | select(.pid == $pid) | .[$f]'
}

one() { # RUN GOVERNOR
	# PEER_PID_MEASURED: peer_stop clears PEER_PID before the JSON is read.
	local run=$1 gov=$2 quiet out pids w=0 cpu=0 emu machine bg PEER_PID_MEASURED
	quiet=$(quiet_gate)
	if [ "$gov" != none ]; then
		peer_start "$gov" || return 1
		sleep "$SETTLE_S"
	fi
	pids=("$EMU_PID")
	PEER_PID_MEASURED=$PEER_PID
	[ "$gov" != none ] && pids+=("$PEER_PID")
	out=$("$BW" --seconds "$SECS" --json "${pids[@]}") || { echo "bench-idle-peers: measurement failed ($gov)" >&2; return 1; }
	[ "$gov" != none ] && peer_stop
	emu=$(jfield "$EMU_PID" wakeups_per_s <<<"$out")
	machine=$(jq -r .machine_ctxt_per_s <<<"$out")
	if [ "$gov" != none ]; then
		w=$(jfield "$PEER_PID_MEASURED" wakeups_per_s <<<"$out")
		cpu=$(jfield "$PEER_PID_MEASURED" cpu_ms_per_s <<<"$out")
	fi
	# Noisy too if the rest of the machine was busy in the window: its rate minus what the governor and the
	# emulator account for (each wake-up is two switches, in and out).
	bg=$(awk -v m="$machine" -v w="$w" -v e="$emu" 'BEGIN { printf "%.1f", m - 2 * (w + e) }')
	awk -v b="$bg" -v q="$QUIET_MAX" 'BEGIN { exit !(b > q) }' && quiet=0
	echo "$gov,$run,$w,$cpu,$emu,$bg,$quiet" >>"$CSV"
	printf '  run %d %-11s wake-ups/s %8.1f  CPU ms/s %6.2f  emulator wake-ups/s %7.1f  background ctxt/s %8.1f %s\n' \
		"$run" "$gov" "$w" "$cpu" "$emu" "$bg" "$([ "$quiet" = 1 ] || echo '(noisy)')"
}

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) { print "nan"; exit } print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
col() { awk -F, -v g="$1" -v c="$2" 'NR > 1 && $1 == g { print $c }' "$CSV"; }

[ "$(id -u)" -eq 0 ] || { echo "bench-idle-peers: run as root" >&2; exit 1; }
[ -x "$BW" ] || { echo "bench-idle-peers: $BW not built" >&2; exit 1; }
echo "governor,run,wakeups_per_s,cpu_ms_per_s,emu_wakeups_per_s,background_ctxt_per_s,quiet" >"$CSV"
emu_start "$REPO/tests/fixtures/topology/two-policies.ini" || exit 1
echo "machine: $(nproc) CPUs, $(uname -r), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "runs: $RUNS interleaved, ${SECS} s windows after ${SETTLE_S} s"
for run in $(seq 1 "$RUNS"); do
	for gov in $GOVERNORS; do
		one "$run" "$gov" || exit 1
	done
done
echo
printf '%-11s %12s %10s %18s %16s %8s %18s\n' governor wake-ups/s CPU_ms/s emulator_wake-ups/s background/s windows quiet:wake-ups/s
for gov in $GOVERNORS; do
	printf '%-11s %12.1f %10.2f %18.1f %16.1f %4s/%s quiet %10s\n' "$gov" "$(col "$gov" 3 | median)" "$(col "$gov" 4 | median)" \
		"$(col "$gov" 5 | median)" "$(col "$gov" 6 | median)" "$(col "$gov" 7 | grep -c 1)" "$(col "$gov" 7 | wc -l)" \
		"$(awk -F, -v g="$gov" 'NR > 1 && $1 == g && $7 == 1 { print $3 }' "$CSV" | median)"
done
echo "(medians over all windows; the last column over the quiet ones only)"
