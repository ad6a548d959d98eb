/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * A frequency decision: what the engine hands to its commit callback (the daemon writes it, replay prints it,
 * observe mode shows it beside the kernel's), what the decision log keeps for `schedfreqctl explain`, and its
 * one text form, shared by `schedfreqd replay` and `schedfreqd --print-decisions`.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sched-event.h"
#include "topology.h"

typedef enum DecisionKind {
        DECISION_LOCAL,           /* triggered by an event recorded on a CPU of the policy */
        DECISION_REMOTE,          /* triggered by an event on another CPU, permitted by the policy */
        _DECISION_KIND_MAX,
        _DECISION_KIND_INVALID = -EINVAL,
} DecisionKind;

typedef enum DecisionReason {
        DECISION_REASON_DEMAND,   /* utilisation × headroom */
        DECISION_REASON_RT,       /* an RT/DL task is runnable: max */
        DECISION_REASON_IOWAIT,   /* iowait boost dominated */
        DECISION_REASON_LIMITS,   /* scaling limits changed */
        DECISION_REASON_RULE,     /* a per-process rule's clamp or rt_boost decided it (rules.h) */
        _DECISION_REASON_MAX,
        _DECISION_REASON_INVALID = -EINVAL,
} DecisionReason;

/* Which event source took the decision (issue #23): the userspace model on perf events or on a trace, or the
 * kernel side of the BPF source. */
typedef enum DecisionSource {
        DECISION_SOURCE_PERF,     /* the model, fed by the perf rings (live) */
        DECISION_SOURCE_BPF,      /* the BPF programs, on the kernel's own signals (live) */
        DECISION_SOURCE_REPLAY,   /* the model, fed by a trace file */
        _DECISION_SOURCE_MAX,
        _DECISION_SOURCE_INVALID = -EINVAL,
} DecisionSource;

typedef struct Decision {
        uint64_t time_ns;         /* time of the event (or tick) that triggered it */
        unsigned policy_index;    /* index into the topology's policies */
        unsigned policy_id;       /* policyN */
        uint32_t old_khz, new_khz;
        int cpu;                  /* CPU whose event caused it */
        DecisionKind kind;
        DecisionReason reason;
        unsigned util;            /* the policy's demand, 0..1024 */
        SchedEventType event;     /* the triggering event, or _SCHED_EVENT_TYPE_INVALID for a tick */
        int32_t pid;              /* the task it was about (sched_event_task_pid(); a tick: the CPU's running task),
                                   * 0 = none or the idle task */
        bool deferred;            /* it applies a demand change that a disallowed remote event had to leave */
        uint64_t deferred_since_ns; /* when that change was recorded (the remote event's time) */
        DecisionSource source;    /* who decided it */
} Decision;

const char *decision_kind_to_string(DecisionKind k);        /* "local", "remote" */
const char *decision_reason_to_string(DecisionReason r);
const char *decision_source_to_string(DecisionSource s);    /* "perf", "bpf", "replay" */    /* "demand", "rt", "iowait", "limits", "rule" */

/* The policy= of the text forms: the policy's first CPU (its id without a topology). */
int decision_policy_cpu(const Decision *d, const Topology *t);

/* Prints @d in the replay output format; policy= is the policy's first CPU. */
void decision_print(FILE *f, const Decision *d, const Topology *t);

/*
 * The same line with what the live daemon knows besides (`schedfreqd --print-decisions`), appended as more
 * key=value fields: ` reason=<demand|rt|iowait|limits|rule>`, and for a change that applied a demand change a
 * disallowed remote event had left, ` deferred=<ns it waited>`.
 */
void decision_print_details(FILE *f, const Decision *d, const Topology *t);
