#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The kernel oracle (issue 9 item 7): schedfreqd's PELT model against the running kernel's own signals.
#   - oracle-compare on hand-made files (tests/oracle/fixtures) gives the worked-out numbers, also leaving out
#     the transient records (--settled-us), and its bounds exit 1 when missed;
#   - pelt-oracle (BPF on pelt_cfs_tp / sched_util_est_cfs_tp / pelt_rt_tp) records well-formed lines around a
#     busy task on CPU 1, and the kernel's util of CPU 1 rises under it;
#   - tests/oracle/run-oracle.sh --short records, replays and compares every workload (periodic, fork/exit
#     storm, migration, RT, a duty cycle stepping in one process), each recording running 1 s past the workload's
#     end, which is compared too;
#   - on every workload, util |model - kernel| p50 and p90 of the kernel's settled records within the per-workload
#     regression bounds below.
# The bounds can be changed from the environment; ORACLE_SCHEDFREQD names another schedfreqd to compare (default
# $BUILD/schedfreqd). The artefacts stay in the temporary directory when a step
# fails (its path is printed).

# shellcheck disable=SC2016 # at_exit takes code to eval later, single-quoted on purpose
. "$(dirname "$0")/lib.sh"


ORACLE="$BUILD/tests/oracle/pelt-oracle"
COMPARE="$BUILD/tests/oracle/oracle-compare"
HOG="$BUILD/tests/helpers/hog"
SFD=${ORACLE_SCHEDFREQD:-$SCHEDFREQD}
FIX="$REPO/tests/oracle/fixtures"
TMP=$(mktemp -d /tmp/schedfreqd-test-oracle.XXXXXX)
at_exit '[ "$LIB_FAILED" = 0 ] && rm -rf "$TMP"'

if [ -x "$ORACLE" ] && [ -x "$COMPARE" ]; then
	ok "pelt-oracle and oracle-compare are built"
else
	fail "pelt-oracle and oracle-compare are built" "missing $ORACLE or $COMPARE (make BUILD=$BUILD all)"
	finish
fi

# --- oracle-compare on hand-made files ---------------------------------------------------------------------
if out=$("$COMPARE" --trace "$FIX/trace.txt" --label fixture "$FIX/kernel.txt" "$FIX/model.txt" 2>"$TMP/fixture.err") &&
	[ "$out" = "$(cat "$FIX/expected.txt")" ]; then
	ok "oracle-compare: the worked example of tests/oracle/fixtures"
else
	fail "oracle-compare: the worked example of tests/oracle/fixtures" "got:" "$out" "expected:" \
		"$(cat "$FIX/expected.txt")" "$(cat "$TMP/fixture.err")"
fi
"$COMPARE" --trace "$FIX/trace.txt" --max-util-p50 4 "$FIX/kernel.txt" "$FIX/model.txt" >/dev/null 2>&1
rc1=$?
"$COMPARE" --trace "$FIX/trace.txt" --max-util-p50 5 --max-util-p90 10 "$FIX/kernel.txt" "$FIX/model.txt" >/dev/null 2>&1
rc0=$?
"$COMPARE" "$FIX/kernel.txt" "$FIX/kernel.txt" >/dev/null 2>&1
rc2=$?
if [ $rc1 = 1 ] && [ $rc0 = 0 ] && [ $rc2 = 2 ]; then
	ok "oracle-compare: exit 1 when util p50 exceeds the bound, 0 at it, 2 on a malformed model"
else
	fail "oracle-compare: exit 1 when util p50 exceeds the bound, 0 at it, 2 on a malformed model" \
		"exit statuses: over $rc1 (want 1), at $rc0 (want 0), malformed $rc2 (want 2)"
fi

# --settled-us 1 over the same files (1000 ns: the fixture's records are 500-1000 ns apart): of each CPU's cfs
# records only those no other follows within 1 µs are compared, CPU 0's at 3000 (util 25 vs 30) and CPU 1's
# at=util_est at 2600 (util_est only); 1000, 2000, 1500 and 2500 are steps of a burst. The rt record stands alone.
out=$("$COMPARE" --trace "$FIX/trace.txt" --settled-us 1 --label settled --no-header "$FIX/kernel.txt" "$FIX/model.txt" 2>"$TMP/settled.err")
if [ "$(echo "$out" | awk '{ printf "%s %s %s %s;", $2, $3, $4, $7 }')" = "util 1 5 5;util_est 2 0 0;runnable 1 5 5;rt 1 7 7;" ] &&
	grep -q ': 4 transient records left out (--settled-us 1)$' "$TMP/settled.err"; then
	ok "oracle-compare --settled-us: a record followed within the window on its CPU is left out, the last is compared"
else
	fail "oracle-compare --settled-us: a record followed within the window on its CPU is left out, the last is compared" \
		"$out" "$(cat "$TMP/settled.err")"
fi

# --- pelt-oracle alone ----------------------------------------------------------------------------------------
if "$ORACLE" -o "$TMP/k.txt" --stats -- "$HOG" --cpu 1 --seconds 0.4 >"$TMP/hog.out" 2>"$TMP/oracle.err"; then
	bad=$(grep -Evc '^t=[0-9]+ cpu=[0-9]+ (util=[0-9]+ util_est=[0-9]+ runnable=[0-9]+( at=util_est)?|rt=[0-9]+)$' "$TMP/k.txt")
	hog_end=$(awk '/^end/ { print $2 }' "$TMP/hog.out")
	# The last root cfs record of CPU 1 before the hog ended: 0.4 s of 100 % takes util well above 600.
	last=$(awk -v e="$hog_end" '{ t = substr($1, 3) + 0 } $2 == "cpu=1" && $3 ~ /^util=/ && t <= e { u = substr($3, 6) } END { print u + 0 }' "$TMP/k.txt")
	if [ "$bad" = 0 ] && [ -s "$TMP/k.txt" ] && [ "$last" -gt 600 ]; then
		ok "pelt-oracle: well-formed records, CPU 1's util reaches $last under a 0.4 s hog"
	else
		fail "pelt-oracle: well-formed records, CPU 1's util rises under a 0.4 s hog" \
			"$bad malformed lines; last util of CPU 1 $last" "$(head -n 5 "$TMP/k.txt")" "$(cat "$TMP/oracle.err")"
	fi
else
	fail "pelt-oracle: records around a hog on CPU 1" "$(cat "$TMP/oracle.err")"
fi

# --- the harness, short ---------------------------------------------------------------------------------------
# The comparison as docs/fidelity.md makes it ("The kernel's transient records"): the kernel's state after each
# scheduler operation (--settled-us 3), with the few µs by which an operation's tracepoint follows its updates.
COMPARE_ARGS=(--slack-us 3 --settled-us 3)
"$REPO/tests/oracle/run-oracle.sh" --short "${COMPARE_ARGS[@]}" --build "$BUILD" --schedfreqd "$SFD" --out "$TMP/run" \
	>"$TMP/run.out" 2>"$TMP/run.err"
rc=$?
if [ $rc -le 1 ] && [ -s "$TMP/run/summary.tsv" ]; then
	ok "run-oracle.sh --short: every workload recorded (oracle + perf), replayed and compared"
	sed 's/^/# /' "$TMP/run.out"
else
	fail "run-oracle.sh --short: every workload recorded (oracle + perf), replayed and compared" \
		"exit $rc; artefacts in $TMP/run" "$(tail -n 30 "$TMP/run.err")" "$(cat "$TMP/run.out")"
	finish
fi

# --- the end of the recording is compared too -------------------------------------------------------------------
# run-oracle.sh keeps recording 1 s after each workload exits (pelt-oracle --linger-ms): the decay once it is gone
# is part of what is compared. The phase workload (one process stepping its duty cycle 20/50/80/100/0/40 %, hog
# --steps) printed each step and its end.
phase_end=$(awk '/^end/ { print $2 }' "$TMP/run/phase/workload.log" 2>/dev/null)
steps=$(grep -c '^step ' "$TMP/run/phase/workload.log" 2>/dev/null)
after=$(awk -v e="${phase_end:-0}" '{ t = substr($1, 3) + 0 } t > e { n++; last = t } END { printf "%d %d", n, (last - e) / 1000000 }' \
	"$TMP/run/phase/kernel.txt" 2>/dev/null)
compared=$(awk -v e="${phase_end:-0}" '!/^#/ && $1 > e { n++ } END { print n + 0 }' "$TMP/run/phase/joined.txt" 2>/dev/null)
if [ -n "$phase_end" ] && [ "$steps" = 6 ] && [ "${after#* }" -ge 800 ] && [ "${compared:-0}" -gt 0 ]; then
	ok "oracle phase: 6 duty steps in one process; the kernel recorded ${after#* } ms past its end, and $compared of those records are compared"
else
	fail "oracle phase: 6 duty steps, and the recording compared past the workload's end" \
		"steps ${steps:-?}, end ${phase_end:-?}, records after it / ms: ${after:-?}, compared: ${compared:-?}" \
		"$(cat "$TMP/run/phase/workload.log" 2>/dev/null)"
fi

# --- the bounds -----------------------------------------------------------------------------------------------
# Regression bounds for the short run, per workload, on the settled comparison: about twice the worst of several
# quiet runs on this VM (session 17: p50 1-2 and p90 16-55 but the storm's, p50 7-15 and p90 19-44; docs/fidelity.md
# has the full runs against the issue's targets, p50 <= 16 and p90 <= 48, quiet and loaded). Every record compared
# (no --settled-us) gave the same runs p90 25-66 and the storm's 170-269 (each line shows it): the storm's forks
# and exits are µs-long steps the model has no state for. ORACLE_MAX_UTIL_P50 / _P90 override all of them.
# Not under valgrind: the numbers come from the recordings (a quiet-machine measurement, asserted by the normal
# pass) and an offline replay that valgrind does not change; that pass checks the replay's memory only.
declare -A P50=([p30]=16 [p100]=16 [storm]=48 [migrate]=16 [rt50]=16 [phase]=16)
declare -A P90=([p30]=96 [p100]=128 [storm]=200 [migrate]=96 [rt50]=96 [phase]=96)
# The storm's bound is wider: the project's CI VM measured p50 160-167, p90 357-362 (every record; the model 110
# above the kernel) with the model before session 16, most likely with the harness in session 0, whose tasks the
# kernel keeps in the root group, where the model gave every new task the cap and took the kernel's exit timing;
# with the root's load followed now a kernel not grouping gives p50 17, p90 57 settled here. Each storm line says
# where it ran (the harness's session and autogroup) and what the recorders lost, so that a CI log shows it.
# docs/fidelity.md, "The storm on the CI VM".
# within WORKLOAD SIGNAL N P50 P90: whether one summary line is within its bounds.
within() {
	local workload=$1 signal=$2 n=$3 p50=$4 p90=$5
	if [ "$signal" = rt ]; then
		[ "$n" -gt 0 ] && [ "$p50" -le 16 ] && [ "$p90" -le 96 ]
	else
		[ "$n" -gt 0 ] && [ "$p50" -le "${ORACLE_MAX_UTIL_P50:-${P50[$workload]:-16}}" ] &&
			[ "$p90" -le "${ORACLE_MAX_UTIL_P90:-${P90[$workload]:-48}}" ]
	fi
}

# A live recording on a shared VM: a burst of other work inside a 1.2 s window can spoil one (rt50's util p90
# was 9 in one run and 257 in the next, on the same tree). A workload that misses is recorded once more on its
# own, and the verdict is the second run's; both figures are printed.
rerun() { # WORKLOAD SIGNAL: the rerun's summary line for that signal, or nothing
	[ -d "$TMP/rerun-$1" ] ||
		"$REPO/tests/oracle/run-oracle.sh" --short "${COMPARE_ARGS[@]}" --workloads "$1" --build "$BUILD" --schedfreqd "$SFD" \
			--out "$TMP/rerun-$1" >/dev/null 2>&1
	awk -F'\t' -v w="$1" -v s="$2" '$1 == w && $2 == s' "$TMP/rerun-$1/summary.tsv" 2>/dev/null
}

# every_record WORKLOAD SIGNAL: ", every record: p50 X p90 Y" of the first recording, for the line.
every_record() {
	local d="$TMP/run/$1"
	"$COMPARE" --trace "$d/trace.txt" --label "$1" --no-header "$d/kernel.txt" "$d/model.txt" 2>/dev/null |
		awk -v s="$2" '$2 == s { printf ", every record: p50 %s p90 %s", $4, $5 }'
}

under_valgrind || while IFS=$'\t' read -r workload signal n p50 p90 _; do
	# The RT average of the RT workload: the rq's avg_rt, RT running time decaying like any PELT signal.
	if [ "$signal" = rt ] && [ "$workload" != rt50 ]; then continue; fi
	[ "$signal" = util ] || [ "$signal" = rt ] || continue
	if [ "$signal" = rt ]; then b50=16 b90=96; else
		b50=${ORACLE_MAX_UTIL_P50:-${P50[$workload]:-16}}
		b90=${ORACLE_MAX_UTIL_P90:-${P90[$workload]:-48}}
	fi
	first=
	if ! within "$workload" "$signal" "$n" "$p50" "$p90"; then
		first=" (first recording: p50 $p50, p90 $p90; recorded again)"
		IFS=$'\t' read -r _ _ n p50 p90 _ <<<"$(rerun "$workload" "$signal")"
		n=${n:-0} p50=${p50:-0} p90=${p90:-0}
	fi
	name="oracle $workload: $signal |model - kernel| p50 $p50 <= $b50, p90 $p90 <= $b90 ($n settled records$(every_record "$workload" "$signal"))$first"
	if [ "$workload" = storm ] || ! within "$workload" "$signal" "$n" "$p50" "$p90"; then
		name="$name [$(cat "$TMP/run/$workload/losses.txt" 2>/dev/null); $(cat "$TMP/run/environment.txt" 2>/dev/null)]"
	fi
	if within "$workload" "$signal" "$n" "$p50" "$p90"; then
		ok "$name"
	else
		fail "$name" "artefacts in $TMP/run/$workload and $TMP/rerun-$workload (kernel.txt, model.txt, joined.txt, trace.txt)"
	fi
done < <(tail -n +2 "$TMP/run/summary.tsv")

finish
