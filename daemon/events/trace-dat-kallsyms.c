/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace-dat-kallsyms.c: a .dat opened without parsing its kallsyms (daemon/events/trace-dat-kallsyms.h).
 *
 * tracecmd_open_fd() always hands the file's copy of /proc/kallsyms to libtraceevent's tep_parse_kallsyms()
 * (libtracecmd 3.1, lib/trace-cmd/trace-input.c: tracecmd_read_headers() → read_proc_kallsyms()), which runs an
 * sscanf() and registers a function per symbol: ~450 M instructions for this VM's ~150,000 symbols, 60-80 ms,
 * as long as the model takes for a million events. libtracecmd has no open flag to skip it (3.1's flags are
 * the plugin ones only). Replay never prints a function name (it decodes the sched records' fields, tp-decode.c),
 * so while a .dat is opened the text is dropped: this definition interposes on libtraceevent's, since the dynamic
 * linker looks a shared library's undefined symbols up in the executable first (ld exports a symbol a library
 * of the link refers to). At any other time it passes the text on to libtraceevent's.
 */

#include <dlfcn.h>
#include <stdbool.h>

#include <event-parse.h>

#include "trace-dat-kallsyms.h"

static bool skip_kallsyms;

void trace_dat_kallsyms_skip(bool skip) {
        skip_kallsyms = skip;
}

int tep_parse_kallsyms(struct tep_handle *tep, const char *kallsyms) {
        static int (*parse)(struct tep_handle *, const char *);

        if (skip_kallsyms)
                return 0;
        if (!parse)
                parse = (int (*)(struct tep_handle *, const char *)) dlsym(RTLD_NEXT, "tep_parse_kallsyms");
        return parse ? parse(tep, kallsyms) : -1;
}
