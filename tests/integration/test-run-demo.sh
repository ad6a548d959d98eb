#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# `make run`'s demonstration (scripts/run-demo, issue 24 items 1-2) on this machine without cpufreq: the article's
# case in two rounds over emulated per-CPU policies that differ only in their driver. Round 1 (cpufreq-dt,
# remote changes permitted): every wake-up of the heavy task by CPU 0 at a low policy1 is told as a raise at
# once from CPU 0 (remote), and the decision stream says kind=remote cpu=0. Round 2 (acpi-cpufreq): as could
# not be changed from CPU 0 and raised at CPU 1's next update (deferred), and the stream has no remote decision
# for policy1 but a deferred= one per told wake-up. In the same run, the median wake-up → raise of round 2 is
# later than round 1's (the change waited for CPU 1's next update). The table's counts are those of the decision
# streams; the terminal gets <= 60 lines of <= 80 columns, in order; the plot is a PNG; the governors and
# limits are back after each round; the event source is the one this run asked for (the default: auto).

. "$(dirname "$0")/lib.sh"

TMP=$(mktemp -d /tmp/schedfreqd-test-run-demo.XXXXXX)
at_exit 'rm -rf "$TMP"'
DEMO="$BUILD/demo"

if ls /sys/devices/system/cpu/cpufreq/policy*/scaling_driver >/dev/null 2>&1; then
	fail "run-demo: this machine has cpufreq" "the demonstration would govern it for real: not run here"
	finish
fi

start=$SECONDS
# The whole command a new user types: the build (done already: one line, its output in BUILD/build.log), the demo.
timeout 120 env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -C "$REPO" BUILD="$BUILD" run \
	</dev/null >"$TMP/out" 2>&1
rc=$?
took=$((SECONDS - start))
[ $rc -eq 0 ] && ok "make run: exits 0 (in ${took} s)" || fail "make run: exits 0" "exit $rc" "$(cat "$TMP/out")"
[ $took -le 60 ] && ok "run-demo: ends by itself within 60 s" || fail "run-demo: ends by itself within 60 s" "took $took s"

lines=$(wc -l <"$TMP/out")
wide=$(awk 'length($0) > 80 { print NR ": " length($0) " columns" }' "$TMP/out")
[ "$lines" -le 60 ] && [ -z "$wide" ] && ok "run-demo: $lines lines, none over 80 columns" \
	|| fail "run-demo: <= 60 lines, none over 80 columns" "$lines lines" "$wide" "$(cat "$TMP/out")"

# The sections, in this order.
order=$(for pat in '^Building \(make all; its output: .*build\.log\) \.\.\. done\.$' '^The case: ' '^Round 1: cpufreq-dt ' '^Round 2: acpi-cpufreq ' '^Event source: ' \
	' cpufreq-dt +acpi-cpufreq$' '^Governors and limits restored after each round' '^Plot: '; do
	grep -n -m1 -E -- "$pat" "$TMP/out" | cut -d: -f1
done | tr '\n' ' ')
sorted=$(tr ' ' '\n' <<<"$order" | grep . | sort -n | tr '\n' ' ')
[ "$(wc -w <<<"$order")" -eq 8 ] && [ "$order" = "$sorted" ] && ok "run-demo: the sections come in order" \
	|| fail "run-demo: the sections come in order" "at lines: $order" "$(cat "$TMP/out")"

round1=$(sed -n '/^Round 1: /,/^Round 2: /p' "$TMP/out")
round2=$(sed -n '/^Round 2: /,/^Event source: /p' "$TMP/out")

# analyse()'s lines: "N COUNTS FROM KIND CPU TO WRITE_NS DEFERRED_NS"
told1=$(grep -c '^  [0-9]\. CPU 0 woke heavy onto CPU 1 ->' <<<"$round1")
remote1=$(grep -c 'raised at once from CPU 0 (remote),' <<<"$round1")
streams1=$(awk '$2 == 1 && $4 == "remote" && $5 == 0' "$DEMO/cpufreq-dt.wakeups" 2>/dev/null | wc -l)
if [ "$told1" -ge 2 ] && [ "$remote1" -eq "$told1" ] && [ "$streams1" -eq "$told1" ] && ! grep -q deferred <<<"$round1"; then
	ok "run-demo: cpufreq-dt: all $told1 wake-ups told raised at once from CPU 0 (remote), as the stream says"
else
	fail "run-demo: cpufreq-dt: every wake-up told raised at once from CPU 0 (remote), as the stream says" \
		"told $told1, remote $remote1, kind=remote cpu=0 in the stream $streams1" "$round1" \
		"$(cat "$DEMO/cpufreq-dt.wakeups" 2>/dev/null)"
fi

told2=$(grep -c '^  [0-9]\. CPU 0 woke heavy onto CPU 1 ->' <<<"$round2")
deferred2=$(grep -c "at CPU 1's next update (deferred: the change waited [0-9.]* ms)" <<<"$round2")
streams2=$(awk '$2 == 1 && $4 == "local" && $5 == 1 && $8 != "-"' "$DEMO/acpi-cpufreq.wakeups" 2>/dev/null | wc -l)
remote_p1=$(grep 'policy=1 ' "$DEMO/acpi-cpufreq.decisions" 2>/dev/null | grep -c 'kind=remote')
if [ "$told2" -ge 2 ] && [ "$deferred2" -eq "$told2" ] && [ "$streams2" -eq "$told2" ] && [ "$remote_p1" -eq 0 ] &&
	[ "$(grep -c 'could not be changed from CPU 0' <<<"$round2")" -eq "$told2" ]; then
	ok "run-demo: acpi-cpufreq: all $told2 wake-ups told deferred to CPU 1's next update; no remote policy1 decision"
else
	fail "run-demo: acpi-cpufreq: every wake-up told deferred to CPU 1's next update; no remote policy1 decision" \
		"told $told2, deferred $deferred2, kind=local cpu=1 deferred= in the stream $streams2, remote $remote_p1" \
		"$round2" "$(cat "$DEMO/acpi-cpufreq.wakeups" 2>/dev/null)"
fi

# The table's rows against the streams (policy0's decisions and other wake-ups count too).
row() { # LABEL_REGEX COLUMN(1|2) -> the figure
	grep -E -m1 "^$1 " "$TMP/out" | awk -v c="$2" '{ print $(NF - 2 + c) }'
}
count() { # ROUND PATTERN
	grep -c -- "$2" "$DEMO/$1.decisions" 2>/dev/null
}
table_ok=1
for r in 1 2; do
	name=$([ $r = 1 ] && echo cpufreq-dt || echo acpi-cpufreq)
	[ "$(row '  local \(the CPU.s own event\)' $r)" = "$(count $name kind=local)" ] || table_ok=0
	[ "$(row '  remote \(CPU 0 for policy1\)' $r)" = "$(count $name kind=remote)" ] || table_ok=0
	[ "$(row '  deferred \(of the local ones\)' $r)" = "$(count $name ' deferred=')" ] || table_ok=0
done
[ "$(row '  remote \(CPU 0 for policy1\)' 2)" = 0 ] && [ "$(row '  deferred \(of the local ones\)' 2)" -ge "$told2" ] || table_ok=0
[ $table_ok = 1 ] && ok "run-demo: the table's decision counts are the streams' (acpi-cpufreq: 0 remote)" \
	|| fail "run-demo: the table's decision counts are the streams'" "$(sed -n '/^Event source/,$p' "$TMP/out")"

p50_1=$(row 'wake-up -> raise p50, ms' 1)
p50_2=$(row 'wake-up -> raise p50, ms' 2)
if awk -v a="$p50_1" -v b="$p50_2" 'BEGIN { exit !(a + 0 > 0 && b + 0 > a + 0) }'; then
	ok "run-demo: wake-up -> raise p50 later when deferred ($p50_2 ms) than remote ($p50_1 ms)"
else
	fail "run-demo: wake-up -> raise p50 later when deferred than remote" "remote $p50_1 ms, deferred $p50_2 ms"
fi

expected=$(events_source)
grep -q "^Event source: $expected[;( ]" "$TMP/out" && ok "run-demo: says its event source ($expected)" \
	|| fail "run-demo: says its event source ($expected)" "$(grep -A1 '^Event source' "$TMP/out")"

restored=1
for name in cpufreq-dt acpi-cpufreq; do
	cmp -s "$DEMO/$name.before" "$DEMO/$name.after" && ! grep -q ' userspace ' "$DEMO/$name.after" || restored=0
	grep -q 'cpufreq policies restored\.$' "$DEMO/$name.log" || restored=0
done
[ $restored = 1 ] && grep -q '^Governors and limits restored after each round (checked)\.$' "$TMP/out" \
	&& ok "run-demo: governors and limits as before after each round, and the daemon says it restored them" \
	|| fail "run-demo: governors and limits as before after each round" \
		"$(head -n 5 "$DEMO"/*.before "$DEMO"/*.after 2>/dev/null)" "$(tail -n 3 "$DEMO"/*.log 2>/dev/null)"

png=$(sed -n 's/^Plot: //p' "$TMP/out")
case $png in /*) png_path=$png ;; *) png_path=$REPO/$png ;; esac
if [ -n "$png" ] && [ "$(head -c 4 "$png_path" 2>/dev/null | od -An -c | tr -d ' ')" = '211PNG' ] &&
	[ -s "$DEMO/cpufreq-dt.decisions" ] && [ -s "$DEMO/acpi-cpufreq.decisions" ]; then
	ok "run-demo: the plot ($png) is a PNG and the decision streams are kept"
else
	fail "run-demo: the plot is a PNG and the decision streams are kept" "plot: ${png:-not printed}" "$(ls -l "$DEMO")"
fi

finish
