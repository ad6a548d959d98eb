/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * verb-status.c: `status` prints one snapshot (the daemon's counters, a policy table, a CPU table); `watch`
 * prints one every --interval seconds, --count times or until SIGINT/SIGTERM, clearing a terminal between them.
 * Both fit 80 columns (a terminal's default: wider rows wrap and the tables fall apart); --wide prints every
 * column, as before, and --json every property.
 */

#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "format.h"
#include "macro.h"
#include "snapshot.h"
#include "verb-status.h"

static volatile sig_atomic_t interrupted = 0;

/*
 * One line for a managed policy that is not simply governed (actuator.h in the daemon); nothing else.
 * Without @wide the failed writes go on a second line: the first alone is up to 80 columns.
 */
static void print_policy_state(const Object *p, bool wide) {
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
        printf("policy%" PRIu64 ": %s: %s%s(%" PRIu64 " failed writes%s%s).\n", prop_u(p, "Id"), state, why,
               wide ? " " : "\n  ", prop_u(p, "WriteErrors"), error > 0 ? ", last: " : "",
               error > 0 ? strerror(error) : "");
}

/* The daemon's lines, as --wide has always printed them: exact counts, the latency in µs. */
static void print_daemon_wide(const Object *d) {
        char b[64];

        printf("schedfreqd %s: %s, up %s\n", prop_s(d, "Version"),
               prop_b(d, "Paused") ? "PAUSED (policies handed back to their governors)" : "governing",
               format_duration(b, sizeof(b), prop_u(d, "UptimeUSec")));
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
}

/*
 * The same in at most 80 columns: counts past 100000 abbreviated (a day's events are 10^8), each latency in the
 * unit that keeps its digits. The wording is the wide one's, so that one can be read as the other.
 */
static void print_daemon(const Object *d) {
        char b[7][32];

        printf("schedfreqd %s: %s, up %s\n", prop_s(d, "Version"),
               prop_b(d, "Paused") ? "PAUSED (policies back under their governors)" : "governing",
               format_duration(b[0], sizeof(b[0]), prop_u(d, "UptimeUSec")));
        printf("Events: %s seen, %s lost, %s late; proc connector: %s\n",
               format_count(b[0], sizeof(b[0]), prop_u(d, "EventsSeen")),
               format_count(b[1], sizeof(b[1]), prop_u(d, "EventsLost")),
               format_count(b[2], sizeof(b[2]), prop_u(d, "EventsLate")), prop_s(d, "ProcConnector"));
        printf("Decisions: %s local, %s remote, %s deferred; %s frequency writes\n",
               format_count(b[0], sizeof(b[0]), prop_u(d, "LocalDecisions")),
               format_count(b[1], sizeof(b[1]), prop_u(d, "RemoteDecisions")),
               format_count(b[2], sizeof(b[2]), prop_u(d, "DeferredDecisions")),
               format_count(b[3], sizeof(b[3]), prop_u(d, "FrequencyWrites")));
        if (prop_u(d, "ReactionLatencyCount") > 0)
                printf("Event to write: p50 < %s, p99 < %s, max %s (%s writes)\n",
                       format_span(b[4], sizeof(b[4]), prop_u(d, "ReactionLatencyP50USec")),
                       format_span(b[5], sizeof(b[5]), prop_u(d, "ReactionLatencyP99USec")),
                       format_span(b[6], sizeof(b[6]), prop_u(d, "ReactionLatencyMaxUSec")),
                       format_count(b[0], sizeof(b[0]), prop_u(d, "ReactionLatencyCount")));
}

/* "3.2 s ago (demand)", or why there is no last change. */
static const char *last_change_text(char *buf, size_t size, const Object *p) {
        char ago[64];

        if (prop_u(p, "LastChangeUSec") > 0)
                snprintf(buf, size, "%s (%s)", format_ago(ago, sizeof(ago), prop_u(p, "LastChangeUSec")),
                         prop_s(p, "LastReason"));
        else
                snprintf(buf, size, "%s", prop_b(p, "Managed") ? "none" : "not managed");
        return buf;
}

/* Every column: driver, the governor taken over, the remote rule and the decisions by kind (~120 columns). */
static void print_policies_wide(const Snapshot *s) {
        printf("\n%-7s %-8s %-14s %-12s %8s %13s %7s %-6s %7s %7s %8s  %s\n", "POLICY", "CPUS", "DRIVER", "TAKEN FROM",
               "CUR MHz", "LIMITS MHz", "DEMAND", "REMOTE", "LOCAL", "REMOTE", "DEFERRED", "LAST CHANGE");
        for (size_t i = 0; i < s->n_policies; i++) {
                const Object *p = &s->policies[i];
                char cpus[64], limits[48], name[32], last[128];
                bool managed = prop_b(p, "Managed");

                snprintf(name, sizeof(name), "policy%" PRIu64, prop_u(p, "Id"));
                snprintf(limits, sizeof(limits), "%" PRIu64 "-%" PRIu64, prop_u(p, "MinKHz") / 1000, prop_u(p, "MaxKHz") / 1000);
                printf("%-7s %-8s %-14s %-12s %8" PRIu64 " %13s %7" PRIu64 " %-6s %7" PRIu64 " %7" PRIu64 " %8" PRIu64 "  %s\n",
                       name, format_cpus(cpus, sizeof(cpus), prop_find(p, "CPUs")), prop_s(p, "Driver"),
                       managed ? prop_s(p, "GovernorTakenOverFrom") : "-", prop_u(p, "CurrentKHz") / 1000, limits,
                       prop_u(p, "Demand"), prop_b(p, "RemotePermitted") ? "yes" : "no", prop_u(p, "LocalDecisions"),
                       prop_u(p, "RemoteDecisions"), prop_u(p, "DeferredDecisions"),
                       last_change_text(last, sizeof(last), p));
        }
}

/*
 * What a newcomer reads first, in at most 80 columns: where each policy runs, between which limits, how loaded
 * it is and when it last moved. The CPU lists size their column (a big.LITTLE "0-3" or a sparse "0,2,4,6"); the
 * rest is fixed. Driver, governor and the decision counts are in --wide, `explain` and the summary above.
 */
static void print_policies(const Snapshot *s) {
        int name_w = (int) strlen("POLICY"), cpus_w = (int) strlen("CPUS");

        for (size_t i = 0; i < s->n_policies; i++) {
                char cpus[64], name[32];

                name_w = MAX(name_w, snprintf(name, sizeof(name), "policy%" PRIu64, prop_u(&s->policies[i], "Id")));
                cpus_w = MAX(cpus_w, (int) strlen(format_cpus(cpus, sizeof(cpus), prop_find(&s->policies[i], "CPUs"))));
        }
        printf("\n%-*s  %-*s  %7s  %10s  %11s  %s\n", name_w, "POLICY", cpus_w, "CPUS", "CUR MHz", "LIMITS MHz",
               "DEMAND/1024", "LAST CHANGE");
        for (size_t i = 0; i < s->n_policies; i++) {
                const Object *p = &s->policies[i];
                char cpus[64], limits[48], name[32], last[128];

                snprintf(name, sizeof(name), "policy%" PRIu64, prop_u(p, "Id"));
                snprintf(limits, sizeof(limits), "%" PRIu64 "-%" PRIu64, prop_u(p, "MinKHz") / 1000, prop_u(p, "MaxKHz") / 1000);
                printf("%-*s  %-*s  %7" PRIu64 "  %10s  %11" PRIu64 "  %s\n", name_w, name, cpus_w,
                       format_cpus(cpus, sizeof(cpus), prop_find(p, "CPUs")), prop_u(p, "CurrentKHz") / 1000, limits,
                       prop_u(p, "Demand"), last_change_text(last, sizeof(last), p));
        }
}

/* 60 columns: the same in both layouts. */
static void print_cpus(const Snapshot *s) {
        printf("\n%-5s %-7s %5s %9s %13s %12s %5s\n", "CPU", "POLICY", "UTIL", "UTIL_AVG", "UTIL_EST_SUM", "RUNNABLE_RT", "BUSY");
        for (size_t i = 0; i < s->n_cpus; i++) {
                const Object *c = &s->cpus[i];

                printf("%-5" PRIu64 " %-7" PRIu64 " %5" PRIu64 " %9" PRIu64 " %13" PRIu64 " %12" PRIu64 " %5s\n",
                       prop_u(c, "Id"), prop_u(c, "Policy"), prop_u(c, "Util"), prop_u(c, "UtilAvg"),
                       prop_u(c, "UtilEstSum"), prop_u(c, "RunnableRT"), prop_b(c, "Busy") ? "yes" : "no");
        }
}

/* @wide: today's full table (~120 columns); otherwise at most 80, for a terminal's default size. */
static void print_status(const Snapshot *s, bool wide) {
        if (wide) {
                print_daemon_wide(&s->daemon);
                print_policies_wide(s);
        } else {
                print_daemon(&s->daemon);
                print_policies(s);
        }
        for (size_t i = 0; i < s->n_policies; i++)
                print_policy_state(&s->policies[i], wide);
        print_cpus(s);
}

int verb_status(sd_bus *bus, const CtlOptions *o, char **args) {
        Snapshot s;
        int r;

        r = snapshot_read(bus, o->address, &s);
        if (r < 0)
                return r;
        if (o->json)
                r = print_json(&s);
        else
                print_status(&s, o->wide);
        snapshot_done(&s);
        return stdout_done(r);
}

static void on_sigint(int sig) {
        interrupted = 1;
}

int verb_watch(sd_bus *bus, const CtlOptions *o, char **args) {
        struct sigaction sa = { .sa_handler = on_sigint };
        bool tty = isatty(STDOUT_FILENO);

        (void) sigaction(SIGINT, &sa, NULL);
        (void) sigaction(SIGTERM, &sa, NULL);
        for (unsigned n = 0; !interrupted && (o->count == 0 || n < o->count); n++) {
                Snapshot s;
                int r;

                if (n > 0) {
                        struct timespec ts = {
                                .tv_sec = (time_t) o->interval_s,
                                .tv_nsec = (long) ((o->interval_s - floor(o->interval_s)) * 1e9),
                        };
                        /* EINTR on Ctrl-C ends the wait early; the loop condition ends the watch. */
                        (void) nanosleep(&ts, NULL);
                        if (interrupted)
                                break;
                }
                r = snapshot_read(bus, o->address, &s);
                if (r < 0)
                        return r;
                if (o->json)
                        r = print_json(&s);
                else {
                        if (tty)
                                fputs("\033[H\033[2J", stdout);
                        else if (n > 0)
                                putchar('\n');
                        print_status(&s, o->wide);
                }
                snapshot_done(&s);
                r = stdout_done(r);
                if (r < 0)
                        return r;
        }
        return 0;
}
