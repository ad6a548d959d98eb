/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * actuator-lock.c: who owns what. The instance lock (one daemon per state file, held for its life) and the
 * per-policy locks (one daemon per policy, whatever its state file), flock(2)s whose holder /proc/locks names.
 */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "actuator.h"
#include "error-text.h"
#include "fs-util.h"
#include "log.h"
#include "macro.h"
#include "string-util.h"
#include "topology.h"

int actuator_lock_path(const char *state_path, char **ret) {
        const char *slash = strrchr(state_path, '/');
        int n;

        if (!slash)
                n = asprintf(ret, "lock");
        else
                n = asprintf(ret, "%.*s/lock", (int) (slash - state_path), state_path);
        return n < 0 ? -ENOMEM : 0;
}

int actuator_flock_holder_parse(FILE *f, dev_t dev, ino_t ino, pid_t *ret_pid) {
        _cleanup_free_ char *line = NULL;
        size_t cap = 0;

        /* fs/locks.c lock_get_status(): "1: FLOCK  ADVISORY  WRITE 1234 00:28:3 0 EOF", the device in hex;
         * a waiter's line reads "1: -> FLOCK ...", so its type does not match. */
        while (getline(&line, &cap, f) >= 0) {
                char type[16], mode[16], access_mode[16];
                unsigned major_dev, minor_dev;
                unsigned long long inode;
                long pid;

                if (sscanf(line, "%*u: %15s %15s %15s %ld %x:%x:%llu", type, mode, access_mode, &pid, &major_dev,
                           &minor_dev, &inode) != 7)
                        continue;
                if (!streq(type, "FLOCK") || pid <= 0 || pid > INT_MAX)
                        continue;
                if (makedev(major_dev, minor_dev) != dev || inode != (unsigned long long) ino)
                        continue;
                *ret_pid = (pid_t) pid;
                return 0;
        }
        return -ENOENT;
}

/* The process holding a flock on @fd's inode, from /proc/locks; 0 when it cannot be told (another PID
 * namespace shows 0 too). */
static pid_t flock_holder(int fd) {
        _cleanup_fclose_ FILE *f = NULL;
        struct stat st;
        pid_t pid = 0;

        if (fstat(fd, &st) < 0)
                return 0;
        f = fopen("/proc/locks", "re");
        if (!f)
                return 0;
        (void) actuator_flock_holder_parse(f, st.st_dev, st.st_ino, &pid);
        return pid;
}

static pid_t lock_file_read_pid(int fd) {
        char buf[16];
        uint32_t pid;
        ssize_t n;

        n = pread(fd, buf, sizeof(buf) - 1, 0);
        if (n <= 0)
                return 0;
        buf[n] = '\0';
        buf[strcspn(buf, "\n")] = '\0';
        if (parse_u32_line(buf, &pid) < 0 || pid == 0 || pid > INT_MAX)
                return 0;
        return (pid_t) pid;
}

int actuator_lock_take(const char *lock_path, int *ret_fd, pid_t *ret_pid, char **ret_error) {
        _cleanup_free_ char *error = NULL;
        _cleanup_close_ int fd = -EBADF;
        char buf[16];
        pid_t pid;
        int r, len;

        r = mkdir_parents(lock_path, 0755);
        if (r < 0)
                return error_text_return(error_text_set(&error, r, "cannot create the directory of %s", lock_path), &error,
                                    ret_error);
        /* Root's only (docs/security.md), and never through a symbolic link someone planted. */
        fd = open(lock_path, O_RDWR | O_CREAT | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0)
                return error_text_return(error_text_set(&error, -errno, "cannot open %s", lock_path), &error, ret_error);
        if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
                if (errno != EWOULDBLOCK)
                        return error_text_return(error_text_set(&error, -errno, "cannot lock %s", lock_path), &error,
                                            ret_error);
                /* The holder writes its PID just after locking: /proc/locks covers that window. */
                pid = lock_file_read_pid(fd);
                *ret_pid = pid > 0 ? pid : flock_holder(fd);
                return error_text_return(error_text_set(&error, -EBUSY, "%s is held by PID %d", lock_path, (int) *ret_pid),
                                    &error, ret_error);
        }

        /* Ours now. The PID still in the file is a previous holder's, who is gone (the kernel dropped its lock). */
        if (fchmod(fd, 0600) < 0) /* one left by an older version */
                return error_text_return(error_text_set(&error, -errno, "cannot chmod %s", lock_path), &error, ret_error);
        pid = lock_file_read_pid(fd);
        len = snprintf(buf, sizeof(buf), "%d\n", (int) getpid());
        if (ftruncate(fd, 0) < 0 || pwrite(fd, buf, (size_t) len, 0) != len)
                return error_text_return(error_text_set(&error, negative_errno(), "cannot write %s", lock_path), &error,
                                    ret_error);
        *ret_pid = pid;
        *ret_fd = TAKE_FD(fd);
        return 0;
}

/*
 * One governor per policy: an exclusive flock(2) on the policy's sysfs directory, held while we manage the
 * policy (paused too: resuming must find it free). It does not depend on the lock or state file paths, so two
 * daemons given different --lock-file/--state-file still cannot both govern a policy, and `schedfreqd restore`
 * can tell whether a policy it would write has a live governor. The kernel drops it however the holder dies.
 * kernfs and FUSE without a flock handler keep flocks in the VFS. Returns 0 and the fd (-EBADF where the
 * filesystem refuses flocks: the instance lock is the only guard then), or -EBUSY and the holder's PID (0:
 * unknown).
 */
int actuator_policy_lock(const char *dir, int *ret_fd, pid_t *ret_holder) {
        _cleanup_close_ int fd = -EBADF;

        fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
                if (errno == EWOULDBLOCK) {
                        *ret_holder = flock_holder(fd);
                        return -EBUSY;
                }
                log_debug_errno(errno, "Cannot flock %s, ignoring: %m", dir);
                closep(&fd);
                fd = -EBADF;
        }
        *ret_fd = TAKE_FD(fd);
        return 0;
}
