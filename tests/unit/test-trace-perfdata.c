/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests for the perf.data reader (trace-perfdata.c, perf-sample.c, perf-tracing-data.c, perf-round-queue.c):
 *   - tests/fixtures/perf-data/hog.data (`perf record --synth=no -k CLOCK_MONOTONIC -e sched:sched_switch,…,
 *     sched:sched_stat_runtime -a -- hog --cpu 1 --seconds 0.1`, perf 6.1 on 6.18) gives, sample for sample, the
 *     events the text parser reads from its `perf script --ns` (hog.txt), in the same order;
 *   - the same file truncated at many lengths and with bytes overwritten: 0 or -EBADMSG with a reason, never a
 *     read outside it (the copies are exact-size heap blocks: run under ASan, `make check` does);
 *   - the forms refused, each with its reason; lost events counted;
 *   - the round queue delivers in the order perf's ordered_events does (a literal model of its list, on random
 *     rounds of per-CPU runs).
 */

#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "macro.h"
#include "perf-round-queue.h"
#include "perf-tracing-data.h"
#include "test.h"

#define HOG_DATA FIXTURES "/perf-data/hog.data"
#define HOG_TEXT FIXTURES "/perf-data/hog.txt"

static uint8_t *read_file(const char *path, size_t *ret_size) {
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        uint8_t *buf;
        long n;

        if (!f || fseek(f, 0, SEEK_END) < 0 || (n = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET) < 0)
                return NULL;
        buf = malloc((size_t) n);
        if (buf && fread(buf, 1, (size_t) n, f) != (size_t) n) {
                free(buf);
                return NULL;
        }
        *ret_size = (size_t) n;
        return buf;
}

static bool read_ok_or_reason(const uint8_t *p, size_t size, int *ret);

/* ---- the same events as perf script's text ---- */

typedef struct Compare {
        FILE *text;
        TraceTextFormat format;
        uint64_t matched, others;
        bool failed;
        char why[256];
} Compare;

static bool comm_eq(const char *a, const char *b) {
        return strncmp(a, b, TASK_COMM_LEN) == 0;
}

static bool events_equal(const SchedEvent *a, const SchedEvent *b) {
        if (a->type != b->type || a->time_ns != b->time_ns || a->cpu != b->cpu || a->has_context != b->has_context ||
            (a->has_context && a->context_pid != b->context_pid))
                return false;
        switch (a->type) {
        case SCHED_EVENT_SWITCH:
                return comm_eq(a->sw.prev_comm, b->sw.prev_comm) && a->sw.prev_pid == b->sw.prev_pid &&
                       a->sw.prev_prio == b->sw.prev_prio && a->sw.prev_runnable == b->sw.prev_runnable &&
                       comm_eq(a->sw.next_comm, b->sw.next_comm) && a->sw.next_pid == b->sw.next_pid &&
                       a->sw.next_prio == b->sw.next_prio;
        case SCHED_EVENT_WAKEUP:
        case SCHED_EVENT_WAKEUP_NEW:
                return comm_eq(a->wakeup.comm, b->wakeup.comm) && a->wakeup.pid == b->wakeup.pid &&
                       a->wakeup.prio == b->wakeup.prio && a->wakeup.target_cpu == b->wakeup.target_cpu;
        case SCHED_EVENT_MIGRATE:
                return comm_eq(a->migrate.comm, b->migrate.comm) && a->migrate.pid == b->migrate.pid &&
                       a->migrate.orig_cpu == b->migrate.orig_cpu && a->migrate.dest_cpu == b->migrate.dest_cpu;
        case SCHED_EVENT_EXIT:
                return comm_eq(a->exit.comm, b->exit.comm) && a->exit.pid == b->exit.pid;
        case SCHED_EVENT_RUNTIME:
                return comm_eq(a->runtime.comm, b->runtime.comm) && a->runtime.pid == b->runtime.pid &&
                       a->runtime.runtime_ns == b->runtime.runtime_ns;
        default:
                return true;
        }
}

static int on_compare(const SchedEvent *ev, uint64_t index, uint64_t lost, void *userdata) {
        Compare *c = userdata;
        _cleanup_free_ char *line = NULL;
        const char *reason = NULL;
        SchedEvent want = {};
        size_t size = 0;
        int r;

        if (getline(&line, &size, c->text) < 0) {
                snprintf(c->why, sizeof(c->why), "sample %" PRIu64 ": the text has no line for it", index);
                return -EIO;
        }
        r = trace_parse_line_format(line, &c->format, &want, &reason);
        if (r == TRACE_LINE_EVENT && ev && events_equal(ev, &want)) {
                c->matched++;
                return 0;
        }
        if (r == TRACE_LINE_OTHER && !ev) {
                c->others++;
                return 0;
        }
        snprintf(c->why, sizeof(c->why), "sample %" PRIu64 " differs from line: %s", index, line);
        return -EIO;
}

TEST(same_events_as_perf_script) {
        _cleanup_(perf_data_freep) PerfData *d = NULL;
        _cleanup_free_ char *error = NULL, *rest = NULL;
        _cleanup_fclose_ FILE *text = fopen(HOG_TEXT, "re");
        _cleanup_free_ uint8_t *buf = NULL;
        Compare c = { .text = text };
        size_t size = 0, n = 0;
        uint64_t index = 0;
        int r;

        ASSERT_TRUE(text);
        buf = read_file(HOG_DATA, &size);
        ASSERT_TRUE(buf);
        r = perf_data_open_memory(buf, size, &d, &error);
        if (r < 0)
                TEST_FAIL("open: %s", error ? error : strerror(-r));
        r = perf_data_iterate(d, on_compare, &c, &index, &error);
        if (r < 0)
                TEST_FAIL("%s", r == -EIO ? c.why : error ? error : strerror(-r));
        ASSERT_TRUE(getline(&rest, &n, text) < 0); /* every line had its sample */
        ASSERT_U64_EQ(c.matched + c.others, index);
        ASSERT_TRUE(c.matched > 500);
        ASSERT_U64_EQ(perf_data_stats(d)->samples, index);
        /* Twice: the replay's tick measure reads the first samples, then the replay all of them. */
        rewind(text);
        c = (Compare) { .text = text };
        ASSERT_OK(perf_data_iterate(d, on_compare, &c, &index, &error));
        ASSERT_U64_EQ(c.matched + c.others, index);
}

/*
 * hog.data rewritten in pipe mode, as `perf record -o -` writes it: { magic, 16 }, a PERF_RECORD_HEADER_ATTR per
 * attr (the attr, then its ids), a PERF_RECORD_HEADER_TRACING_DATA { header, u32 size, u32 pad } followed by the
 * tracing data padded to 8 bytes, then the data section's records. Returns the malloc'd file, or NULL.
 */
static uint8_t *to_pipe_mode(const uint8_t *buf, size_t size, size_t *ret_size) {
        uint64_t attr_size, attrs[2], data[2], feat[4], tracing[2], magic_size[2] = { 0, 16 };
        uint8_t *out, *p;

        memcpy(&attr_size, buf + 16, 8);
        memcpy(attrs, buf + 24, 16);
        memcpy(data, buf + 40, 16);
        memcpy(feat, buf + 72, 32);
        if (!(feat[0] & 2))
                return NULL;
        memcpy(tracing, buf + data[0] + data[1], 16); /* HEADER_TRACING_DATA, the first feature section */
        out = p = calloc(1, size + attrs[1] * 4 + 64);
        if (!out)
                return NULL;
        memcpy(magic_size, buf, 8);
        memcpy(p, magic_size, 16);
        p += 16;
        for (uint64_t a = attrs[0]; a < attrs[0] + attrs[1]; a += attr_size) {
                uint32_t size_of_attr;
                uint64_t ids[2];
                struct perf_event_header h = { .type = 64 };

                memcpy(&size_of_attr, buf + a + 4, 4);
                memcpy(ids, buf + a + size_of_attr, 16);
                h.size = (uint16_t) (sizeof(h) + size_of_attr + ids[1]);
                memcpy(p, &h, sizeof(h));
                memcpy(p + sizeof(h), buf + a, size_of_attr);
                memcpy(p + sizeof(h) + size_of_attr, buf + ids[0], ids[1]);
                p += h.size;
        }
        {
                struct perf_event_header h = { .type = 66, .size = 16 };
                uint32_t aligned = (uint32_t) ((tracing[1] + 7) / 8 * 8);

                memcpy(p, &h, sizeof(h));
                memcpy(p + 8, &aligned, 4);
                memcpy(p + 16, buf + tracing[0], tracing[1]);
                p += 16 + aligned;
        }
        memcpy(p, buf + data[0], data[1]);
        p += data[1];
        *ret_size = (size_t) (p - out);
        return out;
}

TEST(pipe_mode_same_events) {
        _cleanup_(perf_data_freep) PerfData *d = NULL;
        _cleanup_free_ char *error = NULL;
        _cleanup_fclose_ FILE *text = fopen(HOG_TEXT, "re");
        _cleanup_free_ uint8_t *buf = NULL, *pipe = NULL;
        Compare c = { .text = text };
        size_t size = 0, pipe_size = 0;
        uint64_t index = 0;
        int r;

        ASSERT_TRUE(text);
        buf = read_file(HOG_DATA, &size);
        ASSERT_TRUE(buf);
        pipe = to_pipe_mode(buf, size, &pipe_size);
        ASSERT_TRUE(pipe);
        r = perf_data_open_memory(pipe, pipe_size, &d, &error);
        if (r < 0)
                TEST_FAIL("open: %s", error ? error : strerror(-r));
        r = perf_data_iterate(d, on_compare, &c, &index, &error);
        if (r < 0)
                TEST_FAIL("%s", r == -EIO ? c.why : error ? error : strerror(-r));
        ASSERT_TRUE(c.matched > 500);
        ASSERT_U64_EQ(c.matched + c.others, index);
        /* Cut short anywhere: 0 or an error with its reason. */
        for (size_t n = 16; n < pipe_size; n += n < 2000 ? 7 : 997) {
                int rn;

                if (!read_ok_or_reason(pipe, n, &rn))
                        TEST_FAIL("pipe mode cut at %zu: %d without a reason", n, rn);
        }
}

/* ---- malformed files ---- */

static int on_nothing(const SchedEvent *ev, uint64_t index, uint64_t lost, void *userdata) {
        return 0;
}

/* Opens and reads @size bytes (an exact-size copy): 0, or -EBADMSG with a reason. False if the contract broke. */
static bool read_ok_or_reason(const uint8_t *p, size_t size, int *ret) {
        _cleanup_(perf_data_freep) PerfData *d = NULL;
        _cleanup_free_ char *error = NULL, *reason = NULL;
        _cleanup_free_ uint8_t *copy = malloc(size ? size : 1);
        uint64_t index = 0;
        int r;

        if (!copy)
                return false;
        memcpy(copy, p, size);
        r = perf_data_open_memory(copy, size, &d, &error);
        if (r == 0)
                r = perf_data_iterate(d, on_nothing, NULL, &index, &reason);
        *ret = r;
        if (r == 0)
                return true;
        return r == -EBADMSG && (error || reason);
}

TEST(truncated) {
        _cleanup_free_ uint8_t *buf = NULL;
        size_t size = 0;
        unsigned errors = 0;

        buf = read_file(HOG_DATA, &size);
        ASSERT_TRUE(buf);
        /* Every length through the header and the attrs, then every 409th. */
        for (size_t n = 0; n < size; n += n < 1300 ? 1 : 409) {
                int r;

                if (!read_ok_or_reason(buf, n, &r))
                        TEST_FAIL("cut at %zu of %zu bytes: %d without a reason", n, size, r);
                errors += r < 0;
        }
        ASSERT_TRUE(errors > 0);
}

TEST(corrupt) {
        static const uint8_t values[] = { 0x00, 0xff, 0x80 };
        _cleanup_free_ uint8_t *buf = NULL;
        size_t size = 0;

        buf = read_file(HOG_DATA, &size);
        ASSERT_TRUE(buf);
        /* Each byte of the header and the first attrs, then every 263rd, overwritten with each value in turn. */
        for (size_t at = 0; at < size; at += at < 400 ? 1 : 263) {
                uint8_t saved = buf[at];

                for (size_t v = 0; v < ELEMENTSOF(values); v++) {
                        int r;

                        buf[at] = values[v];
                        if (!read_ok_or_reason(buf, size, &r))
                                TEST_FAIL("byte %zu set to 0x%02x: %d without a reason", at, values[v], r);
                }
                buf[at] = saved;
        }
}

/* The tracing data section alone, cut at every 31st length into an exact-size copy: 0 or -EBADMSG with a reason. */
TEST(tracing_data_cut) {
        _cleanup_free_ uint8_t *buf = NULL;
        uint64_t data_offset, data_size, features[4], section[2];
        size_t size = 0;
        unsigned ok = 0;

        buf = read_file(HOG_DATA, &size);
        ASSERT_TRUE(buf);
        memcpy(&data_offset, buf + 40, 8);
        memcpy(&data_size, buf + 48, 8);
        memcpy(features, buf + 72, sizeof(features));
        ASSERT_TRUE(features[0] & 2); /* HEADER_TRACING_DATA, the first feature (bit 0 is reserved) */
        memcpy(section, buf + data_offset + data_size, sizeof(section));
        ASSERT_TRUE(section[0] + section[1] <= size);
        for (size_t n = 0; n <= section[1]; n += n + 31 > section[1] && n < section[1] ? section[1] - n : 31) {
                _cleanup_free_ uint8_t *copy = malloc(n ? n : 1);
                _cleanup_free_ char *error = NULL;
                TpFormat f;
                int r;

                ASSERT_TRUE(copy);
                memcpy(copy, buf + section[0], n);
                r = perf_tracing_data_parse(copy, n, "tracing data", &f, &error);
                if (r < 0 && (r != -EBADMSG || !error))
                        TEST_FAIL("cut at %zu of %" PRIu64 ": %d without a reason", n, section[1], r);
                if (r == 0) {
                        ok++;
                        ASSERT_TRUE(n == section[1]);
                        ASSERT_TRUE(f.events[SCHED_EVENT_SWITCH].present && f.events[SCHED_EVENT_RUNTIME].present);
                }
                if (n == section[1])
                        break;
        }
        ASSERT_EQ(ok, 1);
}

static void expect_open_error(const uint8_t *p, size_t size, const char *want) {
        _cleanup_(perf_data_freep) PerfData *d = NULL;
        _cleanup_free_ char *error = NULL;
        int r = perf_data_open_memory(p, size, &d, &error);

        ASSERT_ERROR(r, EBADMSG);
        if (!error || !strstr(error, want))
                TEST_FAIL("\"%s\" not in \"%s\"", want, error ? error : "(null)");
}

TEST(refused_forms) {
        _cleanup_free_ uint8_t *buf = NULL;
        uint8_t head[104] = {};
        uint64_t v;
        size_t size = 0;

        buf = read_file(HOG_DATA, &size);
        ASSERT_TRUE(buf);
        ASSERT_TRUE(perf_data_magic(buf, size));
        ASSERT_TRUE(!perf_data_magic("PERFILE", 7));

        memcpy(head, "2ELIFREP", 8);
        expect_open_error(head, sizeof(head), "other byte order");
        memcpy(head, "PERFFILE", 8);
        expect_open_error(head, sizeof(head), "version 1");
        memcpy(head, "PERFILE2", 8);
        v = 16;
        memcpy(head + 8, &v, 8);
        expect_open_error(head, sizeof(head), "pipe-mode perf.data without attrs");
        expect_open_error(head, 10, "truncated");

        /* No data: what a perf record killed before it finished leaves. */
        memcpy(head, buf, sizeof(head));
        memset(head + 48, 0, 8); /* data.size */
        {
                _cleanup_free_ uint8_t *copy = malloc(size);

                ASSERT_TRUE(copy);
                memcpy(copy, buf, size);
                memcpy(copy, head, sizeof(head));
                expect_open_error(copy, size, "no data");
        }
        /* The attrs section past the end of the file. */
        expect_open_error(buf, 200, "attrs section");
}

/* A COMM record made a PERF_RECORD_LOST: counted as a place where events were lost, nothing else changes. */
TEST(lost_counted) {
        _cleanup_(perf_data_freep) PerfData *d = NULL;
        _cleanup_free_ char *error = NULL;
        _cleanup_free_ uint8_t *buf = NULL;
        uint64_t data_offset, data_size, off, index = 0, samples;
        size_t size = 0;
        bool patched = false;

        buf = read_file(HOG_DATA, &size);
        ASSERT_TRUE(buf);
        ASSERT_OK(perf_data_open_memory(buf, size, &d, &error));
        ASSERT_OK(perf_data_iterate(d, on_nothing, NULL, &index, &error));
        ASSERT_U64_EQ(perf_data_stats(d)->lost_records, 0);
        samples = index;
        d = perf_data_free(d);

        memcpy(&data_offset, buf + 40, 8); /* struct perf_file_header: data.offset, data.size */
        memcpy(&data_size, buf + 48, 8);
        for (off = data_offset; off < data_offset + data_size;) {
                struct perf_event_header h;

                memcpy(&h, buf + off, sizeof(h));
                if (h.type == PERF_RECORD_COMM && h.size >= 32) {
                        h.type = PERF_RECORD_LOST;
                        memcpy(buf + off, &h, sizeof(h));
                        patched = true;
                        break;
                }
                off += h.size;
        }
        ASSERT_TRUE(patched);
        ASSERT_OK(perf_data_open_memory(buf, size, &d, &error));
        ASSERT_OK(perf_data_iterate(d, on_nothing, NULL, &index, &error));
        ASSERT_U64_EQ(perf_data_stats(d)->lost_records, 1);
        ASSERT_U64_EQ(index, samples);
}

/* ---- the round queue against a literal model of perf's ordered_events ---- */

#define MODEL_MAX 4096

typedef struct Model {
        PerfRoundEntry list[MODEL_MAX]; /* sorted, as perf's list */
        size_t n;
        uint64_t max_ts, next_flush;
        uint64_t out[MODEL_MAX];
        size_t n_out;
} Model;

/* queue_event(): after every queued record not later than it. */
static void model_queue(Model *m, uint64_t ts, uint64_t offset) {
        size_t i = m->n;

        while (i > 0 && m->list[i - 1].time_ns > ts)
                i--;
        memmove(m->list + i + 1, m->list + i, (m->n - i) * sizeof(m->list[0]));
        m->list[i] = (PerfRoundEntry) { ts, offset };
        if (m->n == 0 || i == m->n)
                m->max_ts = ts;
        m->n++;
}

/* __ordered_events__flush(OE_FLUSH__ROUND) and do_flush(). */
static void model_flush(Model *m, uint64_t limit) {
        size_t i = 0;

        while (i < m->n && m->list[i].time_ns <= limit)
                m->out[m->n_out++] = m->list[i++].offset;
        memmove(m->list, m->list + i, (m->n - i) * sizeof(m->list[0]));
        m->n -= i;
}

static void model_round(Model *m) {
        if (m->n == 0)
                return;
        if (m->next_flush)
                model_flush(m, m->next_flush);
        m->next_flush = m->max_ts;
}

typedef struct Delivered {
        uint64_t out[MODEL_MAX];
        size_t n;
} Delivered;

static int on_deliver(uint64_t offset, void *userdata) {
        Delivered *d = userdata;

        d->out[d->n++] = offset;
        return 0;
}

TEST(round_queue_as_perf) {
        static Model m;
        static Delivered got;

        srand(25);
        for (int trial = 0; trial < 200; trial++) {
                PerfRoundQueue q;
                uint64_t offset = 1, cpu_ts[3] = { 1000, 1000, 1000 };

                memset(&m, 0, sizeof(m));
                memset(&got, 0, sizeof(got));
                perf_round_queue_init(&q, on_deliver, &got);
                for (int round = 0; round < 20; round++) {
                        /* Each CPU's ring in turn: ascending times, ties and a rare late one. */
                        for (int cpu = 0; cpu < 3; cpu++)
                                for (int k = rand() % 12; k > 0; k--) {
                                        uint64_t ts = (cpu_ts[cpu] += (uint64_t) (rand() % 50));

                                        if (rand() % 40 == 0)
                                                ts -= MIN(ts, (uint64_t) (rand() % 400));
                                        model_queue(&m, ts, offset);
                                        ASSERT_OK(perf_round_queue_push(&q, ts, offset));
                                        offset++;
                                }
                        model_round(&m);
                        ASSERT_OK(perf_round_queue_round(&q));
                }
                model_flush(&m, UINT64_MAX);
                ASSERT_OK(perf_round_queue_finish(&q));
                perf_round_queue_done(&q);
                ASSERT_U64_EQ(got.n, m.n_out);
                for (size_t i = 0; i < got.n; i++)
                        if (got.out[i] != m.out[i])
                                TEST_FAIL("trial %d: record %zu delivered %" PRIu64 ", perf %" PRIu64, trial, i,
                                          got.out[i], m.out[i]);
        }
}

DEFINE_TEST_MAIN
