/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The BPF event source (issue #23): schedutil's decision taken in the kernel. tp_btf programs
 * (daemon/bpf/schedfreqd.bpf.c) on the scheduler tracepoints and on the bare PELT ones read each CPU's own
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

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "decision.h"
#include "macro.h"
#include "topology.h"

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
