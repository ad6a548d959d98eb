/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * actuator.c: take-over (locks, save, state file, userspace governor), kept-open scaling_setspeed fds, restore.
 * The state file's text is actuator-state.c's, the instance and policy locks actuator-lock.c's.
 *
 * Kernel behaviour this relies on (drivers/cpufreq/):
 *  - cpufreq_userspace.c: starting the governor sets its setspeed to policy->cur, so the frequency does not
 *    jump when we take over; a setspeed write is resolved to the table (CPUFREQ_RELATION_L) and clamped.
 *  - cpufreq.c store_scaling_setspeed(): -EINVAL unless the governor is userspace. kernfs hands every
 *    write(2) whole to store() and ignores the offset (fs/sysfs/file.c sysfs_kf_write()), so one fd serves
 *    the whole run; pwrite at offset 0 needs no lseek and keeps plain files (tests) right too.
 *  - cpufreq.c store_scaling_{min,max}_freq(): each is a user frequency-QoS request; the effective limits are
 *    what scaling_{min,max}_freq show.
 * Writes go through plain open/write on the policy directory (or the kept fd): libcpupower's setters reread
 * three files and reopen every time; only the governor switch at take-over uses libcpupower.
 *
 * The take-over at start-up follows discovery (cpufreq-discover.c), which has just read every value it saves and
 * found where each policy lives: it takes them from the topology (cpufreq_sysfs_policy_locate(), policy_prefill())
 * and reads one file again, the governor, which is what the restore writes back (policy_confirm()): 8 sysfs
 * accesses a policy fewer (cpu/online, two stat(2)s, the limits, the frequency, the rate limit's stat(2) and
 * file), 2,048 at 256 policies, each a round trip where sysfs is FUSE (tests/emu). Where there are many policies,
 * the locks, the saves and the switches each run several policies at a time (actuator_each()).
 */

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cpufreq.h>

#include "actuator.h"
#include "crash-point.h"
#include "error-text.h"
#include "fs-util.h"
#include "log.h"
#include "macro.h"
#include "parallel.h"
#include "topology.h"

typedef struct HeldPolicy {
        unsigned index;           /* into the topology */
        unsigned cpu;             /* libcpupower's handle: the policy's first online CPU with cpufreq */
        bool prefilled;           /* saved holds discovery's values, to be confirmed by the first acquire */
        bool switched;            /* we wrote "userspace": putting back must restore the governor */
        bool released;            /* another tool took the policy (actuator_release()): never touched again */
        int setspeed_fd;
        int lock_fd;              /* the policy directory, flock(LOCK_EX) while we manage it (paused too) */
} HeldPolicy;

struct Actuator {
        ActuatorSaved *saved;     /* managed policies in topology order: what the state file holds */
        HeldPolicy *held;         /* parallel to saved */
        size_t n;
        int *slot;                /* topology index -> position in saved/held, -1 when not managed */
        size_t n_topology;
        char *state_path;
        bool is_held;
};

static int attr_path(char path[static PATH_MAX], const char *dir, const char *name) {
        int n = snprintf(path, PATH_MAX, "%s/%s", dir, name);

        return n < 0 || n >= PATH_MAX ? -ENAMETOOLONG : 0;
}

static int attr_read(const char *dir, const char *name, char *buf, size_t size) {
        char path[PATH_MAX];
        int r;

        r = attr_path(path, dir, name);
        if (r < 0)
                return r;
        return cpufreq_sysfs_read(path, buf, size);
}

/* The same file through @dir_fd, the policy's locked directory, when there is one: no path walk. */
static int attr_read_at(int dir_fd, const char *dir, const char *name, char *buf, size_t size) {
        if (dir_fd < 0)
                return attr_read(dir, name, buf, size);
        return cpufreq_sysfs_read_at(dir_fd, name, buf, size);
}

static int attr_read_u32(const char *dir, const char *name, uint32_t *ret) {
        char path[PATH_MAX];
        int r;

        r = attr_path(path, dir, name);
        if (r < 0)
                return r;
        return cpufreq_sysfs_read_u32(path, ret);
}

static int attr_write(const char *dir, const char *name, const char *value) {
        char path[PATH_MAX];
        int r;

        r = attr_path(path, dir, name);
        if (r < 0)
                return r;
        return cpufreq_sysfs_write(path, value);
}

static int attr_write_u32(const char *dir, const char *name, uint32_t v) {
        char buf[16];

        (void) snprintf(buf, sizeof(buf), "%u\n", v);
        return attr_write(dir, name, buf);
}

/* ---- the state file on disk (its text: actuator-state.c) ---- */

static int fsync_parent(const char *path) {
        _cleanup_free_ char *dir = strdup(path);
        _cleanup_close_ int fd = -EBADF;
        char *slash;

        if (!dir)
                return -ENOMEM;
        slash = strrchr(dir, '/');
        if (!slash)
                return 0;
        *slash = '\0';
        fd = open(dir[0] ? dir : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0 || fsync(fd) < 0)
                return -errno;
        return 0;
}

static int state_file_write_tmp(int fd, const ActuatorSaved *s, size_t n) {
        _cleanup_fclose_ FILE *f = NULL;
        int r;

        f = fdopen(fd, "w");
        if (!f)
                return -errno;
        r = actuator_state_write(f, s, n);
        if (r < 0)
                return r;
        if (fflush(f) != 0 || fsync(fileno(f)) < 0)
                return negative_errno();
        if (fclose(TAKE_PTR(f)) != 0)
                return negative_errno();
        return 0;
}

/* tmp + fsync + rename + fsync of the directory: after a crash the file is either absent or complete. */
static int state_file_save(const char *path, const ActuatorSaved *s, size_t n) {
        _cleanup_free_ char *tmp = NULL;
        int fd, r;

        r = mkdir_parents(path, 0755);
        if (r < 0)
                return r;
        if (asprintf(&tmp, "%s.XXXXXX", path) < 0)
                return -ENOMEM;
        fd = mkostemp(tmp, O_CLOEXEC);
        if (fd < 0)
                return -errno;
        /* Root's only: it says which policies to rewrite, and how (docs/security.md). */
        if (fchmod(fd, 0600) < 0) {
                r = -errno;
                (void) close(fd);
        } else
                r = state_file_write_tmp(fd, s, n);   /* closes fd */
        if (r >= 0 && rename(tmp, path) < 0)
                r = -errno;
        if (r < 0) {
                (void) unlink(tmp);
                return r;
        }
        /* Not durable means not written: the caller changes nothing then, so no state file may stay behind. */
        r = fsync_parent(path);
        if (r < 0)
                (void) unlink(path);
        return r;
}

static int state_file_remove(const char *path) {
        if (unlink(path) < 0 && errno != ENOENT)
                return -errno;
        return 0;
}

/* The temporary files of a state_file_save() that a death cut short before its rename(): mkostemp()'s
 * "PATH.XXXXXX". Harmless (never read), but litter; removed by whoever holds the locks next. */
static void state_file_remove_stale(const char *path) {
        _cleanup_free_ char *pattern = NULL;
        glob_t g = {};

        if (asprintf(&pattern, "%s.??????", path) < 0)
                return;
        if (glob(pattern, GLOB_NOSORT, NULL, &g) == 0)
                for (size_t i = 0; i < g.gl_pathc; i++)
                        if (unlink(g.gl_pathv[i]) >= 0)
                                log_debug("Removed %s, left by an interrupted state file write.", g.gl_pathv[i]);
        globfree(&g);
}

/* ---- saving and putting back one policy ---- */

int actuator_rate_limit_path(const char *dir, char *path) {
        char sugov[PATH_MAX];
        struct stat st;
        int r;

        r = attr_path(sugov, dir, "schedutil");
        if (r < 0)
                return r;
        if (stat(sugov, &st) >= 0 && S_ISDIR(st.st_mode))
                return attr_path(path, sugov, "rate_limit_us");
        return attr_path(path, SYSFS_CPU_DIR "/cpufreq/schedutil", "rate_limit_us");
}

/* schedutil's rate_limit_us, read while schedutil still governs: once we switch, its tunables are gone. Not
 * fatal when unreadable: nothing is put back then, and the daemon computes its own default. */
static void save_rate_limit(ActuatorSaved *s) {
        char path[PATH_MAX];
        int r;

        s->has_rate_limit = false;
        if (!streq(s->governor, "schedutil") || actuator_rate_limit_path(s->dir, path) < 0)
                return;
        r = cpufreq_sysfs_read_u32(path, &s->rate_limit_us);
        if (r < 0) {
                log_debug_errno(r, "policy%u: cannot read %s, it will not be put back: %m", s->id, path);
                return;
        }
        s->has_rate_limit = true;
}

/* After schedutil is back: its tunables restarted from the default (or are shared with another schedutil
 * policy, then probably already right). Written only when different. */
static int restore_rate_limit(const ActuatorSaved *s, char **error) {
        char path[PATH_MAX], value[16];
        uint32_t cur;
        int r;

        if (!s->has_rate_limit || !streq(s->governor, "schedutil"))
                return 0;
        r = actuator_rate_limit_path(s->dir, path);
        if (r < 0)
                return error_text_set(error, r, "policy%u: path too long", s->id);
        if (cpufreq_sysfs_read_u32(path, &cur) >= 0 && cur == s->rate_limit_us)
                return 0;
        (void) snprintf(value, sizeof(value), "%u\n", s->rate_limit_us);
        r = cpufreq_sysfs_write(path, value);
        if (r < 0)
                return error_text_set(error, r, "policy%u: cannot write %u to %s", s->id, s->rate_limit_us, path);
        return 0;
}

static int policy_save(ActuatorSaved *s, char **error) {
        const char *file;
        int r;

        file = "scaling_governor";
        r = attr_read(s->dir, file, s->governor, sizeof(s->governor));
        if (r >= 0) {
                file = "scaling_min_freq";
                r = attr_read_u32(s->dir, file, &s->scaling_min_khz);
        }
        if (r >= 0) {
                file = "scaling_max_freq";
                r = attr_read_u32(s->dir, file, &s->scaling_max_khz);
        }
        if (r >= 0) {
                /* Under userspace the frequency to put back is the one asked for, not the one the driver reports. */
                file = streq(s->governor, "userspace") ? "scaling_setspeed" : "scaling_cur_freq";
                r = attr_read_u32(s->dir, file, &s->setspeed_khz);
                if (r == -ENOENT && streq(file, "scaling_cur_freq")) {
                        s->setspeed_khz = 0;
                        r = 0;
                }
        }
        if (r < 0)
                return error_text_set(error, r, "policy%u: cannot read %s/%s", s->id, s->dir, file);
        save_rate_limit(s);
        return 0;
}

/* What discovery read of @p is what policy_save() would read now (right after it, at start-up). */
static int policy_prefill(const PolicyDesc *p, ActuatorSaved *s) {
        if (strlen(p->governor) >= sizeof(s->governor))
                return -ENAMETOOLONG;
        strcpy(s->governor, p->governor);
        s->scaling_min_khz = p->scaling_min_khz;
        s->scaling_max_khz = p->scaling_max_khz;
        s->setspeed_khz = p->cur_khz;
        s->has_rate_limit = p->has_rate_limit;
        s->rate_limit_us = p->rate_limit_us;
        return 0;
}

/*
 * The first acquire of a prefilled policy: the governor is read again, since it is what the restore puts
 * back and another tool may have switched it since discovery (the event source's set-up lies in between).
 * Unchanged: the rest stands as discovery read it. Changed, or userspace (whose saved frequency is
 * scaling_setspeed, which discovery does not read), or a current frequency discovery could not read: a full
 * policy_save(), with its errors.
 */
static int policy_confirm(ActuatorSaved *s, int dir_fd, char **error) {
        char cur[TOPOLOGY_GOVERNOR_MAX];
        int r;

        r = attr_read_at(dir_fd, s->dir, "scaling_governor", cur, sizeof(cur));
        if (r < 0)
                return error_text_set(error, r, "policy%u: cannot read %s/%s", s->id, s->dir, "scaling_governor");
        if (streq(cur, s->governor) && !streq(cur, "userspace") && s->setspeed_khz > 0)
                return 0;
        return policy_save(s, error);
}

static int restore_governor(const ActuatorSaved *s, char **error) {
        char value[TOPOLOGY_GOVERNOR_MAX + 1];
        int r;

        (void) snprintf(value, sizeof(value), "%s\n", s->governor);
        r = attr_write(s->dir, "scaling_governor", value);
        if (r < 0)
                return error_text_set(error, r, "policy%u: cannot write %s to %s/scaling_governor", s->id, s->governor,
                                 s->dir);
        return 0;
}

/*
 * Puts back what we changed, and only that: the governor (we switched it to userspace), schedutil's rate limit
 * (the switch freed it) and, for a policy that was on userspace, the frequency asked for. A policy whose
 * governor is no longer userspace was never switched (a crash midway through take-over) or was switched away
 * by someone else (cpupower, tuned, power-profiles-daemon) while we ran: it is theirs and stays as it is. The
 * scaling limits are never written: the daemon does not change them, so whatever they are now was set by
 * someone else (a user, thermald, a thermal cap through freq QoS) and is respected, and rewriting the effective
 * value would turn a temporary cap into a permanent user request (drivers/cpufreq/cpufreq.c).
 * Tries every step, returns the first error; a policy whose CPUs are all offline cannot be read or written
 * (EBUSY), and its error keeps the state file for a later `schedfreqd restore`.
 */
static int policy_put_back(const ActuatorSaved *s, char **error) {
        char cur[TOPOLOGY_GOVERNOR_MAX];
        int r, k;

        r = attr_read(s->dir, "scaling_governor", cur, sizeof(cur));
        if (r < 0)
                return error_text_set(error, r, "policy%u: cannot read %s/scaling_governor", s->id, s->dir);
        if (!streq(cur, "userspace")) {
                /* Our own governor write, when a death came before the rate limit's: finish the job. */
                if (streq(cur, s->governor))
                        return restore_rate_limit(s, error);
                log_info("policy%u: its governor is now '%s', set by another tool: left as it is (it was "
                         "'%s' before schedfreqd).", s->id, cur, s->governor);
                return 0;
        }

        r = 0;
        if (!streq(s->governor, "userspace")) {
                r = restore_governor(s, error);
                crash_point("restore:governor");
                if (r >= 0)
                        r = restore_rate_limit(s, error);
        }
        if (streq(s->governor, "userspace") && s->setspeed_khz > 0) {
                k = attr_write_u32(s->dir, "scaling_setspeed", s->setspeed_khz);
                if (k < 0)
                        k = error_text_set(error, k, "policy%u: cannot write %u to %s/scaling_setspeed", s->id,
                                      s->setspeed_khz, s->dir);
                if (r >= 0)
                        r = k;
        }
        if (r < 0)
                log_debug_errno(r, "policy%u: cannot put everything back: %m", s->id);
        return r;
}

/* ---- the actuator ---- */

Actuator *actuator_free(Actuator *a) {
        if (!a)
                return NULL;
        for (size_t k = 0; a->held && k < a->n; k++) {
                closep(&a->held[k].setspeed_fd);
                closep(&a->held[k].lock_fd);
        }
        actuator_saved_free_many(a->saved, a->n);
        free(a->held);
        free(a->slot);
        free(a->state_path);
        free(a);
        return NULL;
}

int actuator_saved_rate_limit(const Actuator *a, unsigned policy_index, uint32_t *ret_us) {
        const ActuatorSaved *s;

        if (!a || policy_index >= a->n_topology || a->slot[policy_index] < 0)
                return -EINVAL;
        s = &a->saved[a->slot[policy_index]];
        if (!s->has_rate_limit)
                return -ENODATA;
        *ret_us = s->rate_limit_us;
        return 0;
}

bool actuator_is_held(const Actuator *a) {
        return a && a->is_held;
}

static int actuator_alloc(const Topology *topo, const bool *manage, const char *state_path, Actuator **ret) {
        _cleanup_(actuator_freep) Actuator *a = NULL;
        size_t n = 0;

        for (size_t i = 0; i < topo->n_policies; i++)
                n += !manage || manage[i];
        a = calloc(1, sizeof(*a));
        if (!a)
                return -ENOMEM;
        a->saved = calloc(MAX(n, 1u), sizeof(*a->saved));
        a->held = calloc(MAX(n, 1u), sizeof(*a->held));
        a->slot = calloc(MAX(topo->n_policies, 1u), sizeof(*a->slot));
        a->state_path = strdup(state_path);
        if (!a->saved || !a->held || !a->slot || !a->state_path)
                return -ENOMEM;
        a->n = n;
        a->n_topology = topo->n_policies;
        for (size_t k = 0; k < n; k++)
                a->held[k].setspeed_fd = a->held[k].lock_fd = -EBADF;
        *ret = TAKE_PTR(a);
        return 0;
}

/*
 * A step of the take-over done for every policy we hold (not released): its locks, saves and switches. From
 * ACTUATOR_PARALLEL_MIN policies on, on ACTUATOR_THREADS threads (parallel.h): each step touches only its own
 * policy (its HeldPolicy, its ActuatorSaved, its files), and one after the other they were the start-up's
 * longest waits where there are many policies: ~1,800 sysfs round trips at 256 policies over the tests' FUSE
 * emulator, and on real hardware a governor switch away from schedutil waits for an RCU grace period
 * (sugov_stop(), kernel/sched/cpufreq_schedutil.c), one a policy when they come in turn. Either way the
 * failure reported is the first in policy order; in turn, the steps stop there, at once, all are tried (what
 * the caller undoes is what the steps did: actuator_roll_back() looks at each policy). @crash, a crash point
 * (crash-point.h), follows each successful step in turn; at once, one for each after all succeeded (crash points
 * act on the main thread only).
 */
#define ACTUATOR_THREADS 8u
#define ACTUATOR_PARALLEL_MIN 8u

typedef int (*PolicyStep)(Actuator *a, size_t k, char **error);

typedef struct StepJob {
        Actuator *a;
        PolicyStep step;
        int *r;
        char **errors;
} StepJob;

static void step_one(size_t k, void *userdata) {
        StepJob *job = userdata;

        if (!job->a->held[k].released)
                job->r[k] = job->step(job->a, k, &job->errors[k]);
}

static int actuator_each_in_turn(Actuator *a, PolicyStep step, const char *crash, char **error) {
        int r;

        for (size_t k = 0; k < a->n; k++) {
                if (a->held[k].released)
                        continue;
                r = step(a, k, error);
                if (r < 0)
                        return r;
                if (crash)
                        crash_point(crash);
        }
        return 0;
}

static int actuator_each(Actuator *a, PolicyStep step, const char *crash, char **error) {
        _cleanup_free_ int *r = NULL;
        _cleanup_free_ char **errors = NULL;
        StepJob job;
        int ret = 0;

        if (a->n < ACTUATOR_PARALLEL_MIN)
                return actuator_each_in_turn(a, step, crash, error);
        r = calloc(a->n, sizeof(int));
        errors = calloc(a->n, sizeof(char *));
        if (!r || !errors)
                return -ENOMEM;
        job = (StepJob) { .a = a, .step = step, .r = r, .errors = errors };
        (void) parallel_for(a->n, ACTUATOR_THREADS, step_one, &job);
        for (size_t k = 0; k < a->n; k++) {
                if (r[k] < 0 && ret == 0) {
                        ret = r[k];
                        if (error && !*error)
                                *error = TAKE_PTR(errors[k]);
                }
                free(errors[k]);
        }
        for (size_t k = 0; k < a->n && ret == 0 && crash; k++)
                if (!a->held[k].released)
                        crash_point(crash);
        return ret;
}

/* Locks policy @k's directory (actuator_policy_lock()): another schedfreqd holding it is the error to report. */
static int lock_step(Actuator *a, size_t k, char **error) {
        pid_t holder = 0;
        int r;

        r = actuator_policy_lock(a->saved[k].dir, &a->held[k].lock_fd, &holder);
        if (r == -EBUSY)
                return error_text_set(error, r, "policy%u is already governed by another schedfreqd (PID %d), "
                                      "and a policy has one governor: stop that one first (systemctl stop "
                                      "schedfreqd, or kill -TERM %d)", a->saved[k].id, (int) holder, (int) holder);
        if (r < 0)
                return error_text_set(error, r, "policy%u: cannot open %s", a->saved[k].id, a->saved[k].dir);
        return 0;
}

/* Checks every managed policy, finds where to write, then locks them all (lock_step()); writes nothing. */
static int actuator_new(const Topology *topo, const bool *manage, const char *state_path, Actuator **ret,
                        char **error) {
        _cleanup_(actuator_freep) Actuator *a = NULL;
        size_t k = 0;
        int r;

        r = actuator_alloc(topo, manage, state_path, &a);
        if (r < 0)
                return r;
        for (size_t i = 0; i < topo->n_policies; i++) {
                const PolicyDesc *p = &topo->policies[i];

                a->slot[i] = -1;
                if (manage && !manage[i])
                        continue;
                if (!governors_contains(p->governors, "userspace"))
                        return error_text_set(error, -EOPNOTSUPP,
                                         "policy%u: driver %s offers no userspace governor (it offers: %s); %s",
                                         p->id, p->driver, p->governors[0] ? p->governors : "none listed",
                                         cpufreq_driver_userspace_hint(p->driver));
                /* Both as discovery found them when @topo comes from it (start-up): no sysfs access. */
                if (p->sysfs_found)
                        r = cpufreq_sysfs_policy_locate(p, &a->held[k].cpu, &a->saved[k].dir);
                else {
                        r = cpufreq_sysfs_policy_cpu(p, &a->held[k].cpu);
                        if (r < 0)
                                return error_text_set(error, r, "policy%u: no online CPU with a cpufreq directory",
                                                      p->id);
                        r = cpufreq_sysfs_policy_dir(p, &a->saved[k].dir);
                }
                if (r < 0)
                        return error_text_set(error, r, "policy%u: cannot find its sysfs directory", p->id);
                a->saved[k].id = p->id;
                a->held[k].prefilled = p->sysfs_found && policy_prefill(p, &a->saved[k]) >= 0;
                a->held[k].index = (unsigned) i;
                a->slot[i] = (int) k++;
        }
        r = actuator_each(a, lock_step, NULL, error);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(a);
        return 0;
}

static int policy_take(const ActuatorSaved *s, HeldPolicy *h, char **error) {
        char userspace[] = "userspace";
        char path[PATH_MAX];
        int r;

        if (!streq(s->governor, "userspace")) {
                /* libcpupower keeps the errno of the open(2)/write(2) that failed (see cpufreq-discover.c). */
                errno = 0;
                r = cpufreq_modify_policy_governor(h->cpu, userspace);
                if (r < 0)
                        return error_text_set(error, errno > 0 ? -errno : r,
                                         "policy%u: cannot switch cpu%u to the userspace governor", s->id, h->cpu);
                h->switched = true;
        }
        r = attr_path(path, s->dir, "scaling_setspeed");
        if (r < 0)
                return error_text_set(error, r, "policy%u: path too long", s->id);
        /* Through the locked directory's fd when there is one: no path walk. */
        h->setspeed_fd = h->lock_fd >= 0 ? openat(h->lock_fd, "scaling_setspeed", O_WRONLY | O_CLOEXEC)
                                         : open(path, O_WRONLY | O_CLOEXEC);
        if (h->setspeed_fd < 0)
                return error_text_set(error, -errno, "policy%u: cannot open %s", s->id, path);
        return 0;
}

/* Undoes a take-over that failed midway: only the governors we switched changed. */
static void actuator_roll_back(Actuator *a) {
        for (size_t k = 0; k < a->n; k++) {
                closep(&a->held[k].setspeed_fd);
                a->held[k].setspeed_fd = -EBADF;
                if (a->held[k].switched)
                        (void) policy_put_back(&a->saved[k], NULL);
                a->held[k].switched = false;
        }
        (void) state_file_remove(a->state_path);
}

/*
 * A state file we did not write means policies someone still has to put back: never overwrite it. Checked with
 * the policies locked (actuator_new()), so no live daemon governs them: the file is a crashed run's, and the
 * saved values in it are the ones to put back, not the "userspace" we would save now.
 */
static int state_file_check_absent(const char *path, char **error) {
        if (access(path, F_OK) >= 0)
                return error_text_set(error, -EEXIST,
                                 "%s exists: a previous schedfreqd did not exit cleanly and left its cpufreq "
                                 "policies taken over (no running schedfreqd governs them now): run "
                                 "`schedfreqd restore --state-file %s` to put them back, then start again",
                                 path, path);
        if (errno != ENOENT)
                return error_text_set(error, -errno, "cannot access %s", path);
        return 0;
}

/* The state file holds the policies we hold and may still have to put back: not the released ones. None
 * left: no file (a state file names at least one policy). */
static int actuator_state_save(Actuator *a) {
        _cleanup_free_ ActuatorSaved *keep = NULL;
        size_t n = 0;

        keep = calloc(MAX(a->n, (size_t) 1), sizeof(*keep));
        if (!keep)
                return -ENOMEM;
        for (size_t k = 0; k < a->n; k++)
                if (!a->held[k].released)
                        keep[n++] = a->saved[k]; /* shallow: only read */
        if (n == 0)
                return state_file_remove(a->state_path);
        return state_file_save(a->state_path, keep, n);
}

/* Prefilled by discovery for the take-over only: a resume saves anew (the user may have changed the policy
 * while paused). */
static int save_step(Actuator *a, size_t k, char **error) {
        HeldPolicy *h = &a->held[k];
        int r;

        r = h->prefilled ? policy_confirm(&a->saved[k], h->lock_fd, error) : policy_save(&a->saved[k], error);
        h->prefilled = false;
        return r;
}

static int take_step(Actuator *a, size_t k, char **error) {
        return policy_take(&a->saved[k], &a->held[k], error);
}

/* Saves, writes the state file, then switches: the state file is on disk before the first change. Released
 * policies are someone else's: not saved, not taken again (resume). */
static int actuator_acquire(Actuator *a, char **error) {
        int r;

        if (a->n == 0) {
                a->is_held = true;
                return 0;
        }

        r = actuator_each(a, save_step, NULL, error);
        if (r < 0)
                return r;
        r = actuator_state_save(a);
        if (r < 0)
                return error_text_set(error, r, "cannot write the state file %s", a->state_path);
        crash_point("take-over:state-written");

        r = actuator_each(a, take_step, "take-over:switched", error);
        if (r < 0) {
                actuator_roll_back(a);
                return r;
        }
        a->is_held = true;
        return 0;
}

int actuator_take_over(const Topology *topo, const bool *manage, const char *state_path, Actuator **ret,
                       char **ret_error) {
        _cleanup_(actuator_freep) Actuator *a = NULL;
        _cleanup_free_ char *error = NULL;
        int r;

        /* Locks first: a state file next to a live owner is its, not a crash's. */
        r = actuator_new(topo, manage, state_path, &a, &error);
        if (r < 0)
                return error_text_return(r, &error, ret_error);
        r = state_file_check_absent(state_path, &error);
        if (r < 0)
                return error_text_return(r, &error, ret_error);
        state_file_remove_stale(state_path);
        r = actuator_acquire(a, &error);
        if (r < 0)
                return error_text_return(r, &error, ret_error);
        *ret = TAKE_PTR(a);
        return 0;
}

int actuator_reacquire(Actuator *a, char **ret_error) {
        _cleanup_free_ char *error = NULL;

        int r;

        if (a->is_held)
                return 0;
        r = state_file_check_absent(a->state_path, &error);
        if (r >= 0)
                r = actuator_acquire(a, &error);
        return error_text_return(r, &error, ret_error);
}

static int actuator_fd(Actuator *a, unsigned policy_index, size_t *ret_k) {
        int k;

        if (policy_index >= a->n_topology)
                return -EINVAL;
        k = a->slot[policy_index];
        if (k < 0 || a->held[k].setspeed_fd < 0)
                return -EBADF;
        *ret_k = (size_t) k;
        return 0;
}

int actuator_set_khz(Actuator *a, unsigned policy_index, uint32_t khz) {
        char buf[16];
        ssize_t n;
        size_t k;
        int len, r;

        r = actuator_fd(a, policy_index, &k);
        if (r < 0)
                return r;
        len = snprintf(buf, sizeof(buf), "%u\n", khz);
        n = pwrite(a->held[k].setspeed_fd, buf, (size_t) len, 0);
        if (n < 0)
                return -errno;
        return n == len ? 0 : -EIO;
}

int actuator_read_governor(Actuator *a, unsigned policy_index, char *buf, size_t size) {
        if (policy_index >= a->n_topology || a->slot[policy_index] < 0)
                return -EINVAL;
        return attr_read(a->saved[a->slot[policy_index]].dir, "scaling_governor", buf, size);
}

int actuator_release(Actuator *a, unsigned policy_index) {
        HeldPolicy *h;

        if (policy_index >= a->n_topology || a->slot[policy_index] < 0)
                return -EINVAL;
        h = &a->held[a->slot[policy_index]];
        if (h->released)
                return 0;
        closep(&h->setspeed_fd);
        h->setspeed_fd = -EBADF;
        closep(&h->lock_fd);
        h->lock_fd = -EBADF;
        h->switched = false;
        h->released = true;
        /* A crash from now on must not put it back either: `schedfreqd restore` reads the state file. */
        return a->is_held ? actuator_state_save(a) : 0;
}

int actuator_read_khz(Actuator *a, unsigned policy_index, uint32_t *ret) {
        if (policy_index >= a->n_topology || a->slot[policy_index] < 0)
                return -EINVAL;
        return attr_read_u32(a->saved[a->slot[policy_index]].dir, "scaling_cur_freq", ret);
}

int actuator_restore(Actuator *a) {
        int r = 0, k;

        if (!a || !a->is_held)
                return 0;
        for (size_t i = 0; i < a->n; i++) {
                closep(&a->held[i].setspeed_fd);
                a->held[i].setspeed_fd = -EBADF;
                if (a->held[i].released)
                        continue;
                _cleanup_free_ char *error = NULL;
                k = policy_put_back(&a->saved[i], &error);
                if (k < 0) {
                        log_error_errno(k, "%s: %m", error ?: "cannot put a policy back");
                        if (r >= 0)
                                r = k;
                }
                a->held[i].switched = false;
                crash_point("restore:put-back");
        }
        a->is_held = false;
        if (r < 0)
                return r;
        crash_point("restore:remove");
        return state_file_remove(a->state_path);
}

/* Locks every policy of the state file; a live governor of one is refused unless @force. Into @locks[n]. */
static int state_policies_lock(const ActuatorSaved *s, size_t n, bool force, int *locks, char **error) {
        pid_t holder = 0;
        int r;

        for (size_t i = 0; i < n; i++) {
                r = actuator_policy_lock(s[i].dir, &locks[i], &holder);
                if (r == -EBUSY && !force)
                        return error_text_set(error, r, "policy%u is governed by a running schedfreqd (PID %d), which "
                                         "puts it back itself when it stops: not restoring under it (stop it "
                                         "instead: systemctl stop schedfreqd, or kill -TERM %d; --force "
                                         "restores anyway)", s[i].id, (int) holder, (int) holder);
                /* Forced, or a policy gone since (its directory too): put_back() reports what fails. */
        }
        return 0;
}

static void locks_close(int *locks, size_t n) {
        for (size_t i = 0; locks && i < n; i++)
                closep(&locks[i]);
        free(locks);
}

int actuator_restore_from_state_file(const char *state_path, bool force, char **ret_error) {
        _cleanup_fclose_ FILE *f = NULL;
        _cleanup_free_ char *error = NULL;
        ActuatorSaved *s = NULL;
        int *locks = NULL;
        size_t n = 0;
        int r = 0, k;

        f = fopen(state_path, "re");
        if (!f) {
                if (errno == ENOENT)
                        return 0;
                return error_text_return(error_text_set(&error, -errno, "cannot open %s", state_path), &error, ret_error);
        }
        k = actuator_state_parse(f, state_path, &s, &n, &error);
        if (k < 0)
                return error_text_return(k, &error, ret_error);
        locks = malloc(n * sizeof(int));
        if (!locks) {
                actuator_saved_free_many(s, n);
                return -ENOMEM;
        }
        for (size_t i = 0; i < n; i++)
                locks[i] = -EBADF;
        /* Held while we write, so that no daemon takes a policy over halfway through. */
        r = state_policies_lock(s, n, force, locks, &error);
        if (r >= 0)
                for (size_t i = 0; i < n; i++) {
                        k = policy_put_back(&s[i], &error);
                        if (r >= 0)
                                r = k;
                }
        if (r >= 0)
                state_file_remove_stale(state_path);
        locks_close(locks, n);
        actuator_saved_free_many(s, n);
        if (r < 0)
                return error_text_return(r, &error, ret_error);
        r = state_file_remove(state_path);
        if (r < 0)
                return error_text_return(error_text_set(&error, r, "cannot remove %s", state_path), &error, ret_error);
        return 1;
}
