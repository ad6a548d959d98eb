/* SPDX-License-Identifier: GPL-2.0-or-later */
/* error-text.c: see include/error-text.h. */

#include <stdarg.h>
#include <stdio.h>

#include "error-text.h"

int error_text_set(char **error, int r, const char *format, ...) {
        va_list ap;

        if (error && !*error) {
                va_start(ap, format);
                if (vasprintf(error, format, ap) < 0)
                        *error = NULL;
                va_end(ap);
        }
        return r;
}

int error_text_return(int r, char **error, char **ret_error) {
        if (r < 0 && ret_error)
                *ret_error = TAKE_PTR(*error);
        return r;
}
