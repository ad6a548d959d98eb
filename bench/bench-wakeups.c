/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench-wakeups: how often a process wakes up and how much CPU it uses on an otherwise quiet machine, beside
 * the machine-wide context-switch rate. For any governor (or any process): nothing here knows schedfreqd.
 *
 *   bench-wakeups [--seconds N] [--json] PID...
 *
 * At the start and at the end of a window of N seconds (default 20; fractions allowed) it reads, for each PID:
 *   - voluntary_ctxt_switches + nonvoluntary_ctxt_switches of every thread (/proc/PID/task/TID/status): a
 *     task's counters grow each time it is switched out, so on a quiet machine each switch is one wake-up
 *     (a voluntary one: it slept and was woken; a nonvoluntary one: it was preempted, and resumed);
 *   - utime + stime of the whole process (/proc/PID/stat, in ticks of CLK_TCK, printed in ms: the resolution
 *     is 1000/CLK_TCK ms, 10 ms with USER_HZ = 100; it includes threads that exited);
 * and the machine-wide `ctxt` line of /proc/stat. In between it sleeps once, clock_nanosleep(CLOCK_MONOTONIC,
 * TIMER_ABSTIME), and writes nothing: the measurer's own share of the machine-wide figure is that one sleep,
 * i.e. 2 context switches (out, and back in) over the window.
 *
 * Threads are matched by TID and start time (so a recycled TID is a new thread):
 *   - present at both samples: end - start;
 *   - born in the window (only at the end): all of its switches, since they all happened in the window;
 *   - gone in the window (only at the start): nothing, because a reaped thread's counters cannot be read any
 *     more; its switches between the start sample and its exit are missing, so the figure is a lower bound.
 *     Both kinds are counted and printed (born/gone); a "gone" count above 0 is flagged.
 * A PID that no longer exists at the end, is a zombie, or is another process (start time changed) is an
 * error: the message says which, and the exit status is 1. Usage errors and a PID missing at the start: 2.
 *
 * Output: one line per PID with wake-ups/s, CPU ms/s and the machine-wide context switches/s of the same
 * window, or with --json one object (fields described in print_json()).
 */

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct ThreadSample {
        pid_t tid;
        uint64_t start_time;              /* field 22 of /proc/PID/task/TID/stat, clock ticks since boot */
        uint64_t voluntary, nonvoluntary;
} ThreadSample;

typedef struct ProcSample {
        ThreadSample *threads;
        size_t n_threads, allocated;
        uint64_t cpu_ticks;               /* utime + stime */
        uint64_t start_time;
        char state;
} ProcSample;

typedef struct Target {
        pid_t pid;
        char comm[64];
        ProcSample start, end;
        /* Results. */
        uint64_t voluntary, nonvoluntary;
        size_t born, gone;
} Target;

static const char *program = "bench-wakeups";

static uint64_t now_ns(void) {
        struct timespec ts;

        (void) clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * UINT64_C(1000000000) + (uint64_t) ts.tv_nsec;
}

/* Reads a small /proc file whole into @buf (NUL-terminated). Returns the length, or -errno. */
static ssize_t read_small(const char *path, char *buf, size_t size) {
        FILE *f = fopen(path, "re");
        size_t n;

        if (!f)
                return -errno;
        n = fread(buf, 1, size - 1, f);
        if (ferror(f)) {
                int e = errno ? errno : EIO;
                fclose(f);
                return -e;
        }
        fclose(f);
        buf[n] = '\0';
        return (ssize_t) n;
}

/*
 * Parses a /proc/.../stat line: state, utime + stime, start time. The comm may hold spaces and ')', so fields
 * are counted from the last ')'. Returns 0 or -EINVAL.
 */
static int parse_stat(const char *line, char *ret_state, uint64_t *ret_cpu_ticks, uint64_t *ret_start_time) {
        const char *p = strrchr(line, ')');
        unsigned long long utime = 0, stime = 0, start_time = 0;
        int field = 2;

        if (!p)
                return -EINVAL;
        p++;
        /* Field 3 is the state; utime is 14, stime 15, starttime 22. */
        while (*p && field < 22) {
                while (*p == ' ')
                        p++;
                if (!*p)
                        break;
                field++;
                if (field == 3 && ret_state)
                        *ret_state = *p;
                else if (field == 14)
                        utime = strtoull(p, NULL, 10);
                else if (field == 15)
                        stime = strtoull(p, NULL, 10);
                else if (field == 22)
                        start_time = strtoull(p, NULL, 10);
                while (*p && *p != ' ')
                        p++;
        }
        if (field < 22)
                return -EINVAL;
        if (ret_cpu_ticks)
                *ret_cpu_ticks = (uint64_t) utime + (uint64_t) stime;
        if (ret_start_time)
                *ret_start_time = (uint64_t) start_time;
        return 0;
}

static int parse_status_counter(const char *status, const char *key, uint64_t *ret) {
        const char *p = status;
        size_t len = strlen(key);

        while (p && *p) {
                if (strncmp(p, key, len) == 0 && p[len] == ':') {
                        *ret = strtoull(p + len + 1, NULL, 10);
                        return 0;
                }
                p = strchr(p, '\n');
                if (p)
                        p++;
        }
        return -EINVAL;
}

/* One thread's counters. -ENOENT/-ESRCH if it went away meanwhile (not an error: it is "gone"). */
static int sample_thread(pid_t pid, pid_t tid, ThreadSample *ret) {
        char path[96], buf[4096];
        ssize_t n;

        snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int) pid, (int) tid);
        n = read_small(path, buf, sizeof(buf));
        if (n < 0)
                return (int) n;
        if (parse_stat(buf, NULL, NULL, &ret->start_time) < 0)
                return -EINVAL;

        snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int) pid, (int) tid);
        n = read_small(path, buf, sizeof(buf));
        if (n < 0)
                return (int) n;
        if (parse_status_counter(buf, "voluntary_ctxt_switches", &ret->voluntary) < 0 ||
            parse_status_counter(buf, "nonvoluntary_ctxt_switches", &ret->nonvoluntary) < 0)
                return -EINVAL;
        ret->tid = tid;
        return 0;
}

static bool is_gone_error(int r) {
        return r == -ENOENT || r == -ESRCH;
}

/* Samples a process: its stat, then every thread. -ENOENT/-ESRCH if the process is gone. */
static int sample_process(pid_t pid, ProcSample *s) {
        char path[64], buf[4096];
        struct dirent *de;
        ssize_t n;
        DIR *d;
        int r;

        s->n_threads = 0;
        snprintf(path, sizeof(path), "/proc/%d/stat", (int) pid);
        n = read_small(path, buf, sizeof(buf));
        if (n < 0)
                return (int) n;
        if (parse_stat(buf, &s->state, &s->cpu_ticks, &s->start_time) < 0)
                return -EINVAL;

        snprintf(path, sizeof(path), "/proc/%d/task", (int) pid);
        d = opendir(path);
        if (!d)
                return -errno;
        while ((errno = 0, de = readdir(d))) {
                ThreadSample t;
                char *end;
                long tid;

                if (!isdigit((unsigned char) de->d_name[0]))
                        continue;
                tid = strtol(de->d_name, &end, 10);
                if (*end || tid <= 0)
                        continue;
                r = sample_thread(pid, (pid_t) tid, &t);
                if (is_gone_error(r))
                        continue;         /* exited between readdir and open: not there */
                if (r < 0) {
                        closedir(d);
                        return r;
                }
                if (s->n_threads == s->allocated) {
                        size_t a = s->allocated ? 2 * s->allocated : 16;
                        ThreadSample *p = realloc(s->threads, a * sizeof(*p));

                        if (!p) {
                                closedir(d);
                                return -ENOMEM;
                        }
                        s->threads = p;
                        s->allocated = a;
                }
                s->threads[s->n_threads++] = t;
        }
        r = errno ? -errno : 0;
        closedir(d);
        return r;
}

static const ThreadSample *find_thread(const ProcSample *s, const ThreadSample *t) {
        for (size_t i = 0; i < s->n_threads; i++)
                if (s->threads[i].tid == t->tid && s->threads[i].start_time == t->start_time)
                        return &s->threads[i];
        return NULL;
}

static void account(Target *t) {
        t->voluntary = t->nonvoluntary = 0;
        t->born = t->gone = 0;
        for (size_t i = 0; i < t->end.n_threads; i++) {
                const ThreadSample *e = &t->end.threads[i], *b = find_thread(&t->start, e);

                if (b) {
                        t->voluntary += e->voluntary - b->voluntary;
                        t->nonvoluntary += e->nonvoluntary - b->nonvoluntary;
                } else {
                        t->voluntary += e->voluntary;
                        t->nonvoluntary += e->nonvoluntary;
                        t->born++;
                }
        }
        for (size_t i = 0; i < t->start.n_threads; i++)
                if (!find_thread(&t->end, &t->start.threads[i]))
                        t->gone++;
}

static int read_machine_ctxt(uint64_t *ret) {
        char buf[65536];
        const char *p;
        ssize_t n;

        n = read_small("/proc/stat", buf, sizeof(buf));
        if (n < 0)
                return (int) n;
        for (p = buf; p; p = strchr(p, '\n')) {
                if (*p == '\n')
                        p++;
                if (strncmp(p, "ctxt ", 5) == 0) {
                        *ret = strtoull(p + 5, NULL, 10);
                        return 0;
                }
        }
        return -EINVAL;
}

static void read_comm(pid_t pid, char *buf, size_t size) {
        char path[64];

        snprintf(path, sizeof(path), "/proc/%d/comm", (int) pid);
        if (read_small(path, buf, size) <= 0)
                snprintf(buf, size, "?");
        buf[strcspn(buf, "\n")] = '\0';
}

static void json_string(const char *s) {
        putchar('"');
        for (; *s; s++) {
                unsigned char c = (unsigned char) *s;

                if (c == '"' || c == '\\')
                        printf("\\%c", c);
                else if (c < 0x20)
                        printf("\\u%04x", c);
                else
                        putchar(c);
        }
        putchar('"');
}

/*
 * {"seconds": window actually measured (s), "clk_tck": N, "machine_ctxt": switches, "machine_ctxt_per_s": ...,
 *  "processes": [{"pid", "comm", "threads" (at the end), "born", "gone", "voluntary", "nonvoluntary",
 *                 "wakeups" (voluntary + nonvoluntary), "wakeups_per_s", "cpu_ms", "cpu_ms_per_s",
 *                 "lower_bound" (true if threads went away in the window)}]}
 */
static void print_json(const Target *targets, size_t n, double secs, uint64_t ctxt, long clk_tck) {
        printf("{\"seconds\": %.3f, \"clk_tck\": %ld, \"machine_ctxt\": %" PRIu64 ", \"machine_ctxt_per_s\": %.1f, "
               "\"processes\": [",
               secs, clk_tck, ctxt, ctxt / secs);
        for (size_t i = 0; i < n; i++) {
                const Target *t = &targets[i];
                uint64_t w = t->voluntary + t->nonvoluntary;
                double cpu_ms = (double) (t->end.cpu_ticks - t->start.cpu_ticks) * 1000.0 / (double) clk_tck;

                printf("%s{\"pid\": %d, \"comm\": ", i ? ", " : "", (int) t->pid);
                json_string(t->comm);
                printf(", \"threads\": %zu, \"born\": %zu, \"gone\": %zu, \"voluntary\": %" PRIu64
                       ", \"nonvoluntary\": %" PRIu64 ", \"wakeups\": %" PRIu64 ", \"wakeups_per_s\": %.1f"
                       ", \"cpu_ms\": %.0f, \"cpu_ms_per_s\": %.2f, \"lower_bound\": %s}",
                       t->end.n_threads, t->born, t->gone, t->voluntary, t->nonvoluntary, w, w / secs, cpu_ms,
                       cpu_ms / secs, t->gone ? "true" : "false");
        }
        printf("]}\n");
}

static void print_text(const Target *targets, size_t n, double secs, uint64_t ctxt, long clk_tck) {
        printf("# window %.3f s; CPU resolution %.0f ms (CLK_TCK %ld); machine-wide ctxt includes this "
               "measurer's 2\n",
               secs, 1000.0 / (double) clk_tck, clk_tck);
        printf("%-8s %-16s %7s %5s %5s %12s %12s %10s %16s\n", "pid", "comm", "threads", "born", "gone",
               "wakeups/s", "(vol/invol)", "cpu_ms/s", "machine_ctxt/s");
        for (size_t i = 0; i < n; i++) {
                const Target *t = &targets[i];
                double cpu_ms = (double) (t->end.cpu_ticks - t->start.cpu_ticks) * 1000.0 / (double) clk_tck;
                char split[48];

                snprintf(split, sizeof(split), "%" PRIu64 "/%" PRIu64, t->voluntary, t->nonvoluntary);
                printf("%-8d %-16s %7zu %5zu %5zu %12.1f %12s %10.2f %16.1f%s\n", (int) t->pid, t->comm,
                       t->end.n_threads, t->born, t->gone, (t->voluntary + t->nonvoluntary) / secs, split,
                       cpu_ms / secs, ctxt / secs, t->gone ? "  (lower bound: threads exited)" : "");
        }
}

static void usage(FILE *f) {
        fprintf(f,
                "Usage: %s [--seconds N] [--json] PID...\n"
                "\n"
                "Counts each PID's wake-ups (context switches of all its threads) and CPU time over a window,\n"
                "beside the machine-wide context switches, sleeping once in between.\n"
                "\n"
                "  -s, --seconds N   window length in seconds (default 20; fractions allowed)\n"
                "  -j, --json        one JSON object instead of the table\n"
                "  -h, --help        this help\n",
                program);
}

int main(int argc, char *argv[]) {
        static const struct option options[] = {
                { "seconds", required_argument, NULL, 's' },
                { "json",    no_argument,       NULL, 'j' },
                { "help",    no_argument,       NULL, 'h' },
                {}
        };
        double seconds = 20.0, secs;
        bool json = false;
        uint64_t ctxt0, ctxt1, t0, t1;
        struct timespec deadline;
        Target *targets;
        size_t n;
        long clk_tck;
        int c, r, ret = 0;

        while ((c = getopt_long(argc, argv, "s:jh", options, NULL)) >= 0)
                switch (c) {
                case 's': {
                        char *end;

                        errno = 0;
                        seconds = strtod(optarg, &end);
                        if (errno || *end || end == optarg || !isfinite(seconds) || seconds <= 0 || seconds > 86400) {
                                fprintf(stderr, "%s: --seconds wants a number of seconds in (0, 86400], not '%s'\n",
                                        program, optarg);
                                return 2;
                        }
                        break;
                }
                case 'j':
                        json = true;
                        break;
                case 'h':
                        usage(stdout);
                        return 0;
                default:
                        usage(stderr);
                        return 2;
                }
        if (optind >= argc) {
                fprintf(stderr, "%s: no PID given\n", program);
                usage(stderr);
                return 2;
        }

        clk_tck = sysconf(_SC_CLK_TCK);
        if (clk_tck <= 0)
                clk_tck = 100;

        n = (size_t) (argc - optind);
        targets = calloc(n, sizeof(*targets));
        if (!targets) {
                fprintf(stderr, "%s: out of memory\n", program);
                return 2;
        }
        for (size_t i = 0; i < n; i++) {
                const char *a = argv[optind + (int) i];
                char *end;
                long pid;

                errno = 0;
                pid = strtol(a, &end, 10);
                if (errno || *end || end == a || pid <= 0 || pid > INT32_MAX) {
                        fprintf(stderr, "%s: '%s' is not a PID\n", program, a);
                        return 2;
                }
                targets[i].pid = (pid_t) pid;
                read_comm(targets[i].pid, targets[i].comm, sizeof(targets[i].comm));
        }

        /* Start: the processes first, the machine counter last, right before the sleep. */
        for (size_t i = 0; i < n; i++) {
                r = sample_process(targets[i].pid, &targets[i].start);
                if (r < 0) {
                        fprintf(stderr, "%s: cannot sample PID %d: %s\n", program, (int) targets[i].pid,
                                is_gone_error(r) ? "no such process" : strerror(-r));
                        return 2;
                }
                if (targets[i].start.state == 'Z' || targets[i].start.state == 'X') {
                        fprintf(stderr, "%s: PID %d (%s) is a zombie\n", program, (int) targets[i].pid,
                                targets[i].comm);
                        return 2;
                }
        }
        r = read_machine_ctxt(&ctxt0);
        if (r < 0) {
                fprintf(stderr, "%s: cannot read ctxt from /proc/stat: %s\n", program, strerror(-r));
                return 2;
        }
        t0 = now_ns();

        /* The window: one sleep, to an absolute deadline so that a signal's EINTR cannot lengthen it. */
        deadline.tv_sec = (time_t) ((t0 + (uint64_t) llround(seconds * 1e9)) / UINT64_C(1000000000));
        deadline.tv_nsec = (long) ((t0 + (uint64_t) llround(seconds * 1e9)) % UINT64_C(1000000000));
        while ((r = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, NULL)) == EINTR)
                ;
        if (r != 0) {
                fprintf(stderr, "%s: clock_nanosleep: %s\n", program, strerror(r));
                return 2;
        }

        /* End: the machine counter first, then the processes, mirroring the start. */
        r = read_machine_ctxt(&ctxt1);
        t1 = now_ns();
        if (r < 0) {
                fprintf(stderr, "%s: cannot read ctxt from /proc/stat: %s\n", program, strerror(-r));
                return 2;
        }
        for (size_t i = 0; i < n; i++) {
                Target *t = &targets[i];

                r = sample_process(t->pid, &t->end);
                if (is_gone_error(r) || (r >= 0 && (t->end.state == 'Z' || t->end.state == 'X'))) {
                        fprintf(stderr, "%s: PID %d (%s) disappeared during the %.1f s window%s\n", program,
                                (int) t->pid, t->comm, seconds, r >= 0 ? " (it is a zombie: it exited)" : "");
                        ret = 1;
                        continue;
                }
                if (r < 0) {
                        fprintf(stderr, "%s: cannot sample PID %d: %s\n", program, (int) t->pid, strerror(-r));
                        ret = 1;
                        continue;
                }
                if (t->end.start_time != t->start.start_time) {
                        fprintf(stderr, "%s: PID %d (%s) disappeared during the window: the PID now belongs to "
                                "another process\n", program, (int) t->pid, t->comm);
                        ret = 1;
                        continue;
                }
                account(t);
        }
        if (ret != 0)
                return ret;

        secs = (double) (t1 - t0) / 1e9;
        if (json)
                print_json(targets, n, secs, ctxt1 - ctxt0, clk_tck);
        else
                print_text(targets, n, secs, ctxt1 - ctxt0, clk_tck);
        for (size_t i = 0; i < n; i++)
                if (targets[i].gone)
                        fprintf(stderr, "%s: %zu thread(s) of PID %d exited in the window: their switches after "
                                "the start sample are not counted (lower bound)\n",
                                program, targets[i].gone, (int) targets[i].pid);

        for (size_t i = 0; i < n; i++) {
                free(targets[i].start.threads);
                free(targets[i].end.threads);
        }
        free(targets);
        return 0;
}
