/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* `rules`: the per-process rules in force (GetRules), as text or --json; rules_read() serves `metrics` too. */

#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "config.h"
#include "schedfreqctl.h"

typedef struct RuleTask {
        uint32_t pid;
        char *comm;
} RuleTask;

/* One GetRules() record (include/schedfreqd-dbus.h). */
typedef struct RuleRow {
        char *name, *comm, *exe, *cgroup, *origin;
        uint16_t action[_RULE_ACTION_MAX]; /* by RuleActionId; its none when the daemon did not say */
        uint64_t decisions;
        RuleTask *tasks;
        size_t n_tasks;
} RuleRow;

/* GetRules() into *@ret_rows. Returns 0, or a negative exit code (already reported); @address as connect_bus()'s. */
int rules_read(sd_bus *bus, const char *address, RuleRow **ret_rows, size_t *ret_n);
void rule_rows_free(RuleRow *rows, size_t n);

int verb_rules(sd_bus *bus, const CtlOptions *o, char **args);
