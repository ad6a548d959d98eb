# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# A private, system-like dbus-daemon for the D-Bus tests (platform.md), sourced after tests/integration/lib.sh.
#   dbus_start DIR [EXTRA_POLICY.conf...]  starts it with its socket and config in DIR (made world-traversable so
#                                          that other uids can connect), the project's policy file and the extra
#                                          ones in its <includedir>; sets DBUS_PID and DBUS_ADDRESS and exports
#                                          DBUS_SYSTEM_BUS_ADDRESS. Stopped at exit (by PID).
#   dbus_stop                              stops it now.
# Also the daemon's bus name and manager object (docs/dbus.md), for every D-Bus test: NAME, OBJ.

NAME=io.github.schedfreqd.Governor1
OBJ=/io/github/schedfreqd/Governor1
DBUS_PID=
DBUS_ADDRESS=

dbus_start() { # DIR [EXTRA_POLICY...]
	local dir=$1 out
	shift
	mkdir -p "$dir/system.d" || return 1
	chmod 755 "$dir" "$(dirname "$dir")"
	cp "$REPO/systemd/io.github.schedfreqd.Governor1.conf" "$dir/system.d/" || return 1
	[ $# -gt 0 ] && { cp "$@" "$dir/system.d/" || return 1; }
	sed "s|@DIR@|$dir|g" "$REPO/tests/dbus/system-bus.conf.in" >"$dir/bus.conf"
	out=$(dbus-daemon --config-file="$dir/bus.conf" --fork --print-address=1 --print-pid=1) || return 1
	DBUS_ADDRESS=$(sed -n 1p <<<"$out")
	DBUS_PID=$(sed -n 2p <<<"$out")
	[ -n "$DBUS_ADDRESS" ] && [ -n "$DBUS_PID" ] || return 1
	export DBUS_SYSTEM_BUS_ADDRESS="$DBUS_ADDRESS"
	at_exit 'dbus_stop'
}

dbus_stop() {
	[ -n "$DBUS_PID" ] || return 0
	kill -TERM "$DBUS_PID" 2>/dev/null
	wait_for '! kill -0 "$DBUS_PID" 2>/dev/null' 5 || kill -KILL "$DBUS_PID" 2>/dev/null
	DBUS_PID=
	unset DBUS_SYSTEM_BUS_ADDRESS
}

# The name is on the bus (the daemon registers it after take-over).
dbus_has_name() {
	busctl --system --no-pager list --no-legend 2>/dev/null | grep -q '^io\.github\.schedfreqd\.Governor1 '
}
