/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tp-format.c: tracefs events/sched/<name>/{id,format} → TpFormat. libtraceevent parses the text (fields and
 * the print fmt); we keep only plain offsets, sizes and flags, so the hot path (tp-decode.c) needs neither
 * libtraceevent nor I/O. The print fmt of sched_switch gives the prev_state "preempted" bit. Which fields each
 * event must have follows include/trace/events/sched.h; shared/reference/schedutil.md §6 lists how they
 * changed. Errors are returned with a "PATH: reason" message, never logged here.
 */

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>

#include "macro.h"
#include "print-fmt.h"
#include "tp-format.h"

#define FORMAT_FILE_MAX (256u * 1024u)  /* format files are ~1-4 KiB; anything this big is not one */
#define REASON_MAX 256

static const char *const field_names[_TP_FIELD_MAX] = {
        [TP_FIELD_COMM] = "comm",
        [TP_FIELD_PID] = "pid",
        [TP_FIELD_PRIO] = "prio",
        [TP_FIELD_TARGET_CPU] = "target_cpu",
        [TP_FIELD_ORIG_CPU] = "orig_cpu",
        [TP_FIELD_DEST_CPU] = "dest_cpu",
        [TP_FIELD_RUNTIME] = "runtime",
        [TP_FIELD_DELAY] = "delay",
        [TP_FIELD_PREV_COMM] = "prev_comm",
        [TP_FIELD_PREV_PID] = "prev_pid",
        [TP_FIELD_PREV_PRIO] = "prev_prio",
        [TP_FIELD_PREV_STATE] = "prev_state",
        [TP_FIELD_NEXT_COMM] = "next_comm",
        [TP_FIELD_NEXT_PID] = "next_pid",
        [TP_FIELD_NEXT_PRIO] = "next_prio",
        [TP_FIELD_STATE] = "state",
        [TP_FIELD_CPU_ID] = "cpu_id",
        [TP_FIELD_SUCCESS] = "success",
        [TP_FIELD_VRUNTIME] = "vruntime",
        [TP_FIELD_GROUP_DEAD] = "group_dead",
};

/* The fields each event must (or may) have: the TP_STRUCT__entry blocks of include/trace/events/sched.h. */
static const struct {
        SchedEventType type;
        TpFieldId field;
        bool optional;
} event_fields[] = {
        { SCHED_EVENT_SWITCH, TP_FIELD_PREV_COMM },      { SCHED_EVENT_SWITCH, TP_FIELD_PREV_PID },
        { SCHED_EVENT_SWITCH, TP_FIELD_PREV_PRIO },      { SCHED_EVENT_SWITCH, TP_FIELD_PREV_STATE },
        { SCHED_EVENT_SWITCH, TP_FIELD_NEXT_COMM },      { SCHED_EVENT_SWITCH, TP_FIELD_NEXT_PID },
        { SCHED_EVENT_SWITCH, TP_FIELD_NEXT_PRIO },
        { SCHED_EVENT_WAKEUP, TP_FIELD_COMM },           { SCHED_EVENT_WAKEUP, TP_FIELD_PID },
        { SCHED_EVENT_WAKEUP, TP_FIELD_PRIO },           { SCHED_EVENT_WAKEUP, TP_FIELD_TARGET_CPU },
        { SCHED_EVENT_WAKEUP, TP_FIELD_SUCCESS, true },
        { SCHED_EVENT_WAKEUP_NEW, TP_FIELD_COMM },       { SCHED_EVENT_WAKEUP_NEW, TP_FIELD_PID },
        { SCHED_EVENT_WAKEUP_NEW, TP_FIELD_PRIO },       { SCHED_EVENT_WAKEUP_NEW, TP_FIELD_TARGET_CPU },
        { SCHED_EVENT_WAKEUP_NEW, TP_FIELD_SUCCESS, true },
        { SCHED_EVENT_MIGRATE, TP_FIELD_COMM },          { SCHED_EVENT_MIGRATE, TP_FIELD_PID },
        { SCHED_EVENT_MIGRATE, TP_FIELD_PRIO },          { SCHED_EVENT_MIGRATE, TP_FIELD_ORIG_CPU },
        { SCHED_EVENT_MIGRATE, TP_FIELD_DEST_CPU },
        { SCHED_EVENT_EXIT, TP_FIELD_COMM },             { SCHED_EVENT_EXIT, TP_FIELD_PID },
        { SCHED_EVENT_EXIT, TP_FIELD_PRIO },             { SCHED_EVENT_EXIT, TP_FIELD_GROUP_DEAD, true },
        { SCHED_EVENT_RUNTIME, TP_FIELD_COMM },          { SCHED_EVENT_RUNTIME, TP_FIELD_PID },
        { SCHED_EVENT_RUNTIME, TP_FIELD_RUNTIME },       { SCHED_EVENT_RUNTIME, TP_FIELD_VRUNTIME, true },
        /* sched_stat_template: comm (char[16], __data_loc since 6.x like sched_stat_runtime), pid, delay. */
        { SCHED_EVENT_STAT_IOWAIT, TP_FIELD_COMM },      { SCHED_EVENT_STAT_IOWAIT, TP_FIELD_PID },
        { SCHED_EVENT_STAT_IOWAIT, TP_FIELD_DELAY },
        /* include/trace/events/power.h, DECLARE_EVENT_CLASS(cpu): u32 state, u32 cpu_id. */
        { SCHED_EVENT_CPU_FREQUENCY, TP_FIELD_STATE },  { SCHED_EVENT_CPU_FREQUENCY, TP_FIELD_CPU_ID },
};

const char *tp_field_id_to_string(TpFieldId id) {
        if (id < 0 || id >= _TP_FIELD_MAX)
                return NULL;
        return field_names[id];
}

static bool field_is_string(TpFieldId id) {
        return id == TP_FIELD_COMM || id == TP_FIELD_PREV_COMM || id == TP_FIELD_NEXT_COMM;
}

static bool int_size_ok(uint16_t size) {
        return size == 1 || size == 2 || size == 4 || size == 8;
}

static void tep_freep(struct tep_handle **tep) {
        if (*tep)
                tep_free(*tep);
}

_printf_(4, 5) static int set_error(char **ret_error, int r, const char *path, const char *format, ...) {
        char reason[REASON_MAX];
        va_list ap;

        if (!ret_error)
                return r;
        va_start(ap, format);
        (void) vsnprintf(reason, sizeof(reason), format, ap);
        va_end(ap);
        if (asprintf(ret_error, "%s: %s", path, reason) < 0) {
                *ret_error = NULL;
                return -ENOMEM;
        }
        return r;
}

/* Copies one field's layout out of libtraceevent and checks it has the shape the decoder expects. */
static int field_from_tep(const struct tep_format_field *fl, bool string, TpField *ret, char *reason) {
        TpField t = {
                .present = true,
                .is_signed = fl->flags & TEP_FIELD_IS_SIGNED,
                .data_loc = fl->flags & TEP_FIELD_IS_DYNAMIC,
                .rel_loc = fl->flags & TEP_FIELD_IS_RELATIVE,
        };
        bool ok;

        /* A perf record's size is a u16 (struct perf_event_header), so must be every offset in it. */
        if (fl->offset < 0 || fl->size <= 0 || fl->offset + fl->size > UINT16_MAX) {
                snprintf(reason, REASON_MAX, "field '%s' has offset %d and size %d", fl->name, fl->offset,
                         fl->size);
                return -EBADMSG;
        }
        t.offset = (uint16_t) fl->offset;
        t.size = (uint16_t) fl->size;

        if (string)
                ok = t.data_loc ? t.size == 4 : (fl->flags & TEP_FIELD_IS_ARRAY);
        else
                ok = !t.data_loc && !(fl->flags & TEP_FIELD_IS_ARRAY) && int_size_ok(t.size);
        if (!ok) {
                snprintf(reason, REASON_MAX, "field '%s' is '%s' of size %d, not %s", fl->name, fl->type,
                         fl->size, string ? "a char array or __data_loc string" : "an integer");
                return -EBADMSG;
        }
        *ret = t;
        return 0;
}

static int event_fields_from_tep(struct tep_event *event, SchedEventType type, TpEvent *ev, char *reason) {
        unsigned min_size = 0;
        int r;

        for (size_t i = 0; i < ELEMENTSOF(event_fields); i++) {
                TpFieldId id = event_fields[i].field;
                struct tep_format_field *fl;

                if (event_fields[i].type != type)
                        continue;
                fl = tep_find_field(event, field_names[id]);
                if (!fl) {
                        if (event_fields[i].optional)
                                continue;
                        snprintf(reason, REASON_MAX, "no field '%s'", field_names[id]);
                        return -EBADMSG;
                }
                r = field_from_tep(fl, field_is_string(id), &ev->fields[id], reason);
                if (r < 0)
                        return r;
                if (!event_fields[i].optional)
                        min_size = MAX(min_size, (unsigned) ev->fields[id].offset + ev->fields[id].size);
        }
        ev->min_size = (uint16_t) min_size;
        return 0;
}

/* The preempted bit from sched_switch's print fmt, read by print-fmt.c (libtraceevent never parses it). */
static int derive_preempt_mask(const char *text, size_t size, uint64_t *ret, char *reason) {
        const char *fmt = memmem(text, size, "\nprint fmt: ", 12), *end;

        fmt += 12;
        end = memchr(fmt, '\n', (size_t) (text + size - fmt)); /* check_complete(): the last line ends in '\n' */
        if (!end || print_fmt_preempt_mask(fmt, (size_t) (end - fmt), ret) < 0 || *ret == 0) {
                snprintf(reason, REASON_MAX,
                         "cannot derive the prev_state preempted bit (TASK_REPORT_MAX) from the print fmt");
                return -EBADMSG;
        }
        return 0;
}

/*
 * libtraceevent accepts a file cut short (it just stops), so check the end ourselves: the kernel writes the
 * print fmt line last, newline-terminated (kernel/trace/trace_events.c f_show()).
 */
static int check_complete(const char *text, size_t size, char *reason) {
        if (!memmem(text, size, "\nprint fmt: ", 12)) {
                snprintf(reason, REASON_MAX, "truncated or not a format file (no 'print fmt:' line)");
                return -EBADMSG;
        }
        if (text[size - 1] != '\n') {
                snprintf(reason, REASON_MAX, "truncated (the last line is incomplete)");
                return -EBADMSG;
        }
        return 0;
}

/*
 * The shape the kernel writes (kernel/trace/trace_events.c, f_show()): "name: NAME", "ID: N", "format:", one
 * "\tfield:DECL;\toffset:N;\tsize:N;\tsigned:N;" per field with a blank line after the common fields, and
 * "print fmt: FMT" last, all printable ASCII. Anything else is refused before libtraceevent sees it: Debian 12's
 * libtraceevent 1.7 crashes on some malformed text (a NUL in a field line; in print fmts, which it no longer
 * parses at all (without_print_fmt()), a division by zero folding `"",R%C`, an index like `m[6];`: the
 * tests/fuzz/corpus/tp-format/crash-* inputs, docs/reliability.md). The print fmt keeps the kernel's shape too.
 */
static bool decl_plausible(const char *p, const char *end) {
        bool in_brackets = false, space = false;

        for (; p < end; p++) {
                if (*p == '[') {
                        if (in_brackets)
                                return false;
                        in_brackets = true;
                } else if (*p == ']') {
                        if (!in_brackets)
                                return false;
                        in_brackets = false;
                } else if (in_brackets ? !isdigit((unsigned char) *p) :
                           !(isalnum((unsigned char) *p) || *p == '_' || *p == ' ' || *p == '*'))
                        return false;
                space = space || *p == ' ';
        }
        return !in_brackets && space;
}

static bool field_line_plausible(const char *line, const char *end) {
        static const char *const keys[] = { ";\toffset:", ";\tsize:", ";\tsigned:" };
        const char *p = line + strlen("\tfield:"), *semi;

        if ((size_t) (end - line) < strlen("\tfield:") || strncmp(line, "\tfield:", strlen("\tfield:")) != 0)
                return false;
        semi = memchr(p, ';', (size_t) (end - p));
        if (!semi || !decl_plausible(p, semi))
                return false;
        p = semi;
        for (size_t i = 0; i < ELEMENTSOF(keys); i++) {
                size_t n = strlen(keys[i]);

                if ((size_t) (end - p) < n || strncmp(p, keys[i], n) != 0)
                        return false;
                p += n;
                if (*p == '-')
                        p++;
                if (p == end || !isdigit((unsigned char) *p))
                        return false;
                while (p < end && isdigit((unsigned char) *p))
                        p++;
        }
        return end - p == 1 && *p == ';';
}

/* A quoted format string, then arguments: outside quotes only what C expressions of REC fields need. */
static bool print_fmt_plausible(const char *p, const char *end) {
        bool quoted = false, first = true;

        p += strlen("print fmt: ");
        if (p == end || *p != '"')
                return false;
        for (; p < end; p++) {
                if (quoted) {
                        if (*p == '\\' && p + 1 < end)
                                p++;
                        else if (*p == '"')
                                quoted = false;
                        continue;
                }
                if (*p == '"') {
                        quoted = true;
                        first = false;
                        continue;
                }
                if (!isalnum((unsigned char) *p) && !strchr(" \t,()&|<>?:!=+-*{}~^._'", *p))
                        return false;
        }
        return !quoted && !first;
}

static int check_shape(const char *text, size_t size, char *reason) {
        const char *line = text, *end = text + size, *nl;
        unsigned n = 0;

        for (size_t i = 0; i < size; i++)
                if (!((text[i] >= 0x20 && text[i] < 0x7f) || text[i] == '\t' || text[i] == '\n')) {
                        snprintf(reason, REASON_MAX, "not text: byte 0x%02x at offset %zu", (unsigned char) text[i], i);
                        return -EBADMSG;
                }
        for (; line < end; line = nl + 1) {
                bool ok;

                nl = memchr(line, '\n', (size_t) (end - line));
                if (!nl)
                        nl = end; /* check_complete() has refused an unterminated last line already */
                n++;
                if (n == 1)
                        ok = nl - line > 6 && strncmp(line, "name: ", 6) == 0;
                else if (n == 2)
                        ok = nl - line > 4 && strncmp(line, "ID: ", 4) == 0;
                else if (n == 3)
                        ok = nl - line == 7 && strncmp(line, "format:", 7) == 0;
                else if (nl - line >= 11 && strncmp(line, "print fmt: ", 11) == 0)
                        ok = nl + 1 >= end && print_fmt_plausible(line, nl);
                else
                        ok = nl == line || field_line_plausible(line, nl);
                if (!ok) {
                        /* The text is not NUL-terminated: print at most the line's own bytes. */
                        snprintf(reason, REASON_MAX, "line %u is not what the kernel writes there: \"%.*s%s\"", n,
                                 (int) MIN(nl - line, 40), line, nl - line > 40 ? "…" : "");
                        return -EBADMSG;
                }
        }
        return 0;
}

/*
 * @text with an empty print fmt, for libtraceevent: its parser of print fmts crashes on some malformed input
 * (docs/reliability.md), and the one thing read from a print fmt, sched_switch's preempted bit, is read from the
 * text by print-fmt.c. check_complete() has found the print fmt line.
 */
static int without_print_fmt(const char *text, size_t size, char **ret, size_t *ret_size) {
        const char *fmt = memmem(text, size, "\nprint fmt: ", 12);
        size_t head = (size_t) (fmt - text) + 12;
        char *buf;

        buf = malloc(head + 3);
        if (!buf)
                return -ENOMEM;
        memcpy(buf, text, head);
        memcpy(buf + head, "\"\"\n", 3);
        *ret = buf;
        *ret_size = head + 3;
        return 0;
}

static int parse_with_tep(struct tep_handle *tep, SchedEventType type, uint32_t id, const char *text, size_t size,
                          struct tep_event **ret, char *reason) {
        const char *name = sched_event_type_to_string(type);
        struct tep_event *event = NULL;
        char buf[REASON_MAX / 2];
        _cleanup_free_ char *fields_only = NULL;
        enum tep_errno e;
        int r;

        r = check_complete(text, size, reason);
        if (r < 0)
                return r;
        r = check_shape(text, size, reason);
        if (r < 0)
                return r;
        r = without_print_fmt(text, size, &fields_only, &size);
        if (r < 0)
                return r;
        e = tep_parse_format(tep, &event, fields_only, size, sched_event_type_subsystem(type));
        if (e != 0 || !event || (event->flags & TEP_EVENT_FL_FAILED)) {
                if (e == TEP_ERRNO__MEM_ALLOC_FAILED)
                        return -ENOMEM;
                (void) tep_strerror(tep, e, buf, sizeof(buf));
                snprintf(reason, REASON_MAX, "not a valid format file (libtraceevent: %s)", e ? buf : "failed");
                return -EBADMSG;
        }
        if (!event->name || !streq(event->name, name) || event->id < 0 || (uint32_t) event->id != id) {
                snprintf(reason, REASON_MAX, "describes event '%s' ID %d, expected '%s' ID %u (from its id file)",
                         event->name ? event->name : "?", event->id, name, id);
                return -EBADMSG;
        }
        *ret = event;
        return 0;
}

/* An event's common_type field and its own fields, as libtraceevent parsed its format (tracefs or a .dat's). */
static int event_layout_from_tep(struct tep_event *event, SchedEventType type, TpField *ret_common_type, TpEvent *ev,
                                 char *reason) {
        struct tep_format_field *common = tep_find_common_field(event, "common_type");
        int r;

        if (!common) {
                snprintf(reason, REASON_MAX, "no field 'common_type'");
                return -EBADMSG;
        }
        r = field_from_tep(common, false, ret_common_type, reason);
        if (r < 0)
                return r;
        return event_fields_from_tep(event, type, ev, reason);
}

int tp_format_parse_event(TpFormat *f, SchedEventType type, uint32_t id, const char *path, const char *text,
                          size_t size, char **ret_error) {
        _cleanup_(tep_freep) struct tep_handle *tep = NULL;
        struct tep_event *event = NULL;
        char reason[REASON_MAX] = "";
        TpEvent ev = { .present = true, .id = id };
        TpField common_type = {};
        uint64_t preempt_mask = f->preempt_mask;
        int r;

        if (type < 0 || type >= _SCHED_EVENT_TYPE_MAX)
                return -EINVAL;
        tep = tep_alloc();
        if (!tep)
                return -ENOMEM;

        r = parse_with_tep(tep, type, id, text, size, &event, reason);
        if (r >= 0)
                r = event_layout_from_tep(event, type, &common_type, &ev, reason);
        if (r >= 0 && type == SCHED_EVENT_SWITCH)
                r = derive_preempt_mask(text, size, &preempt_mask, reason);
        if (r == -EBADMSG)
                return set_error(ret_error, r, path, "%s", reason);
        if (r < 0)
                return r;

        if (f->common_type.present && memcmp(&f->common_type, &common_type, sizeof(common_type)) != 0)
                return set_error(ret_error, -EBADMSG, path, "common_type differs from the other events'");
        f->common_type = common_type;
        f->events[type] = ev;
        f->preempt_mask = preempt_mask;
        return 0;
}

static int read_full(const char *path, char **ret, size_t *ret_size) {
        _cleanup_close_ int fd = -EBADF;
        _cleanup_free_ char *buf = NULL;
        size_t n = 0;

        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        /* tracefs reports st_size 0: read until EOF into a buffer of the largest plausible size. */
        buf = malloc(FORMAT_FILE_MAX + 1);
        if (!buf)
                return -ENOMEM;
        for (;;) {
                ssize_t k = read(fd, buf + n, FORMAT_FILE_MAX - n);

                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return -errno;
                if (k == 0)
                        break;
                n += (size_t) k;
                if (n == FORMAT_FILE_MAX)
                        return -EFBIG;
        }
        buf[n] = '\0';
        *ret = TAKE_PTR(buf);
        *ret_size = n;
        return 0;
}

/* analyze: false positive: load_event() passes the text read_full() set on success; gcc 12 can't tell that
 * read_full()'s -errno is < 0, so it follows a failed open() as a success with *ret unset */
ANALYZER_FALSE_POSITIVE_BEGIN("-Wanalyzer-null-argument")
static int parse_id(const char *text, uint32_t *ret) {
        unsigned long v;
        char *end;

        errno = 0;
        v = strtoul(text, &end, 10);
        if (errno != 0 || end == text || (*end != '\0' && !streq(end, "\n")) || v > UINT32_MAX ||
            text[0] == '-')
                return -EBADMSG;
        *ret = (uint32_t) v;
        return 0;
}
ANALYZER_FALSE_POSITIVE_END

/* analyze: false positive, as for parse_id(): size is set whenever read_full() succeeds */
ANALYZER_FALSE_POSITIVE_BEGIN("-Wanalyzer-use-of-uninitialized-value")
static int load_event(TpFormat *f, SchedEventType type, const char *events_dir, char **ret_error) {
        const char *name = sched_event_type_to_string(type), *sub = sched_event_type_subsystem(type);
        _cleanup_free_ char *id_path = NULL, *format_path = NULL, *id_text = NULL, *text = NULL;
        size_t size;
        uint32_t id;
        int r;

        if (asprintf(&id_path, "%s/%s/%s/id", events_dir, sub, name) < 0 ||
            asprintf(&format_path, "%s/%s/%s/format", events_dir, sub, name) < 0)
                return -ENOMEM;

        r = read_full(id_path, &id_text, &size);
        if (r == -ENOENT && sched_event_type_is_optional(type))
                return 0; /* not in this kernel: the caller sees present = false */
        if (r < 0)
                return set_error(ret_error, r, id_path, "%s", strerror(-r));
        r = parse_id(id_text, &id);
        if (r < 0)
                return set_error(ret_error, r, id_path, "not an event id");

        r = read_full(format_path, &text, &size);
        if (r < 0)
                return set_error(ret_error, r, format_path, "%s", strerror(-r));
        return tp_format_parse_event(f, type, id, format_path, text, size, ret_error);
}
ANALYZER_FALSE_POSITIVE_END

int tp_format_load(const char *events_dir, TpFormat *ret, char **ret_error) {
        TpFormat f = {};
        int r;

        for (SchedEventType t = 0; t < _SCHED_EVENT_TYPE_MAX; t++) {
                r = load_event(&f, t, events_dir, ret_error);
                if (r < 0)
                        return r;
        }
        *ret = f;
        return 0;
}

SchedEventType tp_format_type_from_id(const TpFormat *f, uint32_t id) {
        for (SchedEventType t = 0; t < _SCHED_EVENT_TYPE_MAX; t++)
                if (f->events[t].present && f->events[t].id == id)
                        return t;
        return _SCHED_EVENT_TYPE_INVALID;
}

bool tp_format_prev_runnable(const TpFormat *f, int64_t prev_state) {
        return prev_state == 0 || ((uint64_t) prev_state & f->preempt_mask) != 0;
}

/*
 * tp_format_from_tep(): the sched_switch preempted bit from the print fmt libtraceevent parsed, by running it: a
 * record whose prev_state is one bit, printed (TEP_PRINT_INFO, no plugin loaded), shows "prev_state=R+" for the
 * preempted bit only (TASK_REPORT_MAX since 4.14, TASK_STATE_MAX before: include/trace/events/sched.h). 0 when no
 * bit does (a kernel whose format prints no "+": only prev_state 0 is runnable then).
 */
static int preempt_mask_by_printing(struct tep_handle *tep, const TpField *common_type, const TpEvent *ev,
                                    uint64_t *ret) {
        const TpField *state = &ev->fields[TP_FIELD_PREV_STATE];
        uint16_t id = (uint16_t) ev->id;
        _cleanup_free_ uint8_t *buf = NULL;
        size_t size = ev->min_size;

        if (common_type->size != sizeof(id))
                return -EBADMSG;
        buf = calloc(1, size);
        if (!buf)
                return -ENOMEM;
        memcpy(buf + common_type->offset, &id, sizeof(id));
        for (unsigned bit = 0; bit < 8u * state->size; bit++) {
                struct tep_record rec = { .data = buf, .size = (int) size, .cpu = 0 };
                uint64_t v = UINT64_C(1) << bit;
                struct trace_seq s;
                bool preempted;

                memcpy(buf + state->offset, &v, state->size); /* little-endian: the caller checked */
                trace_seq_init(&s);
                tep_print_event(tep, &s, &rec, "%s", TEP_PRINT_INFO);
                trace_seq_terminate(&s);
                preempted = s.buffer && strstr(s.buffer, "prev_state=R+");
                trace_seq_destroy(&s);
                if (preempted) {
                        *ret = v;
                        return 0;
                }
        }
        *ret = 0;
        return 0;
}

int tp_format_from_tep(struct tep_handle *tep, TpFormat *ret, char **ret_error) {
        TpFormat f = {};
        int r;

        /* The decoder reads integers in the host's order (tp-decode.c); a trace from the other one would be garbage. */
        if (tep_is_file_bigendian(tep) != tep_is_local_bigendian(tep)) {
                if (ret_error)
                        *ret_error = strdup("recorded on a machine of the other byte order: not supported");
                return -EBADMSG;
        }
        for (SchedEventType t = 0; t < _SCHED_EVENT_TYPE_MAX; t++) {
                const char *name = sched_event_type_to_string(t);
                char reason[REASON_MAX] = "";
                struct tep_event *event;
                TpEvent ev = { .present = true };
                TpField common_type = {};

                event = tep_find_event_by_name(tep, sched_event_type_subsystem(t), name);
                if (!event)
                        continue; /* not recorded: present = false */
                if (event->id < 0)
                        return set_error(ret_error, -EBADMSG, name, "event ID %d", event->id);
                ev.id = (uint32_t) event->id;
                r = event_layout_from_tep(event, t, &common_type, &ev, reason);
                if (r >= 0 && f.common_type.present && memcmp(&f.common_type, &common_type, sizeof(common_type)) != 0) {
                        snprintf(reason, REASON_MAX, "common_type differs from the other events'");
                        r = -EBADMSG;
                }
                if (r == -EBADMSG)
                        return set_error(ret_error, r, name, "%s", reason);
                if (r < 0)
                        return r;
                if (t == SCHED_EVENT_SWITCH) {
                        r = preempt_mask_by_printing(tep, &common_type, &ev, &f.preempt_mask);
                        if (r == -EBADMSG)
                                return set_error(ret_error, r, name, "common_type is not 2 bytes");
                        if (r < 0)
                                return r;
                }
                f.common_type = common_type;
                f.events[t] = ev;
        }
        *ret = f;
        return 0;
}
