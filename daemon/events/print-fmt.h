/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * What the daemon reads from a tracepoint's print fmt, read from the text (print-fmt.c) rather than through
 * libtraceevent's print fmt parser, which crashes on some malformed input.
 */

#include <stddef.h>
#include <stdint.h>

/*
 * sched_switch's preempted bit (TASK_REPORT_MAX) from its print fmt @fmt (@size bytes, the text after
 * "print fmt: ", no newline): the mask of its `REC->prev_state & MASK ? "+" : ""` test, else one above the mask
 * of its `REC->prev_state & MASK ? … : "R"` test. Returns 0, -EINVAL (not a print fmt this parser reads),
 * -ENOENT (no such test) or -EDOM (not a single bit).
 */
int print_fmt_preempt_mask(const char *fmt, size_t size, uint64_t *ret);
