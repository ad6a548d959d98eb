/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * replay.c: the replay driver (include/replay.h): reads a `perf script` trace line by line, each parsed by
 * trace-parse.c, runs its events through the engine with synthetic ticks on the trace's clock, and prints the
 * decisions (as a table, replay-report.c, or as lines for scripts), the comparison with the kernel's
 * power:cpu_frequency and the summary.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc-util.h"
#include "cpulist.h"
#include "events.h"
#include "governor.h"
#include "macro.h"
#include "model.h"
#include "replay.h"
#include "replay-lookahead.h"
#include "replay-report.h"
#include "time-util.h"

/*
 * --csv (replay.h): seconds with all nine decimals, so that rows sort and join like the text's t=<ns>. With
 * --print-util a leading `record` column tells decision rows from util rows, and four columns more hold the
 * signals only util rows have.
 */
#define CSV_HEADER "time_s,policy,freq_khz,util,cpu,kind,reason"
#define CSV_HEADER_UTIL "record," CSV_HEADER ",util_est,runnable,rt,eff"

static void csv_print_time(FILE *f, uint64_t t_ns) {
        fprintf(f, "%" PRIu64 ".%09" PRIu64, t_ns / NSEC_PER_SEC, t_ns % NSEC_PER_SEC);
}

static void csv_print_decision(FILE *f, const Decision *d, const Topology *t, bool with_util) {
        if (with_util)
                fputs("decision,", f);
        csv_print_time(f, d->time_ns);
        fprintf(f, ",%d,%" PRIu32 ",%u,%d,%s,%s%s\n", decision_policy_cpu(d, t), d->new_khz, d->util, d->cpu,
                decision_kind_to_string(d->kind), decision_reason_to_string(d->reason), with_util ? ",,,," : "");
}

/* A util row: policy is the CPU's (empty for a CPU outside every policy); freq_khz, kind and reason are empty. */
static void csv_print_util(FILE *f, uint64_t time_ns, unsigned cpu, const CpuState *cs, const Topology *t) {
        const PolicyDesc *p = topology_policy_of_cpu(t, cpu);
        int first = p ? cpulist_first(&p->cpus) : -1;

        fputs("util,", f);
        csv_print_time(f, time_ns);
        fputc(',', f);
        if (first >= 0)
                fprintf(f, "%d", first);
        fprintf(f, ",,%u,%u,,,%u,%u,%u,%u\n", cs->util_avg, cpu, cs->util_est_sum, cs->runnable_avg, cs->rt_avg,
                cs->effective);
}

/* A task as the trace names it. */
typedef struct ReplayTask {
        int32_t pid;
        char comm[TASK_COMM_LEN];
} ReplayTask;

typedef struct ReplayContext {
        FILE *out;
        const Topology *topo;
        ReplayStats *stats;
        Engine *engine;
        ReplayFlags flags;
        CpuState *printed;        /* --print-util: per CPU, what was printed last */
        bool *printed_valid;
        unsigned n_cpus;
        cpu_set_t cpus;           /* the CPUs of the topology: possible, or in a policy */
        uint64_t settle_ns;       /* replay_settle_ns() */
        uint64_t last_change_ns;  /* time of the last decision */
        uint64_t latest_ns;       /* the latest event time applied */
        FreqCompare *compare;     /* ours against the kernel's power:cpu_frequency */
        uint64_t latest_kernel_ns; /* the latest power:cpu_frequency time */
        bool compare_started;     /* our initial frequencies were fed */
        uint64_t tick_ns;         /* the synthetic ticks' period (cfg->tick_usec, or measured: replay_tick_set()) */
        bool tick_auto;           /* tick_ms = auto: measured before the first event */
        char tick_text[128];      /* the summary's "tick" line: the tick and where it came from */
        uint64_t next_tick_ns;    /* the next one, while ticking */
        bool ticking;             /* some CPU is busy: ticks run */
        ReplayReport *report;     /* the table's start time and the summary's figures */
        ReplayTask cause;         /* REPLAY_TABLE: the task of the event being applied */
        ReplayTask *running;      /* REPLAY_TABLE: per CPU, the task switched in last (pid 0: idle) */
        bool header_printed;      /* REPLAY_TABLE: the table's header, before its first row */
        TraceTextFormat text_format; /* a text trace's layout: its first event line's */
        const char *unit;         /* what stats->lines counts, for "NAME:<unit>N: reason": "" lines, "record " */
        ReplayQueue held;         /* events held back to infer lost switch-ins (replay-lookahead.h) */
        uint64_t applied_ns;      /* the latest time of an event applied */
} ReplayContext;

/* The table, unless a format for scripts was asked for (those win: replay.h). */
static bool replay_table(ReplayFlags flags) {
        return (flags & REPLAY_TABLE) && !(flags & (REPLAY_CSV | REPLAY_PRINT_UTIL | REPLAY_PRINT_REASON));
}

/*
 * The name of @d's task. The engine names the task of the event it applies, or at a tick the one running on
 * the ticked CPU (engine-inputs.c): the last switched in there. NULL when neither is it (a model that missed a
 * switch).
 */
static const char *replay_task_name(const ReplayContext *ctx, const Decision *d) {
        if (d->pid <= 0)
                return NULL;
        if (ctx->cause.pid == d->pid)
                return ctx->cause.comm;
        if (ctx->running && d->cpu >= 0 && (unsigned) d->cpu < ctx->n_cpus && ctx->running[d->cpu].pid == d->pid)
                return ctx->running[d->cpu].comm;
        return NULL;
}

static void replay_print_row(ReplayContext *ctx, const Decision *d) {
        if (!ctx->header_printed) {
                replay_report_print_header(ctx->out);
                ctx->header_printed = true;
        }
        replay_report_print_decision(ctx->report, ctx->out, d, ctx->flags & REPLAY_ABSOLUTE_TIME,
                                     replay_task_name(ctx, d));
}

static int on_replay_decision(const Decision *d, void *userdata) {
        ReplayContext *ctx = ASSERT_PTR(userdata);

        int r;

        if (replay_table(ctx->flags))
                replay_print_row(ctx, d);
        else if (ctx->flags & REPLAY_CSV)
                csv_print_decision(ctx->out, d, ctx->topo, ctx->flags & REPLAY_PRINT_UTIL);
        else if (ctx->flags & REPLAY_PRINT_REASON)
                decision_print_details(ctx->out, d, ctx->topo);
        else
                decision_print(ctx->out, d, ctx->topo);
        ctx->stats->changes++;
        ctx->last_change_ns = d->time_ns;
        freq_compare_ours(ctx->compare, d->policy_index, d->time_ns, d->new_khz);
        r = replay_report_decision(ctx->report, d);
        if (r < 0)
                return r;
        return 0;
}

static int make_error(char **ret_error, const char *name, const char *unit, uint64_t line, const char *reason);

/*
 * From the trace's first time on, the engine's initial frequencies (the topology's cur_khz) are ours; it is
 * also the table's time 0 and where the summary's time at each frequency starts.
 */
static void compare_start(ReplayContext *ctx, uint64_t time_ns) {
        if (ctx->compare_started)
                return;
        ctx->compare_started = true;
        for (size_t i = 0; i < ctx->topo->n_policies; i++) {
                uint32_t khz = engine_policy_khz(ctx->engine, (unsigned) i);

                freq_compare_ours(ctx->compare, (unsigned) i, time_ns, khz);
                replay_report_start(ctx->report, (unsigned) i, time_ns, khz);
        }
}

/* A power:cpu_frequency's cpu_id= must be a CPU of the topology. Returns 1, or the error. */
static int replay_check_kernel_cpu(ReplayContext *ctx, const TraceCpuFrequency *f, const char *name,
                                   char **ret_error) {
        if (f->cpu >= CPU_SETSIZE || !CPU_ISSET(f->cpu, &ctx->cpus))
                return make_error(ret_error, name, ctx->unit, ctx->stats->lines,
                                  "power:cpu_frequency for a CPU outside the topology");
        return 1;
}

/*
 * A power:cpu_frequency line: the kernel's frequency, for the comparison. Returns 1 when @line was one (with
 * *@ret filled), 0 when not, or an error for a malformed one or a CPU outside the topology.
 */
static int replay_kernel_frequency_parse(ReplayContext *ctx, const char *line, const char *name,
                                         TraceCpuFrequency *ret, char **ret_error) {
        int r;

        r = trace_parse_cpu_frequency(line, ret);
        if (r < 0)
                return make_error(ret_error, name, ctx->unit, ctx->stats->lines,
                                  "power:cpu_frequency without a valid state= or cpu_id=");
        if (r > 0)
                return replay_check_kernel_cpu(ctx, ret, name, ret_error);
        return r;
}

/* Feeds it, after the ticks up to its time (the decisions they make come before it, as in the kernel). */
static void replay_kernel_frequency(ReplayContext *ctx, const TraceCpuFrequency *f) {
        compare_start(ctx, f->time_ns);
        if (freq_compare_kernel(ctx->compare, f->cpu, f->time_ns, f->khz) >= 0)
                ctx->stats->kernel_frequencies++;
        ctx->latest_kernel_ns = MAX(ctx->latest_kernel_ns, f->time_ns);
}

static bool cpu_signals_equal(const CpuState *a, const CpuState *b) {
        return a->util_avg == b->util_avg && a->util_est_sum == b->util_est_sum && a->runnable_avg == b->runnable_avg &&
               a->rt_avg == b->rt_avg && a->effective == b->effective;
}

/* --print-util: one line per CPU whose signals changed since the last line printed for it. */
static void replay_print_util(ReplayContext *ctx, uint64_t time_ns) {
        if (!(ctx->flags & REPLAY_PRINT_UTIL))
                return;
        for (unsigned cpu = 0; cpu < ctx->n_cpus; cpu++) {
                CpuState cs;

                if (engine_cpu_state(ctx->engine, cpu, &cs) < 0)
                        continue;
                if (ctx->printed_valid[cpu] && cpu_signals_equal(&cs, &ctx->printed[cpu]))
                        continue;
                if (ctx->flags & REPLAY_CSV)
                        csv_print_util(ctx->out, time_ns, cpu, &cs, ctx->topo);
                else
                        fprintf(ctx->out, "t=%" PRIu64 " cpu=%u util=%u util_est=%u runnable=%u rt=%u eff=%u\n",
                                time_ns, cpu, cs.util_avg, cs.util_est_sum, cs.runnable_avg, cs.rt_avg, cs.effective);
                ctx->printed[cpu] = cs;
                ctx->printed_valid[cpu] = true;
        }
}

/*
 * A gap in a trace while some CPU is busy: the kernel ticks that CPU throughout (and only it: NOHZ), once per
 * tick period. The PELT signals need no tick to be right (every update decays and accumulates in closed form
 * from the last one, demand.c), so what the ticks of a gap decide is only which frequency changes happen, and
 * when. Those stop once the model has settled: a busy CPU's frequency steps up about every 40 ms (from any
 * frequency, util has to grow by the same fraction of the PELT clock, which runs at cur/max: 0.8 x 32 ms /
 * ln 2 per step), an idle CPU's blocked load halves every 32 ms (its nohz update), the iowait boost halves
 * each tick; each change waits at most the rate limit. So once REPLAY_SETTLE_NS plus the longest rate limit
 * has passed without a change, further ticks would change no frequency: the rest of the gap is skipped but
 * its last REPLAY_SETTLE_NS, whose first tick brings every signal to its closed-form value. A model that keeps
 * changing (a utilisation wobbling by 1 around a step of a continuous policy) is cut at REPLAY_GAP_TICKS_MAX
 * ticks, so a gap of any length costs at most that many engine_tick() calls plus REPLAY_SETTLE_NS of them.
 */
#define REPLAY_SETTLE_NS (UINT64_C(1000) * 1000 * 1000)
#define REPLAY_GAP_TICKS_MAX UINT64_C(15000) /* 60 s at HZ=250; about 10 ms of CPU */

/* REPLAY_SETTLE_NS plus the longest rate limit of a governed policy. */
static uint64_t replay_settle_ns(const Topology *topo, const Config *cfg) {
        uint64_t rate_limit_usec = 0;

        for (size_t i = 0; i < topo->n_policies; i++)
                if (config_manages_policy(cfg, topo->policies[i].id))
                        rate_limit_usec = MAX(rate_limit_usec, governor_rate_limit(&topo->policies[i], cfg).usec);
        return REPLAY_SETTLE_NS + MIN(rate_limit_usec, UINT64_MAX / 2000) * 1000;
}

/* The first tick grid point after @t_ns: the kernel's ticks come on jiffies, the live daemon's on this grid. */
static uint64_t next_grid(uint64_t t_ns, uint64_t tick_ns) {
        return (t_ns / tick_ns + 1) * tick_ns;
}

/* Whether the rest of a gap that began at @start_ns can be skipped at the tick due at @tick_ns. */
static bool replay_gap_settled(const ReplayContext *ctx, uint64_t start_ns, uint64_t tick_ns, uint64_t n_ticks) {
        uint64_t quiet_since_ns = MAX(start_ns, ctx->last_change_ns);

        return n_ticks >= REPLAY_GAP_TICKS_MAX || tick_ns - MIN(quiet_since_ns, tick_ns) > ctx->settle_ns;
}

/*
 * Where the ticks resume after a skip: REPLAY_SETTLE_NS before the gap's last grid point. One closed-form update
 * over the skipped time and the stepwise updates of the kernel's ticks round differently (a saturated util is
 * 1024 after the one, 1023 after the others); the ticks of the last second (30 half-lives) make the signals
 * forget that difference as they forget any past, so they end the gap as the kernel's (test-replay.c checks
 * it against every tick).
 */
static uint64_t replay_gap_resume_ns(uint64_t until_ns, uint64_t tick_ns) {
        uint64_t last_ns = until_ns - until_ns % tick_ns, back_ns = REPLAY_SETTLE_NS - REPLAY_SETTLE_NS % tick_ns;

        return last_ns - MIN(back_ns, last_ns);
}

/* Runs the synthetic ticks due up to @until_ns (the live daemon's tick timer, on the trace's clock). */
static int replay_ticks(ReplayContext *ctx, uint64_t tick_ns, uint64_t until_ns, uint64_t *next_tick_ns,
                        bool *ticking) {
        uint64_t start_ns = *next_tick_ns, n_ticks = 0;

        while (*ticking && *next_tick_ns <= until_ns) {
                int r;

                if (replay_gap_settled(ctx, start_ns, *next_tick_ns, n_ticks))
                        *next_tick_ns = MAX(*next_tick_ns, replay_gap_resume_ns(until_ns, tick_ns));
                r = engine_tick(ctx->engine, *next_tick_ns);
                if (r < 0)
                        return r;
                n_ticks++;
                ctx->stats->ticks++;
                replay_print_util(ctx, *next_tick_ns);
                *ticking = r > 0;
                *next_tick_ns += tick_ns;
        }
        return 0;
}

static int make_error(char **ret_error, const char *name, const char *unit, uint64_t line, const char *reason) {
        if (ret_error && asprintf(ret_error, "%s:%s%" PRIu64 ": %s", name, unit, line, reason) < 0)
                *ret_error = NULL;
        return -EINVAL;
}

/*
 * How far back an event's time may lie behind the latest one before the trace counts as going backwards.
 * perf script sorts the per-CPU buffers' events by time within each flush round (ordered_events), so what it
 * leaves out of order is an event committed while its buffer was being read, which comes a round late: µs to
 * a few ms (tests/fixtures/traces/reordered.txt). Traces pasted together per CPU by hand go further (article.txt
 * once listed cpu0's events up to 1.400000, then cpu1's from 1.100000: 300 ms; it is in time order now). A
 * second is above both, and far below what gluing two recordings gives (each starts at its own boot-relative
 * clock: seconds to days apart). It is also where applying a late event
 * at the latest time stops making sense: a second is 30 PELT half-lives, after which the event's effect on
 * every signal would be gone had it been applied in time.
 */
#define REPLAY_REORDER_MAX_NS (UINT64_C(1000) * 1000 * 1000)

/* "12.345678" for messages: the trace's own µs style. */
static void format_time(uint64_t t_ns, char buf[static 32]) {
        (void) snprintf(buf, 32, "%" PRIu64 ".%06" PRIu64, t_ns / NSEC_PER_SEC, t_ns % NSEC_PER_SEC / 1000);
}

/* Events must come in time order, up to a reordering of perf's per-CPU buffers (counted, applied late). */
static int replay_check_time(ReplayContext *ctx, const SchedEvent *ev, char **ret_reason) {
        char late[32], latest[32], behind[32];
        uint64_t behind_ns;

        if (ev->time_ns >= ctx->latest_ns) {
                ctx->latest_ns = ev->time_ns;
                return 0;
        }
        behind_ns = ctx->latest_ns - ev->time_ns;
        if (behind_ns <= REPLAY_REORDER_MAX_NS) {
                ctx->stats->late_events++;
                ctx->stats->late_max_ns = MAX(ctx->stats->late_max_ns, behind_ns);
                return 0;
        }
        format_time(ev->time_ns, late);
        format_time(ctx->latest_ns, latest);
        format_time(behind_ns, behind);
        if (asprintf(ret_reason, "time goes backwards: %s is %s s before the latest event (%s), more than the "
                     "%" PRIu64 " s a reordering of perf's per-CPU buffers explains (traces glued together?)", late,
                     behind, latest, REPLAY_REORDER_MAX_NS / NSEC_PER_SEC) < 0)
                return -ENOMEM;
        return -EINVAL;
}

/* @what=@cpu must be a CPU of the topology. */
static int replay_check_cpu(const ReplayContext *ctx, const char *what, int cpu, char **ret_reason) {
        char cpus[256];

        if (cpu >= 0 && cpu < CPU_SETSIZE && CPU_ISSET(cpu, &ctx->cpus))
                return 0;
        if (cpulist_format(&ctx->cpus, cpus, sizeof(cpus)) < 0)
                strcpy(cpus, "...");
        if (asprintf(ret_reason, "%s%d is not in the topology (CPUs %s): trace and topology are from different "
                     "machines?", what, cpu, cpus) < 0)
                return -ENOMEM;
        return -EINVAL;
}

/* Every CPU an event names: the one it was recorded on, and where it wakes or moves a task. */
static int replay_check_cpus(const ReplayContext *ctx, const SchedEvent *ev, char **ret_reason) {
        int r;

        r = replay_check_cpu(ctx, "event recorded on CPU ", ev->cpu, ret_reason);
        if (r < 0)
                return r;
        switch (ev->type) {
        case SCHED_EVENT_WAKEUP:
        case SCHED_EVENT_WAKEUP_NEW:
                return replay_check_cpu(ctx, "target_cpu=", ev->wakeup.target_cpu, ret_reason);
        case SCHED_EVENT_MIGRATE:
                r = replay_check_cpu(ctx, "orig_cpu=", ev->migrate.orig_cpu, ret_reason);
                if (r < 0)
                        return r;
                return replay_check_cpu(ctx, "dest_cpu=", ev->migrate.dest_cpu, ret_reason);
        case SCHED_EVENT_SWITCH:
        case SCHED_EVENT_EXIT:
        case SCHED_EVENT_RUNTIME:
        case SCHED_EVENT_STAT_IOWAIT:
        case SCHED_EVENT_CPU_FREQUENCY:
        case _SCHED_EVENT_TYPE_MAX:
        case _SCHED_EVENT_TYPE_INVALID:
                break;
        }
        return 0;
}

/* Checks @ev against the topology and the trace's clock; on bad input "NAME:LINE: reason" in @ret_error. */
static int replay_check_event(ReplayContext *ctx, const SchedEvent *ev, const char *name, char **ret_error) {
        _cleanup_free_ char *reason = NULL;
        int r;

        r = replay_check_cpus(ctx, ev, &reason);
        if (r >= 0)
                r = replay_check_time(ctx, ev, &reason);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return make_error(ret_error, name, ctx->unit, ctx->stats->lines, reason);
        return 0;
}

/* The CPUs events may name: possible ones, and those of every policy. */
static void topology_cpus(const Topology *topo, cpu_set_t *ret) {
        *ret = topo->possible;
        for (size_t i = 0; i < topo->n_policies; i++)
                CPU_OR(ret, ret, &topo->policies[i].cpus);
}

static int replay_release(ReplayContext *ctx, uint64_t until_ns);

/* The kernel's frequency change @f (a text line's or a .dat record's), after the ticks due up to its time. */
static int replay_kernel_frequency_at(ReplayContext *ctx, const TraceCpuFrequency *f) {
        int r = replay_release(ctx, UINT64_MAX); /* the events before it first: its ticks must not pass them */

        if (r >= 0)
                r = replay_ticks(ctx, ctx->tick_ns, f->time_ns, &ctx->next_tick_ns, &ctx->ticking);
        if (r < 0)
                return r;
        replay_kernel_frequency(ctx, f);
        return 0;
}

/* A power:cpu_frequency line (1), after the ticks up to its time; 0: a line of an event we do not model. */
static int replay_kernel_line(ReplayContext *ctx, const char *line, const char *name, char **ret_error) {
        TraceCpuFrequency f;
        int r;

        r = replay_kernel_frequency_parse(ctx, line, name, &f, ret_error);
        if (r <= 0)
                return r;
        r = replay_kernel_frequency_at(ctx, &f);
        return r < 0 ? r : 1;
}

/* @comm: a SchedEvent's field (TASK_COMM_LEN bytes, NUL-terminated by trace-parse.c), or NULL. */
static void replay_task_set(ReplayTask *t, int32_t pid, const char *comm) {
        t->pid = pid;
        if (comm)
                memcpy(t->comm, comm, TASK_COMM_LEN);
        else
                t->comm[0] = '\0';
}

/*
 * REPLAY_TABLE: who a decision @ev (or a later tick) causes is about, named as the trace names it: the event's
 * task, and the task each CPU runs (a tick's). Two copies per event, not a table of every task: replay's
 * throughput is the pipe's (docs/benchmarks.md).
 */
static void replay_note_tasks(ReplayContext *ctx, const SchedEvent *ev) {
        if (!ctx->running)
                return;
        replay_task_set(&ctx->cause, sched_event_task_pid(ev), sched_event_task_comm(ev));
        /* replay_check_event() made ev->cpu one of the topology's (< CPU_SETSIZE). */
        if (ev->type == SCHED_EVENT_SWITCH)
                replay_task_set(&ctx->running[ev->cpu], ev->sw.next_pid, ev->sw.next_comm);
}

/* One scheduler event, checked: the ticks up to its time, then fed to the engine. */
static int replay_apply(ReplayContext *ctx, const SchedEvent *ev) {
        int r;

        compare_start(ctx, ev->time_ns);
        r = replay_ticks(ctx, ctx->tick_ns, ev->time_ns, &ctx->next_tick_ns, &ctx->ticking);
        if (r < 0)
                return r;

        /* As live, once the trace shows it reports sched_stat_runtime, silence ends a run (demand.c). */
        if (ev->type == SCHED_EVENT_RUNTIME)
                engine_set_runtime_reported(ctx->engine, true);
        replay_note_tasks(ctx, ev);
        r = engine_event(ctx->engine, ev);
        if (r < 0)
                return r;
        ctx->stats->events++;
        ctx->applied_ns = MAX(ctx->applied_ns, ev->time_ns);
        replay_print_util(ctx, ev->time_ns);

        if (!ctx->ticking && engine_busy(ctx->engine)) {
                /* A CPU became busy: its tick comes on the next grid point, as the live daemon's. */
                ctx->ticking = true;
                ctx->next_tick_ns = next_grid(ev->time_ns, ctx->tick_ns);
        }
        return 0;
}

/*
 * How long events are held back (replay-lookahead.h): the first sched_stat_runtime after a switch-in comes at the
 * next tick at the latest (or at the switch-out, earlier), so a tick and a half holds it back with margin.
 */
static uint64_t replay_hold_ns(const ReplayContext *ctx) {
        return ctx->tick_ns + ctx->tick_ns / 2;
}

/* A held item, once every event before it was applied: a candidate switch-in only if the model agrees it was lost. */
static int replay_apply_item(ReplayContext *ctx, const ReplayQueueItem *it) {
        if (it->inferred) {
                if (!engine_switch_in_lost(ctx->engine, (unsigned) it->ev.cpu, it->ev.sw.next_pid))
                        return 0;
                ctx->stats->inferred_switch_ins++;
        }
        return replay_apply(ctx, &it->ev);
}

/* Applies the held events up to @until_ns (UINT64_MAX: all of them). */
static int replay_release(ReplayContext *ctx, uint64_t until_ns) {
        ReplayQueueItem it;

        while (replay_queue_pop(&ctx->held, until_ns, &it)) {
                int r = replay_apply_item(ctx, &it);

                if (r < 0)
                        return r;
        }
        return 0;
}

/* One scheduler event: checked where it is read (its line in messages), held back, applied in its turn. */
static int replay_event(ReplayContext *ctx, const SchedEvent *ev, const char *name, char **ret_error) {
        uint64_t hold_ns = replay_hold_ns(ctx);
        int r;

        r = replay_check_event(ctx, ev, name, ret_error);
        if (r < 0)
                return r;
        r = replay_queue_infer_switch_in(&ctx->held, ev, hold_ns, ctx->applied_ns);
        if (r < 0)
                return r;
        if (r == 0)
                ctx->stats->redated_wakeups += (uint64_t) replay_queue_redate_wakeup(&ctx->held, ev, ctx->applied_ns);
        r = replay_queue_push(&ctx->held, ev);
        if (r < 0)
                return r;
        return replay_release(ctx, ctx->latest_ns - MIN(ctx->latest_ns, hold_ns));
}

/*
 * The magic numbers of a perf.data (tools/perf/util/header.c: "PERFILE2" as a little- or big-endian u64, and
 * version 1's "PERFFILE") at the first line of a text: a perf.data is read by trace-perfdata.c, from its file
 * (replay_is_perf_data_file()) or a stream (replay_stream()), so only one read from elsewhere gets here.
 */
static bool is_perf_data(const char *line) {
        return strncmp(line, "PERFILE2", 8) == 0 || strncmp(line, "2ELIFREP", 8) == 0 ||
               strncmp(line, "PERFFILE", 8) == 0;
}

/*
 * A session line or a setsid (trace-parse.h, TraceSession), applied in its turn: 1 if @line is one, 0 if not.
 * Only text traces say so: a perf.data's or a .dat's setsid records are skipped as other events are.
 */
static int replay_session_line(ReplayContext *ctx, const char *line, const char *name, char **ret_error) {
        TraceSession sess;
        int r;

        r = trace_parse_session(line, &sess);
        if (r < 0)
                return make_error(ret_error, name, ctx->unit, ctx->stats->lines, "a sys_exit_setsid without its "
                                  "return value, or a '# schedfreqd-session:' line without pid= and sid=");
        if (r == 0)
                return 0;
        if (sess.time_ns > 0) {
                /* after the events before it (those held back too) and the ticks up to it */
                r = replay_release(ctx, UINT64_MAX);
                if (r >= 0)
                        r = replay_ticks(ctx, ctx->tick_ns, sess.time_ns, &ctx->next_tick_ns, &ctx->ticking);
                if (r < 0)
                        return r;
        }
        r = engine_task_session(ctx->engine, sess.pid, sess.sid, MAX(sess.time_ns, ctx->applied_ns));
        return r < 0 ? r : 1;
}

/* One line of the trace (ctx->stats->lines is its number). */
static int replay_line(ReplayContext *ctx, const char *line, const char *name, char **ret_error) {
        const char *reason = "malformed line";
        SchedEvent ev = {}; /* filled by each TRACE_LINE_EVENT; zeroed for gcc -fanalyzer, which loses that */
        int r;

        if (ctx->stats->lines == 1 && is_perf_data(line))
                return make_error(ret_error, name, ctx->unit, 1, "a perf.data read as text (not from the start of "
                                  "its file?): give its path");
        r = trace_parse_line_format(line, &ctx->text_format, &ev, &reason);
        if (r < 0)
                return make_error(ret_error, name, ctx->unit, ctx->stats->lines, reason);
        if (r == TRACE_LINE_EMPTY && line[0] == '#')
                return MIN(replay_session_line(ctx, line, name, ret_error), 0);
        if (r == TRACE_LINE_OTHER) {
                r = replay_session_line(ctx, line, name, ret_error);
                if (r == 0)
                        r = replay_kernel_line(ctx, line, name, ret_error);
                ctx->stats->skipped += r == 0;
                return MIN(r, 0);
        }
        if (r == TRACE_LINE_LOST)
                ctx->stats->lost_gaps++;
        if (r != TRACE_LINE_EVENT)
                return 0;
        return replay_event(ctx, &ev, name, ret_error);
}

/* ---- tick_ms = auto: the recording kernel's tick, from the trace's first lines or records ---- */

/* The tick the replay runs on, before its first event, and the summary's words for it. */
static void replay_tick_set(ReplayContext *ctx, const TickEstimate *t) {
        TickEstimateResult res;
        char tick[32];
        int r;

        r = tick_estimate_result(t, &res);
        ctx->stats->tick_source = r > 0 ? REPLAY_TICK_MEASURED : REPLAY_TICK_DEFAULT;
        ctx->stats->tick_hz = res.hz;
        ctx->tick_ns = r > 0 ? kernel_hz_tick_ns(res.hz) : CONFIG_TICK_DEFAULT_USEC * UINT64_C(1000);
        engine_set_tick_ns(ctx->engine, ctx->tick_ns);

        kernel_hz_format_tick(ctx->tick_ns, tick);
        if (r > 0)
                (void) snprintf(ctx->tick_text, sizeof(ctx->tick_text), "%s (HZ=%u: %" PRIu64 " of %" PRIu64
                                " sched_stat_runtime on its grid)", tick, res.hz, res.on_grid, res.reports);
        else if (res.reports == 0)
                (void) snprintf(ctx->tick_text, sizeof(ctx->tick_text), "%s (default HZ=%u: no sched_stat_runtime "
                                "to measure)", tick, KERNEL_HZ_DEFAULT);
        else
                (void) snprintf(ctx->tick_text, sizeof(ctx->tick_text), "%s (default HZ=%u: %" PRIu64
                                " sched_stat_runtime, on no tick's grid)", tick, KERNEL_HZ_DEFAULT, res.reports);
}

/* A text trace's lines read ahead, replayed before the rest of the stream. */
typedef struct ReplayLookahead {
        char **lines;
        size_t n;
} ReplayLookahead;

static void replay_lookahead_done(ReplayLookahead *la) {
        for (size_t i = 0; i < la->n; i++)
                free(la->lines[i]);
        free(la->lines);
}

/*
 * Reads ahead from @in into @la until the tick is measured (tick_estimate_enough()), REPLAY_LOOKAHEAD_LINES or
 * REPLAY_LOOKAHEAD_BYTES, or the end; then sets it. Lines that do not parse are left to the replay to report. A
 * read error stops the lookahead: the replay finds it at the same place (ferror()).
 */
static int replay_text_read_ahead(ReplayContext *ctx, FILE *in, ReplayLookahead *la) {
        _cleanup_(tick_estimate_freep) TickEstimate *t = NULL;
        TraceTextFormat format = ctx->text_format;
        size_t bytes = 0;
        int r;

        r = tick_estimate_new(&t);
        if (r < 0)
                return r;
        la->lines = calloc(REPLAY_LOOKAHEAD_LINES, sizeof(char *));
        if (!la->lines)
                return -ENOMEM;
        while (la->n < REPLAY_LOOKAHEAD_LINES && bytes < REPLAY_LOOKAHEAD_BYTES && !tick_estimate_enough(t)) {
                const char *reason;
                SchedEvent ev = {};
                char *line = NULL;
                size_t size = 0;
                ssize_t len;

                len = getline(&line, &size, in);
                if (len < 0) {
                        free(line);
                        break;
                }
                la->lines[la->n++] = line;
                bytes += (size_t) len;
                if (la->n == 1 && is_perf_data(line))
                        break; /* refused at its first line */
                if (trace_parse_line_format(line, &format, &ev, &reason) == TRACE_LINE_EVENT)
                        tick_estimate_event(t, &ev);
        }
        replay_tick_set(ctx, t);
        return 0;
}

static int replay_text(ReplayContext *ctx, FILE *in, const char *name, char **ret_error) {
        _cleanup_(replay_lookahead_done) ReplayLookahead la = {};
        _cleanup_free_ char *line = NULL;
        size_t size = 0;
        int r;

        ctx->unit = "";
        if (ctx->tick_auto) {
                r = replay_text_read_ahead(ctx, in, &la);
                if (r < 0)
                        return r;
        }
        for (size_t i = 0; i < la.n; i++) {
                ctx->stats->lines++;
                r = replay_line(ctx, la.lines[i], name, ret_error);
                if (r < 0)
                        return r;
                free(la.lines[i]); /* a replayed line is not kept */
                la.lines[i] = NULL;
        }
        while (getline(&line, &size, in) >= 0) {
                ctx->stats->lines++;
                r = replay_line(ctx, line, name, ret_error);
                if (r < 0)
                        return r;
        }
        if (ferror(in))
                return make_error(ret_error, name, ctx->unit, ctx->stats->lines + 1, "read error");
        return 0;
}

typedef struct ReplayDatContext {
        ReplayContext *ctx;
        const char *name;
        char **ret_error;
} ReplayDatContext;

/* One record of a .dat (events.h): a modelled event, a power:cpu_frequency, or another (@ev NULL). */
static int on_dat_record(const SchedEvent *ev, uint64_t index, uint64_t lost, void *userdata) {
        ReplayDatContext *d = ASSERT_PTR(userdata);
        ReplayContext *ctx = d->ctx;
        TraceCpuFrequency f;
        int r;

        ctx->stats->lines = index;
        ctx->stats->lost_gaps += lost > 0;
        if (!ev) {
                ctx->stats->skipped++;
                return 0;
        }
        if (ev->type != SCHED_EVENT_CPU_FREQUENCY)
                return replay_event(ctx, ev, d->name, d->ret_error);

        f = (TraceCpuFrequency) { .time_ns = ev->time_ns, .cpu = ev->freq.cpu_id, .khz = ev->freq.khz };
        r = replay_check_kernel_cpu(ctx, &f, d->name, d->ret_error);
        if (r < 0)
                return r;
        return replay_kernel_frequency_at(ctx, &f);
}

/* A .dat's record read ahead (tick_ms = auto), to be replayed once the tick is set. */
typedef struct DatRecord {
        SchedEvent ev;
        bool has_ev;            /* a modelled event or a power:cpu_frequency (ev), or another record */
        uint64_t index;
        uint64_t lost;
} DatRecord;

typedef struct DatLookahead {
        TickEstimate *tick;
        DatRecord *records;
        size_t n, allocated;
} DatLookahead;

static void dat_lookahead_done(DatLookahead *la) {
        tick_estimate_free(la->tick);
        free(la->records);
}

/*
 * The read-ahead's handler: keeps the record and measures; stops (-ECANCELED) once the tick is measured or
 * REPLAY_LOOKAHEAD_LINES records on, as replay_text_read_ahead() does for lines.
 */
static int on_dat_read_ahead(const SchedEvent *ev, uint64_t index, uint64_t lost, void *userdata) {
        DatLookahead *la = ASSERT_PTR(userdata);
        DatRecord *records, *rec;

        records = greedy_realloc(la->records, &la->allocated, la->n + 1, sizeof(DatRecord), 1024);
        if (!records)
                return -ENOMEM;
        la->records = records;
        rec = &la->records[la->n++];
        *rec = (DatRecord) { .has_ev = ev, .index = index, .lost = lost };
        if (ev) {
                rec->ev = *ev;
                tick_estimate_event(la->tick, ev);
        }
        return tick_estimate_enough(la->tick) || index >= REPLAY_LOOKAHEAD_LINES ? -ECANCELED : 0;
}

/*
 * tick_ms = auto on a .dat: reads its first records, sets the tick from them, then replays them. Returns what
 * stopped the reading (trace_dat_iterate()): -ECANCELED when records are left to replay, 0 at the end of the
 * file, -EBADMSG at a bad record (*@ret_index, *@ret_reason): a bad record, like a read error of a text, is
 * reported after the records before it were replayed, as the replay would have come to it. Or the replay's error.
 */
static int replay_dat_read_ahead(ReplayContext *ctx, TraceDat *dat, ReplayDatContext *d, uint64_t *ret_index,
                                 char **ret_reason) {
        _cleanup_(dat_lookahead_done) DatLookahead la = {};
        int r, stop;

        r = tick_estimate_new(&la.tick);
        if (r < 0)
                return r;
        stop = trace_dat_iterate(dat, on_dat_read_ahead, &la, ret_index, ret_reason);
        if (stop == -ENOMEM)
                return stop;
        replay_tick_set(ctx, la.tick);
        for (size_t i = 0; i < la.n; i++) {
                const DatRecord *rec = &la.records[i];

                r = on_dat_record(rec->has_ev ? &rec->ev : NULL, rec->index, rec->lost, d);
                if (r < 0)
                        return r;
        }
        return stop;
}

/*
 * An opened .dat's records through the engine (with tick_ms = auto, the first ones read ahead to measure the tick:
 * one open and one pass, issue #25); its cleanups declared before any return (see replay_dat()).
 */
static int replay_dat_records(ReplayContext *ctx, int fd, const char *name, char **ret_error) {
        _cleanup_(trace_dat_freep) TraceDat *dat = NULL;
        _cleanup_free_ char *reason = NULL;
        ReplayDatContext d = { .ctx = ctx, .name = name, .ret_error = ret_error };
        uint64_t index = 0;
        int r;

        r = trace_dat_open(fd, &dat, &reason);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                if (ret_error && asprintf(ret_error, "%s: %s", name, reason ? reason : strerror(-r)) < 0)
                        *ret_error = NULL;
                return -EINVAL;
        }
        r = ctx->tick_auto ? replay_dat_read_ahead(ctx, dat, &d, &index, &reason) : -ECANCELED;
        if (r == -ECANCELED)
                r = trace_dat_iterate(dat, on_dat_record, &d, &index, &reason);
        if (r == -EBADMSG)
                return make_error(ret_error, name, ctx->unit, index, reason ? reason : "malformed record");
        return r;
}

/*
 * A trace-cmd .dat (its first byte is its magic's, events.h): read through libtracecmd from @in's file. The
 * checks before the file is opened return before any _cleanup_ variable exists: gcc 12's -fanalyzer takes one
 * initialised to NULL for uninitialised on such an early return (docs/reliability.md, "Static analysis").
 */
static int replay_dat(ReplayContext *ctx, FILE *in, const char *name, char **ret_error) {
        char head[TRACE_DAT_MAGIC_LEN];

        ctx->unit = "record ";
        if (fread(head, 1, sizeof(head), in) != sizeof(head) || !trace_dat_magic(head, sizeof(head)))
                return make_error(ret_error, name, "", 1, "not a trace: starts with byte 0x17 as a trace-cmd .dat "
                                  "does, without the rest of its magic");
        if (fileno(in) < 0)
                return make_error(ret_error, name, "", 1, "a trace-cmd .dat is read from a file: give its path");
        return replay_dat_records(ctx, fileno(in), name, ret_error);
}

/* ---- a perf.data (events.h): its samples, decoded, in perf script's order ---- */

/* Whether @in is a file that starts as a perf.data; pread() leaves the stream untouched for the other readers. */
static bool replay_is_perf_data_file(FILE *in) {
        char head[PERF_DATA_MAGIC_LEN];
        int fd = fileno(in);

        return fd >= 0 && lseek(fd, 0, SEEK_CUR) == 0 &&
               pread(fd, head, sizeof(head), 0) == (ssize_t) sizeof(head) && perf_data_magic(head, sizeof(head));
}

/* The measuring pass's handler: stops (-ECANCELED) once the tick is measured or REPLAY_LOOKAHEAD_LINES records on. */
static int on_dat_measure(const SchedEvent *ev, uint64_t index, uint64_t lost, void *userdata) {
        TickEstimate *t = ASSERT_PTR(userdata);

        if (ev)
                tick_estimate_event(t, ev);
        return tick_estimate_enough(t) || index >= REPLAY_LOOKAHEAD_LINES ? -ECANCELED : 0;
}

/* tick_ms = auto: a first pass over the first samples (on_dat_measure()); the replay reports their errors. */
static int replay_perf_data_measure(ReplayContext *ctx, PerfData *pd) {
        _cleanup_(tick_estimate_freep) TickEstimate *t = NULL;
        uint64_t index = 0;
        int r;

        r = tick_estimate_new(&t);
        if (r < 0)
                return r;
        r = perf_data_iterate(pd, on_dat_measure, t, &index, NULL);
        if (r == -ENOMEM)
                return r;
        replay_tick_set(ctx, t);
        return 0;
}

static int replay_perf_data_samples(ReplayContext *ctx, PerfData *pd, const char *name, char **ret_error) {
        _cleanup_free_ char *reason = NULL;
        ReplayDatContext d = { .ctx = ctx, .name = name, .ret_error = ret_error };
        uint64_t index = 0;
        int r;

        r = perf_data_iterate(pd, on_dat_record, &d, &index, &reason);
        /* perf script does not show lost events; the file says where they were, for the same warning as a .dat's. */
        ctx->stats->lost_gaps += perf_data_stats(pd)->lost_records;
        if (r == -EBADMSG) {
                if (ret_error && asprintf(ret_error, "%s: %s", name, reason ? reason : "malformed record") < 0)
                        *ret_error = NULL;
                return -EINVAL;
        }
        return r;
}

/* An opened perf.data: the tick (tick_ms = auto), then the replay. */
static int replay_perf_data_run(ReplayContext *ctx, PerfData *pd, const char *name, char **ret_error) {
        int r;

        if (ctx->tick_auto) {
                r = replay_perf_data_measure(ctx, pd);
                if (r < 0)
                        return r;
        }
        return replay_perf_data_samples(ctx, pd, name, ret_error);
}

/* perf_data_open_*()'s error @r as "NAME: reason". */
static int replay_perf_data_open_error(int r, const char *reason, const char *name, char **ret_error) {
        if (r == -ENOMEM)
                return r;
        if (ret_error && asprintf(ret_error, "%s: %s", name, reason ? reason : strerror(-r)) < 0)
                *ret_error = NULL;
        return -EINVAL;
}

/* A perf.data from its file: positions in messages are "sample N", the line perf script prints it on. */
static int replay_perf_data(ReplayContext *ctx, int fd, const char *name, char **ret_error) {
        _cleanup_(perf_data_freep) PerfData *pd = NULL;
        _cleanup_free_ char *reason = NULL;
        int r;

        ctx->unit = "sample ";
        r = perf_data_open_fd(fd, &pd, &reason);
        if (r < 0)
                return replay_perf_data_open_error(r, reason, name, ret_error);
        return replay_perf_data_run(ctx, pd, name, ret_error);
}

/* All of @in into a malloc'd buffer (*@ret, *@ret_size bytes). */
static int replay_read_all(FILE *in, uint8_t **ret, size_t *ret_size) {
        _cleanup_free_ uint8_t *buf = NULL;
        size_t n = 0, allocated = 0;

        for (;;) {
                uint8_t *b;
                size_t k;

                /* Room for one more byte at least: fread() fills all the room there is. */
                b = greedy_realloc(buf, &allocated, n + 1, 1, REPLAY_READ_BUFFER_SIZE);
                if (!b)
                        return -ENOMEM;
                buf = b;
                k = fread(buf + n, 1, allocated - n, in);
                n += k;
                if (k == 0)
                        break;
        }
        if (ferror(in))
                return -EIO;
        *ret = TAKE_PTR(buf);
        *ret_size = n;
        return 0;
}

/*
 * A stream that is not a file and starts with a perf.data magic's first byte ('P', or '2' of the other byte
 * order; no text trace starts so: perf script and ftrace right-align the comm in 16 columns): read whole, since a
 * pipe cannot be sought and a perf.data's formats follow its data (a pipe-mode one, `perf record -o -`, has them
 * first, but the data are still kept until the end: memory as large as the stream). Not a perf.data after all:
 * replayed as text from memory.
 */
static int replay_stream(ReplayContext *ctx, FILE *in, const char *name, char **ret_error) {
        _cleanup_free_ uint8_t *buf = NULL;
        _cleanup_(perf_data_freep) PerfData *pd = NULL; /* declared after buf: freed before it */
        _cleanup_fclose_ FILE *text = NULL;
        _cleanup_free_ char *reason = NULL;
        size_t size = 0;
        int r;

        r = replay_read_all(in, &buf, &size);
        if (r < 0)
                return r == -EIO ? make_error(ret_error, name, "", 1, "read error") : r;
        if (!perf_data_magic(buf, size)) {
                text = fmemopen(buf, size, "r");
                if (!text)
                        return -errno;
                return replay_text(ctx, text, name, ret_error);
        }
        ctx->unit = "sample ";
        r = perf_data_open_memory(buf, size, &pd, &reason);
        if (r < 0)
                return replay_perf_data_open_error(r, reason, name, ret_error);
        return replay_perf_data_run(ctx, pd, name, ret_error);
}

/*
 * Reads @in whatever its format, told from the content: a perf.data file by its magic, a .dat by a first byte
 * no text starts with, else text. Then what is still held back, up to the error if there was one (as the output
 * up to it was before).
 */
static int replay_input(ReplayContext *ctx, FILE *in, const char *name, char **ret_error) {
        int c, r;

        if (replay_is_perf_data_file(in))
                r = replay_perf_data(ctx, fileno(in), name, ret_error);
        else {
                c = getc(in);
                if (c != EOF && ungetc(c, in) == EOF)
                        return -EIO;
                if (c == PERF_DATA_MAGIC[0] || c == PERF_DATA_MAGIC[PERF_DATA_MAGIC_LEN - 1])
                        r = replay_stream(ctx, in, name, ret_error);
                else
                        r = c == TRACE_DAT_MAGIC[0] ? replay_dat(ctx, in, name, ret_error) :
                                                      replay_text(ctx, in, name, ret_error);
        }
        r = MIN(r, replay_release(ctx, UINT64_MAX));
        replay_queue_done(&ctx->held);
        return r;
}

/* After the decisions: the comparison with the kernel's frequencies, then the summary. */
static int replay_epilogue(ReplayContext *ctx) {
        uint64_t end_ns = MAX(ctx->latest_ns, ctx->latest_kernel_ns);

        if (freq_compare_any_kernel(ctx->compare)) {
                freq_compare_finish(ctx->compare, end_ns);
                /* On the decisions' stream; beside a CSV it goes to stderr, to keep the CSV a table. */
                freq_compare_print(ctx->compare, ctx->topo, ctx->flags & REPLAY_CSV ? stderr : ctx->out);
        }
        if (!(ctx->flags & REPLAY_SUMMARY))
                return 0;
        replay_report_set_tick(ctx->report, ctx->tick_text);
        replay_report_finish(ctx->report, end_ns);
        return replay_report_print_summary(ctx->report, replay_table(ctx->flags) ? ctx->out : stderr,
                                           ctx->stats->events);
}

int replay_run(FILE *in, const char *name, const Topology *topo, const Config *cfg, ReplayFlags flags, FILE *out,
               ReplayStats *ret_stats, char **ret_error) {
        _cleanup_(engine_freep) Engine *e = NULL;
        _cleanup_(freq_compare_freep) FreqCompare *compare = NULL;
        _cleanup_(replay_report_freep) ReplayReport *report = NULL;
        _cleanup_free_ ReplayTask *running = NULL;
        _cleanup_free_ CpuState *printed = NULL;
        _cleanup_free_ bool *printed_valid = NULL;
        ReplayStats stats = {};
        char tick[32];
        ReplayContext ctx = { .out = out, .topo = topo, .stats = &stats, .flags = flags,
                              .tick_ns = config_tick_ns(cfg), .tick_auto = cfg->tick_usec == 0 };
        int r;

        if (topo->n_policies == 0) {
                if (ret_error)
                        *ret_error = strdup("the topology has no policy (no [policyN] section): nothing to replay");
                return -EINVAL;
        }
        r = engine_new(topo, cfg, on_replay_decision, &ctx, &e);
        if (r < 0)
                return r;
        engine_set_decision_source(e, DECISION_SOURCE_REPLAY);
        ctx.engine = e;
        r = freq_compare_new(topo, &compare);
        if (r < 0)
                return r;
        ctx.compare = compare;
        r = replay_report_new(topo, &report);
        if (r < 0)
                return r;
        ctx.report = report;
        ctx.n_cpus = CPU_SETSIZE;
        if (replay_table(flags)) {
                /* Only the table names tasks. */
                running = calloc(ctx.n_cpus, sizeof(ReplayTask));
                if (!running)
                        return -ENOMEM;
                ctx.running = running;
        }
        topology_cpus(topo, &ctx.cpus);
        ctx.settle_ns = replay_settle_ns(topo, cfg);
        printed = calloc(ctx.n_cpus, sizeof(CpuState));
        printed_valid = calloc(ctx.n_cpus, sizeof(bool));
        if (!printed || !printed_valid)
                return -ENOMEM;
        ctx.printed = printed;
        ctx.printed_valid = printed_valid;
        if (flags & REPLAY_CSV)
                fputs(flags & REPLAY_PRINT_UTIL ? CSV_HEADER_UTIL "\n" : CSV_HEADER "\n", out);
        /* tick_ms = auto: until measured (replay_tick_set()), at the latest before the first event, the default. */
        stats.tick_source = ctx.tick_auto ? REPLAY_TICK_DEFAULT : REPLAY_TICK_CONFIG;
        kernel_hz_format_tick(ctx.tick_ns, tick);
        (void) snprintf(ctx.tick_text, sizeof(ctx.tick_text), "%s%s", tick,
                        ctx.tick_auto ? "" : " ([governor] tick_ms)");

        r = replay_input(&ctx, in, name, ret_error);
        if (r < 0)
                return r;
        stats.tick_ns = ctx.tick_ns;
        r = replay_epilogue(&ctx);
        if (r < 0)
                return r;

        if (ret_stats)
                *ret_stats = stats;
        return 0;
}
