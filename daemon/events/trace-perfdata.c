/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace-perfdata.c: a perf.data → SchedEvents (include/events.h). The file is mapped and read in place:
 * the header and attrs (tools/perf/util/header.c, perf_session__read_header(), read_attr()), the feature sections'
 * table after the data (perf_header__process_sections()), the tracing data (perf-tracing-data.c), then the data
 * section record by record (tools/perf/util/session.c, reader__read_event()): samples and the other timed
 * records are queued in perf's order (perf-round-queue.c) and delivered decoded (perf-sample.c, tp-decode.c).
 * Every structural error names the part of the file and its byte offset.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "events.h"
#include "perf-round-queue.h"
#include "perf-sample.h"
#include "perf-tracing-data.h"
#include "tp-decode.h"

/* tools/perf/util/header.h: struct perf_file_section, struct perf_file_header (HEADER_FEAT_BITS = 256). */
typedef struct PerfFileSection {
        uint64_t offset, size;
} PerfFileSection;

typedef struct PerfFileHeader {
        uint64_t magic, size, attr_size;
        PerfFileSection attrs, data, event_types;
        uint64_t adds_features[4];
} PerfFileHeader;

/* tools/perf/util/header.c: __perf_magic2 ("PERFILE2" as a u64) and version 1's __perf_magic1. */
#define PERF_MAGIC2 UINT64_C(0x32454c4946524550)
#define PERF_MAGIC1 "PERFFILE"
/* struct perf_pipe_file_header { u64 magic; u64 size; }: what `perf record -o -` writes. */
#define PERF_PIPE_HEADER_SIZE 16
/* tools/perf/util/header.h, enum: HEADER_TRACING_DATA = 1, HEADER_DIR_FORMAT = 24, HEADER_COMPRESSED = 27. */
#define HEADER_TRACING_DATA 1
#define HEADER_DIR_FORMAT 24
#define HEADER_COMPRESSED 27
/* include/uapi/linux/perf_event.h: PERF_ATTR_SIZE_VER0, the size of the first perf_event_attr. */
#define ATTR_SIZE_VER0 64
/* tools/lib/perf/include/perf/event.h, enum perf_user_event_type. */
#define PERF_RECORD_HEADER_ATTR 64
#define PERF_RECORD_HEADER_TRACING_DATA 66
#define PERF_RECORD_FINISHED_ROUND 68
#define PERF_RECORD_AUXTRACE 71
#define PERF_RECORD_COMPRESSED 81
/* A real recording has a few ids per event and CPU; this many is a corrupt count. */
#define IDS_MAX (1U << 24)

struct PerfData {
        void *map;                /* perf_data_open_fd()'s mapping, or NULL */
        size_t map_size;
        const uint8_t *p;
        size_t size;
        bool pipe_mode;           /* `perf record -o -`: attrs and tracing data are records of the data */
        uint64_t data_offset, data_size;
        PerfSampleLayout layout;  /* the attrs, their ids, the formats */
        PerfDataStats stats;
};

typedef struct IterateContext {
        PerfData *d;
        PerfDataHandler handler;
        void *userdata;
        uint64_t index;
        char **ret_reason;
} IterateContext;

_printf_(2, 3) static int set_reason(char **ret_reason, const char *format, ...) {
        va_list ap;
        int k;

        if (!ret_reason)
                return -EBADMSG;
        va_start(ap, format);
        k = vasprintf(ret_reason, format, ap);
        va_end(ap);
        if (k < 0) {
                *ret_reason = NULL;
                return -ENOMEM;
        }
        return -EBADMSG;
}

bool perf_data_magic(const void *head, size_t size) {
        return size >= PERF_DATA_MAGIC_LEN && (memcmp(head, "PERFILE2", 8) == 0 || memcmp(head, "2ELIFREP", 8) == 0 ||
                                                memcmp(head, PERF_MAGIC1, 8) == 0);
}

PerfData *perf_data_free(PerfData *d) {
        if (!d)
                return NULL;
        perf_sample_layout_done(&d->layout);
        if (d->map)
                (void) munmap(d->map, d->map_size);
        free(d);
        return NULL;
}

/* Whether [@offset, @offset + @size) lies inside the file. */
static bool in_file(const PerfData *d, uint64_t offset, uint64_t size) {
        return offset <= d->size && size <= d->size - offset;
}

static int check_magic(const PerfFileHeader *h, char **ret_error) {
        if (h->magic == PERF_MAGIC2)
                return 0;
        if (h->magic == __builtin_bswap64(PERF_MAGIC2))
                return set_reason(ret_error, "header: recorded on a machine of the other byte order (magic "
                                  "\"2ELIFREP\"): not supported; convert it there with `perf script`");
        if (memcmp(&h->magic, PERF_MAGIC1, 8) == 0)
                return set_reason(ret_error, "header: a version 1 perf.data (magic \"PERFFILE\"): not supported");
        return set_reason(ret_error, "header: not a perf.data (no \"PERFILE2\" magic)");
}

/* The header: its magic and size, and sections inside the file. */
static int read_header(PerfData *d, PerfFileHeader *h, char **ret_error) {
        if (d->size < PERF_PIPE_HEADER_SIZE)
                return set_reason(ret_error, "header: truncated (%zu bytes)", d->size);
        memcpy(h, d->p, MIN(d->size, sizeof(*h)));
        if (check_magic(h, ret_error) < 0)
                return -EBADMSG;
        if (h->size == PERF_PIPE_HEADER_SIZE) {
                /* struct perf_pipe_file_header: the records follow at once, to the end. */
                d->pipe_mode = true;
                d->data_offset = PERF_PIPE_HEADER_SIZE;
                d->data_size = d->size - PERF_PIPE_HEADER_SIZE;
                return 0;
        }
        if (h->size != sizeof(*h) || d->size < sizeof(*h))
                return set_reason(ret_error, "header: size %" PRIu64 ", not the %zu of a perf_file_header%s", h->size,
                                  sizeof(*h), d->size < sizeof(*h) ? " (truncated file)" : "");
        if (!in_file(d, h->attrs.offset, h->attrs.size))
                return set_reason(ret_error, "header: the attrs section (byte %" PRIu64 ", %" PRIu64 " bytes) runs "
                                  "past the end of the file (%zu bytes): truncated?", h->attrs.offset, h->attrs.size,
                                  d->size);
        if (!in_file(d, h->data.offset, h->data.size))
                return set_reason(ret_error, "header: the data section (byte %" PRIu64 ", %" PRIu64 " bytes) runs "
                                  "past the end of the file (%zu bytes): truncated?", h->data.offset, h->data.size,
                                  d->size);
        if (h->data.size == 0)
                return set_reason(ret_error, "header: no data (an empty recording, or perf record did not finish "
                                  "writing the file)");
        if (h->adds_features[HEADER_DIR_FORMAT / 64] & (UINT64_C(1) << (HEADER_DIR_FORMAT % 64)))
                return set_reason(ret_error, "header: a directory-format perf.data (`perf record --threads`), which "
                                  "replay does not read");
        /* Whatever record type a perf version packs them in (PERF_RECORD_COMPRESSED, later ones), say so at once. */
        if (h->adds_features[HEADER_COMPRESSED / 64] & (UINT64_C(1) << (HEADER_COMPRESSED % 64)))
                return set_reason(ret_error, "header: compressed records (`perf record -z`), which replay does not "
                                  "read: record without -z");
        return 0;
}

/* Appends @n ids of attr @index read from the file's section @ids. */
static int read_attr_ids(PerfData *d, size_t index, const PerfFileSection *ids, char **ret_error) {
        uint64_t n = ids->size / 8;

        if (!in_file(d, ids->offset, ids->size) || ids->size % 8 != 0)
                return set_reason(ret_error, "attr %zu: its ids (byte %" PRIu64 ", %" PRIu64 " bytes) are not inside "
                                  "the file", index, ids->offset, ids->size);
        if (d->layout.n_ids + n > IDS_MAX)
                return set_reason(ret_error, "attr %zu: %" PRIu64 " ids, more than a recording has", index, n);
        for (uint64_t i = 0; i < n; i++) {
                uint64_t id;
                int r;

                memcpy(&id, d->p + ids->offset + 8 * i, 8);
                r = perf_sample_layout_add_id(&d->layout, id, index);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The attrs section: perf_file_attr entries of attr.size bytes (VER0's 64 if 0) then the ids section (read_attr()). */
static int read_attrs(PerfData *d, const PerfFileHeader *h, char **ret_error) {
        uint64_t off = h->attrs.offset, end = h->attrs.offset + h->attrs.size;
        size_t n;

        if (h->attr_size < ATTR_SIZE_VER0 + sizeof(PerfFileSection) || h->attrs.size % h->attr_size != 0)
                return set_reason(ret_error, "header: attr_size %" PRIu64 " and an attrs section of %" PRIu64 " bytes "
                                  "do not make whole perf_file_attrs", h->attr_size, h->attrs.size);
        n = (size_t) (h->attrs.size / h->attr_size);
        if (n == 0 || n > PERF_SAMPLE_ATTRS_MAX)
                return set_reason(ret_error, "header: %zu attrs (at most %u)", n, PERF_SAMPLE_ATTRS_MAX);
        for (size_t i = 0; i < n; i++) {
                struct perf_event_attr attr = {};
                PerfFileSection ids;
                uint32_t attr_size;
                int r;

                if (end - off < ATTR_SIZE_VER0)
                        return set_reason(ret_error, "attr %zu at byte %" PRIu64 ": truncated", i, off);
                memcpy(&attr_size, d->p + off + offsetof(struct perf_event_attr, size), 4);
                if (attr_size == 0)
                        attr_size = ATTR_SIZE_VER0;
                if (attr_size < ATTR_SIZE_VER0 || end - off < (uint64_t) attr_size + sizeof(ids))
                        return set_reason(ret_error, "attr %zu at byte %" PRIu64 ": size %" PRIu32 " runs past the "
                                          "attrs section", i, off, attr_size);
                memcpy(&attr, d->p + off, MIN((size_t) attr_size, sizeof(attr)));
                memcpy(&ids, d->p + off + attr_size, sizeof(ids));
                r = perf_sample_layout_add_attr(&d->layout, &attr);
                if (r < 0)
                        return r;
                r = read_attr_ids(d, i, &ids, ret_error);
                if (r < 0)
                        return r;
                off += attr_size + sizeof(ids);
        }
        return 0;
}

/* Feature @bit's section: the table of one perf_file_section per set bit, in bit order, follows the data. */
static int feature_section(const PerfData *d, const PerfFileHeader *h, unsigned bit, PerfFileSection *ret,
                           char **ret_error) {
        uint64_t table = h->data.offset + h->data.size, index = 0;

        if (!(h->adds_features[bit / 64] & (UINT64_C(1) << (bit % 64))))
                return 0;
        for (unsigned b = 0; b < bit; b++)
                index += (h->adds_features[b / 64] >> (b % 64)) & 1;
        if (!in_file(d, table + index * sizeof(*ret), sizeof(*ret)))
                return set_reason(ret_error, "feature section table (byte %" PRIu64 "): truncated before the entry "
                                  "of feature %u", table, bit);
        memcpy(ret, d->p + table + index * sizeof(*ret), sizeof(*ret));
        if (!in_file(d, ret->offset, ret->size))
                return set_reason(ret_error, "feature %u's section (byte %" PRIu64 ", %" PRIu64 " bytes) runs past "
                                  "the end of the file: truncated?", bit, ret->offset, ret->size);
        return 1;
}

/* The recording kernel's event formats (HEADER_TRACING_DATA). */
static int read_tracing_data(PerfData *d, const PerfFileHeader *h, char **ret_error) {
        _cleanup_free_ char *where = NULL;
        PerfFileSection s;
        int r;

        r = feature_section(d, h, HEADER_TRACING_DATA, &s, ret_error);
        if (r < 0)
                return r;
        if (r == 0) {
                if (!perf_sample_layout_has_tracepoints(&d->layout))
                        return 0;
                return set_reason(ret_error, "header: tracepoints recorded without their formats (no "
                                  "HEADER_TRACING_DATA feature section)");
        }
        if (asprintf(&where, "tracing data (the section at byte %" PRIu64 ")", s.offset) < 0)
                return -ENOMEM;
        return perf_tracing_data_parse(d->p + s.offset, (size_t) s.size, where, &d->layout.format, ret_error);
}

/* ---- pipe mode: the attrs and the tracing data as the stream's first records ---- */

/*
 * A record's extra bytes after it, not counted in its size (session.c, reader__read_event() and
 * perf_session__process_user_event()): PERF_RECORD_HEADER_TRACING_DATA's { header, u32 size, u32 pad } is
 * followed by that much tracing data, PERF_RECORD_AUXTRACE's { header, u64 size, … } by that much AUX data.
 * Returns 0 with *@ret_skip, or -EBADMSG with a static *@ret_reason.
 */
static int record_payload(const uint8_t *rec, const struct perf_event_header *h, uint64_t *ret_skip,
                          const char **ret_reason) {
        uint32_t size32;

        *ret_skip = 0;
        if (h->type == PERF_RECORD_HEADER_TRACING_DATA) {
                if (h->size < sizeof(*h) + 4) {
                        *ret_reason = "a PERF_RECORD_HEADER_TRACING_DATA shorter than its size field";
                        return -EBADMSG;
                }
                memcpy(&size32, rec + sizeof(*h), 4);
                *ret_skip = size32;
        } else if (h->type == PERF_RECORD_AUXTRACE) {
                if (h->size < sizeof(*h) + 8) {
                        *ret_reason = "a PERF_RECORD_AUXTRACE shorter than its size field";
                        return -EBADMSG;
                }
                memcpy(ret_skip, rec + sizeof(*h), 8);
        }
        return 0;
}

/* PERF_RECORD_HEADER_ATTR: { header, struct perf_event_attr (attr.size bytes), u64 id[] } (perf_event__process_attr()). */
static int pipe_attr(PerfData *d, uint64_t offset, const struct perf_event_header *h, char **ret_error) {
        const uint8_t *body = d->p + offset + sizeof(*h);
        size_t n = h->size - sizeof(*h), index = d->layout.n_attrs;
        struct perf_event_attr attr = {};
        uint32_t attr_size;
        int r;

        if (n < ATTR_SIZE_VER0)
                return set_reason(ret_error, "data section, record at byte %" PRIu64 ": a PERF_RECORD_HEADER_ATTR "
                                  "shorter than an attr", offset);
        memcpy(&attr_size, body + offsetof(struct perf_event_attr, size), 4);
        if (attr_size == 0)
                attr_size = ATTR_SIZE_VER0;
        if (attr_size < ATTR_SIZE_VER0 || attr_size > n || (n - attr_size) % 8 != 0)
                return set_reason(ret_error, "data section, record at byte %" PRIu64 ": an attr of %" PRIu32 " bytes "
                                  "in a PERF_RECORD_HEADER_ATTR of %zu", offset, attr_size, n);
        if (index >= PERF_SAMPLE_ATTRS_MAX || d->layout.n_ids + (n - attr_size) / 8 > IDS_MAX)
                return set_reason(ret_error, "data section, record at byte %" PRIu64 ": more attrs or ids than a "
                                  "recording has", offset);
        memcpy(&attr, body, MIN((size_t) attr_size, sizeof(attr)));
        r = perf_sample_layout_add_attr(&d->layout, &attr);
        for (size_t at = attr_size; r >= 0 && at < n; at += 8) {
                uint64_t id;

                memcpy(&id, body + at, 8);
                r = perf_sample_layout_add_id(&d->layout, id, index);
        }
        return r;
}

/* The tracing data after a PERF_RECORD_HEADER_TRACING_DATA (no early return before the _cleanup_ variable is set:
 * gcc 12's -fanalyzer takes it for uninitialised then, docs/reliability.md). */
static int pipe_tracing_data(PerfData *d, uint64_t offset, uint64_t size, char **ret_error) {
        _cleanup_free_ char *where = NULL;

        if (asprintf(&where, "tracing data (after the record at byte %" PRIu64 ")", offset) < 0)
                return -ENOMEM;
        return perf_tracing_data_parse(d->p + offset, (size_t) size, where, &d->layout.format, ret_error);
}

/* One pass over the records for the attrs and the formats, before any sample is read (they come first). */
static int read_pipe_headers(PerfData *d, char **ret_error) {
        uint64_t off = d->data_offset, end = d->data_offset + d->data_size;
        bool tracing = false;

        while (off < end) {
                struct perf_event_header h;
                const char *reason = NULL;
                uint64_t skip;
                int r = 0;

                if (end - off < sizeof(h))
                        break; /* the iteration says what is wrong there */
                memcpy(&h, d->p + off, sizeof(h));
                if (h.size < sizeof(h) || h.size > end - off || record_payload(d->p + off, &h, &skip, &reason) < 0 ||
                    skip > end - off - h.size)
                        break;
                if (h.type == PERF_RECORD_HEADER_ATTR)
                        r = pipe_attr(d, off, &h, ret_error);
                else if (h.type == PERF_RECORD_HEADER_TRACING_DATA && tracing)
                        return set_reason(ret_error, "data section, record at byte %" PRIu64 ": a second "
                                          "PERF_RECORD_HEADER_TRACING_DATA", off);
                else if (h.type == PERF_RECORD_HEADER_TRACING_DATA) {
                        r = pipe_tracing_data(d, off + h.size, skip, ret_error);
                        tracing = true;
                }
                if (r < 0)
                        return r;
                off += h.size + skip;
        }
        if (d->layout.n_attrs == 0)
                return set_reason(ret_error, "a pipe-mode perf.data without attrs (no PERF_RECORD_HEADER_ATTR)");
        if (!tracing && perf_sample_layout_has_tracepoints(&d->layout))
                return set_reason(ret_error, "a pipe-mode perf.data of tracepoints without their formats (no "
                                  "PERF_RECORD_HEADER_TRACING_DATA)");
        return 0;
}

static int perf_data_parse(PerfData *d, char **ret_error) {
        PerfFileHeader h;
        int r;

        r = read_header(d, &h, ret_error);
        if (r < 0)
                return r;
        if (d->pipe_mode)
                r = read_pipe_headers(d, ret_error);
        else {
                r = read_attrs(d, &h, ret_error);
                if (r >= 0)
                        r = read_tracing_data(d, &h, ret_error);
                d->data_offset = h.data.offset;
                d->data_size = h.data.size;
        }
        if (r >= 0)
                r = perf_sample_layout_finish(&d->layout, ret_error);
        return r;
}

int perf_data_open_memory(const void *p, size_t size, PerfData **ret, char **ret_error) {
        _cleanup_(perf_data_freep) PerfData *d = NULL;
        int r;

        d = calloc(1, sizeof(*d));
        if (!d)
                return -ENOMEM;
        d->p = p;
        d->size = size;
        r = perf_data_parse(d, ret_error);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(d);
        return 0;
}

int perf_data_open_fd(int fd, PerfData **ret, char **ret_error) {
        _cleanup_(perf_data_freep) PerfData *d = NULL;
        struct stat st;
        void *map;
        int r;

        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode)) {
                if (ret_error)
                        *ret_error = strdup("a perf.data is read from a file, not a pipe: give its path");
                return -ESPIPE;
        }
        if (st.st_size < PERF_PIPE_HEADER_SIZE)
                return set_reason(ret_error, "header: truncated (%jd bytes)", (intmax_t) st.st_size);
        map = mmap(NULL, (size_t) st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED)
                return -errno;
        (void) madvise(map, (size_t) st.st_size, MADV_SEQUENTIAL);
        d = calloc(1, sizeof(*d));
        if (!d) {
                (void) munmap(map, (size_t) st.st_size);
                return -ENOMEM;
        }
        d->map = map;
        d->map_size = (size_t) st.st_size;
        d->p = map;
        d->size = (size_t) st.st_size;
        r = perf_data_parse(d, ret_error);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(d);
        return 0;
}

const PerfDataStats *perf_data_stats(const PerfData *d) {
        return &d->stats;
}

/* ---- the data section ---- */

static int record_error(IterateContext *c, uint64_t offset, const char *reason) {
        return set_reason(c->ret_reason, "data section, record at byte %" PRIu64 ": %s", offset, reason);
}

/* A queued record, in perf's order: a sample goes to the handler decoded, any other only counted its time. */
static int deliver(uint64_t offset, void *userdata) {
        IterateContext *c = ASSERT_PTR(userdata);
        const uint8_t *rec = c->d->p + offset;
        struct perf_event_header h;
        const char *reason = NULL;
        PerfSample s;
        SchedEvent ev;
        int r;

        memcpy(&h, rec, sizeof(h));
        if (h.type != PERF_RECORD_SAMPLE)
                return 0;
        r = perf_sample_parse(&c->d->layout, rec, h.size, &s, &reason);
        if (r >= 0)
                r = perf_sample_decode(&c->d->layout, &s, &ev, &reason);
        if (r < 0)
                return set_reason(c->ret_reason, "data section, sample %" PRIu64 " (the record at byte %" PRIu64 "): %s",
                                  c->index + 1, offset, reason);
        c->index++;
        c->d->stats.samples++;
        return c->handler(r > 0 ? &ev : NULL, c->index, 0, c->userdata);
}

/* PERF_RECORD_LOST is { header, u64 id, u64 lost }, PERF_RECORD_LOST_SAMPLES { header, u64 lost }. */
static int count_lost(IterateContext *c, const uint8_t *rec, const struct perf_event_header *h, uint64_t offset) {
        size_t at = sizeof(*h) + (h->type == PERF_RECORD_LOST ? 8 : 0);
        uint64_t lost;

        if (h->size < at + 8)
                return record_error(c, offset, "a PERF_RECORD_LOST shorter than its fields");
        memcpy(&lost, rec + at, 8);
        c->d->stats.lost_records++;
        c->d->stats.lost_events += lost;
        return 0;
}

/*
 * One record of the data section at @offset (@h its header, checked to lie inside the section). *@ret_skip: extra
 * bytes after it (a PERF_RECORD_AUXTRACE's payload, not counted in its size).
 */
static int read_record(IterateContext *c, PerfRoundQueue *q, const struct perf_event_header *h, uint64_t offset,
                       uint64_t *ret_skip) {
        const uint8_t *rec = c->d->p + offset;
        const char *reason = NULL;
        uint64_t time_ns;
        int r;

        switch (h->type) {
        case PERF_RECORD_FINISHED_ROUND:
                c->d->stats.rounds++;
                return perf_round_queue_round(q);
        case PERF_RECORD_COMPRESSED:
                return record_error(c, offset, "a compressed record (`perf record -z`), which replay does not read: "
                                    "record without -z");
        case PERF_RECORD_AUXTRACE:
        case PERF_RECORD_HEADER_TRACING_DATA:
                c->d->stats.other++;
                if (record_payload(rec, h, ret_skip, &reason) < 0)
                        return record_error(c, offset, reason);
                return 0;
        case PERF_RECORD_LOST:
        case PERF_RECORD_LOST_SAMPLES:
                r = count_lost(c, rec, h, offset);
                if (r < 0)
                        return r;
                break;
        default:
                if (h->type >= PERF_RECORD_HEADER_ATTR) {
                        c->d->stats.other++;
                        return 0; /* perf's own records (perf_session__process_user_event()): not timed, not queued */
                }
                if (h->type != PERF_RECORD_SAMPLE)
                        c->d->stats.other++;
                break;
        }
        r = perf_sample_time(&c->d->layout, rec, h->size, &time_ns, &reason);
        if (r < 0)
                return record_error(c, offset, reason);
        /* perf_session__queue_event(): a record without a time (0 or all ones: -ETIME) is delivered at once. */
        if (r == 0 || time_ns == 0 || time_ns == UINT64_MAX)
                return deliver(offset, c);
        return perf_round_queue_push(q, time_ns, offset);
}

static int iterate_records(IterateContext *c, PerfRoundQueue *q) {
        uint64_t off = c->d->data_offset, end = c->d->data_offset + c->d->data_size;

        while (off < end) {
                struct perf_event_header h;
                uint64_t skip = 0;
                int r;

                if (end - off < sizeof(h))
                        return record_error(c, off, "truncated: a record header runs past the data section's end");
                memcpy(&h, c->d->p + off, sizeof(h));
                if (h.size < sizeof(h))
                        return record_error(c, off, "a record size smaller than its header (corrupt)");
                if (h.size > end - off)
                        return record_error(c, off, "truncated: the record runs past the data section's end");
                r = read_record(c, q, &h, off, &skip);
                if (r < 0)
                        return r;
                if (skip > end - off - h.size)
                        return record_error(c, off, "truncated: the data after the record runs past the data section's "
                                            "end");
                off += h.size + skip;
        }
        return perf_round_queue_finish(q);
}

int perf_data_iterate(PerfData *d, PerfDataHandler handler, void *userdata, uint64_t *ret_index, char **ret_reason) {
        IterateContext c = { .d = d, .handler = handler, .userdata = userdata, .ret_reason = ret_reason };
        PerfRoundQueue q;
        int r;

        d->stats = (PerfDataStats) {};
        perf_round_queue_init(&q, deliver, &c);
        r = iterate_records(&c, &q);
        perf_round_queue_done(&q);
        *ret_index = c.index;
        return r;
}
