#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The unit file as `make install` writes it:
#   - `systemd-analyze verify` prints nothing at all (it exits 0 on unknown keys and parse errors, so any
#     output is a failure), with the installed binary and man pages where the unit says they are;
#   - `systemd-analyze security --offline=true` exposure <= 3.0 (README.md states the number);
#   - the system calls the daemon needs stay allowed by SystemCallFilter=;
#   - ExecStart=/ExecStopPost= follow the install prefix.

. "$(dirname "$0")/lib.sh"

TMP=$(mktemp -d /tmp/schedfreqd-test-unit.XXXXXX)
at_exit 'rm -rf "$TMP"'
MAX_EXPOSURE=3.0

for prefix in /usr /usr/local; do
	out=$(make -C "$REPO" --no-print-directory BUILD="$BUILD" DESTDIR="$TMP$prefix-root" PREFIX="$prefix" install 2>&1) \
		|| { fail "make install PREFIX=$prefix" "$out"; finish; }
done
unit_usr="$TMP/usr-root/lib/systemd/system/schedfreqd.service"
[ "$(pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null)" = /usr/lib/systemd/system ] &&
	unit_usr="$TMP/usr-root/usr/lib/systemd/system/schedfreqd.service"
unit_local="$TMP/usr/local-root/usr/local/lib/systemd/system/schedfreqd.service"

# --- the install prefix reaches the unit --------------------------------------------------------------
if grep -qx 'ExecStart=/usr/sbin/schedfreqd' "$unit_usr" && grep -qx 'ExecStopPost=/usr/sbin/schedfreqd restore' "$unit_usr" &&
	grep -qx 'ExecStart=/usr/local/sbin/schedfreqd' "$unit_local" &&
	grep -qx 'ExecStopPost=/usr/local/sbin/schedfreqd restore' "$unit_local" && ! grep -q @SBINDIR@ "$unit_usr"; then
	ok "ExecStart=/ExecStopPost= follow PREFIX (/usr, /usr/local)"
else
	fail "ExecStart=/ExecStopPost= follow PREFIX (/usr, /usr/local)" "$(grep -h '^Exec' "$unit_usr" "$unit_local")"
fi

# --- systemd-analyze verify: not a single line of output -------------------------------------------------
# verify checks that the programs and man pages the unit names exist: point them at the install tree.
root="$TMP/usr-root"
sed -e "s|=/usr/sbin/|=$root/usr/sbin/|" "$unit_usr" >"$TMP/schedfreqd.service"
out=$(cd "$TMP" && MANPATH="$root/usr/share/man" systemd-analyze verify "$TMP/schedfreqd.service" 2>&1)
rc=$?
if [ $rc -eq 0 ] && [ -z "$out" ]; then
	ok "systemd-analyze verify prints nothing"
else
	fail "systemd-analyze verify prints nothing" "rc=$rc" "$out"
fi

# --- exposure ------------------------------------------------------------------------------------------
out=$(systemd-analyze security --offline=true --no-pager "$TMP/schedfreqd.service" 2>&1)
score=$(sed -n 's/.*Overall exposure level for schedfreqd.service: \([0-9.]*\).*/\1/p' <<<"$out")
if [ -n "$score" ] && awk -v s="$score" -v m="$MAX_EXPOSURE" 'BEGIN { exit !(s <= m) }'; then
	ok "systemd-analyze security: exposure $score <= $MAX_EXPOSURE"
else
	fail "systemd-analyze security: exposure ${score:-?} <= $MAX_EXPOSURE" "$(grep '✗' <<<"$out")"
fi
readme_score=$(sed -n 's/.*exposure level[^0-9]*\([0-9]\.[0-9]\).*/\1/p' "$REPO/README.md" | head -n1)
[ "$readme_score" = "$score" ] && ok "README.md states the exposure ($score)" \
	|| fail "README.md states the exposure ($score)" "README says '${readme_score:-nothing}'"

# --- the system call filter lets through what the daemon needs --------------------------------------------
# Resolve the unit's SystemCallFilter= lines with systemd-analyze's group lists: allow-list first, then ~deny.
expand() { # GROUP-OR-SYSCALL...
	local x
	for x in "$@"; do
		case $x in
		@*) systemd-analyze syscall-filter --no-pager "$x" | sed -n 's/^    \([a-z0-9_@-]*\)$/\1/p' | while read -r y; do expand "$y"; done ;;
		*) echo "$x" ;;
		esac
	done
}
allowed=$(expand $(sed -n 's/^SystemCallFilter=\([^~].*\)/\1/p' "$unit_usr") | sort -u)
denied=$(expand $(sed -n 's/^SystemCallFilter=~\(.*\)/\1/p' "$unit_usr") | sort -u)
missing=
for sc in perf_event_open ioctl mmap munmap sched_setscheduler sched_getscheduler sched_getparam socket bind \
	sendmsg recvmsg epoll_wait signalfd4 timerfd_settime pwrite64 openat renameat fsync getrandom; do
	grep -qx "$sc" <<<"$allowed" && ! grep -qx "$sc" <<<"$denied" || missing="$missing $sc"
done
[ -z "$missing" ] && ok "SystemCallFilter= allows perf_event_open, sched_setscheduler, ..." \
	|| fail "SystemCallFilter= allows what the daemon needs" "filtered out:$missing"
grep -qx mount <<<"$allowed" && ! grep -qx mount <<<"$denied" && fail "SystemCallFilter= denies mount(2)" || ok "SystemCallFilter= denies mount(2)"

finish
