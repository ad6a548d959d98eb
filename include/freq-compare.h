/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * schedfreqd's frequency choices beside the kernel's (issue #14 item 1): per policy, two step functions of time,
 * the kernel's from its power:cpu_frequency tracepoint (cpufreq_notify_transition() and
 * cpufreq_driver_fast_switch() fire it for each CPU of the policy, drivers/cpufreq/cpufreq.c) and ours from the
 * engine's decisions, compared over the time both are known: how long they agree, by how much they differ.
 * Pure: every input carries its time; times must not go backwards (late inputs count at the latest time).
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "topology.h"

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
