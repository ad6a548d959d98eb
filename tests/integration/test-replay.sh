#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck disable=SC2016
#
# Replay scenario tests: small hand-made `perf script` traces (tests/fixtures/traces/*.txt) run through
# `schedfreqd replay --topology T.ini TRACE`, asserting the exact decision lines (the key=value ones, --kv, which
# scripts read), then the table and summary a person reads by default (issue #24 item 4). The traces and what
# each shows are described in their header comments. Needs no root and no cpufreq.
. "$(dirname "$0")/lib.sh"

T="$REPO/tests/fixtures/traces"
SFD=$SCHEDFREQD

# replay: the key=value lines (--kv; the summary they send to stderr is dropped). replay_as: the output of
# exactly the options given (the table by default), stderr kept.
replay() { # TOPOLOGY TRACE [ARGS...]
	local topo=$1 trace=$2
	shift 2
	(cd "$T" && "$SFD" replay --kv --topology "$topo" "$@" "$trace" 2>/dev/null)
}
replay_as() { # TOPOLOGY TRACE [ARGS...]
	local topo=$1 trace=$2
	shift 2
	(cd "$T" && "$SFD" replay --topology "$topo" "$@" "$trace")
}

expect() { # NAME ACTUAL EXPECTED
	if [ "$2" == "$3" ]; then ok "$1"; else fail "$1" "expected:" "$3" "got:" "$2"; fi
}

# The article case, remote allowed (cpufreq-dt): policy1 changes at the wake-up recorded on cpu0. heavy last ran on
# cpu0, so its wake-up onto cpu1 attaches its util there (update_load_avg(DO_ATTACH)): a hook call on cpu1's rq.
# No fall after it: heavy's dequeue at 1.702500 is a hook call (a period decayed) but cpu1 has not been idle
# since the raise (the busy-hold), and light's switch to idle at 1.702600 shares that period: no hook call.
expect article_remote "$(replay two-dt.ini article.txt 2>/dev/null | grep policy=1)" "\
t=1700200000 policy=1 freq=2000000 cpu=0 kind=remote util=1024"

# Forbidden (acpi-cpufreq): nothing at 1.700200; the change waits for cpu1's next hook call, which does not come
# before the trace ends: cpu1 at 500 MHz runs its PELT clock at a quarter of wall time and crosses no period.
expect article_deferred "$(replay two-acpi.ini article.txt 2>/dev/null | grep policy=1)" ""

# The same forbidden through the config: [policy1] remote = no on the cpufreq-dt topology.
conf=$(mktemp)
at_exit "rm -f '$conf'"
printf '[policy1]\nremote = no\n' >"$conf"
expect article_config_remote_no "$(replay two-dt.ini article.txt --config "$conf" 2>/dev/null | grep policy=1)" \
	"$(replay two-acpi.ini article.txt 2>/dev/null | grep policy=1)"

# RT: max at once (local on cpu1; then a DL task woken from cpu0, remote), min when they sleep (util= is now
# the rq's avg_rt, RT running time decaying like any PELT signal); the stopper (migration/1) is not RT.
expect rt "$(replay two-dt.ini rt.txt)" "\
t=1000000000 policy=1 freq=2000000 cpu=1 kind=local util=1024
t=1002000000 policy=1 freq=500000 cpu=1 kind=local util=41
t=1010000000 policy=1 freq=2000000 cpu=0 kind=remote util=1024
t=1011000000 policy=1 freq=500000 cpu=1 kind=local util=55"

# Ramp-up under continuous load (5.1+ clock_pelt: the PELT clock runs at cur/max while busy); after the
# task sleeps at 1.200 the idle CPU keeps its frequency (no idle tick, NOHZ) and the wake-up at 1.600 brings
# the util_est back: no change needed.
expect ramp "$(replay two-dt.ini ramp.txt)" "\
t=1044000000 policy=1 freq=1000000 cpu=1 kind=local util=208
t=1072000000 policy=1 freq=1500000 cpu=1 kind=local util=413
t=1100000000 policy=1 freq=2000000 cpu=1 kind=local util=628"

# The same ramp where the Energy Model marks 1.0 GHz inefficient (two-dt-em.ini, inefficient_khz): schedutil's
# CPUFREQ_RELATION_LE passes over it, so util 208 (raw 0.51 GHz) lands on the next efficient entry, 1.5 GHz, and
# util 413 changes nothing; at 1.5 GHz the PELT clock runs at 3/4 instead of 1/2, so 2.0 GHz comes 8 ms earlier.
expect ramp_inefficient_opp "$(replay two-dt-em.ini ramp.txt)" "\
t=1044000000 policy=1 freq=1500000 cpu=1 kind=local util=208
t=1092000000 policy=1 freq=2000000 cpu=1 kind=local util=636"

# NOHZ: while cpu1 sleeps (1.200 to 1.600) nothing ticks it and nothing changes its frequency: no decision in
# between, however far its blocked utilisation has decayed; the wake-up at 1.600 is the next evaluation.
sleep_ok=$(replay two-dt.ini ramp.txt | awk -F'[= ]' '$2 > 1200000000 && $2 < 1600000000 { bad = 1 } END { print bad ? "no" : "yes" }')
expect ramp_idle_untouched "$sleep_ok" yes

# Shared policy: the maximum over cpu0 and cpu1 (cpu= says whose demand leads).
expect shared "$(replay shared.ini shared.txt)" "\
t=1044000000 policy=0 freq=1000000 cpu=0 kind=local util=208
t=1072000000 policy=0 freq=1500000 cpu=0 kind=local util=413
t=1100000000 policy=0 freq=2000000 cpu=0 kind=local util=628
t=1104000000 policy=0 freq=1500000 cpu=0 kind=local util=537
t=1116000000 policy=0 freq=2000000 cpu=1 kind=local util=619"

# Migration moves demand: at 1.302100 policy0 falls (remote, from cpu1) and policy1 rises (local). The mover's
# util arrives whole (attached unaged, as after migrate_task_rq_fair()), so when it sleeps at 1.303 cpu1's util
# stays ~975 and policy1 at its maximum (it fell to util 334 while the model aged the task across clocks).
expect migrate "$(replay two-dt.ini migrate.txt | grep -E "^t=130")" "\
t=1302100000 policy=0 freq=500000 cpu=1 kind=remote util=0
t=1302100000 policy=1 freq=2000000 cpu=1 kind=local util=1017"

# The same with autogroup (two-dt-autogroup.ini: every session a task group, demand-groups.c): the mover's util
# arrives on cpu1 at once (the attach propagates up enqueue_task_fair()'s walk), but leaves cpu0 lazily: the
# kernel's remove_entity_load_avg() only queues it on the mover's GROUP cfs_rq on cpu0, which nothing updates while
# cpu0 sleeps, so cpu0's root keeps it and policy0 stays at its maximum; it falls at 1.303, when cpu1 goes idle and
# its newidle balance runs the blocked-load update of idle cpu0 (nohz_newidle_balance() → _nohz_idle_balance()).
expect migrate-autogroup "$(replay two-dt-autogroup.ini migrate.txt | grep -E "^t=130")" "\
t=1302100000 policy=1 freq=2000000 cpu=1 kind=local util=1017
t=1303000000 policy=0 freq=500000 cpu=1 kind=remote util=0"

# A switch-in the trace lost (lost-switch-in.txt): hog's first sched_stat_runtime after it (1.020000, runtime 3 ms)
# puts it back at 1.017000 (replay-lookahead.c), where the kernel's PELT started counting the run; without it the
# model saw the run from 1.020000 only (util 36 there, not 54). The fully recorded run at 1.033 gets nothing added,
# but its first report dates the enqueue 5 µs before the recorded wake-up (the rq clock of the wake-up, which the
# switch-in from idle did not update): the wake-up and the switch-in are applied there, at 1.033000, not 1.033005.
expect lost_switch_in "$(replay two-dt.ini lost-switch-in.txt --print-util | grep -E '^t=10(17|20|33)[0-9]* cpu=1 ')" "\
t=1017000000 cpu=1 util=38 util_est=51 runnable=38 rt=0 eff=51
t=1020000000 cpu=1 util=54 util_est=51 runnable=54 rt=0 eff=54
t=1033000000 cpu=1 util=67 util_est=88 runnable=67 rt=0 eff=88"

# Sessions with autogroup (sessions.txt): its '# schedfreqd-session:' lines put shell in worker's session, so shell's
# child at 1.066 starts from worker's group on cpu0 (+296, not half the capacity: +510 without the lines); shell's
# setsid at 1.067 gives it a new, empty group, and its second child at 1.068 gets half the capacity (+512).
expect sessions "$(replay two-dt-autogroup.ini sessions.txt --print-util | grep -E '^t=106[568][01]00000 cpu=0 ')" "\
t=1065100000 cpu=0 util=144 util_est=0 runnable=144 rt=0 eff=144
t=1066000000 cpu=0 util=440 util_est=0 runnable=440 rt=0 eff=440
t=1068000000 cpu=0 util=457 util_est=0 runnable=457 rt=0 eff=457
t=1068000000 cpu=0 util=969 util_est=0 runnable=969 rt=0 eff=969"
expect sessions_unsaid "$(grep -v '^# schedfreqd-session:' "$T/sessions.txt" |
	replay two-dt-autogroup.ini - --print-util | grep -E '^t=1066000000 cpu=0 ')" "\
t=1066000000 cpu=0 util=654 util_est=0 runnable=654 rt=0 eff=654"

# A running task moved by the stopper after 400 ms on cpu0 carries its whole util (attach_entity_load_avg()):
# policy1 goes to its maximum at the migration, a remote change from cpu0 (it climbed from util 335 before).
expect migrate-running "$(replay two-dt.ini migrate-running.txt | grep -E "policy=1")" "\
t=1400010000 policy=1 freq=2000000 cpu=0 kind=remote util=1023"

# Busy-hold: cpu1 loses its heavy task at 1.300100 but stays busy: policy1 holds max until cpu1 idles.
expect hold "$(replay two-dt.ini hold.txt | grep policy=1)" "\
t=1024000000 policy=1 freq=1000000 cpu=1 kind=local util=238
t=1036000000 policy=1 freq=1500000 cpu=1 kind=local util=449
t=1044000000 policy=1 freq=2000000 cpu=1 kind=local util=635
t=1324000000 policy=1 freq=1500000 cpu=1 kind=local util=549"

# Rate limit 15 ms (10 ms latency x 1.5) under 4 ms ticks: changes 16 ms apart.
expect rate_limit "$(replay slow.ini ratelimit.txt)" "\
t=1044000000 policy=0 freq=507812 cpu=0 kind=local util=208
t=1060000000 policy=0 freq=666015 cpu=0 kind=local util=273
t=1076000000 policy=0 freq=855468 cpu=0 kind=local util=351
t=1092000000 policy=0 freq=1074218 cpu=0 kind=local util=440
t=1108000000 policy=0 freq=1302734 cpu=0 kind=local util=534
t=1124000000 policy=0 freq=1535156 cpu=0 kind=local util=629
t=1140000000 policy=0 freq=1750000 cpu=0 kind=local util=717
t=1156000000 policy=0 freq=1937500 cpu=0 kind=local util=794
t=1172000000 policy=0 freq=2000000 cpu=0 kind=local util=857"
gaps_ok=$(replay slow.ini ratelimit.txt | awk -F'[= ]' 'NR > 1 && $2 - last < 15000000 { bad = 1 } { last = $2 }
	END { print (NR > 3 && !bad) ? "yes" : "no" }')
expect rate_limit_gaps "$gaps_ok" yes

# iowait boost from sched_stat_iowait: 128 (no change), 256, 512, 1024: the CPU sleeps between the requests,
# so no tick halves the boost in between (NOHZ), each applied request doubles it, and no other hook call comes
# between them (they share a PELT period). The plain wake-up at 1.003 is a hook call in a later period: it
# halves the boost (sugov_iowait_apply()).
expect iowait "$(replay two-dt.ini iowait.txt)" "\
t=1000700000 policy=1 freq=1000000 cpu=1 kind=local util=256
t=1000900000 policy=1 freq=1500000 cpu=1 kind=local util=512
t=1001100000 policy=1 freq=2000000 cpu=1 kind=local util=1024
t=1003000000 policy=1 freq=1500000 cpu=1 kind=local util=512"

# Evaluation points (docs/fidelity.md): a policy is evaluated only where the kernel calls schedutil for one of its
# CPUs' rqs. big woken on cpu1 where it slept (1.300100) is no hook call: the raise waits for the tick at 1.304;
# mover woken onto cpu1 from cpu0 (1.400100) is attached there, and big's wake-up after I/O (1.500100) carries
# SCHED_CPUFREQ_IOWAIT: both decide at once; an RT task's enqueue (1.600250) goes to the maximum at once, and
# small's switch to idle at 1.600500, in the same PELT period, leaves policy1 there.
expect evaluation_points "$(replay two-dt.ini evaluation-points.txt | grep policy=1 | awk -F'[= ]' '$2 >= 1300000000')" "\
t=1304000000 policy=1 freq=2000000 cpu=1 kind=local util=628
t=1310000000 policy=1 freq=500000 cpu=1 kind=local util=141
t=1400100000 policy=1 freq=2000000 cpu=1 kind=local util=628
t=1401000000 policy=1 freq=500000 cpu=1 kind=local util=40
t=1500100000 policy=1 freq=1500000 cpu=1 kind=local util=506
t=1501000000 policy=1 freq=500000 cpu=1 kind=local util=20
t=1600250000 policy=1 freq=2000000 cpu=1 kind=local util=1024"

# iowait and util_est (fidelity.md difference 6): big's wake-up after I/O at 1.300 keeps policy1 at its maximum,
# because enqueue_task_fair() adds big's util_est (628) before its SCHED_CPUFREQ_IOWAIT hook call. The model that
# evaluated that call without it went down to the boost alone (t=1.300 500 MHz util=128 reason=iowait) and back
# up only at the tick after the rate limit (t=1.304 2 GHz util=628). The fall at 1.310 is big's dequeue.
expect iowait_util_est "$(replay two-dt.ini iowait-util-est.txt --print-decisions)" "\
t=1044000000 policy=1 freq=1000000 cpu=1 kind=local util=208 reason=demand
t=1072000000 policy=1 freq=1500000 cpu=1 kind=local util=413 reason=demand
t=1100000000 policy=1 freq=2000000 cpu=1 kind=local util=628 reason=demand
t=1310000000 policy=1 freq=500000 cpu=1 kind=local util=193 reason=demand"

# Malformed lines: "FILE:LINE: reason" and a non-zero exit, nothing decided after the bad line.
for c in "malformed.txt:3: sched_switch without a valid prev_pid= or next_pid=" \
	"malformed-header.txt:2: expected '<comm> <pid> [<cpu>] <sec>.<usec|nsec>: <sys>:<event>: …'"; do
	f=${c%%:*}
	out=$(replay_as two-dt.ini "$f" 2>&1)
	rc=$?
	if [ $rc -ne 0 ] && [[ "$out" == *"$c"* ]]; then ok "malformed_${f%.txt}"; else fail "malformed_${f%.txt}" "rc=$rc" "$out"; fi
done

# Input that does not fit the topology or the trace's clock: "FILE:LINE: reason", non-zero exit.
for c in "bad-cpu.txt:4: event recorded on CPU 4 is not in the topology (CPUs 0-1)" \
	"bad-target-cpu.txt:3: target_cpu=3 is not in the topology (CPUs 0-1)" \
	"bad-dest-cpu.txt:3: dest_cpu=2 is not in the topology (CPUs 0-1)" \
	"backwards.txt:6: time goes backwards: 100.000000 is 100.000000 s before the latest event (200.000000)"; do
	f=${c%%:*}
	out=$(replay_as two-dt.ini "$f" 2>&1 >/dev/null)
	rc=$?
	if [ $rc -ne 0 ] && [[ "$out" == *"$c"* ]]; then ok "bad_input_${f%.txt}"; else fail "bad_input_${f%.txt}" "rc=$rc" "$out"; fi
done

# A topology without any policy: an error naming the file, not an empty replay.
empty=$(mktemp)
at_exit "rm -f '$empty'"
printf '[system]\nonline = 0-1\npossible = 0-1\n' >"$empty"
out=$(replay_as "$empty" ramp.txt 2>&1)
rc=$?
if [ $rc -ne 0 ] && [[ "$out" == *"$empty: no [policyN] section"* ]]; then ok empty_topology
else fail empty_topology "rc=$rc" "$out"; fi

# Small reorderings (what perf script leaves: an event a flush round late) are applied at the latest time and
# counted in one warning at the end, which says what that means and where it comes from (issue #24).
out=$(replay_as two-dt.ini reordered.txt 2>&1 >/dev/null)
expect reordered_out_of_order "$out" "\
reordered.txt: 2 events out of order (up to 50 µs before an earlier line), replayed at the latest time.
perf script sorts each flush round by time; an event written while its CPU's buffer was read comes a round late."
# The showcase trace is in time order, as perf script prints a recording (it listed cpu0's events, then cpu1's,
# 90 of them up to 300 ms late: a trace put together by hand, which perf never prints): replayed without a warning.
expect article_in_order "$(replay_as two-dt.ini article.txt 2>&1 >/dev/null)" ""

# A gap of 10^7 s while cpu1 is busy: replayed at once (it took over a minute on 4 ms ticks), and with the
# kernel's outcome: the ramp, policy0 back at its minimum through the nohz update, policy1 held at its maximum
# through the gap, nothing while cpu1 sleeps after it (NOHZ), and its util_est kept when it wakes.
start=$(date +%s%N)
out=$(cd "$T" && timeout 10 "$SFD" replay --kv --topology two-dt.ini gap.txt 2>/dev/null)
rc=$?
echo "# 10^7 s gap replayed in $((($(date +%s%N) - start) / 1000000)) ms (rc=$rc)"
expect gap_fast_and_right "$out" "\
t=944000000 policy=0 freq=1000000 cpu=0 kind=local util=208
t=972000000 policy=0 freq=1500000 cpu=0 kind=local util=413
t=1000000000 policy=0 freq=2000000 cpu=0 kind=local util=628
t=1004000000 policy=0 freq=500000 cpu=0 kind=local util=189
t=1044000000 policy=1 freq=1000000 cpu=1 kind=local util=208
t=1072000000 policy=1 freq=1500000 cpu=1 kind=local util=413
t=1100000000 policy=1 freq=2000000 cpu=1 kind=local util=628"
# After the gap: cpu1 saturated when its task sleeps, cpu0's blocked load fully decayed.
expect gap_signals "$(cd "$T" && timeout 10 "$SFD" replay --topology two-dt.ini --print-util gap.txt 2>/dev/null | grep -E '^t=(10000001000000000 cpu=1|[0-9]+ cpu=0) ' | tail -n 2)" "\
t=1292000000 cpu=0 util=0 util_est=0 runnable=0 rt=0 eff=0
t=10000001000000000 cpu=1 util=1023 util_est=0 runnable=1023 rt=0 eff=1023"

# Per-process rules (issue #13) on rules.txt: a hog "indexer" on cpu0, a light "ui" (1 ms every 10 ms) on cpu1.
rules_conf() { # CONFIG_TEXT: a config file holding it
	local f
	f=$(mktemp)
	at_exit "rm -f '$f'"
	printf '%b' "$1" >"$f"
	echo "$f"
}
expect rules_none_policy1 "$(replay two-dt.ini rules.txt | grep -c policy=1)" "0"
# A boosted light task raises its policy at every wake-up (min_util: perf 1024 = util 820 x 1.25), and only then;
# 45 times in 50 activations: in 5, ui's 1 ms at 2 GHz crossed no PELT period, so its dequeue made no hook call
# and policy1 stayed at its maximum through the sleep (no fall, no new raise at the next wake-up).
boost=$(replay two-dt.ini rules.txt --config "$(rules_conf '[rule:ui]\ncomm = ui\nmin_util = 1024\n')" | grep policy=1)
expect rules_boost_first "$(head -n 2 <<<"$boost")" "\
t=1002000000 policy=1 freq=2000000 cpu=1 kind=local util=820
t=1003000000 policy=1 freq=500000 cpu=1 kind=local util=20"
expect rules_boost_every_wakeup "$(grep -c 'freq=2000000' <<<"$boost")" "45"
# rt_boost: as an RT task, the capacity itself.
expect rules_rt_boost "$(replay two-dt.ini rules.txt --config "$(rules_conf '[rule:ui]\ncomm = u?\nrt_boost = yes\n')" |
	grep policy=1 | head -n 1)" "t=1002000000 policy=1 freq=2000000 cpu=1 kind=local util=1024"
# A capped hog holds policy0 at its cap's frequency (512 / 1024 of 2 GHz) instead of climbing to 2 GHz.
expect rules_cap "$(replay two-dt.ini rules.txt --config "$(rules_conf '[rule:ix]\ncomm = index*\nmax_util = 512\n')")" \
	"t=1044000000 policy=0 freq=1000000 cpu=0 kind=local util=208"
# An ignored hog leaves policy0 at its minimum: no decision at all.
expect rules_ignore "$(replay two-dt.ini rules.txt --config "$(rules_conf '[rule:ix]\ncomm = indexer\nignore = yes\n')")" ""
# A rule with an exe= key never matches in a replay (a trace has names only): the hog counts as without rules.
expect rules_exe_never_in_replay "$(replay two-dt.ini rules.txt \
	--config "$(rules_conf '[rule:ix]\ncomm = indexer\nexe = /usr/bin/*\nignore = yes\n')" | grep -c policy=0)" "3"

# A capped rq is not held (sugov_hold_freq()): the cap applies at 1.304 s, the first hook call after "a" sleeps
# at 1.300 (its dequeue shares the PELT period of the tick at 1.300: no hook), not when cpu0 idles.
expect rules_capped_not_held "$(replay two-dt.ini rules-hold.txt --config "$(rules_conf '[rule:ix]\ncomm = indexer\nmax_util = 512\n')" |
	tail -n 1)" "t=1304000000 policy=0 freq=1000000 cpu=0 kind=local util=409"

# --- issue #14: --print-decisions adds reason= (and deferred=), as the daemon prints them ---------------------
expect article_print_decisions "$(replay two-dt.ini article.txt --print-decisions 2>/dev/null | grep policy=1)" "\
t=1700200000 policy=1 freq=2000000 cpu=0 kind=remote util=1024 reason=demand"
# A deferred change says how long it waited (acpi-cpufreq: policy0's fall, which cpu1's nohz blocked-load update
# could not make at 1.420500, made at cpu0's first hook call after it, the waker's switch-in at 1.700100).
expect article_print_decisions_deferred "$(replay two-acpi.ini article.txt --print-decisions 2>/dev/null | grep deferred=)" "\
t=1700100000 policy=0 freq=500000 cpu=0 kind=local util=2 reason=demand deferred=279600000"
# Everything but the added fields is the default output, which stays as it was (the expectations above).
expect print_decisions_same_lines "$(replay two-dt.ini rt.txt --print-decisions | sed 's/ reason=.*//')" "$(replay two-dt.ini rt.txt)"
# --print-decisions (as --print-util) prints the key=value lines without --kv: scripts and the oracle read them.
expect print_decisions_is_kv "$(replay_as two-dt.ini rt.txt --print-decisions 2>/dev/null | sed 's/ reason=.*//')" \
	"$(replay two-dt.ini rt.txt)"

# --- --csv: a header, one row per decision; with --print-util, a record column and the CPUs' signals -----------
expect article_csv "$(replay_as two-dt.ini article.txt --csv 2>/dev/null)" "\
time_s,policy,freq_khz,util,cpu,kind,reason
1.044000000,0,1000000,208,0,local,demand
1.072000000,0,1500000,413,0,local,demand
1.100000000,0,2000000,628,0,local,demand
1.460500000,0,1000000,293,1,remote,demand
1.500500000,0,500000,128,1,remote,demand
1.700200000,1,2000000,1024,0,remote,demand"
# The same decisions as the text lines, field for field.
expect csv_matches_text "$(replay_as two-dt.ini ramp.txt --csv 2>/dev/null | awk -F, 'NR > 1 {
	split($1, t, "."); printf "t=%d%s policy=%s freq=%s cpu=%s kind=%s util=%s\n", t[1], t[2], $2, $3, $5, $6, $4 }' |
	sed 's/^t=0*\([0-9]\)/t=\1/')" "$(replay two-dt.ini ramp.txt)"
csv_util=$(replay_as two-dt.ini article.txt --csv --print-util 2>/dev/null)
expect article_csv_util_head "$(head -n 4 <<<"$csv_util")" "\
record,time_s,policy,freq_khz,util,cpu,kind,reason,util_est,runnable,rt,eff
util,1.000000000,0,,0,0,,,0,0,0,0
util,1.000000000,1,,0,1,,,0,0,0,0
util,1.004000000,0,,20,0,,,0,20,0,20"
# Its decision rows are the rows without --print-util, with the four signal columns empty.
expect article_csv_util_decisions "$(grep '^decision,' <<<"$csv_util" | sed 's/^decision,//; s/,,,,$//')" \
	"$(replay_as two-dt.ini article.txt --csv 2>/dev/null | tail -n +2)"
expect article_csv_util_first_decision "$(grep -m 1 '^decision,1.7002' <<<"$csv_util")" \
	"decision,1.700200000,1,2000000,1024,0,remote,demand,,,,"
expect csv_util_fields "$(awk -F, '{ print NF }' <<<"$csv_util" | sort -u)" "12"

# --- scripts/plot-replay: a PNG (with a zoomed column) from a replay it runs itself, an SVG from a CSV ---------
plots=$(mktemp -d)
at_exit "rm -rf '$plots'"
out=$(SCHEDFREQD=$SFD "$REPO/scripts/plot-replay" -o "$plots/article.png" --zoom 1.699:1.704 --topology "$T/two-dt.ini" "$T/article.txt" 2>&1)
rc=$?
if [ $rc -eq 0 ] && [ "$(head -c 8 "$plots/article.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] &&
	[ "$(stat -c %s "$plots/article.png")" -gt 10000 ]; then
	ok "plot-replay: a PNG of the article replay"
else
	fail "plot-replay: a PNG of the article replay" "rc=$rc" "$out"
fi
replay_as two-dt.ini article.txt --csv >"$plots/article.csv" 2>/dev/null
out=$("$REPO/scripts/plot-replay" --svg -o "$plots/article.svg" "$plots/article.csv" 2>&1)
rc=$?
if [ $rc -eq 0 ] && grep -q '<svg' "$plots/article.svg" && grep -q 'policy1' "$plots/article.svg"; then
	ok "plot-replay --svg: an SVG from a decisions-only CSV"
else
	fail "plot-replay --svg: an SVG from a decisions-only CSV" "rc=$rc" "$out"
fi
out=$("$REPO/scripts/plot-replay" -o "$plots/bad.png" "$T/article.txt" 2>&1)
rc=$?
[ $rc -ne 0 ] && [[ "$out" == *"not a \`schedfreqd replay --csv\` file"* ]] && [ ! -e "$plots/bad.png" ] \
	&& ok "plot-replay: a file that is not replay CSV is refused" \
	|| fail "plot-replay: a file that is not replay CSV is refused" "rc=$rc" "$out"

# The kernel's choices beside ours (power:cpu_frequency in the trace, issue #14): kernel-freq.txt's kernel steps
# 6 and 8 ms after ours at 1.044 and 1.072 s, 500 MHz apart: 14 ms of 500 differ.
expect kernel_compare "$(replay two-dt.ini kernel-freq.txt | grep '^kernel ')" \
	"kernel policy=0 agree=97.2% compared_ms=500.000 mean_diff_khz=14000 max_diff_khz=500000 kernel_changes=3 changes=3"
expect kernel_compare_decisions_unchanged "$(replay two-dt.ini kernel-freq.txt | grep -v '^kernel ')" \
	"$(grep -v 'power:cpu_frequency' "$T/kernel-freq.txt" | (cd "$T" && "$SFD" replay --kv --topology two-dt.ini - 2>/dev/null))"
expect kernel_compare_csv_on_stderr "$(replay_as two-dt.ini kernel-freq.txt --csv 2>&1 >/dev/null | grep -c '^kernel policy=0 ')" "1"
expect kernel_compare_none_without "$(replay two-dt.ini rules.txt | grep -c '^kernel ')" "0"
out=$(printf '  x 0 [000] 1.000000: power:cpu_frequency: state=800000 cpu_id=7\n' | (cd "$T" && "$SFD" replay --topology two-dt.ini - 2>&1))
expect kernel_compare_bad_cpu "$out" "<stdin>:1: power:cpu_frequency for a CPU outside the topology"
out=$(printf '  x 0 [000] 1.000000: power:cpu_frequency: state=fast cpu_id=0\n' | (cd "$T" && "$SFD" replay --topology two-dt.ini - 2>&1))
expect kernel_compare_bad_state "$out" "<stdin>:1: power:cpu_frequency without a valid state= or cpu_id="


# --- issue #24 item 4: the default output reads like `perf sched timehist` ----------------------------------
# A table of the decisions (times since the trace's first event, the task behind each), then a summary.
table=$(replay_as two-acpi.ini article.txt 2>/dev/null)
rows() { awk '$1 ~ /^[0-9]+\.[0-9]+$/ && NF >= 8'; } # the table's decision rows
expect table_header "$(head -n 1 <<<"$table")" \
	"        time  cpu  policy  freq MHz  util  kind      reason  task"
# Relative times: the first decision 44 ms into a trace that starts at 1.000000 s (absolute: 1.044000).
expect table_relative_first "$(rows <<<"$table" | head -n 1 | awk '{ print $1 }')" "0.044000"
expect table_absolute_first "$(replay_as two-acpi.ini article.txt --absolute-time 2>/dev/null | rows | head -n 1 |
	awk '{ print $1 }')" "1.044000"
# Every row is a --kv line, the trace's start (1 s) taken off its time: same decisions, same order.
expect table_rows_are_the_decisions "$(rows <<<"$table" | awk '{ printf "%.6f %s %s\n", $1 + 1, $3, $4 }')" \
	"$(replay two-acpi.ini article.txt | awk -F'[= ]' '{ printf "%.6f %s %.3f\n", $2 / 1e9, $4, $6 / 1000 }')"
# The task behind a known decision: policy0's deferred fall at 1.700100 is applied at the waker's switch-in (pid
# 100), cpu0's first hook call after cpu1's nohz update deferred it; the remote DL rise of rt.txt is dl's
# wake-up; a tick's is the running task's.
expect table_task_deferred "$(rows <<<"$table" | awk '$1 == "0.700100" && $3 == 0')" \
	"    0.700100    0       0   500.000     2  deferred  demand  waker[100]"
expect table_task_remote "$(replay_as two-dt.ini rt.txt 2>/dev/null | rows | awk '$6 == "remote" { print $7, $8 }')" \
	"rt dl[51]"
expect table_task_tick "$(replay_as two-dt.ini ramp.txt 2>/dev/null | rows | awk '{ print $8 }' | sort -u)" "busy[400]"
# No task: cpu0's blocked load decaying, updated from cpu1 as it goes idle (the nohz update) is nobody's.
expect table_task_none "$(replay_as two-dt.ini article.txt 2>/dev/null | rows | awk '$1 == "0.460500" { print $6, $8 }')" \
	"remote -"

# The summary, for a trace without power:cpu_frequency: its counts are the rows' kinds, its deferred waits the
# deferred= of --print-decisions (one, 279.6 ms), and per policy the time at each frequency adds up to the
# trace's 0.7026 s.
summary=$(sed -n '/^Summary/,$p' <<<"$table")
expect summary_head "$(head -n 3 <<<"$summary")" "\
Summary: 192 events over 0.702600 s (trace time 1.000000 to 1.702600)
  decisions       4: local 3, remote 0, deferred 1
  deferred waits  1: p50 279.600 ms, max 279.600 ms"
expect summary_counts_match_rows "$(rows <<<"$table" | awk '{ n[$6]++; t++ }
	END { printf "%d: local %d, remote %d, deferred %d\n", t, n["local"], n["remote"], n["deferred"] }')" \
	"$(grep '^  decisions' <<<"$summary" | sed 's/^  decisions *//')"
expect summary_waits_match_print_decisions "$(replay two-acpi.ini article.txt --print-decisions |
	sed -n 's/.* deferred=\([0-9]*\).*/\1/p' | sort -n | awk '{ w[NR] = $1 }
	END { printf "%d: p50 %.3f ms, max %.3f ms\n", NR, w[int((NR + 1) / 2)] / 1e6, w[NR] / 1e6 }')" \
	"$(grep '^  deferred waits' <<<"$summary" | sed 's/^  deferred waits *//')"
expect summary_time_at_frequency "$(sed -n '/time at frequency/,$p' <<<"$summary" | tail -n +3)" "\
  0       0            500.000      0.046500    6.6%
                      1000.000      0.028000    4.0%
                      1500.000      0.028000    4.0%
                      2000.000      0.600100   85.4%
  1       1            500.000      0.702600  100.0%"
expect summary_fits_80_columns "$(awk 'length($0) > 80' <<<"$table")" ""
# Always printed: for a trace without any decision too, and after the kernel comparison when there is one.
expect summary_without_decisions "$(replay_as two-dt.ini rules.txt --config "$(rules_conf '[rule:ix]\ncomm = indexer\nignore = yes\n')" 2>/dev/null |
	grep -E '^(Summary|  decisions)' | sed 's/^Summary: \([0-9]*\) events.*/Summary: \1 events/')" "\
Summary: 153 events
  decisions       0: local 0, remote 0, deferred 0"
expect summary_after_kernel_compare "$(replay_as two-dt.ini kernel-freq.txt 2>/dev/null | grep -E '^(kernel|Summary)' | cut -c 1-14)" "\
kernel policy=
Summary: 153 e"
# For scripts: --kv and --csv keep stdout what it was (the lines above) and put the summary on stderr.
expect summary_kv_on_stderr "$(replay_as two-dt.ini article.txt --kv 2>&1 >/dev/null | grep -c '^  decisions       6: ')" "1"
expect summary_csv_on_stderr "$(replay_as two-dt.ini article.txt --csv 2>&1 >/dev/null | grep -c '^  decisions       6: ')" "1"
expect kv_stdout_only_lines "$(replay_as two-dt.ini article.txt --kv 2>/dev/null | grep -vc '^t=')" "0"
# --absolute-time is the table's: with a format for scripts, a usage error.
out=$(replay_as two-dt.ini article.txt --kv --absolute-time 2>&1)
expect absolute_time_with_kv "$?: $out" "2: --absolute-time applies to the table: --kv prints the trace's own times.
Try 'schedfreqd --help'."

# --- issue 25 item 3: the tick of the kernel that recorded the trace ---------------------------------------------
# hz1000.txt is ramp.txt as a CONFIG_HZ=1000 kernel records it: the running task's sched_stat_runtime every 1 ms,
# then an RT task on cpu0 (1.300 to 1.312) that reports nothing. tick_ms = auto (the default) measures HZ=1000 and
# replays on a 1 ms tick, which the summary says and the output shows: cpu0's first tick after 1.300 runs the
# nohz blocked-load update of idle cpu1 and lowers policy1 at 1.301 (tick_ms = 4: at 1.304), and --print-util
# shows cpu0's RT signal every 1 ms (tick_ms = 4: every 4 ms). The traces without sched_stat_runtime (all the
# others) replay on 4 ms as before: their results above are unchanged.
expect tick_measured_summary "$(replay_as two-dt.ini hz1000.txt 2>/dev/null | grep '^  tick ')" \
	"  tick            1 ms (HZ=1000: 73 of 73 sched_stat_runtime on its grid)"
expect tick_measured_decisions "$(replay two-dt.ini hz1000.txt)" "\
t=1044000000 policy=1 freq=1000000 cpu=1 kind=local util=208
t=1074000000 policy=1 freq=1500000 cpu=1 kind=local util=425
t=1099000000 policy=1 freq=2000000 cpu=1 kind=local util=618
t=1300000000 policy=0 freq=2000000 cpu=0 kind=local util=1024
t=1301000000 policy=1 freq=500000 cpu=1 kind=local util=39
t=1312000000 policy=0 freq=1000000 cpu=0 kind=local util=224
t=1600000000 policy=1 freq=2000000 cpu=1 kind=local util=974"
expect tick_measured_is_tick_ms_1 "$(replay two-dt.ini hz1000.txt)" \
	"$(replay two-dt.ini hz1000.txt --config "$(rules_conf '[governor]\ntick_ms = 1\n')")"
expect tick_ms_overrides "$(replay_as two-dt.ini hz1000.txt --config "$(rules_conf '[governor]\ntick_ms = 4\n')" \
	2>/dev/null | grep '^  tick ')" "  tick            4 ms ([governor] tick_ms)"
expect tick_ms_4_decides_on_its_grid "$(replay two-dt.ini hz1000.txt --config "$(rules_conf '[governor]\ntick_ms = 4\n')" |
	grep 'policy=1 freq=500000')" "t=1304000000 policy=1 freq=500000 cpu=1 kind=local util=37"
rt_util_times() { awk -F'[= ]' '/cpu=0 util=/ && $2 > 1300000000 && $2 < 1312000000 { printf "%s ", $2 / 1e6 }'; }
expect tick_measured_print_util "$(replay two-dt.ini hz1000.txt --print-util | rt_util_times)" \
	"1301 1302 1303 1304 1305 1306 1307 1308 1309 1310 1311 "
expect tick_ms_4_print_util "$(replay two-dt.ini hz1000.txt --print-util \
	--config "$(rules_conf '[governor]\ntick_ms = 4\n')" | rt_util_times)" "1304 1308 "
# Streamed (`-`): measured from the lines read ahead, which are then replayed: the same output as from the file.
expect tick_measured_from_a_pipe "$(cat "$T/hz1000.txt" | (cd "$T" && "$SFD" replay --kv --topology two-dt.ini - 2>&1))" \
	"$(replay_as two-dt.ini hz1000.txt --kv 2>&1)"
expect tick_default_without_runtime "$(replay_as two-dt.ini ramp.txt 2>/dev/null | grep '^  tick ')" \
	"  tick            4 ms (default HZ=250: no sched_stat_runtime to measure)"

# The other text formats (issue #25): the same traces as the tracefs `trace` file prints them (ftrace/article.txt,
# 5.13+ flags; ftrace/migrate.txt with the tgid column, no flags, comms with spaces and dashes), as trace-cmd report
# prints them through its sched_switch plugin (ftrace/article-report.txt, a -B buffer's), as an old kernel and
# systrace print them (ftrace/migrate-old.txt: success=1, D|K, 4 flag characters), and with ns timestamps and the
# print fmts (ftrace/kernel-freq.txt, `trace-cmd report -t`): the same decisions, line for line, as their
# `perf script` originals.
for c in "two-dt.ini article.txt ftrace/article.txt" "two-acpi.ini article.txt ftrace/article.txt" \
	"two-dt.ini article.txt ftrace/article-report.txt" "two-dt.ini migrate.txt ftrace/migrate.txt" \
	"two-dt.ini migrate.txt ftrace/migrate-old.txt" "two-dt.ini kernel-freq.txt ftrace/kernel-freq.txt"; do
	read -r topo perf ftrace <<<"$c"
	want=$(replay "$topo" "$perf")
	got=$(replay "$topo" "$ftrace")
	name="ftrace_same_decisions_${ftrace#ftrace/}_$topo"
	if [ -n "$want" ] && [ "$got" == "$want" ]; then ok "$name"; else fail "$name" "perf script:" "$want" "ftrace:" "$got"; fi
done
# The trace-cmd "[12 EVENTS DROPPED]" line: a warning that the model missed events.
expect ftrace_lost_warning "$(replay_as two-dt.ini ftrace/kernel-freq.txt --kv 2>&1 >/dev/null | grep -c 'lost events in 1 place:')" "1"

# A perf.data read directly (issue #25): the committed recording (tests/fixtures/perf-data/hog.data, a hog on CPU 1
# for 0.1 s) gives the decisions and the summary its committed `perf script --ns` (hog.txt) gives, in every output.
for args in "--kv" "" "--csv" "--print-util"; do
	# shellcheck disable=SC2086 # the options, split on purpose
	want=$(replay_as two-dt.ini ../perf-data/hog.txt $args 2>&1)
	# shellcheck disable=SC2086
	got=$(replay_as two-dt.ini ../perf-data/hog.data $args 2>&1)
	name="perf_data_same_as_perf_script${args:+_${args#--}}"
	if [ -n "$want" ] && [ "$got" == "$want" ]; then ok "$name"; else fail "$name" "$(diff <(echo "$want") <(echo "$got") | head -n 10)"; fi
done

# Malformed input in the other formats: FILE:LINE (or FILE: for a .dat libtracecmd cannot open), exit non-zero.
bad=$(mktemp -d)
at_exit "rm -rf '$bad'"
{ head -n 16 "$T/ftrace/article.txt"; echo "          <idle>-0       [000] d..2.     1.000000 sched_switch garbage"; } >"$bad/garbage.txt"
{ head -n 14 "$T/ftrace/article.txt"; grep -v '^#' "$T/article.txt" | head -n 1; } >"$bad/mixed.txt"
{ head -n 3 "$T/ftrace/article-report.txt"; echo "sfq:           <idle>-0     [000] 1.000000: sched_switch:        swapper/0:0 [120] R ==> heavy:200"; } >"$bad/plugin.txt"
printf '\027\010\104tracing6\0\0\0' >"$bad/truncated.dat"
printf '\027\010\104traci' >"$bad/short.dat"
printf 'PERFILE2\0\0\0\0\0\0\0\0' >"$bad/perf.data"
{ grep -v '^#' "$T/ftrace/migrate.txt" | head -n 2; echo "           x-9     (    9) [007]     1.301000: sched_wakeup: comm=a pid=5 prio=120 target_cpu=001"; } >"$bad/cpu7.txt"
for c in "garbage.txt:17: expected '<comm>-<pid> [<cpu>] [<flags>] <sec>.<usec|nsec>: <event>: …' (ftrace, as the first event line)" \
	"mixed.txt:15: a \`perf script\` line ('<comm> <pid> [<cpu>] … <sys>:<event>:') in an ftrace trace (as its first event line is)" \
	"plugin.txt:4: sched_switch neither with prev_pid=… next_pid=… nor as 'comm:pid [prio] state ==> comm:pid [prio]' (trace-cmd report)" \
	"truncated.dat: not a readable trace-cmd .dat (truncated or corrupt: libtracecmd cannot open it)" \
	"short.dat:1: not a trace: starts with byte 0x17 as a trace-cmd .dat does, without the rest of its magic" \
	"perf.data: header: size 0, not the 104 of a perf_file_header (truncated file)" \
	"cpu7.txt:3: event recorded on CPU 7 is not in the topology (CPUs 0-1)"; do
	f=${c%%:*}
	out=$(cd "$bad" && "$SFD" replay --kv --topology "$T/two-dt.ini" "$f" 2>&1)
	rc=$?
	if [ $rc -ne 0 ] && [[ "$out" == *"$c"* ]]; then ok "malformed_format_$f"; else fail "malformed_format_$f" "rc=$rc" "$out"; fi
done
# A .dat on a pipe: libtracecmd seeks, so its path is asked for.
out=$("$SFD" replay --kv --topology "$T/two-dt.ini" - <"$bad/truncated.dat" 2>&1)
rc=$?
[ $rc -ne 0 ] && [[ "$out" == *"<stdin>: not a readable trace-cmd .dat"* ]] && ok dat_from_redirected_file || fail dat_from_redirected_file "rc=$rc" "$out"
out=$(cat "$bad/truncated.dat" | "$SFD" replay --kv --topology "$T/two-dt.ini" - 2>&1)
rc=$?
[ $rc -ne 0 ] && [[ "$out" == *"<stdin>: a trace-cmd .dat is read from a file, not a pipe: give its path"* ]] && ok dat_from_pipe ||
	fail dat_from_pipe "rc=$rc" "$out"

finish
