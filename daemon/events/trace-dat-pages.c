/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace-dat-pages.c: the page layout of a version 6 .dat (daemon/events/trace-dat-pages.h), from its headers as
 * trace-cmd writes them (tracecmd/trace-output.c) and libtracecmd 3.1 reads them (lib/trace-cmd/trace-input.c:
 * tracecmd_read_headers(), handle_options(), read_cpu_data(), tracecmd_buffer_instance_handle()):
 *
 *   "\027\010\104tracing" "6\0" endian(1) long_size(1) page_size(u32)
 *   "header_page\0" size(u64) data    "header_event\0" size(u64) data
 *   ftrace formats: count(u32), each size(u64) data
 *   event systems: count(u32), each name "\0", count(u32), each size(u64) data
 *   kallsyms: size(u32) data    printk: size(u32) data    cmdlines: size(u64) data
 *   cpus(u32)
 *   "options  \0", then options id(u16) size(u32) data up to id 0, then "flyrecord\0" (or "latency  \0")
 *   cpus x (offset(u64), size(u64)): the top buffer's pages
 * An instance's BUFFER option holds offset(u64) name "\0"; at that offset the same "options  \0" ... (optional)
 * "flyrecord\0" and cpus x (offset, size). Numbers are in the file's byte order: this reader takes little-endian
 * files only (so does tp-decode.c).
 */

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "macro.h"
#include "trace-dat-pages.h"

/* trace-cmd's option ids (lib/trace-cmd/include/private/trace-cmd-private.h, enum tracecmd_option_id). */
enum {
        DAT_OPTION_DONE = 0,
        DAT_OPTION_CPUSTAT = 2,
        DAT_OPTION_BUFFER = 3,
        DAT_OPTION_TRACECLOCK = 4,
        DAT_OPTION_UNAME = 5,
        DAT_OPTION_VERSION = 9,
        DAT_OPTION_PROCMAPS = 10,
        DAT_OPTION_TRACEID = 11,
};

#define DAT_STRING_MAX 4096      /* an event system's or a buffer's name */
#define DAT_CPUS_MAX 8192        /* NR_CPUS at its largest (x86 MAXSMP) */
#define DAT_BUFFERS_MAX 256

typedef struct DatReader {
        int fd;
        uint64_t off;
        uint64_t size;
} DatReader;

static int rd(DatReader *r, void *buf, size_t n) {
        ssize_t got;

        if (r->off > r->size || n > r->size - r->off)
                return -EOPNOTSUPP; /* truncated: libtracecmd refuses it at open already */
        got = pread(r->fd, buf, n, (off_t) r->off);
        if (got < 0)
                return -errno;
        if ((size_t) got != n)
                return -EOPNOTSUPP;
        r->off += n;
        return 0;
}

static int rd_u16(DatReader *r, uint16_t *ret) {
        return rd(r, ret, sizeof(*ret));
}

static int rd_u32(DatReader *r, uint32_t *ret) {
        return rd(r, ret, sizeof(*ret));
}

static int rd_u64(DatReader *r, uint64_t *ret) {
        return rd(r, ret, sizeof(*ret));
}

static int skip(DatReader *r, uint64_t n) {
        if (r->off > r->size || n > r->size - r->off)
                return -EOPNOTSUPP;
        r->off += n;
        return 0;
}

static int expect(DatReader *r, const char *what, size_t n) {
        char buf[16];
        int e;

        if (n > sizeof(buf))
                return -EINVAL;
        e = rd(r, buf, n);
        if (e < 0)
                return e;
        return memcmp(buf, what, n) == 0 ? 0 : -EOPNOTSUPP;
}

/* A NUL-terminated string, skipped; into @ret (of @size) when non-NULL. */
static int rd_string(DatReader *r, char *ret, size_t size) {
        for (size_t i = 0; i < DAT_STRING_MAX; i++) {
                char c;
                int e = rd(r, &c, 1);

                if (e < 0)
                        return e;
                if (ret && i < size)
                        ret[i] = c;
                if (c == '\0')
                        return 0;
        }
        return -EOPNOTSUPP;
}

/* count(u32) x (size(u64) data) */
static int skip_sized_list(DatReader *r) {
        uint32_t n;
        int e = rd_u32(r, &n);

        for (uint32_t i = 0; e >= 0 && i < n; i++) {
                uint64_t size;

                e = rd_u64(r, &size);
                if (e >= 0)
                        e = skip(r, size);
        }
        return e;
}

static int skip_u32_sized(DatReader *r) {
        uint32_t size;
        int e = rd_u32(r, &size);

        return e < 0 ? e : skip(r, size);
}

static int skip_u64_sized(DatReader *r) {
        uint64_t size;
        int e = rd_u64(r, &size);

        return e < 0 ? e : skip(r, size);
}

/* Everything from header_page to the CPU count. */
static int skip_headers(DatReader *r, uint32_t *ret_cpus) {
        uint32_t systems;
        int e;

        e = expect(r, "header_page", 12);
        if (e >= 0)
                e = skip_u64_sized(r);
        if (e >= 0)
                e = expect(r, "header_event", 13);
        if (e >= 0)
                e = skip_u64_sized(r);
        if (e >= 0)
                e = skip_sized_list(r); /* ftrace formats */
        if (e >= 0)
                e = rd_u32(r, &systems);
        for (uint32_t i = 0; e >= 0 && i < systems; i++) {
                e = rd_string(r, NULL, 0);
                if (e >= 0)
                        e = skip_sized_list(r);
        }
        if (e >= 0)
                e = skip_u32_sized(r); /* kallsyms */
        if (e >= 0)
                e = skip_u32_sized(r); /* printk */
        if (e >= 0)
                e = skip_u64_sized(r); /* cmdlines */
        if (e >= 0)
                e = rd_u32(r, ret_cpus);
        return e;
}

/*
 * The options up to DONE. Only those libtracecmd keeps beside the records are taken (a clock's name, uname,
 * versions, statistics, process maps, the trace id); a time offset or shift (DATE, OFFSET, TIME_SHIFT,
 * TSC2NSEC), a CPU count, a guest, and any other option change what libtracecmd hands out or are not version
 * 6's: -EOPNOTSUPP. @instances (the top level only, NULL in an instance): the BUFFER options' offsets.
 */
static int read_options(DatReader *r, uint64_t **instances, size_t *n_instances) {
        for (;;) {
                uint64_t start, offset, *list;
                uint16_t id;
                uint32_t size;
                char name[2];
                int e;

                e = rd_u16(r, &id);
                if (e < 0)
                        return e;
                if (id == DAT_OPTION_DONE)
                        return 0;
                e = rd_u32(r, &size);
                if (e < 0)
                        return e;
                start = r->off;
                switch (id) {
                case DAT_OPTION_BUFFER:
                        /* offset(u64) name: an instance (an empty name would be the top buffer: not version 6) */
                        if (!instances || size < sizeof(offset) + 2)
                                return -EOPNOTSUPP;
                        e = rd_u64(r, &offset);
                        if (e >= 0)
                                e = rd_string(r, name, sizeof(name));
                        if (e < 0)
                                return e;
                        if (name[0] == '\0' || *n_instances >= DAT_BUFFERS_MAX)
                                return -EOPNOTSUPP;
                        list = reallocarray(*instances, *n_instances + 1, sizeof(uint64_t));
                        if (!list)
                                return -ENOMEM;
                        *instances = list;
                        (*instances)[(*n_instances)++] = offset;
                        break;
                case DAT_OPTION_CPUSTAT:
                case DAT_OPTION_TRACECLOCK:
                case DAT_OPTION_UNAME:
                case DAT_OPTION_VERSION:
                case DAT_OPTION_PROCMAPS:
                case DAT_OPTION_TRACEID:
                        break;
                default:
                        return -EOPNOTSUPP;
                }
                /* libtracecmd reads each option whole, whatever its parser took */
                if (r->off > start + size)
                        return -EOPNOTSUPP;
                r->off = start;
                e = skip(r, size);
                if (e < 0)
                        return e;
        }
}

/*
 * read_options_type(): "options  \0" and options (optional), then "flyrecord\0" (a "latency  \0" trace is not
 * pages). @instances as read_options().
 */
static int read_options_type(DatReader *r, uint64_t **instances, size_t *n_instances) {
        char type[10];
        int e;

        e = rd(r, type, sizeof(type));
        if (e < 0)
                return e;
        if (memcmp(type, "options  ", 10) == 0) {
                e = read_options(r, instances, n_instances);
                if (e >= 0)
                        e = rd(r, type, sizeof(type));
                if (e < 0)
                        return e;
        }
        return memcmp(type, "flyrecord", 10) == 0 ? 0 : -EOPNOTSUPP;
}

/* read_cpu_data(): @n_cpus x (offset, size), each a page-aligned range inside the file. */
static int read_cpu_data(DatReader *r, const DatLayout *l, unsigned n_cpus, DatBuffer *ret) {
        _cleanup_free_ DatCpuData *cpus = calloc(MAX(n_cpus, 1u), sizeof(DatCpuData));
        int e;

        if (!cpus)
                return -ENOMEM;
        for (unsigned cpu = 0; cpu < n_cpus; cpu++) {
                DatCpuData *c = &cpus[cpu];

                e = rd_u64(r, &c->offset);
                if (e >= 0)
                        e = rd_u64(r, &c->size);
                if (e < 0)
                        return e;
                if (c->size > 0 && (c->offset % l->page_size != 0 || c->offset > l->file_size ||
                                    c->size > l->file_size - c->offset))
                        return -EOPNOTSUPP;
        }
        *ret = (DatBuffer) { .cpus = TAKE_PTR(cpus), .n_cpus = n_cpus };
        return 0;
}

/* The version 6 preamble: magic, "6", little-endian, the long size, the page size (a power of two). */
static int read_preamble(DatReader *r, DatLayout *l) {
        uint8_t endian, long_size;
        int e;

        e = expect(r, "\027\010\104tracing6", 12);
        if (e >= 0)
                e = rd(r, &endian, 1);
        if (e >= 0)
                e = rd(r, &long_size, 1);
        if (e >= 0)
                e = rd_u32(r, &l->page_size);
        if (e < 0)
                return e;
        /* "6\0": the version string ends there (a "60" would not). */
        if (endian != 0 || (long_size != 4 && long_size != 8) || l->page_size == 0 ||
            (l->page_size & (l->page_size - 1)) != 0)
                return -EOPNOTSUPP;
        l->long_size = long_size;
        return 0;
}

static int layout_read(DatReader *r, DatLayout *l, uint64_t **instances, size_t *n_instances) {
        uint32_t cpus;
        int e;

        e = read_preamble(r, l);
        if (e >= 0)
                e = skip_headers(r, &cpus);
        if (e >= 0 && cpus > DAT_CPUS_MAX)
                e = -EOPNOTSUPP;
        if (e >= 0)
                e = read_options_type(r, instances, n_instances);
        if (e < 0)
                return e;
        l->buffers = calloc(*n_instances + 1, sizeof(DatBuffer));
        if (!l->buffers)
                return -ENOMEM;
        e = read_cpu_data(r, l, cpus, &l->buffers[l->n_buffers++]);
        /* tracecmd_buffer_instance_handle(): each instance at its offset, with the top buffer's CPU count */
        for (size_t i = 0; e >= 0 && i < *n_instances; i++) {
                r->off = (*instances)[i];
                e = read_options_type(r, NULL, NULL);
                if (e >= 0)
                        e = read_cpu_data(r, l, cpus, &l->buffers[l->n_buffers++]);
        }
        return e;
}

int dat_layout_read(int fd, DatLayout *ret) {
        _cleanup_free_ uint64_t *instances = NULL;
        DatLayout l = {};
        size_t n_instances = 0;
        struct stat st;
        DatReader r;
        int e;

        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return -EOPNOTSUPP;
        l.file_size = (uint64_t) st.st_size;
        r = (DatReader) { .fd = fd, .size = l.file_size };
        e = layout_read(&r, &l, &instances, &n_instances);
        if (e < 0) {
                dat_layout_done(&l);
                return e;
        }
        *ret = l;
        return 0;
}

void dat_layout_done(DatLayout *l) {
        for (size_t i = 0; i < l->n_buffers; i++)
                free(l->buffers[i].cpus);
        free(l->buffers);
        *l = (DatLayout) {};
}
