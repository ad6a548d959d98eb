/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * schedutil.c: schedutil's per-policy frequency selection (kernel/sched/cpufreq_schedutil.c, 6.x), pure.
 * RT/DL minimums are the engine's (it passes the capacity as util); uclamp and DL bandwidth are not modelled.
 */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "governor.h"
#include "kernel-version.h"
#include "macro.h"
#include "time-util.h"
#include "topology.h"

#define USEC_PER_MSEC UINT64_C(1000)
#define LATENCY_MULTIPLIER UINT64_C(1000)         /* include/linux/cpufreq.h before 6.12 */
#define CPUFREQ_ETERNAL_NS UINT64_C(4294967295)   /* CPUFREQ_ETERNAL (-1) as cpuinfo_transition_latency shows it */

/* The rows of reference §3.2 (drivers/cpufreq/cpufreq.c cpufreq_policy_transition_delay_us(), and sugov_init()
 * before that function existed). */
#define RULE_4_13 "Linux 4.13 and older"
#define RULE_4_14 "Linux 4.14-6.8"
#define RULE_6_9 "Linux 6.9-6.11"
#define RULE_6_12 "Linux 6.12+"

uint64_t governor_kernel_rate_limit_usec(unsigned version_code, uint64_t transition_latency_ns,
                                         const char **ret_rule) {
        /*
         * policy->cpuinfo.transition_latency is an unsigned int in ns; CPUFREQ_ETERNAL (-1, "unknown", shown as
         * 4294967295) goes through the same arithmetic as any other value, so 4294967 us. Every product below
         * stays within an unsigned int (1000 x 4294967 < 2^32), as in the kernel.
         *
         * Every version first returns the driver's policy->transition_delay_us when it sets one (4.12+:
         * amd-pstate, intel_cpufreq, cppc, ...). That value is not visible from userspace, so these rules are
         * what a driver without it gets; a machine whose driver sets it shows it only through schedutil's
         * rate_limit_us, which is why governor_rate_limit() prefers that tunable when schedutil was running.
         */
        uint32_t latency_us = (uint32_t) MIN(transition_latency_ns, (uint64_t) UINT32_MAX) / (uint32_t) NSEC_PER_USEC;
        const char *rule;
        uint64_t usec;

        if (version_code == 0 || version_code >= KERNEL_VERSION_CODE(6, 12)) {
                /* 37c6dccd6837 "cpufreq: Remove LATENCY_MULTIPLIER": "Give a 50% breathing room between
                 * updates"; USEC_PER_MSEC when the driver reports no latency. */
                rule = RULE_6_12;
                usec = latency_us > 0 ? latency_us + (latency_us >> 1) : USEC_PER_MSEC;
        } else if (version_code >= KERNEL_VERSION_CODE(6, 9)) {
                /* e13aa799c2a6 lowered the cap to 2 ms; its follow-up "If the platform already has high
                 * transition_latency, use it as-is" (latency > max_delay_us). */
                rule = RULE_6_9;
                if (latency_us == 0)
                        usec = LATENCY_MULTIPLIER;
                else if (latency_us > 2 * USEC_PER_MSEC)
                        usec = latency_us;
                else
                        usec = MIN((uint64_t) latency_us * LATENCY_MULTIPLIER, 2 * USEC_PER_MSEC);
        } else if (version_code >= KERNEL_VERSION_CODE(4, 14)) {
                /* "Cap the default transition delay to 10 ms" */
                rule = RULE_4_14;
                usec = latency_us > 0 ? MIN((uint64_t) latency_us * LATENCY_MULTIPLIER, 10 * USEC_PER_MSEC)
                                      : LATENCY_MULTIPLIER;
        } else {
                /* sugov_init(): rate_limit_us = LATENCY_MULTIPLIER, times the latency when there is one. */
                rule = RULE_4_13;
                usec = latency_us > 0 ? (uint64_t) latency_us * LATENCY_MULTIPLIER : LATENCY_MULTIPLIER;
        }

        if (ret_rule)
                *ret_rule = rule;
        return usec;
}

uint64_t governor_default_rate_limit_usec(uint64_t transition_latency_ns) {
        return governor_kernel_rate_limit_usec(KERNEL_VERSION_CODE(6, 12), transition_latency_ns, NULL);
}

RateLimit governor_rate_limit_for_version(const PolicyDesc *p, const Config *cfg, unsigned version_code) {
        RateLimit rl = {};

        if (cfg && cfg->rate_limit_usec > 0) {
                rl.source = RATE_LIMIT_CONFIG;
                rl.usec = cfg->rate_limit_usec;
        } else if (p->has_rate_limit) {
                /* What schedutil itself was using: the driver's transition_delay_us or an administrator's
                 * setting would be in it, neither of which the latency rules can know. */
                rl.source = RATE_LIMIT_KERNEL;
                rl.usec = p->rate_limit_us;
        } else {
                rl.source = RATE_LIMIT_COMPUTED;
                rl.version_unknown = version_code == 0;
                rl.usec = governor_kernel_rate_limit_usec(version_code, p->transition_latency_ns, &rl.rule);
        }
        return rl;
}

RateLimit governor_rate_limit(const PolicyDesc *p, const Config *cfg) {
        return governor_rate_limit_for_version(p, cfg, cfg ? cfg->kernel_version_code : 0);
}

void governor_rate_limit_format(const RateLimit *rl, const PolicyDesc *p, char *buf, size_t size) {
        switch (rl->source) {
        case RATE_LIMIT_CONFIG:
                (void) snprintf(buf, size, "rate limit %" PRIu64 " us (from the configuration)", rl->usec);
                return;
        case RATE_LIMIT_KERNEL:
                (void) snprintf(buf, size, "rate limit %" PRIu64 " us (the kernel's schedutil/rate_limit_us)",
                                rl->usec);
                return;
        default:
                (void) snprintf(buf, size,
                                "rate limit %" PRIu64 " us (cpuinfo_transition_latency %" PRIu64 " ns%s, as %s "
                                "computes it%s)",
                                rl->usec, p->transition_latency_ns,
                                p->transition_latency_ns == CPUFREQ_ETERNAL_NS ? " = CPUFREQ_ETERNAL" : "",
                                rl->rule ?: RULE_6_12,
                                rl->version_unknown ? "; the running kernel's version is unknown, so the newest "
                                                      "rule" : "");
                return;
        }
}

void governor_configure(Governor *g, const PolicyDesc *p, const Config *cfg) {
        uint64_t rate_limit_usec;
        RemoteMode remote;

        g->headroom_x1024 = cfg->headroom_x1024;

        /* The config, else schedutil's own tunable read before switching, else the running kernel's default. */
        rate_limit_usec = governor_rate_limit(p, cfg).usec;
        g->rate_limit_ns = rate_limit_usec * NSEC_PER_USEC;

        remote = config_policy_remote(cfg, p->id);
        g->remote = remote == REMOTE_MODE_YES ||
                    (remote == REMOTE_MODE_AUTO && cpufreq_driver_allows_remote(p->driver));
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
        bool hold;

        /* "if capped by uclamp_max, always update to be in compliance", before the idle count is saved. */
        if (cpu->capped)
                return false;
        hold = g->evaluated && cpu->busy && cpu->idle_calls == g->saved_idle_calls;

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
