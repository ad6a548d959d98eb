/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * task-spawner: holds a given number of live, sleeping processes, for measuring what live tasks cost a
 * governor that tracks them (bench/bench-memory.sh).
 *
 *   task-spawner
 *
 * Reads one number per line on stdin: the total number of children to hold from then on. It forks until it
 * holds that many (never fewer than before: the count only grows), then prints the number it holds on stdout,
 * flushed, so a script can wait for that line. Each child is a process of its own (its own pid and tgid, not
 * a thread: the proc connector reports a fork, the scheduler a sched_wakeup_new) that blocks in pause() for
 * good: it was woken once, ran, and sleeps, as an idle daemon does. The children share the spawner's memory
 * (clone(CLONE_VM), each on a 16 KiB stack of its own): a fork() copying page tables 10,000 times takes
 * seconds more on a loaded 2-vCPU VM, and the governor cannot tell the difference. At end of input, or on SIGTERM/SIGINT, it SIGKILLs every child, reaps
 * them, and exits 0. Children also die with it (PR_SET_PDEATHSIG), so none outlives a killed spawner.
 */

#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static pid_t *children;
static size_t n_children, n_allocated;
static volatile sig_atomic_t stop;

static void on_stop(int sig) {
        stop = 1;
}

#define CHILD_STACK_SIZE (16 * 1024)

/* Runs on its own stack in the spawner's memory: raw system calls only (errno and stdio are shared). */
static int child_main(void *arg) {
        pid_t parent = (pid_t) (intptr_t) arg;

        (void) syscall(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
        if ((pid_t) syscall(SYS_getppid) != parent)
                syscall(SYS_exit, 0);
        for (;;)
                (void) syscall(SYS_pause);
        return 0;
}

static int grow_to(size_t want) {
        pid_t self = getpid();

        if (want > n_allocated) {
                pid_t *p = realloc(children, want * sizeof(pid_t));

                if (!p)
                        return -ENOMEM;
                children = p;
                n_allocated = want;
        }
        while (n_children < want && !stop) {
                char *stack = mmap(NULL, CHILD_STACK_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
                pid_t pid;

                if (stack == MAP_FAILED)
                        return -errno;
                pid = clone(child_main, stack + CHILD_STACK_SIZE, CLONE_VM | SIGCHLD, (void *) (intptr_t) self);
                if (pid < 0)
                        return -errno;
                children[n_children++] = pid;
        }
        return 0;
}

static void kill_all(void) {
        for (size_t i = 0; i < n_children; i++)
                (void) kill(children[i], SIGKILL);
        for (size_t i = 0; i < n_children; i++)
                while (waitpid(children[i], NULL, 0) < 0 && errno == EINTR)
                        ;
        n_children = 0;
}

int main(void) {
        struct sigaction sa = { .sa_handler = on_stop };
        char line[64];
        int rc = 0;

        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGINT, &sa, NULL);
        while (!stop && fgets(line, sizeof(line), stdin)) {
                char *end;
                unsigned long want = strtoul(line, &end, 10);
                int r;

                if (end == line || (*end != '\n' && *end != '\0') || want > 1000000) {
                        fprintf(stderr, "task-spawner: expected a number, got: %s", line);
                        rc = 1;
                        break;
                }
                r = grow_to(want);
                if (r < 0) {
                        fprintf(stderr, "task-spawner: fork at %zu children: %s\n", n_children, strerror(-r));
                        rc = 1;
                        break;
                }
                printf("%zu\n", n_children);
                fflush(stdout);
        }
        kill_all();
        free(children);
        return rc;
}
