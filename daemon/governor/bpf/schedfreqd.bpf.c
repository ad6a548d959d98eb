// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * schedfreqd.bpf.c: schedutil's frequency choice taken in the kernel (issue #23; docs/bpf-source.md).
 *
 * tp_btf programs where the kernel calls schedutil: the bare PELT tracepoints (pelt_cfs_tp for the root cfs_rq
 * only: a decayed update, an attach or a detach, cfs_rq_util_change(); pelt_rt_tp, pelt_dl_tp; pelt_irq_tp) and
 * sched_wakeup/sched_wakeup_new for the iowait hook only. Not on every switch, enqueue or migration: the kernel
 * does not evaluate there either, and a program per context switch cost the workload 2x under stress-ng --switch
 * (docs/benchmarks.md). Each finds the runqueue concerned, reads that CPU's signals with CO-RE, combines them as effective_cpu_util()
 * and sugov_get_util() do, evaluates the CPU's policy as sugov_update_single_freq()/sugov_update_shared() do, and
 * writes one ring record only when the policy's frequency must change. The daemon writes the frequency.
 *
 * State lives in global arrays (.bss, mmap'd by the loader; layout and ownership in schedfreqd-bpf.h), indexed
 * by rq->cpu, never by bpf_get_smp_processor_id(): a runqueue is often updated from another CPU (a remote
 * wake-up, nohz idle balance). The tracepoints fire under the runqueue's lock, so one CPU's slot is written by
 * one program at a time; a policy's state may be evaluated by two of its CPUs at once, and the frequency change
 * is claimed by compare-and-swap on cur_khz (-mcpu=v3 atomics).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "schedfreqd-bpf.h"

char LICENSE[] SEC("license") = "GPL";

#define UTIL_AVG_UNCHANGED 0x80000000u /* bit 31 of util_est (kernel/sched/pelt.h, 6.8+) */
#define BW_SHIFT 20                    /* kernel/sched/sched.h: cpu_bw_dl() */
#define MAX_RT_PRIO 100
#define IOWAIT_BOOST_MIN (SFQ_CAPACITY_SCALE / 8) /* kernel/sched/cpufreq_schedutil.c */

/* Set by the loader before load. */
const volatile __u32 self_tgid = 0;            /* the daemon (its own RT thread is not "RT runnable") */

/* The daemon's event-loop task (its main thread), kept from the first program run in its context: probe-read
 * later to leave it out of the RT count of the rq it is queued on. 0 until seen. */
__u64 self_task = 0;

/*
 * The daemon's once-a-second bookkeeping (re-reading the scaling limits, which sysfs cannot notify; a policy's
 * health) runs after its wake-ups. While scheduler events happen and no record woke it for wake_period_ns, a
 * wake-up record (policy SFQ_POLICY_WAKE) does: at most one a period, none on a machine where nothing runs.
 * Set by the loader (0: never).
 */
__u64 wake_period_ns = 0;
__u64 last_wake_ns = 0;

/* Writable by the loader at any time: TICK_NSEC, after which an iowait boost resets (CONFIG_HZ=250: 4 ms). */
__u64 tick_ns = 4000000;

struct sfq_cpu_conf sfq_cpu_conf[SFQ_MAX_CPUS];
struct sfq_policy_conf sfq_policy_conf[SFQ_MAX_POLICIES];
struct sfq_cpu_state sfq_cpu_state[SFQ_MAX_CPUS];
struct sfq_policy_state sfq_policy_state[SFQ_MAX_POLICIES];

/* Per-process rules (schedfreqd-bpf.h): rules_on is set by the loader once the enqueue/dequeue programs are
 * attached and the counts below zeroed, cleared before they are detached. */
__u32 rules_on = 0;
struct sfq_rule sfq_rules[SFQ_MAX_RULES];
struct sfq_cpu_rules sfq_cpu_rules[SFQ_MAX_CPUS];

struct {
        __uint(type, BPF_MAP_TYPE_HASH);
        __uint(max_entries, SFQ_MAX_RULED_TASKS);
        __type(key, __u32);   /* tid */
        __type(value, __u32); /* rule index */
} sfq_task_rule SEC(".maps");

struct {
        __uint(type, BPF_MAP_TYPE_HASH);
        __uint(max_entries, SFQ_MAX_RULED_TASKS);
        __type(key, __u32); /* tid */
        __type(value, struct sfq_task_active);
} sfq_task_active SEC(".maps");

struct {
        __uint(type, BPF_MAP_TYPE_RINGBUF);
        __uint(max_entries, SFQ_RING_BYTES);
} sfq_ring SEC(".maps");

struct {
        __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
        __uint(max_entries, SFQ_COUNT_MAX);
        __type(key, __u32);
        __type(value, __u64);
} sfq_counters SEC(".maps");

/* The rq's uclamp (CONFIG_UCLAMP_TASK), absent from kernels without it (this one): CO-RE checks at load. */
struct uclamp_rq___sfq {
        unsigned int value;
} __attribute__((preserve_access_index));

struct rq___sfq {
        struct uclamp_rq___sfq uclamp[2];
} __attribute__((preserve_access_index));

static __always_inline void count(__u32 which) {
        __u64 *c = bpf_map_lookup_elem(&sfq_counters, &which);

        if (c)
                *c += 1;
}

static __always_inline __u32 min_u32(__u32 a, __u32 b) {
        return a < b ? a : b;
}

static __always_inline __u32 max_u32(__u32 a, __u32 b) {
        return a > b ? a : b;
}

/* ---- Reading a runqueue ---- */

static __always_inline struct rq *task_rq_of(struct task_struct *p);

/* The daemon's own task is queued on @rq as an RT task (TASK_ON_RQ_QUEUED, prio < MAX_RT_PRIO). */
static __always_inline bool self_queued_rt_on(struct rq *rq) {
        struct task_struct *t = (struct task_struct *) self_task;

        if (!t || BPF_CORE_READ(t, prio) >= MAX_RT_PRIO || BPF_CORE_READ(t, on_rq) != 1)
                return false;
        return task_rq_of(t) == rq;
}

/* Keeps the daemon's task the first time a program runs in its context (its main thread: pid == tgid). */
static __always_inline void self_task_learn(void) {
        __u64 id;

        if (self_task || !self_tgid)
                return;
        id = bpf_get_current_pid_tgid();
        if ((__u32) id == self_tgid && (__u32) (id >> 32) == self_tgid)
                self_task = (__u64) bpf_get_current_task();
}

/* Queued on @rq and counted by the kernel's uclamp: the fair class's delayed-dequeue tasks are not (6.12+). */
static __always_inline __u32 rq_nr_clamped(struct rq *rq) {
        __u32 nr = BPF_CORE_READ(rq, nr_running), delayed = 0;

        if (bpf_core_field_exists(rq->cfs.h_nr_runnable))
                delayed = BPF_CORE_READ(rq, cfs.h_nr_queued) - BPF_CORE_READ(rq, cfs.h_nr_runnable);
        return nr > delayed ? nr - delayed : 0;
}

/* What read_rules() gathers over the rules counted on one CPU. */
struct rules_ctx {
        __u32 cpu;
        __u32 min, max;
};

/*
 * bpf_loop() callback: rule @i, if tasks under it are queued on the CPU. The verifier walks a callback's body
 * until its states converge, whatever the iteration count (kernel/bpf/verifier.c, check_helper_call() ->
 * push_callback_call() for BPF_FUNC_loop; inline_bpf_loop() turns it back into a plain loop at run time): here
 * 98 instructions. The same 32-iteration loop written out was walked once per iteration, at each of its two
 * inlined copies: ~1,800 of the ~7,700 instructions each PELT program took to verify.
 */
static int rule_clamp(__u32 i, void *data) {
        struct rules_ctx *ctx = data;
        struct sfq_cpu_rules *cr = &sfq_cpu_rules[ctx->cpu & (SFQ_MAX_CPUS - 1)];
        __u32 rule = i & (SFQ_MAX_RULES - 1);

        if (!cr->count[rule])
                return 0;
        ctx->min = max_u32(ctx->min, sfq_rules[rule].min_util);
        ctx->max = max_u32(ctx->max, sfq_rules[rule].max_util);
        return 0;
}

/*
 * The per-process rules' clamp of @rq's CPU (schedfreqd-bpf.h), as uclamp_rq_util_with() takes the rq's: the max
 * over its queued tasks' min and max, a task without a rule counting as (0, 1024); while idle, the max of the
 * last task to leave (uclamp_idle_value()) and a min of 0.
 */
static __always_inline void read_rules(struct rq *rq, struct sfq_cpu_state *s) {
        struct rules_ctx ctx = {};
        struct sfq_cpu_rules *cr;
        __u32 cpu, nr;

        s->rule_min = 0;
        s->rule_max = SFQ_CAPACITY_SCALE;
        if (!rules_on)
                return;
        cpu = BPF_CORE_READ(rq, cpu);
        if (cpu >= SFQ_MAX_CPUS)
                return;
        cr = &sfq_cpu_rules[cpu & (SFQ_MAX_CPUS - 1)];
        nr = rq_nr_clamped(rq);
        if (nr == 0) {
                s->rule_max = cr->idle_max;
                return;
        }
        if (cr->n == 0)
                return;
        ctx.cpu = cpu;
        bpf_loop(SFQ_MAX_RULES, rule_clamp, &ctx, 0);
        s->rule_min = min_u32(ctx.min, SFQ_CAPACITY_SCALE);
        /* A queued task without a rule holds the max at the capacity. */
        s->rule_max = nr > cr->n ? SFQ_CAPACITY_SCALE : min_u32(ctx.max, SFQ_CAPACITY_SCALE);
}

/*
 * Everything effective_cpu_util() reads of @rq, into @s. BPF_CORE_READ is a probe read: it also works on an rq
 * pointer kept from an earlier event (the per-CPU runqueues are never freed), which is how a shared policy reads
 * its other CPUs, as sugov_next_freq_shared() does, without the runqueues symbol (not in this kernel's kallsyms).
 */
static __always_inline void read_rq(struct rq *rq, struct sfq_cpu_state *s) {
        struct rq___sfq *rqu = (void *) rq;
        struct task_struct *curr, *idle;
        __u64 idle_switches;
        __u32 rt_queued;

        s->rq = (__u64) rq;
        s->time_ns = bpf_ktime_get_ns();
        s->util_avg = BPF_CORE_READ(rq, cfs.avg.util_avg);
        /* The root cfs_rq's util_est is the sum over enqueued tasks; bit 31 only ever marks a task's. */
        s->util_est = BPF_CORE_READ(rq, cfs.avg.util_est) & ~UTIL_AVG_UNCHANGED;
        s->runnable_avg = BPF_CORE_READ(rq, cfs.avg.runnable_avg);
        s->rt_avg = BPF_CORE_READ(rq, avg_rt.util_avg);
        s->dl_avg = BPF_CORE_READ(rq, avg_dl.util_avg);
        /* cpu_util_irq(): 0 without CONFIG_HAVE_SCHED_AVG_IRQ */
        s->irq_avg = bpf_core_field_exists(rq->avg_irq) ? BPF_CORE_READ(rq, avg_irq.util_avg) : 0;
        /* cpu_bw_dl(): (rq->dl.running_bw * SCHED_CAPACITY_SCALE) >> BW_SHIFT */
        s->bw_dl = (__u32) ((BPF_CORE_READ(rq, dl.running_bw) * SFQ_CAPACITY_SCALE) >> BW_SHIFT);
        /*
         * uclamp_rq_get(): without CONFIG_UCLAMP_TASK the clamps are 0 and SCHED_CAPACITY_SCALE and
         * uclamp_is_used() is false. With it, uclamp_is_used() is a static key (set once any task or cgroup
         * asked for a clamp) that a program cannot read: we take "the rq's clamps are not at their defaults"
         * for it, which is the same whenever it matters for the rq at hand.
         */
        if (bpf_core_field_exists(rqu->uclamp)) {
                s->uclamp_min = BPF_CORE_READ(rqu, uclamp[0].value);
                s->uclamp_max = BPF_CORE_READ(rqu, uclamp[1].value);
        } else {
                s->uclamp_min = 0;
                s->uclamp_max = SFQ_CAPACITY_SCALE;
        }
        s->uclamp_used = s->uclamp_min != 0 || s->uclamp_max != SFQ_CAPACITY_SCALE;
        read_rules(rq, s);

        /*
         * sugov_hold_freq() asks whether the CPU entered idle since the previous evaluation
         * (tick_nohz_get_idle_calls_cpu(), a per-CPU symbol a program cannot reach here). The idle task is
         * switched out once per idle period (__schedule() counts every switch in prev's nvcsw/nivcsw), so a change
         * of its count, or the idle task running now, says the same.
         */
        curr = BPF_CORE_READ(rq, curr);
        s->curr_pid = BPF_CORE_READ(curr, pid);
        idle = BPF_CORE_READ(rq, idle);
        idle_switches = BPF_CORE_READ(idle, nvcsw) + BPF_CORE_READ(idle, nivcsw);
        if (idle_switches != s->idle_switches || curr == idle)
                s->went_idle = 1;
        s->idle_switches = idle_switches;

        s->nr_rt_running = BPF_CORE_READ(rq, rt.rt_nr_running);
        rt_queued = BPF_CORE_READ(rq, rt.rt_queued);
        /*
         * The kernel's own worker (sugov:N) is SCHED_DEADLINE with SCHED_FLAG_SUGOV, left out of the DL
         * bandwidth (kernel/sched/cpufreq_schedutil.c sugov_kthread_create()); the daemon runs SCHED_FIFO instead,
         * and its own wake-up or run must not make its CPU ask for the maximum, or every record it reads would
         * raise the CPU it runs on and make the next record (a feedback loop). So while it is queued on this rq
         * as an RT task it is not counted as one.
         */
        if (s->nr_rt_running > 0 && self_queued_rt_on(rq))
                s->nr_rt_running--;
        /* rt_rq_is_runnable() (kernel/sched/sched.h): rt_queued && rt_nr_running. */
        s->rt_runnable = rt_queued && s->nr_rt_running;
}

/*
 * read_rq() of CPU @cpu's runqueue as the caller remembered it (sfq_cpu_state[cpu].rq). A global function: see
 * sfq_cpu_eval() below. The runqueue goes through the map, not as an argument: a global function's arguments are
 * checked against its BTF prototype, and a pointer (the tracepoint's struct rq *, PTR_TO_BTF_ID) is not a scalar
 * (kernel/bpf/verifier.c, btf_check_func_arg_match(): "R%d is not a scalar"); read back from the map value it is
 * one, and BPF_CORE_READ is a probe read either way.
 */
__noinline int sfq_read_cpu(__u32 cpu) {
        struct sfq_cpu_state *s;

        if (cpu >= SFQ_MAX_CPUS)
                return -1;
        s = &sfq_cpu_state[cpu & (SFQ_MAX_CPUS - 1)];
        read_rq((struct rq *) s->rq, s);
        return 0;
}

/* The rq a cfs_rq belongs to when it is that rq's root cfs_rq (the oracle's rule), else NULL. */
static __always_inline struct rq *root_rq_of(struct cfs_rq *cfs_rq) {
        struct rq *rq;

        if (bpf_core_field_exists(cfs_rq->rq)) {
                rq = BPF_CORE_READ(cfs_rq, rq);
                if (!rq || (void *) cfs_rq != (void *) rq + bpf_core_field_offset(struct rq, cfs))
                        return NULL;
                return rq;
        }
        /* Without group scheduling the only cfs_rq of a CPU is embedded in its rq. */
        return (struct rq *) ((void *) cfs_rq - bpf_core_field_offset(struct rq, cfs));
}

/* The rq a task is on (or was last on): se.cfs_rq->rq (set_task_rq() sets se.cfs_rq for every class). */
static __always_inline struct rq *task_rq_of(struct task_struct *p) {
        struct cfs_rq *cfs_rq = BPF_CORE_READ(p, se.cfs_rq);
        __u32 cpu;

        if (!cfs_rq)
                return NULL;
        if (bpf_core_field_exists(cfs_rq->rq))
                return BPF_CORE_READ(cfs_rq, rq);
        /* No group scheduling: the task's CPU, whose rq an earlier event showed us. */
        cpu = BPF_CORE_READ(p, thread_info.cpu);
        if (cpu >= SFQ_MAX_CPUS)
                return NULL;
        return (struct rq *) sfq_cpu_state[cpu & (SFQ_MAX_CPUS - 1)].rq;
}

/* ---- iowait boost (kernel/sched/cpufreq_schedutil.c, 6.x) ---- */

/* sugov_iowait_reset(): "Reset boost only if a tick has elapsed since last request". */
static __always_inline bool iowait_reset(struct sfq_cpu_state *s, __u64 now, bool set) {
        if (now < s->last_hook_ns || now - s->last_hook_ns <= tick_ns)
                return false;
        s->iowait_boost = set ? IOWAIT_BOOST_MIN : 0;
        s->iowait_pending = set;
        return true;
}

/* A cpufreq hook call for the CPU: sugov_iowait_boost(), then sg_cpu->last_update = time. */
static __always_inline void hook_call(struct sfq_cpu_state *s, __u64 now, bool iowait) {
        if (!(s->iowait_boost && iowait_reset(s, now, iowait)) && iowait && !s->iowait_pending) {
                s->iowait_pending = 1;
                s->iowait_boost = s->iowait_boost ? min_u32(s->iowait_boost << 1, SFQ_CAPACITY_SCALE)
                                                  : IOWAIT_BOOST_MIN;
        }
        s->last_hook_ns = now;
        s->hooked = 1;
}

/*
 * sugov_iowait_apply() in an update that passed the rate limit; the boost in capacity units. Only a CPU that
 * had a hook call since its last evaluation consumes (halves) it; our extra evaluations (a wake-up that is not
 * an iowait one, a switch) just look at it, as the userspace engine does.
 */
static __always_inline __u32 iowait_apply(struct sfq_cpu_state *s, __u64 now, __u32 capacity) {
        if (!s->iowait_boost)
                return 0;
        if (!s->hooked) {
                if (now >= s->last_hook_ns && now - s->last_hook_ns > tick_ns)
                        return 0;
                return (s->iowait_boost * capacity) >> 10;
        }
        s->hooked = 0;
        if (iowait_reset(s, now, false))
                return 0;
        if (!s->iowait_pending) {
                s->iowait_boost >>= 1;
                if (s->iowait_boost < IOWAIT_BOOST_MIN) {
                        s->iowait_boost = 0;
                        return 0;
                }
        }
        s->iowait_pending = 0;
        /* "sg_cpu->util is already in capacity scale; convert iowait_boost into the same scale" */
        return (s->iowait_boost * capacity) >> 10;
}

/* ---- One CPU's utilisation ---- */

/*
 * sugov_get_util() (kernel/sched/cpufreq_schedutil.c) with effective_cpu_util() (kernel/sched/syscalls.c, 6.11+;
 * sched/fair.c 6.8-6.10) and cpu_util_cfs_boost() (kernel/sched/fair.c cpu_util(cpu, NULL, -1, 1)), 6.8+.
 */
static __always_inline void cpu_compute(struct sfq_cpu_state *s, const struct sfq_policy_conf *pc, __u32 boost) {
        __u32 scale = pc->capacity ?: SFQ_CAPACITY_SCALE;
        __u32 irq = s->irq_avg, util_cfs, util, min, max, eff, clamped, actual, min_k, max_k, perf_k;
        bool rt_min = false;

        /* cpu_util_cfs_boost(): max(util_avg, runnable_avg), then max with util_est, capped at the capacity. */
        util_cfs = min_u32(max_u32(max_u32(s->util_avg, s->runnable_avg), s->util_est), scale);

        if (irq >= scale) {
                /* "IRQ/steal time saturates the CPU" */
                util = min = max = scale;
        } else {
                /* min: the DL bandwidth with the IRQ pressure, or the rq's uclamp_min */
                min = max_u32(irq + s->bw_dl, s->uclamp_min);
                /* "When an RT task is runnable and uclamp is not used, ... maximum compute capacity." */
                if (!s->uclamp_used && s->rt_runnable) {
                        rt_min = min < scale;
                        min = scale;
                }
                util = util_cfs + s->rt_avg + s->dl_avg;
                max = min_u32(scale, s->uclamp_max);
                if (util >= scale) {
                        util = scale;
                } else {
                        /* scale_irq_capacity(): U' = irq + (max - irq) / max * U */
                        util = (__u32) ((__u64) util * (scale - irq) / scale) + irq;
                        util = min_u32(scale, util);
                }
        }

        /* sugov_get_util(): util = max(util, boost) */
        eff = max_u32(util, boost);
        s->effective = eff;

        /* A rule's clamp of the policy (uclamp-like, daemon-side): before the headroom. */
        clamped = eff;
        if (pc->max_util && pc->max_util < SFQ_CAPACITY_SCALE && clamped > pc->max_util)
                clamped = pc->max_util;
        if (pc->min_util && clamped < pc->min_util)
                clamped = min_u32(pc->min_util, SFQ_CAPACITY_SCALE);

        /* sugov_effective_cpu_perf(): max(min, min(max, map_util_perf(util))); the headroom generalises 1.25. */
        actual = (__u32) ((__u64) clamped * (pc->headroom_x1024 ?: 1280) / 1024);
        /* Without the rules' clamp (read_rules()), to tell whether it decided. */
        min_k = min;
        max_k = min_u32(max, actual);
        perf_k = max_u32(min_k, max_k);
        /* With it: max over the queued tasks' mins, and their max, as uclamp_rq_get() holds them. */
        if (irq < scale) {
                min = max_u32(min, min_u32(s->rule_min, scale));
                max = min_u32(max, s->rule_max);
        }
        if (actual < max)
                max = actual;
        s->perf = max_u32(min, max);
        s->util = clamped;

        if (rt_min && max < min)
                s->reason = SFQ_REASON_RT;
        else if (clamped != eff || s->perf != perf_k)
                s->reason = SFQ_REASON_RULE;
        else if (boost > util)
                s->reason = SFQ_REASON_IOWAIT;
        else
                s->reason = SFQ_REASON_DEMAND;
}

/*
 * One CPU of policy @policy at @now: its runqueue read again, its iowait boost applied, sugov_get_util(). Returns
 * its perf, or -1 when the CPU is not to be counted (offline, never seen).
 *
 * Global functions (here, sfq_read_cpu(), sfq_on_cpu(), sfq_resolve_khz(), sfq_evaluate()) take scalars only
 * and are verified once each per program, whatever the callers' state and however many call sites
 * (kernel/bpf/verifier.c: do_check_subprogs() checks a global function against its BTF prototype alone, and a
 * call to it only against that prototype): inlined, their branches multiplied with the caller's and every
 * program took half a second to verify. bpf_events_verified_insns() reads the total; test-bpf-events bounds it.
 */
__noinline int sfq_cpu_eval(__u32 cpu, __u32 policy, __u64 now) {
        struct sfq_policy_conf *pc;
        struct sfq_cpu_state *s;

        if (cpu >= SFQ_MAX_CPUS || policy >= SFQ_MAX_POLICIES)
                return -1;
        cpu &= SFQ_MAX_CPUS - 1;
        if (!sfq_cpu_conf[cpu].online)
                return -1;
        s = &sfq_cpu_state[cpu];
        if (!s->rq)
                return -1; /* never seen: nothing to read (its first PELT update will come) */
        pc = &sfq_policy_conf[policy & (SFQ_MAX_POLICIES - 1)];
        sfq_read_cpu(cpu);
        cpu_compute(s, pc, iowait_apply(s, now, pc->capacity ?: SFQ_CAPACITY_SCALE));
        return (int) s->perf;
}

/* ---- One policy evaluation ---- */

struct eval_ctx {
        __u32 policy;
        __u64 now;
        __u32 util, perf, reason;
        __u32 single_cpu;         /* the CPU of a single-CPU policy, for the hold rule */
        bool any;
};

/* bpf_loop() callback: CPU @i of the policy (sugov_next_freq_shared(): every CPU of policy->cpus). */
static int eval_cpu(__u32 i, void *data) {
        struct eval_ctx *ctx = data;
        struct sfq_policy_conf *pc = &sfq_policy_conf[ctx->policy & (SFQ_MAX_POLICIES - 1)];
        struct sfq_cpu_state *s;
        __u32 cpu;
        int perf;

        cpu = pc->cpus[i & (SFQ_MAX_POLICY_CPUS - 1)];
        perf = sfq_cpu_eval(cpu, ctx->policy, ctx->now);
        if (perf < 0)
                return 0;
        s = &sfq_cpu_state[cpu & (SFQ_MAX_CPUS - 1)];
        if (!ctx->any || (__u32) perf > ctx->perf) {
                ctx->perf = (__u32) perf;
                ctx->reason = s->reason;
        }
        ctx->util = max_u32(ctx->util, s->util);
        ctx->single_cpu = cpu;
        ctx->any = true;
        return 0;
}

/* What one pass over a policy's table finds for a clamped target (sfq_resolve_khz()); 0 = none (entries are
 * above 0: the daemon's topology checks them). */
struct resolve_ctx {
        __u32 policy, khz;
        __u64 skip;               /* inefficient_mask */
        __u32 lowest, last;       /* the lowest entry >= khz; the highest entry */
        __u32 lowest_eff, last_eff; /* the same among the efficient entries */
};

/* bpf_loop() callback: table entry @i (verified once, whatever the table: a loop in sfq_resolve_khz() with four
 * results to keep took the verifier past its million instructions). */
static int resolve_entry(__u32 i, void *data) {
        struct resolve_ctx *ctx = data;
        struct sfq_policy_conf *pc = &sfq_policy_conf[ctx->policy & (SFQ_MAX_POLICIES - 1)];
        __u32 f = pc->freqs_khz[i & (SFQ_MAX_FREQS - 1)];
        bool efficient = !(ctx->skip & (1ULL << (i & (SFQ_MAX_FREQS - 1))));

        if (f >= ctx->khz && !ctx->lowest)
                ctx->lowest = f;
        ctx->last = f;
        if (!efficient)
                return 0;
        if (f >= ctx->khz && !ctx->lowest_eff)
                ctx->lowest_eff = f;
        ctx->last_eff = f;
        return 0;
}

/*
 * cpufreq_driver_resolve_freq(): clamp to the limits, then CPUFREQ_RELATION_LE (5.16+): the lowest efficient
 * entry >= f, else the highest efficient one (cpufreq_table_find_index_al() with efficiencies: the entries the
 * Energy Model marked CPUFREQ_INEFFICIENT_FREQ, bits of inefficient_mask, left out); when that is outside the
 * limits or there is none, the lowest entry >= f whatever its efficiency, else the highest
 * (cpufreq_frequency_table_target(), include/linux/cpufreq.h). The daemon's policy_resolve_khz()
 * (daemon/topology/topology.c) is the same rule.
 */
__noinline __u32 sfq_resolve_khz(__u32 policy, __u32 khz) {
        struct sfq_policy_conf *pc = &sfq_policy_conf[policy & (SFQ_MAX_POLICIES - 1)];
        __u32 min_khz = pc->min_khz, max_khz = pc->max_khz, n = pc->n_freqs, f;
        struct resolve_ctx ctx = {};

        if (min_khz > max_khz)
                min_khz = max_khz;
        if (khz < min_khz)
                khz = min_khz;
        if (khz > max_khz)
                khz = max_khz;
        if (n == 0)
                return khz;
        ctx.policy = policy;
        ctx.khz = khz;
        ctx.skip = pc->inefficient_mask;
        bpf_loop(min_u32(n, SFQ_MAX_FREQS), resolve_entry, &ctx, 0);
        f = ctx.lowest_eff ?: ctx.last_eff;
        if (ctx.skip && f && f >= min_khz && f <= max_khz)
                return f;
        return ctx.lowest ?: ctx.last;
}

/*
 * sugov_hold_freq(): "Maintain the frequency if the CPU has not been idle recently, as reduction is likely to be
 * premature." The kernel compares tick_nohz_get_idle_calls_cpu() with the count saved at the previous call; we
 * keep a flag that a switch to the idle task sets, plus "it runs a task now" (a CPU sitting idle keeps entering
 * the idle loop in the kernel). Not held when capped by uclamp_max (uclamp_rq_is_capped()) or by a rule's max.
 */
static __always_inline bool hold_freq(struct sfq_cpu_state *s, const struct sfq_policy_conf *pc) {
        __u32 util = min_u32(max_u32(s->util_avg, s->util_est), pc->capacity ?: SFQ_CAPACITY_SCALE) + s->rt_avg;
        bool hold;

        if (s->uclamp_used && s->uclamp_max != SFQ_CAPACITY_SCALE && util >= s->uclamp_max)
                return false;
        if (pc->max_util && pc->max_util < SFQ_CAPACITY_SCALE && util >= pc->max_util)
                return false;
        if (s->rule_max < SFQ_CAPACITY_SCALE && util >= s->rule_max)
                return false;
        hold = s->evaluated && !s->went_idle && s->curr_pid != 0;
        s->went_idle = 0;
        s->evaluated = 1;
        return hold;
}

static __always_inline bool cpu_in_policy(__u32 cpu, __u32 policy) {
        struct sfq_cpu_conf *c;

        if (cpu >= SFQ_MAX_CPUS)
                return false;
        c = &sfq_cpu_conf[cpu & (SFQ_MAX_CPUS - 1)];
        return c->in_policy && c->policy == policy && c->online;
}

/*
 * get_next_freq() 6.8+ for policy @p from the utilisation @ctx found: ref * util / cap, ref = cpuinfo.max_freq (a
 * frequency-invariant kernel), resolved unless the raw frequency is the cached one; then the hold of
 * sugov_update_single_freq() (single-CPU policies only: "Restore cached freq").
 */
static __always_inline __u32 policy_next_khz(struct sfq_policy_conf *pc, struct sfq_policy_state *ps, __u32 p,
                                             const struct eval_ctx *ctx, __u32 old_khz, bool need) {
        __u32 cap = pc->capacity ?: SFQ_CAPACITY_SCALE;
        __u32 raw_khz = (__u32) ((__u64) pc->cpuinfo_max_khz * ctx->perf / cap);
        __u32 cached = ps->cached_raw_khz, next_khz;

        if (raw_khz == cached && !need) {
                next_khz = old_khz;
        } else {
                ps->cached_raw_khz = raw_khz;
                next_khz = sfq_resolve_khz(p, raw_khz);
        }
        if (pc->n_cpus == 1 && hold_freq(&sfq_cpu_state[ctx->single_cpu & (SFQ_MAX_CPUS - 1)], pc) &&
            next_khz < old_khz && !need) {
                next_khz = old_khz;
                ps->cached_raw_khz = cached;
        }
        return next_khz;
}

/*
 * The claimed change @rec to the reader, which is woken at once (flags 0: a frequency change is due now). With the
 * ring full the claim is given back (frequency, @last update time, the deferral) and taken again at a later
 * evaluation.
 */
static __always_inline void submit_change(struct sfq_policy_state *ps, const struct sfq_record *rec, __u64 last) {
        struct sfq_record *r = bpf_ringbuf_reserve(&sfq_ring, sizeof(*r), 0);

        if (!r) {
                __sync_val_compare_and_swap(&ps->cur_khz, rec->new_khz, rec->old_khz);
                ps->last_update_ns = last;
                if (rec->deferred_since_ns)
                        __sync_val_compare_and_swap(&ps->pending_since_ns, 0, rec->deferred_since_ns);
                count(SFQ_COUNT_DROPPED);
                return;
        }
        *r = *rec;
        bpf_ringbuf_submit(r, 0);
        count(SFQ_COUNT_RECORDS);
        last_wake_ns = rec->time_ns;
}

/*
 * sugov_update_single_freq() / sugov_update_shared() for policy @p after an event on @target's runqueue:
 * the remote rule and the rate limit (sugov_should_update_freq()), the utilisation of every CPU, get_next_freq(),
 * the hold, and a record when the frequency changes (sugov_update_next_freq()).
 */
__noinline int sfq_evaluate(__u32 p, __u32 target, __u32 event, __s32 pid) {
        struct sfq_policy_conf *pc = &sfq_policy_conf[p & (SFQ_MAX_POLICIES - 1)];
        struct sfq_policy_state *ps = &sfq_policy_state[p & (SFQ_MAX_POLICIES - 1)];
        __u32 this_cpu = bpf_get_smp_processor_id();
        struct eval_ctx ctx = { .policy = p & (SFQ_MAX_POLICIES - 1) };
        __u32 old_khz, next_khz, seq;
        __u64 now = bpf_ktime_get_ns(), last, since;
        struct sfq_record rec;
        bool local, need;

        if (p >= SFQ_MAX_POLICIES)
                return 0;
        count(SFQ_COUNT_EVALUATIONS);
        ctx.now = now;

        /*
         * cpufreq_this_cpu_can_update() (kernel/sched/cpufreq.c, 5.5+): the running CPU is one of the policy's
         * (online) CPUs, or the driver allows DVFS from any CPU. Otherwise nothing is computed; the change waits
         * for the next evaluation on a CPU of the policy, which reports it as deferred.
         */
        local = cpu_in_policy(this_cpu, p);
        if (!local && !pc->remote) {
                if (!ps->pending_since_ns)
                        __sync_val_compare_and_swap(&ps->pending_since_ns, 0, now);
                count(SFQ_COUNT_DEFERRED);
                return 0;
        }

        /* sugov_should_update_freq(): limits_changed bypasses the rate limit; otherwise the delay must be over. */
        seq = pc->need_update_seq;
        need = seq != ps->need_update_done;
        last = ps->last_update_ns;
        if (!need && last && (now < last || now - last < pc->rate_limit_ns)) {
                count(SFQ_COUNT_RATE_LIMITED);
                return 0;
        }
        since = __sync_lock_test_and_set(&ps->pending_since_ns, 0);
        if (need)
                ps->need_update_done = seq;

        bpf_loop(min_u32(pc->n_cpus, SFQ_MAX_POLICY_CPUS), eval_cpu, &ctx, 0);
        if (!ctx.any)
                return 0;

        old_khz = ps->cur_khz;
        next_khz = policy_next_khz(pc, ps, p, &ctx, old_khz, need);
        /* sugov_update_next_freq(): nothing to do when it does not change (last_freq_update_time stays). */
        if (next_khz == old_khz)
                return 0;
        /* Claim the change: another CPU of the policy may be here at the same time. */
        if (__sync_val_compare_and_swap(&ps->cur_khz, old_khz, next_khz) != old_khz)
                return 0;
        ps->last_update_ns = now;

        rec = (struct sfq_record) {
                .time_ns = now,
                .deferred_since_ns = since,
                .policy = p,
                .old_khz = old_khz,
                .new_khz = next_khz,
                .cpu = this_cpu,
                .target_cpu = target,
                .util = ctx.util,
                .kind = local ? SFQ_KIND_LOCAL : SFQ_KIND_REMOTE,
                .reason = need ? SFQ_REASON_LIMITS : ctx.reason,
                .event = event,
                .deferred = since != 0,
                .pid = pid,
        };
        submit_change(ps, &rec, last);
        return 0;
}

/* ---- The programs ---- */

struct rq_event {
        __u32 event;              /* enum sfq_event */
        __s32 pid;
        bool hook;                /* the kernel calls cpufreq_update_util() here (PELT change, iowait wake-up) */
        bool iowait;              /* ... with SCHED_CPUFREQ_IOWAIT */
};

/* A wake-up record when none woke the daemon for wake_period_ns (see there); claimed by one CPU. */
static __always_inline void maybe_wake(void) {
        __u64 now, last = last_wake_ns;
        struct sfq_record *r;

        if (!wake_period_ns)
                return;
        now = bpf_ktime_get_ns();
        if (now < last || now - last < wake_period_ns)
                return;
        if (__sync_val_compare_and_swap(&last_wake_ns, last, now) != last)
                return;
        r = bpf_ringbuf_reserve(&sfq_ring, sizeof(*r), 0);
        if (!r)
                return;
        __builtin_memset(r, 0, sizeof(*r));
        r->time_ns = now;
        r->policy = SFQ_POLICY_WAKE;
        bpf_ringbuf_submit(r, 0);
}

/*
 * An event on CPU @cpu's runqueue (remembered in sfq_cpu_state[cpu].rq by on_rq()): its signals read, the hook
 * call's bookkeeping, then its policy evaluated. A global function, so that a program with several call sites
 * (the wake-ups have three) has it verified once (sfq_cpu_eval()).
 */
__noinline int sfq_on_cpu(__u32 cpu, __u32 event, __s32 pid, bool hook, bool iowait) {
        struct sfq_cpu_state *s;
        struct sfq_cpu_conf *c;

        if (cpu >= SFQ_MAX_CPUS)
                return 0;
        cpu &= SFQ_MAX_CPUS - 1;
        s = &sfq_cpu_state[cpu];
        sfq_read_cpu(cpu);
        if (hook)
                hook_call(s, s->time_ns, iowait);

        /*
         * What the daemon itself causes is not evaluated, as the perf source filters out the wake-ups recorded
         * in the daemon's context (perf-events-open.c): a frequency write wakes the driver's worker (a slow-switch
         * driver's, or the test emulator's FUSE server), whose enqueue would raise the CPU the daemon just set
         * and whose dequeue lower it again, a write per turn. The signals read stay; the next event elsewhere
         * evaluates them. The daemon's event loop is its main thread (its pid is its tgid).
         */
        if (self_tgid && (__u32) bpf_get_current_pid_tgid() == self_tgid)
                return 0;

        c = &sfq_cpu_conf[cpu];
        if (!c->in_policy || !c->online || c->policy >= SFQ_MAX_POLICIES)
                return 0;
        if (!sfq_policy_conf[c->policy & (SFQ_MAX_POLICIES - 1)].managed)
                return 0;
        return sfq_evaluate(c->policy, cpu, event, pid);
}

static __always_inline int on_rq(struct rq *rq, const struct rq_event *ev) {
        __u32 cpu;

        count(SFQ_COUNT_EVENTS);
        if (!rq)
                return 0;
        self_task_learn();
        maybe_wake();
        cpu = BPF_CORE_READ(rq, cpu);
        if (cpu >= SFQ_MAX_CPUS)
                return 0;
        /* The runqueue reaches sfq_on_cpu() through the map: see sfq_read_cpu(). */
        sfq_cpu_state[cpu & (SFQ_MAX_CPUS - 1)].rq = (__u64) rq;
        return sfq_on_cpu(cpu, ev->event, ev->pid, ev->hook, ev->iowait);
}

static __always_inline __s32 current_pid(void) {
        return (__s32) (__u32) bpf_get_current_pid_tgid();
}

static __always_inline bool rule_enqueue(struct task_struct *p, __u32 cpu);

/*
 * A rule given to the task running on @rq (its exec or the start-up scan seen after it was switched in) counts
 * from the CPU's next update, as uclamp_update_active() (kernel/sched/core.c) applies a task's new clamp at once
 * when it is queued: counted only at its next switch-in, a CPU-bound task alone on its CPU kept running
 * unclamped for up to a second (test-bpf-source's rule cases). rq->curr is stable here: PELT updates run under
 * the rq lock.
 */
static __always_inline void rule_curr(struct rq *rq) {
        struct task_struct *curr = BPF_CORE_READ(rq, curr);

        if (curr && BPF_CORE_READ(curr, pid) != 0)
                (void) rule_enqueue(curr, BPF_CORE_READ(rq, cpu));
}

static __always_inline int on_cfs(struct cfs_rq *cfs_rq, __u32 event) {
        struct rq_event ev = { .event = event, .pid = current_pid(), .hook = true };
        struct rq *rq = root_rq_of(cfs_rq);

        if (!rq) {
                count(SFQ_COUNT_EVENTS);
                return 0; /* a task group's cfs_rq: the root one's update follows */
        }
        if (rules_on)
                rule_curr(rq);
        return on_rq(rq, &ev);
}

SEC("tp_btf/pelt_cfs_tp")
int BPF_PROG(sfq_pelt_cfs, struct cfs_rq *cfs_rq) {
        return on_cfs(cfs_rq, SFQ_EVENT_PELT_CFS);
}

/* RT and DL: the kernel kicks cpufreq when the class's runnable state or bandwidth changes (flags 0). */
SEC("tp_btf/pelt_rt_tp")
int BPF_PROG(sfq_pelt_rt, struct rq *rq) {
        struct rq_event ev = { .event = SFQ_EVENT_PELT_RT, .pid = current_pid(), .hook = true };

        return on_rq(rq, &ev);
}

SEC("tp_btf/pelt_dl_tp")
int BPF_PROG(sfq_pelt_dl, struct rq *rq) {
        struct rq_event ev = { .event = SFQ_EVENT_PELT_DL, .pid = current_pid(), .hook = true };

        return on_rq(rq, &ev);
}

/* IRQ PELT updates call no cpufreq hook in the kernel: read and evaluate only. */
SEC("tp_btf/pelt_irq_tp")
int BPF_PROG(sfq_pelt_irq, struct rq *rq) {
        struct rq_event ev = { .event = SFQ_EVENT_PELT_IRQ, .pid = current_pid() };

        return on_rq(rq, &ev);
}

/*
 * enqueue_task_fair(): "if (p->in_iowait) cpufreq_update_util(rq, SCHED_CPUFREQ_IOWAIT)", before the trace. That
 * is the only cpufreq hook call a wake-up makes by itself: its utilisation reaches schedutil through the PELT
 * update of the enqueue (pelt_cfs_tp when a period decayed, or the attach of a migrated task), as in the kernel.
 * Any other wake-up returns at once: it costs one probe read.
 */
static __always_inline bool rule_enqueue(struct task_struct *p, __u32 cpu);

/*
 * Would @cpu, as it stands after this enqueue, ask its policy for more than the frequency in force? Its CFS
 * utilisation (cpu_util_cfs_boost(): the wakee's util_est is in the root's since util_est_enqueue()) against what
 * the frequency in force covers: get_next_freq()'s raw frequency for it above cur_khz, below the policy's maximum,
 * means a higher table entry. RT/DL/IRQ are left out (they only add): a wake-up this says no to may still raise
 * at the next PELT update. A policy already at its maximum costs no read; otherwise three. Returns the CPU's
 * runqueue to evaluate, or NULL.
 */
static __always_inline struct rq *wakeup_raises(__u32 cpu) {
        const struct sfq_policy_conf *pc;
        const struct sfq_cpu_conf *c;
        __u32 util, cap, cur_khz;
        __u64 raw_khz;
        struct rq *rq;

        if (cpu >= SFQ_MAX_CPUS)
                return NULL;
        c = &sfq_cpu_conf[cpu & (SFQ_MAX_CPUS - 1)];
        if (!c->in_policy || !c->online || c->policy >= SFQ_MAX_POLICIES)
                return NULL;
        pc = &sfq_policy_conf[c->policy & (SFQ_MAX_POLICIES - 1)];
        cur_khz = sfq_policy_state[c->policy & (SFQ_MAX_POLICIES - 1)].cur_khz;
        rq = (struct rq *) sfq_cpu_state[cpu & (SFQ_MAX_CPUS - 1)].rq;
        if (!pc->managed || cur_khz >= pc->max_khz || !rq)
                return NULL;
        cap = pc->capacity ?: SFQ_CAPACITY_SCALE;
        util = max_u32(max_u32(BPF_CORE_READ(rq, cfs.avg.util_avg), BPF_CORE_READ(rq, cfs.avg.runnable_avg)),
                       BPF_CORE_READ(rq, cfs.avg.util_est) & ~UTIL_AVG_UNCHANGED);
        util = min_u32(util, cap);
        raw_khz = (__u64) pc->cpuinfo_max_khz * ((__u64) util * (pc->headroom_x1024 ?: 1280) / 1024) / cap;
        return raw_khz > cur_khz ? rq : NULL;
}

static __always_inline int on_wakeup(struct task_struct *p, __u32 event) {
        bool iowait = BPF_CORE_READ_BITFIELD_PROBED(p, in_iowait);
        struct rq_event ev = { .event = event, .pid = BPF_CORE_READ(p, pid), .hook = true, .iowait = true };
        struct rq *rq;

        if (iowait || rules_on) {
                rq = task_rq_of(p);
                /*
                 * A ruled task: counted now, and its CPU evaluated with its clamp, as the kernel's PELT update of
                 * the enqueue sees it when uclamp_rq_inc() comes first (kernel/sched/core.c enqueue_task(), before
                 * 6.12). Not a hook call by itself (the enqueue's own came before this tracepoint).
                 */
                if (rules_on && rq && rule_enqueue(p, BPF_CORE_READ(rq, cpu)) && !iowait) {
                        ev.hook = false;
                        ev.iowait = false;
                        return on_rq(rq, &ev);
                }
                if (iowait)
                        return on_rq(rq, &ev);
        }
        /*
         * Reaction: a wake-up that makes its CPU ask for a higher frequency is evaluated at once. schedutil would
         * wait for the CPU's next decayed PELT update (up to 1 ms on a busy CPU) or the tick; the perf source's
         * model evaluates at every event. Not a hook call. docs/bpf-source.md, "One evaluation the kernel does not make". The wakee's
         * CPU is task_cpu(), set before its enqueue.
         */
        rq = wakeup_raises(BPF_CORE_READ(p, thread_info.cpu));
        if (!rq)
                return 0;
        ev.hook = false;
        ev.iowait = false;
        return on_rq(rq, &ev);
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(sfq_wakeup, struct task_struct *p) {
        return on_wakeup(p, SFQ_EVENT_WAKEUP);
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(sfq_wakeup_new, struct task_struct *p) {
        return on_wakeup(p, SFQ_EVENT_WAKEUP_NEW);
}

/* ---- Per-process rules: the queued ruled tasks per CPU (schedfreqd-bpf.h) ---- */

/*
 * Where uclamp_rq_inc()/uclamp_rq_dec() run (enqueue_task()/dequeue_task(), kernel/sched/core.c) no tracepoint
 * fires and these VMs cannot attach fentry programs (no function tracer), so the queued set is followed from the
 * scheduler tracepoints: a ruled task is counted on its CPU when it is woken (sched_wakeup, after the enqueue) or
 * switched in uncounted (a rule given while it was queued), moved with it (sched_migrate_task), and uncounted when
 * it is switched out not runnable (sched_switch with prev_state != TASK_RUNNING: blocked, or dead). Counts are
 * atomic: a queued migration adds to the destination CPU without that CPU's rq lock. The switch and migrate
 * programs are attached only while rules exist.
 */

static __always_inline void rules_count(__u32 cpu, __u32 rule, int delta) {
        struct sfq_cpu_rules *cr = &sfq_cpu_rules[cpu & (SFQ_MAX_CPUS - 1)];

        __sync_fetch_and_add(&cr->count[rule & (SFQ_MAX_RULES - 1)], (__u32) delta);
        __sync_fetch_and_add(&cr->n, (__u32) delta);
}

/* @p is queued on @cpu: counted there if it has a rule (and moved there if counted elsewhere). True if counted. */
static __always_inline bool rule_enqueue(struct task_struct *p, __u32 cpu) {
        struct sfq_task_active a, *old;
        __u32 tid, *rule;

        if (!rules_on || cpu >= SFQ_MAX_CPUS)
                return false;
        tid = BPF_CORE_READ(p, pid);
        rule = bpf_map_lookup_elem(&sfq_task_rule, &tid);
        if (!rule || *rule >= SFQ_MAX_RULES)
                return false;
        old = bpf_map_lookup_elem(&sfq_task_active, &tid);
        if (old) {
                if (old->cpu == cpu)
                        return true;
                rules_count(old->cpu, old->rule, -1);
                bpf_map_delete_elem(&sfq_task_active, &tid);
        }
        a.cpu = cpu;
        a.rule = *rule;
        if (bpf_map_update_elem(&sfq_task_active, &tid, &a, BPF_NOEXIST) < 0)
                return false;
        rules_count(cpu, a.rule, 1);
        return true;
}

/* @p left its runqueue (blocked or dead): uncounted. Returns its rule's max (1024 without one). */
static __always_inline __u32 rule_dequeue(struct task_struct *p) {
        struct sfq_task_active *a;
        __u32 tid = BPF_CORE_READ(p, pid), max;

        a = bpf_map_lookup_elem(&sfq_task_active, &tid);
        if (!a)
                return SFQ_CAPACITY_SCALE;
        max = sfq_rules[a->rule & (SFQ_MAX_RULES - 1)].max_util;
        rules_count(a->cpu, a->rule, -1);
        bpf_map_delete_elem(&sfq_task_active, &tid);
        return max;
}

#define TASK_RUNNING 0

SEC("tp_btf/sched_switch")
int BPF_PROG(sfq_rule_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
             unsigned int prev_state) {
        __u32 cpu = bpf_get_smp_processor_id(), max;
        struct rq *rq;

        if (!rules_on || cpu >= SFQ_MAX_CPUS)
                return 0;
        if (prev_state != TASK_RUNNING) {
                max = rule_dequeue(prev);
                /* The last task to leave leaves its max behind (uclamp_idle_value()). */
                rq = task_rq_of(prev);
                if (rq && rq_nr_clamped(rq) == 0)
                        sfq_cpu_rules[cpu & (SFQ_MAX_CPUS - 1)].idle_max = max;
        }
        (void) rule_enqueue(next, cpu);
        return 0;
}

SEC("tp_btf/sched_migrate_task")
int BPF_PROG(sfq_rule_migrate, struct task_struct *p, int dest_cpu) {
        __u32 tid;

        if (!rules_on)
                return 0;
        tid = BPF_CORE_READ(p, pid);
        /* Only a counted (queued) task moves its count; a waking one is counted at its wake-up. */
        if (bpf_map_lookup_elem(&sfq_task_active, &tid))
                (void) rule_enqueue(p, (__u32) dest_cpu);
        return 0;
}

/* ---- Observe mode: the kernel's own frequency changes (power:cpu_frequency), attached only then ---- */

SEC("tp_btf/cpu_frequency")
int BPF_PROG(sfq_cpu_frequency, unsigned int frequency, unsigned int cpu_id) {
        struct sfq_record *r = bpf_ringbuf_reserve(&sfq_ring, sizeof(*r), 0);

        if (!r) {
                count(SFQ_COUNT_DROPPED);
                return 0;
        }
        __builtin_memset(r, 0, sizeof(*r));
        r->time_ns = bpf_ktime_get_ns();
        r->policy = SFQ_POLICY_KERNEL_FREQ;
        r->cpu = cpu_id;
        r->new_khz = frequency;
        bpf_ringbuf_submit(r, 0);
        return 0;
}
