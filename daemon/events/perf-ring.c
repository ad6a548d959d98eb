/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf-ring.c: reads one perf ring buffer (see perf-ring.h for the protocol). Knows the record formats of
 * include/uapi/linux/perf_event.h and the consumer side of kernel/events/ring_buffer.c; knows nothing of
 * tracepoints or of which events feed the ring (perf-events.c).
 */

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "perf-ring.h"

#define COPY_MIN 512

struct PerfRing {
        struct perf_event_mmap_page *page;
        const uint8_t *data;
        uint64_t size;            /* data bytes, a power of two */
        uint64_t sample_type;
        void *map;                /* our mmap, or NULL over caller memory */
        size_t map_size;

        uint64_t tail;            /* our copy of data_tail: only we write it */
        uint64_t start, end;      /* the current read: [start, end) of the ring's byte stream */

        uint8_t *copy;            /* records straddling the end, made contiguous (malloc: 16-byte aligned) */
        size_t copy_size;

        PerfRingStats stats;
};

/*
 * The barrier contract, from tools/include/linux/ring_buffer.h (quoting kernel/events/ring_buffer.c):
 *
 *   kernel                             user
 *
 *   if (LOAD ->data_tail) {            LOAD ->data_head
 *                      (A)             smp_rmb()       (C)
 *      STORE $data                     LOAD $data
 *      smp_wmb()       (B)             smp_mb()        (D)
 *      STORE ->data_head               STORE ->data_tail
 *   }
 *
 * A pairs with D, B with C. The load-acquire of data_head is C (no record byte is read before head), the
 * store-release of data_tail is D (every record byte is read before the kernel may overwrite it).
 */
static uint64_t ring_load_head(const PerfRing *r) {
        return __atomic_load_n(&r->page->data_head, __ATOMIC_ACQUIRE);
}

static void ring_store_tail(PerfRing *r, uint64_t tail) {
        __atomic_store_n(&r->page->data_tail, tail, __ATOMIC_RELEASE);
        r->tail = tail;
}

static int ring_init(struct perf_event_mmap_page *page, const uint8_t *data, uint64_t size, uint64_t sample_type,
                     PerfRing **ret) {
        PerfRing *r;

        if (size < 8 || (size & (size - 1)) != 0)
                return -EINVAL;
        if (sample_type & ~(uint64_t) PERF_RING_SAMPLE_TYPES)
                return -EOPNOTSUPP;
        r = calloc(1, sizeof(PerfRing));
        if (!r)
                return -ENOMEM;
        r->page = page;
        r->data = data;
        r->size = size;
        r->sample_type = sample_type;
        r->tail = r->start = r->end = __atomic_load_n(&page->data_tail, __ATOMIC_RELAXED);
        *ret = r;
        return 0;
}

int perf_ring_new(struct perf_event_mmap_page *page, uint64_t sample_type, PerfRing **ret) {
        if (!page || page->data_offset < sizeof(*page))
                return -EINVAL;
        return ring_init(page, (const uint8_t *) page + page->data_offset, page->data_size, sample_type, ret);
}

int perf_ring_mmap(int fd, unsigned data_pages, uint64_t sample_type, PerfRing **ret) {
        size_t page_size = (size_t) sysconf(_SC_PAGESIZE), map_size;
        void *map;
        int r;

        /* The kernel wants 2^n data pages (perf_mmap() in kernel/events/core.c). */
        if (data_pages == 0 || (data_pages & (data_pages - 1)) != 0)
                return -EINVAL;
        map_size = (1 + (size_t) data_pages) * page_size;
        map = mmap(NULL, map_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (map == MAP_FAILED)
                return -errno;
        /* data_offset/data_size exist only since 4.1: the layout is one control page, then the data. */
        r = ring_init(map, (const uint8_t *) map + page_size, (uint64_t) data_pages * page_size, sample_type, ret);
        if (r < 0) {
                (void) munmap(map, map_size);
                return r;
        }
        (*ret)->map = map;
        (*ret)->map_size = map_size;
        return 0;
}

PerfRing *perf_ring_free(PerfRing *r) {
        if (!r)
                return NULL;
        if (r->map)
                (void) munmap(r->map, r->map_size);
        free(r->copy);
        free(r);
        return NULL;
}

size_t perf_ring_read_begin(PerfRing *r) {
        uint64_t head = ring_load_head(r);

        /*
         * In the default (non-overwrite) mode the kernel stops at data_tail and emits PERF_RECORD_LOST
         * instead (perf_output_begin(), kernel/events/ring_buffer.c), so this only happens with a corrupt or
         * foreign writer. As libperf does ("failed to keep up with mmap data"): skip everything.
         */
        if (head - r->tail > r->size) {
                r->stats.overruns++;
                ring_store_tail(r, head);
                r->start = r->end = head;
                return 0;
        }
        r->start = r->tail;
        r->end = head;
        return (size_t) (head - r->tail);
}

void perf_ring_read_end(PerfRing *r) {
        if (r->start != r->tail)
                ring_store_tail(r, r->start);
}

/* Copies @n bytes of the byte stream at position @pos, wrapping at the end of the data area. */
static void ring_copy(const PerfRing *r, uint64_t pos, void *dst, size_t n) {
        size_t off = (size_t) (pos & (r->size - 1)), first = MIN(n, (size_t) r->size - off);

        memcpy(dst, r->data + off, first);
        memcpy((uint8_t *) dst + first, r->data, n - first);
}

static int ring_copy_buffer(PerfRing *r, size_t n) {
        size_t want = MAX(r->copy_size, (size_t) COPY_MIN);
        uint8_t *p;

        while (want < n)
                want *= 2;
        if (want == r->copy_size)
                return 0;
        p = realloc(r->copy, want);
        if (!p)
                return -ENOMEM;
        r->copy = p;
        r->copy_size = want;
        return 0;
}

/*
 * The next record of the current read, contiguous: 1 and *ret, 0 at the end. A header that cannot be right
 * (size 0, unaligned, beyond head) leaves nothing trustworthy in this read: skip to its end.
 */
static int ring_next_record(PerfRing *r, const struct perf_event_header **ret) {
        uint64_t avail = r->end - r->start;
        struct perf_event_header h;
        size_t off = (size_t) (r->start & (r->size - 1));
        int k;

        if (avail == 0)
                return 0;
        if (avail < sizeof(h))
                goto corrupt;
        ring_copy(r, r->start, &h, sizeof(h));
        /* The kernel pads every record to 8 bytes (perf_prepare_header() in kernel/events/core.c). */
        if (h.size < sizeof(h) || h.size % 8 != 0 || h.size > avail)
                goto corrupt;

        if (off + h.size <= r->size)
                *ret = (const struct perf_event_header *) (r->data + off);
        else {
                k = ring_copy_buffer(r, h.size);
                if (k < 0)
                        return k;
                ring_copy(r, r->start, r->copy, h.size);
                *ret = (const struct perf_event_header *) r->copy;
        }
        r->start += h.size;
        return 1;

corrupt:
        r->stats.malformed++;
        r->start = r->end;
        return 0;
}

/* PERF_RECORD_LOST is { header, u64 id, u64 lost }, PERF_RECORD_LOST_SAMPLES is { header, u64 lost }. */
static void count_lost(PerfRing *r, const struct perf_event_header *h) {
        size_t off = sizeof(*h) + (h->type == PERF_RECORD_LOST ? 8 : 0);
        uint64_t lost;

        if (!perf_record_take((const uint8_t *) h, h->size, &off, &lost, 8)) {
                r->stats.malformed++;
                return;
        }
        r->stats.lost += lost;
}

int perf_ring_read_sample(PerfRing *r, PerfSampleFields *ret) {
        const struct perf_event_header *h;
        int k;

        for (;;) {
                k = ring_next_record(r, &h);
                if (k <= 0)
                        return k;
                switch (h->type) {
                case PERF_RECORD_SAMPLE:
                        if (perf_record_sample(r->sample_type, 0, (const uint8_t *) h, h->size, ret)) {
                                r->stats.samples++;
                                return 1;
                        }
                        r->stats.malformed++;
                        break;
                case PERF_RECORD_LOST:
                case PERF_RECORD_LOST_SAMPLES:
                        count_lost(r, h);
                        break;
                default:
                        r->stats.other++;
                        break;
                }
        }
}

size_t perf_ring_data_size(const PerfRing *r) {
        return (size_t) r->size;
}

const PerfRingStats *perf_ring_stats(const PerfRing *r) {
        return &r->stats;
}
