/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * proc_event_parse(), the proc connector's pure decoder, on one arbitrary netlink message. Contract
 * (include/events.h): 0 with a decoded (never synthetic) type, -EBADMSG or -ENOMSG; @ret is only written
 * on success. The input buffer is exactly @size bytes (libFuzzer's, or the replay driver's heap copy), so
 * ASan catches any read past the message.
 */

#include <string.h>

#include "events.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        ProcEvent ev, untouched;
        int r;

        memset(&ev, 0xa5, sizeof(ev));
        untouched = ev;

        r = proc_event_parse(data, size, &ev);
        FUZZ_ASSERT(r == 0 || r == -EBADMSG || r == -ENOMSG);
        if (r == 0)
                FUZZ_ASSERT(ev.type < _PROC_EVENT_TYPE_MAX && ev.type != PROC_EVENT_TYPE_RESCAN);
        else
                FUZZ_ASSERT(memcmp(&ev, &untouched, sizeof(ev)) == 0);
        return 0;
}
