#!/bin/bash
# asan: yes
# SPDX-License-Identifier: GPL-2.0-or-later
#
# `schedfreqd replay` end to end on real traces (issue 3): a `perf record -a` of the sched tracepoints made now,
# on CLOCK_MONOTONIC (-k), of a small workload (short processes, the hog on CPU 1 for 0.5 s, short processes),
# then `perf script` piped into `schedfreqd replay --kv --topology two-policies.ini -` (the key=value lines, which
# this test parses; the default table is test-replay.sh's):
#   - default (µs) and --ns timestamps: exit 0, at least one decision line in the documented format;
#   - policy1 rises to its maximum while the hog ran (a decision to max timed within the hog's own
#     CLOCK_MONOTONIC start/end);
#   - the µs and ns replays agree on the frequencies in force (each policy the same in both ≥ 90 % of the time);
#   - a copy of the trace with a line cut in half in the middle fails with "FILE:LINE: reason" naming that line,
#     and a non-zero exit;
#   - throughput: a large trace (2 s of `stress-ng --switch 2`) replays with exit 0; events/s printed as `# `;
#   - the perf.data itself (issue #25): `schedfreqd replay perf.data` prints byte for byte what `perf script --ns |
#     schedfreqd replay -` prints (decisions and summary, --kv and the table; for the large one too, but for its
#     lost-events warning, which perf script does not show), and its events/s; on a pipe the same as from its
#     file; a pipe-mode one (perf record -o -) too; compressed records (-z) are refused; a CPU outside the
#     topology is the text path's error at the same sample.
# tracefs is used where it is mounted; if it is not, perf runs in a private mount namespace that mounts it, so
# nothing is left mounted.

. "$(dirname "$0")/lib.sh"

SFD=$SCHEDFREQD
HOG="$BUILD/tests/helpers/hog"
TOPO="$REPO/tests/fixtures/topology/two-policies.ini"
MAX1=$(awk '/^\[policy1\]/ { p = 1; next } /^\[/ { p = 0 } p && $1 == "cpuinfo_max_khz" { print $3 }' "$TOPO")
# The frequency replay starts policy1 at (the topology's cur_khz, else its scaling maximum, engine.c), in force
# until its first decision: a hog whose whole run finds policy1 there already needs no decision at all.
INIT1=$(awk '/^\[policy1\]/ { p = 1; next } /^\[/ { p = 0 }
	p && $1 == "cur_khz" { cur = $3 } p && $1 == "scaling_max_khz" { smax = $3 } p && $1 == "cpuinfo_max_khz" { cmax = $3 }
	END { print cur ? cur : smax ? smax : cmax }' "$TOPO")
EVENTS='sched:sched_switch,sched:sched_wakeup,sched:sched_wakeup_new,sched:sched_migrate_task,sched:sched_process_exit'
TMP=$(mktemp -d /tmp/schedfreqd-test-perf-replay.XXXXXX)
at_exit 'rm -rf "$TMP"'

# perf record ARGS...: system-wide, on CLOCK_MONOTONIC (the clock of the hog's timestamps and of the daemon).
record() {
	if [ -d /sys/kernel/tracing/events/sched ]; then
		perf record -q -k CLOCK_MONOTONIC -e "$EVENTS" -a "$@"
	else
		unshare --mount --propagation private -- sh -c \
			'mount -t tracefs nodev /sys/kernel/tracing && exec perf record -q -k CLOCK_MONOTONIC -e "$0" -a "$@"' \
			"$EVENTS" "$@"
	fi
}

# replay TRACE_FILE OUT: perf script of TRACE_FILE (extra perf script args in PERF_SCRIPT_ARGS) piped into
# replay; returns 0 only if both ends of the pipe succeeded.
replay_pipe() { # PERF_DATA OUT [PERF SCRIPT ARGS...]
	local data=$1 out=$2
	shift 2
	perf script -i "$data" "$@" 2>"$out.perf-err" | "$SFD" replay --kv --topology "$TOPO" - >"$out" 2>"$out.err"
	local st=("${PIPESTATUS[@]}")
	[ "${st[0]}" -eq 0 ] && [ "${st[1]}" -eq 0 ]
}

# --- the small workload -----------------------------------------------------------------------------------
workload="for i in 1 2 3; do /bin/true; taskset -c 1 /bin/true; done
'$HOG' --cpu 1 --seconds 0.5 >'$TMP/hog'
for i in 1 2 3; do /bin/true; taskset -c 1 /bin/true; done"
if record -o "$TMP/small.data" -- bash -c "$workload" 2>"$TMP/record.err" && [ -s "$TMP/hog" ]; then
	ok "perf record -a -k CLOCK_MONOTONIC of the sched tracepoints around the hog"
else
	fail "perf record -a -k CLOCK_MONOTONIC of the sched tracepoints around the hog" "$(tail -n 20 "$TMP/record.err")"
	finish
fi
hog_start=$(awk '/^start/ { print $2 }' "$TMP/hog")
hog_end=$(awk '/^end/ { print $2 }' "$TMP/hog")

LINE_RE='^t=[0-9]+ policy=[0-9]+ freq=[0-9]+ cpu=[0-9]+ kind=(local|remote) util=[0-9]+'
for style in us ns; do
	args=()
	[ $style = ns ] && args=(--ns)
	perf script -i "$TMP/small.data" "${args[@]}" >"$TMP/small.$style.txt" 2>/dev/null
	if replay_pipe "$TMP/small.data" "$TMP/replay.$style" "${args[@]}"; then
		n=$(wc -l <"$TMP/replay.$style")
		bad=$(grep -Evc "$LINE_RE" "$TMP/replay.$style")
		if [ "$n" -ge 1 ] && [ "$bad" = 0 ]; then
			ok "perf script${args:+ ${args[*]}} | schedfreqd replay -: exit 0, $n decisions in the documented format"
		else
			fail "perf script${args:+ ${args[*]}} | schedfreqd replay -: decisions in the documented format" \
				"$n lines, $bad malformed" "$(head -n 20 "$TMP/replay.$style")"
		fi
	else
		fail "perf script${args:+ ${args[*]}} | schedfreqd replay -: exit 0" "$(cat "$TMP/replay.$style.err")" \
			"$(tail -n 5 "$TMP/replay.$style.perf-err")"
	fi

	# policy1 at its maximum with the hog's load: 100 ms into the hog's run and at its end, the frequency in
	# force (the last decision before that time) is the maximum. (The exec of the hog on CPU 1 may raise it
	# before the hog's start line, and an idle CPU keeps its frequency until an event, NOHZ: so "a decision to
	# max inside the run" is not what to ask; before policy1's first decision its initial frequency is in force.)
	at_max=$(awk -v s="$hog_start" -v e="$hog_end" -v max="$MAX1" -v cur="$INIT1" '
		{ for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] } }
		f["policy"] + 0 != 1 { next }
		f["t"] + 0 > s + 100000000 && !done1 { ok1 = (cur + 0 == max); done1 = 1 }
		f["t"] + 0 > e && !done2 { ok2 = (cur + 0 == max); done2 = 1 }
		{ cur = f["freq"] }
		END { if (!done1) ok1 = (cur + 0 == max); if (!done2) ok2 = (cur + 0 == max); print (ok1 && ok2) ? "yes" : "no" }' \
		"$TMP/replay.$style")
	if [ "$at_max" = yes ]; then
		ok "replay ($style): policy1 at $MAX1 kHz 100 ms into the hog's run and at its end"
	else
		fail "replay ($style): policy1 at $MAX1 kHz 100 ms into the hog's run and at its end" "hog $hog_start..$hog_end" \
			"$(grep 'policy=1 ' "$TMP/replay.$style" | tail -n 30)"
	fi
done

# --- the perf.data itself (issue #25): read directly, the same as perf script --ns of it ---------------------------
# The decisions (stdout) and the summary and warnings (stderr), byte for byte, for the key=value lines and for the
# default table; perf's own stderr aside.
for mode in --kv --table; do
	margs=()
	[ $mode = --kv ] && margs=(--kv)
	"$SFD" replay "${margs[@]}" --topology "$TOPO" "$TMP/small.data" >"$TMP/direct$mode" 2>"$TMP/direct$mode.err"
	rc=$?
	perf script --ns -i "$TMP/small.data" 2>/dev/null |
		"$SFD" replay "${margs[@]}" --topology "$TOPO" - >"$TMP/piped$mode" 2>"$TMP/piped$mode.err"
	if [ $rc -eq 0 ] && [ -s "$TMP/direct$mode" ] && cmp -s "$TMP/direct$mode" "$TMP/piped$mode" &&
		cmp -s "$TMP/direct$mode.err" "$TMP/piped$mode.err"; then
		ok "replay $mode perf.data: exit 0, the same $(wc -l <"$TMP/direct$mode") lines and summary as perf script --ns | replay -"
	else
		fail "replay $mode perf.data: the same output as perf script --ns | replay -" "rc=$rc" \
			"$(diff "$TMP/direct$mode" "$TMP/piped$mode" | head -n 10)" "$(diff "$TMP/direct$mode.err" "$TMP/piped$mode.err" | head -n 10)"
	fi
done
# On a pipe (read whole: a pipe cannot be sought), the same as from the file.
cat "$TMP/small.data" | "$SFD" replay --kv --topology "$TOPO" - >"$TMP/stdin.out" 2>"$TMP/stdin.err"
rc=$?
if [ $rc -eq 0 ] && cmp -s "$TMP/stdin.out" "$TMP/direct--kv" && cmp -s "$TMP/stdin.err" "$TMP/direct--kv.err"; then
	ok "a perf.data on a pipe: the same as from its file"
else
	fail "a perf.data on a pipe: the same as from its file" "rc=$rc" "$(head -n 5 "$TMP/stdin.err")"
fi
# Pipe mode (`perf record -o -`: attrs and formats as records in the stream), from a file and on a pipe: the same
# as its perf script --ns.
if record -o - -- sleep 0.2 >"$TMP/pipe.data" 2>"$TMP/record-pipe.err"; then
	perf script --ns -i "$TMP/pipe.data" 2>/dev/null | "$SFD" replay --kv --topology "$TOPO" - >"$TMP/pipe.want" 2>&1
	"$SFD" replay --kv --topology "$TOPO" "$TMP/pipe.data" >"$TMP/pipe.file" 2>&1
	rc1=$?
	cat "$TMP/pipe.data" | "$SFD" replay --kv --topology "$TOPO" - >"$TMP/pipe.stdin" 2>&1
	rc2=$?
	if [ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && [ -s "$TMP/pipe.want" ] && cmp -s "$TMP/pipe.file" "$TMP/pipe.want" &&
		cmp -s "$TMP/pipe.stdin" "$TMP/pipe.want"; then
		ok "a pipe-mode perf.data (perf record -o -), from its file and on a pipe: the same as its perf script --ns"
	else
		fail "a pipe-mode perf.data: the same as its perf script --ns" "rc=$rc1/$rc2" \
			"$(diff "$TMP/pipe.want" "$TMP/pipe.file" | head -n 5)" "$(diff "$TMP/pipe.want" "$TMP/pipe.stdin" | head -n 5)"
	fi
else
	fail "perf record -o - (pipe mode)" "$(tail -n 5 "$TMP/record-pipe.err")"
fi
# Compressed records (perf record -z, where perf has zstd): refused with the reason at once.
if record -z -o "$TMP/z.data" -- sleep 0.1 2>/dev/null; then
	out=$("$SFD" replay --kv --topology "$TOPO" "$TMP/z.data" 2>&1)
	rc=$?
	if [ $rc -ne 0 ] && [[ $out == *"z.data: header: compressed records (\`perf record -z\`)"* ]]; then
		ok "a perf.data of compressed records: refused, the reason named"
	else
		fail "a perf.data of compressed records: refused, the reason named" "rc=$rc" "$out"
	fi
fi
# A CPU the topology lacks: the error of the other formats, naming both (one CPU in a one-CPU topology).
printf '[policy0]\ncpus = 0\ndriver = acpi-cpufreq\ncpuinfo_min_khz = 800000\ncpuinfo_max_khz = 2400000\n' >"$TMP/one-cpu.ini"
printf 'scaling_min_khz = 800000\nscaling_max_khz = 2400000\n' >>"$TMP/one-cpu.ini"
out=$("$SFD" replay --kv --topology "$TMP/one-cpu.ini" "$TMP/small.data" 2>&1 >/dev/null)
rc=$?
want=$(perf script --ns -i "$TMP/small.data" 2>/dev/null | "$SFD" replay --kv --topology "$TMP/one-cpu.ini" - 2>&1 >/dev/null |
	sed -n 's/^<stdin>:\([0-9]*\): \(.*\)/sample \1: \2/p')
if [ $rc -ne 0 ] && [ -n "$want" ] && [[ $out == "$TMP/small.data:$want" ]]; then
	ok "perf.data with a CPU the topology lacks: '$out'"
else
	fail "perf.data with a CPU the topology lacks: the text path's error, at the same sample" "rc=$rc" "$out" "want: $want"
fi

# µs timestamps move every event by less than 1 µs, which can put it on the other side of a rate-limit or
# PELT-period boundary, and one decision moved can move the next few (a CI run: 7 of 33 lines, in four places).
# So what must agree is the frequency in force: over the trace, each policy at the same frequency in both
# replays at least 90 % of the time (a timestamp misread, µs taken for ns or a wrong epoch, leaves little).
# The line diff is printed beside it.
diff <(awk '{ print $2, $3 }' "$TMP/replay.us") <(awk '{ print $2, $3 }' "$TMP/replay.ns") >"$TMP/us-ns.diff"
n_ns=$(wc -l <"$TMP/replay.ns")
n_diff=$(grep -c '^[<>]' "$TMP/us-ns.diff")
# "t policy replay freq" from both, in time order; then the time both had the same frequency in force, per mille
# of the time from the first decision to the last, summed over the policies (before a policy's first decision
# in a replay, its initial frequency: the same in both).
agree=$(for r in us ns; do
	awk -v r="$r" '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] } print f["t"], f["policy"], r, f["freq"] }' \
		"$TMP/replay.$r"
done | sort -n -k1,1 | awk '
	{ for (p in seen) { if (cur["us", p] == cur["ns", p]) same += $1 - last; all += $1 - last }
	  seen[$2] = 1; cur[$3, $2] = $4; last = $1 }
	END { print (all > 0 ? int(1000 * same / all) : 1000) }')
if [ -s "$TMP/replay.us" ] && [ "$n_ns" -gt 0 ] && [ "$agree" -ge 900 ]; then
	ok "µs and ns traces: the same frequency in force $((agree / 10)).$((agree % 10)) % of the time ($n_diff of $n_ns lines differ)"
else
	fail "µs and ns traces: the same frequency in force at least 90 % of the time" \
		"$((agree / 10)).$((agree % 10)) %, $n_diff of $n_ns lines differ" "$(head -n 30 "$TMP/us-ns.diff")"
fi

# --- a line cut in half in the middle ------------------------------------------------------------------------
# The first sched_switch line at or after the middle of the trace loses its second half (its next_* fields).
for style in us ns; do
	src="$TMP/small.$style.txt"
	total=$(wc -l <"$src")
	cut_line=$(awk -v mid=$((total / 2)) 'NR >= mid && / sched:sched_switch: / { print NR; exit }' "$src")
	corrupt="$TMP/corrupt.$style.txt"
	awk -v n="$cut_line" 'NR == n { print substr($0, 1, int(length($0) / 2)); next } { print }' "$src" >"$corrupt"
	out=$("$SFD" replay --topology "$TOPO" "$corrupt" 2>&1 >/dev/null)
	rc=$?
	# The message line is "FILE:LINE: reason", from its first byte (no journald "<3>" prefix on a pipe).
	if [ -n "$cut_line" ] && [ $rc -ne 0 ] && awk -v p="$corrupt:$cut_line: " '
		index($0, p) == 1 && length($0) > length(p) { found = 1 } END { exit !found }' <<<"$out"; then
		ok "replay ($style) of a trace with line $cut_line of $total cut in half: 'FILE:$cut_line: reason', exit $rc"
		echo "# $(grep -F "$corrupt:$cut_line: " <<<"$out" | head -n 1)"
	else
		fail "replay ($style) of a trace with a line cut in half: FILE:LINE: reason, non-zero exit" \
			"line ${cut_line:-?} of $total, rc=$rc" "$out" "$(sed -n "${cut_line:-1}p" "$corrupt")"
	fi
done

# Under systemd, stderr is journald's stream ($JOURNAL_STREAM names its dev:ino): then, and only then, the
# lines carry the "<N>" priority journald reads.
: >"$TMP/journal-like"
JOURNAL_STREAM=$(stat -c '%d:%i' "$TMP/journal-like") "$SFD" replay --topology "$TOPO" "$corrupt" >/dev/null 2>>"$TMP/journal-like"
JOURNAL_STREAM=1:2 "$SFD" replay --topology "$TOPO" "$corrupt" >/dev/null 2>"$TMP/other-stream"
if grep -q "^<3>$corrupt:$cut_line: " "$TMP/journal-like" && grep -q "^$corrupt:$cut_line: " "$TMP/other-stream"; then
	ok "priority prefix only when stderr is the stream \$JOURNAL_STREAM names"
else
	fail "priority prefix only when stderr is the stream \$JOURNAL_STREAM names" "$(cat "$TMP/journal-like")" "$(cat "$TMP/other-stream")"
fi

# --- throughput on a large trace -----------------------------------------------------------------------------
if record -m 2048 -o "$TMP/big.data" -- stress-ng --switch 2 --timeout 2 -q 2>"$TMP/record-big.err"; then
	perf script -i "$TMP/big.data" --ns >"$TMP/big.txt" 2>/dev/null
	events=$(grep -Ec ' sched:sched_[a-z_]+: ' "$TMP/big.txt")
	t0=$(now_us)
	"$SFD" replay --kv --topology "$TOPO" "$TMP/big.txt" >"$TMP/big.out" 2>"$TMP/big.err"
	rc=$?
	t1=$(now_us)
	if [ $rc -eq 0 ] && [ -s "$TMP/big.out" ] && [ "$events" -ge 100000 ]; then
		ok "replay of a large trace ($events events, 2 s of stress-ng --switch 2): exit 0, $(wc -l <"$TMP/big.out") decisions"
	else
		fail "replay of a large trace: exit 0 and decisions" "rc=$rc, $events events" "$(head -n 5 "$TMP/big.err")"
	fi
	echo "# replay throughput ($(basename "$BUILD")): $events events in $(( (t1 - t0) / 1000 )) ms:" \
		"$(( events * 1000000 / (t1 - t0 > 0 ? t1 - t0 : 1) )) events/s"
	# The perf.data of it, read directly: the same decisions and summary (its lost-events warning aside, which
	# perf script does not show), and its speed.
	t0=$(now_us)
	"$SFD" replay --kv --topology "$TOPO" "$TMP/big.data" >"$TMP/big-direct.out" 2>"$TMP/big-direct.err"
	rc=$?
	t1=$(now_us)
	grep -v -e 'lost events in' -e '^so its decisions after' -e '^trace-cmd record -b\|^perf record -m' \
		"$TMP/big-direct.err" >"$TMP/big-direct.summary"
	if [ $rc -eq 0 ] && cmp -s "$TMP/big.out" "$TMP/big-direct.out" && cmp -s "$TMP/big.err" "$TMP/big-direct.summary"; then
		ok "replay of the large perf.data: the same $(wc -l <"$TMP/big.out") decisions and summary as its perf script"
	else
		fail "replay of the large perf.data: the same decisions and summary as its perf script" "rc=$rc" \
			"$(diff "$TMP/big.out" "$TMP/big-direct.out" | head -n 10)" "$(diff "$TMP/big.err" "$TMP/big-direct.summary" | head -n 10)"
	fi
	echo "# replay perf.data throughput ($(basename "$BUILD")): $events events in $(( (t1 - t0) / 1000 )) ms:" \
		"$(( events * 1000000 / (t1 - t0 > 0 ? t1 - t0 : 1) )) events/s"
else
	fail "perf record of stress-ng --switch 2" "$(tail -n 20 "$TMP/record-big.err")"
fi

finish
