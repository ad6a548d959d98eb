#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/bench-scale.sh [BUILD]: how schedfreqd scales with the CPUs (issue #12, item 5). Root.
#
#   1. Start-up to READY: the daemon over an emulated 1024-CPU / 256-policy tree (bench/gen-topology.sh,
#      tests/emu), and over a 2-CPU / 2-policy one for reference, BENCH_SCALE_STARTUP_RUNS times each (one
#      emulator per tree, a fresh daemon per run). Timed from outside by bench/ready-timer: from just before its
#      fork() to the daemon's sd_notify READY=1 on the NOTIFY_SOCKET it listens on (the daemon sends READY once
#      every policy is taken over and the event loop runs). Also shown: the daemon's CPU time by READY, and the
#      emulator's (every sysfs access of the daemon is a FUSE request the emulator serves).
#   2. Replay throughput: `schedfreqd replay --topology` over synthetic traces (bench/gen-trace: every CPU
#      equally busy, 20,000 events/s each; switches, wake-ups, migrations, forks, exits) of BENCH_SCALE_EVENTS
#      events (default 5 M) for 2, 8, 64, 256 and 1024 CPUs (policies of 4 CPUs; 1 policy of 2 at 2 CPUs),
#      BENCH_SCALE_REPLAY_RUNS runs each (median wall time; the trace is read from a file in the page cache).
#      ns/event must stay flat as CPUs grow; when the largest point costs more than 1.25x the smallest, a
#      `perf record` of one replay at each end shows where the difference goes (top symbols).
# startup.csv: cpus,policies,run,ms        scale.csv: cpus,policies,events,seconds,events_per_s,ns_per_event
# Knobs: BENCH_SCALE_STARTUP_RUNS (7), BENCH_SCALE_EVENTS (5000000), BENCH_SCALE_REPLAY_RUNS (3),
# BENCH_SCALE_POINTS ("2:1 8:2 64:16 256:64 1024:256", CPUS:POLICIES), BENCH_SCALE_REPLAY (1; 0: the start-up part
# alone), BENCH_QUICK=1 (2 runs, 200k events).
set -u
# shellcheck disable=SC2016 # wait_for conditions are evaluated later, single quotes on purpose
BUILD=${1:-${BUILD:-build}}
export BUILD
. "$(dirname "$0")/../tests/integration/lib.sh"
. "$REPO/bench/lib-scale.sh"

QUICK=${BENCH_QUICK:-0}
STARTUP_RUNS=${BENCH_SCALE_STARTUP_RUNS:-7}
EVENTS=${BENCH_SCALE_EVENTS:-5000000}
REPLAY_RUNS=${BENCH_SCALE_REPLAY_RUNS:-3}
POINTS=${BENCH_SCALE_POINTS:-2:1 8:2 64:16 256:64 1024:256}
REPLAY=${BENCH_SCALE_REPLAY:-1}
if [ "$QUICK" = 1 ]; then
	STARTUP_RUNS=${BENCH_SCALE_STARTUP_RUNS:-2}
	EVENTS=${BENCH_SCALE_EVENTS:-200000}
	REPLAY_RUNS=${BENCH_SCALE_REPLAY_RUNS:-1}
fi
OUT=${BENCH_OUT:-$BUILD/bench-out}

[ "$(id -u)" -eq 0 ] || { echo "bench-scale: run as root" >&2; exit 1; }
for prog in schedfreqd cpufreq-emu bench/ready-timer bench/gen-trace; do
	[ -x "$BUILD/$prog" ] || { echo "bench-scale: $BUILD/$prog not built (make BUILD=$BUILD all)" >&2; exit 1; }
done
mkdir -p "$OUT"
TMP=$(mktemp -d /tmp/schedfreqd-bench-scale.XXXXXX) || exit 1
at_exit 'scale_daemon_stop; rm -rf "$TMP"'

# --- 1. start-up ---------------------------------------------------------------------------------------------
echo "cpus,policies,run,ms" >"$OUT/startup.csv"
startup_lines=()
for c in 2:2 1024:256; do
	cpus=${c%%:*} policies=${c##*:}
	scale_topology "$cpus" "$policies" "$TMP/topo.ini" || exit 1
	emu_start "$TMP/topo.ini" || exit 1
	: >"$TMP/ms" && : >"$TMP/cpu" && : >"$TMP/emucpu"
	for run in $(seq "$STARTUP_RUNS"); do
		emu0=$(scale_cpu_ms "$EMU_PID")
		scale_daemon_start "$TMP" || exit 1
		scale_cpu_ms "$SCALE_PID" >>"$TMP/cpu"
		echo $(($(scale_cpu_ms "$EMU_PID") - emu0)) >>"$TMP/emucpu"
		scale_daemon_stop
		echo "$cpus,$policies,$run,$SCALE_READY_MS" >>"$OUT/startup.csv"
		echo "$SCALE_READY_MS" >>"$TMP/ms"
		[ "$cpus" = 1024 ] && [ "$run" = 1 ] && taken=$(grep -c 'taken over from governor' "$TMP/log")
	done
	emu_stop
	startup_lines+=("$(printf '%6s %9s %5s %12s %12s %16s %14s' "$cpus" "$policies" "$STARTUP_RUNS" "$(median <"$TMP/ms")" \
		"$(sort -g "$TMP/ms" | tail -n 1)" "$(median <"$TMP/cpu")" "$(median <"$TMP/emucpu")")")
	[ "$cpus" = 1024 ] && ready_1024=$(median <"$TMP/ms")
done

# --- 2. replay throughput ------------------------------------------------------------------------------------
echo "cpus,policies,events,seconds,events_per_s,ns_per_event" >"$OUT/scale.csv"
scale_lines=()
first_ns='' last_ns='' first_point='' last_point=''
[ "$REPLAY" = 0 ] && POINTS=
for p in $POINTS; do
	cpus=${p%%:*} policies=${p##*:}
	scale_topology "$cpus" "$policies" "$TMP/topo-$cpus.ini" || exit 1
	"$BUILD/bench/gen-trace" --cpus "$cpus" --events "$EVENTS" >"$TMP/trace.txt" 2>"$TMP/gen.err" \
		|| { echo "bench-scale: gen-trace failed" >&2; cat "$TMP/gen.err" >&2; exit 1; }
	events=$(sed -n 's/.* events=\([0-9]*\) .*/\1/p' "$TMP/gen.err")
	cat "$TMP/trace.txt" >/dev/null # into the page cache for every run alike
	: >"$TMP/s"
	for run in $(seq "$REPLAY_RUNS"); do
		"$BUILD/bench/ready-timer" --no-ready -- "$SCHEDFREQD" replay --topology "$TMP/topo-$cpus.ini" "$TMP/trace.txt" \
			>"$TMP/replay.rt" 2>"$TMP/replay.err" \
			|| { echo "bench-scale: replay failed ($cpus CPUs)" >&2; cat "$TMP/replay.err" >&2; exit 1; }
		sed -n 's/.* wall_ms=\([0-9.]*\).*/\1/p' "$TMP/replay.rt" | tail -n 1 | awk '{ print $1 / 1000 }' >>"$TMP/s"
	done
	secs=$(median <"$TMP/s")
	line=$(awk -v c="$cpus" -v p="$policies" -v e="$events" -v s="$secs" \
		'BEGIN { printf "%d,%d,%d,%.3f,%.0f,%.1f", c, p, e, s, e / s, s * 1e9 / e }')
	echo "$line" >>"$OUT/scale.csv"
	ns=${line##*,}
	[ -z "$first_ns" ] && first_ns=$ns first_point=$p
	last_ns=$ns last_point=$p
	scale_lines+=("$(echo "$line" | awk -F, -v spans="$(sed -n 's/.* span_ms=\([0-9.]*\).*/\1/p' "$TMP/gen.err")" \
		'{ printf "%6s %9s %10s %10s %14s %10s %12s", $1, $2, $3, $4, $5, $6, spans }')")
done

# Not flat: where does the extra cost go? One profiled replay at each end (perf: linux-perf).
profile=
if [ -n "$first_ns" ] && awk -v a="$first_ns" -v b="$last_ns" 'BEGIN { exit !(b > 1.25 * a) }' && command -v perf >/dev/null; then
	for p in "$first_point" "$last_point"; do
		cpus=${p%%:*}
		"$BUILD/bench/gen-trace" --cpus "$cpus" --events $((EVENTS < 1000000 ? EVENTS : 1000000)) >"$TMP/trace.txt" 2>/dev/null
		perf record -q -o "$TMP/perf.data" -- "$SCHEDFREQD" replay --topology "$TMP/topo-$cpus.ini" "$TMP/trace.txt" \
			>/dev/null 2>&1
		profile+="$cpus CPUs, top symbols (self):"$'\n'
		profile+=$(perf report -i "$TMP/perf.data" --no-children --stdio --sort sym --percent-limit 2.5 2>/dev/null |
			grep -E '^ +[0-9]' | head -n 12)$'\n'
	done
fi
rm -f "$TMP/trace.txt" "$TMP/perf.data"

echo
echo "== scale: start-up to READY (sd_notify READY=1 on a NOTIFY_SOCKET, from before fork), ms"
scale_machine
printf '%6s %9s %5s %12s %12s %16s %14s\n' CPUs policies runs "median ms" "max ms" "daemon CPU ms" "emu CPU ms"
printf '%s\n' "${startup_lines[@]}"
echo "1024-CPU tree: ${taken:-?} of 256 policies taken over; perf events opened for the $(nproc) real CPUs only."
echo "target: <= 200 ms at 1024 CPUs / 256 policies: $ready_1024 ms, $(awk -v m="$ready_1024" 'BEGIN { print (m <= 200) ? "met" : "MISSED" }')"
if [ "$REPLAY" != 0 ]; then
	echo
	echo "== scale: schedfreqd replay of synthetic traces ($REPLAY_RUNS runs, median)"
	printf '%6s %9s %10s %10s %14s %10s %12s\n' CPUs policies events seconds events/s ns/event "trace ms"
	printf '%s\n' "${scale_lines[@]}"
	echo "flatness: ns/event at ${last_point%%:*} CPUs / at ${first_point%%:*}: $(awk -v a="$first_ns" -v b="$last_ns" 'BEGIN { printf "%.2f", b / a }')"
	awk -F, 'NR > 1 { if (min == "" || $5 < min) min = $5 } END { printf "target: >= 3 M events/s: slowest point %.2f M/s, %s\n", min / 1e6, (min >= 3e6 ? "met" : "MISSED") }' \
		"$OUT/scale.csv"
fi
[ -n "$profile" ] && printf '%s' "$profile"
echo "csv: $OUT/startup.csv $OUT/scale.csv"
