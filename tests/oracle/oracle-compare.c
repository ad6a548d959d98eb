/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * oracle-compare: how far schedfreqd's PELT model is from the kernel's own signals (issue 9 item 7).
 *
 *   oracle-compare [OPTIONS] KERNEL MODEL
 *
 * KERNEL is pelt-oracle's output:
 *   t=<ns> cpu=<n> util=<u> util_est=<u> runnable=<u>      (root cfs_rq)
 *   t=<ns> cpu=<n> rt=<u>                                  (avg_rt)
 * MODEL is `schedfreqd replay --print-util` output; its signal lines are
 *   t=<ns> cpu=<n> util=<u> util_est=<u> runnable=<u> rt=<u> eff=<u>
 * and every other line (frequency changes: "t=... policy=...", anything not starting with "t=") is ignored.
 *
 * For every kernel record (time t, CPU c) inside the window, the model's latest line for c with time <= t is the
 * model's value; |model - kernel| is collected per signal (cfs records: util, util_est, runnable; rt records: rt).
 * A record for which the model has no line yet on that CPU is counted as "unmatched", not compared.
 * --slack-us S takes the model's latest line with time <= t + S instead: the kernel updates PELT inside the
 * scheduler path that emits the perf event (dequeue before sched_switch), a few microseconds before the event's
 * time stamp, so at S = 0 a record made at a dequeue is compared with the model's state before that dequeue.
 * The window is the trace's first..last event (--trace, or --from/--to; default: the model's first..last line),
 * minus --warmup-ms at its start.
 *
 * Prints one row per signal: LABEL SIGNAL N P50 P90 P99 MAX BIAS (BIAS = mean of model - kernel).
 * --max-util-p50 A / --max-util-p90 B: exit 1 when util's p50 > A or p90 > B (or nothing was compared).
 * Exit 2 on usage or input errors.
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SIG_UTIL, SIG_UTIL_EST, SIG_RUNNABLE, SIG_RT, SIG_N };
static const char *const signal_names[SIG_N] = { "util", "util_est", "runnable", "rt" };

#define MAX_CPUS 4096

typedef struct Point {
        uint64_t t;
        long v[SIG_N];
        bool has[SIG_N];
        unsigned cpu;
        size_t seq; /* input order, to keep sorting stable */
} Point;

typedef struct Vec {
        Point *p;
        size_t n, cap;
} Vec;

typedef struct Diffs {
        long *d;
        size_t n, cap;
        double signed_sum;
} Diffs;

static void *xrealloc(void *p, size_t n) {
        p = realloc(p, n ? n : 1);
        if (!p) {
                fprintf(stderr, "oracle-compare: out of memory\n");
                exit(2);
        }
        return p;
}

static void vec_push(Vec *v, const Point *p) {
        if (v->n == v->cap) {
                v->cap = v->cap ? v->cap * 2 : 1024;
                v->p = xrealloc(v->p, v->cap * sizeof(Point));
        }
        v->p[v->n++] = *p;
}

static void diffs_push(Diffs *d, long model, long kernel) {
        long x = model - kernel;

        if (d->n == d->cap) {
                d->cap = d->cap ? d->cap * 2 : 1024;
                d->d = xrealloc(d->d, d->cap * sizeof(long));
        }
        d->d[d->n++] = x < 0 ? -x : x;
        d->signed_sum += (double) x;
}

static int cmp_point(const void *a, const void *b) {
        const Point *x = a, *y = b;

        if (x->t != y->t)
                return x->t < y->t ? -1 : 1;
        return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_long(const void *a, const void *b) {
        long x = *(const long *) a, y = *(const long *) b;

        return x < y ? -1 : x > y;
}

/* Parses "NAME=<unsigned>" out of a line of space-separated key=value words. Returns false if absent/bad. */
static bool field(const char *line, const char *name, uint64_t *ret) {
        size_t len = strlen(name);

        for (const char *p = line; (p = strstr(p, name)); p += len) {
                if ((p != line && p[-1] != ' ' && p[-1] != '\t') || p[len] != '=')
                        continue;
                const char *s = p + len + 1;
                char *end;

                if (*s < '0' || *s > '9')
                        return false;
                errno = 0;
                unsigned long long v = strtoull(s, &end, 10);
                if (errno || (*end && *end != ' ' && *end != '\t' && *end != '\n'))
                        return false;
                *ret = v;
                return true;
        }
        return false;
}

/* Reads a kernel (pelt-oracle) or model (replay --print-util) file into per-line points. */
static int load(const char *path, bool model, Vec *out) {
        FILE *f = fopen(path, "re");
        char *line = NULL;
        size_t size = 0, lineno = 0, seq = 0;
        int r = 0;

        if (!f) {
                fprintf(stderr, "oracle-compare: %s: %s\n", path, strerror(errno));
                return -1;
        }
        while (getline(&line, &size, f) >= 0) {
                Point p = { .seq = seq++ };
                uint64_t t, cpu, v;

                lineno++;
                if (strncmp(line, "t=", 2) != 0)
                        continue;
                if (model && strstr(line, "policy="))
                        continue;
                if (!field(line, "t", &t) || !field(line, "cpu", &cpu) || cpu >= MAX_CPUS) {
                        fprintf(stderr, "oracle-compare: %s:%zu: no valid t= and cpu=\n", path, lineno);
                        r = -1;
                        break;
                }
                p.t = t;
                p.cpu = (unsigned) cpu;
                for (int s = 0; s < SIG_N; s++)
                        if (field(line, signal_names[s], &v)) {
                                p.v[s] = (long) v;
                                p.has[s] = true;
                        }
                if (model && !(p.has[SIG_UTIL] && p.has[SIG_UTIL_EST] && p.has[SIG_RUNNABLE] && p.has[SIG_RT])) {
                        fprintf(stderr, "oracle-compare: %s:%zu: a model line needs util=, util_est=, runnable=, rt=\n",
                                path, lineno);
                        r = -1;
                        break;
                }
                if (!model && !p.has[SIG_UTIL] && !p.has[SIG_RT]) {
                        fprintf(stderr, "oracle-compare: %s:%zu: a kernel line needs util= or rt=\n", path, lineno);
                        r = -1;
                        break;
                }
                vec_push(out, &p);
        }
        if (ferror(f)) {
                fprintf(stderr, "oracle-compare: %s: read error\n", path);
                r = -1;
        }
        free(line);
        fclose(f);
        return r;
}

/* First and last event time of a `perf script --ns` trace: the "[CPU] SECS.NANOS:" stamp of each line. */
static int trace_window(const char *path, uint64_t *first, uint64_t *last) {
        FILE *f = fopen(path, "re");
        char *line = NULL;
        size_t size = 0;
        bool any = false;

        if (!f) {
                fprintf(stderr, "oracle-compare: %s: %s\n", path, strerror(errno));
                return -1;
        }
        while (getline(&line, &size, f) >= 0) {
                for (char *p = strchr(line, '['); p; p = strchr(p + 1, '[')) {
                        char *q = p + 1, *end;

                        if (*q < '0' || *q > '9')
                                continue;
                        while (*q >= '0' && *q <= '9')
                                q++;
                        if (*q != ']')
                                continue;
                        q++;
                        while (*q == ' ' || *q == '\t')
                                q++;
                        if (*q < '0' || *q > '9')
                                continue;
                        unsigned long long secs = strtoull(q, &end, 10);
                        if (*end != '.')
                                continue;
                        char *frac = end + 1;
                        unsigned long long ns = strtoull(frac, &end, 10);
                        if (*end != ':' || end - frac != 9)
                                continue; /* needs --ns: nine digits */
                        uint64_t t = (uint64_t) secs * 1000000000u + ns;
                        if (!any || t < *first)
                                *first = t;
                        if (!any || t > *last)
                                *last = t;
                        any = true;
                        break;
                }
        }
        free(line);
        fclose(f);
        if (!any) {
                fprintf(stderr, "oracle-compare: %s: no event with a nanosecond time stamp (perf script --ns)\n", path);
                return -1;
        }
        return 0;
}

static long percentile(const long *sorted, size_t n, double p) {
        size_t k;

        if (n == 0)
                return 0;
        k = (size_t) (p * (double) n + 0.999999999);
        if (k < 1)
                k = 1;
        if (k > n)
                k = n;
        return sorted[k - 1];
}

static void usage(FILE *f) {
        fprintf(f, "Usage: oracle-compare [OPTIONS] KERNEL MODEL\n"
                   "  KERNEL  pelt-oracle output;  MODEL  schedfreqd replay --print-util output\n"
                   "  --trace FILE         compare only within this perf script --ns trace's first..last event\n"
                   "  --from NS, --to NS   explicit window (CLOCK_MONOTONIC ns)\n"
                   "  --warmup-ms MS       skip the window's first MS milliseconds\n"
                   "  --slack-us S         take the model's latest line with time <= t + S µs (default 0)\n"
                   "  --cpu N              only CPU N (repeatable)\n"
                   "  --label NAME         first column of the rows (default \"-\")\n"
                   "  --no-header          no header row\n"
                   "  --joined FILE        write every compared pair: t cpu, kernel values, model values\n"
                   "  --max-util-p50 A     exit 1 if util p50 > A\n"
                   "  --max-util-p90 B     exit 1 if util p90 > B\n");
}

static bool parse_u64(const char *s, uint64_t *ret) {
        char *end;

        if (!s || *s < '0' || *s > '9')
                return false;
        errno = 0;
        unsigned long long v = strtoull(s, &end, 10);
        if (errno || *end)
                return false;
        *ret = v;
        return true;
}

static bool parse_double(const char *s, double *ret) {
        char *end;

        errno = 0;
        double v = strtod(s, &end);
        if (errno || end == s || *end || v < 0)
                return false;
        *ret = v;
        return true;
}

int main(int argc, char **argv) {
        enum { ARG_FROM = 256, ARG_TO, ARG_WARMUP, ARG_SLACK, ARG_CPU, ARG_LABEL, ARG_NOHEADER, ARG_JOINED, ARG_P50, ARG_P90 };
        static const struct option options[] = {
                { "trace", required_argument, NULL, 'T' },
                { "from", required_argument, NULL, ARG_FROM },
                { "to", required_argument, NULL, ARG_TO },
                { "warmup-ms", required_argument, NULL, ARG_WARMUP },
                { "slack-us", required_argument, NULL, ARG_SLACK },
                { "cpu", required_argument, NULL, ARG_CPU },
                { "label", required_argument, NULL, ARG_LABEL },
                { "no-header", no_argument, NULL, ARG_NOHEADER },
                { "joined", required_argument, NULL, ARG_JOINED },
                { "max-util-p50", required_argument, NULL, ARG_P50 },
                { "max-util-p90", required_argument, NULL, ARG_P90 },
                { "help", no_argument, NULL, 'h' },
                {}
        };
        const char *trace = NULL, *label = "-", *joined_path = NULL;
        uint64_t from = 0, to = UINT64_MAX, warmup_ms = 0, slack_us = 0, v;
        bool have_from = false, have_to = false, header = true;
        double max_p50 = -1, max_p90 = -1;
        static bool cpu_filter[MAX_CPUS];
        bool any_cpu_filter = false;
        int c;

        while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0) {
                switch (c) {
                case 'T': trace = optarg; break;
                case ARG_FROM:
                        if (!parse_u64(optarg, &from))
                                goto bad;
                        have_from = true;
                        break;
                case ARG_TO:
                        if (!parse_u64(optarg, &to))
                                goto bad;
                        have_to = true;
                        break;
                case ARG_WARMUP:
                        if (!parse_u64(optarg, &warmup_ms))
                                goto bad;
                        break;
                case ARG_SLACK:
                        if (!parse_u64(optarg, &slack_us) || slack_us > 1000000)
                                goto bad;
                        break;
                case ARG_CPU:
                        if (!parse_u64(optarg, &v) || v >= MAX_CPUS)
                                goto bad;
                        cpu_filter[v] = any_cpu_filter = true;
                        break;
                case ARG_LABEL: label = optarg; break;
                case ARG_NOHEADER: header = false; break;
                case ARG_JOINED: joined_path = optarg; break;
                case ARG_P50:
                        if (!parse_double(optarg, &max_p50))
                                goto bad;
                        break;
                case ARG_P90:
                        if (!parse_double(optarg, &max_p90))
                                goto bad;
                        break;
                case 'h': usage(stdout); return 0;
                default: usage(stderr); return 2;
                }
        }
        if (argc - optind != 2) {
                usage(stderr);
                return 2;
        }

        Vec kernel = {}, model = {};
        if (load(argv[optind], false, &kernel) < 0 || load(argv[optind + 1], true, &model) < 0)
                return 2;
        if (model.n == 0) {
                fprintf(stderr, "oracle-compare: %s: no model signal line (was the replay run with --print-util?)\n",
                        argv[optind + 1]);
                return 2;
        }
        qsort(kernel.p, kernel.n, sizeof(Point), cmp_point);
        qsort(model.p, model.n, sizeof(Point), cmp_point);

        /* The window: the trace's events, else the explicit bounds, else the model's lines. */
        uint64_t first = model.p[0].t, last = model.p[model.n - 1].t;
        if (trace && trace_window(trace, &first, &last) < 0)
                return 2;
        if (have_from)
                first = from;
        if (have_to)
                last = to;
        first += warmup_ms * 1000000u;

        /* Per-CPU model index: the model's lines split by CPU, each in time order. */
        unsigned ncpu = 0;
        for (size_t i = 0; i < model.n; i++)
                if (model.p[i].cpu + 1 > ncpu)
                        ncpu = model.p[i].cpu + 1;
        for (size_t i = 0; i < kernel.n; i++)
                if (kernel.p[i].cpu + 1 > ncpu)
                        ncpu = kernel.p[i].cpu + 1;
        Vec *per_cpu = calloc(ncpu, sizeof(Vec));
        size_t *cursor = calloc(ncpu, sizeof(size_t));
        if (!per_cpu || !cursor) {
                fprintf(stderr, "oracle-compare: out of memory\n");
                return 2;
        }
        for (size_t i = 0; i < model.n; i++)
                vec_push(&per_cpu[model.p[i].cpu], &model.p[i]);

        FILE *joined = NULL;
        if (joined_path) {
                joined = fopen(joined_path, "we");
                if (!joined) {
                        fprintf(stderr, "oracle-compare: %s: %s\n", joined_path, strerror(errno));
                        return 2;
                }
                fprintf(joined, "# t cpu | kernel util util_est runnable rt | model util util_est runnable rt | "
                                "model_t\n");
        }

        Diffs diffs[SIG_N] = {};
        size_t outside = 0, unmatched = 0, filtered = 0;
        for (size_t i = 0; i < kernel.n; i++) {
                const Point *k = &kernel.p[i];

                if (k->t < first || k->t > last) {
                        outside++;
                        continue;
                }
                if (any_cpu_filter && !cpu_filter[k->cpu]) {
                        filtered++;
                        continue;
                }
                /* Kernel records are in time order: each CPU's cursor only moves forward. */
                Vec *m = &per_cpu[k->cpu];
                size_t *cur = &cursor[k->cpu];
                while (*cur < m->n && m->p[*cur].t <= k->t + slack_us * 1000)
                        (*cur)++;
                if (*cur == 0) {
                        unmatched++;
                        continue;
                }
                const Point *mp = &m->p[*cur - 1];
                for (int s = 0; s < SIG_N; s++)
                        if (k->has[s])
                                diffs_push(&diffs[s], mp->v[s], k->v[s]);
                if (joined) {
                        fprintf(joined, "%" PRIu64 " %u |", k->t, k->cpu);
                        for (int s = 0; s < SIG_N; s++)
                                if (k->has[s])
                                        fprintf(joined, " %ld", k->v[s]);
                                else
                                        fputs(" -", joined);
                        fputs(" |", joined);
                        for (int s = 0; s < SIG_N; s++)
                                fprintf(joined, " %ld", mp->v[s]);
                        fprintf(joined, " | %" PRIu64 "\n", mp->t);
                }
        }
        if (joined && fclose(joined) != 0) {
                fprintf(stderr, "oracle-compare: %s: write error\n", joined_path);
                return 2;
        }

        if (header)
                printf("%-16s %-9s %8s %6s %6s %6s %6s %8s\n", "workload", "signal", "n", "p50", "p90", "p99", "max",
                       "bias");
        long util_p50 = 0, util_p90 = 0;
        for (int s = 0; s < SIG_N; s++) {
                Diffs *d = &diffs[s];

                qsort(d->d, d->n, sizeof(long), cmp_long);
                long p50 = percentile(d->d, d->n, 0.50), p90 = percentile(d->d, d->n, 0.90);
                long p99 = percentile(d->d, d->n, 0.99), max = d->n ? d->d[d->n - 1] : 0;
                printf("%-16s %-9s %8zu %6ld %6ld %6ld %6ld %+8.1f\n", label, signal_names[s], d->n, p50, p90, p99, max,
                       d->n ? d->signed_sum / (double) d->n : 0.0);
                if (s == SIG_UTIL) {
                        util_p50 = p50;
                        util_p90 = p90;
                }
        }
        fprintf(stderr,
                "oracle-compare: %s: %zu kernel records, %zu model lines; window %" PRIu64 "..%" PRIu64
                " (%.3f s); %zu outside it, %zu before the model's first line on their CPU, %zu on other CPUs\n",
                label, kernel.n, model.n, first, last, last > first ? (double) (last - first) / 1e9 : 0.0, outside,
                unmatched, filtered);

        int rc = 0;
        if (max_p50 >= 0 || max_p90 >= 0) {
                if (diffs[SIG_UTIL].n == 0) {
                        fprintf(stderr, "oracle-compare: %s: no util record compared\n", label);
                        rc = 1;
                }
                if (max_p50 >= 0 && (double) util_p50 > max_p50) {
                        fprintf(stderr, "oracle-compare: %s: util p50 %ld > %g\n", label, util_p50, max_p50);
                        rc = 1;
                }
                if (max_p90 >= 0 && (double) util_p90 > max_p90) {
                        fprintf(stderr, "oracle-compare: %s: util p90 %ld > %g\n", label, util_p90, max_p90);
                        rc = 1;
                }
        }

        for (int s = 0; s < SIG_N; s++)
                free(diffs[s].d);
        for (unsigned i = 0; i < ncpu; i++)
                free(per_cpu[i].p);
        free(per_cpu);
        free(cursor);
        free(kernel.p);
        free(model.p);
        return rc;

bad:
        fprintf(stderr, "oracle-compare: bad option value: %s\n", optarg);
        usage(stderr);
        return 2;
}
