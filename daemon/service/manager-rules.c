/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * manager-rules.c: per-process rules matched on what the proc connector knows (daemon/service/manager-rules.h).
 * exe and cgroup are read from /proc only when some rule has such a key, so rules on names alone cost no reads.
 */

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "event-source.h"
#include "governor.h"
#include "log.h"
#include "macro.h"
#include "manager-rules.h"

#define PROC_ROOT_DEFAULT "/proc"

static bool rules_need(const RuleSet *rules, bool exe) {
        for (unsigned i = 0; i < rules->n; i++)
                if ((exe ? rules->rule[i].exe : rules->rule[i].cgroup)[0] != '\0')
                        return true;
        return false;
}

/* /proc/TGID/exe's target into @buf; false when it cannot be read (a kernel thread, gone, no permission). */
static bool read_exe(const char *proc_root, pid_t tgid, char *buf, size_t size) {
        char path[64];
        ssize_t n;

        snprintf(path, sizeof(path), "%s/%d/exe", proc_root, (int) tgid);
        n = readlink(path, buf, size - 1);
        if (n <= 0)
                return false;
        buf[n] = '\0';
        return true;
}

/* The cgroup v2 path of /proc/TGID/cgroup (its "0::PATH" line) into @buf; false when there is none. */
static bool read_cgroup(const char *proc_root, pid_t tgid, char *buf, size_t size) {
        _cleanup_fclose_ FILE *f = NULL;
        char path[64], line[PATH_MAX + 8];

        snprintf(path, sizeof(path), "%s/%d/cgroup", proc_root, (int) tgid);
        f = fopen(path, "re");
        if (!f)
                return false;
        while (fgets(line, sizeof(line), f)) {
                if (strncmp(line, "0::", 3) != 0)
                        continue;
                size_t n = strcspn(line + 3, "\n");

                if (n >= size)
                        return false;     /* longer than any glob could match in full */
                memcpy(buf, line + 3, n);
                buf[n] = '\0';
                return true;
        }
        return false;
}

int manager_rules_match_task(const RuleSet *rules, TaskNames *names, const char *proc_root, pid_t pid, pid_t tgid,
                             const char *comm) {
        char exe[PATH_MAX], cgroup[PATH_MAX];
        const char *e = NULL, *cg = NULL;
        TaskName leader;
        int rule;

        if (!rules || rules->n == 0)
                return -1;
        proc_root = proc_root ?: PROC_ROOT_DEFAULT;
        if (rules_need(rules, true) && read_exe(proc_root, tgid, exe, sizeof(exe)))
                e = exe;
        if (rules_need(rules, false) && read_cgroup(proc_root, tgid, cgroup, sizeof(cgroup)))
                cg = cgroup;
        rule = rules_match(rules, comm && comm[0] != '\0' ? comm : NULL, e, cg);
        /* A thread without a rule of its own takes its process's (matched on the leader's name). */
        if (rule < 0 && pid != tgid && names && task_names_lookup(names, tgid, &leader) >= 0 && leader.comm[0] != '\0')
                rule = rules_match(rules, leader.comm, e, cg);
        return rule;
}

int manager_rules_task(const Governed *g, TaskNames *names, pid_t pid, pid_t tgid, const char *comm) {
        const RuleSet *rules = g->engine ? engine_rules(g->engine) : NULL;
        int rule, r;

        if (!rules)
                return 0;
        rule = manager_rules_match_task(rules, names, NULL, pid, tgid, comm);
        r = engine_task_set_rule(g->engine, pid, rule);
        /* A source that decides itself (bpf) holds the task's clamp in the kernel. */
        if (r >= 0 && g->source)
                r = event_source_task_rule(g->source, pid, rule);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                log_debug_errno(r, "Cannot give task %d its rule, ignoring: %m", (int) pid);
        else if (rule >= 0)
                log_debug("Task %d (%s) matches rule '%s'.", (int) pid, comm, rules->rule[rule].name);
        return 0;
}

static int collect(const TaskName *n, void *userdata) {
        TaskName **cursor = userdata;

        *(*cursor)++ = *n;
        return 0;
}

int manager_rules_scan(const Governed *g, TaskNames *names) {
        _cleanup_free_ TaskName *all = NULL;
        TaskName *cursor;
        size_t n;
        int r;

        if (!g->engine || !engine_rules(g->engine) || !names)
                return 0;
        /* A copy first: matching a thread looks its leader up, which the walk forbids. */
        n = task_names_size(names);
        all = malloc(MAX(n, (size_t) 1) * sizeof(TaskName));
        if (!all)
                return -ENOMEM;
        cursor = all;
        (void) task_names_foreach(names, collect, &cursor);
        n = (size_t) (cursor - all);
        for (size_t i = 0; i < n; i++) {
                r = manager_rules_task(g, names, all[i].pid, all[i].tgid, all[i].comm);
                if (r < 0)
                        return r;
        }
        log_debug("Matched the rules against %zu tasks.", n);
        return 0;
}
