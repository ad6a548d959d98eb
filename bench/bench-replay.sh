#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# `schedfreqd replay` throughput on a large real trace: SECONDS of `stress-ng --switch 2` (plus the default
# background of this machine) recorded system-wide with `perf record -k CLOCK_MONOTONIC` of the sched
# tracepoints, turned into text once with `perf script`, then, RUNS times and interleaved:
#   - `perf script` of the same perf.data to /dev/null (what produces replay's input in the documented pipe);
#   - `schedfreqd replay --topology two-policies.ini TRACE.txt` to /dev/null (the model alone, from a file);
#   - `cat TRACE.txt` to /dev/null (the floor: reading the text);
#   - `schedfreqd replay --topology two-policies.ini perf.data` (the binary file read directly, trace-perfdata.c);
#   - `perf script -i perf.data | schedfreqd replay -` (the text pipe end to end: what follows the recording).
# Then the same load recorded by trace-cmd (issue #25) into a private tracefs instance (trace-cmd record -B, -d -k
# as tests/integration/test-trace-cmd-replay.sh explains), twice: --file-version 6 (uncompressed) and trace-cmd's
# default (3.1: version 7, zstd-compressed), and RUNS times, interleaved:
#   - `schedfreqd replay` of each .dat (binary records, libtracecmd + tp-decode.c);
#   - `trace-cmd report -t` of the v6 .dat to /dev/null (the producer of the ftrace text) and replay of that text.
# Prints the trace sizes, the medians, events/s and MB/s for each, and replay's time as a ratio of perf
# script's (below 1: replay keeps up with the pipe's producer). Needs root (perf -a), stress-ng and trace-cmd
# (without it the trace-cmd rows are left out).
# Usage: bench/bench-replay.sh [BUILD] [RUNS] [SECONDS]
set -u
BUILD=${1:-build}
RUNS=${2:-5}
SECS=${3:-3}
REPO=$(cd "$(dirname "$0")/.." && pwd)
SFD="$BUILD/schedfreqd"
TOPO="$REPO/tests/fixtures/topology/two-policies.ini"
EVENTS='sched:sched_switch,sched:sched_wakeup,sched:sched_wakeup_new,sched:sched_migrate_task,sched:sched_process_exit'
TMP=$(mktemp -d /tmp/schedfreqd-bench-replay.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR == 0) { print "n/a"; exit } m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; print m }'; }

now_ns() { date +%s%N; }

timed() { # COMMAND...: prints the wall ns it took, fails if it failed
	local t0 t1
	t0=$(now_ns)
	"$@" >/dev/null 2>"$TMP/timed.err" || { cat "$TMP/timed.err" >&2; return 1; }
	t1=$(now_ns)
	echo $((t1 - t0))
}

[ -x "$SFD" ] || { echo "bench-replay: $SFD not built (make)" >&2; exit 1; }
command -v stress-ng >/dev/null || { echo "bench-replay: needs stress-ng" >&2; exit 1; }

record() {
	if [ -d /sys/kernel/tracing/events/sched ]; then
		perf record -q -m 4096 -k CLOCK_MONOTONIC -e "$EVENTS" -a "$@"
	else
		# tracefs not mounted: mount it in a private mount namespace only, nothing is left mounted
		unshare --mount --propagation private -- sh -c \
			'mount -t tracefs nodev /sys/kernel/tracing && exec perf record -q -m 4096 -k CLOCK_MONOTONIC -e "$0" -a "$@"' \
			"$EVENTS" "$@"
	fi
}

record -o "$TMP/big.data" -- stress-ng --switch 2 --timeout "$SECS" -q 2>"$TMP/record.err" \
	|| { echo "bench-replay: perf record failed" >&2; cat "$TMP/record.err" >&2; exit 1; }
perf script -i "$TMP/big.data" >"$TMP/big.txt" 2>/dev/null || { echo "bench-replay: perf script failed" >&2; exit 1; }

lines=$(wc -l <"$TMP/big.txt")
bytes=$(stat -c %s "$TMP/big.txt")
# perf script pads the event name when a trace holds several: "<time>:       sched:sched_switch: …"
events=$(grep -Ec ':[[:space:]]+sched:sched_(switch|wakeup|wakeup_new|migrate_task|process_exit):' "$TMP/big.txt")
changes=$("$SFD" replay --kv --topology "$TOPO" "$TMP/big.txt" 2>/dev/null | wc -l)

# trace-cmd record VERSION OUT: the same load into a private instance, the five events.
tc_record() {
	local inst="schedfreqd-bench-$$" rc
	(cd "$TMP" && trace-cmd record -q -B "$inst" -d -k -b 65536 --file-version "$1" -o "$2" \
		-e sched:sched_switch -e sched:sched_wakeup -e sched:sched_wakeup_new -e sched:sched_migrate_task \
		-e sched:sched_process_exit -- stress-ng --switch 2 --timeout "$SECS" -q) >"$TMP/tc-record.err" 2>&1
	rc=$?
	rmdir "/sys/kernel/tracing/instances/$inst" 2>/dev/null
	[ $rc -eq 0 ] && [ -s "$2" ]
}
TC=
if command -v trace-cmd >/dev/null && tc_record 6 "$TMP/v6.dat" && tc_record 7 "$TMP/v7.dat"; then
	TC=1
	trace-cmd report -t "$TMP/v6.dat" >"$TMP/v6.txt" 2>/dev/null
	# the .dat's events, as replay counts them (its summary on stderr with --kv)
	tc_events() { "$SFD" replay --kv --topology "$TOPO" "$1" 2>&1 >/dev/null | sed -n 's/^Summary: \([0-9]*\) events.*/\1/p'; }
	v6_events=$(tc_events "$TMP/v6.dat")
	v7_events=$(tc_events "$TMP/v7.dat")
else
	echo "bench-replay: no trace-cmd rows (trace-cmd missing or its recording failed: $(tail -n 2 "$TMP/tc-record.err" 2>/dev/null))" >&2
fi

for run in $(seq "$RUNS"); do
	timed perf script -i "$TMP/big.data" >>"$TMP/perf-script.ns" || exit 1
	timed "$SFD" replay --topology "$TOPO" "$TMP/big.txt" >>"$TMP/replay.ns" || exit 1
	timed cat "$TMP/big.txt" >>"$TMP/cat.ns" || exit 1
	timed "$SFD" replay --topology "$TOPO" "$TMP/big.data" >>"$TMP/replay-data.ns" || exit 1
	timed sh -c 'perf script -i "$1" 2>/dev/null | "$2" replay --topology "$3" -' sh "$TMP/big.data" "$SFD" "$TOPO" \
		>>"$TMP/pipe.ns" || exit 1
	if [ -n "$TC" ]; then
		timed "$SFD" replay --topology "$TOPO" "$TMP/v6.dat" >>"$TMP/v6.ns" || exit 1
		timed "$SFD" replay --topology "$TOPO" "$TMP/v7.dat" >>"$TMP/v7.ns" || exit 1
		timed trace-cmd report -t "$TMP/v6.dat" >>"$TMP/report.ns" || exit 1
		timed "$SFD" replay --topology "$TOPO" "$TMP/v6.txt" >>"$TMP/v6-text.ns" || exit 1
	fi
done

ps_ns=$(median <"$TMP/perf-script.ns")
rp_ns=$(median <"$TMP/replay.ns")
cat_ns=$(median <"$TMP/cat.ns")
data_ns=$(median <"$TMP/replay-data.ns")
pipe_ns=$(median <"$TMP/pipe.ns")
data_bytes=$(stat -c %s "$TMP/big.data")

echo "trace: $SECS s of stress-ng --switch 2, $events sched events in $lines lines, $((bytes / 1048576)) MiB; $changes decisions"
echo "runs: $RUNS, medians; build: $BUILD"
awk -v ps="$ps_ns" -v rp="$rp_ns" -v c="$cat_ns" -v ev="$events" -v b="$bytes" -v d="$data_ns" -v p="$pipe_ns" \
	-v db="$data_bytes" 'BEGIN {
	printf "%-34s %10s %14s %10s\n", "", "ms", "events/s", "MB/s"
	printf "%-34s %10.0f %14.0f %10.1f\n", "perf script (the pipe'\''s producer)", ps / 1e6, ev / (ps / 1e9), b / 1e6 / (ps / 1e9)
	printf "%-34s %10.0f %14.0f %10.1f\n", "schedfreqd replay FILE", rp / 1e6, ev / (rp / 1e9), b / 1e6 / (rp / 1e9)
	printf "%-34s %10.0f %14s %10.1f\n", "cat FILE", c / 1e6, "-", b / 1e6 / (c / 1e9)
	printf "%-34s %10.0f %14.0f %10.1f\n", "schedfreqd replay perf.data", d / 1e6, ev / (d / 1e9), db / 1e6 / (d / 1e9)
	printf "%-34s %10.0f %14.0f %10s\n", "perf script | schedfreqd replay -", p / 1e6, ev / (p / 1e9), "-"
	printf "replay / perf script time: %.2f; replay perf.data / the pipe: %.2f\n", rp / ps, d / p
}'
[ -n "$TC" ] || exit 0
echo
echo "trace-cmd: $SECS s of stress-ng --switch 2: v6 .dat $v6_events events, $(($(stat -c %s "$TMP/v6.dat") / 1048576)) MiB" \
	"($(($(stat -c %s "$TMP/v6.txt") / 1048576)) MiB as trace-cmd report -t text); v7 .dat $v7_events events," \
	"$(($(stat -c %s "$TMP/v7.dat") / 1048576)) MiB"
awk -v v6="$(median <"$TMP/v6.ns")" -v v7="$(median <"$TMP/v7.ns")" -v rep="$(median <"$TMP/report.ns")" \
	-v txt="$(median <"$TMP/v6-text.ns")" -v e6="$v6_events" -v e7="$v7_events" 'BEGIN {
	printf "%-34s %10s %14s\n", "", "ms", "events/s"
	printf "%-34s %10.0f %14.0f\n", "schedfreqd replay v6.dat", v6 / 1e6, e6 / (v6 / 1e9)
	printf "%-34s %10.0f %14.0f\n", "schedfreqd replay v7.dat (zstd)", v7 / 1e6, e7 / (v7 / 1e9)
	printf "%-34s %10.0f %14.0f\n", "trace-cmd report -t v6.dat", rep / 1e6, e6 / (rep / 1e9)
	printf "%-34s %10.0f %14.0f\n", "schedfreqd replay v6.txt (report -t)", txt / 1e6, e6 / (txt / 1e9)
}'
