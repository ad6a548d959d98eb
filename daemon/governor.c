/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * governor.c: schedutil's per-policy frequency selection (kernel/sched/cpufreq_schedutil.c, 6.x), pure.
 * RT/DL minimums are the engine's (it passes the capacity as util); uclamp and DL bandwidth are not modelled.
 */

#include <string.h>

#include "governor.h"
#include "macro.h"

#define USEC_PER_MSEC UINT64_C(1000)
#define NSEC_PER_USEC UINT64_C(1000)

uint64_t governor_default_rate_limit_usec(uint64_t transition_latency_ns) {
        uint64_t latency_us = transition_latency_ns / NSEC_PER_USEC;

        /*
         * drivers/cpufreq/cpufreq.c, cpufreq_policy_transition_delay_us() since 6.12 (37c6dccd6837, reference
         * §3.2): "Give a 50% breathing room between updates", and 1 ms when the driver reports no latency.
         * We have no driver transition_delay_us to prefer, so the latency is all there is.
         */
        if (latency_us > 0)
                return latency_us + (latency_us >> 1);
        return USEC_PER_MSEC;
}

bool governor_driver_allows_remote(const char *driver) {
        /*
         * Drivers that set policy->dvfs_possible_from_any_cpu (reference §5.3): one clock or firmware channel
         * that any CPU can program. Per-CPU-register drivers (acpi-cpufreq, intel_cpufreq, ...) don't.
         */
        static const char *const any_cpu[] = {
                "cpufreq-dt", "scmi", "scpi-cpufreq", "qcom-cpufreq-hw", "apple-cpufreq",
        };

        for (size_t i = 0; i < ELEMENTSOF(any_cpu); i++)
                if (streq(driver, any_cpu[i]))
                        return true;
        return false;
}

void governor_configure(Governor *g, const PolicyDesc *p, const Config *cfg) {
        uint64_t rate_limit_usec;
        RemoteMode remote;

        g->headroom_x1024 = cfg->headroom_x1024;

        rate_limit_usec = cfg->rate_limit_usec > 0 ? cfg->rate_limit_usec
                                                   : governor_default_rate_limit_usec(p->transition_latency_ns);
        g->rate_limit_ns = rate_limit_usec * NSEC_PER_USEC;

        remote = config_policy_remote(cfg, p->id);
        g->remote = remote == REMOTE_MODE_YES ||
                    (remote == REMOTE_MODE_AUTO && governor_driver_allows_remote(p->driver));
}

void governor_init(Governor *g, const PolicyDesc *p, const Config *cfg, uint32_t cur_khz) {
        *g = (Governor) { .cur_khz = cur_khz };
        governor_configure(g, p, cfg);
}

unsigned governor_capacity(const PolicyDesc *p) {
        return p->capacity == 0 ? CAPACITY_SCALE : MIN(p->capacity, CAPACITY_SCALE);
}

uint32_t governor_util_to_khz(const PolicyDesc *p, unsigned util, unsigned headroom_x1024) {
        unsigned cap = governor_capacity(p);
        uint64_t perf;

        /*
         * sugov_effective_cpu_perf(): max(min, min(max, map_util_perf(util))), with min = 0 (no RT/DL/uclamp
         * in this model) and max = the CPU's capacity. map_util_perf() is util + util/4; the headroom knob
         * generalises the 1.25.
         */
        perf = MIN((uint64_t) util * headroom_x1024 / 1024, (uint64_t) cap);

        /* get_next_freq() 6.8+: ref x util / cap with ref = cpuinfo.max_freq (frequency-invariant model). */
        return (uint32_t) ((uint64_t) p->cpuinfo_max_khz * perf / cap);
}

uint32_t governor_target_khz(const Governor *g, const PolicyDesc *p, unsigned util) {
        uint32_t raw = governor_util_to_khz(p, util, g->headroom_x1024);

        /* cpufreq_driver_resolve_freq(): clamp to the policy limits, lowest table entry >= raw. */
        return policy_resolve_khz(p, p->scaling_min_khz, p->scaling_max_khz, raw);
}

bool governor_should_update(const Governor *g, uint64_t now_ns) {
        /*
         * sugov_should_update_freq(): time - last_freq_update_time >= freq_update_delay_ns. Before the first
         * change there is nothing to limit (the kernel starts from last_freq_update_time = 0).
         */
        return !g->committed || g->limits_changed || now_ns - g->last_update_ns >= g->rate_limit_ns;
}

/*
 * sugov_hold_freq(): true iff the CPU has not entered idle since the previous evaluation. The kernel's
 * counter (tick_nohz_get_idle_calls_cpu()) also moves on every pass through the idle loop, so a CPU that sits
 * idle keeps "having been idle"; we see only switches, hence the explicit "and it is busy now".
 */
static bool governor_hold(Governor *g, const GovernorCpu *cpu) {
        bool hold = g->evaluated && cpu->busy && cpu->idle_calls == g->saved_idle_calls;

        g->saved_idle_calls = cpu->idle_calls;
        return hold;
}

uint32_t governor_next_khz(Governor *g, const PolicyDesc *p, unsigned util, const GovernorCpu *cpu) {
        uint32_t next = governor_target_khz(g, p, util);

        /*
         * sugov_update_single_freq(): "if (sugov_hold_freq(sg_cpu) && next_f < sg_policy->next_freq) next_f =
         * sg_policy->next_freq": don't slow down a CPU that has been busy all along, its utilisation is
         * likely to be underestimated ("reduction is likely to be premature"). Shared policies have no such
         * rule (sugov_update_shared()). The kernel's next_freq starts at 0, so the first evaluation is never
         * held: hence 'evaluated'.
         */
        if (cpu && governor_hold(g, cpu) && next < g->cur_khz && !g->limits_changed)
                next = g->cur_khz;

        g->evaluated = true;
        return next;
}

void governor_commit(Governor *g, uint64_t now_ns, uint32_t khz, bool applied) {
        /*
         * sugov_update_next_freq() sets last_freq_update_time only when the frequency changes. A failed write
         * counts as an attempt too, so a failing sysfs file is retried at the rate limit, not on every event.
         */
        g->committed = true;
        g->limits_changed = false;
        g->last_update_ns = now_ns;
        if (applied)
                g->cur_khz = khz;
}

/* sugov_iowait_reset(): "Reset boost only if a tick has elapsed since last request". */
static bool iowait_reset(IowaitBoost *b, uint64_t now_ns, bool set, uint64_t tick_ns) {
        if (now_ns < b->last_update_ns || now_ns - b->last_update_ns <= tick_ns)
                return false;
        b->boost = set ? IOWAIT_BOOST_MIN : 0;
        b->pending = set;
        return true;
}

void governor_iowait_boost(IowaitBoost *b, uint64_t now_ns, bool iowait, uint64_t tick_ns) {
        /*
         * sugov_iowait_boost() (5.x/6.x; 4.14 jumped straight to iowait_boost_max): "Reset boost if the CPU
         * appears to have been idle enough", boost only wake-ups after I/O, double at most once per
         * application, start at IOWAIT_BOOST_MIN. The caller then sets last_update, as sugov_update_*() do.
         */
        if (!(b->boost && iowait_reset(b, now_ns, iowait, tick_ns)) && iowait && !b->pending) {
                b->pending = true;
                b->boost = b->boost ? MIN(b->boost << 1, 1024u) : IOWAIT_BOOST_MIN;
        }
        b->last_update_ns = now_ns;
}

unsigned governor_iowait_apply(IowaitBoost *b, uint64_t now_ns, unsigned capacity, uint64_t tick_ns) {
        /* sugov_iowait_apply(): halve a boost no new request re-armed; below the minimum it ends. */
        if (!b->boost || iowait_reset(b, now_ns, false, tick_ns))
                return 0;
        if (!b->pending) {
                b->boost >>= 1;
                if (b->boost < IOWAIT_BOOST_MIN) {
                        b->boost = 0;
                        return 0;
                }
        }
        b->pending = false;
        /* "sg_cpu->util is already in capacity scale; convert iowait_boost into the same scale" */
        return (b->boost * capacity) >> 10;
}

unsigned governor_iowait_peek(const IowaitBoost *b, uint64_t now_ns, unsigned capacity, uint64_t tick_ns) {
        if (!b->boost || (now_ns >= b->last_update_ns && now_ns - b->last_update_ns > tick_ns))
                return 0;
        return (b->boost * capacity) >> 10;
}
