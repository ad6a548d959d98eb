/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * replay.c: `perf script` text → SchedEvent, and the replay driver that runs a trace through the engine.
 * The parser is pure; it knows the default `perf script` layout of the sched tracepoints' print formats
 * (include/trace/events/sched.h TP_printk), in both the µs (default) and --ns timestamp styles.
 */

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "governor.h"
#include "macro.h"
#include "cpulist.h"
#include "freq-compare.h"
#include "replay.h"
#include "time-util.h"
#include "trace-fields.h"


/* Parses "<sec>.<frac>" where frac has 6 (µs) or 9 (ns) digits. Returns the end pointer or NULL. */
static const char *parse_time(const char *p, uint64_t *ret_ns) {
        uint64_t sec = 0, frac = 0;
        int digits = 0;

        if (!isdigit((unsigned char) *p))
                return NULL;
        for (; isdigit((unsigned char) *p); p++) {
                if (sec > (UINT64_MAX - 9) / 10)
                        return NULL;
                sec = sec * 10 + (uint64_t) (*p - '0');
        }
        if (*p++ != '.')
                return NULL;
        for (; isdigit((unsigned char) *p); p++, digits++)
                if (digits < 9)
                        frac = frac * 10 + (uint64_t) (*p - '0');
        if (digits != 6 && digits != 9)
                return NULL;
        if (digits == 6)
                frac *= 1000;
        if (sec > UINT64_MAX / NSEC_PER_SEC - 1)
                return NULL;
        *ret_ns = sec * NSEC_PER_SEC + frac;
        return p;
}

/*
 * The task that was current when the event was recorded: the number (the tid of "pid/tid") before " [CPU]".
 * perf script prints it by default; a trace without it has no context (SchedEvent.has_context).
 */
static bool parse_context(const char *line, const char *bracket, int32_t *ret_pid) {
        const char *end = bracket, *start;
        int64_t v = 0;

        while (end > line && (end[-1] == ' ' || end[-1] == '\t'))
                end--;
        if (end == bracket)
                return false;
        for (start = end; start > line && isdigit((unsigned char) start[-1]) && end - start < 10; start--)
                ;
        if (start == end || (start > line && start[-1] != ' ' && start[-1] != '\t' && start[-1] != '/'))
                return false;
        for (const char *p = start; p < end; p++)
                v = v * 10 + (*p - '0');
        if (v > INT32_MAX)
                return false;
        *ret_pid = (int32_t) v;
        return true;
}

static const char *skip_blanks(const char *p) {
        while (*p == ' ' || *p == '\t')
                p++;
        return p;
}

/* The event name is "sys:name", without spaces: returns the position of the ':' after it, or NULL. */
static const char *event_name_end(const char *p) {
        bool sys = false;

        for (; *p != '\0' && *p != ' '; p++) {
                if (*p != ':')
                        continue;
                if (sys)
                        return p;
                sys = true;
        }
        return NULL;
}

/*
 * Finds the "[CPU] TIME: EVENT:" part. The comm before it may contain spaces and brackets, so try every '['
 * until one is followed by the expected shape. Sets @ev's cpu, time and context; returns the position after
 * "EVENT:" or NULL.
 */
static const char *parse_header(const char *line, SchedEvent *ev, char *event, size_t event_size) {
        for (const char *b = strchr(line, '['); b; b = strchr(b + 1, '[')) {
                const char *p = b + 1, *e;
                long cpu = 0;
                size_t n;

                if (!isdigit((unsigned char) *p))
                        continue;
                for (; isdigit((unsigned char) *p) && cpu < 100000; p++)
                        cpu = cpu * 10 + (*p - '0');
                if (*p++ != ']')
                        continue;
                p = skip_blanks(p);
                p = parse_time(p, &ev->time_ns);
                if (!p || *p++ != ':')
                        continue;
                p = skip_blanks(p);
                e = event_name_end(p);
                if (!e)
                        continue;
                n = (size_t) (e - p);
                if (n >= event_size)
                        continue;
                memcpy(event, p, n);
                event[n] = '\0';
                ev->cpu = (int) cpu;
                ev->has_context = parse_context(line, b, &ev->context_pid);
                return e + 1;
        }
        return NULL;
}

/* The comm of @f, empty when the line has none. */
static void field_comm(const TraceField *f, char comm[TASK_COMM_LEN]) {
        if (trace_field_copy(f, comm, TASK_COMM_LEN) < 0)
                comm[0] = '\0';
}

/*
 * prev_state as TP_printk prints it (include/trace/events/sched.h): "R" runnable, "R+" preempted, else a
 * '|'-joined list of S D T t X Z P I. Only R/R+ keep prev on the run queue (reference §6.3).
 */
static int parse_prev_state(const char *s, int64_t *ret_state, bool *ret_runnable) {
        static const char letters[] = "SDTtXZPI";

        if (s[0] == 'R' && (s[1] == '\0' || (s[1] == '+' && s[2] == '\0'))) {
                *ret_state = s[1] == '+' ? 0x100 : 0; /* TASK_REPORT_MAX marks preemption on 4.14+ */
                *ret_runnable = true;
                return 0;
        }

        int64_t state = 0;
        for (const char *p = s; *p; p++) {
                const char *l = strchr(letters, *p);

                if (*p == '|' && p != s && p[1])
                        continue;
                if (!l || *p == '\0')
                        return -EINVAL;
                state |= INT64_C(1) << (l - letters);
        }
        if (state == 0)
                return -EINVAL;
        *ret_state = state;
        *ret_runnable = false;
        return 0;
}

static int parse_switch(const char *text, SchedEvent *ev, const char **reason) {
        enum { PREV_COMM, PREV_PID, PREV_PRIO, PREV_STATE, NEXT_COMM, NEXT_PID, NEXT_PRIO };
        TraceField f[] = {
                [PREV_COMM] = { .key = "prev_comm" },   [PREV_PID] = { .key = "prev_pid" },
                [PREV_PRIO] = { .key = "prev_prio" },   [PREV_STATE] = { .key = "prev_state" },
                [NEXT_COMM] = { .key = "next_comm" },   [NEXT_PID] = { .key = "next_pid" },
                [NEXT_PRIO] = { .key = "next_prio" },
        };
        char state[32];

        trace_fields_find(text, f, ELEMENTSOF(f));
        field_comm(&f[PREV_COMM], ev->sw.prev_comm);
        field_comm(&f[NEXT_COMM], ev->sw.next_comm);
        if (trace_field_int32(&f[PREV_PID], &ev->sw.prev_pid) < 0 ||
            trace_field_int32(&f[NEXT_PID], &ev->sw.next_pid) < 0) {
                *reason = "sched_switch without a valid prev_pid= or next_pid=";
                return -EINVAL;
        }
        if (trace_field_int32(&f[PREV_PRIO], &ev->sw.prev_prio) < 0 ||
            trace_field_int32(&f[NEXT_PRIO], &ev->sw.next_prio) < 0) {
                *reason = "sched_switch without a valid prev_prio= or next_prio=";
                return -EINVAL;
        }
        if (trace_field_copy(&f[PREV_STATE], state, sizeof(state)) < 0 ||
            parse_prev_state(state, &ev->sw.prev_state, &ev->sw.prev_runnable) < 0) {
                *reason = "sched_switch without a valid prev_state= (expected R, R+ or S|D|T|t|X|Z|P|I)";
                return -EINVAL;
        }
        return 0;
}

/* The fields of the other events: `comm=%s pid=%d`, then two or three numbers (TP_printk of each). */
enum { F_COMM, F_PID, F_A, F_B, F_C, _F_MAX };

static void task_fields_find(const char *text, TraceField f[static _F_MAX], size_t n_fields, char comm[TASK_COMM_LEN]) {
        f[F_COMM].key = "comm";
        f[F_PID].key = "pid";
        trace_fields_find(text, f, n_fields);
        field_comm(&f[F_COMM], comm);
}

static int parse_wakeup(const char *text, SchedEvent *ev, const char **reason) {
        TraceField f[_F_MAX] = { [F_A] = { .key = "prio" }, [F_B] = { .key = "target_cpu" } };

        task_fields_find(text, f, F_C, ev->wakeup.comm);
        if (trace_field_int32(&f[F_PID], &ev->wakeup.pid) < 0 || trace_field_int32(&f[F_A], &ev->wakeup.prio) < 0 ||
            trace_field_int32(&f[F_B], &ev->wakeup.target_cpu) < 0 || ev->wakeup.target_cpu < 0) {
                *reason = "sched_wakeup without a valid pid=, prio= or target_cpu=";
                return -EINVAL;
        }
        return 0;
}

static int parse_migrate(const char *text, SchedEvent *ev, const char **reason) {
        TraceField f[_F_MAX] = {
                [F_A] = { .key = "prio" }, [F_B] = { .key = "orig_cpu" }, [F_C] = { .key = "dest_cpu" },
        };

        task_fields_find(text, f, _F_MAX, ev->migrate.comm);
        if (trace_field_int32(&f[F_PID], &ev->migrate.pid) < 0 || trace_field_int32(&f[F_A], &ev->migrate.prio) < 0 ||
            trace_field_int32(&f[F_B], &ev->migrate.orig_cpu) < 0 ||
            trace_field_int32(&f[F_C], &ev->migrate.dest_cpu) < 0 || ev->migrate.orig_cpu < 0 ||
            ev->migrate.dest_cpu < 0) {
                *reason = "sched_migrate_task without a valid pid=, prio=, orig_cpu= or dest_cpu=";
                return -EINVAL;
        }
        return 0;
}

static int parse_exit(const char *text, SchedEvent *ev, const char **reason) {
        TraceField f[_F_MAX] = { [F_A] = { .key = "prio" } };

        task_fields_find(text, f, F_B, ev->exit.comm);
        if (trace_field_int32(&f[F_PID], &ev->exit.pid) < 0 || trace_field_int32(&f[F_A], &ev->exit.prio) < 0) {
                *reason = "sched_process_exit without a valid pid= or prio=";
                return -EINVAL;
        }
        return 0;
}

static int parse_runtime(const char *text, SchedEvent *ev, const char **reason) {
        TraceField f[_F_MAX] = { [F_A] = { .key = "runtime" } };

        task_fields_find(text, f, F_B, ev->runtime.comm);
        if (trace_field_int32(&f[F_PID], &ev->runtime.pid) < 0 ||
            trace_field_u64(&f[F_A], &ev->runtime.runtime_ns) < 0) {
                *reason = "sched_stat_runtime without a valid pid= or runtime=";
                return -EINVAL;
        }
        return 0;
}

/* sched_stat_template's TP_printk: `comm=%s pid=%d delay=%Lu [ns]` (include/trace/events/sched.h). */
static int parse_iowait(const char *text, SchedEvent *ev, const char **reason) {
        TraceField f[_F_MAX] = { [F_A] = { .key = "delay" } };

        task_fields_find(text, f, F_B, ev->iowait.comm);
        if (trace_field_int32(&f[F_PID], &ev->iowait.pid) < 0 || trace_field_u64(&f[F_A], &ev->iowait.delay_ns) < 0) {
                *reason = "sched_stat_iowait without a valid pid= or delay=";
                return -EINVAL;
        }
        return 0;
}

int replay_parse_line(const char *line, SchedEvent *ret, const char **ret_reason) {
        static const char *const bad_header = "expected '<comm> <pid> [<cpu>] <sec>.<usec|nsec>: <sys>:<event>: …'";
        const char *reason = NULL, *fields, *p = line + strspn(line, " \t");
        SchedEvent ev = {};
        char event[64];
        int r = -EINVAL;

        if (*p == '\0' || *p == '\n' || *p == '#')
                return REPLAY_LINE_EMPTY;

        fields = parse_header(line, &ev, event, sizeof(event));
        if (!fields) {
                *ret_reason = bad_header;
                return -EINVAL;
        }

        ev.type = sched_event_type_from_string(event);
        switch (ev.type) {
        case SCHED_EVENT_SWITCH:
                r = parse_switch(fields, &ev, &reason);
                break;
        case SCHED_EVENT_WAKEUP:
        case SCHED_EVENT_WAKEUP_NEW:
                r = parse_wakeup(fields, &ev, &reason);
                break;
        case SCHED_EVENT_MIGRATE:
                r = parse_migrate(fields, &ev, &reason);
                break;
        case SCHED_EVENT_EXIT:
                r = parse_exit(fields, &ev, &reason);
                break;
        case SCHED_EVENT_RUNTIME:
                r = parse_runtime(fields, &ev, &reason);
                break;
        case SCHED_EVENT_STAT_IOWAIT:
                r = parse_iowait(fields, &ev, &reason);
                break;
        case SCHED_EVENT_CPU_FREQUENCY: /* not a scheduler event: replay_parse_cpu_frequency() reads it */
        case _SCHED_EVENT_TYPE_MAX:
        case _SCHED_EVENT_TYPE_INVALID:
                return REPLAY_LINE_OTHER;
        }
        if (r < 0) {
                *ret_reason = reason;
                return r;
        }

        *ret = ev;
        return REPLAY_LINE_EVENT;
}

/* power:cpu_frequency's TP_printk: `state=%lu cpu_id=%lu` (include/trace/events/power.h, the cpu template). */
int replay_parse_cpu_frequency(const char *line, ReplayCpuFrequency *ret) {
        enum { STATE, CPU_ID };
        TraceField f[] = { [STATE] = { .key = "state" }, [CPU_ID] = { .key = "cpu_id" } };
        SchedEvent ev = {};
        const char *fields;
        char event[64];
        uint64_t khz;
        int32_t cpu;

        fields = parse_header(line, &ev, event, sizeof(event));
        if (!fields || strcmp(event, "power:cpu_frequency") != 0)
                return 0;
        trace_fields_find(fields, f, ELEMENTSOF(f));
        if (trace_field_u64(&f[STATE], &khz) < 0 || khz > UINT32_MAX || trace_field_int32(&f[CPU_ID], &cpu) < 0 ||
            cpu < 0)
                return -EINVAL;
        *ret = (ReplayCpuFrequency) { .time_ns = ev.time_ns, .cpu = cpu, .khz = (uint32_t) khz };
        return 1;
}

/* The policy= of the output: the policy's first CPU. */
static int decision_policy_cpu(const Decision *d, const Topology *t) {
        int first = -1;

        if (t && d->policy_index < t->n_policies)
                first = cpulist_first(&t->policies[d->policy_index].cpus);
        return first >= 0 ? first : (int) d->policy_id;
}

static void decision_print_fields(FILE *f, const Decision *d, const Topology *t) {
        fprintf(f, "t=%" PRIu64 " policy=%d freq=%" PRIu32 " cpu=%d kind=%s util=%u", d->time_ns,
                decision_policy_cpu(d, t), d->new_khz, d->cpu, decision_kind_to_string(d->kind), d->util);
}

void decision_print(FILE *f, const Decision *d, const Topology *t) {
        decision_print_fields(f, d, t);
        fputc('\n', f);
}

void decision_print_details(FILE *f, const Decision *d, const Topology *t) {
        decision_print_fields(f, d, t);
        fprintf(f, " reason=%s", decision_reason_to_string(d->reason));
        if (d->deferred)
                fprintf(f, " deferred=%" PRIu64, d->time_ns >= d->deferred_since_ns ? d->time_ns - d->deferred_since_ns : 0);
        fputc('\n', f);
}

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
} ReplayContext;

static int on_replay_decision(const Decision *d, void *userdata) {
        ReplayContext *ctx = ASSERT_PTR(userdata);

        if (ctx->flags & REPLAY_CSV)
                csv_print_decision(ctx->out, d, ctx->topo, ctx->flags & REPLAY_PRINT_UTIL);
        else if (ctx->flags & REPLAY_PRINT_REASON)
                decision_print_details(ctx->out, d, ctx->topo);
        else
                decision_print(ctx->out, d, ctx->topo);
        ctx->stats->changes++;
        ctx->last_change_ns = d->time_ns;
        freq_compare_ours(ctx->compare, d->policy_index, d->time_ns, d->new_khz);
        return 0;
}

static int make_error(char **ret_error, const char *name, uint64_t line, const char *reason);

/* From the trace's first time on, the engine's initial frequencies (the topology's cur_khz) are ours. */
static void compare_start(ReplayContext *ctx, uint64_t time_ns) {
        if (ctx->compare_started)
                return;
        ctx->compare_started = true;
        for (size_t i = 0; i < ctx->topo->n_policies; i++)
                freq_compare_ours(ctx->compare, (unsigned) i, time_ns, engine_policy_khz(ctx->engine, (unsigned) i));
}

/*
 * A power:cpu_frequency line: the kernel's frequency, for the comparison. Returns 1 when @line was one (with
 * *@ret filled), 0 when not, or an error for a malformed one or a CPU outside the topology.
 */
static int replay_kernel_frequency_parse(ReplayContext *ctx, const char *line, const char *name,
                                         ReplayCpuFrequency *ret, char **ret_error) {
        int r;

        r = replay_parse_cpu_frequency(line, ret);
        if (r < 0)
                return make_error(ret_error, name, ctx->stats->lines,
                                  "power:cpu_frequency without a valid state= or cpu_id=");
        if (r > 0 && (ret->cpu >= CPU_SETSIZE || !CPU_ISSET(ret->cpu, &ctx->cpus)))
                return make_error(ret_error, name, ctx->stats->lines,
                                  "power:cpu_frequency for a CPU outside the topology");
        return r;
}

/* Feeds it, after the ticks up to its time (the decisions they make come before it, as in the kernel). */
static void replay_kernel_frequency(ReplayContext *ctx, const ReplayCpuFrequency *f) {
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

static int make_error(char **ret_error, const char *name, uint64_t line, const char *reason) {
        if (ret_error && asprintf(ret_error, "%s:%" PRIu64 ": %s", name, line, reason) < 0)
                *ret_error = NULL;
        return -EINVAL;
}

/*
 * How far back an event's time may lie behind the latest one before the trace counts as going backwards.
 * perf script sorts the per-CPU buffers' events by time within each flush round (ordered_events), so what it
 * leaves out of order is an event committed while its buffer was being read, which comes a round late: µs to
 * a few ms. Traces pasted together per CPU go further (article.txt lists cpu0's events up to 1.400000, then
 * cpu1's from 1.100000: 300 ms). A second is above both, and far below what gluing two recordings gives
 * (each starts at its own boot-relative clock: seconds to days apart). It is also where applying a late event
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
                return make_error(ret_error, name, ctx->stats->lines, reason);
        return 0;
}

/* The CPUs events may name: possible ones, and those of every policy. */
static void topology_cpus(const Topology *topo, cpu_set_t *ret) {
        *ret = topo->possible;
        for (size_t i = 0; i < topo->n_policies; i++)
                CPU_OR(ret, ret, &topo->policies[i].cpus);
}

/* analyze: false positive: line is initialised to NULL; gcc 12 at -O2 reports freep() reading it uninitialised on
 * an early return once replay_parse_line() is inlined here (as main.c's verb_replay(); docs/reliability.md,
 * "Static analysis") */
ANALYZER_FALSE_POSITIVE_BEGIN("-Wanalyzer-use-of-uninitialized-value")
int replay_run(FILE *in, const char *name, const Topology *topo, const Config *cfg, ReplayFlags flags, FILE *out,
               ReplayStats *ret_stats, char **ret_error) {
        _cleanup_(engine_freep) Engine *e = NULL;
        _cleanup_(freq_compare_freep) FreqCompare *compare = NULL;
        _cleanup_free_ CpuState *printed = NULL;
        _cleanup_free_ bool *printed_valid = NULL;
        _cleanup_free_ char *line = NULL;
        ReplayStats stats = {};
        SchedEvent ev = {}; /* filled by each REPLAY_LINE_EVENT; zeroed once for gcc -fanalyzer, which loses that */
        ReplayContext ctx = { .out = out, .topo = topo, .stats = &stats, .flags = flags };
        uint64_t tick_ns = MAX(cfg->tick_usec, (uint64_t) 1) * 1000, next_tick_ns = 0;
        bool ticking = false;
        size_t size = 0;
        int r;

        if (topo->n_policies == 0) {
                if (ret_error)
                        *ret_error = strdup("the topology has no policy (no [policyN] section): nothing to replay");
                return -EINVAL;
        }
        r = engine_new(topo, cfg, on_replay_decision, &ctx, &e);
        if (r < 0)
                return r;
        ctx.engine = e;
        r = freq_compare_new(topo, &compare);
        if (r < 0)
                return r;
        ctx.compare = compare;
        ctx.n_cpus = CPU_SETSIZE;
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

        while (getline(&line, &size, in) >= 0) {
                const char *reason = "malformed line";

                stats.lines++;
                r = replay_parse_line(line, &ev, &reason);
                if (r < 0)
                        return make_error(ret_error, name, stats.lines, reason);
                if (r == REPLAY_LINE_OTHER) {
                        ReplayCpuFrequency f;

                        r = replay_kernel_frequency_parse(&ctx, line, name, &f, ret_error);
                        if (r < 0)
                                return r;
                        stats.skipped += r == 0;
                        if (r == 0)
                                continue;
                        r = replay_ticks(&ctx, tick_ns, f.time_ns, &next_tick_ns, &ticking);
                        if (r < 0)
                                return r;
                        replay_kernel_frequency(&ctx, &f);
                        continue;
                }
                if (r != REPLAY_LINE_EVENT)
                        continue;
                r = replay_check_event(&ctx, &ev, name, ret_error);
                if (r < 0)
                        return r;
                compare_start(&ctx, ev.time_ns);

                r = replay_ticks(&ctx, tick_ns, ev.time_ns, &next_tick_ns, &ticking);
                if (r < 0)
                        return r;

                /* As live, once the trace shows it reports sched_stat_runtime, silence ends a run (demand.c). */
                if (ev.type == SCHED_EVENT_RUNTIME)
                        engine_set_runtime_reported(e, true);
                r = engine_event(e, &ev);
                if (r < 0)
                        return r;
                stats.events++;
                replay_print_util(&ctx, ev.time_ns);

                if (!ticking && engine_busy(e)) {
                        /* A CPU became busy: its tick comes on the next grid point, as the live daemon's. */
                        ticking = true;
                        next_tick_ns = next_grid(ev.time_ns, tick_ns);
                }
        }
        if (ferror(in))
                return make_error(ret_error, name, stats.lines + 1, "read error");
        if (freq_compare_any_kernel(compare)) {
                freq_compare_finish(compare, MAX(ctx.latest_ns, ctx.latest_kernel_ns));
                /* After the decisions, on the same stream; beside a CSV it goes to stderr, to keep the CSV a table. */
                freq_compare_print(ctx.compare, ctx.topo, flags & REPLAY_CSV ? stderr : out);
        }

        if (ret_stats)
                *ret_stats = stats;
        return 0;
}
ANALYZER_FALSE_POSITIVE_END
