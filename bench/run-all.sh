#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/run-all.sh [BUILD]: the benchmark set of issue #12 (`make bench`, root, ~15 minutes on a 2-vCPU VM), one
# part after another so that no part loads the machine under another:
#
#   bench-reaction.sh   reaction latency per governor, scenarios (a)-(c), idle and loaded
#   bench-overhead.sh   workload slowdown and governor CPU time (messaging, stress-ng --switch)
#   bench-idle-peers.sh each governor's own wake-ups and CPU time on a quiet machine
#   bench-memory.sh     peak RSS against CPUs and live tasks
#   bench-scale.sh      start-up at 1024 CPUs, replay cost per event against CPUs
#
# CSVs go to BENCH_OUT (default BUILD/bench-out), each part's summary to BENCH_OUT/NAME.txt as well as stdout,
# and the plots to BENCH_PLOTS (default docs/bench/). BENCH_PARTS="reaction idle-peers" runs only those parts
# (the idle part goes first by default: it wants a quiet machine).
# BENCH_QUICK=1 makes each part a ~30 s smoke run (never for published figures).
set -u
REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-build}
case $BUILD in /*) ;; *) BUILD="$REPO/$BUILD" ;; esac
export BENCH_OUT=${BENCH_OUT:-$BUILD/bench-out}
PLOTS=${BENCH_PLOTS:-$REPO/docs/bench}
PARTS=${BENCH_PARTS:-idle-peers reaction overhead memory scale}
[ "$(id -u)" -eq 0 ] || { echo "bench: run as root (perf events, a private mount namespace)" >&2; exit 1; }
mkdir -p "$BENCH_OUT"
# Another governor (or a second schedfreqd, whose wake-ups are this one's events and the other way round)
# would be measured along: refuse rather than publish its noise.
others=$(pgrep -a -x 'schedfreqd|cpufreqd|ondemand-sampler|tuned|auto-cpufreq' 2>/dev/null)
if [ -n "$others" ]; then
	echo "bench: another governor is running; stop it first:" >&2
	echo "$others" | sed 's/^/  /' >&2
	exit 1
fi

rc=0
echo "bench: $(date -u '+%F %T') UTC, $(nproc) CPUs, $(uname -r), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), commit $(git -C "$REPO" describe --always --dirty 2>/dev/null)"
for part in $PARTS; do
	t0=$(date +%s)
	echo "== bench-$part.sh $BUILD"
	bash "$REPO/bench/bench-$part.sh" "$BUILD" 2>&1 | tee "$BENCH_OUT/$part.txt"
	r=${PIPESTATUS[0]}
	echo "== bench-$part.sh: exit $r, $(($(date +%s) - t0)) s"
	[ "$r" -eq 0 ] || rc=1
done
bash "$REPO/bench/plot-bench.sh" "$BENCH_OUT" "$PLOTS" || rc=1
exit $rc
