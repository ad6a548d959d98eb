/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The configuration's keys (config-load.c's inih handler walks this table): one row per key, with its section, its
 * value parser and where in Config (or PolicyConfig, for the [policyN] sections) the value goes. Parsers give
 * 0, or -EINVAL/-ERANGE with a reason (a static string) for the "FILE:LINE: reason" error.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef int (*ConfigParseFn)(const char *value, void *field, const char **ret_reason);

typedef struct ConfigItem {
        const char *section;      /* "policy" stands for every [policyN] */
        const char *key;
        ConfigParseFn parse;
        size_t offset;            /* into Config, or into PolicyConfig for "policy" */
} ConfigItem;

#define POLICY_SECTION "policy"

/* "policyN" with N in canonical decimal → N; -ENOENT when not a policy section, -ERANGE when N is bad. */
/* A plain decimal number: digits only (no sign, no spaces, no hex), within [min, max]. -EINVAL or -ERANGE. The
 * numbers of [rule:NAME] sections too (config-rules.c). */
int parse_u64_range(const char *value, uint64_t min, uint64_t max, uint64_t *ret);

int config_policy_section_id(const char *section);
/* A section some key belongs to ([policyN] sections: see config_policy_section_id()). */
bool config_section_known(const char *section);
/* The row of @key in @section (POLICY_SECTION for every [policyN]), or NULL. */
const ConfigItem *config_item_find(const char *section, const char *key);

/*
 * For the unknown key @key of @section (as config_item_find() takes it), what the "unknown key" error suggests:
 * the key of @section that @key is a typo of (string_is_typo_of(), the closest), else a section that has @key
 * itself ("[governor]" for tick_ms under [events]). Sets one of *@ret_key and *@ret_section, or neither (NULL).
 */
void config_key_suggest(const char *section, const char *key, const char **ret_key, const char **ret_section);
/* The known section (not a [policyN] or [rule:NAME]) that @section is a typo of, or NULL. */
const char *config_section_suggest(const char *section);
