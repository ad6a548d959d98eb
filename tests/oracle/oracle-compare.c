/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * oracle-compare: how far schedfreqd's PELT model is from the kernel's own signals (issue 9 item 7).
 *
 *   oracle-compare [OPTIONS] KERNEL MODEL
 *
 * KERNEL is pelt-oracle's output:
 *   t=<ns> cpu=<n> util=<u> util_est=<u> runnable=<u>      (root cfs_rq, pelt_cfs_tp)
 *   t=<ns> cpu=<n> util=<u> util_est=<u> runnable=<u> at=util_est   (root cfs_rq, sched_util_est_cfs_tp)
 *   t=<ns> cpu=<n> rt=<u>                                  (avg_rt)
 * Of an at=util_est record only util_est is compared: util_est_enqueue() runs before the enqueue's
 * update_load_avg() (and util_est_dequeue() before the dequeue's), so the util and runnable it shows have not been
 * brought to the present yet (after a sleep: not decayed for it), a state no cpufreq_update_util() reads; the
 * pelt_cfs_tp record of the update a few microseconds later has them.
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
 * --settled-us W leaves out the kernel's transient records: a record followed within W µs by another of the same
 * class (cfs records, rt records) on the same CPU is a step inside one scheduler operation, which the model, applying
 * each traced event whole, has no state for: wake_up_new_task() records the cfs_rq's update and then the new task's
 * attach 0.3 µs apart; a grouped task's exit (sched_autogroup_exit_task() → sched_move_task()) records the root
 * without the task's util (its group's entity propagated) and with it again (attached to the root) 1 µs apart.
 * The kernel's state after the operation, the last record, is compared (counted as "settled"; the others as
 * "transient"). With it, a slack of a few µs is due: the operation's tracepoint, which tells the model, fires after
 * its updates (sched_wakeup_new 1 µs after the attach).
 * The window is the trace's first..last event (--trace, or --from/--to; default: the model's first..last line),
 * minus --warmup-ms at its start.
 *
 * Prints one row per signal: LABEL SIGNAL N P50 P90 P99 MAX BIAS (BIAS = mean of model - kernel).
 * --max-util-p50 A / --max-util-p90 B: exit 1 when util's p50 > A or p90 > B (or nothing was compared).
 * Exit 2 on usage or input errors.
 *
 *   oracle-compare --decisions [OPTIONS] KERNEL DECISIONS      (issue #23: the BPF source against the kernel)
 *
 * KERNEL is pelt-oracle's output, best with --all-classes (adds "dl= bw_dl=" and "irq=" lines) and --sched-events
 * ("at=sched" lines: the whole rq read at the sched events where the BPF source evaluates); DECISIONS is the
 * output of `schedfreqd --events=bpf --print-decisions` (lines "t=<ns> policy=<cpu> freq=<kHz> cpu=<n> kind=...
 * util=<u> reason=<r> ... source=bpf"; anything else is ignored). One CPU per policy is assumed: a decision's
 * util is compared with the kernel's signals of CPU policy=. For each decision inside --from/--to (less
 * --warmup-ms), the kernel's state of that CPU is rebuilt from its records up to the decision's t (each signal's
 * latest record at or before t) and turned into the utilisation schedutil uses, as the BPF program does
 * (docs/bpf-source.md, "The formulas"; kernel/sched: cpu_util_cfs_boost(), effective_cpu_util()):
 *   cfs = min(max(util_avg, runnable_avg, util_est), 1024); irq >= 1024: 1024; else
 *   sum = cfs + rt + dl; sum >= 1024: 1024, else min(1024, irq + sum * (1024 - irq) / 1024)
 * (dl and irq count only when KERNEL has such lines; a CPU without an rt/dl/irq record yet counts 0 there and
 * the decision is counted as "partial"). The iowait boost and the rules' clamps are not kernel signals: decisions
 * with reason=iowait or reason=rule are left out (counted). reason=rt decisions are compared like the others (their
 * util is the sum above; the maximum frequency comes from the min bound, not from util) and counted apart.
 * Rows LABEL CMP N P50 P90 P99 MAX BIAS (BIAS: mean of daemon - kernel), CMP one of:
 *   all        the state from every record at or before t (PELT updates and at=sched reads): the primary figure;
 *   pelt       the state from the PELT-update records only (pelt_*_tp, sched_util_est_cfs_tp) at or before t;
 *   pelt-near  the PELT-only state at or before t, or the one after the CPU's next PELT record, whichever record
 *              is nearer in time to t;
 *   rt         the reason=rt decisions alone, as in "all".
 * --max-p99 X, --min-n N: exit 1 when the "all" p99 exceeds X or fewer than N decisions were compared.
 * --joined FILE: every compared decision with both kernel states.
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

/* "NAME=<word>" of a line, copied into buf. */
static bool field_str(const char *line, const char *name, char *buf, size_t size) {
        size_t len = strlen(name);

        for (const char *p = line; (p = strstr(p, name)); p += len) {
                if ((p != line && p[-1] != ' ' && p[-1] != '\t') || p[len] != '=')
                        continue;
                const char *s = p + len + 1;
                size_t n = strcspn(s, " \t\n");

                if (n == 0 || n >= size)
                        return false;
                memcpy(buf, s, n);
                buf[n] = 0;
                return true;
        }
        return false;
}

/* Reads a kernel (pelt-oracle) or model (replay --print-util) file into per-line points. */
/* A line of a CPU's signals: "t=..." and not pelt-oracle's --new-groups or --group-entities (a group's signals). */
static bool cpu_signal_line(const char *line) {
        return strncmp(line, "t=", 2) == 0 && !strstr(line, " at=new ") && !strstr(line, " at=group ");
}

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
                char at[16];

                lineno++;
                if (!cpu_signal_line(line))
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
                if (!model && field_str(line, "at", at, sizeof(at)) && strcmp(at, "util_est") == 0)
                        p.has[SIG_UTIL] = p.has[SIG_RUNNABLE] = false;
                if (model && !(p.has[SIG_UTIL] && p.has[SIG_UTIL_EST] && p.has[SIG_RUNNABLE] && p.has[SIG_RT])) {
                        fprintf(stderr, "oracle-compare: %s:%zu: a model line needs util=, util_est=, runnable=, rt=\n",
                                path, lineno);
                        r = -1;
                        break;
                }
                if (!model && !p.has[SIG_UTIL] && !p.has[SIG_UTIL_EST] && !p.has[SIG_RT]) {
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

/*
 * --settled-us: which of the (time-ordered) kernel records another record of its class (cfs: util or util_est;
 * rt) on its CPU follows within @window_ns. malloc'd, one flag per record.
 */
static bool *mark_transient(const Vec *kernel, unsigned ncpu, uint64_t window_ns) {
        bool *transient = calloc(kernel->n ? kernel->n : 1, sizeof(bool));
        uint64_t *next_t = malloc(2 * (size_t) ncpu * sizeof(uint64_t));

        if (!transient || !next_t) {
                fprintf(stderr, "oracle-compare: out of memory\n");
                exit(2);
        }
        for (size_t i = 0; i < 2 * (size_t) ncpu; i++)
                next_t[i] = UINT64_MAX;
        for (size_t i = kernel->n; i-- > 0;) {
                const Point *k = &kernel->p[i];
                size_t slot = 2 * (size_t) k->cpu + (k->has[SIG_RT] ? 1 : 0);

                transient[i] = next_t[slot] != UINT64_MAX && next_t[slot] - k->t <= window_ns;
                next_t[slot] = k->t;
        }
        free(next_t);
        return transient;
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
                   "       oracle-compare --decisions [--from NS] [--to NS] [--warmup-ms MS] [--label NAME]\n"
                   "                      [--joined FILE] [--max-p99 X] [--min-n N] KERNEL DECISIONS\n"
                   "  KERNEL  pelt-oracle output;  MODEL  schedfreqd replay --print-util output\n"
                   "  --trace FILE         compare only within this perf script --ns trace's first..last event\n"
                   "  --from NS, --to NS   explicit window (CLOCK_MONOTONIC ns)\n"
                   "  --warmup-ms MS       skip the window's first MS milliseconds\n"
                   "  --slack-us S         take the model's latest line with time <= t + S µs (default 0)\n"
                   "  --settled-us W       leave out kernel records followed within W µs by another of their class on\n"
                   "                       their CPU: steps inside one scheduler operation (default 0: compare all)\n"
                   "  --cpu N              only CPU N (repeatable)\n"
                   "  --label NAME         first column of the rows (default \"-\")\n"
                   "  --no-header          no header row\n"
                   "  --joined FILE        write every compared pair: t cpu, kernel values, model values\n"
                   "  --max-util-p50 A     exit 1 if util p50 > A\n"
                   "  --max-util-p90 B     exit 1 if util p90 > B\n"
                   "  --decisions          KERNEL against schedfreqd --events=bpf --print-decisions output (see the\n"
                   "                       comment at the top of oracle-compare.c)\n");
}

/* ---- --decisions: the BPF source's decisions against the kernel's signals (issue #23) ---- */

enum { K_CFS, K_RT, K_DL, K_IRQ, K_SCHED };

typedef struct KRec {
        uint64_t t;
        unsigned cpu, kind;
        long v[6]; /* cfs: util, util_est, runnable; rt/dl/irq: v[0]; sched: util, util_est, runnable, rt, dl, irq */
        size_t seq;
} KRec;

typedef struct KState {
        long util, util_est, runnable, rt, dl, irq;
        bool has_cfs, has_rt, has_dl, has_irq;
        uint64_t t; /* the last record applied */
} KState;

typedef struct Dec {
        uint64_t t;
        unsigned cpu;
        long util, khz;
        char reason[16];
        size_t seq;
} Dec;

static int cmp_krec(const void *a, const void *b) {
        const KRec *x = a, *y = b;

        if (x->cpu != y->cpu)
                return x->cpu < y->cpu ? -1 : 1;
        if (x->t != y->t)
                return x->t < y->t ? -1 : 1;
        return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_dec(const void *a, const void *b) {
        const Dec *x = a, *y = b;

        if (x->t != y->t)
                return x->t < y->t ? -1 : 1;
        return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void kstate_apply(KState *st, const KRec *r) {
        switch (r->kind) {
        case K_CFS:
                st->util = r->v[0];
                st->util_est = r->v[1];
                st->runnable = r->v[2];
                st->has_cfs = true;
                break;
        case K_RT: st->rt = r->v[0]; st->has_rt = true; break;
        case K_DL: st->dl = r->v[0]; st->has_dl = true; break;
        case K_IRQ: st->irq = r->v[0]; st->has_irq = true; break;
        default:
                st->util = r->v[0], st->util_est = r->v[1], st->runnable = r->v[2];
                st->rt = r->v[3], st->dl = r->v[4], st->irq = r->v[5];
                st->has_cfs = st->has_rt = st->has_dl = st->has_irq = true;
                break;
        }
        st->t = r->t;
}

/* effective_cpu_util()'s util (no min/max bound) over cpu_util_cfs_boost(), at capacity 1024. */
static long kstate_effective(const KState *st, bool with_dl, bool with_irq) {
        long cfs = st->util, irq = with_irq ? st->irq : 0, sum;

        if (st->runnable > cfs)
                cfs = st->runnable;
        if (st->util_est > cfs)
                cfs = st->util_est;
        if (cfs > 1024)
                cfs = 1024;
        if (irq >= 1024)
                return 1024;
        sum = cfs + st->rt + (with_dl ? st->dl : 0);
        if (sum >= 1024)
                return 1024;
        sum = irq + sum * (1024 - irq) / 1024;
        return sum > 1024 ? 1024 : sum;
}

static int load_kernel_records(const char *path, KRec **out, size_t *n_out, bool *any_dl, bool *any_irq,
                               bool *any_sched) {
        FILE *f = fopen(path, "re");
        char *line = NULL;
        size_t size = 0, lineno = 0, n = 0, cap = 0;
        KRec *v = NULL;
        int r = 0;

        if (!f) {
                fprintf(stderr, "oracle-compare: %s: %s\n", path, strerror(errno));
                return -1;
        }
        while (getline(&line, &size, f) >= 0) {
                KRec k = { .seq = lineno };
                uint64_t t, cpu, a, b, c, x, y, z;
                char at[16];

                lineno++;
                if (!cpu_signal_line(line))
                        continue;
                if (!field(line, "t", &t) || !field(line, "cpu", &cpu) || cpu >= MAX_CPUS) {
                        fprintf(stderr, "oracle-compare: %s:%zu: no valid t= and cpu=\n", path, lineno);
                        r = -1;
                        break;
                }
                k.t = t;
                k.cpu = (unsigned) cpu;
                if (field_str(line, "at", at, sizeof(at)) && strcmp(at, "sched") == 0) {
                        if (!field(line, "util", &a) || !field(line, "util_est", &b) || !field(line, "runnable", &c) ||
                            !field(line, "rt", &x) || !field(line, "dl", &y) || !field(line, "irq", &z)) {
                                fprintf(stderr, "oracle-compare: %s:%zu: an at=sched record needs util=, util_est=, "
                                                "runnable=, rt=, dl=, irq=\n", path, lineno);
                                r = -1;
                                break;
                        }
                        k.kind = K_SCHED;
                        k.v[0] = (long) a, k.v[1] = (long) b, k.v[2] = (long) c;
                        k.v[3] = (long) x, k.v[4] = (long) y, k.v[5] = (long) z;
                        *any_sched = *any_dl = *any_irq = true;
                } else if (field(line, "util", &a) && field(line, "util_est", &b) && field(line, "runnable", &c)) {
                        k.kind = K_CFS;
                        k.v[0] = (long) a, k.v[1] = (long) b, k.v[2] = (long) c;
                } else if (field(line, "rt", &a)) {
                        k.kind = K_RT, k.v[0] = (long) a;
                } else if (field(line, "dl", &a)) {
                        k.kind = K_DL, k.v[0] = (long) a;
                        *any_dl = true;
                } else if (field(line, "irq", &a)) {
                        k.kind = K_IRQ, k.v[0] = (long) a;
                        *any_irq = true;
                } else {
                        fprintf(stderr, "oracle-compare: %s:%zu: not a pelt-oracle record\n", path, lineno);
                        r = -1;
                        break;
                }
                if (n == cap) {
                        cap = cap ? cap * 2 : 4096;
                        v = xrealloc(v, cap * sizeof(KRec));
                }
                v[n++] = k;
        }
        if (ferror(f)) {
                fprintf(stderr, "oracle-compare: %s: read error\n", path);
                r = -1;
        }
        free(line);
        fclose(f);
        if (r < 0) {
                free(v);
                return -1;
        }
        qsort(v, n, sizeof(KRec), cmp_krec);
        *out = v;
        *n_out = n;
        return 0;
}

static int load_decisions(const char *path, Dec **out, size_t *n_out) {
        FILE *f = fopen(path, "re");
        char *line = NULL;
        size_t size = 0, lineno = 0, n = 0, cap = 0;
        Dec *v = NULL;

        if (!f) {
                fprintf(stderr, "oracle-compare: %s: %s\n", path, strerror(errno));
                return -1;
        }
        while (getline(&line, &size, f) >= 0) {
                Dec d = { .seq = lineno };
                uint64_t t, policy, util, khz;

                lineno++;
                if (strncmp(line, "t=", 2) != 0 || !strstr(line, " policy="))
                        continue;
                if (!field(line, "t", &t) || !field(line, "policy", &policy) || !field(line, "util", &util) ||
                    !field(line, "freq", &khz) || policy >= MAX_CPUS) {
                        fprintf(stderr, "oracle-compare: %s:%zu: a decision needs t=, policy=, freq=, util=\n", path,
                                lineno);
                        free(v);
                        free(line);
                        fclose(f);
                        return -1;
                }
                if (!field_str(line, "reason", d.reason, sizeof(d.reason)))
                        strcpy(d.reason, "-");
                d.t = t, d.cpu = (unsigned) policy, d.util = (long) util, d.khz = (long) khz;
                if (n == cap) {
                        cap = cap ? cap * 2 : 1024;
                        v = xrealloc(v, cap * sizeof(Dec));
                }
                v[n++] = d;
        }
        free(line);
        fclose(f);
        qsort(v, n, sizeof(Dec), cmp_dec);
        *out = v;
        *n_out = n;
        return 0;
}

typedef struct DecisionOptions {
        uint64_t from, to, warmup_ms, min_n;
        double max_p99;
        const char *label, *joined_path;
        bool header;
} DecisionOptions;

static void print_row(const char *label, const char *name, Diffs *d) {
        qsort(d->d, d->n, sizeof(long), cmp_long);
        printf("%-16s %-9s %8zu %6ld %6ld %6ld %6ld %+8.1f\n", label, name, d->n, percentile(d->d, d->n, 0.50),
               percentile(d->d, d->n, 0.90), percentile(d->d, d->n, 0.99), d->n ? d->d[d->n - 1] : 0,
               d->n ? d->signed_sum / (double) d->n : 0.0);
}

/* One CPU's records, split by where they were taken, with a cursor and the state they make so far. */
typedef struct Stream {
        size_t begin, end, cursor;
        KState st;
} Stream;

/* Applies the stream's records up to time t (those of kind K_SCHED only when @sched). */
static void stream_advance(Stream *s, const KRec *k, uint64_t t, bool sched) {
        while (s->cursor < s->end && k[s->cursor].t <= t) {
                if (sched || k[s->cursor].kind != K_SCHED)
                        kstate_apply(&s->st, &k[s->cursor]);
                s->cursor++;
        }
}

/* The stream's next record after the cursor (PELT records only when !sched); NULL if none. */
static const KRec *stream_next(const Stream *s, const KRec *k, bool sched) {
        for (size_t i = s->cursor; i < s->end; i++)
                if (sched || k[i].kind != K_SCHED)
                        return &k[i];
        return NULL;
}

static int compare_decisions(const char *kernel_path, const char *dec_path, const DecisionOptions *o) {
        KRec *k = NULL;
        Dec *dec = NULL;
        size_t nk = 0, nd = 0;
        bool with_dl = false, with_irq = false, with_sched = false;

        if (load_kernel_records(kernel_path, &k, &nk, &with_dl, &with_irq, &with_sched) < 0)
                return 2;
        if (load_decisions(dec_path, &dec, &nd) < 0) {
                free(k);
                return 2;
        }

        /* Per CPU (k is sorted by CPU, then time): the PELT-update stream and the stream of every record. */
        unsigned ncpu = 0;
        for (size_t i = 0; i < nk; i++)
                if (k[i].cpu + 1 > ncpu)
                        ncpu = k[i].cpu + 1;
        Stream *pelt = calloc(ncpu + 1, sizeof(Stream)), *all = calloc(ncpu + 1, sizeof(Stream));
        if (!pelt || !all) {
                fprintf(stderr, "oracle-compare: out of memory\n");
                return 2;
        }
        for (unsigned c = 0; c < ncpu; c++) {
                size_t b = c ? pelt[c - 1].end : 0, e = b;

                while (e < nk && k[e].cpu == c)
                        e++;
                pelt[c].begin = pelt[c].end = pelt[c].cursor = b;
                pelt[c].end = e;
                all[c] = pelt[c];
        }

        FILE *joined = NULL;
        if (o->joined_path) {
                joined = fopen(o->joined_path, "we");
                if (!joined) {
                        fprintf(stderr, "oracle-compare: %s: %s\n", o->joined_path, strerror(errno));
                        return 2;
                }
                fprintf(joined, "# t cpu reason freq | daemon util | every record: util util_est runnable rt dl irq -> "
                                "eff, age_us | PELT records: eff, age_us | next PELT record: eff, in_us\n");
        }

        uint64_t first = o->from + o->warmup_ms * 1000000u, last = o->to;
        Diffs d_all = {}, d_pelt = {}, d_near = {}, d_rt = {};
        long *age_us = xrealloc(NULL, (nd ? nd : 1) * sizeof(long));
        size_t n_age = 0, outside = 0, unmatched = 0, excluded = 0, partial = 0, n_rt = 0, exact = 0;

        for (size_t i = 0; i < nd; i++) {
                const Dec *d = &dec[i];

                if (d->t < first || d->t > last) {
                        outside++;
                        continue;
                }
                if (strcmp(d->reason, "iowait") == 0 || strcmp(d->reason, "rule") == 0) {
                        excluded++;
                        continue;
                }
                if (d->cpu >= ncpu) {
                        unmatched++;
                        continue;
                }
                Stream *sa = &all[d->cpu], *sp = &pelt[d->cpu];
                stream_advance(sa, k, d->t, true);
                stream_advance(sp, k, d->t, false);
                if (!sa->st.has_cfs || !sp->st.has_cfs) {
                        unmatched++;
                        continue;
                }
                if (!sp->st.has_rt || (with_dl && !sp->st.has_dl) || (with_irq && !sp->st.has_irq))
                        partial++;
                long ka = kstate_effective(&sa->st, with_dl, with_irq);
                long kp = kstate_effective(&sp->st, with_dl, with_irq), kn = kp;
                uint64_t age = d->t - sp->st.t, ahead = UINT64_MAX;
                const KRec *next = stream_next(sp, k, false);
                if (next) {
                        KState st = sp->st;

                        kstate_apply(&st, next);
                        kn = kstate_effective(&st, with_dl, with_irq);
                        ahead = next->t - d->t;
                }
                diffs_push(&d_all, d->util, ka);
                diffs_push(&d_pelt, d->util, kp);
                diffs_push(&d_near, d->util, ahead < age ? kn : kp);
                if (d->util == ka)
                        exact++;
                if (strcmp(d->reason, "rt") == 0) {
                        n_rt++;
                        diffs_push(&d_rt, d->util, ka);
                }
                age_us[n_age++] = (long) ((d->t - sa->st.t) / 1000);
                if (joined) {
                        const KState *st = &sa->st;

                        fprintf(joined,
                                "%" PRIu64 " %u %s %ld | %ld | %ld %ld %ld %ld %ld %ld -> %ld, %" PRIu64 " | %ld, %" PRIu64
                                " |",
                                d->t, d->cpu, d->reason, d->khz, d->util, st->util, st->util_est, st->runnable, st->rt,
                                st->dl, st->irq, ka, (d->t - st->t) / 1000, kp, age / 1000);
                        if (next)
                                fprintf(joined, " %ld, %" PRIu64 "\n", kn, ahead / 1000);
                        else
                                fputs(" -\n", joined);
                }
        }
        if (joined && fclose(joined) != 0) {
                fprintf(stderr, "oracle-compare: %s: write error\n", o->joined_path);
                return 2;
        }

        if (o->header)
                printf("%-16s %-9s %8s %6s %6s %6s %6s %8s\n", "workload", "cmp", "n", "p50", "p90", "p99", "max",
                       "bias");
        size_t n_cmp = d_all.n;
        print_row(o->label, "all", &d_all); /* sorts */
        long p99 = percentile(d_all.d, d_all.n, 0.99);
        print_row(o->label, "pelt", &d_pelt);
        print_row(o->label, "pelt-near", &d_near);
        print_row(o->label, "rt", &d_rt);
        qsort(age_us, n_age, sizeof(long), cmp_long);
        fprintf(stderr,
                "oracle-compare: %s: %zu decisions, %zu compared (%zu exact, %zu reason=rt), %zu outside the window, "
                "%zu iowait/rule left out, %zu before the kernel's first cfs record of their CPU, %zu partial; "
                "signals cfs+rt%s%s%s; age of the kernel's last record at the decision p50 %ld us, p99 %ld us\n",
                o->label, nd, n_cmp, exact, n_rt, outside, excluded, unmatched, partial, with_dl ? "+dl" : "",
                with_irq ? "+irq" : "", with_sched ? ", records at PELT updates and sched events" : ", records at PELT updates",
                percentile(age_us, n_age, 0.5), percentile(age_us, n_age, 0.99));

        int rc = 0;
        if (o->max_p99 >= 0 && (double) p99 > o->max_p99) {
                fprintf(stderr, "oracle-compare: %s: |daemon - kernel| p99 %ld > %g\n", o->label, p99, o->max_p99);
                rc = 1;
        }
        if (n_cmp < o->min_n) {
                fprintf(stderr, "oracle-compare: %s: %zu decisions compared < %" PRIu64 "\n", o->label, n_cmp,
                        o->min_n);
                rc = 1;
        }
        free(d_all.d);
        free(d_pelt.d);
        free(d_near.d);
        free(d_rt.d);
        free(age_us);
        free(pelt);
        free(all);
        free(k);
        free(dec);
        return rc;
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
        enum { ARG_FROM = 256, ARG_TO, ARG_WARMUP, ARG_SLACK, ARG_CPU, ARG_LABEL, ARG_NOHEADER, ARG_JOINED, ARG_P50, ARG_P90,
               ARG_DECISIONS, ARG_P99, ARG_MIN_N, ARG_SETTLED };
        static const struct option options[] = {
                { "trace", required_argument, NULL, 'T' },
                { "from", required_argument, NULL, ARG_FROM },
                { "to", required_argument, NULL, ARG_TO },
                { "warmup-ms", required_argument, NULL, ARG_WARMUP },
                { "slack-us", required_argument, NULL, ARG_SLACK },
                { "settled-us", required_argument, NULL, ARG_SETTLED },
                { "cpu", required_argument, NULL, ARG_CPU },
                { "label", required_argument, NULL, ARG_LABEL },
                { "no-header", no_argument, NULL, ARG_NOHEADER },
                { "joined", required_argument, NULL, ARG_JOINED },
                { "max-util-p50", required_argument, NULL, ARG_P50 },
                { "max-util-p90", required_argument, NULL, ARG_P90 },
                { "decisions", no_argument, NULL, ARG_DECISIONS },
                { "max-p99", required_argument, NULL, ARG_P99 },
                { "min-n", required_argument, NULL, ARG_MIN_N },
                { "help", no_argument, NULL, 'h' },
                {}
        };
        const char *trace = NULL, *label = "-", *joined_path = NULL;
        uint64_t from = 0, to = UINT64_MAX, warmup_ms = 0, slack_us = 0, settled_us = 0, v;
        bool have_from = false, have_to = false, header = true;
        double max_p50 = -1, max_p90 = -1, max_p99 = -1;
        bool decisions = false;
        uint64_t min_n = 0;
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
                case ARG_SETTLED:
                        if (!parse_u64(optarg, &settled_us) || settled_us > 1000000)
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
                case ARG_DECISIONS: decisions = true; break;
                case ARG_P99:
                        if (!parse_double(optarg, &max_p99))
                                goto bad;
                        break;
                case ARG_MIN_N:
                        if (!parse_u64(optarg, &min_n))
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
        if (decisions) {
                DecisionOptions o = {
                        .from = from, .to = to, .warmup_ms = warmup_ms, .min_n = min_n, .max_p99 = max_p99,
                        .label = label, .joined_path = joined_path, .header = header,
                };

                if (trace || any_cpu_filter || slack_us || settled_us || max_p50 >= 0 || max_p90 >= 0) {
                        fprintf(stderr, "oracle-compare: --decisions takes --from/--to/--warmup-ms/--label/--joined/"
                                        "--max-p99/--min-n/--no-header only\n");
                        return 2;
                }
                return compare_decisions(argv[optind], argv[optind + 1], &o);
        }
        if (max_p99 >= 0 || min_n) {
                fprintf(stderr, "oracle-compare: --max-p99 and --min-n go with --decisions\n");
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

        bool *transient = settled_us ? mark_transient(&kernel, ncpu, settled_us * 1000) : NULL;
        Diffs diffs[SIG_N] = {};
        size_t outside = 0, unmatched = 0, filtered = 0, transients = 0;
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
                if (transient && transient[i]) {
                        transients++;
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
        if (transient)
                fprintf(stderr, "oracle-compare: %s: %zu transient records left out (--settled-us %" PRIu64 ")\n", label,
                        transients, settled_us);

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
        free(transient);
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
