# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC2034 # the SCALE_* variables are for the scripts that source this
#
# What bench/bench-memory.sh and bench/bench-scale.sh share (source it after tests/integration/lib.sh):
#
#   scale_topology CPUS POLICIES FILE   writes a generated topology (bench/gen-topology.sh) to FILE
#   scale_daemon_start DIR              starts schedfreqd over the running emulator (emu_start) under
#                                       $BUILD/bench/ready-timer, state, lock and log in DIR; returns once it
#                                       sent READY=1 (sd_notify, timed by ready-timer from before its fork);
#                                       sets SCALE_PID (the daemon), SCALE_READY_MS, SCALE_TIMER_PID
#   scale_daemon_stop                   SIGTERM, bounded wait for it (it restores the policies), reaps it
#   scale_status_kib PID FIELD          VmHWM / VmRSS of PID in KiB (/proc/PID/status)
#   scale_cpu_ms PID                    utime + stime of PID so far, in ms (/proc/PID/stat)
#   median                              of the numbers on stdin, one a line
#   scale_machine                       the machine line every summary starts with

SCALE_PID=
SCALE_READY_MS=
SCALE_TIMER_PID=
SCALE_DIR=

scale_topology() { # CPUS POLICIES FILE
	"$REPO/bench/gen-topology.sh" "$1" "$2" >"$3"
}

scale_daemon_start() { # DIR
	SCALE_DIR=$1
	: >"$SCALE_DIR/conf"
	rm -f "$SCALE_DIR/state" "$SCALE_DIR/rt"
	# The daemon defaults (an empty configuration), no bus: what is measured is the daemon, not D-Bus.
	"$BUILD/bench/ready-timer" --timeout 60 -- nsenter -m -t "$EMU_NS_PID" -- "$SCHEDFREQD" -c "$SCALE_DIR/conf" \
		--state-file "$SCALE_DIR/state" --no-bus >"$SCALE_DIR/rt" 2>"$SCALE_DIR/log" &
	SCALE_TIMER_PID=$!
	if ! wait_for 'grep -q "^ready " "$SCALE_DIR/rt" || ! kill -0 "$SCALE_TIMER_PID" 2>/dev/null' 70 ||
		! grep -q '^ready ' "$SCALE_DIR/rt"; then
		echo "scale: the daemon did not become ready:" >&2
		tail -n 20 "$SCALE_DIR/log" | sed 's/^/  /' >&2
		kill -TERM "$SCALE_TIMER_PID" 2>/dev/null
		wait "$SCALE_TIMER_PID" 2>/dev/null
		SCALE_TIMER_PID=
		return 1
	fi
	SCALE_PID=$(sed -n 's/^ready pid=\([0-9]*\) .*/\1/p' "$SCALE_DIR/rt")
	SCALE_READY_MS=$(sed -n 's/^ready pid=[0-9]* ms=\([0-9.]*\)/\1/p' "$SCALE_DIR/rt")
}

scale_daemon_stop() {
	[ -n "$SCALE_TIMER_PID" ] || return 0
	kill -TERM "$SCALE_PID" 2>/dev/null
	if ! wait_for '! kill -0 "$SCALE_TIMER_PID" 2>/dev/null' 20; then
		echo "scale: the daemon ($SCALE_PID) did not stop; killing it" >&2
		kill -KILL "$SCALE_PID" 2>/dev/null
	fi
	wait "$SCALE_TIMER_PID" 2>/dev/null
	SCALE_TIMER_PID=
	SCALE_PID=
}

scale_status_kib() { # PID FIELD
	awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status"
}

scale_cpu_ms() { # PID
	# Fields 14 and 15 of /proc/PID/stat; the comm (field 2) has no space for our processes.
	awk -v hz="$(getconf CLK_TCK)" '{ printf "%d\n", ($14 + $15) * 1000 / hz }' "/proc/$1/stat"
}

median() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) { print "nan"; exit } print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

scale_machine() {
	echo "machine: $(nproc) CPUs, Linux $(uname -r), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
}
