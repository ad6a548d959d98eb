// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pelt-oracle: the running kernel's own PELT signals, for comparison with schedfreqd's model (issue 9 item 7).
 *
 * Three bare scheduler tracepoints (no tracefs entry; BTF-typed raw tracepoints):
 *   pelt_cfs_tp(struct cfs_rq *)            after a cfs_rq's PELT sums changed (update, attach, detach)
 *   sched_util_est_cfs_tp(struct cfs_rq *)  after a cfs_rq's util_est changed (task enqueue/dequeue)
 *   pelt_rt_tp(struct rq *)                 after the rq's RT PELT signal (avg_rt) changed
 *   pelt_dl_tp(struct rq *), pelt_irq_tp(struct rq *)  the same for avg_dl and avg_irq (loaded only with
 *                                           --all-classes: the loader turns their autoload off otherwise)
 * With --sched-events, also sched_switch, sched_wakeup, sched_wakeup_new and sched_migrate_task: the whole rq
 * (cfs, rt, dl, irq) read there, where the daemon's BPF source evaluates too (test-bpf-fidelity).
 * Only the root cfs_rq of each CPU (rq->cfs) is recorded: the per-task-group cfs_rqs fire the same tracepoint.
 * Records go to one BPF ring buffer without waking the reader (it drains on a timer), so that the oracle itself
 * adds as few wake-ups as possible to the run it measures; it is woken only when the ring fills past half.
 *
 * vmlinux.h is generated at build time from /sys/kernel/btf/vmlinux (never committed); CO-RE relocations make
 * the object independent of the exact field offsets.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "pelt-oracle.h"

char LICENSE[] SEC("license") = "GPL";

/* Bit 31 of util_est is UTIL_AVG_UNCHANGED (6.8+: util_est is a single unsigned int). */
#define ORACLE_UTIL_AVG_UNCHANGED 0x80000000u

/* Set by the loader before load (read-only data). */
const volatile __u64 ring_wakeup_bytes = 1 << 20;
/* --new-groups: at each sched_wakeup_new, the new task's (group) cfs_rq and its initial util. */
const volatile bool record_new_groups = false;
/* --sched-events */
const volatile bool record_sched_events = true;

struct {
        __uint(type, BPF_MAP_TYPE_RINGBUF);
        __uint(max_entries, 8 << 20);
} records SEC(".maps");

/* Per-CPU counters: [0] pelt_cfs root, [1] util_est root, [2] pelt_rt, [3] dropped (ring full),
 * [4] pelt_cfs calls on non-root cfs_rqs, [5] pelt_dl, [6] pelt_irq, [7] sched events. */
struct {
        __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
        __uint(max_entries, ORACLE_NCOUNTERS);
        __type(key, __u32);
        __type(value, __u64);
} counters SEC(".maps");

static __always_inline void count(__u32 which) {
        __u64 *c = bpf_map_lookup_elem(&counters, &which);

        if (c)
                *c += 1;
}

/* The rq a cfs_rq belongs to, and whether the cfs_rq is that rq's root. NULL if not the root. */
static __always_inline struct rq *root_rq_of(struct cfs_rq *cfs_rq) {
        struct rq *rq;

        if (bpf_core_field_exists(cfs_rq->rq)) {
                rq = BPF_CORE_READ(cfs_rq, rq);
                if (!rq)
                        return NULL;
                /* &rq->cfs, computed from the CO-RE offset of cfs in struct rq */
                if ((void *) cfs_rq != (void *) rq + bpf_core_field_offset(struct rq, cfs))
                        return NULL;
                return rq;
        }
        /* Without group scheduling the only cfs_rq of a CPU is embedded in its rq. */
        return (struct rq *) ((void *) cfs_rq - bpf_core_field_offset(struct rq, cfs));
}

static __always_inline void emit_record(struct oracle_record *r) {
        __u64 flags = BPF_RB_NO_WAKEUP;

        if (bpf_ringbuf_query(&records, BPF_RB_AVAIL_DATA) >= ring_wakeup_bytes)
                flags = BPF_RB_FORCE_WAKEUP;
        if (bpf_ringbuf_output(&records, r, sizeof(*r), flags) < 0)
                count(ORACLE_COUNT_DROPPED);
}

static __always_inline void emit(__u32 kind, __u32 cpu, __u64 util, __u64 util_est, __u64 runnable) {
        struct oracle_record r = {
                .time_ns = bpf_ktime_get_ns(),
                .kind = kind,
                .cpu = cpu,
                .util = util,
                .util_est = util_est,
                .runnable = runnable,
        };

        emit_record(&r);
}

static __always_inline int on_cfs(struct cfs_rq *cfs_rq, __u32 kind) {
        struct rq *rq = root_rq_of(cfs_rq);

        if (!rq) {
                count(ORACLE_COUNT_NONROOT);
                return 0;
        }
        count(kind == ORACLE_KIND_UTIL_EST ? ORACLE_COUNT_UTIL_EST : ORACLE_COUNT_CFS);
        emit(kind, BPF_CORE_READ(rq, cpu), BPF_CORE_READ(cfs_rq, avg.util_avg),
             BPF_CORE_READ(cfs_rq, avg.util_est) & ~ORACLE_UTIL_AVG_UNCHANGED, BPF_CORE_READ(cfs_rq, avg.runnable_avg));
        return 0;
}

SEC("tp_btf/pelt_cfs_tp")
int BPF_PROG(oracle_pelt_cfs, struct cfs_rq *cfs_rq) {
        return on_cfs(cfs_rq, ORACLE_KIND_CFS);
}

SEC("tp_btf/sched_util_est_cfs_tp")
int BPF_PROG(oracle_util_est_cfs, struct cfs_rq *cfs_rq) {
        return on_cfs(cfs_rq, ORACLE_KIND_UTIL_EST);
}

SEC("tp_btf/pelt_rt_tp")
int BPF_PROG(oracle_pelt_rt, struct rq *rq) {
        count(ORACLE_COUNT_RT);
        emit(ORACLE_KIND_RT, BPF_CORE_READ(rq, cpu), BPF_CORE_READ(rq, avg_rt.util_avg), 0, 0);
        return 0;
}

/* --all-classes only. DL: avg_dl and the DL bandwidth (cpu_bw_dl(), BW_SHIFT 20) in the runnable slot. */
SEC("tp_btf/pelt_dl_tp")
int BPF_PROG(oracle_pelt_dl, struct rq *rq) {
        count(ORACLE_COUNT_DL);
        emit(ORACLE_KIND_DL, BPF_CORE_READ(rq, cpu), BPF_CORE_READ(rq, avg_dl.util_avg), 0,
             (BPF_CORE_READ(rq, dl.running_bw) * 1024) >> 20);
        return 0;
}

/* --all-classes only. IRQ (and steal) time: avg_irq, absent without CONFIG_HAVE_SCHED_AVG_IRQ (then 0). */
SEC("tp_btf/pelt_irq_tp")
int BPF_PROG(oracle_pelt_irq, struct rq *rq) {
        count(ORACLE_COUNT_IRQ);
        emit(ORACLE_KIND_IRQ, BPF_CORE_READ(rq, cpu),
             bpf_core_field_exists(rq->avg_irq) ? BPF_CORE_READ(rq, avg_irq.util_avg) : 0, 0, 0);
        return 0;
}

/* --sched-events only: the rq of a task (se.cfs_rq->rq, set for every class), read whole. */
/*
 * A cfs_rq's load.weight (scale_load_down: >> 10 on 64-bit) and, where this kernel has them, its nr_queued and
 * h_nr_runnable, packed as pelt-oracle.h says: weight | nr_queued << 32 | h_nr_runnable << 48.
 */
static __always_inline __u64 cfs_rq_weight_counts(struct cfs_rq *cfs_rq) {
        __u64 packed = (BPF_CORE_READ(cfs_rq, load.weight) >> 10) & 0xffffffff;

        if (bpf_core_field_exists(cfs_rq->nr_queued))
                packed |= (__u64) (BPF_CORE_READ(cfs_rq, nr_queued) & 0xffff) << 32;
        if (bpf_core_field_exists(cfs_rq->h_nr_runnable))
                packed |= (__u64) (BPF_CORE_READ(cfs_rq, h_nr_runnable) & 0xffff) << 48;
        return packed;
}

static __always_inline int on_sched(struct task_struct *p) {
        struct cfs_rq *cfs_rq;
        struct rq *rq;

        if (!bpf_core_field_exists(struct cfs_rq, rq))
                return 0;
        cfs_rq = BPF_CORE_READ(p, se.cfs_rq);
        if (!cfs_rq)
                return 0;
        rq = BPF_CORE_READ(cfs_rq, rq);
        if (!rq)
                return 0;
        count(ORACLE_COUNT_SCHED);
        struct oracle_record r = {
                .time_ns = bpf_ktime_get_ns(),
                .kind = ORACLE_KIND_SCHED,
                .cpu = BPF_CORE_READ(rq, cpu),
                .util = BPF_CORE_READ(rq, cfs.avg.util_avg),
                .util_est = BPF_CORE_READ(rq, cfs.avg.util_est) & ~ORACLE_UTIL_AVG_UNCHANGED,
                .runnable = BPF_CORE_READ(rq, cfs.avg.runnable_avg),
                .rt = BPF_CORE_READ(rq, avg_rt.util_avg),
                .dl = BPF_CORE_READ(rq, avg_dl.util_avg),
                .irq = bpf_core_field_exists(rq->avg_irq) ? BPF_CORE_READ(rq, avg_irq.util_avg) : 0,
                .load = BPF_CORE_READ(rq, cfs.avg.load_avg),
                .weight = cfs_rq_weight_counts(&rq->cfs),
        };

        emit_record(&r);
        return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(oracle_switch, bool preempt, struct task_struct *prev, struct task_struct *next) {
        return on_sched(prev);
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(oracle_wakeup, struct task_struct *p) {
        return on_sched(p);
}

/* After post_init_entity_util_avg() and the attach: the group cfs_rq the child joined, and the child. */
static __always_inline void on_new_group(struct task_struct *p) {
        struct cfs_rq *cfs_rq = BPF_CORE_READ(p, se.cfs_rq);
        struct rq *rq;

        if (!cfs_rq || !bpf_core_field_exists(struct cfs_rq, rq))
                return;
        rq = BPF_CORE_READ(cfs_rq, rq);
        if (!rq)
                return;
        struct oracle_record r = {
                .time_ns = bpf_ktime_get_ns(),
                .kind = ORACLE_KIND_NEW_GROUP,
                .cpu = BPF_CORE_READ(rq, cpu),
                .util = BPF_CORE_READ(cfs_rq, avg.util_avg),
                .util_est = BPF_CORE_READ(cfs_rq, avg.load_avg),
                .runnable = BPF_CORE_READ(cfs_rq, avg.runnable_avg),
                .rt = BPF_CORE_READ(p, se.avg.util_avg),
                .dl = BPF_CORE_READ(cfs_rq, removed.util_avg),
                .irq = BPF_CORE_READ(cfs_rq, removed.nr),
        };

        emit_record(&r);
}

/*
 * --group-entities (loaded only then): a task group's entity on a root cfs_rq after its PELT update (the group's
 * share of the root): where the root's util differs from the model's, whether the group or the root's own tasks
 * hold the difference.
 */
SEC("tp_btf/pelt_se_tp")
int BPF_PROG(oracle_pelt_se, struct sched_entity *se) {
        struct cfs_rq *my_q, *cfs_rq;
        struct rq *rq;
        __u64 id = 0;

        if (!bpf_core_field_exists(se->my_q))
                return 0;
        my_q = BPF_CORE_READ(se, my_q);
        cfs_rq = BPF_CORE_READ(se, cfs_rq);
        if (!my_q || !cfs_rq)
                return 0;
        rq = root_rq_of(cfs_rq);
        if (!rq)
                return 0;
        if (bpf_core_field_exists(my_q->tg->autogroup))
                id = BPF_CORE_READ(my_q, tg, autogroup, id);
        struct oracle_record r = {
                .time_ns = bpf_ktime_get_ns(),
                .kind = ORACLE_KIND_GROUP_SE,
                .cpu = BPF_CORE_READ(rq, cpu),
                .util = BPF_CORE_READ(se, avg.util_avg),
                .util_est = BPF_CORE_READ(my_q, avg.util_avg),
                .runnable = BPF_CORE_READ(se, avg.runnable_avg),
                .rt = BPF_CORE_READ(my_q, avg.load_avg),
                .dl = id,
                .irq = cfs_rq_weight_counts(my_q),
        };

        emit_record(&r);
        return 0;
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(oracle_wakeup_new, struct task_struct *p) {
        if (record_new_groups)
                on_new_group(p);
        return record_sched_events ? on_sched(p) : 0;
}

SEC("tp_btf/sched_migrate_task")
int BPF_PROG(oracle_migrate, struct task_struct *p, int dest_cpu) {
        return on_sched(p);
}
