/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * verb-status.c: `status` prints one snapshot (the daemon's counters, a policy table, a CPU table); `watch`
 * prints one every --interval seconds, --count times or until SIGINT/SIGTERM, clearing a terminal between them.
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

int verb_status(sd_bus *bus, const CtlOptions *o, char **args) {
        Snapshot s;
        int r;

        r = snapshot_read(bus, o->address, &s);
        if (r < 0)
                return -r;
        if (o->json)
                print_json(&s);
        else
                print_status(&s);
        snapshot_done(&s);
        return fflush(stdout) == 0 ? EXIT_OK : EXIT_FAILED;
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
                        return -r;
                if (o->json)
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
