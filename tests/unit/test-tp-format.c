/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests for tp-format.c: real (6.18) and reconstructed (6.1, 4.9, 6.18-schedstats's sched_stat_iowait) tracefs
 * format files, and broken ones.
 */

#define _XOPEN_SOURCE_EXTENDED 1
#include <ftw.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "macro.h"
#include "test.h"
#include "tp-format.h"

#define FORMATS FIXTURES "/formats"

static char *read_fixture(const char *path, size_t *ret_size) {
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        char *buf;
        size_t n;

        if (!f)
                return NULL;
        buf = calloc(1, 64 * 1024);
        if (!buf)
                return NULL;
        n = fread(buf, 1, 64 * 1024 - 1, f);
        *ret_size = n;
        return buf;
}

static int copy_file(const char *from, const char *to) {
        _cleanup_free_ char *buf = NULL;
        _cleanup_fclose_ FILE *f = NULL;
        size_t n = 0;

        buf = read_fixture(from, &n);
        if (!buf)
                return -errno;
        f = fopen(to, "we");
        if (!f || fwrite(buf, 1, n, f) != n)
                return -EIO;
        return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        return remove(path);
}

static void rm_rf(char **dir) {
        if (*dir)
                (void) nftw(*dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
        free(*dir);
}

/*
 * A copy of the 6.18-schedstats fixtures (6.18 and sched_stat_iowait) in a temporary directory, with event @bad's format replaced by the file
 * @replacement (NULL: leave it) or its directory removed (@replacement == "").
 */
static char *make_tree(SchedEventType bad, const char *replacement) {
        char *dir = strdup("/tmp/test-tp-format.XXXXXX");
        char path[512], from[512];

        if (!dir || !mkdtemp(dir))
                return NULL;
        for (SchedEventType t = 0; t < _SCHED_EVENT_TYPE_MAX; t++) {
                const char *name = sched_event_type_to_string(t), *sub = sched_event_type_subsystem(t);

                if (t == bad && replacement && !*replacement)
                        continue;
                snprintf(path, sizeof(path), "%s/%s", dir, sub);
                (void) mkdir(path, 0755);
                snprintf(path, sizeof(path), "%s/%s/%s", dir, sub, name);
                (void) mkdir(path, 0755);
                for (unsigned i = 0; i < 2; i++) {
                        const char *file = i ? "format" : "id";

                        snprintf(from, sizeof(from), FORMATS "/6.18-schedstats/%s/%s/%s", sub, name, file);
                        if (t == bad && i == 1 && replacement)
                                snprintf(from, sizeof(from), FORMATS "/bad/%s", replacement);
                        snprintf(path, sizeof(path), "%s/%s/%s/%s", dir, sub, name, file);
                        if (copy_file(from, path) < 0)
                                return NULL;
                }
        }
        return dir;
}

static void assert_field(const TpField *f, unsigned offset, unsigned size, bool is_signed, bool data_loc,
                         bool *ok) {
        *ok = f->present && f->offset == offset && f->size == size && f->is_signed == is_signed &&
              f->data_loc == data_loc;
        if (!*ok)
                fprintf(stderr, "# field: present=%d offset=%u size=%u signed=%d data_loc=%d\n", f->present,
                        f->offset, f->size, f->is_signed, f->data_loc);
}

#define ASSERT_FIELD(f, o, s, sg, dl)                           \
        do {                                                    \
                bool _ok;                                       \
                assert_field((f), (o), (s), (sg), (dl), &_ok);  \
                ASSERT_TRUE(_ok);                               \
        } while (0)

TEST(load_6_18_captured) {
        TpFormat f;
        const TpEvent *e;

        ASSERT_OK(tp_format_load(FORMATS "/6.18", &f, NULL));
        ASSERT_EQ(f.preempt_mask, 0x100);
        ASSERT_FIELD(&f.common_type, 0, 2, false, false);

        e = &f.events[SCHED_EVENT_SWITCH];
        ASSERT_EQ(e->id, 372);
        ASSERT_FIELD(&e->fields[TP_FIELD_PREV_COMM], 8, 16, false, false);
        ASSERT_FIELD(&e->fields[TP_FIELD_PREV_STATE], 32, 8, true, false);
        ASSERT_FIELD(&e->fields[TP_FIELD_NEXT_PID], 56, 4, true, false);
        ASSERT_EQ(e->min_size, 64);

        e = &f.events[SCHED_EVENT_WAKEUP];
        ASSERT_EQ(e->id, 374);
        ASSERT_FIELD(&e->fields[TP_FIELD_TARGET_CPU], 32, 4, true, false);
        ASSERT_TRUE(!e->fields[TP_FIELD_SUCCESS].present);
        ASSERT_EQ(f.events[SCHED_EVENT_WAKEUP_NEW].id, 373);

        /* 6.x: __data_loc comm in sched_migrate_task and sched_stat_runtime */
        e = &f.events[SCHED_EVENT_MIGRATE];
        ASSERT_EQ(e->id, 371);
        ASSERT_FIELD(&e->fields[TP_FIELD_COMM], 8, 4, false, true);
        ASSERT_FIELD(&e->fields[TP_FIELD_DEST_CPU], 24, 4, true, false);
        ASSERT_EQ(e->min_size, 28);

        e = &f.events[SCHED_EVENT_RUNTIME];
        ASSERT_FIELD(&e->fields[TP_FIELD_COMM], 8, 4, false, true);
        ASSERT_FIELD(&e->fields[TP_FIELD_RUNTIME], 16, 8, false, false);
        ASSERT_TRUE(!e->fields[TP_FIELD_VRUNTIME].present);
        ASSERT_TRUE(!e->fields[TP_FIELD_PRIO].present);

        /* 6.16+: group_dead */
        e = &f.events[SCHED_EVENT_EXIT];
        ASSERT_FIELD(&e->fields[TP_FIELD_GROUP_DEAD], 32, 1, false, false);
        ASSERT_EQ(e->min_size, 32);

        /* The build VM's kernel has no CONFIG_SCHEDSTATS: no sched_stat_iowait, and that is not an error. */
        ASSERT_TRUE(!f.events[SCHED_EVENT_STAT_IOWAIT].present);
        ASSERT_EQ(tp_format_type_from_id(&f, 0), _SCHED_EVENT_TYPE_INVALID); /* an absent event matches no id */
}

TEST(load_6_18_schedstats) {
        TpFormat f;
        const TpEvent *e;

        ASSERT_OK(tp_format_load(FORMATS "/6.18-schedstats", &f, NULL));
        e = &f.events[SCHED_EVENT_STAT_IOWAIT];
        ASSERT_TRUE(e->present);
        ASSERT_EQ(e->id, 360);
        ASSERT_FIELD(&e->fields[TP_FIELD_COMM], 8, 4, false, true);
        ASSERT_FIELD(&e->fields[TP_FIELD_PID], 12, 4, true, false);
        ASSERT_FIELD(&e->fields[TP_FIELD_DELAY], 16, 8, false, false);
        ASSERT_TRUE(!e->fields[TP_FIELD_PRIO].present);
        ASSERT_EQ(e->min_size, 24);
        ASSERT_EQ(tp_format_type_from_id(&f, 360), SCHED_EVENT_STAT_IOWAIT);
        ASSERT_EQ(f.events[SCHED_EVENT_SWITCH].id, 372); /* the rest is the captured 6.18 */
}

TEST(load_6_1_reconstructed) {
        TpFormat f;
        const TpEvent *e;

        ASSERT_OK(tp_format_load(FORMATS "/6.1", &f, NULL));
        ASSERT_EQ(f.preempt_mask, 0x100);
        e = &f.events[SCHED_EVENT_MIGRATE];
        ASSERT_FIELD(&e->fields[TP_FIELD_COMM], 8, 16, false, false);
        ASSERT_FIELD(&e->fields[TP_FIELD_DEST_CPU], 36, 4, true, false);
        e = &f.events[SCHED_EVENT_RUNTIME];
        ASSERT_FIELD(&e->fields[TP_FIELD_RUNTIME], 32, 8, false, false);
        ASSERT_FIELD(&e->fields[TP_FIELD_VRUNTIME], 40, 8, false, false);
        ASSERT_EQ(e->min_size, 40); /* vruntime is optional: not needed to decode */
        ASSERT_TRUE(!f.events[SCHED_EVENT_EXIT].fields[TP_FIELD_GROUP_DEAD].present);
        e = &f.events[SCHED_EVENT_STAT_IOWAIT];
        ASSERT_FIELD(&e->fields[TP_FIELD_COMM], 8, 16, false, false);
        ASSERT_FIELD(&e->fields[TP_FIELD_DELAY], 32, 8, false, false);
        ASSERT_EQ(e->min_size, 40);
}

TEST(load_4_9_reconstructed) {
        TpFormat f;
        const TpEvent *e;

        ASSERT_OK(tp_format_load(FORMATS "/4.9", &f, NULL));
        ASSERT_EQ(f.preempt_mask, 2048); /* TASK_STATE_MAX before 4.14 */
        e = &f.events[SCHED_EVENT_WAKEUP];
        ASSERT_FIELD(&e->fields[TP_FIELD_SUCCESS], 32, 4, true, false);
        ASSERT_FIELD(&e->fields[TP_FIELD_TARGET_CPU], 36, 4, true, false);
        ASSERT_FIELD(&e->fields[TP_FIELD_COMM], 8, 16, true, false); /* signed:1 char arrays then */
        ASSERT_EQ(e->min_size, 40);
}

TEST(prev_runnable) {
        TpFormat f;

        ASSERT_OK(tp_format_load(FORMATS "/6.18", &f, NULL));
        ASSERT_TRUE(tp_format_prev_runnable(&f, 0));        /* R */
        ASSERT_TRUE(tp_format_prev_runnable(&f, 0x100));    /* R+ (preempted) */
        ASSERT_TRUE(!tp_format_prev_runnable(&f, 0x1));     /* S */
        ASSERT_TRUE(!tp_format_prev_runnable(&f, 0x2));     /* D */
        ASSERT_TRUE(!tp_format_prev_runnable(&f, 0x80));    /* I */
        ASSERT_TRUE(!tp_format_prev_runnable(&f, 0x40));    /* P */

        ASSERT_OK(tp_format_load(FORMATS "/4.9", &f, NULL));
        ASSERT_TRUE(tp_format_prev_runnable(&f, 2048));
        ASSERT_TRUE(tp_format_prev_runnable(&f, 2048 | 1)); /* preempted while going to sleep */
        ASSERT_TRUE(!tp_format_prev_runnable(&f, 256));     /* W(aking) in 4.9, not the marker */
}

TEST(type_from_id) {
        TpFormat f;

        ASSERT_OK(tp_format_load(FORMATS "/6.18", &f, NULL));
        ASSERT_EQ(tp_format_type_from_id(&f, 372), SCHED_EVENT_SWITCH);
        ASSERT_EQ(tp_format_type_from_id(&f, 363), SCHED_EVENT_RUNTIME);
        ASSERT_EQ(tp_format_type_from_id(&f, 370), _SCHED_EVENT_TYPE_INVALID);
        ASSERT_STREQ(tp_field_id_to_string(TP_FIELD_PREV_STATE), "prev_state");
        ASSERT_TRUE(tp_field_id_to_string(_TP_FIELD_MAX) == NULL);
}

static void check_bad_tree(SchedEventType bad, const char *replacement, int expect_r, const char *expect_file,
                           const char *expect_reason, bool *ok) {
        _cleanup_(rm_rf) char *dir = make_tree(bad, replacement);
        _cleanup_free_ char *error = NULL;
        char want[512];
        TpFormat f;
        int r;

        *ok = false;
        if (!dir)
                return;
        r = tp_format_load(dir, &f, &error);
        snprintf(want, sizeof(want), "%s/%s/%s/%s: ", dir, sched_event_type_subsystem(bad),
                 sched_event_type_to_string(bad), expect_file);
        fprintf(stderr, "# %s → %d: %s\n", replacement, r, error ? error : "(no message)");
        *ok = r == expect_r && error && strncmp(error, want, strlen(want)) == 0 &&
              strstr(error, expect_reason);
}

#define ASSERT_BAD_TREE(bad, replacement, r, file, reason)                              \
        do {                                                                            \
                bool _ok;                                                               \
                check_bad_tree((bad), (replacement), (r), (file), (reason), &_ok);      \
                ASSERT_TRUE(_ok);                                                       \
        } while (0)

TEST(bad_fixtures_name_the_file) {
        ASSERT_BAD_TREE(SCHED_EVENT_MIGRATE, "sched_migrate_task-no-dest_cpu.format", -EBADMSG, "format",
                        "no field 'dest_cpu'");
        ASSERT_BAD_TREE(SCHED_EVENT_SWITCH, "sched_switch-truncated.format", -EBADMSG, "format", "truncated");
        ASSERT_BAD_TREE(SCHED_EVENT_SWITCH, "sched_switch-no-preempt-bit.format", -EBADMSG, "format",
                        "TASK_REPORT_MAX");
        ASSERT_BAD_TREE(SCHED_EVENT_WAKEUP, "sched_wakeup-array-target_cpu.format", -EBADMSG, "format",
                        "field 'target_cpu'");
        ASSERT_BAD_TREE(SCHED_EVENT_EXIT, "garbage.format", -EBADMSG, "format", "");
        /* a format file of another event */
        ASSERT_BAD_TREE(SCHED_EVENT_WAKEUP_NEW, "../6.18/sched/sched_wakeup/format", -EBADMSG, "format",
                        "expected 'sched_wakeup_new'");
        ASSERT_BAD_TREE(SCHED_EVENT_RUNTIME, "", -ENOENT, "id", "No such file");
        /* sched_stat_iowait may be missing, but one that is there must be right */
        ASSERT_BAD_TREE(SCHED_EVENT_STAT_IOWAIT, "garbage.format", -EBADMSG, "format", "");
        ASSERT_BAD_TREE(SCHED_EVENT_STAT_IOWAIT, "../6.18/sched/sched_stat_runtime/format", -EBADMSG, "format",
                        "expected 'sched_stat_iowait'");
        /* so may power:cpu_frequency, the same */
        ASSERT_BAD_TREE(SCHED_EVENT_CPU_FREQUENCY, "garbage.format", -EBADMSG, "format", "");
        ASSERT_BAD_TREE(SCHED_EVENT_CPU_FREQUENCY, "../6.18/sched/sched_stat_runtime/format", -EBADMSG, "format",
                        "expected 'cpu_frequency'");
}

TEST(cpu_frequency_layout) {
        TpFormat f;
        const TpEvent *e;

        ASSERT_OK(tp_format_load(FORMATS "/6.18", &f, NULL));
        e = &f.events[SCHED_EVENT_CPU_FREQUENCY];
        ASSERT_TRUE(e->present);
        /* include/trace/events/power.h, DECLARE_EVENT_CLASS(cpu): u32 state @8, u32 cpu_id @12 */
        ASSERT_EQ(e->fields[TP_FIELD_STATE].offset, 8);
        ASSERT_EQ(e->fields[TP_FIELD_STATE].size, 4);
        ASSERT_EQ(e->fields[TP_FIELD_CPU_ID].offset, 12);
        ASSERT_TRUE(!e->fields[TP_FIELD_CPU_ID].is_signed);
        ASSERT_TRUE(!f.events[SCHED_EVENT_CPU_FREQUENCY].fields[TP_FIELD_COMM].present);
        /* a kernel without it (the reconstructed 6.1 tree): absent, the rest loads */
        ASSERT_OK(tp_format_load(FORMATS "/6.1", &f, NULL));
        ASSERT_TRUE(!f.events[SCHED_EVENT_CPU_FREQUENCY].present);
        ASSERT_TRUE(f.events[SCHED_EVENT_SWITCH].present);
}

TEST(optional_event_missing) {
        _cleanup_(rm_rf) char *dir = make_tree(SCHED_EVENT_STAT_IOWAIT, "");
        _cleanup_free_ char *error = NULL;
        char path[512];
        TpFormat f;

        ASSERT_TRUE(dir);
        ASSERT_OK(tp_format_load(dir, &f, &error));
        ASSERT_TRUE(!error);
        ASSERT_TRUE(!f.events[SCHED_EVENT_STAT_IOWAIT].present);
        ASSERT_TRUE(f.events[SCHED_EVENT_SWITCH].present);

        /* its directory with an id but no format is a broken tracefs, not an absent event */
        snprintf(path, sizeof(path), "%s/sched/sched_stat_iowait", dir);
        ASSERT_OK(mkdir(path, 0755) < 0 ? -errno : 0);
        snprintf(path, sizeof(path), "%s/sched/sched_stat_iowait/id", dir);
        ASSERT_OK(copy_file(FORMATS "/6.18-schedstats/sched/sched_stat_iowait/id", path));
        ASSERT_ERROR(tp_format_load(dir, &f, &error), ENOENT);
        ASSERT_TRUE(error && strstr(error, "sched_stat_iowait/format"));
}

TEST(bad_id_file) {
        _cleanup_(rm_rf) char *dir = make_tree(_SCHED_EVENT_TYPE_INVALID, NULL);
        _cleanup_free_ char *error = NULL;
        _cleanup_fclose_ FILE *f = NULL;
        char path[512];
        TpFormat fmt;

        ASSERT_TRUE(dir);
        snprintf(path, sizeof(path), "%s/sched/sched_wakeup/id", dir);
        f = fopen(path, "we");
        ASSERT_TRUE(f);
        fputs("37x\n", f);
        fclose(TAKE_PTR(f));
        ASSERT_ERROR(tp_format_load(dir, &fmt, &error), EBADMSG);
        ASSERT_TRUE(error && strstr(error, path) && strstr(error, "not an event id"));
        free(TAKE_PTR(error));

        /* a number, but not the one in the format */
        f = fopen(path, "we");
        ASSERT_TRUE(f);
        fputs("375\n", f);
        fclose(TAKE_PTR(f));
        ASSERT_ERROR(tp_format_load(dir, &fmt, &error), EBADMSG);
        ASSERT_TRUE(error && strstr(error, "sched_wakeup/format: ") && strstr(error, "ID 374"));
}

/* Every strict prefix of a real file is rejected (libtraceevent alone accepts most of them). */
TEST(every_prefix_is_rejected) {
        _cleanup_free_ char *text = NULL;
        size_t size = 0;
        TpFormat f = {};

        text = read_fixture(FORMATS "/6.18/sched/sched_migrate_task/format", &size);
        ASSERT_TRUE(text && size > 100);
        for (size_t n = 0; n < size; n++) {
                _cleanup_free_ char *copy = malloc(n + 1);
                _cleanup_free_ char *error = NULL;

                ASSERT_TRUE(copy);
                memcpy(copy, text, n);
                ASSERT_ERROR(tp_format_parse_event(&f, SCHED_EVENT_MIGRATE, 371, "x", copy, n, &error),
                             EBADMSG);
                ASSERT_TRUE(error && strncmp(error, "x: ", 3) == 0);
        }
        ASSERT_TRUE(!f.events[SCHED_EVENT_MIGRATE].present); /* untouched on failure */
        ASSERT_OK(tp_format_parse_event(&f, SCHED_EVENT_MIGRATE, 371, "x", text, size, NULL));
        ASSERT_TRUE(f.events[SCHED_EVENT_MIGRATE].present);
}

static int parse_switch_with_print_fmt(const char *print_fmt, uint64_t *ret_mask) {
        _cleanup_free_ char *text = NULL, *head = NULL, *error = NULL;
        size_t size = 0;
        TpFormat f = {};
        char *p;
        int r;

        head = read_fixture(FORMATS "/6.18/sched/sched_switch/format", &size);
        if (!head)
                return -ENOENT;
        p = strstr(head, "print fmt: ");
        if (!p)
                return -EINVAL;
        *p = '\0';
        if (asprintf(&text, "%sprint fmt: %s\n", head, print_fmt) < 0)
                return -ENOMEM;
        r = tp_format_parse_event(&f, SCHED_EVENT_SWITCH, 372, "sw", text, strlen(text), &error);
        if (r < 0)
                fprintf(stderr, "# %s\n", error);
        *ret_mask = f.preempt_mask;
        return r;
}

TEST(preempt_mask_variants) {
        uint64_t mask = 0;

        /* 4.14-4.19: TASK_* printed with four hex digits */
        ASSERT_OK(parse_switch_with_print_fmt(
                "\"prev_state=%s%s\", (REC->prev_state & ((((0x0000 | 0x0001 | 0x0002 | 0x0004 | 0x0008 | 0x0010 | "
                "0x0020 | 0x0040) + 1) << 1) - 1)) ? __print_flags(REC->prev_state & ((((0x0000 | 0x0001 | 0x0002 | "
                "0x0004 | 0x0008 | 0x0010 | 0x0020 | 0x0040) + 1) << 1) - 1), \"|\", { 0x0001, \"S\" }) : \"R\", "
                "REC->prev_state & (((0x0000 | 0x0001 | 0x0002 | 0x0004 | 0x0008 | 0x0010 | 0x0020 | 0x0040) + 1) "
                "<< 1) ? \"+\" : \"\"",
                &mask));
        ASSERT_EQ(mask, 0x100);
        /* no "+" test: one above the "R" test's mask */
        ASSERT_OK(parse_switch_with_print_fmt(
                "\"prev_state=%s\", (REC->prev_state & ((((0x0000 | 0x0001 | 0x0002 | 0x0004 | 0x0008 | 0x0010 | "
                "0x0020 | 0x0040) + 1) << 1) - 1)) ? "
                "__print_flags(REC->prev_state & 0xff, \"|\", { 0x0001, \"S\" }) : \"R\"",
                &mask));
        ASSERT_EQ(mask, 0x100);
        /* operands the other way round, and a cast */
        ASSERT_OK(parse_switch_with_print_fmt("\"%s\", (unsigned long)1024 & REC->prev_state ? \"+\" : \"\"", &mask));
        ASSERT_EQ(mask, 1024);
        /* not a single bit */
        ASSERT_ERROR(parse_switch_with_print_fmt("\"%s\", REC->prev_state & 3 ? \"+\" : \"\"", &mask), EBADMSG);
        /* not a constant */
        ASSERT_ERROR(parse_switch_with_print_fmt("\"%s\", REC->prev_state & REC->prev_pid ? \"+\" : \"\"", &mask),
                     EBADMSG);
}

DEFINE_TEST_MAIN

/*
 * Text libtraceevent 1.7 crashes on (found by tests/fuzz/fuzz-tp-format.c: a modulo in a print fmt folded with a
 * zero, an index in one, a NUL in a field line) is refused before it gets there, naming the line; so is
 * anything else that is not the shape the kernel's f_show() writes. The captured kernels' files all pass.
 */
TEST(shape_checked_before_libtraceevent) {
        static const struct {
                const char *text;
                size_t size;
                const char *want;
        } bad[] = {
                { "name: d\nID: 3\nformat:\n\n\nprint fmt: \"\",R%C\n", 0, "line 6 is not what the kernel writes" },
                { "name: d\nID: 3\nformat:\n\n\nprint fmt: \"\",m[6];\n", 0, "line 6 is not what the kernel writes" },
                { "name: e\nID: 3\nformat:\nfield:h c[\0\nprint fmt: \"\"\n", 48, "not text: byte 0x00 at offset 32" },
                { "name: e\nID: 3\nformat:\n\tfield:int x;\toffset:0;\tsize:4;\tsigned:1;\nprint fmt: \"\"\nmore\n", 0,
                  "line 5 is not what the kernel writes" }, /* the print fmt must be last */
                { "name: e\nID: 3\nformat:\n\tfield:int x\toffset:0;\tsize:4;\n\nprint fmt: \"\"\n", 0,
                  "line 4 is not what the kernel writes" },
                { "name:e\nID: 3\nformat:\n\nprint fmt: \"\"\n", 0, "line 1 is not what the kernel writes" },
        };

        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                _cleanup_free_ char *error = NULL;
                TpFormat f = {};
                size_t size = bad[i].size ?: strlen(bad[i].text);
                char *copy = malloc(size); /* exactly the input: a read past it is ASan's to catch */

                ASSERT_TRUE(copy);
                memcpy(copy, bad[i].text, size);
                ASSERT_ERROR(tp_format_parse_event(&f, SCHED_EVENT_EXIT, 3, "F", copy, size, &error), EBADMSG);
                free(copy);
                ASSERT_TRUE(error && strstr(error, bad[i].want));
                ASSERT_TRUE(strncmp(error, "F: ", 3) == 0);
        }
}
