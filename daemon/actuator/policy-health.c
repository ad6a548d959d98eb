/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>

#include "actuator.h"
#include "macro.h"
#include "string-table.h"

static const char *const policy_health_state_table[_POLICY_HEALTH_STATE_MAX] = {
        [POLICY_GOVERNED] = "governed",
        [POLICY_BACKING_OFF] = "backing-off",
        [POLICY_OFFLINE] = "offline",
        [POLICY_RELEASED] = "released",
};

DEFINE_STRING_TABLE_LOOKUP_TO_STRING(policy_health_state, PolicyHealthState);

bool policy_health_may_write(const PolicyHealth *h, uint64_t now_usec) {
        switch (h->state) {
        case POLICY_GOVERNED:
                return true;
        case POLICY_BACKING_OFF:
        case POLICY_OFFLINE:
                return now_usec >= h->retry_usec;
        default:
                return false;
        }
}

bool policy_health_failed(PolicyHealth *h, PolicyHealthState state, int error, uint64_t now_usec) {
        bool changed = h->state != state;

        h->error = error;
        h->failures++;
        h->write_errors++;
        if (changed)
                h->since_usec = now_usec;
        h->state = state;
        if (state == POLICY_RELEASED)
                return changed;
        /* Doubling from the first failure on; a change of reason (EIO, then offline) keeps the pace. */
        h->backoff_usec = h->backoff_usec == 0 ? POLICY_BACKOFF_MIN_USEC
                                               : MIN(2 * h->backoff_usec, POLICY_BACKOFF_MAX_USEC);
        h->retry_usec = now_usec + h->backoff_usec;
        return changed;
}

bool policy_health_succeeded(PolicyHealth *h, uint64_t now_usec) {
        bool recovered = h->state != POLICY_GOVERNED;

        if (h->state == POLICY_RELEASED)
                return false; /* never written again: a success here is a caller bug, not a recovery */
        h->failures = 0;
        h->backoff_usec = 0;
        h->retry_usec = 0;
        if (recovered) {
                h->state = POLICY_GOVERNED;
                h->since_usec = now_usec;
        }
        return recovered;
}

/*
 * A policy whose CPUs are all offline is inactive: its files answer EBUSY (cpufreq_offline(), and show()/store()
 * in drivers/cpufreq/cpufreq.c). When its first CPU comes back, cpufreq_online() starts it again with its last
 * governor, ours. A write that met it still inactive and a read right after that finds it active on userspace
 * saw it come back between the two: that is no fault to back off from.
 */
PolicyHealthState policy_health_diagnose(PolicyHealthState was, int write_error, int read_r, bool userspace) {
        if (read_r == -EBUSY)
                return POLICY_OFFLINE;
        if (read_r < 0)
                return POLICY_BACKING_OFF;
        if (!userspace)
                return POLICY_RELEASED;
        if (was == POLICY_OFFLINE && (write_error == -EBUSY || write_error == 0))
                return POLICY_GOVERNED;
        return POLICY_BACKING_OFF; /* EIO, EAGAIN, an EBUSY of the write alone: a fault */
}
