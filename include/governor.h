/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The governor: schedutil's per-policy frequency choice (kernel/sched/cpufreq_schedutil.c, 6.x), pure.
 * It turns a policy's utilisation into a frequency (headroom, capacity, resolution to the policy's limits
 * and table) and owns the per-policy rules around it: the rate limit, the busy-hold rule and
 * write-on-change. The engine decides when to ask it and what to do with the answer.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "topology.h"

typedef struct Governor {
        /* From the config (governor_configure()). */
        unsigned headroom_x1024;          /* map_util_perf(): x1280 = util + util/4 */
        uint64_t rate_limit_ns;           /* sg_policy->freq_update_delay_ns */
        bool remote;                      /* events on other policies' CPUs may trigger decisions (§5) */

        /* State. */
        uint32_t cur_khz;                 /* sg_policy->next_freq: the frequency in force */
        bool committed;                   /* a change was attempted: the rate limit runs from last_update_ns */
        uint64_t last_update_ns;          /* sg_policy->last_freq_update_time */
        bool evaluated;                   /* an evaluation ran: the hold rule compares against it */
        uint64_t saved_idle_calls;        /* sg_cpu->saved_idle_calls (single-CPU policies) */
        bool limits_changed;              /* sg_policy->limits_changed: the next update bypasses rate limit and hold */
} Governor;

/*
 * iowait boost of one CPU (struct sugov_cpu: iowait_boost, iowait_boost_pending, last_update), 5.x/6.x
 * kernel/sched/cpufreq_schedutil.c. The boost is in capacity units (IOWAIT_BOOST_MIN = 128 .. 1024).
 */
#define IOWAIT_BOOST_MIN (1024u / 8)      /* SCHED_CAPACITY_SCALE / 8 */
typedef struct IowaitBoost {
        unsigned boost;
        bool pending;
        uint64_t last_update_ns;
} IowaitBoost;

/*
 * Every cpufreq hook call for the CPU: sugov_iowait_boost(), then last_update = @now_ns. @iowait: the call
 * carries SCHED_CPUFREQ_IOWAIT (a task waking after I/O). @tick_ns: TICK_NSEC, after which a boost resets.
 */
void governor_iowait_boost(IowaitBoost *b, uint64_t now_ns, bool iowait, uint64_t tick_ns);
/* sugov_iowait_apply() in an update that passed the rate limit: the boost to apply, scaled to @capacity. */
unsigned governor_iowait_apply(IowaitBoost *b, uint64_t now_ns, unsigned capacity, uint64_t tick_ns);
/* The boost an evaluation outside a hook call sees: the current one, without halving or clearing it. */
unsigned governor_iowait_peek(const IowaitBoost *b, uint64_t now_ns, unsigned capacity, uint64_t tick_ns);

/* A governor for @p with frequency @cur_khz in force and @cfg's settings. */
void governor_init(Governor *g, const PolicyDesc *p, const Config *cfg, uint32_t cur_khz);
/* Applies @cfg's headroom, rate limit and remote mode; keeps the state. */
void governor_configure(Governor *g, const PolicyDesc *p, const Config *cfg);

/* cpufreq_policy_transition_delay_us() of 6.12+: latency x 1.5, or 1000 us when the latency is 0. */
uint64_t governor_default_rate_limit_usec(uint64_t transition_latency_ns);

/*
 * cpufreq_policy_transition_delay_us() (sugov_init()'s default rate_limit_us) as the kernel of version
 * @version_code (KERNEL_VERSION_CODE(), include/kernel-version.h) computes it from cpuinfo_transition_latency
 * (reference §3.2), in the kernel's unsigned int arithmetic, CPUFREQ_ETERNAL (4294967295) included:
 *   <= 4.13      1000 x latency_us, 1000 when 0
 *   4.14 - 6.8   min(1000 x latency_us, 10000), 1000 when 0
 *   6.9 - 6.11   latency_us when above 2000, else min(1000 x latency_us, 2000); 1000 when 0
 *   6.12+        latency_us + latency_us / 2, 1000 when 0
 * @ret_rule (optional): the row's name for messages ("Linux 4.14-6.8").
 */
uint64_t governor_kernel_rate_limit_usec(unsigned version_code, uint64_t transition_latency_ns,
                                         const char **ret_rule);

/* Where a policy's rate limit comes from, in order of precedence. */
typedef enum RateLimitSource {
        RATE_LIMIT_CONFIG,        /* [governor] rate_limit_us */
        RATE_LIMIT_KERNEL,        /* schedutil's own rate_limit_us, read before switching (PolicyDesc) */
        RATE_LIMIT_COMPUTED,      /* governor_kernel_rate_limit_usec() for the running kernel */
        _RATE_LIMIT_SOURCE_MAX,
} RateLimitSource;

typedef struct RateLimit {
        uint64_t usec;
        RateLimitSource source;
        const char *rule;         /* RATE_LIMIT_COMPUTED: the version rule used */
        bool version_unknown;     /* RATE_LIMIT_COMPUTED: uname(2) gave no usable version: the newest rule */
} RateLimit;

/* The rate limit governor_configure() applies to @p under @cfg (its kernel_version_code for the computed rule),
 * and why. */
RateLimit governor_rate_limit(const PolicyDesc *p, const Config *cfg);
/* The same with the kernel version given (0: unknown, the newest rule). */
RateLimit governor_rate_limit_for_version(const PolicyDesc *p, const Config *cfg, unsigned version_code);
/* "rate limit 1500 us (cpuinfo_transition_latency 1000000 ns, as Linux 6.12+ computes it)" into @buf. */
void governor_rate_limit_format(const RateLimit *rl, const PolicyDesc *p, char *buf, size_t size);

/* The capacity of the policy's CPUs: cpu_capacity, 1024 when absent. */
unsigned governor_capacity(const PolicyDesc *p);
/*
 * The raw frequency schedutil asks for @util: sugov_effective_cpu_perf() (util x headroom, capped at the
 * capacity) then get_next_freq() (cpuinfo_max_khz x perf / capacity). Not yet resolved.
 */
uint32_t governor_util_to_khz(const PolicyDesc *p, unsigned util, unsigned headroom_x1024);
/* governor_util_to_khz() resolved to the policy's scaling limits and table (no hold, no rate limit). */
uint32_t governor_target_khz(const Governor *g, const PolicyDesc *p, unsigned util);

/* sugov_should_update_freq(): false while the last change is younger than the rate limit. */
bool governor_should_update(const Governor *g, uint64_t now_ns);

/* What the busy-hold rule needs to know about the CPU of a single-CPU policy. */
typedef struct GovernorCpu {
        bool busy;                        /* running a task right now */
        uint64_t idle_calls;              /* idle entries so far */
        bool capped;                      /* uclamp_rq_is_capped(): a rule's max_util holds the rq down */
} GovernorCpu;

/*
 * One evaluation that passed governor_should_update(): the frequency that should be in force. For a
 * single-CPU policy (@cpu non-NULL) this applies sugov_hold_freq(): the frequency is not lowered while the
 * CPU has been busy all along since the previous evaluation. The result differs from cur_khz only when a
 * change should be written.
 */
uint32_t governor_next_khz(Governor *g, const PolicyDesc *p, unsigned util, const GovernorCpu *cpu);

/* Records an attempt to change to @khz at @now_ns (the rate limit starts over); @applied: it is in force. */
void governor_commit(Governor *g, uint64_t now_ns, uint32_t khz, bool applied);
