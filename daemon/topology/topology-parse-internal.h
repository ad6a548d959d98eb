/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The topology reader's insides, shared by its files only: topology-parse.c (lines, sections, the checks of a
 * whole [policyN] and of [system]) and topology-keys.c (the [policyN] keys and their value parsers). The API is
 * include/topology.h.
 */

#include <sched.h>
#include <stdint.h>

#include "macro.h"
#include "topology.h"

typedef enum PolicyKey {
        KEY_CPUS,
        KEY_DRIVER,
        KEY_CPUINFO_MIN,
        KEY_CPUINFO_MAX,
        KEY_SCALING_MIN,
        KEY_SCALING_MAX,
        KEY_FREQUENCIES,
        KEY_INEFFICIENT,
        KEY_CAPACITY,
        KEY_LATENCY,
        KEY_GOVERNOR,
        KEY_GOVERNORS,
        KEY_CUR,
        KEY_RATE_LIMIT,
        _KEY_MAX,
} PolicyKey;

typedef struct Parser Parser;
typedef int (*KeyParser)(Parser *p, PolicyDesc *d, const char *value);

typedef struct PolicyParse {
        PolicyDesc desc;
        unsigned section_line;
        unsigned key_line[_KEY_MAX]; /* 0: key not given */
} PolicyParse;

typedef enum Section {
        SECTION_NONE,
        SECTION_SYSTEM,
        SECTION_POLICY,
} Section;

struct Parser {
        const char *name;
        unsigned line;
        char *error;               /* first error, "NAME:LINE: reason" */
        Topology *topology;
        Section section;

        PolicyParse policy;        /* valid while section == SECTION_POLICY */
        cpu_set_t used;            /* CPUs of the policies finished so far */

        unsigned system_line, online_line, possible_line, autogroup_line, delayed_dequeue_line;
        cpu_set_t online, possible;
};

/* A [policyN] key: its name and the parser of its value into the PolicyDesc (topology-keys.c). */
typedef struct PolicyKeyInfo {
        const char *name;
        KeyParser parse;
} PolicyKeyInfo;

extern const PolicyKeyInfo topology_policy_keys[_KEY_MAX];

/* Records "NAME:LINE: reason" as the parser's error unless one is recorded already (the first is kept: later
 * ones are usually its consequences). Returns -EINVAL, or -ENOMEM. */
_printf_(3, 4)
int parser_error(Parser *p, unsigned line, const char *format, ...);
/* Decimal digits only (no sign, no base prefix, no trailing text), at most @max. -EINVAL or -ERANGE. */
int topology_parse_uint(const char *s, uint64_t max, uint64_t *ret);
