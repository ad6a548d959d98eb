/* SPDX-License-Identifier: GPL-2.0-or-later */
/* log.c: the logging sink. Writes one line per message to stderr, with an sd-daemon priority prefix. */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

static int max_level = LOG_INFO;
static int prefix_mode = -1; /* -1: decide from isatty() on first use */

static const char *const level_names[] = {
        [LOG_EMERG] = "emerg", [LOG_ALERT] = "alert", [LOG_CRIT] = "crit",   [LOG_ERR] = "err",
        [LOG_WARNING] = "warning", [LOG_NOTICE] = "notice", [LOG_INFO] = "info", [LOG_DEBUG] = "debug",
};

void log_set_max_level(int level) {
        max_level = CLAMP(level, LOG_EMERG, LOG_DEBUG);
}

int log_get_max_level(void) {
        return max_level;
}

void log_set_prefix(bool prefix) {
        prefix_mode = prefix;
}

int log_level_from_string(const char *s) {
        if (!s)
                return -EINVAL;
        if (s[0] >= '0' && s[0] <= '7' && s[1] == '\0')
                return s[0] - '0';
        if (streq(s, "error"))
                return LOG_ERR;
        for (size_t i = 0; i < ELEMENTSOF(level_names); i++)
                if (streq(s, level_names[i]))
                        return (int) i;
        return -EINVAL;
}

const char *log_level_to_string(int level) {
        if (level < 0 || (size_t) level >= ELEMENTSOF(level_names))
                return NULL;
        return level_names[level];
}

int log_internal(int level, int error, const char *file, int line, const char *func, const char *format, ...) {
        int saved_errno = errno;
        char buf[2048];
        va_list ap;

        (void) file;
        (void) line;
        (void) func;

        if (prefix_mode < 0)
                prefix_mode = !isatty(STDERR_FILENO);

        if (error != 0)
                errno = abs(error);

        va_start(ap, format);
        (void) vsnprintf(buf, sizeof(buf), format, ap);
        va_end(ap);

        if (prefix_mode)
                (void) fprintf(stderr, "<%d>%s\n", level, buf);
        else
                (void) fprintf(stderr, "%s\n", buf);

        errno = saved_errno;
        return -abs(error);
}
