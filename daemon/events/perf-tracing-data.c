/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf-tracing-data.c: a perf.data's tracing data → TpFormat (daemon/events/perf-tracing-data.h). Walks the layout
 * tools/perf/util/trace-event-read.c reads (trace_report(): read_header_files(), read_ftrace_files(),
 * read_event_files(), read_proc_kallsyms(), read_ftrace_printk(), read_saved_cmdline()), bounds-checked at every
 * step; the event format files of the modelled events go to tp_format_parse_event(), the parser of the live
 * daemon's tracefs formats, with the id their own "ID:" line gives. Everything else (header_page, ftrace formats,
 * other events, kallsyms, printk formats, cmdlines) is only skipped.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "perf-tracing-data.h"

/* The tracing data's magic: trace-event-info.c tracing_data_header(), "\027\010\104tracing". */
#define TRACING_MAGIC "\027\010\104tracing"
#define TRACING_MAGIC_LEN 10
/* The most systems and events per system a real kernel has (6.18: ~130 systems, sched ~30 events), with room. */
#define TRACING_COUNT_MAX 65536U

typedef struct Cursor {
        const uint8_t *p;
        size_t size, off;
        const char *where;
        char **ret_error;
} Cursor;

_printf_(2, 3) static int cursor_error(Cursor *c, const char *format, ...) {
        char reason[256];
        va_list ap;

        if (!c->ret_error)
                return -EBADMSG;
        va_start(ap, format);
        (void) vsnprintf(reason, sizeof(reason), format, ap);
        va_end(ap);
        if (asprintf(c->ret_error, "%s, byte %zu of it: %s", c->where, c->off, reason) < 0) {
                *c->ret_error = NULL;
                return -ENOMEM;
        }
        return -EBADMSG;
}

/* @n bytes at the cursor into @dst (NULL: skipped); -EBADMSG naming @what when the section ends first. */
static int cursor_take(Cursor *c, void *dst, uint64_t n, const char *what) {
        if (n > c->size - c->off)
                return cursor_error(c, "truncated: %s of %" PRIu64 " bytes, %zu left", what, n, c->size - c->off);
        if (dst)
                memcpy(dst, c->p + c->off, (size_t) n);
        c->off += (size_t) n;
        return 0;
}

/* A NUL-terminated string at the cursor (pointing into the section); -EBADMSG if it runs off the end. */
static int cursor_string(Cursor *c, const char **ret, const char *what) {
        const char *s = (const char *) c->p + c->off;
        const char *nul = memchr(s, '\0', c->size - c->off);

        if (!nul)
                return cursor_error(c, "truncated: %s without its terminating NUL", what);
        *ret = s;
        c->off += (size_t) (nul - s) + 1;
        return 0;
}

/* "header_page\0" or "header_event\0", then u64 size and that many bytes: checked and skipped. */
static int skip_header_file(Cursor *c, const char *name) {
        const char *got = NULL;
        uint64_t size = 0;
        int r;

        r = cursor_string(c, &got, name);
        if (r < 0)
                return r;
        if (!streq(got, name))
                return cursor_error(c, "expected \"%s\", found \"%.32s\"", name, got);
        r = cursor_take(c, &size, sizeof(size), "a file size");
        if (r < 0)
                return r;
        return cursor_take(c, NULL, size, name);
}

/* u32 count, then count × { u64 size, bytes }: the ftrace formats (read_ftrace_files()). */
static int skip_sized_files(Cursor *c, const char *what) {
        uint32_t n = 0;
        int r;

        r = cursor_take(c, &n, sizeof(n), "a file count");
        if (r < 0)
                return r;
        if (n > TRACING_COUNT_MAX)
                return cursor_error(c, "%" PRIu32 " %s files: not a count a kernel writes", n, what);
        for (uint32_t i = 0; i < n; i++) {
                uint64_t size = 0;

                r = cursor_take(c, &size, sizeof(size), "a file size");
                if (r < 0)
                        return r;
                r = cursor_take(c, NULL, size, what);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The value after "KEY" at the start of a line of @text (@size bytes), up to the line's end, into @buf. */
static bool format_line_value(const char *text, size_t size, const char *key, char *buf, size_t buf_size) {
        size_t n = strlen(key);

        for (size_t i = 0; i + n <= size; i++) {
                const char *eol;
                size_t len;

                if ((i > 0 && text[i - 1] != '\n') || memcmp(text + i, key, n) != 0)
                        continue;
                eol = memchr(text + i + n, '\n', size - i - n);
                if (!eol)
                        return false;
                len = (size_t) (eol - (text + i + n));
                if (len == 0 || len >= buf_size)
                        return false;
                memcpy(buf, text + i + n, len);
                buf[len] = '\0';
                return true;
        }
        return false;
}

/* The modelled event @system/@name is, or _SCHED_EVENT_TYPE_INVALID. */
static SchedEventType modelled_type(const char *system, const char *name) {
        for (SchedEventType t = 0; t < _SCHED_EVENT_TYPE_MAX; t++)
                if (streq(system, sched_event_type_subsystem(t)) && streq(name, sched_event_type_to_string(t)))
                        return t;
        return _SCHED_EVENT_TYPE_INVALID;
}

/*
 * One event format file of @system (@size bytes at the cursor): a modelled event's goes to
 * tp_format_parse_event() with the id of its "ID:" line, named "WHERE, SYSTEM/NAME format" in its messages.
 */
static int parse_event_file(Cursor *c, const char *system, uint64_t size, TpFormat *f) {
        const char *text = (const char *) c->p + c->off;
        _cleanup_free_ char *path = NULL;
        char name[64], id_text[16];
        SchedEventType type;
        unsigned long id;
        char *end;
        int r;

        r = cursor_take(c, NULL, size, "an event format file");
        if (r < 0)
                return r;
        /* An event that is not modelled, or a file without a name line, is none of ours: skipped. */
        if (!format_line_value(text, (size_t) size, "name: ", name, sizeof(name)))
                return 0;
        type = modelled_type(system, name);
        if (type < 0)
                return 0;
        if (f->events[type].present) {
                c->off -= (size_t) size;
                return cursor_error(c, "a second format of %s/%s", system, name);
        }
        errno = 0;
        if (!format_line_value(text, (size_t) size, "ID: ", id_text, sizeof(id_text)) ||
            (id = strtoul(id_text, &end, 10), errno != 0 || *end != '\0' || id_text[0] == '-' || id > UINT32_MAX)) {
                c->off -= (size_t) size;
                return cursor_error(c, "the format of %s/%s has no valid \"ID:\" line", system, name);
        }
        if (asprintf(&path, "%s, %s/%s format", c->where, system, name) < 0)
                return -ENOMEM;
        return tp_format_parse_event(f, type, (uint32_t) id, path, text, (size_t) size, c->ret_error);
}

/* u32 n_systems { "system\0", u32 n_events { u64 size, text } } (read_event_files()). */
static int parse_event_files(Cursor *c, TpFormat *f) {
        uint32_t n_systems = 0;
        int r;

        r = cursor_take(c, &n_systems, sizeof(n_systems), "the system count");
        if (r < 0)
                return r;
        if (n_systems > TRACING_COUNT_MAX)
                return cursor_error(c, "%" PRIu32 " systems: not a count a kernel writes", n_systems);
        for (uint32_t s = 0; s < n_systems; s++) {
                const char *system = NULL;
                uint32_t n_events = 0;

                r = cursor_string(c, &system, "a system name");
                if (r < 0)
                        return r;
                r = cursor_take(c, &n_events, sizeof(n_events), "an event count");
                if (r < 0)
                        return r;
                if (n_events > TRACING_COUNT_MAX)
                        return cursor_error(c, "%" PRIu32 " events in %s: not a count a kernel writes", n_events,
                                            system);
                for (uint32_t e = 0; e < n_events; e++) {
                        uint64_t size = 0;

                        r = cursor_take(c, &size, sizeof(size), "a format file size");
                        if (r < 0)
                                return r;
                        r = parse_event_file(c, system, size, f);
                        if (r < 0)
                                return r;
                }
        }
        return 0;
}

/* The magic, the version, the byte order (the host's only: the decoder reads integers in host order). */
static int parse_preamble(Cursor *c, bool *ret_has_cmdlines) {
        const uint16_t one = 1;
        const char *version = NULL;
        uint8_t big_endian = 0, long_size = 0;
        uint32_t page_size = 0;
        int r;

        if (c->size < TRACING_MAGIC_LEN || memcmp(c->p, TRACING_MAGIC, TRACING_MAGIC_LEN) != 0)
                return cursor_error(c, "not tracing data (no \"\\027\\010\\104tracing\" magic)");
        c->off = TRACING_MAGIC_LEN;
        r = cursor_string(c, &version, "the version");
        if (r < 0)
                return r;
        r = cursor_take(c, &big_endian, 1, "the byte order");
        if (r < 0)
                return r;
        if (big_endian != (*(const uint8_t *) &one == 0))
                return cursor_error(c, "recorded on a machine of the other byte order: not supported");
        r = cursor_take(c, &long_size, 1, "the long size");
        if (r >= 0)
                r = cursor_take(c, &page_size, sizeof(page_size), "the page size");
        if (r < 0)
                return r;
        /* trace_report(): the saved cmdlines come from version 0.6 on. */
        *ret_has_cmdlines = strtod(version, NULL) >= 0.6;
        return 0;
}

/* kallsyms and printk formats (u32 size each), then from 0.6 the saved cmdlines (u64 size). */
static int skip_trailer(Cursor *c, bool has_cmdlines) {
        uint32_t size32 = 0;
        uint64_t size64 = 0;
        int r;

        for (int i = 0; i < 2; i++) {
                r = cursor_take(c, &size32, sizeof(size32), i == 0 ? "the kallsyms size" : "the printk size");
                if (r >= 0)
                        r = cursor_take(c, NULL, size32, i == 0 ? "kallsyms" : "printk formats");
                if (r < 0)
                        return r;
        }
        if (!has_cmdlines)
                return 0;
        r = cursor_take(c, &size64, sizeof(size64), "the saved cmdlines size");
        if (r >= 0)
                r = cursor_take(c, NULL, size64, "saved cmdlines");
        return r;
}

int perf_tracing_data_parse(const uint8_t *p, size_t size, const char *where, TpFormat *ret, char **ret_error) {
        Cursor c = { .p = p, .size = size, .where = where, .ret_error = ret_error };
        TpFormat f = {};
        bool has_cmdlines = false;
        int r;

        r = parse_preamble(&c, &has_cmdlines);
        if (r >= 0)
                r = skip_header_file(&c, "header_page");
        if (r >= 0)
                r = skip_header_file(&c, "header_event");
        if (r >= 0)
                r = skip_sized_files(&c, "ftrace format");
        if (r >= 0)
                r = parse_event_files(&c, &f);
        if (r >= 0)
                r = skip_trailer(&c, has_cmdlines);
        if (r < 0)
                return r;
        *ret = f;
        return 0;
}
