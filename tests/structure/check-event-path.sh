#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/structure/check-event-path.sh: one scheduler event's path through the model and the governor stays in
# its files (issue #26 item 5). bench/event-path.sh counts how many times the path of the first event of
# tests/fixtures/traces/article.txt that causes a decision re-enters a source file it left (engine_event() to
# the commit callback, a deterministic count: the same input, the same calls). 133 on c6befbd, 88 before the
# getters became one snapshot (demand_cpu_signals()) and the task-group entry points checked inline; the bound
# leaves room for a few calls more, not for the path to go back to chatting between files.
set -u
cd "$(dirname "$0")/../.."
MAX_REENTRIES=60
out=$(bash bench/event-path.sh 2>&1)
rc=$?
n=$(sed -n 's/^entries [0-9]*, switches [0-9]*, re-entries \([0-9]*\)$/\1/p' <<<"$out")
if [ $rc -eq 0 ] && [ -n "$n" ] && [ "$n" -le $MAX_REENTRIES ]; then
	echo "ok - one event's path re-enters a file it left at most $MAX_REENTRIES times ($n)"
else
	echo "not ok - one event's path re-enters a file it left at most $MAX_REENTRIES times (${n:-?})"
	sed 's/^/# /' <<<"$out" | tail -40
fi
