/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The demand model: what each CPU asks for, on the 0..1024 scale, built from scheduler events. Pure: every
 * input carries its time, and times must not go backwards (the engine clamps late events first).
 *
 * This is the walking-skeleton model: one PELT signal per CPU, "running" from a sched_switch to a non-zero
 * next_pid until a sched_switch to next_pid 0 (the root cfs_rq's "some task is running" in
 * kernel/sched/pelt.c, __update_load_avg_cfs_rq()). Other events are accepted and change nothing. A later
 * model replaces this file with per-task signals (util_est, attach/detach, RT) behind the same interface.
 */

#include <stdbool.h>
#include <stdint.h>

#include "sched-event.h"

typedef struct Demand Demand;

/* @n_cpus CPUs, all idle, zero utilisation, capacity and frequency scale 1024. */
int demand_new(unsigned n_cpus, Demand **ret);
Demand *demand_free(Demand *d);
static inline void demand_freep(Demand **d) {
        if (*d)
                demand_free(*d);
}

unsigned demand_n_cpus(const Demand *d);

/* cpu_scale: the CPU's capacity, cpuN/cpu_capacity (0 = no file = 1024). Set before the first event. */
void demand_set_capacity(Demand *d, unsigned cpu, unsigned capacity);
unsigned demand_cpu_capacity(const Demand *d, unsigned cpu);

/*
 * freq_scale: cur_khz / cpuinfo_max_khz x 1024. Accounts the time up to @now_ns at the old scale first, so
 * call it when the CPU's frequency changes.
 */
void demand_set_freq_scale(Demand *d, unsigned cpu, uint64_t now_ns, unsigned freq_scale);

/*
 * Applies @ev at @now_ns (the event's time, or the last time for a late event). Returns 0, -EINVAL for an
 * unknown event type or -ERANGE when the event's CPU is outside the model (nothing changes either way).
 */
int demand_event(Demand *d, const SchedEvent *ev, uint64_t now_ns);

/* Brings @cpu's signals up to @now_ns. Returns true when its utilisation was recomputed (a PELT period
 * boundary was crossed). */
bool demand_advance(Demand *d, unsigned cpu, uint64_t now_ns);

/* The CPU's demand as of its last update: util_avg capped at its capacity (cpu_util_cfs()). */
unsigned demand_cpu_util(const Demand *d, unsigned cpu);
/* A task (not the idle task) is running on @cpu. */
bool demand_cpu_busy(const Demand *d, unsigned cpu);
/* How many times @cpu entered idle: tick_nohz_get_idle_calls_cpu(), for schedutil's busy-hold rule. */
uint64_t demand_cpu_idle_calls(const Demand *d, unsigned cpu);
