#!/bin/bash
# shellcheck disable=SC2016 # single-quoted code is run by sh -c, on purpose
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The kernel oracle harness (issue 9 item 7): for each workload, records the kernel's own PELT signals
# (pelt-oracle, BPF) and a `perf record` of the sched tracepoints of the same run, replays the trace through
# `schedfreqd replay --print-util` at a fixed maximum frequency, and compares the two (oracle-compare).
#
#   tests/oracle/run-oracle.sh [--short] [--build DIR] [--out DIR] [--schedfreqd PATH] [--workloads A,B,...]
#                              [--seconds S] [--warmup-ms MS] [--slack-us S] [--settled-us W] [--linger-ms MS]
#                              [--loaded] [--oracle-option OPT]...
#                              [--autogroup | --no-autogroup] [--max-util-p50 A] [--max-util-p90 B]
#
#   --build DIR       where pelt-oracle, oracle-compare and the helpers are (default: build)
#   --schedfreqd P    the schedfreqd whose model is compared (default: DIR/schedfreqd)
#   --out DIR         keep every artefact there (default: a new /tmp/schedfreqd-oracle.XXXXXX); per workload
#                     DIR/NAME/: kernel.txt (oracle), perf.data, trace.txt (perf script --ns, after a
#                     "# schedfreqd-session: pid=T sid=S" line per task alive at the start: sessions.txt),
#                     model.txt (replay),
#                     joined.txt (every compared pair), compare.txt, losses.txt (perf's LOST events, pelt-oracle's
#                     dropped records), logs; DIR/topology.ini; DIR/summary.tsv; DIR/environment.txt (kernel, the
#                     harness's session, autogroup, nice and cpu cgroup, the model's groups, the load average)
#   --short           ~1.2 s per workload and fewer workloads (p30 p100 storm migrate rt50 phase)
#   --workloads LIST  only these (names: p10 p30 p60 p90 p100 storm migrate rt50 phase)
#   --linger-ms MS    keep recording MS after the workload exits, and compare that too: how the signals decay
#                     once it is gone (default 1000; pelt-oracle --linger-ms)
#   --loaded          the loaded variant: while each workload runs (and lingers), CPU 0 carries the load of a
#                     build in another terminal: in a session of its own (setsid: another autogroup), a task at
#                     40 % of 10 ms and 100 short-lived children a second of 2 ms each (hog, storm), pinned to CPU 0
#   --autogroup, --no-autogroup
#                     the model with task groups (the topology's [system] autogroup = yes, daemon/model/demand-groups.c)
#                     or without; by default what this kernel does, by the rule `schedfreqd topology` uses
#                     (daemon/topology/autogroup.c, tests/lib-autogroup.sh): the model the live daemon runs here
#   --warmup-ms, --slack-us: passed to oracle-compare (skip the start of the window; compare each kernel record
#                     with the model's latest line up to S µs after it: the kernel updates PELT a few µs before
#                     the perf event that tells the model, which matters for util_est; default 0)
#   --settled-us W    passed to oracle-compare: leave out the kernel's records followed within W µs by another on
#                     their CPU, the steps inside one scheduler operation (a fork's update and attach, a grouped
#                     task's exit moving it to the root), and compare the state after it (default 0: every record)
#   --max-util-p50/--max-util-p90: exit 1 if a workload's util p50/p90 exceeds them
#   --oracle-option OPT
#                     one more option for pelt-oracle (repeatable): --new-groups (each new task's group cfs_rq),
#                     --group-entities (each group's entity on the root), lines the comparison skips
#
# Exit: 0 all compared (and within bounds if given), 1 a bound missed, 2 the harness itself failed (a recording,
# the replay or the comparison did not work).
#
# Workloads: pN = a task at N % duty of a 16 ms period pinned to CPU 1 (tests/helpers/hog); storm = a fork/exit
# storm (200 children/s, ~1 ms each; tests/helpers/storm); migrate = a busy task moved between CPU 0 and 1
# every 100 ms (tests/helpers/migrator); rt50 = a SCHED_FIFO task at 50 % of 16 ms on CPU 1 (tests/helpers/hog --fifo);
# phase = one process on CPU 1 whose duty cycle steps 20 → 50 → 80 → 100 → 0 → 40 % (hog --steps).
#
# This VM has no APERF/MPERF: the kernel's PELT is not frequency-invariant here, so the model is run at a fixed
# maximum frequency (one policy per CPU, every limit = 2 GHz): its clock_pelt then runs at wall speed too.
set -u

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=build
OUT=
SFD=
SHORT=0
WORKLOADS=
SECONDS_PER=
WARMUP_MS=0
SLACK_US=0
SETTLED_US=0
LINGER_MS=1000
LOADED=0
AUTOGROUP=
LOAD_PIDS=()
MAX_P50=
MAX_P90=
ORACLE_OPTIONS=()
EVENTS='sched:sched_switch,sched:sched_wakeup,sched:sched_wakeup_new,sched:sched_migrate_task,sched:sched_process_exit,sched:sched_stat_runtime'
# setsid() starts a session, and with autogroup a task group of its own (kernel/sched/autogroup.c,
# sched_autogroup_create_attach()): the model follows each task's group from it (daemon/model/demand-groups.c).
[ -d /sys/kernel/tracing/events/syscalls/sys_exit_setsid ] && EVENTS="$EVENTS,syscalls:sys_exit_setsid"
FMAX_KHZ=2000000
export PATH="$PATH:/usr/sbin:/sbin"

die() {
	echo "run-oracle: $*" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	--short) SHORT=1 ;;
	--build) BUILD=${2:?}; shift ;;
	--out) OUT=${2:?}; shift ;;
	--schedfreqd) SFD=${2:?}; shift ;;
	--workloads) WORKLOADS=${2:?}; shift ;;
	--seconds) SECONDS_PER=${2:?}; shift ;;
	--warmup-ms) WARMUP_MS=${2:?}; shift ;;
	--slack-us) SLACK_US=${2:?}; shift ;;
	--settled-us) SETTLED_US=${2:?}; shift ;;
	--linger-ms) LINGER_MS=${2:?}; shift ;;
	--loaded) LOADED=1 ;;
	--autogroup) AUTOGROUP=1 ;;
	--no-autogroup) AUTOGROUP=0 ;;
	--max-util-p50) MAX_P50=${2:?}; shift ;;
	--max-util-p90) MAX_P90=${2:?}; shift ;;
	--oracle-option) ORACLE_OPTIONS+=("${2:?}"); shift ;;
	-h | --help) sed -n '5,/^set -u/p' "$0" | sed -e '/^set -u/d' -e 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument: $1 (see --help)" ;;
	esac
	shift
done

case $BUILD in /*) ;; *) BUILD="$REPO/$BUILD" ;; esac
if [ -z "$AUTOGROUP" ]; then
	. "$REPO/tests/lib-autogroup.sh"
	AUTOGROUP=0
	[ "$(kernel_groups_by_session)" = yes ] && AUTOGROUP=1
fi
SFD=${SFD:-$BUILD/schedfreqd}
ORACLE="$BUILD/tests/oracle/pelt-oracle"
COMPARE="$BUILD/tests/oracle/oracle-compare"
HELPERS="$BUILD/tests/helpers"
for f in "$ORACLE" "$COMPARE" "$SFD" "$HELPERS/hog" "$HELPERS/storm" "$HELPERS/migrator"; do
	[ -x "$f" ] || die "$f is missing: build first (make BUILD=... all)"
done
command -v perf >/dev/null || die "perf is missing (linux-perf)"
[ "$(id -u)" -eq 0 ] || die "needs root (BPF and system-wide perf)"

if [ -z "$OUT" ]; then
	OUT=$(mktemp -d /tmp/schedfreqd-oracle.XXXXXX) || die "mktemp failed"
else
	mkdir -p "$OUT" || die "cannot create $OUT"
fi
OUT=$(cd "$OUT" && pwd)

if [ -z "$SECONDS_PER" ]; then
	if [ $SHORT = 1 ]; then SECONDS_PER=1.2; else SECONDS_PER=4; fi
fi
if [ -z "$WORKLOADS" ]; then
	if [ $SHORT = 1 ]; then WORKLOADS="p30,p100,storm,migrate,rt50,phase"
	else WORKLOADS="p10,p30,p60,p90,p100,storm,migrate,rt50,phase"; fi
fi

# The command line of a workload (tests/oracle/workloads.sh, shared with run-bpf-fidelity.sh).
. "$REPO/tests/oracle/workloads.sh"
workload_cmd() { # NAME
	oracle_workload_cmd "$1" "$SECONDS_PER"
}

# The topology: one policy per online CPU, every limit and the only table entry at FMAX_KHZ.
write_topology() { # FILE
	local online possible cpu
	online=$(cat /sys/devices/system/cpu/online) || return 1
	possible=$(cat /sys/devices/system/cpu/possible) || return 1
	{
		echo "# This machine at a fixed maximum frequency (no APERF/MPERF: the kernel's PELT is not frequency-scaled)."
		echo "[system]"
		echo "online = $online"
		echo "possible = $possible"
		[ $AUTOGROUP = 1 ] && echo "autogroup = yes"
		for cpu in $(cpus_of "$online"); do
			echo
			echo "[policy$cpu]"
			echo "cpus = $cpu"
			echo "driver = oracle-fixed"
			echo "cpuinfo_min_khz = $FMAX_KHZ"
			echo "cpuinfo_max_khz = $FMAX_KHZ"
			echo "scaling_min_khz = $FMAX_KHZ"
			echo "scaling_max_khz = $FMAX_KHZ"
			echo "frequencies_khz = $FMAX_KHZ"
			echo "transition_latency_ns = 0"
			echo "governor = schedutil"
		done
	} >"$1"
}

cpus_of() { # "0-3,5" -> "0 1 2 3 5"
	local part
	for part in ${1//,/ }; do
		case $part in
		*-*) seq "${part%-*}" "${part#*-}" ;;
		*) echo "$part" ;;
		esac
	done | tr '\n' ' '
}

# Starts perf record (events disabled) in the background; sets PERF_PID. tracefs is needed for the sched
# events' formats: where it is not mounted, perf runs in a private mount namespace that mounts it.
start_perf() { # DIR
	local dir=$1
	if [ -d /sys/kernel/tracing/events/sched ]; then
		perf record -q -k CLOCK_MONOTONIC -e "$EVENTS" -a -D -1 --control "fifo:$dir/ctl,$dir/ack" \
			-o "$dir/perf.data" </dev/null >"$dir/perf-record.log" 2>&1 &
	else
		unshare --mount --propagation private -- sh -c \
			'mount -t tracefs nodev /sys/kernel/tracing && exec perf record -q -k CLOCK_MONOTONIC -e "$0" -a "$@"' \
			"$EVENTS" -D -1 --control "fifo:$dir/ctl,$dir/ack" -o "$dir/perf.data" \
			</dev/null >"$dir/perf-record.log" 2>&1 &
	fi
	PERF_PID=$!
}

# Enables perf's events through its control FIFO and waits for the "ack" (bounded; gives up if perf dies).
enable_perf() { # CTL_FD ACK_FD
	local reply='' deadline=$((SECONDS + 30))
	echo enable >&"$1"
	while [ $SECONDS -lt $deadline ]; do
		if read -r -t 0.1 -u "$2" reply; then
			[ "$reply" = ack ] && return 0
		fi
		kill -0 "$PERF_PID" 2>/dev/null || return 1
	done
	return 1
}

stop_perf() {
	[ -n "${PERF_PID:-}" ] || return 0
	kill -INT "$PERF_PID" 2>/dev/null
	wait "$PERF_PID" 2>/dev/null
	PERF_PID=
}
# The loaded variant's background (--loaded): started before perf, so that its start is not in the comparison.
start_load() {
	local s
	[ $LOADED = 1 ] || return 0
	s=$(awk -v a="$SECONDS_PER" -v l="$LINGER_MS" 'BEGIN { printf "%.1f", a + l / 1000 + 30 }')
	setsid "$HELPERS/hog" --cpu 0 --seconds "$s" --duty 40 --period-ms 10 >/dev/null 2>&1 &
	LOAD_PIDS+=($!)
	setsid "$HELPERS/storm" --cpu 0 --seconds "$s" --rate 100 --run-ms 2 >/dev/null 2>&1 &
	LOAD_PIDS+=($!)
	sleep 0.5 # under way: its own start (two new sessions) is not what is compared
}

# Fields 6 (session) and 19 (nice) of a /proc/.../stat FILE into STAT_SID and STAT_NICE: counted after the ") "
# that ends the comm (field 2), which may hold blanks. Fails when the task is gone.
read_stat() { # FILE
	local line
	read -r line 2>/dev/null <"$1" || return 1
	# shellcheck disable=SC2086
	set -- ${line##*) }
	STAT_SID=$4 STAT_NICE=${17}
}

# Every live task's session as the recording starts: with autogroup a session is a task group
# (kernel/sched/autogroup.c), which the sched events do not name for tasks that started before the recording.
# One "TID SID" a line; the comment form replay reads is made from it after the recording (session_comments).
snapshot_sessions() { # FILE
	local f tid
	for f in /proc/[0-9]*/task/[0-9]*/stat; do
		read_stat "$f" || continue
		tid=${f%/stat}
		tid=${tid##*/}
		echo "$tid $STAT_SID"
	done >"$1"
}

stop_load() {
	local pid
	for pid in "${LOAD_PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null; done
	for pid in "${LOAD_PIDS[@]}"; do wait "$pid" 2>/dev/null; done
	LOAD_PIDS=()
}
trap 'stop_perf; stop_load' EXIT
trap 'stop_perf; stop_load; exit 130' INT TERM

TOPO="$OUT/topology.ini"
write_topology "$TOPO" || die "cannot write $TOPO"

# Where the recordings ran, for reading a result from another machine (a CI log): what decides the kernel's task
# groups for the workloads (they run in this harness's session: with autogroup its group, kernel/sched/autogroup.c;
# a cpu cgroup instead where the harness is in one), and the load as it started.
write_environment() { # FILE
	local cg
	read_stat /proc/$$/stat
	cg=$(awk -F: '$2 ~ /(^|,)cpu(,|$)/ || ($1 == 0 && $2 == "") { print $3; exit }' /proc/$$/cgroup)
	printf 'kernel %s; harness session %s (%s), nice %s, cpu cgroup %s; model groups %s; load %s\n' \
		"$(uname -r)" "$STAT_SID" "$(cat /proc/$$/autogroup 2>/dev/null | tr -s ' ' || echo 'no autogroup')" \
		"$STAT_NICE" "${cg:-?}" "$([ $AUTOGROUP = 1 ] && echo yes || echo no)" \
		"$(cut -d' ' -f1-3 /proc/loadavg)" >"$1"
}
write_environment "$OUT/environment.txt"
SUMMARY="$OUT/summary.tsv"
printf 'workload\tsignal\tn\tp50\tp90\tp99\tmax\tbias\n' >"$SUMMARY"

harness_failed=0
bound_failed=0

run_workload() { # NAME
	local name=$1 dir="$OUT/$1" cmd ctl ack rc
	cmd=$(workload_cmd "$name") || { echo "run-oracle: unknown workload $name" >&2; return 2; }
	rm -rf "$dir"
	mkdir -p "$dir"
	echo "$cmd" >"$dir/command"

	start_load
	# 1. perf, started disabled and enabled through its control FIFO: recording once "ack" is read.
	mkfifo "$dir/ctl" "$dir/ack" || return 2
	exec {ctl}<>"$dir/ctl" {ack}<>"$dir/ack" # read-write: opening never blocks, perf finds a peer
	start_perf "$dir"
	if ! enable_perf "$ctl" "$ack"; then
		echo "run-oracle: $name: perf record did not start: $(tail -n 5 "$dir/perf-record.log")" >&2
		stop_perf
		stop_load
		exec {ctl}>&- {ack}>&-
		return 2
	fi

	snapshot_sessions "$dir/sessions.txt"

	# 2. the oracle runs the workload once its programs are attached, and stops when the workload exits.
	# shellcheck disable=SC2086
	"$ORACLE" -o "$dir/kernel.txt" --stats --linger-ms "$LINGER_MS" ${ORACLE_OPTIONS[@]+"${ORACLE_OPTIONS[@]}"} \
		-- $cmd >"$dir/workload.log" 2>"$dir/oracle.log"
	rc=$?

	# 3. stop perf (and the load), then turn its data into text.
	stop_perf
	stop_load
	exec {ctl}>&- {ack}>&-
	rm -f "$dir/ctl" "$dir/ack"
	if [ $rc -ne 0 ]; then
		echo "run-oracle: $name: pelt-oracle or the workload failed ($rc): $(tail -n 5 "$dir/oracle.log")" >&2
		return 2
	fi
	[ -s "$dir/kernel.txt" ] || { echo "run-oracle: $name: the oracle recorded nothing" >&2; return 2; }
	# What either recorder lost: a recording with holes compares the model with less than the kernel saw.
	printf 'perf lost %s, oracle dropped %s\n' \
		"$(perf report -i "$dir/perf.data" --stats 2>/dev/null | awk '/LOST events:/ { n += $3 } END { print n + 0 }')" \
		"$(sed -n 's/.*; dropped \([0-9]*\);.*/\1/p' "$dir/oracle.log" | tail -n 1)" >"$dir/losses.txt"
	if ! perf script -i "$dir/perf.data" --ns >"$dir/trace.txt" 2>"$dir/perf-script.log" || [ ! -s "$dir/trace.txt" ]; then
		echo "run-oracle: $name: perf script failed: $(tail -n 5 "$dir/perf-script.log")" >&2
		return 2
	fi

	# The sessions of the tasks that existed before the recording, first, as replay reads them (trace-parse.h).
	if [ -s "$dir/sessions.txt" ]; then
		{
			awk '{ printf "# schedfreqd-session: pid=%s sid=%s\n", $1, $2 }' "$dir/sessions.txt"
			cat "$dir/trace.txt"
		} >"$dir/trace.tmp" && mv "$dir/trace.tmp" "$dir/trace.txt"
	fi

	# 4. the model, replaying the same run.
	if ! "$SFD" replay --print-util --topology "$TOPO" "$dir/trace.txt" >"$dir/model.txt" 2>"$dir/replay.log"; then
		echo "run-oracle: $name: schedfreqd replay --print-util failed: $(tail -n 5 "$dir/replay.log")" >&2
		return 2
	fi

	# 5. the comparison.
	local bounds=()
	[ -n "$MAX_P50" ] && bounds+=(--max-util-p50 "$MAX_P50")
	[ -n "$MAX_P90" ] && bounds+=(--max-util-p90 "$MAX_P90")
	"$COMPARE" --trace "$dir/trace.txt" --warmup-ms "$WARMUP_MS" --slack-us "$SLACK_US" --settled-us "$SETTLED_US" \
		--label "$name" --joined "$dir/joined.txt" \
		"${bounds[@]}" "$dir/kernel.txt" "$dir/model.txt" >"$dir/compare.txt" 2>"$dir/compare.log"
	rc=$?
	[ $rc -ge 2 ] && { echo "run-oracle: $name: oracle-compare failed: $(tail -n 5 "$dir/compare.log")" >&2; return 2; }
	awk 'NR > 1 { printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", $1, $2, $3, $4, $5, $6, $7, $8 }' "$dir/compare.txt" \
		>>"$SUMMARY"
	return $rc
}

for name in ${WORKLOADS//,/ }; do
	printf 'run-oracle: %-8s %s\n' "$name" "$(workload_cmd "$name" 2>/dev/null || echo '?')" >&2
	run_workload "$name"
	case $? in
	0) ;;
	1) bound_failed=1; echo "run-oracle: $name: util outside the bounds ($(tail -n 1 "$OUT/$name/compare.log"))" >&2 ;;
	*) harness_failed=1 ;;
	esac
	[ -f "$OUT/$name/oracle.log" ] && sed 's/^/    /' "$OUT/$name/oracle.log" >&2
done

echo
printf '%-10s %-9s %6s %6s %6s %8s %8s\n' workload signal p50 p90 p99 n bias
awk -F'\t' 'NR > 1 { printf "%-10s %-9s %6s %6s %6s %8s %8s\n", $1, $2, $4, $5, $6, $3, $8 }' "$SUMMARY"
echo "artefacts: $OUT"

[ $harness_failed = 1 ] && exit 2
[ $bound_failed = 1 ] && exit 1
exit 0
