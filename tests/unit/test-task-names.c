/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests for task-names.c: the hash index and LRU against simple reference models under random churn, the
 * bound and its eviction, fork/exec naming, and rescans over fake /proc trees in a temp dir.
 */

#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <unistd.h>

#include "events.h"
#include "macro.h"
#include "scratch-tree.h"
#include "test.h"

/* ---- fake /proc trees ----------------------------------------------------------------------------- */

static char *tree_new(void) {
        return scratch_tree_new("test-task-names");
}

#define tree_write scratch_tree_write
#define treep scratch_tree_freep

/* ---- basics ----------------------------------------------------------------------------------------- */

TEST(set_lookup_forget) {
        _cleanup_(task_names_freep) TaskNames *t = NULL;
        TaskName n;

        ASSERT_OK(task_names_new("/nonexistent", 16, &t));
        ASSERT_EQ(task_names_size(t), 0);
        ASSERT_ERROR(task_names_lookup(t, 10, &n), ENOENT);

        ASSERT_OK(task_names_set(t, 10, 10, "bash"));
        ASSERT_OK(task_names_set(t, 11, 10, "bash-worker"));
        ASSERT_OK(task_names_lookup(t, 11, &n));
        ASSERT_EQ(n.pid, 11);
        ASSERT_EQ(n.tgid, 10);
        ASSERT_STREQ(n.comm, "bash-worker");
        ASSERT_EQ(task_names_size(t), 2);

        /* Update in place: counted as updated only when something changed. */
        ASSERT_OK(task_names_set(t, 10, 10, "bash"));
        ASSERT_U64_EQ(task_names_stats(t)->updated, 0);
        ASSERT_OK(task_names_set(t, 10, 10, "zsh"));
        ASSERT_U64_EQ(task_names_stats(t)->updated, 1);
        ASSERT_OK(task_names_lookup(t, 10, &n));
        ASSERT_STREQ(n.comm, "zsh");
        ASSERT_EQ(task_names_size(t), 2);

        ASSERT_TRUE(task_names_forget(t, 10));
        ASSERT_TRUE(!task_names_forget(t, 10));
        ASSERT_ERROR(task_names_lookup(t, 10, &n), ENOENT);
        ASSERT_OK(task_names_lookup(t, 11, &n));
        ASSERT_EQ(task_names_size(t), 1);
        ASSERT_U64_EQ(task_names_stats(t)->added, 2);
        ASSERT_U64_EQ(task_names_stats(t)->removed, 1);
}

TEST(comm_truncated_to_15) {
        _cleanup_(task_names_freep) TaskNames *t = NULL;
        TaskName n;

        ASSERT_OK(task_names_new(NULL, 0, &t));
        ASSERT_U64_EQ(task_names_stats(t)->capacity, TASK_NAMES_DEFAULT_CAPACITY);
        ASSERT_OK(task_names_set(t, 5, 5, "0123456789abcdefghij"));
        ASSERT_OK(task_names_lookup(t, 5, &n));
        ASSERT_STREQ(n.comm, "0123456789abcde");
        ASSERT_OK(task_names_set(t, 6, 5, ""));
        ASSERT_OK(task_names_lookup(t, 6, &n));
        ASSERT_STREQ(n.comm, "");
}

TEST(invalid_arguments) {
        _cleanup_(task_names_freep) TaskNames *t = NULL;
        TaskNames *u = NULL;

        ASSERT_ERROR(task_names_new(NULL, TASK_NAMES_MAX_CAPACITY + 1, &u), EINVAL);
        ASSERT_TRUE(!u);
        ASSERT_ERROR(task_names_new(NULL, 4, NULL), EINVAL);
        ASSERT_OK(task_names_new(NULL, 4, &t));
        ASSERT_ERROR(task_names_set(t, 0, 1, "x"), EINVAL);
        ASSERT_ERROR(task_names_set(t, 1, -1, "x"), EINVAL);
        ASSERT_ERROR(task_names_set(t, 1, 1, NULL), EINVAL);
        ASSERT_ERROR(task_names_lookup(t, -3, NULL), EINVAL);
        ASSERT_ERROR(task_names_fork(t, 1, 0, 0), EINVAL);
        ASSERT_ERROR(task_names_exec(t, 0, 1), EINVAL);
        ASSERT_TRUE(!task_names_forget(t, 0));
        ASSERT_TRUE(task_names_free(NULL) == NULL);
}

/* ---- the bound ---------------------------------------------------------------------------------- */

TEST(bounded_lru_eviction) {
        _cleanup_(task_names_freep) TaskNames *t = NULL;
        TaskName n;

        ASSERT_OK(task_names_new(NULL, 4, &t));
        for (pid_t p = 1; p <= 4; p++)
                ASSERT_OK(task_names_set(t, p, p, "t"));
        ASSERT_OK(task_names_lookup(t, 1, &n));          /* 1 becomes most recent: 2 is the oldest */
        ASSERT_OK(task_names_set(t, 5, 5, "five"));
        ASSERT_EQ(task_names_size(t), 4);
        ASSERT_U64_EQ(task_names_stats(t)->evicted, 1);
        ASSERT_ERROR(task_names_lookup(t, 2, &n), ENOENT);
        ASSERT_OK(task_names_lookup(t, 1, &n));
        ASSERT_OK(task_names_lookup(t, 5, &n));

        /* An update refreshes too: 3 was the oldest, set it, then 4 goes. */
        ASSERT_OK(task_names_set(t, 3, 3, "three"));
        ASSERT_OK(task_names_set(t, 6, 6, "six"));
        ASSERT_ERROR(task_names_lookup(t, 4, &n), ENOENT);
        ASSERT_OK(task_names_lookup(t, 3, &n));
        ASSERT_U64_EQ(task_names_stats(t)->evicted, 2);

        /* A forgotten slot is reused without evicting. */
        ASSERT_TRUE(task_names_forget(t, 1));
        ASSERT_OK(task_names_set(t, 7, 7, "seven"));
        ASSERT_U64_EQ(task_names_stats(t)->evicted, 2);
        ASSERT_EQ(task_names_size(t), 4);
}

static uint64_t rng_state = 88172645463325252ULL;

static uint32_t rng(void) {
        /* xorshift64: deterministic runs */
        rng_state ^= rng_state << 13;
        rng_state ^= rng_state >> 7;
        rng_state ^= rng_state << 17;
        return (uint32_t) (rng_state >> 16);
}

/*
 * Random set/forget/lookup against a reference LRU (an array ordered by recency). Small capacity and a pid
 * range a few times larger: lots of eviction, lots of backward-shift deletions in a small index.
 */
TEST(random_churn_matches_reference_lru) {
        enum { CAP = 8, PIDS = 40, OPS = 200000 };
        _cleanup_(task_names_freep) TaskNames *t = NULL;
        pid_t ref[CAP];         /* ref[0] most recent */
        char ref_comm[PIDS + 1][TASK_COMM_LEN] = {};
        size_t n_ref = 0;
        uint64_t evicted = 0;

        ASSERT_OK(task_names_new(NULL, CAP, &t));
        for (unsigned op = 0; op < OPS; op++) {
                pid_t pid = (pid_t) (rng() % PIDS) + 1;
                unsigned what = rng() % 4;
                size_t at = n_ref;
                TaskName n;
                int r;

                for (size_t i = 0; i < n_ref; i++)
                        if (ref[i] == pid)
                                at = i;

                if (what <= 1) {                        /* set */
                        char comm[TASK_COMM_LEN];

                        (void) snprintf(comm, sizeof(comm), "c%u", rng() % 1000);
                        ASSERT_OK(task_names_set(t, pid, pid, comm));
                        if (at == n_ref) {
                                if (n_ref == CAP) {
                                        n_ref--;        /* the reference evicts its oldest */
                                        evicted++;
                                }
                                at = n_ref++;
                        }
                        memmove(ref + 1, ref, at * sizeof(pid_t));
                        ref[0] = pid;
                        memcpy(ref_comm[pid], comm, TASK_COMM_LEN);
                } else if (what == 2) {                 /* forget */
                        ASSERT_EQ(task_names_forget(t, pid), at != n_ref);
                        if (at != n_ref) {
                                memmove(ref + at, ref + at + 1, (n_ref - at - 1) * sizeof(pid_t));
                                n_ref--;
                        }
                } else {                                /* lookup */
                        r = task_names_lookup(t, pid, &n);
                        if (at == n_ref) {
                                ASSERT_ERROR(r, ENOENT);
                        } else {
                                ASSERT_OK(r);
                                ASSERT_STREQ(n.comm, ref_comm[pid]);
                                memmove(ref + 1, ref, at * sizeof(pid_t));
                                ref[0] = pid;
                        }
                }
                ASSERT_EQ(task_names_size(t), n_ref);
        }
        ASSERT_U64_EQ(task_names_stats(t)->evicted, evicted);
        ASSERT_TRUE(evicted > 1000);
}

/* Large pids, no eviction: the index alone, at its maximum load (half full), with deletions everywhere. */
TEST(random_churn_full_index) {
        enum { CAP = 4096, OPS = 400000 };
        _cleanup_(task_names_freep) TaskNames *t = NULL;
        static pid_t present[1 << 16];
        static pid_t pids[CAP];
        size_t n = 0;

        memset(present, 0, sizeof(present));
        ASSERT_OK(task_names_new(NULL, CAP, &t));
        for (unsigned op = 0; op < OPS; op++) {
                bool add = n < CAP && (n == 0 || rng() % 2 == 0);

                if (add) {
                        pid_t pid = (pid_t) (rng() % (1 << 16)) + 1;
                        char comm[TASK_COMM_LEN];

                        if (pid >= (1 << 16) || present[pid])
                                continue;
                        (void) snprintf(comm, sizeof(comm), "p%d", (int) pid);
                        ASSERT_OK(task_names_set(t, pid, pid, comm));
                        present[pid] = 1;
                        pids[n++] = pid;
                } else {
                        size_t i = rng() % n;

                        ASSERT_TRUE(task_names_forget(t, pids[i]));
                        present[pids[i]] = 0;
                        pids[i] = pids[--n];
                }
                if (op % 50000 == 0)
                        for (size_t i = 0; i < n; i++) {
                                TaskName tn;
                                char comm[TASK_COMM_LEN];

                                ASSERT_OK(task_names_lookup(t, pids[i], &tn));
                                (void) snprintf(comm, sizeof(comm), "p%d", (int) pids[i]);
                                ASSERT_STREQ(tn.comm, comm);
                        }
        }
        for (pid_t p = 1; p < (1 << 16); p++)
                ASSERT_EQ(task_names_lookup(t, p, NULL) == 0, present[p] != 0);
        ASSERT_U64_EQ(task_names_stats(t)->evicted, 0);
        ASSERT_EQ(task_names_size(t), n);
}

static int collect(const TaskName *n, void *userdata) {
        pid_t **p = userdata;

        *(*p)++ = n->pid;
        return 0;
}

static int stop_at_two(const TaskName *n, void *userdata) {
        return ++*(int *) userdata == 2 ? -ECANCELED : 0;
}

TEST(foreach_most_recent_first) {
        _cleanup_(task_names_freep) TaskNames *t = NULL;
        pid_t seen[8] = {}, *p = seen;
        int count = 0;

        ASSERT_OK(task_names_new(NULL, 8, &t));
        ASSERT_OK(task_names_set(t, 1, 1, "a"));
        ASSERT_OK(task_names_set(t, 2, 2, "b"));
        ASSERT_OK(task_names_set(t, 3, 3, "c"));
        ASSERT_OK(task_names_lookup(t, 1, NULL));
        ASSERT_OK(task_names_foreach(t, collect, &p));
        ASSERT_EQ(p - seen, 3);
        ASSERT_EQ(seen[0], 1);
        ASSERT_EQ(seen[1], 3);
        ASSERT_EQ(seen[2], 2);
        ASSERT_ERROR(task_names_foreach(t, stop_at_two, &count), ECANCELED);
        ASSERT_EQ(count, 2);
}

/* ---- naming from events and /proc ----------------------------------------------------------------- */

TEST(fork_inherits_name) {
        _cleanup_(treep) char *root = tree_new();
        _cleanup_(task_names_freep) TaskNames *t = NULL;
        TaskName n;

        ASSERT_TRUE(root);
        ASSERT_OK(task_names_new(root, 64, &t));
        ASSERT_OK(task_names_set(t, 100, 100, "parent"));
        ASSERT_OK(task_names_set(t, 150, 100, "renamed-thread"));

        /* A process takes its parent's name (no /proc read: the tree is empty). */
        ASSERT_OK(task_names_fork(t, 100, 200, 200));
        ASSERT_OK(task_names_lookup(t, 200, &n));
        ASSERT_STREQ(n.comm, "parent");
        ASSERT_EQ(n.tgid, 200);

        /* A thread takes its leader's: the event names the process's parent (real_parent), not the creator. */
        ASSERT_OK(task_names_fork(t, 1, 201, 200));
        ASSERT_OK(task_names_lookup(t, 201, &n));
        ASSERT_STREQ(n.comm, "parent");
        ASSERT_EQ(n.tgid, 200);
        ASSERT_U64_EQ(task_names_stats(t)->comm_read_failures, 0);

        /* Unknown parent: read from /proc/PID/comm. */
        ASSERT_OK(tree_write(root, "from-proc\n", "300/comm"));
        ASSERT_OK(task_names_fork(t, 299, 300, 300));
        ASSERT_OK(task_names_lookup(t, 300, &n));
        ASSERT_STREQ(n.comm, "from-proc");

        /* Unknown parent and already gone: nothing added. */
        ASSERT_ERROR(task_names_fork(t, 399, 400, 400), ENOENT);
        ASSERT_ERROR(task_names_lookup(t, 400, &n), ENOENT);
        ASSERT_U64_EQ(task_names_stats(t)->comm_read_failures, 1);
}

TEST(exec_reads_comm) {
        _cleanup_(treep) char *root = tree_new();
        _cleanup_(task_names_freep) TaskNames *t = NULL;
        TaskName n;

        ASSERT_TRUE(root);
        ASSERT_OK(task_names_new(root, 64, &t));
        ASSERT_OK(task_names_set(t, 500, 500, "sh"));
        ASSERT_OK(tree_write(root, "a-much-too-long-program-name\n", "500/comm"));
        ASSERT_OK(task_names_exec(t, 500, 500));
        ASSERT_OK(task_names_lookup(t, 500, &n));
        ASSERT_STREQ(n.comm, "a-much-too-long");

        /* Gone before we could read: the entry is forgotten rather than left with the old name. */
        ASSERT_OK(task_names_set(t, 501, 501, "old"));
        ASSERT_ERROR(task_names_exec(t, 501, 501), ENOENT);
        ASSERT_ERROR(task_names_lookup(t, 501, &n), ENOENT);

        /* An empty comm file (a task reaped between open and read) counts as gone. */
        ASSERT_OK(tree_write(root, "", "502/comm"));
        ASSERT_ERROR(task_names_exec(t, 502, 502), ENOENT);
}

/* ---- rescans ------------------------------------------------------------------------------------- */

static int build_fake_proc(const char *root) {
        int r = 0;

        r = r ?: tree_write(root, "init\n", "1/task/1/comm");
        r = r ?: tree_write(root, "init\n", "1/comm");
        r = r ?: tree_write(root, "daemon\n", "100/task/100/comm");
        r = r ?: tree_write(root, "daemon-io\n", "100/task/101/comm");
        r = r ?: tree_write(root, "daemon-worker-with-long-name\n", "100/task/102/comm");
        r = r ?: tree_write(root, "x\n", "100/task/notatid/comm");
        r = r ?: tree_write(root, "notask\n", "200/comm");           /* no task/ directory */
        r = r ?: tree_write(root, "", "300/task/.keep");              /* a process whose threads all went */
        r = r ?: tree_write(root, "", "400/cmdline");                 /* no comm at all */
        r = r ?: tree_write(root, "1\n", "sys/kernel/pid_max");
        r = r ?: tree_write(root, "ignored\n", "self/comm");
        r = r ?: tree_write(root, "ignored\n", "0/comm");
        r = r ?: tree_write(root, "ignored\n", "12a/comm");
        return r;
}

TEST(rescan_fake_proc) {
        _cleanup_(treep) char *root = tree_new();
        _cleanup_(task_names_freep) TaskNames *t = NULL;
        TaskName n;

        ASSERT_TRUE(root);
        ASSERT_OK(build_fake_proc(root));
        ASSERT_OK(task_names_new(root, 64, &t));
        ASSERT_OK(task_names_set(t, 999, 999, "stale"));       /* its exit was lost */
        ASSERT_OK(task_names_set(t, 101, 100, "old-name"));     /* its comm event was lost */

        ASSERT_EQ(task_names_rescan(t), 5);
        ASSERT_EQ(task_names_size(t), 5);
        ASSERT_ERROR(task_names_lookup(t, 999, &n), ENOENT);
        ASSERT_U64_EQ(task_names_stats(t)->scan_dropped, 1);
        ASSERT_U64_EQ(task_names_stats(t)->scans, 1);
        ASSERT_U64_EQ(task_names_stats(t)->scan_tasks, 5);

        ASSERT_OK(task_names_lookup(t, 1, &n));
        ASSERT_STREQ(n.comm, "init");
        ASSERT_OK(task_names_lookup(t, 100, &n));
        ASSERT_STREQ(n.comm, "daemon");
        ASSERT_EQ(n.tgid, 100);
        ASSERT_OK(task_names_lookup(t, 101, &n));
        ASSERT_STREQ(n.comm, "daemon-io");
        ASSERT_EQ(n.tgid, 100);
        ASSERT_OK(task_names_lookup(t, 102, &n));
        ASSERT_STREQ(n.comm, "daemon-worker-w");
        ASSERT_EQ(n.tgid, 100);
        ASSERT_OK(task_names_lookup(t, 200, &n));
        ASSERT_STREQ(n.comm, "notask");
        ASSERT_EQ(n.tgid, 200);
        ASSERT_ERROR(task_names_lookup(t, 300, &n), ENOENT);
        ASSERT_ERROR(task_names_lookup(t, 400, &n), ENOENT);

        /* A second scan of the same tree changes nothing. */
        ASSERT_EQ(task_names_rescan(t), 5);
        ASSERT_EQ(task_names_size(t), 5);
        ASSERT_U64_EQ(task_names_stats(t)->scan_dropped, 1);
}

TEST(rescan_bounded) {
        _cleanup_(treep) char *root = tree_new();
        _cleanup_(task_names_freep) TaskNames *t = NULL;
        size_t found = 0;

        ASSERT_TRUE(root);
        for (int pid = 1000; pid < 1100; pid++)
                ASSERT_OK(tree_write(root, "many\n", "%d/task/%d/comm", pid, pid));
        ASSERT_OK(task_names_new(root, 16, &t));
        ASSERT_EQ(task_names_rescan(t), 100);
        ASSERT_EQ(task_names_size(t), 16);
        ASSERT_U64_EQ(task_names_stats(t)->evicted, 100 - 16);
        for (pid_t pid = 1000; pid < 1100; pid++)
                found += task_names_lookup(t, pid, NULL) == 0;
        ASSERT_EQ(found, 16);
}

TEST(rescan_missing_root_keeps_table) {
        _cleanup_(task_names_freep) TaskNames *t = NULL;

        ASSERT_OK(task_names_new("/nonexistent/proc", 8, &t));
        ASSERT_OK(task_names_set(t, 7, 7, "kept"));
        ASSERT_ERROR(task_names_rescan(t), ENOENT);
        ASSERT_EQ(task_names_size(t), 1);
        ASSERT_U64_EQ(task_names_stats(t)->scans, 0);
}

/* The real /proc: this process and its threads are there with the names the kernel gives them. */
TEST(rescan_real_proc_finds_self) {
        _cleanup_(task_names_freep) TaskNames *t = NULL;
        char comm[TASK_COMM_LEN] = {};
        TaskName n;
        int fd, r;
        ssize_t l;

        ASSERT_OK(task_names_new("/proc", 0, &t));
        r = task_names_rescan(t);
        ASSERT_OK(r);
        ASSERT_TRUE(r > 1);
        ASSERT_OK(task_names_lookup(t, 1, &n));
        ASSERT_OK(task_names_lookup(t, getpid(), &n));
        fd = open("/proc/self/comm", O_RDONLY | O_CLOEXEC);
        ASSERT_TRUE(fd >= 0);
        l = read(fd, comm, sizeof(comm) - 1);
        close(fd);
        ASSERT_TRUE(l > 0);
        comm[strcspn(comm, "\n")] = 0;
        ASSERT_STREQ(n.comm, comm);
        ASSERT_EQ(n.tgid, getpid());
}

DEFINE_TEST_MAIN
