/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * An error's context as text, for functions that return a negative errno and, through a char **, a message
 * naming the object (a policy, a file and line). The first failure's message is kept; later ones are only
 * returned.
 */

#include "macro.h"

/* Sets *@error to the formatted message unless one is there already; returns @r. */
_printf_(3, 4) int error_text_set(char **error, int r, const char *format, ...);
/* On failure (@r < 0) hands *@error over to *@ret_error (when given); returns @r. */
int error_text_return(int r, char **error, char **ret_error);
