/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bpf-events.c: the loader and reader of the BPF event source (include/governor.h; the programs are
 * daemon/governor/bpf/schedfreqd.bpf.c, what they compute is docs/bpf-source.md). Loads the skeleton, leaves out the
 * programs whose tracepoint this kernel lacks, fills the configuration arrays from the topology and the
 * BpfPolicy values, attaches, and turns each ring record into a Decision. Nothing is pinned: everything goes
 * with our fds.
 *
 * A build without BTF on the build machine (SCHEDFREQD_NO_BPF, see the Makefile) keeps the API and refuses
 * bpf_events_new() with -EOPNOTSUPP: the daemon still builds and runs on its perf source.
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "governor.h"
#include "log.h"

#ifdef SCHEDFREQD_NO_BPF

bool bpf_events_built(void) {
        return false;
}

int bpf_events_new(sd_event *event, const Topology *topo, const BpfPolicy *policies, BpfEventsHandler handler,
                   void *userdata, BpfEvents **ret, char **ret_reason) {
        if (ret_reason)
                *ret_reason = strdup("built without BPF (no BTF on the build machine)");
        return -EOPNOTSUPP;
}

int bpf_events_set_policy(BpfEvents *b, unsigned index, const BpfPolicy *p) {
        return -EOPNOTSUPP;
}

int bpf_events_drain(BpfEvents *b) {
        return -EOPNOTSUPP;
}

int bpf_events_cpu_set_online(BpfEvents *b, int cpu, bool online) {
        return -EOPNOTSUPP;
}

int bpf_events_set_tick(BpfEvents *b, uint64_t tick_ns) {
        return -EOPNOTSUPP;
}

int bpf_events_set_wake_period(BpfEvents *b, uint64_t period_ns) {
        return -EOPNOTSUPP;
}

int bpf_events_stats(const BpfEvents *b, BpfEventsStats *ret) {
        return -EOPNOTSUPP;
}

int bpf_events_cpu_signals(const BpfEvents *b, int cpu, BpfCpuSignals *ret) {
        return -EOPNOTSUPP;
}

int bpf_events_ring_fd(const BpfEvents *b) {
        return -EOPNOTSUPP;
}

int bpf_events_set_rules(BpfEvents *b, const BpfRuleClamp *rules, size_t n, char **ret_reason) {
        return -EOPNOTSUPP;
}

int bpf_events_set_task_rule(BpfEvents *b, int32_t tid, int rule) {
        return -EOPNOTSUPP;
}

int bpf_events_watch_kernel_freq(BpfEvents *b, BpfKernelFreqHandler handler) {
        return -EOPNOTSUPP;
}

int bpf_events_verified_insns(const BpfEvents *b, BpfVerifiedInsns *ret) {
        return -EOPNOTSUPP;
}

BpfEvents *bpf_events_free(BpfEvents *b) {
        return NULL;
}

#else /* !SCHEDFREQD_NO_BPF */

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "btf-names.h"
#include "schedfreqd-bpf.h"
#include "schedfreqd.skel.h"

#define VMLINUX_BTF "/sys/kernel/btf/vmlinux"

/* The record's reason is a DecisionReason by value. */
_Static_assert((int) SFQ_REASON_DEMAND == (int) DECISION_REASON_DEMAND && (int) SFQ_REASON_RT == (int) DECISION_REASON_RT &&
               (int) SFQ_REASON_IOWAIT == (int) DECISION_REASON_IOWAIT &&
               (int) SFQ_REASON_LIMITS == (int) DECISION_REASON_LIMITS &&
               (int) SFQ_REASON_RULE == (int) DECISION_REASON_RULE,
               "enum sfq_reason must follow DecisionReason");

struct BpfEvents {
        sd_event *event;
        sd_event_source *io;
        struct schedfreqd_bpf *skel;
        struct ring_buffer *ring;

        unsigned *policy_ids;     /* topology index → policyN */
        size_t n_policies;
        cpu_set_t possible;

        BpfEventsHandler handler;
        void *userdata;

        size_t n_rules;           /* bpf_events_set_rules(): 0 = the rule programs detached */
        BpfKernelFreqHandler kernel_freq; /* bpf_events_watch_kernel_freq() */

        uint64_t wakeups, drains, wake_records;
};

bool bpf_events_built(void) {
        return true;
}

/* ---- libbpf's messages: debug only, the last error kept for the reason ---- */

static char libbpf_first_error[256];  /* the first libbpf warning line since load() began: the cause */
static char verifier_last_line[256];  /* the last meaningful line of the last verifier log */
static bool in_verifier_log;

static bool verifier_noise(const char *line) {
        /* the statistics that close every verifier log say nothing about why it failed */
        return strncmp(line, "processed ", 10) == 0 || strncmp(line, "verification time", 17) == 0 ||
               strncmp(line, "stack depth", 11) == 0 || strncmp(line, "libbpf: ", 8) == 0;
}

static void remember_line(enum libbpf_print_level level, const char *line) {
        if (strstr(line, "-- BEGIN PROG LOAD LOG --")) {
                in_verifier_log = true;
                verifier_last_line[0] = 0;
                return;
        }
        if (strstr(line, "-- END PROG LOAD LOG --")) {
                in_verifier_log = false;
                return;
        }
        if (in_verifier_log) {
                if (!verifier_noise(line))
                        snprintf(verifier_last_line, sizeof(verifier_last_line), "%s", line);
                return;
        }
        /* the later ones only repeat it ("failed to load object", "failed to load BPF skeleton"); the memlock
         * advice comes first whenever CAP_SYS_RESOURCE is missing, and is not the cause on memcg kernels */
        if (level == LIBBPF_WARN && !libbpf_first_error[0] && !strstr(line, "RLIMIT_MEMLOCK"))
                snprintf(libbpf_first_error, sizeof(libbpf_first_error), "%s",
                         strncmp(line, "libbpf: ", 8) == 0 ? line + 8 : line);
}

static int libbpf_print(enum libbpf_print_level level, const char *format, va_list ap) {
        _cleanup_free_ char *buf = NULL;
        char *line, *save = NULL;

        /* a verifier log comes as one message, BEGIN to END, of any length: not a fixed buffer */
        if (vasprintf(&buf, format, ap) < 0)
                return 0;
        for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                if (!*line)
                        continue;
                remember_line(level, line);
                log_debug("libbpf: %s", line);
        }
        return 0;
}

/* A malloc'd reason into *@ret_reason (if wanted); returns @r. */
_printf_(3, 4) static int fail(char **ret_reason, int r, const char *format, ...) {
        va_list ap;

        if (ret_reason) {
                free(*ret_reason);
                *ret_reason = NULL;
                va_start(ap, format);
                if (vasprintf(ret_reason, format, ap) < 0)
                        *ret_reason = NULL;
                va_end(ap);
        }
        return r;
}

/* ---- Opening ---- */

/* The tracepoint a tp_btf program attaches to: "tp_btf/NAME" → NAME. */
static const char *program_tracepoint(const struct bpf_program *prog) {
        const char *sec = bpf_program__section_name(prog);
        const char *slash = sec ? strchr(sec, '/') : NULL;

        return slash ? slash + 1 : "";
}

/* At most this many programs in the object (schedfreqd.bpf.c has 9). */
#define BPF_PROGRAMS_MAX 32

/*
 * Leaves out the programs whose tracepoint the running kernel lacks: a tracepoint NAME has the typedef
 * btf_trace_NAME in vmlinux BTF (include/trace/bpf_probe.h), and that name is nothing else's, so its presence
 * among the strings of /sys/kernel/btf/vmlinux is the typedef's (btf-names.h: a scan of the strings instead of a
 * second full parse of the file, which libbpf parses anyway to load the programs).
 */
static int disable_missing_tracepoints(struct schedfreqd_bpf *skel, char **ret_reason) {
        char names[BPF_PROGRAMS_MAX][128];
        const char *name_of[BPF_PROGRAMS_MAX];
        bool found[BPF_PROGRAMS_MAX];
        struct bpf_program *prog;
        size_t n = 0, i;
        int r;

        bpf_object__for_each_program(prog, skel->obj) {
                if (n == BPF_PROGRAMS_MAX)
                        return fail(ret_reason, -E2BIG, "more than %d programs", BPF_PROGRAMS_MAX);
                snprintf(names[n], sizeof(names[n]), "btf_trace_%s", program_tracepoint(prog));
                name_of[n] = names[n];
                n++;
        }
        r = btf_file_has_names(VMLINUX_BTF, name_of, n, found);
        if (r < 0)
                return fail(ret_reason, r, "cannot read %s: %s", VMLINUX_BTF, strerror(-r));

        i = 0;
        bpf_object__for_each_program(prog, skel->obj) {
                if (found[i++])
                        continue;
                if (prog == skel->progs.sfq_pelt_cfs)
                        return fail(ret_reason, -EOPNOTSUPP, "no pelt_cfs_tp tracepoint in this kernel");
                log_debug("bpf: %s: not in this kernel, left out.", program_tracepoint(prog));
                (void) bpf_program__set_autoload(prog, false);
        }
        return 0;
}

/* The first program that did not load: libbpf loads them in order and stops at the first failure. */
static const struct bpf_program *failed_program(struct schedfreqd_bpf *skel) {
        struct bpf_program *prog;

        bpf_object__for_each_program(prog, skel->obj)
                if (bpf_program__autoload(prog) && bpf_program__fd(prog) < 0)
                        return prog;
        return NULL;
}

static int load(struct schedfreqd_bpf *skel, char **ret_reason) {
        const struct bpf_program *prog;
        int r;

        libbpf_first_error[0] = verifier_last_line[0] = 0;
        in_verifier_log = false;
        r = schedfreqd_bpf__load(skel);
        if (r >= 0)
                return 0;
        /* "tp_btf/NAME: strerror[: the verifier's last word]", or libbpf's own first complaint (a map) */
        prog = failed_program(skel);
        if (prog && verifier_last_line[0])
                return fail(ret_reason, r, "%s: %s: %s", bpf_program__section_name(prog), strerror(-r),
                            verifier_last_line);
        if (r == -EPERM)
                return fail(ret_reason, r, "%s (CAP_BPF and CAP_PERFMON are needed)", strerror(-r));
        if (prog && (!libbpf_first_error[0] || strncmp(libbpf_first_error, "prog '", 6) == 0))
                return fail(ret_reason, r, "%s: %s", bpf_program__section_name(prog), strerror(-r));
        return fail(ret_reason, r, "%s", libbpf_first_error[0] ? libbpf_first_error : strerror(-r));
}

_Static_assert(SFQ_MAX_FREQS <= 64, "sfq_policy_conf.inefficient_mask has a bit per table entry");

static int check_topology(const Topology *topo, char **ret_reason) {
        if (topo->n_policies > SFQ_MAX_POLICIES)
                return fail(ret_reason, -E2BIG, "more than %d cpufreq policies", SFQ_MAX_POLICIES);
        for (int cpu = SFQ_MAX_CPUS; cpu < CPU_SETSIZE; cpu++)
                if (CPU_ISSET(cpu, &topo->possible))
                        return fail(ret_reason, -E2BIG, "CPU %d: only CPUs below %d are supported", cpu,
                                    SFQ_MAX_CPUS);
        for (size_t i = 0; i < topo->n_policies; i++) {
                const PolicyDesc *p = &topo->policies[i];

                if (CPU_COUNT(&p->cpus) > SFQ_MAX_POLICY_CPUS)
                        return fail(ret_reason, -E2BIG, "policy%u: more than %d CPUs", p->id, SFQ_MAX_POLICY_CPUS);
                if (p->n_frequencies > SFQ_MAX_FREQS)
                        return fail(ret_reason, -E2BIG, "policy%u: more than %d frequencies", p->id, SFQ_MAX_FREQS);
                for (int cpu = SFQ_MAX_CPUS; cpu < CPU_SETSIZE; cpu++)
                        if (CPU_ISSET(cpu, &p->cpus))
                                return fail(ret_reason, -E2BIG, "policy%u: CPU %d: only CPUs below %d are supported",
                                            p->id, cpu, SFQ_MAX_CPUS);
        }
        return 0;
}

/* What the topology says of policy @i (never changes): CPUs, reference frequency, capacity, table and its
 * inefficient entries. */
static void fill_policy_topology(BpfEvents *b, const PolicyDesc *p, size_t i) {
        struct sfq_policy_conf *c = &b->skel->bss->sfq_policy_conf[i];

        c->cpuinfo_max_khz = p->cpuinfo_max_khz;
        c->capacity = p->capacity == 0 ? CAPACITY_SCALE : MIN(p->capacity, CAPACITY_SCALE);
        c->n_cpus = 0;
        for (int cpu = 0; cpu < SFQ_MAX_CPUS; cpu++) {
                if (!CPU_ISSET(cpu, &p->cpus))
                        continue;
                c->cpus[c->n_cpus++] = (__u32) cpu;
                b->skel->bss->sfq_cpu_conf[cpu] = (struct sfq_cpu_conf) {
                        .in_policy = 1,
                        .policy = (__u32) i,
                        .online = 0, /* fill_maps() */
                };
        }
        c->n_freqs = (__u32) (p->frequencies_khz ? p->n_frequencies : 0);
        c->inefficient_mask = 0;
        for (size_t k = 0; k < c->n_freqs; k++) {
                c->freqs_khz[k] = p->frequencies_khz[k];
                /* CPUFREQ_INEFFICIENT_FREQ, which the kernel side's sfq_resolve_khz() skips as the daemon's
                 * policy_resolve_khz() does (check_topology(): k < SFQ_MAX_FREQS = 64 bits). */
                if (policy_khz_inefficient(p, p->frequencies_khz[k]))
                        c->inefficient_mask |= UINT64_C(1) << k;
        }
}

static int fill_maps(BpfEvents *b, const Topology *topo, const BpfPolicy *policies) {
        int r;

        for (size_t i = 0; i < topo->n_policies; i++) {
                fill_policy_topology(b, &topo->policies[i], i);
                b->skel->bss->sfq_policy_state[i].cur_khz = policies[i].cur_khz;
                r = bpf_events_set_policy(b, (unsigned) i, &policies[i]);
                if (r < 0)
                        return r;
        }
        for (int cpu = 0; cpu < SFQ_MAX_CPUS; cpu++)
                b->skel->bss->sfq_cpu_conf[cpu].online = CPU_ISSET(cpu, &topo->online);
        return 0;
}

static int attach(BpfEvents *b, char **ret_reason) {
        struct {
                struct bpf_program *prog;
                struct bpf_link **link;
        } table[] = {
                { b->skel->progs.sfq_pelt_cfs, &b->skel->links.sfq_pelt_cfs },
                { b->skel->progs.sfq_pelt_rt, &b->skel->links.sfq_pelt_rt },
                { b->skel->progs.sfq_pelt_dl, &b->skel->links.sfq_pelt_dl },
                { b->skel->progs.sfq_pelt_irq, &b->skel->links.sfq_pelt_irq },
                { b->skel->progs.sfq_wakeup, &b->skel->links.sfq_wakeup },
                { b->skel->progs.sfq_wakeup_new, &b->skel->links.sfq_wakeup_new },
        };
        int r;

        for (size_t i = 0; i < ELEMENTSOF(table); i++) {
                if (!bpf_program__autoload(table[i].prog))
                        continue;
                *table[i].link = bpf_program__attach(table[i].prog);
                if (!*table[i].link) {
                        r = negative_errno();
                        return fail(ret_reason, r, "%s: %s", bpf_program__section_name(table[i].prog), strerror(-r));
                }
        }
        return 0;
}

/* ---- Records ---- */

static SchedEventType event_type(uint32_t e) {
        switch (e) {
        case SFQ_EVENT_WAKEUP:
                return SCHED_EVENT_WAKEUP;
        case SFQ_EVENT_WAKEUP_NEW:
                return SCHED_EVENT_WAKEUP_NEW;
        default:
                return _SCHED_EVENT_TYPE_INVALID; /* a PELT update: the kernel's "tick" */
        }
}

/* The change was not applied: the frequency in force is the old one again, unless something changed it since. */
static void restore_cur_khz(BpfEvents *b, uint32_t policy, uint32_t new_khz, uint32_t old_khz) {
        struct sfq_policy_state *s = &b->skel->bss->sfq_policy_state[policy];
        uint32_t expected = new_khz;

        if (__atomic_compare_exchange_n(&s->cur_khz, &expected, old_khz, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
                __atomic_store_n(&s->cached_raw_khz, SFQ_CACHED_NONE, __ATOMIC_RELEASE);
}

static int on_record(void *userdata, void *data, size_t size) {
        BpfEvents *b = userdata;
        const struct sfq_record *rec = data;
        Decision d;
        int r;

        if (size >= sizeof(*rec) && rec->policy == SFQ_POLICY_WAKE) {
                b->wake_records++; /* its job is done: the daemon is awake (bpf_events_set_wake_period()) */
                return 0;
        }
        if (size >= sizeof(*rec) && rec->policy == SFQ_POLICY_KERNEL_FREQ) {
                if (b->kernel_freq)
                        (void) b->kernel_freq((int) rec->cpu, rec->time_ns, rec->new_khz, b->userdata);
                return 0;
        }
        if (size < sizeof(*rec) || rec->policy >= b->n_policies || rec->reason >= _DECISION_REASON_MAX)
                return 0; /* cannot happen with our program; never trust it blindly */
        d = (Decision) {
                .time_ns = rec->time_ns,
                .policy_index = rec->policy,
                .policy_id = b->policy_ids[rec->policy],
                .old_khz = rec->old_khz,
                .new_khz = rec->new_khz,
                .cpu = (int) rec->cpu,
                .kind = rec->kind == SFQ_KIND_REMOTE ? DECISION_REMOTE : DECISION_LOCAL,
                .reason = (DecisionReason) rec->reason,
                .util = rec->util,
                .event = event_type(rec->event),
                .pid = rec->pid,
                .deferred = rec->deferred != 0,
                .deferred_since_ns = rec->deferred ? rec->deferred_since_ns : 0,
                .source = DECISION_SOURCE_BPF,
        };
        /* A decision not applied (a policy backing off, paused, released) is routine, not an error of the drain:
         * the kernel side takes the change again, as the engine does after a failed commit. */
        r = b->handler ? b->handler(&d, b->userdata) : 0;
        if (r < 0)
                restore_cur_khz(b, rec->policy, rec->new_khz, rec->old_khz);
        return 0;
}

int bpf_events_drain(BpfEvents *b) {
        int r;

        if (!b)
                return -EINVAL;
        b->drains++;
        r = ring_buffer__consume(b->ring);
        return r < 0 ? r : 0;
}

static int on_ring_readable(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        BpfEvents *b = ASSERT_PTR(userdata);

        b->wakeups++;
        /* A negative return ends the loop with it (sd_event_source_set_exit_on_failure()), as perf-events.c does. */
        return bpf_events_drain(b);
}

static int watch_ring(BpfEvents *b, char **ret_reason) {
        int r;

        b->ring = ring_buffer__new(bpf_map__fd(b->skel->maps.sfq_ring), on_record, b, NULL);
        if (!b->ring) {
                r = negative_errno();
                return fail(ret_reason, r, "ring buffer: %s", strerror(-r));
        }
        if (!b->event)
                return 0;
        r = sd_event_add_io(b->event, &b->io, ring_buffer__epoll_fd(b->ring), EPOLLIN, on_ring_readable, b);
        if (r < 0)
                return fail(ret_reason, r, "ring buffer watch: %s", strerror(-r));
        (void) sd_event_source_set_description(b->io, "bpf-ring");
        (void) sd_event_source_set_exit_on_failure(b->io, true);
        return 0;
}

int bpf_events_new(sd_event *event, const Topology *topo, const BpfPolicy *policies, BpfEventsHandler handler,
                   void *userdata, BpfEvents **ret, char **ret_reason) {
        _cleanup_(bpf_events_freep) BpfEvents *b = NULL;
        int r;

        if (ret_reason)
                *ret_reason = NULL;
        if (!topo || !policies || !ret)
                return fail(ret_reason, -EINVAL, "invalid arguments");
        if (access(VMLINUX_BTF, R_OK) < 0)
                return fail(ret_reason, -EOPNOTSUPP, "no %s", VMLINUX_BTF);
        r = check_topology(topo, ret_reason);
        if (r < 0)
                return r;

        b = calloc(1, sizeof(*b));
        if (!b)
                return fail(ret_reason, -ENOMEM, "out of memory");
        b->handler = handler;
        b->userdata = userdata;
        b->possible = topo->possible;
        b->n_policies = topo->n_policies;
        b->policy_ids = calloc(MAX(topo->n_policies, (size_t) 1), sizeof(unsigned));
        if (!b->policy_ids)
                return fail(ret_reason, -ENOMEM, "out of memory");
        for (size_t i = 0; i < topo->n_policies; i++)
                b->policy_ids[i] = topo->policies[i].id;
        if (event)
                b->event = sd_event_ref(event);

        /* libbpf says nothing above debug: its errors come back as our return value and reason. */
        (void) libbpf_set_print(libbpf_print);

        b->skel = schedfreqd_bpf__open();
        if (!b->skel) {
                r = negative_errno();
                return fail(ret_reason, r, "open: %s", strerror(-r));
        }
        b->skel->rodata->self_tgid = (__u32) getpid();
        r = disable_missing_tracepoints(b->skel, ret_reason);
        if (r < 0)
                return r;
        r = load(b->skel, ret_reason);
        if (r < 0)
                return r;
        r = fill_maps(b, topo, policies);
        if (r < 0)
                return fail(ret_reason, r, "policy configuration: %s", strerror(-r));
        r = attach(b, ret_reason);
        if (r < 0)
                return r;
        r = watch_ring(b, ret_reason);
        if (r < 0)
                return r;

        *ret = TAKE_PTR(b);
        return 0;
}

/* ---- Configuration ---- */

int bpf_events_set_policy(BpfEvents *b, unsigned index, const BpfPolicy *p) {
        struct sfq_policy_conf *c;
        struct sfq_policy_state *s;

        if (!b || !p || index >= b->n_policies)
                return -EINVAL;
        c = &b->skel->bss->sfq_policy_conf[index];
        s = &b->skel->bss->sfq_policy_state[index];

        c->min_khz = p->min_khz;
        c->max_khz = p->max_khz;
        c->headroom_x1024 = p->headroom_x1024;
        c->rate_limit_ns = p->rate_limit_ns;
        c->remote = p->remote;
        c->min_util = p->min_util;
        c->max_util = p->max_util;
        /* The frequency in force is ours; whatever raw frequency the kernel side cached goes with it. */
        __atomic_store_n(&s->cur_khz, p->cur_khz, __ATOMIC_SEQ_CST);
        __atomic_store_n(&s->cached_raw_khz, SFQ_CACHED_NONE, __ATOMIC_SEQ_CST);
        if (p->need_update)
                __atomic_add_fetch(&c->need_update_seq, 1, __ATOMIC_SEQ_CST);
        /* last: an evaluation that sees managed sees the rest */
        __atomic_store_n(&c->managed, p->managed, __ATOMIC_SEQ_CST);
        return 0;
}

int bpf_events_cpu_set_online(BpfEvents *b, int cpu, bool online) {
        if (!b || cpu < 0 || cpu >= SFQ_MAX_CPUS || !CPU_ISSET(cpu, &b->possible))
                return -EINVAL;
        __atomic_store_n(&b->skel->bss->sfq_cpu_conf[cpu].online, online, __ATOMIC_SEQ_CST);
        return 0;
}

int bpf_events_set_tick(BpfEvents *b, uint64_t tick_ns) {
        if (!b || tick_ns == 0)
                return -EINVAL;
        __atomic_store_n(&b->skel->data->tick_ns, tick_ns, __ATOMIC_SEQ_CST);
        return 0;
}

int bpf_events_set_wake_period(BpfEvents *b, uint64_t period_ns) {
        if (!b)
                return -EINVAL;
        __atomic_store_n(&b->skel->bss->wake_period_ns, period_ns, __ATOMIC_SEQ_CST);
        return 0;
}

/* ---- Reading ---- */

int bpf_events_stats(const BpfEvents *b, BpfEventsStats *ret) {
        uint64_t sums[SFQ_COUNT_MAX] = {};
        _cleanup_free_ uint64_t *values = NULL;
        int n_cpus, r;

        if (!b || !ret)
                return -EINVAL;
        n_cpus = libbpf_num_possible_cpus();
        if (n_cpus <= 0)
                return n_cpus < 0 ? n_cpus : -EIO;
        values = calloc((size_t) n_cpus, sizeof(uint64_t));
        if (!values)
                return -ENOMEM;
        for (uint32_t k = 0; k < SFQ_COUNT_MAX; k++) {
                r = bpf_map__lookup_elem(b->skel->maps.sfq_counters, &k, sizeof(k), values,
                                         (size_t) n_cpus * sizeof(uint64_t), 0);
                if (r < 0)
                        return r;
                for (int c = 0; c < n_cpus; c++)
                        sums[k] += values[c];
        }
        *ret = (BpfEventsStats) {
                .events = sums[SFQ_COUNT_EVENTS],
                .evaluations = sums[SFQ_COUNT_EVALUATIONS],
                .records = sums[SFQ_COUNT_RECORDS],
                .deferred = sums[SFQ_COUNT_DEFERRED],
                .rate_limited = sums[SFQ_COUNT_RATE_LIMITED],
                .dropped = sums[SFQ_COUNT_DROPPED],
                .wakeups = b->wakeups,
                .drains = b->drains,
                .wake_records = b->wake_records,
        };
        return 0;
}

int bpf_events_cpu_signals(const BpfEvents *b, int cpu, BpfCpuSignals *ret) {
        struct sfq_cpu_state s;

        if (!b || !ret || cpu < 0 || cpu >= SFQ_MAX_CPUS || !CPU_ISSET(cpu, &b->possible))
                return -EINVAL;
        /* A copy: the programs keep writing it (a torn read is possible and harmless for a status line). */
        memcpy(&s, (const void *) &b->skel->bss->sfq_cpu_state[cpu], sizeof(s));
        if (s.time_ns == 0)
                return -ENOENT;
        *ret = (BpfCpuSignals) {
                .util_avg = s.util_avg,
                .util_est = s.util_est,
                .runnable_avg = s.runnable_avg,
                .rt_avg = s.rt_avg,
                .dl_avg = s.dl_avg,
                .irq_avg = s.irq_avg,
                .bw_dl = s.bw_dl,
                .uclamp_min = s.uclamp_min,
                .uclamp_max = s.uclamp_max,
                .nr_rt_running = s.nr_rt_running,
                .effective = s.effective,
                .curr_pid = s.curr_pid,
                .time_ns = s.time_ns,
        };
        return 0;
}

/* ---- Per-process rules (schedfreqd-bpf.h) ---- */

static void rules_detach(BpfEvents *b) {
        const uint32_t none = 0; /* no task has tid 0: the walk starts at the first key */
        uint32_t key;

        b->skel->bss->rules_on = 0;
        bpf_link__destroy(b->skel->links.sfq_rule_switch);
        bpf_link__destroy(b->skel->links.sfq_rule_migrate);
        b->skel->links.sfq_rule_switch = b->skel->links.sfq_rule_migrate = NULL;
        /* Forget every task's rule and count: the next attach starts from nothing queued. */
        while (bpf_map__get_next_key(b->skel->maps.sfq_task_rule, &none, &key, sizeof(key)) == 0)
                (void) bpf_map__delete_elem(b->skel->maps.sfq_task_rule, &key, sizeof(key), 0);
        while (bpf_map__get_next_key(b->skel->maps.sfq_task_active, &none, &key, sizeof(key)) == 0)
                (void) bpf_map__delete_elem(b->skel->maps.sfq_task_active, &key, sizeof(key), 0);
        b->n_rules = 0;
}

static int rules_attach(BpfEvents *b, char **ret_reason) {
        struct bpf_program *progs[] = { b->skel->progs.sfq_rule_switch, b->skel->progs.sfq_rule_migrate };
        struct bpf_link **links[] = { &b->skel->links.sfq_rule_switch, &b->skel->links.sfq_rule_migrate };
        int r;

        for (size_t i = 0; i < ELEMENTSOF(progs); i++)
                if (!bpf_program__autoload(progs[i]))
                        return fail(ret_reason, -EOPNOTSUPP, "no %s tracepoint in this kernel",
                                    program_tracepoint(progs[i]));
        /* Nothing counted yet; an idle CPU keeps no task's clamp (uclamp_none(UCLAMP_MAX)). */
        for (int cpu = 0; cpu < SFQ_MAX_CPUS; cpu++)
                b->skel->bss->sfq_cpu_rules[cpu] = (struct sfq_cpu_rules) { .idle_max = SFQ_CAPACITY_SCALE };
        for (size_t i = 0; i < ELEMENTSOF(progs); i++) {
                *links[i] = bpf_program__attach(progs[i]);
                if (!*links[i]) {
                        r = negative_errno();
                        rules_detach(b);
                        return fail(ret_reason, r, "%s: %s", bpf_program__section_name(progs[i]), strerror(-r));
                }
        }
        return 0;
}

int bpf_events_set_rules(BpfEvents *b, const BpfRuleClamp *rules, size_t n, char **ret_reason) {
        int r;

        if (!b || n > SFQ_MAX_RULES || (n > 0 && !rules))
                return fail(ret_reason, -EINVAL, "invalid arguments");
        if (n == 0) {
                if (b->n_rules > 0)
                        rules_detach(b);
                return 0;
        }
        for (size_t i = 0; i < SFQ_MAX_RULES; i++)
                b->skel->bss->sfq_rules[i] = i < n ?
                        (struct sfq_rule) { .min_util = MIN(rules[i].min_util, (uint16_t) SFQ_CAPACITY_SCALE),
                                            .max_util = MIN(rules[i].max_util, (uint16_t) SFQ_CAPACITY_SCALE) } :
                        (struct sfq_rule) { .min_util = 0, .max_util = SFQ_CAPACITY_SCALE };
        if (b->n_rules == 0) {
                r = rules_attach(b, ret_reason);
                if (r < 0)
                        return r;
                __atomic_store_n(&b->skel->bss->rules_on, 1, __ATOMIC_RELEASE);
        }
        b->n_rules = n;
        return 0;
}

int bpf_events_set_task_rule(BpfEvents *b, int32_t tid, int rule) {
        uint32_t key = (uint32_t) tid, value = (uint32_t) rule;
        int r;

        if (!b || tid <= 0 || (rule >= 0 && (size_t) rule >= b->n_rules))
                return -EINVAL;
        if (rule < 0) {
                r = bpf_map__delete_elem(b->skel->maps.sfq_task_rule, &key, sizeof(key), 0);
                return r == -ENOENT ? 0 : r;
        }
        r = bpf_map__update_elem(b->skel->maps.sfq_task_rule, &key, sizeof(key), &value, sizeof(value), BPF_ANY);
        return r == -ENOSPC ? -E2BIG : r;
}

int bpf_events_watch_kernel_freq(BpfEvents *b, BpfKernelFreqHandler handler) {
        struct bpf_program *prog;
        int r;

        if (!b || !handler)
                return -EINVAL;
        prog = b->skel->progs.sfq_cpu_frequency;
        if (!bpf_program__autoload(prog))
                return -EOPNOTSUPP; /* no such tracepoint here */
        b->kernel_freq = handler;
        if (b->skel->links.sfq_cpu_frequency)
                return 0;
        b->skel->links.sfq_cpu_frequency = bpf_program__attach(prog);
        if (!b->skel->links.sfq_cpu_frequency) {
                r = negative_errno();
                b->kernel_freq = NULL;
                return r;
        }
        return 0;
}

/* bpf_prog_info.verified_insns (5.16+, kernel/bpf/syscall.c bpf_prog_get_info_by_fd(): env->insn_processed). */
static int program_verified_insns(const struct bpf_program *prog, uint32_t *ret) {
        struct bpf_prog_info info = {};
        uint32_t len = sizeof(info);
        int r;

        r = bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len);
        if (r < 0)
                return r;
        *ret = info.verified_insns;
        return 0;
}

int bpf_events_verified_insns(const BpfEvents *b, BpfVerifiedInsns *ret) {
        struct bpf_program *prog;
        BpfVerifiedInsns v = {};
        uint32_t n;
        int r;

        if (!b || !ret)
                return -EINVAL;
        bpf_object__for_each_program(prog, b->skel->obj) {
                if (bpf_program__fd(prog) < 0)
                        continue; /* left out: its tracepoint is not in this kernel */
                r = program_verified_insns(prog, &n);
                if (r < 0)
                        return r;
                v.programs++;
                v.total += n;
                v.max = MAX(v.max, (uint64_t) n);
        }
        *ret = v;
        return 0;
}

int bpf_events_ring_fd(const BpfEvents *b) {
        if (!b || !b->ring)
                return -EINVAL;
        return ring_buffer__epoll_fd(b->ring);
}

BpfEvents *bpf_events_free(BpfEvents *b) {
        if (!b)
                return NULL;
        sd_event_source_disable_unref(b->io);
        ring_buffer__free(b->ring);
        /* detaches every link, closes the programs and maps: nothing of ours stays in the kernel */
        schedfreqd_bpf__destroy(b->skel);
        sd_event_unref(b->event);
        free(b->policy_ids);
        free(b);
        return NULL;
}

#endif /* SCHEDFREQD_NO_BPF */
