/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * A bounded ring of the most recent frequency decisions, for `schedfreqctl explain` ("why is my CPU at
 * X MHz?") through the D-Bus GetDecisions method. Oldest entries are overwritten. No I/O.
 */

#include <stddef.h>
#include <stdint.h>

#include "decision.h"

typedef struct DecisionRecord {
        Decision decision;
        uint64_t written_ns;      /* when the setspeed write completed (CLOCK_MONOTONIC) */
        char comm[TASK_COMM_LEN]; /* decision.pid's name when it was made (the proc connector's), "" = unknown */
} DecisionRecord;

typedef struct DecisionLog {
        DecisionRecord *records;
        size_t capacity, start, count;
        uint64_t total;           /* ever appended */
} DecisionLog;

int decision_log_init(DecisionLog *l, size_t capacity);
void decision_log_done(DecisionLog *l);
/* @comm: the name of d->pid (NULL: unknown), copied. */
void decision_log_append(DecisionLog *l, const Decision *d, uint64_t written_ns, const char *comm);
/* The i-th record, oldest first (0 <= i < l->count). */
const DecisionRecord *decision_log_get(const DecisionLog *l, size_t i);
