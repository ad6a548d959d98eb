/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf-events.c: the per-CPU sched tracepoint fds, their rings and sd-event sources, the wakeup policy, and
 * the drain that merges the rings by time. Layouts come from tp-format.c, records are read by perf-ring.c and
 * decoded by sched-event.c; what the events mean is the engine's business. Measured costs and rates behind
 * the choices here: shared/notes/platform.md, "perf tracepoints", and bench/bench-events.c.
 */

#include <fcntl.h>
#include <linux/perf_event.h>
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
#include "tp-format.h"

/*
 * PERF_SAMPLE_PERIOD is not optional: with it, a tracepoint that counts more than 1 per hit
 * (sched_stat_runtime counts its runtime, __perf_count()) gives one sample carrying the count instead of one
 * sample per unit until throttled (perf_swevent_event() in kernel/events/core.c; measured, platform.md).
 */
#define SAMPLE_TYPE (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW)
#define RATE_WINDOW_NS (100 * UINT64_C(1000000))
#define BATCH_MIN 1024
#define FILTER_MAX 64
#define FDS_MAX (_SCHED_EVENT_TYPE_MAX + 2)

/*
 * One tracepoint fd. sched_wakeup and sched_wakeup_new are opened twice on each CPU, with wakeup_events=1
 * ("immediate" twin) and without; exactly one twin is enabled. Why not keep the immediate ones and just stop
 * watching the ring fds when busy: each per-sample wake-up costs the kernel an irq_work (a self-IPI, a VM
 * exit here) whether or not anyone waits. Measured with stress-ng --switch 2 (ns per context switch): 4.7
 * without tracing, 8.9 watermark, 28.8 immediate, 27.4 immediate with the ring fds unwatched.
 */
typedef struct PerfFd {
        int fd;
        SchedEventType type;
        bool immediate;
} PerfFd;

typedef struct PerfCpu {
        PerfEvents *owner;
        int cpu;
        PerfFd fds[FDS_MAX];              /* fds[0] is sched_switch: it owns the ring */
        size_t n_fds;
        PerfRing *ring;
        sd_event_source *io;
        size_t run, run_end;              /* during a drain: this ring's events in owner->batch */
} PerfCpu;

struct PerfEvents {
        sd_event *event;
        cpu_set_t requested;
        PerfEventsFlags flags;
        PerfEventsHandler handler;
        void *userdata;
        pid_t self;
        TpFormat format;

        unsigned ring_pages;              /* of the open generation of fds */
        uint64_t drain_interval_usec;
        uint64_t adaptive_high_per_sec;

        PerfCpu *cpus;
        size_t n_cpus;
        PerfCpu **heap;                   /* merge heap, room for every requested CPU */
        sd_event_source *timer;

        SchedEvent *batch;                /* reused across drains: grows to the high-water mark only */
        size_t n_batch, batch_allocated;

        uint64_t window_start_ns, window_events;
        uint64_t decode_errors;
        PerfRingStats retired;            /* counters of rings closed by a reconfigure */
        PerfEventsStats stats;
};

static uint64_t now_ns(void) {
        struct timespec ts;

        (void) clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * UINT64_C(1000000000) + (uint64_t) ts.tv_nsec;
}

static bool is_wakeup(SchedEventType t) {
        return t == SCHED_EVENT_WAKEUP || t == SCHED_EVENT_WAKEUP_NEW;
}

static int config_check(const Config *cfg) {
        if (cfg->ring_pages == 0 || (cfg->ring_pages & (cfg->ring_pages - 1)) != 0 ||
            cfg->drain_interval_usec == 0 || cfg->wakeup < 0 || cfg->wakeup >= _WAKEUP_MODE_MAX)
                return -EINVAL;
        return 0;
}

static void perf_cpu_close(PerfCpu *c) {
        c->io = sd_event_source_disable_unref(c->io);
        c->ring = perf_ring_free(c->ring);
        for (size_t i = 0; i < c->n_fds; i++)
                closep(&c->fds[i].fd);
        c->n_fds = 0;
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
         * ring (perf_output_sample()), so only the immediate twins wake us sample by sample.
         */
        if (f->immediate)
                ret->wakeup_events = 1;
        else {
                ret->watermark = 1;
                ret->wakeup_watermark = (uint32_t) (ring_bytes / 4);
        }
}

/*
 * Without this the daemon feeds on itself: reading the rings wakes it, its own sched_wakeup sample wakes it
 * again (wakeup_events=1), and so on: ~78k samples/s on an idle box instead of ~77 (platform.md). Only the
 * wake-up events need it. Filtering sched_switch on the daemon's pid (prev_pid != P && next_pid != P) would
 * also drop the other side of every switch to or from the daemon: measured here, a task blocking 200 times
 * on CPU 1 showed 35-67 of its 200 sleeps in immediate mode (the CPU often switches from it to the daemon),
 * all 200 without. So the daemon's own switches, migrations and exit are delivered like anyone's (its CPU
 * time is load too).
 */
static int tracepoint_filter(int fd, SchedEventType t, pid_t self) {
        char filter[FILTER_MAX];

        if (!is_wakeup(t))
                return 0;
        snprintf(filter, sizeof(filter), "pid != %d", (int) self);
        if (ioctl(fd, PERF_EVENT_IOC_SET_FILTER, filter) < 0)
                return -errno;
        return 0;
}

static int tracepoint_open(const PerfEvents *p, unsigned ring_pages, const PerfFd *f, int cpu) {
        struct perf_event_attr attr;
        int fd;

        tracepoint_attr(p, ring_pages, f, &attr);
        fd = (int) syscall(SYS_perf_event_open, &attr, /* pid= */ -1, cpu, /* group_fd= */ -1,
                           PERF_FLAG_FD_CLOEXEC);
        if (fd < 0)
                return -errno;
        return fd;
}

/* The fds of one CPU, in opening order: sched_switch first (it owns the ring), then the wake-up twins. */
static void perf_cpu_plan(const PerfEvents *p, PerfCpu *c) {
        c->n_fds = 0;
        for (SchedEventType t = 0; t < _SCHED_EVENT_TYPE_MAX; t++) {
                if (t == SCHED_EVENT_RUNTIME && !(p->flags & PERF_EVENTS_STAT_RUNTIME))
                        continue;
                if (!p->format.events[t].present) /* an optional event this kernel lacks */
                        continue;
                c->fds[c->n_fds++] = (PerfFd) { .fd = -EBADF, .type = t };
                if (is_wakeup(t))
                        c->fds[c->n_fds++] = (PerfFd) { .fd = -EBADF, .type = t, .immediate = true };
        }
}

/*
 * Opens every event on one CPU into one ring: the first fd is mmapped, the others write into it through
 * PERF_EVENT_IOC_SET_OUTPUT. All stay disabled.
 */
static int perf_cpu_open(PerfEvents *p, unsigned ring_pages, int cpu, PerfCpu *c) {
        int r;

        c->owner = p;
        c->cpu = cpu;
        perf_cpu_plan(p, c);
        for (size_t i = 0; i < c->n_fds; i++) {
                PerfFd *f = &c->fds[i];

                f->fd = tracepoint_open(p, ring_pages, f, cpu);
                if (f->fd < 0)
                        return f->fd;
                r = tracepoint_filter(f->fd, f->type, p->self);
                if (r < 0)
                        return r;
                if (i == 0)
                        r = perf_ring_mmap(f->fd, ring_pages, SAMPLE_TYPE, &c->ring);
                else
                        r = ioctl(f->fd, PERF_EVENT_IOC_SET_OUTPUT, c->fds[0].fd) < 0 ? -errno : 0;
                if (r < 0)
                        return r;
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
                if (!CPU_ISSET(cpu, &p->requested))
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

static int perf_fd_ioctl(const PerfFd *f, unsigned long request) {
        return ioctl(f->fd, request, 0) < 0 ? -errno : 0;
}

/* Enables every event of a generation: all but the wake-up twins not matching @immediate. */
static int perf_cpus_enable(PerfCpu *cpus, size_t n, bool immediate) {
        int r;

        for (size_t i = 0; i < n; i++)
                for (size_t k = 0; k < cpus[i].n_fds; k++) {
                        const PerfFd *f = &cpus[i].fds[k];

                        if (is_wakeup(f->type) && f->immediate != immediate)
                                continue;
                        r = perf_fd_ioctl(f, PERF_EVENT_IOC_ENABLE);
                        if (r < 0)
                                return r;
                }
        return 0;
}

/*
 * Swaps one CPU's wake-up twins: disable, then enable, so no wake-up is recorded twice; one raised between
 * the ioctls (microseconds, on a rare transition) is missed.
 */
static int perf_cpu_swap_twins(PerfCpu *c, bool immediate) {
        int r;

        for (unsigned pass = 0; pass < 2; pass++)
                for (size_t k = 0; k < c->n_fds; k++) {
                        const PerfFd *f = &c->fds[k];
                        bool enable = f->immediate == immediate;

                        if (!is_wakeup(f->type) || enable != (pass == 1))
                                continue;
                        r = perf_fd_ioctl(f, enable ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE);
                        if (r < 0)
                                return r;
                }
        return 0;
}

static int perf_events_set_immediate(PerfEvents *p, bool immediate) {
        int r;

        if (p->stats.immediate == immediate)
                return 0;
        for (size_t i = 0; i < p->n_cpus; i++) {
                r = perf_cpu_swap_twins(&p->cpus[i], immediate);
                if (r < 0)
                        return r;
        }
        p->stats.immediate = immediate;
        p->stats.mode_switches++;
        return 0;
}

/* Measures the event rate over RATE_WINDOW_NS windows; adaptive mode switches with a 4:1 hysteresis. */
static int perf_events_rate_update(PerfEvents *p, size_t n_events) {
        uint64_t now = now_ns(), dt = now - p->window_start_ns;

        p->window_events += n_events;
        if (dt < RATE_WINDOW_NS)
                return 0;
        p->stats.rate_per_sec = p->window_events * UINT64_C(1000000000) / dt;
        p->window_start_ns = now;
        p->window_events = 0;

        if (p->stats.mode != WAKEUP_MODE_ADAPTIVE)
                return 0;
        if (p->stats.immediate && p->stats.rate_per_sec > p->adaptive_high_per_sec)
                return perf_events_set_immediate(p, false);
        if (!p->stats.immediate && p->stats.rate_per_sec < p->adaptive_high_per_sec / 4)
                return perf_events_set_immediate(p, true);
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
        if (perf_ring_read_begin(c->ring) > 0)
                while ((k = batch_reserve(p)) >= 0 && (k = perf_ring_read_sample(c->ring, &s)) > 0) {
                        SchedEvent *ev = &p->batch[p->n_batch];

                        if (sched_event_decode(&p->format, s.raw, s.raw_size, ev) < 0) {
                                p->decode_errors++;
                                continue;
                        }
                        ev->time_ns = s.time_ns;
                        ev->cpu = (int) s.cpu;
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

int perf_events_drain(PerfEvents *p) {
        int r = 0;

        p->stats.drains++;
        p->n_batch = 0;
        for (size_t i = 0; i < p->n_cpus && r >= 0; i++)
                r = perf_cpu_collect(p, &p->cpus[i]);
        perf_events_refresh_stats(p);
        if (r >= 0)
                r = perf_events_rate_update(p, p->n_batch);
        if (r < 0)
                return r;
        return perf_events_deliver(p);
}

static int on_ring_readable(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        PerfCpu *c = ASSERT_PTR(userdata);

        /* The event is gone (or broken): stop watching it, or the loop would spin; the timer still drains. */
        if (revents & (EPOLLHUP | EPOLLERR))
                (void) sd_event_source_set_enabled(s, SD_EVENT_OFF);
        c->owner->stats.wakeups++;
        return perf_events_drain(c->owner);
}

static int on_drain_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        PerfEvents *p = ASSERT_PTR(userdata);
        int r;

        r = sd_event_source_set_time_relative(s, p->drain_interval_usec);
        if (r < 0)
                return r;
        return perf_events_drain(p);
}

static int perf_events_add_timer(PerfEvents *p) {
        int r;

        /* Accuracy 1/16 of the interval: timely, yet lets sd-event coalesce wake-ups. */
        r = sd_event_add_time_relative(p->event, &p->timer, CLOCK_MONOTONIC, p->drain_interval_usec,
                                       MAX(p->drain_interval_usec / 16, (uint64_t) 1), on_drain_timer, p);
        if (r < 0)
                return r;
        (void) sd_event_source_set_description(p->timer, "perf-drain");
        (void) sd_event_source_set_exit_on_failure(p->timer, true);
        return sd_event_source_set_enabled(p->timer, SD_EVENT_ON);
}

/* tracefs, mounted by libtracefs if it is not (tracefs_tracing_dir() mounts it at /sys/kernel/tracing). */
static int perf_events_load_format(PerfEvents *p) {
        _cleanup_free_ char *events_dir = NULL, *error = NULL;
        const char *tracing;
        int r;

        tracing = tracefs_tracing_dir();
        if (!tracing)
                return errno > 0 ? -errno : -ENOENT;
        if (asprintf(&events_dir, "%s/events", tracing) < 0)
                return -ENOMEM;
        r = tp_format_load(events_dir, &p->format, &error);
        if (r < 0)
                log_debug_errno(r, "Cannot read the sched tracepoint formats: %s", error ?: strerror(-r));
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
        p->flags = flags;
        p->handler = handler;
        p->userdata = userdata;
        p->self = getpid();
        p->ring_pages = cfg->ring_pages;
        p->drain_interval_usec = cfg->drain_interval_usec;
        p->adaptive_high_per_sec = cfg->adaptive_high_per_sec;
        p->stats.mode = cfg->wakeup;
        p->stats.immediate = cfg->wakeup != WAKEUP_MODE_WATERMARK;
        p->window_start_ns = now_ns();

        p->heap = calloc(MAX((size_t) CPU_COUNT(cpus), (size_t) 1), sizeof(PerfCpu *));
        if (!p->heap)
                return -ENOMEM;
        r = perf_events_load_format(p);
        if (r < 0)
                return r;
        p->stats.iowait = p->format.events[SCHED_EVENT_STAT_IOWAIT].present;
        r = perf_cpus_open(p, p->ring_pages, &p->cpus, &p->n_cpus, &skipped);
        if (r < 0)
                return r;
        p->stats.cpus = (unsigned) p->n_cpus;
        p->stats.cpus_skipped = skipped;

        r = perf_events_add_timer(p);
        if (r < 0)
                return r;
        r = perf_cpus_enable(p->cpus, p->n_cpus, p->stats.immediate);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(p);
        return 0;
}

int perf_events_new(sd_event *event, const cpu_set_t *cpus, const Config *cfg, PerfEventsHandler handler,
                    void *userdata, PerfEvents **ret) {
        return perf_events_new_flags(event, cpus, cfg, 0, handler, userdata, ret);
}

/* Replaces every fd and ring with a new generation of @ring_pages; the old one is drained first. */
static int perf_events_reopen(PerfEvents *p, unsigned ring_pages) {
        PerfCpu *cpus = NULL;
        size_t n = 0;
        unsigned skipped;
        int r;

        r = perf_events_drain(p);
        if (r < 0)
                return r;
        r = perf_cpus_open(p, ring_pages, &cpus, &n, &skipped);
        if (r < 0)
                return r;
        r = perf_cpus_enable(cpus, n, p->stats.immediate);
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
        return 0;
}

int perf_events_reconfigure(PerfEvents *p, const Config *cfg) {
        int r;

        if (config_check(cfg) < 0)
                return -EINVAL;
        if (cfg->ring_pages != p->ring_pages) {
                r = perf_events_reopen(p, cfg->ring_pages);
                if (r < 0)
                        return r;
        }
        /* A new mode starts in its own state (adaptive starts immediate); the same mode keeps its state. */
        if (cfg->wakeup != p->stats.mode) {
                r = perf_events_set_immediate(p, cfg->wakeup != WAKEUP_MODE_WATERMARK);
                if (r < 0)
                        return r;
                p->stats.mode = cfg->wakeup;
        }
        p->drain_interval_usec = cfg->drain_interval_usec;
        p->adaptive_high_per_sec = cfg->adaptive_high_per_sec;
        (void) sd_event_source_set_time_accuracy(p->timer, MAX(p->drain_interval_usec / 16, (uint64_t) 1));
        return sd_event_source_set_time_relative(p->timer, p->drain_interval_usec);
}

const PerfEventsStats *perf_events_stats(const PerfEvents *p) {
        return &p->stats;
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
