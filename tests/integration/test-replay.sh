#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck disable=SC2016
#
# Replay scenario tests: small hand-made `perf script` traces (tests/fixtures/traces/*.txt) run through
# `schedfreqd replay --topology T.ini TRACE`, asserting the exact decision lines. The traces and what each
# shows are described in their header comments. Needs no root and no cpufreq.
. "$(dirname "$0")/lib.sh"

T="$REPO/tests/fixtures/traces"
SFD="$BUILD/schedfreqd"

replay() { # TOPOLOGY TRACE [ARGS...]
	local topo=$1 trace=$2
	shift 2
	(cd "$T" && "$SFD" replay --topology "$topo" "$@" "$trace")
}

expect() { # NAME ACTUAL EXPECTED
	if [ "$2" == "$3" ]; then ok "$1"; else fail "$1" "expected:" "$3" "got:" "$2"; fi
}

# The article case, remote allowed (cpufreq-dt): policy1 changes at the wake-up recorded on cpu0.
expect article_remote "$(replay two-dt.ini article.txt | grep policy=1)" "\
t=1700200000 policy=1 freq=2000000 cpu=0 kind=remote util=1024
t=1702600000 policy=1 freq=500000 cpu=1 kind=local util=61"

# Forbidden (acpi-cpufreq): nothing at 1.700200; the decision waits for cpu1's switch at 1.700500 and is local.
expect article_deferred "$(replay two-acpi.ini article.txt | grep policy=1)" "\
t=1700500000 policy=1 freq=2000000 cpu=1 kind=local util=1024
t=1702600000 policy=1 freq=500000 cpu=1 kind=local util=56"

# The same forbidden through the config: [policy1] remote = no on the cpufreq-dt topology.
conf=$(mktemp)
at_exit "rm -f '$conf'"
printf '[policy1]\nremote = no\n' >"$conf"
expect article_config_remote_no "$(replay two-dt.ini article.txt --config "$conf" | grep policy=1)" \
	"$(replay two-acpi.ini article.txt | grep policy=1)"

# RT: max at once (local on cpu1; then a DL task woken from cpu0, remote), min when they sleep; the stopper
# (migration/1) is not RT: nothing after 1.011.
expect rt "$(replay two-dt.ini rt.txt)" "\
t=1000000000 policy=1 freq=2000000 cpu=1 kind=local util=1024
t=1002000000 policy=1 freq=500000 cpu=1 kind=local util=0
t=1010000000 policy=1 freq=2000000 cpu=0 kind=remote util=1024
t=1011000000 policy=1 freq=500000 cpu=1 kind=local util=0"

# Ramp-up under continuous load (frequency-invariant PELT) and decay after sleep; the wake-up at
# 1.600000 brings the util_est of the task back at once.
expect ramp "$(replay two-dt.ini ramp.txt)" "\
t=1080000000 policy=1 freq=1000000 cpu=1 kind=local util=206
t=1136000000 policy=1 freq=1500000 cpu=1 kind=local util=416
t=1180000000 policy=1 freq=2000000 cpu=1 kind=local util=626
t=1212000000 policy=1 freq=1500000 cpu=1 kind=local util=593
t=1232000000 policy=1 freq=1000000 cpu=1 kind=local util=392
t=1264000000 policy=1 freq=500000 cpu=1 kind=local util=202
t=1600000000 policy=1 freq=2000000 cpu=1 kind=local util=760"

# Decay after sleep is pure PELT on wall time: util(t) = util(1.212) x 2^(-dt / 32 periods of 1.048576 ms).
decay_ok=$(replay two-dt.ini ramp.txt | awk -F'[= ]' '
	$2 >= 1212000000 && $2 < 1600000000 { if (!u0) { t0 = $2; u0 = $12 } else {
		want = u0 * 2 ^ (-($2 - t0) / (32 * 1048576)); if ($12 < want - 3 || $12 > want + 3) bad = 1; n++ } }
	END { print (n >= 2 && !bad) ? "yes" : "no" }')
expect ramp_decay_matches_pelt "$decay_ok" yes

# Shared policy: the maximum over cpu0 and cpu1 (cpu= says whose demand leads).
expect shared "$(replay shared.ini shared.txt)" "\
t=1080000000 policy=0 freq=1000000 cpu=0 kind=local util=206
t=1148000000 policy=0 freq=1500000 cpu=1 kind=local util=415
t=1192000000 policy=0 freq=2000000 cpu=1 kind=local util=625
t=1272000000 policy=0 freq=1500000 cpu=1 kind=local util=573
t=1292000000 policy=0 freq=1000000 cpu=1 kind=local util=379
t=1324000000 policy=0 freq=500000 cpu=1 kind=local util=195
t=1500000000 policy=0 freq=1000000 cpu=0 kind=local util=310"

# Migration moves demand: at 1.302100 policy0 falls (remote, from cpu1) and policy1 rises (local).
expect migrate "$(replay two-dt.ini migrate.txt | grep -E "^t=130")" "\
t=1302100000 policy=0 freq=500000 cpu=1 kind=remote util=0
t=1302100000 policy=1 freq=2000000 cpu=1 kind=local util=990"

# Busy-hold: cpu1 loses its heavy task at 1.300100 but stays busy: policy1 holds max until cpu1 idles.
expect hold "$(replay two-dt.ini hold.txt | grep policy=1)" "\
t=1080000000 policy=1 freq=1000000 cpu=1 kind=local util=206
t=1136000000 policy=1 freq=1500000 cpu=1 kind=local util=416
t=1180000000 policy=1 freq=2000000 cpu=1 kind=local util=626
t=1320000000 policy=1 freq=1000000 cpu=1 kind=local util=346"

# Rate limit 15 ms (10 ms latency x 1.5) under 4 ms ticks: changes 16 ms apart.
expect rate_limit "$(replay slow.ini ratelimit.txt)" "\
t=1080000000 policy=0 freq=501953 cpu=0 kind=local util=206
t=1096000000 policy=0 freq=537109 cpu=0 kind=local util=220
t=1112000000 policy=0 freq=572265 cpu=0 kind=local util=235
t=1128000000 policy=0 freq=611328 cpu=0 kind=local util=251
t=1144000000 policy=0 freq=654296 cpu=0 kind=local util=268
t=1160000000 policy=0 freq=697265 cpu=0 kind=local util=286
t=1176000000 policy=0 freq=746093 cpu=0 kind=local util=306
t=1192000000 policy=0 freq=796875 cpu=0 kind=local util=327
t=1208000000 policy=0 freq=851562 cpu=0 kind=local util=349
t=1224000000 policy=0 freq=910156 cpu=0 kind=local util=373
t=1240000000 policy=0 freq=972656 cpu=0 kind=local util=399
t=1256000000 policy=0 freq=1039062 cpu=0 kind=local util=426
t=1272000000 policy=0 freq=1113281 cpu=0 kind=local util=456
t=1288000000 policy=0 freq=1187500 cpu=0 kind=local util=487"
gaps_ok=$(replay slow.ini ratelimit.txt | awk -F'[= ]' 'NR > 1 && $2 - last < 15000000 { bad = 1 } { last = $2 }
	END { print (NR > 3 && !bad) ? "yes" : "no" }')
expect rate_limit_gaps "$gaps_ok" yes

# iowait boost from sched_stat_iowait: 128 (no change), 256, 512; the tick halves it, the rate limit
# keeps the next request from doubling twice.
expect iowait "$(replay two-dt.ini iowait.txt)" "\
t=1002000000 policy=1 freq=1000000 cpu=1 kind=local util=256
t=1003000000 policy=1 freq=1500000 cpu=1 kind=local util=512
t=1004000000 policy=1 freq=1000000 cpu=1 kind=local util=256
t=1005000000 policy=1 freq=1500000 cpu=1 kind=local util=512"

# Malformed lines: "FILE:LINE: reason" and a non-zero exit, nothing decided after the bad line.
for c in "malformed.txt:3: sched_switch without a valid prev_pid= or next_pid=" \
	"malformed-header.txt:2: expected '<comm> <pid> [<cpu>] <sec>.<usec|nsec>: <sys>:<event>: …'"; do
	f=${c%%:*}
	out=$(replay two-dt.ini "$f" 2>&1)
	rc=$?
	if [ $rc -ne 0 ] && [[ "$out" == *"$c"* ]]; then ok "malformed_${f%.txt}"; else fail "malformed_${f%.txt}" "rc=$rc" "$out"; fi
done

finish
