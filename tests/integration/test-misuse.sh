#!/bin/bash
# asan: yes
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Misuse of the daemon itself (issue #10), on the emulated cpufreq tree with real scheduler events:
#   - `--print-decisions | head -1`, a stderr pipe whose reader is gone, a closed stderr: the daemon lives on,
#     governs, and SIGTERM restores every file byte for byte;
#   - a second daemon (same lock, or other state and lock files) exits non-zero naming the first's PID and
#     writes nothing; `schedfreqd restore` under a live daemon is refused (naming it) unless --force;
#   - after kill -9 the start refuses with "run restore", and restore says it cleans up after a crash;
#   - an empty or corrupt state file: restore exits non-zero with FILE:LINE and keeps it;
#   - `-c FILE` with a missing FILE is an error (at start and on SIGHUP); without -c an absent default is not;
#   - usage errors (issue #14, #24): one sentence, no "schedfreqd:" prefix, the hint, exit status 2;
#   - --log-level wins over the config's log_level, after a reload too; -q keeps the info lines out;
#   - a start without root, or root without CAP_PERFMON: one line naming what is missing, suggesting sudo;
#   - no system bus: one info line saying D-Bus is off and why.

. "$(dirname "$0")/lib.sh"

SFD=$SCHEDFREQD
HOG="$BUILD/tests/helpers/hog"
TMP=$(mktemp -d /tmp/schedfreqd-test-misuse.XXXXXX)
at_exit 'rm -rf "$TMP"'
CPUFREQ=/sys/devices/system/cpu/cpufreq

# Every policy file except the current-frequency readouts (as in test-daemon.sh).
SNAPSHOT='cd /sys/devices/system/cpu/cpufreq && for f in policy*/*; do case $f in *cur_freq) continue;; esac; printf "%s: %s\n" "$f" "$(cat "$f" 2>&1)"; done'

governors() {
	emu_sh "cat $CPUFREQ/policy*/scaling_governor | sort -u"
}

taken_over() { # STATE_FILE
	[ -e "$1" ] && [ "$(governors)" = userspace ]
}

daemon_pid=
# start_daemon STDOUT STDERR [ARGS...]: the daemon on the emulated tree; waits for the take-over.
start_daemon() {
	local out=$1 err=$2
	shift 2
	nsenter -m -t "$EMU_NS_PID" -- "$SFD" -c "$TMP/schedfreqd.conf" --state-file "$TMP/state" "$@" >"$out" 2>"$err" &
	daemon_pid=$!
	wait_for 'taken_over "$TMP/state" || ! kill -0 "$daemon_pid" 2>/dev/null' 10 && taken_over "$TMP/state"
}
at_exit '[ -n "$daemon_pid" ] && kill -KILL "$daemon_pid" 2>/dev/null'

# stop_daemon NAME: SIGTERM, then exit 0, every file back, no state file.
stop_daemon() {
	local rc now
	kill -TERM "$daemon_pid"
	wait "$daemon_pid"
	rc=$?
	daemon_pid=
	now=$(emu_sh "$SNAPSHOT")
	if [ $rc -eq 0 ] && [ "$now" = "$original" ] && [ ! -e "$TMP/state" ]; then
		ok "$1: SIGTERM restores every file byte for byte"
	else
		fail "$1: SIGTERM restores every file byte for byte" "rc=$rc" "$(diff <(echo "$original") <(echo "$now"))"
	fi
}

# Frequency changes on policy1: a hog on CPU 1.
make_decisions() {
	"$HOG" --cpu 1 --seconds 0.5 >/dev/null
}

# SIGSTOP, and wait until it has taken effect: a stopped daemon writes nothing, its locks stay held. A
# write it had begun has reached the log by then (the emulator logs before it replies).
freeze() { # PID
	local frozen=$1
	kill -STOP "$frozen"
	wait_for '[ "$(awk "{ print \$3 }" "/proc/$frozen/stat")" = T ]' 5
}

# Lines of the write log from line N+1 on that are writes (not the emulator's own frequency changes).
writes_since() { # N
	tail -n +"$(($1 + 1))" "$EMU_LOG" | grep -v ' set$'
}

# --- 0. usage errors: "WHAT." and the hint on stderr, nothing on stdout, exit 2 -------------------------------
usage_case() { # NAME EXPECTED_FIRST_LINE ARGS...
	local name=$1 want=$2 out err rc
	shift 2
	err=$("$SFD" "$@" 2>&1 >"$TMP/usage.out")
	rc=$?
	out=$(cat "$TMP/usage.out")
	if [ $rc -eq 2 ] && [ "$err" = "$want"$'\n'"Try 'schedfreqd --help'." ] && [ -z "$out" ]; then
		ok "usage: $name: exit 2, one line and the hint"
	else
		fail "usage: $name: exit 2, one line and the hint" "rc=$rc" "stderr:" "$err" "stdout:" "$out"
	fi
}
# The option errors in our words (include/usage.h), as schedfreqctl's: getopt's name argv[0] as typed.
usage_case "unknown option" "Unknown option '--bogus'." --bogus
usage_case "unknown short option" "Unknown option '-x'." -x
usage_case "unknown short option in a cluster after a long one" "Unknown option '-x'." --force -qx
usage_case "missing argument" "Option '--config' needs a value." --config
usage_case "missing argument, short" "Option '-t' needs a value." replay -t
usage_case "a value for a flag" "Option '--force' takes no value: '--force=yes'." restore --force=yes
usage_case "unknown verb" "Unknown verb 'frobnicate'." frobnicate
usage_case "extra argument to topology" "Too many arguments for 'topology': 'extra'." topology extra
usage_case "extra argument to restore" "Too many arguments for 'restore': 'extra'." restore extra
usage_case "second trace to replay" "Too many arguments for 'replay': 'b.txt'." \
	replay --topology "$REPO/tests/fixtures/traces/two-dt.ini" a.txt b.txt
usage_case "bad --log-level" "--log-level wants err, warning, notice, info or debug, not 'loud'." \
	--log-level=loud topology
usage_case "--json with another verb" "--json applies to 'topology' only." restore --json
usage_case "--csv with another verb" "--csv applies to 'replay' only." topology --csv
usage_case "--kv with another verb" "--kv applies to 'replay' only." topology --kv
usage_case "--kv and --csv together" "--kv and --csv are two formats: choose one." \
	replay --kv --csv --topology "$REPO/tests/fixtures/traces/two-dt.ini" a.txt
usage_case "replay without --topology" \
	"'replay' needs --topology FILE: the traced machine's cpufreq policies
('schedfreqd topology' run there), or one of tests/fixtures/topology/*.ini
(format: schedfreqd(8), 'topology')." replay -
# One style across both programs (issue #24): no "PROGRAM:" prefix on any error line of either, for usage errors
# as for the rest (schedfreqctl's own usage errors are checked here too, they need no daemon).
ctl_usage_case() { # NAME EXPECTED_FIRST_LINE ARGS...
	local name=$1 want=$2 err rc
	shift 2
	err=$("$SCHEDFREQCTL" "$@" 2>&1 >/dev/null)
	rc=$?
	if [ $rc -eq 2 ] && [ "$err" = "$want"$'\n'"Try 'schedfreqctl --help'." ]; then
		ok "schedfreqctl usage: $name: exit 2, the same shape as schedfreqd's"
	else
		fail "schedfreqctl usage: $name: exit 2, the same shape as schedfreqd's" "rc=$rc" "stderr:" "$err"
	fi
}
ctl_usage_case "unknown option" "Unknown option '--bogus'." --bogus
ctl_usage_case "missing argument" "Option '--count' needs a value." watch --count
ctl_usage_case "a value for a flag" "Option '--json' takes no value: '--json=1'." --json=1 status
ctl_usage_case "unknown command" "Unknown command 'frobnicate'." frobnicate
ctl_usage_case "too many arguments" "Too many arguments for 'rules'." rules extra
ctl_usage_case "bad --count" "--count wants a positive number, not '0'." --count 0 watch
ctl_usage_case "--strict elsewhere" "--strict and --topology apply to check-config only." --strict status
# --version: the release number, then the commit when built from git (issue #24).
for prog in "$SFD" "$SCHEDFREQCTL"; do
	name=$(basename "$prog")
	out=$("$prog" --version 2>&1)
	rc=$?
	if [ $rc -eq 0 ] && grep -Eqx "$name [0-9]+\.[0-9]+\.[0-9]+( \(git [0-9a-f]{7,}(-dirty)?\))?" <<<"$out" &&
		{ ! git -C "$REPO" rev-parse --git-dir >/dev/null 2>&1 || grep -q ' (git ' <<<"$out"; }; then
		ok "$name --version: a version number, and the commit in a git checkout: $out"
	else
		fail "$name --version: a version number and the commit" "rc=$rc" "$out"
	fi
done
out=$("$SFD" --help 2>&1)
rc=$?
[ $rc -eq 0 ] && grep -q -- '--log-level LEVEL' <<<"$out" && ok "--help: exit 0, lists --log-level" \
	|| fail "--help: exit 0, lists --log-level" "rc=$rc" "$out"

sed -e '/^\[policy0\]/,/^\[policy1\]/ s/^governor = .*/governor = performance/' \
	"$REPO/tests/fixtures/topology/two-policies.ini" >"$TMP/topology.ini"
emu_start "$TMP/topology.ini" || { fail "emulator start"; finish; }
original=$(emu_sh "$SNAPSHOT")
printf '[events]\nwakeup = adaptive\n' >"$TMP/schedfreqd.conf"

# --- 1. a closed stdout or stderr ------------------------------------------------------------------------
mkfifo "$TMP/out.fifo"
head -n 1 <"$TMP/out.fifo" >"$TMP/head" &
head_pid=$!
if start_daemon "$TMP/out.fifo" "$TMP/err" --print-decisions; then
	# Decisions until head has its line and has gone, then more: each is printed into the closed pipe.
	wait_for 'make_decisions; ! kill -0 "$head_pid" 2>/dev/null' 10
	wait "$head_pid"
	wait_for 'make_decisions; grep -q "no longer printing them, still governing" "$TMP/err" || ! kill -0 "$daemon_pid" 2>/dev/null' 10
	if kill -0 "$daemon_pid" 2>/dev/null && [ "$(governors)" = userspace ] && [ -s "$TMP/head" ] &&
		[ "$(grep -c 'Cannot print decisions on stdout (Broken pipe)' "$TMP/err")" = 1 ]; then
		ok "--print-decisions | head -1: warned once, still governing"
	else
		fail "--print-decisions | head -1: warned once, still governing" "$(tail -n 20 "$TMP/err")"
	fi
	# Still governing: the frequency follows the hogs (up while one runs, down after it). Not under valgrind:
	# the daemon's own load there can hold policy1 at its maximum, hog or not (nothing to write).
	mark=$(wc -l <"$EMU_LOG")
	if under_valgrind; then
		:
	elif wait_for 'make_decisions; writes_since "$mark" | grep -q "policy1/scaling_setspeed"' 10; then
		ok "--print-decisions | head -1: frequencies still written"
	else
		fail "--print-decisions | head -1: frequencies still written" "$(tail -n 20 "$TMP/err")"
	fi
	stop_daemon "--print-decisions | head -1"
else
	fail "--print-decisions | head -1: daemon takes over" "$(cat "$TMP/err")"
	kill "$head_pid" 2>/dev/null
fi

# stderr into a pipe whose reader has gone after the first line (every later log line meets EPIPE).
mkfifo "$TMP/err.fifo"
head -n 1 <"$TMP/err.fifo" >"$TMP/err-head" &
head_pid=$!
if start_daemon /dev/null "$TMP/err.fifo" && wait_for '! kill -0 "$head_pid" 2>/dev/null' 5; then
	make_decisions
	kill -HUP "$daemon_pid" # a reload logs a line or two
	make_decisions
	if kill -0 "$daemon_pid" 2>/dev/null && [ "$(governors)" = userspace ]; then
		ok "stderr reader gone: still governing"
	else
		fail "stderr reader gone: still governing" "$(cat "$TMP/err-head")"
	fi
	stop_daemon "stderr reader gone"
else
	fail "stderr reader gone: daemon takes over"
fi
wait "$head_pid" 2>/dev/null

# A closed stderr: its fd number must not go to a file the daemon opens (logs into scaling_setspeed).
mark=$(wc -l <"$EMU_LOG")
nsenter -m -t "$EMU_NS_PID" -- "$SFD" -c "$TMP/schedfreqd.conf" --state-file "$TMP/state" >/dev/null 2>&- &
daemon_pid=$!
if wait_for 'taken_over "$TMP/state"' 10; then
	make_decisions
	kill -HUP "$daemon_pid"
	make_decisions
	bad=$(writes_since "$mark" | grep -v ' ok$')
	if kill -0 "$daemon_pid" 2>/dev/null && [ -z "$bad" ]; then
		ok "stderr closed: still governing, no stray writes"
	else
		fail "stderr closed: still governing, no stray writes" "$bad"
	fi
	stop_daemon "stderr closed"
else
	fail "stderr closed: daemon takes over"
fi

# --- 2. one instance -------------------------------------------------------------------------------------
if ! start_daemon "$TMP/out" "$TMP/err"; then
	fail "first daemon takes over" "$(cat "$TMP/err")"
	finish
fi
first=$daemon_pid

# second_attempt NAME ARGS...: with the first daemon stopped (SIGSTOP: it writes nothing, its locks stay), the
# write log shows only what the second writes. Sets out and rc.
second_attempt() {
	local name=$1 mark
	shift
	freeze "$first"
	mark=$(wc -l <"$EMU_LOG")
	out=$(emu_exec timeout 10 "$SFD" -c "$TMP/schedfreqd.conf" "$@" 2>&1)
	rc=$?
	writes=$(writes_since "$mark")
	kill -CONT "$first"
	if [ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -q "PID $first\b" <<<"$out" && [ -z "$writes" ]; then
		ok "$name: exits $rc naming PID $first, writes nothing"
	else
		fail "$name: exits non-zero naming PID $first, writes nothing" "rc=$rc" "$out" "writes:" "$writes"
	fi
}
second_attempt "second daemon, same lock, other state file" --state-file "$TMP/state2"
grep -q "Another schedfreqd is running (PID $first, holding $TMP/lock)" <<<"$out" \
	&& ok "second daemon: says which lock" || fail "second daemon: says which lock" "$out"
mkdir "$TMP/other"
second_attempt "second daemon, other state and lock files" --state-file "$TMP/other/state"
grep -q "policy0 is already governed by another schedfreqd (PID $first)" <<<"$out" && [ ! -e "$TMP/other/state" ] \
	&& ok "second daemon with its own lock: refused by the policy lock, no state file" \
	|| fail "second daemon with its own lock: refused by the policy lock, no state file" "$out"

# --- 3. restore under a live daemon ------------------------------------------------------------------------
freeze "$first"
mark=$(wc -l <"$EMU_LOG")
out=$(emu_exec "$SFD" restore --state-file "$TMP/state" 2>&1)
rc=$?
writes=$(writes_since "$mark")
kill -CONT "$first"
if [ $rc -ne 0 ] && grep -q "belongs to the running schedfreqd (PID $first, holding $TMP/lock)" <<<"$out" &&
	grep -q -- "--force restores anyway" <<<"$out" && [ -e "$TMP/state" ] && [ -z "$writes" ]; then
	ok "restore under the live daemon: refused, naming it; nothing written, state kept"
else
	fail "restore under the live daemon: refused, naming it; nothing written, state kept" "rc=$rc" "$out" "$writes"
fi
freeze "$first"
mark=$(wc -l <"$EMU_LOG")
out=$(emu_exec "$SFD" restore --state-file "$TMP/state" --lock-file "$TMP/other/lock" 2>&1)
rc=$?
writes=$(writes_since "$mark")
kill -CONT "$first"
if [ $rc -ne 0 ] && grep -q "policy0 is governed by a running schedfreqd (PID $first)" <<<"$out" && [ -e "$TMP/state" ] &&
	[ -z "$writes" ]; then
	ok "restore with another lock file: refused by the policy lock"
else
	fail "restore with another lock file: refused by the policy lock" "rc=$rc" "$out" "$writes"
fi
if kill -0 "$first" 2>/dev/null && [ "$(governors)" = userspace ]; then
	ok "first daemon unharmed"
else
	fail "first daemon unharmed" "$(tail -n 20 "$TMP/err")"
fi

# --- crash: the start refuses and says to restore; restore says it cleans up after a crash --------------------
kill -KILL "$first"
wait "$first" 2>/dev/null
daemon_pid=
mark=$(wc -l <"$EMU_LOG")
out=$(emu_exec timeout 10 "$SFD" -c "$TMP/schedfreqd.conf" --state-file "$TMP/state" 2>&1)
rc=$?
if [ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -q "$TMP/state exists: a previous schedfreqd did not exit cleanly" <<<"$out" &&
	grep -q "run \`schedfreqd restore --state-file $TMP/state\`" <<<"$out" && [ -z "$(writes_since "$mark")" ]; then
	ok "start after kill -9: refused, says to run restore, writes nothing"
else
	fail "start after kill -9: refused, says to run restore, writes nothing" "rc=$rc" "$out"
fi
out=$(emu_exec "$SFD" restore --state-file "$TMP/state" 2>&1)
rc=$?
now=$(emu_sh "$SNAPSHOT")
if [ $rc -eq 0 ] && grep -q "Restored cpufreq policies from $TMP/state, left by a schedfreqd that did not exit cleanly" <<<"$out" &&
	[ "$now" = "$original" ] && [ ! -e "$TMP/state" ]; then
	ok "restore after kill -9: says so, restores byte for byte"
else
	fail "restore after kill -9: says so, restores byte for byte" "rc=$rc" "$out" "$(diff <(echo "$original") <(echo "$now"))"
fi

# --- --force: restores under a live daemon ----------------------------------------------------------------------
if start_daemon "$TMP/out" "$TMP/err"; then
	freeze "$daemon_pid"
	out=$(emu_exec "$SFD" restore --force --state-file "$TMP/state" 2>&1)
	rc=$?
	now=$(emu_sh "$SNAPSHOT")
	kill -CONT "$daemon_pid"
	if [ $rc -eq 0 ] && grep -q "restoring under it (--force)" <<<"$out" && [ "$now" = "$original" ]; then
		ok "restore --force: restores under the live daemon, saying so"
	else
		fail "restore --force: restores under the live daemon, saying so" "rc=$rc" "$out"
	fi
	kill -TERM "$daemon_pid"
	wait "$daemon_pid"
	daemon_pid=
fi

# --- 4. empty and corrupt state files ---------------------------------------------------------------------------
before=$(emu_sh "$SNAPSHOT")
: >"$TMP/state"
mark=$(wc -l <"$EMU_LOG")
out=$(emu_exec "$SFD" restore --state-file "$TMP/state" 2>&1)
rc=$?
if [ $rc -ne 0 ] && grep -q "$TMP/state:1: no \[policyN\] section (empty or truncated state file)" <<<"$out" &&
	[ -e "$TMP/state" ] && [ -z "$(writes_since "$mark")" ]; then
	ok "restore of an empty state file: FILE:LINE, exit $rc, kept"
else
	fail "restore of an empty state file: FILE:LINE, exit non-zero, kept" "rc=$rc" "$out"
fi
printf '[policy0]\ndir = %s/policy0\ngovernor = schedutil\nscaling_min_khz = 400000\nscaling_max_khz = 24' \
	"$CPUFREQ" >"$TMP/state"
out=$(emu_exec "$SFD" restore --state-file "$TMP/state" 2>&1)
rc=$?
if [ $rc -ne 0 ] && grep -q "$TMP/state:5: last line not terminated" <<<"$out" && [ -e "$TMP/state" ] &&
	[ -z "$(writes_since "$mark")" ] && [ "$before" = "$(emu_sh "$SNAPSHOT")" ]; then
	ok "restore of a truncated state file: FILE:LINE, exit $rc, kept, nothing written"
else
	fail "restore of a truncated state file: FILE:LINE, exit non-zero, kept, nothing written" "rc=$rc" "$out"
fi
rm -f "$TMP/state"

# --- 6. an explicit config file must exist; the default path may be absent ---------------------------------
mark=$(wc -l <"$EMU_LOG")
out=$(emu_exec timeout 10 "$SFD" -c "$TMP/missing.conf" --state-file "$TMP/state" 2>&1)
rc=$?
if [ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -q "$TMP/missing.conf" <<<"$out" && [ ! -e "$TMP/state" ] && [ -z "$(writes_since "$mark")" ]; then
	ok "-c with a missing file: error naming it, nothing touched"
else
	fail "-c with a missing file: error naming it, nothing touched" "rc=$rc" "$out"
fi
if [ -e /etc/schedfreqd.conf ]; then
	skip "no -c and no /etc/schedfreqd.conf: defaults" "/etc/schedfreqd.conf exists on this machine"
else
	nsenter -m -t "$EMU_NS_PID" -- "$SFD" --state-file "$TMP/state" --no-bus >"$TMP/out" 2>"$TMP/err" &
	daemon_pid=$!
	if wait_for 'taken_over "$TMP/state" || ! kill -0 "$daemon_pid" 2>/dev/null' 10 && taken_over "$TMP/state"; then
		ok "no -c and no /etc/schedfreqd.conf: runs on the defaults"
		stop_daemon "defaults"
	else
		fail "no -c and no /etc/schedfreqd.conf: runs on the defaults" "$(cat "$TMP/err")"
	fi
fi
# On SIGHUP too: the named file removed meanwhile is a rejected reload, not a reset to the defaults.
cp "$TMP/schedfreqd.conf" "$TMP/reload.conf"
nsenter -m -t "$EMU_NS_PID" -- "$SFD" -c "$TMP/reload.conf" --state-file "$TMP/state" >"$TMP/out" 2>"$TMP/err" &
daemon_pid=$!
if wait_for 'taken_over "$TMP/state"' 10; then
	rm "$TMP/reload.conf"
	kill -HUP "$daemon_pid"
	if wait_for 'grep -q "Configuration rejected, keeping the running one" "$TMP/err"' 5 &&
		grep -q "$TMP/reload.conf" "$TMP/err"; then
		ok "-c file removed, SIGHUP: reload rejected, naming it"
	else
		fail "-c file removed, SIGHUP: reload rejected, naming it" "$(tail -n 20 "$TMP/err")"
	fi
	stop_daemon "after the rejected reload"
else
	fail "daemon with -c takes over" "$(cat "$TMP/err")"
fi

# --- 7. log levels: the command line wins over [daemon] log_level, a reload included -------------------------
# The config says warning, the command line info: the reload's own info line is printed only if the command
# line still wins after the reload re-read the config (it used to set the config's level first).
printf '[daemon]\nlog_level = warning\n' >"$TMP/warning.conf"
export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$TMP/no-bus-socket"
if start_daemon "$TMP/out" "$TMP/err" -c "$TMP/warning.conf" --log-level=info; then
	kill -HUP "$daemon_pid"
	if wait_for 'grep -q "Configuration reloaded from $TMP/warning.conf" "$TMP/err"' 5 &&
		grep -q "policy0: taken over from governor" "$TMP/err"; then
		ok "--log-level=info over log_level = warning: info lines at start and after a reload"
	else
		fail "--log-level=info over log_level = warning: info lines at start and after a reload" "$(cat "$TMP/err")"
	fi
	# No system bus: one info line, saying what is off and why; no warning about it.
	bus_lines=$(grep -i 'bus' "$TMP/err")
	if [ "$bus_lines" = "No D-Bus, running without it: the D-Bus status and schedfreqctl are off.
Cannot connect to the system bus (unix:path=$TMP/no-bus-socket: No such file or directory)." ]; then
		ok "no system bus: one line saying D-Bus is off and why"
	else
		fail "no system bus: one line saying D-Bus is off and why" "$bus_lines"
	fi
	stop_daemon "--log-level=info"
else
	fail "daemon with --log-level=info takes over" "$(cat "$TMP/err")"
fi
# The same bus line is info: -q (warning) leaves it out, with every other info line, start to exit.
if start_daemon "$TMP/out" "$TMP/err" -q; then
	stop_daemon "-q"
	info=$(grep -E 'taken over from governor|running\.$|cpufreq policies restored|D-Bus' "$TMP/err")
	[ -z "$info" ] && ok "-q: no info lines from start to exit" || fail "-q: no info lines from start to exit" "$info"
else
	fail "daemon with -q takes over" "$(cat "$TMP/err")"
fi
unset DBUS_SYSTEM_BUS_ADDRESS

# --- 8. privileges: one line naming what is missing, and sudo -----------------------------------------------------
# As nobody: a copy of the binary where nobody can run it (the build tree may not be reachable). In the
# emulator's namespace, so that a daemon that got past the check would govern the emulated tree, not the machine.
pub=$(mktemp -d /tmp/schedfreqd-test-misuse-pub.XXXXXX)
at_exit 'rm -rf "$pub"'
chmod 755 "$pub"
cp "$BUILD/schedfreqd" "$pub/schedfreqd"
mark=$(wc -l <"$EMU_LOG")
out=$(emu_exec setpriv --reuid=65534 --regid=65534 --clear-groups "$pub/schedfreqd" --no-bus \
	--state-file "$pub/state" 2>&1)
rc=$?
if [ $rc -eq 1 ] && [ "$(wc -l <<<"$out")" = 1 ] && grep -q "^Not running as root (uid 65534): .* needs CAP_PERFMON .*sudo" <<<"$out" &&
	[ -z "$(writes_since "$mark")" ]; then
	ok "start as nobody: one line, root and CAP_PERFMON missing, sudo"
else
	fail "start as nobody: one line, root and CAP_PERFMON missing, sudo" "rc=$rc" "$out"
fi
# Root without CAP_PERFMON and CAP_SYS_ADMIN (dropped from the bounding set, so exec does not grant them).
out=$(emu_exec setpriv --bounding-set=-perfmon,-sys_admin "$SFD" --no-bus -c "$TMP/schedfreqd.conf" \
	--state-file "$pub/state" 2>&1)
rc=$?
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
if [ "$paranoid" -ge 0 ]; then
	if [ $rc -eq 1 ] && [ "$(wc -l <<<"$out")" = 1 ] && grep -q "^Missing CAP_PERFMON: .*sudo" <<<"$out" &&
		[ -z "$(writes_since "$mark")" ]; then
		ok "start as root without CAP_PERFMON: one line naming it, sudo"
	else
		fail "start as root without CAP_PERFMON: one line naming it, sudo" "rc=$rc" "$out"
	fi
else # kernel.perf_event_paranoid=-1 opens the tracepoints to everyone: nothing is missing
	! grep -q "Missing CAP_PERFMON" <<<"$out" && ok "start as root without CAP_PERFMON, perf_event_paranoid=-1: not refused" \
		|| fail "start as root without CAP_PERFMON, perf_event_paranoid=-1: not refused" "$out"
fi

# --- 9. topology --json: valid JSON (jq) with the INI's sections, keys and values ---------------------------------
ini=$(emu_exec "$SFD" topology)
json=$(emu_exec "$SFD" topology --json)
rc=$?
ini_keys=$(awk '/^\[/ { s = substr($0, 2, length($0) - 2) } / = / { print s "." $1 }' <<<"$ini" | sort)
json_keys=$(jq -r 'to_entries[] | .key as $s | .value | keys[] | "\($s).\(.)"' <<<"$json" | sort)
if [ $rc -eq 0 ] && [ -n "$ini_keys" ] && [ "$ini_keys" = "$json_keys" ]; then
	ok "topology --json: jq parses it, the INI's sections and keys"
else
	fail "topology --json: jq parses it, the INI's sections and keys" "rc=$rc" "$(diff <(echo "$ini_keys") <(echo "$json_keys"))" "$json"
fi
# Every value as the INI has it: numbers, lists (arrays joined by spaces), strings, and booleans as yes/no (discovery
# gives [system] autogroup where the kernel groups tasks by session, as on this VM).
ini_values=$(awk '/^\[/ { s = substr($0, 2, length($0) - 2) } / = / { k = $1; sub(/^[^=]*= /, ""); print s "." k "=" $0 }' <<<"$ini" | sort)
json_values=$(jq -r 'to_entries[] | .key as $s | .value | to_entries[] |
	"\($s).\(.key)=\(if (.value | type) == "array" then (.value | map(tostring) | join(" "))
		elif (.value | type) == "boolean" then (if .value then "yes" else "no" end) else .value end)"' <<<"$json" | sort)
[ "$ini_values" = "$json_values" ] && ok "topology --json: every value as in the INI" \
	|| fail "topology --json: every value as in the INI" "$(diff <(echo "$ini_values") <(echo "$json_values"))"

emu_stop
finish
