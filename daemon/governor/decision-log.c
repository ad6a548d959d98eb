/* SPDX-License-Identifier: GPL-2.0-or-later */
/* decision-log.c: the bounded ring of recent decisions (see governor.h). */

#include <stdio.h>
#include <stdlib.h>

#include "governor.h"

int decision_log_init(DecisionLog *l, size_t capacity) {
        *l = (DecisionLog) {};
        if (capacity == 0)
                return -EINVAL;
        l->records = calloc(capacity, sizeof(DecisionRecord));
        if (!l->records)
                return -ENOMEM;
        l->capacity = capacity;
        return 0;
}

void decision_log_done(DecisionLog *l) {
        free(l->records);
        *l = (DecisionLog) {};
}

void decision_log_append(DecisionLog *l, const Decision *d, uint64_t written_ns, const char *comm) {
        size_t slot;

        if (l->capacity == 0)
                return;
        slot = (l->start + l->count) % l->capacity;
        if (l->count == l->capacity)
                l->start = (l->start + 1) % l->capacity;   /* full: overwrite the oldest */
        else
                l->count++;
        l->records[slot] = (DecisionRecord) { .decision = *d, .written_ns = written_ns };
        if (comm)
                snprintf(l->records[slot].comm, sizeof(l->records[slot].comm), "%s", comm);
        l->total++;
}

const DecisionRecord *decision_log_get(const DecisionLog *l, size_t i) {
        if (i >= l->count)
                return NULL;
        return &l->records[(l->start + i) % l->capacity];
}
