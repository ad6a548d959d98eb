#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Idle cost: the daemon's own wake-ups on a quiet machine (docs/benchmarks.md). RUNS times, interleaved:
#   (a) no daemon: the machine-wide context-switch rate over SECONDS (the emulator is mounted and idle; its own
#       wake-ups are measured too, they should be 0);
#   (b) schedfreqd with the default configuration (no D-Bus, its own state file) on the emulated cpufreq
#       (tests/emu-run, tests/fixtures/topology/two-policies.ini), from the moment its state file exists plus a
#       settle time of SETTLE_S: its wake-ups/s (context switches of all its threads) and CPU ms/s, the
#       emulator's wake-ups/s (the daemon's sysfs writes wake it), and the machine-wide rate beside them.
# Prints each run and the medians. Measured by bench/bench-wakeups.c (one sleep in the window: 2 switches).
# Run it on a quiet machine: anything else running shows up in the machine-wide figure and wakes the daemon.
#
# Usage: bench/bench-idle.sh BUILD[,BUILD...] [SECONDS] [RUNS]   (root; each BUILD holds schedfreqd, the first
#   also cpufreq-emu). Several builds are measured side by side: in each run the no-daemon window, then each
#   build's daemon in turn. A BUILD may be written LABEL=DIR; the label names its rows (default: "schedfreqd"
#   for a single build, else the directory's name).
#   The measurer is $BENCH_WAKEUPS if set, else the first BUILD/bench/bench-wakeups if built, else compiled from
#   bench/bench-wakeups.c into a temporary directory (so an older BUILD without it can be measured).
#   SETTLE_S (default 3) is the wait between readiness and the window.
#   Before each window the machine must be quiet: at most QUIET_MAX (default 150) context switches/s over a
#   2 s probe and no other schedfreqd (two daemons, or any perf reader woken per event, wake each other: each
#   one's wake-ups are the other's events), waited for up to QUIET_WAIT_S (default 120) s. A window is marked
#   "noisy" if that was not reached, or if its background (the machine-wide rate minus twice the daemon's and
#   the emulator's wake-ups) was above QUIET_MAX. Medians are printed over all runs and over the quiet ones.
#
# Usage: bench/bench-idle.sh peers BUILD [SECONDS] [RUNS]   the governors of bench/lib-peers.sh side by side
#   instead (nothing, schedfreqd, the ondemand-style sampler, cpufreqd): runs bench/bench-idle-peers.sh, which
#   writes idle.csv (its knobs: IDLE_SETTLE_S, IDLE_QUIET_MAX, IDLE_GOVERNORS, BENCH_OUT).
# shellcheck disable=SC2016 # conditions for wait_for and at_exit are evaluated later, on purpose
set -u
if [ "${1:-}" = peers ]; then
	[ -n "${3:-}" ] && export IDLE_SECONDS=$3
	[ -n "${4:-}" ] && export IDLE_RUNS=$4
	exec bash "$(dirname "$0")/bench-idle-peers.sh" "${2:?usage: bench/bench-idle.sh peers BUILD [SECONDS] [RUNS]}"
fi
BUILDS_ARG=${1:?usage: bench/bench-idle.sh BUILD[,BUILD...] [SECONDS] [RUNS]}
SECS=${2:-20}
RUNS=${3:-3}
SETTLE_S=${SETTLE_S:-3}
QUIET_MAX=${QUIET_MAX:-150}
QUIET_WAIT_S=${QUIET_WAIT_S:-120}
REPO=$(cd "$(dirname "$0")/.." && pwd)
LABELS=() DIRS=()
IFS=, read -r -a specs <<<"$BUILDS_ARG"
for spec in "${specs[@]}"; do
	label=${spec%%=*} dir=${spec#*=}
	[ "$label" = "$spec" ] && label=
	case $dir in /*) ;; *) dir="$(pwd)/$dir" ;; esac
	[ -n "$label" ] || { [ "${#specs[@]}" -eq 1 ] && label=schedfreqd || label=$(basename "$dir"); }
	LABELS+=("$label") DIRS+=("$dir")
done
BUILD=${DIRS[0]}
. "$REPO/tests/integration/lib.sh"
TOPO="$REPO/tests/fixtures/topology/two-policies.ini"

[ "$(id -u)" -eq 0 ] || { echo "bench-idle: needs root (mount namespace, perf tracepoints)" >&2; exit 1; }
for dir in "${DIRS[@]}"; do
	[ -x "$dir/schedfreqd" ] || { echo "bench-idle: $dir/schedfreqd not found" >&2; exit 1; }
done
[ -x "$BUILD/cpufreq-emu" ] || { echo "bench-idle: $BUILD/cpufreq-emu not found" >&2; exit 1; }

TMP=$(mktemp -d /tmp/schedfreqd-bench-idle.XXXXXX)
DAEMON_PID=
stop_daemon() {
	[ -n "$DAEMON_PID" ] || return 0
	local rc
	kill -TERM "$DAEMON_PID" 2>/dev/null
	if ! wait_for '! kill -0 "$DAEMON_PID" 2>/dev/null' 10; then
		echo "bench-idle: schedfreqd ($DAEMON_PID) ignored SIGTERM for 10 s, killing it" >&2
		kill -KILL "$DAEMON_PID" 2>/dev/null
	fi
	wait "$DAEMON_PID" 2>/dev/null
	rc=$?
	DAEMON_PID=
	return "$rc"
}
at_exit 'rm -rf "$TMP"'
at_exit 'stop_daemon'

BW=${BENCH_WAKEUPS:-}
if [ -z "$BW" ]; then
	if [ -x "$BUILD/bench/bench-wakeups" ]; then
		BW="$BUILD/bench/bench-wakeups"
	else
		BW="$TMP/bench-wakeups"
		${CC:-cc} -std=gnu11 -O2 -D_GNU_SOURCE -o "$BW" "$REPO/bench/bench-wakeups.c" -lm ||
			{ echo "bench-idle: cannot build bench/bench-wakeups.c" >&2; exit 1; }
	fi
fi

# Defaults: every key at its compile-time default (as in conf/schedfreqd.conf, where all are commented out).
printf '# bench-idle: every setting at its compile-time default.\n' >"$TMP/defaults.conf"
daemon_args() { # DIR: the arguments for that build's daemon
	DAEMON_ARGS=(-c "$TMP/defaults.conf" --state-file "$TMP/state")
	"$1/schedfreqd" --help 2>&1 | grep -q -- '--no-bus' && DAEMON_ARGS+=(--no-bus)
}

median() { grep -v '^-$' | sort -n | awk '{ v[NR] = $1 } END { if (NR == 0) { print "n/a"; exit } m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; print m }'; }

# FIELD of process PID in a bench-wakeups --json object (stdin).
jfield() { # PID FIELD
	jq -r --argjson pid "$1" --arg f "$2" '.processes[] | select(.pid == $pid) | .[$f]'
}

machine_ctxt() {
	local key val
	while read -r key val; do
		[ "$key" = ctxt ] && { echo "$val"; return; }
	done </proc/stat
}

# Other schedfreqd processes than OURS (PIDs); prints "noisy: ..." if there are any.
other_daemons() { # [OURS...]
	local p others=
	for p in $(pgrep -x schedfreqd); do
		case " $* " in *" $p "*) ;; *) others="$others $p" ;; esac
	done
	[ -n "$others" ] && echo "noisy: another schedfreqd (pid$others)"
}

# Waits (bounded) for a quiet machine with no other schedfreqd; prints nothing if it is quiet, else why not.
quiet_gate() {
	local deadline=$((SECONDS + QUIET_WAIT_S)) c0 c1 rate others
	while :; do
		c0=$(machine_ctxt); sleep 2; c1=$(machine_ctxt)
		rate=$(((c1 - c0) / 2))
		others=$(other_daemons)
		[ "$rate" -le "$QUIET_MAX" ] && [ -z "$others" ] && return
		[ "$SECONDS" -ge "$deadline" ] && break
	done
	if [ -n "$others" ]; then
		echo "$others"
	else
		echo "noisy: $rate ctxt/s before the window"
	fi
}

# One row per window in $TMP/rows: RUN KIND WAKEUPS CPU_MS EMU_WAKEUPS MACHINE BACKGROUND NOISY(0|1). BACKGROUND
# is the machine-wide rate minus what the daemon and the emulator account for (each wake-up of theirs is two
# machine-wide switches: in and out): what the rest of the machine did in the window.
record() { # RUN KIND JSON DAEMON_PID|- NOTE
	local run=$1 kind=$2 out=$3 pid=$4 note=$5 w=- cpu=- emu machine bg noisy=0
	emu=$(jfield "$EMU_PID" wakeups_per_s <<<"$out")
	machine=$(jq -r .machine_ctxt_per_s <<<"$out")
	if [ "$pid" != - ]; then
		w=$(jfield "$pid" wakeups_per_s <<<"$out")
		cpu=$(jfield "$pid" cpu_ms_per_s <<<"$out")
	fi
	bg=$(awk -v m="$machine" -v w="$w" -v e="$emu" 'BEGIN { printf "%.0f", m - 2 * ((w == "-" ? 0 : w) + e) }')
	if [ -n "$note" ]; then
		noisy=1
	elif [ "$bg" -gt "$QUIET_MAX" ]; then
		noisy=1
		note="noisy: background $bg ctxt/s in the window"
	fi
	echo "$run $kind $w $cpu $emu $machine $bg $noisy" >>"$TMP/rows"
	printf '%-4s %-10s %10s %9s %14s %15s %14s  %s\n' "$run" "$kind" "$w" "$cpu" "$emu" "$machine" "$bg" "$note"
}

run_none() { # RUN
	local out note
	note=$(quiet_gate)
	out=$("$BW" --seconds "$SECS" --json "$EMU_PID") || { echo "bench-idle: measurement failed" >&2; return 1; }
	echo "$out" >"$TMP/none.$1.json"
	record "$1" none "$out" - "$note"
}

run_daemon() { # RUN LABEL DIR
	local out rc note pid label=$2 dir=$3
	daemon_args "$dir"
	# The machine is gated before the daemon starts (the daemon itself adds twice its wake-ups to the rate).
	note=$(quiet_gate)
	rm -f "$TMP/state"
	# nsenter itself, not emu_exec (a function: `&` would fork a subshell and $! would be that shell's PID).
	nsenter -m -t "$EMU_NS_PID" -- "$dir/schedfreqd" "${DAEMON_ARGS[@]}" >/dev/null 2>"$TMP/err.$1" &
	DAEMON_PID=$! # nsenter execs the daemon: this is its PID
	if ! wait_for '[ -e "$TMP/state" ]' 10; then
		echo "bench-idle: the daemon did not become ready (no state file after 10 s):" >&2
		cat "$TMP/err.$1" >&2
		return 1
	fi
	if [ "$(cat "/proc/$DAEMON_PID/comm" 2>/dev/null)" != schedfreqd ]; then
		echo "bench-idle: PID $DAEMON_PID is not schedfreqd" >&2
		return 1
	fi
	sleep "$SETTLE_S"
	[ -z "$note" ] && note=$(other_daemons "$DAEMON_PID")
	out=$("$BW" --seconds "$SECS" --json "$DAEMON_PID" "$EMU_PID")
	rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "bench-idle: measurement failed (status $rc); daemon log:" >&2
		cat "$TMP/err.$1" >&2
		return 1
	fi
	echo "$out" >"$TMP/daemon.$1.$label.json"
	pid=$DAEMON_PID
	stop_daemon || { echo "bench-idle: schedfreqd exited with status $? on SIGTERM:" >&2; cat "$TMP/err.$1" >&2; return 1; }
	record "$1" "$label" "$out" "$pid" "$note"
}

# Medians of column COL for KIND over the rows that pass FILTER (all | quiet).
col_median() { # KIND COL FILTER
	awk -v k="$1" -v c="$2" -v f="$3" '$2 == k && (f == "all" || $8 == 0) { print $c }' "$TMP/rows" | median
}

emu_start "$TOPO" || exit 1
EMU_NS=$(readlink "/proc/$EMU_PID/ns/mnt")
echo "machine: $(nproc) CPUs, $(uname -r), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
for i in "${!DIRS[@]}"; do
	daemon_args "${DIRS[$i]}"
	echo "daemon ${LABELS[$i]}: ${DIRS[$i]}/schedfreqd ${DAEMON_ARGS[*]} (in the emulator's namespace, topology $(basename "$TOPO"))"
done
echo "measurer: $BW; window $SECS s, settle $SETTLE_S s after the state file appears, $RUNS runs interleaved"
echo "quiet: <= $QUIET_MAX ctxt/s for 2 s before each window (waited up to $QUIET_WAIT_S s) and in the window"
echo
HEAD=$(printf '%-4s %-10s %10s %9s %14s %15s %14s' run daemon wakeups/s cpu_ms/s emu_wakeups/s machine_ctxt/s background/s)
echo "$HEAD"
for run in $(seq 1 "$RUNS"); do
	run_none "$run" || exit 1
	for i in "${!DIRS[@]}"; do
		run_daemon "$run" "${LABELS[$i]}" "${DIRS[$i]}" || exit 1
	done
done
for filter in all quiet; do
	n=$(awk -v f="$filter" '$2 != "none" && (f == "all" || $8 == 0)' "$TMP/rows" | wc -l)
	echo
	echo "medians, $filter runs ($n daemon windows):"
	echo "$HEAD"
	for kind in none "${LABELS[@]}"; do
		w=-; cpu=-
		[ "$kind" = none ] || { w=$(col_median "$kind" 3 "$filter"); cpu=$(col_median "$kind" 4 "$filter"); }
		printf '%-4s %-10s %10s %9s %14s %15s %14s\n' - "$kind" "$w" "$cpu" "$(col_median "$kind" 5 "$filter")" \
			"$(col_median "$kind" 6 "$filter")" "$(col_median "$kind" 7 "$filter")"
	done
done
if [ "${#LABELS[@]}" -gt 1 ]; then
	last=${LABELS[${#LABELS[@]}-1]}
	echo
	echo "wake-ups/s, median over all runs, against $last's:"
	for kind in "${LABELS[@]}"; do
		awk -v k="$kind" -v a="$(col_median "$kind" 3 all)" -v b="$(col_median "$last" 3 all)" \
			'BEGIN { printf "  %-12s %8s  %s\n", k, a, (b > 0 ? sprintf("%.1fx", a / b) : "n/a") }'
	done
fi
echo

emu_stop
# The namespace is gone when no process holds it any more.
left=
for d in /proc/[0-9]*; do
	[ "$(readlink "$d/ns/mnt" 2>/dev/null)" = "$EMU_NS" ] && left="$left ${d#/proc/}"
done
if [ -n "$left" ]; then
	echo "bench-idle: processes still in the emulator's namespace ($EMU_NS):$left" >&2
	exit 1
fi
echo "emulator namespace $EMU_NS torn down (no process left in it)"
