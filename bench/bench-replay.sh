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
# With BASE_BUILD (another build directory, e.g. of the previous commit in a worktree of its own), every replay is
# run with both builds in the same rounds, alternating which goes first, on the same files: the side by side that
# issue #25 asks for. Each run is timed for wall and CPU (user + sys, bash's `time`), and the medians are printed
# with events/s by each. SECONDS = 8 gives ~5 M events in the v6 .dat on a 2-vCPU VM.
# Prints the trace sizes, the medians, events/s and MB/s, and replay's time as a ratio of perf script's (below 1:
# replay keeps up with the pipe's producer). Needs root (perf -a), stress-ng and trace-cmd (without it the
# trace-cmd rows are left out).
# Usage: bench/bench-replay.sh [BUILD] [RUNS] [SECONDS] [BASE_BUILD]
set -u
BUILD=${1:-build}
RUNS=${2:-5}
SECS=${3:-3}
BASE=${4:-}
REPO=$(cd "$(dirname "$0")/.." && pwd)
SFD="$BUILD/schedfreqd"
BASE_SFD=${BASE:+$BASE/schedfreqd}
TOPO="$REPO/tests/fixtures/topology/two-policies.ini"
EVENTS='sched:sched_switch,sched:sched_wakeup,sched:sched_wakeup_new,sched:sched_migrate_task,sched:sched_process_exit'
TMP=$(mktemp -d /tmp/schedfreqd-bench-replay.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR == 0) { print "n/a"; exit } m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; print m }'; }

# The median of column COL of FILE.
median_col() { awk -v c="$1" '{ print $c }' "$2" | median; }

timed() { # OUT COMMAND...: appends "wall_s cpu_s" (cpu = user + sys) to OUT, fails if COMMAND failed
	local out=$1 TIMEFORMAT='%R %U %S'
	shift
	{ time "$@" >/dev/null 2>"$TMP/timed.err"; } 2>"$TMP/timed.t" || { cat "$TMP/timed.err" >&2; return 1; }
	awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }' "$TMP/timed.t" >>"$out"
}

# replay_pair RUN NAME TRACE [BASE_BIN]: `schedfreqd replay` of TRACE by BUILD (into NAME.t) and BASE_BUILD's
# (NAME.base.t; BASE_BIN, "" for none), the base first on odd runs, second on even ones.
replay_pair() {
	local run=$1 name=$2 trace=$3 base=${4-$BASE_SFD}
	if [ -n "$base" ] && [ $((run % 2)) -eq 1 ]; then
		timed "$TMP/$name.base.t" "$base" replay --topology "$TOPO" "$trace" || return 1
	fi
	timed "$TMP/$name.t" "$SFD" replay --topology "$TOPO" "$trace" || return 1
	if [ -n "$base" ] && [ $((run % 2)) -eq 0 ]; then
		timed "$TMP/$name.base.t" "$base" replay --topology "$TOPO" "$trace" || return 1
	fi
	return 0
}

# row LABEL EVENTS FILE: the medians of FILE's runs and the events/s by wall and by CPU time.
row() {
	awk -v l="$1" -v ev="$2" -v w="$(median_col 1 "$3")" -v c="$(median_col 2 "$3")" 'BEGIN {
		if (ev > 0) printf "%-44s %10.0f %9.0f %9.0f %14.0f %14.0f\n", l, ev, w * 1000, c * 1000, ev / w, ev / c
		else printf "%-44s %10s %9.0f %9.0f %14s %14s\n", l, "-", w * 1000, c * 1000, "-", "-"
	}'
}

# replay_rows LABEL EVENTS NAME: the build's row, and with BASE_BUILD the base's and the speed-up (medians).
replay_rows() {
	row "$1" "$2" "$TMP/$3.t"
	[ -s "$TMP/$3.base.t" ] || return 0
	row "  base build ($BASE)" "$2" "$TMP/$3.base.t"
	awk -v w="$(median_col 1 "$TMP/$3.t")" -v c="$(median_col 2 "$TMP/$3.t")" \
		-v bw="$(median_col 1 "$TMP/$3.base.t")" -v bc="$(median_col 2 "$TMP/$3.base.t")" \
		'BEGIN { printf "  speed-up over the base: %.2fx wall, %.2fx CPU\n", bw / w, bc / c }'
}

header() { printf "%-44s %10s %9s %9s %14s %14s\n" "" events "wall ms" "CPU ms" "events/s wall" "events/s CPU"; }

[ -x "$SFD" ] || { echo "bench-replay: $SFD not built (make)" >&2; exit 1; }
[ -z "$BASE_SFD" ] || [ -x "$BASE_SFD" ] || { echo "bench-replay: $BASE_SFD not built" >&2; exit 1; }
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

# trace-cmd record VERSION OUT: the same load into a private instance, the five events. Up to three tries: on the
# shared VM trace-cmd 3.1 now and then fails at the end with "error in size of file '/proc/kallsyms'" and "Error
# creating output file" (kallsyms changed size while it was copied: symbols come and go, e.g. BPF programs').
tc_record() {
	local inst="schedfreqd-bench-$$" rc try
	for try in 1 2 3; do
		(cd "$TMP" && trace-cmd record -q -B "$inst" -d -k -b 65536 --file-version "$1" -o "$2" \
			-e sched:sched_switch -e sched:sched_wakeup -e sched:sched_wakeup_new -e sched:sched_migrate_task \
			-e sched:sched_process_exit -- stress-ng --switch 2 --timeout "$SECS" -q) >"$TMP/tc-record.err" 2>&1
		rc=$?
		rmdir "/sys/kernel/tracing/instances/$inst" 2>/dev/null
		[ $rc -eq 0 ] && [ -s "$2" ] && return 0
		echo "bench-replay: trace-cmd record failed (try $try): $(tail -n 1 "$TMP/tc-record.err")" >&2
	done
	return 1
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

# a base build from before replay read perf.data (issue #25 item 1) has no perf.data row
BASE_DATA_SFD=$BASE_SFD
[ -z "$BASE_SFD" ] || "$BASE_SFD" replay --topology "$TOPO" "$TMP/big.data" >/dev/null 2>&1 || BASE_DATA_SFD=

for run in $(seq "$RUNS"); do
	timed "$TMP/perf-script.t" perf script -i "$TMP/big.data" || exit 1
	replay_pair "$run" replay "$TMP/big.txt" || exit 1
	timed "$TMP/cat.t" cat "$TMP/big.txt" || exit 1
	replay_pair "$run" replay-data "$TMP/big.data" "$BASE_DATA_SFD" || exit 1
	timed "$TMP/pipe.t" sh -c 'perf script -i "$1" 2>/dev/null | "$2" replay --topology "$3" -' sh "$TMP/big.data" "$SFD" \
		"$TOPO" || exit 1
	if [ -n "$TC" ]; then
		replay_pair "$run" v6 "$TMP/v6.dat" || exit 1
		replay_pair "$run" v7 "$TMP/v7.dat" || exit 1
		timed "$TMP/report.t" trace-cmd report -t "$TMP/v6.dat" || exit 1
		replay_pair "$run" v6-text "$TMP/v6.txt" || exit 1
	fi
done

echo "trace: $SECS s of stress-ng --switch 2, $events sched events in $lines lines, $((bytes / 1048576)) MiB; $changes decisions"
echo "runs: $RUNS, medians; build: $BUILD${BASE:+; base build: $BASE}; $(nproc) CPUs, $(uname -r)"
header
row "perf script (the pipe's producer)" "$events" "$TMP/perf-script.t"
replay_rows "schedfreqd replay FILE (perf script text)" "$events" replay
row "cat FILE" 0 "$TMP/cat.t"
replay_rows "schedfreqd replay perf.data" "$events" replay-data
row "perf script | schedfreqd replay -" "$events" "$TMP/pipe.t"
awk -v rp="$(median_col 1 "$TMP/replay.t")" -v ps="$(median_col 1 "$TMP/perf-script.t")" -v c="$(median_col 1 "$TMP/cat.t")" \
	-v d="$(median_col 1 "$TMP/replay-data.t")" -v p="$(median_col 1 "$TMP/pipe.t")" -v b="$bytes" 'BEGIN {
	printf "replay / perf script time: %.2f; replay %.1f MB/s, cat %.1f MB/s; replay perf.data / the pipe: %.2f\n",
		rp / ps, b / 1e6 / rp, b / 1e6 / c, d / p }'
[ -n "$TC" ] || exit 0
echo
echo "trace-cmd: $SECS s of stress-ng --switch 2: v6 .dat $v6_events events, $(($(stat -c %s "$TMP/v6.dat") / 1048576)) MiB" \
	"($(($(stat -c %s "$TMP/v6.txt") / 1048576)) MiB as trace-cmd report -t text); v7 .dat $v7_events events," \
	"$(($(stat -c %s "$TMP/v7.dat") / 1048576)) MiB"
header
replay_rows "schedfreqd replay v6.dat" "$v6_events" v6
replay_rows "schedfreqd replay v7.dat (zstd)" "$v7_events" v7
row "trace-cmd report -t v6.dat" "$v6_events" "$TMP/report.t"
replay_rows "schedfreqd replay v6.txt (report -t)" "$v6_events" v6-text
