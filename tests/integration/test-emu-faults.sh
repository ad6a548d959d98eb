#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# asan: yes
#
# Fault injection in the cpufreq emulator (tests/emu/fault.h): rules written to the hidden control file
# /sys/devices/system/cpu/.emu-faults make chosen opens, reads and writes fail, seen through real clients
# (the shell, cat, cpupower) inside the emulator's namespace.
# Run as root by tests/run-tests (BUILD set); needs /dev/fuse, fusermount3, cpupower.
# shellcheck disable=SC2016 # single-quoted code runs inside the namespace, on purpose
set -u
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

FIX="$REPO/tests/fixtures/topology"
C=/sys/devices/system/cpu
CTL=$C/.emu-faults
P0=$C/cpufreq/policy0
P1=$C/cpufreq/policy1

# ---- small assertion helpers: one test = several checks, one ok/not ok line (as in test-emu.sh) ----

T_NAME=
T_ERRS=()
t_begin() { T_NAME=$1; T_ERRS=(); }
t_eq() { # ACTUAL EXPECTED [WHAT]
	[ "$1" = "$2" ] || T_ERRS+=("${3:-value}: got '$1', expected '$2'")
}
t_true() { # WHAT CMD...
	local what=$1 out
	shift
	out=$("$@" 2>&1) || T_ERRS+=("$what: '$*' failed: $out")
}
t_false() { # WHAT CMD...
	local what=$1
	shift
	! "$@" >/dev/null 2>&1 || T_ERRS+=("$what: '$*' unexpectedly succeeded")
}
t_match() { # TEXT REGEX [WHAT]
	grep -qE -- "$2" <<<"$1" || T_ERRS+=("${3:-text} does not match /$2/: $(head -c 400 <<<"$1")")
}
t_end() {
	if [ ${#T_ERRS[@]} -eq 0 ]; then ok "$T_NAME"; else fail "$T_NAME" "${T_ERRS[@]}" "rules: $(rules)"; fi
}

# ---- inside the emulator's namespace ----

# Shell write of VALUE with echo, as a user would; prints the shell's error, if any; status of the write.
sh_write() { # FILE VALUE
	emu_sh "echo '$2' > $1" 2>&1
}
faults() { # COMMANDS: one write to the control file
	sh_write "$CTL" "$1"
}
rules() { emu_exec cat "$CTL" 2>&1; }
# hits= of the rule on line N of the listing
hits_of() { rules | sed -n "${1}s/.* hits=\([0-9]*\).*/\1/p"; }
rd() { emu_exec cat "$1" 2>&1; }
# Lines of the write log after line MARK
log_since() { tail -n +"$(($1 + 1))" "$EMU_LOG"; }
log_lines() { wc -l <"$EMU_LOG"; }

# ---- preconditions ----

if [ "$(id -u)" -ne 0 ] || [ ! -c /dev/fuse ]; then
	fail emulator "needs root and /dev/fuse"
	finish
fi
if [ ! -x "$BUILD/cpufreq-emu" ]; then
	fail emulator-built "$BUILD/cpufreq-emu is missing (make $BUILD/cpufreq-emu)"
	finish
fi
TMP=$(mktemp -d /tmp/schedfreqd-test-emu-faults.XXXXXX)
at_exit 'rm -rf "$TMP"'

# The emulator's stderr (the reasons for refused commands) goes to a file of ours.
if ! emu_start "$FIX/two-policies.ini" 2>"$TMP/emu.err"; then
	fail emulator-started "$(cat "$TMP/emu.err")"
	finish
fi

# ==== the control file ====

t_begin control_file_hidden_but_resolvable
t_eq "$(emu_exec stat -c '%a %F %U' "$CTL" 2>&1)" "600 regular file root" "stat"
t_eq "$(rules)" "" "no rules at start"
listing=$(emu_exec ls -a "$C" 2>&1)
t_match "$listing" '^cpufreq$' "ls -a lists the tree"
grep -q 'emu-faults' <<<"$listing" && T_ERRS+=("ls -a lists .emu-faults: $listing")
t_eq "$(emu_exec find "$C" -maxdepth 1 -name '.emu*' 2>&1)" "" "find does not see it"
t_true "cpupower reads the tree" emu_exec cpupower -c 1 frequency-info
t_false "another user cannot read it" emu_exec setpriv --reuid=65534 --regid=65534 --clear-groups cat "$CTL"
t_false "another user cannot write it" emu_exec setpriv --reuid=65534 --regid=65534 --clear-groups \
	sh -c "echo clear > $CTL"
t_end

t_begin bad_command_refused
mark=$(log_lines)
t_eq "$(faults 'fail cpufreq/policy1/scaling_setspeed EBUSY count=1')" "" "a good rule"
out=$(faults 'fail cpufreq/policy1/scaling_setspeed EFOO')
t_match "$out" 'write error: Invalid argument' "unknown errno"
t_match "$(cat "$TMP/emu.err")" "\.emu-faults: write refused: line 1: 'EFOO': expected an errno" "emulator stderr"
# bash's echo flushes at each newline; cat writes a file of commands in one write(2).
printf 'clear\nfail cpufreq/policy0/scaling_governor EIO count=0\n' >"$TMP/commands"
t_match "$(emu_sh "cat '$TMP/commands' > $CTL" 2>&1)" 'write error: Invalid argument' "count=0"
t_match "$(cat "$TMP/emu.err")" "write refused: line 2: count=0" "emulator stderr names line 2"
t_match "$(faults 'frobnicate')" 'Invalid argument' "unknown command"
t_match "$(faults 'fail /sys/devices/system/cpu/cpufreq/policy1/scaling_setspeed EBUSY')" 'Invalid argument' \
	"absolute path"
t_match "$(faults 'fail cpufreq/policy1/scaling_setspeed EBUSY prob=2')" 'Invalid argument' "prob=2"
# All or nothing: the clear on line 1 of the refused write did not happen.
t_eq "$(rules | wc -l)" 1 "rules after refused writes"
t_match "$(rules)" '^fail cpufreq/policy1/scaling_setspeed EBUSY op=write after=0 count=1 prob=1 seed=1 seen=0 hits=0$'
t_eq "$(log_since "$mark")" "" "control writes stay out of the write log"
t_eq "$(faults clear)" "" "clear"
t_eq "$(rules)" "" "no rules after clear"
printf '# two rules in one write\nfail cpufreq/policy0/scaling_min_freq EIO\n\nfail cpu1/online EBUSY\n' >"$TMP/commands"
t_eq "$(emu_sh "cat '$TMP/commands' > $CTL" 2>&1)" "" "several lines in one write"
t_eq "$(rules | cut -d' ' -f1-3 | tr '\n' ,)" "fail cpufreq/policy0/scaling_min_freq EIO,fail cpu1/online EBUSY," "rules"
t_eq "$(faults clear)" "" "clear"
t_end

# ==== write faults ====

t_begin setspeed_ebusy_count_then_success
t_true "cpupower -g userspace" emu_exec cpupower -c 1 frequency-set -g userspace
t_eq "$(rd $P1/scaling_governor)" userspace "governor"
before=$(rd $P1/scaling_cur_freq)
t_eq "$(faults 'fail cpufreq/policy1/scaling_setspeed EBUSY count=2')" "" "install"
mark=$(log_lines)
for i in 1 2; do
	t_match "$(sh_write $P1/scaling_setspeed 1200000)" 'write error: Device or resource busy' "write $i"
	t_eq "$(rd $P1/scaling_cur_freq)" "$before" "value not applied after write $i"
done
t_eq "$(sh_write $P1/scaling_setspeed 1200000)" "" "write 3 succeeds"
t_eq "$(rd $P1/scaling_cur_freq)" 1200000 "applied by write 3"
t_eq "$(sh_write $P1/scaling_setspeed 1600000)" "" "write 4 succeeds"
t_match "$(rules)" ' seen=2 hits=2 spent$' "listing: spent after 2 hits"
t_eq "$(hits_of 1)" 2 "hits"
t_eq "$(log_since "$mark" | awk '$2 == "cpufreq/policy1/scaling_setspeed" { print $3, $4, $5 }' | tr '\n' ,)" \
	"1200000 EBUSY injected,1200000 EBUSY injected,1200000 ok ,1600000 ok ," "write log"
# The existing parsers' view: $4 is the result, and " EBUSY$" (a kernel refusal) does not match.
t_eq "$(log_since "$mark" | grep -c ' EBUSY$')" 0 "an injected failure is not a kernel refusal"
t_eq "$(faults clear)" "" "clear"
t_end

t_begin governor_eio_fails_cpupower
t_eq "$(faults 'fail cpufreq/policy*/scaling_governor EIO')" "" "install (glob)"
mark=$(log_lines)
out=$(emu_exec cpupower -c 0 frequency-set -g performance 2>&1)
rc=$?
[ "$rc" -ne 0 ] || T_ERRS+=("cpupower frequency-set -g performance succeeded: $out")
t_eq "$(rd $P0/scaling_governor)" schedutil "governor unchanged"
t_match "$(log_since "$mark")" ' cpufreq/policy0/scaling_governor performance EIO injected$' "write log"
t_match "$(sh_write $P1/scaling_governor schedutil)" 'write error: Input/output error' "policy1 too (glob)"
t_eq "$(rd $P1/scaling_governor)" userspace "policy1 unchanged"
t_eq "$(hits_of 1)" 2 "hits"
t_eq "$(faults 'clear cpufreq/policy*/scaling_governor')" "" "clear PATH"
t_eq "$(rules)" "" "no rules"
t_true "cpupower -g performance after clear" emu_exec cpupower -c 0 frequency-set -g performance
t_eq "$(rd $P0/scaling_governor)" performance "governor changed"
t_end

t_begin after_lets_ops_through_first
t_eq "$(faults 'fail cpufreq/policy1/scaling_setspeed EAGAIN after=2 count=1')" "" "install"
t_eq "$(sh_write $P1/scaling_setspeed 800000)" "" "write 1"
t_eq "$(sh_write $P1/scaling_setspeed 1200000)" "" "write 2"
t_match "$(sh_write $P1/scaling_setspeed 2000000)" 'Resource temporarily unavailable' "write 3"
t_eq "$(sh_write $P1/scaling_setspeed 2400000)" "" "write 4"
t_eq "$(rd $P1/scaling_cur_freq)" 2400000 "cur"
t_eq "$(faults clear)" "" "clear"
t_end

# prob=0.5 seed=7 over 40 writes: the same failures, write by write, each time the rule is installed.
prob_run() {
	faults 'fail cpufreq/policy1/scaling_setspeed EAGAIN prob=0.5 seed=7' || return
	emu_sh 'for i in $(seq 40); do echo 1200000 2>/dev/null > '"$P1"'/scaling_setspeed && printf . || printf x; done'
	echo " $(hits_of 1)"
	faults clear
}

t_begin prob_with_seed_repeats
run1=$(prob_run)
run2=$(prob_run)
t_eq "$run1" "$run2" "two runs"
t_match "$run1" '^[.x]{40} [0-9]+$' "run shape"
fails=$(tr -cd x <<<"${run1% *}" | wc -c)
t_eq "${run1#* }" "$fails" "hits == failed writes"
[ "$fails" -ge 8 ] && [ "$fails" -le 32 ] || T_ERRS+=("$fails of 40 failed with prob=0.5")
t_end

# ==== read and open faults ====

t_begin read_fault_fails_cat
t_eq "$(faults 'fail cpufreq/policy0/scaling_cur_freq EIO op=read count=1')" "" "install"
mark=$(log_lines)
out=$(emu_exec cat $P0/scaling_cur_freq 2>&1)
rc=$?
[ "$rc" -ne 0 ] || T_ERRS+=("cat succeeded: $out")
t_match "$out" 'Input/output error' "cat's error"
t_match "$(rd $P0/scaling_cur_freq)" '^[0-9]+$' "the next cat"
t_match "$(rd $P1/scaling_cur_freq)" '^[0-9]+$' "another file"
t_eq "$(hits_of 1)" 1 "hits"
t_eq "$(log_since "$mark")" "" "reads are not in the write log"
t_eq "$(faults clear)" "" "clear"
t_end

t_begin open_fault_fails_open
t_eq "$(faults 'fail cpufreq/policy0/scaling_max_freq ENODEV op=open count=2')" "" "install"
mark=$(log_lines)
t_match "$(rd $P0/scaling_max_freq)" 'No such device' "open for reading"
t_match "$(sh_write $P0/scaling_max_freq 2000000)" 'No such device' "open for writing"
t_eq "$(rd $P0/scaling_max_freq)" 2400000 "third open: value unchanged"
t_match "$(log_since "$mark")" ' cpufreq/policy0/scaling_max_freq  ENODEV injected$' "the refused open for writing"
t_eq "$(faults clear)" "" "clear"
t_end

t_begin control_file_never_faulted
t_eq "$(faults 'fail * EIO op=open')" "" "install 'fail * EIO op=open'"
t_match "$(rules)" '^fail \* EIO op=open' "still readable"
t_eq "$(faults 'fail * EIO op=write')" "" "still writable"
t_eq "$(faults clear)" "" "clear"
t_eq "$(rules)" "" "no rules"
t_end

emu_stop
finish
