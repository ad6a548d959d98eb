/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * What daemon/governor/bpf/schedfreqd.bpf.c and daemon/governor/bpf-events.c share: the sizes, the ring record, and the layout of
 * the global arrays (the program's .bss, mmap'd by the skeleton) through which the daemon configures each policy
 * and reads what the kernel side saw. Compiles in both: the BPF side gets __u32/__u64 from vmlinux.h, userspace
 * from <linux/types.h>. Every struct is named sfq_*: vmlinux.h already has `struct sample` and friends.
 *
 * Ownership, so that neither side clobbers the other without locks:
 *   sfq_cpu_conf[], sfq_policy_conf[]   written by userspace only (bpf_events_new(), _set_policy(), _cpu_set_online())
 *   sfq_cpu_state[], sfq_policy_state[] written by the programs; userspace only reads them, except
 *                                       sfq_policy_state.cur_khz (both: compare-and-swap) and .cached_raw_khz
 *                                       (userspace invalidates it when it changes cur_khz or the limits).
 * A request that userspace makes of the kernel side (need_update) is a sequence number: conf.need_update_seq is
 * bumped by userspace, state.need_update_done catches up when an evaluation takes it.
 */

#ifndef __bpf__
#include <linux/types.h>
#endif

#define SFQ_MAX_CPUS 256            /* possible CPUs (indexes of the per-CPU arrays); a power of 2 */
#define SFQ_MAX_POLICIES 64         /* a power of 2 */
#define SFQ_MAX_POLICY_CPUS 64      /* CPUs of one policy */
#define SFQ_MAX_FREQS 64            /* entries of one policy's frequency table */
#define SFQ_RING_BYTES (256 * 1024) /* ~5000 records: far more than a rate limit lets through between drains */
#define SFQ_CAPACITY_SCALE 1024     /* SCHED_CAPACITY_SCALE */
#define SFQ_CACHED_NONE 0xffffffffu /* sfq_policy_state.cached_raw_khz: no cached raw frequency */
#define SFQ_POLICY_WAKE 0xffffffffu /* sfq_record.policy of a wake-up record: no decision (wake_period_ns) */
#define SFQ_POLICY_KERNEL_FREQ 0xfffffffeu /* of the kernel's own change (power:cpu_frequency): cpu, new_khz */

/* PERCPU_ARRAY sfq_counters, one u64 each. */
enum sfq_counter {
        SFQ_COUNT_EVENTS,
        SFQ_COUNT_EVALUATIONS,
        SFQ_COUNT_RECORDS,
        SFQ_COUNT_DEFERRED,
        SFQ_COUNT_RATE_LIMITED,
        SFQ_COUNT_DROPPED,
        SFQ_COUNT_MAX,
};

/* Which program wrote a record (userspace maps it to SchedEventType; the PELT ones are "ticks"). */
enum sfq_event {
        SFQ_EVENT_PELT_CFS,
        SFQ_EVENT_PELT_RT,
        SFQ_EVENT_PELT_DL,
        SFQ_EVENT_PELT_IRQ,
        SFQ_EVENT_WAKEUP,
        SFQ_EVENT_WAKEUP_NEW,
};

enum sfq_kind {
        SFQ_KIND_LOCAL,
        SFQ_KIND_REMOTE,
};

/* The same order as DecisionReason (include/governor.h); bpf-events.c checks it at build time. */
enum sfq_reason {
        SFQ_REASON_DEMAND,
        SFQ_REASON_RT,
        SFQ_REASON_IOWAIT,
        SFQ_REASON_LIMITS,
        SFQ_REASON_RULE,
};

/* One frequency change, written to the ring only when a policy's frequency must change. */
struct sfq_record {
        __u64 time_ns;            /* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
        __u64 deferred_since_ns;  /* deferred: when the disallowed remote event was seen */
        __u32 policy;             /* topology index */
        __u32 old_khz, new_khz;
        __u32 cpu;                /* the CPU the program ran on */
        __u32 target_cpu;         /* the CPU whose runqueue the event concerned */
        __u32 util;               /* the policy's utilisation before headroom, 0..1024 */
        __u32 kind;               /* enum sfq_kind */
        __u32 reason;             /* enum sfq_reason */
        __u32 event;              /* enum sfq_event */
        __u32 deferred;           /* it takes a change a disallowed remote event had to leave */
        __s32 pid;                /* the task concerned, 0 = idle/none */
        __u32 pad;
};

/* Per CPU, userspace-owned. */
struct sfq_cpu_conf {
        __u32 in_policy;          /* the CPU belongs to a policy of the topology */
        __u32 policy;             /* its topology index */
        __u32 online;             /* left out of everything while 0 (policy->cpus holds online CPUs only) */
        __u32 pad;
};

/* Per policy, userspace-owned. */
struct sfq_policy_conf {
        __u32 managed;            /* 0: never evaluated */
        __u32 remote;             /* dvfs_possible_from_any_cpu */
        __u32 min_khz, max_khz;   /* scaling limits */
        __u32 cpuinfo_max_khz;    /* get_next_freq()'s reference frequency */
        __u32 capacity;           /* arch_scale_cpu_capacity() of its CPUs */
        __u32 headroom_x1024;     /* map_util_perf(): 1280 */
        __u32 min_util, max_util; /* a rule's clamp, 0/1024 = none */
        __u32 need_update_seq;    /* bumped for each need_update request (limits_changed) */
        __u64 rate_limit_ns;      /* freq_update_delay_ns */
        __u64 inefficient_mask;   /* bit k: freqs_khz[k] is CPUFREQ_INEFFICIENT_FREQ (the EM's), 0 = none */
        __u32 n_cpus;             /* related CPUs, <= SFQ_MAX_POLICY_CPUS */
        __u32 n_freqs;            /* table entries, 0 = continuous */
        __u32 cpus[SFQ_MAX_POLICY_CPUS];
        __u32 freqs_khz[SFQ_MAX_FREQS]; /* ascending */
};

/* Per policy, kernel-owned (but cur_khz and cached_raw_khz, see above). */
struct sfq_policy_state {
        __u32 cur_khz;            /* sg_policy->next_freq: claimed by compare-and-swap */
        __u32 cached_raw_khz;     /* sg_policy->cached_raw_freq, SFQ_CACHED_NONE = none */
        __u64 last_update_ns;     /* sg_policy->last_freq_update_time, 0 = never */
        __u64 pending_since_ns;   /* a disallowed remote event left a change (its time), 0 = none */
        __u32 need_update_done;   /* the need_update_seq last taken */
        __u32 pad;
};

/* Per CPU, kernel-owned: what the programs last read of the CPU's runqueue, and the governor's per-CPU state. */
struct sfq_cpu_state {
        __u64 rq;                 /* the struct rq * last seen for this CPU (re-read for shared policies) */
        __u64 time_ns;            /* when the signals were read, 0 = never */
        __u32 util_avg, util_est, runnable_avg, rt_avg, dl_avg, irq_avg, bw_dl, uclamp_min, uclamp_max;
        __u32 uclamp_used;        /* the rq has uclamp and it is not at its defaults (0, 1024) */
        __u32 nr_rt_running;      /* rt_rq->rt_nr_running */
        __u32 rt_runnable;        /* rt_rq_is_runnable(), the daemon's own RT thread left out */
        __u32 curr_pid;           /* rq->curr, 0 = idle */
        __u32 effective;          /* sugov_get_util() before headroom: max(effective_cpu_util(), iowait boost) */
        __u32 perf;               /* sugov_effective_cpu_perf(): what the policy maximum takes */
        __u32 util;               /* effective after a rule's clamp: what the record reports */
        __u32 reason;             /* enum sfq_reason: what decided perf */
        __u32 went_idle;          /* the CPU was idle since the last evaluation (sugov_hold_freq()) */
        __u32 evaluated;          /* an evaluation saved went_idle at least once */
        __u32 hooked;             /* a cpufreq hook call since the last evaluation (consumes the boost) */
        __u32 iowait_boost;       /* sg_cpu->iowait_boost */
        __u32 iowait_pending;     /* sg_cpu->iowait_boost_pending */
        __u64 last_hook_ns;       /* sg_cpu->last_update */
        __u64 idle_switches;      /* the idle task's nvcsw + nivcsw at the last read: a change = the CPU idled */
        __u32 rule_min, rule_max; /* the queued ruled tasks' clamp at the read (0, 1024 = none; see below) */
};

/*
 * Per-process rules ([rule:NAME], config.h) on the BPF source: each rule becomes a task clamp, as the kernel's
 * uclamp would hold it (min_util; rt_boost = a min of 1024; max_util; ignore = a max of 0). The daemon says which
 * task has which rule (sfq_task_rule, tid -> rule index); the programs on enqueue_task()/dequeue_task() count the
 * queued ruled tasks per CPU as uclamp_rq_inc()/uclamp_rq_dec() do (kernel/sched/core.c), and the CPU's clamp is
 * the max over them, as uclamp_rq_max_value() takes it. Attached only while rules exist.
 */
#define SFQ_MAX_RULES 32            /* RULES_MAX; a power of 2 */
#define SFQ_MAX_RULED_TASKS 16384   /* tasks with a rule at once */

/* Daemon-owned: rule @i's clamp. */
struct sfq_rule {
        __u32 min_util, max_util;
};

/* Kernel-owned, per CPU (written under its rq lock): the ruled tasks queued there. */
struct sfq_cpu_rules {
        __u32 count[SFQ_MAX_RULES]; /* per rule */
        __u32 n;                    /* their sum */
        __u32 idle_max;             /* uclamp_idle_value(): the max clamp of the last task to leave, while idle */
};

/* Kernel-owned, per ruled task queued: where and under which rule it was counted (uclamp_se.active). */
struct sfq_task_active {
        __u32 cpu, rule;
};
