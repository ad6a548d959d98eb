#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck disable=SC2016 # conditions for wait_for and at_exit are evaluated later, on purpose
#
# bench/bench-sources.sh: the two event sources side by side in one run (issue #23 item 5): what each costs the
# workload it watches, what the daemon itself costs, and its idle wake-ups. Four variants, interleaved
# (none, perf-record, perf, bpf, none, perf-record, ...) RUNS times, medians:
#
#   none         nothing but the workload
#   perf-record  `perf record -a -k CLOCK_MONOTONIC -D -1 --control fifo:...` (enabled, and acked, before the
#                workload) of the tracepoints the perf source opens (the five
#                sched_* of the issue, sched_stat_runtime with the daemon's `runtime >= 1000000` filter,
#                sched_stat_iowait where the kernel has it; as bench/lib-peers.sh) to a file on /dev/shm, deleted
#                after each run
#   perf         schedfreqd --events=perf   } an empty configuration (-c EMPTY: every default), --no-bus, its
#   bpf          schedfreqd --events=bpf    } own state file, over the emulated cpufreq (tests/emu-run with
#                                             tests/fixtures/topology/two-policies.ini, started once for all)
#
# Workloads, each run under a fresh instance of the variant (started, ready, the workload, stopped):
#   switch     `stress-ng --switch 2 --timeout SECONDS --metrics-brief`: bogo ops/s (real time), higher is better
#   messaging  `perf bench sched messaging -l LOOPS`: wall time, lower is better
# Over each workload (the variant's process, from just before the workload to just after it):
#   - its CPU time: the sum of the run time of its threads, /proc/PID/task/*/schedstat (ns, not the 10 ms ticks
#     of /proc/PID/stat);
#   - its wake-ups: voluntary + nonvoluntary context switches of its threads (/proc/PID/task/*/status), as
#     bench/bench-wakeups.c counts them;
#   - the machine's context switches (`ctxt` of /proc/stat) in the same window;
#   - the scheduler events its source saw: the daemon's exit summary ("Events (perf): N (..." or "Events (bpf,
#     counted in the kernel): N, ..."; over its whole life: start-up, the workload, the stop, the first two a
#     fraction of a second on an idle machine), perf record's "(N samples)"; with the decisions and frequency
#     writes of the summary.
# Derived per run, then the median: CPU ms per million events (the source's own count: the bpf source counts
# every program run, PELT updates of the root cfs_rq included, so it counts more than the perf source for the
# same work) and per million machine context switches (one yardstick for both), and wake-ups as % of the
# machine's context switches.
# Idle (after the workloads of each run): once the machine is quiet (<= QUIET_MAX context switches/s over 1 s,
# waited for up to QUIET_WAIT_S), each daemon variant alone, IDLE_SECONDS measured by bench/bench-wakeups --json
# after SETTLE_S: wake-ups/s, CPU ms/s, the emulator's wake-ups/s (the daemon's frequency writes wake it), the
# machine's ctxt/s and the background (that minus twice the daemon's and the emulator's wake-ups). A window is
# "noisy" when the gate timed out or the background exceeded QUIET_MAX; medians are over all windows.
#
# Usage: bench/bench-sources.sh [OPTIONS] [BUILD]     (root; BUILD defaults to build)
#   -r, --runs N          interleaved runs (default 5)
#   -s, --seconds S       stress-ng --switch duration (default 5)
#   -l, --loops N         perf bench sched messaging -l N (default 300); --no-messaging skips that workload
#   -i, --idle-seconds S  idle window per daemon variant (default 10); --no-idle skips the idle part
#   -q, --quick           a smoke run, < 60 s: 1 run, 1 s switch, 20 loops, 2 s idle (never for published
#                         figures); also BENCH_QUICK=1, as the other benches
#   -f, --force           measure even with another schedfreqd running (its wake-ups are our events)
# Environment: SETTLE_S (3, quick 1), QUIET_MAX (150), QUIET_WAIT_S (30, quick 5), BENCH_OUT (BUILD/bench-out).
# Output: BENCH_OUT/sources.csv
#   workload,variant,run,value,window_s,cpu_ns,wakeups,machine_ctxt,events,records,decisions,writes,lost
#   (value: ops/s for switch, seconds for messaging; - where it does not apply), BENCH_OUT/sources-idle.csv
#   variant,run,wakeups_per_s,cpu_ms_per_s,emu_wakeups_per_s,machine_ctxt_per_s,background_per_s,noisy,life_s,
#   events,decisions,writes (the last three over the instance's life_s: start, SETTLE_S, window, stop)
# and the run lines and the summary tables on stdout; the daemons' logs are kept in BENCH_OUT/sources-logs/.
set -u
REPO=$(cd "$(dirname "$0")/.." && pwd)
usage() {
	sed -n '/^# Usage:/,/^# Output:/p' "$0" | sed '$d; s/^# \{0,1\}//'
	exit "${1:-2}"
}

RUNS='' SWITCH_S='' LOOPS='' IDLE_S='' QUICK=${BENCH_QUICK:-0} DO_MSG=1 DO_IDLE=1 FORCE=0 BUILD=build
while [ $# -gt 0 ]; do
	case $1 in
	-r | --runs) RUNS=${2:?--runs wants a number}; shift ;;
	--runs=*) RUNS=${1#*=} ;;
	-s | --seconds) SWITCH_S=${2:?--seconds wants a number}; shift ;;
	--seconds=*) SWITCH_S=${1#*=} ;;
	-l | --loops) LOOPS=${2:?--loops wants a number}; shift ;;
	--loops=*) LOOPS=${1#*=} ;;
	-i | --idle-seconds) IDLE_S=${2:?--idle-seconds wants a number}; shift ;;
	--idle-seconds=*) IDLE_S=${1#*=} ;;
	--no-messaging) DO_MSG=0 ;;
	--no-idle) DO_IDLE=0 ;;
	-q | --quick) QUICK=1 ;;
	-f | --force) FORCE=1 ;;
	-h | --help) usage 0 ;;
	-*) echo "bench-sources: unknown option $1" >&2; usage ;;
	*) BUILD=$1 ;;
	esac
	shift
done
if [ "$QUICK" = 1 ]; then
	: "${RUNS:=1}" "${SWITCH_S:=1}" "${LOOPS:=20}" "${IDLE_S:=2}"
	SETTLE_S=${SETTLE_S:-1} QUIET_WAIT_S=${QUIET_WAIT_S:-5}
else
	: "${RUNS:=5}" "${SWITCH_S:=5}" "${LOOPS:=300}" "${IDLE_S:=10}"
	SETTLE_S=${SETTLE_S:-3} QUIET_WAIT_S=${QUIET_WAIT_S:-30}
fi
QUIET_MAX=${QUIET_MAX:-150}
for v in "$RUNS" "$LOOPS"; do
	[[ $v =~ ^[1-9][0-9]*$ ]] || { echo "bench-sources: '$v' is not a positive integer" >&2; exit 2; }
done
for v in "$SWITCH_S" "$IDLE_S" "$SETTLE_S"; do
	[[ $v =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "bench-sources: '$v' is not a number of seconds" >&2; exit 2; }
done

case $BUILD in /*) ;; *) BUILD="$(pwd)/$BUILD" ;; esac
. "$REPO/tests/integration/lib.sh"
VARIANTS="none perf-record perf bpf"
DAEMONS="perf bpf"
TOPO="$REPO/tests/fixtures/topology/two-policies.ini"
BW="$BUILD/bench/bench-wakeups"
OUT=${BENCH_OUT:-$BUILD/bench-out}
CSV="$OUT/sources.csv"
ICSV="$OUT/sources-idle.csv"
LOGS="$OUT/sources-logs"

[ "$(id -u)" -eq 0 ] || { echo "bench-sources: run as root (perf events, BPF, a private mount namespace)" >&2; exit 1; }
for f in "$BUILD/schedfreqd" "$BUILD/cpufreq-emu" "$BW"; do
	[ -x "$f" ] || { echo "bench-sources: $f not found (make -j2)" >&2; exit 1; }
done
for t in stress-ng perf jq; do
	command -v "$t" >/dev/null || { echo "bench-sources: $t not found (scripts/install-deps bench)" >&2; exit 1; }
done
# Another daemon (or a governor) would be measured along: its wake-ups are our events and the other way round.
others=$(pgrep -a -x 'schedfreqd|cpufreqd|ondemand-sampler' 2>/dev/null)
if [ -n "$others" ] && [ "$FORCE" != 1 ]; then
	echo "bench-sources: another governor is running (--force to measure anyway):" >&2
	echo "$others" | sed 's/^/  /' >&2
	exit 1
fi

TMP=$(mktemp -d /tmp/schedfreqd-bench-sources.XXXXXX) || exit 1
SHM=$(mktemp -d /dev/shm/schedfreqd-bench-sources.XXXXXX) || exit 1 # perf record's file: tmpfs
mkdir -p "$OUT" "$LOGS" || exit 1
VPID='' VNAME=''
at_exit 'rm -rf "$TMP" "$SHM"'
at_exit 'variant_stop >/dev/null'
: >"$TMP/empty.conf"

median() { grep -v '^-$' | sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) { print "-"; exit } print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
rows() { # WORKLOAD VARIANT AWK-EXPRESSION-OVER-FIELDS: one value per run (- when a field it needs is -)
	awk -F, -v w="$1" -v v="$2" 'NR > 1 && $1 == w && $2 == v {
		for (i = 1; i <= NF; i++) if ($i == "-") bad[i] = 1; else bad[i] = 0
		'"$3"' }' "$CSV"
}
slow() { # VARIANT PERCENT
	if [ "$1" = none ]; then echo –; else fmt '%+.1f %%' "$2"; fi
}
fmt() { # FORMAT VALUE (- stays -)
	[ "$2" = - ] && { echo -; return; }
	awk -v f="$1" -v x="$2" 'BEGIN { printf f, x }'
}

# --- the variants ---------------------------------------------------------------------------------------------

perf_tracepoints() { # the perf source's tracepoints (daemon/events/perf-events.c, perf_cpu_plan()), those this kernel has
	local t
	PERF_TP=()
	for t in sched_switch sched_wakeup sched_wakeup_new sched_migrate_task sched_process_exit sched_stat_runtime sched_stat_iowait; do
		[ -d "/sys/kernel/tracing/events/sched/$t" ] || [ -d "/sys/kernel/debug/tracing/events/sched/$t" ] || continue
		PERF_TP+=(-e "sched:$t")
		[ "$t" = sched_stat_runtime ] && PERF_TP+=(--filter 'runtime >= 1000000')
	done
}
perf_tracepoints

variant_start() { # VARIANT TAG: starts it and returns once it works (VPID = the measured process), 1 if not
	VNAME=$1
	local tag=$2
	VLOG="$LOGS/$tag.log"
	case $VNAME in
	none) VPID= ;;
	perf-record)
		rm -f "$SHM/perf.data" "$SHM/ctl" "$SHM/ack"
		# Started with its events disabled and enabled through its control FIFO, acknowledged: recording from the
		# ack on (its data file exists well before: it first writes every existing task into it).
		# Not -B: the build-id pass over the file at exit (after the workload) is what prints "(N samples)".
		mkfifo "$SHM/ctl" "$SHM/ack" || return 1
		exec {PCTL}<>"$SHM/ctl" {PACK}<>"$SHM/ack"
		perf record -a -k CLOCK_MONOTONIC -D -1 --control "fifo:$SHM/ctl,$SHM/ack" "${PERF_TP[@]}" -o "$SHM/perf.data" \
			>/dev/null 2>"$VLOG" &
		VPID=$!
		echo enable >&"$PCTL"
		local ack=''
		read -r -t 20 -u "$PACK" ack
		exec {PCTL}>&- {PACK}<&-
		if [ "$ack" != ack ] || ! kill -0 "$VPID" 2>/dev/null; then
			echo "bench-sources: perf record did not start recording:" >&2; cat "$VLOG" >&2; kill -TERM "$VPID" 2>/dev/null; VPID=''; return 1
		fi
		;;
	perf | bpf)
		rm -f "$TMP/state"
		# nsenter execs the daemon: $! is its PID.
		nsenter -m -t "$EMU_NS_PID" -- "$BUILD/schedfreqd" -c "$TMP/empty.conf" --state-file "$TMP/state" --no-bus \
			--events="$VNAME" >/dev/null 2>"$VLOG" &
		VPID=$!
		if ! { wait_for '[ -e "$TMP/state" ] && [ "$(emu_sh "cat $EMU_CPUFREQ/policy*/scaling_governor | sort -u")" = userspace ] ||
			! kill -0 "$VPID" 2>/dev/null' 10 && kill -0 "$VPID" 2>/dev/null; }; then
			echo "bench-sources: schedfreqd --events=$VNAME did not take over:" >&2; cat "$VLOG" >&2; VPID=''; return 1
		fi
		;;
	esac
	return 0
}

variant_stop() { # stops the running variant (SIGTERM, bounded wait); its summary is then in $VLOG
	[ -n "$VPID" ] || return 0
	local rc
	kill -TERM "$VPID" 2>/dev/null
	wait_for '! kill -0 "$VPID" 2>/dev/null' 20 || { echo "bench-sources: $VNAME ($VPID) ignored SIGTERM, killed" >&2; kill -KILL "$VPID" 2>/dev/null; }
	wait "$VPID" 2>/dev/null
	rc=$?
	VPID=
	[ "$VNAME" = perf-record ] && rm -f "$SHM/perf.data"
	return "$rc"
}

# The summary of a stopped variant's log, as "EVENTS RECORDS DECISIONS WRITES LOST" (- where none applies).
#   Events (perf): N (late L, lost X in R ring overflows, lost switches S).
#   Events (bpf, counted in the kernel): N, R decision records read (X lost).
#   Decisions: A local, B remote, C deferred[ (D remote events held in the kernel)].
#   Frequency writes: W.
#   [ perf record: Captured and wrote 12.345 MB /dev/shm/.../perf.data (N samples) ]
summary() { # LOG
	awk '
	/Events \(/ {
		line = $0
		sub(/.*Events \([^)]*\): */, "", line)
		split(line, w, /[^0-9]+/); ev = w[1]
		rec = "-"; if (match(line, /[0-9]+ decision records read/)) rec = substr(line, RSTART, RLENGTH) + 0
		if (match(line, /lost [0-9]+ in/)) lost = substr(line, RSTART + 5, RLENGTH - 8) + 0
		else if (match(line, /\([0-9]+ lost\)/)) lost = substr(line, RSTART + 1, RLENGTH - 7) + 0
		found = 1
	}
	match($0, /Decisions: [0-9]+ local, [0-9]+ remote/) {
		split(substr($0, RSTART + 11, RLENGTH - 11), d, /[^0-9]+/); dec = d[1] + d[2]
	}
	match($0, /Frequency writes: [0-9]+/) { wr = substr($0, RSTART + 18, RLENGTH - 18) + 0 }
	/perf record: Captured and wrote/ && match($0, /\([0-9]+ samples\)/) {
		ev = substr($0, RSTART + 1, RLENGTH - 10) + 0; found = 1
	}
	END {
		if (!found) { print "- - - - -"; exit }
		printf "%s %s %s %s %s\n", ev, (rec == "" ? "-" : rec), (dec == "" ? "-" : dec), (wr == "" ? "-" : wr), (lost == "" ? "-" : lost)
	}' "$1"
}

# --- measurement ----------------------------------------------------------------------------------------------

# "CPU_NS WAKEUPS CTXT": the run time (ns) and the context switches of PID's threads (0 0 without a PID), and the
# machine's ctxt. One awk over the /proc files, so the sample costs one process.
sample() { # [PID]
	local files=()
	if [ -n "${1:-}" ]; then
		files=(/proc/"$1"/task/*/schedstat /proc/"$1"/task/*/status)
	fi
	awk 'FILENAME ~ /schedstat$/ { ns += $1; next }
	     /^(voluntary|nonvoluntary)_ctxt_switches:/ { w += $2; next }
	     FILENAME == "/proc/stat" && $1 == "ctxt" { c = $2 }
	     END { printf "%.0f %.0f %.0f\n", ns, w, c }' "${files[@]}" /proc/stat 2>/dev/null
}

switching() { # -> bogo ops/s (real time)
	stress-ng --switch 2 --timeout "$SWITCH_S" --metrics-brief 2>&1 |
		awk '$4 == "switch" && $5 ~ /^[0-9]+$/ { print $9; exit }'
}

messaging() { # -> seconds
	perf bench sched messaging -l "$LOOPS" 2>/dev/null | awk '/Total time/ { print $3; exit }'
}

now_s() { echo "${EPOCHREALTIME/,/.}"; }

one() { # RUN WORKLOAD VARIANT: a fresh instance of VARIANT around one WORKLOAD; a CSV row and a line
	local run=$1 wl=$2 v=$3 s0 s1 t0 t1 val cpu=- wk=- ctxt ev rec dec wr lost
	variant_start "$v" "$wl-$v-$run" || return 1
	s0=$(sample "$VPID")
	t0=$(now_s)
	if [ "$wl" = switch ]; then val=$(switching); else val=$(messaging); fi
	t1=$(now_s)
	s1=$(sample "$VPID")
	variant_stop || { [ "$v" = perf-record ] || { echo "bench-sources: schedfreqd --events=$v exited with an error:" >&2; cat "$VLOG" >&2; return 1; }; }
	[ -n "$val" ] || { echo "bench-sources: $wl printed no figure ($v, run $run)" >&2; return 1; }
	read -r c0 w0 x0 <<<"$s0"
	read -r c1 w1 x1 <<<"$s1"
	ctxt=$((x1 - x0))
	if [ "$v" != none ]; then
		cpu=$((c1 - c0)) wk=$((w1 - w0))
		read -r ev rec dec wr lost < <(summary "$VLOG")
	else
		ev=- rec=- dec=- wr=- lost=-
	fi
	echo "$wl,$v,$run,$val,$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }'),$cpu,$wk,$ctxt,$ev,$rec,$dec,$wr,$lost" >>"$CSV"
	printf '  run %d %-9s %-11s %12s %-5s  CPU %7s ms  wake-ups %7s  machine ctxt %9s  events %9s  decisions %6s  writes %6s\n' \
		"$run" "$wl" "$v" "$val" "$([ "$wl" = switch ] && echo ops/s || echo s)" \
		"$(fmt %.1f "$(awk -v n="$cpu" 'BEGIN { print (n == "-" ? "-" : n / 1e6) }')")" "$wk" "$ctxt" "$ev" "$dec" "$wr"
}

quiet_gate() { # waits (bounded) for <= QUIET_MAX ctxt/s over 1 s; prints the last rate, with " noisy" if never
	local deadline=$((SECONDS + ${QUIET_WAIT_S%.*})) a b rate
	while :; do
		a=$(sample); sleep 1; b=$(sample)
		rate=$((${b##* } - ${a##* }))
		[ "$rate" -le "$QUIET_MAX" ] && { echo "$rate"; return; }
		[ "$SECONDS" -ge "$deadline" ] && { echo "$rate noisy"; return; }
	done
}

# RUN VARIANT: the machine gated quiet first (the daemon and the emulator it writes to add their own switches),
# then the daemon, SETTLE_S, and an IDLE_S window of bench-wakeups over the daemon and the emulator. "background"
# is the machine-wide rate minus twice the daemon's and the emulator's wake-ups (each is a switch in and out).
idle() {
	local run=$1 v=$2 gate json w cpu m emu bg noisy=0 pid t0 t1 ev rec dec wr lost
	gate=$(quiet_gate)
	[[ $gate == *noisy ]] && noisy=1
	t0=$(now_s)
	variant_start "$v" "idle-$v-$run" || return 1
	pid=$VPID
	sleep "$SETTLE_S"
	json=$("$BW" --seconds "$IDLE_S" --json "$pid" "$EMU_PID") || { echo "bench-sources: bench-wakeups failed" >&2; variant_stop; return 1; }
	variant_stop || { echo "bench-sources: schedfreqd --events=$v exited with an error:" >&2; cat "$VLOG" >&2; return 1; }
	t1=$(now_s)
	w=$(jq -r --argjson p "$pid" '.processes[] | select(.pid == $p) | .wakeups_per_s' <<<"$json")
	cpu=$(jq -r --argjson p "$pid" '.processes[] | select(.pid == $p) | .cpu_ms_per_s' <<<"$json")
	emu=$(jq -r --argjson p "$EMU_PID" '.processes[] | select(.pid == $p) | .wakeups_per_s' <<<"$json")
	m=$(jq -r .machine_ctxt_per_s <<<"$json")
	bg=$(awk -v m="$m" -v w="$w" -v e="$emu" 'BEGIN { printf "%.0f", m - 2 * (w + e) }')
	[ "$bg" -gt "$QUIET_MAX" ] && noisy=1
	read -r ev rec dec wr lost < <(summary "$VLOG")
	echo "$v,$run,$w,$cpu,$emu,$m,$bg,$noisy,$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }'),$ev,$dec,$wr" >>"$ICSV"
	printf '  run %d idle      %-11s %8s wake-ups/s  CPU %6s ms/s  emulator %6s wake-ups/s  machine %7s ctxt/s  background %5s  decisions %s in %.0f s%s\n' \
		"$run" "$v" "$w" "$cpu" "$emu" "$m" "$bg" "$dec" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" \
		"$([ "$noisy" = 1 ] && echo "  (noisy: gate $gate ctxt/s)")"
}

# --- the run --------------------------------------------------------------------------------------------------

echo "workload,variant,run,value,window_s,cpu_ns,wakeups,machine_ctxt,events,records,decisions,writes,lost" >"$CSV"
echo "variant,run,wakeups_per_s,cpu_ms_per_s,emu_wakeups_per_s,machine_ctxt_per_s,background_per_s,noisy,life_s,events,decisions,writes" >"$ICSV"
rm -f "$LOGS"/*.log
emu_start "$TOPO" || exit 1
WORKLOADS=switch
[ "$DO_MSG" = 1 ] && WORKLOADS="switch messaging"
T_START=$SECONDS
echo "bench-sources: $(date -u '+%F %T') UTC, $(nproc) CPUs ($(lscpu | sed -n 's/^Model name: *//p' | head -n1)), $(uname -r), commit $(git -C "$REPO" describe --always --dirty 2>/dev/null)"
echo "runs: $RUNS interleaved ($VARIANTS); stress-ng --switch 2 --timeout $SWITCH_S$([ "$DO_MSG" = 1 ] && echo "; perf bench sched messaging -l $LOOPS")$([ "$DO_IDLE" = 1 ] && echo "; idle $IDLE_S s per daemon after $SETTLE_S s")"
[ -n "$others" ] && echo "WARNING: another governor was running (--force): $(echo "$others" | tr '\n' ' ')"
for run in $(seq 1 "$RUNS"); do
	for wl in $WORKLOADS; do
		for v in $VARIANTS; do
			one "$run" "$wl" "$v" || exit 1
		done
	done
	if [ "$DO_IDLE" = 1 ]; then
		for v in $DAEMONS; do
			idle "$run" "$v" || exit 1
		done
	fi
done
emu_stop

# --- the summary ----------------------------------------------------------------------------------------------

echo
echo "Medians of $RUNS interleaved runs ($((SECONDS - T_START)) s in all):"
echo
printf '| %-11s | %-14s | %-8s |' variant "switch ops/s" slowdown
[ "$DO_MSG" = 1 ] && printf ' %-12s | %-8s |' "messaging s" slowdown
echo
printf '|%s|%s|%s|' ------------- ---------------- ----------
[ "$DO_MSG" = 1 ] && printf '%s|%s|' -------------- ----------
echo
base_ops=$(rows switch none 'print $4' | median)
base_s=$(rows messaging none 'print $4' | median)
for v in $VARIANTS; do
	o=$(rows switch "$v" 'print $4' | median)
	printf '| %-11s | %14s | %8s |' "$v" "$(fmt %.0f "$o")" \
		"$(slow "$v" "$(awk -v a="$o" -v b="$base_ops" 'BEGIN { print 100 * (b / a - 1) }')")"
	if [ "$DO_MSG" = 1 ]; then
		s=$(rows messaging "$v" 'print $4' | median)
		printf ' %12s | %8s |' "$(fmt %.3f "$s")" \
			"$(slow "$v" "$(awk -v a="$s" -v b="$base_s" 'BEGIN { print 100 * (a / b - 1) }')")"
	fi
	echo
done
echo "(slowdown: switch = none's ops/s over the variant's, minus 1; messaging = the variant's time over none's, minus 1;"
echo " medians of each variant's runs against none's)"

echo
echo "| workload | variant | CPU ms | events | CPU ms / M events | CPU ms / M ctxt | wake-ups | machine ctxt | wake-ups % ctxt | decisions | writes | records | lost |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for wl in $WORKLOADS; do
	for v in perf-record $DAEMONS; do
		cpu=$(rows "$wl" "$v" 'print $6 / 1e6' | median)
		ev=$(rows "$wl" "$v" 'print (bad[9] ? "-" : $9)' | median)
		pme=$(rows "$wl" "$v" 'print (bad[9] || $9 == 0 ? "-" : $6 / 1e6 * 1e6 / $9)' | median)
		pmc=$(rows "$wl" "$v" 'print ($8 == 0 ? "-" : $6 / 1e6 * 1e6 / $8)' | median)
		wk=$(rows "$wl" "$v" 'print $7' | median)
		mc=$(rows "$wl" "$v" 'print $8' | median)
		pct=$(rows "$wl" "$v" 'print ($8 == 0 ? "-" : 100 * $7 / $8)' | median)
		dec=$(rows "$wl" "$v" 'print (bad[11] ? "-" : $11)' | median)
		wr=$(rows "$wl" "$v" 'print (bad[12] ? "-" : $12)' | median)
		rec=$(rows "$wl" "$v" 'print (bad[10] ? "-" : $10)' | median)
		lost=$(rows "$wl" "$v" 'print (bad[13] ? "-" : $13)' | median)
		echo "| $wl | $v | $(fmt %.1f "$cpu") | $(fmt %.0f "$ev") | $(fmt %.1f "$pme") | $(fmt %.1f "$pmc") | $(fmt %.0f "$wk") | $(fmt %.0f "$mc") | $(fmt %.3f "$pct") | $(fmt %.0f "$dec") | $(fmt %.0f "$wr") | $(fmt %.0f "$rec") | $(fmt %.0f "$lost") |"
	done
done
echo "(CPU: the process's threads' run time over the workload; events: the source's own count over the instance's"
echo " life (perf record: samples); wake-ups: its threads' context switches over the workload; machine ctxt: /proc/stat)"

if [ "$DO_IDLE" = 1 ]; then
	echo
	irows() { # VARIANT AWK-EXPRESSION: one value per idle run
		awk -F, -v v="$1" 'NR > 1 && $1 == v { '"$2"' }' "$ICSV"
	}
	echo "| idle | wake-ups/s | CPU ms/s | emulator wake-ups/s | machine ctxt/s | background ctxt/s | decisions/s (life) | noisy windows |"
	echo "|---|---|---|---|---|---|---|---|"
	for v in $DAEMONS; do
		echo "| $v | $(fmt %.1f "$(irows "$v" 'print $3' | median)") | $(fmt %.2f "$(irows "$v" 'print $4' | median)") |" \
			"$(fmt %.1f "$(irows "$v" 'print $5' | median)") | $(fmt %.1f "$(irows "$v" 'print $6' | median)") |" \
			"$(fmt %.0f "$(irows "$v" 'print $7' | median)") | $(fmt %.1f "$(irows "$v" 'print ($11 == "-" ? "-" : $11 / $9)' | median)") |" \
			"$(irows "$v" 'n += $8; k++ } END { print n + 0 " of " k + 0' | tail -n1) |"
	done
fi

echo
echo "Issue #23 targets (bpf):"
sd=$(awk -v a="$(rows switch bpf 'print $4' | median)" -v b="$base_ops" 'BEGIN { printf "%.1f", 100 * (b / a - 1) }')
pme=$(rows switch bpf 'print (bad[9] || $9 == 0 ? "-" : $6 / 1e6 * 1e6 / $9)' | median)
pct=$(rows switch bpf 'print ($8 == 0 ? "-" : 100 * $7 / $8)' | median)
verdict() { awk -v x="$1" -v t="$2" 'BEGIN { print (x == "-" ? "n/a" : (x + 0 <= t + 0 ? "met" : "missed")) }'; }
echo "  stress-ng --switch slowdown <= 3 %:            $sd %  $(verdict "$sd" 3)"
echo "  daemon CPU per million events <= 10 ms:       $(fmt %.1f "$pme") ms  $(verdict "$pme" 10)"
echo "  daemon wake-ups <= 0.1 % of context switches: $(fmt %.3f "$pct") %  $(verdict "$pct" 0.1)"
if [ "$DO_IDLE" = 1 ]; then
	iw=$(irows bpf 'print $3' | median)
	echo "  idle wake-ups <= 1/s:                          $(fmt %.1f "$iw")/s  $(verdict "$iw" 1)"
fi
echo "CSV: $CSV$([ "$DO_IDLE" = 1 ] && echo ", $ICSV"); logs: $LOGS"
