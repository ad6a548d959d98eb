/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * Whether libtracecmd's open of a .dat skips parsing the file's kallsyms (trace-dat-kallsyms.c: replay never
 * prints a symbol, and the parse costs as much as a million events). trace_dat_open() sets it around its
 * tracecmd_open_fd(); otherwise tep_parse_kallsyms() is libtraceevent's.
 */

#include <stdbool.h>

void trace_dat_kallsyms_skip(bool skip);
