/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sched_event_decode(), the hot-path decoder of raw tracepoint records (perf PERF_SAMPLE_RAW payloads), with
 * the layouts of a captured 6.18 kernel (tests/fixtures/formats/6.18). Contract (daemon/events/tp-decode.h):
 * bounds-checked, 0 or -EBADMSG, never a read outside the @size bytes (the buffer is exactly @size long);
 * @ret is only written on success.
 */

#include <stdbool.h>
#include <string.h>

#include "fuzz.h"
#include "macro.h"
#include "tp-decode.h"
#include "tp-format.h"

#ifndef FIXTURES
#error "FIXTURES must name tests/fixtures"
#endif

static const TpFormat *format(void) {
        static TpFormat f;
        static bool loaded;
        _cleanup_free_ char *error = NULL;

        if (!loaded) {
                int r = tp_format_load(FIXTURES "/formats/6.18", &f, &error);

                if (r < 0) {
                        fprintf(stderr, "%s\n", error ? error : strerror(-r));
                        abort();
                }
                loaded = true;
        }
        return &f;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        SchedEvent ev, untouched;
        int r;

        memset(&ev, 0xa5, sizeof(ev));
        untouched = ev;

        r = sched_event_decode(format(), data, size, &ev);
        FUZZ_ASSERT(r == 0 || r == -EBADMSG);
        if (r == 0)
                FUZZ_ASSERT(ev.type >= 0 && ev.type < _SCHED_EVENT_TYPE_MAX);
        else
                FUZZ_ASSERT(memcmp(&ev, &untouched, sizeof(ev)) == 0);
        return 0;
}
