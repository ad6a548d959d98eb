/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * event-source-bpf.c: the BPF source behind daemon/service/event-source.h (bpf-events.c does the kernel side). The
 * kernel decides; this file hands its decisions to the manager and keeps the kernel side's copy of each
 * policy's state (governor.h BpfPolicy) equal to the engine's, which stays the owner of the frequency in
 * force, the limits, pause and which policies are governed. That copy is compared after every wake-up of the
 * loop (event_source_post()): no timer, and a state change (a limit read back, pause, resume, a policy
 * released or back, a reload) always comes with a wake-up.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "event-source-internal.h"
#include "event-source.h"
#include "governor.h"
#include "log.h"

/*
 * The daemon re-reads the scaling limits (sysfs cannot notify them) and checks its policies' health at most once
 * a second, after a wake-up (manager-watch.c). The perf source wakes it often enough on any busy machine; the BPF
 * source only for decisions, so the kernel side adds a wake-up when none came for this long while scheduler
 * events happen (bpf_events_set_wake_period()).
 */
#define BPF_WAKE_PERIOD_USEC (1000 * 1000)

typedef struct BpfSource {
        EventSource head;
        BpfEvents *bpf;
        bool cpu_frequency;            /* observe mode: the kernel's own changes are read (power:cpu_frequency) */
        CpuState *cpus;                /* per CPU (CPU_SETSIZE): the kernel side's signals at its policy's last decision */
        bool *cpus_seen;
        BpfPolicy *pushed;             /* per policy: what the kernel side was last told */
        size_t n_policies;
} BpfSource;

static BpfSource *bpf_source(EventSource *s) {
        return (BpfSource *) s;
}

static const BpfSource *bpf_source_const(const EventSource *s) {
        return (const BpfSource *) s;
}

/* Policy @i as the engine has it now, in the kernel side's terms. */
static void bpf_policy_view(Engine *e, unsigned i, BpfPolicy *ret) {
        PolicyStats ps = {};

        (void) engine_policy_stats(e, i, &ps);
        *ret = (BpfPolicy) {
                .managed = ps.managed && !engine_is_paused(e),
                .cur_khz = engine_policy_khz(e, i),
                .min_khz = ps.min_khz,
                .max_khz = ps.max_khz,
                .headroom_x1024 = ps.headroom_x1024,
                .rate_limit_ns = ps.rate_limit_ns,
                .remote = ps.remote_permitted,
                .min_util = 0,
                .max_util = CAPACITY_SCALE,
        };
}

/*
 * Limits that changed, or a policy governed again, bypass the rate limit and the hold at the next evaluation,
 * as sugov_limits() does with limits_changed (kernel/sched/cpufreq_schedutil.c); the frequency in force alone
 * (a write that failed, a resync) is only corrected.
 */
static bool bpf_policy_needs_update(const BpfPolicy *old, const BpfPolicy *now) {
        return (now->managed && !old->managed) || now->min_khz != old->min_khz || now->max_khz != old->max_khz;
}

static int bpf_source_push(BpfSource *b, unsigned i) {
        BpfPolicy now;
        int r;

        bpf_policy_view(b->head.opts.engine, i, &now);
        if (memcmp(&now, &b->pushed[i], sizeof(now)) == 0)
                return 0;
        now.need_update = bpf_policy_needs_update(&b->pushed[i], &now);
        r = bpf_events_set_policy(b->bpf, i, &now);
        if (r < 0)
                return r;
        now.need_update = false;
        b->pushed[i] = now;
        return 1;
}

/* A decision from the kernel: the manager writes it (engine_apply_decision()); what is in force afterwards is
 * the engine's, told back to the kernel side at once when it is not what the kernel chose. */
/*
 * Status (D-Bus, explain) shows a CPU's signals as the kernel side read them at its policy's last decision:
 * read at every post instead, they differ at every wake-up and each one would announce PropertiesChanged
 * (test-dbus: idle on the bus, 6.5-10.6 wake-ups/s against <= 6). They change with the decisions, as the perf
 * source's model does with its events.
 */
static int bpf_source_snapshot_cpu(BpfSource *b, unsigned cpu) {
        BpfCpuSignals sig;
        int r;

        r = bpf_events_cpu_signals(b->bpf, (int) cpu, &sig);
        if (r < 0)
                return r;
        b->cpus[cpu] = (CpuState) {
                /* cpu_util_cfs_boost(): max(util_avg, runnable_avg, util_est), capped at the capacity */
                .util = MIN(MAX(MAX(sig.util_avg, sig.runnable_avg), sig.util_est), (unsigned) CAPACITY_SCALE),
                .util_avg = sig.util_avg,
                .util_est_sum = sig.util_est,
                .nr_rt_runnable = sig.nr_rt_running,
                .busy = sig.curr_pid != 0,
                .runnable_avg = sig.runnable_avg,
                .rt_avg = sig.rt_avg,
                .effective = sig.effective,
        };
        b->cpus_seen[cpu] = true;
        return 0;
}

static void bpf_source_snapshot(BpfSource *b, unsigned policy_index) {
        const PolicyDesc *p = &b->head.opts.topology->policies[policy_index];

        for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
                if (CPU_ISSET(cpu, &p->cpus))
                        (void) bpf_source_snapshot_cpu(b, (unsigned) cpu);
}

static int on_bpf_decision(const Decision *d, void *userdata) {
        BpfSource *b = userdata;
        const EventSourceHandlers *h = &b->head.opts.handlers;
        int r;

        if (d->policy_index < b->n_policies)
                bpf_source_snapshot(b, d->policy_index);
        r = h->decision ? h->decision(d, h->userdata) : -EOPNOTSUPP;
        if (d->policy_index < b->n_policies && r >= 0)
                b->pushed[d->policy_index].cur_khz = d->new_khz; /* bpf-events.c's map already holds it */
        return r;
}

/* Observe mode: the kernel's own frequency change, as the perf source hands power:cpu_frequency over. */
static int on_kernel_freq(int cpu, uint64_t time_ns, uint32_t khz, void *userdata) {
        BpfSource *b = userdata;
        const EventSourceHandlers *h = &b->head.opts.handlers;
        SchedEvent ev = {
                .type = SCHED_EVENT_CPU_FREQUENCY,
                .time_ns = time_ns,
                .cpu = cpu,
                .freq = { .khz = khz, .cpu_id = cpu },
        };

        return h->event ? h->event(&ev, h->userdata) : 0;
}

static int bpf_source_drain(EventSource *s) {
        return bpf_events_drain(bpf_source(s)->bpf);
}

static void bpf_source_post(EventSource *s, uint64_t now_usec) {
        BpfSource *b = bpf_source(s);
        int r;

        for (size_t i = 0; i < b->n_policies; i++) {
                r = bpf_source_push(b, (unsigned) i);
                if (r < 0)
                        log_debug_errno(r, "policy index %zu: cannot update the BPF side's state, ignoring: %m", i);
        }
}

static int bpf_source_cpu_offline(EventSource *s, int cpu) {
        return bpf_events_cpu_set_online(bpf_source(s)->bpf, cpu, false);
}

static int bpf_source_cpu_online(EventSource *s, int cpu) {
        return bpf_events_cpu_set_online(bpf_source(s)->bpf, cpu, true);
}

/*
 * The rules as the kernel side takes them: each a task clamp, what the kernel's uclamp would hold for its tasks
 * (min_util, or 1024 for rt_boost: a queued task then asks for the maximum as an RT one does; max_util, or 0 for
 * ignore: its load alone asks for nothing). docs/bpf-source.md, "Per-process rules".
 */
static int bpf_source_set_rules(BpfSource *b, const RuleSet *rules, char **ret_why) {
        BpfRuleClamp clamps[RULES_MAX];
        int r;

        for (unsigned i = 0; i < rules->n; i++) {
                TaskClamp k = rules_clamp(rules, (int) i);

                clamps[i] = (BpfRuleClamp) {
                        .min_util = k.rt_boost ? CAPACITY_SCALE : k.min_util,
                        .max_util = k.ignore ? 0 : k.max_util,
                };
        }
        r = bpf_events_set_rules(b->bpf, clamps, rules->n, ret_why);
        if (r >= 0 && rules->n > 0)
                log_info("Per-process rules: %u, held in the kernel as task clamps (sched_switch, sched_migrate_task).",
                         rules->n);
        return r;
}

/* Headroom, rate limit and remote modes reach the engine first (engine_reconfigure()); the next post pushes
 * them. Nothing of [events] applies to the BPF ring; the tick length and the rules do (the manager matches the
 * tasks again after a reload: manager_rules_scan()). */
static int bpf_source_reconfigure(EventSource *s, const Config *cfg) {
        _cleanup_free_ char *why = NULL;
        int r;

        /* TICK_NSEC (the manager resolved tick_ms = auto): after it an iowait boost resets (sugov_iowait_reset()). */
        r = bpf_events_set_tick(bpf_source(s)->bpf, config_tick_ns(cfg));
        if (r < 0)
                return r;
        r = bpf_source_set_rules(bpf_source(s), &cfg->rules, &why);
        if (r < 0)
                return log_error_errno(r, "The BPF event source cannot apply the per-process rules: %s",
                                       why ?: strerror(-r));
        return 0;
}

/* @cpu's signals at its policy's last decision, in the engine's terms (bpf_source_snapshot()). */
static int bpf_source_cpu_state(const EventSource *s, unsigned cpu, CpuState *ret) {
        const BpfSource *b = bpf_source_const(s);

        if (cpu >= CPU_SETSIZE)
                return -EINVAL;
        if (!b->cpus_seen[cpu])
                return -ENOENT;
        *ret = b->cpus[cpu];
        return 0;
}

/*
 * A status read between decisions: a policy held at its maximum by a busy CPU sends none, and its CPUs would show
 * what they were at the last one (idle, maybe). The kernel side's last read of the CPU (its sched_switch or
 * wake-up programs keep it current) is what "now" is.
 */
static int bpf_source_refresh_cpu(EventSource *s, unsigned cpu) {
        if (cpu >= CPU_SETSIZE)
                return -EINVAL;
        return bpf_source_snapshot_cpu(bpf_source(s), cpu);
}

static int bpf_source_task_rule(EventSource *s, int32_t tid, int rule) {
        return bpf_events_set_task_rule(bpf_source(s)->bpf, tid, rule);
}

static void bpf_source_stats(const EventSource *s, EventSourceStats *ret) {
        BpfEventsStats bs = {};

        (void) bpf_events_stats(bpf_source_const(s)->bpf, &bs);
        *ret = (EventSourceStats) {
                .name = "bpf",
                .events = bs.events,
                .lost = bs.dropped,
                .drains = bs.drains,
                .wakeups = bs.wakeups,
                .records = bs.records,
                .deferred = bs.deferred,
                .iowait = true, /* the wakee's p->in_iowait, read in the kernel */
                .cpu_frequency = bpf_source_const(s)->cpu_frequency,
        };
}

static void bpf_source_free(EventSource *s) {
        BpfSource *b = bpf_source(s);

        bpf_events_free(b->bpf);
        free(b->pushed);
        free(b->cpus);
        free(b->cpus_seen);
        free(b);
}

static const EventSourceOps bpf_source_ops = {
        .drain = bpf_source_drain,
        .post = bpf_source_post,
        .cpu_offline = bpf_source_cpu_offline,
        .cpu_online = bpf_source_cpu_online,
        .reconfigure = bpf_source_reconfigure,
        .task_rule = bpf_source_task_rule,
        .cpu_state = bpf_source_cpu_state,
        .refresh_cpu = bpf_source_refresh_cpu,
        .stats = bpf_source_stats,
        .free = bpf_source_free,
};

int event_source_bpf_new(sd_event *event, const EventSourceOptions *opts, EventSource **ret, char **ret_why) {
        _cleanup_(event_source_freep) EventSource *s = NULL;
        size_t n = opts->topology->n_policies;
        BpfSource *b;
        int r;

        b = calloc(1, sizeof(BpfSource));
        if (!b)
                return -ENOMEM;
        b->head = (EventSource) { .ops = &bpf_source_ops, .type = EVENT_SOURCE_BPF, .opts = *opts };
        b->head.opts.type = EVENT_SOURCE_BPF;
        b->pushed = calloc(MAX(n, (size_t) 1), sizeof(BpfPolicy));
        b->cpus = calloc(CPU_SETSIZE, sizeof(CpuState));
        b->cpus_seen = calloc(CPU_SETSIZE, sizeof(bool));
        b->n_policies = n;
        s = &b->head;
        if (!b->pushed || !b->cpus || !b->cpus_seen)
                return -ENOMEM;

        for (size_t i = 0; i < n; i++) {
                bpf_policy_view(opts->engine, (unsigned) i, &b->pushed[i]);
                /* The first evaluation writes whatever the demand asks for, as sugov_start() makes it. */
                b->pushed[i].need_update = true;
        }
        r = bpf_events_new(event, opts->topology, b->pushed, on_bpf_decision, b, &b->bpf, ret_why);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++)
                b->pushed[i].need_update = false;
        r = bpf_events_set_tick(b->bpf, engine_tick_period_ns(opts->engine));
        if (r < 0)
                return r;
        r = bpf_events_set_wake_period(b->bpf, BPF_WAKE_PERIOD_USEC * 1000);
        if (r < 0)
                return r;
        /* Observe mode compares with the kernel's own changes; without the tracepoint ours are shown alone. */
        if (opts->observe) {
                r = bpf_events_watch_kernel_freq(b->bpf, on_kernel_freq);
                if (r < 0 && r != -EOPNOTSUPP)
                        return r;
                b->cpu_frequency = r >= 0;
        }
        /* Rules need the switch and migrate programs; where they cannot attach, auto takes perf and says why. */
        r = bpf_source_set_rules(b, &opts->config->rules, ret_why);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(s);
        return 0;
}
