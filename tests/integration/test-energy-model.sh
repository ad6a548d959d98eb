#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck disable=SC2016
#
# The Energy Model's inefficient OPPs (docs/fidelity.md, difference 11). Over the cpufreq emulator
# (two-policies-dt.ini), in its private mount namespace, a tmpfs is mounted at /sys/kernel/debug and an
# energy_model/ tree made in it as kernel/power/energy_model.c lays it out (em_debug_create_pd(),
# em_debug_create_ps()); the host's /sys/kernel/debug is never touched (the mount dies with the namespace).
#  1. an empty debugfs: `schedfreqd topology` succeeds and prints no inefficient_khz;
#  2. the EM tree: it prints each policy's inefficient entries of its table (text and --json), leaving out an
#     inefficient state that is no cpufreq entry, and the emulator takes the printed topology back;
#  3. the daemon over it, on each event source, with a 1 s hog on CPU 1: policy1's 1.2, 1.6 and 2.0 GHz are
#     inefficient, so schedutil's CPUFREQ_RELATION_LE takes it from 0.8 GHz straight to 2.4 GHz, and the
#     emulator's write log must show no write of an inefficient entry (without the feature the ramp passes
#     through them).
# asan: yes

. "$(dirname "$0")/lib.sh"

HOG="$BUILD/tests/helpers/hog"
TOPO="$REPO/tests/fixtures/topology/two-policies-dt.ini"
TMP=$(mktemp -d /tmp/schedfreqd-test-em.XXXXXX)
at_exit 'rm -rf "$TMP"'
EM=/sys/kernel/debug/energy_model

if [ ! -d /sys/kernel/debug ]; then
	skip energy-model "no /sys/kernel/debug to mount over (a kernel without CONFIG_DEBUG_FS)"
	finish
fi

# The shell code that makes domain DIR (CPUS) with the states "KHZ:FLAGS ..." under $EM.
em_domain() { # DIR CPUS STATES...
	local dir=$1 cpus=$2 s khz
	shift 2
	printf 'mkdir -p %s/%s && echo %s >%s/%s/cpus && echo 0x2 >%s/%s/flags' "$EM" "$dir" "$cpus" "$EM" "$dir" \
		"$EM" "$dir"
	for s in "$@"; do
		khz=${s%%:*}
		printf ' && mkdir %s/%s/ps:%s' "$EM" "$dir" "$khz"
		printf ' && echo %s >%s/%s/ps:%s/frequency' "$khz" "$EM" "$dir" "$khz"
		printf ' && echo 100 >%s/%s/ps:%s/power && echo 200 >%s/%s/ps:%s/cost' "$EM" "$dir" "$khz" "$EM" "$dir" "$khz"
		printf ' && echo %s >%s/%s/ps:%s/inefficient' "${s#*:}" "$EM" "$dir" "$khz"
	done
}

emu_start "$TOPO" || { fail "emulator starts"; finish; }

# 1. debugfs without an Energy Model.
if emu_sh 'mount -t tmpfs -o mode=0700 schedfreqd-test-debugfs /sys/kernel/debug'; then
	ok "a tmpfs over /sys/kernel/debug in the emulator's namespace"
else
	fail "a tmpfs over /sys/kernel/debug in the emulator's namespace"
	finish
fi
if out=$(emu_exec "$SCHEDFREQD" topology 2>&1) && ! grep -q inefficient_khz <<<"$out" &&
	grep -q '^frequencies_khz = 800000 1200000 1600000 2000000 2400000$' <<<"$out"; then
	ok "no Energy Model: no inefficient_khz, no error"
else
	fail "no Energy Model: no inefficient_khz, no error" "$out"
fi

# 2. An Energy Model: cpu0's domain spans CPU 0 (1.4 GHz is an EM state the cpufreq table lacks: the kernel's
# cpufreq_table_set_inefficient() refuses it), cpu1's spans CPU 1; a GPU domain has no cpus file.
code="$(em_domain cpu0 0 800000:0 1200000:1 1400000:1 1600000:1 2000000:0 2400000:0) &&
	$(em_domain cpu1 1 800000:0 1200000:1 1600000:1 2000000:1 2400000:0) &&
	mkdir -p $EM/gpu/ps:500000 && echo 1 >$EM/gpu/ps:500000/inefficient"
emu_sh "$code" || fail "the energy_model/ tree is made"
if emu_exec "$SCHEDFREQD" topology >"$TMP/em.ini" 2>"$TMP/em.err" &&
	[ "$(awk '/^\[policy/ { p = $0 } /^inefficient_khz/ { print p, $0 }' "$TMP/em.ini")" = "\
[policy0] inefficient_khz = 1200000 1600000
[policy1] inefficient_khz = 1200000 1600000 2000000" ]; then
	ok "schedfreqd topology prints each policy's inefficient entries"
else
	fail "schedfreqd topology prints each policy's inefficient entries" "$(cat "$TMP/em.ini" "$TMP/em.err")"
fi
json=$(emu_exec "$SCHEDFREQD" topology --json 2>&1)
if python3 -c 'import json, sys
t = json.loads(sys.argv[1])
assert t["policy0"]["inefficient_khz"] == [1200000, 1600000], t["policy0"]
assert t["policy1"]["inefficient_khz"] == [1200000, 1600000, 2000000], t["policy1"]' "$json"; then
	ok "schedfreqd topology --json: inefficient_khz arrays"
else
	fail "schedfreqd topology --json: inefficient_khz arrays" "$json"
fi
if "$REPO/tests/emu-run" --build "$BUILD" "$TMP/em.ini" -- "$SCHEDFREQD" topology >"$TMP/again.ini" 2>&1; then
	ok "the emulator serves the topology printed with inefficient_khz"
else
	fail "the emulator serves the topology printed with inefficient_khz" "$(cat "$TMP/again.ini")"
fi

# 3. The daemon never writes an inefficient entry of policy1 (a hog on CPU 1 takes it to the top).
sources=perf
[ -e "$BUILD/daemon/governor/bpf/schedfreqd.skel.h" ] && [ -e /sys/kernel/btf/vmlinux ] && sources="perf bpf"
: >"$TMP/empty.conf"
for src in $sources; do
	: >"$EMU_LOG"
	if ! emu_daemon_start "$TMP/state" "$TMP/empty.conf" "$TMP/$src.err" /dev/null --events="$src"; then
		fail "events=$src: the daemon takes over" "$(tail -n 20 "$TMP/$src.err")"
		emu_daemon_stop
		continue
	fi
	if ! emu_policy_wait_at_most 1 800000; then
		fail "events=$src: policy1 falls to its minimum while idle" "$(tail -n 5 "$TMP/$src.err")"
		emu_daemon_stop
		continue
	fi
	"$HOG" --cpu 1 --seconds 1 >/dev/null
	emu_policy_wait_at_most 1 800000 # the fall after the hog, bounded
	emu_daemon_stop
	sets=$(awk '$2 == "cpufreq/policy1/scaling_cur_freq" && $4 == "set" { print $3 }' "$EMU_LOG" | sort -un | tr '\n' ' ')
	if grep -Eq '(^| )(1200000|1600000|2000000) ' <<<"$sets"; then
		fail "events=$src: policy1 never set to an inefficient entry" "policy1 set to: $sets"
	elif ! grep -q '2400000 ' <<<"$sets"; then
		fail "events=$src: the hog takes policy1 to 2.4 GHz" "policy1 set to: $sets" "$(tail -n 5 "$TMP/$src.err")"
	else
		ok "events=$src: a hog takes policy1 from 0.8 to 2.4 GHz, past its inefficient entries (set to: $sets)"
	fi
done

emu_stop
check energy-model/no-mount-left-behind sh -c '! grep -q schedfreqd-test-debugfs /proc/self/mountinfo'
finish
