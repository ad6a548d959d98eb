#!/bin/bash
# asan: yes
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck disable=SC2016
#
# Malformed D-Bus calls get D-Bus errors, never a crash (issue 10 item 7). The daemon runs as in test-dbus.sh
# (a private system-like dbus-daemon, the emulated cpufreq, --bus-address); as root, so that the bus policy
# lets everything through to the daemon and what is tested is the daemon's own handling. Each case asserts the
# error's name: with dbus-send, which prints it ("Error NAME: message") and sends what it is told without
# introspecting first, and with busctl, which builds any signature (huge arrays) and prints sd-bus's message.
#   - unknown objects (out-of-range, malformed and overflowing numbers in the path), interfaces, methods and
#     properties;
#   - wrong signatures on every method and on Properties.Get/Set, huge arrays and strings, read-only Set;
#   - out-of-range arguments (GetDecisions with UINT32_MAX);
# then, after 200 malformed calls at once, that the daemon is alive, still owns its name, still answers, was
# not paused, still governs (a hog on a quiet CPU makes it raise that policy; with both CPUs busy with other
# load, both policies sit at their maximum while events keep coming), exits cleanly on SIGTERM with the
# policies restored, and printed no sanitizer report.

. "$(dirname "$0")/lib.sh"
. "$REPO/tests/dbus/bus.sh"

SFD=$SCHEDFREQD
HOG="$BUILD/tests/helpers/hog"
PROPS=org.freedesktop.DBus.Properties
E=org.freedesktop.DBus.Error
TMP=$(mktemp -d /tmp/schedfreqd-test-dbus-misuse.XXXXXX)
at_exit 'rm -rf "$TMP"'
CPUFREQ=/sys/devices/system/cpu/cpufreq

dbus_start "$TMP/bus" || { fail "private dbus-daemon starts"; finish; }
emu_start "$REPO/tests/fixtures/topology/two-policies.ini" || { fail "emulator start"; finish; }

show_daemon_log() { sed 's/^/# daemon: /' "$TMP/err" | tail -n 30; }
govs() { emu_sh "cat $CPUFREQ/policy*/scaling_governor | sort -u"; }

: >"$TMP/schedfreqd.conf"
emu_daemon_start "$TMP/state" "$TMP/schedfreqd.conf" "$TMP/err" "$TMP/out" --bus-address "$DBUS_ADDRESS"
rc=$?
daemon_pid=$EMU_DAEMON_PID
if [ $rc -eq 0 ]; then
	ok "daemon takes over and owns $NAME"
else
	fail "daemon takes over and owns $NAME" "$(show_daemon_log)"
	finish
fi

# send NAME EXPECTED_ERROR PATH INTERFACE.MEMBER [ARGS...]: dbus-send must print "Error EXPECTED_ERROR: ...".
send() {
	local label=$1 want=$2 out
	shift 2
	out=$(timeout 10 dbus-send --system --print-reply --reply-timeout=5000 --dest="$NAME" "$@" 2>&1)
	if grep -q "^Error $want: " <<<"$out"; then
		ok "$label: $want"
	else
		fail "$label: $want" "$(head -c 600 <<<"$out")"
	fi
}

# bcall NAME EXPECTED_MESSAGE_REGEX busctl-call-args...: busctl must fail with sd-bus's message for that error.
bcall() {
	local label=$1 want=$2 out rc
	shift 2
	out=$(timeout 10 busctl --system --no-pager --timeout=5 call "$NAME" "$@" 2>&1)
	rc=$?
	if [ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -Eq "$want" <<<"$out"; then
		ok "$label"
	else
		fail "$label" "rc=$rc" "$(head -c 600 <<<"$out")"
	fi
}

# --- unknown objects, interfaces, methods --------------------------------------------------------------------
# Policy and CPU numbers: not in the topology, a leading zero, past CPU_SETSIZE, past 2^32 (must not wrap to 1),
# trailing garbage; the parent node; a name that is no object.
for p in policy/99 policy/01 policy/1024 policy/4294967297 policy/1x policy cpu/2 cpu/4294967296 nope; do
	send "Get on $OBJ/$p" "$E.UnknownObject" "$OBJ/$p" "$PROPS.Get" string:"$NAME.Policy" string:Id
done
send "Introspect $OBJ/policy/99" "$E.UnknownObject" "$OBJ/policy/99" org.freedesktop.DBus.Introspectable.Introspect
send "GetAll on /" "$E.UnknownObject" / "$PROPS.GetAll" string:"$NAME"
send "unknown method" "$E.UnknownMethod" "$OBJ" "$NAME.Frobnicate"
send "unknown interface" "$E.UnknownMethod" "$OBJ" io.github.schedfreqd.Nope.GetDecisions uint32:1
send "a method of another object's interface" "$E.UnknownMethod" "$OBJ/cpu/1" "$NAME.Pause"
send "ObjectManager on a CPU object" "$E.UnknownMethod" "$OBJ/cpu/1" org.freedesktop.DBus.ObjectManager.GetManagedObjects
send "GetAll of an unknown interface" "$E.UnknownInterface" "$OBJ" "$PROPS.GetAll" string:io.github.Nope

# --- properties --------------------------------------------------------------------------------------------------
send "Get of an unknown property" "$E.UnknownProperty" "$OBJ" "$PROPS.Get" string:"$NAME" string:Nope
send "Get of another interface's property" "$E.UnknownProperty" "$OBJ" "$PROPS.Get" string:"$NAME.Policy" string:Id
send "Get with one argument" "$E.InvalidArgs" "$OBJ" "$PROPS.Get" string:"$NAME"
send "Get with a wrong type" "$E.InvalidArgs" "$OBJ" "$PROPS.Get" int32:1 int32:2
send "Set of a read-only property" "$E.PropertyReadOnly" "$OBJ" "$PROPS.Set" string:"$NAME" string:Paused variant:boolean:true
send "Set with a wrongly typed value" "$E.PropertyReadOnly" "$OBJ" "$PROPS.Set" string:"$NAME" string:Paused variant:string:x
send "Set of an unknown property" "$E.UnknownProperty" "$OBJ" "$PROPS.Set" string:"$NAME" string:Nope variant:uint32:1
send "Set of a policy's limit" "$E.PropertyReadOnly" "$OBJ/policy/1" "$PROPS.Set" string:"$NAME.Policy" string:MaxKHz variant:uint32:1

# --- wrong signatures on every method ------------------------------------------------------------------------------
send "GetDecisions(s)" "$E.InvalidArgs" "$OBJ" "$NAME.GetDecisions" string:x
send "GetDecisions()" "$E.InvalidArgs" "$OBJ" "$NAME.GetDecisions"
send "GetDecisions(uu)" "$E.InvalidArgs" "$OBJ" "$NAME.GetDecisions" uint32:1 uint32:2
send "GetDecisions(i -1)" "$E.InvalidArgs" "$OBJ" "$NAME.GetDecisions" int32:-1
for m in Pause Resume Reload; do
	send "$m(u)" "$E.InvalidArgs" "$OBJ" "$NAME.$m" uint32:1
done
send "Reload(s) naming another file" "$E.InvalidArgs" "$OBJ" "$NAME.Reload" string:/etc/shadow

# --- huge arguments (busctl builds any signature) ------------------------------------------------------------------
bcall "GetDecisions with a 100000-element array: InvalidArgs" "Invalid arguments 'au' to call $NAME\.GetDecisions\(\), expecting 'u'" \
	"$OBJ" "$NAME" GetDecisions au 100000 $(seq 100000)
big=$(head -c 100000 /dev/zero | tr '\0' x)
bcall "GetDecisions with a 100 kB string: InvalidArgs" "Invalid arguments 's' to call" "$OBJ" "$NAME" GetDecisions s "$big"
bcall "GetAll of a 100 kB interface name: UnknownInterface" "Unknown interface 'x{100}" "$OBJ" "$PROPS" GetAll s "$big"
bcall "Get of a 100 kB property name: UnknownProperty" "Unknown interface $NAME or property x{100}" "$OBJ" "$PROPS" Get ss "$NAME" "$big"
bcall "Pause with a dict of 10000 entries: InvalidArgs" "Invalid arguments 'a\{sv\}' to call $NAME\.Pause\(\)" \
	"$OBJ" "$NAME" Pause 'a{sv}' 10000 $(seq -f 'k%g u 1' 10000)

# --- out-of-range arguments ------------------------------------------------------------------------------------------
out=$(busctl --system --no-pager --json=short call "$NAME" "$OBJ" "$NAME" GetDecisions u 4294967295 2>&1)
n=$(python3 -c 'import json,sys; print(len(json.load(sys.stdin)["data"][0]))' <<<"$out" 2>&1)
[ "$n" -ge 0 ] 2>/dev/null && [ "$n" -le 2048 ] && ok "GetDecisions(UINT32_MAX): $n records (<= 2048, the ring)" \
	|| fail "GetDecisions(UINT32_MAX) returns at most the ring" "$n" "$(head -c 300 <<<"$out")"

# --- a storm: 200 malformed calls at once, some not waiting for their reply --------------------------------------------
pids=()
for i in $(seq 100); do
	busctl --system --no-pager --timeout=10 call "$NAME" "$OBJ" "$NAME" GetDecisions s "$i" >/dev/null 2>&1 &
	pids+=($!)
	busctl --system --no-pager --expect-reply=no call "$NAME" "$OBJ" "$NAME" Frobnicate >/dev/null 2>&1 &
	pids+=($!)
done
wait "${pids[@]}"
ok "200 concurrent malformed calls sent"

# --- afterwards: alive, answering, not paused, governing, clean -------------------------------------------------------
if kill -0 "$daemon_pid" 2>/dev/null && dbus_has_name; then
	ok "the daemon is alive and still owns $NAME"
else
	fail "the daemon is alive and still owns $NAME" "$(show_daemon_log)"
	finish
fi
out=$(busctl --system --no-pager call "$NAME" "$OBJ" "$NAME" GetDecisions u 1 2>&1)
paused=$(busctl --system --no-pager get-property "$NAME" "$OBJ" "$NAME" Paused 2>&1)
id=$(busctl --system --no-pager get-property "$NAME" "$OBJ/policy/1" "$NAME.Policy" Id 2>&1)
if grep -q '^a(tuuuissbsuttus) [01] ' <<<"$out" && [ "$paused" = "b false" ] && [ "$id" = "u 1" ] && [ "$(govs)" = userspace ]; then
	ok "well-formed calls still answered; not paused; policies still on userspace"
else
	fail "well-formed calls still answered; not paused" "$out" "$paused" "$id" "$(govs)"
fi
# Governing: from a low policy, a hog on its CPU makes the daemon write a higher scaling_setspeed. An idle CPU
# keeps its frequency until an event on it (NOHZ, as in the kernel), so a short task on each CPU now and then
# lets the policies come down first; whichever CPU other load on this machine leaves quiet is used (policyN is
# CPU N here). The polling itself starts no task (each new task raises its CPU's policy: the kernel's initial
# util): the frequencies come from the emulator's log, read by bash alone. When other load keeps both CPUs busy
# (seen while fuzzers ran), no policy comes down and a hog changes nothing: then governing shows as the model
# still taking events and holding both busy policies at their maximum.
prop() { busctl --system --no-pager get-property "$NAME" "$@" 2>&1 | cut -d' ' -f2-; }
polls=0
low_policy() { # sets cpu to a CPU whose policy is at <= 1.2 GHz as of line $mark of the log
	local c file khz
	local -A cur=([0]=2400000 [1]=2400000)
	polls=$((polls + 1))
	if [ $((polls % 10)) = 1 ]; then taskset -c 0 true; taskset -c 1 true; fi
	# The frequencies as of a line counted first: a raise written while this reads comes after the mark, and the
	# hog's check below sees it (a raise by other load that moment is a raise all the same: still governing).
	mark=$(wc -l <"$EMU_LOG")
	while read -r _ file khz _; do
		case $file in cpufreq/policy[01]/scaling_cur_freq) c=${file#cpufreq/policy}; cur[${c%%/*}]=$khz ;; esac
	done < <(head -n "$mark" "$EMU_LOG")
	for c in 0 1; do
		[ "${cur[$c]}" -le 1200000 ] && { cpu=$c; return 0; }
	done
	return 1
}
cpu=
mark=
mark0=$(wc -l <"$EMU_LOG")
wait_for 'low_policy' 10
if [ -n "$cpu" ]; then
	low=1200000
	"$HOG" --cpu "$cpu" --seconds 1 >/dev/null
	raised() {
		tail -n +$((mark + 1)) "$EMU_LOG" | awk -v f="cpufreq/policy$cpu/scaling_setspeed" -v low="$low" \
			'$2 == f && $4 == "ok" && $3 > low { raised = 1 } END { exit !raised }'
	}
	# Under valgrind the daemon's reaction can trail the 1 s hog: the raise may be written after it ended.
	if raised || { under_valgrind && wait_for raised 2; }; then
		ok "still governing: a hog on CPU $cpu raised policy$cpu above 1.2 GHz"
	else
		fail "still governing after the misuse" "policy$cpu was at <= 1.2 GHz" "$(tail -n 5 "$EMU_LOG")" "$(show_daemon_log)"
	fi
else
	# Other load kept both policies up: governing shows as the model still taking events and the daemon still
	# writing: a write since the misuse ended (the log after $mark0), as other load moves the policies.
	# shellcheck disable=SC2034 # read by wait_for's eval
	events=$(prop "$OBJ" "$NAME" EventsSeen)
	wrote() { tail -n +$((mark0 + 1)) "$EMU_LOG" | grep -q 'scaling_setspeed [0-9]* ok$'; }
	if wait_for '[ "$(prop "$OBJ" "$NAME" EventsSeen)" -gt "$events" ]' 5 && wait_for wrote 10; then
		ok "still governing: no policy came down (other load), but events are still taken and frequencies written"
	else
		fail "still governing after the misuse" "no policy came down to 1.2 GHz in 10 s, and no write since" \
			"$(tail -n 8 "$EMU_LOG")" "$(show_daemon_log)"
	fi
fi

kill -TERM "$daemon_pid"
wait "$daemon_pid"
rc=$?
daemon_pid=
EMU_DAEMON_PID=
[ $rc -eq 0 ] && [ "$(govs)" = schedutil ] && ok "SIGTERM: clean exit, policies restored" \
	|| fail "SIGTERM: clean exit, policies restored" "rc=$rc" "$(show_daemon_log)"
grep -q 'ERROR: AddressSanitizer\|runtime error:' "$TMP/err" && fail "no sanitizer reports" "$(show_daemon_log)" || ok "no sanitizer reports"

emu_stop
dbus_stop
finish
