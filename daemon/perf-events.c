/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf-events.c: the per-CPU sched tracepoint fds, their rings and sd-event sources, the wakeup policy, and
 * the drain that merges the rings by time. Layouts come from tp-format.c, records are read by perf-ring.c and
 * decoded by sched-event.c; what the events mean is the engine's business. Measured costs and rates behind
 * the choices here: shared/notes/platform.md, "perf tracepoints", and bench/bench-events.c.
 *
 * Wake-up policy (issue #9: a quiet machine must wake the daemon at most a few times a second). Each CPU is
 * in one of three states, the same on every CPU:
 *
 *   WATERMARK  the watermark twins of sched_wakeup* (no wakeup_events) are enabled; nothing wakes the daemon
 *              but the ring watermark, so the drain timer (drain_interval) runs. The only state with a timer.
 *   IMMEDIATE  the immediate twins (wakeup_events=1) are enabled: every sched_wakeup* sample wakes the
 *              daemon. Nothing periodic runs: drains come from those wake-ups, the watermark, and the
 *              manager's own tick while a CPU is busy (it calls perf_events_drain()).
 *   LAZY       IMMEDIATE with a quiet set (perf_events_set_quiet()): a third pair of sched_wakeup* fds, the
 *              "lazy twins", splits the wake-ups by pid: the quiet pids' go to a watermark twin (recorded,
 *              no wake-up), everyone else's to an immediate twin. Every wake-up is recorded exactly once.
 *
 * The busy detector (sched_stat_runtime, wakeup_events=1, runtime >= 1 ms) is enabled in every state: a task
 * that has run 1 ms without a break (in LAZY, a hog a quiet task started) wakes the daemon at the CPU's next
 * tick, and its samples keep the model from ending a running task's run (role_enabled_in()).
 *
 * A tracepoint fd takes exactly one filter in its life (ftrace_profile_set_filter() returns EEXIST once
 * event->filter is set, checked on 6.18), so the lazy twins are opened anew for every quiet set and closed
 * when it changes or lazy mode ends. The adaptive rate is measured at drains, whatever triggers them; when
 * it crosses the threshold the state goes to WATERMARK (timer armed), and back to IMMEDIATE or LAZY below a
 * quarter of it (the quiet set is kept meanwhile and re-applied then).
 *
 * Switch windows: a switch enables the fds of the new state first, then disables the old ones, CPU by CPU.
 * A wake-up raised between the two ioctls (tens of µs on this VM) is recorded by both: never lost. The two
 * samples of one tracepoint hit are adjacent records of the CPU's ring with the same payload: perf_tp_event()
 * writes one per matching event, and try_to_wake_up() / wake_up_new_task() trace with interrupts off
 * (p->pi_lock, irqsave), so nothing else is recorded on that CPU in between. Their times may differ by tens
 * of µs here (a self-IPI per immediate sample is a VM exit). The drain drops the second of two adjacent,
 * identical wake-ups that fall in the CPU's switch window (stats.duplicates; measured by test-perf-lazy:
 * ~500 dropped over ~800 back-to-back switches while a task was woken 1000 times, none lost or left twice;
 * without the drop all ~500 are delivered twice). What it could drop wrongly: two real wake-ups of a task
 * that runs on another CPU, woken twice from this one with nothing else recorded here in between, inside a
 * switch window; a wake-up of a running task changes nothing for the model.
 */

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

#include "log.h"
#include "perf-events.h"
#include "perf-ring.h"
#include "tp-decode.h"
#include "tp-format.h"
#include "time-util.h"

/*
 * PERF_SAMPLE_PERIOD is not optional: with it, a tracepoint that counts more than 1 per hit
 * (sched_stat_runtime counts its runtime, __perf_count()) gives one sample carrying the count instead of one
 * sample per unit until throttled (perf_swevent_event() in kernel/events/core.c; measured, platform.md).
 */
#define SAMPLE_TYPE (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW)
#define RATE_WINDOW_NS (100 * UINT64_C(1000000))
#define BATCH_MIN 1024
/* PERF_EVENT_IOC_SET_FILTER copies at most a page, NUL included (strndup_user(arg, PAGE_SIZE)): measured on
 * 6.18, 4095 characters are accepted and 4096 give EINVAL. 64 quiet pids take at most ~1.4 kB. */
#define FILTER_MAX 4096
#define LAZY_FDS 4                        /* the lazy twins of sched_wakeup and sched_wakeup_new */
#define FDS_MAX (_SCHED_EVENT_TYPE_MAX + 3) /* one per event, the immediate twins, the busy detector */
#define DETECTOR_RUNTIME_NS 1000000       /* "busy": ran 1 ms without a break */

/*
 * What a tracepoint fd is for, hence its attributes, its filter and the states it is enabled in. sched_wakeup
 * and sched_wakeup_new are opened twice on each CPU, with wakeup_events=1 (the immediate twin) and without
 * (the watermark twin), and again twice per quiet set (the lazy twins); exactly one of those is enabled for
 * any wake-up. Why not keep the immediate ones and just stop watching the ring fds when busy: each per-sample
 * wake-up costs the kernel an irq_work (a self-IPI, a VM exit here) whether or not anyone waits. Measured
 * with stress-ng --switch 2 (ns per context switch): 4.7 without tracing, 8.9 watermark, 28.8 immediate,
 * 27.4 immediate with the ring fds unwatched.
 */
typedef enum PerfFdRole {
        ROLE_ALWAYS,              /* every state: sched_switch, migrate, exit, (stat_runtime, stat_iowait) */
        ROLE_WATERMARK,           /* sched_wakeup*, no wakeup_events, `pid != SELF` */
        ROLE_IMMEDIATE,           /* sched_wakeup*, wakeup_events=1, `pid != SELF` */
        ROLE_DETECTOR,            /* sched_stat_runtime, wakeup_events=1, `runtime >= 1000000 && pid != SELF` */
        ROLE_LAZY_IMMEDIATE,      /* sched_wakeup*, wakeup_events=1, `pid != SELF && pid != Q1 && ...` */
        ROLE_LAZY_WATERMARK,      /* sched_wakeup*, no wakeup_events, `pid != SELF && (pid == Q1 || ...)` */
} PerfFdRole;

typedef enum PerfState {
        STATE_WATERMARK,
        STATE_IMMEDIATE,
        STATE_LAZY,
} PerfState;

typedef struct PerfFd {
        int fd;
        SchedEventType type;
        PerfFdRole role;
        bool enabled;
} PerfFd;

typedef struct PerfCpu {
        PerfEvents *owner;
        int cpu;
        PerfFd fds[FDS_MAX];              /* fds[0] is sched_switch: it owns the ring */
        size_t n_fds;
        PerfFd lazy[LAZY_FDS];            /* the lazy twins of the current quiet set, if open */
        size_t n_lazy;
        PerfFd stale[LAZY_FDS];           /* those of the previous set, during a switch */
        size_t n_stale;
        PerfRing *ring;
        sd_event_source *io;
        size_t run, run_end;              /* during a drain: this ring's events in owner->batch */

        uint64_t switch_from_ns, switch_until_ns; /* the last switch window (both sets of fds enabled) */
        uint64_t collected_ns;            /* when the last drain started reading this ring */
        uint64_t lost_reported;           /* of this ring's stats.lost, handed to the lost handler (a new ring: 0) */
        bool lazy_ok;                     /* in STATE_LAZY, this CPU uses the lazy twins (see lazy_cpus) */
        SchedEvent last_wakeup;           /* the last record read from this ring, if a wake-up */
        bool has_last_wakeup;
} PerfCpu;

struct PerfEvents {
        sd_event *event;
        cpu_set_t requested;
        PerfEventsFlags flags;
        PerfEventsHandler handler;
        PerfEventsLostHandler lost_handler;
        void *userdata;
        pid_t self;
        TpFormat format;

        unsigned ring_pages;              /* of the open generation of fds */
        uint64_t drain_interval_usec;
        uint64_t adaptive_high_per_sec;

        PerfCpu *cpus;
        size_t n_cpus;
        PerfCpu **heap;                   /* merge heap, room for every requested CPU */
        sd_event_source *timer;           /* the drain timer: enabled in STATE_WATERMARK only */

        PerfState state;                  /* applied on every CPU */
        int32_t quiet[PERF_EVENTS_QUIET_MAX]; /* the quiet set, sorted; applied while immediate */
        size_t n_quiet;
        bool lazy_open;                   /* every CPU's lazy twins for this set are open */
        cpu_set_t lazy_cpus;              /* the CPUs whose quiet wake-ups may be lazy (perf_events_set_lazy_cpus()) */
        bool detector;                    /* the busy detector is open (not with PERF_EVENTS_STAT_RUNTIME) */
        cpu_set_t offline;                /* closed by perf_events_cpu_offline(): no generation opens them */
        bool break_filters;               /* test hook */

        SchedEvent *batch;                /* reused across drains: grows to the high-water mark only */
        size_t n_batch, batch_allocated;

        uint64_t window_start_ns, window_events;
        uint64_t decode_errors;
        PerfRingStats retired;            /* counters of rings closed by a reconfigure */
        PerfEventsStats stats;
};

static bool is_wakeup(SchedEventType t) {
        return t == SCHED_EVENT_WAKEUP || t == SCHED_EVENT_WAKEUP_NEW;
}

static bool role_immediate(PerfFdRole role) {
        return role == ROLE_IMMEDIATE || role == ROLE_DETECTOR || role == ROLE_LAZY_IMMEDIATE;
}

/*
 * In STATE_LAZY a CPU not in lazy_cpus keeps its immediate twins: a quiet task's wake-up recorded there may
 * change a frequency (its policy is above the floor). The detector runs on every CPU in every state: in
 * STATE_LAZY a quiet task woken lazily elsewhere may run long here, and in all of them it is the evidence that
 * a task still runs, without which the model takes a CPU's silence for a lost switch-out and ends the run of
 * a hog after 3 ticks (demand_cpu_silent(); perf_events_reports_runtime()). A hog costs one sample per tick.
 */
static bool role_enabled_in(PerfFdRole role, PerfState s, bool lazy_ok) {
        switch (role) {
        case ROLE_ALWAYS:
                return true;
        case ROLE_WATERMARK:
                return s == STATE_WATERMARK;
        case ROLE_IMMEDIATE:
                return s == STATE_IMMEDIATE || (s == STATE_LAZY && !lazy_ok);
        case ROLE_DETECTOR:
                return true;
        case ROLE_LAZY_IMMEDIATE:
        case ROLE_LAZY_WATERMARK:
                return s == STATE_LAZY && lazy_ok;
        }
        return false;
}

bool perf_events_reports_runtime(const PerfEvents *p) {
        return p && (p->detector || (p->flags & PERF_EVENTS_STAT_RUNTIME));
}

static int config_check(const Config *cfg) {
        if (cfg->ring_pages == 0 || (cfg->ring_pages & (cfg->ring_pages - 1)) != 0 ||
            cfg->drain_interval_usec == 0 || cfg->wakeup < 0 || cfg->wakeup >= _WAKEUP_MODE_MAX)
                return -EINVAL;
        return 0;
}

static void perf_fds_close(PerfFd *fds, size_t *n) {
        for (size_t i = 0; i < *n; i++)
                closep(&fds[i].fd);
        *n = 0;
}

static void perf_cpu_close(PerfCpu *c) {
        c->io = sd_event_source_disable_unref(c->io);
        c->ring = perf_ring_free(c->ring);
        perf_fds_close(c->stale, &c->n_stale);
        perf_fds_close(c->lazy, &c->n_lazy);
        perf_fds_close(c->fds, &c->n_fds);
}

static void perf_cpus_free(PerfCpu *cpus, size_t n) {
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
        if (role_immediate(f->role))
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
                return filter_append(buf, &len, "runtime >= %d && pid != %d", DETECTOR_RUNTIME_NS, (int) p->self);
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
                if (is_wakeup(t)) {
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
static int perf_cpu_open(PerfEvents *p, unsigned ring_pages, int cpu, PerfCpu *c) {
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
static int perf_cpu_open_lazy(PerfEvents *p, unsigned ring_pages, PerfCpu *c, bool *ret_filter_error) {
        int r;

        assert(c->n_lazy == 0);
        for (SchedEventType t = 0; t < _SCHED_EVENT_TYPE_MAX; t++) {
                if (!is_wakeup(t) || !p->format.events[t].present)
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

static int on_ring_readable(sd_event_source *s, int fd, uint32_t revents, void *userdata);

static int perf_cpu_add_io(PerfEvents *p, PerfCpu *c) {
        char description[32];
        int r;

        r = sd_event_add_io(p->event, &c->io, c->fds[0].fd, EPOLLIN, on_ring_readable, c);
        if (r < 0)
                return r;
        snprintf(description, sizeof(description), "perf-ring-cpu%d", c->cpu);
        (void) sd_event_source_set_description(c->io, description);
        (void) sd_event_source_set_exit_on_failure(c->io, true);
        return 0;
}

/* A CPU the kernel does not have (an emulated sysfs may list more than the real machine): skip it. */
static bool cpu_missing_error(int r) {
        return r == -ENODEV || r == -EINVAL || r == -ENXIO;
}

/* Opens every requested CPU (one generation of fds and rings), all events still disabled. */
static int perf_cpus_open(PerfEvents *p, unsigned ring_pages, PerfCpu **ret, size_t *ret_n,
                          unsigned *ret_skipped) {
        size_t n = 0, want = (size_t) CPU_COUNT(&p->requested);
        PerfCpu *cpus;
        unsigned skipped = 0;
        int r, first_error = 0;

        cpus = calloc(MAX(want, (size_t) 1), sizeof(PerfCpu));
        if (!cpus)
                return -ENOMEM;
        for (int cpu = 0; cpu < CPU_SETSIZE && n + skipped < want; cpu++) {
                if (!CPU_ISSET(cpu, &p->requested) || CPU_ISSET(cpu, &p->offline))
                        continue;
                r = perf_cpu_open(p, ring_pages, cpu, &cpus[n]);
                if (r >= 0)
                        r = perf_cpu_add_io(p, &cpus[n]);
                if (r >= 0) {
                        n++;
                        continue;
                }
                perf_cpu_close(&cpus[n]);
                if (!cpu_missing_error(r))
                        goto fail;
                log_debug_errno(r, "perf refused CPU %d, skipping it: %m", cpu);
                first_error = first_error ?: r;
                skipped++;
        }
        r = n > 0 ? 0 : (first_error ?: -ENODEV);
        if (r < 0)
                goto fail;
        *ret = cpus;
        *ret_n = n;
        *ret_skipped = skipped;
        return 0;
fail:
        perf_cpus_free(cpus, n);
        return r;
}

static int perf_fd_set_enabled(PerfFd *f, bool enable) {
        if (f->enabled == enable)
                return 0;
        if (ioctl(f->fd, enable ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0) < 0)
                return -errno;
        f->enabled = enable;
        return 0;
}

/*
 * Puts one CPU in state @to: first enables what @to needs, then disables the rest (the stale lazy twins
 * included), so a wake-up raised in between is recorded twice, never missed; the drain drops the second
 * copy (see "Switch windows" above). The window is remembered for that; one not yet drained is extended.
 */
static int perf_cpu_switch(PerfCpu *c, PerfState to) {
        PerfFd *sets[] = { c->fds, c->lazy, c->stale };
        const size_t counts[] = { c->n_fds, c->n_lazy, c->n_stale };
        uint64_t from = monotonic_ns();
        bool changed = false;
        int r = 0;

        c->lazy_ok = CPU_ISSET(c->cpu, &c->owner->lazy_cpus);
        for (unsigned pass = 0; pass < 2 && r >= 0; pass++)
                for (unsigned s = 0; s < ELEMENTSOF(sets) && r >= 0; s++)
                        for (size_t k = 0; k < counts[s] && r >= 0; k++) {
                                PerfFd *f = &sets[s][k];
                                bool enable = sets[s] != c->stale && role_enabled_in(f->role, to, c->lazy_ok);

                                if (enable != (pass == 0) || f->enabled == enable)
                                        continue;
                                r = perf_fd_set_enabled(f, enable);
                                changed = true;
                        }
        if (!changed)
                return r;
        if (c->switch_until_ns == 0 || c->switch_until_ns < c->collected_ns)
                c->switch_from_ns = from;
        c->switch_until_ns = monotonic_ns();
        return r;
}

/* Enables a new generation of CPUs (nothing enabled yet) in state @to. */
static int perf_cpus_enable(PerfCpu *cpus, size_t n, PerfState to) {
        int r;

        for (size_t i = 0; i < n; i++) {
                r = perf_cpu_switch(&cpus[i], to);
                if (r < 0)
                        return r;
        }
        return 0;
}

static void perf_events_forget_quiet(PerfEvents *p) {
        p->n_quiet = 0;
        p->stats.quiet_pids = 0;
}

/*
 * Opens the lazy twins of the quiet set on every CPU of a generation. On failure none stay open, the quiet
 * set is forgotten (the caller falls back to STATE_IMMEDIATE) and a refused filter is counted.
 */
static int perf_cpus_open_lazy(PerfEvents *p, unsigned ring_pages, PerfCpu *cpus, size_t n) {
        bool filter_error = false;
        int r = 0;

        for (size_t i = 0; i < n && r >= 0; i++)
                if (cpus[i].n_lazy == 0)
                        r = perf_cpu_open_lazy(p, ring_pages, &cpus[i], &filter_error);
        if (r >= 0)
                return 0;
        for (size_t i = 0; i < n; i++) /* all disabled: opened just now */
                perf_fds_close(cpus[i].lazy, &cpus[i].n_lazy);
        p->stats.filter_errors += filter_error;
        perf_events_forget_quiet(p);
        log_debug_errno(r, "Cannot open the lazy wake-up events, staying in immediate mode: %m");
        return r;
}

static int perf_events_update_timer(PerfEvents *p) {
        int enabled = SD_EVENT_OFF, r;

        if (!p->timer)
                return 0;
        if (p->state != STATE_WATERMARK)
                return sd_event_source_set_enabled(p->timer, SD_EVENT_OFF);
        (void) sd_event_source_get_enabled(p->timer, &enabled);
        if (enabled != SD_EVENT_OFF)
                return 0;
        r = sd_event_source_set_time_relative(p->timer, p->drain_interval_usec);
        if (r < 0)
                return r;
        return sd_event_source_set_enabled(p->timer, SD_EVENT_ON);
}

/* Some CPU whose quiet wake-ups may be lazy (lazy_cpus) is open. */
static bool any_lazy_cpu(const PerfEvents *p) {
        for (size_t i = 0; i < p->n_cpus; i++)
                if (CPU_ISSET(p->cpus[i].cpu, &p->lazy_cpus))
                        return true;
        return false;
}

/*
 * Applies the wake-up state for @immediate: WATERMARK, or IMMEDIATE, or LAZY when there is a quiet set
 * (opening its lazy twins if needed). Returns a negative errno if an ioctl failed (the state may then be
 * mixed). A quiet set that cannot be applied (a refused filter, no fds left) makes it IMMEDIATE instead: that
 * error is returned in *ret_lazy_error, not as the result.
 */
static int perf_events_apply(PerfEvents *p, bool immediate, int *ret_lazy_error) {
        PerfState to = !immediate ? STATE_WATERMARK :
                       p->n_quiet > 0 && any_lazy_cpu(p) ? STATE_LAZY : STATE_IMMEDIATE;
        bool was_lazy = p->stats.lazy, changed = false;
        int r;

        *ret_lazy_error = 0;
        if (to == STATE_LAZY && !p->lazy_open) {
                r = perf_cpus_open_lazy(p, p->ring_pages, p->cpus, p->n_cpus);
                if (r < 0) {
                        *ret_lazy_error = r;
                        to = STATE_IMMEDIATE;
                } else
                        p->lazy_open = true;
        }
        for (size_t i = 0; i < p->n_cpus; i++) {
                PerfCpu *c = &p->cpus[i];

                if (to == p->state && c->n_stale == 0 &&
                    (to != STATE_LAZY || c->lazy_ok == CPU_ISSET(c->cpu, &p->lazy_cpus)))
                        continue;
                changed = true;
                r = perf_cpu_switch(c, to);
                if (r < 0)
                        return r;
                perf_fds_close(c->stale, &c->n_stale);
        }
        if (p->state != to && (to == STATE_WATERMARK || p->state == STATE_WATERMARK))
                p->stats.mode_switches++;
        p->state = to;
        p->stats.immediate = to != STATE_WATERMARK;
        p->stats.lazy = to == STATE_LAZY;
        if (changed && (was_lazy || p->stats.lazy))
                p->stats.lazy_switches++;
        return perf_events_update_timer(p);
}

/* Measures the event rate over RATE_WINDOW_NS windows (or longer: it is measured at drains, whatever
 * triggers them); adaptive mode switches with a 4:1 hysteresis. */
static int perf_events_rate_update(PerfEvents *p, size_t n_events) {
        uint64_t now = monotonic_ns(), dt = now - p->window_start_ns;
        int lazy_error;

        p->window_events += n_events;
        if (dt < RATE_WINDOW_NS)
                return 0;
        p->stats.rate_per_sec = p->window_events * UINT64_C(1000000000) / dt;
        p->window_start_ns = now;
        p->window_events = 0;

        if (p->stats.mode != WAKEUP_MODE_ADAPTIVE)
                return 0;
        if (p->stats.immediate && p->stats.rate_per_sec > p->adaptive_high_per_sec)
                return perf_events_apply(p, false, &lazy_error);
        if (!p->stats.immediate && p->stats.rate_per_sec < p->adaptive_high_per_sec / 4)
                return perf_events_apply(p, true, &lazy_error); /* a lazy failure: counted, immediate */
        return 0;
}

static void perf_events_refresh_stats(PerfEvents *p) {
        PerfRingStats sum = p->retired;

        for (size_t i = 0; i < p->n_cpus; i++) {
                const PerfRingStats *s = perf_ring_stats(p->cpus[i].ring);

                sum.lost += s->lost;
                sum.overruns += s->overruns;
                sum.malformed += s->malformed;
                sum.other += s->other;
        }
        p->stats.lost = sum.lost;
        p->stats.overruns = sum.overruns;
        p->stats.malformed = sum.malformed + p->decode_errors;
        p->stats.other_records = sum.other;
}

static int batch_reserve(PerfEvents *p) {
        size_t want;
        SchedEvent *b;

        if (p->n_batch < p->batch_allocated)
                return 0;
        want = MAX(p->batch_allocated * 2, (size_t) BATCH_MIN);
        b = reallocarray(p->batch, want, sizeof(SchedEvent));
        if (!b)
                return -ENOMEM;
        p->batch = b;
        p->batch_allocated = want;
        return 0;
}

static bool same_wakeup(const SchedEvent *a, const SchedEvent *b) {
        return a->type == b->type && a->wakeup.pid == b->wakeup.pid && a->wakeup.prio == b->wakeup.prio &&
               a->wakeup.target_cpu == b->wakeup.target_cpu &&
               strncmp(a->wakeup.comm, b->wakeup.comm, TASK_COMM_LEN) == 0;
}

/*
 * Whether @ev is the second copy of a wake-up recorded twice in a switch window: the record just before it
 * in this ring is the same wake-up (see "Switch windows" above).
 */
static bool wakeup_duplicate(PerfCpu *c, const SchedEvent *ev) {
        bool dup;

        if (!is_wakeup(ev->type)) {
                c->has_last_wakeup = false;
                return false;
        }
        dup = c->has_last_wakeup && ev->time_ns >= c->switch_from_ns && ev->time_ns <= c->switch_until_ns &&
              same_wakeup(&c->last_wakeup, ev);
        c->has_last_wakeup = !dup; /* a third copy is impossible: each generation's filters partition */
        c->last_wakeup = *ev;
        return dup;
}

/*
 * A ring is time-ordered but for nesting: a sample raised in an interrupt between another sample's
 * timestamp and its space reservation lands after it with a later time (perf_prepare_sample() then
 * perf_output_begin(), kernel/events/core.c). Insertion sort: stable, and linear on such input.
 */
static void run_sort(SchedEvent *ev, size_t n) {
        for (size_t i = 1; i < n; i++) {
                SchedEvent tmp;
                size_t j = i;

                if (ev[i - 1].time_ns <= ev[i].time_ns)
                        continue;
                tmp = ev[i];
                while (j > 0 && ev[j - 1].time_ns > tmp.time_ns) {
                        ev[j] = ev[j - 1];
                        j--;
                }
                ev[j] = tmp;
        }
}

/* Reads one ring to the end, decoding into the batch; its events become the sorted run [run, run_end). */
static int perf_cpu_collect(PerfEvents *p, PerfCpu *c) {
        PerfSample s;
        int k = 0;

        c->run = p->n_batch;
        c->collected_ns = monotonic_ns();
        if (perf_ring_read_begin(c->ring) > 0)
                while ((k = batch_reserve(p)) >= 0 && (k = perf_ring_read_sample(c->ring, &s)) > 0) {
                        SchedEvent *ev = &p->batch[p->n_batch];

                        if (sched_event_decode(&p->format, s.raw, s.raw_size, ev) < 0) {
                                p->decode_errors++;
                                c->has_last_wakeup = false;
                                continue;
                        }
                        ev->time_ns = s.time_ns;
                        ev->cpu = (int) s.cpu;
                        ev->has_context = true;
                        ev->context_pid = (int32_t) s.tid;
                        if (wakeup_duplicate(c, ev)) {
                                p->stats.duplicates++;
                                continue;
                        }
                        p->n_batch++;
                }
        perf_ring_read_end(c->ring);
        c->run_end = p->n_batch;
        run_sort(p->batch + c->run, c->run_end - c->run);
        return MIN(k, 0);
}

/* Heap order: earlier head event first; on equal times the lower CPU, so the merge is stable. */
static bool head_before(const PerfEvents *p, const PerfCpu *a, const PerfCpu *b) {
        uint64_t ta = p->batch[a->run].time_ns, tb = p->batch[b->run].time_ns;

        return ta < tb || (ta == tb && a < b);
}

static void heap_sift_down(PerfEvents *p, size_t n, size_t i) {
        for (;;) {
                size_t l = 2 * i + 1, m = i;
                PerfCpu *tmp;

                if (l < n && head_before(p, p->heap[l], p->heap[m]))
                        m = l;
                if (l + 1 < n && head_before(p, p->heap[l + 1], p->heap[m]))
                        m = l + 1;
                if (m == i)
                        return;
                tmp = p->heap[i];
                p->heap[i] = p->heap[m];
                p->heap[m] = tmp;
                i = m;
        }
}

/* K-way merge of the per-CPU runs (each sorted) into the handler. */
static int perf_events_deliver(PerfEvents *p) {
        size_t n = 0;
        int r;

        for (size_t i = 0; i < p->n_cpus; i++)
                if (p->cpus[i].run < p->cpus[i].run_end)
                        p->heap[n++] = &p->cpus[i];
        for (size_t i = n / 2; i-- > 0;)
                heap_sift_down(p, n, i);

        while (n > 0) {
                PerfCpu *c = p->heap[0];

                r = p->handler(&p->batch[c->run++], p->userdata);
                if (r < 0)
                        return r;
                p->stats.samples++;
                if (c->run == c->run_end)
                        p->heap[0] = p->heap[--n];
                heap_sift_down(p, n, 0);
        }
        return 0;
}

/*
 * The kernel writes PERF_RECORD_LOST when space comes back after a full ring (perf_output_begin(),
 * kernel/events/ring_buffer.c), so a loss found in this drain lies before the events read with it: the
 * handler hears of it first.
 */
static int perf_events_report_lost(PerfEvents *p) {
        for (size_t i = 0; i < p->n_cpus; i++) {
                PerfCpu *c = &p->cpus[i];
                uint64_t lost = perf_ring_stats(c->ring)->lost, at_ns;
                int r;

                if (lost <= c->lost_reported)
                        continue;
                at_ns = c->run < c->run_end ? p->batch[c->run].time_ns : c->collected_ns;
                r = p->lost_handler ? p->lost_handler(c->cpu, lost - c->lost_reported, at_ns, p->userdata) : 0;
                c->lost_reported = lost;
                if (r < 0)
                        return r;
        }
        return 0;
}

int perf_events_drain(PerfEvents *p) {
        int r = 0;

        p->stats.drains++;
        p->n_batch = 0;
        for (size_t i = 0; i < p->n_cpus && r >= 0; i++)
                r = perf_cpu_collect(p, &p->cpus[i]);
        perf_events_refresh_stats(p);
        if (r >= 0)
                r = perf_events_rate_update(p, p->n_batch);
        if (r >= 0)
                r = perf_events_report_lost(p);
        if (r < 0)
                return r;
        return perf_events_deliver(p);
}

void perf_events_set_lost_handler(PerfEvents *p, PerfEventsLostHandler handler) {
        p->lost_handler = handler;
}

static int on_ring_readable(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        PerfCpu *c = ASSERT_PTR(userdata);

        /*
         * The event is gone (or broken): stop watching it, or the loop would spin; its ring is still read by
         * every drain (the timer's in watermark mode, the other rings' wake-ups, the manager's tick).
         */
        if (revents & (EPOLLHUP | EPOLLERR))
                (void) sd_event_source_set_enabled(s, SD_EVENT_OFF);
        c->owner->stats.wakeups++;
        return perf_events_drain(c->owner);
}

static int on_drain_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        PerfEvents *p = ASSERT_PTR(userdata);
        int r;

        /* Re-armed first: a drain that goes back to immediate turns the timer off. */
        r = sd_event_source_set_time_relative(s, p->drain_interval_usec);
        if (r < 0)
                return r;
        return perf_events_drain(p);
}

/* The drain timer, created off: perf_events_update_timer() turns it on in STATE_WATERMARK only. */
static int perf_events_add_timer(PerfEvents *p) {
        int r;

        /* Accuracy 1/16 of the interval: timely, yet lets sd-event coalesce wake-ups. */
        r = sd_event_add_time_relative(p->event, &p->timer, CLOCK_MONOTONIC, p->drain_interval_usec,
                                       MAX(p->drain_interval_usec / 16, (uint64_t) 1), on_drain_timer, p);
        if (r < 0)
                return r;
        (void) sd_event_source_set_description(p->timer, "perf-drain");
        (void) sd_event_source_set_exit_on_failure(p->timer, true);
        return sd_event_source_set_enabled(p->timer, SD_EVENT_OFF);
}

/* tracefs, mounted by libtracefs if it is not (tracefs_tracing_dir() mounts it at /sys/kernel/tracing). */
static int load_format(TpFormat *ret, char **ret_error) {
        _cleanup_free_ char *events_dir = NULL;
        const char *tracing;

        tracing = tracefs_tracing_dir();
        if (!tracing)
                return errno > 0 ? -errno : -ENOENT;
        if (asprintf(&events_dir, "%s/events", tracing) < 0)
                return -ENOMEM;
        return tp_format_load(events_dir, ret, ret_error);
}

static int perf_events_load_format(PerfEvents *p) {
        _cleanup_free_ char *error = NULL;
        int r;

        r = load_format(&p->format, &error);
        if (r < 0)
                log_debug_errno(r, "Cannot read the sched tracepoint formats: %s", error ?: strerror(-r));
        return r;
}

int perf_events_format_error(char **ret) {
        _cleanup_free_ char *error = NULL;
        TpFormat format = {};
        int r;

        r = load_format(&format, &error);
        if (r >= 0)
                return 0;
        *ret = TAKE_PTR(error);
        return r;
}

int perf_events_new_flags(sd_event *event, const cpu_set_t *cpus, const Config *cfg, PerfEventsFlags flags,
                          PerfEventsHandler handler, void *userdata, PerfEvents **ret) {
        _cleanup_(perf_events_freep) PerfEvents *p = NULL;
        unsigned skipped;
        int r;

        if (!event || !cpus || !cfg || !handler || !ret || config_check(cfg) < 0)
                return -EINVAL;
        p = calloc(1, sizeof(PerfEvents));
        if (!p)
                return -ENOMEM;
        p->event = sd_event_ref(event);
        p->requested = *cpus;
        p->lazy_cpus = *cpus;
        p->flags = flags;
        p->handler = handler;
        p->userdata = userdata;
        p->self = getpid();
        p->ring_pages = cfg->ring_pages;
        p->drain_interval_usec = cfg->drain_interval_usec;
        p->adaptive_high_per_sec = cfg->adaptive_high_per_sec;
        p->stats.mode = cfg->wakeup;
        p->state = STATE_WATERMARK; /* nothing enabled yet; the state is entered below */
        p->window_start_ns = monotonic_ns();

        p->heap = calloc(MAX((size_t) CPU_COUNT(cpus), (size_t) 1), sizeof(PerfCpu *));
        if (!p->heap)
                return -ENOMEM;
        r = perf_events_load_format(p);
        if (r < 0)
                return r;
        p->stats.iowait = p->format.events[SCHED_EVENT_STAT_IOWAIT].present;
        p->stats.cpu_frequency = (flags & PERF_EVENTS_CPU_FREQUENCY) &&
                                 p->format.events[SCHED_EVENT_CPU_FREQUENCY].present;
        p->detector = !(flags & PERF_EVENTS_STAT_RUNTIME);
        r = perf_cpus_open(p, p->ring_pages, &p->cpus, &p->n_cpus, &skipped);
        if (r < 0)
                return r;
        p->stats.cpus = (unsigned) p->n_cpus;
        p->stats.cpus_skipped = skipped;

        r = perf_events_add_timer(p);
        if (r < 0)
                return r;
        p->state = cfg->wakeup != WAKEUP_MODE_WATERMARK ? STATE_IMMEDIATE : STATE_WATERMARK;
        p->stats.immediate = p->state != STATE_WATERMARK;
        r = perf_cpus_enable(p->cpus, p->n_cpus, p->state);
        if (r < 0)
                return r;
        r = perf_events_update_timer(p);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(p);
        return 0;
}

int perf_events_new(sd_event *event, const cpu_set_t *cpus, const Config *cfg, PerfEventsHandler handler,
                    void *userdata, PerfEvents **ret) {
        return perf_events_new_flags(event, cpus, cfg, 0, handler, userdata, ret);
}

static int pid_compare(const void *a, const void *b) {
        int32_t x = *(const int32_t *) a, y = *(const int32_t *) b;

        return x < y ? -1 : x > y;
}

int perf_events_set_quiet(PerfEvents *p, const int32_t *pids, size_t n_pids) {
        int32_t set[PERF_EVENTS_QUIET_MAX];
        size_t n = 0;
        int r, lazy_error;

        if (!p || (n_pids > 0 && !pids))
                return -EINVAL;
        for (size_t i = 0; i < n_pids; i++)
                if (pids[i] <= 0)
                        return -EINVAL;
        /* The first PERF_EVENTS_QUIET_MAX distinct pids; our own is filtered out everywhere already. */
        for (size_t i = 0; i < n_pids && n < PERF_EVENTS_QUIET_MAX; i++) {
                bool dup = pids[i] == (int32_t) p->self;

                for (size_t k = 0; k < n && !dup; k++)
                        dup = set[k] == pids[i];
                if (!dup)
                        set[n++] = pids[i];
        }
        qsort(set, n, sizeof(set[0]), pid_compare);
        if (n == p->n_quiet && memcmp(set, p->quiet, n * sizeof(set[0])) == 0)
                return 0;
        if (n > 0 && !p->detector && !(p->flags & PERF_EVENTS_STAT_RUNTIME))
                return -EOPNOTSUPP; /* no way to see a hog started by a quiet task */

        /* The twins of the old set are filtered on it: retire them (disabled and closed by the switch). */
        for (size_t i = 0; i < p->n_cpus; i++) {
                PerfCpu *c = &p->cpus[i];

                perf_fds_close(c->stale, &c->n_stale); /* left by a switch that failed half-way */
                memcpy(c->stale, c->lazy, sizeof(c->lazy));
                c->n_stale = c->n_lazy;
                c->n_lazy = 0;
        }
        p->lazy_open = false;
        memcpy(p->quiet, set, n * sizeof(set[0]));
        p->n_quiet = n;
        p->stats.quiet_pids = (unsigned) n;
        r = perf_events_apply(p, p->stats.immediate, &lazy_error);
        return r < 0 ? r : lazy_error;
}

int perf_events_set_lazy_cpus(PerfEvents *p, const cpu_set_t *cpus) {
        int lazy_error;

        if (!p || !cpus)
                return -EINVAL;
        if (CPU_EQUAL(cpus, &p->lazy_cpus))
                return 0;
        p->lazy_cpus = *cpus;
        if (!p->stats.immediate || p->n_quiet == 0)
                return 0; /* remembered: applied with the quiet set, or when adaptive goes back to immediate */
        return perf_events_apply(p, true, &lazy_error);
}

/* Replaces every fd and ring with a new generation of @ring_pages; the old one is drained first. */
static int perf_events_reopen(PerfEvents *p, unsigned ring_pages) {
        PerfCpu *cpus = NULL;
        PerfState state = p->state;
        size_t n = 0;
        unsigned skipped;
        int r;

        r = perf_events_drain(p);
        if (r < 0)
                return r;
        r = perf_cpus_open(p, ring_pages, &cpus, &n, &skipped);
        if (r < 0)
                return r;
        if (state == STATE_LAZY && perf_cpus_open_lazy(p, ring_pages, cpus, n) < 0)
                state = STATE_IMMEDIATE; /* the quiet set is forgotten */
        r = perf_cpus_enable(cpus, n, state);
        if (r < 0) {
                perf_cpus_free(cpus, n);
                return r;
        }
        p->retired.lost = p->stats.lost;
        p->retired.overruns = p->stats.overruns;
        p->retired.malformed = p->stats.malformed - p->decode_errors;
        p->retired.other = p->stats.other_records;
        perf_cpus_free(p->cpus, p->n_cpus);
        p->cpus = cpus;
        p->n_cpus = n;
        p->ring_pages = ring_pages;
        p->stats.cpus = (unsigned) n;
        p->stats.cpus_skipped = skipped;
        p->lazy_open = state == STATE_LAZY;
        if (state != p->state)
                p->stats.lazy_switches++;
        p->state = state;
        p->stats.lazy = state == STATE_LAZY;
        return 0;
}

int perf_events_reconfigure(PerfEvents *p, const Config *cfg) {
        int r, lazy_error;

        if (config_check(cfg) < 0)
                return -EINVAL;
        if (cfg->ring_pages != p->ring_pages) {
                r = perf_events_reopen(p, cfg->ring_pages);
                if (r < 0)
                        return r;
        }
        p->drain_interval_usec = cfg->drain_interval_usec;
        p->adaptive_high_per_sec = cfg->adaptive_high_per_sec;
        (void) sd_event_source_set_time_accuracy(p->timer, MAX(p->drain_interval_usec / 16, (uint64_t) 1));
        if (p->state == STATE_WATERMARK) {
                r = sd_event_source_set_time_relative(p->timer, p->drain_interval_usec);
                if (r < 0)
                        return r;
        }
        /* A new mode starts in its own state (adaptive starts immediate); the same mode keeps its state. */
        if (cfg->wakeup != p->stats.mode) {
                r = perf_events_apply(p, cfg->wakeup != WAKEUP_MODE_WATERMARK, &lazy_error);
                if (r < 0)
                        return r;
                p->stats.mode = cfg->wakeup;
        }
        return 0;
}

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

const PerfEventsStats *perf_events_stats(const PerfEvents *p) {
        return &p->stats;
}

int perf_events_ring_fd(const PerfEvents *p, int cpu) {
        for (size_t i = 0; i < p->n_cpus; i++)
                if (p->cpus[i].cpu == cpu)
                        return p->cpus[i].fds[0].fd;
        return -ENOENT;
}

sd_event_source *perf_events_drain_timer(const PerfEvents *p) {
        return p->timer;
}

void perf_events_test_break_filters(PerfEvents *p, bool b) {
        p->break_filters = b;
}

PerfEvents *perf_events_free(PerfEvents *p) {
        if (!p)
                return NULL;
        perf_cpus_free(p->cpus, p->n_cpus);
        sd_event_source_disable_unref(p->timer);
        sd_event_unref(p->event);
        free(p->heap);
        free(p->batch);
        free(p);
        return NULL;
}
