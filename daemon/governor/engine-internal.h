/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The engine's insides, shared by its files (engine.c: set-up and the governor side; engine-inputs.c: events,
 * ticks, resyncs; engine-status.c: lazy wake-ups, state, status and control, rules). The API is include/governor.h.
 */

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "governor.h"
#include "model.h"

typedef struct EnginePolicy {
        PolicyDesc desc;          /* a copy, frequency table included */
        bool managed;             /* config_manages_policy() at engine_new() */
        Governor gov;
        unsigned *cpus;           /* policy->cpus: related CPUs that are online (a slice of Engine.policy_cpus) */
        unsigned n_cpus;
        PolicyStats stats;
        bool deferred_pending;    /* a disallowed remote event changed a CPU's demand; no evaluation since */
        uint64_t deferred_since_ns;
} EnginePolicy;

struct Engine {
        EnginePolicy *policies;   /* same order as the topology's, so indexes match */
        size_t n_policies;
        int *policy_of_cpu;       /* CPU → policy index, -1 for none */
        unsigned *policy_cpus;    /* every policy's cpus[], one after the other (at most one slot per CPU) */
        Demand *demand;
        unsigned n_cpus;          /* the model's CPUs (demand_n_cpus()), fixed at engine_new() */
        IowaitBoost *iowait;      /* per CPU (struct sugov_cpu) */
        uint64_t *seen_updates;   /* per CPU: demand_cpu_updates() at its last hook call */
        bool *hooked;             /* per CPU: a real hook call in the reaction being processed */
        bool *offline;            /* per CPU: hot-unplugged (engine_cpu_set_online()): not in policy->cpus */
        uint64_t tick_ns;         /* TICK_NSEC: the tick period, the iowait boost reset time */
        bool runtime_reported;    /* the source reports sched_stat_runtime: silence ends a run (demand.c) */
        bool nohz_has_blocked;    /* nohz.has_blocked: a CPU entered idle since the last blocked-load update */
        uint64_t nohz_next_blocked_ns; /* nohz.next_blocked */
        EngineCommitFn commit;
        void *userdata;
        uint64_t now_ns;          /* the latest time applied */
        EngineStats stats;
        bool paused;              /* model only: nothing is committed */
        int32_t self_pid;         /* the governor's own task (engine_set_self()), 0 = none */
        int32_t cause_pid;        /* the task of the input being applied (Decision.pid), 0 = none */
        DecisionSource source;    /* what the engine's own decisions say made them */
        RuleSet *rules;           /* the configuration's per-process rules (the demand model points here) */
        uint64_t rule_decisions[RULES_MAX]; /* changes each rule decided (reason "rule"), since the rules were set */
};

/* The engine's time for an input at @t_ns: never backwards (a late one is counted and clamped). engine-inputs.c */
uint64_t engine_clock(Engine *e, uint64_t time_ns, bool count_late);
/* Evaluates policy @i at @now_ns for a hook call on @cpu (a local or remote one): commits when its frequency
 * should change. engine.c */
void engine_evaluate(Engine *e, size_t i, uint64_t now_ns, int cpu, DecisionKind kind, SchedEventType event);
/* CPU @cpu's demand with its iowait boost @iowait (sugov_get_util()), why, and the rule that decided it
 * (@ret_rule, -1: none). engine.c */
unsigned engine_cpu_demand(const Engine *e, unsigned cpu, unsigned iowait, DecisionReason *ret_reason, int *ret_rule);
