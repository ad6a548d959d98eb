/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * proc-sessions.c: every task's session from /proc (include/events.h, proc-sessions), for the task groups of
 * autogroup in the live daemon (kernel/sched/autogroup.c: a session's tasks share a group; the model,
 * demand-groups.c, needs each task's, which the sched tracepoints do not give for a task that started before).
 *
 * /proc/PID/stat's sixth field is the session (fs/proc/array.c, do_task_stat(): "pid (comm) state ppid pgrp
 * session ..."), the comm in parentheses possibly holding spaces and parentheses itself, so the fields are counted
 * from its last ')'. The session is the process's (task_session() reads signal->pids[PIDTYPE_SID], shared by the
 * threads), so one read a process, given to each of its threads (/proc/PID/task/TID). A setsid() afterwards is
 * the proc connector's PROC_EVENT_SID (proc-conn.c), sent for the group leader (ksys_setsid(), kernel/sys.c: the
 * new session's id is the caller's tgid), and sched_autogroup_create_attach() moves every thread of the process
 * (autogroup_move_group(): for_each_thread() → sched_move_task()): proc_sessions_process() names them.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "events.h"
#include "fs-util.h"
#include "macro.h"
#include "proc-walk.h"

#define PROC_ROOT_DEFAULT "/proc"

int proc_stat_session(const char *stat, int32_t *ret_sid) {
        const char *s;
        long v;
        char *end;

        if (!stat || !ret_sid)
                return -EINVAL;
        s = strrchr(stat, ')');
        if (!s)
                return -EINVAL;
        s++;
        /* after the comm: state, ppid, pgrp, then the session */
        for (int field = 0; field < 4; field++) {
                while (*s == ' ')
                        s++;
                if (*s == '\0')
                        return -EINVAL;
                if (field == 3)
                        break;
                s += strcspn(s, " ");
        }
        if (*s < '0' || *s > '9')
                return -EINVAL;
        errno = 0;
        v = strtol(s, &end, 10);
        if (errno != 0 || v > INT32_MAX || (*end != ' ' && *end != '\0' && *end != '\n'))
                return -EINVAL;
        *ret_sid = (int32_t) v;
        return 0;
}

/* @tgid's session from its stat under the directory @root_fd. */
static int read_session_at(int root_fd, int32_t tgid, int32_t *ret_sid) {
        char path[32], buf[1024];
        int r;

        (void) snprintf(path, sizeof(path), "%d/stat", (int) tgid);
        r = read_small_file_at(root_fd, path, buf, sizeof(buf));
        if (r < 0)
                return r;
        return proc_stat_session(buf, ret_sid);
}

/* What the walk hands each thread: the handler, and the session of the process being walked. */
typedef struct SessionWalk {
        ProcSessionHandler handler;
        void *userdata;
        int32_t sid;
} SessionWalk;

static int on_thread(int dir_fd, int32_t tgid, int32_t tid, void *userdata) {
        SessionWalk *w = userdata;
        int r;

        r = w->handler(tid, w->sid, w->userdata);
        return r < 0 ? r : 1;
}

static int on_process(int root_fd, int32_t tgid, void *userdata) {
        SessionWalk *w = userdata;

        if (read_session_at(root_fd, tgid, &w->sid) < 0)
                return 0;       /* gone meanwhile */
        return proc_walk_threads(root_fd, tgid, on_thread, w);
}

int proc_sessions_scan(const char *proc_root, ProcSessionHandler handler, void *userdata) {
        SessionWalk w = { .handler = handler, .userdata = userdata };

        if (!handler)
                return -EINVAL;
        return proc_walk_processes(proc_root ?: PROC_ROOT_DEFAULT, on_process, &w);
}

int proc_sessions_process(const char *proc_root, int32_t tgid, int32_t sid, ProcSessionHandler handler,
                          void *userdata) {
        SessionWalk w = { .handler = handler, .userdata = userdata };
        _cleanup_close_ int root_fd = -EBADF;

        if (!handler || tgid <= 0 || sid < 0)
                return -EINVAL;
        root_fd = open(proc_root ?: PROC_ROOT_DEFAULT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (root_fd < 0)
                return negative_errno();
        w.sid = sid;
        return proc_walk_threads(root_fd, tgid, on_thread, &w);
}
