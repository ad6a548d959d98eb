/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tree.c: the emulated /sys/devices/system/cpu: which nodes exist, their modes, and the show/store
 * functions of each attribute, with the kernel's text formats:
 *
 *   possible present online offline kernel_max          drivers/base/cpu.c
 *   cpufreq/policyN/ *                                   drivers/cpufreq/cpufreq.c, freq_table.c
 *   cpufreq/schedutil/rate_limit_us, or                  kernel/sched/cpufreq_schedutil.c, while schedutil
 *   cpufreq/policyN/schedutil/rate_limit_us              governs (global or per-policy tunables)
 *   cpuN/cpufreq -> ../cpufreq/policyM                   add_cpu_dev_symlink()
 *   cpuN/online (not cpu0, as on x86), cpuN/cpu_capacity drivers/base/core.c, drivers/base/arch_topology.c
 *   cpuN/topology/ *                                     drivers/base/topology.c (each CPU its own core,
 *                                                        one package)
 *
 * plus the emulator's own control files at the root: .emu-faults (fault.h) and .emu-ops (the requests served
 * so far, one "KIND COUNT" line per kind; writing "reset" zeroes them): resolvable by name, mode 0600, never
 * listed, so that the daemon, libcpupower and cpupower, which all read directories, never see them.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "emu.h"
#include "log.h"
#include "macro.h"

struct Attr {
        const char *name;
        mode_t mode;
        int (*show)(Emu *e, const Node *n, char *buf, size_t size);
        int (*store)(Emu *e, const Node *n, const char *buf);
        bool (*visible)(const Emu *e, const Node *n);
};

/* sysfs_emit(): at most one page; our attributes never come close. */
_printf_(3, 4)
static int emit(char *buf, size_t size, const char *format, ...) {
        va_list ap;
        int n;

        va_start(ap, format);
        n = vsnprintf(buf, size, format, ap);
        va_end(ap);
        if (n < 0)
                return -EIO;
        return (int) MIN((size_t) n, size - 1);
}

/* "%*pbl\n" (cpumap_print_to_pagebuf(true, ...)): the list format. */
static int show_cpulist(const cpu_set_t *set, char *buf, size_t size) {
        char list[EMU_PAGE_SIZE];
        int r;

        r = cpulist_format(set, list, sizeof(list));
        if (r < 0)
                return r;
        return emit(buf, size, "%s\n", list);
}

/* show_cpus() in drivers/cpufreq/cpufreq.c: related_cpus and affected_cpus are space-separated CPU
 * numbers ("0 1 2 3\n"), not the list format. */
static int show_cpus_spaced(const cpu_set_t *set, char *buf, size_t size) {
        size_t len = 0;

        for (unsigned cpu = 0; cpu < CPULIST_MAX_CPUS && len + 6 < size; cpu++)
                if (CPU_ISSET(cpu, set))
                        len += (size_t) snprintf(buf + len, size - len, "%s%u", len ? " " : "", cpu);
        return (int) len + emit(buf + len, size - len, "\n");
}

/* ---- /sys/devices/system/cpu ---- */

static int show_possible(Emu *e, const Node *n, char *buf, size_t size) {
        return show_cpulist(&e->possible, buf, size);
}

static int show_online(Emu *e, const Node *n, char *buf, size_t size) {
        return show_cpulist(&e->online, buf, size);
}

static int show_offline(Emu *e, const Node *n, char *buf, size_t size) {
        cpu_set_t offline;

        /* print_cpus_offline(): possible and not online */
        CPU_XOR(&offline, &e->possible, &e->online);
        CPU_AND(&offline, &offline, &e->possible);
        return show_cpulist(&offline, buf, size);
}

static int show_kernel_max(Emu *e, const Node *n, char *buf, size_t size) {
        /* NR_CPUS - 1: the emulator's NR_CPUS is the cpu_set_t size. */
        return emit(buf, size, "%d\n", CPULIST_MAX_CPUS - 1);
}

static const Attr root_attrs[] = {
        { "kernel_max", 0444, show_kernel_max },
        { "offline",    0444, show_offline },
        { "online",     0444, show_online },
        { "possible",   0444, show_possible },
        { "present",    0444, show_possible },
        {}
};

/* ---- cpufreq/policyN ---- */

static int show_affected_cpus(Emu *e, const Node *n, char *buf, size_t size) {
        cpu_set_t cpus;

        emu_policy_affected_cpus(e, n->policy, &cpus);
        return show_cpus_spaced(&cpus, buf, size);
}

static int show_related_cpus(Emu *e, const Node *n, char *buf, size_t size) {
        return show_cpus_spaced(&n->policy->desc->cpus, buf, size);
}

static int show_cur_freq(Emu *e, const Node *n, char *buf, size_t size) {
        return emit(buf, size, "%" PRIu32 "\n", n->policy->cur_khz);
}

static int show_cpuinfo_max(Emu *e, const Node *n, char *buf, size_t size) {
        return emit(buf, size, "%" PRIu32 "\n", n->policy->desc->cpuinfo_max_khz);
}

static int show_cpuinfo_min(Emu *e, const Node *n, char *buf, size_t size) {
        return emit(buf, size, "%" PRIu32 "\n", n->policy->desc->cpuinfo_min_khz);
}

static int show_latency(Emu *e, const Node *n, char *buf, size_t size) {
        return emit(buf, size, "%" PRIu64 "\n", n->policy->desc->transition_latency_ns);
}

static bool has_table(const Emu *e, const Node *n) {
        return n->policy->desc->frequencies_khz != NULL;
}

/* show_available_freqs() (freq_table.c): every entry followed by a space, then "\n". */
static int show_available_frequencies(Emu *e, const Node *n, char *buf, size_t size) {
        const PolicyDesc *d = n->policy->desc;
        size_t len = 0;

        for (size_t i = 0; i < d->n_frequencies && len + 12 < size; i++)
                len += (size_t) emit(buf + len, size - len, "%" PRIu32 " ", d->frequencies_khz[i]);
        return (int) len + emit(buf + len, size - len, "\n");
}

/* show_scaling_available_governors(): "performance powersave\n" for setpolicy drivers, otherwise every
 * registered governor followed by a space, then "\n". */
static int show_available_governors(Emu *e, const Node *n, char *buf, size_t size) {
        const EmuPolicy *p = n->policy;
        _cleanup_free_ char *copy = NULL;
        char *save = NULL;
        size_t len = 0;

        if (p->setpolicy)
                return emit(buf, size, "%s\n", p->governors);

        copy = strdup(p->governors);
        if (!copy)
                return -ENOMEM;
        for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
                len += (size_t) emit(buf + len, size - len, "%s ", w);
        return (int) len + emit(buf + len, size - len, "\n");
}

static int show_driver(Emu *e, const Node *n, char *buf, size_t size) {
        return emit(buf, size, "%s\n", n->policy->desc->driver);
}

static int show_governor(Emu *e, const Node *n, char *buf, size_t size) {
        return emit(buf, size, "%s\n", n->policy->governor);
}

static int show_max_freq(Emu *e, const Node *n, char *buf, size_t size) {
        return emit(buf, size, "%" PRIu32 "\n", n->policy->max_khz);
}

static int show_min_freq(Emu *e, const Node *n, char *buf, size_t size) {
        return emit(buf, size, "%" PRIu32 "\n", n->policy->min_khz);
}

/* show_scaling_setspeed(): the userspace governor shows policy->cur; any other governor has no
 * ->show_setspeed. */
static int show_setspeed(Emu *e, const Node *n, char *buf, size_t size) {
        if (!emu_policy_is_userspace(n->policy))
                return emit(buf, size, "<unsupported>\n");
        return emit(buf, size, "%" PRIu32 "\n", n->policy->cur_khz);
}

static int store_governor(Emu *e, const Node *n, const char *buf) {
        char name[EMU_GOVERNOR_NAME_MAX + 1];
        int r;

        r = kparse_word(buf, name);
        if (r < 0)
                return r;
        return emu_policy_set_governor(e, n->policy, name);
}

/* store_one(scaling_{min,max}_freq): sscanf("%lu"), then freq_qos_update_request(req, s32 value), which
 * rejects what is negative as an s32. */
static int store_limit(Emu *e, const Node *n, const char *buf, bool max) {
        unsigned long v;
        int32_t s32;
        int r;

        r = kparse_sscanf_ulong(buf, &v);
        if (r < 0)
                return r;
        s32 = (int32_t) (uint32_t) v;
        if (s32 < 0)
                return -EINVAL;
        return emu_policy_set_limit(e, n->policy, max, (uint32_t) s32);
}

static int store_max_freq(Emu *e, const Node *n, const char *buf) {
        return store_limit(e, n, buf, true);
}

static int store_min_freq(Emu *e, const Node *n, const char *buf) {
        return store_limit(e, n, buf, false);
}

/* store_scaling_setspeed(): -EINVAL without the userspace governor, before parsing; since 6.16 the
 * value goes through kstrtouint(buf, 0) and its error is returned as is. */
static int store_setspeed(Emu *e, const Node *n, const char *buf) {
        unsigned khz;
        int r;

        if (!emu_policy_is_userspace(n->policy))
                return -EINVAL;
        r = kparse_kstrtouint(buf, &khz);
        if (r < 0)
                return r;
        return emu_policy_set_speed(e, n->policy, khz);
}

static const Attr policy_attrs[] = {
        { "affected_cpus",                 0444, show_affected_cpus },
        { "cpuinfo_cur_freq",              0400, show_cur_freq },
        { "cpuinfo_max_freq",              0444, show_cpuinfo_max },
        { "cpuinfo_min_freq",              0444, show_cpuinfo_min },
        { "cpuinfo_transition_latency",    0444, show_latency },
        { "related_cpus",                  0444, show_related_cpus },
        { "scaling_available_frequencies", 0444, show_available_frequencies, NULL, has_table },
        { "scaling_available_governors",   0444, show_available_governors },
        { "scaling_cur_freq",              0444, show_cur_freq },
        { "scaling_driver",                0444, show_driver },
        { "scaling_governor",              0644, show_governor, store_governor },
        { "scaling_max_freq",              0644, show_max_freq, store_max_freq },
        { "scaling_min_freq",              0644, show_min_freq, store_min_freq },
        { "scaling_setspeed",              0644, show_setspeed, store_setspeed },
        {}
};

/* ---- schedutil tunables (kernel/sched/cpufreq_schedutil.c sugov_attrs) ---- */

static int show_rate_limit(Emu *e, const Node *n, char *buf, size_t size) {
        return emit(buf, size, "%" PRIu32 "\n", *emu_sugov_rate_limit(e, n->policy));
}

/* rate_limit_us_store(): kstrtouint(buf, 10, ...), every failure -EINVAL. */
static int store_rate_limit(Emu *e, const Node *n, const char *buf) {
        unsigned v;

        if (kparse_kstrtouint_base(buf, 10, &v) < 0)
                return -EINVAL;
        *emu_sugov_rate_limit(e, n->policy) = v;
        return 0;
}

static const Attr schedutil_attrs[] = {
        { "rate_limit_us", 0644, show_rate_limit, store_rate_limit },
        {}
};

/* ---- cpuN ---- */

static bool cpu_has_online_file(const Emu *e, const Node *n) {
        return n->cpu != 0; /* x86: cpu0 is not hot-pluggable, so it has no online attribute */
}

static int show_cpu_online(Emu *e, const Node *n, char *buf, size_t size) {
        return emit(buf, size, "%d\n", CPU_ISSET(n->cpu, &e->online) ? 1 : 0);
}

static int store_cpu_online(Emu *e, const Node *n, const char *buf) {
        bool online;
        int r;

        r = kparse_kstrtobool(buf, &online);
        if (r < 0)
                return r;
        return emu_cpu_set_online(e, n->cpu, online);
}

static bool cpu_has_capacity(const Emu *e, const Node *n) {
        const EmuPolicy *p = emu_policy_of_cpu(e, n->cpu);

        return p && p->desc->capacity > 0;
}

static int show_capacity(Emu *e, const Node *n, char *buf, size_t size) {
        return emit(buf, size, "%u\n", emu_policy_of_cpu(e, n->cpu)->desc->capacity);
}

static const Attr cpu_attrs[] = {
        { "cpu_capacity", 0444, show_capacity, NULL, cpu_has_capacity },
        { "online",       0644, show_cpu_online, store_cpu_online, cpu_has_online_file },
        {}
};

/* ---- cpuN/topology ---- */

static int show_core_id(Emu *e, const Node *n, char *buf, size_t size) {
        return emit(buf, size, "%u\n", n->cpu);
}

static int show_package_id(Emu *e, const Node *n, char *buf, size_t size) {
        return emit(buf, size, "0\n");
}

static int show_self_list(Emu *e, const Node *n, char *buf, size_t size) {
        return emit(buf, size, "%u\n", n->cpu);
}

/* topology_core_cpumask(): the online CPUs of the package. */
static int show_package_list(Emu *e, const Node *n, char *buf, size_t size) {
        return show_cpulist(&e->online, buf, size);
}

static const Attr topology_attrs[] = {
        { "core_cpus_list",       0444, show_self_list },
        { "core_id",              0444, show_core_id },
        { "core_siblings_list",   0444, show_package_list },
        { "package_cpus_list",    0444, show_package_list },
        { "physical_package_id",  0444, show_package_id },
        { "thread_siblings_list", 0444, show_self_list },
        {}
};

static const Attr *const dir_attrs[_DIR_MAX] = {
        [DIR_ROOT] = root_attrs,
        [DIR_CPUFREQ] = NULL,
        [DIR_POLICY] = policy_attrs,
        [DIR_CPU] = cpu_attrs,
        [DIR_TOPOLOGY] = topology_attrs,
        [DIR_SCHEDUTIL] = schedutil_attrs,
};

/* ---- Resolution ---- */

/* "<prefix>N" with N canonical decimal (no sign, no leading zero) below CPULIST_MAX_CPUS. */
static bool parse_numbered(const char *name, const char *prefix, unsigned *ret) {
        size_t n = strlen(prefix);
        unsigned v = 0;

        if (strncmp(name, prefix, n) != 0)
                return false;
        name += n;
        if (name[0] < '0' || name[0] > '9' || (name[0] == '0' && name[1] != '\0'))
                return false;
        for (; *name; name++) {
                if (*name < '0' || *name > '9')
                        return false;
                v = v * 10 + (unsigned) (*name - '0');
                if (v >= CPULIST_MAX_CPUS)
                        return false;
        }

        *ret = v;
        return true;
}

static bool cpu_exists(const Emu *e, unsigned cpu) {
        return cpu < CPULIST_MAX_CPUS && CPU_ISSET(cpu, &e->possible);
}

static bool cpu_has_cpufreq_link(const Emu *e, unsigned cpu) {
        const EmuPolicy *p = emu_policy_of_cpu(e, cpu);

        /* add_cpu_dev_symlink() runs for every related CPU, offline ones included, once the policy exists. */
        return p && p->created;
}

static bool cpu_has_topology(const Emu *e, unsigned cpu) {
        /* drivers/base/topology.c adds the group in the CPUHP_TOPOLOGY_PREPARE state: online CPUs only. */
        return CPU_ISSET(cpu, &e->online);
}

/* The visible attribute @name of directory @dir, or NULL. */
static const Attr *attr_find(const Emu *e, const Node *dir, const char *name) {
        const Attr *a = dir_attrs[dir->dir];

        for (; a && a->name; a++) {
                Node file = *dir;

                file.type = NODE_FILE;
                file.attr = a;
                if (streq(a->name, name) && (!a->visible || a->visible(e, &file)))
                        return a;
        }
        return NULL;
}

/* One path component below directory @n; updates @n in place. */
static int resolve_child(Emu *e, Node *n, const char *name) {
        unsigned v;
        const Attr *a;

        if (n->type != NODE_DIR)
                return -ENOTDIR;

        if (n->dir == DIR_ROOT && streq(name, EMU_CONTROL_NAME)) {
                *n = (Node) { .type = NODE_CONTROL, .dir = DIR_ROOT, .control = CONTROL_FAULTS };
                return 0;
        }
        if (n->dir == DIR_ROOT && streq(name, EMU_OPS_NAME)) {
                *n = (Node) { .type = NODE_CONTROL, .dir = DIR_ROOT, .control = CONTROL_OPS };
                return 0;
        }
        if (n->dir == DIR_ROOT && streq(name, "cpufreq")) {
                *n = (Node) { .type = NODE_DIR, .dir = DIR_CPUFREQ };
                return 0;
        }
        if (n->dir == DIR_ROOT && parse_numbered(name, "cpu", &v) && cpu_exists(e, v)) {
                *n = (Node) { .type = NODE_DIR, .dir = DIR_CPU, .cpu = v };
                return 0;
        }
        if (n->dir == DIR_CPUFREQ && parse_numbered(name, "policy", &v)) {
                EmuPolicy *p = emu_policy_by_id(e, v);

                if (!p || !p->created)
                        return -ENOENT;
                *n = (Node) { .type = NODE_DIR, .dir = DIR_POLICY, .policy = p };
                return 0;
        }
        if (n->dir == DIR_CPUFREQ && streq(name, "schedutil") && emu_has_global_sugov_dir(e)) {
                *n = (Node) { .type = NODE_DIR, .dir = DIR_SCHEDUTIL };
                return 0;
        }
        if (n->dir == DIR_POLICY && streq(name, "schedutil") && emu_policy_has_sugov_dir(n->policy)) {
                n->dir = DIR_SCHEDUTIL;
                return 0;
        }
        if (n->dir == DIR_CPU && streq(name, "cpufreq") && cpu_has_cpufreq_link(e, n->cpu)) {
                *n = (Node) { .type = NODE_LINK, .dir = DIR_CPU, .cpu = n->cpu,
                              .policy = emu_policy_of_cpu(e, n->cpu) };
                return 0;
        }
        if (n->dir == DIR_CPU && streq(name, "topology") && cpu_has_topology(e, n->cpu)) {
                n->dir = DIR_TOPOLOGY;
                return 0;
        }

        a = attr_find(e, n, name);
        if (!a)
                return -ENOENT;
        n->type = NODE_FILE;
        n->attr = a;
        return 0;
}

int emu_resolve(Emu *e, const char *path, Node *ret) {
        Node n = { .type = NODE_DIR, .dir = DIR_ROOT };

        while (*path) {
                char name[256];
                size_t len;
                int r;

                path += strspn(path, "/");
                len = strcspn(path, "/");
                if (len == 0)
                        break;
                if (len >= sizeof(name))
                        return -ENAMETOOLONG;
                memcpy(name, path, len);
                name[len] = '\0';
                path += len;

                r = resolve_child(e, &n, name);
                if (r < 0)
                        return r;
        }

        *ret = n;
        return 0;
}

mode_t emu_node_mode(const Node *n) {
        switch (n->type) {
        case NODE_DIR:
                return S_IFDIR | 0755;
        case NODE_LINK:
                return S_IFLNK | 0777;
        case NODE_CONTROL:
                return S_IFREG | 0600;
        default:
                return S_IFREG | n->attr->mode;
        }
}

int emu_node_readlink(const Node *n, char *buf, size_t size) {
        int r;

        if (n->type != NODE_LINK)
                return -EINVAL;
        r = snprintf(buf, size, "../cpufreq/policy%u", n->policy->desc->id);
        if (r < 0 || (size_t) r >= size)
                return -ENAMETOOLONG;
        return r;
}

/* The whole listing always fits the page a read returns. */
_Static_assert(FAULT_RULES_MAX * FAULT_LINE_MAX < EMU_PAGE_SIZE, "the .emu-faults listing must fit a page");

/* One write of .emu-faults: its commands apply all or nothing; a refused one says why on stderr, since the
 * writer sees only the errno. */
static int store_control(Emu *e, const char *buf) {
        char why[FAULT_WHY_MAX];
        int r;

        r = fault_set_apply(&e->faults, buf, why, sizeof(why));
        if (r < 0)
                return log_error_errno(r, "cpufreq-emu: %s: write refused: %s", EMU_CONTROL_NAME, why);
        return 0;
}

static const char *const op_names[_EMU_OP_MAX] = {
        [EMU_OP_GETATTR] = "getattr",
        [EMU_OP_READLINK] = "readlink",
        [EMU_OP_READDIR] = "readdir",
        [EMU_OP_OPENDIR] = "opendir",
        [EMU_OP_OPEN] = "open",
        [EMU_OP_READ] = "read",
        [EMU_OP_WRITE] = "write",
};

void emu_count_op(Emu *e, EmuOp op, const Node *n) {
        if (!n || n->type != NODE_CONTROL)
                e->ops[op]++;
}

static int show_ops(Emu *e, char *buf, size_t size) {
        size_t len = 0;

        for (EmuOp op = 0; op < _EMU_OP_MAX; op++) {
                int r = snprintf(buf + len, size - len, "%s %" PRIu64 "\n", op_names[op], e->ops[op]);

                if (r < 0 || (size_t) r >= size - len)
                        return -EFBIG;
                len += (size_t) r;
        }
        return (int) len;
}

static int store_ops(Emu *e, const char *buf) {
        if (!streq(buf, "reset") && !streq(buf, "reset\n"))
                return log_error_errno(SYNTHETIC_ERRNO(EINVAL), "cpufreq-emu: %s: write refused: only \"reset\"",
                                       EMU_OPS_NAME);
        memset(e->ops, 0, sizeof(e->ops));
        return 0;
}

int emu_node_show(Emu *e, const Node *n, char *buf, size_t size) {
        if (n->type == NODE_CONTROL && n->control == CONTROL_OPS)
                return show_ops(e, buf, size);
        if (n->type == NODE_CONTROL)
                return fault_set_format(&e->faults, buf, size);
        if (n->type != NODE_FILE)
                return -EISDIR;
        if (n->dir == DIR_POLICY && !emu_policy_active(e, n->policy))
                return -EBUSY;
        return n->attr->show(e, n, buf, size);
}

int emu_node_store(Emu *e, const Node *n, const char *buf) {
        if (n->type == NODE_CONTROL && n->control == CONTROL_OPS)
                return store_ops(e, buf);
        if (n->type == NODE_CONTROL)
                return store_control(e, buf);
        if (n->type != NODE_FILE)
                return -EISDIR;
        if (!n->attr->store)
                return -EIO; /* cpufreq's store(): no ->store */
        if (n->dir == DIR_POLICY && !emu_policy_active(e, n->policy))
                return -EBUSY;
        return n->attr->store(e, n, buf);
}

static int list_attrs(Emu *e, const Node *dir, EmuFillFunc fill, void *userdata) {
        for (const Attr *a = dir_attrs[dir->dir]; a && a->name; a++) {
                Node file = *dir;
                int r;

                file.type = NODE_FILE;
                file.attr = a;
                if (a->visible && !a->visible(e, &file))
                        continue;
                r = fill(userdata, a->name, &file);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int list_children(Emu *e, const Node *dir, EmuFillFunc fill, void *userdata) {
        char name[32];
        Node n;
        int r;

        switch (dir->dir) {
        case DIR_ROOT:
                r = fill(userdata, "cpufreq", &(Node) { .type = NODE_DIR, .dir = DIR_CPUFREQ });
                if (r < 0)
                        return r;
                for (unsigned cpu = 0; cpu < CPULIST_MAX_CPUS; cpu++) {
                        if (!cpu_exists(e, cpu))
                                continue;
                        (void) snprintf(name, sizeof(name), "cpu%u", cpu);
                        r = fill(userdata, name, &(Node) { .type = NODE_DIR, .dir = DIR_CPU, .cpu = cpu });
                        if (r < 0)
                                return r;
                }
                return 0;
        case DIR_CPUFREQ:
                if (emu_has_global_sugov_dir(e)) {
                        r = fill(userdata, "schedutil", &(Node) { .type = NODE_DIR, .dir = DIR_SCHEDUTIL });
                        if (r < 0)
                                return r;
                }
                for (size_t i = 0; i < e->n_policies; i++) {
                        if (!e->policies[i].created)
                                continue;
                        (void) snprintf(name, sizeof(name), "policy%u", e->policies[i].desc->id);
                        n = (Node) { .type = NODE_DIR, .dir = DIR_POLICY, .policy = &e->policies[i] };
                        r = fill(userdata, name, &n);
                        if (r < 0)
                                return r;
                }
                return 0;
        case DIR_POLICY:
                if (emu_policy_has_sugov_dir(dir->policy)) {
                        n = (Node) { .type = NODE_DIR, .dir = DIR_SCHEDUTIL, .policy = dir->policy };
                        r = fill(userdata, "schedutil", &n);
                        if (r < 0)
                                return r;
                }
                return 0;
        case DIR_CPU:
                if (cpu_has_cpufreq_link(e, dir->cpu)) {
                        n = (Node) { .type = NODE_LINK, .dir = DIR_CPU, .cpu = dir->cpu,
                                     .policy = emu_policy_of_cpu(e, dir->cpu) };
                        r = fill(userdata, "cpufreq", &n);
                        if (r < 0)
                                return r;
                }
                if (cpu_has_topology(e, dir->cpu)) {
                        n = (Node) { .type = NODE_DIR, .dir = DIR_TOPOLOGY, .cpu = dir->cpu };
                        r = fill(userdata, "topology", &n);
                        if (r < 0)
                                return r;
                }
                return 0;
        default:
                return 0;
        }
}

int emu_node_list(Emu *e, const Node *dir, EmuFillFunc fill, void *userdata) {
        int r;

        if (dir->type != NODE_DIR)
                return -ENOTDIR;
        r = list_attrs(e, dir, fill, userdata);
        if (r < 0)
                return r;
        return list_children(e, dir, fill, userdata);
}
