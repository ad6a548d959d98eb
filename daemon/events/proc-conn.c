/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * proc-conn.c: the netlink proc connector (drivers/connector/cn_proc.c) through libnl-3 on the sd-event
 * loop, feeding task-names.c. Measured facts behind the choices (shared/notes/platform.md): messages arrive
 * as NLMSG_DONE, so the raw NL_CB_MSG_IN callback sees them (NL_CB_VALID never fires); the kernel numbers
 * them per CPU, so libnl's sequence check must be off; the receive buffer libnl sets in nl_connect() (32 KiB)
 * holds ~78 events, the system default (208 KiB) 512, the 4 MiB asked for here ~10000 (measured: the kernel
 * doubles the request and charges ~830 bytes per event); an overrun is ENOBUFS, which libnl reports as
 * -NLE_NOMEM, and the lost events are recovered by rescanning /proc.
 *
 * Namespaces. cn_proc_mcast_ctl() silently ignores (no acknowledgement, no listener count) a subscription
 * from outside the initial user and pid namespaces, but the socket still sits in the multicast group: if
 * anyone else on the machine listens, events reach it anyway, carrying the initial namespace's pids, which
 * mean nothing (or the wrong task) inside a container. Measured on 6.18: a socket that only joined the group
 * as PID 1 of `unshare --pid` received 42 host events in a second while a host listener existed. Two checks
 * keep the daemon out of that:
 *   1. before subscribing, the inode of /proc/self/ns/{pid,user}: the initial namespaces have fixed inode
 *      numbers (PROC_PID_INIT_INO, PROC_USER_INIT_INO in include/linux/proc_ns.h, stable since 3.8; systemd's
 *      namespace_is_init() relies on the same). Comparing with /proc/1/ns/pid is not enough: inside a
 *      container PID 1 is the container's init, in the same non-initial namespace as us.
 *   2. the handshake: the subscription counts only once the kernel's PROC_EVENT_NONE acknowledgement, carrying
 *      our random cookie + 1 in cn_msg.ack, arrives. cn_proc_ack() runs synchronously inside our sendmsg(),
 *      so the ack is queued before send returns; the timeout (250 ms) is only a bound, and a subscription
 *      that would never deliver fails with -ETIMEDOUT instead of hanging or delivering foreign pids.
 * Outside the initial network namespace, sending to the kernel fails with ECONNREFUSED (the connector's
 * kernel socket exists in init_net only).
 *
 * Filtering. Kernels ≥ 6.6 take a struct proc_input {mcast_op, event_type} and drop other event types per
 * socket (cn_filter()). Acknowledgements (what = PROC_EVENT_NONE = 0) never pass a filter, so the handshake
 * uses the old 4-byte form (all events) and the filter is sent once acknowledged. Older kernels ignore the
 * 8-byte form (wrong length) and keep sending everything; the extra types are counted and skipped.
 */

#include <fcntl.h>
#include <inttypes.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <poll.h>
#include <stddef.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <time.h>

#include <netlink/errno.h>
#include <netlink/handlers.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "events.h"
#include "log.h"
#include "string-table.h"
#include "time-util.h"

/* include/linux/proc_ns.h (kernel-internal, stable since 3.8). */
#define PROC_USER_INIT_INO UINT32_C(0xEFFFFFFD)
#define PROC_PID_INIT_INO UINT32_C(0xEFFFFFFC)

/* include/uapi/linux/cn_proc.h since 6.6 (Debian 12's headers are 6.1): the filtered subscription. */
typedef struct ProcInput {
        uint32_t mcast_op;              /* enum proc_cn_mcast_op */
        uint32_t event_type;            /* enum proc_cn_event: a mask of PROC_EVENT_* */
} ProcInput;

#define FILTER_EVENTS (PROC_EVENT_FORK | PROC_EVENT_EXEC | PROC_EVENT_COMM | PROC_EVENT_EXIT)
#define SUBSCRIBE_ATTEMPTS 4            /* resends when the ack itself was lost to an overrun */
/*
 * After an overrun the rescan waits until the backlog is applied (so older queued events do not overwrite
 * what it reads), but no longer than this many dispatches under a storm that never lets the queue empty.
 */
#define RESCAN_MAX_WAIT 16

struct ProcConn {
        sd_event *event;
        sd_event_source *io;
        struct nl_sock *sock;
        struct nl_cb *cb;
        TaskNames *names;
        ProcConnHandler handler;
        void *userdata;

        uint32_t cookie;                /* cn_msg.ack of our last subscription request */
        bool subscribed;                /* the kernel acknowledged it */
        bool acked;
        uint32_t ack_err;
        bool need_rescan;
        unsigned rescan_wait;           /* dispatches since need_rescan was set */
        int handler_error;
        unsigned batch;

        ProcConnStats stats;
};

/* ---- the decoder ---------------------------------------------------------------------------------- */

static const char *const proc_event_type_table[_PROC_EVENT_TYPE_MAX] = {
        [PROC_EVENT_TYPE_ACK] = "ack",
        [PROC_EVENT_TYPE_FORK] = "fork",
        [PROC_EVENT_TYPE_EXEC] = "exec",
        [PROC_EVENT_TYPE_UID] = "uid",
        [PROC_EVENT_TYPE_GID] = "gid",
        [PROC_EVENT_TYPE_SID] = "sid",
        [PROC_EVENT_TYPE_PTRACE] = "ptrace",
        [PROC_EVENT_TYPE_COMM] = "comm",
        [PROC_EVENT_TYPE_COREDUMP] = "coredump",
        [PROC_EVENT_TYPE_EXIT] = "exit",
        [PROC_EVENT_TYPE_UNKNOWN] = "unknown",
        [PROC_EVENT_TYPE_RESCAN] = "rescan",
};

DEFINE_STRING_TABLE_LOOKUP_TO_STRING(proc_event_type, ProcEventType);

#define EVENT_DATA_OFFSET offsetof(struct proc_event, event_data)
#define DATA_END(member) (EVENT_DATA_OFFSET + sizeof(((struct proc_event *) NULL)->event_data.member))
#define FIELD_END(member, field) \
        (EVENT_DATA_OFFSET + offsetof(__typeof__(((struct proc_event *) NULL)->event_data.member), field) + \
         sizeof(((struct proc_event *) NULL)->event_data.member.field))

/*
 * The proc_event of one netlink message (@body: the bytes the connector sent of it, copied into @ret_ev, the
 * rest zeroed), with the message's connector header in @ret_cn. -ENOMSG for a message of another kind.
 */
static int proc_message_event(const uint8_t *p, size_t size, struct cn_msg *ret_cn, struct proc_event *ret_ev,
                              size_t *ret_body) {
        struct nlmsghdr nlh;
        struct cn_msg cn;
        size_t body;

        /*
         * Every read is a memcpy out of the buffer: the proc_event sits at offset 36 of the message
         * (NLMSG_HDRLEN + sizeof(struct cn_msg)), so its 8-byte timestamp is never aligned in place.
         */
        if (size < NLMSG_HDRLEN)
                return -EBADMSG;
        memcpy(&nlh, p, sizeof(nlh));
        if (nlh.nlmsg_len < NLMSG_HDRLEN || nlh.nlmsg_len > size)
                return -EBADMSG;
        /* cn_netlink_send_mult() (drivers/connector/connector.c) always sends NLMSG_DONE. */
        if (nlh.nlmsg_type != NLMSG_DONE)
                return -ENOMSG;
        if (nlh.nlmsg_len - NLMSG_HDRLEN < sizeof(cn))
                return -EBADMSG;
        memcpy(&cn, p + NLMSG_HDRLEN, sizeof(cn));
        if (cn.id.idx != CN_IDX_PROC || cn.id.val != CN_VAL_PROC)
                return -ENOMSG;
        body = cn.len;
        if (body > nlh.nlmsg_len - NLMSG_HDRLEN - sizeof(cn) || body < EVENT_DATA_OFFSET)
                return -EBADMSG;

        memset(ret_ev, 0, sizeof(*ret_ev));
        memcpy(ret_ev, p + NLMSG_HDRLEN + sizeof(cn), MIN(body, sizeof(*ret_ev)));
        *ret_cn = cn;
        *ret_body = body;
        return 0;
}

/* The fields of @ev's kind into @e; returns how many bytes of the event they need (its struct's end). */
/* proc_event_fill() for the events the daemon's filter keeps out (uid, gid, ptrace, coredump; sid unless it
 * follows sessions: ProcConnOptions.sessions), and unknown ones. */
static size_t proc_event_fill_other(const struct proc_event *ev, size_t body, ProcEvent *e) {
        size_t need;

        switch ((uint32_t) ev->what) {
        case PROC_EVENT_UID:
        case PROC_EVENT_GID:
                e->type = ev->what == PROC_EVENT_UID ? PROC_EVENT_TYPE_UID : PROC_EVENT_TYPE_GID;
                need = DATA_END(id);
                e->pid = ev->event_data.id.process_pid;
                e->tgid = ev->event_data.id.process_tgid;
                e->ruid_rgid = ev->event_data.id.r.ruid;
                e->euid_egid = ev->event_data.id.e.euid;
                break;
        case PROC_EVENT_SID:
                e->type = PROC_EVENT_TYPE_SID;
                need = DATA_END(sid);
                e->pid = ev->event_data.sid.process_pid;
                e->tgid = ev->event_data.sid.process_tgid;
                break;
        case PROC_EVENT_PTRACE:
                e->type = PROC_EVENT_TYPE_PTRACE;
                need = DATA_END(ptrace);
                e->pid = ev->event_data.ptrace.process_pid;
                e->tgid = ev->event_data.ptrace.process_tgid;
                e->tracer_pid = ev->event_data.ptrace.tracer_pid;
                e->tracer_tgid = ev->event_data.ptrace.tracer_tgid;
                break;
        case PROC_EVENT_COREDUMP:
                e->type = PROC_EVENT_TYPE_COREDUMP;
                /* parent_pid/tgid were added in 4.x (with exit's); older kernels end after process_tgid. */
                need = FIELD_END(coredump, process_tgid);
                e->pid = ev->event_data.coredump.process_pid;
                e->tgid = ev->event_data.coredump.process_tgid;
                if (body >= DATA_END(coredump)) {
                        e->parent_pid = ev->event_data.coredump.parent_pid;
                        e->parent_tgid = ev->event_data.coredump.parent_tgid;
                }
                break;
        default:
                e->type = PROC_EVENT_TYPE_UNKNOWN;
                need = EVENT_DATA_OFFSET;
                break;
        }
        return need;
}

static size_t proc_event_fill(const struct proc_event *ev, size_t body, ProcEvent *e) {
        size_t need;

        switch ((uint32_t) ev->what) {
        case PROC_EVENT_NONE:
                e->type = PROC_EVENT_TYPE_ACK;
                need = DATA_END(ack);
                e->err = ev->event_data.ack.err;
                break;
        case PROC_EVENT_FORK:
                e->type = PROC_EVENT_TYPE_FORK;
                need = DATA_END(fork);
                e->parent_pid = ev->event_data.fork.parent_pid;
                e->parent_tgid = ev->event_data.fork.parent_tgid;
                e->pid = ev->event_data.fork.child_pid;
                e->tgid = ev->event_data.fork.child_tgid;
                break;
        case PROC_EVENT_EXEC:
                e->type = PROC_EVENT_TYPE_EXEC;
                need = DATA_END(exec);
                e->pid = ev->event_data.exec.process_pid;
                e->tgid = ev->event_data.exec.process_tgid;
                break;
        case PROC_EVENT_COMM:
                e->type = PROC_EVENT_TYPE_COMM;
                need = DATA_END(comm);
                e->pid = ev->event_data.comm.process_pid;
                e->tgid = ev->event_data.comm.process_tgid;
                memcpy(e->comm, ev->event_data.comm.comm, sizeof(e->comm) - 1);
                e->comm[sizeof(e->comm) - 1] = 0;
                break;
        case PROC_EVENT_EXIT:
                e->type = PROC_EVENT_TYPE_EXIT;
                need = FIELD_END(exit, exit_signal);
                e->pid = ev->event_data.exit.process_pid;
                e->tgid = ev->event_data.exit.process_tgid;
                e->exit_code = ev->event_data.exit.exit_code;
                e->exit_signal = ev->event_data.exit.exit_signal;
                if (body >= DATA_END(exit)) {
                        e->parent_pid = ev->event_data.exit.parent_pid;
                        e->parent_tgid = ev->event_data.exit.parent_tgid;
                }
                break;
        default:
                need = proc_event_fill_other(ev, body, e);
                break;
        }
        return need;
}

int proc_event_parse(const void *buf, size_t size, ProcEvent *ret) {
        struct cn_msg cn;
        struct proc_event ev;
        ProcEvent e = {};
        size_t body;
        int r;

        if (!buf || !ret)
                return -EINVAL;
        r = proc_message_event(buf, size, &cn, &ev, &body);
        if (r < 0)
                return r;

        e.what = (uint32_t) ev.what;
        e.cpu = ev.cpu;
        e.timestamp_ns = ev.timestamp_ns;
        e.seq = cn.seq;
        e.ack = cn.ack;
        if (body < proc_event_fill(&ev, body, &e))
                return -EBADMSG;
        /* Task ids of a real event are positive; a zero or negative one is a corrupt message. */
        if (e.type != PROC_EVENT_TYPE_ACK && e.type != PROC_EVENT_TYPE_UNKNOWN && (e.pid <= 0 || e.tgid <= 0))
                return -EBADMSG;

        *ret = e;
        return 0;
}

/* ---- errors ----------------------------------------------------------------------------------------- */

static int nlerr_to_errno(int nlerr) {
        switch (abs(nlerr)) {
        case NLE_SUCCESS:
                return 0;
        case NLE_INTR:
                return -EINTR;
        case NLE_BAD_SOCK:
                return -EBADF;
        case NLE_AGAIN:
                return -EAGAIN;
        case NLE_NOMEM:
                return -ENOMEM;
        case NLE_INVAL:
                return -EINVAL;
        case NLE_RANGE:
                return -ERANGE;
        case NLE_MSGSIZE:
                return -EMSGSIZE;
        case NLE_OPNOTSUPP:
                return -EOPNOTSUPP;
        case NLE_AF_NOSUPPORT:
                return -EAFNOSUPPORT;
        case NLE_OBJ_NOTFOUND:
                return -ENOENT;
        case NLE_BUSY:
                return -EBUSY;
        case NLE_PROTO_MISMATCH:
                return -EPROTONOSUPPORT;
        case NLE_NOACCESS:
                return -EACCES;
        case NLE_PERM:
                return -EPERM;
        case NLE_NODEV:
                return -ENODEV;
        default:
                return -EIO;
        }
}

bool proc_conn_error_is_unavailable(int r) {
        return proc_conn_unavailable_reason(r) != NULL;
}

const char *proc_conn_unavailable_reason(int r) {
        switch (-r) {
        case EOPNOTSUPP:
                return "not in the initial pid and user namespaces";
        case ECONNREFUSED:
                return "not in the initial network namespace";
        case EPROTONOSUPPORT:
                return "no NETLINK_CONNECTOR in this kernel";
        case ETIMEDOUT:
                return "subscription not acknowledged";
        case EPERM:
        case EACCES:
                return "not permitted";
        default:
                return NULL;
        }
}

/* ---- the socket ------------------------------------------------------------------------------------- */

static int check_initial_namespaces(void) {
        static const struct {
                const char *path;
                uint32_t ino;
        } table[] = {
                { "/proc/self/ns/pid", PROC_PID_INIT_INO },
                { "/proc/self/ns/user", PROC_USER_INIT_INO },
        };

        for (size_t i = 0; i < ELEMENTSOF(table); i++) {
                struct stat st;

                /* No /proc, or one of another pid namespace where we are invisible: the handshake decides. */
                if (stat(table[i].path, &st) < 0)
                        continue;
                if (st.st_ino != table[i].ino) {
                        log_debug("proc connector: %s is not the initial namespace (inode %ju)", table[i].path,
                                  (uintmax_t) st.st_ino);
                        return -EOPNOTSUPP;
                }
        }
        return 0;
}

/* One request to the connector: nlmsghdr + cn_msg + @data, to the kernel (port 0). */
static int send_request(ProcConn *p, const void *data, uint16_t data_len) {
        uint8_t buf[NLMSG_SPACE(sizeof(struct cn_msg) + sizeof(ProcInput))] = {};
        struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
        struct nlmsghdr nlh = {
                .nlmsg_len = NLMSG_LENGTH(sizeof(struct cn_msg) + data_len),
                .nlmsg_type = NLMSG_DONE,
                .nlmsg_pid = nl_socket_get_local_port(p->sock),
        };
        struct cn_msg cn = {
                .id = { .idx = CN_IDX_PROC, .val = CN_VAL_PROC },
                .ack = p->cookie,
                .len = data_len,
        };
        ssize_t n;

        if (data_len > sizeof(ProcInput))
                return -EINVAL;
        memcpy(buf, &nlh, sizeof(nlh));
        memcpy(buf + NLMSG_HDRLEN, &cn, sizeof(cn));
        memcpy(buf + NLMSG_HDRLEN + sizeof(cn), data, data_len);
        /* Plain sendto rather than nl_sendto: libnl folds ECONNREFUSED into NLE_OBJ_NOTFOUND. */
        n = sendto(nl_socket_get_fd(p->sock), buf, nlh.nlmsg_len, 0, (struct sockaddr *) &kernel,
                   sizeof(kernel));
        if (n < 0)
                return negative_errno();
        return 0;
}

static int send_op(ProcConn *p, enum proc_cn_mcast_op op) {
        uint32_t data = op;

        return send_request(p, &data, sizeof(data));
}

static uint32_t new_cookie(void) {
        uint32_t c;

        if (getrandom(&c, sizeof(c), GRND_NONBLOCK) != sizeof(c))
                c = (uint32_t) monotonic_ns() ^ ((uint32_t) getpid() << 16);
        /* Events carry ack 0: never expect an ack of 0. */
        return c == UINT32_MAX ? 1 : c;
}

/* ---- receiving -------------------------------------------------------------------------------------- */

static int apply(ProcConn *p, const ProcEvent *ev) {
        TaskName task;
        bool known = false;

        switch (ev->type) {
        case PROC_EVENT_TYPE_FORK:
                if (p->names)
                        (void) task_names_fork(p->names, ev->parent_pid, ev->pid, ev->tgid);
                break;
        case PROC_EVENT_TYPE_EXEC:
                if (p->names)
                        (void) task_names_exec(p->names, ev->pid, ev->tgid);
                break;
        case PROC_EVENT_TYPE_COMM:
                if (p->names)
                        (void) task_names_set(p->names, ev->pid, ev->tgid, ev->comm);
                break;
        case PROC_EVENT_TYPE_EXIT:
                if (p->names) {
                        if (p->handler)
                                known = task_names_lookup(p->names, ev->pid, &task) >= 0;
                        (void) task_names_forget(p->names, ev->pid);
                }
                return p->handler ? p->handler(ev, known ? &task : NULL, p->userdata) : 0;
        default:
                break;
        }
        if (!p->handler)
                return 0;
        if (p->names && ev->pid > 0)
                known = task_names_lookup(p->names, ev->pid, &task) >= 0;
        return p->handler(ev, known ? &task : NULL, p->userdata);
}

static int on_msg_in(struct nl_msg *msg, void *userdata) {
        ProcConn *p = userdata;
        struct nlmsghdr *nlh = nlmsg_hdr(msg);
        struct sockaddr_nl *src = nlmsg_get_src(msg);
        ProcEvent ev;
        int r;

        p->stats.messages++;
        p->batch++;
        /* Any local process may unicast to our port: only the kernel (port 0) speaks for the connector. */
        if (src && src->nl_pid != 0) {
                p->stats.foreign++;
                return NL_SKIP;
        }
        r = proc_event_parse(nlh, nlh->nlmsg_len, &ev);
        if (r < 0) {
                if (r == -EBADMSG)
                        p->stats.malformed++;
                else
                        p->stats.foreign++;
                return NL_SKIP;
        }

        if (!p->subscribed) {
                /* Until acknowledged, events may not even be ours to interpret (see the top of the file). */
                if (ev.type == PROC_EVENT_TYPE_ACK && ev.ack == p->cookie + 1) {
                        p->acked = true;
                        p->ack_err = ev.err;
                }
                return NL_SKIP;
        }

        p->stats.events[ev.type]++;
        if (ev.type == PROC_EVENT_TYPE_ACK)
                return NL_SKIP;
        r = apply(p, &ev);
        if (r < 0) {
                p->handler_error = r;
                return NL_STOP;
        }
        return NL_SKIP;
}

static int rescan(ProcConn *p) {
        ProcEvent ev = { .type = PROC_EVENT_TYPE_RESCAN, .cpu = UINT32_MAX, .timestamp_ns = monotonic_ns() };
        uint64_t start = ev.timestamp_ns;
        int r;

        p->need_rescan = false;
        if (!p->names)
                return 0;
        r = task_names_rescan(p->names);
        p->stats.rescans++;
        p->stats.events[PROC_EVENT_TYPE_RESCAN]++;
        p->stats.rescan_ns += monotonic_ns() - start;
        if (r < 0)
                log_debug_errno(r, "proc connector: rescan failed: %m");
        return p->handler ? p->handler(&ev, NULL, p->userdata) : 0;
}

/* Reads without blocking; sets *ret_handler_failed when a negative return comes from the handler. */
static int drain(ProcConn *p, bool *ret_handler_failed) {
        uint64_t start = monotonic_ns();
        unsigned reads = 0;
        bool empty = false;
        int r = 0;

        *ret_handler_failed = false;
        p->batch = 0;
        while (p->batch < PROC_CONN_BATCH_MAX && reads++ < PROC_CONN_BATCH_MAX) {
                r = nl_recvmsgs_report(p->sock, p->cb);
                if (p->handler_error < 0) {
                        r = p->handler_error;
                        p->handler_error = 0;
                        *ret_handler_failed = true;
                        goto finish;
                }
                if (r == 0 || r == -NLE_AGAIN) {
                        empty = true;
                        break;
                }
                if (r == -NLE_NOMEM) {
                        /*
                         * ENOBUFS: the receive queue overflowed and events are gone (netlink_overrun()). What is
                         * still queued is kept and applied first; the rescan then covers what was lost.
                         */
                        p->stats.overruns++;
                        p->need_rescan = true;
                        r = 0;
                        continue;
                }
                if (r < 0) {
                        log_debug("proc connector: receive failed: %s", nl_geterror(r));
                        r = nlerr_to_errno(r);
                        goto finish;
                }
        }
        if (p->need_rescan && p->subscribed && (empty || ++p->rescan_wait >= RESCAN_MAX_WAIT)) {
                p->rescan_wait = 0;
                r = rescan(p);
                if (r < 0) {
                        *ret_handler_failed = true;
                        goto finish;
                }
        }
        r = (int) p->batch;
finish:
        p->stats.max_batch = MAX(p->stats.max_batch, (uint64_t) p->batch);
        p->stats.drain_ns += monotonic_ns() - start;
        return r;
}

int proc_conn_drain(ProcConn *p) {
        bool handler_failed;

        if (!p)
                return -EINVAL;
        return drain(p, &handler_failed);
}

static int on_io(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        ProcConn *p = userdata;
        bool handler_failed;
        int r;

        p->stats.dispatches++;
        r = drain(p, &handler_failed);
        if (r >= 0)
                return 0;
        if (handler_failed)
                return r;               /* ends the loop (exit_on_failure) */
        /* The socket is broken: stop listening rather than spin; the daemon runs on tracepoints. */
        p->stats.error = r;
        (void) sd_event_source_set_enabled(s, SD_EVENT_OFF);
        return 0;
}

/* Waits for the acknowledgement of a LISTEN, resending it if an overrun may have swallowed it. */
static int subscribe(ProcConn *p, uint64_t timeout_usec) {
        uint64_t deadline = monotonic_ns() + timeout_usec * 1000;
        unsigned attempt = 0;
        bool handler_failed;
        int r;

resend:
        p->cookie = new_cookie();
        p->acked = false;
        r = send_op(p, PROC_CN_MCAST_LISTEN);
        if (r < 0)
                return log_debug_errno(r, "proc connector: subscription request failed: %m");

        for (;;) {
                struct pollfd pfd = { .fd = nl_socket_get_fd(p->sock), .events = POLLIN };
                uint64_t now, overruns = p->stats.overruns;

                r = drain(p, &handler_failed);
                if (r < 0)
                        return r;
                if (p->acked)
                        break;
                if (p->stats.overruns != overruns && ++attempt < SUBSCRIBE_ATTEMPTS)
                        goto resend;

                now = monotonic_ns();
                if (now >= deadline)
                        return log_debug_errno(SYNTHETIC_ERRNO(ETIMEDOUT),
                                               "proc connector: no acknowledgement within %" PRIu64 " µs",
                                               timeout_usec);
                r = poll(&pfd, 1, (int) MIN((deadline - now + 999999) / 1000000, (uint64_t) INT32_MAX));
                if (r < 0 && errno != EINTR)
                        return negative_errno();
        }
        if (p->ack_err != 0)
                return log_debug_errno((int) p->ack_err, "proc connector: subscription refused: %m");
        p->subscribed = true;
        /* Events before the acknowledgement were skipped; the initial scan covers them. */
        p->need_rescan = false;
        return 0;
}

static int set_rcvbuf(ProcConn *p, size_t bytes) {
        int fd = nl_socket_get_fd(p->sock), v = (int) MIN(bytes, (size_t) INT32_MAX / 2);
        socklen_t l = sizeof(v);

        /* SO_RCVBUF is capped by net.core.rmem_max (208 KiB by default); the FORCE variant (CAP_NET_ADMIN) is not. */
        if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &v, sizeof(v)) < 0 &&
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v)) < 0)
                return negative_errno();
        if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, &l) >= 0)
                p->stats.rcvbuf_bytes = (size_t) v;
        return 0;
}

int proc_conn_new(sd_event *event, TaskNames *names, ProcConn **ret) {
        return proc_conn_new_full(event, names, NULL, ret);
}

/* The netlink socket: libnl's callbacks, connected to NETLINK_CONNECTOR, non-blocking, CN_IDX_PROC joined. */
static int proc_conn_open_socket(ProcConn *p, size_t rcvbuf_bytes) {
        int r;

        p->sock = nl_socket_alloc();
        if (!p->sock)
                return -ENOMEM;
        /* The kernel numbers its messages per CPU (send_msg() in cn_proc.c): no sequence to check. */
        nl_socket_disable_seq_check(p->sock);
        nl_socket_disable_auto_ack(p->sock);
        /* One small datagram per event: a page-sized read needs no MSG_PEEK round trip. */
        nl_socket_disable_msg_peek(p->sock);
        r = nl_socket_modify_cb(p->sock, NL_CB_MSG_IN, NL_CB_CUSTOM, on_msg_in, p);
        if (r < 0)
                return nlerr_to_errno(r);
        p->cb = nl_socket_get_cb(p->sock);
        if (!p->cb)
                return -ENOMEM;

        errno = 0;
        r = nl_connect(p->sock, NETLINK_CONNECTOR);
        if (r < 0) {
                r = errno > 0 ? -errno : nlerr_to_errno(r);
                return log_debug_errno(r, "proc connector: socket: %m");
        }
        r = nl_socket_set_nonblocking(p->sock);
        if (r < 0)
                return nlerr_to_errno(r);
        r = set_rcvbuf(p, rcvbuf_bytes);
        if (r < 0)
                return log_debug_errno(r, "proc connector: SO_RCVBUF: %m");
        r = nl_socket_add_membership(p->sock, CN_IDX_PROC);
        if (r < 0)
                return log_debug_errno(nlerr_to_errno(r), "proc connector: joining CN_IDX_PROC: %m");
        return 0;
}

/* Subscribed: the kernel-side filter (fork/exec/comm/exit only), the first scan of the names, the io source. */
static int proc_conn_start(ProcConn *p, sd_event *event, const ProcConnOptions *o) {
        int r;

        if (!o->no_filter) {
                /* setsid() only where sessions are followed (the model's task groups): a few a login. */
                ProcInput in = { .mcast_op = PROC_CN_MCAST_LISTEN,
                                 .event_type = FILTER_EVENTS | (o->sessions ? PROC_EVENT_SID : 0) };

                r = send_request(p, &in, sizeof(in));
                if (r < 0)
                        return log_debug_errno(r, "proc connector: filter request failed: %m");
                p->stats.filtered = true;
        }

        if (p->names && !o->no_initial_scan) {
                r = task_names_rescan(p->names);
                if (r < 0)
                        log_debug_errno(r, "proc connector: initial scan failed, ignoring: %m");
        }

        if (event) {
                r = sd_event_add_io(event, &p->io, nl_socket_get_fd(p->sock), EPOLLIN, on_io, p);
                if (r < 0)
                        return r;
                (void) sd_event_source_set_description(p->io, "proc-connector");
                (void) sd_event_source_set_exit_on_failure(p->io, true);
                p->event = sd_event_ref(event);
        }
        return 0;
}

int proc_conn_new_full(sd_event *event, TaskNames *names, const ProcConnOptions *opts, ProcConn **ret) {
        _cleanup_(proc_conn_freep) ProcConn *p = NULL;
        ProcConnOptions o = opts ? *opts : (ProcConnOptions) {};
        int r;

        if (!ret)
                return -EINVAL;
        if (o.rcvbuf_bytes == 0)
                o.rcvbuf_bytes = PROC_CONN_RCVBUF_DEFAULT;
        if (o.ack_timeout_usec == 0)
                o.ack_timeout_usec = PROC_CONN_ACK_TIMEOUT_USEC_DEFAULT;

        if (!o.skip_namespace_check) {
                r = check_initial_namespaces();
                if (r < 0)
                        return r;
        }

        p = calloc(1, sizeof(*p));
        if (!p)
                return -ENOMEM;
        p->names = names;
        p->handler = o.handler;
        p->userdata = o.userdata;

        r = proc_conn_open_socket(p, o.rcvbuf_bytes);
        if (r < 0)
                return r;
        r = subscribe(p, o.ack_timeout_usec);
        if (r < 0)
                return r;
        r = proc_conn_start(p, event, &o);
        if (r < 0)
                return r;

        log_debug("proc connector: subscribed, receive buffer %zu bytes%s%s", p->stats.rcvbuf_bytes,
                  p->stats.filtered ? ", filtered to fork/exec/comm/exit" : "",
                  p->stats.filtered && o.sessions ? "/sid" : "");
        *ret = TAKE_PTR(p);
        return 0;
}

ProcConn *proc_conn_free(ProcConn *p) {
        if (!p)
                return NULL;
        p->io = sd_event_source_disable_unref(p->io);
        p->event = sd_event_unref(p->event);
        if (p->sock) {
                /*
                 * Older kernels count listeners down only on IGNORE, never on close: without it every fork
                 * would keep paying for events nobody reads.
                 */
                if (p->subscribed)
                        (void) send_op(p, PROC_CN_MCAST_IGNORE);
                nl_socket_free(p->sock);
        }
        if (p->cb)
                nl_cb_put(p->cb);
        free(p);
        return NULL;
}

const ProcConnStats *proc_conn_stats(const ProcConn *p) {
        return p ? &p->stats : NULL;
}

int proc_conn_get_fd(const ProcConn *p) {
        return p && p->sock ? nl_socket_get_fd(p->sock) : -EBADF;
}
