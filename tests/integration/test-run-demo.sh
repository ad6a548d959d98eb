#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# `make run`'s demonstration (scripts/run-demo, issue 14 item 5) on the emulated cpufreq tree: the daemon's
# start-up log comes before its decisions, every timed line (log, decisions, the hog's markers) is in time order,
# the hog's start and stop frame policy1's rise to its maximum, and the end shows the governors put back. Before
# the fix the start-up log came last, and lines from separate pipes interleaved out of order.

. "$(dirname "$0")/lib.sh"

TMP=$(mktemp -d /tmp/schedfreqd-test-run-demo.XXXXXX)
at_exit 'rm -rf "$TMP"'

if ls /sys/devices/system/cpu/cpufreq/policy*/scaling_driver >/dev/null 2>&1; then
	fail "run-demo: this machine has cpufreq" "the demonstration would govern it for real: not run here"
	finish
fi

timeout 120 "$REPO/scripts/run-demo" "$BUILD" </dev/null >"$TMP/out" 2>&1
rc=$?
[ $rc -eq 0 ] && ok "run-demo: exits 0" || fail "run-demo: exits 0" "exit $rc" "$(cat "$TMP/out")"

# The daemon's log lines: "  schedfreqd: TEXT"; the timed lines (decisions, the hog's markers): "   +1.234s  TEXT".
running=$(grep -n '^  schedfreqd: schedfreqd .* running\.$' "$TMP/out" | head -1 | cut -d: -f1)
first_decision=$(grep -n ' kHz   (util ' "$TMP/out" | head -1 | cut -d: -f1)
first_log=$(grep -n '^  schedfreqd: ' "$TMP/out" | head -1 | cut -d: -f1)
if [ -n "$running" ] && [ -n "$first_decision" ] && [ "$first_log" -lt "$running" ] &&
	[ "$running" -lt "$first_decision" ]; then
	ok "run-demo: the daemon's start-up lines come before its first decision"
else
	fail "run-demo: the daemon's start-up lines come before its first decision" \
		"running at $running, first decision at $first_decision" "$(cat "$TMP/out")"
fi

grep -E '^ +[+-][0-9]+\.[0-9]{3}s  ' "$TMP/out" >"$TMP/timed"
unordered=$(awk '{ t = substr($1, 1, length($1) - 1) + 0; if (NR > 1 && t < last) print NR ": " $0; last = t }' "$TMP/timed")
[ -z "$unordered" ] && ok "run-demo: every timed line is in time order" \
	|| fail "run-demo: every timed line is in time order" "$unordered" "$(cat "$TMP/out")"

start=$(grep -n -- '--- hog starts on CPU 1 ---' "$TMP/timed" | cut -d: -f1)
stop=$(grep -n -- '--- hog stops ---' "$TMP/timed" | cut -d: -f1)
max_khz=$(sed -n 's/^cpuinfo_max_khz *= *//p' "$REPO/tests/fixtures/topology/two-policies.ini" | tail -1)
# The markers are in order, about 3 s apart, and while the hog runs policy1 is at its maximum: set by the last
# policy1 decision before the stop marker (on a busy machine it may be there before the hog starts, and stay
# there after it: what comes after the stop is not judged).
last_during=$([ -n "$stop" ] && sed -n "1,${stop}p" "$TMP/timed" | grep '  policy1 ' | tail -1)
span_ms=$([ -n "$start" ] && [ -n "$stop" ] && sed -n "${start}p;${stop}p" "$TMP/timed" |
	awk '{ t[NR] = substr($1, 1, length($1) - 1) } END { printf "%d", (t[2] - t[1]) * 1000 }')
if [ -n "$start" ] && [ -n "$stop" ] && [ "$start" -lt "$stop" ] && [ "$span_ms" -ge 2900 ] && [ "$span_ms" -le 3500 ] &&
	grep -Eq "  policy1 +$max_khz kHz" <<<"$last_during"; then
	ok "run-demo: the hog's markers in order, ${span_ms} ms apart; policy1 at its maximum ($max_khz kHz) until the stop"
else
	fail "run-demo: the hog's markers in order, 3 s apart; policy1 at its maximum ($max_khz kHz) until the stop" \
		"start at line ${start:-none}, stop at line ${stop:-none}, ${span_ms:-?} ms apart" "$(cat "$TMP/out")"
fi

after=$(sed -n '/^After (governors and limits restored):$/,$p' "$TMP/out")
grep -q '^  schedfreqd: cpufreq policies restored\.$' "$TMP/out" && [ -n "$after" ] && ! grep -q 'governor userspace' <<<"$after" \
	&& ok "run-demo: the daemon says it restored the policies, and no governor is left on userspace" \
	|| fail "run-demo: the daemon says it restored the policies, and no governor is left on userspace" "$(cat "$TMP/out")"

finish
