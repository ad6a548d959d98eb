/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The engine: demand model + governor, the seam between event sources and the actuator. It does not know
 * whether events come from perf rings (live) or from a trace file (replay), nor how frequencies are written:
 * decisions go out through a commit callback. No I/O, no clock reads: every input carries its time.
 *
 * Time is CLOCK_MONOTONIC in ns. Events must be fed in time order; an event older than the last one fed is
 * applied at the last time (and counted as late).
 */

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "decision.h"
#include "sched-event.h"
#include "topology.h"

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
const EngineStats *engine_stats(const Engine *e);

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

/* Task @pid is in session @sid from @time_ns (demand_task_set_session()): its task group, with autogroup. */
int engine_task_session(Engine *e, int32_t pid, int32_t sid, uint64_t time_ns);

/*
 * New scaling limits for a policy (read back from sysfs after they changed). Like sugov_limits() this
 * bypasses the rate limit: the next evaluation re-resolves the frequency within the new limits.
 */
int engine_set_limits(Engine *e, unsigned policy_index, uint32_t min_khz, uint32_t max_khz, uint64_t now_ns);

/*
 * A policy given up to another tool (policy-health.h, released) is no longer evaluated (@managed false); one
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
 * Per-process rules (rules.h): the configuration's, as engine_new()/engine_reconfigure() copied them (NULL: none);
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
