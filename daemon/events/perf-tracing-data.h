/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The tracing data a perf.data carries (its HEADER_TRACING_DATA feature section, or a PERF_RECORD_HEADER_TRACING_DATA
 * record in pipe mode): the layout trace-cmd writes too (tools/perf/util/trace-event-info.c writes it,
 * trace-event-read.c reads it):
 *
 *   "\027\010\104tracing"  version "0.6\0"  u8 big_endian  u8 long_size  u32 page_size
 *   "header_page\0" u64 size, text     "header_event\0" u64 size, text
 *   u32 n_ftrace   { u64 size, format text } × n_ftrace
 *   u32 n_systems  { "system\0", u32 n_events, { u64 size, format text } × n_events } × n_systems
 *   u32 size, kallsyms     u32 size, printk formats     (version >= 0.6) u64 size, saved cmdlines
 *
 * with every number in the recording machine's byte order. The event format files are those of the kernel that
 * recorded the file, which is what makes decoding its raw samples sound: the local tracefs is never read for a
 * recording. Pure: no I/O.
 */

#include <stddef.h>
#include <stdint.h>

#include "tp-format.h"

/*
 * Parses the tracing data at @p (@size bytes) into the layouts of the modelled events it has formats for
 * (tp_format_parse_event(): the same checks as the live daemon's tracefs formats); an event it has no format for
 * is left with present = false. @where names the section in messages ("FILE: tracing data"). Returns 0, or
 * -EBADMSG with *ret_error (if non-NULL) a malloc'd "WHERE: reason" naming the byte offset inside the section
 * (truncated, another byte order, a format the decoder cannot read), -ENOMEM. @ret is only written on success.
 */
int perf_tracing_data_parse(const uint8_t *p, size_t size, const char *where, TpFormat *ret, char **ret_error);
