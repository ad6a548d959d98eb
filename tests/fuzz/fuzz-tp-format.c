/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tp_format_parse_event(): the first byte picks the event type (mod _SCHED_EVENT_TYPE_MAX), the rest is the
 * text of its tracefs format file. Contract (daemon/events/tp-format.h): 0, -EBADMSG with a message, or -ENOMEM;
 * the TpFormat is only changed on success.
 */

#include <string.h>

#include "fuzz.h"
#include "macro.h"
#include "tp-format.h"

/*
 * libtraceevent 1.7.1 (Debian 12) leaks a few bytes of a token in tep_parse_format() on some malformed field
 * lines (tests/fuzz/crashes/tp-format/, docs/reliability.md): not our leak, and at most once per format file
 * at start-up. LeakSanitizer calls this (weak) hook for its default suppressions, under libFuzzer and in the
 * ASan replay driver alike; leaks from our own code are still reported.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) {
        return "leak:libtraceevent.so\n";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_free_ char *error = NULL, *text = NULL;
        SchedEventType type;
        TpFormat f = {}, untouched;
        int r;

        if (size < 1)
                return 0;
        type = (SchedEventType) (data[0] % _SCHED_EVENT_TYPE_MAX);
        /* Exact size, no NUL: the parser is given a size and must not read past it. */
        text = malloc(size - 1 > 0 ? size - 1 : 1);
        if (!text)
                return 0;
        memcpy(text, data + 1, size - 1);
        untouched = f;

        r = tp_format_parse_event(&f, type, 42, "fuzz/format", text, size - 1, &error);
        FUZZ_ASSERT(r == 0 || r == -EBADMSG || r == -ENOMEM);
        if (r == -EBADMSG)
                FUZZ_ASSERT(error);
        if (r < 0)
                FUZZ_ASSERT(memcmp(&f, &untouched, sizeof(f)) == 0);
        else
                FUZZ_ASSERT(f.events[type].present && f.events[type].id == 42);
        return 0;
}
