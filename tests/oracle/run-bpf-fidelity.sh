#!/bin/bash
# shellcheck disable=SC2016 # single-quoted code is run by sh -c / wait_for, on purpose
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The BPF source against the kernel (issue #23 item 4): does the utilisation behind each decision of
# `schedfreqd --events=bpf` equal the kernel's own signals at that moment?
#
# The kernel oracle (pelt-oracle --all-classes --sched-events: root cfs_rq util_avg/util_est/runnable_avg, avg_rt,
# avg_dl, avg_irq of every CPU at each PELT update, and the whole rq read at each sched_switch/wakeup/migrate,
# CLOCK_MONOTONIC) is attached first, then the daemon (--events=bpf --print-decisions) over
# the emulated cpufreq (tests/integration/lib.sh emu_start, a private mount namespace), then the workloads run
# one after the other, each in its own time window. oracle-compare --decisions then takes every decision of a
# window, rebuilds the kernel's state of the policy's CPU from the oracle's records up to the decision's time, turns
# it into schedutil's utilisation as the BPF program does, and reports |daemon util - kernel| (docs/fidelity.md,
# "The BPF source against the kernel (issue #23)").
#
#   tests/oracle/run-bpf-fidelity.sh [--short] [--build DIR] [--out DIR] [--schedfreqd PATH] [--topology INI]
#                                    [--workloads A,B,...] [--seconds S] [--warmup-ms MS] [--max-p99 X] [--min-n N]
#
#   --build DIR       where pelt-oracle, oracle-compare, the helpers and cpufreq-emu are (default: build)
#   --schedfreqd P    the schedfreqd to run (default: DIR/schedfreqd)
#   --topology INI    the emulated tree (default: tests/fixtures/topology/two-policies.ini); one CPU per policy
#   --out DIR         keep every artefact there (default: a new /tmp/schedfreqd-bpf-fidelity.XXXXXX): kernel.txt
#                     (oracle), decisions.txt (the daemon's stdout), daemon.log, windows.txt (NAME FROM_NS TO_NS),
#                     per workload NAME/: joined.txt (every compared decision), compare.txt, compare.log, workload.log;
#                     summary.tsv (workload cmp n p50 p90 p99 max bias; cmp: all = every oracle record, pelt = PELT
#                     updates only, pelt-near = the PELT record nearer in time from either side, rt = reason=rt
#                     decisions; see oracle-compare.c) and rt.tsv (reason=rt decisions, at the maximum or not)
#   --short           2 s per workload, workloads p60 storm cgroup dl rt50 (the integration test)
#   --workloads LIST  only these; names: p10 p30 p60 p90 p100 (a task at N % of 16 ms on CPU 1), storm (fork/exit,
#                     200/s of 1 ms), migrate (a busy task moved between CPU 0 and 1 every 100 ms), rt50
#                     (SCHED_FIFO at 50 % on CPU 1), cgroup (p60 in a nested task group, a/b, cpu controller),
#                     dl (SCHED_DEADLINE 5 ms every 10 ms, busy 100 ms of every 200 so that avg_dl rises and falls
#                     and the frequency moves, unpinned: DL tasks cannot be)
#   --seconds S       per workload (default 4, --short 2)
#   --warmup-ms MS    skip each window's first MS ms (default 0)
#   --max-p99 X, --min-n N: exit 1 when a workload's "all" p99 |diff| exceeds X or fewer than N decisions were compared
#
# Exit: 0 compared (and within the bounds if given), 1 a bound missed, 2 the harness itself failed.
set -u

BUILD_ARG=build
OUT=
SFD_ARG=
TOPO_ARG=
SHORT=0
WORKLOADS=
SECONDS_PER=
WARMUP_MS=0
MAX_P99=
MIN_N=

die() {
	echo "run-bpf-fidelity: $*" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	--short) SHORT=1 ;;
	--build) BUILD_ARG=${2:?}; shift ;;
	--out) OUT=${2:?}; shift ;;
	--schedfreqd) SFD_ARG=${2:?}; shift ;;
	--topology) TOPO_ARG=${2:?}; shift ;;
	--workloads) WORKLOADS=${2:?}; shift ;;
	--seconds) SECONDS_PER=${2:?}; shift ;;
	--warmup-ms) WARMUP_MS=${2:?}; shift ;;
	--max-p99) MAX_P99=${2:?}; shift ;;
	--min-n) MIN_N=${2:?}; shift ;;
	-h | --help) sed -n '4,/^set -u/p' "$0" | sed -e '/^set -u/d' -e 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument: $1 (see --help)" ;;
	esac
	shift
done

# lib.sh: emu_start/emu_daemon_start and the cleanup at exit. The daemon is run as given (no event-source or
# valgrind wrapper: --events=bpf is passed here).
unset SCHEDFREQD_EVENTS SCHEDFREQD_VALGRIND
EMU_DAEMON_WRAP=
BUILD=$BUILD_ARG
# shellcheck source=tests/integration/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../integration/lib.sh"
# lib.sh's exit trap turns every failure into 1; this script's 2 (the harness failed) is kept.
# shellcheck disable=SC2317 # called by the trap
exit_keeping_status() {
	local st=$?
	lib_cleanup
	exit "$st"
}
trap exit_keeping_status EXIT
[ -n "$SFD_ARG" ] && SCHEDFREQD=$SFD_ARG
TOPO=${TOPO_ARG:-$REPO/tests/fixtures/topology/two-policies.ini}
ORACLE="$BUILD/tests/oracle/pelt-oracle"
COMPARE="$BUILD/tests/oracle/oracle-compare"
HELPERS="$BUILD/tests/helpers"
for f in "$ORACLE" "$COMPARE" "$SCHEDFREQD" "$BUILD/cpufreq-emu" "$HELPERS/hog" "$HELPERS/storm" \
	"$HELPERS/migrator" "$HELPERS/monotonic"; do
	[ -x "$f" ] || die "$f is missing: build first (make BUILD=... all)"
done
[ -f "$TOPO" ] || die "$TOPO: no such topology"
[ "$(id -u)" -eq 0 ] || die "needs root (BPF, the emulator's mount namespace)"

if [ -z "$OUT" ]; then
	OUT=$(mktemp -d /tmp/schedfreqd-bpf-fidelity.XXXXXX) || die "mktemp failed"
else
	mkdir -p "$OUT" || die "cannot create $OUT"
fi
OUT=$(cd "$OUT" && pwd)
if [ -z "$SECONDS_PER" ]; then
	if [ $SHORT = 1 ]; then SECONDS_PER=2; else SECONDS_PER=4; fi
fi
if [ -z "$WORKLOADS" ]; then
	if [ $SHORT = 1 ]; then WORKLOADS="p60,storm,cgroup,dl,rt50"
	else WORKLOADS="p10,p30,p60,p90,p100,storm,migrate,rt50,cgroup,dl"; fi
fi
MAX_KHZ=$(awk -F' *= *' '$1 == "cpuinfo_max_khz" && $2 + 0 > m { m = $2 + 0 } END { print m + 0 }' "$TOPO")

# The nested task group of the cgroup workload: cgroup v2 with the cpu controller enabled down to it, or the
# cgroup v1 cpu hierarchy (hybrid systems such as this VM, where the cpu controller is bound to v1).
CG_TOP=
cgroup_setup() {
	local top
	if grep -qw cpu /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
		top=/sys/fs/cgroup/schedfreqd-fidelity.$$
		mkdir -p "$top/a/b" || return 1
		CG_TOP=$top
		grep -qw cpu /sys/fs/cgroup/cgroup.subtree_control || echo +cpu >/sys/fs/cgroup/cgroup.subtree_control || return 1
		echo +cpu >"$top/cgroup.subtree_control" && echo +cpu >"$top/a/cgroup.subtree_control" || return 1
		CG_LEAF=$top/a/b
		CG_KIND="cgroup v2 (+cpu)"
	elif [ -w /sys/fs/cgroup/cpu/cgroup.procs ]; then
		top=/sys/fs/cgroup/cpu/schedfreqd-fidelity.$$
		mkdir -p "$top/a/b" || return 1
		CG_TOP=$top
		CG_LEAF=$top/a/b
		CG_KIND="cgroup v1 cpu hierarchy"
	else
		return 1
	fi
}
cgroup_teardown() {
	[ -n "$CG_TOP" ] || return 0
	rmdir "$CG_TOP/a/b" "$CG_TOP/a" "$CG_TOP" 2>/dev/null
	CG_TOP=
}
at_exit cgroup_teardown

# The command line of a workload: run-oracle.sh's (tests/oracle/workloads.sh), and two of this harness's own.
. "$REPO/tests/oracle/workloads.sh"
workload_cmd() { # NAME
	local s=$SECONDS_PER
	case $1 in
	cgroup) echo "sh -c 'echo \$\$ >$CG_LEAF/cgroup.procs && exec $HELPERS/hog --cpu 1 --seconds $s --duty 60 --period-ms 16'" ;;
	dl) echo "chrt -d --sched-runtime 5000000 --sched-deadline 10000000 --sched-period 10000000 0 $HELPERS/hog --seconds $s --duty 50 --period-ms 200" ;;
	*) oracle_workload_cmd "$1" "$s" ;;
	esac
}
case ",$WORKLOADS," in
*,cgroup,*) cgroup_setup || die "cannot make a nested task group (cgroup v2 with the cpu controller, or v1's cpu hierarchy)" ;;
esac
for name in ${WORKLOADS//,/ }; do
	workload_cmd "$name" >/dev/null || die "unknown workload $name (see --help)"
done

# 1. The oracle first: on a tracepoint both use, the program attached first runs first, so the oracle's record of
# a PELT update is stamped before the decision taken at that same update.
: >"$OUT/none.conf"
rm -f "$OUT/kernel.txt"
"$ORACLE" -o "$OUT/kernel.txt" --all-classes --sched-events --stats >"$OUT/oracle.out" 2>"$OUT/oracle.log" &
ORACLE_PID=$!
at_exit '[ -n "${ORACLE_PID:-}" ] && kill -INT "$ORACLE_PID" 2>/dev/null && wait "$ORACLE_PID" 2>/dev/null'
wait_for '[ -e "$OUT/kernel.txt" ] || ! kill -0 "$ORACLE_PID" 2>/dev/null' 20
[ -e "$OUT/kernel.txt" ] || die "pelt-oracle did not start: $(tail -n 5 "$OUT/oracle.log")"

# 2. The emulated tree and the daemon on the BPF source.
emu_start "$TOPO" || die "the emulator did not start"
if ! emu_daemon_start "$OUT/state" "$OUT/none.conf" "$OUT/daemon.log" "$OUT/decisions.txt" --print-decisions \
	--events=bpf || ! grep -q 'Event source: bpf' "$OUT/daemon.log"; then
	die "the daemon did not start on the BPF source: $(tail -n 10 "$OUT/daemon.log")"
fi

# 3. The workloads, one window each.
: >"$OUT/windows.txt"
for name in ${WORKLOADS//,/ }; do
	cmd=$(workload_cmd "$name")
	mkdir -p "$OUT/$name"
	echo "$cmd" >"$OUT/$name/command"
	printf 'run-bpf-fidelity: %-8s %s\n' "$name" "$cmd" >&2
	from=$("$HELPERS/monotonic")
	sh -c "exec $cmd" >"$OUT/$name/workload.log" 2>&1
	rc=$?
	to=$("$HELPERS/monotonic")
	[ $rc -eq 0 ] || die "$name: the workload failed ($rc): $(tail -n 5 "$OUT/$name/workload.log")"
	echo "$name $from $to" >>"$OUT/windows.txt"
	sleep 0.2
done

# 4. Stop the daemon (its decisions are flushed), then the oracle (its last records are drained).
emu_daemon_stop
emu_stop
kill -INT "$ORACLE_PID" 2>/dev/null
wait "$ORACLE_PID"
rc=$?
ORACLE_PID=
[ $rc -eq 0 ] || die "pelt-oracle failed ($rc): $(tail -n 5 "$OUT/oracle.log")"
cgroup_teardown
grep -q 'records dropped\|dropped [1-9]' "$OUT/oracle.log" && echo "run-bpf-fidelity: warning: $(cat "$OUT/oracle.log")" >&2
grep -q '^t=.* source=bpf' "$OUT/decisions.txt" || die "the daemon printed no decision: $(tail -n 10 "$OUT/daemon.log")"

# 5. The comparison, per window.
printf 'workload\tcmp\tn\tp50\tp90\tp99\tmax\tbias\n' >"$OUT/summary.tsv"
printf 'workload\trt_decisions\tnot_at_max\n' >"$OUT/rt.tsv"
bounds=()
[ -n "$MAX_P99" ] && bounds+=(--max-p99 "$MAX_P99")
[ -n "$MIN_N" ] && bounds+=(--min-n "$MIN_N")
harness_failed=0
bound_failed=0
while read -r name from to; do
	"$COMPARE" --decisions --from "$from" --to "$to" --warmup-ms "$WARMUP_MS" --label "$name" \
		--joined "$OUT/$name/joined.txt" "${bounds[@]}" "$OUT/kernel.txt" "$OUT/decisions.txt" \
		>"$OUT/$name/compare.txt" 2>"$OUT/$name/compare.log"
	case $? in
	0) ;;
	1) bound_failed=1; echo "run-bpf-fidelity: $name: $(grep -v ' decisions, ' "$OUT/$name/compare.log" | tr '\n' ' ')" >&2 ;;
	*) harness_failed=1; echo "run-bpf-fidelity: $name: oracle-compare failed: $(tail -n 3 "$OUT/$name/compare.log")" >&2; continue ;;
	esac
	awk 'NR > 1 { printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", $1, $2, $3, $4, $5, $6, $7, $8 }' "$OUT/$name/compare.txt" \
		>>"$OUT/summary.tsv"
	# reason=rt: the RT class's min bound (its CPU "at max while an RT task is runnable") decides, not util.
	awk -v w="$name" -v a="$from" -v b="$to" -v m="$MAX_KHZ" '/^t=/ && / reason=rt / {
		t = substr($1, 3) + 0; if (t < a || t > b) next; n++; split($3, f, "="); if (f[2] + 0 != m) x++ }
		END { printf "%s\t%d\t%d\n", w, n, x }' "$OUT/decisions.txt" >>"$OUT/rt.tsv"
	sed 's/^oracle-compare: /    /' "$OUT/$name/compare.log" | grep ' decisions, ' >&2
done <"$OUT/windows.txt"

echo
printf '%-9s %-8s %6s %5s %5s %5s %5s %7s\n' workload cmp n p50 p90 p99 max bias
awk -F'\t' 'NR > 1 { printf "%-9s %-8s %6s %5s %5s %5s %5s %7s\n", $1, $2, $3, $4, $5, $6, $7, $8 }' "$OUT/summary.tsv"
awk -F'\t' 'NR > 1 && $2 > 0 { printf "%s: %d reason=rt decisions, %d not at %s kHz\n", $1, $2, $3, m }' \
	m="$MAX_KHZ" "$OUT/rt.tsv"
[ -n "${CG_KIND:-}" ] && echo "cgroup workload: a task group two levels down, $CG_KIND"
echo "artefacts: $OUT"

[ $harness_failed = 1 ] && exit 2
[ $bound_failed = 1 ] && exit 1
exit 0
