#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# `make install` / `make uninstall` with DESTDIR, for the distribution layout (PREFIX=/usr) and a local one
# (PREFIX=/usr/local): the exact file list and modes, an existing /etc/schedfreqd.conf never overwritten,
# uninstall leaving nothing but a modified config file. The man pages render without warnings.

. "$(dirname "$0")/lib.sh"

TMP=$(mktemp -d /tmp/schedfreqd-test-install.XXXXXX)
at_exit 'rm -rf "$TMP"'

mk() { make -C "$REPO" --no-print-directory BUILD="$BUILD" "$@" 2>&1; }
# "MODE PATH" of every file and symlink under DIR, sorted.
files() { (cd "$1" && find . \( -type f -o -type l \) -printf '%m %P\n' | sort -k2); }

unitdir_usr=$(pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null)
unitdir_usr=${unitdir_usr:-/lib/systemd/system}
ctl=$([ -e "$REPO/daemon/schedfreqctl/main.c" ] && echo 1)
completion=$([ -n "$ctl" ] && [ -e "$REPO/shell-completion/bash/schedfreqctl" ] && echo 1)

expected() { # PREFIX UNITDIR DBUSDIR
	{
		echo "755 ${1#/}/sbin/schedfreqd"
		[ -n "$ctl" ] && echo "755 ${1#/}/bin/schedfreqctl"
		echo "644 ${2#/}/schedfreqd.service"
		for f in "$REPO"/systemd/*.conf; do [ -e "$f" ] && echo "644 ${3#/}/${f##*/}"; done
		echo "644 ${1#/}/share/man/man8/schedfreqd.8"
		echo "644 ${1#/}/share/man/man5/schedfreqd.conf.5"
		[ -n "$ctl" ] && echo "644 ${1#/}/share/man/man1/schedfreqctl.1"
		[ -n "$completion" ] && echo "644 ${1#/}/share/bash-completion/completions/schedfreqctl"
		echo "644 ${1#/}/share/bash-completion/completions/schedfreqd"
		echo "644 etc/schedfreqd.conf"
	} | sort -k2
}

# --- the man pages: render without a warning; schedfreqd.conf(5) documents every key of conf/schedfreqd.conf --
for page in "$REPO"/docs/man/*.[158]; do
	out=$(MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
	[ -z "$out" ] && ok "man ${page##*/}: renders without warnings" || fail "man ${page##*/}: renders without warnings" "$out"
done
undocumented=
for key in $(sed -n 's/^#\([a-z_]*\) *=.*/\1/p' "$REPO/conf/schedfreqd.conf" | sort -u); do
	grep -q "^\.BR ${key//_/_} \" = \"" "$REPO/docs/man/schedfreqd.conf.5" || undocumented="$undocumented $key"
done
[ -z "$undocumented" ] && ok "schedfreqd.conf(5) documents every key of conf/schedfreqd.conf" \
	|| fail "schedfreqd.conf(5) documents every key of conf/schedfreqd.conf" "missing:$undocumented"

for prefix in /usr /usr/local; do
	dest="$TMP/root$prefix"
	if [ "$prefix" = /usr ]; then
		unitdir=$unitdir_usr dbusdir=/usr/share/dbus-1/system.d
	else
		unitdir=/usr/local/lib/systemd/system dbusdir=/etc/dbus-1/system.d
	fi

	out=$(mk DESTDIR="$dest" PREFIX="$prefix" install) || { fail "PREFIX=$prefix: make install" "$out"; continue; }
	got=$(files "$dest")
	want=$(expected "$prefix" "$unitdir" "$dbusdir")
	[ "$got" = "$want" ] && ok "PREFIX=$prefix: installed files and modes" \
		|| fail "PREFIX=$prefix: installed files and modes" "$(diff <(echo "$want") <(echo "$got"))"

	cmp -s "$REPO/conf/schedfreqd.conf" "$dest/etc/schedfreqd.conf" && ok "PREFIX=$prefix: /etc/schedfreqd.conf is the documented default" \
		|| fail "PREFIX=$prefix: /etc/schedfreqd.conf is the documented default"
	grep -qx "ExecStart=$prefix/sbin/schedfreqd" "$dest$unitdir/schedfreqd.service" \
		&& ok "PREFIX=$prefix: the unit runs $prefix/sbin/schedfreqd" \
		|| fail "PREFIX=$prefix: the unit runs $prefix/sbin/schedfreqd" "$(grep '^Exec' "$dest$unitdir/schedfreqd.service")"

	# The installed binary is the built one and runs.
	"$dest$prefix/sbin/schedfreqd" --version | grep -q '^schedfreqd ' && ok "PREFIX=$prefix: installed schedfreqd runs" \
		|| fail "PREFIX=$prefix: installed schedfreqd runs"

	# A second install over a changed config keeps it.
	echo "# local change" >>"$dest/etc/schedfreqd.conf"
	changed=$(cat "$dest/etc/schedfreqd.conf")
	out=$(mk DESTDIR="$dest" PREFIX="$prefix" install)
	[ "$(cat "$dest/etc/schedfreqd.conf")" = "$changed" ] && grep -q "keeping existing" <<<"$out" \
		&& ok "PREFIX=$prefix: reinstall keeps an existing /etc/schedfreqd.conf" \
		|| fail "PREFIX=$prefix: reinstall keeps an existing /etc/schedfreqd.conf" "$out"

	# Uninstall: only the modified config is left.
	out=$(mk DESTDIR="$dest" PREFIX="$prefix" uninstall) || fail "PREFIX=$prefix: make uninstall" "$out"
	left=$(files "$dest")
	[ "$left" = "644 etc/schedfreqd.conf" ] && [ "$(cat "$dest/etc/schedfreqd.conf")" = "$changed" ] \
		&& ok "PREFIX=$prefix: uninstall leaves only the modified config" \
		|| fail "PREFIX=$prefix: uninstall leaves only the modified config" "$left"

	# With an unmodified config, uninstall leaves nothing.
	out=$(mk DESTDIR="$dest.2" PREFIX="$prefix" install) && out=$(mk DESTDIR="$dest.2" PREFIX="$prefix" uninstall)
	left=$(files "$dest.2")
	[ -z "$left" ] && ok "PREFIX=$prefix: install + uninstall leaves no file" \
		|| fail "PREFIX=$prefix: install + uninstall leaves no file" "$left" "$out"
done

finish
