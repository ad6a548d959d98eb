/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace-dat.c: a trace-cmd .dat → SchedEvents (include/events.h). libtracecmd opens the file (headers, the
 * event formats into a libtraceevent handle, the buffers); each record's payload is the kernel's trace entry, the
 * bytes a perf ring's PERF_SAMPLE_RAW carries, so the live daemon's decoder (tp-decode.c) decodes it with the
 * layouts tp_format_from_tep() takes from the file's formats. The records of a version 6 file (uncompressed) are
 * read from its mapped ring-buffer pages with libtraceevent's kbuffer, as libtracecmd reads them but without a
 * record allocated per event (trace-dat-pages.c finds the pages; issue #25: replay's throughput); any other file
 * is read record by record through libtracecmd. Both merge the CPUs' records in time order as
 * tracecmd_iterate_events_multi() does.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <kbuffer.h>
#include <trace-cmd.h>

#include "events.h"
#include "tp-decode.h"
#include "tp-format.h"
#include "trace-dat-kallsyms.h"
#include "trace-dat-pages.h"

/*
 * The largest CPU index a buffer may have: NR_CPUS at its Kconfig maximum (arch/x86/Kconfig, MAXSMP: 8192).
 * libtracecmd does not say how many CPUs a buffer has; tracecmd_read_data() of an index past them is NULL.
 */
#define DAT_CPU_INDEX_MAX 8192

/* A record as the handler's caller needs it: a libtracecmd record's fields, or a page's event. */
typedef struct DatRecord {
        uint64_t ts;
        const void *data;
        int size;
        int cpu;
        long long missed;       /* tep_record.missed_events: events lost before it, -1 unknown */
} DatRecord;

/* One CPU of one buffer and its next record, read ahead: through libtracecmd, or from the pages here. */
typedef struct DatStream {
        struct tracecmd_input *handle;  /* libtracecmd's records (NULL: the pages') */
        int cpu_index;                  /* libtracecmd's index of the CPU in that buffer (record->cpu is its number) */
        struct tep_record *record;      /* libtracecmd's, the next one */
        struct kbuffer *kbuf;           /* the pages': the page loaded */
        const uint8_t *page;
        uint64_t left;                  /* bytes of the CPU's data from that page on */
        DatRecord next;
} DatStream;

struct TraceDat {
        struct tracecmd_input *input;
        struct tracecmd_input **handles; /* input, then one per buffer instance (trace-cmd record -B) */
        int n_handles;
        struct tep_handle *tep;
        TpFormat format;
        TpField common_pid;      /* where each record holds the pid it ran in (tep_data_pid()'s field) */
        DatLayout layout;        /* a version 6 file's pages (trace-dat-pages.h), when it has such a layout */
        bool has_layout;
        void *map;               /* the file, mapped for the pages' reading */
        size_t map_size;
        DatStream *streams;      /* the CPUs with records left, in buffer then CPU order (ties go to the first) */
        size_t n_streams;
        bool started;            /* streams read: trace_dat_iterate() was called once */
        uint64_t index;          /* records handed out so far */
};

static void dat_stream_done(DatStream *s) {
        tracecmd_free_record(s->record);
        if (s->kbuf)
                kbuffer_free(s->kbuf);
}

bool trace_dat_magic(const void *head, size_t size) {
        return size >= TRACE_DAT_MAGIC_LEN && memcmp(head, TRACE_DAT_MAGIC, TRACE_DAT_MAGIC_LEN) == 0;
}

TraceDat *trace_dat_free(TraceDat *d) {
        if (!d)
                return NULL;
        for (size_t i = 0; i < d->n_streams; i++)
                dat_stream_done(&d->streams[i]);
        free(d->streams);
        if (d->map)
                (void) munmap(d->map, d->map_size);
        dat_layout_done(&d->layout);
        /* An instance's handle holds a reference on the input (tracecmd_close() of it drops it). */
        for (int i = d->n_handles - 1; i >= 1; i--)
                tracecmd_close(d->handles[i]);
        tracecmd_close(d->input);
        free(d->handles);
        free(d);
        return NULL;
}

/*
 * tracecmd_open_fd() with stdout pointed at /dev/null: libtracecmd 3.1 reports a truncated file with a printf()
 * (lib/trace-cmd/trace-input.c, read_cpu_data() and init_buffer_cpu_data(): "File possibly truncated"), which
 * would land among the decisions scripts read. Our own error says it instead.
 */
static struct tracecmd_input *open_quietly(int fd) {
        struct tracecmd_input *input;
        int saved = -EBADF, null_fd;

        (void) fflush(stdout);
        null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
        if (null_fd >= 0) {
                saved = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
                if (saved < 0 || dup2(null_fd, STDOUT_FILENO) < 0) {
                        if (saved >= 0)
                                (void) close(saved);
                        saved = -EBADF;
                }
                (void) close(null_fd);
        }
        trace_dat_kallsyms_skip(true);
        input = tracecmd_open_fd(fd, TRACECMD_FL_LOAD_NO_PLUGINS | TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS);
        trace_dat_kallsyms_skip(false);
        if (saved >= 0) {
                (void) dup2(saved, STDOUT_FILENO);
                (void) close(saved);
        }
        return input;
}

static int open_buffers(TraceDat *d) {
        int n = tracecmd_buffer_instances(d->input);

        if (n < 0)
                n = 0;
        d->handles = calloc((size_t) n + 1, sizeof(*d->handles));
        if (!d->handles)
                return -ENOMEM;
        d->handles[d->n_handles++] = d->input;
        for (int i = 0; i < n; i++) {
                struct tracecmd_input *h = tracecmd_buffer_instance_handle(d->input, i);

                if (!h)
                        return -EBADMSG;
                d->handles[d->n_handles++] = h;
        }
        return 0;
}

/* The layouts of the file's own sched formats (its own function: gcc 12's -fanalyzer takes a _cleanup_free_ variable
 * initialised to NULL for uninitialised on an early return before its use, docs/reliability.md). */
static int dat_read_format(TraceDat *d, char **ret_error) {
        _cleanup_free_ char *reason = NULL;
        int r = tp_format_from_tep(d->tep, &d->format, &reason);

        if (r < 0 && ret_error && reason && asprintf(ret_error, "the event format of %s", reason) < 0)
                *ret_error = NULL;
        return r;
}

/*
 * common_pid, as tep_data_pid() finds it (the common fields of the file's first event; every event has them).
 * Not present: every record's context pid is unknown (-1), as tep_data_pid() says then.
 */
static void dat_find_common_pid(TraceDat *d) {
        struct tep_event *event = tep_get_first_event(d->tep);
        struct tep_format_field *field = event ? tep_find_common_field(event, "common_pid") : NULL;

        if (!field || (field->size != 1 && field->size != 2 && field->size != 4 && field->size != 8))
                return;
        d->common_pid = (TpField) { .present = true, .offset = (uint16_t) field->offset,
                                    .size = (uint16_t) field->size };
}

/*
 * The pages of a version 6 file, mapped for reading them directly (trace-dat-pages.h), when its layout qualifies and
 * agrees with what libtracecmd opened (as many buffers; 8-byte timestamps: update_page_info()). Otherwise, or when
 * the file cannot be mapped, the records come through libtracecmd.
 */
static int dat_map_pages(TraceDat *d, int fd) {
        int r = dat_layout_read(fd, &d->layout);
        void *map;

        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return 0;
        if (d->layout.n_buffers != (size_t) d->n_handles || tep_get_header_timestamp_size(d->tep) != 8 ||
            d->layout.file_size == 0 || d->layout.file_size > SIZE_MAX) {
                dat_layout_done(&d->layout);
                return 0;
        }
        map = mmap(NULL, (size_t) d->layout.file_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED) {
                dat_layout_done(&d->layout);
                return 0;
        }
        d->map = map;
        d->map_size = (size_t) d->layout.file_size;
        d->has_layout = true;
        return 0;
}

int trace_dat_open(int fd, TraceDat **ret, char **ret_error) {
        _cleanup_(trace_dat_freep) TraceDat *d = NULL;
        int own_fd, r;

        d = calloc(1, sizeof(*d));
        if (!d)
                return -ENOMEM;
        /* libtracecmd reads from the start and closes the fd with the handle: give it its own. */
        own_fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        if (own_fd < 0)
                return -errno;
        if (lseek(own_fd, 0, SEEK_SET) < 0) {
                r = -errno;
                (void) close(own_fd);
                if (ret_error)
                        *ret_error = strdup("a trace-cmd .dat is read from a file, not a pipe: give its path");
                return r == -ESPIPE ? -EINVAL : r;
        }
        tracecmd_set_loglevel(TEP_LOG_NONE);
        d->input = open_quietly(own_fd);
        if (!d->input) {
                (void) close(own_fd);
                if (ret_error)
                        *ret_error = strdup("not a readable trace-cmd .dat (truncated or corrupt: libtracecmd "
                                            "cannot open it)");
                return -EBADMSG;
        }
        r = open_buffers(d);
        if (r < 0) {
                if (ret_error && r == -EBADMSG)
                        *ret_error = strdup("a buffer instance of the .dat cannot be opened (truncated or corrupt)");
                return r;
        }
        d->tep = tracecmd_get_tep(d->input);
        if (!d->tep)
                return -EBADMSG;
        r = dat_read_format(d, ret_error);
        if (r < 0)
                return r;
        dat_find_common_pid(d);
        r = dat_map_pages(d, fd);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(d);
        return 0;
}

/*
 * tep_data_pid() without its lookups: the number at common_pid, truncated to an int as it does (tep_read_number()
 * of the field's size; tp_format_from_tep() refused a file of the other byte order). -1 when the file has no such
 * field or the record is shorter.
 */
static int dat_record_pid(const TraceDat *d, const DatRecord *record) {
        const TpField *f = &d->common_pid;
        const uint8_t *p = record->data;
        uint64_t u64 = 0;
        uint32_t u32;
        uint16_t u16;

        if (!f->present || (size_t) record->size < (size_t) f->offset + f->size)
                return -1;
        switch (f->size) {
        case 1:
                return p[f->offset];
        case 2:
                memcpy(&u16, p + f->offset, 2);
                return u16;
        case 4:
                memcpy(&u32, p + f->offset, 4);
                return (int) u32;
        default:
                memcpy(&u64, p + f->offset, 8);
                return (int) u64;
        }
}

/* @record (of @d's next index) → the handler. Returns its result, or -EBADMSG with *ret_reason. */
static int dat_dispatch(TraceDat *d, const DatRecord *record, TraceDatHandler handler, void *userdata,
                        const char **ret_reason) {
        const TpFormat *f = &d->format;
        uint64_t lost = record->missed > 0 ? (uint64_t) record->missed : record->missed < 0 ? UINT64_MAX : 0;
        SchedEventType type;
        SchedEvent ev;

        if (record->size < 0 || !record->data) {
                *ret_reason = "a record without data";
                return -EBADMSG;
        }
        type = sched_event_decode_type(f, record->data, (size_t) record->size);
        if (type < 0)
                return handler(NULL, d->index, lost, userdata);
        if (sched_event_decode_as(f, type, record->data, (size_t) record->size, &ev) < 0) {
                *ret_reason = "a record shorter than its event's format, or with a string outside it";
                return -EBADMSG;
        }
        ev.time_ns = record->ts;
        ev.cpu = record->cpu;
        ev.context_pid = dat_record_pid(d, record);
        ev.has_context = ev.context_pid >= 0;
        return handler(&ev, d->index, lost, userdata);
}

/* tracecmd_read_data(): @s's next record through libtracecmd. false: the CPU has no more. */
static bool dat_stream_read(DatStream *s) {
        struct tep_record *record;

        tracecmd_free_record(s->record);
        s->record = record = tracecmd_read_data(s->handle, s->cpu_index);
        if (!record)
                return false;
        s->next = (DatRecord) { .ts = record->ts, .data = record->data, .size = record->size, .cpu = record->cpu,
                                .missed = record->missed_events };
        return true;
}

/* update_page_info(): a page whose data would overflow it ends the CPU, as libtracecmd's reading does. */
static bool dat_page_load(DatStream *s, uint32_t page_size) {
        (void) kbuffer_load_subbuffer(s->kbuf, (void *) s->page);
        return kbuffer_subbuffer_size(s->kbuf) <= (int) page_size;
}

/*
 * tracecmd_peek_data() and get_next_page() on the mapped pages: the event at the kbuffer's cursor, with its size
 * and the missed-events count (the first event of a page carries it), then the cursor past it; at the end of a
 * page the next one, while more than a page of the CPU's data is left from the current one. false: no more.
 */
static bool dat_page_read(DatStream *s, uint32_t page_size) {
        for (;;) {
                unsigned long long ts;
                void *data = kbuffer_read_event(s->kbuf, &ts);

                if (data) {
                        s->next = (DatRecord) { .ts = ts, .data = data, .size = kbuffer_event_size(s->kbuf),
                                                .cpu = s->next.cpu, .missed = kbuffer_missed_events(s->kbuf) };
                        (void) kbuffer_next_event(s->kbuf, NULL);
                        return true;
                }
                if (s->left <= page_size)
                        return false;
                s->page += page_size;
                s->left -= page_size;
                if (!dat_page_load(s, page_size))
                        return false;
        }
}

static bool dat_stream_next(const TraceDat *d, DatStream *s) {
        return s->kbuf ? dat_page_read(s, d->layout.page_size) : dat_stream_read(s);
}

/* Takes @s: it is the reader's from here, or done (freed) when there is no room for it. */
static int dat_add_stream(TraceDat *d, DatStream *s) {
        DatStream *streams = reallocarray(d->streams, d->n_streams + 1, sizeof(DatStream));

        if (!streams) {
                dat_stream_done(s);
                return -ENOMEM;
        }
        d->streams = streams;
        d->streams[d->n_streams++] = *s;
        return 0;
}

/* Through libtracecmd: each buffer's CPUs that have a record. */
static int dat_start_records(TraceDat *d) {
        for (int h = 0; h < d->n_handles; h++)
                for (int cpu = 0; cpu < DAT_CPU_INDEX_MAX; cpu++) {
                        DatStream s = { .handle = d->handles[h], .cpu_index = cpu };
                        int r;

                        if (!dat_stream_read(&s))
                                continue;
                        r = dat_add_stream(d, &s);
                        if (r < 0)
                                return r;
                }
        return 0;
}

/* On the pages: a kbuffer per CPU with data, at its first page (init_cpu_data(): the file's long size, old format). */
static int dat_start_pages(TraceDat *d) {
        enum kbuffer_long_size long_size = d->layout.long_size == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4;

        for (size_t b = 0; b < d->layout.n_buffers; b++)
                for (unsigned cpu = 0; cpu < d->layout.buffers[b].n_cpus; cpu++) {
                        const DatCpuData *c = &d->layout.buffers[b].cpus[cpu];
                        DatStream s = { .page = (const uint8_t *) d->map + c->offset, .left = c->size,
                                        .next.cpu = (int) cpu };
                        int r;

                        if (c->size == 0)
                                continue;
                        s.kbuf = kbuffer_alloc(long_size, KBUFFER_ENDIAN_LITTLE);
                        if (!s.kbuf)
                                return -ENOMEM;
                        if (tep_is_old_format(d->tep))
                                kbuffer_set_old_format(s.kbuf);
                        if (!dat_page_load(&s, d->layout.page_size) || !dat_page_read(&s, d->layout.page_size)) {
                                dat_stream_done(&s);
                                continue;
                        }
                        r = dat_add_stream(d, &s);
                        if (r < 0)
                                return r;
                }
        return 0;
}

/* The streams, in buffer then CPU order: the order tracecmd_iterate_events_multi() uses. */
static int dat_start(TraceDat *d) {
        int r = d->has_layout ? dat_start_pages(d) : dat_start_records(d);

        d->started = true;
        return r;
}

/* The stream whose next record is the earliest; on a tie the first (tracecmd_iterate_events_multi()'s "<"). */
static DatStream *dat_earliest(TraceDat *d) {
        DatStream *best = NULL;

        for (size_t i = 0; i < d->n_streams; i++)
                if (!best || d->streams[i].next.ts < best->next.ts)
                        best = &d->streams[i];
        return best;
}

/* @s's record was handed out: read its next one, or drop the stream (keeping the others' order). */
static void dat_advance(TraceDat *d, DatStream *s) {
        size_t i = (size_t) (s - d->streams);

        if (dat_stream_next(d, s))
                return;
        dat_stream_done(s);
        memmove(s, s + 1, (d->n_streams - i - 1) * sizeof(DatStream));
        d->n_streams--;
}

/*
 * The records in time order across every buffer and CPU, as tracecmd_iterate_events_multi() merges them, without
 * its callbacks' layers (issue #25: replay's throughput). Each record libtracecmd hands out is still its own
 * allocation (tracecmd_read_data()); there is no API to read a CPU's pages without one.
 */
int trace_dat_iterate(TraceDat *d, TraceDatHandler handler, void *userdata, uint64_t *ret_index, char **ret_reason) {
        const char *reason = NULL;
        DatStream *s;
        int r = 0;

        if (!d->started) {
                r = dat_start(d);
                if (r < 0)
                        return r;
        }
        while (r >= 0 && (s = dat_earliest(d))) {
                d->index++;
                r = dat_dispatch(d, &s->next, handler, userdata, &reason);
                dat_advance(d, s);
        }
        *ret_index = d->index;
        if (r == -EBADMSG && reason) {
                if (ret_reason)
                        *ret_reason = strdup(reason);
                return r;
        }
        return MIN(r, 0);
}
