/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests for sched-event.c: type names, and for tp-decode.c: decoding raw tracepoint records built from the
 * fixture layouts (6.18 with __data_loc comms and without sched_stat_iowait, 6.18-schedstats with it, 6.1 and 4.9 with char[16]), cut short, with bad __data_loc words, and random
 * bytes. Records are copied into exact-size heap buffers so that ASan catches any read past the end.
 */

#include "macro.h"
#include "test.h"
#include "tp-decode.h"
#include "tp-format.h"

#define FORMATS FIXTURES "/formats"
#define RECORD_MAX 256

static const char *const layouts[] = { "6.18", "6.18-schedstats", "6.1", "4.9" };

typedef struct Record {
        uint8_t data[RECORD_MAX];
        size_t size;
} Record;

static void put_int(Record *rec, const TpField *f, int64_t v) {
        uint64_t u = (uint64_t) v;

        /* little-endian, like the x86_64 kernel that wrote the fixtures */
        for (unsigned i = 0; i < f->size; i++)
                rec->data[f->offset + i] = (uint8_t) (u >> (8 * i));
}

/*
 * Writes a comm the way the kernel does: in place for char[N], appended after the fixed fields for
 * __data_loc (include/trace/stages/stage5_get_offsets.h), with len counting the NUL.
 */
static void put_comm(Record *rec, const TpField *f, const char *s) {
        size_t len = strlen(s) + 1;
        uint32_t loc;

        if (!f->data_loc) {
                memset(rec->data + f->offset, 0, f->size);
                memcpy(rec->data + f->offset, s, MIN(len - 1, (size_t) f->size));
                return;
        }
        memcpy(rec->data + rec->size, s, len);
        loc = (uint32_t) (len << 16) |
              (uint32_t) (rec->size - (f->rel_loc ? (size_t) f->offset + f->size : 0));
        memcpy(rec->data + f->offset, &loc, sizeof(loc));
        rec->size += len;
}

/* Size of the fixed part: the end of the last field, optional ones included (the entry struct). */
static size_t fixed_size(const TpEvent *e) {
        size_t end = 0;

        for (unsigned i = 0; i < _TP_FIELD_MAX; i++)
                if (e->fields[i].present)
                        end = MAX(end, (size_t) e->fields[i].offset + e->fields[i].size);
        return end;
}

static bool has_data_loc(const TpEvent *e) {
        for (unsigned i = 0; i < _TP_FIELD_MAX; i++)
                if (e->fields[i].present && e->fields[i].data_loc)
                        return true;
        return false;
}

/* A record of @type with recognisable values: pid 1000+type, prio 120 (or -1), cpus 1 → 0. */
static void build_record(const TpFormat *f, SchedEventType type, const char *comm, Record *rec) {
        const TpEvent *e = &f->events[type];
        const TpField *fl = e->fields;

        memset(rec, 0, sizeof(*rec));
        rec->size = fixed_size(e);
        put_int(rec, &f->common_type, e->id);
        if (type == SCHED_EVENT_SWITCH) {
                put_comm(rec, &fl[TP_FIELD_PREV_COMM], comm);
                put_int(rec, &fl[TP_FIELD_PREV_PID], 1000);
                put_int(rec, &fl[TP_FIELD_PREV_PRIO], -1);
                put_int(rec, &fl[TP_FIELD_PREV_STATE], (int64_t) f->preempt_mask);
                put_comm(rec, &fl[TP_FIELD_NEXT_COMM], "swapper/1");
                put_int(rec, &fl[TP_FIELD_NEXT_PID], 0);
                put_int(rec, &fl[TP_FIELD_NEXT_PRIO], 120);
                return;
        }
        if (type == SCHED_EVENT_CPU_FREQUENCY) {
                put_int(rec, &fl[TP_FIELD_STATE], 2400000);
                put_int(rec, &fl[TP_FIELD_CPU_ID], 1);
                return;
        }
        put_comm(rec, &fl[TP_FIELD_COMM], comm);
        put_int(rec, &fl[TP_FIELD_PID], 1000 + type);
        if (fl[TP_FIELD_PRIO].present)
                put_int(rec, &fl[TP_FIELD_PRIO], -1);
        if (fl[TP_FIELD_TARGET_CPU].present)
                put_int(rec, &fl[TP_FIELD_TARGET_CPU], 1);
        if (fl[TP_FIELD_SUCCESS].present)
                put_int(rec, &fl[TP_FIELD_SUCCESS], 1);
        if (fl[TP_FIELD_ORIG_CPU].present) {
                put_int(rec, &fl[TP_FIELD_ORIG_CPU], 1);
                put_int(rec, &fl[TP_FIELD_DEST_CPU], 0);
        }
        if (fl[TP_FIELD_RUNTIME].present)
                put_int(rec, &fl[TP_FIELD_RUNTIME], INT64_C(5000000123));
        if (fl[TP_FIELD_DELAY].present)
                put_int(rec, &fl[TP_FIELD_DELAY], INT64_C(7000000456));
}

/* Decodes the first @size bytes of @rec from an exact-size heap copy. */
static int decode_exact(const TpFormat *f, const Record *rec, size_t size, SchedEvent *ret) {
        _cleanup_free_ uint8_t *copy = malloc(MAX(size, (size_t) 1));

        if (!copy)
                return -ENOMEM;
        memcpy(copy, rec->data, size);
        return sched_event_decode(f, copy, size, ret);
}

TEST(type_strings) {
        for (SchedEventType t = 0; t < _SCHED_EVENT_TYPE_MAX; t++) {
                char buf[64];

                ASSERT_EQ(sched_event_type_from_string(sched_event_type_to_string(t)), t);
                snprintf(buf, sizeof(buf), "%s:%s", sched_event_type_subsystem(t), sched_event_type_to_string(t));
                ASSERT_EQ(sched_event_type_from_string(buf), t);
        }
        ASSERT_EQ(sched_event_type_from_string("power:cpu_frequency"), SCHED_EVENT_CPU_FREQUENCY);
        ASSERT_EQ(sched_event_type_from_string("sched:cpu_frequency"), _SCHED_EVENT_TYPE_INVALID);
        ASSERT_EQ(sched_event_type_from_string("power:sched_switch"), _SCHED_EVENT_TYPE_INVALID);
        ASSERT_STREQ(sched_event_type_subsystem(SCHED_EVENT_SWITCH), "sched");
        ASSERT_TRUE(sched_event_type_subsystem(_SCHED_EVENT_TYPE_MAX) == NULL);
        ASSERT_STREQ(sched_event_type_to_string(SCHED_EVENT_MIGRATE), "sched_migrate_task");
        ASSERT_EQ(sched_event_type_from_string("sched_waking"), _SCHED_EVENT_TYPE_INVALID);
        ASSERT_EQ(sched_event_type_from_string("sched:"), _SCHED_EVENT_TYPE_INVALID);
        ASSERT_EQ(sched_event_type_from_string(""), _SCHED_EVENT_TYPE_INVALID);
        ASSERT_EQ(sched_event_type_from_string(NULL), _SCHED_EVENT_TYPE_INVALID);
        ASSERT_TRUE(sched_event_type_to_string(_SCHED_EVENT_TYPE_MAX) == NULL);
        ASSERT_TRUE(sched_event_type_to_string(_SCHED_EVENT_TYPE_INVALID) == NULL);
}

TEST(task_pid) {
        SchedEvent ev = { .type = SCHED_EVENT_SWITCH, .sw = { .prev_pid = 10, .next_pid = 11 } };

        ASSERT_EQ(sched_event_task_pid(&ev), 11);
        ev.sw.next_pid = 0; /* to idle: the task switched out */
        ASSERT_EQ(sched_event_task_pid(&ev), 10);
        ev = (SchedEvent) { .type = SCHED_EVENT_WAKEUP, .wakeup = { .pid = 12 } };
        ASSERT_EQ(sched_event_task_pid(&ev), 12);
        ev = (SchedEvent) { .type = SCHED_EVENT_MIGRATE, .migrate = { .pid = 13 } };
        ASSERT_EQ(sched_event_task_pid(&ev), 13);
        ev = (SchedEvent) { .type = SCHED_EVENT_STAT_IOWAIT, .iowait = { .pid = 14 } };
        ASSERT_EQ(sched_event_task_pid(&ev), 14);
        ev = (SchedEvent) { .type = SCHED_EVENT_CPU_FREQUENCY, .freq = { .khz = 1, .cpu_id = 1 } };
        ASSERT_EQ(sched_event_task_pid(&ev), 0);
}

/* The name of the same task sched_event_task_pid() picks (replay's table shows the two together). */
TEST(task_comm) {
        SchedEvent ev = { .type = SCHED_EVENT_SWITCH, .sw = { .prev_comm = "out", .prev_pid = 10, .next_comm = "in",
                                                               .next_pid = 11 } };

        ASSERT_STREQ(sched_event_task_comm(&ev), "in");
        ev.sw.next_pid = 0;
        ASSERT_STREQ(sched_event_task_comm(&ev), "out");
        ev = (SchedEvent) { .type = SCHED_EVENT_WAKEUP_NEW, .wakeup = { .comm = "new", .pid = 12 } };
        ASSERT_STREQ(sched_event_task_comm(&ev), "new");
        ev = (SchedEvent) { .type = SCHED_EVENT_STAT_IOWAIT, .iowait = { .comm = "io", .pid = 14 } };
        ASSERT_STREQ(sched_event_task_comm(&ev), "io");
        ev = (SchedEvent) { .type = SCHED_EVENT_CPU_FREQUENCY, .freq = { .khz = 1, .cpu_id = 1 } };
        ASSERT_TRUE(sched_event_task_comm(&ev) == NULL);
}

static void check_decoded(const SchedEvent *ev, SchedEventType type, bool *ok) {
        switch (type) {
        case SCHED_EVENT_SWITCH:
                *ok = streq(ev->sw.prev_comm, "worker") && ev->sw.prev_pid == 1000 && ev->sw.prev_prio == -1 &&
                      ev->sw.prev_runnable && streq(ev->sw.next_comm, "swapper/1") && ev->sw.next_pid == 0 &&
                      ev->sw.next_prio == 120;
                return;
        case SCHED_EVENT_WAKEUP:
        case SCHED_EVENT_WAKEUP_NEW:
                *ok = streq(ev->wakeup.comm, "worker") && ev->wakeup.pid == 1000 + (int) type &&
                      ev->wakeup.prio == -1 && ev->wakeup.target_cpu == 1;
                return;
        case SCHED_EVENT_MIGRATE:
                *ok = streq(ev->migrate.comm, "worker") && ev->migrate.pid == 1000 + (int) type &&
                      ev->migrate.prio == -1 && ev->migrate.orig_cpu == 1 && ev->migrate.dest_cpu == 0;
                return;
        case SCHED_EVENT_EXIT:
                *ok = streq(ev->exit.comm, "worker") && ev->exit.pid == 1000 + (int) type && ev->exit.prio == -1;
                return;
        case SCHED_EVENT_RUNTIME:
                *ok = streq(ev->runtime.comm, "worker") && ev->runtime.pid == 1000 + (int) type &&
                      ev->runtime.runtime_ns == UINT64_C(5000000123);
                return;
        case SCHED_EVENT_STAT_IOWAIT:
                *ok = streq(ev->iowait.comm, "worker") && ev->iowait.pid == 1000 + (int) type &&
                      ev->iowait.delay_ns == UINT64_C(7000000456);
                return;
        case SCHED_EVENT_CPU_FREQUENCY:
                *ok = ev->freq.khz == 2400000 && ev->freq.cpu_id == 1;
                return;
        case _SCHED_EVENT_TYPE_MAX:
        case _SCHED_EVENT_TYPE_INVALID:
                break;
        }
        *ok = false;
}

TEST(decode_every_layout) {
        for (size_t l = 0; l < ELEMENTSOF(layouts); l++) {
                char dir[256];
                TpFormat f;

                snprintf(dir, sizeof(dir), FORMATS "/%s", layouts[l]);
                ASSERT_OK(tp_format_load(dir, &f, NULL));
                for (SchedEventType t = 0; t < _SCHED_EVENT_TYPE_MAX; t++) {
                        SchedEvent ev;
                        Record rec;
                        bool ok;

                        if (!f.events[t].present) {
                                /* only the optional events may be missing: iowait in the 6.18 capture, cpu_frequency
                                 * where no capture has it (the reconstructed layouts) */
                                ASSERT_TRUE((t == SCHED_EVENT_STAT_IOWAIT && streq(layouts[l], "6.18")) ||
                                            (t == SCHED_EVENT_CPU_FREQUENCY && !streq(layouts[l], "6.18") &&
                                             !streq(layouts[l], "6.18-schedstats")));
                                continue;
                        }
                        build_record(&f, t, "worker", &rec);
                        ASSERT_OK(decode_exact(&f, &rec, rec.size, &ev));
                        ASSERT_EQ(ev.type, t);
                        ASSERT_EQ(ev.cpu, -1);
                        ASSERT_U64_EQ(ev.time_ns, 0);
                        check_decoded(&ev, t, &ok);
                        if (!ok)
                                fprintf(stderr, "# layout %s, %s\n", layouts[l], sched_event_type_to_string(t));
                        ASSERT_TRUE(ok);
                }
        }
}

TEST(prev_state_decoding) {
        const TpField *state;
        SchedEvent ev;
        Record rec;
        TpFormat f;

        ASSERT_OK(tp_format_load(FORMATS "/6.18", &f, NULL));
        state = &f.events[SCHED_EVENT_SWITCH].fields[TP_FIELD_PREV_STATE];
        build_record(&f, SCHED_EVENT_SWITCH, "worker", &rec);
        put_int(&rec, state, 0x1); /* S: dequeued */
        ASSERT_OK(decode_exact(&f, &rec, rec.size, &ev));
        ASSERT_EQ(ev.sw.prev_state, 1);
        ASSERT_TRUE(!ev.sw.prev_runnable);
        put_int(&rec, state, 0); /* R */
        ASSERT_OK(decode_exact(&f, &rec, rec.size, &ev));
        ASSERT_TRUE(ev.sw.prev_runnable);
        put_int(&rec, state, 0x80); /* I */
        ASSERT_OK(decode_exact(&f, &rec, rec.size, &ev));
        ASSERT_TRUE(!ev.sw.prev_runnable);
}

/*
 * Every prefix of a valid record: -EBADMSG until the record holds what the decoder needs, and no read past
 * the end (ASan).
 */
TEST(truncated_records) {
        for (size_t l = 0; l < ELEMENTSOF(layouts); l++) {
                char dir[256];
                TpFormat f;

                snprintf(dir, sizeof(dir), FORMATS "/%s", layouts[l]);
                ASSERT_OK(tp_format_load(dir, &f, NULL));
                for (SchedEventType t = 0; t < _SCHED_EVENT_TYPE_MAX; t++) {
                        const TpEvent *e = &f.events[t];
                        Record rec;
                        size_t needed;

                        if (!e->present)
                                continue;
                        build_record(&f, t, "worker", &rec);
                        needed = has_data_loc(e) ? rec.size : e->min_size;
                        for (size_t n = 0; n <= rec.size; n++) {
                                SchedEvent ev;

                                ASSERT_EQ(decode_exact(&f, &rec, n, &ev), n < needed ? -EBADMSG : 0);
                        }
                }
        }
}

TEST(bad_data_loc) {
        const TpField *comm;
        SchedEvent ev;
        Record rec;
        TpFormat f;
        uint32_t loc;

        ASSERT_OK(tp_format_load(FORMATS "/6.18", &f, NULL));
        comm = &f.events[SCHED_EVENT_MIGRATE].fields[TP_FIELD_COMM];
        ASSERT_TRUE(comm->data_loc);
        build_record(&f, SCHED_EVENT_MIGRATE, "worker", &rec); /* fixed part 28 bytes, "worker\0" at 28 */

        const uint32_t bad[] = {
                (7u << 16) | 29,       /* runs one byte past the end */
                (1u << 16) | 35,       /* starts at the end */
                (0u << 16) | 36,       /* empty, but starts past the end */
                (7u << 16) | 0xffff,   /* far away */
                (0xffffu << 16) | 28,  /* huge length */
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                memcpy(rec.data + comm->offset, &bad[i], sizeof(bad[i]));
                ASSERT_ERROR(decode_exact(&f, &rec, rec.size, &ev), EBADMSG);
        }

        /* an empty string inside the record is fine */
        loc = (0u << 16) | 28;
        memcpy(rec.data + comm->offset, &loc, sizeof(loc));
        ASSERT_OK(decode_exact(&f, &rec, rec.size, &ev));
        ASSERT_STREQ(ev.migrate.comm, "");
        /* a string without NUL inside the record: cut at its length */
        loc = (3u << 16) | 28;
        memcpy(rec.data + comm->offset, &loc, sizeof(loc));
        ASSERT_OK(decode_exact(&f, &rec, rec.size, &ev));
        ASSERT_STREQ(ev.migrate.comm, "wor");
}

TEST(rel_loc) {
        TpField *comm;
        SchedEvent ev;
        Record rec;
        TpFormat f;

        /* No kernel uses __rel_loc for sched events yet; check the offset base anyway (end of the loc word). */
        ASSERT_OK(tp_format_load(FORMATS "/6.18", &f, NULL));
        comm = &f.events[SCHED_EVENT_RUNTIME].fields[TP_FIELD_COMM];
        comm->rel_loc = true;
        build_record(&f, SCHED_EVENT_RUNTIME, "worker", &rec);
        ASSERT_OK(decode_exact(&f, &rec, rec.size, &ev));
        ASSERT_STREQ(ev.runtime.comm, "worker");
        comm->rel_loc = false;
        ASSERT_OK(decode_exact(&f, &rec, rec.size, &ev));
        ASSERT_TRUE(!streq(ev.runtime.comm, "worker")); /* read 12 bytes too early */
}

TEST(long_comms_are_cut) {
        SchedEvent ev;
        Record rec;
        TpFormat f;

        ASSERT_OK(tp_format_load(FORMATS "/6.18", &f, NULL));
        build_record(&f, SCHED_EVENT_MIGRATE, "a-very-long-thread-name", &rec);
        ASSERT_OK(decode_exact(&f, &rec, rec.size, &ev));
        ASSERT_STREQ(ev.migrate.comm, "a-very-long-thr");

        build_record(&f, SCHED_EVENT_SWITCH, "0123456789abcdefXYZ", &rec); /* char[16], no NUL */
        ASSERT_OK(decode_exact(&f, &rec, rec.size, &ev));
        ASSERT_STREQ(ev.sw.prev_comm, "0123456789abcde");
}

TEST(unknown_type) {
        SchedEvent ev;
        Record rec;
        TpFormat f, empty = {};

        ASSERT_OK(tp_format_load(FORMATS "/6.18", &f, NULL));
        build_record(&f, SCHED_EVENT_WAKEUP, "worker", &rec);
        put_int(&rec, &f.common_type, 375); /* sched_waking: not ours */
        ASSERT_ERROR(decode_exact(&f, &rec, rec.size, &ev), EBADMSG);
        put_int(&rec, &f.common_type, 360); /* sched_stat_iowait's id in 6.18-schedstats: absent from 6.18 */
        ASSERT_ERROR(decode_exact(&f, &rec, rec.size, &ev), EBADMSG);
        ASSERT_ERROR(decode_exact(&empty, &rec, rec.size, &ev), EBADMSG);
}

static uint64_t xorshift64(uint64_t *s) {
        *s ^= *s << 13;
        *s ^= *s >> 7;
        *s ^= *s << 17;
        return *s;
}

/* Random bytes behind a valid common_type, random sizes: only 0 or -EBADMSG, comms always terminated. */
TEST(random_records) {
        uint64_t seed = 0x5c4edf4eedULL;
        unsigned decoded = 0;
        TpFormat f;

        ASSERT_OK(tp_format_load(FORMATS "/6.18-schedstats", &f, NULL));
        for (unsigned i = 0; i < 200000; i++) {
                SchedEventType t = (SchedEventType) (xorshift64(&seed) % _SCHED_EVENT_TYPE_MAX);
                SchedEvent ev;
                Record rec;
                int r;

                rec.size = xorshift64(&seed) % 96;
                for (size_t k = 0; k < rec.size; k++)
                        rec.data[k] = (uint8_t) xorshift64(&seed);
                if (rec.size >= 2)
                        put_int(&rec, &f.common_type, f.events[t].id);
                if (rec.size >= 12 && (i & 1)) {
                        /* make a data_loc word plausible half of the time */
                        uint32_t loc = (uint32_t) ((xorshift64(&seed) % 24) << 16) |
                                       (uint32_t) (xorshift64(&seed) % 100);
                        memcpy(rec.data + 8, &loc, sizeof(loc));
                }
                r = decode_exact(&f, &rec, rec.size, &ev);
                ASSERT_TRUE(r == 0 || r == -EBADMSG);
                if (r < 0)
                        continue;
                decoded++;
                ASSERT_EQ(ev.type, t);
                ASSERT_TRUE(strnlen(ev.sw.prev_comm, TASK_COMM_LEN) < TASK_COMM_LEN);
                ASSERT_TRUE(strnlen(ev.sw.next_comm, TASK_COMM_LEN) < TASK_COMM_LEN);
        }
        ASSERT_TRUE(decoded > 1000);
}

DEFINE_TEST_MAIN
