/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * demand-groups.c: task groups (autogroup) in the demand model.
 *
 * With CONFIG_SCHED_AUTOGROUP and kernel.sched_autogroup_enabled = 1 (Debian's kernels, Ubuntu's, Fedora's) every
 * session's tasks share a task group (kernel/sched/autogroup.c: setsid() creates one, fork inherits the parent's),
 * with a cfs_rq per CPU; the group's entity on each CPU's root cfs_rq stands for all of them there. What happens in
 * the group's cfs_rq reaches the root, the signal schedutil reads, only when that entity is next updated with
 * UPDATE_TG (kernel/sched/fair.c):
 *   - attach/detach of a task (a new or migrated task's enqueue, a queued task moved by the balancer) set the group
 *     cfs_rq's "propagate" (add_tg_cfs_propagate()), and the same enqueue/dequeue walks up at once to the entity
 *     (enqueue_task_fair()/dequeue_task_fair()'s loops): propagate_entity_load_avg() gives the entity the group's
 *     util_avg and runnable_avg and the root the difference (update_tg_cfs_util(), update_tg_cfs_runnable());
 *   - a task that leaves asleep (a wake-up migration) or dies is removed lazily from the GROUP cfs_rq
 *     (remove_entity_load_avg() → cfs_rq->removed), which subtracts it at its next update_cfs_rq_load_avg() and
 *     then propagates: the next enqueue, dequeue, pick (set_next_entity()) or tick (entity_tick()) of a task of
 *     that group on that CPU, or the blocked-load update (__update_blocked_fair(): newidle balance at idle entry,
 *     the nohz and periodic balance). Until then the root keeps the task's util;
 *   - between propagations the entity's own PELT runs (running while a task of the group runs, runnable with the
 *     group's h_nr_runnable), so the root follows the group's activity as it does a task's;
 *   - a new task's initial util comes from its group's cfs_rq (post_init_entity_util_avg()).
 * util_est is not grouped: util_est_enqueue() adds a task's to the root cfs_rq (rq->cfs) directly.
 *
 * What the tracepoints do not say is each task's session. The model follows fork (the task current when
 * sched_wakeup_new is recorded is the parent: wake_up_new_task() runs in its context), and takes the rest as:
 *   - kthreadd's children (kernel threads) are in the root group (autogroup_default, init_task's), as are tasks first
 *     seen with a kernel thread's name, and what kernel threads fork (user-mode helpers);
 *   - init's children start their own session (services and gettys call setsid());
 *   - a task first seen other than at its fork heads a group of its own until it is known better.
 * setsid() itself is not a sched event: the sessions are said from outside (demand_task_set_session()): replay's
 * setsid lines and session comments, the live daemon's /proc and proc connector (manager-sessions.c); without them a
 * shell in a new terminal, which starts a group of its own in the kernel, stays in its parent's here
 * (docs/fidelity.md, difference 12). Load weights are nice 0's (se_weight() = 1024).
 */

#include <stdlib.h>
#include <string.h>

#include "alloc-util.h"
#include "demand-groups.h"
#include "demand-types.h"
#include "macro.h"
#include "model.h"
#include "pelt.h"
#include "task-table.h"
#include "util-est.h"

#define INIT_PID 1
#define KTHREADD_PID 2
/* A bound on the groups followed at once: sessions come and go on a long-running machine; empty ones are reused. */
#define GROUPS_MAX 4096u

void demand_set_autogroup(Demand *d, bool autogroup) {
        d->groups_on = autogroup;
}

/* The group of @k: TASK_GROUP_ROOT, or the key of its session (its own pid while not known). */
static int32_t task_group_id(const Demand *d, const Task *k) {
        if (!d->groups_on || k->group == TASK_GROUP_ROOT)
                return TASK_GROUP_ROOT;
        return k->group != 0 ? k->group : k->pid;
}

bool dm_task_grouped(const Demand *d, const Task *k) {
        return task_group_id(d, k) != TASK_GROUP_ROOT;
}

void dm_task_inherit_group(Demand *d, Task *child, int32_t parent_pid) {
        const Task *parent;
        int32_t said;

        if (parent_pid <= 0 || parent_pid == KTHREADD_PID) {
                child->group = parent_pid == KTHREADD_PID ? TASK_GROUP_ROOT : 0;
                return;
        }
        if (parent_pid == INIT_PID) {
                child->group = child->pid;
                return;
        }
        parent = task_table_get(d->tasks, parent_pid);
        /* a parent never seen: its session if the trace said it (demand_task_set_session()) */
        said = dm_session_group_of(d, parent_pid);
        child->group = parent ? task_group_id(d, parent) : said != 0 ? said : parent_pid;
}

/* ---- sessions known before their tasks are seen ---- */

/* The index of @pid in the sessions (sorted by pid), or where it would go. */
static size_t session_index(const Demand *d, int32_t pid) {
        size_t lo = 0, hi = d->n_sessions;

        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;

                if (d->sessions[mid].pid < pid)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return lo;
}

int dm_session_store(Demand *d, int32_t pid, int32_t sid) {
        size_t i = session_index(d, pid);
        DemandSession *a;

        if (i < d->n_sessions && d->sessions[i].pid == pid) {
                d->sessions[i].sid = sid;
                return 0;
        }
        a = greedy_realloc(d->sessions, &d->max_sessions, d->n_sessions + 1, sizeof(DemandSession), 64);
        if (!a)
                return -ENOMEM;
        d->sessions = a;
        memmove(d->sessions + i + 1, d->sessions + i, (d->n_sessions - i) * sizeof(DemandSession));
        d->sessions[i] = (DemandSession) { .pid = pid, .sid = sid };
        d->n_sessions++;
        return 0;
}

/* @pid exited: its session is no longer said (a pid used again is a new task, which takes its parent's at its fork,
 * and the live daemon's sessions, read for every task at start-up, would otherwise only grow). */
void dm_session_forget_slow(Demand *d, int32_t pid) {
        size_t i = session_index(d, pid);

        if (i == d->n_sessions || d->sessions[i].pid != pid)
                return;
        memmove(d->sessions + i, d->sessions + i + 1, (d->n_sessions - i - 1) * sizeof(DemandSession));
        d->n_sessions--;
}

/* The task group of session @sid: the root for the kernel's (0: kernel threads, autogroup_default), else its key. */
int32_t dm_session_group(int32_t sid) {
        return sid > 0 ? sid : TASK_GROUP_ROOT;
}

/* A new Task's group: its session's if the trace said it, else 0 (not known: demand-groups.c guesses). */
int32_t dm_session_group_of(const Demand *d, int32_t pid) {
        size_t i = session_index(d, pid);

        return i < d->n_sessions && d->sessions[i].pid == pid ? dm_session_group(d->sessions[i].sid) : 0;
}

/* Kernel threads' names (kthread_create() callers): the root group, when first seen other than at their fork. */
static bool comm_is_kthread(const char *comm) {
        static const char *const prefixes[] = {
                "kworker/", "ksoftirqd/", "rcu_", "rcuc/", "kcompactd", "kswapd", "khugepaged", "jbd2/", "kthreadd",
                "migration/", "cpuhp/", "idle_inject/", "watchdog", "irq/", "kauditd", "oom_reaper", "kdamond",
                "kblockd", "writeback", "xfsaild/", "scsi_", "card", "kintegrityd", "khungtaskd",
        };

        for (size_t i = 0; i < ELEMENTSOF(prefixes); i++)
                if (strncmp(comm, prefixes[i], strlen(prefixes[i])) == 0)
                        return true;
        return false;
}

void dm_task_guess_group_slow(Demand *d, Task *k, const char *comm) {
        if (d->groups_on && k->group == 0 && comm[0] != '\0' && comm_is_kthread(comm))
                k->group = TASK_GROUP_ROOT;
}

/* ---- the group table ---- */

static void group_rq_advance(GroupRq *q, uint64_t pelt_now, bool running);

static DemandGroup *group_find(Demand *d, int32_t id) {
        if (id <= 0)
                return NULL;
        for (size_t i = 0; i < d->n_groups; i++)
                if (d->groups[i].id == id)
                        return &d->groups[i];
        return NULL;
}

static bool signal_zero(const PeltSignal *s) {
        return s->util_avg == 0 && s->util_sum == 0;
}

/* Nothing queued, nothing left in any signal on any CPU (decayed to now), nothing pending: it may be forgotten. */
static bool group_empty(Demand *d, DemandGroup *g) {
        for (unsigned cpu = 0; cpu < d->n_cpus; cpu++) {
                GroupRq *q = &g->rq[cpu];

                if (!q->live)
                        continue;
                group_rq_advance(q, dm_cpu_pelt_now(d, cpu), false);
                if (q->nr_queued + q->delayed.nr > 0 || q->removed_nr > 0 || !signal_zero(&q->util) || !signal_zero(&q->runnable) ||
                    !signal_zero(&q->load) || !signal_zero(&q->se_util) || !signal_zero(&q->se_runnable))
                        return false;
        }
        return true;
}

/* A new slot at the end of the table, its per-CPU array allocated. */
/* analyze: false positive: the array is stored in d->groups[], which demand_free() → dm_groups_free() frees; gcc 12's
 * analyzer loses it when d->n_groups is written after the store (docs/reliability.md, "Static analysis") */
ANALYZER_FALSE_POSITIVE_BEGIN("-Wanalyzer-malloc-leak")
static DemandGroup *group_append(Demand *d) {
        DemandGroup *g;

        g = greedy_realloc(d->groups, &d->max_groups, d->n_groups + 1, sizeof(DemandGroup), 16);
        if (!g)
                return NULL;
        d->groups = g;
        g = &d->groups[d->n_groups];
        *g = (DemandGroup) {};
        g->rq = calloc(MAX(d->n_cpus, 1u), sizeof(GroupRq));
        if (!g->rq)
                return NULL;
        d->n_groups++;
        return g;
}
ANALYZER_FALSE_POSITIVE_END

/*
 * A slot for a new group: an empty group's when the table is at its bound (its signals are 0: nothing is lost; a
 * task still naming it starts it again), else a new one.
 */
static DemandGroup *group_slot(Demand *d) {
        if (d->n_groups >= GROUPS_MAX) {
                for (size_t i = 0; i < d->n_groups; i++) {
                        DemandGroup *g = &d->groups[i];

                        if (g->id != 0 && !group_empty(d, g))
                                continue;
                        memset(g->rq, 0, d->n_cpus * sizeof(GroupRq));
                        return g;
                }
                return NULL;
        }
        return group_append(d);
}

static DemandGroup *group_get(Demand *d, int32_t id) {
        DemandGroup *g = group_find(d, id);

        if (g || id <= 0)
                return g;
        g = group_slot(d);
        if (g)
                g->id = id;
        return g;
}

void dm_groups_free(Demand *d) {
        for (size_t i = 0; i < d->n_groups; i++)
                free(d->groups[i].rq);
        free(d->groups);
        d->groups = NULL;
        d->n_groups = d->max_groups = 0;
}

/* ---- the signals ---- */

/* The group of @cpu's running CFS task: its entity is the root's curr. */
static int32_t cpu_curr_group(const Demand *d, unsigned cpu) {
        const DemandCpu *c = &d->cpus[cpu];
        const Task *k;

        if (!c->curr_cfs || c->curr_pid == 0)
                return TASK_GROUP_ROOT;
        k = task_table_get(d->tasks, c->curr_pid);
        return k && k->cpu == (int) cpu ? task_group_id(d, k) : TASK_GROUP_ROOT;
}

/*
 * __update_load_avg_cfs_rq() of the group's cfs_rq and __update_load_avg_se() of its entity: running while a task of
 * the group is the curr, runnable (and load, at nice 0) with the group's queued tasks.
 */
static void group_rq_advance(GroupRq *q, uint64_t pelt_now, bool running) {
        unsigned nr = MAX(q->nr_queued, (unsigned) running);

        (void) pelt_update(&q->util, pelt_now, running);
        (void) pelt_update(&q->runnable, pelt_now, nr);
        /* load counts every entity on the cfs_rq (cfs_rq->load.weight), the delayed ones too; runnable does not */
        (void) pelt_update(&q->load, pelt_now, nr + q->delayed.nr);
        (void) pelt_update(&q->se_util, pelt_now, running);
        (void) pelt_update(&q->se_runnable, pelt_now, nr);
}

void dm_groups_advance_slow(Demand *d, unsigned cpu, uint64_t pelt_now) {
        int32_t curr;

        if (d->n_groups == 0)
                return;
        curr = cpu_curr_group(d, cpu);
        for (size_t i = 0; i < d->n_groups; i++) {
                GroupRq *q = &d->groups[i].rq[cpu];
                bool running = d->groups[i].id == curr;

                /* A blocked group contributed nothing since it was last advanced: it decays when next used. */
                if (q->live && (q->nr_queued + q->delayed.nr > 0 || running))
                        group_rq_advance(q, pelt_now, running);
        }
}

/*
 * The group's state on @cpu brought to now (the CPU itself was advanced by the caller). A new one starts empty, its
 * entity's windows aligned with the root's: attach_entity_cfs_rq() of a new group's entity.
 */
static GroupRq *group_rq_sync(Demand *d, DemandGroup *g, unsigned cpu) {
        DemandCpu *c = &d->cpus[cpu];
        GroupRq *q = &g->rq[cpu];
        uint64_t now = dm_cpu_pelt_now(d, cpu);

        if (!q->live) {
                pelt_reset(&q->util, now);
                pelt_reset(&q->runnable, now);
                pelt_reset(&q->load, now);
                q->se_util = (PeltSignal) { .last_update_time_ns = c->pelt.last_update_time_ns,
                                            .period_contrib = c->pelt.period_contrib };
                q->se_runnable = (PeltSignal) { .last_update_time_ns = c->runnable.last_update_time_ns,
                                                .period_contrib = c->runnable.period_contrib };
                q->live = true;
                return q;
        }
        group_rq_advance(q, now, cpu_curr_group(d, cpu) == g->id);
        return q;
}

/*
 * update_cfs_rq_load_avg()'s removed part, on the group's cfs_rq: what left lazily is applied now, and the entity
 * propagates it. The model subtracts it from the group's signals when the task leaves (dm_group_detach()), where
 * the kernel subtracts it from the sums as of the cfs_rq's last update, before they decay to now: subtracting the
 * task's util of then from a signal decayed since would take too much (every storm child took a little of its
 * parent's share, and the group's util fell to 0). What stays lazy is what the root sees, and what a new task's
 * initial util reads (dm_task_initial_util()).
 */
static void group_rq_apply_removed(GroupRq *q) {
        if (q->removed_nr == 0)
                return;
        q->removed_util = q->removed_runnable = q->removed_load = q->removed_nr = 0;
        q->propagate = true;     /* add_tg_cfs_propagate() */
}

/* propagate_entity_load_avg() of the group's entity on @cpu's root cfs_rq. Returns whether the root changed. */
static bool group_rq_propagate(Demand *d, GroupRq *q, unsigned cpu) {
        DemandCpu *c = &d->cpus[cpu];

        if (!q->propagate)
                return false;
        q->propagate = false;
        pelt_propagate(&c->pelt, &q->se_util, q->util.util_avg);
        pelt_propagate(&c->runnable, &q->se_runnable, q->runnable.util_avg);
        return true;
}

/* update_load_avg(gcfs_rq, se, UPDATE_TG) then update_load_avg(root, gse, UPDATE_TG). */
static bool group_rq_update(Demand *d, DemandGroup *g, unsigned cpu) {
        GroupRq *q = group_rq_sync(d, g, cpu);

        group_rq_apply_removed(q);
        return group_rq_propagate(d, q, cpu);
}

/* ---- tasks in groups ---- */

/* enqueue_entity() → update_load_avg(DO_ATTACH) on the group's cfs_rq, and the walk up to its entity. */
bool dm_group_attach(Demand *d, Task *k) {
        unsigned cpu = (unsigned) k->cpu;
        DemandGroup *g;
        GroupRq *q;

        k->attached_group = TASK_GROUP_ROOT;
        if (!dm_task_grouped(d, k))
                return false;
        g = group_get(d, task_group_id(d, k));
        if (!g)
                return false;    /* no room: the root takes it, as without groups */
        q = group_rq_sync(d, g, cpu);
        group_rq_apply_removed(q);
        pelt_attach(&q->util, &k->util);
        pelt_attach(&q->runnable, &k->runnable);
        pelt_attach(&q->load, &k->load);
        q->propagate = true;
        k->attached_group = g->id;
        (void) group_rq_propagate(d, q, cpu);
        return true;
}

/*
 * detach_entity_load_avg() from the group's cfs_rq and the walk up (a queued task moved by the balancer:
 * dequeue_entity() with DO_DETACH), or, @lazy, remove_entity_load_avg(): the group's cfs_rq learns at its next update.
 */
bool dm_group_detach_slow(Demand *d, Task *k, bool lazy) {
        unsigned cpu = (unsigned) k->cpu;
        DemandGroup *g;
        GroupRq *q;

        if (k->attached_group == TASK_GROUP_ROOT)
                return false;
        g = group_find(d, k->attached_group);
        k->attached_group = TASK_GROUP_ROOT;
        if (!g || !g->rq[cpu].live)
                return true;     /* forgotten while empty: nothing of the task is left there */
        q = group_rq_sync(d, g, cpu);
        if (lazy) {
                pelt_remove(&q->util, k->util.util_avg);
                pelt_remove(&q->runnable, k->runnable.util_avg);
                pelt_remove(&q->load, k->load.util_avg);
                q->removed_util += k->util.util_avg;
                q->removed_runnable += k->runnable.util_avg;
                q->removed_load += k->load.util_avg;
                q->removed_nr++;
                return true;
        }
        group_rq_apply_removed(q);
        pelt_detach(&q->util, &k->util);
        pelt_detach(&q->runnable, &k->runnable);
        pelt_detach(&q->load, &k->load);
        q->propagate = true;
        (void) group_rq_propagate(d, q, cpu);
        return true;
}

/*
 * An update of @k's group on its CPU (its enqueue, dequeue, pick, tick), before @delta_queued changes the group's
 * queued count there (enqueue_entity()/dequeue_entity() update the averages first). Returns whether the root changed.
 */
bool dm_group_touch_slow(Demand *d, Task *k, int delta_queued) {
        unsigned cpu = (unsigned) k->cpu;
        DemandGroup *g;
        GroupRq *q;
        bool changed;

        if (k->attached_group == TASK_GROUP_ROOT || !(g = group_find(d, k->attached_group)))
                return false;
        changed = group_rq_update(d, g, cpu);
        q = &g->rq[cpu];
        if (delta_queued > 0) {
                /* requeue_delayed_entity(): a delayed task woken where it sleeps was still on the cfs_rq */
                delayed_requeue(&q->delayed, k);
                if (++q->nr_queued == 2)
                        q->contended_shared_ns = d->cpus[cpu].shared_ns;
        } else if (delta_queued < 0) {
                /* the delayed ones stay when the last runnable leaves: dm_groups_pick_slow() */
                q->nr_queued -= q->nr_queued > 0;
                if (q->nr_queued == 0 && q->delayed.nr > 0)
                        d->cpus[cpu].groups_delayed_only = true;
        }
        return changed;
}

/*
 * EEVDF delayed dequeue (6.12+, dequeue_entity(): DELAY_DEQUEUE): a task that goes to sleep while not eligible stays
 * on its cfs_rq, its load still counted, until it is picked (then dequeued) or woken. A task that sleeps while others
 * of its group are queued there (it has just run: its lag is negative) is taken as delayed, until a pick of its group
 * there finds it eligible (DelayedTasks: once the others ran as long as it did; dm_group_pick_task_slow()), the CPU's
 * next pick once its group has no runnable task left there (dm_groups_pick_slow()) or the CPU's idle entry. What it
 * changes is the group's load_avg, which scales a new task's initial util: measured on this kernel (pelt-oracle at
 * sched_wakeup_new), a loaded storm's group held load ~360 at its forks where the model, which kept a sleeper until
 * its group had nothing runnable, had ~415 (docs/fidelity.md, session 17).
 */
/* What @k ran since its switch-in while its group @q had another task queued on its CPU (DemandCpu.shared_ns counts
 * that time: another CFS task was queued). */
static uint64_t group_shared_run_ns(const Demand *d, const GroupRq *q, const Task *k) {
        uint64_t shared_ns = d->cpus[k->cpu].shared_ns;

        return shared_ns - MIN(shared_ns, MAX(k->shared_start_ns, q->contended_shared_ns));
}

void dm_group_sleep_slow(Demand *d, Task *k) {
        DemandGroup *g;
        GroupRq *q;

        if (k->attached_group == TASK_GROUP_ROOT || !(g = group_find(d, k->attached_group)))
                return;
        q = &g->rq[k->cpu];
        if (q->nr_queued == 0)
                return;
        /* its lag: the part of its last run while another task of its group was queued there (a run alone in the
         * group leaves none: the group's V follows it), session 19 */
        delayed_add(&q->delayed, k, MIN(dm_task_last_run_ns(k), group_shared_run_ns(d, q, k)));
}

void dm_group_ran_slow(Demand *d, Task *k, uint64_t run_ns) {
        DemandGroup *g = group_find(d, k->attached_group);

        if (g && k->cpu >= 0)
                delayed_ran(&g->rq[k->cpu].delayed, run_ns);
}

/* A pick in @k's group on its CPU (delayed_pick()), @running_ns into @k's run. */
void dm_group_pick_task_slow(Demand *d, Task *k, uint64_t running_ns) {
        DemandGroup *g = group_find(d, k->attached_group);

        if (g && k->cpu >= 0)
                delayed_pick(&g->rq[k->cpu].delayed, running_ns);
}

/*
 * A pick on @cpu (a sched_switch there, before its prev is dequeued). A group whose cfs_rq holds only delayed tasks
 * stays queued on the root: dequeue_entities() leaves a group entity queued while its cfs_rq->load.weight is not 0
 * ("Don't dequeue parent if it has other entities besides us"), and the delayed ones count in that weight. The root
 * dequeues them only when it picks that entity: pick_next_entity() takes a delayed entity off with
 * dequeue_entities(DEQUEUE_DELAYED) and picks again (kernel/sched/fair.c). That pick is not traced (it switches to
 * nothing); the model takes it as the CPU's next pick after the group's last runnable task left, so a storm's parent
 * that forks a child and sleeps stays in its group's load while the child runs, and then while the CPU runs other
 * sessions' tasks, until the next switch there (it left at the child's exit until then: on a loaded recording
 * each next child started at 113, median, where the kernel's root rose by 64; now 68. docs/fidelity.md).
 * Only a dequeue leaves a group with delayed tasks alone (dm_group_touch_slow(), which flags the CPU; a sleep is
 * delayed only beside queued tasks), so a switch on a CPU not flagged looks at no group.
 */
void dm_groups_pick_slow(Demand *d, unsigned cpu) {
        for (size_t i = 0; i < d->n_groups; i++) {
                GroupRq *q = &d->groups[i].rq[cpu];

                if (q->live && q->nr_queued == 0)
                        delayed_flush(&q->delayed);
        }
        d->cpus[cpu].groups_delayed_only = false;
}

/* __update_blocked_fair() for @cpu: every group's cfs_rq there, then its entity. Returns whether the root changed. */
bool dm_groups_blocked_update_slow(Demand *d, unsigned cpu) {
        bool changed = false;

        for (size_t i = 0; i < d->n_groups; i++)
                if (d->groups[i].rq[cpu].live)
                        changed |= group_rq_update(d, &d->groups[i], cpu);
        return changed;
}

/*
 * The periodic load balance of a busy CPU: sched_balance_trigger() from the tick raises the balance softirq when
 * rq->next_balance is due, and sched_balance_softirq() runs sched_balance_update_blocked_averages() for the CPU
 * before balancing (kernel/sched/fair.c). A busy CPU's interval is the domain's balance_interval (its weight in
 * ms) x busy_factor (16): 32 ms on this 2-CPU machine; taken as LOAD_AVG_PERIOD ms, the nohz update's period too.
 * Without it, a task that woke on another CPU left its util on a busy CPU's root for as long as nothing else of
 * its group ran there (a loaded recording: 593 held for 25 ms and more). Called at a tick of the CPU.
 */
bool dm_groups_busy_balance(Demand *d, unsigned cpu, uint64_t now_ns) {
        DemandCpu *c = &d->cpus[cpu];

        if (d->n_groups == 0 || now_ns < c->balance_ns + LOAD_AVG_PERIOD * UINT64_C(1000000))
                return false;
        c->balance_ns = now_ns;
        return dm_groups_blocked_update(d, cpu);
}

/* The CPU's run queue is empty (idle, or forgotten): no group has a task queued there. */
void dm_groups_cpu_empty_slow(Demand *d, unsigned cpu) {
        for (size_t i = 0; i < d->n_groups; i++) {
                d->groups[i].rq[cpu].nr_queued = 0;
                delayed_flush(&d->groups[i].rq[cpu].delayed);
        }
        d->cpus[cpu].groups_delayed_only = false;
}

/*
 * post_init_entity_util_avg() (kernel/sched/fair.c) on the cfs_rq the task joins, its group's (as it stands: no
 * update first): cap = (capacity - util) / 2; util x se_weight / (load_avg + 1) up to the cap, or the cap on a
 * cfs_rq without util. A session whose tasks wait on a busy CPU has a load far above its util and its new tasks get
 * little; one with nothing on the CPU gives the cap of an empty cfs_rq, half the capacity, however busy the CPU.
 */
unsigned dm_task_initial_util(Demand *d, const Task *k, int cpu) {
        const DemandCpu *c = &d->cpus[cpu];
        const DemandGroup *g;
        const GroupRq *q;

        if (!dm_task_grouped(d, k))
                return util_initial(c->pelt.util_avg, c->load.util_avg, c->cpu_scale);
        g = group_find(d, task_group_id(d, k));
        q = g ? &g->rq[cpu] : NULL;
        if (!q || !q->live)
                return util_initial(0, 0, c->cpu_scale);
        /* the kernel's cfs_rq still holds what left lazily (dm_group_detach()) */
        return util_initial(q->util.util_avg + q->removed_util, q->load.util_avg + q->removed_load, c->cpu_scale);
}
