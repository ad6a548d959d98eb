/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * cpufreq-emu: a FUSE replacement for /sys/devices/system/cpu with the kernel's cpufreq semantics, for tests
 * on machines without a cpufreq driver (docs/architecture.md "Testing without cpufreq").
 *
 *   policy.c    the cpufreq core and governors: limits, targets, governor switches, hotplug
 *   kparse.c    the kernel's parsers for sysfs writes (kstrtouint, sscanf "%lu", kstrtobool, "%15s")
 *   tree.c      the directory tree, attribute show/store, path resolution
 *   emu-log.c   the write log
 *   fault.c     injected faults: the rules a test writes to .emu-faults (fault.h)
 *   emu-uevent.c the kernel's CPU online/offline uevents (--uevents, in a private network namespace only)
 *   main.c      command line and the FUSE glue
 */

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "cpulist.h"
#include "fault.h"
#include "topology.h"

/* A sysfs attribute is one page: reads return at most this, writes store at most this (fs/kernfs/file.c). */
#define EMU_PAGE_SIZE 4096

/* CPUFREQ_NAME_LEN - 1: store_scaling_governor() reads the name with "%15s" (drivers/cpufreq/cpufreq.c). */
#define EMU_GOVERNOR_NAME_MAX 15

/* include/linux/cpufreq.h */
typedef enum Relation {
        RELATION_L, /* lowest frequency at or above the target */
        RELATION_H, /* highest frequency at or below the target */
} Relation;

typedef struct EmuPolicy {
        const PolicyDesc *desc;       /* points into Emu.topology */
        bool setpolicy;               /* a ->setpolicy driver (intel_pstate, amd-pstate-epp): no real governors */
        bool created;                 /* cpufreq/policyN exists: one of its CPUs has been online */
        const char *governors;        /* available governors, space separated */
        char governor[TOPOLOGY_GOVERNOR_MAX];
        uint32_t min_req_khz;         /* the user's freq-QoS requests: what scaling_{min,max}_freq stored */
        uint32_t max_req_khz;
        uint32_t min_khz, max_khz;    /* effective policy->min/max, as cpufreq_set_policy() computes them */
        uint32_t cur_khz;             /* policy->cur */
        uint32_t setspeed_khz;        /* the userspace governor's saved speed (cpufreq_userspace.c) */
        bool governor_per_policy;     /* CPUFREQ_HAVE_GOVERNOR_PER_POLICY: tunables in policyN/<governor>/ */
        uint32_t sugov_rate_limit_us; /* per-policy schedutil tunable, while schedutil governs (per policy) */
} EmuPolicy;

/* The FUSE requests .emu-ops counts, for the tree only (not the control files): a LOOKUP or GETATTR is a
 * getattr, as libfuse's high-level API serves both. What a test counts to bound a client's sysfs traffic. */
typedef enum EmuOp {
        EMU_OP_GETATTR,
        EMU_OP_READLINK,
        EMU_OP_READDIR,
        EMU_OP_OPENDIR,
        EMU_OP_OPEN,
        EMU_OP_READ,
        EMU_OP_WRITE,
        _EMU_OP_MAX,
} EmuOp;

typedef struct Emu {
        Topology *topology;
        EmuPolicy *policies;          /* parallel to topology->policies */
        size_t n_policies;
        int policy_of_cpu[CPULIST_MAX_CPUS]; /* index into policies, -1 for none */
        cpu_set_t online;
        cpu_set_t possible;
        int log_fd;                   /* O_APPEND, or -1 for no log */
        bool log_deferring;           /* inside a store: frequency changes wait for the write's own line */
        uint64_t log_store_ns;        /* when that store began */
        char log_deferred[1024];
        size_t log_deferred_len;
        struct timespec birth;        /* timestamps of every node */
        uint32_t sugov_global_rate_limit_us; /* cpufreq/schedutil/rate_limit_us, while any policy uses it */
        FaultSet faults;              /* what .emu-faults installed */
        uint64_t ops[_EMU_OP_MAX];    /* requests served for the tree since start or reset (.emu-ops) */
        int uevent_fd;                /* --uevents: a NETLINK_KOBJECT_UEVENT socket, or -1 */
        uint64_t uevent_seqnum;       /* SEQNUM= of the last uevent sent */
} Emu;

/* policy.c */
int emu_new(Topology *t, int log_fd, Emu **ret); /* takes ownership of @t on success */
Emu *emu_free(Emu *e);
static inline void emu_freep(Emu **e) {
        if (*e)
                emu_free(*e);
}
EmuPolicy *emu_policy_of_cpu(const Emu *e, unsigned cpu);
EmuPolicy *emu_policy_by_id(const Emu *e, unsigned id);
bool emu_policy_active(const Emu *e, const EmuPolicy *p);
void emu_policy_affected_cpus(const Emu *e, const EmuPolicy *p, cpu_set_t *ret);
bool emu_policy_is_userspace(const EmuPolicy *p);
int emu_policy_set_governor(Emu *e, EmuPolicy *p, const char *name);
int emu_policy_set_speed(Emu *e, EmuPolicy *p, uint32_t khz);
int emu_policy_set_limit(Emu *e, EmuPolicy *p, bool max, uint32_t khz);
int emu_cpu_set_online(Emu *e, unsigned cpu, bool online);
/* schedutil's tunables (kernel/sched/cpufreq_schedutil.c): per policy in policyN/schedutil/ for drivers with a
 * governor per policy, else one global cpufreq/schedutil/ that exists while any policy runs schedutil. */
bool emu_policy_has_sugov_dir(const EmuPolicy *p);
bool emu_has_global_sugov_dir(const Emu *e);
uint32_t *emu_sugov_rate_limit(Emu *e, EmuPolicy *p); /* @p NULL: the global tunable */

/* kparse.c: each returns 0 or the negative errno the kernel's store function returns. */
int kparse_kstrtouint(const char *s, unsigned *ret);
int kparse_kstrtouint_base(const char *s, unsigned base, unsigned *ret);
int kparse_sscanf_ulong(const char *s, unsigned long *ret);
int kparse_kstrtobool(const char *s, bool *ret);
int kparse_word(const char *s, char ret[EMU_GOVERNOR_NAME_MAX + 1]);

/* tree.c */
#define EMU_CONTROL_NAME ".emu-faults"
#define EMU_OPS_NAME ".emu-ops"
typedef enum NodeType {
        NODE_DIR,
        NODE_FILE,
        NODE_LINK,
        NODE_CONTROL, /* .emu-faults or .emu-ops at the root: resolvable, never listed, never faulted or logged */
} NodeType;

typedef enum EmuControl {
        CONTROL_FAULTS, /* .emu-faults (fault.h) */
        CONTROL_OPS,    /* .emu-ops: the requests served so far per kind, "reset" zeroes them */
} EmuControl;

typedef enum DirType {
        DIR_ROOT,      /* /sys/devices/system/cpu */
        DIR_CPUFREQ,   /* cpufreq */
        DIR_POLICY,    /* cpufreq/policyN */
        DIR_CPU,       /* cpuN */
        DIR_TOPOLOGY,  /* cpuN/topology */
        DIR_SCHEDUTIL, /* cpufreq/schedutil (policy NULL) or cpufreq/policyN/schedutil */
        _DIR_MAX,
} DirType;

typedef struct Attr Attr;

typedef struct Node {
        NodeType type;
        DirType dir;          /* the directory itself (NODE_DIR) or the one holding the file or link */
        const Attr *attr;     /* NODE_FILE */
        EmuPolicy *policy;    /* DIR_POLICY and its files; the target of a cpuN/cpufreq link */
        unsigned cpu;         /* DIR_CPU, DIR_TOPOLOGY and their files */
        EmuControl control;   /* NODE_CONTROL */
} Node;

typedef int (*EmuFillFunc)(void *userdata, const char *name, const Node *n);

int emu_resolve(Emu *e, const char *path, Node *ret);
mode_t emu_node_mode(const Node *n);
int emu_node_readlink(const Node *n, char *buf, size_t size);
int emu_node_show(Emu *e, const Node *n, char *buf, size_t size);
int emu_node_store(Emu *e, const Node *n, const char *buf);
int emu_node_list(Emu *e, const Node *dir, EmuFillFunc fill, void *userdata);

/* emu-uevent.c */
int emu_uevent_open(Emu *e);    /* refuses (-EPERM) in the initial network namespace */
void emu_uevent_cpu(Emu *e, unsigned cpu, bool online);

/* The op counters (.emu-ops): one call per request served, @n NULL when the path did not resolve. */
void emu_count_op(Emu *e, EmuOp op, const Node *n);

/* emu-log.c */
void emu_log_store_begin(Emu *e);
/* @injected: @error came from a rule of .emu-faults, not from the emulated kernel. */
void emu_log_write(Emu *e, const char *path, const char *value, size_t len, int error, bool injected);
void emu_log_cur(Emu *e, const EmuPolicy *p);
