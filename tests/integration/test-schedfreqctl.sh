#!/bin/bash
# asan: yes
# SPDX-License-Identifier: GPL-2.0-or-later
#
# schedfreqctl against the real daemon on a private system-like bus (tests/dbus/), over the emulated cpufreq:
# status (table and --json, values matching the emulator and busctl), watch --count, explain after a CPU hog,
# rules (none, then two rules with a sleep matched by one, text and --json, none again after a reload),
# reload/pause/resume and their exit codes, permission denied (exit 4), daemon not running / no bus (exit 3),
# usage errors (exit 2), check-config without a daemon (exit 1 with FILE:LINE).

. "$(dirname "$0")/lib.sh"
. "$REPO/tests/dbus/bus.sh"

SFD=$SCHEDFREQD
CTL=$SCHEDFREQCTL
HOG="$BUILD/tests/helpers/hog"
CPUFREQ=/sys/devices/system/cpu/cpufreq
TMP=$(mktemp -d /tmp/schedfreqd-test-ctl.XXXXXX)
at_exit 'rm -rf "$TMP"'

expect() { # NAME WANT_RC GREP_PATTERN CMD... : the exit code and a line of the output (stdout+stderr)
	local name=$1 want=$2 pattern=$3 out rc
	shift 3
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" = "$want" ] && grep -q -- "$pattern" <<<"$out"; then
		ok "$name"
	else
		fail "$name" "exit $rc (want $want), output:" "$out"
	fi
}

# --- without a daemon ---------------------------------------------------------------------------------------
expect "check-config good file: exit 0" 0 "good.conf: OK" "$CTL" check-config "$REPO/tests/fixtures/config/good.conf"
expect "check-config bad file: exit 1, FILE:LINE" 1 "errors.conf:[0-9]*: " "$CTL" check-config "$REPO/tests/fixtures/config/errors.conf"
expect "check-config missing file: exit 1" 1 "nonexistent.conf" "$CTL" check-config "$TMP/nonexistent.conf"
expect "unknown command: exit 2" 2 "Unknown command 'frobnicate'" "$CTL" frobnicate
expect "rules with an argument: exit 2" 2 "Too many arguments for 'rules'" "$CTL" rules sleepers
expect "bad option value: exit 2" 2 "count" "$CTL" watch --count x
expect "check-config without FILE: exit 2" 2 "one FILE" "$CTL" check-config
expect "no bus (--address): exit 3" 3 "schedfreqd is not running" "$CTL" --address "unix:path=$TMP/nothing" status
expect "no bus (DBUS_SYSTEM_BUS_ADDRESS): exit 3" 3 "Cannot connect to the system bus at unix:path=$TMP/nothing" \
	env DBUS_SYSTEM_BUS_ADDRESS="unix:path=$TMP/nothing" "$CTL" status

dbus_start "$TMP/bus" || { fail "private dbus-daemon starts"; finish; }
expect "bus but no daemon: exit 3, says so" 3 "schedfreqd is not running (no $NAME on the system bus)" "$CTL" status
expect "bus but no daemon, pause: exit 3" 3 "schedfreqd is not running" "$CTL" pause
expect "--address works too: exit 3" 3 "schedfreqd is not running (no $NAME on the bus at --address)" \
	env -u DBUS_SYSTEM_BUS_ADDRESS "$CTL" --address "$DBUS_ADDRESS" status

# check-config --strict: policies the configuration names and the machine lacks (FILE:LINE warnings).
MISSING="$REPO/tests/fixtures/config/missing-policies/schedfreqd.conf"
SHARED="$REPO/tests/fixtures/topology/shared-dt.ini"
printf '[governor]\npolicies = 0,2\n[policy2]\nremote = no\n' >"$TMP/fits.conf"
printf "[governor]\npolicies = 0-1\n[policy1]\nremote = yes\n" >"$TMP/fits-emu.conf"
expect "check-config --strict --topology: a missing policy is an error, FILE:LINE" 1 \
	"missing-policies/schedfreqd.conf:4: policies= names policy7, which does not exist" \
	"$CTL" check-config --strict --topology "$SHARED" "$MISSING"
expect "check-config --strict --topology: a drop-in's [policyN] is named by its file" 1 \
	"schedfreqd.conf.d/50-more.conf:4: \[policy5\] is for a policy that does not exist" \
	"$CTL" check-config --strict --topology "$SHARED" "$MISSING"
expect "check-config --topology without --strict: warnings, exit 0" 0 "OK, with 4 warnings" \
	"$CTL" check-config --topology "$SHARED" "$MISSING"
expect "check-config --strict --topology: a file that fits passes" 0 "fits.conf: OK" \
	"$CTL" check-config --strict --topology "$SHARED" "$TMP/fits.conf"
expect "check-config --topology DIR: the error names it" 1 "fixtures/topology: Is a directory" \
	"$CTL" check-config --topology "$REPO/tests/fixtures/topology" "$TMP/fits.conf"
expect "--strict outside check-config: exit 2" 2 "apply to check-config only" "$CTL" --strict status
# A machine without cpufreq (the bare tree of test-daemon.sh): --strict has nothing to check against.
bare="$TMP/bare"
mkdir -p "$bare/cpu0" "$bare/cpu1" "$bare/cpufreq"
for f in online possible present; do echo 0-1 >"$bare/$f"; done
expect "check-config --strict without cpufreq: a clear error" 1 "no cpufreq policies under /sys/devices/system/cpu" \
	unshare --mount --propagation private sh -c \
	"mount --bind '$bare' /sys/devices/system/cpu && exec '$CTL' check-config --strict '$TMP/fits.conf'"
expect "check-config without --strict, without cpufreq: OK" 0 "schedfreqd.conf: OK$" \
	unshare --mount --propagation private sh -c \
	"mount --bind '$bare' /sys/devices/system/cpu && exec '$CTL' check-config '$MISSING'"

# --- with the daemon -------------------------------------------------------------------------------------------
emu_start "$REPO/tests/fixtures/topology/two-policies.ini" || { fail "emulator start"; finish; }
# check-config --strict against this (emulated) machine's own policies.
expect "check-config --strict on the (emulated) machine: policy7 missing" 1 \
	"missing-policies/schedfreqd.conf:4: policies= names policy7, which does not exist (existing policies: 0-1)" \
	emu_exec "$CTL" check-config --strict "$MISSING"
expect "check-config --strict on the (emulated) machine: a file that fits" 0 "OK" \
	emu_exec "$CTL" check-config --strict "$TMP/fits-emu.conf"

daemon_pid=
at_exit '[ -n "$daemon_pid" ] && kill -KILL "$daemon_pid" 2>/dev/null'
show_daemon_log() { sed 's/^/# daemon: /' "$TMP/err" | tail -n 30; }
: >"$TMP/schedfreqd.conf"
nsenter -m -t "$EMU_NS_PID" -- "$SFD" -c "$TMP/schedfreqd.conf" --state-file "$TMP/state" --bus-address "$DBUS_ADDRESS" \
	>"$TMP/out" 2>"$TMP/err" &
daemon_pid=$!
wait_for '[ -e "$TMP/state" ] && dbus_has_name' 10 && ok "daemon up on the private bus" || { fail "daemon up" "$(show_daemon_log)"; finish; }

out=$("$CTL" status 2>&1)
rc=$?
if [ $rc -eq 0 ] && grep -q '^policy0 *0 *acpi-cpufreq *schedutil' <<<"$out" && grep -q '^policy1 *1 *acpi-cpufreq *schedutil' <<<"$out" \
	&& grep -q '^CPU *POLICY *UTIL' <<<"$out" && grep -q 'governing' <<<"$out"; then
	ok "status: a table of both policies and CPUs"
else
	fail "status: a table of both policies and CPUs" "rc=$rc" "$out"
fi

# --json: parsed with python3, values agree with busctl and the emulator. The frequency moves while we read
# (every process this test starts is a new task with the kernel's initial util), so a value read from the
# daemon must be one the emulator had in force at some moment of the read: the last setspeed write before
# it, or one written during it.
setspeeds_since() { # LINE: values in force from log line LINE on
	awk -v from="$1" '$2 == "cpufreq/policy1/scaling_setspeed" && $4 == "ok" { if (NR <= from) last = $3; else seen[$3] = 1 }
		END { if (last != "") print last; for (v in seen) print v }' "$EMU_LOG"
}
matched=
for _ in $(seq 20); do
	from=$(wc -l <"$EMU_LOG")
	"$CTL" --json >"$TMP/status.json" 2>&1 || break
	js=$(python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
p = {x["Id"]: x for x in s["policies"]}
c = {x["Id"]: x for x in s["cpus"]}
assert sorted(p) == [0, 1] and sorted(c) == [0, 1], "objects"
assert p[1]["CPUs"] == [1] and p[1]["Driver"] == "acpi-cpufreq" and p[1]["GovernorTakenOverFrom"] == "schedutil"
assert s["daemon"]["Paused"] is False and len(s["daemon"]["ReactionLatencyHistogram"]) == 24
assert 0 <= c[1]["Util"] <= 1024
print(p[1]["CurrentKHz"], p[1]["MinKHz"], p[1]["MaxKHz"])' "$TMP/status.json" 2>&1) || { echo "$js" >"$TMP/json-error"; break; }
	bus=$(busctl --system get-property "$NAME" "$OBJ/policy/1" "$NAME.Policy" CurrentKHz | cut -d' ' -f2)
	inforce=$(setspeeds_since "$from" | tr '\n' ' ')
	limits="$(emu_exec cat $CPUFREQ/policy1/scaling_min_freq) $(emu_exec cat $CPUFREQ/policy1/scaling_max_freq)"
	emu="in force: $inforce; limits $limits"
	if [[ " $inforce " == *" ${js%% *} "* ]] && [[ " $inforce " == *" $bus "* ]] && [ "${js#* }" = "$limits" ]; then
		matched=1
		break
	fi
done
[ -n "$matched" ] && ok "--json: valid JSON; policy1 CurrentKHz/Min/Max == busctl == the emulator ($js)" \
	|| fail "--json agrees with busctl and the emulator" "json: $js" "busctl: $bus" "emulator: $emu" "$(cat "$TMP/json-error" 2>/dev/null)"

out=$("$CTL" watch --count 3 --interval 0.2 2>&1)
rc=$?
[ $rc -eq 0 ] && [ "$(grep -c '^schedfreqd .*: governing' <<<"$out")" = 3 ] && ok "watch --count 3: three refreshes, exit 0" \
	|| fail "watch --count 3" "rc=$rc" "$out"
out=$("$CTL" --json watch --count 2 --interval 0.1 2>&1)
n=$(python3 -c 'import json,sys; print(sum(1 for l in sys.stdin if json.loads(l)["daemon"]["Version"]))' <<<"$out" 2>&1)
[ "$n" = 2 ] && ok "watch --json --count 2: two JSON lines" || fail "watch --json --count 2" "$n" "$out"
# Ctrl-C ends watch cleanly.
"$CTL" watch --interval 0.1 >"$TMP/watch" 2>&1 &
wpid=$!
wait_for 'grep -q governing "$TMP/watch"' 5
kill -INT "$wpid"
wait "$wpid"
rc=$?
[ $rc -eq 0 ] && ok "watch ends on SIGINT with exit 0" || fail "watch ends on SIGINT with exit 0" "rc=$rc"

# explain after a hog on CPU 1.
"$HOG" --cpu 1 --seconds 1 >/dev/null
out=$("$CTL" explain -n 20 policy1 2>&1) # 20: the client's own start on CPU 1 makes a few decisions too
rc=$?
if [ $rc -eq 0 ] && grep -q '^policy1 (CPU 1, acpi-cpufreq):' <<<"$out" && grep -q 'Runs at [0-9]* MHz' <<<"$out" \
	&& grep -q 'Why: .* ago, schedfreqd moved it from [0-9]* to [0-9]* MHz because of ' <<<"$out" \
	&& grep -q 'Limits: 800-2400 MHz' <<<"$out" && grep -q -- '-> *2400 MHz' <<<"$out"; then
	ok "explain policy1: frequency, limits, the last decision with its reason and trigger, the hog's rise"
else
	fail "explain policy1" "rc=$rc" "$out"
fi
out=$("$CTL" explain 2>&1)
[ $? -eq 0 ] && grep -q '^policy0 ' <<<"$out" && grep -q '^policy1 ' <<<"$out" && ok "explain: every policy" || fail "explain: every policy" "$out"
expect "explain of a missing policy: exit 1" 1 "No policy7 here; policies: 0 1" "$CTL" explain 7
expect "explain of a bad argument: exit 2" 2 "Invalid policy" "$CTL" explain cpu3

# Rules: none yet.
expect "rules without rules: exit 0, says so" 0 "^No rules configured (see schedfreqd.conf(5), RULES).$" "$CTL" rules
expect "rules --json without rules" 0 '^{"rules":\[\]}$' "$CTL" --json rules
# Two rules, one matching a sleep started after the reload (reported by the proc connector's exec event).
cat >"$TMP/schedfreqd.conf" <<'EOF_CONF'
[rule:sleepers]
comm = sleep
min_util = 200
rt_boost = yes

[rule:batch]
exe = /opt/nosuch/bin/*
cgroup = /nosuch.slice/*
max_util = 300
EOF_CONF
expect "reload with two rules: exit 0" 0 "Configuration reloaded" "$CTL" reload
sleep 30 &
sleep_pid=$!
at_exit 'kill "$sleep_pid" 2>/dev/null'
if [ "$(busctl --system get-property "$NAME" "$OBJ" "$NAME" ProcConnector)" != 's "active"' ]; then
	skip "rules: the sleep under 'sleepers'" "the proc connector is unavailable here"
elif wait_for '"$CTL" rules 2>/dev/null | grep -q "^ *\(Tasks:\)\? *$sleep_pid sleep\$"' 5; then
	ok "rules: the sleep (pid $sleep_pid) is listed"
else
	fail "rules: the sleep is listed" "pid $sleep_pid" "$("$CTL" rules 2>&1)"
fi
out=$("$CTL" rules 2>&1)
rc=$?
# The 'sleepers' block: from its first line to the blank line before 'batch'.
block=$(sed -n '/^sleepers /,/^$/p' <<<"$out")
if [ $rc -eq 0 ] && grep -q "^sleepers (defined at $TMP/schedfreqd.conf:1)\$" <<<"$block" \
	&& grep -q '^  Match: comm = sleep$' <<<"$block" && grep -q '^  Actions: min_util = 200, rt_boost = yes$' <<<"$block" \
	&& grep -q '^  Changed [0-9]* decisions\?$' <<<"$block" && grep -q "^ *\(Tasks:\)\? *$sleep_pid sleep\$" <<<"$block" \
	&& grep -q "^batch (defined at $TMP/schedfreqd.conf:6)\$" <<<"$out" \
	&& grep -q '^  Match: exe = /opt/nosuch/bin/\*, cgroup = /nosuch.slice/\*$' <<<"$out" \
	&& grep -q '^  Actions: max_util = 300$' <<<"$out" && grep -q '^  Changed 0 decisions$' <<<"$out" \
	&& grep -q '^  Tasks: no running task$' <<<"$out"; then
	ok "rules: one block per rule with where it is defined, keys, actions, decisions changed and tasks"
else
	fail "rules: one block per rule" "rc=$rc" "$out"
fi
"$CTL" --json rules >"$TMP/rules.json" 2>&1
res=$(python3 -c '
import json, sys
rules = json.load(open(sys.argv[1]))["rules"]
conf, pid = sys.argv[2], int(sys.argv[3])
assert [r["Name"] for r in rules] == ["sleepers", "batch"], rules
s, b = rules
assert (s["Comm"], s["Exe"], s["Cgroup"], s["Origin"]) == ("sleep", "", "", conf + ":1"), s
assert (s["MinUtil"], s["MaxUtil"], s["RTBoost"], s["Ignore"]) == (200, 1024, True, False), s
assert (b["Comm"], b["Exe"], b["Cgroup"], b["Origin"]) == ("", "/opt/nosuch/bin/*", "/nosuch.slice/*", conf + ":6"), b
assert (b["MinUtil"], b["MaxUtil"], b["RTBoost"], b["Ignore"], b["Decisions"], b["Tasks"]) == (0, 300, False, False, 0, []), b
assert isinstance(s["Decisions"], int)
assert {"Pid": pid, "Comm": "sleep"} in s["Tasks"] or sys.argv[4] != "active", s["Tasks"]
print("ok")' "$TMP/rules.json" "$TMP/schedfreqd.conf" "$sleep_pid" \
	"$(busctl --system get-property "$NAME" "$OBJ" "$NAME" ProcConnector | cut -d'"' -f2)" 2>&1)
[ "$res" = ok ] && ok "rules --json: both rules with their fields and the sleep" || fail "rules --json" "$res" "$(cat "$TMP/rules.json")"
: >"$TMP/schedfreqd.conf"
expect "reload without rules: exit 0" 0 "Configuration reloaded" "$CTL" reload
expect "rules after a reload without rules: none" 0 "^No rules configured" "$CTL" rules
kill "$sleep_pid" 2>/dev/null
wait "$sleep_pid" 2>/dev/null

# Control.
expect "pause as uid 65534: exit 4, permission denied" 4 "Permission denied: pause needs root" \
	setpriv --reuid=65534 --regid=65534 --clear-groups "$CTL" pause
expect "status as uid 65534: exit 0" 0 "policy1" setpriv --reuid=65534 --regid=65534 --clear-groups "$CTL" status
expect "pause as root: exit 0" 0 "Paused" "$CTL" pause
[ "$(emu_sh "cat $CPUFREQ/policy*/scaling_governor | sort -u")" = schedutil ] && ok "pause: schedutil is back" || fail "pause: schedutil is back"
expect "explain while paused says so" 0 "schedfreqd is paused: the policy is back under its original governor 'schedutil'" "$CTL" explain 1
expect "resume as root: exit 0" 0 "Resumed" "$CTL" resume
[ "$(emu_sh "cat $CPUFREQ/policy*/scaling_governor | sort -u")" = userspace ] && ok "resume: userspace again" || fail "resume: userspace again"
printf '[events]\nwakeup = sometimes\n' >"$TMP/schedfreqd.conf"
expect "reload with a bad file: exit 1, FILE:LINE" 1 "$TMP/schedfreqd.conf:2: " "$CTL" reload
kill -0 "$daemon_pid" && ok "the daemon survives the bad reload" || fail "the daemon survives the bad reload"
: >"$TMP/schedfreqd.conf"
expect "reload with a good file: exit 0" 0 "Configuration reloaded" "$CTL" reload

# The daemon goes away.
kill -TERM "$daemon_pid"
wait "$daemon_pid"
daemon_pid=
expect "after the daemon exits: exit 3" 3 "schedfreqd is not running" "$CTL" explain
grep -q 'ERROR: AddressSanitizer\|runtime error:' "$TMP/err" && fail "no sanitizer reports in the daemon" "$(show_daemon_log)" \
	|| ok "no sanitizer reports in the daemon"

emu_stop
dbus_stop
finish
