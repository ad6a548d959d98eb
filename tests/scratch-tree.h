/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * Scratch directory trees for unit tests that read fake /proc or debugfs files: a fresh directory under /tmp,
 * files written anywhere below it (the directories made on the way), and its removal.
 */

#include <errno.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "macro.h"

static inline int scratch_tree_rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        return remove(path);
}

/* Removes @root and everything below it, and frees the name. */
static inline void scratch_tree_remove(char *root) {
        if (root)
                (void) nftw(root, scratch_tree_rm_one, 16, FTW_DEPTH | FTW_PHYS);
        free(root);
}

static inline void scratch_tree_freep(char **root) {
        scratch_tree_remove(*root);
}

/* A new empty directory /tmp/@name.XXXXXX (malloc'd), or NULL. */
static inline char *scratch_tree_new(const char *name) {
        char *d = NULL;

        if (asprintf(&d, "/tmp/%s.XXXXXX", name) < 0)
                return NULL;
        if (!mkdtemp(d)) {
                free(d);
                return NULL;
        }
        return d;
}

/* Writes @content to ROOT/@fmt…, creating the directories on the way. 0 or -errno. */
_printf_(3, 4) static inline int scratch_tree_write(const char *root, const char *content, const char *fmt, ...) {
        char rel[256], path[512];
        va_list ap;
        FILE *f;

        va_start(ap, fmt);
        (void) vsnprintf(rel, sizeof(rel), fmt, ap);
        va_end(ap);
        (void) snprintf(path, sizeof(path), "%s/%s", root, rel);
        for (char *s = path + strlen(root) + 1; (s = strchr(s, '/')); s++) {
                *s = 0;
                if (mkdir(path, 0755) < 0 && errno != EEXIST)
                        return -errno;
                *s = '/';
        }
        f = fopen(path, "we");
        if (!f)
                return -errno;
        fputs(content, f);
        return fclose(f) == 0 ? 0 : -errno;
}

/* scratch_tree_write() for fixtures a test cannot do without: aborts when the file cannot be made. */
#define scratch_tree_put(root, content, ...) \
        do { \
                if (scratch_tree_write(root, content, __VA_ARGS__) < 0) \
                        abort(); \
        } while (0)
