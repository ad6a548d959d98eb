/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * topology_load() on arbitrary file contents (through a memfd). Contract (include/topology.h): -EINVAL comes
 * with a "NAME:LINE: reason"; what it accepts is consistent: policies sorted by id, min <= max, scaling limits
 * within cpuinfo, the frequency table ascending without duplicates and within cpuinfo, the inefficient entries
 * entries of that table, no CPU in two policies.
 */

#include <sched.h>

#include "fuzz.h"
#include "macro.h"
#include "topology.h"

static void check_policy(const PolicyDesc *p) {
        FUZZ_ASSERT(p->cpuinfo_min_khz <= p->cpuinfo_max_khz);
        FUZZ_ASSERT(p->scaling_min_khz <= p->scaling_max_khz);
        FUZZ_ASSERT(p->scaling_min_khz >= p->cpuinfo_min_khz && p->scaling_max_khz <= p->cpuinfo_max_khz);
        FUZZ_ASSERT((p->n_frequencies == 0) == (p->frequencies_khz == NULL));
        for (size_t i = 0; i < p->n_frequencies; i++) {
                FUZZ_ASSERT(p->frequencies_khz[i] >= p->cpuinfo_min_khz);
                FUZZ_ASSERT(p->frequencies_khz[i] <= p->cpuinfo_max_khz);
                FUZZ_ASSERT(i == 0 || p->frequencies_khz[i - 1] < p->frequencies_khz[i]);
        }
        /* inefficient_khz: ascending entries of the table, never without one. */
        FUZZ_ASSERT((p->n_inefficient == 0) == (p->inefficient_khz == NULL));
        FUZZ_ASSERT(p->n_inefficient == 0 || p->n_frequencies > 0);
        for (size_t i = 0; i < p->n_inefficient; i++) {
                FUZZ_ASSERT(i == 0 || p->inefficient_khz[i - 1] < p->inefficient_khz[i]);
                FUZZ_ASSERT(policy_khz_inefficient(p, p->inefficient_khz[i]));
                FUZZ_ASSERT(policy_resolve_l_khz(p, 0, UINT32_MAX, p->inefficient_khz[i]) == p->inefficient_khz[i]);
        }
}

static void check_topology(const Topology *t) {
        cpu_set_t seen;

        CPU_ZERO(&seen);
        for (size_t i = 0; i < t->n_policies; i++) {
                cpu_set_t both;

                FUZZ_ASSERT(i == 0 || t->policies[i - 1].id < t->policies[i].id);
                check_policy(&t->policies[i]);
                CPU_AND(&both, &seen, &t->policies[i].cpus);
                FUZZ_ASSERT(CPU_COUNT(&both) == 0);
                CPU_OR(&seen, &seen, &t->policies[i].cpus);
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_(topology_freep) Topology *t = NULL;
        _cleanup_free_ char *error = NULL;
        char path[32];
        int r;

        if (fuzz_memfd_path(data, size, path) < 0)
                return 0;

        r = topology_load(path, &t, &error);
        if (r == -EINVAL)
                FUZZ_ASSERT(error);
        if (r >= 0) {
                FUZZ_ASSERT(t);
                check_topology(t);
        }
        return 0;
}
