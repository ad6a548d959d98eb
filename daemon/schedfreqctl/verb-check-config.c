/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * verb-check-config.c: `check-config FILE` loads FILE (and its drop-ins) with config.c, then holds the policies
 * it names against a topology: this machine's cpufreq policies (read-only), or --topology T.ini. A missing
 * policy is a warning, an error with --strict. The only verb that speaks no D-Bus.
 */

#include <stdio.h>
#include <string.h>

#include "config.h"
#include "cpufreq-sysfs.h"
#include "macro.h"
#include "topology.h"
#include "verb-check-config.h"

/*
 * check-config's topology: --topology FILE, else this machine's. Returns 0 with *@ret set, or NULL when the
 * machine has no readable cpufreq topology and --strict was not given (the check is then skipped, and
 * *@ret_skipped says why, for the verdict); a negative errno after printing why.
 */
/* --topology FILE: its policies (its own function: gcc 12's -fanalyzer takes a _cleanup_free_ variable initialised
 * to NULL for uninitialised on an early return before its use, docs/reliability.md, "Static analysis"). */
static int check_config_topology_file(const char *path, Topology **ret) {
        _cleanup_free_ char *error = NULL;
        int r = topology_load(path, ret, &error);

        if (r < 0)
                fprintf(stderr, "%s\n", error ?: strerror(-r));
        return r;
}

static int check_config_topology(const CtlOptions *o, Topology **ret, const char **ret_skipped) {
        int r;

        *ret = NULL;
        *ret_skipped = NULL;
        if (o->topology)
                return check_config_topology_file(o->topology, ret);

        r = cpufreq_discover(ret);
        if (r >= 0)
                return 0;
        if (!o->strict) {
                *ret_skipped = r == -ENODEV ? "no cpufreq driver" : strerror(-r);
                return 0;
        }
        if (r == -ENODEV)
                fprintf(stderr, "No cpufreq policies under %s for --strict to check against (no cpufreq driver?); "
                        "describe the target machine with --topology FILE (from `schedfreqd topology`).\n",
                        SYSFS_CPU_DIR);
        else
                fprintf(stderr, "Failed to read the cpufreq topology under %s for --strict: %s; describe the target "
                        "machine with --topology FILE.\n", SYSFS_CPU_DIR, strerror(-r));
        return r;
}

/* analyze: false positive: warnings is initialised to NULL; gcc 12 at -O2 reports freep() reading it
 * uninitialised on an early return (not at -O0; docs/reliability.md, "Static analysis") */
ANALYZER_FALSE_POSITIVE_BEGIN("-Wanalyzer-use-of-uninitialized-value")
int verb_check_config(sd_bus *bus, const CtlOptions *o, char **args) {
        _cleanup_(topology_freep) Topology *t = NULL;
        _cleanup_free_ char *error = NULL, *warnings = NULL;
        const char *path = args[0], *skipped;
        Config c;
        int r, n = 0;

        r = config_load(path, false, &c, &error);
        if (r < 0) {
                fprintf(stderr, "%s\n", error ? error : strerror(-r));
                return EXIT_FAILED;
        }

        r = check_config_topology(o, &t, &skipped);
        if (r < 0)
                return EXIT_FAILED;
        if (t) {
                n = config_check_topology(&c, t, &warnings);
                if (n < 0) {
                        fprintf(stderr, "%s: %s\n", path, strerror(-n));
                        return EXIT_FAILED;
                }
        }

        /* An OK that checked less than it usually does says so: the policies are the part a machine can refute. */
        if (n == 0 && skipped) {
                printf("%s: OK\n"
                       "Policy sections and policies= not checked against the machine: %s (--topology FILE "
                       "checks them).\n", path, skipped);
                return EXIT_OK;
        }
        if (n == 0) {
                printf("%s: OK\n", path);
                return EXIT_OK;
        }
        fprintf(stderr, "%s\n", warnings);
        if (o->strict) {
                fprintf(stderr, "%s: rejected by --strict: %d policy reference%s that do%s not exist.\n", path, n,
                        n == 1 ? "" : "s", n == 1 ? "es" : "");
                return EXIT_FAILED;
        }
        printf("%s: OK, with %d warning%s (errors with --strict)\n", path, n, n == 1 ? "" : "s");
        return EXIT_OK;
}
ANALYZER_FALSE_POSITIVE_END
