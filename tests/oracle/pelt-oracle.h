/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The record pelt-oracle's BPF side hands to its loader (shared by pelt-oracle.bpf.c and pelt-oracle.c). */
#pragma once

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

enum {
        ORACLE_KIND_CFS = 1,      /* pelt_cfs_tp on a root cfs_rq */
        ORACLE_KIND_UTIL_EST = 2, /* sched_util_est_cfs_tp on a root cfs_rq */
        ORACLE_KIND_RT = 3,       /* pelt_rt_tp */
        ORACLE_KIND_DL = 4,       /* pelt_dl_tp (--all-classes) */
        ORACLE_KIND_IRQ = 5,      /* pelt_irq_tp (--all-classes) */
        ORACLE_KIND_SCHED = 6,    /* the whole rq read at a sched_switch/wakeup/migrate (--sched-events) */
        ORACLE_KIND_NEW_GROUP = 7, /* a new task's group cfs_rq at sched_wakeup_new (--sched-events): util, load (in
                                    * util_est), runnable; the child's util in rt, the pending removed util in dl and
                                    * their count in irq */
        ORACLE_KIND_GROUP_SE = 8, /* pelt_se_tp on a group's entity on a root cfs_rq (--group-entities): the
                                   * entity's util and runnable, its cfs_rq's util (in util_est) and load (in rt),
                                   * the group's id in dl (its autogroup's, else 0), in irq its cfs_rq's
                                   * load.weight >> 10 | nr_queued << 32 | h_nr_runnable << 48 */
        ORACLE_NKINDS,
};

enum {
        ORACLE_COUNT_CFS,
        ORACLE_COUNT_UTIL_EST,
        ORACLE_COUNT_RT,
        ORACLE_COUNT_DROPPED,
        ORACLE_COUNT_NONROOT,
        ORACLE_COUNT_DL,
        ORACLE_COUNT_IRQ,
        ORACLE_COUNT_SCHED,
        ORACLE_NCOUNTERS,
};

/* Named so as not to collide with anything in vmlinux.h (which has a struct sample). */
struct oracle_record {
        __u64 time_ns;  /* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
        __u32 kind;     /* ORACLE_KIND_* */
        __u32 cpu;      /* rq->cpu */
        __u64 util;     /* cfs: avg.util_avg; rt: avg_rt.util_avg; dl: avg_dl.util_avg; irq: avg_irq.util_avg */
        __u64 util_est; /* cfs: avg.util_est without UTIL_AVG_UNCHANGED */
        __u64 runnable; /* cfs: avg.runnable_avg; dl: cpu_bw_dl() = dl.running_bw * 1024 >> 20 */
        __u64 rt, dl, irq; /* sched only: avg_rt, avg_dl, avg_irq util_avg */
        __u64 load;     /* sched only: the root cfs_rq's load_avg */
        __u64 weight;   /* sched only: its load.weight >> 10 | nr_queued << 32 | h_nr_runnable << 48 */
};
