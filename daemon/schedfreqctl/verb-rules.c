/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * verb-rules.c: `rules` lists each per-process rule: where it is defined, what it matches, what it does, how
 * many decisions it changed and the running tasks it applies to; --json the same as one object.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "call.h"
#include "format.h"
#include "macro.h"
#include "schedfreqd-dbus.h"
#include "verb-rules.h"

/* analyze: false positive: gcc 12 takes reallocarray() in read_rule() for a free of row->tasks even where it
 * fails, returns NULL and leaves the array to row->tasks, which this then reads */
ANALYZER_FALSE_POSITIVE_BEGIN("-Wanalyzer-use-after-free")
static void rule_row_done(RuleRow *row) {
        free(row->name);
        free(row->comm);
        free(row->exe);
        free(row->cgroup);
        free(row->origin);
        for (size_t k = 0; k < row->n_tasks; k++)
                free(row->tasks[k].comm);
        free(row->tasks);
        *row = (RuleRow) {};
}
ANALYZER_FALSE_POSITIVE_END

void rule_rows_free(RuleRow *rows, size_t n) {
        for (size_t i = 0; i < n; i++)
                rule_row_done(&rows[i]);
        free(rows);
}

/* One entry of a record's Actions: a known field into its slot, an unknown one (a newer daemon's) skipped. */
static int read_rule_action(sd_bus_message *m, RuleRow *row) {
        const RuleAction *a;
        const char *field;
        int r, yes;

        r = sd_bus_message_enter_container(m, 'e', "sv");
        if (r <= 0)
                return r;
        r = sd_bus_message_read(m, "s", &field);
        if (r < 0)
                return r;
        a = rule_action_find(field, true);
        if (!a)
                r = sd_bus_message_skip(m, "v");
        else if (a->type == RULE_VALUE_UTIL)
                r = sd_bus_message_read(m, "v", "q", &row->action[a - rule_actions]);
        else {
                r = sd_bus_message_read(m, "v", "b", &yes);
                row->action[a - rule_actions] = yes != 0;
        }
        if (r < 0)
                return r;
        r = sd_bus_message_exit_container(m);
        return r < 0 ? r : 1;
}

static int read_rule_actions(sd_bus_message *m, RuleRow *row) {
        int r;

        for (size_t i = 0; i < ELEMENTSOF(rule_actions); i++)
                row->action[i] = rule_actions[i].none;
        r = sd_bus_message_enter_container(m, 'a', "{sv}");
        if (r < 0)
                return r;
        while ((r = read_rule_action(m, row)) > 0)
                ;
        if (r < 0)
                return r;
        return sd_bus_message_exit_container(m);
}

/* One GetRules() record into @row (which owns its strings even on failure). */
static int read_rule(sd_bus_message *m, RuleRow *row) {
        const char *name, *comm, *exe, *cgroup, *origin;
        int r;

        r = sd_bus_message_enter_container(m, 'r', SCHEDFREQD_RULE_CONTENTS);
        if (r <= 0)
                return r;
        r = sd_bus_message_read(m, "sssss", &name, &comm, &exe, &cgroup, &origin);
        if (r < 0)
                return r;
        r = read_rule_actions(m, row);
        if (r < 0)
                return r;
        r = sd_bus_message_read(m, "t", &row->decisions);
        if (r < 0)
                return r;
        row->name = strdup(name);
        row->comm = strdup(comm);
        row->exe = strdup(exe);
        row->cgroup = strdup(cgroup);
        row->origin = strdup(origin);
        if (!row->name || !row->comm || !row->exe || !row->cgroup || !row->origin)
                return -ENOMEM;

        r = sd_bus_message_enter_container(m, 'a', "(us)");
        if (r < 0)
                return r;
        for (;;) {
                uint32_t pid;
                const char *task_comm;

                r = sd_bus_message_read(m, "(us)", &pid, &task_comm);
                if (r < 0)
                        return r;
                if (r == 0)
                        break;
                RuleTask *n = reallocarray(row->tasks, row->n_tasks + 1, sizeof(RuleTask));
                if (!n)
                        return -ENOMEM;
                row->tasks = n;
                row->tasks[row->n_tasks] = (RuleTask) { .pid = pid, .comm = strdup(task_comm) };
                if (!row->tasks[row->n_tasks++].comm)
                        return -ENOMEM;
        }
        r = sd_bus_message_exit_container(m); /* a(us) */
        if (r < 0)
                return r;
        r = sd_bus_message_exit_container(m); /* r */
        return r < 0 ? r : 1;
}

int rules_read(sd_bus *bus, const char *address, RuleRow **ret_rows, size_t *ret_n) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        RuleRow *rows = NULL;
        size_t n_rows = 0;
        int r;

        r = sd_bus_call_method(bus, SCHEDFREQD_BUS_NAME, SCHEDFREQD_BUS_PATH, SCHEDFREQD_BUS_INTERFACE, "GetRules",
                               &error, &reply, NULL);
        if (r < 0)
                return call_failed(address, "read the rules", &error, r);

        r = sd_bus_message_enter_container(reply, 'a', SCHEDFREQD_RULE_TYPE);
        while (r >= 0) {
                _cleanup_(rule_row_done) RuleRow row = {}; /* owns what it read until rows does */

                r = read_rule(reply, &row);
                if (r <= 0)
                        break;
                RuleRow *n = reallocarray(rows, n_rows + 1, sizeof(RuleRow));
                if (!n) {
                        r = -ENOMEM;
                        break;
                }
                rows = n;
                rows[n_rows++] = row;
                row = (RuleRow) {};
        }
        if (r < 0) {
                rule_rows_free(rows, n_rows);
                fprintf(stderr, "Failed to parse the GetRules reply: %s\n", strerror(-r));
                return -EBADMSG;
        }
        *ret_rows = rows;
        *ret_n = n_rows;
        return 0;
}

static void print_rule(const RuleRow *row) {
        const char *sep = "";

        printf("%s (%s%s)\n", row->name, row->origin[0] ? "defined at " : "where it is defined is unknown",
               row->origin);

        printf("  Match:");
        if (row->comm[0])
                printf("%s comm = %s", sep, row->comm), sep = ",";
        if (row->exe[0])
                printf("%s exe = %s", sep, row->exe), sep = ",";
        if (row->cgroup[0])
                printf("%s cgroup = %s", sep, row->cgroup), sep = ",";
        putchar('\n');

        sep = "";
        printf("  Actions:");
        for (size_t i = 0; i < ELEMENTSOF(rule_actions); i++) {
                const RuleAction *a = &rule_actions[i];

                if (row->action[i] == a->none)
                        continue;
                if (a->type == RULE_VALUE_UTIL)
                        printf("%s %s = %" PRIu16, sep, a->key, row->action[i]);
                else
                        printf("%s %s = %s", sep, a->key, row->action[i] ? "yes" : "no");
                if (a->note)
                        printf(" (%s)", a->note);
                sep = ",";
        }
        if (!sep[0])
                printf(" none");
        putchar('\n');

        printf("  Changed %" PRIu64 " decision%s\n", row->decisions, row->decisions == 1 ? "" : "s");

        if (row->n_tasks == 0) {
                printf("  Tasks: no running task\n");
                return;
        }
        for (size_t k = 0; k < row->n_tasks; k++)
                printf("  %s %7" PRIu32 " %s\n", k == 0 ? "Tasks:" : "      ", row->tasks[k].pid,
                       row->tasks[k].comm[0] ? row->tasks[k].comm : "(name unknown)");
        if (row->n_tasks >= SCHEDFREQD_RULE_TASKS_MAX)
                printf("  (the first %u tasks; there may be more)\n", SCHEDFREQD_RULE_TASKS_MAX);
}

static void json_rule(JsonWriter *w, const RuleRow *row) {
        json_object_begin(w);
        json_member_string(w, "Name", row->name);
        json_member_string(w, "Comm", row->comm);
        json_member_string(w, "Exe", row->exe);
        json_member_string(w, "Cgroup", row->cgroup);
        json_member_string(w, "Origin", row->origin);
        for (size_t i = 0; i < ELEMENTSOF(rule_actions); i++) {
                if (rule_actions[i].type == RULE_VALUE_UTIL)
                        json_member_u64(w, rule_actions[i].field, row->action[i]);
                else
                        json_member_bool(w, rule_actions[i].field, row->action[i] != 0);
        }
        json_member_u64(w, "Decisions", row->decisions);
        json_key(w, "Tasks");
        json_array_begin(w);
        for (size_t k = 0; k < row->n_tasks; k++) {
                json_object_begin(w);
                json_member_u64(w, "Pid", row->tasks[k].pid);
                json_member_string(w, "Comm", row->tasks[k].comm);
                json_object_end(w);
        }
        json_array_end(w);
        json_object_end(w);
}

static int print_rules_json(const RuleRow *rows, size_t n) {
        JsonWriter w;

        json_writer_init(&w, stdout, 0);
        json_object_begin(&w);
        json_key(&w, "rules");
        json_array_begin(&w);
        for (size_t i = 0; i < n; i++)
                json_rule(&w, &rows[i]);
        json_array_end(&w);
        json_object_end(&w);
        return json_writer_end(&w);
}

int verb_rules(sd_bus *bus, const CtlOptions *o, char **args) {
        RuleRow *rows = NULL;
        size_t n_rows = 0;
        int r;

        r = rules_read(bus, o->address, &rows, &n_rows);
        if (r < 0)
                return r;

        if (o->json)
                r = print_rules_json(rows, n_rows);
        else if (n_rows == 0)
                printf("No rules configured (see schedfreqd.conf(5), RULES).\n");
        for (size_t i = 0; !o->json && i < n_rows; i++) {
                if (i)
                        putchar('\n');
                print_rule(&rows[i]);
        }
        rule_rows_free(rows, n_rows);
        return stdout_done(r);
}
