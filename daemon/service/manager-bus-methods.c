/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * manager-bus-methods.c: the D-Bus methods of the daemon object (include/schedfreqd-dbus.h, docs/dbus.md):
 * Reload, Pause and Resume (root only: the bus policy and the caller's uid checked here), GetDecisions and
 * GetRules (open to everyone). They call the manager's verbs and read its state; the vtables are manager-bus.c's.
 */

#include <assert.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>
#include <time.h>

#include "config.h"
#include "events.h"
#include "governor.h"
#include "latency.h"
#include "log.h"
#include "manager-bus-internal.h"
#include "manager-bus.h"
#include "manager.h"
#include "schedfreqd-dbus.h"
#include "time-util.h"
#include "utf8.h"

#define UID_FMT "%" PRIu32

static const char *strna(const char *s) {
        return s ? s : "n/a";
}

/*
 * @s fit for a D-Bus string, which must be UTF-8 (sd-bus fails the whole reply otherwise): a task's comm is any
 * bytes, so are a rule's globs and its file's path (utf8.h). *@buf holds a replaced copy, for the caller to free.
 * Out of memory for that copy (a few dozen bytes), the field is "" rather than the reply lost.
 */
static const char *bus_text(const char *s, char **buf) {
        const char *t = utf8_or_replaced(s, buf);

        return t ? t : "";
}

/*
 * The second fence behind the bus policy: control is for root only, judged from the caller's uid as the
 * bus daemon vouches for it (UnixUserID: SO_PEERCRED of the caller's connection, its effective uid when it
 * connected). sd-bus's own check for privileged vtable entries (CAP_SYS_ADMIN read from /proc/PID/status,
 * racy against PID reuse) is bypassed with SD_BUS_VTABLE_UNPRIVILEGED so that there is one rule, this one,
 * with one clear message. Never lenient: no credentials, no access.
 */
static int bus_check_root(sd_bus_message *message, sd_bus_error *error) {
        _cleanup_(sd_bus_creds_unrefp) sd_bus_creds *creds = NULL;
        const char *member = sd_bus_message_get_member(message);
        uid_t uid;
        int r;

        r = sd_bus_query_sender_creds(message, SD_BUS_CREDS_EUID, &creds);
        if (r >= 0) {
                r = sd_bus_creds_get_euid(creds, &uid);
                if (r == -ENODATA) {
                        creds = sd_bus_creds_unref(creds);
                        r = sd_bus_query_sender_creds(message, SD_BUS_CREDS_UID, &creds);
                        if (r >= 0)
                                r = sd_bus_creds_get_uid(creds, &uid);
                }
        }
        if (r < 0) {
                log_warning_errno(r, "Cannot read the credentials of %s calling %s(), denying: %m",
                                  strna(sd_bus_message_get_sender(message)), strna(member));
                return sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED,
                                         "%s() denied: the caller's credentials could not be read.", strna(member));
        }
        if (uid != 0) {
                log_info("Denied %s() to uid " UID_FMT " (%s).", strna(member), uid,
                         strna(sd_bus_message_get_sender(message)));
                return sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED,
                                         "%s() is restricted to root (caller uid " UID_FMT ").", strna(member), uid);
        }
        return 0;
}

int method_reload(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        ManagerBus *b = ASSERT_PTR(userdata);
        _cleanup_free_ char *reason = NULL;
        int r;

        r = bus_check_root(message, error);
        if (r < 0)
                return r;

        log_info("Reload requested over D-Bus by %s.", strna(sd_bus_message_get_sender(message)));
        r = manager_reload(b->manager, &reason);
        if (r < 0)
                return sd_bus_error_setf(error, SCHEDFREQD_ERROR_CONFIG_REJECTED, "%s",
                                         reason ? reason : strerror(-r));
        return sd_bus_reply_method_return(message, NULL);
}

static int method_pause_resume(sd_bus_message *message, ManagerBus *b, bool pause, sd_bus_error *error) {
        _cleanup_free_ char *reason = NULL;
        int r;

        r = bus_check_root(message, error);
        if (r < 0)
                return r;

        log_info("%s requested over D-Bus by %s.", pause ? "Pause" : "Resume", strna(sd_bus_message_get_sender(message)));
        r = pause ? manager_pause(b->manager, &reason) : manager_resume(b->manager, &reason);
        if (r < 0)
                return sd_bus_error_setf(error, SCHEDFREQD_ERROR_FAILED, "%s",
                                         reason ? reason : strerror(-r));
        return sd_bus_reply_method_return(message, NULL);
}

int method_pause(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        return method_pause_resume(message, ASSERT_PTR(userdata), true, error);
}

int method_resume(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        return method_pause_resume(message, ASSERT_PTR(userdata), false, error);
}

/* Closes the reply's array and sends it. */
static int reply_close_and_send(sd_bus_message *reply) {
        int r;

        r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

int method_get_decisions(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        ManagerBus *b = ASSERT_PTR(userdata);
        const DecisionLog *log = &b->manager->decisions;
        uint32_t max;
        size_t first = 0;
        int r;

        r = sd_bus_message_read(message, "u", &max);
        if (r < 0)
                return r;
        if (max > 0 && log->count > max)
                first = log->count - max;

        r = sd_bus_message_new_method_return(message, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'a', SCHEDFREQD_DECISION_TYPE);
        if (r < 0)
                return r;
        for (size_t i = first; i < log->count; i++) {
                _cleanup_free_ char *comm_buf = NULL;
                const DecisionRecord *rec = decision_log_get(log, i);
                const Decision *d = &rec->decision;
                const char *event = d->event == _SCHED_EVENT_TYPE_INVALID ? "tick" : sched_event_type_to_string(d->event);
                const char *kind = decision_kind_to_string(d->kind), *reason = decision_reason_to_string(d->reason);

                r = sd_bus_message_append(reply, SCHEDFREQD_DECISION_TYPE,
                                          d->time_ns / 1000, (uint32_t) d->policy_id, d->old_khz, d->new_khz,
                                          (int32_t) d->cpu, strna(event), strna(kind), (int) d->deferred,
                                          strna(reason), (uint32_t) d->util, rec->written_ns / 1000,
                                          d->deferred ? d->deferred_since_ns / 1000 : UINT64_C(0),
                                          (uint32_t) MAX(d->pid, 0), bus_text(rec->comm, &comm_buf));
                if (r < 0)
                        return r;
        }
        return reply_close_and_send(reply);
}

static void free_text(char *(*text)[5]) {
        for (size_t i = 0; i < ELEMENTSOF(*text); i++)
                free((*text)[i]);
}

static int pid_cmp(const void *a, const void *b) {
        int32_t x = *(const int32_t *) a, y = *(const int32_t *) b;

        return x < y ? -1 : x > y;
}

/* A rule's Actions: every row of rule_actions[] by its field, a util as 'q', a yes/no as 'b'. */
static int append_rule_actions(sd_bus_message *reply, const Rule *rule) {
        int r;

        r = sd_bus_message_open_container(reply, 'a', "{sv}");
        if (r < 0)
                return r;
        for (size_t i = 0; i < ELEMENTSOF(rule_actions); i++) {
                const RuleAction *a = &rule_actions[i];

                r = a->type == RULE_VALUE_UTIL ?
                        sd_bus_message_append(reply, "{sv}", a->field, "q", rule->action[i]) :
                        sd_bus_message_append(reply, "{sv}", a->field, "b", (int) (rule->action[i] != 0));
                if (r < 0)
                        return r;
        }
        return sd_bus_message_close_container(reply);
}

/* One GetRules() record: rule @i of @rules as the engine holds it, its counters and its tasks now. */
static int append_rule(sd_bus_message *reply, Manager *m, const RuleSet *rules, unsigned i) {
        _cleanup_(free_text) char *text[5] = {};
        const Rule *rule = &rules->rule[i];
        int32_t pids[SCHEDFREQD_RULE_TASKS_MAX];
        char origin[PATH_MAX + 16] = "";
        size_t n;
        int r;

        if (rule->origin.line > 0)
                (void) snprintf(origin, sizeof(origin), "%s:%" PRIu32, config_origin_file(&m->config, rule->origin),
                                rule->origin.line);
        r = sd_bus_message_open_container(reply, 'r', SCHEDFREQD_RULE_CONTENTS);
        if (r < 0)
                return r;
        r = sd_bus_message_append(reply, "sssss", bus_text(rule->name, &text[0]), bus_text(rule->comm, &text[1]),
                                  bus_text(rule->exe, &text[2]), bus_text(rule->cgroup, &text[3]),
                                  bus_text(origin, &text[4]));
        if (r < 0)
                return r;
        r = append_rule_actions(reply, rule);
        if (r < 0)
                return r;
        r = sd_bus_message_append(reply, "t", engine_rule_decisions(m->gov.engine, i));
        if (r < 0)
                return r;

        /* engine_rule_tasks() returns how many tasks have the rule, of which it filled at most the first max. */
        n = MIN(engine_rule_tasks(m->gov.engine, i, pids, ELEMENTSOF(pids)), ELEMENTSOF(pids));
        qsort(pids, n, sizeof(pids[0]), pid_cmp);
        r = sd_bus_message_open_container(reply, 'a', "(us)");
        if (r < 0)
                return r;
        for (size_t k = 0; k < n; k++) {
                _cleanup_free_ char *comm_buf = NULL;
                TaskName t = {};

                /*
                 * A task the proc connector saw exit is not a running process, though the model may hold it a
                 * while: a wake-up read from one CPU's ring after its exit was read from another's re-creates it
                 * until its queue is next found empty.
                 */
                if (!m->task_names || task_names_lookup(m->task_names, pids[k], &t) < 0) {
                        if (m->proc)
                                continue;
                        t.comm[0] = '\0';
                }
                r = sd_bus_message_append(reply, "(us)", (uint32_t) pids[k], bus_text(t.comm, &comm_buf));
                if (r < 0)
                        return r;
        }
        r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        return sd_bus_message_close_container(reply);
}

int method_get_rules(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        ManagerBus *b = ASSERT_PTR(userdata);
        const RuleSet *rules = engine_rules(b->manager->gov.engine);
        int r;

        r = sd_bus_message_new_method_return(message, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'a', SCHEDFREQD_RULE_TYPE);
        if (r < 0)
                return r;
        for (unsigned i = 0; rules && i < rules->n; i++) {
                r = append_rule(reply, b->manager, rules, i);
                if (r < 0)
                        return r;
        }
        return reply_close_and_send(reply);
}
