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

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "events.h"
#include "fs-util.h"
#include "macro.h"

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

static bool parse_pid(const char *s, int32_t *ret) {
        long v = 0;

        if (!*s)
                return false;
        for (; *s; s++) {
                if (*s < '0' || *s > '9')
                        return false;
                v = v * 10 + (*s - '0');
                if (v > INT32_MAX)
                        return false;
        }
        if (v <= 0)
                return false;
        *ret = (int32_t) v;
        return true;
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

/* @handler for each thread of @tgid (ROOT/TGID/task/TID), or for @tgid alone in a tree without task/. Returns the
 * number of tasks named or the handler's negative return. */
static int each_thread(int root_fd, int32_t tgid, int32_t sid, ProcSessionHandler handler, void *userdata) {
        _cleanup_close_ int task_fd = -EBADF;
        struct dirent *de;
        char path[32];
        int n = 0, r;
        DIR *d;

        (void) snprintf(path, sizeof(path), "%d/task", (int) tgid);
        task_fd = openat(root_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (task_fd < 0) {
                r = handler(tgid, sid, userdata);
                return r < 0 ? r : 1;
        }
        d = fdopendir(task_fd);
        if (!d)
                return 0;
        task_fd = -EBADF;               /* owned by d now */
        while ((de = readdir(d))) {
                int32_t tid;

                if (!parse_pid(de->d_name, &tid))
                        continue;
                r = handler(tid, sid, userdata);
                if (r < 0) {
                        (void) closedir(d);
                        return r;
                }
                n++;
        }
        (void) closedir(d);
        return n;
}

int proc_sessions_scan(const char *proc_root, ProcSessionHandler handler, void *userdata) {
        _cleanup_close_ int root_fd = -EBADF;
        struct dirent *de;
        int n = 0, r;
        DIR *d;

        if (!handler)
                return -EINVAL;
        root_fd = open(proc_root ?: PROC_ROOT_DEFAULT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (root_fd < 0)
                return negative_errno();
        d = fdopendir(root_fd);
        if (!d)
                return negative_errno();
        root_fd = -EBADF;
        while ((de = readdir(d))) {
                int32_t tgid, sid;

                if (!parse_pid(de->d_name, &tgid))
                        continue;
                if (read_session_at(dirfd(d), tgid, &sid) < 0)
                        continue;       /* gone meanwhile */
                r = each_thread(dirfd(d), tgid, sid, handler, userdata);
                if (r < 0) {
                        (void) closedir(d);
                        return r;
                }
                n = (int) MIN((unsigned) n + (unsigned) r, (unsigned) INT32_MAX);
        }
        (void) closedir(d);
        return n;
}

int proc_sessions_process(const char *proc_root, int32_t tgid, int32_t sid, ProcSessionHandler handler,
                          void *userdata) {
        _cleanup_close_ int root_fd = -EBADF;

        if (!handler || tgid <= 0 || sid < 0)
                return -EINVAL;
        root_fd = open(proc_root ?: PROC_ROOT_DEFAULT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (root_fd < 0)
                return negative_errno();
        return each_thread(root_fd, tgid, sid, handler, userdata);
}
