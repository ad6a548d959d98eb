#!/bin/bash
# asan: yes
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The BPF event source live (issue #23): the daemon with --events=bpf over the emulated cpufreq, real tasks on
# this machine's CPUs, the decisions taken in the kernel on the kernel's own signals.
#   - it says which source it runs on; auto takes bpf here (this kernel has BTF) and says why;
#   - a hog on CPU 1 raises policy1 to >= 90 % of its maximum, and its end lets it fall; every decision line says
#     source=bpf;
#   - the remote rule in the kernel: over acpi-cpufreq (per-CPU, no remote changes) no policy1 decision is made
#     from CPU 0 and some are deferred to CPU 1's next event; over cpufreq-dt (remote changes permitted) some are
#     made from CPU 0 at once;
#   - per-process rules in the kernel: a hog with `max_util = 300` holds policy1 at the frequency that util asks
#     for (reason=rule) for most of its run, where without the rule it rises to the maximum; an `ignore` rule
#     leaves policy1 at its minimum under the same hog;
#   - nothing stays in the kernel after SIGKILL (no pinned map or link: the daemon's programs go with its fds),
#     and `schedfreqd restore` puts the policies back.

. "$(dirname "$0")/lib.sh"

SFD=$SCHEDFREQD
HOG="$BUILD/tests/helpers/hog"
ARTICLE="$BUILD/tests/helpers/article"
TMP=$(mktemp -d /tmp/schedfreqd-test-bpf.XXXXXX)
at_exit 'rm -rf "$TMP"'
: >"$TMP/none.conf"
CPUFREQ=/sys/devices/system/cpu/cpufreq

show_log() { # FILE
	sed 's/^/# daemon: /' "$1" | tail -n 30
}

# The ids of the BPF programs a process holds, one per line: its fds' fdinfo names them (a program fd's and a
# link fd's prog_id; Debian's bpftool is built without the pids of `prog show`).
progs_of() { # PID
	cat /proc/"$1"/fdinfo/* 2>/dev/null | awk '$1 == "prog_id:" { print $2 }' | sort -un
}

# --- the source is chosen and said ------------------------------------------------------------------------
emu_start "$REPO/tests/fixtures/topology/two-policies.ini" || { fail "emulator start"; finish; }

if emu_daemon_start "$TMP/state" "$TMP/none.conf" "$TMP/err" "$TMP/out" --print-decisions --events=auto \
	&& wait_for "grep -q 'Event source: bpf (auto: ' '$TMP/err'" 5; then
	ok "auto takes the BPF source on a kernel with BTF and says so: $(grep -o 'Event source: .*' "$TMP/err")"
else
	fail "auto takes the BPF source on a kernel with BTF and says so" "$(show_log "$TMP/err")"
fi
emu_daemon_stop

# --- a hog raises its policy, its end lets it fall --------------------------------------------------------
# The emulator and the daemon on CPU 0, so that CPU 1 runs the hog alone: on a busy machine (a load on CPU 0)
# they would otherwise move to CPU 1, and reading policy1's frequency (through the emulator) would hold it up.
taskset -a -p -c 0 "$EMU_PID" >/dev/null
if EMU_DAEMON_WRAP="taskset -c 0" emu_daemon_start "$TMP/state" "$TMP/none.conf" "$TMP/err" "$TMP/out" --print-decisions \
	--events=bpf; then
	ok "--events=bpf: the daemon takes over both policies"
else
	fail "--events=bpf: the daemon takes over both policies" "$(show_log "$TMP/err")"
	finish
fi
grep -q 'Event source: bpf (--events)' "$TMP/err" && ok "the log names the source" || fail "the log names the source" "$(show_log "$TMP/err")"
pid=$EMU_DAEMON_PID
progs=$(progs_of "$pid")
n_progs=$(grep -c . <<<"$progs")
[ "$n_progs" -ge 4 ] && ok "the daemon holds $n_progs BPF programs" || fail "the daemon holds BPF programs" "$(bpftool prog show 2>&1 | tail)"

# Idle cost, judged within one window whatever the machine's background (lib.sh idle_counts): every context
# switch of the daemon is a decision record and its write, a sysfs read that blocks on the emulator (the scaling
# limits, at most once a second), the kernel side's once-a-second record, or a proc connector message; nothing else
# wakes it (no tick, no drain timer, no bus here), and no timer re-arms itself (the window is traced).
if ! under_valgrind; then
	if idle_counts "$pid" "$TMP/err"; then
		ok "idle: $IDLE_SAYS"
	else
		fail "idle: daemon wake-ups accounted for by its work in the window" "$IDLE_SAYS" "$IDLE_JSON" \
			"$(grep scaling_setspeed "$EMU_LOG" | tail -12)" "$(show_log "$TMP/err")"
	fi
fi

wait_for "taskset -c 1 true; [ \"\$(emu_exec cat $CPUFREQ/policy1/scaling_cur_freq)\" -le 1200000 ]" 5 ||
	under_valgrind || fail "policy1 low before the hog" "$(emu_exec cat $CPUFREQ/policy1/scaling_cur_freq)"
hog_start=$("$BUILD/tests/helpers/monotonic")
"$HOG" --cpu 1 --seconds 2 >"$TMP/hog"
hog_end=$(awk '/^end/ { print $2 }' "$TMP/hog")
rise=$(awk -v s="$hog_start" '$2 == "cpufreq/policy1/scaling_cur_freq" && $1 >= s && $3 >= 2160000 { print $1 - s; exit }' "$EMU_LOG")
if under_valgrind && [ -n "$rise" ] || [ -n "$rise" ] && [ "$rise" -le 1000000000 ]; then
	ok "hog on CPU 1: policy1 >= 90% of max after $((rise / 1000000)) ms"
else
	fail "hog on CPU 1: policy1 >= 90% of max within 1 s" "rise=${rise:-never}" "$(grep policy1 "$EMU_LOG" | tail -20)" "$(show_log "$TMP/err")"
fi
fall_cond='[ -n "$(awk -v e="$hog_end" '"'"'$2 == "cpufreq/policy1/scaling_cur_freq" && $1 >= e && $3 <= 1200000 { print; exit }'"'"' "$EMU_LOG")" ]'
if wait_for "taskset -c 1 true; $fall_cond" 5; then
	ok "hog stopped: policy1 falls to <= 1.2 GHz"
else
	fail "hog stopped: policy1 falls to <= 1.2 GHz" "$(grep policy1 "$EMU_LOG" | tail -20)"
fi
read -r n_dec n_bpf < <(awk '/^t=/ { n++; if (/ source=bpf$/) b++ } END { print n + 0, b + 0 }' "$TMP/out")
if [ "$n_dec" -gt 0 ] && [ "$n_dec" = "$n_bpf" ]; then
	ok "every decision line says source=bpf ($n_dec)"
else
	fail "every decision line says source=bpf" "$n_bpf of $n_dec" "$(head -5 "$TMP/out")"
fi
dups=$(awk '$2 ~ /scaling_setspeed$/ { if (last[$2] == $3) d++; last[$2] = $3 } END { print d + 0 }' "$EMU_LOG")
[ "$dups" = 0 ] && ok "no redundant setspeed writes" || fail "no redundant setspeed writes" "$dups repeated values"

# --- SIGKILL leaves nothing in the kernel; restore puts the policies back -----------------------------------
kill -KILL "$pid"
wait "$pid" 2>/dev/null
EMU_DAEMON_PID=
left=
gone() { left=; for id in $progs; do bpftool prog show id "$id" >/dev/null 2>&1 && left="$left $id"; done; [ -z "$left" ]; }
if [ -n "$progs" ] && wait_for gone 10; then
	ok "SIGKILL: none of the daemon's $n_progs programs stays in the kernel"
else
	fail "SIGKILL: none of the daemon's programs stays in the kernel" "still loaded:$left"
fi
if emu_exec "$SFD" --state-file "$TMP/state" restore >/dev/null 2>&1 \
	&& [ "$(emu_sh "cat $CPUFREQ/policy*/scaling_governor | sort -u")" != userspace ]; then
	ok "restore after SIGKILL puts the governors back"
else
	fail "restore after SIGKILL puts the governors back" "$(emu_sh "cat $CPUFREQ/policy*/scaling_governor")"
fi

# --- per-process rules, held in the kernel as task clamps -------------------------------------------------
# The same hog on CPU 1 under a rule: max_util = 300 asks for 300 x 1.25 = 375 of 1024, 879 MHz of 2400: the
# table's 1200 MHz; ignore (a clamp at 0) for the minimum. Without the rule the hog reached >= 2160 MHz above.
# The daemon on CPU 0 as above. The hog starts after the daemon: its fork and exec reach the rule through the
# proc connector.
rule_case() { # NAME CONFIG MAX_KHZ
	printf '%b' "$2" >"$TMP/$1.conf"
	if ! EMU_DAEMON_WRAP="taskset -c 0" emu_daemon_start "$TMP/state" "$TMP/$1.conf" "$TMP/$1.err" "$TMP/$1.out" \
		--print-decisions --events=bpf; then
		fail "rule $1: the daemon starts on bpf with the rule" "$(show_log "$TMP/$1.err")"
		return
	fi
	grep -q 'Per-process rules: 1, held in the kernel' "$TMP/$1.err" ||
		fail "rule $1: the log says the rules are held in the kernel" "$(show_log "$TMP/$1.err")"
	wait_for "taskset -c 1 true; [ \"\$(emu_exec cat $CPUFREQ/policy1/scaling_cur_freq)\" -le 1200000 ]" 5
	local from to
	from=$("$BUILD/tests/helpers/monotonic")
	# For a failure: what else ran on CPU 1 in the hog's last second (a task without the rule lifts the clamp).
	(sleep 1; ps -eLo tid,psr,stat,pcpu,comm --sort=-pcpu | awk 'NR == 1 || $2 == 1' | head -12 >"$TMP/$1.cpu1") &
	local ps_pid=$!
	"$HOG" --cpu 1 --seconds 1.5 >/dev/null
	to=$("$BUILD/tests/helpers/monotonic")
	wait "$ps_pid"
	emu_daemon_stop
	# The share of the hog's last second (its first 0.5 s: the rule reaches the task at its exec, and the
	# policy falls from before) that policy1 spent above the cap. Not none: a task without a rule queued beside
	# the hog (a kworker, a tick's softirq thread) lifts the CPU's max clamp while it is there, as uclamp's max
	# aggregation does (uclamp_rq_max_value()); without the rule it is the whole second (the hog's rise above).
	local a=$((from + 500000000)) above n_rule
	above=$(awk -v a="$a" -v b="$to" -v cap="$3" '
		$2 != "cpufreq/policy1/scaling_cur_freq" { next }
		$1 < a { f = $3; next }
		$1 <= b { if (f > cap) t += $1 - (l > a ? l : a); l = $1; f = $3 }
		END { if (f > cap) t += b - (l > a ? l : a); printf "%d", 100 * t / (b - a) }' "$EMU_LOG")
	n_rule=$(grep -c ' policy=1 .* reason=rule ' "$TMP/$1.out")
	if [ "$above" -le 15 ] && [ "$n_rule" -ge 1 ]; then
		ok "rule $1 on bpf: policy1 above $(($3 / 1000)) MHz for $above % of the hog's last second (<= 15), $n_rule reason=rule decisions"
	else
		fail "rule $1 on bpf: policy1 above $(($3 / 1000)) MHz for <= 15 % of the hog's last second, with reason=rule decisions" \
			"$above % above, $n_rule reason=rule" "$(grep policy1 "$EMU_LOG" | tail -20)" "$(tail -n 10 "$TMP/$1.out")" \
			"tasks on CPU 1 a second into the hog:" "$(cat "$TMP/$1.cpu1")"
	fi
}
rule_case cap '[rule:cap]\ncomm = hog\nmax_util = 300\n' 1200000
rule_case ignore '[rule:quiet]\ncomm = hog\nignore = yes\n' 800000
emu_stop

# --- the remote rule, decided in the kernel ---------------------------------------------------------------
# tests/helpers/article (test-article.sh): a light task on CPU 1, a heavy one woken onto CPU 1 from CPU 0 when
# policy1 is low. The daemon and the emulator on CPU 0, so that CPU 1 runs the article's tasks. The BPF source
# evaluates where the kernel calls schedutil: CPU 1's runqueue updated from CPU 0 (the wake-up's enqueue when a
# PELT period decayed, the nohz blocked-load update) is a remote hook call; whether one falls at the wake-up
# itself is the kernel's timing, so what is judged is the rule: from CPU 0, policy1 changes only where remote
# changes are permitted, and elsewhere they wait for CPU 1 (deferred).
remote_round() { # yes|no: the decisions of one run with [policy1] remote = MODE, in $TMP/out-MODE
	printf '[policy1]\nremote = %s\n' "$1" >"$TMP/remote-$1.conf"
	emu_start "$REPO/tests/fixtures/topology/two-policies.ini" || return 1
	taskset -a -p -c 0 "$EMU_PID" >/dev/null
	EMU_DAEMON_WRAP="taskset -c 0" emu_daemon_start "$TMP/state" "$TMP/remote-$1.conf" "$TMP/err-$1" "$TMP/out-$1" \
		--print-decisions --events=bpf || { emu_stop; return 1; }
	emu_exec "$ARTICLE" --waker-cpu 0 --cpu 1 --rounds 5 --max-rounds 8 --build-ms 300 --busy-ms 200 --min-sleep-ms 100 \
		--freq-file "$CPUFREQ/policy1/scaling_cur_freq" --low-khz 1200000 --low-timeout-s 3 --timeout-s 10 \
		>"$TMP/article-$1" 2>&1
	emu_daemon_stop
	emu_stop
}
if remote_round no; then
	from0=$(grep -c '^t=.* policy=1 .* cpu=0 ' "$TMP/out-no")
	deferred=$(grep -c '^t=.* policy=1 .* deferred=' "$TMP/out-no")
	if [ "$from0" = 0 ] && [ "$deferred" -gt 0 ]; then
		ok "remote = no: no policy1 change from CPU 0; $deferred deferred to CPU 1's next event"
	else
		fail "remote = no: no policy1 change from CPU 0, some deferred" "from CPU 0: $from0, deferred: $deferred" \
			"$(grep 'policy=1 ' "$TMP/out-no" | tail -10)" "$(tail -5 "$TMP/article-no")"
	fi
else
	fail "remote = no run" "$(show_log "$TMP/err-no")"
fi
if remote_round yes; then
	remote=$(grep -c '^t=.* policy=1 .* cpu=0 kind=remote' "$TMP/out-yes")
	deferred=$(grep -c '^t=.* policy=1 .* deferred=' "$TMP/out-yes")
	if [ "$remote" -gt 0 ] && [ "$deferred" = 0 ]; then
		ok "remote = yes: $remote policy1 changes made at once from CPU 0 (remote), none deferred"
	else
		fail "remote = yes: policy1 changes made from CPU 0, none deferred" "remote: $remote, deferred: $deferred" \
			"$(grep 'policy=1 ' "$TMP/out-yes" | tail -10)" "$(tail -5 "$TMP/article-yes")"
	fi
else
	fail "remote = yes run" "$(show_log "$TMP/err-yes")"
fi

finish
