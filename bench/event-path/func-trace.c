/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench/func-trace.c: -finstrument-functions hooks for bench/event-path.sh (issue #26 item 5). Linked into a
 * schedfreqd built with every daemon object instrumented, it writes each function entry and exit, as "E OFFSET"
 * and "X OFFSET" (the function's offset in the executable, which addr2line turns into a name and a file), to the
 * file named by $SCHEDFREQD_FUNC_TRACE. Single-threaded like the daemon's paths it measures; nothing here is
 * instrumented itself.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr() */
#endif
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NO_TRACE __attribute__((no_instrument_function))

static FILE *trace_out;
static uintptr_t trace_base;
static int trace_state; /* 0: not opened yet, 1: writing, -1: off */

NO_TRACE static int trace_open(void *fn) {
        const char *path = getenv("SCHEDFREQD_FUNC_TRACE");
        Dl_info info;

        trace_state = -1;
        if (!path || !dladdr(fn, &info))
                return -1;
        trace_out = fopen(path, "we");
        if (!trace_out)
                return -1;
        trace_base = (uintptr_t) info.dli_fbase;
        trace_state = 1;
        return 0;
}

NO_TRACE static void trace_write(char kind, void *fn) {
        if (trace_state == 0 && trace_open(fn) < 0)
                return;
        if (trace_state > 0)
                fprintf(trace_out, "%c %lx\n", kind, (unsigned long) ((uintptr_t) fn - trace_base));
}

NO_TRACE void __cyg_profile_func_enter(void *fn, void *call_site);
NO_TRACE void __cyg_profile_func_exit(void *fn, void *call_site);

void __cyg_profile_func_enter(void *fn, void *call_site) {
        (void) call_site;
        trace_write('E', fn);
}

void __cyg_profile_func_exit(void *fn, void *call_site) {
        (void) call_site;
        trace_write('X', fn);
}
