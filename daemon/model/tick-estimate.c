/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tick-estimate.c: the recording kernel's tick from a trace's sched_stat_runtime spacing (include/model.h). */

#include <errno.h>
#include <sched.h>
#include <stdlib.h>

#include "model.h"

/* kernel/Kconfig.hz's choices (HZ_100, HZ_250, HZ_300, HZ_1000). */
static const unsigned standard_hz[] = { 100, 250, 300, 1000 };

typedef struct RuntimeChain {
        uint64_t last_ns;         /* the last sched_stat_runtime of ... */
        int32_t pid;              /* ... this task on this CPU */
        bool valid;
} RuntimeChain;

struct TickEstimate {
        RuntimeChain cpu[CPU_SETSIZE];
        unsigned votes[ELEMENTSOF(standard_hz)];
        unsigned gaps;
};

int tick_estimate_new(TickEstimate **ret) {
        TickEstimate *t = calloc(1, sizeof(TickEstimate));

        if (!t)
                return -ENOMEM;
        *ret = t;
        return 0;
}

TickEstimate *tick_estimate_free(TickEstimate *t) {
        free(t);
        return NULL;
}

/* The standard tick within a tenth of @gap_ns (the nearest, relatively), or -1. */
static int classify_gap(uint64_t gap_ns) {
        int best = -1;
        uint64_t best_diff = 0, best_period = 1;

        for (size_t i = 0; i < ELEMENTSOF(standard_hz); i++) {
                uint64_t period = kernel_hz_tick_ns(standard_hz[i]);
                uint64_t diff = gap_ns > period ? gap_ns - period : period - gap_ns;

                if (diff * 10 > period)
                        continue;
                /* diff/period < best_diff/best_period, without division */
                if (best < 0 || diff * best_period < best_diff * period) {
                        best = (int) i;
                        best_diff = diff;
                        best_period = period;
                }
        }
        return best;
}

/*
 * Whether the task ran throughout the gap: its runtime= is the time since its previous update_curr() on the
 * runqueue's clock_task, which leaves out IRQ and steal time (update_rq_clock_task(), kernel/sched/core.c), so a
 * quarter of slack; a report after an update we did not see (another caller, or one a `runtime >= N` filter
 * dropped) covers much less than the gap.
 */
static bool ran_throughout(uint64_t runtime_ns, uint64_t gap_ns) {
        return runtime_ns >= gap_ns - gap_ns / 4 && runtime_ns <= gap_ns + gap_ns / 10;
}

void tick_estimate_event(TickEstimate *t, const SchedEvent *ev) {
        RuntimeChain *c;
        int k;

        if (ev->cpu < 0 || ev->cpu >= CPU_SETSIZE)
                return;
        c = &t->cpu[ev->cpu];
        if (ev->type == SCHED_EVENT_SWITCH) {
                c->valid = false; /* another task (or the same, after a sleep): a new chain */
                return;
        }
        if (ev->type != SCHED_EVENT_RUNTIME)
                return;
        if (c->valid && c->pid == ev->runtime.pid && ev->time_ns > c->last_ns &&
            ran_throughout(ev->runtime.runtime_ns, ev->time_ns - c->last_ns)) {
                k = classify_gap(ev->time_ns - c->last_ns);
                if (k >= 0) {
                        t->votes[k]++;
                        t->gaps++;
                }
        }
        *c = (RuntimeChain) { .last_ns = ev->time_ns, .pid = ev->runtime.pid, .valid = true };
}

bool tick_estimate_enough(const TickEstimate *t) {
        return t->gaps >= TICK_ESTIMATE_GAPS;
}

int tick_estimate_result(const TickEstimate *t, TickEstimateResult *ret) {
        size_t best = 0;

        for (size_t i = 1; i < ELEMENTSOF(standard_hz); i++)
                if (t->votes[i] > t->votes[best])
                        best = i;
        *ret = (TickEstimateResult) { .votes = t->votes[best], .gaps = t->gaps };
        if (t->votes[best] < TICK_ESTIMATE_VOTES_MIN)
                return -ENODATA;
        if (t->votes[best] * 2 <= t->gaps)
                return -ENOTUNIQ;
        ret->hz = standard_hz[best];
        return (int) ret->hz;
}
