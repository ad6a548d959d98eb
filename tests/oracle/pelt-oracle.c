/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pelt-oracle: records the running kernel's own PELT signals of every CPU (issue 9 item 7, "a kernel oracle").
 *
 *   pelt-oracle -o FILE [--stats] [--all-classes] [--sched-events] [-- COMMAND [ARGS...]]
 *
 * Attaches BPF programs to the bare tracepoints pelt_cfs_tp, sched_util_est_cfs_tp (root cfs_rq of each CPU only)
 * and pelt_rt_tp, then writes one line per record to FILE:
 *   t=<ns> cpu=<n> util=<cfs util_avg> util_est=<n> runnable=<n>     (pelt_cfs_tp, sched_util_est_cfs_tp)
 *   t=<ns> cpu=<n> rt=<n>                                             (pelt_rt_tp)
 * and with --all-classes (test-bpf-fidelity: everything effective_cpu_util() adds up) also
 *   t=<ns> cpu=<n> dl=<avg_dl util_avg> bw_dl=<cpu_bw_dl()>             (pelt_dl_tp)
 *   t=<ns> cpu=<n> irq=<avg_irq util_avg>                              (pelt_irq_tp)
 * and with --sched-events the whole rq as read at each sched_switch, sched_wakeup(_new), sched_migrate_task
 * (where the BPF event source evaluates; the rq of prev, of the wakee, of the migrating task's origin):
 *   t=<ns> cpu=<n> at=sched util=<u> util_est=<u> runnable=<u> rt=<u> dl=<u> irq=<u>
 * t is bpf_ktime_get_ns(), i.e. CLOCK_MONOTONIC: the clock of `perf record -k CLOCK_MONOTONIC`.
 * FILE is created only once every program is attached, so its appearance means "recording" (for scripts).
 * Without COMMAND it runs until SIGINT/SIGTERM; with COMMAND it runs COMMAND (after attaching) and stops when it
 * exits, with COMMAND's exit status. Lines are written in time order per CPU; the CPUs' records may interleave
 * slightly out of order (each is stamped before it enters the shared ring).
 * --stats prints per-tracepoint record counts and rates on stderr at the end.
 */

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "pelt-oracle.h"
#include "pelt-oracle.skel.h"

#define BTF_PATH "/sys/kernel/btf/vmlinux"

static volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t child_exited;

static void on_stop(int sig) {
        stop_signal = sig;
}

static void on_child(int sig) {
        (void) sig;
        child_exited = 1;
}

static uint64_t mono_ns(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

typedef struct Output {
        FILE *f;
        uint64_t lines[ORACLE_NKINDS]; /* by kind */
        int error;         /* errno of the first write error */
} Output;

/* A cfs_rq's weight and counts as cfs_rq_weight_counts() in pelt-oracle.bpf.c packs them. */
typedef struct WeightCounts {
        uint64_t weight, nr_queued, h_nr_runnable;
} WeightCounts;

static WeightCounts unpack_weight_counts(uint64_t packed) {
        return (WeightCounts) {
                .weight = packed & 0xffffffff,
                .nr_queued = packed >> 32 & 0xffff,
                .h_nr_runnable = packed >> 48,
        };
}

static int on_record(void *ctx, void *data, size_t size) {
        Output *o = ctx;
        const struct oracle_record *r = data;
        int n;

        if (size < sizeof(*r))
                return 0;
        /* sched records pack the root's weight and counts in weight, group entity records their group's in irq */
        WeightCounts wc = unpack_weight_counts(r->kind == ORACLE_KIND_SCHED ? r->weight : r->irq);

        if (r->kind == ORACLE_KIND_RT)
                n = fprintf(o->f, "t=%" PRIu64 " cpu=%u rt=%" PRIu64 "\n", (uint64_t) r->time_ns, r->cpu,
                            (uint64_t) r->util);
        else if (r->kind == ORACLE_KIND_DL)
                n = fprintf(o->f, "t=%" PRIu64 " cpu=%u dl=%" PRIu64 " bw_dl=%" PRIu64 "\n", (uint64_t) r->time_ns,
                            r->cpu, (uint64_t) r->util, (uint64_t) r->runnable);
        else if (r->kind == ORACLE_KIND_SCHED)
                n = fprintf(o->f,
                            "t=%" PRIu64 " cpu=%u at=sched util=%" PRIu64 " util_est=%" PRIu64 " runnable=%" PRIu64
                            " rt=%" PRIu64 " dl=%" PRIu64 " irq=%" PRIu64 " load=%" PRIu64 " weight=%" PRIu64
                            " nr_queued=%" PRIu64 " h_nr_runnable=%" PRIu64 "\n",
                            (uint64_t) r->time_ns, r->cpu, (uint64_t) r->util, (uint64_t) r->util_est,
                            (uint64_t) r->runnable, (uint64_t) r->rt, (uint64_t) r->dl, (uint64_t) r->irq,
                            (uint64_t) r->load, wc.weight, wc.nr_queued, wc.h_nr_runnable);
        else if (r->kind == ORACLE_KIND_NEW_GROUP)
                n = fprintf(o->f, "t=%" PRIu64 " cpu=%u at=new group_util=%" PRIu64 " group_load=%" PRIu64
                            " group_runnable=%" PRIu64 " child_util=%" PRIu64 " removed_util=%" PRIu64
                            " removed_nr=%" PRIu64 "\n", (uint64_t) r->time_ns, r->cpu, (uint64_t) r->util,
                            (uint64_t) r->util_est, (uint64_t) r->runnable, (uint64_t) r->rt, (uint64_t) r->dl,
                            (uint64_t) r->irq);
        else if (r->kind == ORACLE_KIND_GROUP_SE)
                n = fprintf(o->f, "t=%" PRIu64 " cpu=%u at=group group=%" PRIu64 " se_util=%" PRIu64
                            " se_runnable=%" PRIu64 " group_util=%" PRIu64 " group_load=%" PRIu64
                            " group_weight=%" PRIu64 " nr_queued=%" PRIu64 " h_nr_runnable=%" PRIu64 "\n",
                            (uint64_t) r->time_ns, r->cpu, (uint64_t) r->dl, (uint64_t) r->util,
                            (uint64_t) r->runnable, (uint64_t) r->util_est, (uint64_t) r->rt,
                            wc.weight, wc.nr_queued, wc.h_nr_runnable);
        else if (r->kind == ORACLE_KIND_IRQ)
                n = fprintf(o->f, "t=%" PRIu64 " cpu=%u irq=%" PRIu64 "\n", (uint64_t) r->time_ns, r->cpu,
                            (uint64_t) r->util);
        else
                n = fprintf(o->f, "t=%" PRIu64 " cpu=%u util=%" PRIu64 " util_est=%" PRIu64 " runnable=%" PRIu64 "%s\n",
                            (uint64_t) r->time_ns, r->cpu, (uint64_t) r->util, (uint64_t) r->util_est,
                            (uint64_t) r->runnable, r->kind == ORACLE_KIND_UTIL_EST ? " at=util_est" : "");
        if (n < 0 && !o->error)
                o->error = errno ? errno : EIO;
        if (r->kind < ORACLE_NKINDS)
                o->lines[r->kind]++;
        return 0;
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap) {
        if (level == LIBBPF_DEBUG)
                return 0;
        return vfprintf(stderr, fmt, ap);
}

static void usage(FILE *f) {
        fprintf(f, "Usage: pelt-oracle -o FILE [--stats] [--all-classes] [--sched-events] [--new-groups] [--group-entities]\n"
                   "                   [--drain-ms MS] [--linger-ms MS] [-- COMMAND [ARGS...]]\n"
                   "Records the kernel's root cfs_rq PELT signals (util_avg, util_est, runnable_avg) and avg_rt of\n"
                   "every CPU, one line per tracepoint hit:\n"
                   "  t=<ns> cpu=<n> util=<u> util_est=<u> runnable=<u>\n"
                   "  t=<ns> cpu=<n> rt=<u>\n"
                   "--all-classes also records avg_dl (with the DL bandwidth) and avg_irq:\n"
                   "  t=<ns> cpu=<n> dl=<u> bw_dl=<u>\n"
                   "  t=<ns> cpu=<n> irq=<u>\n"
                   "--sched-events also reads the whole rq at sched_switch, sched_wakeup(_new), sched_migrate_task:\n"
                   "  t=<ns> cpu=<n> at=sched util=<u> util_est=<u> runnable=<u> rt=<u> dl=<u> irq=<u>\n"
                   "  load=<root load_avg> weight=<root load.weight >> 10> nr_queued=<n> h_nr_runnable=<n>\n"
                   "--new-groups also reads, at each sched_wakeup_new, the cfs_rq the new task joined (its task\n"
                   "group's with autogroup or cgroups) after post_init_entity_util_avg() and the attach:\n"
                   "  t=<ns> cpu=<n> at=new group_util=<u> group_load=<u> group_runnable=<u> child_util=<u>\n"
                   "        removed_util=<u> removed_nr=<n>   (oracle-compare skips these lines)\n"
                   "--group-entities also records each task group's entity on a root cfs_rq after its update\n"
                   "(pelt_se_tp): its util and runnable, its own cfs_rq's util and load, its autogroup's id (else 0):\n"
                   "  t=<ns> cpu=<n> at=group group=<id> se_util=<u> se_runnable=<u> group_util=<u> group_load=<u>\n"
                   "        group_weight=<load.weight> nr_queued=<n> h_nr_runnable=<n>\n"
                   "        (oracle-compare skips these lines)\n"
                   "Runs until SIGINT/SIGTERM, or until COMMAND exits and --linger-ms more have passed (the end of\n"
                   "the recording: how the signals decay once the workload is gone). Needs root and kernel BTF.\n");
}

/* Checks what a load needs, so the common failures get a sentence instead of a verifier log. */
static int preflight(void) {
        if (access(BTF_PATH, R_OK) < 0) {
                fprintf(stderr, "pelt-oracle: %s: %s; the kernel needs CONFIG_DEBUG_INFO_BTF for tp_btf programs\n",
                        BTF_PATH, strerror(errno));
                return -1;
        }
        if (geteuid() != 0)
                fprintf(stderr, "pelt-oracle: warning: not running as root; loading BPF tracing programs needs "
                                "CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN)\n");
        return 0;
}

static const char *explain(int err) {
        switch (err) {
        case EPERM:
        case EACCES:
                return " (not permitted: run as root, or check kernel.unprivileged_bpf_disabled / lockdown)";
        case ENOENT:
        case ESRCH:
                return " (tracepoint not found: this kernel lacks pelt_cfs_tp / pelt_rt_tp / sched_util_est_cfs_tp?)";
        case EINVAL:
                return " (rejected by the kernel: see the libbpf messages above)";
        case ENOSYS:
                return " (no bpf() syscall: CONFIG_BPF_SYSCALL off?)";
        default:
                return "";
        }
}

int main(int argc, char **argv) {
        static const struct option options[] = {
                { "output", required_argument, NULL, 'o' },
                { "stats", no_argument, NULL, 's' },
                { "all-classes", no_argument, NULL, 'a' },
                { "sched-events", no_argument, NULL, 'e' },
                { "new-groups", no_argument, NULL, 'g' },
                { "group-entities", no_argument, NULL, 'G' },
                { "drain-ms", required_argument, NULL, 'd' },
                { "linger-ms", required_argument, NULL, 'l' },
                { "help", no_argument, NULL, 'h' },
                {}
        };
        const char *out_path = NULL;
        bool stats = false, all_classes = false, sched_events = false, new_groups = false, group_entities = false;
        int drain_ms = 50, linger_ms = 0, c, rc = 0, err;
        struct pelt_oracle_bpf *skel = NULL;
        struct ring_buffer *rb = NULL;
        Output out = {};
        pid_t child = -1;
        int child_status = 0;
        bool child_reaped = false;

        while ((c = getopt_long(argc, argv, "+o:saegGd:l:h", options, NULL)) >= 0) {
                switch (c) {
                case 'o': out_path = optarg; break;
                case 's': stats = true; break;
                case 'a': all_classes = true; break;
                case 'e': sched_events = true; break;
                case 'g': new_groups = true; break;
                case 'G': group_entities = true; break;
                case 'd': drain_ms = atoi(optarg); break;
                case 'l': linger_ms = atoi(optarg); break;
                case 'h': usage(stdout); return 0;
                default: usage(stderr); return 2;
                }
        }
        if (!out_path || drain_ms <= 0 || linger_ms < 0) {
                usage(stderr);
                return 2;
        }
        char **command = optind < argc ? argv + optind : NULL;

        if (preflight() < 0)
                return 1;
        libbpf_set_print(libbpf_print);

        skel = pelt_oracle_bpf__open();
        if (!skel) {
                err = errno;
                fprintf(stderr, "pelt-oracle: cannot open the BPF object: %s%s\n", strerror(err), explain(err));
                return 1;
        }
        /* Wake the reader early only when the ring is a quarter full; normally it drains on its timer. */
        skel->rodata->ring_wakeup_bytes = bpf_map__max_entries(skel->maps.records) / 4;
        skel->rodata->record_new_groups = new_groups;
        skel->rodata->record_sched_events = sched_events;
        /* DL and IRQ only when asked: the default output (and cost) stays what run-oracle.sh compares. */
        if (!all_classes) {
                bpf_program__set_autoload(skel->progs.oracle_pelt_dl, false);
                bpf_program__set_autoload(skel->progs.oracle_pelt_irq, false);
        }
        if (!group_entities)
                bpf_program__set_autoload(skel->progs.oracle_pelt_se, false);
        if (!sched_events) {
                bpf_program__set_autoload(skel->progs.oracle_switch, false);
                bpf_program__set_autoload(skel->progs.oracle_wakeup, false);
                if (!new_groups)
                        bpf_program__set_autoload(skel->progs.oracle_wakeup_new, false);
                bpf_program__set_autoload(skel->progs.oracle_migrate, false);
        }

        err = pelt_oracle_bpf__load(skel);
        if (err) {
                err = -err;
                fprintf(stderr, "pelt-oracle: cannot load the BPF programs: %s%s\n", strerror(err), explain(err));
                rc = 1;
                goto out;
        }
        err = pelt_oracle_bpf__attach(skel);
        if (err) {
                err = -err;
                fprintf(stderr, "pelt-oracle: cannot attach to the scheduler tracepoints: %s%s\n", strerror(err),
                        explain(err));
                rc = 1;
                goto out;
        }

        /* Created only now: the file's existence tells a script that recording has begun. */
        out.f = fopen(out_path, "we");
        if (!out.f) {
                fprintf(stderr, "pelt-oracle: %s: %s\n", out_path, strerror(errno));
                rc = 1;
                goto out;
        }
        setvbuf(out.f, NULL, _IOFBF, 1 << 20);

        rb = ring_buffer__new(bpf_map__fd(skel->maps.records), on_record, &out, NULL);
        if (!rb) {
                fprintf(stderr, "pelt-oracle: cannot set up the ring buffer: %s\n", strerror(errno));
                rc = 1;
                goto out;
        }

        struct sigaction sa = { .sa_handler = on_stop };
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGHUP, &sa, NULL);

        if (command) {
                struct sigaction sc = { .sa_handler = on_child, .sa_flags = SA_NOCLDSTOP };

                sigemptyset(&sc.sa_mask);
                sigaction(SIGCHLD, &sc, NULL);
                fflush(NULL);
                child = fork();
                if (child < 0) {
                        fprintf(stderr, "pelt-oracle: fork: %s\n", strerror(errno));
                        rc = 1;
                        goto out;
                }
                if (child == 0) {
                        signal(SIGINT, SIG_DFL);
                        signal(SIGTERM, SIG_DFL);
                        signal(SIGHUP, SIG_DFL);
                        signal(SIGCHLD, SIG_DFL);
                        execvp(command[0], command);
                        fprintf(stderr, "pelt-oracle: %s: %s\n", command[0], strerror(errno));
                        _exit(127);
                }
        }

        uint64_t start_ns = mono_ns(), linger_until_ns = 0;
        while (!stop_signal) {
                err = ring_buffer__poll(rb, drain_ms);
                if (err < 0 && err != -EINTR) {
                        fprintf(stderr, "pelt-oracle: ring buffer: %s\n", strerror(-err));
                        rc = 1;
                        break;
                }
                /* Records are submitted without a wake-up: take whatever is there after each timeout. */
                ring_buffer__consume(rb);
                if (child > 0 && child_exited) {
                        pid_t p = waitpid(child, &child_status, WNOHANG);

                        if (p == child) {
                                child_reaped = true;
                                child = -1;
                                linger_until_ns = mono_ns() + (uint64_t) linger_ms * 1000000u;
                        } else
                                child_exited = 0;
                }
                if (child_reaped && mono_ns() >= linger_until_ns)
                        break;
        }
        uint64_t end_ns = mono_ns();

        /* Detach first so that the final drain is complete, then empty the ring. */
        pelt_oracle_bpf__detach(skel);
        ring_buffer__consume(rb);

        if (child > 0 && !child_reaped) {
                kill(child, SIGTERM);
                while (waitpid(child, &child_status, 0) < 0 && errno == EINTR)
                        ;
                child_reaped = true;
        }

        if (fflush(out.f) != 0 && !out.error)
                out.error = errno;
        if (out.error) {
                fprintf(stderr, "pelt-oracle: %s: write error: %s\n", out_path, strerror(out.error));
                rc = 1;
        }

        if (stats) {
                uint64_t counts[ORACLE_NCOUNTERS] = {};
                int ncpu = libbpf_num_possible_cpus();

                if (ncpu > 0) {
                        uint64_t *vals = calloc((size_t) ncpu, sizeof(uint64_t));

                        for (uint32_t k = 0; vals && k < ORACLE_NCOUNTERS; k++)
                                if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.counters), &k, vals) == 0)
                                        for (int i = 0; i < ncpu; i++)
                                                counts[k] += vals[i];
                        free(vals);
                }
                double secs = (double) (end_ns - start_ns) / 1e9;
                if (secs <= 0)
                        secs = 1e-9;
                fprintf(stderr,
                        "pelt-oracle: %.3f s: pelt_cfs_tp root %" PRIu64 " (%.0f/s), non-root %" PRIu64 " (%.0f/s); "
                        "sched_util_est_cfs_tp root %" PRIu64 " (%.0f/s); pelt_rt_tp %" PRIu64 " (%.0f/s); "
                        "dropped %" PRIu64 "; lines written cfs %" PRIu64 " util_est %" PRIu64 " rt %" PRIu64 "\n",
                        secs, counts[ORACLE_COUNT_CFS], (double) counts[ORACLE_COUNT_CFS] / secs,
                        counts[ORACLE_COUNT_NONROOT], (double) counts[ORACLE_COUNT_NONROOT] / secs,
                        counts[ORACLE_COUNT_UTIL_EST], (double) counts[ORACLE_COUNT_UTIL_EST] / secs,
                        counts[ORACLE_COUNT_RT], (double) counts[ORACLE_COUNT_RT] / secs,
                        counts[ORACLE_COUNT_DROPPED], out.lines[ORACLE_KIND_CFS], out.lines[ORACLE_KIND_UTIL_EST],
                        out.lines[ORACLE_KIND_RT]);
                if (all_classes || sched_events)
                        fprintf(stderr, "pelt-oracle: pelt_dl_tp %" PRIu64 " (%.0f/s), pelt_irq_tp %" PRIu64
                                " (%.0f/s), sched events %" PRIu64 " (%.0f/s)\n",
                                counts[ORACLE_COUNT_DL], (double) counts[ORACLE_COUNT_DL] / secs,
                                counts[ORACLE_COUNT_IRQ], (double) counts[ORACLE_COUNT_IRQ] / secs,
                                counts[ORACLE_COUNT_SCHED], (double) counts[ORACLE_COUNT_SCHED] / secs);
        } else {
                /* Always say if records were lost: a comparison on a lossy file would mislead. */
                uint64_t dropped = 0;
                uint32_t k = ORACLE_COUNT_DROPPED;
                int ncpu = libbpf_num_possible_cpus();
                uint64_t *vals = ncpu > 0 ? calloc((size_t) ncpu, sizeof(uint64_t)) : NULL;

                if (vals && bpf_map_lookup_elem(bpf_map__fd(skel->maps.counters), &k, vals) == 0)
                        for (int i = 0; i < ncpu; i++)
                                dropped += vals[i];
                free(vals);
                if (dropped)
                        fprintf(stderr, "pelt-oracle: warning: %" PRIu64 " records dropped (ring buffer full)\n",
                                dropped);
        }

out:
        ring_buffer__free(rb);
        if (out.f)
                fclose(out.f);
        pelt_oracle_bpf__destroy(skel);
        if (rc == 0 && child_reaped) {
                if (WIFEXITED(child_status))
                        rc = WEXITSTATUS(child_status);
                else if (WIFSIGNALED(child_status))
                        rc = 128 + WTERMSIG(child_status);
        }
        return rc;
}
