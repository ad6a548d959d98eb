/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * main.c: command line and verbs. Everything else lives in its module:
 *   schedfreqd [OPTIONS]            the daemon (manager.c) and its D-Bus face (manager-bus.c)
 *   schedfreqd --observe            the daemon changing nothing, beside the kernel's choices (observe.c)
 *   schedfreqd topology [--json]    print the machine's cpufreq policies (cpufreq-discover.c, topology.c,
 *                                   topology-json.c)
 *   schedfreqd restore              put back what a crashed daemon's state file says (actuator.c), never
 *                                   under a live daemon unless --force
 *   schedfreqd replay [--kv|--csv]  run a trace (a perf.data, perf script or ftrace text, a .dat) through the
 *                                   engine (replay.c): a table and a summary for a person (replay-report.c),
 *                                   lines or CSV for scripts
 * Usage errors (an unknown option or verb, a missing or bad value, an extra argument) are one sentence and the
 * hint on stderr and exit status 2, as schedfreqctl's (include/usage.h).
 */

#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "actuator.h"
#include "config.h"
#include "log.h"
#include "manager-bus.h"
#include "manager.h"
#include "replay.h"
#include "topology.h"
#include "usage.h"
#include "version.h" /* generated: $(BUILD)/include/version.h */

/* Exit status of a usage error, as schedfreqctl's (and getopt-based tools': 2). */
#define EXIT_USAGE 2

static void help(void) {
        printf("Usage: schedfreqd [OPTIONS] [VERB]\n"
               "\n"
               "A userspace schedutil: sets CPU frequencies from scheduler events.\n"
               "\n"
               "Verbs:\n"
               "  (none)               run the daemon\n"
               "  (none) --observe     run the model on live events and change nothing; print per\n"
               "                       policy t=<ns> policy=<id> ours=<kHz> kernel=<kHz|-> agree=<%%|->\n"
               "                       changed=<ours|kernel> (the kernel's from power:cpu_frequency)\n"
               "  topology             print this machine's cpufreq policies (topology INI; --json: JSON)\n"
               "  restore              restore policies from a crashed daemon's state file\n"
               "  replay [TRACE|-]     replay a trace (needs --topology): a perf.data,\n"
               "                       `perf script` or ftrace text (trace-cmd report,\n"
               "                       tracefs trace), or a trace-cmd .dat; prints a\n"
               "                       table, a row per frequency change (time since the\n"
               "                       first event, CPU whose event caused it, policy,\n"
               "                       MHz, util, kind local|remote|deferred, reason,\n"
               "                       task comm[pid]), then a summary: decisions by\n"
               "                       kind, deferred waits, time at each frequency per\n"
               "                       policy\n"
               "\n"
               "Options:\n"
               "  -c, --config FILE    configuration file (default " CONFIG_DEFAULT_PATH ")\n"
               "      --state-file F   take-over state file (default " STATE_DEFAULT_PATH ")\n"
               "      --lock-file F    instance lock (default: \"lock\" beside the state file)\n"
               "      --force          restore: even while a running schedfreqd owns the policies\n"
               "  -t, --topology FILE  topology INI for replay (what `schedfreqd topology` prints)\n"
               "      --json           topology: print JSON (the INI's sections and keys)\n"
               "      --observe        see --observe above: no take-over, no writes, no D-Bus name\n"
               "      --events SOURCE  auto, bpf or perf: where events are read and decided; wins\n"
               "                       over [events] source\n"
               "      --print-decisions  print one line per frequency change on stdout, with reason=\n"
               "                       (replay: the --kv lines with reason= and deferred=<ns>)\n"
               "      --absolute-time  replay: the table's times as the trace's own\n"
               "      --kv             replay: key=value lines for scripts instead of the table:\n"
               "                       t=<ns> policy=<cpu> freq=<kHz> cpu=<cpu> kind=<local|remote> util=<u>\n"
               "      --print-util     replay: --kv, and each CPU's signals when they change:\n"
               "                       t=<ns> cpu=<n> util=<u> util_est=<u> runnable=<u> rt=<u> eff=<u>\n"
               "      --csv            replay: CSV instead (time_s,policy,freq_khz,util,cpu,kind,reason)\n"
               "                       (--kv, --print-*, --csv: the summary on stderr)\n"
               "      --bus-address ADDRESS  serve D-Bus on ADDRESS instead of the system bus\n"
               "      --no-bus         run without D-Bus\n"
               "      --log-level LEVEL  err, warning, notice, info or debug; wins over the config's\n"
               "  -q, --quiet          --log-level=warning\n"
               "  -v, --verbose        --log-level=debug\n"
               "  -h, --help           this help\n"
               "      --version        print the version (and the git commit it was built from)\n"
               "\n"
               "Exit status: 0 success, 1 failure, 2 usage error.\n");
}

/* A usage error (include/usage.h): the sentence, the hint; returns -EINVAL (main() exits EXIT_USAGE). */
#define usage_fail(...) (usage_error("schedfreqd", __VA_ARGS__), -EINVAL)

/*
 * The daemon: the manager, and its D-Bus face put on last, once the policies are taken over (an observer takes
 * no bus name), and taken off first, after the restore. The bus is optional (CI namespaces, early boot): the
 * daemon governs without it.
 */
static int verb_daemon(const ManagerOptions *opts) {
        _cleanup_(manager_freep) Manager *m = NULL;
        _cleanup_(manager_bus_freep) ManagerBus *bus = NULL; /* declared after the manager: freed before it */
        int r;

        r = manager_new(opts, &m);
        if (r < 0)
                return r;

        r = manager_start(m);
        if (r < 0)
                return r;

        if (!opts->observe && !opts->no_bus && manager_bus_new(m, &bus) < 0)
                log_warning("No D-Bus, running without it.");

        return manager_run(m);
}

static int verb_topology(bool json) {
        _cleanup_(topology_freep) Topology *t = NULL;
        int r;

        r = cpufreq_discover(&t);
        if (r == -ENODEV)
                /* Lines of <= 80 columns: read in a terminal, most likely a new user's first command. */
                return log_error_errno(r, "No cpufreq policies under /sys/devices/system/cpu: this machine has no\n"
                                          "cpufreq driver (a VM or container?), so there is no topology to print.\n"
                                          "To replay a trace, give --topology the traced machine's ('schedfreqd\n"
                                          "topology' run there) or one of tests/fixtures/topology/*.ini; the format\n"
                                          "is under 'topology' in schedfreqd(8).\n"
                                          "To watch schedfreqd decide on this machine: make run (in the source tree).");
        if (r < 0)
                return log_error_errno(r, "Failed to read the cpufreq topology: %m");

        r = json ? topology_write_json(stdout, t) : topology_write(stdout, t);
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

static int verb_replay(const char *topology_path, const char *config_path, bool config_given, const char *trace,
                       ReplayFlags flags) {
        _cleanup_(topology_freep) Topology *topo = NULL;
        _cleanup_free_ char *in_buffer = NULL; /* declared before owned: freed after it is closed */
        _cleanup_fclose_ FILE *owned = NULL;
        _cleanup_free_ char *error = NULL;
        ReplayStats stats = {};
        Config cfg;
        FILE *in = stdin;
        int r;

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

        r = replay_run(in, trace, topo, &cfg, flags, stdout, &stats, &error);
        if (r < 0)
                return log_error_errno(r, "%s", error ? error : strerror(-r));
        if (stats.lost_gaps > 0)
                log_warning("%s: a CPU's buffer lost events in %" PRIu64 " place%s: the model missed them,\n"
                            "so its decisions after each may differ from the kernel's (a larger buffer:\n"
                            "perf record -m, trace-cmd record -b, buffer_size_kb).", trace, stats.lost_gaps,
                            stats.lost_gaps == 1 ? "" : "s");
        /*
         * Said with its cause: perf script sorts what it read in each flush round by time (ordered_events), so
         * its output is out of order only by an event written while its CPU's buffer was being read, which comes
         * a round late (replay_check_time()). A trace out of order by more was put together by hand.
         */
        if (stats.late_events > 0)
                log_warning("%s: %" PRIu64 " events out of order (up to %" PRIu64 " µs before an earlier line), "
                            "replayed at the latest time.\n"
                            "perf script sorts each flush round by time; an event written while its CPU's buffer "
                            "was read comes a round late.", trace, stats.late_events, stats.late_max_ns / 1000);

        log_debug("%s: %" PRIu64 " lines, %" PRIu64 " events, %" PRIu64 " skipped, %" PRIu64 " changes, %" PRIu64
                  " lost switch-ins inferred, %" PRIu64 " wake-ups onto an idle CPU moved to their enqueue", trace,
                  stats.lines, stats.events, stats.skipped, stats.changes, stats.inferred_switch_ins,
                  stats.redated_wakeups);
        return 0;
}

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

typedef struct Args {
        ManagerOptions opts;
        const char *topology_path;    /* -t */
        const char *verb;             /* "" for the daemon */
        const char *trace;            /* replay's argument, NULL = stdin */
        bool config_given, print_util, force, json, csv, kv, absolute_time;
} Args;

/* The long options (getopt_long(3)) and the short ones (':' first: a missing value is ':', not '?'). */
#define SHORT_OPTIONS ":c:t:qvh"
enum { ARG_VERSION = 0x100, ARG_STATE_FILE, ARG_LOCK_FILE, ARG_FORCE, ARG_PRINT_DECISIONS, ARG_PRINT_UTIL,
       ARG_BUS_ADDRESS, ARG_NO_BUS, ARG_LOG_LEVEL, ARG_JSON, ARG_CSV, ARG_OBSERVE, ARG_EVENTS, ARG_KV,
       ARG_ABSOLUTE_TIME };
static const struct option options[] = {
        { "config", required_argument, NULL, 'c' },
        { "topology", required_argument, NULL, 't' },
        { "state-file", required_argument, NULL, ARG_STATE_FILE },
        { "lock-file", required_argument, NULL, ARG_LOCK_FILE },
        { "force", no_argument, NULL, ARG_FORCE },
        { "print-decisions", no_argument, NULL, ARG_PRINT_DECISIONS },
        { "print-util", no_argument, NULL, ARG_PRINT_UTIL },
        { "csv", no_argument, NULL, ARG_CSV },
        { "kv", no_argument, NULL, ARG_KV },
        { "absolute-time", no_argument, NULL, ARG_ABSOLUTE_TIME },
        { "json", no_argument, NULL, ARG_JSON },
        { "bus-address", required_argument, NULL, ARG_BUS_ADDRESS },
        { "no-bus", no_argument, NULL, ARG_NO_BUS },
        { "observe", no_argument, NULL, ARG_OBSERVE },
        { "events", required_argument, NULL, ARG_EVENTS },
        { "log-level", required_argument, NULL, ARG_LOG_LEVEL },
        { "quiet", no_argument, NULL, 'q' },
        { "verbose", no_argument, NULL, 'v' },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, ARG_VERSION },
        {}
};

/* Options into @a: 1 to go on, 0 when done (--help, --version), -EINVAL after printing a usage error. */
static int set_flag(bool *flag) {
        *flag = true;
        return 1;
}

/* One option that sets something in @a: 1 when @c was one, 0 when it is not, -EINVAL after a usage error. */
static int set_option(int c, Args *a) {
        ManagerOptions *opts = &a->opts;
        int r;

        switch (c) {
        case 'c':
                opts->config_path = optarg;
                opts->config_must_exist = a->config_given = true;
                return 1;
        case 't':
                a->topology_path = optarg;
                return 1;
        case ARG_STATE_FILE:
                opts->state_path = optarg;
                return 1;
        case ARG_LOCK_FILE:
                opts->lock_path = optarg;
                return 1;
        case ARG_FORCE:
                return set_flag(&a->force);
        case ARG_PRINT_UTIL:
                return set_flag(&a->print_util);
        case ARG_PRINT_DECISIONS:
                return set_flag(&opts->print_decisions);
        case ARG_CSV:
                return set_flag(&a->csv);
        case ARG_KV:
                return set_flag(&a->kv);
        case ARG_ABSOLUTE_TIME:
                return set_flag(&a->absolute_time);
        case ARG_JSON:
                return set_flag(&a->json);
        case ARG_BUS_ADDRESS:
                opts->bus_address = optarg;
                return 1;
        case ARG_NO_BUS:
                return set_flag(&opts->no_bus);
        case ARG_OBSERVE:
                return set_flag(&opts->observe);
        case ARG_EVENTS:
                r = event_source_type_from_string(optarg);
                if (r < 0)
                        return usage_fail("--events wants auto, bpf or perf, not '%s'.", optarg);
                opts->events_source = r;
                return 1;
        case ARG_LOG_LEVEL:
                /* The levels the config's log_level takes (log_level_from_string()); the last option wins. */
                r = log_level_from_string(optarg);
                if (r < LOG_ERR)
                        return usage_fail("--log-level wants err, warning, notice, info or debug, not '%s'.", optarg);
                opts->log_level = r;
                return set_flag(&opts->log_level_set);
        case 'q':
        case 'v':
                opts->log_level = c == 'q' ? LOG_WARNING : LOG_DEBUG;
                return set_flag(&opts->log_level_set);
        default:
                return 0;
        }
}

static int parse_options(int argc, char **argv, Args *a) {
        int c, r;

        /* Our own messages (usage_option_error()): getopt's would name argv[0] as typed ("build/schedfreqd"). */
        opterr = 0;
        while ((c = getopt_long(argc, argv, SHORT_OPTIONS, options, NULL)) >= 0) {
                r = set_option(c, a);
                if (r != 0) {
                        if (r < 0)
                                return r;
                        continue;
                }
                switch (c) {
                case 'h':
                        help();
                        return 0;
                case ARG_VERSION:
                        printf("schedfreqd %s\n", VERSION_STRING);
                        return 0;
                default:
                        usage_option_error("schedfreqd", argv, c, SHORT_OPTIONS);
                        return -EINVAL;
                }
        }
        return 1;
}

/* The verb, its arguments, and which options go with it: 0, or -EINVAL after printing the usage error. */
static int check_verb(int argc, char **argv, Args *a) {
        const char *verb = optind < argc ? argv[optind] : "";
        int n_args = optind < argc ? argc - optind - 1 : 0;

        a->verb = verb;
        if (!streq(verb, "") && !streq(verb, "topology") && !streq(verb, "replay") && !streq(verb, "restore"))
                return usage_fail("Unknown verb '%s'.", verb);
        /* replay takes a trace (or -), the others nothing. */
        if (n_args > (streq(verb, "replay") ? 1 : 0))
                return usage_fail("Too many arguments for '%s': '%s'.", verb,
                                   argv[optind + (streq(verb, "replay") ? 2 : 1)]);
        a->trace = n_args > 0 ? argv[optind + 1] : NULL;
        if (a->json && !streq(verb, "topology"))
                return usage_fail("--json applies to 'topology' only.");
        if ((a->csv || a->print_util || a->kv || a->absolute_time) && !streq(verb, "replay"))
                return usage_fail("%s applies to 'replay' only.", a->csv ? "--csv" : a->print_util ? "--print-util" :
                                   a->kv ? "--kv" : "--absolute-time");
        if (a->kv && a->csv)
                return usage_fail("--kv and --csv are two formats: choose one.");
        /* The lines for scripts carry the trace's own times (t=<ns>, time_s): only the table counts from 0. */
        if (a->absolute_time && (a->kv || a->csv || a->print_util || a->opts.print_decisions))
                return usage_fail("--absolute-time applies to the table: %s prints the trace's own times.",
                                   a->csv ? "--csv" : a->kv ? "--kv" : a->print_util ? "--print-util" :
                                   "--print-decisions");
        if (a->opts.observe && !streq(verb, ""))
                return usage_fail("--observe runs the daemon: no verb ('%s') goes with it.", verb);
        if (a->opts.events_source >= 0 && !streq(verb, ""))
                return usage_fail("--events chooses the running daemon's event source: it does not go with '%s'.",
                                   verb);
        if (a->opts.observe && a->opts.bus_address)
                return usage_fail("--observe takes no D-Bus name: --bus-address does not go with it.");
        if (streq(verb, "replay") && !a->topology_path)
                return usage_fail("'replay' needs --topology FILE: the traced machine's cpufreq policies\n"
                                  "('schedfreqd topology' run there), or one of tests/fixtures/topology/*.ini\n"
                                  "(format: schedfreqd(8), 'topology').");
        return 0;
}

static int run_verb(const Args *a) {
        ReplayFlags flags;

        if (streq(a->verb, ""))
                return verb_daemon(&a->opts);
        if (streq(a->verb, "topology"))
                return verb_topology(a->json);
        if (streq(a->verb, "replay")) {
                /* The table unless a format for scripts is asked for (replay.h); the summary always. */
                flags = (a->print_util ? REPLAY_PRINT_UTIL : 0) | (a->opts.print_decisions ? REPLAY_PRINT_REASON : 0) |
                        (a->csv ? REPLAY_CSV : 0) | (a->kv ? 0 : REPLAY_TABLE) |
                        (a->absolute_time ? REPLAY_ABSOLUTE_TIME : 0) | REPLAY_SUMMARY;
                return verb_replay(a->topology_path, a->opts.config_path, a->config_given, a->trace, flags);
        }
        return verb_restore(a->opts.state_path, a->opts.lock_path, a->force);
}

int main(int argc, char **argv) {
        Args a = {
                .opts = {
                        .config_path = CONFIG_DEFAULT_PATH,
                        .state_path = STATE_DEFAULT_PATH,
                        .events_source = -1,
                },
        };
        _cleanup_free_ char *default_lock_path = NULL;
        int r;

        /* The edge: errnos inside, exit codes here. */
        r = parse_options(argc, argv, &a);
        if (r <= 0)
                return r < 0 ? EXIT_USAGE : EXIT_SUCCESS;
        r = check_verb(argc, argv, &a);
        if (r < 0)
                return EXIT_USAGE;

        if (a.opts.log_level_set)
                log_set_max_level(a.opts.log_level);

        r = std_fds_ensure();
        if (r < 0)
                return log_error_errno(r, "Failed to open /dev/null: %m"), EXIT_FAILURE;

        /* The daemon and restore take the same instance lock: by default "lock" beside the state file. */
        if (!a.opts.lock_path) {
                if (actuator_lock_path(a.opts.state_path, &default_lock_path) < 0)
                        return log_oom(), EXIT_FAILURE;
                a.opts.lock_path = default_lock_path;
        }

        return run_verb(&a) < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
