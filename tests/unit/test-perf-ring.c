/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests for perf-ring.c without a kernel: the test plays the kernel, writing records into a
 * perf_event_mmap_page + data area in ordinary memory and publishing data_head, as perf_output_put_handle()
 * (kernel/events/ring_buffer.c) does.
 */

#include "macro.h"
#include "perf-ring.h"
#include "test.h"

#define SAMPLE_TYPE (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW)
#define CONTROL_SIZE 4096

typedef struct FakeKernel {
        struct perf_event_mmap_page *page;
        uint8_t *data;
        size_t size;
        uint64_t head;
} FakeKernel;

static int fake_new(FakeKernel *k, size_t size, uint64_t start) {
        void *mem = NULL;

        if (posix_memalign(&mem, 4096, CONTROL_SIZE + size) != 0)
                return -ENOMEM;
        memset(mem, 0xa5, CONTROL_SIZE + size); /* garbage where nothing was written */
        memset(mem, 0, sizeof(struct perf_event_mmap_page));
        *k = (FakeKernel) { .page = mem, .data = (uint8_t *) mem + CONTROL_SIZE, .size = size, .head = start };
        k->page->data_offset = CONTROL_SIZE;
        k->page->data_size = size;
        k->page->data_head = k->page->data_tail = start;
        return 0;
}

static void fake_free(FakeKernel *k) {
        free(k->page);
}

static void fake_write(FakeKernel *k, const void *rec, size_t n) {
        for (size_t i = 0; i < n; i++)
                k->data[(k->head + i) & (k->size - 1)] = ((const uint8_t *) rec)[i];
        k->head += n;
}

static void fake_publish(FakeKernel *k) {
        __atomic_store_n(&k->page->data_head, k->head, __ATOMIC_RELEASE);
}

static uint64_t fake_tail(const FakeKernel *k) {
        return __atomic_load_n(&k->page->data_tail, __ATOMIC_ACQUIRE);
}

/*
 * A PERF_RECORD_SAMPLE for SAMPLE_TYPE whose raw payload is @raw_size bytes of (seq + i), padded as the
 * kernel pads it: u32 size + data rounded up to 8 bytes (perf_prepare_sample()). Returns the record size.
 */
static size_t make_sample(uint8_t *buf, uint32_t seq, size_t raw_size) {
        uint32_t padded = (uint32_t) (((raw_size + 4 + 7) & ~(size_t) 7) - 4);
        struct perf_event_header h = {
                .type = PERF_RECORD_SAMPLE,
                .size = (uint16_t) (8 + 8 + 8 + 8 + 8 + 4 + padded), /* header, tid, time, cpu, period, raw */
        };
        uint32_t pid_tid[2] = { 100 + seq, 200 + seq }, cpu_res[2] = { seq % 4, 0 };
        uint64_t time = 1000000 + seq, period = 1;
        size_t off = 0;

        memcpy(buf + off, &h, 8), off += 8;
        memcpy(buf + off, pid_tid, 8), off += 8;
        memcpy(buf + off, &time, 8), off += 8;
        memcpy(buf + off, cpu_res, 8), off += 8;
        memcpy(buf + off, &period, 8), off += 8;
        memcpy(buf + off, &padded, 4), off += 4;
        for (uint32_t i = 0; i < padded; i++)
                buf[off + i] = i < raw_size ? (uint8_t) (seq + i) : 0;
        return h.size;
}

static void write_sample(FakeKernel *k, uint32_t seq, size_t raw_size) {
        uint8_t buf[1024];

        fake_write(k, buf, make_sample(buf, seq, raw_size));
}

static void write_lost(FakeKernel *k, uint64_t lost) {
        uint64_t rec[3] = { 0, 7, lost };
        struct perf_event_header h = { .type = PERF_RECORD_LOST, .size = sizeof(rec) };

        memcpy(rec, &h, sizeof(h));
        fake_write(k, rec, sizeof(rec));
}

static void write_other(FakeKernel *k, uint32_t type, uint16_t size) {
        uint8_t buf[256] = {};
        struct perf_event_header h = { .type = type, .size = size };

        memcpy(buf, &h, sizeof(h));
        fake_write(k, buf, size);
}

static bool sample_is(const PerfSampleFields *s, uint32_t seq, size_t raw_size) {
        if (s->pid != 100 + seq || s->tid != 200 + seq || s->time_ns != 1000000 + seq || s->cpu != seq % 4 ||
            s->period != 1 || !s->raw || s->raw_size < raw_size || s->raw_size % 8 != 4)
                return false;
        for (size_t i = 0; i < raw_size; i++)
                if (((const uint8_t *) s->raw)[i] != (uint8_t) (seq + i))
                        return false;
        return true;
}

TEST(empty) {
        _cleanup_(perf_ring_freep) PerfRing *r = NULL;
        FakeKernel k;
        PerfSampleFields s;

        ASSERT_OK(fake_new(&k, 4096, 0));
        ASSERT_OK(perf_ring_new(k.page, SAMPLE_TYPE, &r));
        ASSERT_EQ(perf_ring_data_size(r), 4096);
        ASSERT_EQ(perf_ring_read_begin(r), 0);
        ASSERT_EQ(perf_ring_read_sample(r, &s), 0);
        perf_ring_read_end(r);
        ASSERT_U64_EQ(fake_tail(&k), 0);
        r = perf_ring_free(r);
        fake_free(&k);
}

TEST(samples_in_order) {
        _cleanup_(perf_ring_freep) PerfRing *r = NULL;
        FakeKernel k;
        PerfSampleFields s;

        ASSERT_OK(fake_new(&k, 4096, 0));
        ASSERT_OK(perf_ring_new(k.page, SAMPLE_TYPE, &r));
        for (uint32_t i = 0; i < 10; i++)
                write_sample(&k, i, 64);
        fake_publish(&k);

        ASSERT_U64_EQ(perf_ring_read_begin(r), k.head);
        for (uint32_t i = 0; i < 10; i++) {
                ASSERT_EQ(perf_ring_read_sample(r, &s), 1);
                ASSERT_TRUE(sample_is(&s, i, 64));
        }
        ASSERT_EQ(perf_ring_read_sample(r, &s), 0);
        ASSERT_U64_EQ(fake_tail(&k), 0); /* not handed back before read_end */
        perf_ring_read_end(r);
        ASSERT_U64_EQ(fake_tail(&k), k.head);
        ASSERT_U64_EQ(perf_ring_stats(r)->samples, 10);
        r = perf_ring_free(r);
        fake_free(&k);
}

TEST(straddling_record_is_copied) {
        _cleanup_(perf_ring_freep) PerfRing *r = NULL;
        FakeKernel k;
        PerfSampleFields s;

        /* 512-byte ring, reader and writer at 480: the next 96-byte record wraps after 32 bytes */
        ASSERT_OK(fake_new(&k, 512, 480));
        ASSERT_OK(perf_ring_new(k.page, SAMPLE_TYPE, &r));
        write_sample(&k, 1, 48);
        write_sample(&k, 2, 48);
        fake_publish(&k);

        ASSERT_EQ(perf_ring_read_begin(r), 192);
        ASSERT_EQ(perf_ring_read_sample(r, &s), 1);
        ASSERT_TRUE(sample_is(&s, 1, 48));
        ASSERT_TRUE((const uint8_t *) s.raw < k.data || (const uint8_t *) s.raw >= k.data + k.size); /* a copy */
        ASSERT_EQ(perf_ring_read_sample(r, &s), 1);
        ASSERT_TRUE(sample_is(&s, 2, 48));
        ASSERT_TRUE((const uint8_t *) s.raw >= k.data && (const uint8_t *) s.raw < k.data + k.size); /* in place */
        ASSERT_EQ(perf_ring_read_sample(r, &s), 0);
        perf_ring_read_end(r);
        ASSERT_U64_EQ(fake_tail(&k), 480 + 192);
        r = perf_ring_free(r);
        fake_free(&k);
}

TEST(head_wraps_around_u64) {
        _cleanup_(perf_ring_freep) PerfRing *r = NULL;
        FakeKernel k;
        PerfSampleFields s;

        ASSERT_OK(fake_new(&k, 1024, UINT64_MAX - 63));
        ASSERT_OK(perf_ring_new(k.page, SAMPLE_TYPE, &r));
        for (uint32_t i = 0; i < 5; i++)
                write_sample(&k, i, 40);
        fake_publish(&k);
        ASSERT_TRUE(k.head < 1024); /* wrapped */
        ASSERT_EQ(perf_ring_read_begin(r), 5 * 88);
        for (uint32_t i = 0; i < 5; i++) {
                ASSERT_EQ(perf_ring_read_sample(r, &s), 1);
                ASSERT_TRUE(sample_is(&s, i, 40));
        }
        perf_ring_read_end(r);
        ASSERT_U64_EQ(fake_tail(&k), k.head);
        ASSERT_U64_EQ(perf_ring_stats(r)->overruns, 0);
        r = perf_ring_free(r);
        fake_free(&k);
}

/* Many laps with varying record sizes and batch sizes: every sample comes back once, in order. */
TEST(many_laps) {
        _cleanup_(perf_ring_freep) PerfRing *r = NULL;
        uint32_t written = 0, read = 0;
        uint64_t seed = 42;
        FakeKernel k;
        PerfSampleFields s;

        ASSERT_OK(fake_new(&k, 2048, 0));
        ASSERT_OK(perf_ring_new(k.page, SAMPLE_TYPE, &r));
        while (read < 20000) {
                /* write what fits, as the kernel would (it never passes data_tail) */
                for (unsigned n = (unsigned) (seed % 13); n > 0; n--) {
                        size_t raw = 1 + (written * 7) % 200;
                        size_t need = 44 + (((raw + 4 + 7) & ~(size_t) 7) - 4);

                        if (k.head + need - fake_tail(&k) > k.size)
                                break;
                        write_sample(&k, written++, raw);
                }
                fake_publish(&k);
                seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;

                (void) perf_ring_read_begin(r);
                for (unsigned n = (unsigned) ((seed >> 33) % 9); n > 0; n--) { /* sometimes stop early */
                        int q = perf_ring_read_sample(r, &s);

                        ASSERT_TRUE(q >= 0);
                        if (q == 0)
                                break;
                        ASSERT_TRUE(sample_is(&s, read, 1 + (read * 7) % 200));
                        read++;
                }
                perf_ring_read_end(r);
        }
        ASSERT_U64_EQ(perf_ring_stats(r)->samples, read);
        ASSERT_U64_EQ(perf_ring_stats(r)->malformed + perf_ring_stats(r)->overruns, 0);
        ASSERT_TRUE(k.head > 50 * k.size);
        r = perf_ring_free(r);
        fake_free(&k);
}

TEST(lost_and_unknown_records) {
        _cleanup_(perf_ring_freep) PerfRing *r = NULL;
        uint64_t lost_samples[2] = { 0, 5 };
        struct perf_event_header h = { .type = PERF_RECORD_LOST_SAMPLES, .size = 16 };
        FakeKernel k;
        PerfSampleFields s;

        ASSERT_OK(fake_new(&k, 4096, 0));
        ASSERT_OK(perf_ring_new(k.page, SAMPLE_TYPE, &r));
        write_sample(&k, 1, 16);
        write_lost(&k, 1234);
        write_other(&k, PERF_RECORD_THROTTLE, 24);
        write_other(&k, 0x7777, 64); /* a type from the future */
        memcpy(lost_samples, &h, sizeof(h));
        fake_write(&k, lost_samples, sizeof(lost_samples));
        write_sample(&k, 2, 16);
        fake_publish(&k);

        (void) perf_ring_read_begin(r);
        ASSERT_EQ(perf_ring_read_sample(r, &s), 1);
        ASSERT_TRUE(sample_is(&s, 1, 16));
        ASSERT_EQ(perf_ring_read_sample(r, &s), 1);
        ASSERT_TRUE(sample_is(&s, 2, 16));
        ASSERT_EQ(perf_ring_read_sample(r, &s), 0);
        perf_ring_read_end(r);
        ASSERT_U64_EQ(perf_ring_stats(r)->lost, 1234 + 5);
        ASSERT_U64_EQ(perf_ring_stats(r)->other, 2);
        ASSERT_U64_EQ(perf_ring_stats(r)->samples, 2);
        ASSERT_U64_EQ(fake_tail(&k), k.head);
        r = perf_ring_free(r);
        fake_free(&k);
}

TEST(overrun_skips_ahead) {
        _cleanup_(perf_ring_freep) PerfRing *r = NULL;
        FakeKernel k;
        PerfSampleFields s;

        ASSERT_OK(fake_new(&k, 1024, 0));
        ASSERT_OK(perf_ring_new(k.page, SAMPLE_TYPE, &r));
        /* a writer that ignored data_tail: 2.5 laps of records */
        for (uint32_t i = 0; i < 30; i++)
                write_sample(&k, i, 40); /* 88 bytes each */
        fake_publish(&k);

        ASSERT_EQ(perf_ring_read_begin(r), 0);
        ASSERT_EQ(perf_ring_read_sample(r, &s), 0);
        perf_ring_read_end(r);
        ASSERT_U64_EQ(perf_ring_stats(r)->overruns, 1);
        ASSERT_U64_EQ(fake_tail(&k), k.head);

        /* and carries on from there */
        write_sample(&k, 99, 40);
        fake_publish(&k);
        ASSERT_EQ(perf_ring_read_begin(r), 88);
        ASSERT_EQ(perf_ring_read_sample(r, &s), 1);
        ASSERT_TRUE(sample_is(&s, 99, 40));
        perf_ring_read_end(r);
        ASSERT_U64_EQ(perf_ring_stats(r)->overruns, 1);
        r = perf_ring_free(r);
        fake_free(&k);
}

TEST(partial_read_keeps_the_rest) {
        _cleanup_(perf_ring_freep) PerfRing *r = NULL;
        FakeKernel k;
        PerfSampleFields s;

        ASSERT_OK(fake_new(&k, 4096, 0));
        ASSERT_OK(perf_ring_new(k.page, SAMPLE_TYPE, &r));
        write_sample(&k, 1, 8);
        write_sample(&k, 2, 8);
        fake_publish(&k);

        (void) perf_ring_read_begin(r);
        ASSERT_EQ(perf_ring_read_sample(r, &s), 1);
        perf_ring_read_end(r);
        ASSERT_U64_EQ(fake_tail(&k), 56);
        (void) perf_ring_read_begin(r);
        ASSERT_EQ(perf_ring_read_sample(r, &s), 1);
        ASSERT_TRUE(sample_is(&s, 2, 8));
        perf_ring_read_end(r);
        ASSERT_U64_EQ(fake_tail(&k), 112);
        r = perf_ring_free(r);
        fake_free(&k);
}

TEST(malformed_records) {
        _cleanup_(perf_ring_freep) PerfRing *r = NULL;
        uint8_t buf[256];
        uint32_t big = 200;
        FakeKernel k;
        PerfSampleFields s;
        size_t n;

        ASSERT_OK(fake_new(&k, 4096, 0));
        ASSERT_OK(perf_ring_new(k.page, SAMPLE_TYPE, &r));

        /* a sample whose raw size runs past its record: skipped, the next one still read */
        n = make_sample(buf, 1, 16);
        memcpy(buf + 40, &big, 4);
        fake_write(&k, buf, n);
        /* a sample too short for its sample_type */
        write_other(&k, PERF_RECORD_SAMPLE, 24);
        write_sample(&k, 2, 16);
        fake_publish(&k);
        (void) perf_ring_read_begin(r);
        ASSERT_EQ(perf_ring_read_sample(r, &s), 1);
        ASSERT_TRUE(sample_is(&s, 2, 16));
        perf_ring_read_end(r);
        ASSERT_U64_EQ(perf_ring_stats(r)->malformed, 2);

        /* a header of size 0, one not 8-aligned, one past head: the rest of the read is dropped */
        static const uint16_t bad_sizes[] = { 0, 12, 4000 };
        for (size_t i = 0; i < ELEMENTSOF(bad_sizes); i++) {
                struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = bad_sizes[i] };

                fake_write(&k, &h, sizeof(h));
                k.head += 8; /* the writer claims 16 bytes */
                write_sample(&k, 3, 16);
                fake_publish(&k);
                (void) perf_ring_read_begin(r);
                ASSERT_EQ(perf_ring_read_sample(r, &s), 0);
                perf_ring_read_end(r);
                ASSERT_U64_EQ(fake_tail(&k), k.head);
        }
        ASSERT_U64_EQ(perf_ring_stats(r)->malformed, 5);
        r = perf_ring_free(r);
        fake_free(&k);
}

TEST(bad_setup) {
        PerfRing *r = NULL;
        FakeKernel k;

        ASSERT_OK(fake_new(&k, 4096, 0));
        ASSERT_ERROR(perf_ring_new(k.page, SAMPLE_TYPE | PERF_SAMPLE_CALLCHAIN, &r), EOPNOTSUPP);
        k.page->data_size = 3000;
        ASSERT_ERROR(perf_ring_new(k.page, SAMPLE_TYPE, &r), EINVAL);
        k.page->data_size = 4096;
        k.page->data_offset = 0;
        ASSERT_ERROR(perf_ring_new(k.page, SAMPLE_TYPE, &r), EINVAL);
        ASSERT_ERROR(perf_ring_mmap(-1, 3, SAMPLE_TYPE, &r), EINVAL);
        ASSERT_ERROR(perf_ring_mmap(-1, 4, SAMPLE_TYPE, &r), EBADF);
        ASSERT_TRUE(r == NULL);
        ASSERT_TRUE(perf_ring_free(NULL) == NULL);
        fake_free(&k);
}

DEFINE_TEST_MAIN
