#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The Makefile's quiet output (issue 14 item 5): `make` prints one short line per step ("  CC      daemon/shared/log.o",
# "  LD      BUILD/schedfreqd"), `make V=1` the full command lines, `make -s` nothing; a failing command is
# printed in full after the compiler's own error, so a quiet CI log still shows what failed. Builds in its own
# temporary build directories: one real object, and a whole link with a stand-in compiler that only creates
# its output (no real compile needed to see the LD line).

. "$(dirname "$0")/lib.sh"

TMP=$(mktemp -d /tmp/schedfreqd-test-make-output.XXXXXX)
at_exit 'rm -rf "$TMP"'

# Not what `make check V=1` or `make -s check` passed down (MAKEFLAGS), nor V or CC from the environment.
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u V -u CC make -C "$REPO" --no-print-directory "$@" 2>&1; }
B="$TMP/b"
obj="$B/daemon/shared/log.o"

# --- V=0 (the default): one short line, no command line -----------------------------------------------------
out=$(mk BUILD="$B" "$obj")
rc=$?
if [ $rc -eq 0 ] && grep -qx '  CC      daemon/shared/log.o' <<<"$out" && ! grep -q -- 'cc -I\|-Iinclude' <<<"$out"; then
	ok "make: '  CC      daemon/shared/log.o', no compiler command line"
else
	fail "make: '  CC      daemon/shared/log.o', no compiler command line" "exit $rc" "$out"
fi
[ -s "$obj" ] && [ -s "${obj%.o}.d" ] && ok "make: the object and its dependency file are written" \
	|| fail "make: the object and its dependency file are written" "$(ls -l "$B/daemon" 2>&1)"

# Up to date: nothing to say.
out=$(mk BUILD="$B" "$obj")
! grep -q '  CC ' <<<"$out" && ok "make: an up-to-date object prints no CC line" \
	|| fail "make: an up-to-date object prints no CC line" "$out"

# --- V=1: the full command, no short line ---------------------------------------------------------------------
out=$(mk BUILD="$B" V=1 -B "$obj")
rc=$?
if [ $rc -eq 0 ] && grep -q -- "^cc -Iinclude .* -c -o $obj daemon/shared/log.c\$" <<<"$out" && ! grep -q '  CC ' <<<"$out"; then
	ok "make V=1: the full compiler command line, no short line"
else
	fail "make V=1: the full compiler command line, no short line" "exit $rc" "$out"
fi

# --- make -s: silent ------------------------------------------------------------------------------------------
out=$(mk BUILD="$B" -s -B "$obj")
rc=$?
[ $rc -eq 0 ] && [ -z "$out" ] && ok "make -s: prints nothing" || fail "make -s: prints nothing" "exit $rc" "$out"

# --- a failing compile: its error, then the full command that failed -----------------------------------------
cat >"$TMP/bad-cc" <<'EOF'
#!/bin/sh
echo "daemon/shared/log.c:1:1: error: injected by test-make-output" >&2
exit 1
EOF
chmod 755 "$TMP/bad-cc"
out=$(mk BUILD="$B" CC="$TMP/bad-cc" -B "$obj")
rc=$?
if [ $rc -ne 0 ] && grep -q 'error: injected by test-make-output' <<<"$out" &&
	grep -q -- "^make: failed (exit 1): $TMP/bad-cc -Iinclude .* -c -o $obj daemon/shared/log.c\$" <<<"$out"; then
	ok "make: a failing compile shows the compiler's error and the full command"
else
	fail "make: a failing compile shows the compiler's error and the full command" "exit $rc" "$out"
fi

# --- linking: LD with the program's path (a stand-in compiler: creates -o's file, nothing else) ----------------
cat >"$TMP/touch-cc" <<'EOF'
#!/bin/sh
while [ $# -gt 0 ]; do
	[ "$1" = -o ] && { : >"$2"; exit 0; }
	shift
done
exit 1
EOF
chmod 755 "$TMP/touch-cc"
out=$(mk BUILD="$TMP/c" CC="$TMP/touch-cc" -j2 "$TMP/c/schedfreqd")
rc=$?
if [ $rc -eq 0 ] && grep -qx "  LD      $TMP/c/schedfreqd" <<<"$out" && grep -qx '  CC      daemon/governor/engine.o' <<<"$out" &&
	! grep -q -- '-Iinclude\|touch-cc' <<<"$out"; then
	ok "make: '  CC      daemon/governor/engine.o' ... '  LD      BUILD/schedfreqd', no command lines"
else
	fail "make: '  CC      daemon/governor/engine.o' ... '  LD      BUILD/schedfreqd', no command lines" "exit $rc" "$out"
fi

finish
