/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The replay driver: a main() for a fuzz harness built without libFuzzer. Runs every regular file of each
 * directory given (default: the harness's seed corpus, FUZZ_CORPUS_DIR, compiled in) once through
 * LLVMFuzzerTestOneInput(), in name order, each from an exact-size heap copy (so that ASan sees a read past
 * the end), and prints one "ok - NAME: N inputs of DIR" line per directory for tests/run-tests.
 *
 * A crash kills the process before it can report, so the input being run is kept in a global and printed by
 * a fatal-signal handler, and by the sanitizers' death callback when built with them (ASan/UBSan usually
 * _exit() without raising a signal).
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "macro.h"

#ifndef FUZZ_CORPUS_DIR
#error "FUZZ_CORPUS_DIR must name the harness's seed corpus"
#endif

/* Weak: present only when a sanitizer runtime is linked in (its common interface, both gcc and clang). */
extern void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

static const char *current_input;

static void print_current_input(void) {
        const char *p = current_input ? current_input : "(none)";

        /* write(2) only: this also runs from a signal handler. */
        (void) !write(STDERR_FILENO, "# crashed on input: ", 20);
        (void) !write(STDERR_FILENO, p, strlen(p));
        (void) !write(STDERR_FILENO, "\n", 1);
}

static void on_fatal_signal(int sig) {
        print_current_input();
        signal(sig, SIG_DFL);
        raise(sig);
}

static void install_crash_reporters(void) {
        static const int sigs[] = { SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL };

        for (size_t i = 0; i < ELEMENTSOF(sigs); i++)
                signal(sigs[i], on_fatal_signal);
        if (__sanitizer_set_death_callback)
                __sanitizer_set_death_callback(print_current_input);
}

/* Reads @path into an exact-size malloc'd buffer (a 1-byte one for an empty file, never read). */
static int read_input(const char *path, uint8_t **ret, size_t *ret_size) {
        _cleanup_close_ int fd = -1;
        _cleanup_free_ uint8_t *buf = NULL;
        struct stat st;
        size_t done = 0;

        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0 || fstat(fd, &st) < 0)
                return -errno;
        buf = malloc(st.st_size > 0 ? (size_t) st.st_size : 1);
        if (!buf)
                return -ENOMEM;
        while (done < (size_t) st.st_size) {
                ssize_t n = read(fd, buf + done, (size_t) st.st_size - done);

                if (n < 0)
                        return -errno;
                if (n == 0)
                        return -EIO; /* shrank while read */
                done += (size_t) n;
        }
        *ret = TAKE_PTR(buf);
        *ret_size = done;
        return 0;
}

static int is_input(const struct dirent *de) {
        return de->d_name[0] != '.';
}

/* Runs every file of @dir once; returns how many, or a negative errno (and says what failed). */
static int replay_dir(const char *dir) {
        struct dirent **names = NULL;
        int n, r = 0, ran = 0;

        n = scandir(dir, &names, is_input, alphasort);
        if (n < 0) {
                fprintf(stderr, "# %s: %s\n", dir, strerror(errno));
                return -errno;
        }
        for (int i = 0; i < n; i++) {
                _cleanup_free_ char *path = NULL;
                _cleanup_free_ uint8_t *buf = NULL;
                struct stat st;
                size_t size = 0;

                if (r == 0 && asprintf(&path, "%s/%s", dir, names[i]->d_name) < 0)
                        r = -ENOMEM;
                if (r == 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
                        r = read_input(path, &buf, &size);
                        if (r < 0)
                                fprintf(stderr, "# %s: %s\n", path, strerror(-r));
                        else {
                                current_input = path;
                                (void) LLVMFuzzerTestOneInput(buf, size);
                                current_input = NULL;
                                ran++;
                        }
                }
                free(names[i]);
        }
        free(names);
        return r < 0 ? r : ran;
}

int main(int argc, char *argv[]) {
        const char *default_dirs[] = { FUZZ_CORPUS_DIR };
        const char *const *dirs = argc > 1 ? (const char *const *) argv + 1 : default_dirs;
        size_t n_dirs = argc > 1 ? (size_t) argc - 1 : 1;
        const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
        bool failed = false;

        install_crash_reporters();
        for (size_t i = 0; i < n_dirs; i++) {
                int n = replay_dir(dirs[i]);

                /* An empty corpus replays nothing: that is a broken setup, not a pass. */
                if (n <= 0) {
                        printf("not ok - %s: replay %s\n", name, dirs[i]);
                        failed = true;
                } else
                        printf("ok - %s: %d inputs of %s, no crash\n", name, n, dirs[i]);
                fflush(stdout);
        }
        return failed ? 1 : 0;
}
