#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/bench-memory.sh [BUILD]: the daemon's peak RSS (VmHWM, /proc/PID/status) against the CPUs it governs
# and the live tasks it tracks (issue #12, item 4). Root; an emulated tree (tests/emu) in a private namespace.
#
#   - CPUs: the daemon over generated trees (bench/gen-topology.sh) of 2 CPUs / 2 policies (one CPU each),
#     64 / 16 and 1024 / 256 (four CPUs each), measured BENCH_MEM_SETTLE s after READY=1. The machine has
#     nproc real CPUs: perf refuses the others (EINVAL: cpu >= nr_cpu_ids, perf_event_open() in
#     kernel/events/core.c) and the daemon skips them (perf-events.c), so what grows with the tree is the
#     model and the policies, not the perf rings; the summary says how much the rings would add.
#   - Tasks: on the 2-CPU tree, bench/task-spawner holds 0, then BENCH_MEM_TASKS/4, /2 and BENCH_MEM_TASKS
#     sleeping processes (default 10,000); VmHWM after each step. Each is seen twice by the daemon: its fork
#     through the proc connector (the task-name table) and its first wake-up and switch through perf (the
#     model's task table). The check: the daemon's exit log counts at least BENCH_MEM_TASKS task names (it is
#     stopped while the tasks still live). Bytes per task = (VmHWM at N - VmHWM at 0) / N.
#   - Replay: `schedfreqd replay` peak RSS (wait4 ru_maxrss) over a 200k-event synthetic trace
#     (bench/gen-trace) of 2, 64 and 1024 CPUs: the model alone, with every CPU of the tree busy.
# memory.csv: case,cpus,tasks,peak_rss_kib (case: daemon, tasks, replay).
# Knobs: BENCH_MEM_TASKS (10000), BENCH_MEM_SETTLE (1 s), BENCH_QUICK=1 (1000 tasks, 0.2 s).
set -u
# shellcheck disable=SC2016 # wait_for conditions are evaluated later, single quotes on purpose
BUILD=${1:-${BUILD:-build}}
export BUILD
. "$(dirname "$0")/../tests/integration/lib.sh"
. "$REPO/bench/lib-scale.sh"

QUICK=${BENCH_QUICK:-0}
TASKS=${BENCH_MEM_TASKS:-10000}
SETTLE=${BENCH_MEM_SETTLE:-1}
if [ "$QUICK" = 1 ]; then
	TASKS=${BENCH_MEM_TASKS:-1000}
	SETTLE=${BENCH_MEM_SETTLE:-0.2}
fi
OUT=${BENCH_OUT:-$BUILD/bench-out}
CSV="$OUT/memory.csv"
CASES="2:2 64:16 1024:256"

[ "$(id -u)" -eq 0 ] || { echo "bench-memory: run as root" >&2; exit 1; }
for prog in schedfreqd cpufreq-emu bench/ready-timer bench/task-spawner bench/gen-trace; do
	[ -x "$BUILD/$prog" ] || { echo "bench-memory: $BUILD/$prog not built (make BUILD=$BUILD all)" >&2; exit 1; }
done
mkdir -p "$OUT"
TMP=$(mktemp -d /tmp/schedfreqd-bench-memory.XXXXXX) || exit 1
SPAWN_PID=
at_exit 'scale_daemon_stop; spawner_stop; rm -rf "$TMP"'

spawner_stop() {
	[ -n "$SPAWN_PID" ] || return 0
	exec {SPAWN_IN}>&- # end of input: it kills and reaps its children, then exits
	wait_for '! kill -0 "$SPAWN_PID" 2>/dev/null' 30 || kill -TERM "$SPAWN_PID" 2>/dev/null
	wait "$SPAWN_PID" 2>/dev/null
	SPAWN_PID=
}

echo "case,cpus,tasks,peak_rss_kib" >"$CSV"
row() { echo "$1,$2,$3,$4" >>"$CSV"; }
ring_pages=64 # the default ring_pages of conf/schedfreqd.conf, per CPU
rings_per_cpu_kib=$(((ring_pages + 1) * $(getconf PAGESIZE) / 1024))

summary=()
for c in $CASES; do
	cpus=${c%%:*} policies=${c##*:}
	scale_topology "$cpus" "$policies" "$TMP/topo.ini" || exit 1
	emu_start "$TMP/topo.ini" || exit 1
	scale_daemon_start "$TMP" || exit 1
	sleep "$SETTLE" # a measurement window after READY, not a synchronisation
	hwm=$(scale_status_kib "$SCALE_PID" VmHWM) rss=$(scale_status_kib "$SCALE_PID" VmRSS)
	opened=$(ls "/proc/$SCALE_PID/fd" | wc -l)
	# The rings' mappings: their size, and what of them counts in RSS (the kernel's pages are not the
	# process's own: vm_insert_page(), perf_mmap() in kernel/events/core.c).
	ring_kib=$(awk '/^[0-9a-f]+-[0-9a-f]+ / { perf = ($6 ~ /perf_event/) } perf && /^Size:/ { m += $2 } perf && /^Rss:/ { r += $2 }
		END { printf "%d KiB mapped, %d KiB of it in RSS", m, r }' "/proc/$SCALE_PID/smaps")
	row daemon "$cpus" 0 "$hwm"
	summary+=("$(printf '%-28s %6s %9s %12s %10s %8s' "daemon, $policies policies" "$cpus" 0 "$hwm" "$rss" "$opened")")
	echo "bench-memory: $cpus CPUs / $policies policies: VmHWM $hwm KiB, VmRSS $rss KiB, perf rings $ring_kib, $opened fds, ready in $SCALE_READY_MS ms"

	if [ "$cpus" = 2 ]; then
		# The task steps, with this daemon still running.
		coproc SPAWN { exec "$BUILD/bench/task-spawner"; }
		# SPAWN_PID is set by coproc
		exec {SPAWN_IN}>&"${SPAWN[1]}"
		exec {SPAWN_OUT}<&"${SPAWN[0]}"
		base=$hwm
		for n in 0 $((TASKS / 4)) $((TASKS / 2)) "$TASKS"; do
			echo "$n" >&"$SPAWN_IN"
			read -r -t 120 got <&"$SPAWN_OUT" || { echo "bench-memory: task-spawner did not reach $n" >&2; exit 1; }
			[ "$got" = "$n" ] || { echo "bench-memory: task-spawner holds $got, not $n" >&2; exit 1; }
			sleep "$SETTLE"
			hwm=$(scale_status_kib "$SCALE_PID" VmHWM)
			[ "$n" = 0 ] && base=$hwm
			row tasks 2 "$n" "$hwm"
			[ "$n" = 0 ] || summary+=("$(printf '%-28s %6s %9s %12s %10s %8s' "daemon, live tasks" 2 "$n" "$hwm" \
				"$(scale_status_kib "$SCALE_PID" VmRSS)" "$(ls "/proc/$SCALE_PID/fd" | wc -l)")")
		done
		top=$hwm
		scale_daemon_stop # while the tasks live: its last log line counts their names
		names=$(sed -n 's/.*rescans; \([0-9]*\) task names\..*/\1/p' "$TMP/log" | tail -n 1)
		spawner_stop
		if [ -z "$names" ] || [ "$names" -lt "$TASKS" ]; then
			echo "bench-memory: the daemon tracked ${names:-no} task names, fewer than the $TASKS live tasks" >&2
			exit 1
		fi
		bytes_per_task=$(((top - base) * 1024 / TASKS))
		echo "bench-memory: $TASKS live tasks: the daemon tracked $names task names (proc connector); VmHWM $base -> $top KiB, $bytes_per_task bytes per task"
	else
		scale_daemon_stop
	fi
	emu_stop
done

# Replay: the model alone, every CPU busy.
for c in $CASES; do
	cpus=${c%%:*} policies=${c##*:}
	scale_topology "$cpus" "$policies" "$TMP/topo.ini" || exit 1
	"$BUILD/bench/gen-trace" --cpus "$cpus" --events 200000 >"$TMP/trace.txt" 2>/dev/null || exit 1
	"$BUILD/bench/ready-timer" --no-ready -- "$SCHEDFREQD" replay --topology "$TMP/topo.ini" "$TMP/trace.txt" \
		>"$TMP/replay.rt" 2>"$TMP/replay.err" || { echo "bench-memory: replay failed" >&2; cat "$TMP/replay.err" >&2; exit 1; }
	kib=$(sed -n 's/.* maxrss_kib=\([0-9]*\).*/\1/p' "$TMP/replay.rt" | tail -n 1)
	row replay "$cpus" 0 "$kib"
	summary+=("$(printf '%-28s %6s %9s %12s %10s %8s' "replay, $policies policies" "$cpus" - "$kib" - -)")
done
rm -f "$TMP/trace.txt"

echo
echo "== memory: peak RSS of schedfreqd (VmHWM; replay: ru_maxrss)"
scale_machine
printf '%-28s %6s %9s %12s %10s %8s\n' "case" CPUs tasks "VmHWM KiB" "VmRSS KiB" fds
printf '%s\n' "${summary[@]}"
echo "bytes per live task: $bytes_per_task ((VmHWM at $TASKS - at 0) / $TASKS)"
echo "target: <= 8192 KiB at 2 CPUs with $TASKS tasks: $top KiB, $([ "$top" -le 8192 ] && echo met || echo MISSED)"
echo "note: perf opens rings only for the $(nproc) real CPUs (the others: EINVAL, skipped). A ring is $rings_per_cpu_kib KiB"
echo "      (ring_pages = $ring_pages + 1 header page) of kernel memory mapped into the daemon, not counted in its RSS"
echo "      (see the 'perf rings' lines above); at 1024 real CPUs, $((rings_per_cpu_kib * 1024 / 1024)) MiB of such locked memory."
echo "csv: $CSV"
