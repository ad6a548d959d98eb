/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * schedfreqctl: a thin D-Bus client of schedfreqd (include/schedfreqd-dbus.h, docs/dbus.md). It speaks only
 * D-Bus, except `check-config`, which validates a file with the daemon's own parser and needs no daemon (it
 * reads the machine's cpufreq topology, read-only, to check the policies the file names; or --topology T.ini).
 *
 * One GetManagedObjects call reads every property of every object; `status`, `--json`, `watch`, `explain` and
 * `metrics` format that snapshot (plus GetDecisions for `explain`, GetRules for `metrics`; the OpenMetrics
 * syntax is metrics.c's). Errors are messages and exit codes,
 * never a crash:
 *   0 success, 1 failure (a method failed, a configuration was rejected or is invalid), 2 usage,
 *   3 schedfreqd is not running (or there is no bus), 4 permission denied.
 */

#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "cpufreq-sysfs.h"
#include "macro.h"
#include "metrics.h"
#include "schedfreqd-dbus.h"
#include "time-util.h"

enum {
        EXIT_OK = 0,
        EXIT_FAILED = 1,
        EXIT_USAGE = 2,
        EXIT_NOT_RUNNING = 3,
        EXIT_DENIED = 4,
};

static const char *arg_address = NULL;
static bool arg_json = false;
static unsigned arg_count = 0;              /* watch: 0 = until interrupted */
static double arg_interval_s = 1.0;
static unsigned arg_decisions = 5;          /* explain: how many recent decisions to list */
static bool arg_strict = false;             /* check-config: policies that do not exist are errors */
static const char *arg_topology = NULL;     /* check-config: the machine's description instead of sysfs */
static volatile sig_atomic_t interrupted = 0;

/* --- a snapshot of every object's properties ------------------------------------------------------------- */

typedef struct Prop {
        char *name;
        char type;                 /* 's', 'b', 'u', 't', 'i' or 'a' (an array of unsigned integers) */
        char *s;
        uint64_t u;                /* b, u, t */
        int64_t i;
        uint64_t *array;
        size_t n_array;
} Prop;

typedef struct Object {
        char *path;
        Prop *props;
        size_t n_props;
} Object;

typedef struct Snapshot {
        Object daemon;
        Object *policies;
        size_t n_policies;
        Object *cpus;
        size_t n_cpus;
} Snapshot;

static void prop_done(Prop *p) {
        free(p->name);
        free(p->s);
        free(p->array);
        *p = (Prop) {};
}

static void object_done(Object *o) {
        for (size_t i = 0; i < o->n_props; i++)
                prop_done(&o->props[i]);
        free(o->props);
        free(o->path);
        *o = (Object) {};
}

static void snapshot_done(Snapshot *s) {
        object_done(&s->daemon);
        for (size_t i = 0; i < s->n_policies; i++)
                object_done(&s->policies[i]);
        for (size_t i = 0; i < s->n_cpus; i++)
                object_done(&s->cpus[i]);
        free(s->policies);
        free(s->cpus);
        *s = (Snapshot) {};
}

static const Prop *prop_find(const Object *o, const char *name) {
        for (size_t i = 0; i < o->n_props; i++)
                if (streq(o->props[i].name, name))
                        return &o->props[i];
        return NULL;
}

static uint64_t prop_u(const Object *o, const char *name) {
        const Prop *p = prop_find(o, name);

        if (!p)
                return 0;
        return p->type == 'i' ? (uint64_t) p->i : p->u;
}

static const char *prop_s(const Object *o, const char *name) {
        const Prop *p = prop_find(o, name);

        return p && p->type == 's' && p->s ? p->s : "";
}

static bool prop_b(const Object *o, const char *name) {
        return prop_u(o, name) != 0;
}

/* One line for a managed policy that is not simply governed (policy-health.h in the daemon); nothing else. */
static void print_policy_state(const Object *p) {
        const char *state = prop_s(p, "State"), *why;
        int error = (int) prop_u(p, "LastWriteErrno");

        if (!*state || streq(state, "governed") || streq(state, "unmanaged"))
                return;
        if (streq(state, "released"))
                why = "another tool switched its governor: left to it";
        else if (streq(state, "offline"))
                why = "all its CPUs are offline: governed again when one comes back";
        else
                why = "its frequency cannot be written: retrying with back-off";
        printf("policy%" PRIu64 ": %s: %s (%" PRIu64 " failed writes%s%s).\n", prop_u(p, "Id"), state, why,
               prop_u(p, "WriteErrors"), error > 0 ? ", last: " : "", error > 0 ? strerror(error) : "");
}

/* Reads one a{sv} into @o. Unknown value types are skipped (a newer daemon may add some). */
static int read_properties(sd_bus_message *m, Object *o) {
        int r;

        r = sd_bus_message_enter_container(m, 'a', "{sv}");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
                const char *name, *contents;
                _cleanup_(prop_done) Prop p = {}; /* owns p.s and p.array until o->props does */
                char type;

                r = sd_bus_message_read(m, "s", &name);
                if (r < 0)
                        return r;
                r = sd_bus_message_peek_type(m, &type, &contents);
                if (r < 0)
                        return r;
                r = sd_bus_message_enter_container(m, 'v', contents);
                if (r < 0)
                        return r;

                if (streq(contents, "s")) {
                        const char *s;
                        r = sd_bus_message_read_basic(m, 's', &s);
                        if (r >= 0 && !(p.s = strdup(s)))
                                r = -ENOMEM;
                        p.type = 's';
                } else if (streq(contents, "b")) {
                        int b;
                        r = sd_bus_message_read_basic(m, 'b', &b);
                        p.u = b;
                        p.type = 'b';
                } else if (streq(contents, "u")) {
                        uint32_t u;
                        r = sd_bus_message_read_basic(m, 'u', &u);
                        p.u = u;
                        p.type = 'u';
                } else if (streq(contents, "t")) {
                        r = sd_bus_message_read_basic(m, 't', &p.u);
                        p.type = 't';
                } else if (streq(contents, "i")) {
                        int32_t i;
                        r = sd_bus_message_read_basic(m, 'i', &i);
                        p.i = i;
                        p.type = 'i';
                } else if (streq(contents, "au") || streq(contents, "at")) {
                        const void *data;
                        size_t size, width = contents[1] == 'u' ? 4 : 8;
                        r = sd_bus_message_read_array(m, contents[1], &data, &size);
                        if (r >= 0) {
                                p.n_array = size / width;
                                p.array = calloc(MAX(p.n_array, (size_t) 1), sizeof(uint64_t));
                                if (!p.array)
                                        r = -ENOMEM;
                                for (size_t k = 0; r >= 0 && k < p.n_array; k++)
                                        p.array[k] = width == 4 ? ((const uint32_t *) data)[k] : ((const uint64_t *) data)[k];
                        }
                        p.type = 'a';
                } else
                        r = sd_bus_message_skip(m, contents);
                if (r < 0)
                        return r;
                r = sd_bus_message_exit_container(m); /* v */
                if (r < 0)
                        return r;
                r = sd_bus_message_exit_container(m); /* e */
                if (r < 0)
                        return r;
                if (p.type == 0)
                        continue;

                Prop *n = reallocarray(o->props, o->n_props + 1, sizeof(Prop));
                if (n)
                        o->props = n;
                if (!n || !(p.name = strdup(name)))
                        return -ENOMEM;
                o->props[o->n_props++] = p;
                p = (Prop) {};
        }
        if (r < 0)
                return r;
        return sd_bus_message_exit_container(m);
}

static int object_append(Object **objects, size_t *n, const char *path, Object **ret) {
        Object *l = reallocarray(*objects, *n + 1, sizeof(Object));

        if (!l)
                return -ENOMEM;
        *objects = l;
        l[*n] = (Object) { .path = strdup(path) };
        if (!l[*n].path)
                return -ENOMEM;
        *ret = &l[(*n)++];
        return 0;
}

static int object_cmp(const void *a, const void *b) {
        uint64_t x = prop_u(a, "Id"), y = prop_u(b, "Id");

        return x < y ? -1 : x > y;
}

/* --- errors ---------------------------------------------------------------------------------------------- */

static int not_running(void) {
        fprintf(stderr, "schedfreqd is not running (no %s on the %s).\n", SCHEDFREQD_BUS_NAME,
                arg_address ? "bus at --address" : "system bus");
        return EXIT_NOT_RUNNING;
}

/* Maps a failed call to a message and an exit code. */
static int call_failed(const char *what, const sd_bus_error *error, int r) {
        if (sd_bus_error_has_names(error, SD_BUS_ERROR_SERVICE_UNKNOWN, SD_BUS_ERROR_NAME_HAS_NO_OWNER,
                                   SD_BUS_ERROR_DISCONNECTED) ||
            (!sd_bus_error_is_set(error) && (r == -ENOTCONN || r == -ECONNRESET)))
                return not_running();
        if (sd_bus_error_has_name(error, SD_BUS_ERROR_NO_REPLY)) {
                fprintf(stderr, "schedfreqd did not answer %s (it may have exited or be stuck).\n", what);
                return EXIT_NOT_RUNNING;
        }
        if (sd_bus_error_has_name(error, SD_BUS_ERROR_ACCESS_DENIED) || r == -EACCES || r == -EPERM) {
                fprintf(stderr, "Permission denied: %s needs root (%s).\n", what,
                        error && error->message ? error->message : strerror(-r));
                return EXIT_DENIED;
        }
        if (sd_bus_error_has_name(error, SCHEDFREQD_ERROR_CONFIG_REJECTED)) {
                fprintf(stderr, "The configuration was rejected; schedfreqd keeps running with the old one:\n%s\n",
                        error->message ? error->message : "(no details)");
                return EXIT_FAILED;
        }
        fprintf(stderr, "Failed to %s: %s\n", what, error && error->message ? error->message : strerror(-r));
        return EXIT_FAILED;
}

/* --- connection and calls ---------------------------------------------------------------------------------- */

static int connect_bus(sd_bus **ret) {
        _cleanup_(sd_bus_unrefp) sd_bus *bus = NULL;
        int r;

        if (arg_address) {
                r = sd_bus_new(&bus);
                if (r >= 0)
                        r = sd_bus_set_address(bus, arg_address);
                if (r >= 0)
                        r = sd_bus_set_bus_client(bus, true);
                if (r >= 0)
                        r = sd_bus_start(bus);
        } else
                r = sd_bus_open_system(&bus);
        if (r < 0) {
                const char *address = arg_address ? arg_address : getenv("DBUS_SYSTEM_BUS_ADDRESS");

                fprintf(stderr, "Cannot connect to the system bus%s%s: %s\n"
                        "schedfreqd is not running (no D-Bus system bus, so no %s).\n",
                        address ? " at " : "", address ? address : "", strerror(-r), SCHEDFREQD_BUS_NAME);
                return -EXIT_NOT_RUNNING;
        }
        *ret = TAKE_PTR(bus);
        return 0;
}

/* Returns 0 or a negative exit code (already reported). */
static int snapshot_read(sd_bus *bus, Snapshot *ret) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        Snapshot s = {};
        int r;

        r = sd_bus_call_method(bus, SCHEDFREQD_BUS_NAME, SCHEDFREQD_BUS_PATH, "org.freedesktop.DBus.ObjectManager",
                               "GetManagedObjects", &error, &reply, NULL);
        if (r < 0)
                return -call_failed("read the status", &error, r);

        r = sd_bus_message_enter_container(reply, 'a', "{oa{sa{sv}}}");
        while (r >= 0 && (r = sd_bus_message_enter_container(reply, 'e', "oa{sa{sv}}")) > 0) {
                const char *path;

                r = sd_bus_message_read(reply, "o", &path);
                if (r >= 0)
                        r = sd_bus_message_enter_container(reply, 'a', "{sa{sv}}");
                while (r >= 0 && (r = sd_bus_message_enter_container(reply, 'e', "sa{sv}")) > 0) {
                        const char *interface;
                        Object *o = NULL;

                        r = sd_bus_message_read(reply, "s", &interface);
                        if (r < 0)
                                break;
                        if (streq(interface, SCHEDFREQD_BUS_INTERFACE) && !s.daemon.path) {
                                s.daemon.path = strdup(path);
                                o = s.daemon.path ? &s.daemon : NULL;
                                r = o ? 0 : -ENOMEM;
                        } else if (streq(interface, SCHEDFREQD_BUS_POLICY_INTERFACE))
                                r = object_append(&s.policies, &s.n_policies, path, &o);
                        else if (streq(interface, SCHEDFREQD_BUS_CPU_INTERFACE))
                                r = object_append(&s.cpus, &s.n_cpus, path, &o);
                        if (r >= 0)
                                r = o ? read_properties(reply, o) : sd_bus_message_skip(reply, "a{sv}");
                        if (r >= 0)
                                r = sd_bus_message_exit_container(reply);
                }
                if (r >= 0)
                        r = sd_bus_message_exit_container(reply);
                if (r >= 0)
                        r = sd_bus_message_exit_container(reply);
        }
        if (r >= 0 && !s.daemon.path)
                r = -EBADMSG;
        if (r < 0) {
                snapshot_done(&s);
                fprintf(stderr, "Failed to parse schedfreqd's status reply: %s\n", strerror(-r));
                return -EXIT_FAILED;
        }
        qsort(s.policies, s.n_policies, sizeof(Object), object_cmp);
        qsort(s.cpus, s.n_cpus, sizeof(Object), object_cmp);
        *ret = s;
        return 0;
}

/* --- formatting ---------------------------------------------------------------------------------------- */

static const char *format_ago(char *buf, size_t size, uint64_t then_usec) {
        uint64_t now = monotonic_usec();

        if (then_usec == 0)
                snprintf(buf, size, "never");
        else if (then_usec > now)
                snprintf(buf, size, "just now");
        else if (now - then_usec < 10 * UINT64_C(1000000))
                snprintf(buf, size, "%.1f s ago", (double) (now - then_usec) / 1e6);
        else
                snprintf(buf, size, "%" PRIu64 " s ago", (now - then_usec) / 1000000);
        return buf;
}

static const char *format_duration(char *buf, size_t size, uint64_t usec) {
        uint64_t s = usec / 1000000;

        if (s >= 86400)
                snprintf(buf, size, "%" PRIu64 "d %" PRIu64 "h", s / 86400, s % 86400 / 3600);
        else if (s >= 3600)
                snprintf(buf, size, "%" PRIu64 "h %" PRIu64 "min", s / 3600, s % 3600 / 60);
        else if (s >= 60)
                snprintf(buf, size, "%" PRIu64 "min %" PRIu64 "s", s / 60, s % 60);
        else
                snprintf(buf, size, "%.1fs", (double) usec / 1e6);
        return buf;
}

static const char *format_cpus(char *buf, size_t size, const Prop *p) {
        size_t len = 0;

        buf[0] = '\0';
        for (size_t i = 0; p && i < p->n_array && len < size; i++) {
                /* Collapse runs: 0-3,6 */
                size_t j = i;
                while (j + 1 < p->n_array && p->array[j + 1] == p->array[j] + 1)
                        j++;
                int w = j > i ? snprintf(buf + len, size - len, "%s%" PRIu64 "-%" PRIu64, len ? "," : "", p->array[i], p->array[j])
                              : snprintf(buf + len, size - len, "%s%" PRIu64, len ? "," : "", p->array[i]);
                if (w < 0)
                        break;
                len += (size_t) w;
                i = j;
        }
        return buf;
}

static void print_status(const Snapshot *s) {
        const Object *d = &s->daemon;
        char b1[64], b2[64];

        printf("schedfreqd %s: %s, up %s\n", prop_s(d, "Version"),
               prop_b(d, "Paused") ? "PAUSED (policies handed back to their governors)" : "governing",
               format_duration(b1, sizeof(b1), prop_u(d, "UptimeUSec")));
        printf("Events: %" PRIu64 " seen, %" PRIu64 " lost, %" PRIu64 " late; proc connector: %s\n",
               prop_u(d, "EventsSeen"), prop_u(d, "EventsLost"), prop_u(d, "EventsLate"), prop_s(d, "ProcConnector"));
        printf("Decisions: %" PRIu64 " local, %" PRIu64 " remote, %" PRIu64 " deferred; %" PRIu64 " frequency writes\n",
               prop_u(d, "LocalDecisions"), prop_u(d, "RemoteDecisions"), prop_u(d, "DeferredDecisions"),
               prop_u(d, "FrequencyWrites"));
        if (prop_u(d, "ReactionLatencyCount") > 0)
                printf("Reaction latency (event to setspeed write, %" PRIu64 " writes): p50 < %" PRIu64 " µs, "
                       "p99 < %" PRIu64 " µs, max %" PRIu64 " µs\n",
                       prop_u(d, "ReactionLatencyCount"), prop_u(d, "ReactionLatencyP50USec"),
                       prop_u(d, "ReactionLatencyP99USec"), prop_u(d, "ReactionLatencyMaxUSec"));

        printf("\n%-7s %-8s %-14s %-12s %8s %13s %7s %-6s %7s %7s %8s  %s\n", "POLICY", "CPUS", "DRIVER", "TAKEN FROM",
               "CUR MHz", "LIMITS MHz", "DEMAND", "REMOTE", "LOCAL", "REMOTE", "DEFERRED", "LAST CHANGE");
        for (size_t i = 0; i < s->n_policies; i++) {
                const Object *p = &s->policies[i];
                char cpus[64], limits[48], name[32], last[128];
                bool managed = prop_b(p, "Managed");

                snprintf(name, sizeof(name), "policy%" PRIu64, prop_u(p, "Id"));
                snprintf(limits, sizeof(limits), "%" PRIu64 "-%" PRIu64, prop_u(p, "MinKHz") / 1000, prop_u(p, "MaxKHz") / 1000);
                if (prop_u(p, "LastChangeUSec") > 0)
                        snprintf(last, sizeof(last), "%s (%s)", format_ago(b2, sizeof(b2), prop_u(p, "LastChangeUSec")),
                                 prop_s(p, "LastReason"));
                else
                        snprintf(last, sizeof(last), "%s", managed ? "none" : "not managed");
                printf("%-7s %-8s %-14s %-12s %8" PRIu64 " %13s %7" PRIu64 " %-6s %7" PRIu64 " %7" PRIu64 " %8" PRIu64 "  %s\n",
                       name, format_cpus(cpus, sizeof(cpus), prop_find(p, "CPUs")), prop_s(p, "Driver"),
                       managed ? prop_s(p, "GovernorTakenOverFrom") : "-", prop_u(p, "CurrentKHz") / 1000, limits,
                       prop_u(p, "Demand"), prop_b(p, "RemotePermitted") ? "yes" : "no", prop_u(p, "LocalDecisions"),
                       prop_u(p, "RemoteDecisions"), prop_u(p, "DeferredDecisions"), last);
        }
        for (size_t i = 0; i < s->n_policies; i++)
                print_policy_state(&s->policies[i]);

        printf("\n%-5s %-7s %5s %9s %13s %12s %5s\n", "CPU", "POLICY", "UTIL", "UTIL_AVG", "UTIL_EST_SUM", "RUNNABLE_RT", "BUSY");
        for (size_t i = 0; i < s->n_cpus; i++) {
                const Object *c = &s->cpus[i];

                printf("%-5" PRIu64 " %-7" PRIu64 " %5" PRIu64 " %9" PRIu64 " %13" PRIu64 " %12" PRIu64 " %5s\n",
                       prop_u(c, "Id"), prop_u(c, "Policy"), prop_u(c, "Util"), prop_u(c, "UtilAvg"),
                       prop_u(c, "UtilEstSum"), prop_u(c, "RunnableRT"), prop_b(c, "Busy") ? "yes" : "no");
        }
}

static void json_string(const char *s) {
        putchar('"');
        for (; *s; s++) {
                unsigned char c = (unsigned char) *s;

                if (c == '"' || c == '\\')
                        printf("\\%c", c);
                else if (c == '\n')
                        fputs("\\n", stdout);
                else if (c < 0x20)
                        printf("\\u%04x", c);
                else
                        putchar(c);
        }
        putchar('"');
}

static void json_object(const Object *o) {
        printf("{\"path\":");
        json_string(o->path);
        for (size_t i = 0; i < o->n_props; i++) {
                const Prop *p = &o->props[i];

                putchar(',');
                json_string(p->name);
                putchar(':');
                switch (p->type) {
                case 's':
                        json_string(p->s ? p->s : "");
                        break;
                case 'b':
                        fputs(p->u ? "true" : "false", stdout);
                        break;
                case 'i':
                        printf("%" PRId64, p->i);
                        break;
                case 'a':
                        putchar('[');
                        for (size_t k = 0; k < p->n_array; k++)
                                printf("%s%" PRIu64, k ? "," : "", p->array[k]);
                        putchar(']');
                        break;
                default:
                        printf("%" PRIu64, p->u);
                        break;
                }
        }
        putchar('}');
}

static void print_json(const Snapshot *s) {
        printf("{\"daemon\":");
        json_object(&s->daemon);
        printf(",\"policies\":[");
        for (size_t i = 0; i < s->n_policies; i++) {
                if (i)
                        putchar(',');
                json_object(&s->policies[i]);
        }
        printf("],\"cpus\":[");
        for (size_t i = 0; i < s->n_cpus; i++) {
                if (i)
                        putchar(',');
                json_object(&s->cpus[i]);
        }
        printf("]}\n");
}

/* --- verbs --------------------------------------------------------------------------------------------- */

static int verb_status(sd_bus *bus) {
        Snapshot s;
        int r;

        r = snapshot_read(bus, &s);
        if (r < 0)
                return -r;
        if (arg_json)
                print_json(&s);
        else
                print_status(&s);
        snapshot_done(&s);
        return fflush(stdout) == 0 ? EXIT_OK : EXIT_FAILED;
}

static void on_sigint(int sig) {
        interrupted = 1;
}

static int verb_watch(sd_bus *bus) {
        struct sigaction sa = { .sa_handler = on_sigint };
        bool tty = isatty(STDOUT_FILENO);

        (void) sigaction(SIGINT, &sa, NULL);
        (void) sigaction(SIGTERM, &sa, NULL);
        for (unsigned n = 0; !interrupted && (arg_count == 0 || n < arg_count); n++) {
                Snapshot s;
                int r;

                if (n > 0) {
                        struct timespec ts = {
                                .tv_sec = (time_t) arg_interval_s,
                                .tv_nsec = (long) ((arg_interval_s - floor(arg_interval_s)) * 1e9),
                        };
                        /* EINTR on Ctrl-C ends the wait early; the loop condition ends the watch. */
                        (void) nanosleep(&ts, NULL);
                        if (interrupted)
                                break;
                }
                r = snapshot_read(bus, &s);
                if (r < 0)
                        return -r;
                if (arg_json)
                        print_json(&s);
                else {
                        if (tty)
                                fputs("\033[H\033[2J", stdout);
                        else if (n > 0)
                                putchar('\n');
                        print_status(&s);
                }
                snapshot_done(&s);
                if (fflush(stdout) != 0)
                        return EXIT_FAILED;
        }
        return EXIT_OK;
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

typedef struct DecisionRow {
        uint64_t time_usec, written_usec, deferred_since_usec;
        uint32_t policy, old_khz, new_khz, util;
        int32_t cpu;
        const char *event, *kind, *reason;
        int deferred;
} DecisionRow;

static void print_decision_line(const DecisionRow *d) {
        char ago[64];

        char trigger[64];

        if (streq(d->event, "tick"))
                snprintf(trigger, sizeof(trigger), "tick");
        else
                snprintf(trigger, sizeof(trigger), "%s on CPU %" PRIi32, d->event, d->cpu);
        printf("    %-12s %5" PRIu32 " -> %5" PRIu32 " MHz  %-7s util %4" PRIu32 "  %s, %s%s\n",
               format_ago(ago, sizeof(ago), d->written_usec), d->old_khz / 1000, d->new_khz / 1000, d->reason, d->util,
               trigger, d->kind, d->deferred ? ", deferred" : "");
}

static void explain_policy(const Snapshot *s, const Object *p, const DecisionRow *rows, size_t n_rows) {
        const Object *d = &s->daemon;
        uint32_t id = (uint32_t) prop_u(p, "Id");
        uint64_t cur = prop_u(p, "CurrentKHz"), min = prop_u(p, "MinKHz"), max = prop_u(p, "MaxKHz");
        const DecisionRow *last = NULL;
        size_t n_mine = 0, shown = 0;
        char cpus[64], ago[64];

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
        if (prop_b(d, "Paused")) {
                printf("  schedfreqd is paused: the policy is back under its original governor '%s', which chooses the "
                       "frequency now ('schedfreqctl resume' takes it over again).\n",
                       prop_s(p, "GovernorTakenOverFrom"));
                return;
        }

        printf("  Runs at %" PRIu64 " MHz, chosen by schedfreqd (taken over from '%s').\n", cur / 1000,
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

        if (last) {
                printf("  Why: %s, schedfreqd moved it from %" PRIu32 " to %" PRIu32 " MHz because of %s",
                       format_ago(ago, sizeof(ago), last->written_usec), last->old_khz / 1000, last->new_khz / 1000,
                       reason_text(last->reason));
                if (streq(last->event, "tick"))
                        printf(", re-evaluated on the periodic tick (utilisation decaying or a CPU busy)");
                else
                        printf(", triggered by %s on CPU %" PRIi32 " (%s: %s)", last->event, last->cpu, last->kind,
                               streq(last->kind, "local") ? "an event on one of the policy's own CPUs"
                                                          : "an event on another CPU, permitted by the policy");
                printf("; demand was %" PRIu32 "/1024.\n", last->util);
                if (last->deferred)
                        printf("  The change was deferred: a remote event recorded it %s, and it waited for a local "
                               "event because the policy does not permit remote updates.\n",
                               format_ago(ago, sizeof(ago), last->deferred_since_usec));
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

        if (n_mine > 1 && arg_decisions > 1) {
                printf("  Recent decisions (newest last):\n");
                for (size_t i = 0; i < n_rows; i++) {
                        if (rows[i].policy != id)
                                continue;
                        if (shown++ < n_mine - MIN(n_mine, (size_t) arg_decisions))
                                continue;
                        print_decision_line(&rows[i]);
                }
        }
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

static int verb_explain(sd_bus *bus, const char *policy_arg) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_free_ DecisionRow *rows = NULL;
        size_t n_rows = 0;
        unsigned want = 0;
        bool found = false;
        Snapshot s;
        int r;

        if (policy_arg && parse_policy_arg(policy_arg, &want) < 0) {
                fprintf(stderr, "Invalid policy '%s': expected N or policyN.\n", policy_arg);
                return EXIT_USAGE;
        }

        r = snapshot_read(bus, &s);
        if (r < 0)
                return -r;

        r = sd_bus_call_method(bus, SCHEDFREQD_BUS_NAME, SCHEDFREQD_BUS_PATH, SCHEDFREQD_BUS_INTERFACE,
                               "GetDecisions", &error, &reply, "u", (uint32_t) 0);
        if (r < 0) {
                snapshot_done(&s);
                return call_failed("read the recent decisions", &error, r);
        }
        r = sd_bus_message_enter_container(reply, 'a', SCHEDFREQD_DECISION_TYPE);
        while (r >= 0) {
                DecisionRow d;

                r = sd_bus_message_read(reply, SCHEDFREQD_DECISION_TYPE, &d.time_usec, &d.policy, &d.old_khz,
                                        &d.new_khz, &d.cpu, &d.event, &d.kind, &d.deferred, &d.reason, &d.util,
                                        &d.written_usec, &d.deferred_since_usec);
                if (r <= 0)
                        break;
                DecisionRow *n = reallocarray(rows, n_rows + 1, sizeof(DecisionRow));
                if (!n) {
                        r = -ENOMEM;
                        break;
                }
                rows = n;
                rows[n_rows++] = d;
        }
        if (r < 0) {
                snapshot_done(&s);
                fprintf(stderr, "Failed to parse the GetDecisions reply: %s\n", strerror(-r));
                return EXIT_FAILED;
        }

        for (size_t i = 0; i < s.n_policies; i++) {
                if (policy_arg && prop_u(&s.policies[i], "Id") != want)
                        continue;
                if (found)
                        putchar('\n');
                explain_policy(&s, &s.policies[i], rows, n_rows);
                found = true;
        }
        if (!found) {
                fprintf(stderr, "No policy%u here; policies:", want);
                for (size_t i = 0; i < s.n_policies; i++)
                        fprintf(stderr, " %" PRIu64, prop_u(&s.policies[i], "Id"));
                fputc('\n', stderr);
        }
        snapshot_done(&s);
        return found ? EXIT_OK : EXIT_FAILED;
}

/* --- rules ------------------------------------------------------------------------------------------------ */

typedef struct RuleTask {
        uint32_t pid;
        char *comm;
} RuleTask;

typedef struct RuleRow {
        char *name, *comm, *exe, *cgroup, *origin;
        uint16_t min_util, max_util;
        int rt_boost, ignore;
        uint64_t decisions;
        RuleTask *tasks;
        size_t n_tasks;
} RuleRow;

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

static void rule_rows_free(RuleRow *rows, size_t n) {
        for (size_t i = 0; i < n; i++)
                rule_row_done(&rows[i]);
        free(rows);
}

/* One GetRules() record into @row (which owns its strings even on failure). */
static int read_rule(sd_bus_message *m, RuleRow *row) {
        const char *name, *comm, *exe, *cgroup, *origin;
        int r;

        r = sd_bus_message_enter_container(m, 'r', SCHEDFREQD_RULE_CONTENTS);
        if (r <= 0)
                return r;
        r = sd_bus_message_read(m, "sssssqqbbt", &name, &comm, &exe, &cgroup, &origin, &row->min_util,
                                &row->max_util, &row->rt_boost, &row->ignore, &row->decisions);
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
        if (row->ignore)
                printf(" ignore = yes (its load does not count)"), sep = ",";
        if (row->min_util > 0)
                printf("%s min_util = %" PRIu16, sep, row->min_util), sep = ",";
        if (row->max_util < 1024)
                printf("%s max_util = %" PRIu16, sep, row->max_util), sep = ",";
        if (row->rt_boost)
                printf("%s rt_boost = yes", sep), sep = ",";
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

static void print_rules_json(const RuleRow *rows, size_t n) {
        printf("{\"rules\":[");
        for (size_t i = 0; i < n; i++) {
                const RuleRow *row = &rows[i];

                printf("%s{\"Name\":", i ? "," : "");
                json_string(row->name);
                printf(",\"Comm\":");
                json_string(row->comm);
                printf(",\"Exe\":");
                json_string(row->exe);
                printf(",\"Cgroup\":");
                json_string(row->cgroup);
                printf(",\"Origin\":");
                json_string(row->origin);
                printf(",\"MinUtil\":%" PRIu16 ",\"MaxUtil\":%" PRIu16 ",\"RTBoost\":%s,\"Ignore\":%s,"
                       "\"Decisions\":%" PRIu64 ",\"Tasks\":[",
                       row->min_util, row->max_util, row->rt_boost ? "true" : "false", row->ignore ? "true" : "false",
                       row->decisions);
                for (size_t k = 0; k < row->n_tasks; k++) {
                        printf("%s{\"Pid\":%" PRIu32 ",\"Comm\":", k ? "," : "", row->tasks[k].pid);
                        json_string(row->tasks[k].comm);
                        putchar('}');
                }
                printf("]}");
        }
        printf("]}\n");
}

/* GetRules() into *@ret_rows. Returns 0, or a negative exit code (already reported). */
static int rules_read(sd_bus *bus, RuleRow **ret_rows, size_t *ret_n) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        RuleRow *rows = NULL;
        size_t n_rows = 0;
        int r;

        r = sd_bus_call_method(bus, SCHEDFREQD_BUS_NAME, SCHEDFREQD_BUS_PATH, SCHEDFREQD_BUS_INTERFACE, "GetRules",
                               &error, &reply, NULL);
        if (r < 0)
                return -call_failed("read the rules", &error, r);

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
                return -EXIT_FAILED;
        }
        *ret_rows = rows;
        *ret_n = n_rows;
        return 0;
}

static int verb_rules(sd_bus *bus) {
        RuleRow *rows = NULL;
        size_t n_rows = 0;
        int r;

        r = rules_read(bus, &rows, &n_rows);
        if (r < 0)
                return -r;

        if (arg_json)
                print_rules_json(rows, n_rows);
        else if (n_rows == 0)
                printf("No rules configured (see schedfreqd.conf(5), RULES).\n");
        for (size_t i = 0; !arg_json && i < n_rows; i++) {
                if (i)
                        putchar('\n');
                print_rule(&rows[i]);
        }
        rule_rows_free(rows, n_rows);
        return fflush(stdout) == 0 ? EXIT_OK : EXIT_FAILED;
}

/* --- metrics ------------------------------------------------------------------------------------------ */

/* A metric family whose value, per object, is one D-Bus property (times @scale: kHz → Hz is 1000). */
typedef struct PropMetric {
        const char *name;
        MetricType type;          /* METRIC_GAUGE or METRIC_COUNTER */
        const char *unit;
        const char *property;
        uint64_t scale;
        const char *help;
} PropMetric;

static const PropMetric daemon_metrics[] = {
        { "schedfreqd_paused", METRIC_GAUGE, NULL, "Paused", 1,
          "1 while the policies are handed back to their original governors (schedfreqctl pause)." },
        { "schedfreqd_events", METRIC_COUNTER, NULL, "EventsSeen", 1, "Scheduler events fed to the model." },
        { "schedfreqd_events_lost", METRIC_COUNTER, NULL, "EventsLost", 1,
          "Events the kernel dropped because a perf ring was full." },
        { "schedfreqd_events_late", METRIC_COUNTER, NULL, "EventsLate", 1,
          "Events older than the model's clock (applied at its time)." },
        { "schedfreqd_ring_overflows", METRIC_COUNTER, NULL, "RingOverflows", 1,
          "Times a CPU's events were found lost and its model rebuilt from its next events." },
        { "schedfreqd_frequency_writes", METRIC_COUNTER, NULL, "FrequencyWrites", 1,
          "scaling_setspeed writes that succeeded, all policies." },
};

static const PropMetric policy_metrics[] = {
        { "schedfreqd_policy_frequency_hertz", METRIC_GAUGE, "hertz", "CurrentKHz", 1000,
          "The frequency schedfreqd last set (stale while paused)." },
        { "schedfreqd_policy_scaling_min_frequency_hertz", METRIC_GAUGE, "hertz", "MinKHz", 1000,
          "scaling_min_freq in force." },
        { "schedfreqd_policy_scaling_max_frequency_hertz", METRIC_GAUGE, "hertz", "MaxKHz", 1000,
          "scaling_max_freq in force." },
        { "schedfreqd_policy_cpuinfo_min_frequency_hertz", METRIC_GAUGE, "hertz", "CpuinfoMinKHz", 1000,
          "The hardware's lowest frequency (cpuinfo_min_freq)." },
        { "schedfreqd_policy_cpuinfo_max_frequency_hertz", METRIC_GAUGE, "hertz", "CpuinfoMaxKHz", 1000,
          "The hardware's highest frequency (cpuinfo_max_freq)." },
        { "schedfreqd_policy_demand", METRIC_GAUGE, NULL, "Demand", 1,
          "The policy's utilisation on the scheduler's 0..1024 scale (the most of its CPUs')." },
        { "schedfreqd_policy_managed", METRIC_GAUGE, NULL, "Managed", 1,
          "1 when schedfreqd governs the policy ([governor] policies=)." },
        { "schedfreqd_policy_remote_permitted", METRIC_GAUGE, NULL, "RemotePermitted", 1,
          "1 when events on other CPUs may change the policy's frequency at once." },
        { "schedfreqd_policy_deferred_decisions", METRIC_COUNTER, NULL, "DeferredDecisions", 1,
          "Demand changes a remote event recorded that had to wait for a local event." },
        { "schedfreqd_policy_write_errors", METRIC_COUNTER, NULL, "WriteErrors", 1,
          "Failed scaling_setspeed writes." },
};

/* policy-health.h's states as the Policy object's State property names them, plus "unmanaged". */
static const char *const policy_states[] = { "governed", "backing-off", "offline", "released", "unmanaged" };

static int metrics_prop_family(MetricsWriter *w, const PropMetric *pm, const Object *objects, size_t n,
                               const char *label) {
        int r;

        r = metrics_family(w, pm->name, pm->type, pm->unit, pm->help);
        for (size_t i = 0; r >= 0 && i < n; i++) {
                const Prop *p = prop_find(&objects[i], pm->property);
                char id[24];
                MetricLabel l = { label, id };

                if (!p) /* an older daemon: the family, without samples */
                        continue;
                (void) snprintf(id, sizeof(id), "%" PRIu64, prop_u(&objects[i], "Id"));
                MetricValue v = METRIC_U64(prop_u(&objects[i], pm->property) * pm->scale);
                r = pm->type == METRIC_COUNTER ? metrics_counter(w, &l, label ? 1 : 0, v)
                                               : metrics_gauge(w, &l, label ? 1 : 0, v);
        }
        return r;
}

/*
 * The daemon's reaction-latency histogram (LatencyStats in include/manager.h): bucket i counts [2^i, 2^(i+1)) µs,
 * bucket 0 also what is below 1 µs, the last one everything above. So bucket i's values are <= 2^(i+1) µs,
 * its "le", and the last one's bound is +Inf.
 */
static int metrics_latency(MetricsWriter *w, const Object *d) {
        const Prop *h = prop_find(d, "ReactionLatencyHistogram"), *sum = prop_find(d, "ReactionLatencySumUSec");
        _cleanup_free_ double *bounds = NULL;
        double sum_s;
        int r;

        r = metrics_family(w, "schedfreqd_reaction_latency_seconds", METRIC_HISTOGRAM, "seconds",
                           "From a scheduler event to the scaling_setspeed write it caused (ticks not counted).");
        if (r < 0 || !h || h->n_array == 0)
                return r;

        bounds = calloc(h->n_array, sizeof(double));
        if (!bounds)
                return -ENOMEM;
        for (size_t i = 0; i < h->n_array; i++)
                bounds[i] = i + 1 < h->n_array ? ldexp(1e-6, (int) i + 1) : INFINITY;
        /* A daemon from before ReactionLatencySumUSec: no _sum (it is optional). */
        sum_s = sum ? (double) sum->u / 1e6 : 0;
        return metrics_histogram(w, NULL, 0, bounds, h->array, h->n_array, sum ? &sum_s : NULL);
}

static int metrics_policies(MetricsWriter *w, const Snapshot *s) {
        static const char *const kinds[] = { "local", "remote" }, *const kind_props[] = { "LocalDecisions",
                                                                                         "RemoteDecisions" };
        int r = 0;

        for (size_t k = 0; r >= 0 && k < ELEMENTSOF(policy_metrics); k++)
                r = metrics_prop_family(w, &policy_metrics[k], s->policies, s->n_policies, "policy");

        if (r >= 0)
                r = metrics_family(w, "schedfreqd_policy_decisions", METRIC_COUNTER, NULL,
                                   "Frequency changes decided, by the kind of event that triggered them: on one of the "
                                   "policy's CPUs (local) or another (remote). Each is a scaling_setspeed write.");
        for (size_t i = 0; r >= 0 && i < s->n_policies; i++)
                for (size_t k = 0; r >= 0 && k < ELEMENTSOF(kinds); k++) {
                        char id[24];

                        (void) snprintf(id, sizeof(id), "%" PRIu64, prop_u(&s->policies[i], "Id"));
                        r = metrics_counter(w, (MetricLabel[]) { { "policy", id }, { "kind", kinds[k] } }, 2,
                                            METRIC_U64(prop_u(&s->policies[i], kind_props[k])));
                }

        /* One 0/1 gauge per state, not an OpenMetrics stateset, which node_exporter cannot read (metrics.h). */
        if (r >= 0)
                r = metrics_family(w, "schedfreqd_policy_state", METRIC_GAUGE, NULL,
                                   "1 for the policy's state: governed; backing-off (its writes fail, retried); "
                                   "offline (all its CPUs); released (another tool took it); unmanaged.");
        for (size_t i = 0; r >= 0 && i < s->n_policies; i++) {
                const char *state = prop_s(&s->policies[i], "State");
                bool known = false;
                char id[24];

                if (!*state) /* an older daemon */
                        continue;
                (void) snprintf(id, sizeof(id), "%" PRIu64, prop_u(&s->policies[i], "Id"));
                for (size_t k = 0; r >= 0 && k < ELEMENTSOF(policy_states); k++) {
                        known = known || streq(state, policy_states[k]);
                        r = metrics_gauge(w, (MetricLabel[]) { { "policy", id }, { "state", policy_states[k] } }, 2,
                                          METRIC_U64(streq(state, policy_states[k])));
                }
                if (r >= 0 && !known) /* a newer daemon's state: still exactly one series at 1 */
                        r = metrics_gauge(w, (MetricLabel[]) { { "policy", id }, { "state", state } }, 2, METRIC_U64(1));
        }
        return r;
}

static int metrics_cpus(MetricsWriter *w, const Snapshot *s) {
        int r;

        r = metrics_family(w, "schedfreqd_cpu_util", METRIC_GAUGE, NULL,
                           "The CPU's demand on the 0..1024 scale: max(util_avg, util_est), capped at its capacity.");
        for (size_t i = 0; r >= 0 && i < s->n_cpus; i++) {
                char cpu[24], policy[24];

                (void) snprintf(cpu, sizeof(cpu), "%" PRIu64, prop_u(&s->cpus[i], "Id"));
                (void) snprintf(policy, sizeof(policy), "%" PRIu64, prop_u(&s->cpus[i], "Policy"));
                r = metrics_gauge(w, (MetricLabel[]) { { "cpu", cpu }, { "policy", policy } }, 2,
                                  METRIC_U64(prop_u(&s->cpus[i], "Util")));
        }
        return r;
}

static int metrics_rules(MetricsWriter *w, const RuleRow *rows, size_t n_rows) {
        _Static_assert(SCHEDFREQD_RULE_TASKS_MAX == 256U, "schedfreqd_rule_tasks' help says 256");
        int r;

        r = metrics_family(w, "schedfreqd_rule_decisions", METRIC_COUNTER, NULL,
                           "Frequency changes a per-process rule decided since the configuration was loaded.");
        for (size_t i = 0; r >= 0 && i < n_rows; i++)
                r = metrics_counter(w, &(MetricLabel) { "rule", rows[i].name }, 1, METRIC_U64(rows[i].decisions));
        if (r >= 0)
                r = metrics_family(w, "schedfreqd_rule_tasks", METRIC_GAUGE, NULL,
                                   "Running tasks the rule applies to (GetRules lists at most 256).");
        for (size_t i = 0; r >= 0 && i < n_rows; i++)
                r = metrics_gauge(w, &(MetricLabel) { "rule", rows[i].name }, 1, METRIC_U64(rows[i].n_tasks));
        return r;
}

static int metrics_write(MetricsWriter *w, const Snapshot *s, const RuleRow *rows, size_t n_rows) {
        const Object *d = &s->daemon;
        int r;

        r = metrics_family(w, "schedfreqd_uptime_seconds", METRIC_GAUGE, "seconds",
                           "Time since the daemon started governing.");
        if (r >= 0)
                r = metrics_gauge(w, NULL, 0, METRIC_DOUBLE((double) prop_u(d, "UptimeUSec") / 1e6));
        for (size_t k = 0; r >= 0 && k < ELEMENTSOF(daemon_metrics); k++)
                r = metrics_prop_family(w, &daemon_metrics[k], d, 1, NULL);
        if (r >= 0)
                r = metrics_family(w, "schedfreqd_proc_connector_active", METRIC_GAUGE, NULL,
                                   "1 while the netlink proc connector reports processes (it may be unavailable, "
                                   "e.g. in a new pid namespace).");
        if (r >= 0)
                r = metrics_gauge(w, NULL, 0, METRIC_U64(streq(prop_s(d, "ProcConnector"), "active")));
        if (r >= 0)
                r = metrics_latency(w, d);
        if (r >= 0)
                r = metrics_policies(w, s);
        if (r >= 0)
                r = metrics_cpus(w, s);
        if (r >= 0)
                r = metrics_rules(w, rows, n_rows);
        return r;
}

/*
 * Everything is read first and formatted in memory, and printed only when complete: a failure prints nothing
 * on stdout, so `schedfreqctl metrics > F.$$ && mv F.$$ F` never leaves a partial file for a collector.
 */
static int verb_metrics(sd_bus *bus) {
        _cleanup_free_ char *text = NULL;
        RuleRow *rows = NULL;
        size_t n_rows = 0, size = 0;
        MetricsWriter w;
        Snapshot s;
        FILE *f;
        int r;

        r = snapshot_read(bus, &s);
        if (r < 0)
                return -r;
        r = rules_read(bus, &rows, &n_rows);
        if (r < 0) {
                snapshot_done(&s);
                return -r;
        }

        f = open_memstream(&text, &size);
        if (f) {
                metrics_writer_init(&w, f);
                r = metrics_write(&w, &s, rows, n_rows);
                if (r >= 0)
                        r = metrics_finish(&w);
                metrics_writer_done(&w);
                if (fclose(f) != 0 && r >= 0)
                        r = negative_errno();
        } else
                r = negative_errno();
        snapshot_done(&s);
        rule_rows_free(rows, n_rows);
        if (r < 0) {
                fprintf(stderr, "Failed to format the metrics: %s\n", strerror(-r));
                return EXIT_FAILED;
        }
        if (fwrite(text, 1, size, stdout) != size || fflush(stdout) != 0)
                return EXIT_FAILED;
        return EXIT_OK;
}

/* reload, pause, resume: @verb names the command in messages. */
static int verb_call(sd_bus *bus, const char *verb, const char *method, const char *what, const char *done) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        r = sd_bus_call_method(bus, SCHEDFREQD_BUS_NAME, SCHEDFREQD_BUS_PATH, SCHEDFREQD_BUS_INTERFACE, method,
                               &error, NULL, NULL);
        /*
         * Refused by the bus policy (its message lists the rules it matched) or by the daemon: one line that says
         * what to do. Root is the rule; the bus's reasons are in docs/dbus.md.
         */
        if (r < 0 && (sd_bus_error_has_name(&error, SD_BUS_ERROR_ACCESS_DENIED) || r == -EACCES || r == -EPERM)) {
                fprintf(stderr, "schedfreqctl: %s needs root (try: sudo schedfreqctl %s)\n", verb, verb);
                return EXIT_DENIED;
        }
        if (r < 0)
                return call_failed(what, &error, r);
        printf("%s\n", done);
        return EXIT_OK;
}

/*
 * check-config's topology: --topology FILE, else this machine's. Returns 0 with *@ret set, or NULL when the
 * machine has no readable cpufreq topology and --strict was not given (the check is then skipped); a negative
 * errno after printing why.
 */
static int check_config_topology(Topology **ret) {
        _cleanup_free_ char *error = NULL;
        int r;

        *ret = NULL;
        if (arg_topology) {
                r = topology_load(arg_topology, ret, &error);
                if (r < 0)
                        fprintf(stderr, "%s\n", error ?: strerror(-r));
                return r;
        }

        r = cpufreq_discover(ret);
        if (r >= 0 || !arg_strict)
                return 0;
        if (r == -ENODEV)
                fprintf(stderr, "check-config --strict: no cpufreq policies under %s to check against (no cpufreq "
                        "driver?); describe the target machine with --topology FILE (from `schedfreqd topology`).\n",
                        SYSFS_CPU_DIR);
        else
                fprintf(stderr, "check-config --strict: cannot read the cpufreq topology under %s: %s; describe the "
                        "target machine with --topology FILE.\n", SYSFS_CPU_DIR, strerror(-r));
        return r;
}

/* analyze: false positive: warnings is initialised to NULL; gcc 12 at -O2 reports freep() reading it
 * uninitialised on an early return (not at -O0; docs/reliability.md, "Static analysis") */
ANALYZER_FALSE_POSITIVE_BEGIN("-Wanalyzer-use-of-uninitialized-value")
static int verb_check_config(const char *path) {
        _cleanup_(topology_freep) Topology *t = NULL;
        _cleanup_free_ char *error = NULL, *warnings = NULL;
        Config c;
        int r, n = 0;

        r = config_load(path, false, &c, &error);
        if (r < 0) {
                fprintf(stderr, "%s\n", error ? error : strerror(-r));
                return EXIT_FAILED;
        }

        r = check_config_topology(&t);
        if (r < 0)
                return EXIT_FAILED;
        if (t) {
                n = config_check_topology(&c, t, &warnings);
                if (n < 0) {
                        fprintf(stderr, "%s: %s\n", path, strerror(-n));
                        return EXIT_FAILED;
                }
        }

        if (n == 0) {
                printf("%s: OK\n", path);
                return EXIT_OK;
        }
        fprintf(stderr, "%s\n", warnings);
        if (arg_strict) {
                fprintf(stderr, "%s: rejected by --strict: %d policy reference%s that do%s not exist.\n", path, n,
                        n == 1 ? "" : "s", n == 1 ? "es" : "");
                return EXIT_FAILED;
        }
        printf("%s: OK, with %d warning%s (errors with --strict)\n", path, n, n == 1 ? "" : "s");
        return EXIT_OK;
}
ANALYZER_FALSE_POSITIVE_END

static void help(void) {
        printf("Usage: schedfreqctl [OPTIONS] COMMAND\n"
               "\n"
               "Query and control schedfreqd, the userspace schedutil, over D-Bus.\n"
               "\n"
               "Commands:\n"
               "  status               policies and CPUs as a table (the default)\n"
               "  watch                refresh the status every --interval seconds until Ctrl-C\n"
               "  explain [POLICY]     why each policy (or POLICY: N or policyN) is at its frequency\n"
               "  rules                the per-process rules: where each is defined, what it matches and does,\n"
               "                       how many decisions it changed, the running tasks it applies to\n"
               "  metrics              every counter and gauge in the OpenMetrics text format (Prometheus,\n"
               "                       node_exporter's textfile collector; docs/metrics.md)\n"
               "  reload               re-read the configuration (root)\n"
               "  pause                hand every policy back to its original governor (root)\n"
               "  resume               take the policies over again (root)\n"
               "  check-config FILE    validate a configuration file; needs no daemon. Policies it names that\n"
               "                       this machine (or --topology) lacks are warnings, errors with --strict\n"
               "  version              print the client's version\n"
               "\n"
               "Options:\n"
               "      --json           status/watch/rules: JSON (one object per refresh) for scripts\n"
               "      --count N        watch: stop after N refreshes\n"
               "      --interval SEC   watch: seconds between refreshes (default 1)\n"
               "  -n, --decisions N    explain: list up to N recent decisions per policy (default 5)\n"
               "      --address ADDR   the bus to use (default: $DBUS_SYSTEM_BUS_ADDRESS, else the system bus)\n"
               "      --strict         check-config: a policy that does not exist is an error\n"
               "      --topology T.ini check-config: check against this description (`schedfreqd topology`)\n"
               "                       instead of this machine's cpufreq policies\n"
               "  -h, --help           this help\n"
               "\n"
               "Exit status: 0 success, 1 failure, 2 usage error, 3 schedfreqd not running (or no bus),\n"
               "4 permission denied.\n");
}

static int parse_unsigned(const char *s, unsigned *ret) {
        char *end;
        unsigned long v;

        errno = 0;
        v = strtoul(s, &end, 10);
        if (errno != 0 || end == s || *end != '\0' || *s == '-' || v > UINT32_MAX)
                return -EINVAL;
        *ret = (unsigned) v;
        return 0;
}

int main(int argc, char **argv) {
        enum { ARG_JSON = 0x100, ARG_COUNT, ARG_INTERVAL, ARG_ADDRESS, ARG_VERSION, ARG_STRICT, ARG_TOPOLOGY };
        static const struct option options[] = {
                { "json", no_argument, NULL, ARG_JSON },
                { "count", required_argument, NULL, ARG_COUNT },
                { "interval", required_argument, NULL, ARG_INTERVAL },
                { "decisions", required_argument, NULL, 'n' },
                { "address", required_argument, NULL, ARG_ADDRESS },
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, ARG_VERSION },
                { "strict", no_argument, NULL, ARG_STRICT },
                { "topology", required_argument, NULL, ARG_TOPOLOGY },
                {}
        };
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        const char *verb;
        char *end;
        int c, r, n_args;

        while ((c = getopt_long(argc, argv, "n:h", options, NULL)) >= 0) {
                switch (c) {
                case ARG_JSON:
                        arg_json = true;
                        break;
                case ARG_COUNT:
                        if (parse_unsigned(optarg, &arg_count) < 0 || arg_count == 0) {
                                fprintf(stderr, "--count wants a positive number, not '%s'.\n", optarg);
                                return EXIT_USAGE;
                        }
                        break;
                case ARG_INTERVAL:
                        arg_interval_s = strtod(optarg, &end);
                        if (end == optarg || *end != '\0' || !(arg_interval_s >= 0.05 && arg_interval_s <= 3600)) {
                                fprintf(stderr, "--interval wants seconds between 0.05 and 3600, not '%s'.\n", optarg);
                                return EXIT_USAGE;
                        }
                        break;
                case 'n':
                        if (parse_unsigned(optarg, &arg_decisions) < 0) {
                                fprintf(stderr, "--decisions wants a number, not '%s'.\n", optarg);
                                return EXIT_USAGE;
                        }
                        break;
                case ARG_ADDRESS:
                        arg_address = optarg;
                        break;
                case 'h':
                        help();
                        return EXIT_OK;
                case ARG_VERSION:
                        printf("schedfreqctl %s\n", VERSION);
                        return EXIT_OK;
                case ARG_STRICT:
                        arg_strict = true;
                        break;
                case ARG_TOPOLOGY:
                        arg_topology = optarg;
                        break;
                default:
                        fprintf(stderr, "Try 'schedfreqctl --help'.\n");
                        return EXIT_USAGE;
                }
        }

        verb = optind < argc ? argv[optind] : "status";
        n_args = optind < argc ? argc - optind - 1 : 0;

        if (streq(verb, "version")) {
                printf("schedfreqctl %s\n", VERSION);
                return EXIT_OK;
        }
        if (streq(verb, "check-config")) {
                if (n_args != 1) {
                        fprintf(stderr, "check-config takes one FILE.\n");
                        return EXIT_USAGE;
                }
                return verb_check_config(argv[optind + 1]);
        }
        if (arg_strict || arg_topology) {
                fprintf(stderr, "--strict and --topology apply to check-config only.\n");
                return EXIT_USAGE;
        }

        static const char *const bus_verbs[] = { "status", "watch", "explain", "rules", "metrics", "reload", "pause",
                                                     "resume" };
        bool known = false;
        for (size_t i = 0; i < ELEMENTSOF(bus_verbs); i++)
                known = known || streq(verb, bus_verbs[i]);
        if (!known) {
                fprintf(stderr, "Unknown command '%s' (try --help).\n", verb);
                return EXIT_USAGE;
        }
        if (n_args > (streq(verb, "explain") ? 1 : 0)) {
                fprintf(stderr, "Too many arguments for '%s' (try --help).\n", verb);
                return EXIT_USAGE;
        }

        r = connect_bus(&bus);
        if (r < 0)
                return -r;

        if (streq(verb, "status"))
                return verb_status(bus);
        if (streq(verb, "watch"))
                return verb_watch(bus);
        if (streq(verb, "explain"))
                return verb_explain(bus, n_args > 0 ? argv[optind + 1] : NULL);
        if (streq(verb, "rules"))
                return verb_rules(bus);
        if (streq(verb, "metrics"))
                return verb_metrics(bus);
        if (streq(verb, "reload"))
                return verb_call(bus, "reload", "Reload", "reload the configuration", "Configuration reloaded.");
        if (streq(verb, "pause"))
                return verb_call(bus, "pause", "Pause", "pause", "Paused: the policies are back under their original governors.");
        return verb_call(bus, "resume", "Resume", "resume", "Resumed: schedfreqd governs the policies again.");
}
