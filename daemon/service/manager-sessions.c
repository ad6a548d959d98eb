/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * manager-sessions.c: every task's session for the model's task groups, from /proc at start-up and from the proc
 * connector's setsid events afterwards (daemon/service/manager-sessions.h).
 *
 * The order at start-up (manager.c): the proc connector is subscribed first and /proc read after, so a setsid()
 * between the two is not lost (its event, applied later, says what the read said). The perf rings are open but not
 * yet drained then: the model knows no task, and the sessions wait for each task's first event
 * (demand_task_set_session()).
 */

#include <errno.h>

#include "event-source.h"
#include "governor.h"
#include "log.h"
#include "manager-sessions.h"

typedef struct SessionFeed {
        Engine *engine;
        uint64_t time_ns;
} SessionFeed;

static int feed_one(int32_t tid, int32_t sid, void *userdata) {
        SessionFeed *f = userdata;
        int r;

        r = engine_task_session(f->engine, tid, sid, f->time_ns);
        /* -EINVAL: not a task id the model takes; skip it */
        return r == -ENOMEM ? r : 0;
}

bool manager_sessions_wanted(const Governed *g) {
        return g->engine && g->source && !event_source_decides(g->source) && g->topology && g->topology->autogroup;
}

int manager_sessions_scan(const Governed *g, const char *proc_root) {
        SessionFeed f = { .engine = g->engine };
        int r;

        if (!manager_sessions_wanted(g))
                return 0;
        r = proc_sessions_scan(proc_root, feed_one, &f);
        if (r < 0)
                return log_debug_errno(r, "Cannot read the tasks' sessions from /proc: %m");
        log_debug("Sessions: %d tasks read from /proc.", r);
        return r;
}

int manager_sessions_setsid(const Governed *g, const ProcEvent *ev, const char *proc_root) {
        SessionFeed f = { .engine = g->engine, .time_ns = ev->timestamp_ns };
        int r;

        if (!manager_sessions_wanted(g) || ev->tgid <= 0)
                return 0;
        /* What the rings hold happened before this setsid (or within the µs since): applied first, in the old group. */
        r = event_source_drain(g->source);
        if (r < 0)
                return r;
        r = proc_sessions_process(proc_root, ev->tgid, ev->tgid, feed_one, &f);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return log_debug_errno(r, "Task %d: session %d not applied: %m", (int) ev->pid, (int) ev->tgid);
        log_debug("Task %d: setsid, session %d for its %d threads in the model.", (int) ev->pid, (int) ev->tgid, r);
        return 0;
}
