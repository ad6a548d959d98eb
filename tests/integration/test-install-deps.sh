#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# scripts/install-deps (issue 14 item 5) summarises apt: one line naming what it installs, one "done (N
# packages, T s)"; apt-get runs with -qq and DEBIAN_FRONTEND=noninteractive and its chatter stays in a log,
# whose tail is shown when it fails. Run against stand-ins for dpkg-query and apt-get first in PATH: nothing is
# installed and apt's lists are not touched.

. "$(dirname "$0")/lib.sh"

TMP=$(mktemp -d /tmp/schedfreqd-test-install-deps.XXXXXX)
at_exit 'rm -rf "$TMP"'
mkdir "$TMP/bin"

# dpkg-query: every package is installed but jq until apt-get install ran; the installed count grows by 3 then.
cat >"$TMP/bin/dpkg-query" <<'EOF'
#!/bin/bash
pkg=${!#}
if [ "$pkg" = '-f=${Status}\n' ] || [ "$pkg" = '${Status}\n' ]; then # the whole list (installed_count)
	n=$((100 + $(cat "$FAKE_DIR/installed" 2>/dev/null || echo 0)))
	for ((i = 0; i < n; i++)); do echo "install ok installed"; done
	exit 0
fi
[ "$pkg" = jq ] && [ ! -e "$FAKE_DIR/installed" ] && exit 1
printf 'install ok installed'
EOF
# apt-get: records its arguments and environment, talks a lot, fails when FAKE_FAIL names the step.
cat >"$TMP/bin/apt-get" <<'EOF'
#!/bin/bash
echo "$* DEBIAN_FRONTEND=${DEBIAN_FRONTEND:-}" >>"$FAKE_DIR/calls"
for ((i = 1; i <= 60; i++)); do echo "apt chatter line $i of $1"; done
if [ "${FAKE_FAIL:-}" = "$1" ]; then
	echo "E: Unable to locate package jq (injected)"
	exit 100
fi
[ "$1" = install ] && echo 3 >"$FAKE_DIR/installed"
exit 0
EOF
chmod 755 "$TMP/bin/dpkg-query" "$TMP/bin/apt-get"

run_deps() { # DIR [FAKE_FAIL]: stdout to DIR/out, stderr to DIR/err; returns the script's status
	mkdir -p "$1"
	FAKE_DIR="$1" FAKE_FAIL="${2:-}" PATH="$TMP/bin:$PATH" sh "$REPO/scripts/install-deps" >"$1/out" 2>"$1/err"
}

# --- success: two lines, apt quiet and non-interactive --------------------------------------------------------
run_deps "$TMP/ok"
rc=$?
out=$(cat "$TMP/ok/out" "$TMP/ok/err")
if [ $rc -eq 0 ] && [ "$(wc -l <"$TMP/ok/out")" -eq 2 ] && [ ! -s "$TMP/ok/err" ] &&
	grep -qx 'schedfreqd: installing 1 missing dependencies (apt-get update, install): jq' "$TMP/ok/out" &&
	grep -qx 'schedfreqd: done (3 packages, [0-9]* s)' "$TMP/ok/out"; then
	ok "install-deps: one line naming the packages, one 'done (N packages, T s)', nothing of apt's"
else
	fail "install-deps: one line naming the packages, one 'done (N packages, T s)', nothing of apt's" "exit $rc" "$out"
fi
calls=$(cat "$TMP/ok/calls")
if grep -qx 'update -qq DEBIAN_FRONTEND=noninteractive' <<<"$calls" &&
	grep -qx 'install -y -qq --no-install-recommends jq DEBIAN_FRONTEND=noninteractive' <<<"$calls"; then
	ok "install-deps: apt-get update and install run with -qq, DEBIAN_FRONTEND=noninteractive"
else
	fail "install-deps: apt-get update and install run with -qq, DEBIAN_FRONTEND=noninteractive" "$calls"
fi
[ -z "$(find /tmp -maxdepth 1 -name 'schedfreqd-apt.*' -newer "$TMP/bin/apt-get" 2>/dev/null)" ] \
	&& ok "install-deps: no log left behind after a success" \
	|| fail "install-deps: no log left behind after a success" "$(ls /tmp/schedfreqd-apt.*)"

# --- failure: the step, its status and the tail of apt's output -------------------------------------------------
run_deps "$TMP/bad" install
rc=$?
err=$(cat "$TMP/bad/err")
log=$(sed -n 's/.*(all of it in \(.*\)):$/\1/p' "$TMP/bad/err")
[ -n "$log" ] && at_exit "rm -f '$log'"
if [ $rc -eq 100 ] && grep -q '^schedfreqd: apt-get install failed (exit 100): apt-get install -y -qq' <<<"$err" &&
	grep -q '^  E: Unable to locate package jq (injected)$' <<<"$err" &&
	grep -q '^  apt chatter line 60 of install$' <<<"$err" && ! grep -q 'chatter line 1 of install$' <<<"$err" &&
	! grep -q "done" "$TMP/bad/out" && [ -s "$log" ]; then
	ok "install-deps: a failing apt-get install shows its status and the tail of its output, keeps the log"
else
	fail "install-deps: a failing apt-get install shows its status and the tail of its output, keeps the log" \
		"exit $rc" "$(cat "$TMP/bad/out")" "$err"
fi

finish
