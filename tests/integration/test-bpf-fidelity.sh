#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The BPF source against the kernel (issue #23 item 4): the utilisation behind each decision of
# `schedfreqd --events=bpf` is the kernel's own at that moment. tests/oracle/run-bpf-fidelity.sh --short runs the
# kernel oracle (pelt-oracle --all-classes --sched-events, attached first) beside the daemon over the emulated
# two-policies tree while five workloads run (p60: 60 % of 16 ms on CPU 1; storm: 200 forks/s; cgroup: p60 in a
# nested task group; dl: SCHED_DEADLINE 5 ms / 10 ms, busy half of every 200 ms; rt50: SCHED_FIFO at 50 %), and oracle-compare --decisions
# rebuilds, for each decision, the kernel's utilisation of the policy's CPU from the oracle's last records at or
# before the decision (docs/fidelity.md, "The BPF source against the kernel (issue #23)"). Asserted:
#   - per workload, |daemon util - kernel| p99 <= 8 (of 1024) over at least MIN_N decisions (dl: p90, see below);
#   - every reason=rt decision is at the maximum frequency (the RT class's min bound, not util, decided);
#   - the DL workload's decisions saw the kernel's avg_dl (the DL signal is in the compared util);
#   - oracle-compare --decisions on a hand-made pair of files gives the worked-out figures.
# A correctness comparison, not a timing one: a busy machine changes how many decisions there are, not their
# values. A workload that misses is recorded once more on its own (both results are printed); the verdict is the
# second's. FIDELITY_MAX_P99 / FIDELITY_MIN_N override the bounds.

# shellcheck disable=SC2016 # at_exit takes code to eval later, single-quoted on purpose
. "$(dirname "$0")/lib.sh"

ORACLE="$BUILD/tests/oracle/pelt-oracle"
COMPARE="$BUILD/tests/oracle/oracle-compare"
RUN="$REPO/tests/oracle/run-bpf-fidelity.sh"
MAX_P99=${FIDELITY_MAX_P99:-8}
MIN_N=${FIDELITY_MIN_N:-15}
WORKLOADS="p60 storm cgroup dl rt50"
TMP=$(mktemp -d /tmp/schedfreqd-test-bpf-fidelity.XXXXXX)
at_exit '[ "$LIB_FAILED" = 0 ] && rm -rf "$TMP"'

if [ -x "$ORACLE" ] && [ -x "$COMPARE" ]; then
	ok "pelt-oracle and oracle-compare are built"
else
	fail "pelt-oracle and oracle-compare are built" "missing $ORACLE or $COMPARE (make BUILD=$BUILD all)"
	finish
fi

# --- oracle-compare --decisions on hand-made files -------------------------------------------------------------
# CPU 1: cfs 100/50/200 at 1000 (cfs_boost = 200), rt 30 at 1100, dl 20 at 1200, irq 64 at 1300:
#   sum 250 -> 64 + 250 * 960 / 1024 = 298 (integer: 64 + 234 = 298).
# Decisions: t=1400 util=298 (diff 0), t=1500 reason=iowait (left out), t=1600 util=300 (diff 2), t=900 (before
# the window), t=2000 on CPU 1 after an at=sched read 2000 util 0 0 0 0 0 0 at 1900 (kernel 0, daemon 10: diff 10;
# the PELT-only state still says 298: diff 288; bias -286/3).
cat >"$TMP/k.txt" <<-'EOF'
	t=1000 cpu=1 util=100 util_est=50 runnable=200
	t=1100 cpu=1 rt=30
	t=1200 cpu=1 dl=20 bw_dl=21
	t=1300 cpu=1 irq=64
	t=1900 cpu=1 at=sched util=0 util_est=0 runnable=0 rt=0 dl=0 irq=0
EOF
cat >"$TMP/d.txt" <<-'EOF'
	t=900 policy=1 freq=800000 cpu=1 kind=local util=5 reason=demand source=bpf
	t=1400 policy=1 freq=1200000 cpu=1 kind=local util=298 reason=demand source=bpf
	t=1500 policy=1 freq=1600000 cpu=1 kind=local util=512 reason=iowait source=bpf
	t=1600 policy=1 freq=2400000 cpu=1 kind=local util=300 reason=rt source=bpf
	t=2000 policy=1 freq=800000 cpu=1 kind=local util=10 reason=demand source=bpf
	a line that is not a decision
EOF
out=$("$COMPARE" --decisions --from 1000 --to 5000 --label fx --no-header "$TMP/k.txt" "$TMP/d.txt" 2>"$TMP/fx.err")
rc=$?
want="$(printf '%-16s %-9s %8s %6s %6s %6s %6s %8s\n' fx all 3 2 10 10 10 +4.0 fx pelt 3 2 288 288 288 -95.3 \
	fx pelt-near 3 2 288 288 288 -95.3 fx rt 1 2 2 2 2 +2.0)"
"$COMPARE" --decisions --from 1000 --to 5000 --max-p99 9 "$TMP/k.txt" "$TMP/d.txt" >/dev/null 2>&1
rc_over=$?
"$COMPARE" --decisions --from 1000 --to 5000 --max-p99 10 --min-n 3 "$TMP/k.txt" "$TMP/d.txt" >/dev/null 2>&1
rc_at=$?
"$COMPARE" --decisions --from 1000 --to 5000 --min-n 4 "$TMP/k.txt" "$TMP/d.txt" >/dev/null 2>&1
rc_few=$?
if [ $rc = 0 ] && [ "$out" = "$want" ] && grep -q '1 iowait/rule left out' "$TMP/fx.err" && [ $rc_over = 1 ] &&
	[ $rc_at = 0 ] && [ $rc_few = 1 ]; then
	ok "oracle-compare --decisions: the worked example (rebuilt state, IRQ scaling, iowait left out, bounds)"
else
	fail "oracle-compare --decisions: the worked example" "exit $rc (bounds: over $rc_over, at $rc_at, few $rc_few)" \
		"got:" "$out" "want:" "$want" "$(cat "$TMP/fx.err")"
fi

# --- the live comparison ----------------------------------------------------------------------------------------
"$RUN" --short --build "$BUILD" --schedfreqd "$SCHEDFREQD" --out "$TMP/run" >"$TMP/run.out" 2>"$TMP/run.err"
rc=$?
if [ $rc -le 1 ] && [ -s "$TMP/run/summary.tsv" ]; then
	ok "run-bpf-fidelity.sh --short: oracle and daemon recorded over $(wc -l <"$TMP/run/windows.txt") workloads and compared"
	sed 's/^/# /' "$TMP/run.out"
else
	fail "run-bpf-fidelity.sh --short: oracle and daemon recorded and compared" "exit $rc; artefacts in $TMP/run" \
		"$(tail -n 30 "$TMP/run.err")" "$(cat "$TMP/run.out")"
	finish
fi

# The percentile asserted: p99, but p90 for dl. About one of its decisions in 30 (~220 in 2 s) differs by
# ~10: the kernel's avg_rt/avg_dl changed with no pelt_rt_tp/pelt_dl_tp record in the oracle before the decision
# (its own read at the next sched event has the daemon's value; docs/fidelity.md), so its p99 is that one max.
pct() { if [ "$1" = dl ]; then echo 90; else echo 99; fi; }
row() { # DIR WORKLOAD: "n pNN" of the workload's "all" row
	awk -F'\t' -v w="$2" -v p="$(pct "$2")" '$1 == w && $2 == "all" { print $3, (p == 90 ? $5 : $6) }' \
		"$1/summary.tsv" 2>/dev/null
}
within() { # N P99
	[ "${1:-0}" -ge "$MIN_N" ] && [ "${2:-9999}" -le "$MAX_P99" ]
}
for w in $WORKLOADS; do
	read -r n p99 <<<"$(row "$TMP/run" "$w")"
	first=
	if ! within "$n" "$p99"; then
		first=" (first recording: ${n:-0} decisions, p$(pct "$w") ${p99:-?}; recorded again)"
		"$RUN" --short --workloads "$w" --build "$BUILD" --schedfreqd "$SCHEDFREQD" --out "$TMP/rerun-$w" \
			>/dev/null 2>&1
		read -r n p99 <<<"$(row "$TMP/rerun-$w" "$w")"
	fi
	name="bpf fidelity $w: |daemon util - kernel| p$(pct "$w") ${p99:-?} <= $MAX_P99 over ${n:-0} decisions (>= $MIN_N)$first"
	if within "$n" "$p99"; then
		ok "$name"
	else
		fail "$name" "artefacts in $TMP/run/$w and $TMP/rerun-$w (joined.txt: every decision with the kernel's state)"
	fi
done

# reason=rt: the maximum, whatever util says (effective_cpu_util()'s min = capacity while RT is runnable).
read -r n_rt not_max < <(awk -F'\t' 'NR > 1 { n += $2; x += $3 } END { print n + 0, x + 0 }' "$TMP/run/rt.tsv")
if [ "$not_max" = 0 ]; then
	ok "every reason=rt decision is at the maximum frequency ($n_rt decisions)"
else
	fail "every reason=rt decision is at the maximum frequency" "$not_max of $n_rt are not" "$(cat "$TMP/run/rt.tsv")"
fi

# The root's weight and counts read at each sched event (cfs_rq_weight_counts() in pelt-oracle.bpf.c packs them in one
# word, pelt-oracle.c unpacks them): load.weight is the sum of the queued entities' weights (kernel/sched/fair.c:
# account_entity_enqueue() adds both together), so it is 0 exactly when nr_queued is. A wrong shift or mask breaks
# that on the first record with a task queued.
read -r n_sched n_queued n_odd < <(awk '/ at=sched / {
		w = q = -1
		for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "weight") w = kv[2]; if (kv[1] == "nr_queued") q = kv[2] }
		n++; if (q > 0) nq++; if (w < 0 || q < 0 || (w > 0) != (q > 0)) odd++
	} END { print n + 0, nq + 0, odd + 0 }' "$TMP/run/kernel.txt")
if [ "$n_sched" -gt 0 ] && [ "$n_queued" -gt 0 ] && [ "$n_odd" = 0 ]; then
	ok "at=sched: the root's weight is 0 exactly when its nr_queued is ($n_sched records, $n_queued with a task queued)"
elif [ "$n_sched" -gt 0 ] && [ "$n_queued" = 0 ] && ! grep -q ' weight=[1-9]' "$TMP/run/kernel.txt"; then
	fail "at=sched: the root's weight and nr_queued" "no record has either (neither read?)"
elif [ "$n_sched" -gt 0 ] && [ "$n_queued" = 0 ]; then
	ok "at=sched: the root's weight is read ($n_sched records; this kernel's cfs_rq has no nr_queued)"
else
	fail "at=sched: the root's weight is 0 exactly when its nr_queued is" \
		"$n_odd of $n_sched records disagree ($n_queued with a task queued)" \
		"$(grep ' at=sched ' "$TMP/run/kernel.txt" | head -n 5)"
fi

# The DL workload: decisions compared while the kernel's avg_dl was up (field 12 of joined.txt: dl).
n_dl=$(awk '!/^#/ && $12 > 0 { n++ } END { print n + 0 }' "$TMP/run/dl/joined.txt" 2>/dev/null)
if [ "${n_dl:-0}" -gt 0 ]; then
	ok "dl: $n_dl decisions compared while the kernel's avg_dl > 0 (the DL signal is in the daemon's util)"
else
	fail "dl: decisions compared while the kernel's avg_dl > 0" "none; $(head -n 3 "$TMP/run/dl/joined.txt" 2>/dev/null)"
fi

finish
