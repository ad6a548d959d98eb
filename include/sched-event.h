/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * A scheduler event, decoded: what the model consumes, whether it came from a perf ring (live) or from a
 * `perf script` text line (replay). One code path, two sources.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#define TASK_COMM_LEN 16 /* include/linux/sched.h, with the NUL */

typedef enum SchedEventType {
        SCHED_EVENT_SWITCH,       /* sched:sched_switch */
        SCHED_EVENT_WAKEUP,       /* sched:sched_wakeup */
        SCHED_EVENT_WAKEUP_NEW,   /* sched:sched_wakeup_new */
        SCHED_EVENT_MIGRATE,      /* sched:sched_migrate_task */
        SCHED_EVENT_EXIT,         /* sched:sched_process_exit */
        SCHED_EVENT_RUNTIME,      /* sched:sched_stat_runtime */
        SCHED_EVENT_STAT_IOWAIT,  /* sched:sched_stat_iowait: optional, only kernels with CONFIG_SCHEDSTATS have it */
        SCHED_EVENT_CPU_FREQUENCY, /* power:cpu_frequency: the kernel's frequency for one CPU; not a scheduler event,
                                    * read only to compare with the kernel (observe mode, replay); optional */
        _SCHED_EVENT_TYPE_MAX,
        _SCHED_EVENT_TYPE_INVALID = -EINVAL,
} SchedEventType;

typedef struct SchedEvent {
        SchedEventType type;
        uint64_t time_ns;         /* CLOCK_MONOTONIC (perf use_clockid) */
        int cpu;                  /* the CPU that recorded the event ("exec_cpu") */
        bool has_context;         /* context_pid is known */
        int32_t context_pid;      /* the task current on @cpu when it was recorded, 0 = idle (the tracepoint's
                                   * common_pid: perf's PERF_SAMPLE_TID, the "comm tid" column of perf script) */
        union {
                struct {
                        char prev_comm[TASK_COMM_LEN];
                        int32_t prev_pid;
                        int32_t prev_prio;
                        int64_t prev_state;       /* raw value as recorded */
                        bool prev_runnable;       /* decoded: prev stays enqueued (R or preempted) */
                        char next_comm[TASK_COMM_LEN];
                        int32_t next_pid;         /* 0 = the CPU goes idle */
                        int32_t next_prio;
                } sw;
                struct {                          /* WAKEUP, WAKEUP_NEW */
                        char comm[TASK_COMM_LEN];
                        int32_t pid;
                        int32_t prio;
                        int32_t target_cpu;
                } wakeup;
                struct {
                        char comm[TASK_COMM_LEN];
                        int32_t pid;
                        int32_t prio;
                        int32_t orig_cpu;
                        int32_t dest_cpu;
                } migrate;
                struct {
                        char comm[TASK_COMM_LEN];
                        int32_t pid;
                        int32_t prio;
                } exit;
                struct {
                        char comm[TASK_COMM_LEN];
                        int32_t pid;
                        uint64_t runtime_ns;
                } runtime;
                struct {                          /* a task waking after I/O is being enqueued (its rq's CPU: the
                                                   * task's, not necessarily the one recording the event) */
                        char comm[TASK_COMM_LEN];
                        int32_t pid;
                        uint64_t delay_ns;        /* how long it waited for the I/O */
                } iowait;
                struct {                          /* cpufreq_notify_transition(), cpufreq_driver_fast_switch():
                                                   * once per CPU of the policy (drivers/cpufreq/cpufreq.c) */
                        uint32_t khz;             /* state= */
                        int32_t cpu_id;           /* cpu_id=: the CPU whose frequency it is */
                } freq;
        };
} SchedEvent;

const char *sched_event_type_to_string(SchedEventType t);       /* "sched_switch", … */
/* The tracefs subsystem: "sched", or "power" for cpu_frequency. */
const char *sched_event_type_subsystem(SchedEventType t);
/* Accepts "sched_switch" and "sched:sched_switch" (and "power:cpu_frequency"). */
SchedEventType sched_event_type_from_string(const char *s);

/*
 * Whether a kernel may lack the tracepoint and the daemon still runs: sched_stat_iowait is compiled in only
 * with CONFIG_SCHEDSTATS (include/trace/events/sched.h, sched_stat_template) and fires only while
 * kernel.sched_schedstats=1; without it there is no iowait boost. power:cpu_frequency needs CONFIG_CPU_FREQ
 * (include/trace/events/power.h); without it there is no comparison with the kernel. Every other event is
 * required.
 */
bool sched_event_type_is_optional(SchedEventType t);

/*
 * The task an event is about: the woken task, the task switched in (or out, when the CPU goes idle), the
 * migrated, exiting, running or I/O-waking task. 0 for none (power:cpu_frequency) or the idle task.
 */
int32_t sched_event_task_pid(const SchedEvent *ev);
/* That task's name as the event gives it (for a live event, what the tracepoint recorded), or NULL for none. */
const char *sched_event_task_comm(const SchedEvent *ev);
