/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * config-check.c: the loaded configuration against the machine's cpufreq policies (config_check_topology()):
 * policies it names that the machine lacks are warnings naming FILE:LINE and, when it helps, the policies the
 * machine has. Also where a setting was read (config_origin_file()).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "config-errors.h"
#include "cpulist.h"
#include "macro.h"
#include "topology.h"

const char *config_origin_file(const Config *c, ConfigOrigin o) {
        if (o.file >= c->origin_files_used)
                return "(a configuration file)";
        return c->origin_files + o.file;
}

typedef struct MissingPolicy {
        ConfigOrigin origin;
        unsigned id;
        bool section;             /* a [policyN] section; else an entry of policies= */
} MissingPolicy;

static int cmp_u64(uint64_t a, uint64_t b) {
        return a < b ? -1 : a > b;
}

/* In load order: the main file's names come first in origin_files, then the drop-ins' in name order. */
static int missing_policy_cmp(const void *a, const void *b) {
        const MissingPolicy *x = a, *y = b;

        return cmp_u64(x->origin.file, y->origin.file) ?: cmp_u64(x->origin.line, y->origin.line) ?:
                cmp_u64(x->section, y->section) ?: cmp_u64(x->id, y->id);
}

/* Why @id names no policy of @t, for the end of a warning: the usual slip is a CPU number for a policy one. */
static void missing_policy_hint(const Topology *t, unsigned id, char *buf, size_t size) {
        const PolicyDesc *p = topology_policy_of_cpu(t, id);
        char list[4096]; /* 1024 ids alternating: "0,2,...,1022" < 4096 bytes */
        cpu_set_t ids;

        if (p) {
                snprintf(buf, size, "CPU %u is in policy%u; policies are named after their first CPU", id, p->id);
                return;
        }
        if (t->n_policies == 0) {
                snprintf(buf, size, "there is no cpufreq policy");
                return;
        }
        CPU_ZERO(&ids);
        for (size_t i = 0; i < t->n_policies; i++)
                if (t->policies[i].id < CPU_SETSIZE)
                        CPU_SET(t->policies[i].id, &ids);
        if (cpulist_format(&ids, list, sizeof(list)) < 0)
                list[0] = '\0';
        snprintf(buf, size, "existing policies: %s", list);
}

static void missing_policy_warn(const Config *c, const Topology *t, const MissingPolicy *m, ConfigErrors *warnings) {
        char hint[4200];

        missing_policy_hint(t, m->id, hint, sizeof(hint));
        if (m->section)
                config_error_add(warnings, 0, "%s:%" PRIu32 ": [policy%u] is for a policy that does not exist (%s)",
                          config_origin_file(c, m->origin), m->origin.line, m->id, hint);
        else
                config_error_add(warnings, 0, "%s:%" PRIu32 ": policies= names policy%u, which does not exist (%s)",
                          config_origin_file(c, m->origin), m->origin.line, m->id, hint);
}

int config_check_topology(const Config *c, const Topology *t, char **ret_warnings) {
        _cleanup_(config_errors_done) ConfigErrors warnings = {};
        _cleanup_free_ MissingPolicy *missing = NULL;
        size_t n = 0;

        if (!c || !t)
                return -EINVAL;

        /* At most one entry and one section per policy number. */
        missing = calloc(2 * (size_t) CONFIG_POLICIES_MAX, sizeof(MissingPolicy));
        if (!missing)
                return -ENOMEM;

        for (unsigned id = 0; id < CONFIG_POLICIES_MAX; id++) {
                if (topology_policy_by_id(t, id))
                        continue;
                if (!c->manage_all && CPU_ISSET(id, &c->manage))
                        missing[n++] = (MissingPolicy) { .origin = c->manage_origin, .id = id };
                if (c->policy[id].present)
                        missing[n++] = (MissingPolicy) { .origin = c->policy[id].origin, .id = id, .section = true };
        }
        if (n == 0)
                return 0;

        qsort(missing, n, sizeof(MissingPolicy), missing_policy_cmp);
        for (size_t i = 0; i < n; i++)
                missing_policy_warn(c, t, &missing[i], &warnings);
        if (warnings.oom)
                return -ENOMEM;

        if (ret_warnings) {
                *ret_warnings = config_errors_join(&warnings);
                if (!*ret_warnings)
                        return -ENOMEM;
        }
        return (int) n;
}
