/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * policy.c: the emulated cpufreq core. Each function mirrors the kernel function named in its comment
 * (drivers/cpufreq/cpufreq.c, freq_table.c, cpufreq_userspace.c, cpufreq_performance.c,
 * cpufreq_powersave.c, include/linux/cpufreq.h), minus locking and the hardware: a "frequency change" is
 * policy->cur taking the resolved value, logged as a scaling_cur_freq line.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "emu.h"
#include "macro.h"

EmuPolicy *emu_policy_of_cpu(const Emu *e, unsigned cpu) {
        if (cpu >= CPULIST_MAX_CPUS || e->policy_of_cpu[cpu] < 0)
                return NULL;
        return &e->policies[e->policy_of_cpu[cpu]];
}

EmuPolicy *emu_policy_by_id(const Emu *e, unsigned id) {
        for (size_t i = 0; i < e->n_policies; i++)
                if (e->policies[i].desc->id == id)
                        return &e->policies[i];
        return NULL;
}

void emu_policy_affected_cpus(const Emu *e, const EmuPolicy *p, cpu_set_t *ret) {
        /* policy->cpus: the online CPUs of the policy (cpufreq_online()'s cpumask_and with cpu_online_mask). */
        CPU_AND(ret, &p->desc->cpus, &e->online);
}

/* policy_is_inactive(): no online CPU left. Such a policy keeps its directory, but its attributes fail
 * with -EBUSY (show()/store() in drivers/cpufreq/cpufreq.c). */
bool emu_policy_active(const Emu *e, const EmuPolicy *p) {
        cpu_set_t cpus;

        emu_policy_affected_cpus(e, p, &cpus);
        return CPU_COUNT(&cpus) > 0;
}

bool emu_policy_is_userspace(const EmuPolicy *p) {
        return !p->setpolicy && streq(p->governor, "userspace");
}

/* ---- Frequency resolution ---- */

/* cpufreq_table_find_index_ah(): the highest entry <= target; the lowest entry when all are above. */
static uint32_t table_find_h(const PolicyDesc *d, uint32_t khz) {
        uint32_t best = d->frequencies_khz[0];

        for (size_t i = 0; i < d->n_frequencies; i++)
                if (d->frequencies_khz[i] <= khz)
                        best = d->frequencies_khz[i];
        return best;
}

/* __resolve_freq(policy, target, min, max, relation): clamp, then the table entry for @rel. */
static uint32_t resolve(const EmuPolicy *p, uint32_t min, uint32_t max, uint32_t khz, Relation rel) {
        const PolicyDesc *d = p->desc;

        if (rel == RELATION_L || !d->frequencies_khz)
                return policy_resolve_l_khz(d, min, max, khz);
        if (min > max)
                min = max;
        return table_find_h(d, CLAMP(khz, min, max));
}

/* __cpufreq_driver_target(): resolve within policy->min/max; nothing happens when that is policy->cur. */
static void policy_target(Emu *e, EmuPolicy *p, uint32_t khz, Relation rel) {
        uint32_t f = resolve(p, p->min_khz, p->max_khz, khz, rel);

        if (f == p->cur_khz)
                return;
        p->cur_khz = f;
        emu_log_cur(e, p);
}

/* ---- Limits ---- */

/* cpufreq_verify_within_limits() (include/linux/cpufreq.h): max into the hardware range, then min
 * into [hardware min, max], so an inverted request pair ends with min clamped down to max. */
static void verify_within_cpu_limits(const PolicyDesc *d, uint32_t *min, uint32_t *max) {
        *max = CLAMP(*max, d->cpuinfo_min_khz, d->cpuinfo_max_khz);
        *min = CLAMP(*min, d->cpuinfo_min_khz, *max);
}

/* cpufreq_frequency_table_verify() (drivers/cpufreq/freq_table.c): when no entry lies within
 * [min, max], max drops to the highest entry below it and the limits are verified again. */
static void table_verify(const PolicyDesc *d, uint32_t *min, uint32_t *max) {
        uint32_t prev_smaller = 0;

        verify_within_cpu_limits(d, min, max);
        for (size_t i = 0; i < d->n_frequencies; i++) {
                uint32_t f = d->frequencies_khz[i];

                if (f >= *min && f <= *max)
                        return;
                if (prev_smaller < f && f <= *max)
                        prev_smaller = f;
        }
        *max = prev_smaller;
        verify_within_cpu_limits(d, min, max);
}

/* The limits part of cpufreq_set_policy(): requests → verified → resolved policy->min/max. */
static void policy_update_limits(EmuPolicy *p) {
        const PolicyDesc *d = p->desc;
        uint32_t min = p->min_req_khz, max = p->max_req_khz;

        if (d->frequencies_khz)
                table_verify(d, &min, &max);
        else
                verify_within_cpu_limits(d, &min, &max);

        /* "no frequency resolution will neither overshoot the requested maximum nor undershoot the
         * requested minimum" */
        p->max_khz = resolve(p, min, max, max, RELATION_H);
        min = resolve(p, min, max, min, RELATION_L);
        p->min_khz = min > p->max_khz ? p->max_khz : min;
}

/* ---- Governors ---- */

/* cpufreq_userspace_policy_limits() (drivers/cpufreq/cpufreq_userspace.c): re-apply the saved speed,
 * clamped to the new limits. */
static void userspace_limits(Emu *e, EmuPolicy *p) {
        if (p->max_khz < p->setspeed_khz)
                policy_target(e, p, p->max_khz, RELATION_H);
        else if (p->min_khz > p->setspeed_khz)
                policy_target(e, p, p->min_khz, RELATION_L);
        else
                policy_target(e, p, p->setspeed_khz, RELATION_L);
}

/* The governor's ->limits() callback, run after every cpufreq_set_policy() and governor start. */
static void governor_limits(Emu *e, EmuPolicy *p) {
        if (streq(p->governor, "performance"))
                policy_target(e, p, p->max_khz, RELATION_H);     /* cpufreq_gov_performance_limits() */
        else if (streq(p->governor, "powersave"))
                policy_target(e, p, p->min_khz, RELATION_L);     /* cpufreq_gov_powersave_limits() */
        else if (emu_policy_is_userspace(p))
                userspace_limits(e, p);
        else if (p->max_khz < p->cur_khz)                        /* cpufreq_policy_apply_limits(), what */
                policy_target(e, p, p->max_khz, RELATION_H);     /* schedutil, ondemand and conservative */
        else if (p->min_khz > p->cur_khz)                        /* do on a limits change */
                policy_target(e, p, p->min_khz, RELATION_L);
}

/* cpufreq_start_governor(): ->start() then ->limits(). The userspace governor's start saves the current
 * frequency as its speed (cpufreq_userspace_policy_start()). For setpolicy drivers the driver's
 * ->setpolicy() plays the governor; performance and powersave pin max and min here. */
static void governor_start(Emu *e, EmuPolicy *p) {
        if (emu_policy_is_userspace(p))
                p->setspeed_khz = p->cur_khz;
        governor_limits(e, p);
}

/* ---- schedutil's tunables ---- */

/* Drivers with CPUFREQ_HAVE_GOVERNOR_PER_POLICY in their flags (drivers/cpufreq/: scmi-cpufreq.c,
 * qcom-cpufreq-hw.c, mediatek-cpufreq-hw.c, apple-soc-cpufreq.c, tegra186-cpufreq.c, exynos): the governor's
 * tunables live in the policy's own directory. cpufreq-dt sets it only for some platforms; here it does not. */
static bool driver_governor_per_policy(const char *driver) {
        static const char *const per_policy[] = {
                "scmi", "qcom-cpufreq-hw", "mediatek-cpufreq-hw", "apple-cpufreq", "tegra186", "exynos_cpufreq",
        };

        for (size_t i = 0; i < ELEMENTSOF(per_policy); i++)
                if (streq(driver, per_policy[i]))
                        return true;
        return false;
}

static bool policy_is_schedutil(const EmuPolicy *p) {
        return !p->setpolicy && streq(p->governor, "schedutil");
}

bool emu_policy_has_sugov_dir(const EmuPolicy *p) {
        return p->governor_per_policy && p->created && policy_is_schedutil(p);
}

/* get_governor_parent_kobj() is cpufreq_global_kobject; sugov_init() creates "schedutil" there on the first
 * policy and sugov_exit() removes it with the last one (gov_attr_set_put() count). */
bool emu_has_global_sugov_dir(const Emu *e) {
        for (size_t i = 0; i < e->n_policies; i++) {
                const EmuPolicy *p = &e->policies[i];

                if (!p->governor_per_policy && p->created && policy_is_schedutil(p))
                        return true;
        }
        return false;
}

uint32_t *emu_sugov_rate_limit(Emu *e, EmuPolicy *p) {
        return p ? &p->sugov_rate_limit_us : &e->sugov_global_rate_limit_us;
}

/* cpufreq_policy_transition_delay_us() of 6.12+ (drivers/cpufreq/cpufreq.c), the emulated kernel's: the
 * latency in us plus half, 1000 us without one. No driver transition_delay_us. */
static uint32_t transition_delay_us(const PolicyDesc *d) {
        uint32_t latency = (uint32_t) d->transition_latency_ns / 1000;

        return latency ? latency + (latency >> 1) : 1000;
}

/* sugov_init(), called with @p's governor just set: a per-policy tunable is new; the global one is new unless
 * another policy already runs schedutil (global_tunables is reused). @initial: the topology's rate_limit_us. */
static void sugov_init(Emu *e, EmuPolicy *p, const uint32_t *initial) {
        uint32_t v;

        if (!policy_is_schedutil(p))
                return;
        v = initial ? *initial : transition_delay_us(p->desc);
        if (p->governor_per_policy) {
                p->sugov_rate_limit_us = v;
                return;
        }
        for (size_t i = 0; i < e->n_policies; i++) {
                const EmuPolicy *o = &e->policies[i];

                if (o != p && !o->governor_per_policy && o->created && policy_is_schedutil(o))
                        return; /* global_tunables exists: shared, not reset */
        }
        e->sugov_global_rate_limit_us = v;
}

/* sugov_exit(), before @p's governor changes: the tunables go with their last user (sugov_tunables_free()),
 * so a later sugov_init() starts again from the default. Nothing to do here beyond forgetting. */
static void sugov_exit(Emu *e, EmuPolicy *p) {
        if (policy_is_schedutil(p) && p->governor_per_policy)
                p->sugov_rate_limit_us = 0;
}

/* find_governor() / cpufreq_parse_policy(): names compare case-insensitively (strncasecmp). Writes the
 * canonical spelling to @ret. */
static bool governor_find(const EmuPolicy *p, const char *name, char ret[TOPOLOGY_GOVERNOR_MAX]) {
        size_t n = strlen(name);

        for (const char *s = p->governors; *s;) {
                size_t w;

                s += strspn(s, " \t");
                w = strcspn(s, " \t");
                if (w == n && w < TOPOLOGY_GOVERNOR_MAX && strncasecmp(s, name, n) == 0) {
                        memcpy(ret, s, w);
                        ret[w] = '\0';
                        return true;
                }
                s += w;
        }
        return false;
}

int emu_policy_set_governor(Emu *e, EmuPolicy *p, const char *name) {
        char gov[TOPOLOGY_GOVERNOR_MAX];

        if (!governor_find(p, name, gov))
                return -EINVAL;

        /* cpufreq_set_policy(): the same governor again only re-runs its limits. */
        policy_update_limits(p);
        if (streq(gov, p->governor)) {
                governor_limits(e, p);
                return 0;
        }

        sugov_exit(e, p);
        strcpy(p->governor, gov);
        sugov_init(e, p, NULL);
        governor_start(e, p);
        return 0;
}

/* cpufreq_set() (cpufreq_userspace.c): the raw value is saved, then resolved with RELATION_L. */
int emu_policy_set_speed(Emu *e, EmuPolicy *p, uint32_t khz) {
        if (!emu_policy_is_userspace(p))
                return -EINVAL; /* store_scaling_setspeed(): no ->store_setspeed */

        p->setspeed_khz = khz;
        policy_target(e, p, khz, RELATION_L);
        return 0;
}

/* freq_qos_update_request() (kernel/power/qos.c) on the user request, then — because the aggregate
 * changed — the QoS notifier's refresh_frequency_limits() → cpufreq_set_policy(). The kernel runs that
 * from a work item, a moment after the write returns; the emulator runs it before. */
int emu_policy_set_limit(Emu *e, EmuPolicy *p, bool max, uint32_t khz) {
        uint32_t *req = max ? &p->max_req_khz : &p->min_req_khz;

        if (*req == khz)
                return 0; /* same request: no notifier, no limits callback */

        *req = khz;
        policy_update_limits(p);
        governor_limits(e, p);
        return 0;
}

/* ---- Hotplug ---- */

/* cpufreq_online()/cpufreq_offline(): a policy's governor is stopped and started again whenever one of
 * its CPUs comes or goes while another stays; the first online CPU creates (or revives) the policy. */
static void policy_cpus_changed(Emu *e, EmuPolicy *p) {
        if (!emu_policy_active(e, p))
                return; /* the governor stops with the last CPU; the directory stays */

        if (!p->created) {
                p->created = true;
                policy_update_limits(p);
                emu_log_cur(e, p);
                /* The governor's first init (cpufreq_init_policy()). With global tunables the first schedutil
                 * policy creates them, with the topology's rate_limit_us when it gives one, and later ones
                 * share them. */
                sugov_init(e, p, p->desc->has_rate_limit ? &p->desc->rate_limit_us : NULL);
        }
        governor_start(e, p);
}

int emu_cpu_set_online(Emu *e, unsigned cpu, bool online) {
        EmuPolicy *p;

        if (cpu >= CPULIST_MAX_CPUS || !CPU_ISSET(cpu, &e->possible))
                return -ENODEV;
        if (online == !!CPU_ISSET(cpu, &e->online))
                return 0; /* device_online()/device_offline(): nothing to do */
        if (!online && CPU_COUNT(&e->online) == 1)
                return -EBUSY; /* cpu_down(): the last online CPU stays */

        if (online)
                CPU_SET(cpu, &e->online);
        else
                CPU_CLR(cpu, &e->online);

        p = emu_policy_of_cpu(e, cpu);
        if (p)
                policy_cpus_changed(e, p);
        /* device_online()/device_offline() announce it once the CPU and cpufreq have followed. */
        emu_uevent_cpu(e, cpu, online);
        return 0;
}

/* ---- Construction ---- */

/* The kernel's default governor (CONFIG_CPU_FREQ_DEFAULT_GOV_*): schedutil on distribution kernels,
 * powersave for intel_pstate in active mode; otherwise the first one offered. */
static void governor_default(const EmuPolicy *p, char ret[TOPOLOGY_GOVERNOR_MAX]) {
        const char *preferred = p->setpolicy ? "powersave" : "schedutil";
        size_t w;

        if (governors_contains(p->governors, preferred)) {
                strcpy(ret, preferred);
                return;
        }
        w = strcspn(p->governors, " \t");
        w = MIN(w, (size_t) TOPOLOGY_GOVERNOR_MAX - 1);
        memcpy(ret, p->governors, w);
        ret[w] = '\0';
}

static void policy_init(EmuPolicy *p, const PolicyDesc *d) {
        *p = (EmuPolicy) {
                .desc = d,
                /* The setpolicy drivers are exactly those whose default list lacks the real governors. */
                .setpolicy = streq(topology_default_governors(d->driver), "performance powersave"),
                .governors = d->governors[0] ? d->governors : topology_default_governors(d->driver),
                .min_req_khz = d->scaling_min_khz,
                .max_req_khz = d->scaling_max_khz,
                .cur_khz = d->cur_khz ?: d->scaling_max_khz,
                .governor_per_policy = driver_governor_per_policy(d->driver),
        };
        if (d->governor[0])
                strcpy(p->governor, d->governor);
        else
                governor_default(p, p->governor);
}

Emu *emu_free(Emu *e) {
        if (!e)
                return NULL;
        if (e->uevent_fd >= 0)
                (void) close(e->uevent_fd);
        free(e->policies);
        topology_free(e->topology);
        free(e);
        return NULL;
}

int emu_new(Topology *t, int log_fd, Emu **ret) {
        _cleanup_(emu_freep) Emu *e = NULL;

        if (CPU_COUNT(&t->possible) == 0)
                return -EINVAL;

        e = calloc(1, sizeof(*e));
        if (!e)
                return -ENOMEM;
        e->log_fd = log_fd;
        e->uevent_fd = -1;
        e->online = t->online;
        e->possible = t->possible;
        (void) clock_gettime(CLOCK_REALTIME, &e->birth);
        for (unsigned cpu = 0; cpu < CPULIST_MAX_CPUS; cpu++)
                e->policy_of_cpu[cpu] = -1;

        e->policies = calloc(MAX(t->n_policies, (size_t) 1), sizeof(EmuPolicy));
        if (!e->policies)
                return -ENOMEM;
        e->n_policies = t->n_policies;

        for (size_t i = 0; i < t->n_policies; i++) {
                policy_init(&e->policies[i], &t->policies[i]);
                for (unsigned cpu = 0; cpu < CPULIST_MAX_CPUS; cpu++)
                        if (CPU_ISSET(cpu, &t->policies[i].cpus))
                                e->policy_of_cpu[cpu] = (int) i;
        }

        /* Policies with an online CPU exist from the start; each logs its initial frequency. */
        for (size_t i = 0; i < e->n_policies; i++)
                policy_cpus_changed(e, &e->policies[i]);

        e->topology = t;
        *ret = TAKE_PTR(e);
        return 0;
}
