/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sched-features.c: whether the running kernel delays the dequeue of a sleeping task (daemon/topology/
 * sched-features.h): discovery's [system] delayed_dequeue.
 *
 * Since 6.12 (kernel/sched/features.h: SCHED_FEAT(DELAY_DEQUEUE, true), "sched/fair: Implement delayed dequeue") a
 * task that sleeps while not eligible stays on its cfs_rq, its weight in the cfs_rq's load, until a pick finds it
 * eligible or it wakes (dequeue_entity(), kernel/sched/fair.c); a kernel before it (Debian 12's 6.1) takes a sleeper
 * off at once. The model follows the delayed tasks only where the kernel has them (demand_set_delayed_dequeue()):
 * they change a cfs_rq's load_avg, which scales a new task's initial util. debugfs' sched/features lists the
 * features, NO_<name> for one turned off, when debugfs is mounted (root only); else the release decides.
 */

#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "fs-util.h"
#include "kernel-version.h"
#include "macro.h"
#include "sched-features.h"

#define DELAY_DEQUEUE_SINCE KERNEL_VERSION_CODE(6, 12)

/* @name is one of the blank-separated words of @list. */
static bool has_word(const char *list, const char *name) {
        size_t n = strlen(name);

        for (const char *p = list; (p = strstr(p, name)); p += n)
                if ((p == list || p[-1] == ' ' || p[-1] == '\n') && (p[n] == '\0' || p[n] == ' ' || p[n] == '\n'))
                        return true;
        return false;
}

bool sched_delays_dequeue_from(const char *features, const char *release) {
        unsigned version;

        if (features && has_word(features, "NO_DELAY_DEQUEUE"))
                return false;
        if (features && has_word(features, "DELAY_DEQUEUE"))
                return true;
        if (kernel_version_parse(release, &version) < 0)
                return true;
        return version >= DELAY_DEQUEUE_SINCE;
}

/* Reads @rel (a path from the root, "/…") under @root into @buf; false when it cannot. */
static bool read_under(const char *root, const char *rel, char *buf, size_t size) {
        char path[4096];

        if ((size_t) snprintf(path, sizeof(path), "%s%s", root, rel) >= sizeof(path))
                return false;
        return read_small_file_at(AT_FDCWD, path, buf, size) >= 0;
}

bool sched_delays_dequeue(const char *root) {
        char features[4096], release[128];
        bool have_features, have_release;

        if (!root)
                root = "";
        have_features = read_under(root, "/sys/kernel/debug/sched/features", features, sizeof(features));
        have_release = read_under(root, "/proc/sys/kernel/osrelease", release, sizeof(release));
        return sched_delays_dequeue_from(have_features ? features : NULL, have_release ? release : NULL);
}
