/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * Where a trace-cmd .dat of file version 6 keeps each buffer's per-CPU ring-buffer pages, read from its headers
 * (trace-dat-pages.c), so that trace-dat.c can walk the pages with libtraceevent's kbuffer instead of taking a
 * libtracecmd record (an allocation, a free and four library calls) per event (issue #25: replay's throughput).
 * Only a file whose records libtracecmd would hand out unchanged qualifies: anything else (version 7, sections,
 * compression, a latency trace, options that shift or scale timestamps or change the CPU count, another byte
 * order) gives -EOPNOTSUPP, and trace-dat.c reads it through libtracecmd.
 */

#include <stddef.h>
#include <stdint.h>

typedef struct DatCpuData {
        uint64_t offset;          /* in the file: the first page (page-aligned) */
        uint64_t size;            /* bytes of pages (0: the CPU recorded nothing) */
} DatCpuData;

/* One buffer: the top one, then each instance (trace-cmd record -B), in libtracecmd's order of handles. */
typedef struct DatBuffer {
        DatCpuData *cpus;         /* indexed by CPU number */
        unsigned n_cpus;
} DatBuffer;

typedef struct DatLayout {
        uint32_t page_size;
        unsigned long_size;       /* 4 or 8: the recording kernel's */
        uint64_t file_size;
        DatBuffer *buffers;
        size_t n_buffers;
} DatLayout;

/* Reads the layout of the .dat on @fd (not moved: pread). 0, -EOPNOTSUPP (not such a file), -ENOMEM, -errno. */
int dat_layout_read(int fd, DatLayout *ret);
void dat_layout_done(DatLayout *l);
