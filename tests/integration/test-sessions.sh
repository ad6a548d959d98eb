#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Sessions for the model's task groups (docs/fidelity.md, difference 12), on the real kernel with the emulated
# cpufreq:
#   - `schedfreqd topology` says `autogroup = yes` exactly where this kernel groups tasks by session, by the rule of
#     daemon/topology/autogroup.c read here in shell: kernel.sched_autogroup_enabled = 1 and no task in a cpu cgroup
#     below the root (cgroup v1 at /sys/fs/cgroup/cpu: no non-empty cgroup.procs below it; v2: "cpu" not in the
#     root's cgroup.subtree_control);
# and, where it does (this VM: autogroup on, cgroup v1, every task in the root; skipped elsewhere):
#   - the daemon on the perf source reads every task's session from /proc at start-up (its "Task groups:" line);
#   - a setsid() after it is up reaches the model: the proc connector's PROC_EVENT_SID, every thread of the process
#     given its new session (the debug line manager-sessions.c prints once the engine took them);
#   - on the bpf source (where it loads) nothing of this runs: no "Task groups:" line, no setsid followed.

. "$(dirname "$0")/lib.sh"

TMP=$(mktemp -d /tmp/schedfreqd-test-sessions.XXXXXX)
at_exit 'rm -rf "$TMP"'
: >"$TMP/none.conf"

. "$(dirname "$0")/../lib-autogroup.sh"

emu_start "$REPO/tests/fixtures/topology/two-policies.ini" || { fail "emulator starts"; finish; }

want=$(kernel_groups_by_session)
got=$(emu_exec "$SCHEDFREQD" topology | awk '$1 == "autogroup" { print $3 }')
[ "${got:-no}" = "$want" ] && ok "schedfreqd topology: autogroup ${got:-absent}, as this kernel groups tasks ($want)" \
	|| fail "schedfreqd topology: autogroup as this kernel groups tasks" "kernel: $want" "topology: ${got:-absent}"

if [ "$want" != yes ]; then
	skip "the live daemon follows sessions" "this kernel does not group tasks by session here"
	emu_stop
	finish
fi

# --- the perf source: sessions at start-up, then a setsid -------------------------------------------------------
if ! emu_daemon_start "$TMP/state" "$TMP/none.conf" "$TMP/err" /dev/null --events=perf --log-level=debug; then
	fail "perf: the daemon takes over" "$(tail -n 20 "$TMP/err")"
	emu_daemon_stop
	emu_stop
	finish
fi
line=$(grep -m1 "Task groups: by session (autogroup)" "$TMP/err")
n=$(sed -n "s/.*(autogroup), \([0-9]*\) tasks' sessions read, setsid() followed\./\1/p" <<<"$line")
[ -n "$n" ] && [ "$n" -gt 10 ] && ok "perf: every task's session read at start-up ($n), setsid() followed" \
	|| fail "perf: every task's session read at start-up, setsid() followed" "${line:-no Task groups line}" \
		"$(tail -n 20 "$TMP/err")"

# A new session after the daemon is up: setsid(1) runs bash in it (the bash that calls setsid() is $$: setsid(1)
# forks first only when it leads its process group, and its child then execs bash), which says its pid and sleeps.
setsid bash -c 'echo $$ >"$1"; exec sleep 2' sh "$TMP/sid" </dev/null >/dev/null 2>&1 &
new_session=$!
wait_for "[ -s '$TMP/sid' ]" 5
sid=$(cat "$TMP/sid" 2>/dev/null)
if [ -n "$sid" ] && wait_for "grep -q 'Task $sid: setsid, session $sid for its [1-9][0-9]* threads in the model\\.' '$TMP/err'" 5; then
	ok "perf: a setsid() after start-up reaches the model (task $sid, its own session)"
else
	fail "perf: a setsid() after start-up reaches the model" "new session: ${sid:-unknown}" \
		"$(grep -E 'setsid|Task groups|Proc connector|proc connector' "$TMP/err" | tail -n 10)"
fi
wait "$new_session"
emu_daemon_stop

# --- the bpf source: no sessions (the kernel's own signals are read) --------------------------------------------
if [ -e "$BUILD/daemon/governor/bpf/schedfreqd.skel.h" ] && [ -e /sys/kernel/btf/vmlinux ]; then
	if emu_daemon_start "$TMP/state" "$TMP/none.conf" "$TMP/err-bpf" /dev/null --events=bpf --log-level=debug; then
		setsid true </dev/null >/dev/null 2>&1
		sleep 0.2
		emu_daemon_stop
		if ! grep -q "Task groups:" "$TMP/err-bpf" && ! grep -q "setsid, session" "$TMP/err-bpf"; then
			ok "bpf: no sessions read or followed"
		else
			fail "bpf: no sessions read or followed" "$(grep -E 'Task groups|setsid' "$TMP/err-bpf")"
		fi
	else
		fail "bpf: the daemon takes over" "$(tail -n 20 "$TMP/err-bpf")"
		emu_daemon_stop
	fi
else
	skip "bpf: no sessions read or followed" "no BPF source in this build or no BTF"
fi

emu_stop
finish
