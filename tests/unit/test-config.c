/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-config.c: defaults, every key with good and bad values, drop-in order, "FILE:LINE: reason" messages,
 * missing files, NUL bytes and huge files, the shipped conf/schedfreqd.conf (which must parse, and whose
 * commented-out values must be the compile-time defaults), and config_check_topology(): policies that a
 * topology lacks, named by the FILE:LINE of the setting in force; [rule:NAME] sections (issue #13): their
 * keys, drop-ins that change a rule, and every error, at its FILE:LINE.
 */

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "config-rules.h"
#include "log.h"
#include "macro.h"
#include "string-util.h"
#include "test.h"
#include "topology.h"

#define CONFIG_FIXTURES FIXTURES "/config"
#define SHIPPED_CONF FIXTURES "/../../conf/schedfreqd.conf"
/* policy0 = CPUs 0-1, policy2 = CPUs 2-3 */
#define SHARED_DT FIXTURES "/topology/shared-dt.ini"
#define MISSING CONFIG_FIXTURES "/missing-policies/schedfreqd.conf"

/* ---- helpers: a scratch directory with a main file and drop-ins ---- */

typedef struct Scratch {
        char dir[64];
        char path[128];           /* DIR/schedfreqd.conf */
} Scratch;

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        return remove(path);
}

static void scratch_done(Scratch *s) {
        if (s->dir[0])
                (void) nftw(s->dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static int scratch_init(Scratch *s) {
        snprintf(s->dir, sizeof(s->dir), "/tmp/test-config.XXXXXX");
        if (!mkdtemp(s->dir)) {
                s->dir[0] = '\0';
                return -errno;
        }
        snprintf(s->path, sizeof(s->path), "%s/schedfreqd.conf", s->dir);
        return 0;
}

/* Writes @size bytes of @data, which may hold NUL bytes. */
static int write_bytes(const char *path, const char *data, size_t size) {
        _cleanup_fclose_ FILE *f = fopen(path, "we");

        if (!f)
                return -errno;
        if (fwrite(data, 1, size, f) != size || fflush(f) != 0)
                return -EIO;
        return 0;
}

static int write_file(const char *path, const char *text) {
        return write_bytes(path, text, strlen(text));
}

/* Writes DIR/schedfreqd.conf.d/@name. */
static int scratch_dropin(Scratch *s, const char *name, const char *text) {
        char path[256];

        snprintf(path, sizeof(path), "%s.d", s->path);
        if (mkdir(path, 0755) < 0 && errno != EEXIST)
                return -errno;
        snprintf(path, sizeof(path), "%s.d/%s", s->path, name);
        return write_file(path, text);
}

/* Loads @text as a main file. */
static int load_text(const char *text, Config *ret, char **ret_error) {
        _cleanup_(scratch_done) Scratch s = {};
        int r;

        r = scratch_init(&s);
        if (r < 0)
                return r;
        r = write_file(s.path, text);
        if (r < 0)
                return r;
        return config_load(s.path, false, ret, ret_error);
}

/* The errors of the @size bytes at @data, with the scratch file's name replaced by "F". */
static char *load_error_bytes(const char *data, size_t size) {
        _cleanup_(scratch_done) Scratch s = {};
        _cleanup_free_ char *error = NULL;
        char *out;
        size_t n;
        Config c;

        if (scratch_init(&s) < 0 || write_bytes(s.path, data, size) < 0)
                return NULL;
        if (config_load(s.path, false, &c, &error) != -EINVAL || !error)
                return NULL;

        /* "DIR/schedfreqd.conf:3: ..." → "F:3: ..." on every line */
        out = calloc(1, strlen(error) + 1);
        if (!out)
                return NULL;
        n = strlen(s.path);
        for (const char *p = error, *hit; *p; ) {
                hit = strstr(p, s.path);
                if (!hit) {
                        strcat(out, p);
                        break;
                }
                strncat(out, p, (size_t) (hit - p));
                strcat(out, "F");
                p = hit + n;
        }
        return out;
}

static char *load_error(const char *text) {
        return load_error_bytes(text, strlen(text));
}

static bool config_equal_defaults(const Config *c) {
        Config d;

        config_set_defaults(&d);
        if (c->log_level != d.log_level || c->realtime_priority != d.realtime_priority ||
            c->drain_interval_usec != d.drain_interval_usec ||
            c->ring_pages != d.ring_pages || c->wakeup != d.wakeup ||
            c->adaptive_high_per_sec != d.adaptive_high_per_sec || c->headroom_x1024 != d.headroom_x1024 ||
            c->rate_limit_usec != d.rate_limit_usec || c->tick_usec != d.tick_usec ||
            c->manage_all != d.manage_all || !CPU_EQUAL(&c->manage, &d.manage) || c->remote != d.remote ||
            c->rules.n != d.rules.n)
                return false;
        for (unsigned id = 0; id < CONFIG_POLICIES_MAX; id++)
                if (config_policy_remote(c, id) != REMOTE_MODE_AUTO)
                        return false;
        return true;
}

/* ---- tests ---- */

TEST(defaults) {
        Config c;

        config_set_defaults(&c);
        ASSERT_EQ(c.log_level, LOG_INFO);
        ASSERT_EQ(c.realtime_priority, 1);
        ASSERT_U64_EQ(c.drain_interval_usec, 4000);
        ASSERT_EQ(c.ring_pages, 64);
        ASSERT_EQ(c.wakeup, WAKEUP_MODE_ADAPTIVE);
        ASSERT_U64_EQ(c.adaptive_high_per_sec, 20000);
        ASSERT_EQ(c.headroom_x1024, 1280);
        ASSERT_U64_EQ(c.rate_limit_usec, 0);
        ASSERT_U64_EQ(c.tick_usec, 0);                  /* auto: the kernel's (manager.c, replay.c) */
        ASSERT_U64_EQ(config_tick_ns(&c), 4000000);     /* unresolved: CONFIG_HZ=250 */
        ASSERT_TRUE(c.manage_all);
        ASSERT_EQ(CPU_COUNT(&c.manage), 0);
        ASSERT_EQ(c.remote, REMOTE_MODE_AUTO);
        for (unsigned id = 0; id < CONFIG_POLICIES_MAX; id++) {
                ASSERT_TRUE(!c.policy[id].present);
                ASSERT_TRUE(config_manages_policy(&c, id));
                ASSERT_EQ(config_policy_remote(&c, id), REMOTE_MODE_AUTO);
        }
        ASSERT_TRUE(config_manages_policy(&c, 5000));
        ASSERT_EQ(c.rules.n, 0);
        ASSERT_TRUE(config_equal_defaults(&c));
}

TEST(empty_file_is_defaults) {
        Config c;

        ASSERT_OK(load_text("", &c, NULL));
        ASSERT_TRUE(config_equal_defaults(&c));
        ASSERT_OK(load_text("# only comments\n; and blank lines\n\n[daemon]\n\n", &c, NULL));
        ASSERT_TRUE(config_equal_defaults(&c));
}

TEST(enum_strings) {
        ASSERT_STREQ(wakeup_mode_to_string(WAKEUP_MODE_ADAPTIVE), "adaptive");
        ASSERT_STREQ(wakeup_mode_to_string(WAKEUP_MODE_WATERMARK), "watermark");
        ASSERT_STREQ(wakeup_mode_to_string(WAKEUP_MODE_IMMEDIATE), "immediate");
        ASSERT_TRUE(!wakeup_mode_to_string(_WAKEUP_MODE_MAX));
        ASSERT_TRUE(!wakeup_mode_to_string(_WAKEUP_MODE_INVALID));
        ASSERT_EQ(wakeup_mode_from_string("watermark"), WAKEUP_MODE_WATERMARK);
        ASSERT_EQ(wakeup_mode_from_string("Watermark"), _WAKEUP_MODE_INVALID);
        ASSERT_EQ(wakeup_mode_from_string(NULL), _WAKEUP_MODE_INVALID);

        ASSERT_STREQ(event_source_type_to_string(EVENT_SOURCE_AUTO), "auto");
        ASSERT_STREQ(event_source_type_to_string(EVENT_SOURCE_BPF), "bpf");
        ASSERT_EQ(event_source_type_from_string("perf"), EVENT_SOURCE_PERF);
        ASSERT_EQ(event_source_type_from_string("Perf"), _EVENT_SOURCE_TYPE_INVALID);

        ASSERT_STREQ(remote_mode_to_string(REMOTE_MODE_AUTO), "auto");
        ASSERT_STREQ(remote_mode_to_string(REMOTE_MODE_YES), "yes");
        ASSERT_STREQ(remote_mode_to_string(REMOTE_MODE_NO), "no");
        ASSERT_TRUE(!remote_mode_to_string(_REMOTE_MODE_INVALID));
        ASSERT_EQ(remote_mode_from_string("no"), REMOTE_MODE_NO);
        ASSERT_EQ(remote_mode_from_string("true"), _REMOTE_MODE_INVALID);
        ASSERT_EQ(remote_mode_from_string(""), _REMOTE_MODE_INVALID);
}

typedef struct KeyCase {
        const char *text;
        bool ok;
} KeyCase;

/* Good and bad values of every key: bad ones are rejected with the file and line 2. */
TEST(each_key_good_and_bad) {
        static const KeyCase cases[] = {
                { "[daemon]\nlog_level = debug\n", true },
                { "[daemon]\nlog_level = err\n", true },
                { "[daemon]\nlog_level = error\n", true },
                { "[daemon]\nlog_level = 3\n", true },
                { "[daemon]\nlog_level = 8\n", false },
                { "[daemon]\nlog_level = verbose\n", false },
                { "[daemon]\nlog_level =\n", false },
                { "[daemon]\nrealtime_priority = 0\n", true },
                { "[daemon]\nrealtime_priority = 99\n", true },
                { "[daemon]\nrealtime_priority = 100\n", false },
                { "[daemon]\nrealtime_priority = -1\n", false },
                { "[daemon]\nrealtime_priority = fifo\n", false },

                { "[events]\ndrain_interval_ms = 1\n", true },
                { "[events]\ndrain_interval_ms = 1000\n", true },
                { "[events]\ndrain_interval_ms = 0\n", false },
                { "[events]\ndrain_interval_ms = 1001\n", false },
                { "[events]\ndrain_interval_ms = 4ms\n", false },
                { "[events]\ndrain_interval_ms = -4\n", false },
                { "[events]\ndrain_interval_ms = +4\n", false },
                { "[events]\ndrain_interval_ms = 0x4\n", false },

                { "[events]\nring_pages = 1\n", true },
                { "[events]\nring_pages = 4096\n", true },
                { "[events]\nring_pages = 0\n", false },
                { "[events]\nring_pages = 8192\n", false },
                { "[events]\nring_pages = 96\n", false },
                { "[events]\nring_pages = 99999999999999999999999\n", false },

                { "[events]\nsource = auto\n", true },
                { "[events]\nsource = bpf\n", true },
                { "[events]\nsource = perf\n", true },
                { "[events]\nsource = BPF\n", false },
                { "[events]\nsource = ebpf\n", false },

                { "[events]\nwakeup = adaptive\n", true },
                { "[events]\nwakeup = immediate\n", true },
                { "[events]\nwakeup = never\n", false },

                { "[events]\nadaptive_threshold = 1\n", true },
                { "[events]\nadaptive_threshold = 100000000\n", true },
                { "[events]\nadaptive_threshold = 0\n", false },
                { "[events]\nadaptive_threshold = 100000001\n", false },
                { "[events]\nadaptive_threshold = 2e4\n", false },

                { "[governor]\nheadroom = 1\n", true },
                { "[governor]\nheadroom = 2\n", true },
                { "[governor]\nheadroom = 2.000000000\n", true },
                { "[governor]\nheadroom = 1.333\n", true },
                { "[governor]\nheadroom = 0.99\n", false },
                { "[governor]\nheadroom = 2.0000001\n", false },
                { "[governor]\nheadroom = 3\n", false },
                { "[governor]\nheadroom = 1.\n", false },
                { "[governor]\nheadroom = .5\n", false },
                { "[governor]\nheadroom = 1,25\n", false },
                { "[governor]\nheadroom = 1.25x\n", false },
                { "[governor]\nheadroom = 1.0000000001\n", false },
                { "[governor]\nheadroom = 125%\n", false },

                { "[governor]\nrate_limit_us = auto\n", true },
                { "[governor]\nrate_limit_us = 1\n", true },
                { "[governor]\nrate_limit_us = 10000000\n", true },
                { "[governor]\nrate_limit_us = 0\n", false },
                { "[governor]\nrate_limit_us = 10000001\n", false },
                { "[governor]\nrate_limit_us = Auto\n", false },

                { "[governor]\ntick_ms = 1\n", true },
                { "[governor]\ntick_ms = 100\n", true },
                { "[governor]\ntick_ms = 0\n", false },
                { "[governor]\ntick_ms = 101\n", false },
                { "[governor]\ntick_ms = auto\n", true },
                { "[governor]\ntick_ms = Auto\n", false },
                { "[governor]\ntick_ms = 4ms\n", false },

                { "[governor]\npolicies = all\n", true },
                { "[governor]\npolicies = 0\n", true },
                { "[governor]\npolicies = 0-3,6\n", true },
                { "[governor]\npolicies =\n", false },
                { "[governor]\npolicies = none\n", false },
                { "[governor]\npolicies = 3-1\n", false },
                { "[governor]\npolicies = 4096\n", false },

                { "[governor]\nremote = auto\n", true },
                { "[governor]\nremote = yes\n", true },
                { "[governor]\nremote = no\n", true },
                { "[governor]\nremote = 1\n", false },
                { "[governor]\nremote = true\n", false },

                { "[policy0]\nremote = yes\n", true },
                { "[policy1023]\nremote = no\n", true },
                { "[policy7]\nremote = off\n", false },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_free_ char *error = NULL;
                Config c;
                int r;

                r = load_text(cases[i].text, &c, &error);
                if (cases[i].ok != (r == 0))
                        fprintf(stderr, "# case %zu: %s→ %d %s\n", i, cases[i].text, r, error ?: "");
                ASSERT_EQ(r, cases[i].ok ? 0 : -EINVAL);
                if (!cases[i].ok) {
                        ASSERT_TRUE(error);
                        ASSERT_TRUE(strstr(error, "schedfreqd.conf:2: "));
                        ASSERT_TRUE(!strchr(error, '\n'));
                }
        }
}

TEST(values_parsed) {
        Config c;

        ASSERT_OK(config_load(CONFIG_FIXTURES "/good.conf", false, &c, NULL));
        ASSERT_EQ(c.log_level, LOG_DEBUG);
        ASSERT_U64_EQ(c.drain_interval_usec, 10000);
        ASSERT_EQ(c.ring_pages, 256);
        ASSERT_EQ(c.wakeup, WAKEUP_MODE_WATERMARK);
        ASSERT_U64_EQ(c.adaptive_high_per_sec, 50000);
        ASSERT_EQ(c.headroom_x1024, 1536);
        ASSERT_U64_EQ(c.rate_limit_usec, 2000);
        ASSERT_U64_EQ(c.tick_usec, 10000);
        ASSERT_TRUE(!c.manage_all);
        ASSERT_EQ(CPU_COUNT(&c.manage), 3);
        ASSERT_TRUE(config_manages_policy(&c, 0));
        ASSERT_TRUE(!config_manages_policy(&c, 1));
        ASSERT_TRUE(config_manages_policy(&c, 4));
        ASSERT_TRUE(config_manages_policy(&c, 5));
        ASSERT_TRUE(!config_manages_policy(&c, 5000));
        ASSERT_EQ(c.remote, REMOTE_MODE_NO);
        ASSERT_TRUE(c.policy[4].present);
        ASSERT_EQ(config_policy_remote(&c, 4), REMOTE_MODE_YES);
        ASSERT_EQ(config_policy_remote(&c, 0), REMOTE_MODE_AUTO);
        ASSERT_EQ(config_policy_remote(&c, 1), REMOTE_MODE_NO);
        ASSERT_EQ(config_policy_remote(&c, 9999), REMOTE_MODE_NO);

        /* Headroom is rounded to the nearest 1/1024. */
        ASSERT_OK(load_text("[governor]\nheadroom = 1.333\n", &c, NULL));
        ASSERT_EQ(c.headroom_x1024, 1365); /* 1364.99 */
        ASSERT_OK(load_text("[governor]\nheadroom = 1.0\n", &c, NULL));
        ASSERT_EQ(c.headroom_x1024, 1024);
        ASSERT_OK(load_text("[governor]\nheadroom = 2\n", &c, NULL));
        ASSERT_EQ(c.headroom_x1024, 2048);
        ASSERT_OK(load_text("[governor]\nheadroom = 1.1\n", &c, NULL));
        ASSERT_EQ(c.headroom_x1024, 1126); /* 1126.4 */

        /* policies = all after a list manages everything again; a later list replaces an earlier one. */
        ASSERT_OK(load_text("[governor]\npolicies = 2\npolicies = all\n", &c, NULL));
        ASSERT_TRUE(c.manage_all);
        ASSERT_TRUE(config_manages_policy(&c, 7));
        ASSERT_OK(load_text("[governor]\npolicies = 2\npolicies = 3\n", &c, NULL));
        ASSERT_TRUE(!config_manages_policy(&c, 2));
        ASSERT_TRUE(config_manages_policy(&c, 3));

        /* [policyN] follows [governor] remote= whatever the order. */
        ASSERT_OK(load_text("[policy2]\nremote = yes\n[governor]\nremote = no\n", &c, NULL));
        ASSERT_EQ(config_policy_remote(&c, 2), REMOTE_MODE_YES);
        ASSERT_EQ(config_policy_remote(&c, 3), REMOTE_MODE_NO);

        /* Whitespace and CRLF line ends are fine. */
        ASSERT_OK(load_text("  [events]  \r\n\tring_pages\t=\t32\t\r\n", &c, NULL));
        ASSERT_EQ(c.ring_pages, 32);
}

TEST(error_messages_with_file_and_line) {
        _cleanup_free_ char *error = NULL;
        Config c;

        config_set_defaults(&c);
        c.ring_pages = 12345; /* a canary: @ret is untouched on failure */

        ASSERT_ERROR(config_load(CONFIG_FIXTURES "/errors.conf", false, &c, &error), EINVAL);
        ASSERT_EQ(c.ring_pages, 12345);
        ASSERT_STREQ(error,
                     CONFIG_FIXTURES "/errors.conf:3: log_level=loud: expected err, warning, notice, info, debug or 0..7\n"
                     CONFIG_FIXTURES "/errors.conf:6: ring_pages=100: expected a power of two between 1 and 4096\n"
                     CONFIG_FIXTURES "/errors.conf:7: wakeup=sometimes: expected adaptive, watermark or immediate\n"
                     CONFIG_FIXTURES "/errors.conf:8: expected 'key = value', '[section]' or a comment\n"
                     CONFIG_FIXTURES "/errors.conf:11: headroom=2.5: expected a decimal number between 1.0 and 2.0\n"
                     CONFIG_FIXTURES "/errors.conf:12: unknown key 'colour' in section [governor]\n"
                     CONFIG_FIXTURES "/errors.conf:15: unknown section [gouvernor]; did you mean [governor]?\n"
                     CONFIG_FIXTURES "/errors.conf:19: invalid section [policy01]: expected [policyN] with N in 0..1023\n"
                     CONFIG_FIXTURES "/errors.conf:22: section header without ']'\n"
                     CONFIG_FIXTURES "/errors.conf:24: remote=maybe: expected auto, yes or no");

        /* Without ret_error: the same verdict. */
        ASSERT_ERROR(config_load(CONFIG_FIXTURES "/errors.conf", false, &c, NULL), EINVAL);
}

TEST(unknown_keys_and_sections) {
        _cleanup_free_ char *e1 = NULL, *e2 = NULL, *e3 = NULL, *e4 = NULL, *e5 = NULL, *e6 = NULL, *e7 = NULL;
        Config c;

        /* Keys are case-sensitive; the error names the key meant (issue #24: as systemd's "Did you mean"). */
        e1 = load_error("[governor]\nheadroom = 1.5\nHeadroom = 1.5\n");
        ASSERT_STREQ(e1, "F:3: unknown key 'Headroom' in section [governor]; did you mean 'headroom'?");

        /* A key valid in another section is still unknown here; the error says where it belongs. */
        e2 = load_error("[daemon]\ntick_ms = 4\n");
        ASSERT_STREQ(e2, "F:2: unknown key 'tick_ms' in section [daemon]; it belongs in [governor]");

        /* An unknown section is reported once, at its header, however many keys it has. */
        e3 = load_error("\n[Governor]\nheadroom = 1.5\ntick_ms = 4\n");
        ASSERT_STREQ(e3, "F:2: unknown section [Governor]; did you mean [governor]?");

        e4 = load_error("log_level = info\n[daemon]\n");
        ASSERT_STREQ(e4, "F:1: 'log_level' outside of any [section]");

        e5 = load_error("[policy]\nremote = yes\n[policy1024]\nremote = yes\n[policyx]\nremote = no\n");
        ASSERT_STREQ(e5, "F:1: invalid section [policy]: expected [policyN] with N in 0..1023\n"
                         "F:3: invalid section [policy1024]: expected [policyN] with N in 0..1023\n"
                         "F:5: invalid section [policyx]: expected [policyN] with N in 0..1023");

        e6 = load_error("[policy3]\nremote = yes\nheadroom = 1.5\n");
        ASSERT_STREQ(e6, "F:3: unknown key 'headroom' in section [policy3]; it belongs in [governor]");

        /* A UTF-8 byte order mark does not hide the first section header. */
        e7 = load_error("\xef\xbb\xbf[bogus]\nx = 1\n");
        ASSERT_STREQ(e7, "F:1: unknown section [bogus]");
        ASSERT_OK(load_text("\xef\xbb\xbf[daemon]\nlog_level = debug\n", &c, NULL));
        ASSERT_EQ(c.log_level, LOG_DEBUG);
}

TEST(syntax_errors_all_reported) {
        _cleanup_free_ char *e1 = NULL, *e2 = NULL;
        char text[1024];

        e1 = load_error("[daemon\nnonsense\n[events]\nring_pages = 3\nmore nonsense\n");
        ASSERT_STREQ(e1, "F:1: section header without ']'\n"
                         "F:2: expected 'key = value', '[section]' or a comment\n"
                         "F:4: ring_pages=3: expected a power of two between 1 and 4096\n"
                         "F:5: expected 'key = value', '[section]' or a comment");

        /* A line longer than inih's buffer is refused whole, not parsed in pieces. */
        snprintf(text, sizeof(text), "[governor]\n#%0300d\ntick_ms = 4%0300d\ntick_ms = 5\n", 0, 0);
        e2 = load_error(text);
        ASSERT_STREQ(e2, "F:2: line too long (more than 198 characters)\n"
                         "F:3: line too long (more than 198 characters)");
}

/* Each bad line costs inih a pass: past SYNTAX_ERRORS_MAX (20) they are summed up, so a file of bad lines
 * is linear (the fuzzer found 16,000 of them taking 4.8 s, and 1 MiB of them hours). */
TEST(syntax_errors_capped) {
        _cleanup_free_ char *text = NULL, *e = NULL;
        size_t n = 0;
        unsigned lines = 0;

        text = malloc(200000 * 2 + 1);
        ASSERT_TRUE(text);
        for (unsigned i = 0; i < 200000; i++) {
                text[n++] = 'x';
                text[n++] = '\n';
        }
        text[n] = '\0';
        e = load_error(text);
        ASSERT_TRUE(e);
        for (const char *p = e; p; p = strchr(p + 1, '\n'))
                lines++;
        ASSERT_EQ(lines, 21u);
        ASSERT_TRUE(strstr(e, "F:21: more lines that are not 'key = value', '[section]' or a comment from here on"));
}

TEST(nul_byte_is_an_error) {
        static const char value[] = "[governor]\ntick_ms = 5\0 and more\nheadroom = 1.5\n";
        static const char comment[] = "# a\0b\n[events]\nring_pages = 8\n";
        static const char header[] = "[daemon]\0\n[policy1]\0remote = yes\nremote = no\n";
        _cleanup_free_ char *e1 = NULL, *e2 = NULL, *e3 = NULL;

        /* inih reads C strings: "tick_ms = 5" was taken and " and more" silently dropped. */
        e1 = load_error_bytes(value, sizeof(value) - 1);
        ASSERT_STREQ(e1, "F:2: NUL byte in line");
        /* Even in a comment (a binary file, an editor accident: the file is not what it looks like). */
        e2 = load_error_bytes(comment, sizeof(comment) - 1);
        ASSERT_STREQ(e2, "F:1: NUL byte in line");
        /* Every such line is reported; what follows a refused header is judged without it. */
        e3 = load_error_bytes(header, sizeof(header) - 1);
        ASSERT_STREQ(e3, "F:1: NUL byte in line\n"
                         "F:2: NUL byte in line\n"
                         "F:3: 'remote' outside of any [section]");
}

TEST(huge_file_refused) {
        _cleanup_(scratch_done) Scratch s = {};
        _cleanup_free_ char *error = NULL, *text = NULL, *expect = NULL;
        size_t size = 1024 * 1024 + 1;
        Config c;

        /* 1 MiB and a byte of comments: refused after 1 MiB, not read to its end (think of /dev/zero). */
        text = malloc(size);
        ASSERT_TRUE(text);
        for (size_t i = 0; i < size; i++)
                text[i] = i % 64 == 63 ? '\n' : '#';
        ASSERT_OK(scratch_init(&s));
        ASSERT_OK(write_bytes(s.path, text, size));
        ASSERT_ERROR(config_load(s.path, false, &c, &error), EFBIG);
        ASSERT_TRUE(asprintf(&expect, "%s: File too large", s.path) > 0);
        ASSERT_STREQ(error, expect);

        /* 1 MiB is fine. */
        ASSERT_OK(write_bytes(s.path, text, size - 1));
        ASSERT_OK(config_load(s.path, false, &c, NULL));
}

TEST(dropin_order) {
        Config c;

        /* main (1.1, 8, 500, 8 pages) < 10-first (10, 1.2) < 20-second (20) < 99-policy; README, .hidden.conf
         * and the directory dir.conf are not drop-ins. */
        ASSERT_OK(config_load(CONFIG_FIXTURES "/dropins/schedfreqd.conf", false, &c, NULL));
        ASSERT_U64_EQ(c.tick_usec, 20000);
        ASSERT_EQ(c.headroom_x1024, 1229); /* 1.2 x 1024 = 1228.8 */
        ASSERT_U64_EQ(c.rate_limit_usec, 500);
        ASSERT_EQ(c.ring_pages, 8);
        ASSERT_EQ(config_policy_remote(&c, 2), REMOTE_MODE_NO);
        ASSERT_EQ(config_policy_remote(&c, 3), REMOTE_MODE_AUTO);
}

TEST(dropin_order_is_bytewise) {
        _cleanup_(scratch_done) Scratch s = {};
        Config c;

        ASSERT_OK(scratch_init(&s));
        ASSERT_OK(write_file(s.path, "[governor]\ntick_ms = 1\n"));
        ASSERT_OK(scratch_dropin(&s, "b.conf", "[governor]\ntick_ms = 3\n"));
        ASSERT_OK(scratch_dropin(&s, "B.conf", "[governor]\ntick_ms = 2\n"));
        ASSERT_OK(scratch_dropin(&s, "a.conf.disabled", "[governor]\ntick_ms = 9\n"));
        ASSERT_OK(scratch_dropin(&s, ".conf", "[governor]\ntick_ms = 9\n"));

        /* "B" < "b" in bytes: b.conf is read last. */
        ASSERT_OK(config_load(s.path, false, &c, NULL));
        ASSERT_U64_EQ(c.tick_usec, 3000);
}

TEST(bad_dropin_rejects_everything) {
        _cleanup_free_ char *error = NULL;
        Config c;

        config_set_defaults(&c);
        ASSERT_ERROR(config_load(CONFIG_FIXTURES "/bad-dropin/schedfreqd.conf", true, &c, &error), EINVAL);
        ASSERT_STREQ(error, CONFIG_FIXTURES "/bad-dropin/schedfreqd.conf.d/50-bad.conf:3: tick_ms=0: "
                            "expected auto or milliseconds between 1 and 100");
        /* Nothing of the good files leaked into @ret. */
        ASSERT_EQ(c.headroom_x1024, 1280);
        ASSERT_U64_EQ(c.tick_usec, 0);
}

TEST(errors_from_several_files) {
        _cleanup_(scratch_done) Scratch s = {};
        _cleanup_free_ char *error = NULL, *expect = NULL;
        Config c;

        ASSERT_OK(scratch_init(&s));
        ASSERT_OK(write_file(s.path, "[governor]\ntick_ms = 0\n"));
        ASSERT_OK(scratch_dropin(&s, "10-x.conf", "\n\n[events]\nring_pages = 3\n"));

        ASSERT_ERROR(config_load(s.path, false, &c, &error), EINVAL);
        ASSERT_TRUE(asprintf(&expect,
                             "%s:2: tick_ms=0: expected auto or milliseconds between 1 and 100\n"
                             "%s.d/10-x.conf:4: ring_pages=3: expected a power of two between 1 and 4096",
                             s.path, s.path) > 0);
        ASSERT_STREQ(error, expect);
}

/* Every error in FILE:LINE order, whichever pass found it: the main file's, then each drop-in's (issue #24). */
TEST(errors_in_file_and_line_order) {
        _cleanup_(scratch_done) Scratch s = {};
        _cleanup_free_ char *error = NULL, *expect = NULL;
        Config c;

        ASSERT_OK(scratch_init(&s));
        ASSERT_OK(write_file(s.path, "[rule:a]\nmin_util = 10\n[governor]\nheadrom = 1.5\nnot a line\n"));
        ASSERT_OK(scratch_dropin(&s, "10-x.conf", "[rule:b]\nexe = /x\n[events]\nsorce = perf\n"));

        ASSERT_ERROR(config_load(s.path, false, &c, &error), EINVAL);
        ASSERT_TRUE(asprintf(&expect,
                             "%1$s:1: rule 'a' has no match key (comm=, exe= or cgroup=)\n"
                             "%1$s:4: unknown key 'headrom' in section [governor]; did you mean 'headroom'?\n"
                             "%1$s:5: expected 'key = value', '[section]' or a comment\n"
                             "%1$s.d/10-x.conf:1: rule 'b' has no action (min_util=, max_util=, rt_boost=yes or "
                             "ignore=yes)\n"
                             "%1$s.d/10-x.conf:4: unknown key 'sorce' in section [events]; did you mean 'source'?",
                             s.path) > 0);
        ASSERT_STREQ(error, expect);
}

TEST(key_suggestions) {
        _cleanup_free_ char *e1 = NULL, *e2 = NULL, *e3 = NULL;

        /* A swap of two letters is one edit; a [policyN] key is suggested from [policyN]'s own keys. */
        e1 = load_error("[policy0]\nrmeote = no\n");
        ASSERT_STREQ(e1, "F:2: unknown key 'rmeote' in section [policy0]; did you mean 'remote'?");
        /* Too far from every key: no guess. */
        e2 = load_error("[events]\nfrobnicate = 1\n");
        ASSERT_STREQ(e2, "F:2: unknown key 'frobnicate' in section [events]");
        e3 = load_error("[rule:x]\nexe = /a\nignore = yes\ncgroupp = /b\n");
        ASSERT_STREQ(e3, "F:4: unknown key 'cgroupp' in section [rule:x] (valid keys: comm, exe, cgroup, min_util, max_util, rt_boost, "
                         "ignore); did you mean "
                         "'cgroup'?");

        ASSERT_EQ(string_distance("headroom", "headrom"), 1U);
        ASSERT_EQ(string_distance("remote", "rmeote"), 1U);
        ASSERT_EQ(string_distance("abc", ""), 3U);
        ASSERT_TRUE(string_is_typo_of("ex", "exe"));
        ASSERT_TRUE(!string_is_typo_of("abc", "exe"));
}

TEST(missing_main_file) {
        _cleanup_free_ char *error = NULL;
        Config c;

        /* missing_ok: defaults, plus whatever drop-ins there are. */
        ASSERT_OK(config_load(CONFIG_FIXTURES "/nonexistent.conf", true, &c, &error));
        ASSERT_TRUE(!error);
        ASSERT_TRUE(config_equal_defaults(&c));

        ASSERT_OK(config_load(CONFIG_FIXTURES "/dropins-only/schedfreqd.conf", true, &c, NULL));
        ASSERT_TRUE(!c.manage_all);
        ASSERT_TRUE(config_manages_policy(&c, 1));
        ASSERT_TRUE(!config_manages_policy(&c, 0));

        /* Not missing_ok: -ENOENT, with a message naming the file. */
        config_set_defaults(&c);
        c.ring_pages = 777;
        ASSERT_ERROR(config_load(CONFIG_FIXTURES "/nonexistent.conf", false, &c, &error), ENOENT);
        ASSERT_STREQ(error, CONFIG_FIXTURES "/nonexistent.conf: No such file or directory");
        ASSERT_EQ(c.ring_pages, 777);
}

TEST(unreadable_file) {
        _cleanup_free_ char *error = NULL;
        Config c;

        /* A directory where the main file should be: an I/O error, reported with its errno. */
        ASSERT_ERROR(config_load(CONFIG_FIXTURES, false, &c, &error), EISDIR);
        ASSERT_STREQ(error, CONFIG_FIXTURES ": Is a directory");

        ASSERT_ERROR(config_load(NULL, false, &c, NULL), EINVAL);
        ASSERT_ERROR(config_load(CONFIG_FIXTURES "/good.conf", false, NULL, NULL), EINVAL);
}

static Topology *topology_from_text(const char *text) {
        _cleanup_fclose_ FILE *f = fmemopen((void *) text, strlen(text), "r");
        Topology *t = NULL;

        if (!f || topology_parse_file(f, "t.ini", &t, NULL) < 0)
                return NULL;
        return t;
}

TEST(check_topology_missing_policies) {
        _cleanup_(topology_freep) Topology *t = NULL;
        _cleanup_free_ char *warnings = NULL;
        Config c;

        ASSERT_OK(topology_load(SHARED_DT, &t, NULL));
        ASSERT_OK(config_load(MISSING, false, &c, NULL));

        /* In file and line order, the main file first; policy1 is a CPU number, not a policy. */
        ASSERT_EQ(config_check_topology(&c, t, &warnings), 4);
        ASSERT_STREQ(warnings,
                     MISSING ":4: policies= names policy1, which does not exist (CPU 1 is in policy0; "
                             "policies are named after their first CPU)\n"
                     MISSING ":4: policies= names policy7, which does not exist (existing policies: 0,2)\n"
                     MISSING ":9: [policy99] is for a policy that does not exist (existing policies: 0,2)\n"
                     MISSING ".d/50-more.conf:4: [policy5] is for a policy that does not exist "
                             "(existing policies: 0,2)");

        /* Without a place for the text: the count alone. */
        ASSERT_EQ(config_check_topology(&c, t, NULL), 4);
}

TEST(check_topology_clean) {
        _cleanup_(topology_freep) Topology *t = NULL;
        char *warnings = NULL;
        Config c;

        ASSERT_OK(topology_load(SHARED_DT, &t, NULL));

        /* The defaults (policies = all, no section) and a config that names only existing policies. */
        config_set_defaults(&c);
        ASSERT_EQ(config_check_topology(&c, t, &warnings), 0);
        ASSERT_OK(load_text("[governor]\npolicies = 0,2\n[policy2]\nremote = no\n", &c, NULL));
        ASSERT_EQ(config_check_topology(&c, t, &warnings), 0);
        ASSERT_TRUE(!warnings); /* untouched */

        /* policies = all names nothing: a later "all" replaces an earlier list. */
        ASSERT_OK(load_text("[governor]\npolicies = 7\npolicies = all\n", &c, NULL));
        ASSERT_EQ(config_check_topology(&c, t, &warnings), 0);

        ASSERT_ERROR(config_check_topology(NULL, t, NULL), EINVAL);
        ASSERT_ERROR(config_check_topology(&c, NULL, NULL), EINVAL);
}

TEST(check_topology_origin_in_force) {
        _cleanup_(scratch_done) Scratch s = {};
        _cleanup_(topology_freep) Topology *t = NULL;
        _cleanup_free_ char *warnings = NULL, *expect = NULL;
        Config c;

        ASSERT_OK(topology_load(SHARED_DT, &t, NULL));
        ASSERT_OK(scratch_init(&s));
        ASSERT_OK(write_file(s.path, "[governor]\npolicies = 0,7\n\n[policy9]\nremote = yes\n"));
        ASSERT_OK(scratch_dropin(&s, "10-x.conf", "# overrides policies=\n[governor]\npolicies = 0,8\n"));
        ASSERT_OK(scratch_dropin(&s, "20-y.conf", "[policy9]\nremote = no\n"));

        /* The policies= that is in force (the drop-in's), and the last [policy9] header. */
        ASSERT_OK(config_load(s.path, false, &c, NULL));
        ASSERT_EQ(config_check_topology(&c, t, &warnings), 2);
        ASSERT_TRUE(asprintf(&expect,
                             "%s.d/10-x.conf:3: policies= names policy8, which does not exist (existing policies: 0,2)\n"
                             "%s.d/20-y.conf:1: [policy9] is for a policy that does not exist (existing policies: 0,2)",
                             s.path, s.path) > 0);
        ASSERT_STREQ(warnings, expect);
}

TEST(check_topology_without_cpufreq) {
        _cleanup_(topology_freep) Topology *t = NULL;
        _cleanup_free_ char *warnings = NULL;
        Config c;

        t = topology_from_text("[system]\nonline = 0-3\n");
        ASSERT_TRUE(t);
        ASSERT_OK(load_text("[governor]\npolicies = 0\n", &c, NULL));
        ASSERT_EQ(config_check_topology(&c, t, &warnings), 1);
        ASSERT_TRUE(strstr(warnings, ":2: policies= names policy0, which does not exist (there is no cpufreq policy)"));
}

TEST(origin_file_names) {
        Config c, copy;

        config_set_defaults(&c);
        ASSERT_STREQ(config_origin_file(&c, (ConfigOrigin) { .file = 0, .line = 1 }), "(a configuration file)");
        ASSERT_STREQ(config_origin_file(&c, (ConfigOrigin) { .file = UINT32_MAX, .line = 1 }),
                     "(a configuration file)");

        /* Each file's name is kept once, however many settings it holds; it survives a copy of the Config. */
        ASSERT_OK(config_load(MISSING, false, &c, NULL));
        ASSERT_EQ(c.origin_files_used, sizeof(MISSING) + sizeof(MISSING ".d/50-more.conf"));
        copy = c;
        ASSERT_STREQ(config_origin_file(&copy, copy.policy[99].origin), MISSING);
        ASSERT_EQ(copy.policy[99].origin.line, 9);
        ASSERT_STREQ(config_origin_file(&copy, copy.policy[0].origin), MISSING ".d/50-more.conf");
        ASSERT_EQ(copy.manage_origin.line, 4);
}

/* ---- [rule:NAME] ---- */

static const Rule *rule_named(const Config *c, const char *name) {
        for (unsigned i = 0; i < c->rules.n; i++)
                if (streq(c->rules.rule[i].name, name))
                        return &c->rules.rule[i];
        return NULL;
}

TEST(rules_parsed) {
        _cleanup_free_ char *error = NULL;
        const Rule *r;
        Config c;

        ASSERT_OK(load_text("[rule:browser]\n"
                            "comm = firefox*\n"
                            "max_util = 512\n"
                            "\n"
                            "[governor]\n"
                            "tick_ms = 8\n"
                            "[rule:Game_1.x-y]\n"
                            "exe = /usr/games/*\n"
                            "cgroup = /user.slice/*\n"
                            "min_util = 0\n"
                            "min_util = 256\n"
                            "max_util = 1024\n"
                            "rt_boost = yes\n"
                            "[rule:idle]\n"
                            "cgroup = /system.slice/[ab]*.service\n"
                            "ignore = yes\n"
                            "[rule:lit]\n"
                            "comm = [[:alpha:]]\\[x\\]\n"
                            "min_util = 1024\n", &c, &error));
        ASSERT_TRUE(!error);
        ASSERT_U64_EQ(c.tick_usec, 8000);
        ASSERT_EQ(c.rules.n, 4);

        r = &c.rules.rule[0];
        ASSERT_STREQ(r->name, "browser");
        ASSERT_STREQ(r->comm, "firefox*");
        ASSERT_STREQ(r->exe, "");
        ASSERT_STREQ(r->cgroup, "");
        ASSERT_EQ(r->action[RULE_ACTION_MIN_UTIL], 0);
        ASSERT_EQ(r->action[RULE_ACTION_MAX_UTIL], 512);
        ASSERT_TRUE(!r->action[RULE_ACTION_RT_BOOST] && !r->action[RULE_ACTION_IGNORE]);
        ASSERT_EQ(r->origin.line, 1);

        r = &c.rules.rule[1];
        ASSERT_STREQ(r->name, "Game_1.x-y");
        ASSERT_STREQ(r->comm, "");
        ASSERT_STREQ(r->exe, "/usr/games/*");
        ASSERT_STREQ(r->cgroup, "/user.slice/*");
        ASSERT_EQ(r->action[RULE_ACTION_MIN_UTIL], 256);
        ASSERT_EQ(r->action[RULE_ACTION_MAX_UTIL], 1024);
        ASSERT_TRUE(r->action[RULE_ACTION_RT_BOOST] && !r->action[RULE_ACTION_IGNORE]);
        ASSERT_EQ(r->origin.line, 7);

        r = &c.rules.rule[2];
        ASSERT_STREQ(r->cgroup, "/system.slice/[ab]*.service");
        ASSERT_TRUE(r->action[RULE_ACTION_IGNORE] && !r->action[RULE_ACTION_RT_BOOST]);
        ASSERT_EQ(r->action[RULE_ACTION_MAX_UTIL], RULE_UTIL_MAX);

        ASSERT_STREQ(c.rules.rule[3].comm, "[[:alpha:]]\\[x\\]");
        ASSERT_EQ(rules_match(&c.rules, "a[x]", NULL, NULL), 3);

        ASSERT_EQ(rules_match(&c.rules, "firefox-esr", "/usr/lib/firefox/firefox", NULL), 0);
        ASSERT_EQ(rules_match(&c.rules, "a.service", NULL, "/system.slice/a.service"), 2);
}

/* A drop-in that repeats [rule:NAME] changes that rule key by key; its header becomes the rule's origin. */
TEST(rules_dropin_override) {
        _cleanup_(scratch_done) Scratch s = {};
        _cleanup_free_ char *error = NULL, *expect = NULL;
        const Rule *r;
        Config c;

        ASSERT_OK(scratch_init(&s));
        ASSERT_OK(write_file(s.path, "[rule:build]\ncomm = cc1*\nmax_util = 300\n\n"
                                     "[rule:player]\ncomm = mpv\nmin_util = 200\n"));
        ASSERT_OK(scratch_dropin(&s, "50-local.conf", "# local\n[rule:build]\nmax_util = 600\nexe = /usr/lib/gcc/*\n"
                                                       "[rule:new]\ncgroup = /batch.slice/*\nignore = yes\n"));
        ASSERT_OK(config_load(s.path, false, &c, &error));
        ASSERT_EQ(c.rules.n, 3);

        r = rule_named(&c, "build");
        ASSERT_TRUE(r == &c.rules.rule[0]);
        ASSERT_STREQ(r->comm, "cc1*");
        ASSERT_STREQ(r->exe, "/usr/lib/gcc/*");
        ASSERT_EQ(r->action[RULE_ACTION_MAX_UTIL], 600);
        ASSERT_TRUE(asprintf(&expect, "%s.d/50-local.conf", s.path) > 0);
        ASSERT_STREQ(config_origin_file(&c, r->origin), expect);
        ASSERT_EQ(r->origin.line, 2);

        r = rule_named(&c, "player");
        ASSERT_TRUE(r);
        ASSERT_STREQ(config_origin_file(&c, r->origin), s.path);
        ASSERT_EQ(r->origin.line, 5);
        ASSERT_EQ(r->action[RULE_ACTION_MIN_UTIL], 200);

        ASSERT_TRUE(rule_named(&c, "new") == &c.rules.rule[2]);

        /* A drop-in can make a rule invalid: judged at the drop-in's header. */
        ASSERT_OK(scratch_dropin(&s, "60-bad.conf", "\n[rule:player]\nmax_util = 100\n"));
        free(error);
        error = NULL;
        free(expect);
        expect = NULL;
        ASSERT_ERROR(config_load(s.path, false, &c, &error), EINVAL);
        ASSERT_TRUE(asprintf(&expect, "%s.d/60-bad.conf:2: rule 'player': min_util=200 is above max_util=100",
                             s.path) > 0);
        ASSERT_STREQ(error, expect);
}

TEST(rule_value_errors) {
        _cleanup_free_ char *e1 = NULL, *e2 = NULL, *e3 = NULL, *e4 = NULL;
        char text[512];

        e1 = load_error("[rule:x]\n"
                        "comm = [abc\n"
                        "exe = /bin/foo\\\n"
                        "cgroup =\n"
                        "comm = [!]\n"
                        "comm = a[[:alpha:]\n"
                        "min_util = 1025\n"
                        "max_util = -1\n"
                        "min_util = 0x10\n"
                        "max_util =\n"
                        "rt_boost = maybe\n"
                        "ignore = 1\n"
                        "colour = red\n");
        ASSERT_STREQ(e1, "F:2: comm=[abc: '[' without its ']' in the glob (write \\[ for a '[')\n"
                         "F:3: exe=/bin/foo\\: a glob may not end with a lone '\\' (write \\\\ for a backslash)\n"
                         "F:4: cgroup=: expected a glob, not an empty value\n"
                         "F:5: comm=[!]: '[' without its ']' in the glob (write \\[ for a '[')\n"
                         "F:6: comm=a[[:alpha:]: '[' without its ']' in the glob (write \\[ for a '[')\n"
                         "F:7: min_util=1025: expected an integer between 0 and 1024\n"
                         "F:8: max_util=-1: expected an integer between 0 and 1024\n"
                         "F:9: min_util=0x10: expected an integer between 0 and 1024\n"
                         "F:10: max_util=: expected an integer between 0 and 1024\n"
                         "F:11: rt_boost=maybe: expected yes or no\n"
                         "F:12: ignore=1: expected yes or no\n"
                         "F:13: unknown key 'colour' in section [rule:x] (valid keys: comm, exe, cgroup, min_util, "
                         "max_util, rt_boost, ignore)");

        /* Too long for the field: comm holds 63 bytes (a 64-byte one is refused), exe and cgroup 255, which an
         * inih line (198 characters) cannot reach. */
        snprintf(text, sizeof(text), "[rule:x]\ncomm = %0*d\nignore = yes\n", 63, 0);
        e2 = load_error(text);
        ASSERT_TRUE(!e2);
        snprintf(text, sizeof(text), "[rule:x]\ncomm = %0*d\nignore = yes\n", 64, 0);
        e3 = load_error(text);
        ASSERT_TRUE(e3 && strstr(e3, "F:2: comm=0000"));
        ASSERT_TRUE(e3 && strstr(e3, ": expected a glob of at most 63 bytes") && !strchr(e3, '\n'));

        /* A rule with a bad value is not judged as a whole as well (no "has no match key" after a bad comm=). */
        e4 = load_error("[rule:y]\ncomm = a\\\nmin_util = 2000\n");
        ASSERT_STREQ(e4, "F:2: comm=a\\: a glob may not end with a lone '\\' (write \\\\ for a backslash)\n"
                         "F:3: min_util=2000: expected an integer between 0 and 1024");
}

TEST(rule_section_errors) {
        _cleanup_free_ char *e1 = NULL, *e2 = NULL, *e3 = NULL, *e4 = NULL;
        _cleanup_free_ char *text = NULL;
        char name63[64], line[128];
        size_t n = 0;
        Config c;

        memset(name63, 'n', 63);
        name63[63] = '\0';

        e1 = load_error("[rule:]\ncomm = a\n"
                        "[rule:has space]\ncomm = a\nignore = yes\n"
                        "[rule:slash/x]\n"
                        "[rule:nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn]\ncomm = a\n"
                        "[Rule:x]\ncomm = a\n");
        ASSERT_STREQ(e1, "F:1: invalid section [rule:]: expected [rule:NAME] with a NAME of 1 to 63 letters, "
                         "digits, '_', '.' or '-'\n"
                         "F:3: invalid section [rule:has space]: expected [rule:NAME] with a NAME of 1 to 63 letters, "
                         "digits, '_', '.' or '-'\n"
                         "F:6: invalid section [rule:slash/x]: expected [rule:NAME] with a NAME of 1 to 63 letters, "
                         "digits, '_', '.' or '-'\n"
                         "F:7: invalid section [rule:nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn]: "
                         "expected [rule:NAME] with a NAME of 1 to 63 letters, digits, '_', '.' or '-'\n"
                         "F:9: unknown section [Rule:x]");

        /* 63 characters is fine, though inih cuts section names at 49 bytes. */
        snprintf(line, sizeof(line), "[rule:%s]\ncomm = a\nmin_util = 1\n", name63);
        ASSERT_OK(load_text(line, &c, NULL));
        ASSERT_EQ(c.rules.n, 1);
        ASSERT_STREQ(c.rules.rule[0].name, name63);
        ASSERT_STREQ(c.rules.rule[0].comm, "a");

        /* RULES_MAX rules are fine, one more is an error at its header. */
        text = malloc(64 * (RULES_MAX + 2));
        ASSERT_TRUE(text);
        for (unsigned i = 0; i < RULES_MAX + 1; i++)
                n += (size_t) sprintf(text + n, "[rule:r%u]\ncomm = a\nignore = yes\n", i);
        e2 = load_error(text);
        ASSERT_STREQ(e2, "F:97: [rule:r32]: more than 32 rules");
        text[n - strlen("[rule:r32]\ncomm = a\nignore = yes\n")] = '\0';
        ASSERT_OK(load_text(text, &c, NULL));
        ASSERT_EQ(c.rules.n, RULES_MAX);

        /* Repeating a section is not another rule. */
        ASSERT_OK(load_text("[rule:a]\ncomm = a\n[rule:b]\ncomm = b\nignore = yes\n[rule:a]\nmax_util = 5\n", &c, NULL));
        ASSERT_EQ(c.rules.n, 2);
        ASSERT_EQ(c.rules.rule[0].action[RULE_ACTION_MAX_UTIL], 5);
        ASSERT_EQ(c.rules.rule[0].origin.line, 6);

        /* Problems of a rule as a whole, after every file: at its header, in file order. */
        e3 = load_error("[rule:empty]\n"
                        "\n"
                        "[rule:nokey]\nmin_util = 100\n"
                        "[rule:noaction]\ncomm = a\nrt_boost = no\nmin_util = 0\nmax_util = 1024\n"
                        "[rule:both]\ncomm = a\nignore = yes\nrt_boost = yes\n"
                        "[rule:both2]\ncomm = a\nignore = yes\nmax_util = 1023\n"
                        "[rule:minmax]\nexe = /a\nmin_util = 600\nmax_util = 500\n"
                        "[rule:ok]\ncgroup = /a\nignore = yes\nmin_util = 0\nrt_boost = no\n");
        ASSERT_STREQ(e3, "F:1: rule 'empty' has no match key (comm=, exe= or cgroup=)\n"
                         "F:1: rule 'empty' has no action (min_util=, max_util=, rt_boost=yes or ignore=yes)\n"
                         "F:3: rule 'nokey' has no match key (comm=, exe= or cgroup=)\n"
                         "F:5: rule 'noaction' has no action (min_util=, max_util=, rt_boost=yes or ignore=yes)\n"
                         "F:10: rule 'both': ignore=yes excludes the other actions (min_util=, max_util=, rt_boost=)\n"
                         "F:14: rule 'both2': ignore=yes excludes the other actions (min_util=, max_util=, rt_boost=)\n"
                         "F:18: rule 'minmax': min_util=600 is above max_util=500");

        /* A rule is judged after every file, but its problems are listed at its line, as every error (issue #24). */
        e4 = load_error("[rule:a]\ncomm = a\n[events]\nring_pages = 3\n");
        ASSERT_STREQ(e4, "F:1: rule 'a' has no action (min_util=, max_util=, rt_boost=yes or ignore=yes)\n"
                         "F:4: ring_pages=3: expected a power of two between 1 and 4096");
}

TEST(shipped_conf_parses_to_defaults) {
        _cleanup_free_ char *error = NULL;
        Config c;

        ASSERT_OK(config_load(SHIPPED_CONF, false, &c, &error));
        ASSERT_TRUE(!error);
        ASSERT_TRUE(config_equal_defaults(&c));
}

/* Uncommenting every "#key = value" and "#[section]" line of the shipped file must give the defaults too:
 * the documented defaults are the compile-time ones, and every key is documented. */
TEST(shipped_conf_documents_the_defaults) {
        _cleanup_(scratch_done) Scratch s = {};
        _cleanup_fclose_ FILE *in = NULL, *out = NULL;
        _cleanup_free_ char *line = NULL, *error = NULL;
        size_t size = 0;
        unsigned keys = 0;
        Config c;

        ASSERT_OK(scratch_init(&s));
        in = fopen(SHIPPED_CONF, "re");
        ASSERT_TRUE(in);
        out = fopen(s.path, "we");
        ASSERT_TRUE(out);

        while (getline(&line, &size, in) >= 0) {
                const char *p = line;

                if (p[0] == '#' && (p[1] == '[' || (p[1] >= 'a' && p[1] <= 'z' && strchr(p, '=')))) {
                        p++;
                        keys += p[0] != '[';
                }
                fputs(p, out);
        }
        ASSERT_TRUE(fflush(out) == 0);

        ASSERT_OK(config_load(s.path, false, &c, &error));
        ASSERT_TRUE(config_equal_defaults(&c));
        ASSERT_TRUE(c.policy[0].present);
        /* Every key of the table is there once, plus [policyN] remote. */
        ASSERT_EQ(keys, 13);
}

DEFINE_TEST_MAIN
