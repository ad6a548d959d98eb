/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * include/governor.h: the public interface of daemon/governor/ (schedutil's decision: the engine over the model, or
 * the BPF source that decides in the kernel; the Decision, its log, observe's comparison). The one header of that
 * folder the rest of the tree includes; its private headers stay in daemon/governor/. Sections, in dependency
 * order: decision, bpf-events, decision-log, engine, freq-compare, governor, observe.
 */

#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <systemd/sd-event.h>

#include "config.h"
#include "events.h"
#include "macro.h"
#include "topology.h"

/*
 * A frequency decision: what the engine hands to its commit callback (the daemon writes it, replay prints it,
 * observe mode shows it beside the kernel's), what the decision log keeps for `schedfreqctl explain`, and its
 * one text form, shared by `schedfreqd replay` and `schedfreqd --print-decisions`.
 */

typedef enum DecisionKind {
        DECISION_LOCAL,           /* triggered by an event recorded on a CPU of the policy */
        DECISION_REMOTE,          /* triggered by an event on another CPU, permitted by the policy */
        _DECISION_KIND_MAX,
        _DECISION_KIND_INVALID = -EINVAL,
} DecisionKind;

typedef enum DecisionReason {
        DECISION_REASON_DEMAND,   /* utilisation × headroom */
        DECISION_REASON_RT,       /* an RT/DL task is runnable: max */
        DECISION_REASON_IOWAIT,   /* iowait boost dominated */
        DECISION_REASON_LIMITS,   /* scaling limits changed */
        DECISION_REASON_RULE,     /* a per-process rule's clamp or rt_boost decided it (config.h) */
        _DECISION_REASON_MAX,
        _DECISION_REASON_INVALID = -EINVAL,
} DecisionReason;

/* Which event source took the decision (issue #23): the userspace model on perf events or on a trace, or the
 * kernel side of the BPF source. */
typedef enum DecisionSource {
        DECISION_SOURCE_PERF,     /* the model, fed by the perf rings (live) */
        DECISION_SOURCE_BPF,      /* the BPF programs, on the kernel's own signals (live) */
        DECISION_SOURCE_REPLAY,   /* the model, fed by a trace file */
        _DECISION_SOURCE_MAX,
        _DECISION_SOURCE_INVALID = -EINVAL,
} DecisionSource;

typedef struct Decision {
        uint64_t time_ns;         /* time of the event (or tick) that triggered it */
        unsigned policy_index;    /* index into the topology's policies */
        unsigned policy_id;       /* policyN */
        uint32_t old_khz, new_khz;
        int cpu;                  /* CPU whose event caused it */
        DecisionKind kind;
        DecisionReason reason;
        unsigned util;            /* the policy's demand, 0..1024 */
        SchedEventType event;     /* the triggering event, or _SCHED_EVENT_TYPE_INVALID for a tick */
        int32_t pid;              /* the task it was about (sched_event_task_pid(); a tick: the CPU's running task),
                                   * 0 = none or the idle task */
        bool deferred;            /* it applies a demand change that a disallowed remote event had to leave */
        uint64_t deferred_since_ns; /* when that change was recorded (the remote event's time) */
        DecisionSource source;    /* who decided it */
} Decision;

const char *decision_kind_to_string(DecisionKind k);        /* "local", "remote" */
const char *decision_reason_to_string(DecisionReason r);
const char *decision_source_to_string(DecisionSource s);    /* "perf", "bpf", "replay" */    /* "demand", "rt", "iowait", "limits", "rule" */

/* The policy= of the text forms: the policy's first CPU (its id without a topology). */
int decision_policy_cpu(const Decision *d, const Topology *t);

/* Prints @d in the replay output format; policy= is the policy's first CPU. */
void decision_print(FILE *f, const Decision *d, const Topology *t);

/*
 * The same line with what the live daemon knows besides (`schedfreqd --print-decisions`), appended as more
 * key=value fields: ` reason=<demand|rt|iowait|limits|rule>`, and for a change that applied a demand change a
 * disallowed remote event had left, ` deferred=<ns it waited>`.
 */
void decision_print_details(FILE *f, const Decision *d, const Topology *t);

/*
 * The BPF event source (issue #23): schedutil's decision taken in the kernel. tp_btf programs
 * (daemon/governor/bpf/schedfreqd.bpf.c) on the scheduler tracepoints and on the bare PELT ones read each CPU's own
 * signals from its runqueue, combine them as effective_cpu_util()/sugov_get_util() do, pick each policy's
 * frequency as sugov_update_single_freq()/sugov_next_freq_shared() do (headroom, limits, table, rate limit,
 * busy-hold, iowait boost), apply the remote rule where the kernel does (cpufreq_this_cpu_can_update()), and
 * write a ring record only when a policy's frequency must change. The daemon is woken by those records only:
 * its cost follows the number of frequency changes, not the number of scheduler events.
 *
 * What the kernel side must know of each policy is pushed into a map by bpf_events_set_policy(): the
 * daemon stays the owner of the frequency in force (a write that failed is pushed back), of the limits and of
 * pause/managed. Nothing is pinned: the programs, links and maps go with the daemon's fds (SIGKILL included).
 * No logging above debug: errors are returned, and bpf_events_new()'s reason says why the source is unusable.
 */

typedef struct BpfEvents BpfEvents;

/* What the kernel side needs of one policy (by topology index); pushed at start and at every change. */
typedef struct BpfPolicy {
        bool managed;                 /* false: never evaluated (not governed, released, offline, paused) */
        uint32_t cur_khz;             /* the frequency in force (what the daemon last wrote or read back) */
        uint32_t min_khz, max_khz;    /* scaling limits in force */
        unsigned headroom_x1024;      /* 1280 = schedutil's util + util/4 */
        uint64_t rate_limit_ns;       /* freq_update_delay_ns */
        bool remote;                  /* events on CPUs outside the policy may change it (dvfs_possible_from_any_cpu) */
        bool need_update;             /* next evaluation bypasses the rate limit and the hold (limits_changed) */
        uint32_t min_util, max_util;  /* a rule's clamp for the whole policy (0, 1024 = none) */
} BpfPolicy;

/* A decision the kernel side took, as read from the ring: handed over as a Decision (its .time_ns is
 * bpf_ktime_get_ns(), CLOCK_MONOTONIC). Return 0 when applied; a negative return keeps the old frequency:
 * the kernel side's cur_khz goes back to old_khz (unless it changed since) and the change is taken again after
 * the rate limit; the caller may also push its own view with bpf_events_set_policy(). It does not stop the
 * drain: a decision not applied (a policy backing off, paused) is routine. */
typedef int (*BpfEventsHandler)(const Decision *d, void *userdata);

typedef struct BpfEventsStats {
        uint64_t events;              /* program runs on the scheduler tracepoints, all CPUs (counted in the kernel) */
        uint64_t evaluations;         /* policy evaluations (a root PELT/util_est/RT/DL update or a wake-up) */
        uint64_t records;             /* decisions written to the ring */
        uint64_t deferred;            /* changes a CPU outside the policy could not make (remote forbidden) */
        uint64_t rate_limited;        /* changes held back by the rate limit */
        uint64_t dropped;             /* records the ring had no room for (the change is taken again later) */
        uint64_t wakeups;             /* times the ring's fd woke the daemon */
        uint64_t drains;              /* bpf_events_drain() runs */
        uint64_t wake_records;        /* wake-up records read (bpf_events_set_wake_period()) */
} BpfEventsStats;

/*
 * Opens, loads and attaches the programs for @topo's policies (all CPUs of @topo->possible), fills the maps
 * with @policies (one per topology policy), and watches the ring on @event (NULL: not watched; the caller polls
 * bpf_events_ring_fd() and calls bpf_events_drain()). A handler's negative return ends @event's loop with it
 * (sd_event_exit()), as the perf source does. Limits: 64 policies, 64 CPUs and 64 frequencies a policy, CPUs
 * below 256 (-E2BIG beyond). The programs of tracepoints this kernel lacks are left out (all but pelt_cfs_tp
 * are optional). Returns 0; -EOPNOTSUPP when the
 * kernel has no BTF or this build has no BPF source; -EPERM/-EACCES without CAP_BPF+CAP_PERFMON; another
 * negative errno when a program does not load or attach. On failure *@ret_reason (if non-NULL) is a malloc'd
 * one-line reason ("no /sys/kernel/btf/vmlinux", "tp_btf/pelt_cfs_tp: Invalid argument", ...).
 */
int bpf_events_new(sd_event *event, const Topology *topo, const BpfPolicy *policies, BpfEventsHandler handler,
                   void *userdata, BpfEvents **ret, char **ret_reason);

/* Pushes policy @index's state to the kernel side (see BpfPolicy). -EINVAL for an index outside the topology. */
int bpf_events_set_policy(BpfEvents *b, unsigned index, const BpfPolicy *p);

/* Reads every record in the ring and hands each to the handler. Returns 0 or the handler's negative return. */
int bpf_events_drain(BpfEvents *b);

/* CPU hotplug: an offline CPU is left out of its policy's maximum (policy->cpus). -EINVAL outside the topology. */
int bpf_events_cpu_set_online(BpfEvents *b, int cpu, bool online);

/* The kernel-side counters summed over CPUs, plus the reader's own. */
int bpf_events_stats(const BpfEvents *b, BpfEventsStats *ret);

/* What the kernel side last read of @cpu's runqueue (for status), in 0..1024 units. -ENOENT: not yet seen. */
typedef struct BpfCpuSignals {
        unsigned util_avg, util_est, runnable_avg, rt_avg, dl_avg, irq_avg, bw_dl, uclamp_min, uclamp_max;
        unsigned nr_rt_running;       /* rt_rq->rt_nr_running (RT runnable: the policy asks for max) */
        unsigned effective;           /* what the governor used: sugov_get_util() */
        unsigned curr_pid;            /* the task running at the read, 0 = idle */
        uint64_t time_ns;
} BpfCpuSignals;
int bpf_events_cpu_signals(const BpfEvents *b, int cpu, BpfCpuSignals *ret);

/* TICK_NSEC of the running kernel (the iowait boost resets after it; 4 ms = CONFIG_HZ=250 until set). */
int bpf_events_set_tick(BpfEvents *b, uint64_t tick_ns);
/*
 * While scheduler events happen and no decision record woke the reader for @period_ns, the kernel side writes a
 * wake-up record (no decision; counted in wake_records): the daemon's once-a-second bookkeeping that only
 * its wake-ups run (the scaling limits, which sysfs cannot notify) keeps its pace, and a machine where nothing
 * runs still wakes it for nothing. 0 (the default): never.
 */
int bpf_events_set_wake_period(BpfEvents *b, uint64_t period_ns);

/*
 * Per-process rules: @n clamps (0 < n <= 32; index = the rule's), each what the kernel's uclamp would hold for
 * the rule's tasks (min 0..1024, max 0..1024). The first call attaches the programs on sched_switch and
 * sched_migrate_task that, with the wake-up ones, count the queued ruled tasks per CPU; @n == 0 detaches them
 * and forgets every task's rule. -EOPNOTSUPP when this kernel lacks those tracepoints, with the reason in
 * *@ret_reason (if non-NULL).
 */
typedef struct BpfRuleClamp {
        uint16_t min_util, max_util;
} BpfRuleClamp;
int bpf_events_set_rules(BpfEvents *b, const BpfRuleClamp *rules, size_t n, char **ret_reason);
/* Task @tid's rule: an index given to bpf_events_set_rules(), or -1 for none (also at its exit). It applies from
 * the task's next wake-up or switch-in. -E2BIG when 16384 tasks have a rule already. */
int bpf_events_set_task_rule(BpfEvents *b, int32_t tid, int rule);
/*
 * Observe mode: the kernel's own frequency changes (power:cpu_frequency, one per CPU of the policy) handed to
 * @handler as they are read from the ring, with the decisions. -EOPNOTSUPP when this kernel lacks the tracepoint.
 */
typedef int (*BpfKernelFreqHandler)(int cpu, uint64_t time_ns, uint32_t khz, void *userdata);
int bpf_events_watch_kernel_freq(BpfEvents *b, BpfKernelFreqHandler handler);
/* False when this build has no BPF source (no BTF on the build machine): bpf_events_new() says -EOPNOTSUPP. */
bool bpf_events_built(void);

/*
 * What the kernel's verifier walked to load the programs: instructions processed (bpf_prog_info.verified_insns,
 * a deterministic count for a given kernel and object), summed over the loaded programs, and the largest. The
 * load's cost grows with it (docs/benchmarks.md, start-up); tests bound it. -EOPNOTSUPP without the BPF source.
 */
typedef struct BpfVerifiedInsns {
        unsigned programs;
        uint64_t total, max;
} BpfVerifiedInsns;
int bpf_events_verified_insns(const BpfEvents *b, BpfVerifiedInsns *ret);

/* The ring's fd (for tests). */
int bpf_events_ring_fd(const BpfEvents *b);

BpfEvents *bpf_events_free(BpfEvents *b);
DEFINE_TRIVIAL_CLEANUP_FUNC(BpfEvents *, bpf_events_free);

/*
 * A bounded ring of the most recent frequency decisions, for `schedfreqctl explain` ("why is my CPU at
 * X MHz?") through the D-Bus GetDecisions method. Oldest entries are overwritten. No I/O.
 */

typedef struct DecisionRecord {
        Decision decision;
        uint64_t written_ns;      /* when the setspeed write completed (CLOCK_MONOTONIC) */
        char comm[TASK_COMM_LEN]; /* decision.pid's name when it was made (the proc connector's), "" = unknown */
} DecisionRecord;

typedef struct DecisionLog {
        DecisionRecord *records;
        size_t capacity, start, count;
        uint64_t total;           /* ever appended */
} DecisionLog;

int decision_log_init(DecisionLog *l, size_t capacity);
void decision_log_done(DecisionLog *l);
/* @comm: the name of d->pid (NULL: unknown), copied. */
void decision_log_append(DecisionLog *l, const Decision *d, uint64_t written_ns, const char *comm);
/* The i-th record, oldest first (0 <= i < l->count). */
const DecisionRecord *decision_log_get(const DecisionLog *l, size_t i);

/*
 * The engine: demand model + governor, the seam between event sources and the actuator. It does not know
 * whether events come from perf rings (live) or from a trace file (replay), nor how frequencies are written:
 * decisions go out through a commit callback. No I/O, no clock reads: every input carries its time.
 *
 * Time is CLOCK_MONOTONIC in ns. Events must be fed in time order; an event older than the last one fed is
 * applied at the last time (and counted as late).
 */

/* Called for every frequency change. Return 0 when applied, or a negative errno to keep the old frequency. */
typedef int (*EngineCommitFn)(const Decision *d, void *userdata);

typedef struct EngineStats {
        uint64_t events;                  /* every event fed, late and invalid ones included */
        uint64_t late_events;             /* older than the latest time applied: applied at that time */
        uint64_t invalid_events;          /* unknown type or a CPU outside the topology: ignored */
        uint64_t ticks;
        uint64_t decisions[_DECISION_KIND_MAX]; /* frequency changes handed to the commit callback */
        uint64_t deferred;
        uint64_t commit_errors;           /* of those, rejected by the callback (old frequency kept) */
        uint64_t task_evictions;          /* tasks dropped from the bounded task table (least recently seen sleeper) */
        uint64_t lost_switches;           /* switches the events showed were never recorded (demand.c) */
        uint64_t resyncs;                 /* CPUs forgotten after lost events (engine_cpu_resync()) */
} EngineStats;

typedef struct Engine Engine;

/*
 * @topo and @cfg are copied where needed (the engine keeps no pointer to them). Only policies for which
 * config_manages_policy() is true are governed. Initial policy frequency: the topology's cur_khz, else
 * scaling_max_khz.
 */
int engine_new(const Topology *topo, const Config *cfg, EngineCommitFn commit, void *userdata, Engine **ret);
Engine *engine_free(Engine *e);
static inline void engine_freep(Engine **e) {
        if (*e)
                engine_free(*e);
}

/*
 * Feeds one event (SCHED_EVENT_STAT_IOWAIT is handed to engine_iowait()). Returns 0, or a negative errno on
 * out-of-memory (malformed events are counted, not errors).
 */
int engine_event(Engine *e, const SchedEvent *ev);

/*
 * sched:sched_stat_iowait recorded on @cpu for task @pid: the task is being enqueued after waiting for I/O,
 * which the kernel passes to schedutil as SCHED_CPUFREQ_IOWAIT (the iowait boost). The tracepoint fires only
 * with schedstats enabled (kernel.sched_schedstats=1); without it there is no iowait boost. Counted as an
 * event; same return values as engine_event().
 */
int engine_iowait(Engine *e, int cpu, int32_t pid, uint64_t time_ns);

/*
 * The tick, at @now_ns (every engine_tick_period_ns() while engine_busy()): sched_tick() on each CPU running a
 * task (its signals advance; a hook call when they decayed evaluates its policy locally), and the nohz
 * blocked-load update of idle CPUs when it is due (every LOAD_AVG_PERIOD ms while some idle CPU has blocked
 * load, run from the first idle CPU under the remote rule). Idle CPUs are never ticked. Returns 1 while some
 * CPU is busy (the caller keeps ticking), 0 when every CPU is idle (stop until the next event), or a negative
 * errno.
 */
int engine_tick(Engine *e, uint64_t now_ns);

/* Events of @cpu before @time_ns were lost (a ring overflowed): its model is rebuilt from the next events on
 * (demand_cpu_resync()). Its next hook call's evaluation decides the frequency, as after any change. */
int engine_cpu_resync(Engine *e, int cpu, uint64_t time_ns);

/*
 * CPU hotplug: an offline CPU is not one of its policy's CPUs (policy->cpus, which sugov_next_freq_shared()
 * walks) and its model is forgotten (demand_cpu_resync()); online again, it is rebuilt from its next events.
 * Returns 1 when the state changed, 0 when it was already so, -EINVAL for a CPU outside the model.
 */
int engine_cpu_set_online(Engine *e, int cpu, bool online);
bool engine_cpu_online(const Engine *e, int cpu);
/* Some CPU runs a task (in the model), other than the governor's own: the tick is needed. */
bool engine_busy(const Engine *e);
/* The live daemon's own pid: its own running never keeps the tick alive (see engine_busy()). */
void engine_set_self(Engine *e, int32_t pid);
/*
 * The event source reports sched_stat_runtime (live: always; replay: once the trace shows one). From then on a
 * CPU whose task leaves no evidence for SILENCE_TICKS ticks is taken as idle since its last evidence: its
 * switch-out was lost (demand.c). engine_tick() checks the busy CPUs; engine_expire_silent() checks all of
 * them at the latest time applied (call it after a batch of events, before asking engine_busy()).
 */
void engine_set_runtime_reported(Engine *e, bool reported);
void engine_expire_silent(Engine *e);
/* What the engine's own decisions say made them (Decision.source): perf by default, replay for a trace. */
void engine_set_decision_source(Engine *e, DecisionSource source);
/*
 * A decision a deciding source took itself (the BPF source: in the kernel, on the kernel's own signals): goes
 * through the same commit callback and bookkeeping as the engine's own (counts, the governor's frequency in
 * force and rate limit, last change, frequency invariance), the model having no part in it. Returns 0 when
 * applied; -EAGAIN while paused or for a policy not governed (nothing committed); -EINVAL for a policy outside
 * the topology; or the commit callback's negative return (the old frequency stays in force).
 */
int engine_apply_decision(Engine *e, const Decision *d);
/* TICK_NSEC from the config (config_tick_ns()), or engine_set_tick_ns()'s. */
uint64_t engine_tick_period_ns(const Engine *e);
/*
 * Sets TICK_NSEC (> 0; 0 is ignored): the tick period, the iowait boost's reset time and the silence window.
 * For replay, which measures the trace's tick once it has read ahead, before the first event (replay.c).
 */
void engine_set_tick_ns(Engine *e, uint64_t tick_ns);

/*
 * Lazy wake-ups on a quiet machine. A wake-up of a light task recorded on a CPU whose policy is at its floor
 * (the frequency utilisation 0 asks for) cannot change any frequency: it could neither raise one (its util is
 * below what every floor covers, with a 2x margin) nor lower one (its CPU's policy is already at the floor,
 * and no policy that takes remote updates is above its own). Fills @pids with up to @max such tasks (CFS, all
 * signals small), the most frequent wakers first, and returns how many; returns 0 when no CPU is such a CPU
 * (then every wake-up matters).
 */
size_t engine_quiet_tasks(Engine *e, int32_t *pids, size_t max);
/* Whether some CPU is such a CPU now, and which (@ret_cpus may be NULL; cheap: no task scan). */
bool engine_quiet_possible(const Engine *e, cpu_set_t *ret_cpus);

/* Current state, for status and tests. */
unsigned engine_cpu_util(const Engine *e, unsigned cpu);
uint32_t engine_policy_khz(const Engine *e, unsigned policy_index);
unsigned engine_policy_util(const Engine *e, unsigned policy_index);
const EngineStats *engine_stats(Engine *e);

/* Per policy, for status (D-Bus) and tests. */
typedef struct PolicyStats {
        uint64_t decisions[_DECISION_KIND_MAX];   /* changes handed to the commit callback, by kind */
        uint64_t deferred;                        /* demand changes that had to wait for a local event */
        uint64_t last_change_ns;                  /* time of the last committed change, 0 = none */
        DecisionReason last_reason;
        bool remote_permitted;                    /* remote = yes, or auto and the driver allows it */
        bool managed;
        uint32_t min_khz, max_khz;                /* scaling limits in force */
        uint64_t rate_limit_ns;                   /* the governor's rate limit in force */
        unsigned headroom_x1024;                  /* the governor's headroom in force */
} PolicyStats;
int engine_policy_stats(const Engine *e, unsigned policy_index, PolicyStats *ret);

/* Per CPU, for status (D-Bus) and tests. -ENOENT for a CPU outside the topology. */
typedef struct CpuState {
        unsigned util;                            /* cfs demand: min(capacity, max(util_avg, runnable_avg, util_est_sum)) */
        unsigned util_avg;                        /* the CPU's PELT util_avg */
        unsigned util_est_sum;                    /* Σ util_est of the tasks enqueued on it */
        unsigned nr_rt_runnable;                  /* runnable RT/DL tasks: the policy asks for max */
        bool busy;                                /* a task is running on it */
        unsigned runnable_avg;                    /* the root cfs_rq's runnable_avg */
        unsigned rt_avg;                          /* the rq's avg_rt util_avg */
        unsigned effective;                       /* what schedutil uses: effective_cpu_util(), RT → capacity */
} CpuState;
int engine_cpu_state(const Engine *e, unsigned cpu, CpuState *ret);

/*
 * Whether the model could take a switch-in of CFS task @pid on @cpu that the trace lost (replay-lookahead.h): @cpu
 * runs nothing in the model, and @pid is not running anywhere nor known as an RT task.
 */
bool engine_switch_in_lost(const Engine *e, unsigned cpu, int32_t pid);

/* Task @pid is in session @sid from @time_ns, or from the last event applied if that is later
 * (demand_task_set_session()): its task group, with autogroup. Replay's setsid and session lines, the live
 * daemon's /proc and proc connector (manager-sessions.c). */
int engine_task_session(Engine *e, int32_t pid, int32_t sid, uint64_t time_ns);

/*
 * New scaling limits for a policy (read back from sysfs after they changed). Like sugov_limits() this
 * bypasses the rate limit: the next evaluation re-resolves the frequency within the new limits.
 */
int engine_set_limits(Engine *e, unsigned policy_index, uint32_t min_khz, uint32_t max_khz, uint64_t now_ns);

/*
 * A policy given up to another tool (actuator.h, released) is no longer evaluated (@managed false); one
 * that comes back from being unwritable (offline, backing off) takes @cur_khz as the frequency in force and
 * is re-evaluated at its next hook call, bypassing the rate limit (its real frequency may have moved meanwhile).
 */
int engine_set_policy_managed(Engine *e, unsigned policy_index, bool managed);
int engine_policy_resync(Engine *e, unsigned policy_index, uint32_t cur_khz);

/*
 * Paused: the model keeps running but no decision is committed (the policies were handed back to their
 * governors). On resume the engine takes @cur_khz of each policy as the frequency in force (NULL: keep)
 * and the next evaluation writes whatever the demand asks for, bypassing the rate limit.
 */
void engine_pause(Engine *e);
void engine_resume(Engine *e, const uint32_t *cur_khz /* per policy index, or NULL */);
bool engine_is_paused(const Engine *e);

/* Apply a configuration change (headroom, rate limit, remote modes) without losing model state. */
int engine_reconfigure(Engine *e, const Config *cfg);

/*
 * Per-process rules (config.h): the configuration's, as engine_new()/engine_reconfigure() copied them (NULL: none);
 * how many frequency changes rule @rule decided (reason "rule") since; the tasks the model holds that have it
 * (fills up to @max pids, returns how many); and, for the live daemon, a task's rule as the proc connector's
 * exe and cgroup decide it (@rule -1: none), which the task's name then no longer changes.
 */
const RuleSet *engine_rules(const Engine *e);
uint64_t engine_rule_decisions(const Engine *e, unsigned rule);
size_t engine_rule_tasks(Engine *e, unsigned rule, int32_t *pids, size_t max);
int engine_task_set_rule(Engine *e, int32_t pid, int rule);
/*
 * @pid exited, as the proc connector reports it: forgotten as at its sched_process_exit, so that a task pinned by
 * an exec message read after its scheduler exit does not stay behind.
 */
void engine_task_exit(Engine *e, int32_t pid);

/*
 * schedfreqd's frequency choices beside the kernel's (issue #14 item 1): per policy, two step functions of time,
 * the kernel's from its power:cpu_frequency tracepoint (cpufreq_notify_transition() and
 * cpufreq_driver_fast_switch() fire it for each CPU of the policy, drivers/cpufreq/cpufreq.c) and ours from the
 * engine's decisions, compared over the time both are known: how long they agree, by how much they differ.
 * Pure: every input carries its time; times must not go backwards (late inputs count at the latest time).
 */

typedef struct FreqCompare FreqCompare;

typedef struct FreqCompareStats {
        uint64_t kernel_changes;     /* power:cpu_frequency events that changed the kernel's frequency */
        uint64_t our_changes;        /* our decisions */
        uint64_t compared_ns;        /* time both frequencies were known */
        uint64_t agree_ns;           /* of which, time they were equal */
        uint64_t diff_khz_ns;        /* Σ |ours − kernel's| × time: / compared_ns is the mean difference */
        uint32_t max_diff_khz;       /* the largest difference held for any time */
        bool kernel_seen;            /* the trace had a power:cpu_frequency event for the policy */
} FreqCompareStats;

int freq_compare_new(const Topology *topo, FreqCompare **ret);
FreqCompare *freq_compare_free(FreqCompare *c);
static inline void freq_compare_freep(FreqCompare **c) {
        if (*c)
                freq_compare_free(*c);
}

/* Our frequency for policy @policy_index from @t_ns on (the initial one too: the topology's cur_khz). */
void freq_compare_ours(FreqCompare *c, unsigned policy_index, uint64_t t_ns, uint32_t khz);
/* power:cpu_frequency state=@khz cpu_id=@cpu at @t_ns: the kernel's frequency for @cpu's policy. -ENOENT for a
 * CPU of no policy. */
int freq_compare_kernel(FreqCompare *c, int cpu, uint64_t t_ns, uint32_t khz);
/* The same for policy @policy_index itself (a known starting value: observe.c); -ENOENT for no such policy. */
int freq_compare_kernel_policy(FreqCompare *c, unsigned policy_index, uint64_t t_ns, uint32_t khz);
/* The policy index of @cpu, or -ENOENT. */
int freq_compare_policy_of_cpu(const FreqCompare *c, int cpu);
/* Closes the comparison at @t_ns (the end of the trace). */
void freq_compare_finish(FreqCompare *c, uint64_t t_ns);
/* Whether any power:cpu_frequency event was fed. */
bool freq_compare_any_kernel(const FreqCompare *c);
int freq_compare_stats(const FreqCompare *c, unsigned policy_index, FreqCompareStats *ret);
/* The two frequencies in force now (0 = not known yet). */
int freq_compare_current(const FreqCompare *c, unsigned policy_index, uint32_t *ret_ours_khz,
                         uint32_t *ret_kernel_khz);
/* agree_ns / compared_ns in percent; -1 when nothing was compared yet. */
double freq_compare_agree_percent(const FreqCompareStats *st);
/*
 * One line per policy the kernel's frequency is known for: `kernel policy=N agree=P% compared_ms=T
 * mean_diff_khz=D max_diff_khz=M kernel_changes=K changes=C` (call freq_compare_finish() first).
 */
void freq_compare_print(const FreqCompare *c, const Topology *topo, FILE *f);

/*
 * The governor: schedutil's per-policy frequency choice (kernel/sched/cpufreq_schedutil.c, 6.x), pure.
 * It turns a policy's utilisation into a frequency (headroom, capacity, resolution to the policy's limits
 * and table) and owns the per-policy rules around it: the rate limit, the busy-hold rule and
 * write-on-change. The engine decides when to ask it and what to do with the answer.
 */

typedef struct Governor {
        /* From the config (governor_configure()). */
        unsigned headroom_x1024;          /* map_util_perf(): x1280 = util + util/4 */
        uint64_t rate_limit_ns;           /* sg_policy->freq_update_delay_ns */
        bool remote;                      /* events on other policies' CPUs may trigger decisions (§5) */

        /* State. */
        uint32_t cur_khz;                 /* sg_policy->next_freq: the frequency in force */
        bool committed;                   /* a change was attempted: the rate limit runs from last_update_ns */
        uint64_t last_update_ns;          /* sg_policy->last_freq_update_time */
        bool evaluated;                   /* an evaluation ran: the hold rule compares against it */
        uint64_t saved_idle_calls;        /* sg_cpu->saved_idle_calls (single-CPU policies) */
        bool limits_changed;              /* sg_policy->limits_changed: the next update bypasses rate limit and hold */
} Governor;

/*
 * iowait boost of one CPU (struct sugov_cpu: iowait_boost, iowait_boost_pending, last_update), 5.x/6.x
 * kernel/sched/cpufreq_schedutil.c. The boost is in capacity units (IOWAIT_BOOST_MIN = 128 .. 1024).
 */
#define IOWAIT_BOOST_MIN (1024u / 8)      /* SCHED_CAPACITY_SCALE / 8 */
typedef struct IowaitBoost {
        unsigned boost;
        bool pending;
        uint64_t last_update_ns;
} IowaitBoost;

/*
 * Every cpufreq hook call for the CPU: sugov_iowait_boost(), then last_update = @now_ns. @iowait: the call
 * carries SCHED_CPUFREQ_IOWAIT (a task waking after I/O). @tick_ns: TICK_NSEC, after which a boost resets.
 */
void governor_iowait_boost(IowaitBoost *b, uint64_t now_ns, bool iowait, uint64_t tick_ns);
/* sugov_iowait_apply() in an update that passed the rate limit: the boost to apply, scaled to @capacity. */
unsigned governor_iowait_apply(IowaitBoost *b, uint64_t now_ns, unsigned capacity, uint64_t tick_ns);
/* The boost an evaluation outside a hook call sees: the current one, without halving or clearing it. */
unsigned governor_iowait_peek(const IowaitBoost *b, uint64_t now_ns, unsigned capacity, uint64_t tick_ns);

/* A governor for @p with frequency @cur_khz in force and @cfg's settings. */
void governor_init(Governor *g, const PolicyDesc *p, const Config *cfg, uint32_t cur_khz);
/* Applies @cfg's headroom, rate limit and remote mode; keeps the state. */
void governor_configure(Governor *g, const PolicyDesc *p, const Config *cfg);

/* cpufreq_policy_transition_delay_us() of 6.12+: latency x 1.5, or 1000 us when the latency is 0. */
uint64_t governor_default_rate_limit_usec(uint64_t transition_latency_ns);

/*
 * cpufreq_policy_transition_delay_us() (sugov_init()'s default rate_limit_us) as the kernel of version
 * @version_code (KERNEL_VERSION_CODE(), include/kernel-version.h) computes it from cpuinfo_transition_latency
 * (reference §3.2), in the kernel's unsigned int arithmetic, CPUFREQ_ETERNAL (4294967295) included:
 *   <= 4.13      1000 x latency_us, 1000 when 0
 *   4.14 - 6.8   min(1000 x latency_us, 10000), 1000 when 0
 *   6.9 - 6.11   latency_us when above 2000, else min(1000 x latency_us, 2000); 1000 when 0
 *   6.12+        latency_us + latency_us / 2, 1000 when 0
 * @ret_rule (optional): the row's name for messages ("Linux 4.14-6.8").
 */
uint64_t governor_kernel_rate_limit_usec(unsigned version_code, uint64_t transition_latency_ns,
                                         const char **ret_rule);

/* Where a policy's rate limit comes from, in order of precedence. */
typedef enum RateLimitSource {
        RATE_LIMIT_CONFIG,        /* [governor] rate_limit_us */
        RATE_LIMIT_KERNEL,        /* schedutil's own rate_limit_us, read before switching (PolicyDesc) */
        RATE_LIMIT_COMPUTED,      /* governor_kernel_rate_limit_usec() for the running kernel */
        _RATE_LIMIT_SOURCE_MAX,
} RateLimitSource;

typedef struct RateLimit {
        uint64_t usec;
        RateLimitSource source;
        const char *rule;         /* RATE_LIMIT_COMPUTED: the version rule used */
        bool version_unknown;     /* RATE_LIMIT_COMPUTED: uname(2) gave no usable version: the newest rule */
} RateLimit;

/* The rate limit governor_configure() applies to @p under @cfg (its kernel_version_code for the computed rule),
 * and why. */
RateLimit governor_rate_limit(const PolicyDesc *p, const Config *cfg);
/* The same with the kernel version given (0: unknown, the newest rule). */
RateLimit governor_rate_limit_for_version(const PolicyDesc *p, const Config *cfg, unsigned version_code);
/* "rate limit 1500 us (cpuinfo_transition_latency 1000000 ns, as Linux 6.12+ computes it)" into @buf. */
void governor_rate_limit_format(const RateLimit *rl, const PolicyDesc *p, char *buf, size_t size);

/* The capacity of the policy's CPUs: cpu_capacity, 1024 when absent. */
unsigned governor_capacity(const PolicyDesc *p);
/*
 * The raw frequency schedutil asks for @util: sugov_effective_cpu_perf() (util x headroom, capped at the
 * capacity) then get_next_freq() (cpuinfo_max_khz x perf / capacity). Not yet resolved.
 */
uint32_t governor_util_to_khz(const PolicyDesc *p, unsigned util, unsigned headroom_x1024);
/* governor_util_to_khz() resolved to the policy's scaling limits and table (no hold, no rate limit). */
uint32_t governor_target_khz(const Governor *g, const PolicyDesc *p, unsigned util);

/* sugov_should_update_freq(): false while the last change is younger than the rate limit. */
bool governor_should_update(const Governor *g, uint64_t now_ns);

/* What the busy-hold rule needs to know about the CPU of a single-CPU policy. */
typedef struct GovernorCpu {
        bool busy;                        /* running a task right now */
        uint64_t idle_calls;              /* idle entries so far */
        bool capped;                      /* uclamp_rq_is_capped(): a rule's max_util holds the rq down */
} GovernorCpu;

/*
 * One evaluation that passed governor_should_update(): the frequency that should be in force. For a
 * single-CPU policy (@cpu non-NULL) this applies sugov_hold_freq(): the frequency is not lowered while the
 * CPU has been busy all along since the previous evaluation. The result differs from cur_khz only when a
 * change should be written.
 */
uint32_t governor_next_khz(Governor *g, const PolicyDesc *p, unsigned util, const GovernorCpu *cpu);

/* Records an attempt to change to @khz at @now_ns (the rate limit starts over); @applied: it is in force. */
void governor_commit(Governor *g, uint64_t now_ns, uint32_t khz, bool applied);

/*
 * Observe mode (`schedfreqd --observe`, issue #14 item 1): the model runs on the live events and its choices are
 * written nowhere; beside them, the kernel's own (power:cpu_frequency, where the kernel's governor fires it:
 * schedutil, ondemand, … through cpufreq_notify_transition() or cpufreq_driver_fast_switch()). Per policy, one
 * line on the output whenever either frequency changes:
 *   t=<ns> policy=<id> ours=<kHz> kernel=<kHz|-> agree=<percent|-> changed=<ours|kernel>
 * agree= is the running share of the time both were known during which they were equal. At the end,
 * freq_compare_print()'s summary. Pure but for the FILE it prints on: every input carries its time.
 */

typedef struct Observer Observer;

/*
 * From @start_ns on, our frequency for policy i is @ours_khz[i] (where the engine starts: engine_policy_khz()),
 * and the kernel's is its cur_khz in @topo for a policy whose governor is schedutil (its last choice,
 * policy->cur); for any other governor the kernel's is not known until its first power:cpu_frequency. Lines go
 * to @out.
 */
int observer_new(const Topology *topo, const uint32_t *ours_khz, uint64_t start_ns, FILE *out, Observer **ret);
Observer *observer_free(Observer *o);
static inline void observer_freep(Observer **o) {
        if (*o)
                observer_free(*o);
}

/* Our decision for policy @policy_index at @t_ns. */
void observer_ours(Observer *o, unsigned policy_index, uint64_t t_ns, uint32_t khz);
/* power:cpu_frequency state=@khz cpu_id=@cpu at @t_ns; -ENOENT for a CPU of no policy (ignored). */
int observer_kernel(Observer *o, int cpu, uint64_t t_ns, uint32_t khz);
/* The summary at @t_ns (the end). */
void observer_finish(Observer *o, uint64_t t_ns);
/* Whether a line failed to print (the reader went away): the caller stops printing. */
int observer_error(const Observer *o);
