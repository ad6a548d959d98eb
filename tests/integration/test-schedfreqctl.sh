#!/bin/bash
# asan: yes
# SPDX-License-Identifier: GPL-2.0-or-later
#
# schedfreqctl against the real daemon on a private system-like bus (tests/dbus/), over the emulated cpufreq:
# status (table and --json, values matching the emulator and busctl; 80 columns by default, every column with
# --wide), watch --count, explain after a CPU hog and of a deferred decision,
# rules (none, then two rules with a sleep matched by one, text and --json, none again after a reload),
# metrics (OpenMetrics text checked with prometheus_client's parser and stricter rules, its values against busctl
# and the emulator), reload/pause/resume and their exit codes, permission denied (exit 4, one line), daemon not
# running / no bus (exit 3), usage errors (exit 2), check-config without a daemon (exit 1 with FILE:LINE).

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

# `schedfreqctl metrics` output FILE: parsed with prometheus_client's OpenMetrics parser (python3-prometheus-client),
# which rejects bad lines, units that are not the name's suffix, a family twice and anything after "# EOF"; a sample
# it cannot place in the family before it (no TYPE before it, a counter sample without _total, interleaved
# families) starts an untyped family, which the check of the family list catches. On top: "# EOF" once and last,
# every policy in every policy family, histogram buckets at the daemon's bounds, cumulative, +Inf == _count.
cat >"$TMP/check-metrics.py" <<'EOF_PY'
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families

text = open(sys.argv[1], encoding="utf-8").read()
policies = sys.argv[2].split()
assert text.endswith("\n# EOF\n") and text.split("\n").count("# EOF") == 1, "not ended by one # EOF"
families = list(text_string_to_metric_families(text))
got = {f.name: f.type for f in families}
assert len(got) == len(families), "a family twice"
want = {n: "gauge" for n in """schedfreqd_uptime_seconds schedfreqd_paused schedfreqd_proc_connector_active
        schedfreqd_policy_frequency_hertz schedfreqd_policy_scaling_min_frequency_hertz
        schedfreqd_policy_scaling_max_frequency_hertz schedfreqd_policy_cpuinfo_min_frequency_hertz
        schedfreqd_policy_cpuinfo_max_frequency_hertz schedfreqd_policy_demand schedfreqd_policy_managed
        schedfreqd_policy_remote_permitted schedfreqd_policy_state schedfreqd_cpu_util schedfreqd_rule_tasks""".split()}
want.update({n: "counter" for n in """schedfreqd_events schedfreqd_events_lost schedfreqd_events_late
        schedfreqd_ring_overflows schedfreqd_frequency_writes schedfreqd_policy_decisions
        schedfreqd_policy_deferred_decisions schedfreqd_policy_write_errors schedfreqd_rule_decisions""".split()})
want["schedfreqd_reaction_latency_seconds"] = "histogram"
assert got == want, "families: %s" % sorted(set(got.items()) ^ set(want.items()))
for f in families:
    for unit in ("hertz", "seconds"):
        assert f.name.endswith("_" + unit) == (f.unit == unit), (f.name, f.unit)
    assert f.documentation, f.name + " has no HELP"
    if f.type == "counter":
        assert all(s.name == f.name + "_total" and s.value >= 0 for s in f.samples), f.name
    if f.name.startswith("schedfreqd_policy_"):
        seen = sorted({s.labels["policy"] for s in f.samples})
        assert seen == sorted(policies), (f.name, seen)
    if f.name == "schedfreqd_policy_state":
        for p in policies:
            on = [s.labels["state"] for s in f.samples if s.labels["policy"] == p and s.value == 1]
            assert on == ["governed"], (p, on)
    if f.type == "histogram":
        buckets = [s for s in f.samples if s.name == f.name + "_bucket"]
        les = [s.labels["le"] for s in buckets]
        assert les == [repr(2 ** (i + 1) * 1e-6) for i in range(23)] + ["+Inf"], les
        counts = [s.value for s in buckets]
        assert all(a <= b for a, b in zip(counts, counts[1:])), "buckets not cumulative: %s" % counts
        rest = {s.name[len(f.name):]: s.value for s in f.samples if s not in buckets}
        assert rest.keys() == {"_count", "_sum"} and rest["_count"] == counts[-1] and rest["_sum"] >= 0, rest
print("ok")
EOF_PY
# Debian's interpreter, the one python3-prometheus-client (scripts/install-deps) is installed for, whatever PATH has.
check_metrics() { /usr/bin/python3 "$TMP/check-metrics.py" "$1" "0 1" 2>&1; }
metric() { awk -v k="$1" '$1 == k { print $2 }' "$2"; } # SERIES FILE: its value

# --- without a daemon ---------------------------------------------------------------------------------------
expect "check-config good file: exit 0" 0 "good.conf: OK" "$CTL" check-config "$REPO/tests/fixtures/config/good.conf"
expect "check-config bad file: exit 1, FILE:LINE" 1 "errors.conf:[0-9]*: " "$CTL" check-config "$REPO/tests/fixtures/config/errors.conf"
expect "check-config missing file: exit 1" 1 "nonexistent.conf" "$CTL" check-config "$TMP/nonexistent.conf"
expect "unknown command: exit 2" 2 "Unknown command 'frobnicate'" "$CTL" frobnicate
expect "rules with an argument: exit 2" 2 "Too many arguments for 'rules'" "$CTL" rules sleepers
expect "metrics with an argument: exit 2" 2 "Too many arguments for 'metrics'" "$CTL" metrics policy1
expect "bad option value: exit 2" 2 "count" "$CTL" watch --count x
expect "check-config without FILE: exit 2" 2 "one FILE" "$CTL" check-config
expect "no bus (--address): exit 3" 3 "schedfreqd is not running" "$CTL" --address "unix:path=$TMP/nothing" status
expect "no bus (DBUS_SYSTEM_BUS_ADDRESS): exit 3" 3 "Cannot connect to the system bus at unix:path=$TMP/nothing" \
	env DBUS_SYSTEM_BUS_ADDRESS="unix:path=$TMP/nothing" "$CTL" status

# second-fence.conf lets uid 1 past the bus policy, so that the daemon's own refusal is seen too (Control).
dbus_start "$TMP/bus" "$REPO/tests/dbus/second-fence.conf" || { fail "private dbus-daemon starts"; finish; }
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
# check-config --json: the verdict as one object, the warnings a line each, the exit status as without it.
check_json() { # WANT_RC PYTHON-ASSERTION ARGS...: the exit status, and the assertion on the object j
	local want=$1 cond=$2 out rc res
	shift 2
	out=$("$CTL" --json check-config "$@" 2>"$TMP/cc.err")
	rc=$?
	res=$(python3 -c 'import json, sys; j = json.loads(sys.argv[1]); assert '"$cond"', j; print("ok")' "$out" 2>&1)
	[ "$rc" = "$want" ] && [ "$res" = ok ] && [ ! -s "$TMP/cc.err" ] && return 0
	echo "rc=$rc (want $want) $res $out $(cat "$TMP/cc.err")"
	return 1
}
res=$(check_json 0 'j["valid"] and j["policies_checked"] and j["warnings"] == [] and "error" not in j' \
	--strict --topology "$SHARED" "$TMP/fits.conf") && res=$(check_json 0 \
	'j["valid"] and len(j["warnings"]) == 4 and any("missing-policies/schedfreqd.conf:4: policies= names policy7" in w for w in j["warnings"])' \
	--topology "$SHARED" "$MISSING") && res=$(check_json 1 'not j["valid"] and len(j["warnings"]) == 4' \
	--strict --topology "$SHARED" "$MISSING") && res=$(check_json 1 \
	'not j["valid"] and ":" in j["error"] and "errors.conf:" in j["error"] and not j["policies_checked"]' \
	"$REPO/tests/fixtures/config/errors.conf") \
	&& ok "check-config --json: valid, with warnings, rejected by --strict, invalid (FILE:LINE), exit status kept" \
	|| fail "check-config --json" "$res"
expect "check-config --topology DIR: the error names it" 1 "fixtures/topology: Is a directory" \
	"$CTL" check-config --topology "$REPO/tests/fixtures/topology" "$TMP/fits.conf"
expect "--strict outside check-config: exit 2" 2 "apply to check-config only" "$CTL" --strict status
# A machine without cpufreq (the bare tree of test-daemon.sh): --strict has nothing to check against.
bare="$TMP/bare"
mkdir -p "$bare/cpu0" "$bare/cpu1" "$bare/cpufreq"
for f in online possible present; do echo 0-1 >"$bare/$f"; done
expect "check-config --strict without cpufreq: a clear error" 1 "No cpufreq policies under /sys/devices/system/cpu" \
	unshare --mount --propagation private sh -c \
	"mount --bind '$bare' /sys/devices/system/cpu && exec '$CTL' check-config --strict '$TMP/fits.conf'"
expect "check-config without --strict, without cpufreq: OK" 0 "schedfreqd.conf: OK$" \
	unshare --mount --propagation private sh -c \
	"mount --bind '$bare' /sys/devices/system/cpu && exec '$CTL' check-config '$MISSING'"
# ... and the OK says which part it did not check, and why (issue #24): not an OK that checked everything.
expect "check-config without cpufreq: the OK says the policies were not checked" 0 \
	"^Policy sections and policies= not checked against the machine: no cpufreq driver (--topology FILE checks them)\.$" \
	unshare --mount --propagation private sh -c \
	"mount --bind '$bare' /sys/devices/system/cpu && exec '$CTL' check-config '$MISSING'"
# Errors in FILE:LINE order, and the key a typo meant (issue #24; every case in tests/unit/test-config.c).
printf '[rule:a]\nmin_util = 10\n[governor]\nheadrom = 1.5\n' >"$TMP/typo.conf"
out=$("$CTL" check-config "$TMP/typo.conf" 2>&1)
rc=$?
if [ $rc -eq 1 ] && [ "$out" = "$TMP/typo.conf:1: rule 'a' has no match key (comm=, exe= or cgroup=)
$TMP/typo.conf:4: unknown key 'headrom' in section [governor]; did you mean 'headroom'?" ]; then
	ok "check-config: errors in line order (a rule's at its header), the typo's key suggested"
else
	fail "check-config: errors in line order, the typo's key suggested" "rc=$rc" "$out"
fi

# --- with the daemon -------------------------------------------------------------------------------------------
emu_start "$REPO/tests/fixtures/topology/two-policies.ini" || { fail "emulator start"; finish; }
# check-config --strict against this (emulated) machine's own policies.
expect "check-config --strict on the (emulated) machine: policy7 missing" 1 \
	"missing-policies/schedfreqd.conf:4: policies= names policy7, which does not exist (existing policies: 0-1)" \
	emu_exec "$CTL" check-config --strict "$MISSING"
expect "check-config --strict on the (emulated) machine: a file that fits" 0 "OK" \
	emu_exec "$CTL" check-config --strict "$TMP/fits-emu.conf"

show_daemon_log() { sed 's/^/# daemon: /' "$TMP/err" | tail -n 30; }
: >"$TMP/schedfreqd.conf"
emu_daemon_start "$TMP/state" "$TMP/schedfreqd.conf" "$TMP/err" "$TMP/out" --bus-address "$DBUS_ADDRESS" &&
	ok "daemon up on the private bus" || { fail "daemon up" "$(show_daemon_log)"; finish; }
daemon_pid=$EMU_DAEMON_PID

out=$("$CTL" status 2>&1)
rc=$?
if [ $rc -eq 0 ] && grep -q '^policy0 *0 *[0-9]* *800-2400 ' <<<"$out" && grep -q '^policy1 *1 *[0-9]* *800-2400 ' <<<"$out" \
	&& grep -q '^CPU *POLICY *UTIL' <<<"$out" && grep -q 'governing' <<<"$out"; then
	ok "status: a table of both policies and CPUs"
else
	fail "status: a table of both policies and CPUs" "rc=$rc" "$out"
fi
out=$("$CTL" --wide status 2>&1)
rc=$?
if [ $rc -eq 0 ] && grep -q '^policy0 *0 *acpi-cpufreq *schedutil' <<<"$out" && grep -q '^policy1 *1 *acpi-cpufreq *schedutil' <<<"$out" \
	&& grep -q '^CPU *POLICY *UTIL' <<<"$out"; then
	ok "status --wide: driver and governor taken over per policy"
else
	fail "status --wide: driver and governor taken over per policy" "rc=$rc" "$out"
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
out=$("$CTL" explain --wide -n 20 policy1 2>&1) # 20: the client's own start on CPU 1 makes a few decisions too
rc=$?
if [ $rc -eq 0 ] && grep -q '^policy1 (CPU 1, acpi-cpufreq):' <<<"$out" && grep -q 'Runs at [0-9]* MHz' <<<"$out" \
	&& grep -q 'Why: .* ago, schedfreqd moved it from [0-9]* to [0-9]* MHz because of ' <<<"$out" \
	&& grep -q 'Limits: 800-2400 MHz' <<<"$out" && grep -q -- '-> *2400 MHz' <<<"$out"; then
	ok "explain policy1: frequency, limits, the last decision with its reason and trigger, the hog's rise"
else
	fail "explain policy1" "rc=$rc" "$out"
fi
# Each decision line names the task whose event it was, from the proc connector ("... on CPU 1 by `bash` (pid N)";
# on the BPF source, whose decisions come at the kernel's PELT updates: "tick, running `bash` (pid N)"; test-dbus
# checks that the hog's rise names the hog).
if grep -Eq -- '-> *[0-9]+ MHz .* (on CPU [0-9]+ by|tick, running) `[^`]+` \(pid [0-9]+\)' <<<"$out"; then
	ok "explain policy1: decision lines name their task (\`comm\` (pid N))"
else
	fail "explain policy1: decision lines name their task" "$out"
fi
# 80 columns (issue #24): after the hog every line is there (the reaction latency, a last change per policy).
# Characters, not bytes ("µs"). --wide keeps the columns the default leaves out.
widest() { python3 -c 'import sys; print(max((len(l.rstrip("\n")) for l in sys.stdin), default=0))'; }
out=$("$CTL" status 2>&1)
rc=$?
w=$(widest <<<"$out")
if [ $rc -eq 0 ] && [ "$w" -le 80 ] && grep -q '^Event to write: p50 < ' <<<"$out" \
	&& grep -q '^POLICY *CPUS *CUR MHz *LIMITS MHz *DEMAND/1024 *LAST CHANGE$' <<<"$out" \
	&& grep -q '^policy1 .* ago ([a-z]*)$' <<<"$out"; then
	ok "status fits 80 columns ($w)"
else
	fail "status fits 80 columns" "rc=$rc, widest $w" "$out"
fi
out=$("$CTL" watch --count 3 --interval 0.2 2>&1)
w=$(widest <<<"$out")
[ "$w" -le 80 ] && [ "$(grep -c '^POLICY ' <<<"$out")" = 3 ] && ok "watch: three refreshes fit 80 columns ($w)" \
	|| fail "watch: three refreshes fit 80 columns" "widest $w" "$out"
out=$("$CTL" --wide watch --count 2 --interval 0.1 2>&1)
if [ "$(grep -c '^POLICY *CPUS *DRIVER *TAKEN FROM .* DEMAND REMOTE *LOCAL *REMOTE DEFERRED  LAST CHANGE$' <<<"$out")" = 2 ] \
	&& grep -q '^Reaction latency (event to setspeed write, [0-9]* writes): p50 < [0-9]* µs' <<<"$out" \
	&& [ "$(grep -c '^policy1 *1 *acpi-cpufreq *schedutil *[0-9]* *800-2400 *[0-9]* no *[0-9]* *0 *[0-9]*  ' <<<"$out")" = 2 ]; then
	ok "watch --wide: the driver, governor, remote rule and decision-count columns"
else
	fail "watch --wide: the driver, governor, remote rule and decision-count columns" "$out"
fi

# A deferred decision in explain: policy1 does not permit remote changes (acpi-cpufreq here: RemotePermitted
# false), so a busy task moved from CPU 0 to CPU 1 (the migration is recorded on CPU 0) raises CPU 1's demand
# remotely and the change waits for CPU 1's next event (and the other way round for policy0). Bursts of moves
# until the decision log holds one (bounded: a burst is ~1 s; one or two were enough on perf and on bpf).
# The wording: where it was recorded, the wait with its unit, no "local" beside "deferred".
deferred_re='deferred: recorded by a remote event on CPU [01], applied [0-9.]+ (µs|ms|s) later'
for _ in $(seq 8); do
	"$BUILD/tests/helpers/migrator" --seconds 1 --interval-ms 30 >/dev/null
	out=$("$CTL" explain --wide -n 2048 2>&1)
	grep -Eq -- "-> *[0-9]+ MHz .*, $deferred_re\$" <<<"$out" && break
done
why=$(grep 'The change was deferred' <<<"$out")
if grep -Eq -- "-> *[0-9]+ MHz .*, $deferred_re\$" <<<"$out" && ! grep -q 'local, deferred' <<<"$out" \
	&& { [ -z "$why" ] || grep -Eq "^  The change was $deferred_re at CPU [01]'s next event \(.*\), as policy[01] does not permit changes from other CPUs\.\$" <<<"$why"; }; then
	ok "explain: a deferred decision says where it was recorded and how long it waited ($(grep -Eo "$deferred_re" <<<"$out" | head -n 1))"
else
	fail "explain: a deferred decision says where it was recorded and how long it waited" "$out"
fi
out=$("$CTL" explain 2>&1)
[ $? -eq 0 ] && grep -q '^policy0 ' <<<"$out" && grep -q '^policy1 ' <<<"$out" && ok "explain: every policy" || fail "explain: every policy" "$out"
# Its sentences broken at 80 columns by default (continuations indented past their line's), whole with --wide.
w=$(widest <<<"$out")
wide_w=$("$CTL" explain --wide 2>&1 | widest)
if [ "$w" -le 80 ] && [ "$wide_w" -gt 80 ] && grep -q '^  Recent decisions (newest last):$' <<<"$out" \
	&& grep -Eq '^      [^ ]' <<<"$out"; then
	ok "explain: lines broken at 80 columns ($w; --wide $wide_w)"
else
	fail "explain: lines broken at 80 columns" "widest $w, --wide $wide_w" "$out"
fi
expect "explain of a missing policy: exit 1" 1 "No policy7 here; policies: 0 1" "$CTL" explain 7
"$CTL" --json explain -n 3 >"$TMP/explain.json" 2>&1
rc=$?
res=$(python3 -c '
import json, sys
e = json.load(open(sys.argv[1]))
assert e["daemon"]["Version"], e["daemon"]
ids = [p["policy"]["Id"] for p in e["policies"]]
assert ids == [0, 1], ids
for p in e["policies"]:
    assert [c["Policy"] for c in p["cpus"]] == [p["policy"]["Id"]] * len(p["cpus"]) and p["cpus"], p["cpus"]
    assert len(p["decisions"]) <= 3, p["decisions"]
    assert all(d["Policy"] == p["policy"]["Id"] and d["Kind"] in ("local", "remote") for d in p["decisions"]), p
d1 = e["policies"][1]["decisions"]
assert d1 and d1[-1]["NewKHz"] > 0 and d1[0]["TimeUSec"] <= d1[-1]["TimeUSec"], d1
print("ok")' "$TMP/explain.json" 2>&1)
[ $rc -eq 0 ] && [ "$res" = ok ] && ok "explain --json: each policy with its CPUs and its last decisions, oldest first" \
	|| fail "explain --json" "rc=$rc" "$res" "$(head -c 2000 "$TMP/explain.json")"
expect "explain --json of a missing policy: exit 1, still an object" 1 '^{"daemon":.*"policies":\[\]}$' "$CTL" --json explain 7
expect "reload --json: exit 2, it prints no data" 2 "^--json: 'reload' prints no data" "$CTL" --json reload
expect "metrics --json: exit 2, names what it prints" 2 "^--json: 'metrics' prints the OpenMetrics text format" "$CTL" --json metrics
expect "version --json" 0 '^{"version":"[^"]*"}$' "$CTL" --json version
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
# metrics with the two rules: one counter and one gauge per rule, as GetRules has them.
"$CTL" metrics >"$TMP/metrics" 2>&1
rc=$?
res=$(check_metrics "$TMP/metrics")
after=$("$CTL" --json rules 2>&1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["rules"][0]["Decisions"])' 2>&1)
sleepers=$(metric 'schedfreqd_rule_decisions_total{rule="sleepers"}' "$TMP/metrics")
if [ $rc -eq 0 ] && [ "$res" = ok ] && [ "$(metric 'schedfreqd_rule_decisions_total{rule="batch"}' "$TMP/metrics")" = 0 ] \
	&& [ "$(metric 'schedfreqd_rule_tasks{rule="batch"}' "$TMP/metrics")" = 0 ] \
	&& [ -n "$sleepers" ] && [ "$sleepers" -le "$after" ] \
	&& [ "$(metric 'schedfreqd_rule_tasks{rule="sleepers"}' "$TMP/metrics")" -ge 0 ]; then
	ok "metrics with two rules: valid OpenMetrics, a decision counter and a task gauge per rule ($sleepers <= $after)"
else
	fail "metrics with two rules" "rc=$rc" "$res" "GetRules sleepers decisions after: $after" "$(cat "$TMP/metrics")"
fi
# A task name that is not UTF-8 (the kernel takes any bytes for comm: exec of such a file name, prctl(PR_SET_NAME)):
# rules --json is still valid JSON (a strict UTF-8 decode, then json), the bad bytes as U+FFFD, the rest kept.
odd="$TMP/odd"$'\xff'"name"
cp /bin/sleep "$odd"
printf '[rule:odd]\ncomm = odd*name\nmin_util = 100\n' >"$TMP/schedfreqd.conf"
expect "reload with a rule for an odd name: exit 0" 0 "Configuration reloaded" "$CTL" reload
"$odd" 30 &
odd_pid=$!
at_exit 'kill "$odd_pid" 2>/dev/null'
if [ "$(busctl --system get-property "$NAME" "$OBJ" "$NAME" ProcConnector)" != 's "active"' ]; then
	skip "rules --json: a task name that is not UTF-8" "the proc connector is unavailable here"
elif wait_for '"$CTL" rules 2>/dev/null | grep -q "^ *\(Tasks:\)\? *$odd_pid odd"' 5; then
	"$CTL" --json rules >"$TMP/odd.json" 2>&1
	res=$(python3 -c '
import json, sys
raw = open(sys.argv[1], "rb").read()
rules = json.loads(raw.decode("utf-8", errors="strict"))["rules"]
tasks = rules[0]["Tasks"]
assert {"Pid": int(sys.argv[2]), "Comm": "odd\ufffdname"} in tasks, tasks
print("ok")' "$TMP/odd.json" "$odd_pid" 2>&1)
	[ "$res" = ok ] && ok "rules --json: a task name that is not UTF-8 is valid JSON, its bad byte U+FFFD" \
		|| fail "rules --json: a task name that is not UTF-8" "$res" "$(od -c "$TMP/odd.json" | head -n 20)"
else
	fail "rules: the task with an odd name is listed" "pid $odd_pid" "$("$CTL" rules 2>&1 | od -c | head -n 20)"
fi
kill "$odd_pid" 2>/dev/null
wait "$odd_pid" 2>/dev/null
: >"$TMP/schedfreqd.conf"
expect "reload without rules: exit 0" 0 "Configuration reloaded" "$CTL" reload
expect "rules after a reload without rules: none" 0 "^No rules configured" "$CTL" rules
kill "$sleep_pid" 2>/dev/null
wait "$sleep_pid" 2>/dev/null

# metrics without rules: every family, valid; policy1's frequency is the emulator's. The frequency moves while
# we read (every process this test starts is a new task): a read during which no scaling_setspeed write was
# logged must equal scaling_cur_freq exactly; until such a read, the value must be one in force during it.
setspeed_writes_after() { awk -v from="$1" 'NR > from && $2 == "cpufreq/policy1/scaling_setspeed"' "$EMU_LOG" | wc -l; }
freq=
for _ in $(seq 30); do
	from=$(wc -l <"$EMU_LOG")
	cur1=$(emu_exec cat $CPUFREQ/policy1/scaling_cur_freq)
	"$CTL" metrics >"$TMP/metrics" 2>&1 || break
	cur2=$(emu_exec cat $CPUFREQ/policy1/scaling_cur_freq)
	hz=$(metric 'schedfreqd_policy_frequency_hertz{policy="1"}' "$TMP/metrics")
	if [ "$cur1" = "$cur2" ] && [ "$(setspeed_writes_after "$from")" = 0 ]; then
		freq="strict $hz == ${cur1}000"
		[ "$hz" = "${cur1}000" ] || freq="MISMATCH $freq"
		break
	fi
	inforce=$(setspeeds_since "$from" | tr '\n' ' ')
	[[ " $inforce " == *" ${hz%000} "* ]] && [ "${hz%000}000" = "$hz" ] && freq="in force: $hz ($inforce)"
done
res=$(check_metrics "$TMP/metrics")
if [ "$res" = ok ] && [ -n "$freq" ] && [[ $freq != MISMATCH* ]] && [ "$(metric schedfreqd_paused "$TMP/metrics")" = 0 ] \
	&& [ "$(metric 'schedfreqd_policy_scaling_max_frequency_hertz{policy="1"}' "$TMP/metrics")" = \
		"$(emu_exec cat $CPUFREQ/policy1/scaling_max_freq)000" ] \
	&& [ "$(metric 'schedfreqd_rule_decisions_total{rule="sleepers"}' "$TMP/metrics")" = "" ]; then
	ok "metrics: valid OpenMetrics; policy1 frequency_hertz == the emulator's scaling_cur_freq ($freq); no rules"
else
	fail "metrics: valid, frequency == the emulator's" "$res" "$freq" "$(cat "$TMP/metrics")"
fi
# The histogram while paused (no write, so no new latency): _count == ReactionLatencyCount, _sum == ...SumUSec.
bus_u() { busctl --system get-property "$NAME" "$OBJ" "$NAME" "$1" | cut -d' ' -f2; }
"$CTL" pause >/dev/null 2>&1
"$CTL" metrics >"$TMP/metrics" 2>&1
rc=$?
count=$(bus_u ReactionLatencyCount)
sum=$(bus_u ReactionLatencySumUSec)
"$CTL" resume >/dev/null 2>&1
mcount=$(metric schedfreqd_reaction_latency_seconds_count "$TMP/metrics")
msum=$(metric schedfreqd_reaction_latency_seconds_sum "$TMP/metrics")
res=$(check_metrics "$TMP/metrics")
if [ $rc -eq 0 ] && [ "$res" = ok ] && [ "$(metric schedfreqd_paused "$TMP/metrics")" = 1 ] && [ "$count" -gt 0 ] \
	&& [ "$mcount" = "$count" ] && python3 -c 'import sys; assert float(sys.argv[1]) == int(sys.argv[2]) / 1e6' "$msum" "$sum"; then
	ok "metrics while paused: paused 1; latency histogram _count $mcount == ReactionLatencyCount, _sum $msum s == $sum us"
else
	fail "metrics: the latency histogram agrees with the daemon" "rc=$rc" "$res" "count $count sum $sum" "$(cat "$TMP/metrics")"
fi
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$CTL" metrics 2>&1)
[ $? -eq 0 ] && [ "$(tail -n 1 <<<"$out")" = "# EOF" ] && ok "metrics as uid 65534: exit 0, the whole exposition" \
	|| fail "metrics as uid 65534" "$out"

# Control: from another user, one line that says what to do (not the bus policy's rule dump), exit 4; uid 65534
# is refused by the bus policy, uid 1 (let through by second-fence.conf) by the daemon.
for uid in 65534 1; do
	for verb in pause resume reload; do
		out=$(setpriv --reuid=$uid --regid=$uid --clear-groups "$CTL" "$verb" 2>&1)
		rc=$?
		[ $rc -eq 4 ] && [ "$out" = "Permission denied: $verb needs root (try: sudo schedfreqctl $verb)." ] \
			&& ok "$verb as uid $uid: exit 4, one line: $out" || fail "$verb as uid $uid: exit 4, one line" "rc=$rc" "$out"
	done
done
[ "$(emu_sh "cat $CPUFREQ/policy*/scaling_governor | sort -u")" = userspace ] && ok "refused control changed nothing" \
	|| fail "refused control changed nothing"
expect "status as uid 65534: exit 0" 0 "policy1" setpriv --reuid=65534 --regid=65534 --clear-groups "$CTL" status
expect "pause as root: exit 0" 0 "Paused" "$CTL" pause
[ "$(emu_sh "cat $CPUFREQ/policy*/scaling_governor | sort -u")" = schedutil ] && ok "pause: schedutil is back" || fail "pause: schedutil is back"
expect "explain while paused says so" 0 "schedfreqd is paused: the policy is back under its original governor 'schedutil'" "$CTL" explain --wide 1
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
EMU_DAEMON_PID=
expect "after the daemon exits: exit 3" 3 "schedfreqd is not running" "$CTL" explain
out=$("$CTL" metrics 2>/dev/null)
rc=$?
[ $rc -eq 3 ] && [ -z "$out" ] && ok "metrics after the daemon exits: exit 3, nothing on stdout" \
	|| fail "metrics after the daemon exits: exit 3, nothing on stdout" "rc=$rc" "$out"
grep -q 'ERROR: AddressSanitizer\|runtime error:' "$TMP/err" && fail "no sanitizer reports in the daemon" "$(show_daemon_log)" \
	|| ok "no sanitizer reports in the daemon"

emu_stop
dbus_stop
finish
