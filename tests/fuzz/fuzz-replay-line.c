/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace_parse_line() on every line of the input, each as replay_run() passes it (getline(): the '\n' kept,
 * the last line maybe without one). Contract (include/trace-parse.h): one of the three line kinds, or -EINVAL
 * with a reason; an event has a known type.
 */

#include <string.h>

#include "fuzz.h"
#include "macro.h"
#include "trace-parse.h"

static void parse_one(const char *line) {
        const char *reason = NULL;
        SchedEvent ev;
        int r;

        r = trace_parse_line(line, &ev, &reason);
        FUZZ_ASSERT(r == TRACE_LINE_EMPTY || r == TRACE_LINE_EVENT || r == TRACE_LINE_OTHER || r == -EINVAL);
        if (r == -EINVAL)
                FUZZ_ASSERT(reason);
        if (r == TRACE_LINE_EVENT)
                FUZZ_ASSERT(ev.type >= 0 && ev.type < _SCHED_EVENT_TYPE_MAX);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
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
                parse_one(line);
                start += len;
        }
        return 0;
}
