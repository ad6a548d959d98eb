/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tick-estimate.c: the recording kernel's tick from a trace's sched_stat_runtime reports (include/model.h). */

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "model.h"

/* kernel/Kconfig.hz's choices (HZ_100, HZ_250, HZ_300, HZ_1000), longest tick first. */
static const unsigned standard_hz[] = { 100, 250, 300, 1000 };
#define N_HZ ELEMENTSOF(standard_hz)
#define DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))

/*
 * The phase histogram's bins, and the window that counts as one grid point (two bins): a tick's report comes a
 * few µs after its hrtimer expires (tick_nohz_handler() → sched_tick() → task_tick_fair() → update_curr()),
 * tens of µs when interrupts were off.
 */
#define BIN_NS UINT64_C(25000)
#define WINDOW_NS (2 * BIN_NS)
/*
 * Phases are kept for half a second per CPU, then started again: a trace's clock (perf's and ftrace's default
 * is local_clock()) may drift from the CLOCK_MONOTONIC the tick's hrtimer runs on by tens of ppm, which over
 * seconds would smear one grid point over several windows.
 */
#define CHUNK_NS UINT64_C(500000000)

/* A standard tick, what every CPU's histogram for it needs. */
typedef struct Candidate {
        uint64_t tick_ns;         /* kernel_hz_tick_ns() */
        unsigned n_bins;          /* its phase histogram's bins (the last one shorter) */
        double p;                 /* the chance that a report at a random phase falls in a given window */
        double log_windows;       /* ln(n_bins): the spread of the fullest of that many windows (chance_fullest()) */
} Candidate;

typedef struct CpuPhases {
        uint64_t chunk_start_ns;
        unsigned n;               /* this chunk's reports */
        unsigned best[N_HZ];      /* this chunk's fullest window per candidate */
        unsigned *bins[N_HZ];     /* this chunk's reports by phase (time mod the candidate's tick), per candidate */
        /* the running task's last report, for outlasting (no switch since) */
        uint64_t last_ns;
        int32_t pid;
        bool chained;
} CpuPhases;

struct TickEstimate {
        Candidate cand[N_HZ];
        CpuPhases *cpu[CPU_SETSIZE];
        uint64_t on_grid[N_HZ];   /* Σ over CPUs and chunks of the fullest window */
        double chance[N_HZ];      /* Σ over CPUs and chunks of what the fullest window holds by chance */
        uint64_t outlasted[N_HZ]; /* runs without a report longer than the candidate's tick */
        uint64_t runs;            /* runs between two reports of one task, ran throughout */
        uint64_t reports;
};

int tick_estimate_new(TickEstimate **ret) {
        TickEstimate *t = calloc(1, sizeof(TickEstimate));

        if (!t)
                return -ENOMEM;
        for (size_t i = 0; i < N_HZ; i++) {
                Candidate *c = &t->cand[i];

                c->tick_ns = kernel_hz_tick_ns(standard_hz[i]);
                c->n_bins = (unsigned) DIV_ROUND_UP(c->tick_ns, BIN_NS);
                c->p = (double) WINDOW_NS / (double) c->tick_ns;
                c->log_windows = log((double) c->n_bins);
        }
        *ret = t;
        return 0;
}

static CpuPhases *cpu_phases_free(CpuPhases *c) {
        if (!c)
                return NULL;
        for (size_t i = 0; i < N_HZ; i++)
                free(c->bins[i]);
        free(c);
        return NULL;
}

TickEstimate *tick_estimate_free(TickEstimate *t) {
        if (!t)
                return NULL;
        for (size_t i = 0; i < ELEMENTSOF(t->cpu); i++)
                cpu_phases_free(t->cpu[i]);
        free(t);
        return NULL;
}

static CpuPhases *cpu_phases_new(const TickEstimate *t) {
        CpuPhases *c = calloc(1, sizeof(CpuPhases));

        if (!c)
                return NULL;
        for (size_t i = 0; i < N_HZ; i++) {
                c->bins[i] = calloc(t->cand[i].n_bins, sizeof(unsigned));
                if (!c->bins[i])
                        return cpu_phases_free(c);
        }
        return c;
}

static void chunk_restart(const TickEstimate *t, CpuPhases *c, uint64_t time_ns) {
        c->chunk_start_ns = time_ns;
        c->n = 0;
        for (size_t i = 0; i < N_HZ; i++) {
                memset(c->bins[i], 0, t->cand[i].n_bins * sizeof(unsigned));
                c->best[i] = 0;
        }
}

/*
 * The fullest of candidate @c's n_bins windows that @n reports at random phases fill, each with probability p: the
 * mean plus the spread of the largest of that many (the Gaussian tail, sqrt(2 ln k) deviations; enough for a bound,
 * as a true grid holds every tick's report).
 */
static double chance_fullest(const Candidate *c, unsigned n) {
        double mean = n * c->p;

        return mean + sqrt(2.0 * mean * c->log_windows);
}

/* A report into each candidate's phase histogram; a fuller window than before counts on that grid. */
static void add_phase(TickEstimate *t, CpuPhases *c, uint64_t time_ns) {
        if (time_ns - c->chunk_start_ns >= CHUNK_NS || time_ns < c->chunk_start_ns)
                chunk_restart(t, c, time_ns);
        c->n++;
        for (size_t i = 0; i < N_HZ; i++) {
                const Candidate *cand = &t->cand[i];
                unsigned n = cand->n_bins, b = (unsigned) (time_ns % cand->tick_ns / BIN_NS);
                unsigned *bins = c->bins[i];
                unsigned w;

                bins[b]++;
                w = bins[b] + MAX(bins[(b + 1) % n], bins[(b + n - 1) % n]);
                if (w > c->best[i]) {
                        t->on_grid[i] += w - c->best[i];
                        c->best[i] = w;
                }
                t->chance[i] += chance_fullest(cand, c->n) - chance_fullest(cand, c->n - 1);
        }
}

/*
 * Whether the task ran throughout the gap since its previous report: runtime= is the time since its previous
 * update_curr() on the runqueue's clock_task, which leaves out IRQ and steal time (update_rq_clock_task(),
 * kernel/sched/core.c), so a quarter of slack; a report after an update we did not see covers much less.
 */
static bool ran_throughout(uint64_t runtime_ns, uint64_t gap_ns) {
        return runtime_ns >= gap_ns - gap_ns / 4 && runtime_ns <= gap_ns + gap_ns / 10;
}

/* A run of @gap_ns without a report outlasts every tick it is more than a tenth longer than. */
static void add_run(TickEstimate *t, uint64_t gap_ns) {
        t->runs++;
        for (size_t i = 0; i < N_HZ; i++)
                if (gap_ns > t->cand[i].tick_ns + t->cand[i].tick_ns / 10)
                        t->outlasted[i]++;
}

void tick_estimate_event(TickEstimate *t, const SchedEvent *ev) {
        CpuPhases *c;

        if (ev->cpu < 0 || ev->cpu >= CPU_SETSIZE)
                return;
        if (ev->type != SCHED_EVENT_RUNTIME && ev->type != SCHED_EVENT_SWITCH)
                return;
        c = t->cpu[ev->cpu];
        if (!c) {
                if (ev->type == SCHED_EVENT_SWITCH)
                        return;
                c = t->cpu[ev->cpu] = cpu_phases_new(t);
                if (!c)
                        return; /* out of memory: this CPU is not measured */
                chunk_restart(t, c, ev->time_ns);
        }
        if (ev->type == SCHED_EVENT_SWITCH) {
                c->chained = false; /* another task (or the same, after a sleep): a new run */
                return;
        }
        t->reports++;
        add_phase(t, c, ev->time_ns);
        if (c->chained && c->pid == ev->runtime.pid && ev->time_ns > c->last_ns &&
            ran_throughout(ev->runtime.runtime_ns, ev->time_ns - c->last_ns))
                add_run(t, ev->time_ns - c->last_ns);
        c->last_ns = ev->time_ns;
        c->pid = ev->runtime.pid;
        c->chained = true;
}

/* Reports on candidate @i's grid beyond what as many at random phases would put in the fullest window. */
static double grid_excess(const TickEstimate *t, size_t i) {
        return (double) t->on_grid[i] - t->chance[i];
}

/*
 * A tick no running task outlasts: a CFS task reports at every tick it runs through, so a run longer than the
 * tick without a report says the tick is longer. A few runs may (a tick lost to an interrupted vCPU): up to 2
 * and one in 1024.
 */
static bool outlasted(const TickEstimate *t, size_t i) {
        return t->outlasted[i] > 2 + t->runs / 1024;
}

/* The winner's index, or -1: the longest tick not outlasted whose grid holds 3/4 of the best one's excess. */
static int decide(const TickEstimate *t) {
        double best = 0;

        for (size_t i = 0; i < N_HZ; i++)
                if (!outlasted(t, i))
                        best = MAX(best, grid_excess(t, i));
        if (best < TICK_ESTIMATE_MIN)
                return -1;
        for (size_t i = 0; i < N_HZ; i++) /* longest first */
                if (!outlasted(t, i) && grid_excess(t, i) * 4 >= best * 3)
                        return (int) i;
        return -1;
}

bool tick_estimate_enough(const TickEstimate *t) {
        int i = decide(t);

        return i >= 0 && grid_excess(t, (size_t) i) >= TICK_ESTIMATE_ENOUGH && t->runs >= TICK_ESTIMATE_ENOUGH;
}

int tick_estimate_result(const TickEstimate *t, TickEstimateResult *ret) {
        int i = decide(t);

        *ret = (TickEstimateResult) { .reports = t->reports };
        if (i < 0)
                return -ENODATA;
        ret->hz = standard_hz[i];
        ret->on_grid = t->on_grid[i];
        return (int) ret->hz;
}
