/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * include/events.h: the public interface of daemon/events/ (scheduler events from the kernel or from a recording,
 * as SchedEvents: the live perf source, the proc connector, CPU uevents, and replay's trace readers). The one
 * header of that folder the rest of the tree includes; its private headers stay in daemon/events/. Sections, in
 * dependency order: sched-event, perf-events, task-names, proc-conn, proc-sessions, trace-dat, trace-parse,
 * trace-perfdata, uevent.
 */

#include <errno.h>
#include <linux/netlink.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#include "config.h"
#include "macro.h"

/*
 * A scheduler event, decoded: what the model consumes, whether it came from a perf ring (live) or from a
 * `perf script` text line (replay). One code path, two sources.
 */

#define TASK_COMM_LEN 16 /* include/linux/sched.h, with the NUL */

typedef enum SchedEventType {
        SCHED_EVENT_SWITCH,       /* sched:sched_switch */
        SCHED_EVENT_WAKEUP,       /* sched:sched_wakeup */
        SCHED_EVENT_WAKEUP_NEW,   /* sched:sched_wakeup_new */
        SCHED_EVENT_MIGRATE,      /* sched:sched_migrate_task */
        SCHED_EVENT_EXIT,         /* sched:sched_process_exit */
        SCHED_EVENT_RUNTIME,      /* sched:sched_stat_runtime */
        SCHED_EVENT_STAT_IOWAIT,  /* sched:sched_stat_iowait: optional, only kernels with CONFIG_SCHEDSTATS have it */
        SCHED_EVENT_CPU_FREQUENCY, /* power:cpu_frequency: the kernel's frequency for one CPU; not a scheduler event,
                                    * read only to compare with the kernel (observe mode, replay); optional */
        _SCHED_EVENT_TYPE_MAX,
        _SCHED_EVENT_TYPE_INVALID = -EINVAL,
} SchedEventType;

typedef struct SchedEvent {
        SchedEventType type;
        uint64_t time_ns;         /* CLOCK_MONOTONIC (perf use_clockid) */
        int cpu;                  /* the CPU that recorded the event ("exec_cpu") */
        bool has_context;         /* context_pid is known */
        int32_t context_pid;      /* the task current on @cpu when it was recorded, 0 = idle (the tracepoint's
                                   * common_pid: perf's PERF_SAMPLE_TID, the "comm tid" column of perf script) */
        union {
                struct {
                        char prev_comm[TASK_COMM_LEN];
                        int32_t prev_pid;
                        int32_t prev_prio;
                        int64_t prev_state;       /* raw value as recorded */
                        bool prev_runnable;       /* decoded: prev stays enqueued (R or preempted) */
                        char next_comm[TASK_COMM_LEN];
                        int32_t next_pid;         /* 0 = the CPU goes idle */
                        int32_t next_prio;
                } sw;
                struct {                          /* WAKEUP, WAKEUP_NEW */
                        char comm[TASK_COMM_LEN];
                        int32_t pid;
                        int32_t prio;
                        int32_t target_cpu;
                } wakeup;
                struct {
                        char comm[TASK_COMM_LEN];
                        int32_t pid;
                        int32_t prio;
                        int32_t orig_cpu;
                        int32_t dest_cpu;
                } migrate;
                struct {
                        char comm[TASK_COMM_LEN];
                        int32_t pid;
                        int32_t prio;
                } exit;
                struct {
                        char comm[TASK_COMM_LEN];
                        int32_t pid;
                        uint64_t runtime_ns;
                } runtime;
                struct {                          /* a task waking after I/O is being enqueued (its rq's CPU: the
                                                   * task's, not necessarily the one recording the event) */
                        char comm[TASK_COMM_LEN];
                        int32_t pid;
                        uint64_t delay_ns;        /* how long it waited for the I/O */
                } iowait;
                struct {                          /* cpufreq_notify_transition(), cpufreq_driver_fast_switch():
                                                   * once per CPU of the policy (drivers/cpufreq/cpufreq.c) */
                        uint32_t khz;             /* state= */
                        int32_t cpu_id;           /* cpu_id=: the CPU whose frequency it is */
                } freq;
        };
} SchedEvent;

const char *sched_event_type_to_string(SchedEventType t);       /* "sched_switch", … */
/* The tracefs subsystem: "sched", or "power" for cpu_frequency. */
const char *sched_event_type_subsystem(SchedEventType t);
/* Accepts "sched_switch" and "sched:sched_switch" (and "power:cpu_frequency"). */
SchedEventType sched_event_type_from_string(const char *s);

/*
 * Whether a kernel may lack the tracepoint and the daemon still runs: sched_stat_iowait is compiled in only
 * with CONFIG_SCHEDSTATS (include/trace/events/sched.h, sched_stat_template) and fires only while
 * kernel.sched_schedstats=1; without it there is no iowait boost. power:cpu_frequency needs CONFIG_CPU_FREQ
 * (include/trace/events/power.h); without it there is no comparison with the kernel. Every other event is
 * required.
 */
bool sched_event_type_is_optional(SchedEventType t);

/*
 * The task an event is about: the woken task, the task switched in (or out, when the CPU goes idle), the
 * migrated, exiting, running or I/O-waking task. 0 for none (power:cpu_frequency) or the idle task.
 */
int32_t sched_event_task_pid(const SchedEvent *ev);
/* That task's name as the event gives it (for a live event, what the tracepoint recorded), or NULL for none. */
const char *sched_event_task_comm(const SchedEvent *ev);

/*
 * The live event source: the sched tracepoints through perf, one ring per CPU, drained on the sd-event loop
 * and delivered as SchedEvents merged in timestamp order. Owns the tracepoint fds (sched_wakeup* filtered on
 * the daemon's own pid, so its own wake-ups never feed back into it; its switches are delivered, see
 * tracepoint_filter_build()), the rings, one io source per ring, the drain timer and the wakeup policy
 * (config.h WakeupMode). What wakes the daemon (issue #9: a quiet machine must not wake it more than a few
 * times a second):
 *
 *   immediate  each sched_wakeup* sample (wakeup_events=1); every other event waits for the ring watermark
 *              (a quarter of the ring). No timer: between wake-ups the caller drains with
 *              perf_events_drain() (the manager does from its tick while a CPU is busy).
 *   watermark  the ring watermark and the drain timer (cfg->drain_interval_usec), the only state in which
 *              the timer is armed.
 *   adaptive   immediate while the event rate (measured at every drain, whatever triggered it) stays below
 *              cfg->adaptive_high_per_sec, watermark above it until the rate falls below a quarter of it.
 *              The switch swaps each CPU's sched_wakeup* fds for twins opened without wakeup_events
 *              (PERF_EVENT_IOC_ENABLE/DISABLE), so the kernel stops its per-sample wake-up too, not only the
 *              daemon (see perf-events.c for the measured costs).
 *
 * Lazy mode (perf_events_set_quiet()): while wake-ups are immediate, the wake-ups of a set of "quiet" tasks
 * (whose wake-ups cannot change a frequency now, the manager's call) are still recorded, in order, exactly
 * once, but wait in the ring instead of waking the daemon.
 *
 * The busy detector (sched_stat_runtime with runtime >= 1 ms, or half of a shorter tick; wakeup_events=1), on in
 * every mode, wakes the daemon when any task other than the daemon has run 1 ms without a break, at the kernel's
 * next tick (HZ=250: within ~4 ms), its samples delivered as SCHED_EVENT_RUNTIME: in lazy mode it sees a hog a
 * quiet task started, and in every mode it tells a running task from a CPU whose switch-out was lost
 * (perf_events_reports_runtime()).
 *
 * sched_stat_runtime is otherwise off unless PERF_EVENTS_STAT_RUNTIME is given (it fires on every switch and
 * tick; with it no detector is opened, and in lazy mode a hog started by a quiet task is seen at the
 * watermark or the caller's next drain). Needs root (or CAP_PERFMON + tracefs access); mounts tracefs when it
 * is not mounted. No logging above debug: errors are returned.
 */

typedef struct PerfEvents PerfEvents;

/* At most this many quiet pids (perf_events_set_quiet()); more are ignored. */
#define PERF_EVENTS_QUIET_MAX 64

/*
 * Called once per event, in timestamp order within one drain (events from one drain's rings are merged;
 * an event recorded before the last one delivered by an earlier drain is still delivered: the consumer
 * counts it as late). A negative return stops the drain: perf_events_drain() returns it, and from the
 * internal io/timer sources it ends the sd-event loop with that error (exit_on_failure).
 */
typedef int (*PerfEventsHandler)(const SchedEvent *ev, void *userdata);

/*
 * Called at a drain that found a ring's records lost (it was full: PERF_RECORD_LOST), before that drain's
 * events, with the CPU, how many were lost since the last call, and the time of the first event read after
 * the loss (or of the drain). Same return rules as the handler. The userdata is the handler's.
 */
typedef int (*PerfEventsLostHandler)(int cpu, uint64_t n_lost, uint64_t at_ns, void *userdata);

typedef enum PerfEventsFlags {
        PERF_EVENTS_STAT_RUNTIME = 1 << 0,  /* also open sched_stat_runtime */
        PERF_EVENTS_CPU_FREQUENCY = 1 << 1, /* also open power:cpu_frequency where the kernel has it (observe mode):
                                             * in the rings, read at the drains the scheduler events cause */
} PerfEventsFlags;

typedef struct PerfEventsStats {
        uint64_t samples;         /* events delivered to the handler */
        uint64_t lost;            /* events the kernel dropped because a ring was full (PERF_RECORD_LOST) */
        uint64_t overruns;        /* ring reads that found the data overwritten and skipped it */
        uint64_t malformed;       /* records or tracepoint payloads that failed to parse, skipped */
        uint64_t other_records;   /* non-sample records (throttling, …), skipped */
        uint64_t duplicates;      /* wake-ups recorded twice in a state switch's window, dropped */
        uint64_t drains;          /* perf_events_drain() runs, whatever triggered them */
        uint64_t wakeups;         /* drains triggered by a ring fd becoming readable */
        uint64_t mode_switches;   /* immediate ↔ watermark transitions (adaptive, or a reload) */
        uint64_t rate_per_sec;    /* event rate over the last measurement window (≥ 100 ms, between drains) */
        WakeupMode mode;          /* configured policy */
        bool immediate;           /* current state: sched_wakeup* samples wake the daemon (no drain timer) */
        bool lazy;                /* current state: immediate, but the quiet set's wake-ups do not wake it */
        unsigned quiet_pids;      /* the quiet set (applied while immediate, kept while watermark) */
        uint64_t lazy_switches;   /* lazy configurations applied: entering, leaving, a new quiet set while lazy */
        uint64_t filter_errors;   /* tracepoint filters the kernel refused (lazy mode fell back to immediate) */
        unsigned cpus;            /* CPUs with a ring */
        unsigned cpus_skipped;    /* requested CPUs perf refused (ENODEV, EINVAL, ENXIO: not in this kernel) */
        bool iowait;              /* sched_stat_iowait is open (the kernel has CONFIG_SCHEDSTATS) */
        bool cpu_frequency;       /* power:cpu_frequency is open (PERF_EVENTS_CPU_FREQUENCY, CONFIG_CPU_FREQ) */
} PerfEventsStats;

/*
 * Opens sched_switch, sched_wakeup, sched_wakeup_new, sched_migrate_task and sched_process_exit (and
 * sched_stat_runtime with PERF_EVENTS_STAT_RUNTIME, and sched_stat_iowait where the kernel has it; and,
 * disabled until lazy mode, the busy detector) on every CPU of @cpus, with cfg->ring_pages data pages per
 * ring, and attaches the ring fds and the drain timer to @event. Returns 0, -EINVAL (bad config), -ENODEV
 * (no CPU of @cpus could be opened), -EBADMSG (unexpected tracefs format, see debug log), or the errno of
 * tracefs, perf_event_open(2), mmap(2) or sd-event.
 */
int perf_events_new(sd_event *event, const cpu_set_t *cpus, const Config *cfg, PerfEventsHandler handler,
                    void *userdata, PerfEvents **ret);
int perf_events_new_flags(sd_event *event, const cpu_set_t *cpus, const Config *cfg, PerfEventsFlags flags,
                          PerfEventsHandler handler, void *userdata, PerfEvents **ret);

void perf_events_set_lost_handler(PerfEvents *p, PerfEventsLostHandler handler);

/* Why the tracefs formats were refused (perf_events_new() returned -EBADMSG): the format file and what in it
 * is not the shape the decoders read (tp-format.c), malloc'd into @ret; 0 when they load now. */
int perf_events_format_error(char **ret);

/*
 * Reads every ring, merges by time and delivers. Also measures the event rate (adaptive switches happen
 * here). Returns 0, the handler's negative return, or -ENOMEM.
 */
int perf_events_drain(PerfEvents *p);

/*
 * Sets the quiet set: @n_pids == 0 leaves lazy mode; otherwise the first PERF_EVENTS_QUIET_MAX distinct pids
 * of @pids (the daemon's own is dropped; if nothing is left, as n_pids == 0) become the quiet set, entering
 * lazy mode or replacing the set. Applied at once while wake-ups are immediate (immediate mode, adaptive in
 * its immediate state); in the watermark state it is only remembered, and applied when adaptive goes back
 * to immediate. Setting the same set again costs nothing; a new set opens 4 fds per CPU (a tracepoint fd
 * takes one filter in its life) and closes the old ones.
 *
 * Returns 0; -EINVAL (a pid <= 0, or pids NULL); -EOPNOTSUPP (no busy detector: the kernel refused its
 * filter); or, if the lazy fds cannot be opened (a filter the kernel refuses, counted in
 * stats.filter_errors; EMFILE, …), their errno: then the quiet set is forgotten and wake-ups are in normal
 * immediate mode. Another negative errno: an enable/disable ioctl failed (the state may then be mixed).
 */
int perf_events_set_quiet(PerfEvents *p, const int32_t *pids, size_t n_pids);
/* Whether a running task is reported (busy detector or PERF_EVENTS_STAT_RUNTIME): only then may silence end a
 * run (engine_set_runtime_reported()). False once the kernel refused the detector's filter. */
bool perf_events_reports_runtime(const PerfEvents *p);
/*
 * The CPUs on which the quiet set's wake-ups may be lazy (default: all). On the others the quiet tasks'
 * wake-ups are immediate like everyone's; with none, lazy mode is plain immediate mode (the quiet set and its
 * fds are kept). A change costs enable/disable ioctls on the CPUs that change, no new fds. Returns 0, -EINVAL,
 * or the negative errno of a failed ioctl.
 */
int perf_events_set_lazy_cpus(PerfEvents *p, const cpu_set_t *cpus);

/*
 * Applies cfg->wakeup, drain_interval_usec, adaptive_high_per_sec and ring_pages. Changing ring_pages
 * reopens the events: the rings are drained first, and on failure the old ones stay in place (a few events
 * between the two sets are missed). Other changes are immediate. The quiet set is kept. Returns 0 or a
 * negative errno.
 */
int perf_events_reconfigure(PerfEvents *p, const Config *cfg);

/*
 * CPU hotplug (the kernel drops a CPU's perf events for good when it goes offline; perf-events.c).
 *
 * perf_events_cpu_offline(): drains every ring first (what @cpu's ring holds is delivered, as are the
 * others'), then closes that CPU's fds, ring and io source; later drains, reconfigures and quiet-set changes
 * leave it out. Its ring's counters stay in the stats totals. A CPU without events (never opened, already
 * offline) is just marked offline. Returns 0, -EINVAL, or the handler's negative return from the drain (then
 * nothing was closed).
 *
 * perf_events_cpu_online(): opens @cpu again as the other CPUs are now: the same events and ring size, the
 * lazy twins of the current quiet set if they are open, and enabled for the current wake-up state
 * (watermark, immediate, or lazy with @cpu's bit of the lazy CPUs; adaptive's state and the drain timer are
 * shared). A CPU outside the set given to perf_events_new() is added to it. Already open: 0, nothing done.
 * Returns 0; -ENODEV when the kernel has @cpu offline (it stays closed); -EINVAL; -ENOMEM; or the errno of
 * perf_event_open(2), mmap(2), an ioctl or sd-event (nothing of @cpu stays open).
 *
 * Neither may be called from a PerfEventsHandler or PerfEventsLostHandler (inside a drain).
 */
int perf_events_cpu_offline(PerfEvents *p, int cpu);
int perf_events_cpu_online(PerfEvents *p, int cpu);

const PerfEventsStats *perf_events_stats(const PerfEvents *p);

/* Introspection, for tests: CPU @cpu's ring fd (-ENOENT if it has none), and the drain timer source. */
int perf_events_ring_fd(const PerfEvents *p, int cpu);
sd_event_source *perf_events_drain_timer(const PerfEvents *p);
/* Test hook: lazy filters built from now on name a field the tracepoint lacks (the kernel refuses them). */
void perf_events_test_break_filters(PerfEvents *p, bool b);

PerfEvents *perf_events_free(PerfEvents *p);
DEFINE_TRIVIAL_CLEANUP_FUNC(PerfEvents *, perf_events_free);

/*
 * A bounded table of the tasks (threads) the system runs: pid → tgid, comm. Fed by the proc connector
 * (proc-conn.c: fork adds, exec re-reads the name from /proc, comm updates, exit forgets) and refilled by a
 * scan of /proc when events were lost. Bounded: when full, the least recently used entry is evicted
 * (counted), so a missed exit or a pid flood costs a stale name at worst, never memory.
 *
 * Pure bookkeeping plus /proc reads under a configurable root (tests use a fake tree in a temp dir). No
 * logging above debug.
 */

#define TASK_NAMES_DEFAULT_CAPACITY 65536
#define TASK_NAMES_MAX_CAPACITY (UINT32_C(1) << 22)  /* PID_MAX_LIMIT on 64-bit (include/linux/threads.h) */

typedef struct TaskNames TaskNames;

typedef struct TaskName {
        pid_t pid;                      /* the thread id (the kernel's pid) */
        pid_t tgid;                     /* the process id */
        char comm[TASK_COMM_LEN];       /* NUL-terminated; "" when the name could not be learnt */
} TaskName;

typedef struct TaskNamesStats {
        uint64_t size;                  /* entries now */
        uint64_t capacity;
        uint64_t added;                 /* new entries (fork, set, scan) */
        uint64_t updated;               /* existing entries whose tgid or comm changed */
        uint64_t removed;               /* entries forgotten (exit) */
        uint64_t evicted;               /* least recently used entries dropped to make room */
        uint64_t scans;                 /* full /proc scans done */
        uint64_t scan_tasks;            /* tasks the last scan saw */
        uint64_t scan_dropped;          /* entries scans found gone (their exit was missed), total */
        uint64_t comm_read_failures;    /* /proc/…/comm reads that failed (the task was already gone) */
} TaskNamesStats;

/*
 * @proc_root: where procfs is mounted (NULL: "/proc"); @capacity: the bound (0: the default). Allocates
 * lazily (untouched pages cost nothing). Returns 0, -EINVAL (capacity above TASK_NAMES_MAX_CAPACITY) or
 * -ENOMEM. The root need not exist yet: reads under it just fail.
 */
int task_names_new(const char *proc_root, size_t capacity, TaskNames **ret);
TaskNames *task_names_free(TaskNames *t);
DEFINE_TRIVIAL_CLEANUP_FUNC(TaskNames *, task_names_free);

/* Copies the entry of @pid into @ret (and marks it recently used). Returns 0, -ENOENT, -EINVAL. */
int task_names_lookup(TaskNames *t, pid_t pid, TaskName *ret);
/* @pid's name read from /proc now (its tgid left 0), the table unchanged: where no proc connector feeds it. */
int task_names_read(TaskNames *t, pid_t pid, TaskName *ret);

/* Adds or updates @pid with @tgid and @comm (truncated to 15 bytes). Returns 0 or -EINVAL. */
int task_names_set(TaskNames *t, pid_t pid, pid_t tgid, const char *comm);

/*
 * A task was forked (the proc connector's fork event: the child is @pid/@tgid, its real parent
 * @parent_pid). The child inherits the name of the task that created it: for a thread (pid != tgid) the
 * name of its thread group leader, for a process the parent's; when that one is not known, the name is
 * read from /proc/TGID/task/PID/comm. Returns 0, -ENOENT (name unknown and the task already gone: nothing
 * added), -EINVAL.
 */
int task_names_fork(TaskNames *t, pid_t parent_pid, pid_t pid, pid_t tgid);

/*
 * @pid (of @tgid) exec'd: the event carries no name, so it is read from /proc/PID/comm (the new program's).
 * Returns 0, -ENOENT (the task is gone; any entry for it is forgotten), -EINVAL.
 */
int task_names_exec(TaskNames *t, pid_t pid, pid_t tgid);

/* Forgets @pid (exit). Returns true if it was known. */
bool task_names_forget(TaskNames *t, pid_t pid);

/*
 * Rebuilds the table from /proc: every /proc/TGID/task/TID/comm (or /proc/PID/comm where a process has no
 * task directory), then drops the entries the scan did not see (tasks whose exit was missed). Tasks that
 * vanish during the scan are skipped. Returns the number of tasks seen, or -errno if the root cannot be
 * read (the table is left as it was).
 */
int task_names_rescan(TaskNames *t);

/*
 * Calls @cb for every entry, most recently used first; a negative return stops and is returned. @cb must not
 * change the table (no set, forget or lookup: a lookup reorders it).
 */
int task_names_foreach(TaskNames *t, int (*cb)(const TaskName *n, void *userdata), void *userdata);

size_t task_names_size(const TaskNames *t);
const TaskNamesStats *task_names_stats(const TaskNames *t);

/*
 * The netlink proc connector (NETLINK_CONNECTOR, CN_IDX_PROC) through libnl-3, on the sd-event loop: task
 * lifecycle events (fork, exec, comm, exit) that keep a TaskNames table current, and a /proc rescan when the
 * socket overran and events were lost. Measured behaviour behind the choices: shared/notes/platform.md,
 * "Netlink proc connector (libnl-3)".
 *
 * Two layers:
 *   proc_event_parse()  one netlink message (nlmsghdr + cn_msg + proc_event, linux/cn_proc.h) → ProcEvent;
 *                       pure and bounds-checked.
 *   ProcConn            the socket, the subscription handshake, the io source and the table updates.
 *
 * Where the connector cannot work, proc_conn_new() fails fast with one of the errors listed at
 * proc_conn_error_is_unavailable(); the caller runs without it. No logging above debug.
 */

typedef enum ProcEventType {
        PROC_EVENT_TYPE_ACK,            /* PROC_EVENT_NONE: the kernel's answer to a (un)subscription */
        PROC_EVENT_TYPE_FORK,
        PROC_EVENT_TYPE_EXEC,
        PROC_EVENT_TYPE_UID,
        PROC_EVENT_TYPE_GID,
        PROC_EVENT_TYPE_SID,
        PROC_EVENT_TYPE_PTRACE,
        PROC_EVENT_TYPE_COMM,
        PROC_EVENT_TYPE_COREDUMP,
        PROC_EVENT_TYPE_EXIT,
        PROC_EVENT_TYPE_UNKNOWN,        /* a `what` this code does not know (a newer kernel) */
        PROC_EVENT_TYPE_RESCAN,         /* synthetic, never decoded: the table was rebuilt from /proc */
        _PROC_EVENT_TYPE_MAX,
} ProcEventType;

typedef struct ProcEvent {
        ProcEventType type;
        uint32_t what;                  /* the raw proc_event.what */
        uint32_t cpu;                   /* where it happened; UINT32_MAX for acks */
        uint64_t timestamp_ns;          /* ktime_get_ns(): CLOCK_MONOTONIC, comparable with the perf samples */
        uint32_t seq, ack;              /* cn_msg.seq (per-CPU counter) / .ack (an ack: the request's ack + 1) */
        pid_t pid, tgid;                /* the task concerned: fork's child, exec/comm/exit/… task */
        pid_t parent_pid, parent_tgid;  /* fork, coredump, exit. Exit's read 0 when the parent has already reaped
                                         * the child (sent after exit_notify(); seen on 6.18) or on old kernels */
        pid_t tracer_pid, tracer_tgid;  /* ptrace */
        uint32_t exit_code, exit_signal;/* exit */
        uint32_t ruid_rgid, euid_egid;  /* uid / gid */
        uint32_t err;                   /* ack: the errno the kernel reports (0: ok) */
        char comm[16];                  /* comm: the new name, NUL-terminated */
} ProcEvent;

/*
 * Decodes one netlink message: @buf holds @size bytes starting at its struct nlmsghdr. Returns 0 (known
 * and unknown `what`: ret->type tells), -EBADMSG (truncated: nlmsg_len, cn_msg.len or the event body does
 * not fit, or is shorter than the type needs), -ENOMSG (a netlink control message, or a connector message
 * for another index/value than CN_IDX_PROC/CN_VAL_PROC). @ret is written only on success.
 */
int proc_event_parse(const void *buf, size_t size, ProcEvent *ret);
const char *proc_event_type_to_string(ProcEventType t);

typedef struct ProcConn ProcConn;

/*
 * Called for every event after the table was updated: FORK, EXEC, COMM, EXIT, the other kernel types, and
 * RESCAN after an overrun rescan (other listeners' ACKs are not delivered). @task is the table's entry of
 * ev->pid after the update (for EXIT: before it was forgotten), NULL when unknown. A negative return stops
 * the drain: proc_conn_drain() returns it, and from the io source it ends the sd-event loop with it.
 */
typedef int (*ProcConnHandler)(const ProcEvent *ev, const TaskName *task, void *userdata);

#define PROC_CONN_RCVBUF_DEFAULT (4U << 20)    /* ~10000 events of slack (measured), see proc-conn.c */
#define PROC_CONN_ACK_TIMEOUT_USEC_DEFAULT (250 * UINT64_C(1000))
#define PROC_CONN_BATCH_MAX 256        /* messages per io dispatch (~0.4 ms): the perf rings get their turn */

typedef struct ProcConnOptions {
        size_t rcvbuf_bytes;            /* 0: PROC_CONN_RCVBUF_DEFAULT; SO_RCVBUFFORCE, else SO_RCVBUF */
        uint64_t ack_timeout_usec;      /* 0: PROC_CONN_ACK_TIMEOUT_USEC_DEFAULT */
        bool no_filter;                 /* do not ask the kernel (6.6+) for fork/exec/comm/exit only */
        bool no_initial_scan;           /* do not fill the table from /proc once subscribed */
        bool skip_namespace_check;      /* tests: rely on the subscription handshake alone */
        bool sessions;                  /* the filter also passes setsid() (PROC_EVENT_SID): proc-sessions */
        ProcConnHandler handler;        /* optional */
        void *userdata;
} ProcConnOptions;

typedef struct ProcConnStats {
        uint64_t events[_PROC_EVENT_TYPE_MAX];  /* by type, since subscribed (ACK: other listeners' too) */
        uint64_t messages;              /* netlink messages received */
        uint64_t overruns;              /* receive-queue overflows (ENOBUFS): events were lost */
        uint64_t rescans;               /* /proc rescans after overruns */
        uint64_t malformed;             /* messages that failed to decode (-EBADMSG) */
        uint64_t foreign;               /* not from the kernel, or not a proc event (-ENOMSG): ignored */
        uint64_t dispatches;            /* io wakeups */
        uint64_t max_batch;             /* most messages read in one dispatch */
        uint64_t drain_ns;              /* time spent draining (CLOCK_MONOTONIC), rescans included */
        uint64_t rescan_ns;             /* of which rescanning */
        size_t rcvbuf_bytes;            /* what the kernel granted (SO_RCVBUF as read back) */
        bool filtered;                  /* the per-listener event filter was requested (kernel ≥ 6.6 applies it) */
        int error;                      /* a socket error that disabled the source (negative errno), or 0 */
} ProcConnStats;

/*
 * Opens the socket, joins CN_IDX_PROC, subscribes (PROC_CN_MCAST_LISTEN) and waits for the kernel's
 * acknowledgement, then (unless opts->no_initial_scan) fills @names from /proc and attaches an io source to
 * @event (NULL: none; call proc_conn_drain() yourself). @names is borrowed: it must outlive the ProcConn.
 * Returns 0, one of the "unavailable" errors below, -ENOMEM, or another negative errno.
 */
int proc_conn_new(sd_event *event, TaskNames *names, ProcConn **ret);
int proc_conn_new_full(sd_event *event, TaskNames *names, const ProcConnOptions *opts, ProcConn **ret);

/* Unsubscribes (PROC_CN_MCAST_IGNORE), closes the socket, detaches from the loop. */
ProcConn *proc_conn_free(ProcConn *p);
DEFINE_TRIVIAL_CLEANUP_FUNC(ProcConn *, proc_conn_free);

/*
 * Reads up to PROC_CONN_BATCH_MAX queued messages (without blocking) and applies them; after an overrun,
 * rescans /proc once the queue is empty (or after a few dispatches of a storm that keeps it full). Returns
 * the number of messages read (0: nothing was queued), the handler's negative return, or -errno of the
 * socket.
 */
int proc_conn_drain(ProcConn *p);

const ProcConnStats *proc_conn_stats(const ProcConn *p);
int proc_conn_get_fd(const ProcConn *p);

/*
 * The errors that mean "no proc connector here", as opposed to a bug or a lack of memory:
 *   -EOPNOTSUPP       not in the initial pid or user namespace (the kernel ignores subscriptions from
 *                     there, and any events that reach the socket carry the host's pids)
 *   -ECONNREFUSED     not in the initial network namespace (the connector's kernel socket lives there)
 *   -EPROTONOSUPPORT  no NETLINK_CONNECTOR in this kernel (CONFIG_CONNECTOR / CONFIG_PROC_EVENTS off)
 *   -ETIMEDOUT        subscribed but never acknowledged
 *   -EPERM, -EACCES   refused (seccomp, an LSM; kernels before 3.x wanted CAP_NET_ADMIN)
 * proc_conn_unavailable_reason() gives a human reason for them (NULL for any other error).
 */
bool proc_conn_error_is_unavailable(int r);
const char *proc_conn_unavailable_reason(int r);

/*
 * Every task's session from /proc (proc-sessions.c), for the task groups of autogroup in the live daemon: with
 * kernel.sched_autogroup_enabled every session's tasks share a task group (kernel/sched/autogroup.c), and the sched
 * tracepoints name no task's session. Read once at start-up; a setsid() afterwards is the proc connector's
 * PROC_EVENT_SID (ProcConnOptions.sessions), after which proc_sessions_process() names the process's threads.
 * Threads share their process's session (signal->pids[PIDTYPE_SID]). No logging.
 */

/* Called for each task (thread) @tid in session @sid (0: the kernel's, kernel threads); a negative return stops. */
typedef int (*ProcSessionHandler)(int32_t tid, int32_t sid, void *userdata);

/* The session, the sixth field of a /proc/PID/stat line (fs/proc/array.c, do_task_stat(); counted after the comm's
 * last ')'). -EINVAL when @stat is not such a line. */
int proc_stat_session(const char *stat, int32_t *ret_sid);
/* @handler for every thread of every process under @proc_root (NULL: /proc) with its process's session: one stat
 * read a process, its threads from PID/task/. Tasks that exit meanwhile are skipped. Returns the number of tasks
 * named, the handler's negative return, or -errno when @proc_root cannot be read. */
int proc_sessions_scan(const char *proc_root, ProcSessionHandler handler, void *userdata);
/* @handler for each thread of process @tgid (PROC_EVENT_SID: @sid = @tgid), @tgid alone when it has no task/
 * directory (gone). Returns the number of tasks named, the handler's negative return, or -errno. */
int proc_sessions_process(const char *proc_root, int32_t tgid, int32_t sid, ProcSessionHandler handler,
                          void *userdata);

/*
 * A trace-cmd .dat file (`trace-cmd record`, the file KernelShark reads): its binary records of the sched
 * tracepoints, read with libtracecmd (a version 6 file's ring-buffer pages directly, with libtraceevent's kbuffer:
 * trace-dat.c) and decoded as the live daemon decodes a perf ring's (tp-decode.c), with the
 * event formats the file itself holds (the recording kernel's: tp_format_from_tep()). No text on the way. Every
 * buffer of the file (the top one, those of `trace-cmd record -B`) in one time order, as `trace-cmd report`
 * shows them. Record times are the trace clock's ns (trace-cmd's default clock, "local").
 */

/* The first bytes of every .dat (tracecmd/trace-output.c, the "tracing" magic after 0x17 0x08 0x44). */
#define TRACE_DAT_MAGIC "\027\010\104tracing"
#define TRACE_DAT_MAGIC_LEN 10

typedef struct TraceDat TraceDat;

/*
 * Opens the .dat on @fd (a regular file: libtracecmd seeks; @fd is not taken, it may be closed after). Returns 0,
 * or -EBADMSG/-ENOMEM/-errno with *ret_error a malloc'd reason (a truncated or corrupt file, the formats of
 * modelled events in a shape the decoder cannot read).
 */
int trace_dat_open(int fd, TraceDat **ret, char **ret_error);
TraceDat *trace_dat_free(TraceDat *d);
DEFINE_TRIVIAL_CLEANUP_FUNC(TraceDat *, trace_dat_free);

/*
 * Called for each record, in time order: @ev is the decoded event (with time_ns, cpu and the context pid set), or
 * NULL for a record of an event not modelled; @index counts records from 1; @lost is how many events the kernel
 * dropped on that CPU just before it (UINT64_MAX when the count is unknown), 0 mostly. A negative return stops
 * the iteration and is returned.
 */
typedef int (*TraceDatHandler)(const SchedEvent *ev, uint64_t index, uint64_t lost, void *userdata);

/*
 * Runs @handler over the records not handed out yet, in time order. A negative return of the handler stops the
 * iteration after its record, and is returned: a later call goes on from the next record (replay reads ahead to
 * measure the tick, then replays). Returns 0 at the end, the handler's error, or -EBADMSG with *ret_reason a
 * malloc'd reason (a record of a modelled event shorter than its format, a __data_loc pointing outside it);
 * *ret_index is the last record handed out (or refused), counted from 1 over every call.
 */
int trace_dat_iterate(TraceDat *d, TraceDatHandler handler, void *userdata, uint64_t *ret_index, char **ret_reason);

/* Whether @head (the first @size bytes of a file) starts like a .dat. */
bool trace_dat_magic(const void *head, size_t size);

/*
 * One line of a text trace → SchedEvent. Two layouts of line:
 *   `perf script` (or `perf script --ns`), what it prints for the sched tracepoints by default:
 *     <comm> <pid> [<cpu>] <sec>.<usec|nsec>: sched:<event>: key=value …
 *   ftrace: the tracefs `trace` file (kernel/trace/trace_output.c), `trace-cmd report`, Android's systrace text:
 *     <comm>-<pid> [(<tgid>)] [<cpu>] [<flags>] <sec>.<usec|nsec>: <event>: key=value …
 *     with the tgid column of options/record-tgid, the flags column of options/irq-info ("d..2." or "d..2"),
 *     trace-cmd report's "<buffer>: " before the task of a trace recorded with -B.
 * The key=value part is each tracepoint's TP_printk format (include/trace/events/sched.h), of current kernels
 * and of old ones (sched_wakeup's success=, the prev_state letters of 3.x-4.13); for sched_switch and
 * sched_wakeup* also the form libtraceevent's sched_switch plugin prints (`trace-cmd report`):
 *     <prev_comm>:<prev_pid> [<prio>] <state> ==> <next_comm>:<next_pid> [<prio>]
 *     <comm>:<pid> [<prio>] [success=1] CPU:<target_cpu>
 * The modelled events: sched_switch, sched_wakeup, sched_wakeup_new, sched_migrate_task, sched_process_exit,
 * sched_stat_runtime and sched_stat_iowait; power:cpu_frequency (include/trace/events/power.h) is read apart,
 * by trace_parse_cpu_frequency(). Pure: no I/O; the one state between lines is the layout
 * (trace_parse_line_format()).
 */

/* One power:cpu_frequency line (`state=<kHz> cpu_id=<cpu>`): the kernel's frequency for that CPU's policy. */
typedef struct TraceCpuFrequency {
        uint64_t time_ns;
        int cpu;
        uint32_t khz;
} TraceCpuFrequency;

/*
 * Parses a power:cpu_frequency line (`cpu_frequency:` in ftrace's layout). Returns 1 and fills @ret, 0 for a line of another event (or no event),
 * -EINVAL for a power:cpu_frequency line without a valid state= or cpu_id=.
 */
int trace_parse_cpu_frequency(const char *line, TraceCpuFrequency *ret);

/*
 * Sessions, for the task groups of autogroup (demand-groups.c: kernel/sched/autogroup.c gives each session one):
 *  - syscalls:sys_exit_setsid (`sys_exit_setsid:` in ftrace's layout), whose print is the return value `0x%lx`
 *    (kernel/trace/trace_syscalls.c, print_syscall_exit()): a task (the line's context) started session @sid
 *    (its own pid);
 *  - the line `# schedfreqd-session: pid=<tid> sid=<sid>` (what tests/oracle/run-oracle.sh writes before a
 *    recording's events, from /proc/<tid>/stat's session field, for the tasks that existed before it): a comment
 *    to other readers.
 */
typedef struct TraceSession {
        uint64_t time_ns;         /* setsid's; 0 for a session line (before every event) */
        int32_t pid;
        int32_t sid;
} TraceSession;

/*
 * Returns 1 and fills @ret for a successful setsid or a session line, 0 for any other line (a failed setsid
 * among them), -EINVAL for a setsid or session line without its numbers.
 */
int trace_parse_session(const char *line, TraceSession *ret);

/*
 * Parses one line. Returns TRACE_LINE_EVENT and fills @ret for a modelled sched event, TRACE_LINE_EMPTY for
 * blank and comment lines, TRACE_LINE_OTHER for other events (to be skipped and counted), or -EINVAL with
 * @ret_reason pointing at a static description of what is wrong.
 */
enum {
        TRACE_LINE_EMPTY,
        TRACE_LINE_EVENT,
        TRACE_LINE_OTHER,
        TRACE_LINE_LOST,          /* ftrace's "CPU:N [LOST N EVENTS]" (trace-cmd: "[N EVENTS DROPPED]"): a gap */
};

int trace_parse_line(const char *line, SchedEvent *ret, const char **ret_reason);

/* The layout of a text trace's event lines: one per trace, the first event line's. */
typedef enum TraceTextFormat {
        TRACE_TEXT_UNKNOWN,       /* no event line yet */
        TRACE_TEXT_PERF,
        TRACE_TEXT_FTRACE,
} TraceTextFormat;

/*
 * trace_parse_line() within a trace: *@format is what its first event line was (TRACE_TEXT_UNKNOWN before it,
 * then set by it); an event line of the other layout is -EINVAL. trace_parse_line() is this with a fresh
 * TRACE_TEXT_UNKNOWN, for one line alone.
 */
int trace_parse_line_format(const char *line, TraceTextFormat *format, SchedEvent *ret, const char **ret_reason);

/*
 * A perf.data file (`perf record -e sched:sched_switch … -a`), read directly: no perf, no text. The layout is
 * tools/perf/Documentation/perf.data-file-format.txt (and tools/perf/util/header.c): a struct perf_file_header,
 * the attrs section (one struct perf_event_attr per event, with the sample ids of its per-CPU streams), the data
 * section (the records the rings held: PERF_RECORD_SAMPLE, _LOST, _FINISHED_ROUND, COMM, MMAP, …), then the
 * feature sections, of which HEADER_TRACING_DATA holds the recording kernel's event formats
 * (perf-tracing-data.h). A sample's PERF_SAMPLE_RAW payload is the tracepoint's record, decoded as the live
 * daemon decodes its own rings' (tp-decode.c) with those formats. Samples come in the order perf script prints
 * them (perf-round-queue.h), so replaying a perf.data gives what replaying `perf script --ns` of it gives.
 *
 * Read: what `perf record` writes on a machine of the host's byte order, in file mode and in pipe mode (`perf record
 * -o -`: a 16-byte header, then the attrs and the tracing data as PERF_RECORD_HEADER_ATTR and
 * PERF_RECORD_HEADER_TRACING_DATA records before the others). Refused with a reason: another byte order
 * ("2ELIFREP"), version 1 ("PERFFILE"), compressed records (`perf record -z`), the directory format (`perf record
 * --threads`), modelled events recorded without their time, CPU or raw data.
 */

/* The first bytes of a perf.data: the u64 magic "PERFILE2" (header.c, __perf_magic2) in the writer's order. */
#define PERF_DATA_MAGIC "PERFILE2"
#define PERF_DATA_MAGIC_LEN 8

typedef struct PerfData PerfData;

typedef struct PerfDataStats {
        uint64_t samples;         /* PERF_RECORD_SAMPLE records delivered */
        uint64_t lost_records;    /* PERF_RECORD_LOST and PERF_RECORD_LOST_SAMPLES: places where events were lost */
        uint64_t lost_events;     /* the events they say were lost */
        uint64_t rounds;          /* PERF_RECORD_FINISHED_ROUND */
        uint64_t other;           /* other records (COMM, MMAP, …), not used */
} PerfDataStats;

/* Whether @head (the first @size bytes of a file) starts with a perf.data magic: PERFILE2 in either byte order, or
 * version 1's PERFFILE (refused by perf_data_open_*(), with the reason). */
bool perf_data_magic(const void *head, size_t size);

/*
 * Opens the perf.data on @fd (a regular file, mapped; @fd is not taken). Returns 0, or -EBADMSG/-ENOMEM/-errno with
 * *ret_error a malloc'd reason naming the part of the file and its byte offset ("data section, record at byte
 * 0x1c8: …"): a truncated or corrupt file, a form not read (above), the format of a modelled event the decoder
 * cannot read. -ESPIPE (with a reason) when @fd is not a regular file.
 */
int perf_data_open_fd(int fd, PerfData **ret, char **ret_error);

/* The same over @size bytes at @p, which the caller keeps alive and unchanged until perf_data_free(). */
int perf_data_open_memory(const void *p, size_t size, PerfData **ret, char **ret_error);

PerfData *perf_data_free(PerfData *d);
DEFINE_TRIVIAL_CLEANUP_FUNC(PerfData *, perf_data_free);

/*
 * Called for each sample, in perf script's order: @ev the decoded event (time_ns, cpu, and the context pid from
 * PERF_SAMPLE_TID set), or NULL for a sample of an event not modelled; @index counts samples from 1 (the line
 * `perf script` prints it on); @lost is 0 (lost events are counted in PerfDataStats). A negative return stops
 * the iteration and is returned. The same signature as TraceDatHandler (events.h).
 */
typedef int (*PerfDataHandler)(const SchedEvent *ev, uint64_t index, uint64_t lost, void *userdata);

/*
 * Runs @handler over every sample, from the start of the data (it may be called again). Returns 0, the handler's
 * error, -ENOMEM, or -EBADMSG with *ret_reason a malloc'd reason naming the record's byte offset and *ret_index
 * the samples delivered before it.
 */
int perf_data_iterate(PerfData *d, PerfDataHandler handler, void *userdata, uint64_t *ret_index, char **ret_reason);

/* What the last perf_data_iterate() counted. */
const PerfDataStats *perf_data_stats(const PerfData *d);

/*
 * CPU hotplug announcements: the kernel's kobject uevents (NETLINK_KOBJECT_UEVENT, multicast group 1) for
 * SUBSYSTEM=cpu with ACTION=online or offline, on the sd-event loop. Everything else on that socket (other
 * subsystems, add/remove/change, udev's own "libudev" messages) is skipped. Why the daemon needs it: a CPU
 * that goes offline loses its perf events for good (events.h, perf_events_cpu_offline()), so its rings
 * must be closed and, when it is back, opened again.
 *
 * Two layers:
 *   uevent_parse()          one message → (cpu, online); pure and bounds-checked.
 *   uevent_sender_trusted() the sender check (the kernel, or root), from the message's address and its
 *                           SCM_CREDENTIALS, as systemd's sd-device monitor does.
 *   UEventMonitor           the socket, its io source and the callback. No timers.
 *
 * Where the socket cannot be had (uevent_error_is_unavailable()), uevent_monitor_new() fails at once and the
 * caller runs without hotplug notifications (it logs that once). No logging above debug.
 */

/* The kernel's multicast group (uevent_net_broadcast_untagged(): netlink_broadcast(..., 0, 1, ...)). */
#define UEVENT_GROUP_KERNEL 1U
/* CPUs beyond this are not reported (cpu_set_t holds CPU_SETSIZE = 1024). */
#define UEVENT_CPU_MAX 1023U

typedef struct UEventCpu {
        unsigned cpu;
        bool online;
} UEventCpu;

/*
 * Decodes one kernel uevent: "ACTION@DEVPATH\0KEY=VALUE\0...\0" (@size bytes, lib/kobject_uevent.c
 * alloc_uevent_skb()). Returns 0 for a CPU going online or offline (SUBSYSTEM=cpu, ACTION=online|offline,
 * DEVPATH=/devices/system/cpu/cpuN with N canonical decimal <= UEVENT_CPU_MAX); -ENOMSG for a well-formed
 * message about anything else (udev's "libudev" messages included); -EBADMSG for a malformed one (no NUL
 * where one must be, no "@/" in the header, a missing or repeated ACTION, DEVPATH or SUBSYSTEM, a header
 * that disagrees with them). @ret is written only on success.
 */
int uevent_parse(const void *buf, size_t size, UEventCpu *ret);

/*
 * Whether a message may be believed: it was sent to the kernel's group (@from->nl_groups ==
 * UEVENT_GROUP_KERNEL), by the kernel (@from->nl_pid == 0) or by a process whose SCM_CREDENTIALS say uid 0
 * (@cred NULL: none came). Sending to a uevent group needs CAP_NET_ADMIN in the network namespace's user
 * namespace, so without the uid check a container's root could fake hotplug for a host daemon.
 */
bool uevent_sender_trusted(const struct sockaddr_nl *from, const struct ucred *cred);

typedef struct UEventMonitor UEventMonitor;

/* Called once per trusted CPU uevent, in arrival order. A negative return ends the sd-event loop with it. */
typedef int (*UEventHandler)(unsigned cpu, bool online, void *userdata);
/*
 * Called when the socket overran (ENOBUFS: uevents were lost); the caller re-reads the online CPUs
 * (/sys/devices/system/cpu/online) itself. Optional; same return rule; the handler's userdata.
 */
typedef int (*UEventOverrunHandler)(void *userdata);

typedef struct UEventStats {
        uint64_t received;      /* messages read from the socket */
        uint64_t delivered;     /* CPU online/offline events handed to the handler */
        uint64_t ignored;       /* well-formed, about something else (-ENOMSG) */
        uint64_t malformed;     /* -EBADMSG, or truncated (MSG_TRUNC) */
        uint64_t untrusted;     /* from neither the kernel nor root, dropped unread */
        uint64_t overruns;      /* ENOBUFS seen */
} UEventStats;

/*
 * Opens the socket (SOCK_CLOEXEC|SOCK_NONBLOCK, bound to group 1, SO_PASSCRED) and attaches an io source to
 * @event. Returns 0, -EINVAL, -ENOMEM, or the errno of socket(2)/bind(2)/sd-event: see
 * uevent_error_is_unavailable() for those that mean "this machine has no uevents for us".
 */
int uevent_monitor_new(sd_event *event, UEventHandler handler, void *userdata, UEventMonitor **ret);
void uevent_monitor_set_overrun_handler(UEventMonitor *m, UEventOverrunHandler handler);
/* Reads every queued message now (the io source does the same). Returns 0 or a handler's negative return,
 * or the errno of recvmsg(2) other than EAGAIN/EINTR/ENOBUFS. */
int uevent_monitor_drain(UEventMonitor *m);
const UEventStats *uevent_monitor_stats(const UEventMonitor *m);
int uevent_monitor_fd(const UEventMonitor *m);

/* EPERM, EACCES (a seccomp or LSM refusal), EPROTONOSUPPORT, EAFNOSUPPORT (no netlink or no uevent
 * protocol in this kernel): run without hotplug notifications. */
bool uevent_error_is_unavailable(int r);

UEventMonitor *uevent_monitor_free(UEventMonitor *m);
DEFINE_TRIVIAL_CLEANUP_FUNC(UEventMonitor *, uevent_monitor_free);
