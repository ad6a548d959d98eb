/* SPDX-License-Identifier: GPL-2.0-or-later */
/* decision.c: a decision's names and its text form (include/governor.h). */

#include <inttypes.h>
#include <stdio.h>

#include "cpulist.h"
#include "governor.h"
#include "macro.h"
#include "string-table.h"

static const char *const decision_kind_table[_DECISION_KIND_MAX] = {
        [DECISION_LOCAL] = "local",
        [DECISION_REMOTE] = "remote",
};

static const char *const decision_reason_table[_DECISION_REASON_MAX] = {
        [DECISION_REASON_DEMAND] = "demand",
        [DECISION_REASON_RT] = "rt",
        [DECISION_REASON_IOWAIT] = "iowait",
        [DECISION_REASON_LIMITS] = "limits",
        [DECISION_REASON_RULE] = "rule",
};

static const char *const decision_source_table[_DECISION_SOURCE_MAX] = {
        [DECISION_SOURCE_PERF] = "perf",
        [DECISION_SOURCE_BPF] = "bpf",
        [DECISION_SOURCE_REPLAY] = "replay",
};

DEFINE_STRING_TABLE_LOOKUP_TO_STRING(decision_kind, DecisionKind);
DEFINE_STRING_TABLE_LOOKUP_TO_STRING(decision_source, DecisionSource);
DEFINE_STRING_TABLE_LOOKUP_TO_STRING(decision_reason, DecisionReason);

/* The policy= of the output: the policy's first CPU. */
int decision_policy_cpu(const Decision *d, const Topology *t) {
        int first = -1;

        if (t && d->policy_index < t->n_policies)
                first = cpulist_first(&t->policies[d->policy_index].cpus);
        return first >= 0 ? first : (int) d->policy_id;
}

static void decision_print_fields(FILE *f, const Decision *d, const Topology *t) {
        fprintf(f, "t=%" PRIu64 " policy=%d freq=%" PRIu32 " cpu=%d kind=%s util=%u", d->time_ns,
                decision_policy_cpu(d, t), d->new_khz, d->cpu, decision_kind_to_string(d->kind), d->util);
}

void decision_print(FILE *f, const Decision *d, const Topology *t) {
        decision_print_fields(f, d, t);
        fputc('\n', f);
}

void decision_print_details(FILE *f, const Decision *d, const Topology *t) {
        decision_print_fields(f, d, t);
        fprintf(f, " reason=%s", decision_reason_to_string(d->reason));
        if (d->deferred)
                fprintf(f, " deferred=%" PRIu64, d->time_ns >= d->deferred_since_ns ? d->time_ns - d->deferred_since_ns : 0);
        if (d->source != DECISION_SOURCE_REPLAY)
                fprintf(f, " source=%s", decision_source_to_string(d->source));
        fputc('\n', f);
}
