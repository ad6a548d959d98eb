/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * verb-explain.c: `explain` joins a snapshot with the recent decisions (GetDecisions) and tells, per policy,
 * who chooses its frequency, what it is made of now (limits, demand per CPU), the last change and its cause,
 * and the --decisions last changes.
 */

#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "call.h"
#include "format.h"
#include "json-writer.h"
#include "macro.h"
#include "schedfreqd-dbus.h"
#include "snapshot.h"
#include "verb-explain.h"

/* One GetDecisions record (include/schedfreqd-dbus.h); its strings point into the reply. */
typedef struct DecisionRow {
        uint64_t time_usec, written_usec, deferred_since_usec;
        uint32_t policy, old_khz, new_khz, util, pid;
        int32_t cpu;
        const char *event, *kind, *reason, *comm;
        int deferred;
} DecisionRow;

/* "`ffmpeg` (pid 812)", "pid 812" without a name, "" without a task. */
static const char *task_text(const DecisionRow *d, char *buf, size_t size) {
        if (d->pid == 0)
                snprintf(buf, size, "%s", "");
        else if (d->comm[0] != '\0')
                snprintf(buf, size, "`%s` (pid %" PRIu32 ")", d->comm, d->pid);
        else
                snprintf(buf, size, "pid %" PRIu32, d->pid);
        return buf;
}

static const char *reason_text(const char *reason) {
        if (streq(reason, "demand"))
                return "the demand of its CPUs (utilisation with schedutil's 1.25 headroom)";
        if (streq(reason, "rt"))
                return "a runnable real-time (RT/deadline) task, which asks for the maximum";
        if (streq(reason, "iowait"))
                return "the iowait boost (a task woke up after waiting for I/O)";
        if (streq(reason, "limits"))
                return "a change of the scaling limits (scaling_min_freq/scaling_max_freq)";
        if (streq(reason, "rule"))
                return "a per-process rule (its min_util/max_util clamp or rt_boost; see 'schedfreqctl rules')";
        return reason;
}

/* What the task did, for "`ffmpeg` (pid 812) woke on CPU 1". */
static const char *event_verb(const char *event) {
        if (streq(event, "sched_wakeup"))
                return "woke";
        if (streq(event, "sched_wakeup_new"))
                return "started";
        if (streq(event, "sched_switch"))
                return "was switched in or out";
        if (streq(event, "sched_migrate_task"))
                return "moved";
        if (streq(event, "sched_process_exit"))
                return "exited";
        if (streq(event, "sched_stat_runtime"))
                return "ran";
        return "ran (tick)";
}

/*
 * Where the remote event of @id's deferred change was: a CPU outside the policy, which the record does not name
 * (GetDecisions carries only the CPU that applied it). With one such CPU that is "on CPU 0", with more "on one
 * of CPUs 0,2-3"; an empty string without the snapshot's CPUs.
 */
static const char *remote_cpus_text(const Snapshot *s, uint32_t id, char *buf, size_t size) {
        _cleanup_free_ uint64_t *others = calloc(MAX(s->n_cpus, (size_t) 1), sizeof(uint64_t));
        Prop list = { .array = others };
        char cpus[64];

        buf[0] = '\0';
        if (!others)
                return buf;
        for (size_t i = 0; i < s->n_cpus; i++)
                if (prop_u(&s->cpus[i], "Policy") != id)
                        others[list.n_array++] = prop_u(&s->cpus[i], "Id");
        if (list.n_array > 0)
                snprintf(buf, size, " on %s %s", list.n_array == 1 ? "CPU" : "one of CPUs",
                         format_cpus(cpus, sizeof(cpus), &list));
        return buf;
}

/*
 * What a deferred decision was: "recorded by a remote event on CPU 0, applied 1.3 ms later". An event on
 * another CPU changed the policy's demand but could not change its frequency (the policy does not permit remote
 * changes), so the change waited for an event on one of the policy's own CPUs: the one this record names.
 */
static const char *deferred_text(const Snapshot *s, const DecisionRow *d, char *buf, size_t size) {
        uint64_t wait_usec = d->time_usec > d->deferred_since_usec ? d->time_usec - d->deferred_since_usec : 0;
        char where[96], wait[32];

        snprintf(buf, size, "recorded by a remote event%s, applied %s later",
                 remote_cpus_text(s, d->policy, where, sizeof(where)), format_span(wait, sizeof(wait), wait_usec));
        return buf;
}

static void print_decision_line(const Snapshot *s, const DecisionRow *d) {
        char ago[64], trigger[128], task[64], deferred[192];

        task_text(d, task, sizeof(task));
        if (streq(d->event, "tick"))
                snprintf(trigger, sizeof(trigger), "tick%s%s", task[0] ? ", running " : "", task);
        else
                snprintf(trigger, sizeof(trigger), "%s on CPU %" PRIi32 "%s%s", d->event, d->cpu, task[0] ? " by " : "",
                         task);
        /* A deferred change is applied by a local event, but "local" alone would hide that it came from afar. */
        printf("    %-12s %5" PRIu32 " -> %5" PRIu32 " MHz  %-7s util %4" PRIu32 "  %s, %s%s\n",
               format_ago(ago, sizeof(ago), d->written_usec), d->old_khz / 1000, d->new_khz / 1000, d->reason, d->util,
               trigger, d->deferred ? "deferred: " : d->kind,
               d->deferred ? deferred_text(s, d, deferred, sizeof(deferred)) : "");
}

/* "Runs at", "Limits" and "Demand now" of a governed policy. */
static void explain_now(const Snapshot *s, const Object *p, uint32_t id) {
        uint64_t min = prop_u(p, "MinKHz"), max = prop_u(p, "MaxKHz");

        printf("  Runs at %" PRIu64 " MHz, chosen by schedfreqd (taken over from '%s').\n", prop_u(p, "CurrentKHz") / 1000,
               prop_s(p, "GovernorTakenOverFrom"));
        printf("  Limits: %" PRIu64 "-%" PRIu64 " MHz (scaling_min_freq/scaling_max_freq); hardware %" PRIu64 "-%" PRIu64 " MHz.\n",
               min / 1000, max / 1000, prop_u(p, "CpuinfoMinKHz") / 1000, prop_u(p, "CpuinfoMaxKHz") / 1000);
        printf("  Demand now: %" PRIu64 "/1024", prop_u(p, "Demand"));
        for (size_t i = 0; i < s->n_cpus; i++) {
                const Object *c = &s->cpus[i];

                if (prop_u(c, "Policy") != id)
                        continue;
                printf("; CPU %" PRIu64 ": util %" PRIu64 " (util_avg %" PRIu64 ", util_est %" PRIu64 ")%s%s", prop_u(c, "Id"),
                       prop_u(c, "Util"), prop_u(c, "UtilAvg"), prop_u(c, "UtilEstSum"),
                       prop_u(c, "RunnableRT") > 0 ? ", RT task runnable" : "", prop_b(c, "Busy") ? ", busy" : ", idle");
        }
        printf(".\n");
}

/* The event that applied a deferred change, for "at CPU 1's next event (...)". */
static const char *applying_event_text(const DecisionRow *d, char *buf, size_t size) {
        char task[64];

        task_text(d, task, sizeof(task));
        if (streq(d->event, "tick") && streq(d->reason, "limits"))
                snprintf(buf, size, "a change of the scaling limits");
        else if (streq(d->event, "tick"))
                snprintf(buf, size, "the periodic tick%s%s", task[0] ? ", running " : "", task);
        else if (task[0])
                snprintf(buf, size, "%s %s: %s", task, event_verb(d->event), d->event);
        else
                snprintf(buf, size, "%s", d->event);
        return buf;
}

/* How the last decision @d was triggered: "when ... on CPU 1 (...)" after the reason, then the demand. */
static void explain_trigger(const Snapshot *s, const DecisionRow *d) {
        const char *kind_why = streq(d->kind, "local") ? "an event on one of the policy's own CPUs"
                                                       : "an event on another CPU, permitted by the policy";
        char task[64], event[128], deferred[192];

        if (d->deferred) {
                /* One sentence for both events: "local" next to "deferred" read as a contradiction. */
                printf("; demand was %" PRIu32 "/1024.\n", d->util);
                printf("  The change was deferred: %s at CPU %" PRIi32 "'s next event (%s), as policy%" PRIu32
                       " does not permit changes from other CPUs.\n",
                       deferred_text(s, d, deferred, sizeof(deferred)), d->cpu,
                       applying_event_text(d, event, sizeof(event)), d->policy);
                return;
        }
        task_text(d, task, sizeof(task));
        if (streq(d->event, "tick"))
                printf(", re-evaluated on the periodic tick (utilisation decaying or a CPU busy%s%s)",
                       task[0] ? "; running: " : "", task);
        else if (task[0])
                printf(", when %s %s on CPU %" PRIi32 " (%s, %s: %s)", task, event_verb(d->event), d->cpu, d->event,
                       d->kind, kind_why);
        else
                printf(", triggered by %s on CPU %" PRIi32 " (%s: %s)", d->event, d->cpu, d->kind, kind_why);
        printf("; demand was %" PRIu32 "/1024.\n", d->util);
}

/* "Why": the policy's last decision @last (NULL: none in the log), and where the frequency stands in the limits. */
static void explain_why(const Snapshot *s, const Object *p, const DecisionRow *last) {
        uint64_t cur = prop_u(p, "CurrentKHz"), min = prop_u(p, "MinKHz"), max = prop_u(p, "MaxKHz");
        char ago[64];

        if (last) {
                printf("  Why: %s, schedfreqd moved it from %" PRIu32 " to %" PRIu32 " MHz because of %s",
                       format_ago(ago, sizeof(ago), last->written_usec), last->old_khz / 1000, last->new_khz / 1000,
                       reason_text(last->reason));
                explain_trigger(s, last);
                if (last->new_khz != cur)
                        printf("  (The current value differs from that last change: the limits or a resume reset it since.)\n");
        } else if (prop_u(p, "LastChangeUSec") > 0)
                printf("  Why: the last change (%s, reason: %s) is older than the decision log reaches.\n",
                       format_ago(ago, sizeof(ago), prop_u(p, "LastChangeUSec")), prop_s(p, "LastReason"));
        else
                printf("  Why: no change since schedfreqd took over: this is the frequency it found.\n");

        if (cur >= max && max > 0)
                printf("  It is at the upper limit: scaling_max_freq (%" PRIu64 " MHz) caps it.\n", max / 1000);
        else if (cur <= min)
                printf("  It is at the lower limit: scaling_min_freq (%" PRIu64 " MHz) is the floor.\n", min / 1000);
}

static void explain_policy(const Snapshot *s, const Object *p, const DecisionRow *rows, size_t n_rows,
                           unsigned n_decisions) {
        uint32_t id = (uint32_t) prop_u(p, "Id");
        const DecisionRow *last = NULL;
        size_t n_mine = 0, shown = 0;
        char cpus[64];

        for (size_t i = 0; i < n_rows; i++)
                if (rows[i].policy == id) {
                        last = &rows[i];
                        n_mine++;
                }

        printf("policy%" PRIu32 " (CPU %s, %s):\n", id, format_cpus(cpus, sizeof(cpus), prop_find(p, "CPUs")),
               prop_s(p, "Driver"));
        if (!prop_b(p, "Managed")) {
                printf("  Not governed by schedfreqd ([governor] policies= in the configuration leaves it out): its "
                       "own governor chooses the frequency.\n");
                return;
        }
        if (prop_b(&s->daemon, "Paused")) {
                printf("  schedfreqd is paused: the policy is back under its original governor '%s', which chooses the "
                       "frequency now ('schedfreqctl resume' takes it over again).\n",
                       prop_s(p, "GovernorTakenOverFrom"));
                return;
        }

        explain_now(s, p, id);
        explain_why(s, p, last);

        if (n_mine > 1 && n_decisions > 1) {
                printf("  Recent decisions (newest last):\n");
                for (size_t i = 0; i < n_rows; i++) {
                        if (rows[i].policy != id)
                                continue;
                        if (shown++ < n_mine - MIN(n_mine, (size_t) n_decisions))
                                continue;
                        print_decision_line(s, &rows[i]);
                }
        }
}

/* A GetDecisions record as JSON, its fields by their names in docs/dbus.md. */
static void json_decision(JsonWriter *w, const DecisionRow *d) {
        json_object_begin(w);
        json_member_u64(w, "TimeUSec", d->time_usec);
        json_member_u64(w, "Policy", d->policy);
        json_member_u64(w, "OldKHz", d->old_khz);
        json_member_u64(w, "NewKHz", d->new_khz);
        json_member_i64(w, "CPU", d->cpu);
        json_member_string(w, "Event", d->event);
        json_member_string(w, "Kind", d->kind);
        json_member_bool(w, "Deferred", d->deferred);
        json_member_string(w, "Reason", d->reason);
        json_member_u64(w, "Demand", d->util);
        json_member_u64(w, "WrittenUSec", d->written_usec);
        json_member_u64(w, "DeferredSinceUSec", d->deferred_since_usec);
        json_member_u64(w, "Pid", d->pid);
        json_member_string(w, "Comm", d->comm);
        json_object_end(w);
}

/*
 * explain --json: what the text is made of, for a script to phrase its own way. Per policy: "policy" (its
 * D-Bus object), "cpus" (its CPUs' objects) and "decisions" (its last --decisions records, oldest first).
 */
static void json_policy_explained(JsonWriter *w, const Snapshot *s, const Object *p, const DecisionRow *rows,
                                  size_t n_rows, unsigned n_decisions) {
        uint32_t id = (uint32_t) prop_u(p, "Id");
        size_t n_mine = 0, seen = 0;

        for (size_t i = 0; i < n_rows; i++)
                n_mine += rows[i].policy == id;
        json_object_begin(w);
        json_key(w, "policy");
        json_write_object(w, p);
        json_key(w, "cpus");
        json_array_begin(w);
        for (size_t i = 0; i < s->n_cpus; i++)
                if (prop_u(&s->cpus[i], "Policy") == id)
                        json_write_object(w, &s->cpus[i]);
        json_array_end(w);
        json_key(w, "decisions");
        json_array_begin(w);
        for (size_t i = 0; i < n_rows; i++)
                if (rows[i].policy == id && seen++ >= n_mine - MIN(n_mine, (size_t) n_decisions))
                        json_decision(w, &rows[i]);
        json_array_end(w);
        json_object_end(w);
}

static int explain_policies_json(const Snapshot *s, const unsigned *want, const DecisionRow *rows, size_t n_rows,
                                 const CtlOptions *o, bool *ret_found) {
        bool found = false;
        JsonWriter w;

        json_writer_init(&w, stdout, 0);
        json_object_begin(&w);
        json_key(&w, "daemon");
        json_write_object(&w, &s->daemon);
        json_key(&w, "policies");
        json_array_begin(&w);
        for (size_t i = 0; i < s->n_policies; i++) {
                if (want && prop_u(&s->policies[i], "Id") != *want)
                        continue;
                json_policy_explained(&w, s, &s->policies[i], rows, n_rows, o->decisions);
                found = true;
        }
        json_array_end(&w);
        json_object_end(&w);
        *ret_found = found; /* none: the object is still whole (an empty list), the error on stderr */
        return json_writer_end(&w);
}

static int parse_policy_arg(const char *s, unsigned *ret) {
        char *end;
        unsigned long v;

        if (strncmp(s, "policy", 6) == 0)
                s += 6;
        if (*s < '0' || *s > '9')
                return -EINVAL;
        errno = 0;
        v = strtoul(s, &end, 10);
        if (errno != 0 || *end != '\0' || v >= CPU_SETSIZE)
                return -EINVAL;
        *ret = (unsigned) v;
        return 0;
}

/*
 * GetDecisions(0) into @rows (which point into @reply); both are the caller's, to free also after a failure.
 * Returns 0, or a negative errno (already reported, schedfreqctl.h).
 */
static int decisions_read(sd_bus *bus, const char *address, sd_bus_message **reply, DecisionRow **rows,
                          size_t *n_rows) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        r = sd_bus_call_method(bus, SCHEDFREQD_BUS_NAME, SCHEDFREQD_BUS_PATH, SCHEDFREQD_BUS_INTERFACE,
                               "GetDecisions", &error, reply, "u", (uint32_t) 0);
        if (r < 0)
                return call_failed(address, "read the recent decisions", &error, r);
        r = sd_bus_message_enter_container(*reply, 'a', SCHEDFREQD_DECISION_TYPE);
        while (r >= 0) {
                DecisionRow d;

                r = sd_bus_message_read(*reply, SCHEDFREQD_DECISION_TYPE, &d.time_usec, &d.policy, &d.old_khz,
                                        &d.new_khz, &d.cpu, &d.event, &d.kind, &d.deferred, &d.reason, &d.util,
                                        &d.written_usec, &d.deferred_since_usec, &d.pid, &d.comm);
                if (r <= 0)
                        break;
                DecisionRow *n = reallocarray(*rows, *n_rows + 1, sizeof(DecisionRow));
                if (!n) {
                        r = -ENOMEM;
                        break;
                }
                *rows = n;
                (*rows)[(*n_rows)++] = d;
        }
        if (r < 0) {
                fprintf(stderr, "Failed to parse the GetDecisions reply: %s\n", strerror(-r));
                return -EBADMSG;
        }
        return 0;
}

/*
 * Every policy (or only *@want) explained on stdout: the sentences run long, so unless --wide they are written to a
 * buffer first and broken at 80 columns (a terminal's width; the lines of status and watch fit it too). glibc's
 * stdout is a variable that may be set (its manual, "Standard Streams"), so explain_policy() keeps its printf()s.
 */
static int explain_policies(const Snapshot *s, const unsigned *want, const DecisionRow *rows, size_t n_rows,
                            const CtlOptions *o, bool *ret_found) {
        _cleanup_free_ char *text = NULL;
        FILE *saved = stdout, *mem = NULL;
        size_t size = 0;
        bool found = false;

        if (!o->wide) {
                mem = open_memstream(&text, &size);
                if (!mem)
                        return -errno;
                stdout = mem;
        }
        for (size_t i = 0; i < s->n_policies; i++) {
                if (want && prop_u(&s->policies[i], "Id") != *want)
                        continue;
                if (found)
                        putchar('\n');
                explain_policy(s, &s->policies[i], rows, n_rows, o->decisions);
                found = true;
        }
        *ret_found = found;
        if (!mem)
                return 0;
        stdout = saved;
        if (fclose(mem) != 0)
                return -errno;
        print_wrapped(stdout, text, 80);
        return 0;
}

/* analyze: false positive: rows is initialised to NULL; gcc 12 at -O2 reports freep() reading it uninitialised
 * on an early return (as verb_check_config()'s, docs/reliability.md, "Static analysis") */
ANALYZER_FALSE_POSITIVE_BEGIN("-Wanalyzer-use-of-uninitialized-value")
int verb_explain(sd_bus *bus, const CtlOptions *o, char **args) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_free_ DecisionRow *rows = NULL;
        const char *policy_arg = args[0];
        size_t n_rows = 0;
        unsigned want = 0;
        bool found = false;
        Snapshot s;
        int r;

        if (policy_arg && parse_policy_arg(policy_arg, &want) < 0) {
                fprintf(stderr, "Invalid policy '%s': expected N or policyN.\n", policy_arg);
                return -EINVAL;
        }

        r = snapshot_read(bus, o->address, &s);
        if (r < 0)
                return r;
        r = decisions_read(bus, o->address, &reply, &rows, &n_rows);
        if (r < 0) {
                snapshot_done(&s);
                return r;
        }

        r = (o->json ? explain_policies_json : explain_policies)(&s, policy_arg ? &want : NULL, rows, n_rows, o, &found);
        if (r < 0) {
                snapshot_done(&s);
                fprintf(stderr, "Failed to format the explanation: %s\n", strerror(-r));
                return r;
        }
        if (!found) {
                fprintf(stderr, "No policy%u here; policies:", want);
                for (size_t i = 0; i < s.n_policies; i++)
                        fprintf(stderr, " %" PRIu64, prop_u(&s.policies[i], "Id"));
                fputc('\n', stderr);
        }
        snapshot_done(&s);
        return stdout_done(found ? 0 : -ENOENT);
}
ANALYZER_FALSE_POSITIVE_END
