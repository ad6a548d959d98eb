/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * demand.c: the skeleton demand model, one frequency- and capacity-invariant PELT signal per CPU driven by
 * sched_switch. Pure, no I/O. See include/demand.h for what it leaves out.
 */

#include <errno.h>
#include <stdlib.h>

#include "demand.h"
#include "macro.h"
#include "pelt.h"

typedef struct DemandCpu {
        PeltSignal pelt;          /* the root cfs_rq's signal: running = some task runs on the CPU */
        bool busy;                /* since the last sched_switch: next_pid != 0 */
        unsigned cpu_scale;       /* arch_scale_cpu_capacity() */
        unsigned freq_scale;      /* arch_scale_freq_capacity(): cur/max x 1024 */
        uint64_t idle_calls;      /* switches to the idle task */
} DemandCpu;

struct Demand {
        unsigned n_cpus;
        DemandCpu *cpus;
};

int demand_new(unsigned n_cpus, Demand **ret) {
        _cleanup_(demand_freep) Demand *d = NULL;

        d = calloc(1, sizeof(Demand));
        if (!d)
                return -ENOMEM;
        d->cpus = calloc(MAX(n_cpus, 1u), sizeof(DemandCpu));
        if (!d->cpus)
                return -ENOMEM;
        d->n_cpus = n_cpus;
        for (unsigned i = 0; i < n_cpus; i++)
                d->cpus[i] = (DemandCpu) { .cpu_scale = PELT_SCALE, .freq_scale = PELT_SCALE };

        *ret = TAKE_PTR(d);
        return 0;
}

Demand *demand_free(Demand *d) {
        if (!d)
                return NULL;
        free(d->cpus);
        free(d);
        return NULL;
}

unsigned demand_n_cpus(const Demand *d) {
        return d->n_cpus;
}

void demand_set_capacity(Demand *d, unsigned cpu, unsigned capacity) {
        if (cpu >= d->n_cpus)
                return;
        /* No cpu_capacity file (0) means a symmetric machine: full capacity, as arch_topology does. */
        d->cpus[cpu].cpu_scale = capacity == 0 ? PELT_SCALE : MIN(capacity, PELT_SCALE);
}

unsigned demand_cpu_capacity(const Demand *d, unsigned cpu) {
        return cpu < d->n_cpus ? d->cpus[cpu].cpu_scale : PELT_SCALE;
}

bool demand_advance(Demand *d, unsigned cpu, uint64_t now_ns) {
        DemandCpu *c;

        if (cpu >= d->n_cpus)
                return false;
        c = &d->cpus[cpu];
        return pelt_update(&c->pelt, now_ns, c->busy, c->freq_scale, c->cpu_scale);
}

void demand_set_freq_scale(Demand *d, unsigned cpu, uint64_t now_ns, unsigned freq_scale) {
        if (cpu >= d->n_cpus)
                return;
        /* The running time so far ran at the old frequency: account it before switching scales. */
        (void) demand_advance(d, cpu, now_ns);
        d->cpus[cpu].freq_scale = MIN(freq_scale, PELT_SCALE);
}

static void demand_switch(Demand *d, unsigned cpu, const SchedEvent *ev, uint64_t now_ns) {
        DemandCpu *c = &d->cpus[cpu];

        /* Close the span that ends here with the state it had, then start the next one. */
        (void) demand_advance(d, cpu, now_ns);
        c->busy = ev->sw.next_pid != 0;
        if (!c->busy)
                c->idle_calls++;
}

int demand_event(Demand *d, const SchedEvent *ev, uint64_t now_ns) {
        if (ev->type < 0 || ev->type >= _SCHED_EVENT_TYPE_MAX)
                return -EINVAL;
        if (ev->cpu < 0 || (unsigned) ev->cpu >= d->n_cpus)
                return -ERANGE;

        switch (ev->type) {
        case SCHED_EVENT_SWITCH:
                demand_switch(d, (unsigned) ev->cpu, ev, now_ns);
                break;
        case SCHED_EVENT_WAKEUP:
        case SCHED_EVENT_WAKEUP_NEW:
        case SCHED_EVENT_MIGRATE:
        case SCHED_EVENT_EXIT:
        case SCHED_EVENT_RUNTIME:
                /* The skeleton has no per-task state: these change nothing. */
                break;
        case _SCHED_EVENT_TYPE_MAX:
        case _SCHED_EVENT_TYPE_INVALID:
                break;
        }
        return 0;
}

unsigned demand_cpu_util(const Demand *d, unsigned cpu) {
        if (cpu >= d->n_cpus)
                return 0;
        return MIN(d->cpus[cpu].pelt.util_avg, d->cpus[cpu].cpu_scale);
}

bool demand_cpu_busy(const Demand *d, unsigned cpu) {
        return cpu < d->n_cpus && d->cpus[cpu].busy;
}

uint64_t demand_cpu_idle_calls(const Demand *d, unsigned cpu) {
        return cpu < d->n_cpus ? d->cpus[cpu].idle_calls : 0;
}
