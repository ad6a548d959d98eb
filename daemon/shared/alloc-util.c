/* SPDX-License-Identifier: GPL-2.0-or-later */
/* alloc-util.c: see include/alloc-util.h. */

#include <stdint.h>
#include <stdlib.h>

#include "alloc-util.h"
#include "macro.h"

void *greedy_realloc(void *p, size_t *allocated, size_t need, size_t size, size_t min) {
        size_t want;
        void *q;

        if (need <= *allocated)
                return p;
        /* Doubling saturates: what does not fit a size_t is refused (ENOMEM), never wrapped to a small block. */
        want = *allocated <= SIZE_MAX / 2 ? *allocated * 2 : SIZE_MAX;
        want = MAX(want, MAX(min, need));
        q = reallocarray(p, want, size);
        if (q)
                *allocated = want;
        return q;
}
