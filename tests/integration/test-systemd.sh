#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The installed unit under a real systemd (252) running as PID 1 of a pid+mount+cgroup namespace
# (tests/systemd/ns-init), over the emulated cpufreq sysfs, with the files `make install` put in a temporary
# root:
#   - systemctl start → active, READY (StatusText), every governor switched to userspace, event loop SCHED_FIFO,
#     only the unit's capabilities, the watchdog pinged; no D-Bus in the namespace: the daemon runs without it;
#   - systemctl reload with a good config (applied) and with a bad one (FILE:LINE in the journal, same
#     process, old config kept);
#   - systemctl kill -s KILL → ExecStopPost restores every policy, Restart=on-failure starts it again;
#   - systemctl stop → every policy file back as it was.
# Leaves nothing behind: the namespace dies with its PID 1 (SIGKILL), the sub-cgroup is removed.

. "$(dirname "$0")/lib.sh"

TMP=$(mktemp -d /tmp/schedfreqd-test-systemd.XXXXXX)
CGROOT=/sys/fs/cgroup/unified
[ -f /sys/fs/cgroup/cgroup.controllers ] && CGROOT=/sys/fs/cgroup # a unified-only host
CG="$CGROOT/schedfreqd-test-systemd.$$"
PID1=
UNSHARE_PID=

cleanup() {
	if [ -n "$PID1" ]; then
		kill -KILL "$PID1" 2>/dev/null
		wait_for '! kill -0 "$PID1" 2>/dev/null' 10
	fi
	[ -n "$UNSHARE_PID" ] && wait "$UNSHARE_PID" 2>/dev/null
	# Depth first: systemd made system.slice/, init.scope/, ... under our sub-cgroup.
	[ -d "$CG" ] && wait_for '! find "$CG" -depth -type d -exec rmdir {} + 2>/dev/null; [ ! -d "$CG" ]' 10
	[ -d "$CG" ] && echo "# could not remove $CG" >&2
	rm -rf "$TMP"
}
at_exit cleanup

ns() { nsenter -t "$PID1" -m -p -C -- "$@"; }
sctl() { ns systemctl "$@"; }
prop() { sctl show -p "$1" --value schedfreqd.service; }
governors() { ns sh -c 'cat /sys/devices/system/cpu/cpufreq/policy*/scaling_governor' | sort -u | tr '\n' ' '; }
journal() { ns journalctl --no-pager -o cat -u schedfreqd.service; }
show_state() {
	sctl status --no-pager -l schedfreqd.service 2>&1 | tail -n 25
	echo "--- journal"
	journal | tail -n 25
}
# Every policy file but the current-frequency readouts (see test-daemon.sh).
SNAPSHOT='cd /sys/devices/system/cpu/cpufreq && for f in policy*/*; do case $f in *cur_freq) continue;; esac; printf "%s: %s\n" "$f" "$(cat "$f" 2>&1)"; done'

# --- the install tree ----------------------------------------------------------------------------------
out=$(make -C "$REPO" --no-print-directory BUILD="$BUILD" DESTDIR="$TMP/root" PREFIX=/usr/local install 2>&1) \
	|| { fail "make install into a temporary root" "$out"; finish; }
ok "make install into a temporary root"

# --- systemd as PID 1 ----------------------------------------------------------------------------------
mkdir "$CG" || { fail "sub-cgroup $CG"; finish; }
mkdir "$TMP/work"
# The child moves itself into the sub-cgroup, so that the new cgroup namespace is rooted there.
bash -c 'echo $BASHPID >"$1/cgroup.procs" && exec unshare --cgroup --mount --pid --fork --propagation private -- "${@:2}"' \
	sh "$CG" "$REPO/tests/systemd/ns-init" "$TMP/work" "$TMP/root" "$BUILD/cpufreq-emu" \
	"$REPO/tests/fixtures/topology/two-policies.ini" </dev/null >"$TMP/ns-init.log" 2>&1 &
UNSHARE_PID=$!
wait_for 'PID1=$(pgrep -P "$UNSHARE_PID" -x systemd)' 10
if [ -n "$PID1" ] && wait_for '[ "$(sctl is-system-running 2>/dev/null)" = running ]' 20; then
	ok "systemd runs as PID 1 of the namespace"
else
	fail "systemd runs as PID 1 of the namespace" "$(cat "$TMP/ns-init.log")" "$(tail -n 30 "$TMP/work/console.log" 2>/dev/null)" \
		"$( [ -n "$PID1" ] && sctl list-units --failed --no-pager 2>&1)"
	finish
fi

original=$(ns bash -c "$SNAPSHOT")
case $original in *'scaling_governor: schedutil'*) ;; *) fail "emulated policies start under schedutil" "$original" ;; esac

# --- start ---------------------------------------------------------------------------------------------
[ "$(sctl show -p FragmentPath --value schedfreqd.service)" = /usr/local/lib/systemd/system/schedfreqd.service ] \
	&& ok "systemd finds the installed unit in /usr/local/lib/systemd/system" \
	|| fail "systemd finds the installed unit in /usr/local/lib/systemd/system" "$(sctl show -p FragmentPath,LoadState schedfreqd.service)"

if out=$(sctl start schedfreqd.service 2>&1) && [ "$(prop ActiveState)" = active ]; then
	ok "systemctl start: active"
else
	fail "systemctl start: active" "$out" "$(show_state)"
	finish
fi
main_pid=$(prop MainPID)
status=$(prop StatusText)
# Type=notify: "active" is only reached after READY=1, which the daemon sends once every policy is taken over.
case $status in
"Governing 2 of 2 cpufreq policies"*) ok "READY=1 and STATUS=: '$status'" ;;
*) fail "READY=1 and STATUS=" "StatusText='$status'" ;;
esac
[ "$(governors)" = "userspace " ] && ok "every policy switched to userspace" || fail "every policy switched to userspace" "$(governors)"

# Real-time loop ([daemon] realtime_priority = 1 by default) and the unit's capabilities (checked from outside:
# /proc of the namespace shows its own PIDs).
sched=$(ns chrt -p "$main_pid" 2>&1)
grep -q 'SCHED_FIFO' <<<"$sched" && grep -q 'priority: 1$' <<<"$sched" && ok "event loop runs SCHED_FIFO 1" \
	|| fail "event loop runs SCHED_FIFO 1" "$sched"
capbnd=$(ns awk '/^CapBnd/ { print $2 }' "/proc/$main_pid/status")
# CAP_SYS_NICE (23), CAP_NET_ADMIN (12), CAP_PERFMON (38), CAP_BPF (39)
[ "$capbnd" = "$(printf '%016x' $(( (1 << 23) | (1 << 12) | (1 << 38) | (1 << 39) )))" ] && ok "capability bounding set: CAP_PERFMON CAP_BPF CAP_NET_ADMIN CAP_SYS_NICE" \
	|| fail "capability bounding set" "CapBnd=$capbnd"
# systemd is PID 1 of a new pid namespace here, where the kernel refuses the proc connector (platform.md):
# said once, and the daemon governs on tracepoints alone (the checks above). On the default source here (auto:
# bpf) without rules it does not even ask, and says that once instead (the restart below runs perf, which asks).
journal | grep -q '^Event source: bpf (auto: ' && ok "the default (auto) runs the BPF event source under the unit's sandbox" ||
	fail "the default (auto) runs the BPF event source under the unit's sandbox" "$(journal | grep -i 'event source\|bpf' | tail -5)"
n_refused=$(journal | grep -c '^Proc connector unavailable (not in the initial pid and user namespaces), running on tracepoints alone\.$')
n_unused=$(journal | grep -c '^Proc connector not subscribed: the bpf source has no per-process rules')
[ $((n_refused + n_unused)) = 1 ] \
	&& ok "proc connector: said once ($([ "$n_unused" = 1 ] && echo "not needed on bpf" || echo "refused in a pid namespace, runs on tracepoints alone"))" \
	|| fail "proc connector refused in a pid namespace, or not needed: said once" "$(journal | tail)"
journal | grep -q 'No D-Bus, running without it' && ok "no system bus in the namespace: runs without D-Bus" \
	|| fail "no system bus in the namespace: runs without D-Bus" "$(journal | tail)"

# WatchdogSec=: the loop pings (sd_event_set_watchdog()); the last ping's timestamp moves.
[ "$(prop WatchdogUSec)" = 10s ] || fail "WatchdogSec=10s" "$(prop WatchdogUSec)"
w1=$(prop WatchdogTimestampMonotonic)
if wait_for '[ "$(prop WatchdogTimestampMonotonic)" != "$w1" ]' 8; then
	ok "watchdog pinged from the event loop"
else
	fail "watchdog pinged from the event loop" "WatchdogTimestampMonotonic stays $w1"
fi

# --- reload: a good config, then a bad one ----------------------------------------------------------------
# realtime_priority makes the config in force visible from outside: chrt shows it.
rt_prio() { ns chrt -p "$main_pid" | sed -n 's/.*scheduling priority: //p'; }
ns sh -c 'printf "[daemon]\nrealtime_priority = 2\n\n[governor]\ntick_ms = 8\n" >/etc/schedfreqd.conf'
sctl reload schedfreqd.service
if wait_for 'journal | grep -q "Configuration reloaded from /etc/schedfreqd.conf"' 5 && [ "$(prop MainPID)" = "$main_pid" ] \
	&& [ "$(rt_prio)" = 2 ] && wait_for '[ "$(prop ActiveState)" = active ] && [ "$(prop StatusText)" = "Governing 2 of 2 cpufreq policies (event loop SCHED_FIFO 2)" ]' 5; then
	ok "systemctl reload, good config: applied (SCHED_FIFO 2), same process, READY again"
else
	fail "systemctl reload, good config: applied (SCHED_FIFO 2), same process, READY again" "prio $(rt_prio)" "$(show_state)"
fi
# The tick: at start-up tick_ms = auto's (the kernel's config, or the default, and which), then the reload's 8 ms.
if journal | grep -q '^Tick: [0-9.]* ms (\(CONFIG_HZ=[0-9]*, /.*\|.*: the default, CONFIG_HZ=250\))\.$' &&
	journal | grep -q "^Tick: 8 ms (\[governor\] tick_ms; the kernel's: [0-9.]* ms, "; then
	ok "the tick at start-up (tick_ms = auto: the kernel's) and after a reload to tick_ms = 8, each said"
else
	fail "the tick at start-up and after a reload to tick_ms = 8" "$(journal | grep '^Tick')"
fi

ns sh -c 'printf "[daemon]\nrealtime_priority = 3\n\n[governor]\nheadroom = 7\n" >/etc/schedfreqd.conf'
sctl reload schedfreqd.service
if wait_for 'journal | grep -q "^/etc/schedfreqd.conf:5: "' 5 && journal | grep -q "Configuration rejected, keeping the running one" \
	&& [ "$(prop MainPID)" = "$main_pid" ] && wait_for '[ "$(prop ActiveState)" = active ]' 5; then
	ok "systemctl reload, bad config: FILE:LINE in the journal, same process still running"
else
	fail "systemctl reload, bad config: FILE:LINE in the journal, same process still running" "$(show_state)"
fi
# The daemon's stderr is journald's stream there: its "<N>" prefixes give the messages their priority.
if ns journalctl --no-pager -o cat -u schedfreqd.service -p err | grep -q "^/etc/schedfreqd.conf:5: " \
	&& ! ns journalctl --no-pager -o cat -u schedfreqd.service -p err | grep -q "Configuration reloaded from" \
	&& ! journal | grep -q '^<[0-7]>'; then
	ok "journal priorities: the config error at 'err', lifecycle messages below it, no '<N>' left in the text"
else
	fail "journal priorities: the config error at 'err', lifecycle messages below it" \
		"$(ns journalctl --no-pager -o cat -u schedfreqd.service -p err)"
fi
[ "$(rt_prio)" = 2 ] && [ "$(governors)" = "userspace " ] && ok "bad config rejected: the old one (SCHED_FIFO 2) stays in force" \
	|| fail "bad config rejected: the old one (SCHED_FIFO 2) stays in force" "prio $(rt_prio)" "$(governors)"
# Back to a good file (a restart must be able to read it): the perf event source, so that the restart below runs
# it under the unit's sandbox too (the start above ran the default, auto: bpf, with CAP_BPF and bpf(2) allowed
# alone by SystemCallFilter=), with the proc connector it then asks for.
ns sh -c 'printf "[events]\nsource = perf\n" >/etc/schedfreqd.conf'

# --- SIGKILL: ExecStopPost restores, Restart=on-failure restarts ----------------------------------------------
log_lines=$(wc -l <"$TMP/work/emu.log")
sctl kill -s KILL schedfreqd.service
# After the kill, the emulator's write log must show every policy's governor written back to schedutil by
# `schedfreqd restore` (ExecStopPost) before the restarted daemon switches it to userspace again.
restored='[ "$(tail -n +$((log_lines + 1)) "$TMP/work/emu.log" | grep -c "scaling_governor schedutil ok$")" -ge 2 ]'
if wait_for "$restored" 10 && journal | grep -q "Restored cpufreq policies from /run/schedfreqd/state"; then
	ok "systemctl kill -s KILL: ExecStopPost put every governor back"
else
	fail "systemctl kill -s KILL: ExecStopPost put every governor back" "$(tail -n +$((log_lines + 1)) "$TMP/work/emu.log" | grep -v ' set$')" "$(show_state)"
fi
if wait_for '[ "$(prop ActiveState)" = active ] && [ "$(prop NRestarts)" = 1 ] && [ "$(prop MainPID)" != "$main_pid" ]' 10 \
	&& [ "$(governors)" = "userspace " ]; then
	ok "Restart=on-failure: running again, policies taken over again"
else
	fail "Restart=on-failure: running again, policies taken over again" "$(show_state)"
fi
if journal | grep -q "^Event source: perf (\[events\] source)\.$" &&
	journal | grep -q '^Proc connector unavailable (not in the initial pid and user namespaces), running on tracepoints alone\.$'; then
	ok "the restart runs the perf event source under the unit's sandbox; the proc connector refused in the pid namespace, said"
else
	fail "the restart runs the perf event source under the unit's sandbox, the proc connector refusal said" \
		"$(journal | grep -i 'event source\|proc connector' | tail -5)"
fi

# --- stop ------------------------------------------------------------------------------------------------
sctl stop schedfreqd.service
now=$(ns bash -c "$SNAPSHOT")
if [ "$(prop ActiveState)" = inactive ] && [ "$now" = "$original" ] && ! ns test -e /run/schedfreqd/state; then
	ok "systemctl stop: inactive, every policy file as it was, no state file"
else
	fail "systemctl stop: inactive, every policy file as it was, no state file" "$(prop ActiveState)" \
		"$(diff <(echo "$original") <(echo "$now"))" "$(show_state)"
fi

finish
