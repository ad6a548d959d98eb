#!/bin/bash
# asan: yes
# SPDX-License-Identifier: GPL-2.0-or-later
#
# `schedfreqd replay` of real trace-cmd and tracefs recordings (issue #25): a short workload (short processes, the
# hog on CPU 1 for 0.3 s, short processes) recorded now with
#   trace-cmd record -B INSTANCE -e sched:sched_switch -e sched:sched_wakeup -e sched:sched_wakeup_new
#     -e sched:sched_migrate_task -e sched:sched_process_exit -- WORKLOAD
# into a private tracefs instance (never the top-level buffer, which other tests and tools may be using), then:
#   - the .dat replayed directly: exit 0, decisions in the documented format, policy1 at its maximum while the
#     hog ran;
#   - its `trace-cmd report -t` text (ns timestamps, the sched_switch plugin's forms) replayed: the same
#     decisions, line for line, as the .dat;
#   - its `trace-cmd report` text (µs): the same policies and frequencies in the same order, but for a few lines
#     (rounding to the µs moves events across rate-limit and PELT-period boundaries, as perf script's µs do);
#   - the .dat cut short: exit non-zero with "FILE: not a readable trace-cmd .dat"; with a topology of CPU 0
#     only: "FILE:record N: event recorded on CPU 1 is not in the topology (CPUs 0)";
#   - the tracefs `trace` file of another private instance around the same workload (`cat
#     /sys/kernel/tracing/instances/X/trace`): exit 0, every sched event line of it replayed.
# trace-cmd's options: -d leaves the function tracer alone and -k skips its resets at the end (both write
# files some kernels refuse, /proc/sys/kernel/ftrace_enabled and set_ftrace_filter: EPERM on this test VM's
# 6.18); the instance is removed here instead. Needs root and trace-cmd (scripts/install-deps).

. "$(dirname "$0")/lib.sh"

SFD=$SCHEDFREQD
HOG="$BUILD/tests/helpers/hog"
TOPO="$REPO/tests/fixtures/topology/two-policies.ini"
TRACING=/sys/kernel/tracing
MAX1=$(awk '/^\[policy1\]/ { p = 1; next } /^\[/ { p = 0 } p && $1 == "cpuinfo_max_khz" { print $3 }' "$TOPO")
EVENTS=(sched_switch sched_wakeup sched_wakeup_new sched_migrate_task sched_process_exit)
TMP=$(mktemp -d /tmp/schedfreqd-test-trace-cmd.XXXXXX)
INSTANCE="schedfreqd-test-$$"
at_exit 'rm -rf "$TMP"; for i in "$INSTANCE" "$INSTANCE-text"; do [ -d "$TRACING/instances/$i" ] && rmdir "$TRACING/instances/$i"; done'

if ! command -v trace-cmd >/dev/null; then
	skip "trace-cmd recordings" "trace-cmd is not installed (scripts/install-deps)"
	finish
fi
if [ ! -d "$TRACING/instances" ]; then
	skip "trace-cmd recordings" "no tracefs at $TRACING"
	finish
fi

workload="for i in 1 2 3; do /bin/true; taskset -c 1 /bin/true; done
'$HOG' --cpu 1 --seconds 0.3 >'$TMP/hog'
for i in 1 2 3; do /bin/true; taskset -c 1 /bin/true; done"
LINE_RE='^t=[0-9]+ policy=[0-9]+ freq=[0-9]+ cpu=[0-9]+ kind=(local|remote) util=[0-9]+'

# --- trace-cmd record into a private instance -----------------------------------------------------------------
args=()
for e in "${EVENTS[@]}"; do args+=(-e "sched:$e"); done
# trace-cmd saves /proc/kallsyms, whose size changes under it when BPF programs or modules come and go (other
# tests load them): "error in size of file '/proc/kallsyms'". A few tries.
record() {
	local try
	for try in 1 2 3; do
		rm -f "$TMP/run.dat" "$TMP/hog"
		(cd "$TMP" && trace-cmd record -q -B "$INSTANCE" -d -k -o "$TMP/run.dat" "${args[@]}" -- bash -c "$workload") \
			>"$TMP/record.out" 2>&1 && [ -s "$TMP/hog" ] && return 0
		[ -d "$TRACING/instances/$INSTANCE" ] && rmdir "$TRACING/instances/$INSTANCE"
	done
	return 1
}
if record; then
	ok "trace-cmd record -B $INSTANCE of the sched tracepoints around the hog"
else
	fail "trace-cmd record -B $INSTANCE of the sched tracepoints around the hog" "$(tail -n 20 "$TMP/record.out")"
	finish
fi
rmdir "$TRACING/instances/$INSTANCE" 2>/dev/null

if "$SFD" replay --kv --topology "$TOPO" "$TMP/run.dat" >"$TMP/dat.kv" 2>"$TMP/dat.err"; then
	n=$(wc -l <"$TMP/dat.kv")
	bad=$(grep -Evc "$LINE_RE" "$TMP/dat.kv")
	events=$(sed -n 's/^Summary: \([0-9]*\) events.*/\1/p' "$TMP/dat.err")
	if [ "$n" -ge 1 ] && [ "$bad" = 0 ] && [ "${events:-0}" -ge 100 ]; then
		ok "replay of the .dat: exit 0, $events events, $n decisions in the documented format"
	else
		fail "replay of the .dat: decisions in the documented format" "$n lines, $bad malformed, ${events:-?} events" \
			"$(head -n 20 "$TMP/dat.kv")" "$(cat "$TMP/dat.err")"
	fi
else
	fail "replay of the .dat: exit 0" "$(cat "$TMP/dat.err")"
fi

# policy1 at its maximum with the hog's load on CPU 1 (trace-cmd's clock, "local", is not the hog's
# CLOCK_MONOTONIC: the run is not placed in time, only its outcome asked for).
if grep -q " policy=1 freq=$MAX1 " "$TMP/dat.kv"; then
	ok "replay of the .dat: policy1 reaches its maximum ($MAX1 kHz) with the hog on CPU 1"
else
	fail "replay of the .dat: policy1 reaches its maximum ($MAX1 kHz) with the hog on CPU 1" \
		"$(grep ' policy=1 ' "$TMP/dat.kv" | tail -n 20)"
fi

# trace-cmd report -t: ns timestamps, as in the .dat: the same decisions exactly.
if trace-cmd report -t "$TMP/run.dat" >"$TMP/report-ns.txt" 2>"$TMP/report.err" &&
	"$SFD" replay --kv --topology "$TOPO" "$TMP/report-ns.txt" >"$TMP/report-ns.kv" 2>"$TMP/report-ns.err"; then
	if [ -s "$TMP/dat.kv" ] && cmp -s "$TMP/dat.kv" "$TMP/report-ns.kv"; then
		ok "trace-cmd report -t text: the .dat's decisions, line for line ($(wc -l <"$TMP/dat.kv"))"
	else
		fail "trace-cmd report -t text: the .dat's decisions, line for line" \
			"$(diff "$TMP/dat.kv" "$TMP/report-ns.kv" | head -n 20)"
	fi
else
	fail "trace-cmd report -t | replay: exit 0" "$(cat "$TMP/report.err" "$TMP/report-ns.err")"
fi

# trace-cmd report (µs): the reader takes a µs timestamp as the ns one it stands for. The model's decisions may move
# with the last three digits (a lag crossing 0 a few hundred ns earlier: one or two boundaries, or a new task's start
# and so a short burst, crossed differently; the .dat's decisions against these failed 2 runs in ~15), so the µs text
# is compared with the ns text rounded to µs as trace-cmd rounds (half up): the same values written as ns must give
# the same decisions, line for line, and the same number of events as the .dat.
cut_us() {
	perl -pe 's/(\d+)\.(\d{9}):/my ($s, $u) = ($1, int(($2 + 500) \/ 1000));
		if ($u >= 1000000) { $s++; $u -= 1000000 } sprintf("%d.%06d000:", $s, $u)/e'
}
if trace-cmd report "$TMP/run.dat" 2>/dev/null | "$SFD" replay --kv --topology "$TOPO" - >"$TMP/report-us.kv" 2>"$TMP/report-us.err" &&
	cut_us <"$TMP/report-ns.txt" | "$SFD" replay --kv --topology "$TOPO" - >"$TMP/report-cut.kv" 2>"$TMP/report-cut.err"; then
	events_dat=$(sed -n 's/^Summary: \([0-9]*\) events.*/\1/p' "$TMP/dat.err")
	events_us=$(sed -n 's/^Summary: \([0-9]*\) events.*/\1/p' "$TMP/report-us.err")
	if [ -s "$TMP/report-us.kv" ] && cmp -s "$TMP/report-cut.kv" "$TMP/report-us.kv" && [ "$events_us" = "$events_dat" ]; then
		ok "trace-cmd report text (µs): the ns text's decisions rounded to µs, line for line ($(wc -l <"$TMP/report-us.kv")), all $events_us events"
	else
		fail "trace-cmd report text (µs): the ns text's decisions rounded to µs, line for line, and the .dat's events" \
			"events: µs ${events_us:-?}, .dat ${events_dat:-?}" "$(diff "$TMP/report-cut.kv" "$TMP/report-us.kv" | head -n 20)"
	fi
else
	fail "trace-cmd report | replay -: exit 0" "$(cat "$TMP/report-us.err" "$TMP/report-cut.err")"
fi

# --- malformed .dat input -------------------------------------------------------------------------------------
head -c $(($(stat -c %s "$TMP/run.dat") - 4096)) "$TMP/run.dat" >"$TMP/cut.dat"
out=$("$SFD" replay --kv --topology "$TOPO" "$TMP/cut.dat" 2>&1)
rc=$?
if [ $rc -ne 0 ] && [[ "$out" == *"$TMP/cut.dat: not a readable trace-cmd .dat (truncated or corrupt"* ]]; then
	ok "a .dat cut short: exit $rc, FILE: not a readable trace-cmd .dat"
else
	fail "a .dat cut short: exit non-zero naming the file" "rc=$rc" "$out"
fi
"$REPO/bench/gen-topology.sh" 1 1 >"$TMP/one-cpu.ini"
out=$("$SFD" replay --kv --topology "$TMP/one-cpu.ini" "$TMP/run.dat" 2>&1)
rc=$?
if [ $rc -ne 0 ] && [[ "$out" =~ run\.dat:record\ [0-9]+:\ [^$'\n']*(CPU\ |_cpu=)[1-9][0-9]*\ is\ not\ in\ the\ topology\ \(CPUs\ 0\) ]]; then
	ok "a .dat with a CPU the topology lacks: FILE:record N naming both"
else
	fail "a .dat with a CPU the topology lacks: FILE:record N naming both" "rc=$rc" "$out"
fi

# --- the tracefs trace file of a private instance -------------------------------------------------------------
I="$TRACING/instances/$INSTANCE-text"
if mkdir "$I" 2>"$TMP/mkdir.err"; then
	for e in "${EVENTS[@]}"; do echo 1 >"$I/events/sched/$e/enable"; done
	echo 1 >"$I/tracing_on"
	bash -c "$workload"
	echo 0 >"$I/tracing_on"
	cat "$I/trace" >"$TMP/trace.txt"
	rmdir "$I"
	lines=$(grep -Ec ': sched_(switch|wakeup|wakeup_new|migrate_task|process_exit): ' "$TMP/trace.txt")
	if "$SFD" replay --kv --topology "$TOPO" "$TMP/trace.txt" >"$TMP/trace.kv" 2>"$TMP/trace.err"; then
		events=$(sed -n 's/^Summary: \([0-9]*\) events.*/\1/p' "$TMP/trace.err")
		if [ "$lines" -ge 100 ] && [ "$events" = "$lines" ] && [ -s "$TMP/trace.kv" ] &&
			! grep -Evq "$LINE_RE" "$TMP/trace.kv"; then
			ok "the tracefs trace file: exit 0, all $lines sched event lines replayed, $(wc -l <"$TMP/trace.kv") decisions"
		else
			fail "the tracefs trace file: every sched event line replayed" "$lines lines, ${events:-?} events" \
				"$(head -n 5 "$TMP/trace.kv")" "$(cat "$TMP/trace.err")"
		fi
	else
		fail "the tracefs trace file: exit 0" "$(cat "$TMP/trace.err")" "$(head -n 20 "$TMP/trace.txt")"
	fi
else
	skip "the tracefs trace file" "cannot create an instance: $(cat "$TMP/mkdir.err")"
fi

finish
