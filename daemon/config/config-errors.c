/* SPDX-License-Identifier: GPL-2.0-or-later */
/* config-errors.c: the configuration's "FILE:LINE: reason" list (daemon/config/config-errors.h). */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc-util.h"
#include "config-errors.h"

void config_errors_done(ConfigErrors *l) {
        for (size_t i = 0; i < l->n; i++)
                free(l->items[i].message);
        free(l->items);
        for (size_t i = 0; i < l->n_files; i++)
                free(l->files[i]);
        free(l->files);
        *l = (ConfigErrors) {};
}

void config_errors_set_file(ConfigErrors *l, const char *file) {
        char **files, *copy;

        for (size_t i = 0; i < l->n_files; i++)
                if (streq(l->files[i], file)) {
                        l->file = i;
                        return;
                }
        files = reallocarray(l->files, l->n_files + 1, sizeof(char *));
        if (!files) {
                l->oom = true;
                return;
        }
        l->files = files;
        copy = strdup(file);
        if (!copy) {
                l->oom = true;
                return;
        }
        l->file = l->n_files;
        l->files[l->n_files++] = copy;
}

void config_error_add(ConfigErrors *l, unsigned line, const char *format, ...) {
        ConfigError *items;
        char *message;
        va_list ap;
        int r;

        items = greedy_realloc(l->items, &l->allocated, l->n + 1, sizeof(ConfigError), 8);
        if (!items) {
                l->oom = true;
                return;
        }
        l->items = items;

        va_start(ap, format);
        r = vasprintf(&message, format, ap);
        va_end(ap);
        if (r < 0) {
                l->oom = true;
                return;
        }
        l->items[l->n] = (ConfigError) { .file = l->file, .line = line, .seq = l->n, .message = message };
        l->n++;
}

static int config_error_cmp(const void *a, const void *b) {
        const ConfigError *x = a, *y = b;

        if (x->file != y->file)
                return x->file < y->file ? -1 : 1;
        if (x->line != y->line)
                return x->line < y->line ? -1 : 1;
        return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void config_errors_sort(ConfigErrors *l) {
        if (l->n > 1)
                qsort(l->items, l->n, sizeof(ConfigError), config_error_cmp);
}

char *config_errors_join(const ConfigErrors *l) {
        size_t len = 0;
        char *text, *p;

        for (size_t i = 0; i < l->n; i++)
                len += strlen(l->items[i].message) + 1;
        text = malloc(MAX(len, (size_t) 1));
        if (!text)
                return NULL;

        p = text;
        for (size_t i = 0; i < l->n; i++) {
                if (i > 0)
                        *p++ = '\n';
                p = stpcpy(p, l->items[i].message);
        }
        *p = '\0';
        return text;
}
