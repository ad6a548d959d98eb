/* SPDX-License-Identifier: GPL-2.0-or-later */
/* perf-events-hotplug.c: a CPU going offline (its fds and ring closed) and coming back (opened like the others). */
#include <assert.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <tracefs.h>

#include "events.h"
#include "log.h"
#include "perf-events-internal.h"
#include "perf-ring.h"
#include "time-util.h"
#include "tp-decode.h"
#include "tp-format.h"

/*
 * CPU hotplug. When a CPU goes offline, perf_event_exit_cpu() → perf_event_exit_cpu_context() removes every
 * per-CPU event from that CPU's context (__perf_remove_from_context(), state OFF), and nothing puts them back
 * when it returns (perf_event_init_cpu() only marks the context online again): the fds stay open but dead,
 * and perf_event_open() on the CPU fails with ENODEV meanwhile (the cpuctx->online check, kernel/events/
 * core.c). So a CPU is closed when it goes and opened anew when it comes back.
 *
 * p->cpus holds open CPUs only, in CPU order (every other loop relies on that): offline removes the CPU's
 * slot, online inserts one. Moving slots moves what the io sources point at, so their userdata is re-pointed
 * (perf_cpus_repoint()). Neither may run inside a drain (from the PerfEventsHandler): the merge holds
 * pointers to the slots.
 */
static PerfCpu *perf_events_find_cpu(PerfEvents *p, int cpu, size_t *ret_index) {
        for (size_t i = 0; i < p->n_cpus; i++)
                if (p->cpus[i].cpu == cpu) {
                        *ret_index = i;
                        return &p->cpus[i];
                }
        return NULL;
}

static void perf_cpus_repoint(PerfEvents *p) {
        for (size_t i = 0; i < p->n_cpus; i++)
                if (p->cpus[i].io)
                        (void) sd_event_source_set_userdata(p->cpus[i].io, &p->cpus[i]);
}

/* stats.cpus_skipped: requested CPUs neither open nor offline (perf refused them). */
static void perf_events_count_cpus(PerfEvents *p) {
        size_t dummy;
        unsigned skipped = 0;

        for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
                if (CPU_ISSET(cpu, &p->requested) && !CPU_ISSET(cpu, &p->offline) &&
                    !perf_events_find_cpu(p, cpu, &dummy))
                        skipped++;
        p->stats.cpus = (unsigned) p->n_cpus;
        p->stats.cpus_skipped = skipped;
}

static void perf_events_remove_cpu(PerfEvents *p, size_t i) {
        perf_cpu_close(&p->cpus[i]);
        memmove(&p->cpus[i], &p->cpus[i + 1], (p->n_cpus - i - 1) * sizeof(PerfCpu));
        p->n_cpus--;
        p->cpus[p->n_cpus] = (PerfCpu) {};
        perf_cpus_repoint(p);
}

int perf_events_cpu_offline(PerfEvents *p, int cpu) {
        const PerfRingStats *s;
        PerfCpu *c;
        size_t i;
        int r;

        if (!p || cpu < 0 || cpu >= CPU_SETSIZE)
                return -EINVAL;
        c = perf_events_find_cpu(p, cpu, &i);
        if (c) {
                /* What the ring still holds (written before the CPU went) is delivered first. */
                r = perf_events_drain(p);
                if (r < 0)
                        return r;
                /* Its counters live on in the totals (the drain refreshed them). */
                s = perf_ring_stats(c->ring);
                p->retired.lost += s->lost;
                p->retired.overruns += s->overruns;
                p->retired.malformed += s->malformed;
                p->retired.other += s->other;
                perf_events_remove_cpu(p, i);
        }
        CPU_SET(cpu, &p->offline);
        perf_events_count_cpus(p);
        return 0;
}

/* Room for one more open CPU in p->cpus, and in the merge heap for every requested one. */
static int perf_events_grow(PerfEvents *p) {
        size_t heap_n = MAX((size_t) CPU_COUNT(&p->requested), p->n_cpus + 1);
        PerfCpu **heap;
        PerfCpu *cpus;

        cpus = reallocarray(p->cpus, p->n_cpus + 1, sizeof(PerfCpu));
        if (!cpus)
                return -ENOMEM;
        p->cpus = cpus;
        perf_cpus_repoint(p);
        heap = reallocarray(p->heap, heap_n, sizeof(PerfCpu *));
        if (!heap)
                return -ENOMEM;
        p->heap = heap;
        return 0;
}

/* Opens CPU @cpu as the others are: every event of the plan, the lazy twins if they are open, the io source;
 * nothing enabled yet. */
static int perf_cpu_open_like_others(PerfEvents *p, int cpu, PerfCpu *c) {
        bool filter_error;
        int r;

        r = perf_cpu_open(p, p->ring_pages, cpu, c);
        if (r >= 0 && p->lazy_open)
                r = perf_cpu_open_lazy(p, p->ring_pages, c, &filter_error);
        if (r >= 0)
                r = perf_cpu_add_io(p, c);
        return r;
}

int perf_events_cpu_online(PerfEvents *p, int cpu) {
        PerfCpu c = {};
        size_t i, dummy;
        int r;

        if (!p || cpu < 0 || cpu >= CPU_SETSIZE)
                return -EINVAL;
        if (perf_events_find_cpu(p, cpu, &dummy))
                return 0;
        CPU_SET(cpu, &p->requested); /* before growing: the heap makes room for every requested CPU */
        r = perf_events_grow(p);
        if (r < 0)
                return r;

        r = perf_cpu_open_like_others(p, cpu, &c);
        if (r < 0) {
                perf_cpu_close(&c);
                log_debug_errno(r, "Cannot open the events of CPU %d: %m", cpu);
                return r; /* -ENODEV: the kernel has it offline */
        }
        for (i = 0; i < p->n_cpus && p->cpus[i].cpu < cpu; i++)
                ;
        memmove(&p->cpus[i + 1], &p->cpus[i], (p->n_cpus - i) * sizeof(PerfCpu));
        p->cpus[i] = c;
        p->n_cpus++;
        perf_cpus_repoint(p);

        /* The state every other CPU is in: watermark, immediate or lazy (with this CPU's lazy_cpus bit). */
        r = perf_cpu_switch(&p->cpus[i], p->state);
        if (r < 0) {
                perf_events_remove_cpu(p, i);
                return r;
        }
        CPU_CLR(cpu, &p->offline);
        perf_events_count_cpus(p);
        return 0;
}
