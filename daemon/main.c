/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * main.c: command line and verbs. Everything else lives in its module:
 *   schedfreqd [OPTIONS]            the daemon (manager.c)
 *   schedfreqd topology             print the machine's cpufreq policies (cpufreq-sysfs.c, topology.c)
 *   schedfreqd restore              put back what a crashed daemon's state file says (actuator.c), never
 *                                   under a live daemon unless --force
 *   schedfreqd replay               run a `perf script` trace through the engine (replay.c)
 */

#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
               "      --lock-file F    instance lock (default: \"lock\" beside the state file)\n"
               "      --force          restore: even while a running schedfreqd owns the policies\n"
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

/*
 * The instance lock tells the two cases apart. Held by a live daemon: the state file is its own, and it puts
 * the policies back itself when it stops; restoring under it would fight it (refused without --force). Free:
 * the file was left by a daemon that did not exit cleanly, and restoring is what to do. Kept while restoring,
 * so that no daemon starts halfway through. Returns 1 when taken (a crash's leftovers), 0 when forced past.
 */
static int restore_lock(const char *state_path, const char *lock_path, bool force, int *ret_fd) {
        _cleanup_free_ char *error = NULL;
        pid_t pid = 0;
        int r;

        r = actuator_lock_take(lock_path, ret_fd, &pid, &error);
        if (r == -EBUSY && !force)
                return log_error_errno(r, "%s belongs to the running schedfreqd (PID %d, holding %s), which puts the "
                                       "policies back itself when it stops: not restoring under it. Stop it instead "
                                       "(systemctl stop schedfreqd, or kill -TERM %d); --force restores anyway.",
                                       state_path, (int) pid, lock_path, (int) pid);
        if (r == -EBUSY) {
                log_warning("%s belongs to the running schedfreqd (PID %d); restoring under it (--force).", state_path,
                            (int) pid);
                return 0;
        }
        if (r < 0 && !force)
                return log_error_errno(r, "Cannot tell whether a schedfreqd still owns %s: %s: %m (--force restores "
                                       "anyway).", state_path, error ? error : lock_path);
        /* Not the PID the lock file named before: any later start that failed took the lock too. */
        return r >= 0;
}

/* analyze: false positive: error is initialised to NULL; gcc 12 at -O2 reports freep() reading it
 * uninitialised on an early return (not at -O0; docs/reliability.md, "Static analysis") */
ANALYZER_FALSE_POSITIVE_BEGIN("-Wanalyzer-use-of-uninitialized-value")
static int verb_restore(const char *state_path, const char *lock_path, bool force) {
        _cleanup_free_ char *error = NULL;
        _cleanup_close_ int lock_fd = -EBADF;
        bool crashed;
        int r;

        if (access(state_path, F_OK) < 0 && errno == ENOENT) {
                log_info("Nothing to restore (%s does not exist).", state_path);
                return 0;
        }
        r = restore_lock(state_path, lock_path, force, &lock_fd);
        if (r < 0)
                return r;
        crashed = r > 0;

        r = actuator_restore_from_state_file(state_path, force, &error);
        if (r == -EINVAL)
                return log_error_errno(r, "%s\n%s is kept and nothing was written: put the policies back by hand and "
                                       "remove it.", error ? error : strerror(-r), state_path);
        if (r < 0)
                return log_error_errno(r, "Failed to restore from %s: %s", state_path, error ? error : strerror(-r));
        if (r == 0)
                log_info("Nothing to restore (%s does not exist).", state_path);
        else if (crashed)
                log_info("Restored cpufreq policies from %s, left by a schedfreqd that did not exit cleanly.",
                         state_path);
        else
                log_info("Restored cpufreq policies from %s.", state_path);
        return 0;
}
ANALYZER_FALSE_POSITIVE_END

/* analyze: false positive: error is initialised to NULL; gcc 12 at -O2 reports freep() reading it
 * uninitialised on an early return (not at -O0; docs/reliability.md, "Static analysis") */
ANALYZER_FALSE_POSITIVE_BEGIN("-Wanalyzer-use-of-uninitialized-value")
static int verb_replay(const char *topology_path, const char *config_path, bool config_given, const char *trace,
                       bool print_util) {
        _cleanup_(topology_freep) Topology *topo = NULL;
        _cleanup_free_ char *in_buffer = NULL; /* declared before owned: freed after it is closed */
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
        if (topo->n_policies == 0)
                return log_error_errno(SYNTHETIC_ERRNO(EINVAL), "%s: no [policyN] section: no policy to replay.",
                                       topology_path);

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
                /* Only a speed-up (REPLAY_READ_BUFFER_SIZE), so none without the memory. */
                in_buffer = malloc(REPLAY_READ_BUFFER_SIZE);
                if (in_buffer)
                        (void) setvbuf(owned, in_buffer, _IOFBF, REPLAY_READ_BUFFER_SIZE);
                in = owned;
        } else
                trace = "<stdin>";

        r = replay_run(in, trace, topo, &cfg, print_util ? REPLAY_PRINT_UTIL : 0, stdout, &stats, &error);
        if (r < 0)
                return log_error_errno(r, "%s", error ? error : strerror(-r));
        if (stats.late_events > 0)
                log_warning("%s: %" PRIu64 " events out of order (up to %" PRIu64 " µs), applied at the latest time.",
                            trace, stats.late_events, stats.late_max_ns / 1000);

        log_debug("%s: %" PRIu64 " lines, %" PRIu64 " events, %" PRIu64 " skipped, %" PRIu64 " changes", trace,
                  stats.lines, stats.events, stats.skipped, stats.changes);
        return 0;
}
ANALYZER_FALSE_POSITIVE_END

/*
 * Started with stdin, stdout or stderr closed (`2>&-`), the next open(2) would get that number, and log lines or
 * decisions would land in whatever file it is: a scaling_setspeed, the state file. /dev/null takes it instead.
 */
static int std_fds_ensure(void) {
        for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++) {
                int null_fd;

                if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
                        continue;
                /* The lower numbers are open, so this one is the lowest free: open(2) returns it. */
                null_fd = open("/dev/null", (fd == STDIN_FILENO ? O_RDONLY : O_WRONLY) | O_NOCTTY);
                if (null_fd < 0)
                        return -errno;
                if (null_fd != fd) {
                        (void) close(null_fd);
                        return -EBADF;
                }
        }
        return 0;
}

int main(int argc, char **argv) {
        enum { ARG_VERSION = 0x100, ARG_STATE_FILE, ARG_LOCK_FILE, ARG_FORCE, ARG_PRINT_DECISIONS, ARG_PRINT_UTIL,
               ARG_BUS_ADDRESS, ARG_NO_BUS };
        static const struct option options[] = {
                { "config", required_argument, NULL, 'c' },
                { "topology", required_argument, NULL, 't' },
                { "state-file", required_argument, NULL, ARG_STATE_FILE },
                { "lock-file", required_argument, NULL, ARG_LOCK_FILE },
                { "force", no_argument, NULL, ARG_FORCE },
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
        _cleanup_free_ char *default_lock_path = NULL;
        bool config_given = false, print_util = false, force = false;
        int c, verbose = 0, r;

        while ((c = getopt_long(argc, argv, "c:t:vh", options, NULL)) >= 0) {
                switch (c) {
                case 'c':
                        opts.config_path = optarg;
                        opts.config_must_exist = config_given = true;
                        break;
                case 't':
                        topology_path = optarg;
                        break;
                case ARG_STATE_FILE:
                        opts.state_path = optarg;
                        break;
                case ARG_LOCK_FILE:
                        opts.lock_path = optarg;
                        break;
                case ARG_FORCE:
                        force = true;
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

        r = std_fds_ensure();
        if (r < 0)
                return log_error_errno(r, "Failed to open /dev/null: %m"), EXIT_FAILURE;

        /* The daemon and restore take the same instance lock: by default "lock" beside the state file. */
        if (!opts.lock_path) {
                if (actuator_lock_path(opts.state_path, &default_lock_path) < 0)
                        return log_oom(), EXIT_FAILURE;
                opts.lock_path = default_lock_path;
        }

        if (optind >= argc) {
                r = manager_run(&opts);
        } else if (streq(argv[optind], "topology")) {
                r = verb_topology();
        } else if (streq(argv[optind], "replay")) {
                if (argc - optind > 2)
                        return log_error("replay takes one trace file (or -)."), EXIT_FAILURE;
                r = verb_replay(topology_path, opts.config_path, config_given, argv[optind + 1], print_util);
        } else if (streq(argv[optind], "restore")) {
                r = verb_restore(opts.state_path, opts.lock_path, force);
        } else {
                log_error("Unknown verb '%s' (try --help).", argv[optind]);
                return EXIT_FAILURE;
        }

        return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
