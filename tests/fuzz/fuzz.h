/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * What the fuzz harnesses (tests/fuzz/fuzz-*.c) share. Each harness is one LLVMFuzzerTestOneInput() over one
 * parser's public API, built twice (Makefile): with clang -fsanitize=fuzzer,address,undefined by `make fuzz`,
 * and with the normal compiler and flags plus replay-main.c, a main() that runs every file of the harness's
 * seed corpus (tests/fuzz/corpus/NAME/) once, so that `make check` replays the corpora.
 *
 * Besides "no crash, no leak, no out-of-bounds read", a harness checks the parts of its parser's contract
 * (the comment in the header) that hold for any input: FUZZ_ASSERT aborts, which both libFuzzer and the
 * replay driver report as a failure with the input that caused it.
 */

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_ASSERT(expr)                                                                       \
        do {                                                                                    \
                if (!(expr)) {                                                                  \
                        fprintf(stderr, "%s:%d: contract violated: %s\n", __FILE__, __LINE__, #expr); \
                        abort();                                                                \
                }                                                                               \
        } while (0)

/*
 * For parsers that take a path: puts @data into one memfd kept for the life of the process (a file per input
 * would cost a create and an unlink each time) and returns its name, "/proc/self/fd/N", in @path (32 bytes).
 * Opening that name opens the memfd afresh at offset 0. Returns 0 or a negative errno.
 */
static inline int fuzz_memfd_path(const uint8_t *data, size_t size, char path[static 32]) {
        static int fd = -1;
        size_t done = 0;

        if (fd < 0) {
                fd = memfd_create("schedfreqd-fuzz", MFD_CLOEXEC);
                if (fd < 0)
                        return -errno;
        }
        if (ftruncate(fd, 0) < 0)
                return -errno;
        while (done < size) {
                ssize_t n = pwrite(fd, data + done, size - done, (off_t) done);

                if (n < 0)
                        return -errno;
                done += (size_t) n;
        }
        snprintf(path, 32, "/proc/self/fd/%d", fd);
        return 0;
}
