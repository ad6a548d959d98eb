#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# `make try` (scripts/try, issue #24 item 3): the daemon on the emulated cpufreq tree with a private D-Bus system
# bus, and a shell (or CMD) inside the emulator's mount namespace. Checked, non-interactively:
#   - scripts/try -- CMD: `schedfreqctl status` without arguments works there and shows both policies governed,
#     /sys/devices/system/cpu is the emulator's, the daemon runs during CMD; the script exits with CMD's status and
#     its stdout is CMD's only; afterwards the daemon, the bus, the emulator and CMD's own children are gone (by the
#     PIDs the session exported), the temp directory is removed, the daemon exited 0 and the emulator's write log
#     shows each governor written back (schedutil, after userspace)
#   - the shell fed `schedfreqctl status; exit` on stdin (no terminal) works, with the banner on stderr
#   - the interactive shell on a terminal (python3's pty): the prompt, a command, `exit`
#   - SIGTERM to the script mid-session ends it at once, with the same clean teardown (exit 143)
#   - a daemon that dies without restoring (SIGKILL) is reported, and the script exits 125 instead of CMD's 0
# scripts/try starts $BUILD/schedfreqd itself (that is its subject): no valgrind or event-source wrappers here.

. "$(dirname "$0")/lib.sh"

TRY="$REPO/scripts/try"
TMP=$(mktemp -d /tmp/schedfreqd-test-try.XXXXXX)
at_exit 'rm -rf "$TMP"'
TOPO="$REPO/tests/fixtures/topology/two-policies.ini"
# Every try started here is bounded; a leftover try would be ended by its PID.
TRY_PID=
at_exit '[ -n "$TRY_PID" ] && kill -TERM "$TRY_PID" 2>/dev/null && wait "$TRY_PID" 2>/dev/null'

# A session's PIDs and directory, as CMD (or the shell) printed them: "session DAEMON BUS EMU DIR".
SESSION_LINE='echo "session $SCHEDFREQD_TRY_DAEMON_PID $SCHEDFREQD_TRY_BUS_PID $SCHEDFREQD_EMU_PID $SCHEDFREQD_TRY_DIR"'

# A process still running, not a zombie and not a recycled PID of something else: its environment has DIR.
holds_dir() { # PID DIR
	{ tr '\0' '\n' <"/proc/$1/environ"; } 2>/dev/null | grep -qx "SCHEDFREQD_TRY_DIR=$2" ||
		{ tr '\0' ' ' <"/proc/$1/cmdline"; } 2>/dev/null | grep -qF "$2"
}

# Every process that still belongs to the session of DIR (by its environment or command line).
session_leftovers() { # DIR
	local d
	for d in /proc/[0-9]*; do
		holds_dir "${d#/proc/}" "$1" && echo "${d#/proc/}: $({ tr '\0' ' ' <"$d/cmdline"; } 2>/dev/null)"
	done
}

# Nothing of the session whose "session" line is in OUT is left, and its teardown (try's lines in ERR) was clean.
check_gone() { # NAME OUT ERR
	local name=$1 out=$2 err=$3 line daemon bus emu dir alive="" p left
	line=$(grep -m1 '^session ' "$out")
	read -r _ daemon bus emu dir <<<"$line"
	if [ -z "$daemon" ] || [ -z "$bus" ] || [ -z "$emu" ] || [ -z "$dir" ]; then
		fail "$name: the session printed its PIDs" "line: '$line'" "$(cat "$out" "$err")"
		return
	fi
	# Still there: the PID runs the program it ran (a PID recycled meanwhile runs something else).
	for p in "$daemon:schedfreqd" "$bus:dbus-daemon" "$emu:cpufreq-emu"; do
		{ tr '\0' ' ' <"/proc/${p%%:*}/cmdline"; } 2>/dev/null | grep -q "${p#*:}" && alive="$alive ${p%%:*}"
	done
	left=$(session_leftovers "$dir")
	if [ -z "$alive" ] && [ -z "$left" ] && [ ! -e "$dir" ]; then
		ok "$name: afterwards the daemon ($daemon), the bus ($bus), the emulator ($emu) and $dir are gone"
	else
		fail "$name: afterwards the daemon ($daemon), the bus ($bus), the emulator ($emu) and $dir are gone" \
			"still running:${alive:- none}" "leftovers: ${left:-none}" "$(ls -d "$dir" 2>&1)" "$(cat "$err")"
	fi
	if grep -q "^try: schedfreqd (pid $daemon) stopped with SIGTERM: exit status 0$" "$err" &&
		grep -q '^try: governors restored: policy0 schedutil, policy1 schedutil$' "$err"; then
		ok "$name: the daemon exited 0 on SIGTERM and the governors were back before the emulator stopped"
	else
		fail "$name: the daemon exited 0 on SIGTERM and the governors were back before the emulator stopped" "$(cat "$err")"
	fi
}

# `schedfreqctl status` text (its 80-column layout): the daemon governing, both policies listed with their limits,
# none in another state.
check_status() { # NAME FILE
	local name=$1 file=$2
	if grep -q '^schedfreqd .*: governing, up ' "$file" &&
		grep -Eq '^policy0 +0 +[0-9]+ +800-2400 ' "$file" &&
		grep -Eq '^policy1 +1 +[0-9]+ +800-2400 ' "$file" &&
		! grep -Eq 'not managed|^policy[0-9]+: ' "$file"; then
		ok "$name: schedfreqctl status (no arguments) shows both policies governed"
	else
		fail "$name: schedfreqctl status (no arguments) shows both policies governed" "$(cat "$file")"
	fi
}

# --- 1. scripts/try -- CMD ------------------------------------------------------------------------------------
cat >"$TMP/cmd.sh" <<EOF
$SESSION_LINE
kill -0 "\$SCHEDFREQD_TRY_DAEMON_PID" && echo "daemon running"
echo "ctl \$(command -v schedfreqctl)"
echo "governors \$(cat /sys/devices/system/cpu/cpufreq/policy*/scaling_governor | tr '\n' ' ')"
schedfreqctl status >"$TMP/status1"
echo "status rc \$?"
echo "governed \$(schedfreqctl status --json | jq '[.policies[] | select(.Managed and .State == "governed")] | length')"
sleep 1000 & # a child CMD leaves behind: ended with the namespace
exit 3
EOF
timeout 60 "$TRY" --build "$BUILD" --topology "$TOPO" --emu-log "$TMP/emu1.log" -- bash "$TMP/cmd.sh" \
	</dev/null >"$TMP/out1" 2>"$TMP/err1"
rc=$?
if [ $rc -eq 3 ] && grep -qx 'daemon running' "$TMP/out1" && grep -qx "ctl $BUILD/schedfreqctl" "$TMP/out1" &&
	grep -qx 'governors userspace userspace ' "$TMP/out1" && grep -qx 'status rc 0' "$TMP/out1"; then
	ok "try -- CMD: CMD ran with the daemon running, the emulated tree on userspace, the build dir on PATH; exit 3 is CMD's"
else
	fail "try -- CMD: CMD ran with the daemon running, the emulated tree on userspace, the build dir on PATH; exit 3 is CMD's" \
		"exit $rc" "$(cat "$TMP/out1" "$TMP/err1")"
fi
check_status "try -- CMD" "$TMP/status1"
grep -qx 'governed 2' "$TMP/out1" && ok "try -- CMD: status --json: both policies Managed, State governed" ||
	fail "try -- CMD: status --json: both policies Managed, State governed" "$(cat "$TMP/out1")"
# stdout is CMD's: try's own lines went to stderr.
bad=$(grep -v -e '^session ' -e '^daemon running$' -e '^ctl ' -e '^governors ' -e '^status rc ' -e '^governed ' "$TMP/out1")
[ -z "$bad" ] && ok "try -- CMD: stdout is CMD's only (try's messages on stderr, no banner)" ||
	fail "try -- CMD: stdout is CMD's only (try's messages on stderr, no banner)" "$bad"
check_gone "try -- CMD" "$TMP/out1" "$TMP/err1"
# The write log: each policy's governor went to userspace, then back to schedutil, last.
restored=$(awk '$2 ~ /^cpufreq\/policy[0-9]+\/scaling_governor$/ && $4 == "ok" { split($2, a, "/"); seq[a[2]] = seq[a[2]] " " $3 }
	END { for (p in seq) print p ":" seq[p] }' "$TMP/emu1.log" | sort | tr '\n' ';')
[ "$restored" = "policy0: userspace schedutil;policy1: userspace schedutil;" ] &&
	ok "try -- CMD: the emulator's write log shows each governor set to userspace, then written back to schedutil" ||
	fail "try -- CMD: the emulator's write log shows each governor set to userspace, then written back to schedutil" \
		"governor writes: $restored"

# --- 2. the shell, commands on stdin --------------------------------------------------------------------------
printf '%s\n' "$SESSION_LINE" 'echo "prompt $PS1"' 'schedfreqctl status; exit' |
	timeout 60 "$TRY" --build "$BUILD" >"$TMP/out2" 2>"$TMP/err2"
rc=$?
[ $rc -eq 0 ] && grep -qx 'prompt (schedfreqd-try) # ' "$TMP/out2" &&
	ok "shell on stdin: 'schedfreqctl status; exit' ran in a shell with the try prompt; exit 0" ||
	fail "shell on stdin: 'schedfreqctl status; exit' ran in a shell with the try prompt; exit 0" "exit $rc" \
		"$(cat "$TMP/out2" "$TMP/err2")"
check_status "shell on stdin" "$TMP/out2"
banner=$(sed -n '/^schedfreqd-try: /,/^.exit. (or Ctrl-D) ends it/p' "$TMP/err2")
if [ "$(wc -l <<<"$banner")" -le 10 ] && [ -z "$(awk 'length($0) > 80' <<<"$banner")" ] &&
	grep -q "^Daemon log: /tmp/schedfreqd-try\.[^/]*/schedfreqd.log" <<<"$banner" &&
	grep -q 'schedfreqctl status, schedfreqctl watch ' <<<"$banner" && grep -q '^  explain 1' <<<"$banner"; then
	ok "shell on stdin: a banner of <= 10 lines of <= 80 columns (what runs, the daemon log, commands to try, how to end) on stderr"
else
	fail "shell on stdin: a banner of <= 10 lines of <= 80 columns (what runs, the daemon log, commands to try, how to end) on stderr" "$(cat "$TMP/err2")"
fi
check_gone "shell on stdin" "$TMP/out2" "$TMP/err2"

# --- 3. the interactive shell on a terminal ------------------------------------------------------------------
# python3's pty (the helper must not be named pty.py: it would import itself): the script's stdin is a terminal, so the shell is `bash -i` (its own process group, the
# terminal's foreground). Bounded: 30 s for the prompt and for the end.
cat >"$TMP/try-pty.py" <<'EOF_PY'
import os, pty, select, sys, time
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
out = b""
def until(pat, t=30):
    global out
    end = time.time() + t
    while time.time() < end and pat not in out:
        if select.select([fd], [], [], 0.1)[0]:
            try:
                d = os.read(fd, 4096)
            except OSError:
                break
            if not d:
                break
            out += d
    return pat in out
ok = until(b"(schedfreqd-try) # ")
if ok:
    os.write(fd, sys.stdin.read().encode())
    until(b"try: stopped the daemon")
_, st = os.waitpid(pid, 0)
sys.stdout.write(out.decode(errors="replace"))
sys.exit(os.waitstatus_to_exitcode(st) if ok else 99)
EOF_PY
printf '%s\n' "$SESSION_LINE" 'schedfreqctl status; exit' |
	timeout 60 python3 "$TMP/try-pty.py" "$TRY" --build "$BUILD" >"$TMP/out3" 2>&1
rc=$?
# The terminal's carriage returns and readline's escape sequences (bracketed paste) out.
sed -e 's/\r//g' -e 's/\x1b\[[?0-9;]*[a-zA-Z]//g' "$TMP/out3" >"$TMP/out3.txt"
[ $rc -eq 0 ] && grep -q '(schedfreqd-try) # schedfreqctl status; exit' "$TMP/out3.txt" &&
	ok "shell on a terminal: the prompt, 'schedfreqctl status; exit', exit 0" ||
	fail "shell on a terminal: the prompt, 'schedfreqctl status; exit', exit 0" "exit $rc" "$(cat "$TMP/out3.txt")"
check_status "shell on a terminal" "$TMP/out3.txt"
check_gone "shell on a terminal" "$TMP/out3.txt" "$TMP/out3.txt"

# --- 4. SIGTERM to the script mid-session ---------------------------------------------------------------------
"$TRY" --build "$BUILD" -- bash -c "$SESSION_LINE >'$TMP/out4.tmp' && mv '$TMP/out4.tmp' '$TMP/out4'; exec sleep 1000" \
	</dev/null >/dev/null 2>"$TMP/err4" &
TRY_PID=$!
if wait_for "[ -s '$TMP/out4' ]" 30; then
	t0=$(now_us)
	kill -TERM "$TRY_PID"
	wait_for '! kill -0 "$TRY_PID" 2>/dev/null' 20
	wait "$TRY_PID"
	rc=$?
	ms=$((($(now_us) - t0) / 1000))
	TRY_PID=
	[ $rc -eq 143 ] && grep -q '^try: got SIGTERM: ending the session$' "$TMP/err4" &&
		ok "SIGTERM mid-session: the session ends (exit 143, ${ms} ms)" ||
		fail "SIGTERM mid-session: the session ends (exit 143)" "exit $rc after ${ms} ms" "$(cat "$TMP/err4")"
	check_gone "SIGTERM mid-session" "$TMP/out4" "$TMP/err4"
else
	fail "SIGTERM mid-session: the session started" "$(cat "$TMP/err4")"
fi

# --- 5. a daemon that did not exit cleanly is reported, and fails a successful CMD -----------------------------
# SIGKILL: no restore. try says so, exits 125 instead of CMD's 0, and still leaves nothing behind.
timeout 60 "$TRY" --build "$BUILD" -- bash -c "$SESSION_LINE; kill -KILL \$SCHEDFREQD_TRY_DAEMON_PID" \
	</dev/null >"$TMP/out5" 2>"$TMP/err5"
rc=$?
# "had already exited", or "exit status" when try looked before the kill had taken effect (kill returns at once).
[ $rc -eq 125 ] && grep -Eq '^try: schedfreqd \(pid [0-9]+\) (had already exited \(status 137\)|exit status 137;)' "$TMP/err5" &&
	grep -q '^try: governors NOT restored: policy0 userspace, policy1 userspace (were: policy0 schedutil, policy1 schedutil)$' "$TMP/err5" &&
	ok "a SIGKILLed daemon: reported (status 137, governors left on userspace), exit 125" ||
	fail "a SIGKILLed daemon: reported (status 137, governors left on userspace), exit 125" "exit $rc" "$(cat "$TMP/out5" "$TMP/err5")"
dir=$(awk '/^session /{ print $5 }' "$TMP/out5")
[ -n "$dir" ] && [ ! -e "$dir" ] && [ -z "$(session_leftovers "$dir")" ] &&
	ok "a SIGKILLed daemon: nothing is left behind" ||
	fail "a SIGKILLed daemon: nothing is left behind" "dir '$dir'" "$(session_leftovers "$dir")"

finish
