/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * Observe mode (`schedfreqd --observe`, issue #14 item 1): the model runs on the live events and its choices are
 * written nowhere; beside them, the kernel's own (power:cpu_frequency, where the kernel's governor fires it:
 * schedutil, ondemand, … through cpufreq_notify_transition() or cpufreq_driver_fast_switch()). Per policy, one
 * line on the output whenever either frequency changes:
 *   t=<ns> policy=<id> ours=<kHz> kernel=<kHz|-> agree=<percent|-> changed=<ours|kernel>
 * agree= is the running share of the time both were known during which they were equal. At the end,
 * freq_compare_print()'s summary. Pure but for the FILE it prints on: every input carries its time.
 */

#include <stdint.h>
#include <stdio.h>

#include "topology.h"

typedef struct Observer Observer;

/*
 * From @start_ns on, our frequency for policy i is @ours_khz[i] (where the engine starts: engine_policy_khz()),
 * and the kernel's is its cur_khz in @topo for a policy whose governor is schedutil (its last choice,
 * policy->cur); for any other governor the kernel's is not known until its first power:cpu_frequency. Lines go
 * to @out.
 */
int observer_new(const Topology *topo, const uint32_t *ours_khz, uint64_t start_ns, FILE *out, Observer **ret);
Observer *observer_free(Observer *o);
static inline void observer_freep(Observer **o) {
        if (*o)
                observer_free(*o);
}

/* Our decision for policy @policy_index at @t_ns. */
void observer_ours(Observer *o, unsigned policy_index, uint64_t t_ns, uint32_t khz);
/* power:cpu_frequency state=@khz cpu_id=@cpu at @t_ns; -ENOENT for a CPU of no policy (ignored). */
int observer_kernel(Observer *o, int cpu, uint64_t t_ns, uint32_t khz);
/* The summary at @t_ns (the end). */
void observer_finish(Observer *o, uint64_t t_ns);
/* Whether a line failed to print (the reader went away): the caller stops printing. */
int observer_error(const Observer *o);
