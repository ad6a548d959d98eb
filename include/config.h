/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * include/config.h: the public interface of daemon/config/ (what the administrator asked: /etc/schedfreqd.conf, its
 * drop-ins and per-process rules). The one header of that folder the rest of the tree includes; its private headers
 * stay in daemon/config/. Sections, in dependency order: config-origin, rules, config.
 */

#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Where a setting was read, for messages that come after the load (config_check_topology(), the checks of
 * [rule:NAME] sections): a file name kept in Config.origin_files and a line. Config stays a plain value
 * (copied, never freed), so the names live inside it; line 0 = not read from a file.
 */
typedef struct ConfigOrigin {
        uint32_t file;            /* offset of the NUL-terminated name in Config.origin_files */
        uint32_t line;
} ConfigOrigin;

/*
 * Per-process rules (issue #13): `[rule:NAME]` sections of the configuration that boost, cap or ignore the
 * tasks they match, without changing the programs, as uclamp does in the kernel (reference §3.3) and cpufreqd's
 * "programs" rules do in user space.
 *
 * Match keys (at least one; all given must match): comm (glob on the task name, TASK_COMM_LEN), exe (glob on the
 * executable's path), cgroup (glob on the cgroup v2 path, "/system.slice/foo.service"); fnmatch(3) globs
 * without flags. A key whose value is unknown for a task (a replayed trace has names only) does not match.
 *
 * Actions (at least one): min_util / max_util (0..1024, min <= max): the task's uclamp min / max; rt_boost:
 * its CPU's policy goes to max while it is runnable, as for an RT task; ignore: its load does not count (the
 * model sees its CPU idle while it runs). ignore excludes the other actions.
 *
 * Precedence: one rule applies to a task, the most specific that matches: the one with the most match keys;
 * on a tie the one that holds the task down (ignore, then max_util below 1024, then anything else); then the
 * first in the configuration (file order, drop-ins after the main file). See schedfreqd.conf(5).
 */

#define RULES_MAX 32
#define RULE_NAME_MAX 64
#define RULE_COMM_GLOB_MAX 64
#define RULE_PATH_GLOB_MAX 256
#define RULE_UTIL_MAX 1024

/* What a task's rule does to it, in the model's terms (uclamp min and max, boost, ignore); TASK_CLAMP_NONE is "no
 * rule". Every action of a rule sets some of it (RuleAction.clamp). */
typedef struct TaskClamp {
        int16_t rule;                         /* index into the RuleSet, -1 = none */
        uint16_t min_util, max_util;
        bool rt_boost, ignore;
} TaskClamp;

#define TASK_CLAMP_NONE ((TaskClamp) { .rule = -1, .min_util = 0, .max_util = RULE_UTIL_MAX })

/*
 * The actions a rule may take: one row each in rule_actions[] (config/rules.c), which everything that reads,
 * checks, matches, shows or applies an action walks: the [rule:NAME] key and its parser (config-rules.c), the
 * checks of a rule as a whole, the precedence (rules_match()), the clamp it gives a task (rules_clamp(), which
 * the model and the BPF source's task clamps take), the GetRules record's Actions and `schedfreqctl rules`, text
 * and JSON. A new action is an id and a row (and, when it does what a TaskClamp cannot say yet, that effect).
 */
typedef enum RuleActionId {
        RULE_ACTION_MIN_UTIL,
        RULE_ACTION_MAX_UTIL,
        RULE_ACTION_RT_BOOST,
        RULE_ACTION_IGNORE,
        _RULE_ACTION_MAX,
} RuleActionId;

typedef enum RuleValueType {
        RULE_VALUE_UTIL,                      /* 0..RULE_UTIL_MAX: D-Bus 'q', a JSON number */
        RULE_VALUE_YES_NO,                    /* yes or no (1 or 0): D-Bus 'b', a JSON boolean */
} RuleValueType;

typedef struct RuleAction {
        const char *key;                      /* in [rule:NAME] and in `schedfreqctl rules` */
        const char *field;                    /* in GetRules' Actions and `schedfreqctl rules --json` */
        RuleValueType type;
        uint16_t none;                        /* the value that does nothing: a rule without the key has it */
        bool exclusive;                       /* no other action beside it */
        uint8_t restraint;                    /* how much it holds a task down: a tie of match keys goes to more */
        const char *note;                     /* said after it in `schedfreqctl rules`, or NULL */
        void (*clamp)(TaskClamp *k, uint16_t value); /* what it sets in the clamp of the tasks it applies to */
} RuleAction;

extern const RuleAction rule_actions[_RULE_ACTION_MAX];

/* The action named @name: by its key, or with @by_field by its GetRules/JSON field. NULL for none. */
const RuleAction *rule_action_find(const char *name, bool by_field);
/* Which actions rule_actions_text() names. */
typedef enum RuleActionsPick {
        RULE_ACTIONS_ALL,
        RULE_ACTIONS_EXCLUSIVE,
        RULE_ACTIONS_OTHERS,
} RuleActionsPick;
/* "min_util=, max_util=, rt_boost=yes or ignore=yes": the actions @pick names as a configuration sets them (a
 * yes/no one as "KEY=yes" with @with_yes, else "KEY="), joined by ", " and @last before the last. */
const char *rule_actions_text(char *buf, size_t size, RuleActionsPick pick, bool with_yes, const char *last);

typedef struct Rule {
        char name[RULE_NAME_MAX];             /* the NAME of [rule:NAME] */
        char comm[RULE_COMM_GLOB_MAX];        /* "" = not a match key */
        char exe[RULE_PATH_GLOB_MAX];
        char cgroup[RULE_PATH_GLOB_MAX];
        uint16_t action[_RULE_ACTION_MAX];    /* each its row's none when not set (rule_init()) */
        ConfigOrigin origin;                  /* its "[rule:NAME]" header */
} Rule;

typedef struct RuleSet {
        unsigned n;
        Rule rule[RULES_MAX];
} RuleSet;

/* A rule named @name that matches nothing and does nothing (every action at its none). */
void rule_init(Rule *r, const char *name);
/* Whether @r sets action @id to something that does something. */
static inline bool rule_acts(const Rule *r, RuleActionId id) {
        return r->action[id] != rule_actions[id].none;
}

/* The number of match keys of @r (its specificity). */
unsigned rule_match_keys(const Rule *r);

/*
 * The index of the rule that applies to a task with @comm, @exe and @cgroup (each NULL when unknown), or -1.
 * Pure; no allocation.
 */
int rules_match(const RuleSet *rs, const char *comm, const char *exe, const char *cgroup);

/* The clamp of rule @index of @rs (TASK_CLAMP_NONE for -1). */
TaskClamp rules_clamp(const RuleSet *rs, int index);

/*
 * The daemon's configuration: /etc/schedfreqd.conf plus /etc/schedfreqd.conf.d/ *.conf drop-ins in name
 * order (later wins per [section] key, [rule:NAME] sections included). Every key, its default and its range
 * is documented in conf/schedfreqd.conf. Unknown sections or keys and bad values are errors "FILE:LINE: reason"; a file
 * with errors is rejected as a whole, so a reload with a bad file keeps the running config.
 */

#define CONFIG_DEFAULT_PATH "/etc/schedfreqd.conf"

typedef enum WakeupMode {
        WAKEUP_MODE_ADAPTIVE,     /* immediate wakeups on sched_wakeup*, watermark while the event rate is high */
        WAKEUP_MODE_WATERMARK,    /* ring watermark + drain timer only: cheapest, reacts within drain_interval */
        WAKEUP_MODE_IMMEDIATE,    /* wake the daemon on every sched_wakeup* sample: fastest, costly under load */
        _WAKEUP_MODE_MAX,
        _WAKEUP_MODE_INVALID = -EINVAL,
} WakeupMode;

typedef enum EventSourceType {
        EVENT_SOURCE_AUTO,        /* bpf where the kernel has BTF and the programs load and attach, else perf */
        EVENT_SOURCE_PERF,        /* perf rings of the sched tracepoints, the daemon's own model (event-source.h) */
        EVENT_SOURCE_BPF,         /* BPF programs deciding on the kernel's own signals (governor.h) */
        _EVENT_SOURCE_TYPE_MAX,
        _EVENT_SOURCE_TYPE_INVALID = -EINVAL,
} EventSourceType;

typedef enum RemoteMode {
        REMOTE_MODE_AUTO,         /* follow the driver (dvfs_possible_from_any_cpu) */
        REMOTE_MODE_YES,
        REMOTE_MODE_NO,
        _REMOTE_MODE_MAX,
        _REMOTE_MODE_INVALID = -EINVAL,
} RemoteMode;

#define CONFIG_POLICIES_MAX CPU_SETSIZE

/* Room for the names of the files that set policies=, a [policyN] or a [rule:NAME] section: at least two
 * PATH_MAX paths (a name that does not fit is shown as "(a configuration file)"). */
#define CONFIG_ORIGIN_FILES_SIZE 8192

typedef struct PolicyConfig {
        bool present;             /* a [policyN] section with at least one key exists */
        RemoteMode remote;        /* _REMOTE_MODE_INVALID: not set, [governor] remote applies */
        ConfigOrigin origin;      /* its "[policyN]" header (in the last file that has one) */
} PolicyConfig;

typedef struct Config {
        /* [daemon] */
        int log_level;                    /* log_level = info */
        int realtime_priority;            /* realtime_priority = 1 (SCHED_FIFO priority of the event loop, 0 = off) */
        /* [events] */
        EventSourceType event_source;     /* source = auto (auto|perf|bpf) */
        uint64_t drain_interval_usec;     /* drain_interval_ms = 4 */
        unsigned ring_pages;              /* ring_pages = 64 (per CPU, power of two, data pages) */
        WakeupMode wakeup;                /* wakeup = adaptive */
        uint64_t adaptive_high_per_sec;   /* adaptive_threshold = 20000 (events/s above which wakeups stop) */
        /* [governor] */
        unsigned headroom_x1024;          /* headroom = 1.25 (schedutil's map_util_perf(): util + util/4) */
        uint64_t rate_limit_usec;         /* rate_limit_us = auto (0 = from cpuinfo_transition_latency) */
        uint64_t tick_usec;               /* tick_ms = auto (0: the running kernel's CONFIG_HZ, config_tick_ns()) */
        /* Not from the file: the running kernel's version (KERNEL_VERSION_CODE), set by the manager at start-up,
         * for the rate-limit rule of a policy whose limit is neither configured nor read from schedutil; 0 when
         * unknown (uname gave nothing usable, or replay: the recording kernel's is not known): the newest rule. */
        unsigned kernel_version_code;
        bool manage_all;                  /* policies = all */
        cpu_set_t manage;                 /* policies = 0,4  (policy numbers) when !manage_all */
        RemoteMode remote;                /* remote = auto (default for policies without a section) */
        ConfigOrigin manage_origin;       /* the policies= line in force */
        PolicyConfig policy[CONFIG_POLICIES_MAX]; /* [policyN] sections */
        /* [rule:NAME] sections, in the order of their first header (include/config.h, daemon/config/config-rules.c) */
        RuleSet rules;

        char origin_files[CONFIG_ORIGIN_FILES_SIZE]; /* names the ConfigOrigins point into, NUL-separated */
        size_t origin_files_used;
} Config;

void config_set_defaults(Config *c);

/*
 * The model's tick when tick_ms = auto is not resolved from a kernel (include/model.h): CONFIG_HZ=250, the
 * kernel's default and Debian's. The live daemon resolves auto from the running kernel's config at start-up
 * (manager.c), replay from the trace's sched_stat_runtime spacing (replay.c).
 */
#define CONFIG_TICK_DEFAULT_USEC 4000
/* schedutil's map_util_perf(): util + util/4 (kernel/sched/cpufreq_schedutil.c), as a x1024 factor. */
#define CONFIG_HEADROOM_DEFAULT_X1024 1280
/* TICK_NSEC as configured: tick_ms, or CONFIG_TICK_DEFAULT_USEC for an auto nobody resolved. */
uint64_t config_tick_ns(const Config *c);

/*
 * Loads @path and then, in name order, @path.d/ *.conf, on top of the defaults. Returns 0 and fills @ret,
 * or a negative errno; on parse errors -EINVAL and, if @ret_error is non-NULL, a malloc'd message with one
 * "FILE:LINE: reason" per line. A missing main file is not an error when @missing_ok.
 * @ret is only written on success. On other errors except -ENOMEM (a missing main file without @missing_ok:
 * -ENOENT; an unreadable file: its errno; a file over 1 MiB: -EFBIG) *@ret_error is set too, to
 * "FILE: reason". A line holding a NUL byte is a parse error like any other.
 */
int config_load(const char *path, bool missing_ok, Config *ret, char **ret_error);

struct Topology;

/*
 * Checks @c against the machine's policies @t (include/topology.h): every policy that [governor] policies=
 * names and every [policyN] section must exist there. These are warnings, not load errors: the same file
 * serves machines of different shapes, and the daemon ignores what does not exist (schedfreqctl
 * check-config --strict makes them errors). Returns the number of warnings (0: none) and, when there are
 * any and @ret_warnings is non-NULL, a malloc'd text with one "FILE:LINE: reason" per line (no final
 * newline), in file and line order; or -ENOMEM. *@ret_warnings is only written when the result is > 0.
 */
int config_check_topology(const Config *c, const struct Topology *t, char **ret_warnings);

/* The name of the file @o points into; "(a configuration file)" when it was not kept. */
const char *config_origin_file(const Config *c, ConfigOrigin o);

/* The remote mode in force for policy @id. */
RemoteMode config_policy_remote(const Config *c, unsigned id);
bool config_manages_policy(const Config *c, unsigned id);

const char *wakeup_mode_to_string(WakeupMode m);
WakeupMode wakeup_mode_from_string(const char *s);
const char *event_source_type_to_string(EventSourceType t);   /* "auto", "perf", "bpf" */
EventSourceType event_source_type_from_string(const char *s);
const char *remote_mode_to_string(RemoteMode m);
RemoteMode remote_mode_from_string(const char *s);
