/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ready-timer: runs a command as its child and measures, from outside, how long it takes to announce
 * READY=1 over the sd_notify protocol, and how much memory it used by the time it exits.
 *
 *   ready-timer [--no-ready] [--timeout S] -- COMMAND [ARGS...]
 *
 * It binds an abstract AF_UNIX datagram socket, puts its address in the child's NOTIFY_SOCKET (what systemd
 * does, sd_notify(3); libsystemd accepts an address starting with '@' as abstract), stamps CLOCK_MONOTONIC
 * just before fork() and again when a datagram holding the line "READY=1" arrives, and prints
 *
 *   ready pid=PID ms=MILLISECONDS
 *
 * (stdout, flushed at once, so a script can read it from a pipe while the child keeps running). It then waits
 * for the child and prints
 *
 *   exit pid=PID status=N|signal=N maxrss_kib=K wall_ms=MILLISECONDS
 *
 * where maxrss_kib is the child's peak RSS as wait4(2) reports it (ru_maxrss: the kernel's hiwater_rss, the
 * VmHWM of /proc/PID/status at exit). SIGTERM and SIGINT received meanwhile are passed to the child. With
 * --no-ready it prints only the exit line (a program that never notifies: `schedfreqd replay`). When READY
 * does not come within --timeout seconds (default 30) or the child exits first, it says so on stderr,
 * SIGTERMs the child if still there, and exits 1 after reaping it. Exit status otherwise: 0 when the child
 * exited 0 or was ended by SIGTERM, else 1. Abstract sockets live in the network namespace: the child must
 * share ours (nsenter -m, as tests/emu-run's namespace, does).
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <stddef.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t child_pid;

static uint64_t now_ns(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static void forward_signal(int sig) {
        if (child_pid > 0)
                (void) kill(child_pid, sig);
}

/* "READY=1" as one of the newline-separated assignments of a notification (sd_notify(3)). */
static bool has_ready(const char *msg) {
        for (const char *p = msg; p; p = strchr(p, '\n')) {
                if (*p == '\n')
                        p++;
                if (strncmp(p, "READY=1", 7) == 0 && (p[7] == '\n' || p[7] == '\0'))
                        return true;
        }
        return false;
}

/* Binds an abstract datagram socket named after our pid; writes its NOTIFY_SOCKET form ("@name"). */
static int notify_socket_open(char *ret_name, size_t size) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        socklen_t len;
        int fd, n;

        n = snprintf(sa.sun_path + 1, sizeof(sa.sun_path) - 1, "schedfreqd-bench-ready-%d", (int) getpid());
        if (n < 0 || (size_t) n + 2 > size)
                return -EINVAL;
        fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return -errno;
        len = (socklen_t) (offsetof(struct sockaddr_un, sun_path) + 1 + (size_t) n);
        if (bind(fd, (struct sockaddr *) &sa, len) < 0) {
                int r = -errno;

                close(fd);
                return r;
        }
        snprintf(ret_name, size, "@%s", sa.sun_path + 1);
        return fd;
}

/* Waits for READY=1 until @deadline_ns; 0 when it came, -ETIMEDOUT, or -ECHILD when the child exited. */
static int wait_ready(int fd, pid_t pid, uint64_t deadline_ns) {
        char buf[4096];

        for (;;) {
                struct pollfd pfd = { .fd = fd, .events = POLLIN };
                uint64_t now = now_ns();
                siginfo_t si = {};
                ssize_t n;

                /* WNOWAIT: leave it to be reaped by wait4() (which reports its rusage). */
                if (waitid(P_PID, (id_t) pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid)
                        return -ECHILD;
                if (now >= deadline_ns)
                        return -ETIMEDOUT;
                /* At most 50 ms per poll: a child that dies without a word is noticed by the waitpid above. */
                if (poll(&pfd, 1, (int) ((deadline_ns - now) / 1000000 < 50 ? (deadline_ns - now) / 1000000 + 1 : 50)) < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (!(pfd.revents & POLLIN))
                        continue;
                n = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);
                if (n < 0) {
                        if (errno == EAGAIN || errno == EINTR)
                                continue;
                        return -errno;
                }
                buf[n] = '\0';
                if (has_ready(buf))
                        return 0;
        }
}

static void usage(FILE *f) {
        fprintf(f, "usage: ready-timer [--no-ready] [--timeout S] -- COMMAND [ARGS...]\n");
}

int main(int argc, char **argv) {
        static const struct option options[] = {
                { "no-ready", no_argument, NULL, 'n' },
                { "timeout", required_argument, NULL, 't' },
                { "help", no_argument, NULL, 'h' },
                {}
        };
        struct sigaction sa = { .sa_handler = forward_signal };
        char name[128];
        bool want_ready = true;
        double timeout_s = 30;
        uint64_t t0_ns, deadline_ns;
        struct rusage ru;
        int c, fd, status, rc = 0;
        pid_t pid;

        while ((c = getopt_long(argc, argv, "+h", options, NULL)) >= 0)
                switch (c) {
                case 'n':
                        want_ready = false;
                        break;
                case 't':
                        timeout_s = strtod(optarg, NULL);
                        if (timeout_s <= 0) {
                                usage(stderr);
                                return 2;
                        }
                        break;
                case 'h':
                        usage(stdout);
                        return 0;
                default:
                        usage(stderr);
                        return 2;
                }
        if (optind >= argc) {
                usage(stderr);
                return 2;
        }

        fd = notify_socket_open(name, sizeof(name));
        if (fd < 0) {
                fprintf(stderr, "ready-timer: notify socket: %s\n", strerror(-fd));
                return 1;
        }
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGINT, &sa, NULL);

        t0_ns = now_ns();
        pid = fork();
        if (pid < 0) {
                perror("ready-timer: fork");
                return 1;
        }
        if (pid == 0) {
                if (want_ready)
                        setenv("NOTIFY_SOCKET", name, 1);
                else
                        unsetenv("NOTIFY_SOCKET");
                execvp(argv[optind], argv + optind);
                fprintf(stderr, "ready-timer: %s: %s\n", argv[optind], strerror(errno));
                _exit(127);
        }
        child_pid = pid;

        if (want_ready) {
                deadline_ns = t0_ns + (uint64_t) (timeout_s * 1e9);
                int r = wait_ready(fd, pid, deadline_ns);

                if (r == 0) {
                        printf("ready pid=%d ms=%.3f\n", (int) pid, (double) (now_ns() - t0_ns) / 1e6);
                        fflush(stdout);
                } else {
                        fprintf(stderr, "ready-timer: no READY=1 from %s: %s\n", argv[optind],
                                r == -ECHILD ? "it exited" : strerror(-r));
                        (void) kill(pid, SIGTERM);
                        rc = 1;
                }
        }
        close(fd);

        while (wait4(pid, &status, 0, &ru) < 0)
                if (errno != EINTR) {
                        perror("ready-timer: wait4");
                        return 1;
                }
        if (WIFEXITED(status))
                printf("exit pid=%d status=%d", (int) pid, WEXITSTATUS(status));
        else
                printf("exit pid=%d signal=%d", (int) pid, WTERMSIG(status));
        printf(" maxrss_kib=%ld wall_ms=%.3f\n", ru.ru_maxrss, (double) (now_ns() - t0_ns) / 1e6);
        if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0) && !(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM))
                rc = 1;
        return rc;
}
