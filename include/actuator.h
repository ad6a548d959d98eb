/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * include/actuator.h: the public interface of daemon/actuator/ (decisions into sysfs: the take-over,
 * scaling_setspeed, the state file and the restore, a policy's health). The one header of that folder the rest of
 * the tree includes; its private headers stay in daemon/actuator/. Sections, in dependency order: actuator-state,
 * actuator, policy-health.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "topology.h"

/*
 * What the take-over saved of each policy, and the state file's text that holds it (daemon/actuator/actuator-state.c):
 * an INI `schedfreqd restore` reads after a crash. Pure: FILE in, FILE out.
 */

typedef struct ActuatorSaved {
        unsigned id;                              /* N of [policyN] */
        char *dir;                                /* where the attributes are written */
        char governor[TOPOLOGY_GOVERNOR_MAX];
        uint32_t scaling_min_khz, scaling_max_khz;
        uint32_t setspeed_khz;                    /* 0 = unknown */
        bool has_rate_limit;                      /* governor schedutil and its rate_limit_us was readable */
        uint32_t rate_limit_us;                   /* schedutil's rate_limit_us before we switched */
} ActuatorSaved;

void actuator_saved_free_many(ActuatorSaved *s, size_t n);

/* Writes the state file text for @s[0..n). */
int actuator_state_write(FILE *f, const ActuatorSaved *s, size_t n);
/* Parses state file text; @name for "NAME:LINE: reason" messages (-EINVAL). A file without a [policyN]
 * section, with a NUL byte or with an unterminated last line is malformed (truncated or not ours). */
int actuator_state_parse(FILE *f, const char *name, ActuatorSaved **ret, size_t *ret_n, char **ret_error);

/*
 * The actuator: takes cpufreq policies over (userspace governor), writes frequencies through kept-open
 * scaling_setspeed fds, and puts everything back (docs/architecture.md "Actuation and restore").
 *
 * What it saves per policy, before changing anything, in memory and in a state file (so that
 * `schedfreqd restore` can put it back after a crash):
 *
 *   [policy0]
 *   dir = /sys/devices/system/cpu/cpufreq/policy0
 *   governor = schedutil
 *   scaling_min_khz = 400000
 *   scaling_max_khz = 2000000
 *   setspeed_khz = 1200000      scaling_setspeed when the governor was userspace, else scaling_cur_freq
 *                               (only written back under userspace); 0 = unknown
 *   rate_limit_us = 2000        optional: schedutil's rate_limit_us when the governor was schedutil. Switching
 *                               away frees schedutil's tunables (sugov_exit()), so switching back would start
 *                               from the kernel's default: it is written back after the governor.
 *
 * The state file exists exactly while policies are held: written (tmp + fsync + rename) before the first
 * change, removed once everything is back.
 *
 * Ownership: a policy has one governor. The daemon holds an instance lock file (actuator_lock_take()) for its
 * life, and each managed policy's sysfs directory under an exclusive flock(2) (taken at take-over, kept while
 * paused); `schedfreqd restore` takes the same policy locks, so it never writes under a live daemon.
 */

typedef struct Actuator Actuator;

/*
 * The default lock file for @state_path: "lock" in the same directory (/run/schedfreqd/lock for the default
 * state file), so that tests and second setups with their own state directory have their own. Malloc'd.
 */
int actuator_lock_path(const char *state_path, char **ret);

/*
 * The instance lock: flock(LOCK_EX | LOCK_NB) on @lock_path (created 0600, its directory 0755), then our PID
 * written into it. 0 and the fd (to be kept open for as long as the lock is to be held) and in @ret_pid the PID
 * the file named before (a previous holder, gone; 0 = none); -EBUSY when another process holds it, its PID in
 * @ret_pid (0 = unknown); another negative errno if the file cannot be created or locked. @ret_error as below.
 */
int actuator_lock_take(const char *lock_path, int *ret_fd, pid_t *ret_pid, char **ret_error);

/*
 * One governor per policy: an exclusive flock(2) on the policy's sysfs directory @dir, whatever the lock and
 * state file paths (the take-over and `schedfreqd restore` take it). 0 and the fd (-EBADF where the filesystem
 * refuses flocks), or -EBUSY and the holder's PID in @ret_holder (0: unknown). daemon/actuator/actuator-lock.c.
 */
int actuator_policy_lock(const char *dir, int *ret_fd, pid_t *ret_holder);

/*
 * Takes over every policy i of @topo with @manage[i] (@manage NULL: all). Nothing is touched when:
 *  - a policy offers no userspace governor: -EOPNOTSUPP, and @ret_error names the fix (intel_pstate=passive,
 *    amd_pstate=passive, or loading cpufreq_userspace);
 *  - another process (another schedfreqd) holds a policy's lock: -EBUSY, @ret_error names its PID;
 *  - @state_path exists (a crashed run did not put its policies back; run actuator_restore_from_state_file()
 *    first): -EEXIST.
 * Otherwise saves every managed policy, writes @state_path (its directory created 0755), switches the policies
 * to userspace with libcpupower and opens their scaling_setspeed. On a failure midway, puts back what it had
 * changed, removes the state file and returns the error. On failure, @ret_error (when non-NULL) receives a
 * malloc'd message saying what failed, to be followed by strerror(-r).
 */
int actuator_take_over(const Topology *topo, const bool *manage, const char *state_path, Actuator **ret,
                       char **ret_error);

/* One pwrite(2) of "%u\n" at offset 0 on the policy's kept scaling_setspeed fd. 0 or -errno (-EBADF when the
 * policy is not held). The kernel resolves and clamps @khz (drivers/cpufreq/cpufreq_userspace.c). */
int actuator_set_khz(Actuator *a, unsigned policy_index, uint32_t khz);

/* scaling_governor of a managed policy, into @buf. -EINVAL when it is not managed; -EBUSY (from the kernel)
 * when all its CPUs are offline. */
int actuator_read_governor(Actuator *a, unsigned policy_index, char *buf, size_t size);

/*
 * Gives up a managed policy for good, because another tool took it (its governor is no longer userspace):
 * closes its setspeed fd, unlocks its directory, drops it from the state file; restore, crash restore and
 * actuator_reacquire() leave it alone from then on. 0, or the error of rewriting the state file.
 */
int actuator_release(Actuator *a, unsigned policy_index);

/* scaling_cur_freq of a managed policy (the frequency the driver reports now), held or not. -EINVAL when
 * the policy is not managed. */
int actuator_read_khz(Actuator *a, unsigned policy_index, uint32_t *ret);

/*
 * Puts back what the daemon changed in every held policy: the governor (and schedutil's rate_limit_us), and
 * scaling_setspeed when the saved governor was userspace; closes the fds. What someone else changed while we
 * ran is theirs and stays: a policy whose governor is no longer userspace is left as it is, and the scaling
 * limits are never written (the daemon never changes them; a scaling_{min,max}_freq write would also be a user
 * frequency-QoS request that pins a temporary thermal cap, drivers/cpufreq/cpufreq.c).
 * Tries everything and returns the first error. Removes the state file only when every policy is back, so
 * that `schedfreqd restore` can retry the rest.
 * Afterwards the actuator holds nothing; actuator_reacquire() takes the same policies again (pause/resume).
 */
int actuator_restore(Actuator *a);

/* Takes the policies of a restored actuator again: saves them anew (the user may have changed them while
 * paused), rewrites the state file, switches to userspace, reopens the fds. Same failure rules as take-over. */
int actuator_reacquire(Actuator *a, char **ret_error);

/* schedutil's rate_limit_us as read just before the last switch to userspace (take-over or resume), for
 * policy @policy_index of the topology. -ENODATA when the policy was not on schedutil or the tunable was
 * unreadable, -EINVAL when it is not managed. */
int actuator_saved_rate_limit(const Actuator *a, unsigned policy_index, uint32_t *ret_us);

/* The file holding schedutil's rate_limit_us for the policy whose attributes are in @dir: @dir/schedutil/
 * (a governor per policy) when it exists, else the global cpufreq/schedutil/. Into @path (PATH_MAX). */
int actuator_rate_limit_path(const char *dir, char *path);

/* True while the actuator holds its policies. */
bool actuator_is_held(const Actuator *a);

/* Closes the fds and frees; does NOT restore (the state file stays for `schedfreqd restore`). */
Actuator *actuator_free(Actuator *a);
static inline void actuator_freep(Actuator **a) {
        if (*a)
                actuator_free(*a);
}

/*
 * `schedfreqd restore`: puts back every policy of the state file and removes it, holding the policies' locks
 * meanwhile. Returns 1 when something was restored, 0 when there is no state file (nothing to do), or a
 * negative errno, the state file kept in every case: -EINVAL for a malformed, empty or truncated file
 * (@ret_error: "FILE:LINE: reason"); -EBUSY when a live process (the daemon that wrote it) holds a policy's
 * lock, unless @force (@ret_error names its PID); or the first write error (@ret_error: which policy and file).
 */
int actuator_restore_from_state_file(const char *state_path, bool force, char **ret_error);

/* Helpers, exported for the unit tests. */

/* From /proc/locks text: the PID holding a flock(2) on inode @ino of device @dev. 0, or -ENOENT. */
int actuator_flock_holder_parse(FILE *f, dev_t dev, ino_t ino, pid_t *ret_pid);

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

/*
 * What a policy in state @was is, from one read of its governor (@read_r: the read's return, @userspace: it read
 * "userspace") made after a write failed with @write_error (0: no write, a look). POLICY_GOVERNED: back, governed
 * again; otherwise the state to enter (policy_health_failed()).
 */
PolicyHealthState policy_health_diagnose(PolicyHealthState was, int write_error, int read_r, bool userspace);
