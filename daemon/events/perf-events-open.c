/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf-events-open.c: the tracepoint fds of the perf event source: their attributes and filters (per role), one
 * ring per CPU (the first fd, sched_switch, mmaps it; the others are redirected into it), the lazy twins of a
 * quiet set, and opening every requested CPU (see perf-events.c's header for the wake-up states they serve).
 */
#include <assert.h>
#include <fcntl.h>
#include <inttypes.h>
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

bool perf_is_wakeup(SchedEventType t) {
        return t == SCHED_EVENT_WAKEUP || t == SCHED_EVENT_WAKEUP_NEW;
}

bool perf_role_immediate(PerfFdRole role) {
        return role == ROLE_IMMEDIATE || role == ROLE_DETECTOR || role == ROLE_LAZY_IMMEDIATE;
}

void perf_fds_close(PerfFd *fds, size_t *n) {
        for (size_t i = 0; i < *n; i++)
                closep(&fds[i].fd);
        *n = 0;
}

void perf_cpu_close(PerfCpu *c) {
        c->io = sd_event_source_disable_unref(c->io);
        c->ring = perf_ring_free(c->ring);
        perf_fds_close(c->stale, &c->n_stale);
        perf_fds_close(c->lazy, &c->n_lazy);
        perf_fds_close(c->fds, &c->n_fds);
}

void perf_cpus_free(PerfCpu *cpus, size_t n) {
        for (size_t i = 0; i < n; i++)
                perf_cpu_close(&cpus[i]);
        free(cpus);
}

static void tracepoint_attr(const PerfEvents *p, unsigned ring_pages, const PerfFd *f, struct perf_event_attr *ret) {
        size_t ring_bytes = (size_t) ring_pages * (size_t) sysconf(_SC_PAGESIZE);

        *ret = (struct perf_event_attr) {
                .type = PERF_TYPE_TRACEPOINT,
                .size = sizeof(struct perf_event_attr),
                .config = p->format.events[f->type].id,
                .sample_period = 1,
                .sample_type = SAMPLE_TYPE,
                .disabled = 1,            /* enabled once the filters are in place */
                .use_clockid = 1,         /* sample times comparable with clock_gettime() */
                .clockid = CLOCK_MONOTONIC,
        };
        /*
         * The ring's watermark is the one of the event that mmaps it (rb_alloc() in perf_mmap(),
         * kernel/events/core.c): sched_switch, opened first. wakeup_events counts per event on the shared
         * ring (perf_output_sample()), so only the immediate twins (and the detector) wake us sample by
         * sample.
         */
        if (perf_role_immediate(f->role))
                ret->wakeup_events = 1;
        else {
                ret->watermark = 1;
                ret->wakeup_watermark = (uint32_t) (ring_bytes / 4);
        }
}

/* Appends to a filter being built; -E2BIG when it no longer fits (cannot happen with the quiet cap). */
_printf_(3, 4) static int filter_append(char *buf, size_t *len, const char *fmt, ...) {
        va_list ap;
        int n;

        va_start(ap, fmt);
        n = vsnprintf(buf + *len, FILTER_MAX - *len, fmt, ap);
        va_end(ap);
        if (n < 0 || (size_t) n >= FILTER_MAX - *len)
                return -E2BIG;
        *len += (size_t) n;
        return 0;
}

/*
 * The tracepoint filter of a role (trace_events_filter.c grammar: `==`, `!=`, `>=`, `&&`, `||`, parentheses;
 * `pid` is the wakee in sched_wakeup*, the running task in sched_stat_runtime). Empty for ROLE_ALWAYS.
 *
 * Why the own-pid filter: without it the daemon feeds on itself: reading the rings wakes it, its own
 * sched_wakeup sample wakes it again (wakeup_events=1), and so on: ~78k samples/s on an idle box instead of
 * ~77 (platform.md). Only the wake-up events need it (and the detector, which wakes us too). Filtering
 * sched_switch on the daemon's pid (prev_pid != P && next_pid != P) would also drop the other side of every
 * switch to or from the daemon: measured here, a task blocking 200 times on CPU 1 showed 35-67 of its 200
 * sleeps in immediate mode (the CPU often switches from it to the daemon), all 200 without. So the daemon's
 * own switches, migrations and exit are delivered like anyone's (its CPU time is load too).
 */
static int tracepoint_filter_build(const PerfEvents *p, PerfFdRole role, char buf[static FILTER_MAX]) {
        const char *pid = p->break_filters ? "no_such_field" : "pid";
        size_t len = 0;
        int r = 0;

        buf[0] = '\0';
        switch (role) {
        case ROLE_ALWAYS:
                return 0;
        case ROLE_WATERMARK:
        case ROLE_IMMEDIATE:
                return filter_append(buf, &len, "pid != %d", (int) p->self);
        case ROLE_DETECTOR:
                return filter_append(buf, &len, "runtime >= %" PRIu64 " && pid != %d", p->detector_runtime_ns,
                                     (int) p->self);
        case ROLE_LAZY_IMMEDIATE:
                r = filter_append(buf, &len, "pid != %d", (int) p->self);
                for (size_t i = 0; i < p->n_quiet && r >= 0; i++)
                        r = filter_append(buf, &len, " && %s != %d", pid, (int) p->quiet[i]);
                return r;
        case ROLE_LAZY_WATERMARK:
                r = filter_append(buf, &len, "pid != %d && (", (int) p->self);
                for (size_t i = 0; i < p->n_quiet && r >= 0; i++)
                        r = filter_append(buf, &len, "%s%s == %d", i > 0 ? " || " : "", pid, (int) p->quiet[i]);
                return r < 0 ? r : filter_append(buf, &len, ")");
        }
        return -EINVAL;
}

/*
 * Opens one tracepoint fd of CPU @cpu, disabled, with its filter. A filter the kernel refuses (EINVAL for a
 * bad expression or field, ENOENT for unbalanced parentheses, measured on 6.18) leaves the fd unfiltered:
 * it is closed, and *ret_filter_error set.
 */
static int tracepoint_open(const PerfEvents *p, unsigned ring_pages, const PerfFd *f, int cpu,
                           bool *ret_filter_error) {
        _cleanup_close_ int fd = -EBADF;
        struct perf_event_attr attr;
        char filter[FILTER_MAX];
        int r;

        *ret_filter_error = false;
        tracepoint_attr(p, ring_pages, f, &attr);
        fd = (int) syscall(SYS_perf_event_open, &attr, /* pid= */ -1, cpu, /* group_fd= */ -1,
                           PERF_FLAG_FD_CLOEXEC);
        if (fd < 0)
                return -errno;
        r = tracepoint_filter_build(p, f->role, filter);
        if (r >= 0 && filter[0] != '\0' && ioctl(fd, PERF_EVENT_IOC_SET_FILTER, filter) < 0)
                r = -errno;
        if (r < 0) {
                log_debug_errno(r, "perf refused the filter \"%.64s%s\" on CPU %d: %m", filter,
                                strlen(filter) > 64 ? "…" : "", cpu);
                *ret_filter_error = true;
                return r;
        }
        return TAKE_FD(fd);
}

/* Opens @f into CPU @c's ring (PERF_EVENT_IOC_SET_OUTPUT; the first fd, sched_switch, mmaps it). */
static int perf_fd_open(const PerfEvents *p, unsigned ring_pages, PerfCpu *c, PerfFd *f, bool *ret_filter_error) {
        f->enabled = false;
        f->fd = tracepoint_open(p, ring_pages, f, c->cpu, ret_filter_error);
        if (f->fd < 0)
                return f->fd;
        if (f == &c->fds[0])
                return perf_ring_mmap(f->fd, ring_pages, SAMPLE_TYPE, &c->ring);
        return ioctl(f->fd, PERF_EVENT_IOC_SET_OUTPUT, c->fds[0].fd) < 0 ? -errno : 0;
}

/* The fds of one CPU, in opening order: sched_switch first (it owns the ring), the wake-up twins, the
 * detector last. */
static void perf_cpu_plan(const PerfEvents *p, PerfCpu *c) {
        c->n_fds = 0;
        for (SchedEventType t = 0; t < _SCHED_EVENT_TYPE_MAX; t++) {
                if (t == SCHED_EVENT_RUNTIME && !(p->flags & PERF_EVENTS_STAT_RUNTIME))
                        continue;
                if (t == SCHED_EVENT_CPU_FREQUENCY && !(p->flags & PERF_EVENTS_CPU_FREQUENCY))
                        continue;
                if (!p->format.events[t].present) /* an optional event this kernel lacks */
                        continue;
                if (perf_is_wakeup(t)) {
                        c->fds[c->n_fds++] = (PerfFd) { .fd = -EBADF, .type = t, .role = ROLE_WATERMARK };
                        c->fds[c->n_fds++] = (PerfFd) { .fd = -EBADF, .type = t, .role = ROLE_IMMEDIATE };
                } else
                        c->fds[c->n_fds++] = (PerfFd) { .fd = -EBADF, .type = t, .role = ROLE_ALWAYS };
        }
        /* With PERF_EVENTS_STAT_RUNTIME every sched_stat_runtime is recorded already: no second fd. */
        if (p->detector)
                c->fds[c->n_fds++] = (PerfFd) { .fd = -EBADF, .type = SCHED_EVENT_RUNTIME, .role = ROLE_DETECTOR };
}

/*
 * Opens every event on one CPU into one ring, all disabled. A detector whose filter the kernel refuses is
 * dropped (on every CPU: lazy mode is then refused), not fatal.
 */
int perf_cpu_open(PerfEvents *p, unsigned ring_pages, int cpu, PerfCpu *c) {
        bool filter_error;
        int r;

        c->owner = p;
        c->cpu = cpu;
        perf_cpu_plan(p, c);
        for (size_t i = 0; i < c->n_fds; i++) {
                PerfFd *f = &c->fds[i];

                r = perf_fd_open(p, ring_pages, c, f, &filter_error);
                if (r < 0 && f->role == ROLE_DETECTOR && filter_error) {
                        log_debug_errno(r, "No busy detector (sched_stat_runtime filter refused): %m");
                        p->stats.filter_errors++;
                        p->detector = false;
                        c->n_fds--; /* the last one */
                        break;
                }
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Opens CPU @c's lazy twins for the current quiet set (disabled). */
int perf_cpu_open_lazy(PerfEvents *p, unsigned ring_pages, PerfCpu *c, bool *ret_filter_error) {
        int r;

        assert(c->n_lazy == 0);
        for (SchedEventType t = 0; t < _SCHED_EVENT_TYPE_MAX; t++) {
                if (!perf_is_wakeup(t) || !p->format.events[t].present)
                        continue;
                for (unsigned k = 0; k < 2; k++) {
                        PerfFd *f = &c->lazy[c->n_lazy++];

                        *f = (PerfFd) { .fd = -EBADF, .type = t,
                                        .role = k == 0 ? ROLE_LAZY_WATERMARK : ROLE_LAZY_IMMEDIATE };
                        r = perf_fd_open(p, ring_pages, c, f, ret_filter_error);
                        if (r < 0) {
                                perf_fds_close(c->lazy, &c->n_lazy);
                                return r;
                        }
                }
        }
        return 0;
}


