/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Growing an array the systemd way (its GREEDY_REALLOC()): geometrically, so n appends cost O(n) copies. */

#include <stddef.h>

/*
 * Room for @need (> 0) elements of @size in the array @p, which has room for *@allocated: @p itself when it has,
 * else @p reallocated to room for the largest of twice *@allocated, @min and @need, and *@allocated set to that. NULL
 * without memory, or when the size overflows (reallocarray()'s check, errno ENOMEM): then @p and *@allocated are
 * untouched, and @p is still the caller's. The array is returned, not passed through a void **: gcc's -fanalyzer
 * loses the reallocated block behind the cast (a leak it reports).
 */
void *greedy_realloc(void *p, size_t *allocated, size_t need, size_t size, size_t min);
