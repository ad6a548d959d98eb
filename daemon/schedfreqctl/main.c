/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * schedfreqctl: a thin D-Bus client of schedfreqd (include/schedfreqd-dbus.h, docs/dbus.md). It speaks only
 * D-Bus, except `check-config`, which validates a file with the daemon's own parser and needs no daemon (it
 * reads the machine's cpufreq topology, read-only, to check the policies the file names; or --topology T.ini).
 *
 * main.c: the options, and the verb table that dispatches the command (as systemd's dispatch_verb() does).
 * The verbs are in verb-*.c, one concern each; the exit codes in schedfreqctl.h.
 */

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "call.h"
#include "format.h"
#include "json-writer.h"
#include "macro.h"
#include "schedfreqctl.h"
#include "verb-check-config.h"
#include "verb-control.h"
#include "verb-explain.h"
#include "verb-metrics.h"
#include "verb-rules.h"
#include "usage.h"
#include "verb-status.h"
#include "version.h" /* generated: $(BUILD)/include/version.h */

#define VERB_ANY UINT_MAX

typedef enum VerbFlags {
        VERB_DEFAULT = 1 << 0,   /* the verb when none is given */
        VERB_OFFLINE = 1 << 1,   /* needs no bus (called with NULL); --strict and --topology are not refused */
        VERB_JSON    = 1 << 2,   /* prints data, and prints it as JSON with --json; a verb without it refuses it */
} VerbFlags;

typedef struct Verb {
        const char *name;
        unsigned min_args, max_args;    /* after the verb's name; VERB_ANY: no limit */
        VerbFlags flags;
        const char *args_usage;         /* the message when the count is wrong; NULL: "Too few/many arguments" */
        int (*run)(sd_bus *bus, const CtlOptions *o, char **args); /* @args: NULL-terminated; 0 or -errno */
} Verb;

static int verb_version(sd_bus *bus, const CtlOptions *o, char **args) {
        JsonWriter w;

        if (!o || !o->json) {
                printf("schedfreqctl %s\n", VERSION_STRING);
                return stdout_done(0);
        }
        json_writer_init(&w, stdout, 0);
        json_object_begin(&w);
        json_member_string(&w, "version", VERSION_STRING);
        json_object_end(&w);
        return stdout_done(json_writer_end(&w));
}

static const Verb verbs[] = {
        { "status",       0, 0,        VERB_DEFAULT | VERB_JSON, NULL,               verb_status },
        { "watch",        0, 0,        VERB_JSON,    NULL,                           verb_watch },
        { "explain",      0, 1,        VERB_JSON,    NULL,                           verb_explain },
        { "rules",        0, 0,        VERB_JSON,    NULL,                           verb_rules },
        { "metrics",      0, 0,        0,            NULL,                           verb_metrics },
        { "reload",       0, 0,        0,            NULL,                           verb_reload },
        { "pause",        0, 0,        0,            NULL,                           verb_pause },
        { "resume",       0, 0,        0,            NULL,                           verb_resume },
        { "check-config", 1, 1,        VERB_OFFLINE | VERB_JSON, "'check-config' takes one FILE.", verb_check_config },
        { "version",      0, VERB_ANY, VERB_OFFLINE | VERB_JSON, NULL,               verb_version },
};

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
               "      --json           status, watch (one object per refresh), explain, rules,\n"
               "                       check-config, version: JSON for scripts\n"
               "      --wide           status/watch: every column (~120 wide: driver, governor taken\n"
               "                       over, decisions by kind); explain: lines not broken at 80\n"
               "                       columns; the default fits 80 columns\n"
               "      --count N        watch: stop after N refreshes\n"
               "      --interval SEC   watch: seconds between refreshes (default 1)\n"
               "  -n, --decisions N    explain: list up to N recent decisions per policy (default 5)\n"
               "      --address ADDR   the bus to use (default: $DBUS_SYSTEM_BUS_ADDRESS, else the system bus)\n"
               "      --strict         check-config: a policy that does not exist is an error\n"
               "      --topology T.ini check-config: check against this description (`schedfreqd topology`)\n"
               "                       instead of this machine's cpufreq policies\n"
               "  -h, --help           this help\n"
               "      --version        print the version (and the git commit it was built from)\n"
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

/* ':' first: a missing value is ':', not '?'. */
#define SHORT_OPTIONS ":n:h"

enum { ARG_JSON = 0x100, ARG_WIDE, ARG_COUNT, ARG_INTERVAL, ARG_ADDRESS, ARG_VERSION, ARG_STRICT, ARG_TOPOLOGY };

static const struct option options[] = {
        { "json", no_argument, NULL, ARG_JSON },
        { "wide", no_argument, NULL, ARG_WIDE },
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

/* One option of getopt_long()'s into @o: 1 to go on, 0 when done (-h, --version), -EINVAL after saying why. */
static int parse_option(int c, const char *value, CtlOptions *o) {
        char *end;

        switch (c) {
        case ARG_JSON:
                o->json = true;
                return 1;
        case ARG_WIDE:
                o->wide = true;
                return 1;
        case ARG_COUNT:
                if (parse_unsigned(value, &o->count) < 0 || o->count == 0) {
                        usage_error("schedfreqctl", "--count wants a positive number, not '%s'.", value);
                        return -EINVAL;
                }
                return 1;
        case ARG_INTERVAL:
                o->interval_s = strtod(value, &end);
                if (end == value || *end != '\0' || !(o->interval_s >= 0.05 && o->interval_s <= 3600)) {
                        usage_error("schedfreqctl", "--interval wants seconds between 0.05 and 3600, not '%s'.", value);
                        return -EINVAL;
                }
                return 1;
        case 'n':
                if (parse_unsigned(value, &o->decisions) < 0) {
                        usage_error("schedfreqctl", "--decisions wants a number, not '%s'.", value);
                        return -EINVAL;
                }
                return 1;
        case ARG_ADDRESS:
                o->address = value;
                return 1;
        case 'h':
                help();
                return 0;
        case ARG_VERSION:
                (void) verb_version(NULL, o, NULL);
                return 0;
        case ARG_STRICT:
                o->strict = true;
                return 1;
        case ARG_TOPOLOGY:
                o->topology = value;
                return 1;
        default:
                return -EINVAL; /* not an option of ours: getopt's '?' and ':' are reported by parse_argv() */
        }
}

/* The options into @o, as parse_option() returns; optind is then the verb's index (argc: none given). */
static int parse_argv(int argc, char **argv, CtlOptions *o) {
        int c, r;

        /* Our own messages (usage_option_error()): getopt's would name argv[0] as typed ("build/schedfreqctl"). */
        opterr = 0;
        while ((c = getopt_long(argc, argv, SHORT_OPTIONS, options, NULL)) >= 0) {
                if (c == '?' || c == ':') {
                        usage_option_error("schedfreqctl", argv, c, SHORT_OPTIONS);
                        return -EINVAL;
                }
                r = parse_option(c, optarg, o);
                if (r <= 0)
                        return r;
        }
        return 1;
}

/* The edge: what a verb's negative errno means as the exit status (schedfreqctl.h; the failure already said). */
static int exit_code_from_errno(int r) {
        if (r >= 0)
                return EXIT_OK;
        switch (-r) {
        case EINVAL:
                return EXIT_USAGE;
        case ESRCH:
                return EXIT_NOT_RUNNING;
        case EACCES:
        case EPERM:
                return EXIT_DENIED;
        default:
                return EXIT_FAILED;
        }
}

static const Verb *verb_find(const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
                if (name ? streq(verbs[i].name, name) : (verbs[i].flags & VERB_DEFAULT))
                        return &verbs[i];
        return NULL;
}

/*
 * Runs the verb argv[0] (none: the default) with the arguments after it, as the table says: the checks of the
 * command line first (exit 2), then the bus connection (exit 3) for a verb that needs one.
 */
static int dispatch_verb(int argc, char **argv, const CtlOptions *o) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        const Verb *v = verb_find(argc > 0 ? argv[0] : NULL);
        unsigned n_args = argc > 0 ? (unsigned) argc - 1 : 0;
        int r;

        if ((!v || !(v->flags & VERB_OFFLINE)) && (o->strict || o->topology)) {
                usage_error("schedfreqctl", "--strict and --topology apply to check-config only.");
                return EXIT_USAGE;
        }
        if (!v) {
                usage_error("schedfreqctl", "Unknown command '%s'.", argv[0]);
                return EXIT_USAGE;
        }
        if (o->json && !(v->flags & VERB_JSON)) {
                /* Accepting it and printing text would break the script that asked for JSON. */
                usage_error("schedfreqctl", "--json: '%s' %s.", v->name,
                            streq(v->name, "metrics") ? "prints the OpenMetrics text format (the same values as "
                                                        "JSON: 'status --json')"
                                                      : "prints no data (its exit status is the answer)");
                return EXIT_USAGE;
        }
        if (n_args < v->min_args || n_args > v->max_args) {
                if (v->args_usage)
                        usage_error("schedfreqctl", "%s", v->args_usage);
                else
                        usage_error("schedfreqctl", "Too %s arguments for '%s'.", n_args < v->min_args ? "few" : "many",
                                    v->name);
                return EXIT_USAGE;
        }

        if (!(v->flags & VERB_OFFLINE)) {
                r = connect_bus(o->address, &bus);
                if (r < 0)
                        return exit_code_from_errno(r);
        }
        return exit_code_from_errno(v->run(bus, o, argc > 0 ? argv + 1 : argv)); /* none: argv[0] is argv's NULL */
}

int main(int argc, char **argv) {
        CtlOptions o = {
                .interval_s = 1.0,
                .decisions = 5,
        };
        int r;

        r = parse_argv(argc, argv, &o);
        if (r <= 0)
                return r < 0 ? EXIT_USAGE : EXIT_OK;
        return dispatch_verb(argc - optind, argv + optind, &o);
}
