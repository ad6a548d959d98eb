/* SPDX-License-Identifier: GPL-2.0-or-later */
/* observe.c: our choices beside the kernel's, live (include/governor.h). */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "governor.h"
#include "macro.h"

struct Observer {
        const Topology *topo;
        FreqCompare *compare;
        FILE *out;
        int error;                /* the first failed print: no more lines */
};

int observer_new(const Topology *topo, const uint32_t *ours_khz, uint64_t start_ns, FILE *out, Observer **ret) {
        _cleanup_(observer_freep) Observer *o = NULL;
        int r;

        o = calloc(1, sizeof(Observer));
        if (!o)
                return -ENOMEM;
        o->topo = topo;
        o->out = out;
        r = freq_compare_new(topo, &o->compare);
        if (r < 0)
                return r;
        for (size_t i = 0; i < topo->n_policies; i++) {
                const PolicyDesc *p = &topo->policies[i];

                freq_compare_ours(o->compare, (unsigned) i, start_ns, ours_khz[i]);
                /* schedutil's last choice is policy->cur, which scaling_cur_freq shows for drivers with a
                 * target (cpufreq_quick_get(), drivers/cpufreq/cpufreq.c); other governors' values are not
                 * choices of the kind compared here until they say so. */
                if (streq(p->governor, "schedutil") && p->cur_khz > 0)
                        (void) freq_compare_kernel_policy(o->compare, (unsigned) i, start_ns, p->cur_khz);
        }
        *ret = TAKE_PTR(o);
        return 0;
}

Observer *observer_free(Observer *o) {
        if (!o)
                return NULL;
        freq_compare_free(o->compare);
        free(o);
        return NULL;
}

static void observer_line(Observer *o, unsigned i, uint64_t t_ns, const char *changed) {
        FreqCompareStats st;
        uint32_t ours, kernel;
        double agree;

        if (o->error || freq_compare_current(o->compare, i, &ours, &kernel) < 0 ||
            freq_compare_stats(o->compare, i, &st) < 0)
                return;
        fprintf(o->out, "t=%" PRIu64 " policy=%u ours=%" PRIu32, t_ns, o->topo->policies[i].id, ours);
        if (kernel > 0)
                fprintf(o->out, " kernel=%" PRIu32, kernel);
        else
                fputs(" kernel=-", o->out);
        agree = freq_compare_agree_percent(&st);
        if (agree >= 0)
                fprintf(o->out, " agree=%.1f%%", agree);
        else
                fputs(" agree=-", o->out);
        fprintf(o->out, " changed=%s\n", changed);
        if (fflush(o->out) != 0 || ferror(o->out))
                o->error = errno > 0 ? -errno : -EIO;
}

void observer_ours(Observer *o, unsigned policy_index, uint64_t t_ns, uint32_t khz) {
        uint32_t ours, kernel;

        if (freq_compare_current(o->compare, policy_index, &ours, &kernel) < 0)
                return;
        freq_compare_ours(o->compare, policy_index, t_ns, khz);
        if (khz != ours)
                observer_line(o, policy_index, t_ns, "ours");
}

int observer_kernel(Observer *o, int cpu, uint64_t t_ns, uint32_t khz) {
        int i = freq_compare_policy_of_cpu(o->compare, cpu);
        uint32_t ours, kernel;

        if (i < 0)
                return i;
        (void) freq_compare_current(o->compare, (unsigned) i, &ours, &kernel);
        (void) freq_compare_kernel_policy(o->compare, (unsigned) i, t_ns, khz);
        /* One event per CPU of the policy for one change: a line for the first only. */
        if (khz != kernel)
                observer_line(o, (unsigned) i, t_ns, "kernel");
        return 0;
}

void observer_finish(Observer *o, uint64_t t_ns) {
        freq_compare_finish(o->compare, t_ns);
        if (!o->error)
                freq_compare_print(o->compare, o->topo, o->out);
        (void) fflush(o->out);
}

int observer_error(const Observer *o) {
        return o->error;
}
