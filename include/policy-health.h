/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * What became of a governed policy when its scaling_setspeed write failed, and when to try again. Pure: the
 * caller finds out why a write failed (actuator_probe()) and says so; no I/O, no clock of its own.
 *
 *   governed      writes go through
 *   backing-off   a write failed for no reason we can see (EIO, EAGAIN, an EBUSY with CPUs online, ...):
 *                 writes wait for a retry time that doubles with each failure (10 ms ... 10 s), so a broken
 *                 attribute costs a few writes a minute, not one per event
 *   offline       every CPU of the policy is offline (CPU hotplug): the kernel refuses its attributes with
 *                 EBUSY (show()/store() in drivers/cpufreq/cpufreq.c) and keeps the policy, whose governor
 *                 comes back as the last one (userspace) with the first CPU that returns (cpufreq_online());
 *                 retried with the same back-off, governed again by the first write that succeeds
 *   released      someone else switched the governor away from userspace (cpupower frequency-set -g, tuned,
 *                 power-profiles-daemon): the policy is theirs for the rest of our run, never written again,
 *                 not re-taken on resume, and left as they set it on exit
 *
 * Retries happen at decisions (a wake-up that happens anyway), never on a timer of their own: a quiet machine
 * with a broken policy stays quiet.
 */

#include <stdbool.h>
#include <stdint.h>

typedef enum PolicyHealthState {
        POLICY_GOVERNED,
        POLICY_BACKING_OFF,
        POLICY_OFFLINE,
        POLICY_RELEASED,
        _POLICY_HEALTH_STATE_MAX,
} PolicyHealthState;

#define POLICY_BACKOFF_MIN_USEC (10 * 1000ULL)
#define POLICY_BACKOFF_MAX_USEC (10 * 1000 * 1000ULL)

typedef struct PolicyHealth {
        PolicyHealthState state;
        int error;                    /* negative errno of the last failed write, 0 = none yet */
        uint64_t failures;            /* consecutive failed writes */
        uint64_t write_errors;        /* failed writes, ever */
        uint64_t backoff_usec;        /* the wait after the last failure */
        uint64_t retry_usec;          /* CLOCK_MONOTONIC: no write before this */
        uint64_t since_usec;          /* when the current state began */
} PolicyHealth;

const char *policy_health_state_to_string(PolicyHealthState s);

/* Whether a write may be tried at @now_usec. */
bool policy_health_may_write(const PolicyHealth *h, uint64_t now_usec);

/*
 * A write failed with @error; @state is what the caller found (POLICY_BACKING_OFF when it found nothing
 * particular). Returns true when the state changed (the caller logs one line then, not at every retry).
 */
bool policy_health_failed(PolicyHealth *h, PolicyHealthState state, int error, uint64_t now_usec);

/* A write succeeded. Returns true when that ended a failure state (the caller logs the recovery). */
bool policy_health_succeeded(PolicyHealth *h, uint64_t now_usec);
