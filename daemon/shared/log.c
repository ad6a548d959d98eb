/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * log.c: the logging sink. Writes one line per message to stderr, with an sd-daemon priority prefix when
 * stderr is journald's stream.
 */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"

static int max_level = LOG_INFO;
static int prefix_mode = -1; /* -1: decide on first use, stderr_is_journal() */

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

/*
 * Whether stderr is connected to journald: systemd sets $JOURNAL_STREAM to "<st_dev>:<st_ino>" of the stream
 * it gives a service (systemd.exec(5)); stderr still being that stream means nobody redirected it. The same
 * test as systemd's own log_target auto (src/basic/log.c). A terminal, a file or a pipe gets plain lines.
 */
static bool stderr_is_journal(void) {
        const char *e = getenv("JOURNAL_STREAM");
        unsigned long long dev, ino;
        struct stat st;
        int n = 0;

        if (!e || sscanf(e, "%llu:%llu%n", &dev, &ino, &n) != 2 || e[n] != '\0')
                return false;
        if (fstat(STDERR_FILENO, &st) < 0)
                return false;
        return (unsigned long long) st.st_dev == dev && (unsigned long long) st.st_ino == ino;
}

/* journald reads a stream line by line: every line of a multi-line message needs its own priority. */
static void write_prefixed(int level, const char *msg) {
        for (const char *p = msg;;) {
                size_t n = strcspn(p, "\n");

                (void) fprintf(stderr, "<%d>%.*s\n", level, (int) n, p);
                if (p[n] == '\0')
                        break;
                p += n + 1;
        }
}

int log_internal(int level, int error, const char *file, int line, const char *func, const char *format, ...) {
        int saved_errno = errno;
        char buf[2048];
        va_list ap;

        (void) file;
        (void) line;
        (void) func;

        if (prefix_mode < 0)
                prefix_mode = stderr_is_journal();

        if (error != 0)
                errno = abs(error);

        va_start(ap, format);
        (void) vsnprintf(buf, sizeof(buf), format, ap);
        va_end(ap);

        if (prefix_mode)
                write_prefixed(level, buf);
        else
                (void) fprintf(stderr, "%s\n", buf);

        errno = saved_errno;
        return -abs(error);
}
