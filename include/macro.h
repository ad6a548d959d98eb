/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The few systemd-style helpers the daemon uses, written fresh: cleanup attributes, TAKE_PTR and friends.
 * See shared/notes/style.md ("re-create the few we need").
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _unused_ __attribute__((unused))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _noreturn_ __attribute__((noreturn))
#define _always_inline_ inline __attribute__((always_inline))
#define _likely_(x) (__builtin_expect(!!(x), 1))
#define _unlikely_(x) (__builtin_expect(!!(x), 0))

/*
 * ANALYZER_FALSE_POSITIVE_BEGIN("-Wanalyzer-CHECK") ... ANALYZER_FALSE_POSITIVE_END around a function silences
 * one gcc -fanalyzer checker there (`make analyze`): only for a false positive, explained at the use and in
 * docs/reliability.md ("Static analysis"). Nothing for clang, which has no such warning and would warn about it.
 */
#if defined(__GNUC__) && !defined(__clang__)
#define DO_PRAGMA_(x) _Pragma(#x)
#define ANALYZER_FALSE_POSITIVE_BEGIN(check) _Pragma("GCC diagnostic push") DO_PRAGMA_(GCC diagnostic ignored check)
#define ANALYZER_FALSE_POSITIVE_END _Pragma("GCC diagnostic pop")
#else
#define ANALYZER_FALSE_POSITIVE_BEGIN(check)
#define ANALYZER_FALSE_POSITIVE_END
#endif

#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define CLAMP(x, lo, hi) ((x) < (lo) ? (lo) : (x) > (hi) ? (hi) : (x))

/* Take ownership of a pointer: returns it and leaves NULL behind, so a _cleanup_ does not free it. */
#define TAKE_PTR(p)                             \
        ({                                      \
                __typeof__(p) _ptr_ = (p);      \
                (p) = NULL;                     \
                _ptr_;                          \
        })

#define TAKE_FD(fd)                             \
        ({                                      \
                int _fd_ = (fd);                \
                (fd) = -EBADF;                  \
                _fd_;                           \
        })

#define ASSERT_PTR(p)                           \
        ({                                      \
                __typeof__(p) _p_ = (p);        \
                if (!_p_)                       \
                        abort();                \
                _p_;                            \
        })

/* Defines name##p(type *p) calling func(*p) when *p is not NULL. */
#define DEFINE_TRIVIAL_CLEANUP_FUNC(type, func)         \
        static inline void func##p(type *p) {           \
                if (*p)                                 \
                        func(*p);                       \
        }

static inline void freep(void *p) {
        free(*(void **) p);
}

static inline void closep(int *fd) {
        if (*fd >= 0) {
                int saved = errno;
                (void) close(*fd);
                errno = saved;
        }
}

static inline void fclosep(FILE **f) {
        if (*f)
                (void) fclose(*f);
}

#define _cleanup_free_ _cleanup_(freep)
#define _cleanup_close_ _cleanup_(closep)
#define _cleanup_fclose_ _cleanup_(fclosep)

/* Negative errno from the current errno, never 0 (for libraries that forget to set it). */
static inline int negative_errno(void) {
        return errno > 0 ? -errno : -EIO;
}

#define streq(a, b) (strcmp((a), (b)) == 0)
