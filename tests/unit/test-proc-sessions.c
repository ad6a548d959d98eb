/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests for proc-sessions.c: the session field of /proc/PID/stat lines (comms with spaces and parentheses, kernel
 * threads in session 0, lines that are not stat lines), the scan of fake /proc trees in a temp dir (one read a
 * process, given to each thread; processes gone meanwhile skipped; a tree without task/), one process's threads
 * after a setsid, and the real /proc: a child that called setsid() is found in its own session, its parent's
 * threads in theirs.
 */

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "events.h"
#include "macro.h"
#include "scratch-tree.h"
#include "test.h"

DEFINE_TEST_MAIN;

#define treep scratch_tree_freep

#define tree_write scratch_tree_put

TEST(stat_session_field) {
        int32_t sid = -1;

        ASSERT_OK(proc_stat_session("1 (systemd) S 0 1 1 0 -1 4194560 46018 0", &sid));
        ASSERT_EQ(sid, 1);
        /* kernel threads: session 0 (the root task group, autogroup_default) */
        ASSERT_OK(proc_stat_session("2 (kthreadd) S 0 0 0 0 -1 2129984 0 0", &sid));
        ASSERT_EQ(sid, 0);
        /* a comm with spaces and a ')' of its own: the fields count from the last one */
        ASSERT_OK(proc_stat_session("4242 (a) b (c)) R 4200 4242 4100 34816 4242 4194304 0\n", &sid));
        ASSERT_EQ(sid, 4100);
        ASSERT_OK(proc_stat_session("77 (x) S 1 77 77", &sid));  /* ends at the session */
        ASSERT_EQ(sid, 77);

        sid = 5;
        ASSERT_ERROR(proc_stat_session("no parenthesis here 1 2 3", &sid), EINVAL);
        ASSERT_ERROR(proc_stat_session("1 (short) S 0 1", &sid), EINVAL);
        ASSERT_ERROR(proc_stat_session("1 (neg) S 0 1 -3 0", &sid), EINVAL);
        ASSERT_ERROR(proc_stat_session("1 (junk) S 0 1 12x 0", &sid), EINVAL);
        ASSERT_ERROR(proc_stat_session("1 (big) S 0 1 99999999999 0", &sid), EINVAL);
        ASSERT_ERROR(proc_stat_session(NULL, &sid), EINVAL);
        ASSERT_EQ(sid, 5);      /* untouched on failure */
}

typedef struct Named {
        int32_t tid[16], sid[16];
        size_t n;
} Named;

static int collect(int32_t tid, int32_t sid, void *userdata) {
        Named *n = userdata;

        if (n->n == ELEMENTSOF(n->tid))
                return -ENOBUFS;
        n->tid[n->n] = tid;
        n->sid[n->n++] = sid;
        return 0;
}

/* The session @n gave @tid, -1 if none. */
static int32_t sid_of(const Named *n, int32_t tid) {
        for (size_t i = 0; i < n->n; i++)
                if (n->tid[i] == tid)
                        return n->sid[i];
        return -1;
}

static int stop_at_second(int32_t tid, int32_t sid, void *userdata) {
        return ++*(unsigned *) userdata == 2 ? -ECANCELED : 0;
}

TEST(scan_fake_tree) {
        _cleanup_(treep) char *root = scratch_tree_new("test-proc-sessions");
        Named n = {};
        unsigned calls = 0;

        ASSERT_TRUE(root);
        /* a shell (session 100) with two threads, a daemon in its own session, a kernel thread, a process gone
         * between the directory read and its stat (no stat), a tree entry without task/ */
        tree_write(root, "100 (bash) S 1 100 100 34816 0\n", "100/stat");
        tree_write(root, "", "100/task/100/stat");
        tree_write(root, "", "100/task/101/stat");
        tree_write(root, "300 (sshd) S 1 300 300 0 -1\n", "300/stat");
        tree_write(root, "", "300/task/300/stat");
        tree_write(root, "2 (kthreadd) S 0 0 0 0 -1\n", "2/stat");
        tree_write(root, "", "2/task/2/stat");
        tree_write(root, "", "400/task/400/stat");
        tree_write(root, "500 (old) S 1 500 100 0 -1\n", "500/stat");
        tree_write(root, "", "self/stat");
        tree_write(root, "", "sys/kernel/x");

        ASSERT_EQ(proc_sessions_scan(root, collect, &n), 5);
        ASSERT_EQ(n.n, 5);
        ASSERT_EQ(sid_of(&n, 100), 100);
        ASSERT_EQ(sid_of(&n, 101), 100);        /* a thread: its process's */
        ASSERT_EQ(sid_of(&n, 300), 300);
        ASSERT_EQ(sid_of(&n, 2), 0);
        ASSERT_EQ(sid_of(&n, 400), -1);         /* gone: skipped */
        ASSERT_EQ(sid_of(&n, 500), 100);        /* no task/: the process alone */

        /* a handler's error stops the scan and is returned */
        ASSERT_ERROR(proc_sessions_scan(root, stop_at_second, &calls), ECANCELED);
        ASSERT_EQ(calls, 2);

        /* one process's threads, after its setsid() (the event's tgid is the session) */
        n = (Named) {};
        ASSERT_EQ(proc_sessions_process(root, 100, 100, collect, &n), 2);
        ASSERT_EQ(sid_of(&n, 100), 100);
        ASSERT_EQ(sid_of(&n, 101), 100);
        n = (Named) {};
        ASSERT_EQ(proc_sessions_process(root, 600, 600, collect, &n), 1);     /* gone: the task alone */
        ASSERT_EQ(sid_of(&n, 600), 600);

        ASSERT_ERROR(proc_sessions_scan("/nonexistent-proc", collect, &n), ENOENT);
        ASSERT_ERROR(proc_sessions_scan(root, NULL, NULL), EINVAL);
        ASSERT_ERROR(proc_sessions_process(root, 0, 1, collect, &n), EINVAL);
}

typedef struct Find {
        int32_t want[3], sid[3];
} Find;

static int find(int32_t tid, int32_t sid, void *userdata) {
        Find *f = userdata;

        for (size_t i = 0; i < ELEMENTSOF(f->want); i++)
                if (f->want[i] == tid)
                        f->sid[i] = sid;
        return 0;
}

static void *sleeper(void *arg) {
        int32_t *tid = arg;

        *tid = (int32_t) gettid();
        pause();
        return NULL;
}

/* The real /proc: a child that started a session is in it, and this process's threads are in this one's. */
TEST(scan_real_proc) {
        Find f = { .sid = { -1, -1, -1 } };
        volatile int32_t thread_tid = 0;
        int pfd[2];
        pthread_t th;
        pid_t child;
        char c;

        ASSERT_OK(pthread_create(&th, NULL, sleeper, (void *) &thread_tid));
        while (__atomic_load_n(&thread_tid, __ATOMIC_SEQ_CST) == 0)
                usleep(1000);
        ASSERT_TRUE(pipe(pfd) == 0);
        child = fork();
        ASSERT_TRUE(child >= 0);
        if (child == 0) {
                (void) close(pfd[0]);
                if (setsid() < 0)
                        _exit(1);
                (void) write(pfd[1], "x", 1);
                pause();
                _exit(0);
        }
        (void) close(pfd[1]);
        ASSERT_TRUE(read(pfd[0], &c, 1) == 1);
        (void) close(pfd[0]);

        f.want[0] = child;
        f.want[1] = (int32_t) getpid();
        f.want[2] = thread_tid;
        ASSERT_TRUE(proc_sessions_scan(NULL, find, &f) > 3);
        (void) kill(child, SIGKILL);
        (void) waitpid(child, NULL, 0);
        (void) pthread_cancel(th);
        (void) pthread_join(th, NULL);

        ASSERT_EQ(f.sid[0], child);
        ASSERT_EQ(f.sid[1], (int32_t) getsid(0));
        ASSERT_EQ(f.sid[2], (int32_t) getsid(0));
}
