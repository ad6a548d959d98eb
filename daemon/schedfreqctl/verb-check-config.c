/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * verb-check-config.c: `check-config FILE` loads FILE (and its drop-ins) with config-load.c, then holds the policies
 * it names against a topology: this machine's cpufreq policies (read-only), or --topology T.ini. A missing
 * policy is a warning, an error with --strict. The only verb that speaks no D-Bus.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "format.h"
#include "json-writer.h"
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

/* What check-config found, for either form of the verdict. */
typedef struct Verdict {
        const char *path;
        const char *error;       /* the configuration was rejected: "FILE:LINE: ..." */
        const char *warnings;    /* policy references that do not exist, a line each; NULL: none */
        int n_warnings;
        const char *skipped;     /* why the policies were not checked against a machine; NULL: they were */
        bool strict;
} Verdict;

static void json_lines(JsonWriter *w, const char *key, const char *text) {
        json_key(w, key);
        json_array_begin(w);
        for (const char *p = text; p && *p;) {
                size_t n = strcspn(p, "\n");

                if (n > 0)
                        json_string_n(w, p, n);
                p += n + (p[n] == '\n');
        }
        json_array_end(w);
}

/* --json: {"file", "valid", "error" (when not valid), "warnings" [...], "policies_checked", "skipped"}. */
static int print_verdict_json(const Verdict *v, bool valid) {
        JsonWriter w;

        json_writer_init(&w, stdout, 0);
        json_object_begin(&w);
        json_member_string(&w, "file", v->path);
        json_member_bool(&w, "valid", valid);
        if (v->error)
                json_member_string(&w, "error", v->error);
        json_lines(&w, "warnings", v->warnings);
        json_member_bool(&w, "policies_checked", !v->error && !v->skipped);
        if (v->skipped)
                json_member_string(&w, "skipped", v->skipped);
        json_object_end(&w);
        return stdout_done(json_writer_end(&w)) < 0 ? -EIO : valid ? 0 : -EBADMSG;
}

static int print_verdict_text(const Verdict *v) {
        int n = v->n_warnings;

        if (v->error) {
                fprintf(stderr, "%s\n", v->error);
                return -EBADMSG;
        }
        /* An OK that checked less than it usually does says so: the policies are the part a machine can refute. */
        if (n == 0 && v->skipped) {
                printf("%s: OK\n"
                       "Policy sections and policies= not checked against the machine: %s (--topology FILE "
                       "checks them).\n", v->path, v->skipped);
                return stdout_done(0);
        }
        if (n == 0) {
                printf("%s: OK\n", v->path);
                return stdout_done(0);
        }
        fprintf(stderr, "%s\n", v->warnings);
        if (v->strict) {
                fprintf(stderr, "%s: rejected by --strict: %d policy reference%s that do%s not exist.\n", v->path, n,
                        n == 1 ? "" : "s", n == 1 ? "es" : "");
                return -EBADMSG;
        }
        printf("%s: OK, with %d warning%s (errors with --strict)\n", v->path, n, n == 1 ? "" : "s");
        return stdout_done(0);
}

/* analyze: false positive: warnings is initialised to NULL; gcc 12 at -O2 reports freep() reading it
 * uninitialised on an early return (not at -O0; docs/reliability.md, "Static analysis") */
ANALYZER_FALSE_POSITIVE_BEGIN("-Wanalyzer-use-of-uninitialized-value")
int verb_check_config(sd_bus *bus, const CtlOptions *o, char **args) {
        _cleanup_(topology_freep) Topology *t = NULL;
        _cleanup_free_ char *error = NULL, *warnings = NULL;
        Verdict v = { .path = args[0], .strict = o->strict };
        Config c;
        int r;

        r = config_load(v.path, false, &c, &error);
        if (r < 0) {
                v.error = error ? error : strerror(-r);
                return o->json ? print_verdict_json(&v, false) : print_verdict_text(&v);
        }

        r = check_config_topology(o, &t, &v.skipped);
        if (r < 0)
                return r == -EINVAL ? -EBADMSG : r; /* reported; a bad --topology file is no usage error */
        if (t) {
                v.n_warnings = config_check_topology(&c, t, &warnings);
                if (v.n_warnings < 0) {
                        fprintf(stderr, "%s: %s\n", v.path, strerror(-v.n_warnings));
                        return v.n_warnings == -EINVAL ? -EBADMSG : v.n_warnings;
                }
                v.warnings = warnings;
        }
        if (o->json)
                return print_verdict_json(&v, v.n_warnings == 0 || !o->strict);
        return print_verdict_text(&v);
}
ANALYZER_FALSE_POSITIVE_END
