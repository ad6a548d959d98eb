/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * What the take-over saved of each policy, and the state file's text that holds it (daemon/actuator/actuator-state.c):
 * an INI `schedfreqd restore` reads after a crash. Pure: FILE in, FILE out.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "topology.h"

typedef struct ActuatorSaved {
        unsigned id;                              /* N of [policyN] */
        char *dir;                                /* where the attributes are written */
        char governor[TOPOLOGY_GOVERNOR_MAX];
        uint32_t scaling_min_khz, scaling_max_khz;
        uint32_t setspeed_khz;                    /* 0 = unknown */
        bool has_rate_limit;                      /* governor schedutil and its rate_limit_us was readable */
        uint32_t rate_limit_us;                   /* schedutil's rate_limit_us before we switched */
} ActuatorSaved;

void actuator_saved_free_many(ActuatorSaved *s, size_t n);

/* Writes the state file text for @s[0..n). */
int actuator_state_write(FILE *f, const ActuatorSaved *s, size_t n);
/* Parses state file text; @name for "NAME:LINE: reason" messages (-EINVAL). A file without a [policyN]
 * section, with a NUL byte or with an unterminated last line is malformed (truncated or not ours). */
int actuator_state_parse(FILE *f, const char *name, ActuatorSaved **ret, size_t *ret_n, char **ret_error);
