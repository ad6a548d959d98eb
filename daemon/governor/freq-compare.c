/* SPDX-License-Identifier: GPL-2.0-or-later */
/* freq-compare.c: our frequency against the kernel's, per policy, over time (include/governor.h). */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "governor.h"
#include "macro.h"

typedef struct ComparePolicy {
        uint32_t ours_khz, kernel_khz;   /* 0 = not known yet */
        uint64_t since_ns;               /* the time the current pair of values holds from */
        FreqCompareStats stats;
} ComparePolicy;

struct FreqCompare {
        ComparePolicy *policies;
        size_t n_policies;
        int *policy_of_cpu;              /* CPU_SETSIZE entries, -1 = none */
        uint64_t now_ns;
        bool any_kernel;
};

int freq_compare_new(const Topology *topo, FreqCompare **ret) {
        _cleanup_(freq_compare_freep) FreqCompare *c = NULL;

        c = calloc(1, sizeof(FreqCompare));
        if (!c)
                return -ENOMEM;
        c->n_policies = topo->n_policies;
        c->policies = calloc(MAX(c->n_policies, (size_t) 1), sizeof(ComparePolicy));
        c->policy_of_cpu = malloc(CPU_SETSIZE * sizeof(int));
        if (!c->policies || !c->policy_of_cpu)
                return -ENOMEM;
        for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
                c->policy_of_cpu[cpu] = -1;
        for (size_t i = 0; i < topo->n_policies; i++)
                for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
                        if (CPU_ISSET(cpu, &topo->policies[i].cpus))
                                c->policy_of_cpu[cpu] = (int) i;
        *ret = TAKE_PTR(c);
        return 0;
}

FreqCompare *freq_compare_free(FreqCompare *c) {
        if (!c)
                return NULL;
        free(c->policies);
        free(c->policy_of_cpu);
        free(c);
        return NULL;
}

/* Accounts the span from the pair's start to @t_ns with the values it held. */
static void account(ComparePolicy *p, uint64_t t_ns) {
        uint64_t dt = t_ns > p->since_ns ? t_ns - p->since_ns : 0;
        uint32_t diff;

        p->since_ns = MAX(p->since_ns, t_ns);
        if (dt == 0 || p->ours_khz == 0 || p->kernel_khz == 0)
                return;
        diff = p->ours_khz > p->kernel_khz ? p->ours_khz - p->kernel_khz : p->kernel_khz - p->ours_khz;
        p->stats.compared_ns += dt;
        if (diff == 0)
                p->stats.agree_ns += dt;
        p->stats.diff_khz_ns += (uint64_t) diff * dt;
        p->stats.max_diff_khz = MAX(p->stats.max_diff_khz, diff);
}

static uint64_t clock_at(FreqCompare *c, uint64_t t_ns) {
        c->now_ns = MAX(c->now_ns, t_ns);
        return c->now_ns;
}

void freq_compare_ours(FreqCompare *c, unsigned policy_index, uint64_t t_ns, uint32_t khz) {
        ComparePolicy *p;

        if (policy_index >= c->n_policies)
                return;
        p = &c->policies[policy_index];
        t_ns = clock_at(c, t_ns);
        account(p, t_ns);
        if (p->ours_khz != 0 && p->ours_khz != khz)
                p->stats.our_changes++;
        p->ours_khz = khz;
}

int freq_compare_policy_of_cpu(const FreqCompare *c, int cpu) {
        if (cpu < 0 || cpu >= CPU_SETSIZE || c->policy_of_cpu[cpu] < 0)
                return -ENOENT;
        return c->policy_of_cpu[cpu];
}

int freq_compare_kernel(FreqCompare *c, int cpu, uint64_t t_ns, uint32_t khz) {
        int i = freq_compare_policy_of_cpu(c, cpu);

        if (i < 0)
                return i;
        return freq_compare_kernel_policy(c, (unsigned) i, t_ns, khz);
}

int freq_compare_kernel_policy(FreqCompare *c, unsigned policy_index, uint64_t t_ns, uint32_t khz) {
        ComparePolicy *p;

        if (policy_index >= c->n_policies)
                return -ENOENT;
        p = &c->policies[policy_index];
        t_ns = clock_at(c, t_ns);
        account(p, t_ns);
        /* One event per CPU of the policy for the same change: only a new value is a change. */
        if (p->kernel_khz != 0 && p->kernel_khz != khz)
                p->stats.kernel_changes++;
        p->kernel_khz = khz;
        p->stats.kernel_seen = true;
        c->any_kernel = true;
        return 0;
}

void freq_compare_finish(FreqCompare *c, uint64_t t_ns) {
        t_ns = clock_at(c, t_ns);
        for (size_t i = 0; i < c->n_policies; i++)
                account(&c->policies[i], t_ns);
}

bool freq_compare_any_kernel(const FreqCompare *c) {
        return c->any_kernel;
}

int freq_compare_stats(const FreqCompare *c, unsigned policy_index, FreqCompareStats *ret) {
        if (policy_index >= c->n_policies)
                return -ENOENT;
        *ret = c->policies[policy_index].stats;
        return 0;
}

int freq_compare_current(const FreqCompare *c, unsigned policy_index, uint32_t *ret_ours_khz,
                         uint32_t *ret_kernel_khz) {
        if (policy_index >= c->n_policies)
                return -ENOENT;
        *ret_ours_khz = c->policies[policy_index].ours_khz;
        *ret_kernel_khz = c->policies[policy_index].kernel_khz;
        return 0;
}

double freq_compare_agree_percent(const FreqCompareStats *st) {
        return st->compared_ns > 0 ? 100.0 * (double) st->agree_ns / (double) st->compared_ns : -1.0;
}

void freq_compare_print(const FreqCompare *c, const Topology *topo, FILE *f) {
        for (size_t i = 0; i < c->n_policies && i < topo->n_policies; i++) {
                const FreqCompareStats *st = &c->policies[i].stats;

                if (!st->kernel_seen)
                        continue;
                fprintf(f, "kernel policy=%u agree=%.1f%% compared_ms=%.3f mean_diff_khz=%" PRIu64
                        " max_diff_khz=%" PRIu32 " kernel_changes=%" PRIu64 " changes=%" PRIu64 "\n",
                        topo->policies[i].id, MAX(freq_compare_agree_percent(st), 0.0),
                        (double) st->compared_ns / 1e6, st->compared_ns > 0 ? st->diff_khz_ns / st->compared_ns : 0,
                        st->max_diff_khz, st->kernel_changes, st->our_changes);
        }
}
