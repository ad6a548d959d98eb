/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests for sched-features.c: whether the kernel delays a sleeper's dequeue (EEVDF, 6.12+), from debugfs'
 * sched/features when it is there (NO_DELAY_DEQUEUE turns it off), else from the release; read from fake trees.
 */

#include <stdlib.h>

#include "macro.h"
#include "sched-features.h"
#include "scratch-tree.h"
#include "test.h"

DEFINE_TEST_MAIN;

#define treep scratch_tree_freep

static char *tree_new(const char *release, const char *features) {
        char *root = scratch_tree_new("test-sched-features");

        if (!root)
                abort();
        if (release)
                scratch_tree_put(root, release, "proc/sys/kernel/osrelease");
        if (features)
                scratch_tree_put(root, features, "sys/kernel/debug/sched/features");
        return root;
}

/* The release decides without debugfs: 6.12 brought DELAY_DEQUEUE; Debian 12's 6.1 has none. */
TEST(release_decides_without_debugfs) {
        _cleanup_(treep) char *debian12 = tree_new("6.1.0-28-amd64\n", NULL), *v611 = tree_new("6.11.9\n", NULL),
                             *v612 = tree_new("6.12.0-rc1\n", NULL), *here = tree_new("6.18.44-fc-v1272\n", NULL),
                             *v7 = tree_new("7.0.1\n", NULL), *v5 = tree_new("5.15.0\n", NULL);

        ASSERT_TRUE(!sched_delays_dequeue(debian12));
        ASSERT_TRUE(!sched_delays_dequeue(v611));
        ASSERT_TRUE(!sched_delays_dequeue(v5));
        ASSERT_TRUE(sched_delays_dequeue(v612));
        ASSERT_TRUE(sched_delays_dequeue(here));
        ASSERT_TRUE(sched_delays_dequeue(v7));
}

/* debugfs' word wins over the release, whole words only (DELAY_ZERO is another feature). */
TEST(features_file_decides) {
        _cleanup_(treep) char *off = tree_new("6.18.0\n", "GENTLE_FAIR_SLEEPERS NO_DELAY_DEQUEUE DELAY_ZERO\n"),
                             *on = tree_new("6.1.0\n", "PLACE_LAG DELAY_DEQUEUE DELAY_ZERO\n"),
                             *neither = tree_new("6.1.0\n", "PLACE_LAG NO_DELAY_ZERO\n");

        ASSERT_TRUE(!sched_delays_dequeue(off));
        ASSERT_TRUE(sched_delays_dequeue(on));
        ASSERT_TRUE(!sched_delays_dequeue(neither));
        ASSERT_TRUE(!sched_delays_dequeue_from("NO_DELAY_DEQUEUE", NULL));
        ASSERT_TRUE(sched_delays_dequeue_from("X DELAY_DEQUEUE", "6.1"));
}

/* Nothing readable, or a release that is not a version: the default (yes), as a topology without the key. */
TEST(unreadable_gives_the_default) {
        _cleanup_(treep) char *empty = tree_new(NULL, NULL), *odd = tree_new("linux\n", NULL);

        ASSERT_TRUE(sched_delays_dequeue(empty));
        ASSERT_TRUE(sched_delays_dequeue(odd));
        ASSERT_TRUE(sched_delays_dequeue_from(NULL, NULL));
}
