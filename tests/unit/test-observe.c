/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests for observe.c: the lines `schedfreqd --observe` prints, from crafted inputs (our decisions and the
 * kernel's power:cpu_frequency events, as the live rings deliver them: one kernel event per CPU of a policy).
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "governor.h"
#include "macro.h"
#include "test.h"
#include "topology.h"

#define MS UINT64_C(1000000)

/* policy0 = CPUs 0-1 (schedutil), policy2 = CPUs 2-3 (@governor2), both at 1 GHz now. */
static Topology *two_policies(const char *governor2) {
        Topology *t = NULL;

        if (topology_new(&t) < 0)
                abort();
        for (unsigned id = 0; id < 2; id++) {
                PolicyDesc p = { .id = id * 2, .cpuinfo_min_khz = 500000, .cpuinfo_max_khz = 2000000,
                                 .cur_khz = 1000000 };

                snprintf(p.governor, sizeof(p.governor), "%s", id == 0 ? "schedutil" : governor2);
                CPU_ZERO(&p.cpus);
                CPU_SET(id * 2, &p.cpus);
                CPU_SET(id * 2 + 1, &p.cpus);
                if (topology_add_policy(t, &p) < 0)
                        abort();
        }
        return t;
}

/* Where the engine starts each policy (engine_policy_khz(): the cur_khz the topologies above give). */
static const uint32_t engine_start_khz[] = { 1000000, 1000000 };

/* The lines printed so far, NUL-terminated (memstream). */
typedef struct Out {
        char *buf;
        size_t size;
        FILE *f;
} Out;

static void out_open(Out *o) {
        *o = (Out) {};
        o->f = open_memstream(&o->buf, &o->size);
        if (!o->f)
                abort();
}

static void out_close(Out *o) {
        if (o->f)
                fclose(o->f);
        free(o->buf);
}

TEST(lines_and_running_agreement) {
        _cleanup_(topology_freep) Topology *t = two_policies("performance");
        _cleanup_(observer_freep) Observer *o = NULL;
        Out out;

        out_open(&out);
        ASSERT_OK(observer_new(t, engine_start_khz, 0, out.f, &o));
        /* schedutil's policy0 starts compared (the kernel's last choice is its cur), policy2 does not */
        observer_ours(o, 0, 10 * MS, 1000000);             /* the same as before: no line */
        observer_ours(o, 0, 20 * MS, 1500000);             /* 0..20 agree, now apart */
        ASSERT_OK(observer_kernel(o, 0, 30 * MS, 1500000)); /* 20..30 apart: agree 20/30 */
        ASSERT_OK(observer_kernel(o, 1, 30 * MS, 1500000)); /* the same change on the policy's other CPU */
        observer_ours(o, 1, 40 * MS, 2000000);             /* policy2: the kernel's still unknown */
        ASSERT_OK(observer_kernel(o, 2, 50 * MS, 2000000)); /* from here on compared: nothing yet */
        ASSERT_ERROR(observer_kernel(o, 7, 60 * MS, 2000000), ENOENT);
        observer_finish(o, 60 * MS);
        ASSERT_OK(observer_error(o));
        fflush(out.f);
        ASSERT_STREQ(out.buf,
                     "t=20000000 policy=0 ours=1500000 kernel=1000000 agree=100.0% changed=ours\n"
                     "t=30000000 policy=0 ours=1500000 kernel=1500000 agree=66.7% changed=kernel\n"
                     "t=40000000 policy=2 ours=2000000 kernel=- agree=- changed=ours\n"
                     "t=50000000 policy=2 ours=2000000 kernel=2000000 agree=- changed=kernel\n"
                     /* policy0: 0..20 and 30..60 agree of 60 ms */
                     "kernel policy=0 agree=83.3% compared_ms=60.000 mean_diff_khz=83333 max_diff_khz=500000 "
                     "kernel_changes=1 changes=1\n"
                     "kernel policy=2 agree=100.0% compared_ms=10.000 mean_diff_khz=0 max_diff_khz=0 "
                     "kernel_changes=0 changes=1\n");
        out_close(&out);
}

/* Nothing from the kernel for a policy that is not schedutil's: no summary line for it. */
TEST(no_kernel_no_summary) {
        _cleanup_(topology_freep) Topology *t = two_policies("powersave");
        _cleanup_(observer_freep) Observer *o = NULL;
        Out out;

        out_open(&out);
        ASSERT_OK(observer_new(t, engine_start_khz, 0, out.f, &o));
        observer_ours(o, 1, 5 * MS, 2000000);
        observer_finish(o, 10 * MS);
        fflush(out.f);
        ASSERT_TRUE(strstr(out.buf, "kernel policy=0 agree=") != NULL);
        ASSERT_TRUE(strstr(out.buf, "kernel policy=2") == NULL);
        ASSERT_TRUE(strstr(out.buf, "t=5000000 policy=2 ours=2000000 kernel=- agree=- changed=ours\n") != NULL);
        out_close(&out);
}

/* A reader gone: the first failed line is the error; no more lines are tried. */
TEST(print_error) {
        _cleanup_(topology_freep) Topology *t = two_policies("schedutil");
        _cleanup_(observer_freep) Observer *o = NULL;
        FILE *full = fopen("/dev/full", "we");

        ASSERT_TRUE(full);
        ASSERT_OK(observer_new(t, engine_start_khz, 0, full, &o));
        observer_ours(o, 0, MS, 2000000);
        ASSERT_ERROR(observer_error(o), ENOSPC);
        observer_ours(o, 0, 2 * MS, 500000);
        ASSERT_ERROR(observer_error(o), ENOSPC);
        observer_finish(o, 3 * MS);
        fclose(full);
}

DEFINE_TEST_MAIN
