#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Kills (issue #11, docs/reliability.md "Kills"): the daemon is started and killed at random moments, KILLS_N times
# (default 300; `make soak`: 1000), on one emulated cpufreq tree (two per-CPU policies, acpi-cpufreq, global
# schedutil tunables) and one private dbus-daemon. Each kill:
#   1. sets a random initial state as an administrator would (echo into sysfs, now and then cpupower): each
#      policy's governor among those offered (schedutil three times as often), scaling_max/min_freq (table values
#      and others, min above max too), a setspeed under userspace, schedutil's rate_limit_us; then snapshots, byte
#      for byte, what the daemon may write (scaling_governor, scaling_setspeed, rate_limit_us), the limits, and
#      scaling_cur_freq where the governor fixes it (performance, powersave, userspace; under the others the
#      emulator keeps whatever frequency it was last given: it does not model their decisions);
#   2. starts the daemon (a third of the time with a CPU hog, so that it is writing decisions when it dies;
#      a quarter of the time on the bus, always when the kill needs it) and kills it one of three ways:
#        signal   TERM, INT, KILL, SEGV or ABRT 0..300 ms after the exec (start-up to READY takes ~100 ms here);
#        point    SCHEDFREQD_CRASH_AT=NAME#N:SIGNAL (include/crash-point.h) plus the request that leads there:
#                 none (start-up, take-over), SIGHUP (reload), D-Bus Pause, Pause then Resume, SIGTERM (shutdown);
#                 the point's log line must appear (a misspelt point would test nothing);
#        during   a request, then a signal 0..40 ms later: reload (SIGHUP), pause, resume, shutdown (SIGTERM, then
#                 KILL, SEGV, ABRT or INT 0..7 ms later: the restore takes a few ms);
#   3. waits (bounded) for the daemon's PID to be gone; after a TERM/INT death checks that the daemon restored
#      everything itself (no state file; restore has nothing to do); runs `schedfreqd restore --state-file F` as
#      ExecStopPost does; compares the snapshot byte for byte; checks the state file is gone. A temporary state
#      file left by a death between its creation and its rename is counted and printed, not failed (no policy is
#      left behind: docs/reliability.md).
# The first two kills are fixed cases (failures the random ones found); the rest are drawn from KILLS_SEED
# (printed; KILLS_SEED=N replays a run's choices, not its timing). One "ok" line per kind of kill with counts and
# the mean time; a "not ok" per failing kill (the first 10 in full) with what was done and the diff.
# Runs as root; the loop runs inside the emulator's mount namespace (no process per sysfs read or write).

# shellcheck disable=SC2016 # at_exit and until_within take code to eval later, single-quoted on purpose
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/dbus/bus.sh
. "$REPO/tests/dbus/bus.sh"

SFD=$SCHEDFREQD
HOG="$BUILD/tests/helpers/hog"
CPUFREQ=/sys/devices/system/cpu/cpufreq

# ---- outside: the bus, the emulator, then this script again inside the emulator's namespace -------------------
# Inside, the loop runs with no process per attribute read or write (bash builtins on the emulated sysfs) and no
# nsenter per command: about 0.2 s per kill on a quiet VM, most of it the daemon starting and the kernel ending it.
# Two trees, one after the other: three quarters of the kills on two per-CPU policies with global schedutil
# tunables (two-policies.ini), a quarter on one policy shared by both CPUs whose driver keeps the tunables in
# the policy's directory (policy0/schedutil/rate_limit_us, CPUFREQ_HAVE_GOVERNOR_PER_POLICY).
if [ "${1:-}" != --inside ]; then
	TMP=$(mktemp -d /tmp/schedfreqd-test-kills.XXXXXX)
	at_exit 'rm -rf "$TMP"'
	KILLS_N=${KILLS_N:-300}
	KILLS_SEED=${KILLS_SEED:-$(( $(now_us) % 32768 ))}
	echo "# KILLS_N=$KILLS_N KILLS_SEED=$KILLS_SEED (replay the choices: KILLS_SEED=$KILLS_SEED KILLS_N=$KILLS_N)"
	cat >"$TMP/shared.ini" <<-EOF
	[system]
	online = 0-1
	possible = 0-1

	[policy0]
	cpus = 0-1
	driver = scmi
	cpuinfo_min_khz = 500000
	cpuinfo_max_khz = 2000000
	frequencies_khz = 500000 1000000 1500000 2000000
	transition_latency_ns = 100000
	governor = schedutil
	EOF
	dbus_start "$TMP/bus" || { fail "private dbus-daemon starts"; finish; }
	n_shared=$((KILLS_N / 4))
	for part in "two-policies $REPO/tests/fixtures/topology/two-policies.ini $((KILLS_N - n_shared)) 1" \
		"shared-policy $TMP/shared.ini $n_shared 0"; do
		read -r label topology n fixed <<<"$part"
		[ "$n" -gt 0 ] || continue
		emu_start "$topology" || { fail "emulator start ($topology)"; continue; }
		KILLS_LABEL=$label KILLS_PART_N=$n KILLS_FIXED=$fixed KILLS_PART_SEED=$((KILLS_SEED + fixed)) TMP=$TMP \
			nsenter -m -t "$EMU_NS_PID" --wd="$PWD" -- bash "$0" --inside || LIB_FAILED=1 # read by finish
		emu_stop
	done
	finish
fi

# ---- inside ---------------------------------------------------------------------------------------------------
DBUS_ADDRESS=$DBUS_SYSTEM_BUS_ADDRESS # bus.sh has just emptied it; dbus_start exported this one
STATE="$TMP/state"
RANDOM=$KILLS_PART_SEED

# A SEGV or ABRT must not leave core files behind.
ulimit -c 0

# Sleeping without a process per sleep: a read with a timeout on a FIFO nobody writes to. Used for the random
# delays (what is being tested) and between the polls of a bounded wait, never as synchronisation.
mkfifo "$TMP/never.$$"
exec {NEVER}<>"$TMP/never.$$"
rm -f "$TMP/never.$$"
nap() { read -r -t "$1" -u "$NEVER" _ || :; }

nap_ms() { # MS
	local s
	printf -v s '%d.%03d' $(($1 / 1000)) $(($1 % 1000))
	nap "$s"
}

# until_within TIMEOUT_S 'CONDITION': polls every 5 ms; 1 after TIMEOUT_S.
until_within() {
	local deadline=$(( $(now_us) + $1 * 1000000 ))
	until eval "$2"; do
		[ "$(now_us)" -ge "$deadline" ] && return 1
		nap 0.005
	done
}

: >"$TMP/schedfreqd.conf"
# schedutil is the default governor of distribution kernels: drawn three times as often as each other one.
GOVERNORS=(schedutil schedutil schedutil performance powersave ondemand conservative userspace)
FREQS=(800000 1200000 1600000 2000000 2400000 1000000 1700000 2200000)
RATE_LIMITS=(15 100 500 1000 2000 10000)
POLICY_DIRS=("$CPUFREQ"/policy*)

# Every attribute the daemon may write (scaling_governor, scaling_setspeed, schedutil's rate_limit_us) and the
# limits, as "NAME: CONTENT" with the content byte for byte (newline included); scaling_cur_freq only where
# the governor fixes the frequency (performance, powersave, userspace): under schedutil, ondemand and
# conservative the emulator keeps whatever frequency it was last given (it does not model their decisions).
# Into $SNAPSHOT.
read_attr() { # PATH NAME
	local v=
	IFS= read -r -d '' v <"$1"
	SNAPSHOT+="$2: $v"
}

snapshot() {
	local d p f gov
	SNAPSHOT=
	for d in "${POLICY_DIRS[@]}"; do
		p=${d##*/}
		gov=
		IFS= read -r -d '' gov <"$d/scaling_governor"
		for f in scaling_governor scaling_min_freq scaling_max_freq scaling_setspeed; do
			read_attr "$d/$f" "$p/$f"
		done
		[[ $gov == @(performance|powersave|userspace)$'\n' ]] && read_attr "$d/scaling_cur_freq" "$p/scaling_cur_freq"
		[ -e "$d/schedutil/rate_limit_us" ] && read_attr "$d/schedutil/rate_limit_us" "$p/schedutil/rate_limit_us"
	done
	[ -e "$CPUFREQ/schedutil/rate_limit_us" ] && read_attr "$CPUFREQ/schedutil/rate_limit_us" schedutil/rate_limit_us
}

# A random state, set the way an administrator would: echo into sysfs, now and then cpupower. Into $SETUP the
# description of what was done.
random_state() {
	local i gov lo hi speed d
	SETUP=
	N_SWITCHED=0 # policies the daemon switches to userspace, so that restoring writes their governor back
	for ((i = 0; i < ${#POLICY_DIRS[@]}; i++)); do
		d=${POLICY_DIRS[i]}
		gov=${GOVERNORS[RANDOM % ${#GOVERNORS[@]}]}
		[ -n "${FIXED_GOVS[i]:-}" ] && gov=${FIXED_GOVS[i]}
		[ "$gov" != userspace ] && N_SWITCHED=$((N_SWITCHED + 1))
		lo=${FREQS[RANDOM % ${#FREQS[@]}]}
		hi=${FREQS[RANDOM % ${#FREQS[@]}]}
		if ((RANDOM % 8 == 0)); then
			cpupower -c "$i" frequency-set -g "$gov" >/dev/null 2>&1 || echo "# cpupower -c $i frequency-set -g $gov failed"
			SETUP+="cpupower ${d##*/} -g $gov; "
		else
			echo "$gov" >"$d/scaling_governor"
			SETUP+="${d##*/} $gov; "
		fi
		# Max first, then min: a minimum above the maximum is clamped by the kernel (freq QoS), not refused.
		echo "$hi" >"$d/scaling_max_freq"
		echo "$lo" >"$d/scaling_min_freq"
		SETUP+="max $hi min $lo; "
		if [ "$gov" = userspace ]; then
			speed=${FREQS[RANDOM % ${#FREQS[@]}]}
			echo "$speed" >"$d/scaling_setspeed"
			SETUP+="setspeed $speed; "
		fi
	done
	# schedutil's tunables: global, or in each policy's directory (CPUFREQ_HAVE_GOVERNOR_PER_POLICY).
	for d in "$CPUFREQ" "${POLICY_DIRS[@]}"; do
		[ -e "$d/schedutil/rate_limit_us" ] || continue
		i=${RATE_LIMITS[RANDOM % ${#RATE_LIMITS[@]}]}
		[ -n "${FIXED_RATE_LIMIT:-}" ] && i=$FIXED_RATE_LIMIT
		echo "$i" >"$d/schedutil/rate_limit_us"
		SETUP+="${d##*/}/schedutil/rate_limit_us $i; "
	done
}

daemon_pid=
hog_pid=
call_pid=
at_exit '[ -n "$daemon_pid" ] && kill -KILL "$daemon_pid" 2>/dev/null'
at_exit '[ -n "$hog_pid" ] && kill -KILL "$hog_pid" 2>/dev/null'
at_exit '[ -n "$call_pid" ] && kill -KILL "$call_pid" 2>/dev/null'

# Starts the daemon and returns once it runs the daemon's program: a signal sent earlier would reach the forked
# shell, which loses it (bash's own handler for TERM, INT or ABRT runs until exec, then exec drops it). SIGINT
# back to its default: bash starts background commands with it ignored, systemd does not.
ENV=$(command -v env)
start_daemon() { # CRASH_AT BUS(0|1)
	local bus=(--no-bus)
	[ "$2" = 1 ] && bus=(--bus-address "$DBUS_ADDRESS")
	: >"$TMP/err" # now, not in the child: the last run's "running." must not be read as this one's
	SCHEDFREQD_CRASH_AT=$1 "$ENV" --default-signal=INT "$SFD" -c "$TMP/schedfreqd.conf" --state-file "$STATE" \
		"${bus[@]}" >/dev/null 2>>"$TMP/err" &
	daemon_pid=$!
	# Out of the job table: bash would print "Segmentation fault ..." for every crash (it still reaps it).
	disown "$daemon_pid"
	until_within 10 '! alive || ! { [ "/proc/$daemon_pid/exe" -ef "$BASH" ] || [ "/proc/$daemon_pid/exe" -ef "$ENV" ]; }' ||
		echo "# PID $daemon_pid did not exec $SFD within 10 s"
}

# Running, not a zombie: a child not reaped yet is still found by kill -0.
alive() {
	local stat
	{ read -r stat <"/proc/$daemon_pid/stat"; } 2>/dev/null || return 1
	stat=${stat##*) }
	[ "${stat:0:1}" != Z ]
}

# READY=1 was sent (the log line that follows it), or the daemon is gone.
ready_or_gone() {
	local line
	alive || return 0
	while IFS= read -r line; do
		[[ $line == *" running." ]] && return 0
	done <"$TMP/err"
	return 1
}

# TEXT is in the daemon's log.
logged() { # TEXT
	local line
	while IFS= read -r line; do
		[[ $line == *"$1"* ]] && return 0
	done <"$TMP/err"
	return 1
}

bus_call_async() { # METHOD
	busctl --system --timeout=5 call "$NAME" "$OBJ" "$NAME" "$1" >/dev/null 2>&1 &
	call_pid=$!
}

# Into $SIG (not through $(...): a subshell's RANDOM is seeded anew, and a run could not be replayed).
SIGNALS=(TERM INT KILL SEGV ABRT)
random_signal() {
	SIG=${SIGNALS[RANDOM % ${#SIGNALS[@]}]}
}

# One iteration's kill, chosen at random: sets MODE (the group), WHAT (the details) and runs it. GRACEFUL=1
# when only TERM/INT were sent or raised (then the daemon must restore everything itself).
# NAME#N DRIVER; in N, P is the number of policies (a resume passes the take-over points again: P+1 is its first
# switch).
POINTS=(
	"start-up#1 -" "take-over:state-written#1 -" "take-over:switched#1 -" "take-over:switched#P -"
	"take-over:done#1 -" "reload#1 hup"
	"restore:governor#1 term" "restore:governor#P term" "restore:put-back#1 term" "restore:put-back#P term"
	"restore:remove#1 term"
	"restore:governor#1 pause" "restore:governor#P pause" "restore:put-back#1 pause" "restore:put-back#P pause"
	"restore:remove#1 pause"
	"take-over:state-written#2 resume" "take-over:switched#P+1 resume" "take-over:switched#2*P resume"
)
P=${#POLICY_DIRS[@]}
DURING=(reload pause resume shutdown)

kill_one() {
	local kind=$((RANDOM % 10)) sig delay_ms point driver use_bus=$((RANDOM % 4 == 0)) request n
	[ -n "${FIXED_POINT:-}" ] && kind=4
	random_signal
	sig=$SIG

	if ((kind < 4)); then
		delay_ms=$((RANDOM % 301))
		MODE="signal $sig at 0..300 ms"
		WHAT="kill -$sig ${delay_ms} ms after the start"
		start_daemon "" "$use_bus"
		nap_ms "$delay_ms"
		kill "-$sig" "$daemon_pid" 2>/dev/null
	elif ((kind < 7)); then
		read -r point driver <<<"${POINTS[RANDOM % ${#POINTS[@]}]}"
		[ -n "${FIXED_POINT:-}" ] && read -r point driver sig <<<"$FIXED_POINT"
		n=${point#*#}
		point="${point%#*}#$((${n//P/$P}))"
		# restore:governor is passed only by the policies whose governor is written back (not userspace).
		if [[ $point == restore:governor#* ]] && ((${point#*#} > N_SWITCHED)); then
			((N_SWITCHED > 0)) && point="restore:governor#$N_SWITCHED" || point="restore:put-back#${point#*#}"
		fi
		MODE="point ${point%#*}"
		[ "$driver" != - ] && MODE+=" ($driver)"
		WHAT="SCHEDFREQD_CRASH_AT=$point:$sig, driven by: $driver"
		CRASH_AT="$point:$sig"
		[[ $driver == @(pause|resume) ]] && use_bus=1
		start_daemon "$CRASH_AT" "$use_bus"
		if [ "$driver" != - ]; then
			until_within 10 ready_or_gone
			case $driver in
			hup) kill -HUP "$daemon_pid" 2>/dev/null ;;
			term) kill -TERM "$daemon_pid" 2>/dev/null ;;
			pause) bus_call_async Pause ;;
			resume)
				busctl --system --timeout=5 call "$NAME" "$OBJ" "$NAME" Pause >/dev/null 2>&1
				bus_call_async Resume
				;;
			esac
		fi
		# The point must have been reached: its log line (a typo in a name would test nothing).
		until_within 10 '! alive || logged "Crash point $point: "'
		logged "Crash point $point: " || POINT_MISSED="$point"
	else
		request=${DURING[RANDOM % ${#DURING[@]}]}
		delay_ms=$((RANDOM % 41))
		# Shutdown is TERM, then a second signal: another TERM would be the same request again. The restore
		# takes a few ms after the TERM: the second signal comes within 8 ms to land in it.
		[ "$request" = shutdown ] && [ "$sig" = TERM ] && sig=KILL
		[ "$request" = shutdown ] && delay_ms=$((RANDOM % 8))
		[[ $request == @(pause|resume) ]] && use_bus=1
		MODE="during $request"
		WHAT="$request, then kill -$sig ${delay_ms} ms later"
		start_daemon "" "$use_bus"
		until_within 10 ready_or_gone
		case $request in
		reload) kill -HUP "$daemon_pid" 2>/dev/null ;;
		pause) bus_call_async Pause ;;
		resume)
			busctl --system --timeout=5 call "$NAME" "$OBJ" "$NAME" Pause >/dev/null 2>&1
			bus_call_async Resume
			;;
		shutdown) kill -TERM "$daemon_pid" 2>/dev/null ;;
		esac
		nap_ms "$delay_ms"
		kill "-$sig" "$daemon_pid" 2>/dev/null
	fi
	GRACEFUL=0
	[[ $sig == @(TERM|INT) ]] && GRACEFUL=1
}

declare -A runs=() restored=() failures=() time_ms=()
n_fail=0 tmp_left=0
t0=$(now_us)
for ((iter = 1; iter <= KILLS_PART_N; iter++)); do
	# The first kills are fixed cases, each a failure found by the random ones, so that every run has them:
	#  1. killed between a schedutil policy's governor write and its rate limit's, no other policy on schedutil
	#     (the tunables start again from the default), during the shutdown and during a pause.
	FIXED_GOVS=() FIXED_RATE_LIMIT='' FIXED_POINT=''
	case $((KILLS_FIXED ? iter : 0)) in
	1) FIXED_GOVS=(performance schedutil) FIXED_RATE_LIMIT=500 FIXED_POINT="restore:governor#2 term KILL" ;;
	2) FIXED_GOVS=(schedutil ondemand) FIXED_RATE_LIMIT=2000 FIXED_POINT="restore:governor#1 pause SEGV" ;;
	esac
	random_state
	snapshot
	before=$SNAPSHOT

	# Busy now and then, so that the daemon is writing decisions when it dies: half a CPU, in 10 ms periods.
	hog_pid='' hog=no
	if ((RANDOM % 3 == 0)); then
		hog="cpu $((RANDOM % 2))"
		"$HOG" --cpu "${hog#cpu }" --seconds 5 --duty 50 --period-ms 10 >/dev/null &
		hog_pid=$!
	fi

	CRASH_AT='' POINT_MISSED='' MODE='' WHAT=''
	t_iter=$(now_us)
	kill_one
	problems=()
	if ! until_within 10 '! alive'; then
		problems+=("the daemon (PID $daemon_pid) still runs 10 s after the kill:" \
			"$(grep -E '^(State|SigQ|SigPnd|ShdPnd|SigBlk|SigIgn|SigCgt):' "/proc/$daemon_pid/status" | tr '\n' ' ')" \
			"wchan $(cat "/proc/$daemon_pid/wchan"); stat $(cat "/proc/$daemon_pid/stat")")
		kill -KILL "$daemon_pid" 2>/dev/null
	fi
	daemon_pid=
	[ -n "$call_pid" ] && { { wait "$call_pid"; } 2>/dev/null; call_pid=; }
	[ -n "$hog_pid" ] && { kill -KILL "$hog_pid" 2>/dev/null; { wait "$hog_pid"; } 2>/dev/null; hog_pid=; }
	[ -n "$POINT_MISSED" ] && problems+=("crash point $POINT_MISSED not reached")

	had_state=0
	[ -e "$STATE" ] && had_state=1
	if [ "$GRACEFUL" = 1 ] && [ $had_state = 1 ]; then
		problems+=("a TERM/INT death left the state file behind (the daemon did not restore itself)")
	fi

	# schedfreqd restore as ExecStopPost runs it: same binary, the service's state file. Without the crash point:
	# restore:governor is in code that restore shares with the daemon (policy_put_back()), and what is tested
	# is a restore after the daemon's death, not a restore that dies too.
	"$SFD" restore --state-file "$STATE" >"$TMP/restore" 2>&1
	restore_rc=$?
	snapshot
	after=$SNAPSHOT
	[ $restore_rc = 0 ] || problems+=("schedfreqd restore failed (exit status $restore_rc): $(<"$TMP/restore")")
	if [ "$GRACEFUL" = 1 ]; then
		restore_out=$(<"$TMP/restore")
		[[ $restore_out == "Nothing to restore"* ]] ||
			problems+=("after a TERM/INT death, restore had something to do: $restore_out")
	fi
	[ "$before" = "$after" ] || problems+=("policies differ after restore:" "$(diff <(echo "$before") <(echo "$after"))")
	[ -e "$STATE" ] && problems+=("the state file is still there after restore")
	# A death between the temporary state file's creation and its rename leaves it: not a policy left behind
	# (docs/reliability.md "Kills"). A restore that had a state file to put back removes such leftovers (it
	# holds the locks); without one there is nothing to restore and the next take-over removes them: counted.
	leftovers=("$STATE".*)
	if [ -e "${leftovers[0]}" ] && ((had_state)); then
		problems+=("restore left temporary state files: ${leftovers[*]##*/}")
	elif [ -e "${leftovers[0]}" ]; then
		tmp_left=$((tmp_left + 1))
		echo "# $KILLS_LABEL: kill $iter ($WHAT) left a temporary state file: ${leftovers[*]##*/}"
		rm -f "${leftovers[@]}"
	fi

	runs[$MODE]=$((${runs[$MODE]:-0} + 1))
	time_ms[$MODE]=$((${time_ms[$MODE]:-0} + ($(now_us) - t_iter) / 1000))
	((had_state)) && restored[$MODE]=$((${restored[$MODE]:-0} + 1))
	if [ ${#problems[@]} -gt 0 ]; then
		failures[$MODE]=$((${failures[$MODE]:-0} + 1))
		n_fail=$((n_fail + 1))
		if [ $n_fail -le 10 ]; then
			fail "$KILLS_LABEL: kill $iter: $MODE" "$WHAT; hog: $hog; initial state: $SETUP" "${problems[@]}" \
				"snapshot before:" "$before" "daemon log:" "$(tail -n 20 "$TMP/err")"
		fi
		# A failed restore leaves the state file: clear it so that the next iteration starts clean.
		[ -e "$STATE" ] && "$SFD" restore --force --state-file "$STATE" >/dev/null 2>&1
		rm -f "$STATE"
	fi
done
t1=$(now_us)

while IFS= read -r mode; do
	if [ -z "${failures[$mode]}" ]; then
		ok "kills, $KILLS_LABEL: $mode: ${runs[$mode]} runs (${restored[$mode]:-0} left a state file), every policy back byte for byte; $((time_ms[$mode] / runs[$mode])) ms each"
	else
		fail "kills, $KILLS_LABEL: $mode: ${failures[$mode]} of ${runs[$mode]} runs failed (details above, first 10)"
	fi
done < <(printf '%s\n' "${!runs[@]}" | sort)
echo "# $KILLS_LABEL: temporary state files left behind: $tmp_left of $KILLS_PART_N kills"
echo "# $KILLS_LABEL: $KILLS_PART_N kills in $(( (t1 - t0) / 1000 )) ms ($(( (t1 - t0) / 1000 / KILLS_PART_N )) ms each), $n_fail failed"
[ $n_fail -eq 0 ] && ok "kills, $KILLS_LABEL: $KILLS_PART_N kills, every policy restored byte for byte"
finish
