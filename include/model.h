/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * include/model.h: the public interface of daemon/model/ (what each CPU's run queue demands, as the kernel computes
 * it (PELT, util_est, task groups), and the kernel's tick). The one header of that folder the rest of the tree
 * includes; its private headers stay in daemon/model/. Sections, in dependency order: demand, kernel-hz,
 * tick-estimate.
 */

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "events.h"
#include "macro.h"

/*
 * The demand model: what each CPU asks for, on the 0..1024 scale, built from scheduler events the way
 * kernel/sched/fair.c and kernel/sched/pelt.c build it (shared/reference/schedutil.md §1, §2, §6.3). Pure:
 * every input carries its time, and times must not go backwards (the engine clamps late events first).
 *
 *   - one PELT signal per task (util_avg while it runs, runnable_avg while it is queued) and per CPU the root
 *     cfs_rq's util_avg ("some CFS task runs here") and runnable_avg, and the rq's avg_rt, all on the CPU's
 *     clock_pelt (5.1+ frequency and capacity invariance);
 *   - a task's util is attached to its CPU's signal when it is enqueued there after a migration or as a new
 *     task, and taken out when it leaves (migration, exit): attach/detach/remove_entity_load_avg();
 *   - util_est per task (6.8+) and the sum of the enqueued tasks' util_est per CPU;
 *   - RT and DL tasks (prio < 100; DL prints -1) are counted per CPU while runnable and their running time
 *     feeds avg_rt.
 *
 * A CPU's cfs demand is cpu_util_cfs_boost(): min(capacity, max(util_avg, runnable_avg, util_est sum)).
 */

typedef struct Demand Demand;

/* @n_cpus CPUs, all idle, zero utilisation, capacity and frequency scale 1024; at most 65536 tasks. */
int demand_new(unsigned n_cpus, Demand **ret);
/* The same with a bound on the task table (0 = the default, TASK_TABLE_DEFAULT_MAX). */
int demand_new_with_limit(unsigned n_cpus, size_t max_tasks, Demand **ret);
Demand *demand_free(Demand *d);
static inline void demand_freep(Demand **d) {
        if (*d)
                demand_free(*d);
}

unsigned demand_n_cpus(const Demand *d);

/* cpu_scale: the CPU's capacity, cpuN/cpu_capacity (0 = no file = 1024). Set before the first event. */
void demand_set_capacity(Demand *d, unsigned cpu, unsigned capacity);
unsigned demand_cpu_capacity(const Demand *d, unsigned cpu);

/*
 * freq_scale: cur_khz / cpuinfo_max_khz x 1024. Accounts the time up to @now_ns at the old scale first, so
 * call it when the CPU's frequency changes.
 */
void demand_set_freq_scale(Demand *d, unsigned cpu, uint64_t now_ns, unsigned freq_scale);

/* Which CPUs' demand an event changed (the rq(s) it touched, reference §6.3). */
#define DEMAND_EFFECT_CPUS_MAX 2
typedef struct DemandEffect {
        int cpus[DEMAND_EFFECT_CPUS_MAX];
        unsigned n_cpus;
} DemandEffect;

/*
 * Applies @ev at @now_ns (the event's time, or the last time for a late event). Returns 0, -EINVAL for an
 * unknown event type, -ERANGE when the event's CPU (or a CPU it names) is outside the model (nothing changes
 * either way), or -ENOMEM. @ret_effect (may be NULL) receives the CPUs whose demand changed.
 */
int demand_event(Demand *d, const SchedEvent *ev, uint64_t now_ns, DemandEffect *ret_effect);

/*
 * sched_stat_iowait of task @pid: it is being enqueued after waiting for I/O (in_iowait). enqueue_task_fair()
 * (kernel/sched/fair.c) adds its util_est to the CPU's (util_est_enqueue()) before the SCHED_CPUFREQ_IOWAIT hook
 * call, and both come before the rest of the enqueue, which the sched_wakeup that follows reports: the util_est
 * is added here, and that enqueue does not add it again. Returns the CPU it is enqueued on (task_cpu()), or
 * -ENOENT for a task the model does not know.
 */
int demand_iowait_enqueue(Demand *d, int32_t pid, uint64_t now_ns);

/* Brings @cpu's signals (and its running task's) up to @now_ns. Returns true when the CPU's utilisation was
 * recomputed (a PELT period boundary was crossed). */
bool demand_advance(Demand *d, unsigned cpu, uint64_t now_ns);

/*
 * One CPU's signals as the governor reads them at an evaluation, in one call (the getters below give each alone):
 * what sugov_get_util() and the busy-hold rule look at. All zero for a CPU the model does not have.
 */
typedef struct DemandCpuSignals {
        unsigned capacity;        /* arch_scale_cpu_capacity() */
        unsigned util;            /* demand_cpu_util() */
        unsigned rt_avg;          /* demand_cpu_rt_avg() */
        unsigned nr_rt;           /* demand_cpu_nr_rt() */
        bool busy;                /* demand_cpu_busy() */
        bool has_blocked;         /* demand_cpu_has_blocked() */
        uint64_t idle_calls;      /* demand_cpu_idle_calls() */
} DemandCpuSignals;
void demand_cpu_signals(const Demand *d, unsigned cpu, DemandCpuSignals *ret);

/*
 * The CPU's cfs demand as of its last update: min(capacity, max(util_avg, runnable_avg, util_est_sum))
 * (cpu_util_cfs_boost(), 6.5+).
 */
unsigned demand_cpu_util(const Demand *d, unsigned cpu);
/* The root cfs_rq's runnable_avg (can exceed 1024 with several runnable tasks) and the rq's avg_rt util_avg. */
unsigned demand_cpu_runnable_avg(const Demand *d, unsigned cpu);
unsigned demand_cpu_rt_avg(const Demand *d, unsigned cpu);
/* rq->has_blocked_load: some signal of @cpu is not yet decayed to 0 (what the nohz blocked-load update visits). */
bool demand_cpu_has_blocked(const Demand *d, unsigned cpu);
/*
 * sched_balance_update_blocked_averages() of @cpu at @now_ns: brings its signals up to date; returns true when
 * the cfs or RT signal decayed (the kernel then calls cpufreq_update_util() for the rq).
 */
bool demand_blocked_update(Demand *d, unsigned cpu, uint64_t now_ns);
unsigned demand_cpu_util_avg(const Demand *d, unsigned cpu);
unsigned demand_cpu_util_est_sum(const Demand *d, unsigned cpu);
/* Runnable RT/DL tasks on @cpu: while non-zero its policy asks for the maximum. */
unsigned demand_cpu_nr_rt(const Demand *d, unsigned cpu);
/* A task (not the idle task) is running on @cpu. */
bool demand_cpu_busy(const Demand *d, unsigned cpu);
/* rq->curr of @cpu as the model sees it (0 = idle). */
int32_t demand_cpu_curr(const Demand *d, unsigned cpu);
/*
 * Lost switches (demand.c): every event with a context (SchedEvent.has_context) checks the model's curr; a
 * source that reports sched_stat_runtime sets @silence_ns (0: off, the default), after which a CPU whose CFS
 * task left no evidence is silent: it ran no task since its last evidence, and the caller ends that run with
 * demand_cpu_lost_switch_out() (idle from the last evidence, or from the CPU's clock if that is later).
 */
void demand_set_silence(Demand *d, uint64_t silence_ns);
/*
 * Task groups (demand-groups.c): with @autogroup (kernel.sched_autogroup_enabled, the topology's [system] autogroup)
 * every session's tasks share a task group, with a cfs_rq per CPU whose changes reach the root cfs_rq (the signal
 * schedutil reads) only when the group's entity is next updated there, and a new task's initial util comes from its
 * group's cfs_rq; without it (the default) every task is on the root cfs_rq. Set before the first event.
 */
void demand_set_autogroup(Demand *d, bool autogroup);
/* Whether the described kernel keeps a sleeping task queued until it is eligible (EEVDF's DELAY_DEQUEUE, 6.12+, the
 * default) or takes it off at once (an older kernel): the topology's [system] delayed_dequeue. */
void demand_set_delayed_dequeue(Demand *d, bool on);
/*
 * Task @pid is in session @sid (0: the kernel's, the root task group) from @now_ns: said by the trace for the
 * tasks that existed before it, or by setsid() (trace-parse.h, TraceSession); in the live daemon by /proc at
 * start-up and the proc connector's setsid events. Kept for when the task is first seen, forgotten at its exit; a
 * known task attached to a CPU moves to its new group there at once (sched_move_task()).
 */
int demand_task_set_session(Demand *d, int32_t pid, int32_t sid, uint64_t now_ns);
bool demand_cpu_silent(const Demand *d, unsigned cpu, uint64_t now_ns);
void demand_cpu_lost_switch_out(Demand *d, unsigned cpu, uint64_t now_ns);

/*
 * Events of @cpu were lost (its ring overflowed): whatever the model holds for it may be wrong (a switch, a
 * wake-up, a migration missed). Its current task and run queue are forgotten, as if it had switched to a task
 * not known yet: the CPU counts as idle until its next event, whose context names its task again, and every
 * task re-enters the queue at its next switch-in or wake-up. The signals themselves keep their history.
 */
void demand_cpu_resync(Demand *d, unsigned cpu, uint64_t now_ns);
uint64_t demand_resyncs(const Demand *d);
uint64_t demand_lost_switches(const Demand *d);
/*
 * How many times @cpu went through idle: tick_nohz_get_idle_calls_cpu(), for schedutil's busy-hold rule. The
 * kernel counts in the idle loop, after the switch to idle has run its cpufreq hook, so the evaluation at that
 * switch still sees the old count and the next one a new count; counting when the CPU leaves idle gives both.
 */
uint64_t demand_cpu_idle_calls(const Demand *d, unsigned cpu);

/*
 * How many times @cpu's rq changed in a way the kernel reports to cpufreq: its cfs signal crossed a PELT period
 * boundary, a task was attached or detached (cfs_rq_util_change() from update_load_avg(), reference §4), an
 * RT or DL task was enqueued or dequeued (enqueue_top_rt_rq(), __add/__sub_running_bw()), blocked load decayed.
 * The engine calls the CPU's hook only when it changed since the last call (engine-inputs.c, engine_hook()).
 */
uint64_t demand_cpu_updates(const Demand *d, unsigned cpu);

/* One task, for tests and status. */
typedef struct DemandTaskInfo {
        int cpu;
        bool on_rq, running, rt, attached;
        unsigned util_avg, runnable_avg, util_est;
} DemandTaskInfo;
int demand_task_info(const Demand *d, int32_t pid, DemandTaskInfo *ret);
size_t demand_n_tasks(const Demand *d);

/*
 * The CFS tasks seen waking whose util_avg, runnable_avg and util_est are all at most @util_max, the @max that
 * woke most often first: tasks whose next wake-up cannot raise a CPU's demand above @util_max (running or
 * not: a running one's next wake-up comes after it sleeps).
 */
typedef struct DemandQuietTask {
        int32_t pid;
        uint32_t wakeups;
} DemandQuietTask;
size_t demand_quiet_tasks(Demand *d, unsigned util_max, DemandQuietTask *out, size_t max);
uint64_t demand_task_evictions(const Demand *d);

/*
 * Per-process rules (config.h). @rules is the caller's and must outlive its use (NULL or empty: none); each call
 * forgets every task's rule, which is matched again on the name of its next event. A task whose rule is
 * "ignore" is out of every accounting while it runs or waits, as the stopper is: its CPU looks idle to the model.
 */
void demand_set_rules(Demand *d, const RuleSet *rules);
/* Pins @pid's rule (index into the rule set, -1 = none), as the proc connector's exe/cgroup showed it; names
 * no longer change it. -EINVAL without rules or for a bad index; -ENOMEM/-ENOSPC from the task table. */
int demand_task_set_rule(Demand *d, int32_t pid, int rule, uint64_t now_ns);
/* @pid exited (the proc connector said so): as sched_process_exit, if the model still holds it. */
void demand_task_exit(Demand *d, int32_t pid, uint64_t now_ns);
/* @pid's rule index, -1 for none, -ENOENT for an unknown task. */
int demand_task_rule(const Demand *d, int32_t pid);
/* The rq's clamps for @cpu, and the rule behind each bound (-1: none decides it). */
typedef struct DemandClamp {
        unsigned min_util, max_util;              /* uclamp min and max over its queued tasks (0, 1024: none) */
        bool boost;                               /* a queued task's rule says rt_boost */
        int min_rule, max_rule, boost_rule;
} DemandClamp;
void demand_cpu_clamp(Demand *d, unsigned cpu, DemandClamp *ret);
/* The tasks whose rule is @rule: fills up to @max pids, returns how many there are. */
size_t demand_rule_tasks(Demand *d, int rule, int32_t *pids, size_t max);

/*
 * The running kernel's tick length: CONFIG_HZ from its build configuration, /proc/config.gz (CONFIG_IKCONFIG_PROC)
 * or else /boot/config-RELEASE (what Debian, Ubuntu and Fedora install beside the image). The tick is TICK_NSEC,
 * the period of the scheduler tick (sched_tick() → task_tick_fair()) and of jiffies. Nothing here logs; the
 * caller says where the value came from (kernel_hz_find()'s KernelHz).
 *
 * CONFIG_NO_HZ_IDLE and CONFIG_NO_HZ_FULL do not change the tick's length, only which CPUs take it (an idle CPU,
 * or a nohz_full CPU running one task, stops its tick): only CONFIG_HZ is read.
 */

/* The model's tick when the kernel's cannot be found: CONFIG_HZ=250 (kernel/Kconfig.hz's default, Debian's). */
#define KERNEL_HZ_DEFAULT 250U

/* The CONFIG_HZ values accepted from a config file: every HZ an architecture offers lies well inside. */
#define KERNEL_HZ_MIN 10U
#define KERNEL_HZ_MAX 10000U

/* The largest config text read (decompressed): a distribution kernel's is about 280 KB. */
#define KERNEL_HZ_CONFIG_MAX (8U * 1024 * 1024)

/* TICK_NSEC for @hz: (NSEC_PER_SEC + HZ/2) / HZ (include/vdso/jiffies.h); 4000000 for 250, 3333333 for 300. */
uint64_t kernel_hz_tick_ns(unsigned hz);

/*
 * CONFIG_HZ in the config text @text of @size bytes (a .config: "CONFIG_HZ=250" lines; NUL bytes end nothing).
 * Returns HZ, or -ENODATA without a CONFIG_HZ= line ("# CONFIG_HZ is not set" is none), -EBADMSG when its value
 * is not a decimal number, -ERANGE outside [KERNEL_HZ_MIN, KERNEL_HZ_MAX]. A repeated line: the last one wins,
 * as it does when kconfig reads the file.
 */
int kernel_hz_parse(const char *text, size_t size);

/*
 * CONFIG_HZ of the config file @path, gzip-compressed (/proc/config.gz) or plain (zlib reads either). Returns HZ,
 * kernel_hz_parse()'s errors, -EBADMSG for a corrupt or truncated gzip stream, -EFBIG above KERNEL_HZ_CONFIG_MAX,
 * -ENOMEM, or open(2)'s -errno (-ENOENT: no such file).
 */
int kernel_hz_read_file(const char *path);

typedef struct KernelHz {
        unsigned hz;              /* CONFIG_HZ; KERNEL_HZ_DEFAULT when !found */
        uint64_t tick_ns;         /* kernel_hz_tick_ns(hz) */
        bool found;               /* read from a kernel config file */
        char source[PATH_MAX + 128]; /* found: that file ("/proc/config.gz"); else why not ("no kernel config found",
                                   * "/boot/config-6.1.0-18-amd64: no CONFIG_HZ line") */
} KernelHz;

/*
 * The running kernel's CONFIG_HZ: @root/proc/config.gz, then @root/boot/config-@release, the first that gives
 * one. @root NULL is "/" (tests give a directory); @release NULL is uname(2)'s. Always fills @ret (the default
 * when nothing was found). Returns 0 when found, else the first file's error (-ENOENT: neither file exists).
 */
int kernel_hz_find(const char *root, const char *release, KernelHz *ret);

/* "4 ms", "3.333 ms", "1 ms", "0.833 ms": @tick_ns in ms, at most three decimals, for messages. */
void kernel_hz_format_tick(uint64_t tick_ns, char buf[static 32]);

/*
 * The tick length of the kernel that recorded a trace, measured from the trace (replay: a trace may come from
 * another machine, whose CONFIG_HZ we cannot read). A running CFS task reports sched_stat_runtime at every tick
 * (task_tick_fair() → entity_tick() → update_curr(), kernel/sched/fair.c), and a CPU's ticks lie on one grid
 * (the tick hrtimer is forwarded by whole ticks, also when it restarts after idle: tick_nohz_restart()). Other
 * reports (a switch, an enqueue or a wake-up preemption check on that runqueue) fall anywhere. So, for each
 * standard tick (kernel/Kconfig.hz: HZ=100, 250, 300, 1000), the reports of each CPU go into a histogram by
 * phase (time modulo that tick): the true tick's grid gathers its reports in one window, and so does every
 * shorter tick that divides it (a 4 ms grid is on the 1 ms one too), while a longer one spreads them. And a
 * task that ran between two of its reports (no switch between, runtime= the gap) for longer than a tick says
 * the tick is longer: a 1 ms candidate is refuted by one 4 ms run, even where a workload's own 1 ms timer puts
 * other reports on a 1 ms grid. The result is the longest tick no run outlasts whose grid holds (beyond chance)
 * three quarters of the best such grid's reports. The gaps between reports alone cannot tell: a task with a
 * steady duty cycle stops the same distance after a tick every period (a 30 % hog of 16 ms: 1 ms after its
 * tick), and a fork storm's 1 ms children end 1 ms after theirs.
 *
 * Pure: events in, HZ out.
 */

/* Reports on the winner's grid (beyond chance) after which the estimate is decided (tick_estimate_enough()). */
#define TICK_ESTIMATE_ENOUGH 64
/* The fewest reports (beyond chance) on a grid for a result: below that, too few to tell. */
#define TICK_ESTIMATE_MIN 16

typedef struct TickEstimate TickEstimate;

int tick_estimate_new(TickEstimate **ret);
TickEstimate *tick_estimate_free(TickEstimate *t);
DEFINE_TRIVIAL_CLEANUP_FUNC(TickEstimate *, tick_estimate_free);

/* One event of the trace, in time order (events of CPUs outside 0..CPU_SETSIZE-1 are ignored). */
void tick_estimate_event(TickEstimate *t, const SchedEvent *ev);

/* Decided, with TICK_ESTIMATE_ENOUGH reports on the grid and as many runs: more events would not change it. */
bool tick_estimate_enough(const TickEstimate *t);

typedef struct TickEstimateResult {
        unsigned hz;              /* the winner, 0 when undecided */
        uint64_t on_grid;         /* reports on the winner's grid (one window per CPU and half second) */
        uint64_t reports;         /* every sched_stat_runtime seen */
} TickEstimateResult;

/* The estimate so far. Returns the HZ (> 0) with *@ret filled, or -ENODATA when no grid holds enough reports. */
int tick_estimate_result(const TickEstimate *t, TickEstimateResult *ret);
