/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * Logging to stderr, with the sd-daemon priority prefixes ("<3>" …) that journald reads as the priority
 * when stderr is journald's stream (the daemon under systemd); plain lines otherwise (a terminal, a pipe,
 * a file: `schedfreqd replay … 2>err` must not start its messages with "<3>"). Levels mean (systemd CODING_STYLE, iwd M18):
 *   error   - we give up an operation;
 *   warning - something unexpected was ignored ("…, ignoring: %m");
 *   info    - rare lifecycle events (started, reloaded, policy taken over);
 *   debug   - anything, but never once per scheduler event.
 * Only main/manager/bus-level code logs errors; modules return negative errnos and log at debug at most.
 */

#include <errno.h>
#include <stdbool.h>
#include <syslog.h>

#include "macro.h"

void log_set_max_level(int level);
int log_get_max_level(void);
/* Prefix "<N>" priorities (for journald). Default: only when stderr is journald's ($JOURNAL_STREAM). */
void log_set_prefix(bool prefix);
/* Parse "err|error|warning|notice|info|debug" or 0..7 into a syslog level; -EINVAL otherwise. */
int log_level_from_string(const char *s);
const char *log_level_to_string(int level);

/* Logs at @level; with error != 0 sets errno = |error| first so that %m works. Returns -|error|. */
int log_internal(int level, int error, const char *file, int line, const char *func, const char *format, ...)
        _printf_(6, 7);

#define log_full_errno(level, error, ...)                                                       \
        ({                                                                                      \
                int _l = (level), _e = (error);                                                 \
                (log_get_max_level() >= _l) ? log_internal(_l, _e, __FILE__, __LINE__, __func__, __VA_ARGS__) \
                                             : -abs(_e);                                        \
        })

#define log_full(level, ...) (void) log_full_errno((level), 0, __VA_ARGS__)

#define log_debug(...) log_full(LOG_DEBUG, __VA_ARGS__)
#define log_info(...) log_full(LOG_INFO, __VA_ARGS__)
#define log_notice(...) log_full(LOG_NOTICE, __VA_ARGS__)
#define log_warning(...) log_full(LOG_WARNING, __VA_ARGS__)
#define log_error(...) log_full(LOG_ERR, __VA_ARGS__)

#define log_debug_errno(error, ...) log_full_errno(LOG_DEBUG, (error), __VA_ARGS__)
#define log_info_errno(error, ...) log_full_errno(LOG_INFO, (error), __VA_ARGS__)
#define log_notice_errno(error, ...) log_full_errno(LOG_NOTICE, (error), __VA_ARGS__)
#define log_warning_errno(error, ...) log_full_errno(LOG_WARNING, (error), __VA_ARGS__)
#define log_error_errno(error, ...) log_full_errno(LOG_ERR, (error), __VA_ARGS__)

/* For errors we make up ourselves: log_error_errno(SYNTHETIC_ERRNO(EINVAL), "…"). */
#define SYNTHETIC_ERRNO(e) (e)

#define log_oom() log_error_errno(ENOMEM, "Out of memory.")
