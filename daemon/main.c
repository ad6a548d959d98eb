/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * main.c: command line and verbs. Everything else lives in its module:
 *   schedfreqd [OPTIONS]            the daemon (manager.c)
 *   schedfreqd topology             print the machine's cpufreq policies (cpufreq-sysfs.c, topology.c)
 *   schedfreqd restore              put back what a crashed daemon's state file says (actuator.c)
 *   schedfreqd replay               run a `perf script` trace through the engine (replay.c)
 */

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actuator.h"
#include "config.h"
#include "cpufreq-sysfs.h"
#include "log.h"
#include "manager.h"
#include "replay.h"
#include "topology.h"

static void help(void) {
        printf("Usage: schedfreqd [OPTIONS] [VERB]\n"
               "\n"
               "A userspace schedutil: sets CPU frequencies from scheduler events.\n"
               "\n"
               "Verbs:\n"
               "  (none)               run the daemon\n"
               "  topology             print this machine's cpufreq policies (topology INI)\n"
               "  restore              restore policies from a crashed daemon's state file\n"
               "  replay [TRACE|-]     replay `perf script` output (needs --topology); prints\n"
               "                       t=<ns> policy=<cpu> freq=<kHz> cpu=<cpu> kind=<local|remote> util=<u>\n"
               "\n"
               "Options:\n"
               "  -c, --config FILE    configuration file (default " CONFIG_DEFAULT_PATH ")\n"
               "      --state-file F   take-over state file (default " STATE_DEFAULT_PATH ")\n"
               "  -t, --topology FILE  topology INI for replay (what `schedfreqd topology` prints)\n"
               "      --print-decisions  print one line per frequency change on stdout\n"
               "      --print-util     replay: also print each CPU's signals when they change:\n"
               "                       t=<ns> cpu=<n> util=<u> util_est=<u> runnable=<u> rt=<u> eff=<u>\n"
               "      --bus-address ADDRESS  serve D-Bus on ADDRESS instead of the system bus\n"
               "      --no-bus         run without D-Bus\n"
               "  -v, --verbose        more logging (repeat for debug)\n"
               "  -h, --help           this help\n"
               "      --version        print the version\n");
}

static int verb_topology(void) {
        _cleanup_(topology_freep) Topology *t = NULL;
        int r;

        r = cpufreq_discover(&t);
        if (r == -ENODEV)
                return log_error_errno(r, "No cpufreq policies under /sys/devices/system/cpu (no cpufreq driver loaded?)");
        if (r < 0)
                return log_error_errno(r, "Failed to read the cpufreq topology: %m");

        r = topology_write(stdout, t);
        if (r < 0)
                return log_error_errno(r, "Failed to write the topology: %m");
        return 0;
}

static int verb_restore(const char *state_path) {
        _cleanup_free_ char *error = NULL;
        int r;

        r = actuator_restore_from_state_file(state_path, &error);
        if (r < 0)
                return log_error_errno(r, "Failed to restore from %s: %s", state_path, error ? error : strerror(-r));
        if (r == 0)
                log_info("Nothing to restore (%s does not exist).", state_path);
        else
                log_info("Restored cpufreq policies from %s.", state_path);
        return 0;
}

static int verb_replay(const char *topology_path, const char *config_path, bool config_given, const char *trace,
                       bool print_util) {
        _cleanup_(topology_freep) Topology *topo = NULL;
        _cleanup_fclose_ FILE *owned = NULL;
        _cleanup_free_ char *error = NULL;
        ReplayStats stats = {};
        Config cfg;
        FILE *in = stdin;
        int r;

        if (!topology_path)
                return log_error_errno(SYNTHETIC_ERRNO(EINVAL), "replay needs --topology FILE "
                                       "(run 'schedfreqd topology' on the traced machine to get one).");

        r = topology_load(topology_path, &topo, &error);
        if (r < 0)
                return log_error_errno(r, "%s", error ? error : strerror(-r));

        /* Replay uses the built-in defaults unless a config file is named explicitly. */
        if (config_given) {
                r = config_load(config_path, false, &cfg, &error);
                if (r < 0)
                        return log_error_errno(r, "%s", error ? error : strerror(-r));
        } else
                config_set_defaults(&cfg);

        if (trace && !streq(trace, "-")) {
                owned = fopen(trace, "re");
                if (!owned)
                        return log_error_errno(errno, "%s: %m", trace);
                in = owned;
        } else
                trace = "<stdin>";

        r = replay_run(in, trace, topo, &cfg, print_util ? REPLAY_PRINT_UTIL : 0, stdout, &stats, &error);
        if (r < 0)
                return log_error_errno(r, "%s", error ? error : strerror(-r));

        log_debug("%s: %" PRIu64 " lines, %" PRIu64 " events, %" PRIu64 " skipped, %" PRIu64 " changes", trace,
                  stats.lines, stats.events, stats.skipped, stats.changes);
        return 0;
}

int main(int argc, char **argv) {
        enum { ARG_VERSION = 0x100, ARG_STATE_FILE, ARG_PRINT_DECISIONS, ARG_PRINT_UTIL, ARG_BUS_ADDRESS, ARG_NO_BUS };
        static const struct option options[] = {
                { "config", required_argument, NULL, 'c' },
                { "topology", required_argument, NULL, 't' },
                { "state-file", required_argument, NULL, ARG_STATE_FILE },
                { "print-decisions", no_argument, NULL, ARG_PRINT_DECISIONS },
                { "print-util", no_argument, NULL, ARG_PRINT_UTIL },
                { "bus-address", required_argument, NULL, ARG_BUS_ADDRESS },
                { "no-bus", no_argument, NULL, ARG_NO_BUS },
                { "verbose", no_argument, NULL, 'v' },
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, ARG_VERSION },
                {}
        };
        ManagerOptions opts = {
                .config_path = CONFIG_DEFAULT_PATH,
                .state_path = STATE_DEFAULT_PATH,
        };
        const char *topology_path = NULL;
        bool config_given = false, print_util = false;
        int c, verbose = 0, r;

        while ((c = getopt_long(argc, argv, "c:t:vh", options, NULL)) >= 0) {
                switch (c) {
                case 'c':
                        opts.config_path = optarg;
                        config_given = true;
                        break;
                case 't':
                        topology_path = optarg;
                        break;
                case ARG_STATE_FILE:
                        opts.state_path = optarg;
                        break;
                case ARG_PRINT_UTIL:
                        print_util = true;
                        break;
                case ARG_PRINT_DECISIONS:
                        opts.print_decisions = true;
                        break;
                case ARG_BUS_ADDRESS:
                        opts.bus_address = optarg;
                        break;
                case ARG_NO_BUS:
                        opts.no_bus = true;
                        break;
                case 'v':
                        verbose++;
                        break;
                case 'h':
                        help();
                        return EXIT_SUCCESS;
                case ARG_VERSION:
                        printf("schedfreqd %s\n", VERSION);
                        return EXIT_SUCCESS;
                default:
                        return EXIT_FAILURE;
                }
        }

        if (verbose > 0)
                log_set_max_level(LOG_DEBUG);

        if (optind >= argc) {
                r = manager_run(&opts);
        } else if (streq(argv[optind], "topology")) {
                r = verb_topology();
        } else if (streq(argv[optind], "replay")) {
                if (argc - optind > 2)
                        return log_error("replay takes one trace file (or -)."), EXIT_FAILURE;
                r = verb_replay(topology_path, opts.config_path, config_given, argv[optind + 1], print_util);
        } else if (streq(argv[optind], "restore")) {
                r = verb_restore(opts.state_path);
        } else {
                log_error("Unknown verb '%s' (try --help).", argv[optind]);
                return EXIT_FAILURE;
        }

        return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
