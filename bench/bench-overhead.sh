#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck disable=SC2016 # conditions for wait_for are evaluated later, on purpose
#
# bench/bench-overhead.sh [BUILD]: what each governor costs the workloads it watches (issue #12 item 2). Two
# scheduler-heavy workloads, `perf bench sched messaging -l OVERHEAD_LOOPS` (wall time) and
# `stress-ng --switch 2 --timeout OVERHEAD_SWITCH_S --metrics-brief` (bogo ops/s), each run with nothing, with
# schedfreqd (defaults, remote = yes), with `perf record -a` of the same sched tracepoints to a file, with the
# ondemand-style sampler and with cpufreqd (bench/lib-peers.sh) over the emulated tree
# (tests/fixtures/topology/two-policies.ini). Interleaved: each of OVERHEAD_RUNS runs (default 5) cycles through
# every governor, so the VM's drifts hit all alike; medians, and slowdowns against nothing of the same run set.
# Also the governor's CPU time over each workload (utime + stime of its process, /proc/PID/stat) and, for
# schedfreqd, its CPU time per million events over its whole life in the run (events from its exit summary).
#
# Output: ${BENCH_OUT:-BUILD/bench-out}/overhead.csv
#   workload,governor,run,seconds,ops_per_s,gov_cpu_ms,events   (ops_per_s 0 for messaging; events: schedfreqd's
#   over the run's start-to-stop, written on its messaging row, else 0)
# and the summary table on stdout. BENCH_QUICK=1: 1 run, short workloads.
set -u
REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-build}
case $BUILD in /*) ;; *) BUILD="$REPO/$BUILD" ;; esac
. "$REPO/tests/integration/lib.sh"
. "$REPO/bench/lib-peers.sh"

if [ "${BENCH_QUICK:-0}" = 1 ]; then
	RUNS=${OVERHEAD_RUNS:-1} LOOPS=${OVERHEAD_LOOPS:-20} SWITCH_S=${OVERHEAD_SWITCH_S:-1}
else
	RUNS=${OVERHEAD_RUNS:-5} LOOPS=${OVERHEAD_LOOPS:-100} SWITCH_S=${OVERHEAD_SWITCH_S:-2}
fi
GOVERNORS=${OVERHEAD_GOVERNORS:-none schedfreqd perf-record ondemand cpufreqd}
OUT=${BENCH_OUT:-$BUILD/bench-out}
mkdir -p "$OUT"
CSV="$OUT/overhead.csv"
HZ_TICKS=$(getconf CLK_TCK)

cpu_ms() { # PID -> utime + stime in ms (0 without a process)
	[ -n "$1" ] && [ -r "/proc/$1/stat" ] || { echo 0; return; }
	awk -v hz="$HZ_TICKS" '{ sub(/.*\) /, ""); printf "%.0f\n", ($12 + $13) * 1000 / hz }' "/proc/$1/stat"
}

messaging() { # -> seconds
	perf bench sched messaging -l "$LOOPS" 2>/dev/null | awk '/Total time/ { print $3 }'
}

switching() { # -> bogo ops/s (real time)
	stress-ng --switch 2 --timeout "$SWITCH_S" --metrics-brief 2>&1 | awk '$4 == "switch" && $5 ~ /^[0-9]+$/ { print $9; exit }'
}

one() { # RUN GOVERNOR
	local run=$1 gov=$2 c0 c1 c2 secs ops events=0 total
	if [ "$gov" != none ]; then
		peer_start "$gov" || return 1
	fi
	c0=$(cpu_ms "$PEER_PID")
	secs=$(messaging)
	c1=$(cpu_ms "$PEER_PID")
	ops=$(switching)
	c2=$(cpu_ms "$PEER_PID")
	total=$c2
	if [ "$gov" != none ]; then
		peer_stop
		[ "$gov" = schedfreqd ] && events=$(peer_events)
	fi
	[ -n "$secs" ] && [ -n "$ops" ] || { echo "bench-overhead: a workload printed nothing ($gov, run $run)" >&2; return 1; }
	echo "messaging,$gov,$run,$secs,0,$((c1 - c0)),${events:-0}" >>"$CSV"
	echo "switch,$gov,$run,$SWITCH_S,$ops,$((c2 - c1)),0" >>"$CSV"
	echo "$gov $run $total ${events:-0}" >>"$TMP/life"
	printf '  run %d %-12s messaging %6.3f s  switch %10.0f ops/s  governor CPU %5d + %5d ms\n' "$run" "$gov" "$secs" "$ops" $((c1 - c0)) $((c2 - c1))
}

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) { print "nan"; exit } print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
col() { # WORKLOAD GOVERNOR COLUMN -> the values
	awk -F, -v w="$1" -v g="$2" -v c="$3" 'NR > 1 && $1 == w && $2 == g { print $c }' "$CSV"
}

[ "$(id -u)" -eq 0 ] || { echo "bench-overhead: run as root" >&2; exit 1; }
TMP=$(mktemp -d /tmp/schedfreqd-bench-overhead.XXXXXX)
at_exit 'rm -rf "$TMP"'
echo "workload,governor,run,seconds,ops_per_s,gov_cpu_ms,events" >"$CSV"
emu_start "$REPO/tests/fixtures/topology/two-policies.ini" || exit 1
echo "machine: $(nproc) CPUs, $(uname -r), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "runs: $RUNS interleaved; perf bench sched messaging -l $LOOPS; stress-ng --switch 2 --timeout $SWITCH_S"
for run in $(seq 1 "$RUNS"); do
	for gov in $GOVERNORS; do
		one "$run" "$gov" || exit 1
	done
done

base_s=$(col messaging none 4 | median)
base_ops=$(col switch none 5 | median)
echo
printf '%-12s %14s %9s %16s %9s %15s %15s %16s\n' governor messaging_s slowdown switch_ops/s slowdown gov_cpu_msg_ms gov_cpu_sw_ms cpu_ms_per_Mevents
for gov in $GOVERNORS; do
	s=$(col messaging "$gov" 4 | median)
	o=$(col switch "$gov" 5 | median)
	cm=$(col messaging "$gov" 6 | median)
	cs=$(col switch "$gov" 6 | median)
	per_m=-
	[ "$gov" = schedfreqd ] && per_m=$(awk '$1 == "schedfreqd" && $4 > 0 { print $3 * 1e6 / $4 }' "$TMP/life" | median)
	printf '%-12s %14.3f %8.1f%% %16.0f %8.1f%% %15s %15s %16s\n' "$gov" "$s" \
		"$(awk -v a="$s" -v b="$base_s" 'BEGIN { print 100 * (a / b - 1) }')" "$o" \
		"$(awk -v a="$o" -v b="$base_ops" 'BEGIN { print 100 * (b / a - 1) }')" "$cm" "$cs" "$per_m"
done
echo "(slowdown: median against none; for switch, none's ops/s over the governor's, minus 1)"
