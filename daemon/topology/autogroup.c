/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * autogroup.c: whether the running kernel groups tasks by session (daemon/topology/autogroup.h): discovery's
 * [system] autogroup.
 *
 * The kernel: a task's task group is its cpu cgroup's (sched_get_task_group(), kernel/sched/core.c), replaced by its
 * session's autogroup by autogroup_task_group() (kernel/sched/autogroup.h) when kernel.sched_autogroup_enabled is
 * set and task_wants_autogroup() (kernel/sched/autogroup.c) agrees, which it does only for a task in the root task
 * group ("if (tg != &root_task_group) return false;") that is not exiting. Without CONFIG_SCHED_AUTOGROUP there is
 * no sysctl file; `noautogroup` on the command line clears the sysctl. So, for the machine as a whole:
 *   1. /proc/sys/kernel/sched_autogroup_enabled reads 1;
 *   2. no task is in a cpu cgroup other than the root, read where the cpu controller is:
 *      - cgroup v1: the cpu hierarchy at /sys/fs/cgroup/cpu (the name systemd and cgroupfs-mount give it, a link to
 *        cpu,cpuacct where the two are mounted together; a v1 hierarchy root has a "tasks" file): no group below its
 *        root holds a process (a non-empty cgroup.procs), looked for in at most AUTOGROUP_WALK_MAX directories;
 *      - cgroup v2 at /sys/fs/cgroup (or /sys/fs/cgroup/unified, systemd's hybrid layout): "cpu" not enabled in the
 *        root's cgroup.subtree_control. A controller reaches a cgroup only through its parent's subtree_control
 *        (cgroup_control(), kernel/cgroup/cgroup.c), so without it at the root every task's cpu css is the root's,
 *        whatever cgroups exist. With it, the tasks of systemd's services and sessions sit in their own task
 *        groups and autogroup applies to none of them;
 *      - neither visible (no cgroup file system there): not known.
 * One answer for the whole machine, because the model either groups by session or does not: a machine whose tasks
 * are in cpu cgroups (the cpu controller enabled, containers) gets no, the flat model, and so does anything that
 * cannot be read. The rule reads a handful of files (the walk finds nothing to walk on a machine whose cpu
 * hierarchy has only its root: /proc/cgroups' num_cgroups 1), once at discovery.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "autogroup.h"
#include "fs-util.h"
#include "log.h"
#include "macro.h"
#include "topology.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(DIR *, closedir);

#define AUTOGROUP_DEPTH_MAX 32u

/* Reads @rel (a path from the root, "/…") under @root into @buf; see read_small_file_at(). */
static int read_under(const char *root, const char *rel, char *buf, size_t size) {
        char path[4096];

        if ((size_t) snprintf(path, sizeof(path), "%s%s", root, rel) >= sizeof(path))
                return -ENAMETOOLONG;
        return read_small_file_at(AT_FDCWD, path, buf, size);
}

static bool exists_under(const char *root, const char *rel) {
        char path[4096];

        if ((size_t) snprintf(path, sizeof(path), "%s%s", root, rel) >= sizeof(path))
                return false;
        return access(path, F_OK) >= 0;
}

/* The group @fd holds a process: its cgroup.procs is not empty (or cannot be read: counted as holding). */
static bool group_holds_process(int fd) {
        char buf[16];
        int r;

        r = read_small_file_at(fd, "cgroup.procs", buf, sizeof(buf));
        return r == -EFBIG || r < 0 || buf[0] != '\0';
}

/* A group below the directory @fd holds a process; a walk that runs out of @budget or depth says yes. */
static bool subtree_holds_process(int fd, unsigned depth, unsigned *budget) {
        _cleanup_(closedirp) DIR *d = NULL;
        struct dirent *de;
        int dfd;

        dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return true;
        d = fdopendir(dfd);
        if (!d) {
                (void) close(dfd);
                return true;
        }
        while ((de = readdir(d))) {
                _cleanup_close_ int cfd = -EBADF;

                if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)
                        continue;
                if (streq(de->d_name, ".") || streq(de->d_name, ".."))
                        continue;
                cfd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                if (cfd < 0)
                        continue;         /* not a directory after all */
                if (*budget == 0 || depth >= AUTOGROUP_DEPTH_MAX)
                        return true;
                (*budget)--;
                if (group_holds_process(cfd) || subtree_holds_process(cfd, depth + 1, budget)) {
                        log_debug("autogroup: a process is in the cpu cgroup %s (or below)", de->d_name);
                        return true;
                }
        }
        return false;
}

/* cgroup v1: a process in a group below the cpu hierarchy's root (at @rel under @root). */
static bool v1_tasks_below_root(const char *root, const char *rel) {
        _cleanup_close_ int fd = -EBADF;
        char path[4096];
        unsigned budget = AUTOGROUP_WALK_MAX;

        if ((size_t) snprintf(path, sizeof(path), "%s%s", root, rel) >= sizeof(path))
                return true;
        fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return true;
        return subtree_holds_process(fd, 0, &budget);
}

bool autogroup_applies(const char *root) {
        static const char *const v2_roots[] = { "/sys/fs/cgroup", "/sys/fs/cgroup/unified" };
        char buf[256];
        int r;

        root = root ?: "";
        r = read_under(root, "/proc/sys/kernel/sched_autogroup_enabled", buf, sizeof(buf));
        if (r < 0) {
                log_debug_errno(r, "autogroup: kernel.sched_autogroup_enabled not readable (%m): no");
                return false;
        }
        if (!streq(buf, "1")) {
                log_debug("autogroup: kernel.sched_autogroup_enabled = %s: no", buf);
                return false;
        }

        if (exists_under(root, "/sys/fs/cgroup/cpu/tasks")) {
                bool held = v1_tasks_below_root(root, "/sys/fs/cgroup/cpu");

                log_debug("autogroup: cgroup v1 cpu hierarchy, %s", held ? "tasks in a child group: no" :
                          "every task in the root: yes");
                return !held;
        }
        for (size_t i = 0; i < ELEMENTSOF(v2_roots); i++) {
                char rel[64];

                (void) snprintf(rel, sizeof(rel), "%s/cgroup.subtree_control", v2_roots[i]);
                r = read_under(root, rel, buf, sizeof(buf));
                if (r == -ENOENT)
                        continue;
                if (r < 0) {
                        log_debug_errno(r, "autogroup: %s not readable (%m): no", rel);
                        return false;
                }
                if (governors_contains(buf, "cpu")) {
                        log_debug("autogroup: cgroup v2 with the cpu controller enabled at the root: no");
                        return false;
                }
                log_debug("autogroup: cgroup v2 without the cpu controller below the root: yes");
                return true;
        }
        log_debug("autogroup: no cgroup file system at /sys/fs/cgroup: not known, no");
        return false;
}
