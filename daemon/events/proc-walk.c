/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * proc-walk.c: the processes and threads under a /proc tree (proc-walk.h). A process that exits during the walk is
 * skipped (its directories are gone), as is a thread that exits between readdir() and @fn.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "fs-util.h"
#include "macro.h"
#include "proc-walk.h"
#include "string-util.h"

/* The count so far plus @r, saturating: the callers return it as an int. */
static int add_count(int n, int r) {
        return (int) MIN((unsigned) n + (unsigned) r, (unsigned) INT32_MAX);
}

/* @fn for each numeric entry of @d (its fd, the entry), @d closed here: the sum of what it counted, or its first
 * error. */
static int walk_numeric(DIR *d, ProcProcessFn fn, void *userdata) {
        struct dirent *de;
        int n = 0, r = 0;

        while ((de = readdir(d))) {
                int32_t id;

                if (!parse_pid_name(de->d_name, &id))
                        continue;
                r = fn(dirfd(d), id, userdata);
                if (r < 0)
                        break;
                n = add_count(n, r);
        }
        (void) closedir(d);
        return r < 0 ? r : n;
}

typedef struct ThreadWalk {
        int32_t tgid;
        ProcThreadFn fn;
        void *userdata;
} ThreadWalk;

static int on_tid(int dir_fd, int32_t tid, void *userdata) {
        ThreadWalk *w = userdata;

        return w->fn(dir_fd, w->tgid, tid, w->userdata);
}

int proc_walk_threads(int root_fd, int32_t tgid, ProcThreadFn fn, void *userdata) {
        ThreadWalk w = { .tgid = tgid, .fn = fn, .userdata = userdata };
        _cleanup_close_ int task_fd = -EBADF;
        char path[32];
        DIR *d;

        (void) snprintf(path, sizeof(path), "%d/task", (int) tgid);
        task_fd = openat(root_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (task_fd < 0)
                return errno == ENOENT ? fn(root_fd, tgid, tgid, userdata) : 0;
        d = fdopendir(task_fd);
        if (!d)
                return 0;
        task_fd = -EBADF;               /* owned by d now */
        return walk_numeric(d, on_tid, &w);
}

int proc_walk_processes(const char *proc_root, ProcProcessFn fn, void *userdata) {
        _cleanup_close_ int root_fd = -EBADF;
        DIR *d;

        root_fd = open(proc_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (root_fd < 0)
                return negative_errno();
        d = fdopendir(root_fd);
        if (!d)
                return negative_errno();
        root_fd = -EBADF;
        return walk_numeric(d, fn, userdata);
}
