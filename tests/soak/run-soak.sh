#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The soak test (issue 11 item 4; `make soak`, not part of `make check`): the real daemon over the emulated
# cpufreq (tests/emu-run), on a private system-like dbus-daemon (tests/dbus/bus.sh), for SOAK_SECONDS under
# tests/helpers/churn: ping-pong thread pairs for scheduler events, plus >= 1000 short-lived processes and
# 1000 threads a second. Once a second it samples the daemon's RSS (VmRSS), open fds, CPU time, the event
# counters (D-Bus EventsSeen/EventsLost/EventsLate), each policy's frequency in the emulator and in the daemon
# (CurrentKHz), and the load's achieved rates, into a CSV. Then it checks:
#   - the load ran at the asked fork and thread rates, and the daemon took the events (events/s reported);
#   - RSS after the warm-up stays within +-SOAK_RSS_PCT % of its value at the end of the warm-up (max and min);
#   - the open fd count never changes under load;
#   - lost events are accounted: EventsLost reported, at most SOAK_MAX_LOST_PCT % of the events, and the
#     exit summary's "lost" agrees with D-Bus;
#   - no policy is left at a stale frequency: with the load gone, every policy settles low (an idle CPU needs
#     an event to lower its policy: NOHZ, so a light periodic task gives it some) with the emulator's
#     scaling_cur_freq equal to the daemon's CurrentKHz; a short hog still raises its policy, and it drops
#     again afterwards;
#   - SIGTERM: the daemon exits 0 and hands every policy back to its original governor.
# Prints "ok - ..." lines (tests/integration/lib.sh) and a summary, plots RSS and events/s over time
# (tests/soak/soak.gp, gnuplot), exits non-zero if a check failed.
#
# Usage: tests/soak/run-soak.sh [BUILD]        (root; `make soak` builds first)
# Environment:
#   SOAK_SECONDS (600)        load duration      SOAK_WARMUP (60)        seconds before the RSS reference
#   SOAK_PAIRS (2)            ping-pong pairs    SOAK_FORKS, SOAK_THREADS (1000 each)  per second
#   SOAK_RSS_PCT (2)          RSS band           SOAK_MAX_LOST_PCT (1)   lost events, % of events seen
#   SOAK_MIN_EVENTS (0)       fail if the mean events/s after the warm-up is below this (0: report only)
#   SOAK_OUT ($BUILD/soak)    CSV, logs          SOAK_PLOT_DIR ($REPO/docs)  soak-rss.png, soak-events.png
set -u
BUILD=${1:-${BUILD:-build}}
. "$(dirname "$0")/../integration/lib.sh"
. "$REPO/tests/dbus/bus.sh"

SECONDS_LOAD=${SOAK_SECONDS:-600}
WARMUP=${SOAK_WARMUP:-60}
PAIRS=${SOAK_PAIRS:-2}
FORKS=${SOAK_FORKS:-1000}
THREADS=${SOAK_THREADS:-1000}
RSS_PCT=${SOAK_RSS_PCT:-2}
MAX_LOST_PCT=${SOAK_MAX_LOST_PCT:-1}
MIN_EVENTS=${SOAK_MIN_EVENTS:-0}
OUT=${SOAK_OUT:-$BUILD/soak}
PLOT_DIR=${SOAK_PLOT_DIR:-$REPO/docs}
[ "$WARMUP" -lt "$SECONDS_LOAD" ] || WARMUP=$((SECONDS_LOAD / 3))

SFD="$BUILD/schedfreqd"
CHURN="$BUILD/tests/helpers/churn"
HOG="$BUILD/tests/helpers/hog"
CPUFREQ=/sys/devices/system/cpu/cpufreq
CSV="$OUT/soak.csv"
LOW_KHZ=1200000  # "low": at most the second step of two-policies.ini
HIGH_KHZ=2160000 # "raised": 90 % of its maximum

[ "$(id -u)" = 0 ] || { echo "run-soak: needs root" >&2; exit 1; }
for f in "$SFD" "$CHURN" "$HOG" "$BUILD/cpufreq-emu"; do
	[ -x "$f" ] || { echo "run-soak: $f missing: make BUILD=$BUILD all" >&2; exit 1; }
done
mkdir -p "$OUT" "$PLOT_DIR" || exit 1
TMP=$(mktemp -d /tmp/schedfreqd-soak.XXXXXX)
at_exit 'rm -rf "$TMP"'
churn_pid=
daemon_pid=
poker=
at_exit '[ -n "$churn_pid" ] && kill -TERM "$churn_pid" 2>/dev/null; [ -n "$poker" ] && kill "$poker" 2>/dev/null'
at_exit '[ -n "$daemon_pid" ] && kill -KILL "$daemon_pid" 2>/dev/null'
show_daemon_log() { grep -v '^$' "$OUT/daemon.log" | tail -n 20; }

# --- set-up ---------------------------------------------------------------------------------------------------
dbus_start "$TMP/bus" || { fail "private dbus-daemon starts"; finish; }
emu_start "$REPO/tests/fixtures/topology/two-policies.ini" || { fail "emulator starts"; finish; }
# The emulator stands in for sysfs, which no load can starve. Starved, it blocks the SCHED_FIFO daemon: its
# writes to scaling_setspeed are synchronous FUSE requests, and the daemon's rings overflow while it waits
# (seen: 60 % of the events lost with the emulator at nice -10, 0 with it SCHED_FIFO). So under the load it
# runs SCHED_FIFO 2, above the daemon. Only under the load: the daemon sees a runnable RT task on every write
# and raises that policy to its maximum (the kernel's rule for RT tasks), which the load has done anyway, but
# on a quiet machine that is a feedback loop (seen: 470,000 writes in 15 s). It goes back to SCHED_OTHER for
# the checks after the load.
: >"$TMP/schedfreqd.conf"
nsenter -m -t "$EMU_NS_PID" -- "$SFD" -c "$TMP/schedfreqd.conf" --state-file "$TMP/state" \
	--bus-address "$DBUS_ADDRESS" >/dev/null 2>"$OUT/daemon.log" &
daemon_pid=$!
if wait_for '[ -e "$TMP/state" ] && [ "$(emu_sh "cat $CPUFREQ/policy*/scaling_governor | sort -u")" = userspace ] && dbus_has_name' 10; then
	ok "daemon (pid $daemon_pid) takes over both policies and owns $NAME"
else
	fail "daemon takes over and owns $NAME" "$(show_daemon_log)"
	finish
fi

bctl() { busctl --system --no-pager "$@"; }
# EventsSeen EventsLost EventsLate CurrentKHz(policy0) CurrentKHz(policy1), space-separated.
bus_counters() {
	{
		bctl get-property "$NAME" "$OBJ" "$NAME" EventsSeen EventsLost EventsLate
		bctl get-property "$NAME" "$OBJ/policy/0" "$NAME.Policy" CurrentKHz
		bctl get-property "$NAME" "$OBJ/policy/1" "$NAME.Policy" CurrentKHz
	} 2>/dev/null | awk '{ v = v (NR > 1 ? " " : "") $2 } END { print v }'
}
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null; }
HZ_TICKS=$(getconf CLK_TCK)

# --- the load, sampled once a second -------------------------------------------------------------------------
echo "# load: $SECONDS_LOAD s of churn --pairs $PAIRS --forks $FORKS --threads $THREADS (warm-up $WARMUP s)"
# The load runs at nice 19: it still takes every cycle nothing else wants, but the observers (this sampler,
# busctl, the dbus-daemon) are not starved by it (at nice 0, one busctl call took 1.5-4 s under it). The
# daemon runs SCHED_FIFO (as its unit does) and is not helped by this.
nice -n 19 "$CHURN" --seconds "$SECONDS_LOAD" --pairs "$PAIRS" --forks "$FORKS" --threads "$THREADS" --progress-ms 1000 \
	>"$OUT/churn.out" 2>&1 &
churn_pid=$!
echo "t_s,rss_kb,fds,daemon_cpu_pct,events_seen,events_lost,events_late,events_per_s,ctxt_per_s,forks_per_s,threads_per_s,roundtrips_per_s,policy0_khz,policy1_khz,current0_khz,current1_khz" >"$CSV"
# CLOCK_MONOTONIC, not the wall clock (EPOCHREALTIME): on these VMs the wall clock was seen to step by seconds
# under this load.
mono_us() { echo $(( $("$BUILD/tests/helpers/monotonic") / 1000 )); }
# The sampler and the dbus-daemon it asks run SCHED_FIFO 1 under the load too, so that neither the load nor
# other work on a shared machine delays a sample by seconds (seen at nice 0 and at nice -10); they use little
# CPU. Like the emulator, the dbus-daemon goes back to SCHED_OTHER after the load.
chrt -a -f -p 2 "$EMU_PID" >/dev/null || fail "emulator made SCHED_FIFO"
chrt -f -p 1 "$DBUS_PID" >/dev/null || fail "dbus-daemon made SCHED_FIFO"
t0_us=$(mono_us)
(
chrt -f -p 1 "$BASHPID" >/dev/null || echo "# run-soak: the sampler stays SCHED_OTHER"
prev=
next_us=$t0_us
while kill -0 "$churn_pid" 2>/dev/null; do
	next_us=$((next_us + 1000000))
	now=$(mono_us)
	[ "$now" -lt "$next_us" ] && sleep "$(awk -v d=$((next_us - now)) 'BEGIN { printf "%.3f", d / 1e6 }')"
	kill -0 "$churn_pid" 2>/dev/null || break
	rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$daemon_pid/status" 2>/dev/null)
	[ -n "$rss" ] || { echo "not ok - daemon alive under load"; show_daemon_log | sed 's/^/# /'; break; }
	fds=$(ls "/proc/$daemon_pid/fd" | wc -l)
	# The counters behind rates are read together, right after the bus (a busctl call may take a while).
	read -r seen lost late cur0 cur1 <<<"$(bus_counters)"
	t_us=$(mono_us)
	ticks=$(cpu_ticks "$daemon_pid")
	ctxt=$(awk '/^ctxt/ { print $2 }' /proc/stat)
	read -r f0 f1 <<<"$(emu_exec cat "$CPUFREQ/policy0/scaling_cur_freq" "$CPUFREQ/policy1/scaling_cur_freq" | tr '\n' ' ')"
	# The load's counts, at the time of its own last progress line (its rates are per its own clock).
	read -r pt forks threads rts <<<"$(awk '/^progress/ { p = $2; f = $4; t = $6; r = $8 } END { print p / 1000, f + 0, t + 0, r + 0 }' "$OUT/churn.out")"
	cur="$t_us ${ticks:-0} ${seen:-0} $ctxt $forks $threads $rts $pt"
	if [ -n "$prev" ]; then
		awk -v p="$prev" -v c="$cur" -v t0="$t0_us" -v hz="$HZ_TICKS" -v rss="$rss" -v fds="$fds" \
			-v lost="${lost:-0}" -v late="${late:-0}" -v f0="$f0" -v f1="$f1" -v c0="${cur0:-0}" -v c1="${cur1:-0}" 'BEGIN {
			split(p, a, " "); split(c, b, " "); dt = (b[1] - a[1]) / 1e6; lt = (b[8] - a[8]) / 1e6
			# the load'"'"'s rates: empty (missing) when it printed no new progress line since the last sample
			if (lt > 0) load = sprintf("%.0f,%.0f,%.0f", (b[5] - a[5]) / lt, (b[6] - a[6]) / lt, (b[7] - a[7]) / lt)
			else load = ",,"
			printf "%.1f,%d,%d,%.1f,%d,%d,%d,%.0f,%.0f,%s,%d,%d,%d,%d\n", (b[1] - t0) / 1e6, rss, fds,
				100 * (b[2] - a[2]) / hz / dt, b[3], lost, late, (b[3] - a[3]) / dt, (b[4] - a[4]) / dt,
				load, f0, f1, c0, c1 }' >>"$CSV"
	fi
	prev=$cur
done
)
wait "$churn_pid"
churn_rc=$?
chrt -a -o -p 0 "$EMU_PID" >/dev/null || fail "emulator back to SCHED_OTHER"
chrt -o -p 0 "$DBUS_PID" >/dev/null || fail "dbus-daemon back to SCHED_OTHER"
churn_pid=
churn_summary=$(grep '^churn:' "$OUT/churn.out")
echo "# $churn_summary"
[ "$churn_rc" = 0 ] && ok "the load ran $SECONDS_LOAD s" || fail "the load ran" "churn exited $churn_rc" "$(tail "$OUT/churn.out")"
read -r end_seen end_lost end_late _ <<<"$(bus_counters)"

# --- checks on the samples ------------------------------------------------------------------------------------
# Figures over the samples after the warm-up: n, mean and min of events/s, forks/s, threads/s, context
# switches/s; RSS at the reference (first sample past the warm-up), its min and max; fds min and max over all
# samples; the daemon's mean CPU %.
stats=$(awk -F, -v w="$WARMUP" 'NR == 1 { next }
	NR == 2 { rss_first = $2; fd_min = fd_max = fd_first = $3 }
	{ if ($3 < fd_min) fd_min = $3; if ($3 > fd_max) fd_max = $3; rss_last = $2; fd_last = $3 }
	$1 >= w { n++; if (n == 1) { ref = min = max = $2; emin = $8 }
		if ($2 < min) min = $2; if ($2 > max) max = $2; if ($8 < emin) emin = $8
		ev += $8; cs += $9; cpu += $4 }
	END { if (n == 0) { print "n 0"; exit }
		printf "n %d events %.0f events_min %.0f ctxt %.0f cpu %.1f rss_first %d rss_ref %d rss_min %d rss_max %d rss_last %d fd_min %d fd_max %d fd_first %d fd_last %d\n",
			n, ev / n, emin, cs / n, cpu / n, rss_first, ref, min, max, rss_last, fd_min, fd_max, fd_first, fd_last }' "$CSV")
# The load's own rates after the warm-up, from its progress lines (its clock): forks, threads, round trips.
stats="$stats $(awk -v w="$WARMUP" '/^start/ { s = $2 } /^progress/ && $2 - s >= w * 1e9 {
		if (!t0) { t0 = $2; f0 = $4; h0 = $6; r0 = $8 } t1 = $2; f1 = $4; h1 = $6; r1 = $8 }
	END { d = (t1 - t0) / 1e9; if (d <= 0) d = 1
		printf "forks %.0f threads %.0f roundtrips %.0f", (f1 - f0) / d, (h1 - h0) / d, (r1 - r0) / d }' "$OUT/churn.out")"
declare -A S
# shellcheck disable=SC2086 # word splitting into name value pairs
set -- $stats
while [ $# -ge 2 ]; do S[$1]=$2; shift 2; done

if [ "${S[n]}" -lt 10 ]; then
	fail "enough samples after the warm-up" "${S[n]} samples ($stats)"
	finish
fi
ok "${S[n]} samples after the $WARMUP s warm-up"

awk -v f="${S[forks]}" -v t="${S[threads]}" -v F="$FORKS" -v T="$THREADS" 'BEGIN { exit !(f >= 0.95 * F && t >= 0.95 * T) }' \
	&& ok "churn: ${S[forks]} forks/s and ${S[threads]} threads/s (asked $FORKS and $THREADS)" \
	|| fail "churn reaches the asked rates" "${S[forks]} forks/s, ${S[threads]} threads/s, asked $FORKS and $THREADS"

if [ "$MIN_EVENTS" -gt 0 ]; then
	awk -v e="${S[events]}" -v m="$MIN_EVENTS" 'BEGIN { exit !(e >= m) }' \
		&& ok "events/s: mean ${S[events]} >= $MIN_EVENTS" || fail "events/s: mean ${S[events]} >= $MIN_EVENTS"
else
	ok "events/s: mean ${S[events]} (min ${S[events_min]}; ${S[ctxt]} context switches/s; no floor asked)"
fi

band=$(awk -v r="${S[rss_ref]}" -v lo="${S[rss_min]}" -v hi="${S[rss_max]}" 'BEGIN { printf "%+.2f %% / %+.2f %%", 100 * (lo - r) / r, 100 * (hi - r) / r }')
awk -v r="${S[rss_ref]}" -v lo="${S[rss_min]}" -v hi="${S[rss_max]}" -v p="$RSS_PCT" \
	'BEGIN { exit !(hi <= r * (1 + p / 100) && lo >= r * (1 - p / 100)) }' \
	&& ok "RSS flat after the warm-up: ${S[rss_ref]} kB, min/max $band (band +-$RSS_PCT %)" \
	|| fail "RSS flat after the warm-up (+-$RSS_PCT %)" "reference ${S[rss_ref]} kB, min ${S[rss_min]}, max ${S[rss_max]} ($band)"

# No growth: the same count at the end as at the start, and nothing but a transient open or two (a
# /proc/PID/comm read, a D-Bus reply) in between.
[ "${S[fd_last]}" = "${S[fd_first]}" ] && [ "${S[fd_max]}" -le $(( ${S[fd_first]} + 2 )) ] \
	&& ok "open fds: ${S[fd_first]} at the start and the end of the load (min ${S[fd_min]}, max ${S[fd_max]})" \
	|| fail "open fds do not grow under load" "first ${S[fd_first]}, last ${S[fd_last]}, min ${S[fd_min]}, max ${S[fd_max]}"

lost_pct=$(awk -v l="${end_lost:-0}" -v s="${end_seen:-0}" 'BEGIN { printf "%.4f", (s > 0 ? 100 * l / s : 0) }')
if [ -n "$end_lost" ] && awk -v p="$lost_pct" -v m="$MAX_LOST_PCT" 'BEGIN { exit !(p <= m) }'; then
	ok "lost events: $end_lost of $end_seen ($lost_pct %, at most $MAX_LOST_PCT %), late $end_late"
else
	fail "lost events at most $MAX_LOST_PCT %" "lost ${end_lost:-?} of ${end_seen:-?} ($lost_pct %)"
fi

# --- after the load: no policy left at a stale frequency -----------------------------------------------------
# The machine may not go quiet (it is shared), so each policy is watched from its own CPU: a light periodic
# task on it (1 % of 20 ms) gives the daemon the events an idle NOHZ CPU would not, and the policy must come
# down to a low frequency with the emulator and the daemon agreeing. The script's own commands stay on the
# other CPU meanwhile (every new process is a task with the kernel's initial util).
settled_khz=
current_khz() { bctl get-property "$NAME" "$OBJ/policy/$1" "$NAME.Policy" CurrentKHz 2>/dev/null | cut -d' ' -f2; }
# CPU P's busy share (%) since the last call (/proc/stat; -> busy_pct): another session's work keeps a policy
# up rightly.
declare -A busy_prev
busy_pct=
cpu_busy() {
	local now
	now=$(awk -v c="cpu$1" '$1 == c { print $2 + $3 + $4 + $7 + $8, $2 + $3 + $4 + $5 + $6 + $7 + $8 }' /proc/stat)
	busy_pct=$(awk -v a="${busy_prev[$1]:-0 0}" -v b="$now" 'BEGIN { split(a, x); split(b, y); d = y[2] - x[2]
		printf "%.0f", (d > 0 ? 100 * (y[1] - x[1]) / d : 0) }')
	busy_prev[$1]=$now
}
settled() { # POLICY: scaling_cur_freq low and equal to CurrentKHz, read before and after it (-> settled_khz)
	local f c1 c2
	c1=$(current_khz "$1")
	f=$(emu_exec cat "$CPUFREQ/policy$1/scaling_cur_freq")
	c2=$(current_khz "$1")
	cpu_busy "$1"
	settled_khz="$f kHz, CurrentKHz $c1/$c2, CPU $1 $busy_pct % busy"
	[ -n "$f" ] && [ "$f" -le "$LOW_KHZ" ] && [ "$f" = "$c1" ] && [ "$f" = "$c2" ]
}
poke_start() { "$HOG" --cpu "$1" --seconds 60 --duty 1 --period-ms 20 >/dev/null & poker=$!; }
poke_stop() { kill "$poker" 2>/dev/null; wait "$poker" 2>/dev/null; poker=; }
# The highest frequency policy P had from MONO_NS_FROM to MONO_NS_TO: the one in force at the start (the last
# write before it) and every write in between. Another session's tasks may have raised it before the hog.
highest_khz() { # P FROM TO
	awk -v f="cpufreq/policy$1/scaling_cur_freq" -v a="$2" -v b="$3" \
		'$2 == f && $1 <= a { last = $3 } $2 == f && $1 > a && $1 <= b && $3 > max { max = $3 }
		END { if (last > max) max = last; print max + 0 }' "$EMU_LOG"
}
for p in 0 1; do
	other=$((1 - p))
	taskset -p -c "$other" $$ >/dev/null
	poke_start "$p"
	wait_for "settled $p" 60 && ok "after the load, policy$p settles low: $settled_khz" \
		|| fail "after the load, policy$p settles low with scaling_cur_freq == CurrentKHz" "$settled_khz"
	poke_stop
	launch=$("$BUILD/tests/helpers/monotonic")
	"$HOG" --cpu "$p" --seconds 1 >/dev/null
	hog_end=$("$BUILD/tests/helpers/monotonic")
	raised=$(highest_khz "$p" "$launch" "$hog_end")
	[ "$raised" -ge "$HIGH_KHZ" ] && ok "a 1 s hog on CPU $p still raises policy$p (to $raised kHz)" \
		|| fail "a 1 s hog on CPU $p raises policy$p" "highest $raised kHz" "$(grep "policy$p/scaling_cur_freq" "$EMU_LOG" | tail -5)"
	poke_start "$p"
	wait_for "settled $p" 60 && ok "policy$p drops again after the hog: $settled_khz" \
		|| fail "policy$p drops again after the hog" "$settled_khz"
	poke_stop
done
taskset -p -c "$(cat /sys/devices/system/cpu/online)" $$ >/dev/null

# --- SIGTERM: clean exit, policies handed back -----------------------------------------------------------------
read -r quiet_seen quiet_lost _ <<<"$(bus_counters)"
kill -TERM "$daemon_pid"
wait "$daemon_pid"
rc=$?
daemon_pid=
governors=$(emu_sh "cat $CPUFREQ/policy*/scaling_governor | sort -u")
[ "$rc" = 0 ] && [ "$governors" = schedutil ] && ok "SIGTERM: exit 0, both policies back to schedutil" \
	|| fail "SIGTERM: exit 0, policies restored" "rc $rc, governors $governors" "$(show_daemon_log)"
summary=$(grep -m1 'Events (' "$OUT/daemon.log")
sum_lost=$(sed -n 's/.*Events ([^)]*): [0-9]* (late [0-9]*, lost \([0-9]*\).*/\1/p' <<<"$summary")
[ -n "$sum_lost" ] && [ "$sum_lost" -ge "${end_lost:-0}" ] \
	&& ok "exit summary accounts the lost events ($sum_lost; on D-Bus: $end_lost at the end of the load, $quiet_lost after the checks)" \
	|| fail "exit summary accounts the lost events" "summary: $summary" "D-Bus at the end of the load: $end_lost"

# --- plot and summary ----------------------------------------------------------------------------------------
if gnuplot -e "csv='$CSV'; outdir='$PLOT_DIR'; warmup=$WARMUP; rss_ref=${S[rss_ref]}; band=$RSS_PCT" "$REPO/tests/soak/soak.gp" 2>"$TMP/gnuplot.err"; then
	ok "plots: $PLOT_DIR/soak-rss.png, $PLOT_DIR/soak-events.png"
else
	fail "gnuplot plots" "$(cat "$TMP/gnuplot.err")"
fi

cat <<EOF
# ---- soak summary ----
# machine: $(nproc) CPUs, $(uname -r); load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)
# load: $SECONDS_LOAD s, churn --pairs $PAIRS --forks $FORKS --threads $THREADS; $churn_summary
# after the $WARMUP s warm-up (${S[n]} samples): events/s mean ${S[events]} (min ${S[events_min]}),
#   context switches/s ${S[ctxt]} (ping-pong round trips/s ${S[roundtrips]}), forks/s ${S[forks]}, threads/s ${S[threads]},
#   daemon CPU ${S[cpu]} %
# RSS: ${S[rss_first]} kB at the first sample, ${S[rss_ref]} kB after the warm-up, min ${S[rss_min]} / max ${S[rss_max]}
#   ($band), ${S[rss_last]} kB at the end
# fds: ${S[fd_first]} at the start, ${S[fd_last]} at the end, min ${S[fd_min]}, max ${S[fd_max]}
# events: $end_seen seen, $end_lost lost ($lost_pct %), $end_late late; exit summary: $summary
# CSV: $CSV
EOF
finish
