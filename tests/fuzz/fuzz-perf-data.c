/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The perf.data reader (trace-perfdata.c and the files it uses: perf-sample.c, perf-tracing-data.c,
 * perf-round-queue.c, tp-format.c, tp-decode.c) over an input taken as a whole file. Contract
 * (include/events.h): perf_data_open_memory() and perf_data_iterate() return 0 or -EBADMSG with a reason
 * (or -ENOMEM), never read outside the input, and deliver samples whose index counts up from 1.
 *
 * Seed: tests/fuzz/corpus/perf-data/hog-60, tests/fixtures/perf-data/hog.data cut to its first 60 records and a
 * tracing data of the sched formats only (a Python rewrite of its sections: the same header and attrs, one
 * feature), 13 KB.
 */

#include <string.h>

#include "events.h"
#include "fuzz.h"
#include "macro.h"

/* libtraceevent 1.7.1 leaks a token on some malformed format text (fuzz-tp-format.c says which): not ours. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) {
        return "leak:libtraceevent.so\n";
}

static int on_sample(const SchedEvent *ev, uint64_t index, uint64_t lost, void *userdata) {
        uint64_t *last = userdata;

        FUZZ_ASSERT(index == *last + 1);
        FUZZ_ASSERT(!ev || (ev->type >= 0 && ev->type < _SCHED_EVENT_TYPE_MAX));
        *last = index;
        return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_(perf_data_freep) PerfData *d = NULL;
        _cleanup_free_ char *error = NULL, *reason = NULL;
        uint64_t index = 0, last = 0;
        int r;

        r = perf_data_open_memory(data, size, &d, &error);
        FUZZ_ASSERT(r == 0 || r == -ENOMEM || (r == -EBADMSG && error));
        if (r < 0)
                return 0;
        r = perf_data_iterate(d, on_sample, &last, &index, &reason);
        FUZZ_ASSERT(r == 0 || r == -ENOMEM || (r == -EBADMSG && reason));
        FUZZ_ASSERT(index == last);
        return 0;
}
