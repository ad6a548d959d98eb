/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * A trace-cmd .dat file (`trace-cmd record`, the file KernelShark reads): its binary records of the sched
 * tracepoints, read with libtracecmd (a version 6 file's ring-buffer pages directly, with libtraceevent's kbuffer:
 * trace-dat.c) and decoded as the live daemon decodes a perf ring's (tp-decode.c), with the
 * event formats the file itself holds (the recording kernel's: tp_format_from_tep()). No text on the way. Every
 * buffer of the file (the top one, those of `trace-cmd record -B`) in one time order, as `trace-cmd report`
 * shows them. Record times are the trace clock's ns (trace-cmd's default clock, "local").
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "macro.h"
#include "sched-event.h"

/* The first bytes of every .dat (tracecmd/trace-output.c, the "tracing" magic after 0x17 0x08 0x44). */
#define TRACE_DAT_MAGIC "\027\010\104tracing"
#define TRACE_DAT_MAGIC_LEN 10

typedef struct TraceDat TraceDat;

/*
 * Opens the .dat on @fd (a regular file: libtracecmd seeks; @fd is not taken, it may be closed after). Returns 0,
 * or -EBADMSG/-ENOMEM/-errno with *ret_error a malloc'd reason (a truncated or corrupt file, the formats of
 * modelled events in a shape the decoder cannot read).
 */
int trace_dat_open(int fd, TraceDat **ret, char **ret_error);
TraceDat *trace_dat_free(TraceDat *d);
DEFINE_TRIVIAL_CLEANUP_FUNC(TraceDat *, trace_dat_free);

/*
 * Called for each record, in time order: @ev is the decoded event (with time_ns, cpu and the context pid set), or
 * NULL for a record of an event not modelled; @index counts records from 1; @lost is how many events the kernel
 * dropped on that CPU just before it (UINT64_MAX when the count is unknown), 0 mostly. A negative return stops
 * the iteration and is returned.
 */
typedef int (*TraceDatHandler)(const SchedEvent *ev, uint64_t index, uint64_t lost, void *userdata);

/*
 * Runs @handler over the records not handed out yet, in time order. A negative return of the handler stops the
 * iteration after its record, and is returned: a later call goes on from the next record (replay reads ahead to
 * measure the tick, then replays). Returns 0 at the end, the handler's error, or -EBADMSG with *ret_reason a
 * malloc'd reason (a record of a modelled event shorter than its format, a __data_loc pointing outside it);
 * *ret_index is the last record handed out (or refused), counted from 1 over every call.
 */
int trace_dat_iterate(TraceDat *d, TraceDatHandler handler, void *userdata, uint64_t *ret_index, char **ret_reason);

/* Whether @head (the first @size bytes of a file) starts like a .dat. */
bool trace_dat_magic(const void *head, size_t size);
