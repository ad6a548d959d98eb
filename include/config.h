/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The daemon's configuration: /etc/schedfreqd.conf plus /etc/schedfreqd.conf.d/ *.conf drop-ins in name
 * order (later wins per [section] key). Every key, its default and its range is documented in
 * conf/schedfreqd.conf. Unknown sections or keys and bad values are errors "FILE:LINE: reason"; a file
 * with errors is rejected as a whole, so a reload with a bad file keeps the running config.
 */

#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>

#define CONFIG_DEFAULT_PATH "/etc/schedfreqd.conf"

typedef enum WakeupMode {
        WAKEUP_MODE_ADAPTIVE,     /* immediate wakeups on sched_wakeup*, watermark while the event rate is high */
        WAKEUP_MODE_WATERMARK,    /* ring watermark + drain timer only: cheapest, reacts within drain_interval */
        WAKEUP_MODE_IMMEDIATE,    /* wake the daemon on every sched_wakeup* sample: fastest, costly under load */
        _WAKEUP_MODE_MAX,
        _WAKEUP_MODE_INVALID = -EINVAL,
} WakeupMode;

typedef enum RemoteMode {
        REMOTE_MODE_AUTO,         /* follow the driver (dvfs_possible_from_any_cpu) */
        REMOTE_MODE_YES,
        REMOTE_MODE_NO,
        _REMOTE_MODE_MAX,
        _REMOTE_MODE_INVALID = -EINVAL,
} RemoteMode;

#define CONFIG_POLICIES_MAX CPU_SETSIZE

typedef struct PolicyConfig {
        bool present;             /* a [policyN] section exists */
        RemoteMode remote;        /* _REMOTE_MODE_INVALID: not set, [governor] remote applies */
} PolicyConfig;

typedef struct Config {
        /* [daemon] */
        int log_level;                    /* log_level = info */
        int realtime_priority;            /* realtime_priority = 1 (SCHED_FIFO priority of the event loop, 0 = off) */
        /* [events] */
        uint64_t drain_interval_usec;     /* drain_interval_ms = 4 */
        unsigned ring_pages;              /* ring_pages = 64 (per CPU, power of two, data pages) */
        WakeupMode wakeup;                /* wakeup = adaptive */
        uint64_t adaptive_high_per_sec;   /* adaptive_threshold = 20000 (events/s above which wakeups stop) */
        /* [governor] */
        unsigned headroom_x1024;          /* headroom = 1.25 (schedutil's map_util_perf(): util + util/4) */
        uint64_t rate_limit_usec;         /* rate_limit_us = auto (0 = from cpuinfo_transition_latency) */
        uint64_t tick_usec;               /* tick_ms = 4 (CONFIG_HZ=250, measured on these machines) */
        bool manage_all;                  /* policies = all */
        cpu_set_t manage;                 /* policies = 0,4  (policy numbers) when !manage_all */
        RemoteMode remote;                /* remote = auto (default for policies without a section) */
        PolicyConfig policy[CONFIG_POLICIES_MAX]; /* [policyN] sections */
} Config;

void config_set_defaults(Config *c);

/*
 * Loads @path and then, in name order, @path.d/ *.conf, on top of the defaults. Returns 0 and fills @ret,
 * or a negative errno; on parse errors -EINVAL and, if @ret_error is non-NULL, a malloc'd message with one
 * "FILE:LINE: reason" per line. A missing main file is not an error when @missing_ok.
 * @ret is only written on success. On other errors except -ENOMEM (a missing main file without @missing_ok:
 * -ENOENT; an unreadable file: its errno) *@ret_error is set too, to "FILE: reason".
 */
int config_load(const char *path, bool missing_ok, Config *ret, char **ret_error);

/* The remote mode in force for policy @id. */
RemoteMode config_policy_remote(const Config *c, unsigned id);
bool config_manages_policy(const Config *c, unsigned id);

const char *wakeup_mode_to_string(WakeupMode m);
WakeupMode wakeup_mode_from_string(const char *s);
const char *remote_mode_to_string(RemoteMode m);
RemoteMode remote_mode_from_string(const char *s);
