/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * uevent_parse(), the kobject uevent decoder, on one arbitrary message. Contract (include/events.h): 0 with
 * a CPU number <= UEVENT_CPU_MAX whose DEVPATH and action are in the message, -ENOMSG or -EBADMSG; @ret is
 * only written on success. The input buffer is exactly @size bytes (libFuzzer's, or the replay driver's
 * heap copy), so ASan catches any read past the message.
 */

#include <stdio.h>
#include <string.h>

#include "events.h"
#include "fuzz.h"

/* Whether @needle (a C string) occurs in @data[0..size) as a whole NUL-terminated variable. */
static bool has_variable(const uint8_t *data, size_t size, const char *needle) {
        size_t len = strlen(needle) + 1; /* with its NUL */

        for (size_t i = 0; i + len <= size; i++)
                if ((i == 0 || data[i - 1] == '\0') && memcmp(data + i, needle, len) == 0)
                        return true;
        return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        UEventCpu ev, untouched;
        int r;

        memset(&ev, 0xa5, sizeof(ev));
        untouched = ev;

        r = uevent_parse(data, size, &ev);
        FUZZ_ASSERT(r == 0 || r == -ENOMSG || r == -EBADMSG);
        if (r == 0) {
                char devpath[64];

                FUZZ_ASSERT(ev.cpu <= UEVENT_CPU_MAX);
                snprintf(devpath, sizeof(devpath), "DEVPATH=/devices/system/cpu/cpu%u", ev.cpu);
                FUZZ_ASSERT(has_variable(data, size, devpath));
                FUZZ_ASSERT(has_variable(data, size, ev.online ? "ACTION=online" : "ACTION=offline"));
                FUZZ_ASSERT(has_variable(data, size, "SUBSYSTEM=cpu"));
        } else
                FUZZ_ASSERT(memcmp(&ev, &untouched, sizeof(ev)) == 0);
        return 0;
}
