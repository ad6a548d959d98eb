/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

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

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#include "macro.h"
#include "task-names.h"

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
