/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace_parse_line() on every line of the input, each as replay_run() passes it (getline(): the '\n' kept,
 * the last line maybe without one), and trace_parse_line_format() over the lines as one trace (its first event
 * line deciding the layout). Contract (include/events.h): one of the four line kinds, or -EINVAL with a
 * reason; an event has a known type; the layout, once set, stays. trace_parse_session() on the same line: 1 with
 * a task (pid > 0) and a session (sid >= 0, a setsid's > 0), 0, or -EINVAL.
 */

#include <string.h>

#include "events.h"
#include "fuzz.h"
#include "macro.h"

static void check(int r, const char *reason, const SchedEvent *ev) {
        FUZZ_ASSERT(r == TRACE_LINE_EMPTY || r == TRACE_LINE_EVENT || r == TRACE_LINE_OTHER || r == TRACE_LINE_LOST ||
                    r == -EINVAL);
        if (r == -EINVAL)
                FUZZ_ASSERT(reason);
        if (r == TRACE_LINE_EVENT)
                FUZZ_ASSERT(ev->type >= 0 && ev->type < _SCHED_EVENT_TYPE_MAX);
}

static void check_session(const char *line) {
        TraceSession s;
        int r = trace_parse_session(line, &s);

        FUZZ_ASSERT(r == 0 || r == 1 || r == -EINVAL);
        if (r == 1)
                FUZZ_ASSERT(s.sid >= 0 && (s.time_ns == 0 ? s.pid > 0 : s.sid > 0));
}

static void parse_one(const char *line, TraceTextFormat *format) {
        TraceTextFormat before = *format;
        const char *reason = NULL;
        SchedEvent ev;
        int r;

        check_session(line);
        r = trace_parse_line(line, &ev, &reason);
        check(r, reason, &ev);
        reason = NULL;
        r = trace_parse_line_format(line, format, &ev, &reason);
        check(r, reason, &ev);
        FUZZ_ASSERT(before == TRACE_TEXT_UNKNOWN || *format == before);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        TraceTextFormat format = TRACE_TEXT_UNKNOWN;
        size_t start = 0;

        while (start < size) {
                const uint8_t *nl = memchr(data + start, '\n', size - start);
                size_t len = nl ? (size_t) (nl - data) - start + 1 : size - start;
                /* Exact size plus the NUL, so that a read past the line's end is caught. */
                _cleanup_free_ char *line = malloc(len + 1);

                if (!line)
                        return 0;
                memcpy(line, data + start, len);
                line[len] = '\0';
                parse_one(line, &format);
                start += len;
        }
        return 0;
}
