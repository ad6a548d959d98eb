/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>

/*
 * parallel_for(): calls @fn(i, @userdata) once for every i in [0, @n), on up to @max_threads threads (the
 * caller's among them), each taking the next index; returns when every call has returned. For blocking reads
 * that do not depend on each other (cpufreq discovery's policies, cpufreq-discover.c): nothing else in the daemon
 * runs on a second thread. @fn must not touch what another index touches; the calls' order is unspecified.
 *
 * The threads are made with every signal blocked (the daemon's signals stay the main thread's) and a small
 * stack (PARALLEL_STACK_SIZE); a thread that cannot be made leaves its share to the others, so the work is
 * always done (on the caller alone, at worst). Returns how many threads ran, the caller's included.
 */
#define PARALLEL_STACK_SIZE (256u * 1024u)

typedef void (*ParallelFn)(size_t i, void *userdata);

unsigned parallel_for(size_t n, unsigned max_threads, ParallelFn fn, void *userdata);
