# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by tests/integration/test-sessions.sh and tests/oracle/run-oracle.sh: whether this kernel groups tasks by
# session (autogroup), by the rule of daemon/topology/autogroup.c, which `schedfreqd topology` prints as
# `[system] autogroup = yes` (test-sessions.sh checks the two agree).

# autogroup.c's rule, in shell: prints yes or no.
kernel_groups_by_session() {
	local d
	[ "$(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null)" = 1 ] || { echo no; return; }
	if [ -e /sys/fs/cgroup/cpu/tasks ]; then
		for d in $(find -L /sys/fs/cgroup/cpu/ -mindepth 1 -type d 2>/dev/null); do
			[ -s "$d/cgroup.procs" ] || [ -n "$(head -c 1 "$d/cgroup.procs" 2>/dev/null)" ] && { echo no; return; }
		done
		echo yes
		return
	fi
	for d in /sys/fs/cgroup /sys/fs/cgroup/unified; do
		[ -e "$d/cgroup.subtree_control" ] || continue
		if grep -qw cpu "$d/cgroup.subtree_control"; then echo no; else echo yes; fi
		return
	done
	echo no
}
