/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * Enum ↔ name tables, the systemd way (src/basic/string-table.h): a `static const char *const NAME_table[]`
 * indexed by the enum, and DEFINE_STRING_TABLE_LOOKUP(NAME, Type) writes NAME_to_string() (NULL out of range)
 * and NAME_from_string() (-EINVAL for an unknown or NULL name).
 */

#include <errno.h>
#include <stddef.h>
#include <sys/types.h>

#include "macro.h"

const char *string_table_lookup_to_string(const char *const *table, size_t len, ssize_t i);
ssize_t string_table_lookup_from_string(const char *const *table, size_t len, const char *name);

#define DEFINE_STRING_TABLE_LOOKUP_TO_STRING(name, type)                                                \
        const char *name##_to_string(type i) {                                                          \
                return string_table_lookup_to_string(name##_table, ELEMENTSOF(name##_table), (ssize_t) i); \
        }

#define DEFINE_STRING_TABLE_LOOKUP_FROM_STRING(name, type)                                              \
        type name##_from_string(const char *s) {                                                        \
                return (type) string_table_lookup_from_string(name##_table, ELEMENTSOF(name##_table), s); \
        }

#define DEFINE_STRING_TABLE_LOOKUP(name, type)                  \
        DEFINE_STRING_TABLE_LOOKUP_TO_STRING(name, type)        \
        DEFINE_STRING_TABLE_LOOKUP_FROM_STRING(name, type)
