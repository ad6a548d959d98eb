/* SPDX-License-Identifier: GPL-2.0-or-later */
/* config-keys.c: the configuration's keys and their value parsers (daemon/config/config-keys.h). */

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "config.h"
#include "config-keys.h"
#include "cpulist.h"
#include "log.h"
#include "macro.h"
#include "string-util.h"

/* ---- value parsers: 0, or -EINVAL with a reason (a static string) ---- */

int parse_u64_range(const char *value, uint64_t min, uint64_t max, uint64_t *ret) {
        uint64_t v = 0;

        if (!value || value[0] == '\0')
                return -EINVAL;
        for (const char *p = value; *p; p++) {
                if (*p < '0' || *p > '9')
                        return -EINVAL;
                if (v > (UINT64_MAX - (uint64_t) (*p - '0')) / 10)
                        return -ERANGE;
                v = v * 10 + (uint64_t) (*p - '0');
        }
        if (v < min || v > max)
                return -ERANGE;
        *ret = v;
        return 0;
}

static int parse_log_level(const char *value, void *field, const char **ret_reason) {
        int level = log_level_from_string(value);

        if (level < 0) {
                *ret_reason = "expected err, warning, notice, info, debug or 0..7";
                return -EINVAL;
        }
        *(int *) field = level;
        return 0;
}

/* BEGIN realtime_priority (issue 4: systemd) */
static int parse_realtime_priority(const char *value, void *field, const char **ret_reason) {
        uint64_t prio;

        /* sched_get_priority_max(SCHED_FIFO) is 99 on Linux (MAX_RT_PRIO - 1, include/linux/sched/prio.h). */
        if (parse_u64_range(value, 0, 99, &prio) < 0) {
                *ret_reason = "expected 0 (off) or a SCHED_FIFO priority between 1 and 99";
                return -EINVAL;
        }
        *(int *) field = (int) prio;
        return 0;
}
/* END realtime_priority */

static int parse_drain_interval(const char *value, void *field, const char **ret_reason) {
        uint64_t ms;

        if (parse_u64_range(value, 1, 1000, &ms) < 0) {
                *ret_reason = "expected milliseconds between 1 and 1000";
                return -EINVAL;
        }
        *(uint64_t *) field = ms * 1000;
        return 0;
}

static int parse_ring_pages(const char *value, void *field, const char **ret_reason) {
        uint64_t pages;

        /* perf wants 2^n data pages (perf_mmap() in kernel/events/core.c rejects anything else). */
        if (parse_u64_range(value, 1, 4096, &pages) < 0 || (pages & (pages - 1)) != 0) {
                *ret_reason = "expected a power of two between 1 and 4096";
                return -EINVAL;
        }
        *(unsigned *) field = (unsigned) pages;
        return 0;
}

static int parse_wakeup(const char *value, void *field, const char **ret_reason) {
        WakeupMode m = wakeup_mode_from_string(value);

        if (m < 0) {
                *ret_reason = "expected adaptive, watermark or immediate";
                return -EINVAL;
        }
        *(WakeupMode *) field = m;
        return 0;
}

static int parse_event_source(const char *value, void *field, const char **ret_reason) {
        EventSourceType t = event_source_type_from_string(value);

        if (t < 0) {
                *ret_reason = "expected auto, bpf or perf";
                return -EINVAL;
        }
        *(EventSourceType *) field = t;
        return 0;
}

static int parse_adaptive_threshold(const char *value, void *field, const char **ret_reason) {
        uint64_t rate;

        if (parse_u64_range(value, 1, 100000000, &rate) < 0) {
                *ret_reason = "expected events per second between 1 and 100000000";
                return -EINVAL;
        }
        *(uint64_t *) field = rate;
        return 0;
}

/*
 * A decimal such as "1.25" in [1.0, 2.0], stored x1024 and rounded to nearest: exact for the binary
 * fractions that matter (1.25 → 1280, 1.5 → 1536), no floating point and no locale.
 */
static int parse_headroom(const char *value, void *field, const char **ret_reason) {
        static const uint64_t scale = UINT64_C(1000000000); /* up to 9 decimals */
        uint64_t integer = 0, fraction = 0, digit_scale = scale;
        const char *p = value;

        *ret_reason = "expected a decimal number between 1.0 and 2.0";

        if (*p < '0' || *p > '9')
                return -EINVAL;
        for (; *p >= '0' && *p <= '9'; p++) {
                integer = integer * 10 + (uint64_t) (*p - '0');
                if (integer > 2)
                        return -ERANGE;
        }
        if (*p == '.') {
                p++;
                if (*p < '0' || *p > '9')
                        return -EINVAL;
                for (; *p >= '0' && *p <= '9'; p++) {
                        if (digit_scale == 1)
                                return -EINVAL; /* more decimals than we keep */
                        digit_scale /= 10;
                        fraction += (uint64_t) (*p - '0') * digit_scale;
                }
        }
        if (*p != '\0')
                return -EINVAL;

        integer = integer * scale + fraction; /* in 1e-9 */
        if (integer < scale || integer > 2 * scale)
                return -ERANGE;

        *(unsigned *) field = (unsigned) ((integer * 1024 + scale / 2) / scale);
        return 0;
}

static int parse_rate_limit(const char *value, void *field, const char **ret_reason) {
        uint64_t usec;

        if (streq(value, "auto")) {
                *(uint64_t *) field = 0;
                return 0;
        }
        if (parse_u64_range(value, 1, 10000000, &usec) < 0) {
                *ret_reason = "expected auto or microseconds between 1 and 10000000";
                return -EINVAL;
        }
        *(uint64_t *) field = usec;
        return 0;
}

/* auto (0): the running kernel's tick, or the trace's (config_tick_ns()); a number overrides it. */
static int parse_tick(const char *value, void *field, const char **ret_reason) {
        uint64_t ms;

        if (streq(value, "auto")) {
                *(uint64_t *) field = 0;
                return 0;
        }
        if (parse_u64_range(value, 1, 100, &ms) < 0) {
                *ret_reason = "expected auto or milliseconds between 1 and 100";
                return -EINVAL;
        }
        *(uint64_t *) field = ms * 1000;
        return 0;
}

static int parse_policies(const char *value, void *field, const char **ret_reason) {
        Config *c = field;
        cpu_set_t set;

        if (streq(value, "all")) {
                c->manage_all = true;
                CPU_ZERO(&c->manage);
                return 0;
        }
        /* Policy numbers in the CPU-list syntax ("0,4", "0-3"); policyN is named after its first CPU. */
        if (cpulist_parse(value, &set) < 0 || CPU_COUNT(&set) == 0) {
                *ret_reason = "expected all or a list of policy numbers such as 0,4 or 0-3";
                return -EINVAL;
        }
        c->manage_all = false;
        c->manage = set;
        return 0;
}

static int parse_remote(const char *value, void *field, const char **ret_reason) {
        RemoteMode m = remote_mode_from_string(value);

        if (m < 0) {
                *ret_reason = "expected auto, yes or no";
                return -EINVAL;
        }
        *(RemoteMode *) field = m;
        return 0;
}

/* ---- the key table ---- */

static const ConfigItem config_items[] = {
        { "daemon",       "log_level",          parse_log_level,          offsetof(Config, log_level) },
        { "daemon",       "realtime_priority",  parse_realtime_priority,  offsetof(Config, realtime_priority) },
        { "events",       "drain_interval_ms",  parse_drain_interval,     offsetof(Config, drain_interval_usec) },
        { "events",       "ring_pages",         parse_ring_pages,         offsetof(Config, ring_pages) },
        { "events",       "source",             parse_event_source,       offsetof(Config, event_source) },
        { "events",       "wakeup",             parse_wakeup,             offsetof(Config, wakeup) },
        { "events",       "adaptive_threshold", parse_adaptive_threshold, offsetof(Config, adaptive_high_per_sec) },
        { "governor",     "headroom",           parse_headroom,           offsetof(Config, headroom_x1024) },
        { "governor",     "rate_limit_us",      parse_rate_limit,         offsetof(Config, rate_limit_usec) },
        { "governor",     "tick_ms",            parse_tick,               offsetof(Config, tick_usec) },
        { "governor",     "policies",           parse_policies,           0 /* manage_all + manage */ },
        { "governor",     "remote",             parse_remote,             offsetof(Config, remote) },
        { POLICY_SECTION, "remote",             parse_remote,             offsetof(PolicyConfig, remote) },
};

int config_policy_section_id(const char *section) {
        uint64_t id;

        if (strncmp(section, POLICY_SECTION, strlen(POLICY_SECTION)) != 0)
                return -ENOENT;
        section += strlen(POLICY_SECTION);
        if (section[0] == '0' && section[1] != '\0')
                return -ERANGE; /* "policy01" is not a name the kernel uses */
        if (parse_u64_range(section, 0, CONFIG_POLICIES_MAX - 1, &id) < 0)
                return -ERANGE;
        return (int) id;
}

bool config_section_known(const char *section) {
        for (size_t i = 0; i < ELEMENTSOF(config_items); i++)
                if (streq(config_items[i].section, section))
                        return true;
        return false;
}

const ConfigItem *config_item_find(const char *section, const char *key) {
        for (size_t i = 0; i < ELEMENTSOF(config_items); i++)
                if (streq(config_items[i].section, section) && streq(config_items[i].key, key))
                        return &config_items[i];
        return NULL;
}

void config_key_suggest(const char *section, const char *key, const char **ret_key, const char **ret_section) {
        size_t best = SIZE_MAX;

        *ret_key = *ret_section = NULL;
        for (size_t i = 0; i < ELEMENTSOF(config_items); i++) {
                const ConfigItem *item = &config_items[i];
                size_t d;

                if (!streq(item->section, section) || !string_is_typo_of(key, item->key))
                        continue;
                d = string_distance(key, item->key);
                if (d < best) {
                        best = d;
                        *ret_key = item->key;
                }
        }
        if (*ret_key)
                return;
        /* The right key in the wrong section: the first one that has it (a [policyN] key also sits in [governor]). */
        for (size_t i = 0; i < ELEMENTSOF(config_items); i++)
                if (streq(config_items[i].key, key) && !streq(config_items[i].section, section)) {
                        *ret_section = config_items[i].section;
                        return;
                }
}

const char *config_section_suggest(const char *section) {
        const char *found = NULL;
        size_t best = SIZE_MAX;

        for (size_t i = 0; i < ELEMENTSOF(config_items); i++) {
                const char *known = config_items[i].section;
                size_t d;

                if (streq(known, POLICY_SECTION) || !string_is_typo_of(section, known))
                        continue;
                d = string_distance(section, known);
                if (d < best) {
                        best = d;
                        found = known;
                }
        }
        return found;
}
