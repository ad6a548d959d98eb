# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC2016 # conditions for wait_for and code for emu_sh are evaluated later
#
# The governors the benchmarks compare, each started the same way over the emulated cpufreq tree (issue #12).
# Source it after tests/integration/lib.sh, with the emulator running (emu_start):
#
#   peer_start NAME [EXTRA_CONFIG_FILE]   starts governor NAME in the emulator's namespace; returns once it
#                                          governs (has taken over every policy); sets PEER_PID (the process
#                                          whose wake-ups and CPU time count) and PEER_NAME
#   peer_stop                             stops it (SIGTERM, bounded wait) and puts the tree back as found
#   peer_events                           events the governor handled so far (schedfreqd only; else empty)
#
# NAME is one of PEER_NAMES:
#   schedfreqd         the daemon, defaults (the event source: auto, bpf where the kernel has BTF), [policy*]
#                      remote = yes (the kernel's rule for per-CPU policies on a driver without fast switching
#                      still forbids them: the config allows it explicitly)
#   schedfreqd-local   the daemon with remote = no: a remote wake-up waits for the target CPU's next event
#   schedfreqd-bpf, schedfreqd-bpf-local, schedfreqd-perf, schedfreqd-perf-local   the same two on one event
#                      source ([events] source = bpf|perf; not in PEER_NAMES: name them, e.g.
#                      REACTION_GOVERNORS="schedfreqd-perf schedfreqd-bpf")
#   ondemand           bench/ondemand-sampler: /proc/stat every 10 ms, up-threshold 80 % (the kernel's
#                      ondemand, drivers/cpufreq/cpufreq_ondemand.c), writing scaling_setspeed
#   cpufreqd           Debian 12's cpufreqd 2.4.2 at its fastest poll (poll_interval=0.15, its minimum), with rules
#                      that go to max above 80 % CPU usage (its cpu plugin, /proc/stat): profile "hi" is the
#                      performance governor with min = max = 100 %, "lo" powersave over the whole range. Its rules
#                      watch CPU 1 (cpu_interval=1:80-100 / 1:0-79), the CPU the reaction scenarios load, and apply
#                      to every CPU: 2.4.2 refuses per-CPU profiles ("profile=CPU1:hi" gives "Wrong format for
#                      Profile name"), and a machine-wide or ANY rule would keep policy1 at max whenever the
#                      background load runs on CPU 0. Never installed: the .debs (cpufreqd, libcpufreq0, libsysfs2)
#                      are unpacked under BUILD/peers/cpufreqd (no init script, nothing started on the host); its
#                      plugin path is compiled in (/usr/lib/cpufreqd/), so it runs in a mount namespace of its own
#                      inside the emulator's, with the unpacked /usr/lib overlaid on the real one.
# and, for the overhead table only, perf-record (perf record -a of the daemon's sched tracepoints, those this
# kernel has, sched_stat_runtime with the daemon's filter, to a file in PEER_DIR).
#
# peer_start snapshots every policy's governor, limits and frequency; peer_stop puts back whatever the governor
# left changed (cpufreqd exits on SIGTERM with its last profile in place). Everything a peer writes is in its own
# temp dir ($PEER_DIR, removed by the next peer_start and at exit); peers log to $PEER_DIR/log.

# shellcheck disable=SC2034 # for the scripts that source this
PEER_NAMES="schedfreqd schedfreqd-local ondemand cpufreqd"
PEER_CPUFREQD_ROOT=${PEER_CPUFREQD_ROOT:-$BUILD/peers/cpufreqd}
PEER_PID=
PEER_NAME=
PEER_DIR=

peer__emu_governors() { # the policies' governors, sorted and unique
	emu_sh 'cat /sys/devices/system/cpu/cpufreq/policy*/scaling_governor | sort -u'
}

peer__start_schedfreqd() { # REMOTE(yes|no) [EXTRA_CONFIG]
	local remote=$1 extra=${2:-} p
	: >"$PEER_DIR/conf"
	for p in $(emu_sh 'cd /sys/devices/system/cpu/cpufreq && echo policy*'); do
		printf '[%s]\nremote = %s\n' "$p" "$remote" >>"$PEER_DIR/conf"
	done
	[ -n "$extra" ] && cat "$extra" >>"$PEER_DIR/conf"
	nsenter -m -t "$EMU_NS_PID" -- "$BUILD/schedfreqd" -c "$PEER_DIR/conf" --state-file "$PEER_DIR/state" \
		--no-bus >"$PEER_DIR/out" 2>"$PEER_DIR/log" &
	PEER_PID=$!
	wait_for '[ -e "$PEER_DIR/state" ] && [ "$(peer__emu_governors)" = userspace ]' 10
}

peer__start_ondemand() {
	nsenter -m -t "$EMU_NS_PID" -- "$BUILD/bench/ondemand-sampler" >"$PEER_DIR/out" 2>"$PEER_DIR/log" &
	PEER_PID=$!
	wait_for 'grep -q "^ready" "$PEER_DIR/out" || ! kill -0 "$PEER_PID" 2>/dev/null' 10 && grep -q '^ready' "$PEER_DIR/out"
}

# Unpacks cpufreqd and the two libraries it needs (not in Debian 12's default install) under
# PEER_CPUFREQD_ROOT, once. apt-get download needs the network, as scripts/install-deps does.
peer_cpufreqd_fetch() {
	local d p
	[ -x "$PEER_CPUFREQD_ROOT/usr/sbin/cpufreqd" ] && return 0
	d=$(mktemp -d /tmp/schedfreqd-cpufreqd-debs.XXXXXX) || return 1
	chmod 755 "$d" # apt's _apt user downloads into it
	for p in cpufreqd libcpufreq0 libsysfs2; do
		(cd "$d" && apt-get download -qq "$p" 2>/dev/null) || { echo "peer: apt-get download $p failed" >&2; rm -rf "$d"; return 1; }
	done
	mkdir -p "$PEER_CPUFREQD_ROOT" && for p in "$d"/*.deb; do dpkg-deb -x "$p" "$PEER_CPUFREQD_ROOT" || break; done
	rm -rf "$d"
	[ -x "$PEER_CPUFREQD_ROOT/usr/sbin/cpufreqd" ]
}

peer__start_cpufreqd() {
	local root=$PEER_CPUFREQD_ROOT
	peer_cpufreqd_fetch || return 1
	cat >"$PEER_DIR/cpufreqd.conf" <<-EOF
	[General]
	pidfile=$PEER_DIR/cpufreqd.pid
	poll_interval=0.15
	verbosity=5
	[/General]

	[Profile]
	name=hi
	minfreq=100%
	maxfreq=100%
	policy=performance
	[/Profile]

	[Profile]
	name=lo
	minfreq=0%
	maxfreq=100%
	policy=powersave
	[/Profile]

	[Rule]
	name=cpu1_busy
	cpu_interval=1:80-100
	profile=hi
	[/Rule]

	[Rule]
	name=cpu1_idle
	cpu_interval=1:0-79
	profile=lo
	[/Rule]
	EOF
	nsenter -m -t "$EMU_NS_PID" -- unshare -m --propagation private sh -c \
		'mount -t overlay overlay -o "lowerdir=$1/usr/lib:/usr/lib" /usr/lib && LD_LIBRARY_PATH="$1/usr/lib:$1/usr/lib/x86_64-linux-gnu" exec stdbuf -oL "$1/usr/sbin/cpufreqd" -f "$2" -D -V 5' \
		cpufreqd "$root" "$PEER_DIR/cpufreqd.conf" >"$PEER_DIR/log" 2>&1 &
	PEER_PID=$!
	# Governing: it has applied its first profile (a governor of its own on every policy).
	wait_for '[ -z "$(peer__emu_governors | grep -v "^performance$\|^powersave$")" ] || ! kill -0 "$PEER_PID" 2>/dev/null' 10 &&
		kill -0 "$PEER_PID" 2>/dev/null
}

peer__start_perf_record() {
	local tracepoints=() t
	# What the daemon opens by default (daemon/events/perf-events.c, perf_cpu_plan()): the five, sched_stat_iowait where
	# the kernel has it, and sched_stat_runtime as its busy detector, filtered in the kernel to runtime >= 1 ms.
	for t in sched_switch sched_wakeup sched_wakeup_new sched_migrate_task sched_process_exit sched_stat_runtime sched_stat_iowait; do
		[ -d "/sys/kernel/tracing/events/sched/$t" ] || [ -d "/sys/kernel/debug/tracing/events/sched/$t" ] || continue
		tracepoints+=(-e "sched:$t")
		[ "$t" = sched_stat_runtime ] && tracepoints+=(--filter 'runtime >= 1000000')
	done
	perf record -a -k CLOCK_MONOTONIC "${tracepoints[@]}" -o "$PEER_DIR/perf.data" >"$PEER_DIR/out" 2>"$PEER_DIR/log" &
	PEER_PID=$!
	# Recording: perf has opened its events (its data file has its header) — polled, bounded.
	wait_for '[ -s "$PEER_DIR/perf.data" ] || ! kill -0 "$PEER_PID" 2>/dev/null' 10 && kill -0 "$PEER_PID" 2>/dev/null
}

peer__snapshot() { # the policies' governors and limits, as "FILE VALUE" lines
	emu_sh 'cd /sys/devices/system/cpu/cpufreq && for f in policy*/scaling_governor policy*/scaling_max_freq policy*/scaling_min_freq; do echo "$f $(cat "$f")"; done'
}

peer__snapshot_cur() { # each policy's current frequency, as "POLICY KHZ" lines
	emu_sh 'cd /sys/devices/system/cpu/cpufreq && for p in policy*; do echo "$p $(cat "$p/scaling_cur_freq")"; done'
}

# Puts back the snapshot: governor first, then max, then min (as they were listed); then each policy's
# frequency, which a governor such as schedutil keeps from whoever set it last (cpufreqd's powersave leaves the
# minimum): through the userspace governor (its start takes the current frequency as setspeed,
# cpufreq_userspace_policy_start()), then the governor back.
peer__restore() {
	local f v p khz gov
	[ -s "$PEER_DIR/snapshot" ] || return 0
	while read -r f v; do
		[ "$(emu_exec cat "/sys/devices/system/cpu/cpufreq/$f")" = "$v" ] && continue
		emu_sh "echo '$v' > /sys/devices/system/cpu/cpufreq/$f" || echo "peer_stop: cannot put $f back to $v" >&2
	done <"$PEER_DIR/snapshot"
	while read -r p khz; do
		f=/sys/devices/system/cpu/cpufreq/$p
		[ "$(emu_exec cat "$f/scaling_cur_freq")" = "$khz" ] && continue
		gov=$(emu_exec cat "$f/scaling_governor")
		emu_sh "echo userspace > $f/scaling_governor && echo $khz > $f/scaling_setspeed && echo $gov > $f/scaling_governor" ||
			echo "peer_stop: cannot put $p back to $khz kHz" >&2
	done <"$PEER_DIR/snapshot-cur"
}

peer_start() { # NAME [EXTRA_CONFIG]
	PEER_NAME=$1
	[ -n "$PEER_DIR" ] && rm -rf "$PEER_DIR"
	PEER_DIR=$(mktemp -d /tmp/schedfreqd-peer.XXXXXX) || return 1
	[ "$PEER_NAME" = perf-record ] || { peer__snapshot >"$PEER_DIR/snapshot" && peer__snapshot_cur >"$PEER_DIR/snapshot-cur"; }
	case $PEER_NAME in
	schedfreqd) peer__start_schedfreqd yes "${2:-}" ;;
	schedfreqd-local) peer__start_schedfreqd no "${2:-}" ;;
	schedfreqd-bpf | schedfreqd-bpf-local | schedfreqd-perf | schedfreqd-perf-local)
		# One event source ([events] source = bpf|perf); the extra config after it may add to [events].
		local src=${PEER_NAME#schedfreqd-}
		src=${src%-local}
		{ printf '[events]\nsource = %s\n' "$src"; [ -n "${2:-}" ] && cat "$2"; } >"$PEER_DIR/source.conf"
		peer__start_schedfreqd "$(case $PEER_NAME in *-local) echo no ;; *) echo yes ;; esac)" "$PEER_DIR/source.conf" ;;
	ondemand) peer__start_ondemand ;;
	cpufreqd) peer__start_cpufreqd ;;
	perf-record) peer__start_perf_record ;;
	*)
		echo "peer_start: unknown governor $PEER_NAME" >&2
		return 1
		;;
	esac || {
		echo "peer_start: $PEER_NAME did not take over" >&2
		sed 's/^/  /' "$PEER_DIR/log" >&2
		peer_stop
		return 1
	}
}

peer_events() {
	case $PEER_NAME in
	# The exit summary: "Events (perf): N (late ..." or "Events (bpf, counted in the kernel): N, ..."
	schedfreqd*) awk '/^Events \(/ { sub(/^[^)]*\): /, ""); print $1 + 0 }' "$PEER_DIR/log" ;;
	esac
}

peer_stop() {
	[ -n "$PEER_PID" ] || return 0
	kill -TERM "$PEER_PID" 2>/dev/null
	# perf record writes its build-ids at exit: allow it time on a big file.
	wait_for '! kill -0 "$PEER_PID" 2>/dev/null' 20 || kill -KILL "$PEER_PID" 2>/dev/null
	wait "$PEER_PID" 2>/dev/null
	PEER_PID=
	peer__restore
}

peer__cleanup() {
	peer_stop
	[ -n "$PEER_DIR" ] && rm -rf "$PEER_DIR"
	PEER_DIR=
}
at_exit peer__cleanup
