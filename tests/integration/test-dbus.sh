#!/bin/bash
# asan: yes
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The D-Bus API end to end: a private system-like dbus-daemon with the project's policy file (tests/dbus/),
# the real daemon over the emulated cpufreq (--bus-address), real scheduler events, busctl as the client.
#   - introspection shows every documented member;
#   - properties match the emulator (CurrentKHz == the last setspeed write, limits, driver, original governor);
#   - a CPU hog's decision shows up in GetDecisions, and decisions name their task (pid, the proc connector's name);
#   - GetRules: none without rules; two rules with their fields and FILE:LINE, a process started afterwards
#     (sleep) listed under the rule it matches; none again after a reload without rules;
#   - control from a non-root uid is denied by the bus policy, and (past a test policy that lets it through)
#     by the daemon's own uid check; reads stay open to everyone;
#   - Pause hands the policies back, Resume takes them again; Reload with a bad file returns FILE:LINE and
#     the daemon keeps running;
#   - PropertiesChanged stays <= 10/s per object under stress-ng, and idle on the bus the daemon wakes <= 6/s.

. "$(dirname "$0")/lib.sh"
. "$REPO/tests/dbus/bus.sh"

SFD=$SCHEDFREQD
HOG="$BUILD/tests/helpers/hog"
TMP=$(mktemp -d /tmp/schedfreqd-test-dbus.XXXXXX)
at_exit 'rm -rf "$TMP"'
CPUFREQ=/sys/devices/system/cpu/cpufreq

dbus_start "$TMP/bus" "$REPO/tests/dbus/second-fence.conf" || { fail "private dbus-daemon starts"; finish; }
ok "private system-like dbus-daemon (pid $DBUS_PID)"

emu_start "$REPO/tests/fixtures/topology/two-policies.ini" || { fail "emulator start"; finish; }

show_daemon_log() { sed 's/^/# daemon: /' "$TMP/err" | tail -n 30; }

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

# --- on the bus, a quiet machine still wakes it for nothing ---------------------------------------------------
# PropertiesChanged is looked for after the loop's wake-ups (a one-shot timer only for a trailing announcement),
# not by a timer of its own, and the timer's own wake-up does not look again. On bpf, judged by counts within one
# window (lib.sh idle_counts: each wake-up is a decision record, its write and its trailing announcement, a sysfs
# read, or the kernel side's once-a-second record; and, traced, no timer armed again from its own expiry): the
# announcement timer re-arming itself on the counters the kernel keeps between wake-ups made a 10/s tick there
# (a CI run: 49 wake-ups in 5 s for 4-6 writes; traced, 30 self re-arms in the window). On perf, whose wake-ups
# follow the machine's events, the bound of test-daemon normalised to a quiet machine (lib.sh idle_wakeups: 6/s),
# with 3 wake-ups per frequency write (a CI run on a busy host: 214 writes in the window, 13.6/s normalised with 2).
# Not under valgrind (its own CPU use is load on the CPUs it governs).
if ! under_valgrind && [ "$(events_source)" = bpf ]; then
	sleep 5 # settle: the test's own commands just before are not the quiet machine
	if idle_counts "$daemon_pid" "$TMP/err" 1; then
		ok "idle on the bus: $IDLE_SAYS"
	else
		fail "idle on the bus: daemon wake-ups accounted for by its work in the window" "$IDLE_SAYS" "$IDLE_JSON" \
			"$(show_daemon_log)"
	fi
elif ! under_valgrind; then
	idle_wakeups "$daemon_pid" 6 3
	if [ -n "$IDLE_NORM" ] && awk -v r="$IDLE_NORM" 'BEGIN { exit !(r <= 6) }'; then
		ok "idle on the bus: the daemon wakes $IDLE_NORM times a second on a quiet machine's scale (<= 6; windows: ${IDLE_WINDOWS[*]})"
	else
		fail "idle on the bus: the daemon wakes at most 6 times a second (normalised, lib.sh idle_wakeups)" "windows: ${IDLE_WINDOWS[*]}" \
			"${IDLE_JSON:-bench-wakeups failed}" "$(show_daemon_log)"
	fi
fi

bctl() { busctl --system --no-pager "$@"; }
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
as_uid1() { setpriv --reuid=1 --regid=1 --clear-groups "$@"; } # "daemon": let through by tests/dbus/second-fence.conf

# --- introspection -----------------------------------------------------------------------------------------
intro=$(bctl introspect "$NAME" "$OBJ" 2>&1; bctl introspect "$NAME" "$OBJ/policy/1" 2>&1; bctl introspect "$NAME" "$OBJ/cpu/1" 2>&1)
missing=
for m in Version UptimeUSec EventsSeen EventsLost EventsLate ProcConnector EventSource LocalDecisions RemoteDecisions \
	DeferredDecisions FrequencyWrites ReactionLatencyCount ReactionLatencyP50USec ReactionLatencyP99USec \
	ReactionLatencyMaxUSec ReactionLatencyHistogram Paused Reload Pause Resume GetDecisions GetRules \
	Id CPUs Driver Managed GovernorTakenOverFrom CpuinfoMinKHz CpuinfoMaxKHz CurrentKHz MinKHz MaxKHz Demand \
	RemotePermitted LastChangeUSec LastReason Policy Util UtilAvg UtilEstSum RunnableRT Busy; do
	grep -q "^\.$m " <<<"$intro" || missing="$missing $m"
done
grep -q 'GetDecisions *method *u *a(tuuuissbsuttus)' <<<"$intro" || missing="$missing GetDecisions-signature"
grep -q 'GetRules *method *- *a(sssssa{sv}ta(us))' <<<"$intro" || missing="$missing GetRules-signature"
grep -q '^io.github.schedfreqd.Governor1.Policy ' <<<"$intro" || missing="$missing .Policy-interface"
grep -q '^io.github.schedfreqd.Governor1.CPU ' <<<"$intro" || missing="$missing .CPU-interface"
[ -z "$missing" ] && ok "busctl introspect shows every documented member" || fail "busctl introspect shows every documented member" "missing:$missing" "$intro"

tree=$(bctl tree "$NAME" 2>&1)
for p in "$OBJ" "$OBJ/policy/0" "$OBJ/policy/1" "$OBJ/cpu/0" "$OBJ/cpu/1"; do
	grep -q -- "─$p\$" <<<"$tree" || missing="$missing $p"
done
[ -z "$missing" ] && ok "busctl tree: the daemon, two policies, two CPUs" || fail "busctl tree" "$tree"

# --- properties against the emulator ---------------------------------------------------------------------------
prop() { # PATH INTERFACE NAME -> the value only
	bctl get-property "$NAME" "$1" "$2" "$3" | cut -d' ' -f2-
}
# The frequency moves while we read (every process a test starts is a new task with the kernel's initial
# util), so the property must equal a value the emulator had in force at some moment of the read: the last
# setspeed write before it (or, before any write, the frequency found at take-over), or one written during it.
in_force_since() { # LINE
	awk -v from="$1" '$2 == "cpufreq/policy1/scaling_setspeed" && $4 == "ok" { if (NR <= from) last = $3; else seen[$3] = 1 }
		END { if (last != "") print last; for (v in seen) print v }' "$EMU_LOG"
}
matched=
for _ in $(seq 20); do
	from=$(wc -l <"$EMU_LOG")
	cur=$(prop "$OBJ/policy/1" "$NAME.Policy" CurrentKHz)
	inforce=$(in_force_since "$from" | tr '\n' ' ')
	[ -n "$inforce" ] || inforce=$(emu_exec cat "$CPUFREQ/policy1/scaling_cur_freq")
	if [[ " $inforce " == *" $cur "* ]]; then matched=1; break; fi
done
[ -n "$matched" ] && ok "CurrentKHz of policy1 ($cur) == the setspeed value in force in the emulator" \
	|| fail "CurrentKHz of policy1 == the setspeed value in force" "property $cur, in force: $inforce"

min=$(prop "$OBJ/policy/1" "$NAME.Policy" MinKHz)
max=$(prop "$OBJ/policy/1" "$NAME.Policy" MaxKHz)
emin=$(emu_exec cat "$CPUFREQ/policy1/scaling_min_freq")
emax=$(emu_exec cat "$CPUFREQ/policy1/scaling_max_freq")
drv=$(prop "$OBJ/policy/1" "$NAME.Policy" Driver)
from=$(prop "$OBJ/policy/1" "$NAME.Policy" GovernorTakenOverFrom)
cpus=$(prop "$OBJ/policy/1" "$NAME.Policy" CPUs)
if [ "$min" = "$emin" ] && [ "$max" = "$emax" ] && [ "$drv" = '"acpi-cpufreq"' ] && [ "$from" = '"schedutil"' ] && [ "$cpus" = "1 1" ]; then
	ok "policy1: limits, driver, original governor and CPUs match the emulator"
else
	fail "policy1: limits, driver, original governor and CPUs match the emulator" \
		"min $min/$emin max $max/$emax driver $drv from $from cpus $cpus"
fi
hist=$(prop "$OBJ" "$NAME" ReactionLatencyHistogram)
[ "$(cut -d' ' -f1 <<<"$hist")" = 24 ] && ok "ReactionLatencyHistogram has 24 log2(µs) buckets" || fail "latency histogram" "$hist"
[ "$(prop "$OBJ" "$NAME" ProcConnector)" != "" ] && [ "$(prop "$OBJ" "$NAME" Paused)" = false ] \
	&& ok "ProcConnector and Paused readable" || fail "ProcConnector and Paused readable"
# The daemon runs on the default source ([events] source = perf), or the one lib.sh's source pass gives it.
[ "$(prop "$OBJ" "$NAME" EventSource)" = "\"$(events_source)\"" ] && ok "EventSource says $(events_source)" \
	|| fail "EventSource says $(events_source)" "$(prop "$OBJ" "$NAME" EventSource)"

# --- a hog's decision in GetDecisions ---------------------------------------------------------------------------
# Start from a low policy1, or there is no raise to see (the short-lived processes this test starts are new
# tasks with the kernel's initial util, and may have left policy1 high).
# An idle CPU keeps its frequency until an event on it (NOHZ, as the kernel): give CPU 1 events meanwhile, from
# a light periodic task started once (1 % of 20 ms) rather than from new processes, whose initial util would
# raise policy1 again just before the hog (issue #10 item 8: the hog then found it at max already).
# The test's own processes (monotonic, emu_exec, busctl) stay on CPU 0 meanwhile, for the same reason; the hogs
# pin themselves to CPU 1.
# hog_decisions: policy1 brought low, a 1 s hog on CPU 1, then GetDecisions into $TMP/decisions.json; sets
# hog_start_us, hog_pid, found (raises to >= 2.16 GHz since the hog's start), by_pid, ups_named, any_named (below).
hog_decisions() {
	taskset -p -c 0 $$ >/dev/null
	"$HOG" --cpu 1 --seconds 30 --duty 1 --period-ms 20 >/dev/null &
	poker=$!
	wait_for '[ "$(emu_exec cat "$CPUFREQ/policy1/scaling_cur_freq")" -le 1200000 ]' 5
	kill "$poker" 2>/dev/null
	wait "$poker" 2>/dev/null
	# From the launch: the hog's exec on CPU 1 may raise policy1 before its own start line.
	hog_start_us=$(( $("$BUILD/tests/helpers/monotonic") / 1000 ))
	"$HOG" --cpu 1 --seconds 1 >"$TMP/hog" &
	hog_pid=$!
	wait "$hog_pid"
	taskset -p -c "$(cat /sys/devices/system/cpu/online)" $$ >/dev/null
	bctl --json=short call "$NAME" "$OBJ" "$NAME" GetDecisions u 0 >"$TMP/decisions.json" 2>&1
	found=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["data"][0]
hits = [r for r in d if r[1] == 1 and r[0] >= int(sys.argv[2]) and r[3] >= 2160000 and r[6] in ("local", "remote")
        and r[5] and r[8] in ("demand", "rt", "iowait", "limits", "rule")]
print(len(hits))' "$TMP/decisions.json" "$hog_start_us" 2>&1)
	# The task behind them (issue #15 item 5): policy1's decisions since the hog's start carry the pid of the
	# task whose event (or tick) made them and its name from the proc connector. Which task that is depends on
	# what the rings show: the hog's own switch-in on a CPU coming out of idle can be lost on these VMs
	# (docs/platform.md), another task's wake-up on CPU 1 may be the event that evaluates the policy, and the
	# valgrind'd daemon reads late. On bpf a decision made in the idle task's context names pid 0 (a wake-up
	# queued to an idle CPU is enqueued by its idle task: the wake list, sched_ttwu_pending(),
	# kernel/sched/core.c). So a step up naming a task (pid and name) is asked; how many named the hog is printed;
	# which task an event or a tick names is test-engine's (decision_names_its_task) and test-sched-event's
	# (task_pid).
	read -r by_pid ups_named any_named <<<"$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["data"][0]
pid = int(sys.argv[3])
p1 = [r for r in d if r[1] == 1 and r[0] >= int(sys.argv[2])]
ups = [r for r in p1 if r[3] > r[2]]
named = lambda rs: len([r for r in rs if r[12] > 0 and r[13]])
print(len([r for r in ups if r[12] == pid]), named(ups), named(p1))' \
		"$TMP/decisions.json" "$hog_start_us" "$hog_pid" 2>&1)"
}

# A shared VM can spoil one run (a CI run under ASan on bpf: policy1's raise and its fall 4 ms later both in the
# idle task's context, pid 0, and no step up named): a run that misses either check is made once more, and the
# verdict is the second's; the first's figures are printed.
hog_decisions
first=
if ! [ "${found:-0}" -ge 1 ] 2>/dev/null || ! [ "${ups_named:-0}" -ge 1 ] 2>/dev/null; then
	first=" (first run: ${found:-?} raises, ${ups_named:-?} steps up named; run again)"
	cp "$TMP/decisions.json" "$TMP/decisions-first.json"
	hog_decisions
fi
[ "${found:-0}" -ge 1 ] 2>/dev/null && ok "GetDecisions: the hog raised policy1 to >= 2.16 GHz ($found decisions)$first" \
	|| fail "GetDecisions shows the hog's decision" "$found$first" "$(head -c 2000 "$TMP/decisions.json")"
if [ "${ups_named:-0}" -ge 1 ] 2>/dev/null; then
	ok "GetDecisions: decisions name their task by Pid and Comm ($ups_named steps up of policy1 named)$first"
elif under_valgrind && [ "$(events_source)" = bpf ]; then
	# The valgrind'd daemon handles the kernel side's decisions ~0.35 s late and names their task from /proc then
	# (no proc connector without rules on bpf): the one step up a CI run had named a task already gone. The
	# naming is judged by the normal and ASan passes.
	echo "# under valgrind on bpf: $ups_named steps up of policy1 named (not judged)"
else
	fail "GetDecisions: decisions name their task" "$ups_named steps up of policy1 with a pid and a name$first" \
		"(decisions of policy1 named: $any_named)" "$(head -c 3000 "$TMP/decisions.json")"
fi
echo "# steps up of policy1 with the hog's pid ($hog_pid): ${by_pid:-?}"
n=$(bctl --json=short call "$NAME" "$OBJ" "$NAME" GetDecisions u 2 | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["data"][0]))')
[ "$n" = 2 ] && ok "GetDecisions(2) returns 2 records" || fail "GetDecisions(2) returns 2 records" "$n"

# --- permissions -------------------------------------------------------------------------------------------
out=$(as_nobody busctl --system call "$NAME" "$OBJ" "$NAME" Pause 2>&1)
rc=$?
out2=$(as_nobody dbus-send --system --print-reply --dest="$NAME" "$OBJ" "$NAME.Pause" 2>&1)
if [ $rc -ne 0 ] && grep -q 'AccessDenied: Rejected send message' <<<"$out2"; then
	ok "Pause from uid 65534: denied by the bus policy"
else
	fail "Pause from uid 65534: denied by the bus policy" "$out" "$out2"
fi
out=$(as_uid1 dbus-send --system --print-reply --dest="$NAME" "$OBJ" "$NAME.Pause" 2>&1)
rc=$?
for m in Reload Resume; do out="$out
$(as_uid1 dbus-send --system --print-reply --dest="$NAME" "$OBJ" "$NAME.$m" 2>&1)"; done
if [ $rc -ne 0 ] && [ "$(grep -c 'org.freedesktop.DBus.Error.AccessDenied: .* is restricted to root (caller uid 1)' <<<"$out")" = 3 ] \
	&& [ "$(emu_sh "cat $CPUFREQ/policy*/scaling_governor | sort -u")" = userspace ]; then
	ok "Pause/Reload/Resume from uid 1 past the bus policy: denied by the daemon, nothing changed"
else
	fail "control from uid 1: denied by the daemon" "$out" "$(show_daemon_log)"
fi
r1=$(as_nobody busctl --system get-property "$NAME" "$OBJ/policy/1" "$NAME.Policy" CurrentKHz 2>&1)
r2=$(as_nobody busctl --system call "$NAME" "$OBJ" "$NAME" GetDecisions u 1 2>&1)
r3=$(as_nobody busctl --system introspect "$NAME" "$OBJ/cpu/0" 2>&1)
r4=$(as_nobody busctl --system call "$NAME" "$OBJ" org.freedesktop.DBus.ObjectManager GetManagedObjects 2>&1)
r5=$(as_nobody busctl --system call "$NAME" "$OBJ" "$NAME" GetRules 2>&1)
if grep -q '^u [0-9]' <<<"$r1" && grep -q '^a(tuuuissbsuttus) 1 ' <<<"$r2" && grep -q '^\.Util ' <<<"$r3" \
	&& grep -q '^a{oa{sa{sv}}} 5 ' <<<"$r4" && [ "$r5" = 'a(sssssa{sv}ta(us)) 0' ]; then
	ok "uid 65534 may read: Get, GetDecisions, GetRules, Introspect, GetManagedObjects"
else
	fail "uid 65534 may read" "$r1" "$r2" "$r3" "$(head -c 300 <<<"$r4")" "$r5"
fi

# --- Pause / Resume ------------------------------------------------------------------------------------------
govs() { emu_sh "cat $CPUFREQ/policy*/scaling_governor | sort -u"; }
if bctl call "$NAME" "$OBJ" "$NAME" Pause && [ "$(govs)" = schedutil ] && [ "$(prop "$OBJ" "$NAME" Paused)" = true ]; then
	ok "Pause: both policies back under schedutil, Paused=true"
else
	fail "Pause: both policies back under schedutil" "$(govs)" "$(show_daemon_log)"
fi
if bctl call "$NAME" "$OBJ" "$NAME" Resume && [ "$(govs)" = userspace ] && [ "$(prop "$OBJ" "$NAME" Paused)" = false ]; then
	ok "Resume: userspace again, Paused=false"
else
	fail "Resume: userspace again" "$(govs)" "$(show_daemon_log)"
fi

# --- Reload ----------------------------------------------------------------------------------------------------
printf '[governor]\nheadroom = 1.25\nfrobnicate = 3\n' >"$TMP/schedfreqd.conf"
out=$(bctl call "$NAME" "$OBJ" "$NAME" Reload 2>&1)
rc=$?
if [ $rc -ne 0 ] && grep -q "$TMP/schedfreqd.conf:3:" <<<"$out" && kill -0 "$daemon_pid" && \
	[ "$(prop "$OBJ" "$NAME" Paused)" = false ]; then
	ok "Reload with a bad file: FILE:LINE error returned, the daemon keeps running"
else
	fail "Reload with a bad file: FILE:LINE error returned, the daemon keeps running" "rc=$rc" "$out"
fi
out=$(dbus-send --system --print-reply --dest="$NAME" "$OBJ" "$NAME.Reload" 2>&1)
grep -q "^Error $NAME.Error.ConfigRejected: $TMP/schedfreqd.conf:3: " <<<"$out" && ok "the error is $NAME.Error.ConfigRejected" \
	|| fail "the error is $NAME.Error.ConfigRejected" "$out"
printf '[governor]\nheadroom = 1.3\n' >"$TMP/schedfreqd.conf"
out=$(bctl call "$NAME" "$OBJ" "$NAME" Reload 2>&1) && grep -q "Configuration reloaded" "$TMP/err" \
	&& ok "Reload with a good file" || fail "Reload with a good file" "$out" "$(show_daemon_log)"

# --- GetRules -----------------------------------------------------------------------------------------------------
get_rules() { bctl --json=short call "$NAME" "$OBJ" "$NAME" GetRules; }
out=$(get_rules 2>&1)
[ "$(jq -c . <<<"$out" 2>&1)" = '{"type":"a(sssssa{sv}ta(us))","data":[[]]}' ] \
	&& ok "GetRules without rules: an empty array" || fail "GetRules without rules: an empty array" "$out"

# Two rules: one for the sleep started below, one that matches nothing here (its keys and actions all differ).
cat >"$TMP/schedfreqd.conf" <<'EOF_CONF'
[governor]
headroom = 1.3

[rule:sleepers]
comm = sleep
min_util = 200

[rule:batch]
comm = nosuch-*
exe = /opt/nosuch/bin/*
cgroup = /nosuch.slice/*
ignore = yes
EOF_CONF
out=$(bctl call "$NAME" "$OBJ" "$NAME" Reload 2>&1) && ok "Reload with two rules" || fail "Reload with two rules" "$out" "$(show_daemon_log)"
sleep 30 &
sleep_pid=$!
at_exit 'kill "$sleep_pid" 2>/dev/null'
# The proc connector reports its exec: it is pinned to its rule shortly after (none when it is unavailable).
rule_has_pid() { # RULE PID
	get_rules 2>/dev/null | jq -e --arg r "$1" --argjson p "$2" '.data[0][] | select(.[0] == $r) | .[7][] | select(.[0] == $p and .[1] == "sleep")' >/dev/null
}
if wait_for 'rule_has_pid sleepers "$sleep_pid"' 5; then
	ok "GetRules lists the sleep (pid $sleep_pid, comm sleep) under 'sleepers'"
else
	fail "GetRules lists the sleep under 'sleepers'" "pid $sleep_pid" "ProcConnector: $(prop "$OBJ" "$NAME" ProcConnector)" \
		"$(get_rules 2>&1 | head -c 2000)" "$(show_daemon_log)"
fi
# 100 short-lived sleeps: none stays listed once gone (an exec message read after the task's scheduler exit
# used to pin it again, for good: the proc connector's exit now forgets it).
for _ in $(seq 100); do sleep 0.002; done
dead_listed() { # the pids listed under 'sleepers' that no longer exist
	get_rules 2>/dev/null | jq -r '.data[0][] | select(.[0] == "sleepers") | .[7][] | .[0]' |
		while read -r p; do [ -d "/proc/$p" ] || echo "$p"; done
}
if wait_for '[ -z "$(dead_listed)" ]' 5; then
	ok "GetRules: after 100 short-lived sleeps, only live tasks are listed"
else
	fail "GetRules lists only live tasks" "gone but listed: $(dead_listed | tr '\n' ' ')"
fi
get_rules >"$TMP/rules.json" 2>&1
res=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["type"] == "a(sssssa{sv}ta(us))", d["type"]
rules = d["data"][0]
assert [r[0] for r in rules] == ["sleepers", "batch"], [r[0] for r in rules]
s, b = rules
conf = sys.argv[2]
def actions(min_util, max_util, rt_boost, ignore):
    return {"MinUtil": {"type": "q", "data": min_util}, "MaxUtil": {"type": "q", "data": max_util},
            "RTBoost": {"type": "b", "data": rt_boost}, "Ignore": {"type": "b", "data": ignore}}
assert s[1:6] == ["sleep", "", "", conf + ":4", actions(200, 1024, False, False)], s[:7]
assert b[1:6] == ["nosuch-*", "/opt/nosuch/bin/*", "/nosuch.slice/*", conf + ":8", actions(0, 1024, False, True)], b[:7]
assert isinstance(s[6], int) and b[6] == 0, (s[6], b[6])
assert b[7] == [], b[7]
print("ok")' "$TMP/rules.json" "$TMP/schedfreqd.conf" 2>&1)
[ "$res" = ok ] && ok "GetRules: both rules in order with their keys, actions, FILE:LINE and counters" \
	|| fail "GetRules: both rules with their fields" "$res" "$(head -c 2000 "$TMP/rules.json")"

printf '[governor]\nheadroom = 1.3\n' >"$TMP/schedfreqd.conf"
bctl call "$NAME" "$OBJ" "$NAME" Reload >/dev/null 2>&1
out=$(get_rules 2>&1)
[ "$(jq -c .data <<<"$out" 2>&1)" = '[[]]' ] && ok "GetRules after a reload without rules: an empty array" \
	|| fail "GetRules after a reload without rules: an empty array" "$out"
kill "$sleep_pid" 2>/dev/null
wait "$sleep_pid" 2>/dev/null

# --- PropertiesChanged rate under load ---------------------------------------------------------------------------
WINDOW=3
events_before=$(prop "$OBJ" "$NAME" EventsSeen | cut -d' ' -f1)
timeout "$((WINDOW + 1))" dbus-monitor --system "type='signal',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged'" \
	>"$TMP/monitor" 2>&1 &
mon_pid=$!
at_exit 'kill "$mon_pid" 2>/dev/null'
wait_for 'grep -q "NameAcquired\|member=PropertiesChanged" "$TMP/monitor"' 3
stress-ng --cpu 2 --timeout "${WINDOW}s" --quiet >/dev/null 2>&1
wait "$mon_pid" 2>/dev/null
events_after=$(prop "$OBJ" "$NAME" EventsSeen | cut -d' ' -f1)
counts=$(grep 'member=PropertiesChanged' "$TMP/monitor" | sed -n 's/.*path=\([^;]*\);.*/\1/p' | sort | uniq -c)
worst=$(awk 'BEGIN { m = 0 } $1 > m { m = $1 } END { print m }' <<<"$counts")
limit=$(( (WINDOW + 1) * 10 + 2 ))
events=$((events_after - events_before))
if [ -n "$counts" ] && [ "$worst" -le "$limit" ] && grep -q " $OBJ\$" <<<"$counts" && [ "$events" -gt $((worst * 10)) ]; then
	ok "PropertiesChanged under stress-ng: at most $worst per object in ~$((WINDOW + 1)) s (<= 10/s), for $events scheduler events"
else
	fail "PropertiesChanged rate bounded" "limit $limit, worst $worst, events $events" "$counts" "$(head -20 "$TMP/monitor")"
fi

# --- shutdown -----------------------------------------------------------------------------------------------------
kill -TERM "$daemon_pid"
wait "$daemon_pid"
rc=$?
daemon_pid=
EMU_DAEMON_PID=
if [ $rc -eq 0 ] && [ "$(govs)" = schedutil ] && wait_for '! dbus_has_name' 5; then
	ok "SIGTERM: clean exit, policies restored, name released"
else
	fail "SIGTERM: clean exit, policies restored, name released" "rc=$rc" "$(show_daemon_log)"
fi
grep -q 'ERROR: AddressSanitizer\|runtime error:' "$TMP/err" && fail "no sanitizer reports" "$(show_daemon_log)" || ok "no sanitizer reports"

emu_stop
dbus_stop
finish
