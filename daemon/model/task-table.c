/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * task-table.c: the bounded pid → Task table of the demand model. Chained hashing over indexes into
 * fixed-size chunks, so a Task pointer stays valid while other tasks are added (the model holds prev and
 * next of a sched_switch at once). Pure, no I/O.
 */

#include <errno.h>
#include <stdlib.h>

#include "macro.h"
#include "task-table.h"

#define CHUNK_SHIFT 10
#define CHUNK_SIZE (1u << CHUNK_SHIFT)

struct TaskTable {
        Task **chunks;            /* chunks[i >> CHUNK_SHIFT][i & (CHUNK_SIZE - 1)] */
        size_t n_chunks;
        size_t n_slots;           /* slots allocated so far (n_chunks x CHUNK_SIZE) */
        size_t max_tasks;
        int32_t *buckets;         /* heads of the chains, -1 = empty */
        size_t n_buckets;         /* a power of two */
        int32_t free_head;        /* free slots chained through Task.next */
        size_t n_tasks;
        uint64_t evictions;
        Task *last;               /* the task task_table_get() found last (NULL after a removal): the model looks
                                   * the same few pids up several times per event (the running task at each
                                   * demand_advance()) */
};

static Task *slot(const TaskTable *t, int32_t i) {
        return &t->chunks[(size_t) i >> CHUNK_SHIFT][(size_t) i & (CHUNK_SIZE - 1)];
}

static size_t bucket_of(const TaskTable *t, int32_t pid) {
        /* Fibonacci hashing: pids are dense and sequential, spread them. */
        return (size_t) (((uint32_t) pid * UINT32_C(2654435769)) >> 7) & (t->n_buckets - 1);
}

int task_table_new(size_t max_tasks, TaskTable **ret) {
        TaskTable *t;

        if (max_tasks == 0)
                max_tasks = TASK_TABLE_DEFAULT_MAX;
        if (max_tasks > INT32_MAX / 2)
                return -EINVAL;
        t = calloc(1, sizeof(TaskTable));
        if (!t)
                return -ENOMEM;
        t->max_tasks = max_tasks;
        t->free_head = -1;
        for (t->n_buckets = 16; t->n_buckets < max_tasks; t->n_buckets <<= 1)
                ;
        t->buckets = malloc(t->n_buckets * sizeof(int32_t));
        if (!t->buckets) {
                free(t);
                return -ENOMEM;
        }
        for (size_t i = 0; i < t->n_buckets; i++)
                t->buckets[i] = -1;
        *ret = t;
        return 0;
}

TaskTable *task_table_free(TaskTable *t) {
        if (!t)
                return NULL;
        for (size_t i = 0; i < t->n_chunks; i++)
                free(t->chunks[i]);
        free(t->chunks);
        free(t->buckets);
        free(t);
        return NULL;
}

Task *task_table_get(TaskTable *t, int32_t pid) {
        if (t->last && t->last->pid == pid)
                return t->last;
        for (int32_t i = t->buckets[bucket_of(t, pid)]; i >= 0; i = slot(t, i)->next)
                if (slot(t, i)->pid == pid)
                        return t->last = slot(t, i);
        return NULL;
}

/* One more chunk of free slots, while under the bound. */
static int grow(TaskTable *t) {
        Task **chunks, *chunk;

        if (t->n_slots >= t->max_tasks)
                return -ENOSPC;
        chunks = realloc(t->chunks, (t->n_chunks + 1) * sizeof(Task *));
        if (!chunks)
                return -ENOMEM;
        t->chunks = chunks;
        chunk = calloc(CHUNK_SIZE, sizeof(Task));
        if (!chunk)
                return -ENOMEM;
        t->chunks[t->n_chunks++] = chunk;
        /* Chain the new slots that fall under the bound into the free list, lowest index first. */
        for (size_t k = MIN((size_t) CHUNK_SIZE, t->max_tasks - t->n_slots); k > 0; k--) {
                int32_t i = (int32_t) (t->n_slots + k - 1);

                slot(t, i)->next = t->free_head;
                t->free_head = i;
        }
        t->n_slots += CHUNK_SIZE;
        return 0;
}

/* The least recently seen task that is neither queued nor running. O(n), only when the table is full. */
static int32_t eviction_victim(const TaskTable *t) {
        int32_t victim = -1;

        for (size_t b = 0; b < t->n_buckets; b++)
                for (int32_t i = t->buckets[b]; i >= 0; i = slot(t, i)->next) {
                        const Task *k = slot(t, i);

                        if (k->on_rq || k->running)
                                continue;
                        if (victim < 0 || k->last_seen_ns < slot(t, victim)->last_seen_ns)
                                victim = i;
                }
        return victim;
}

int task_table_add(TaskTable *t, int32_t pid, uint64_t now_ns, Task **ret) {
        size_t b = bucket_of(t, pid);
        int32_t i;
        int r;

        if (t->free_head < 0) {
                r = grow(t);
                if (r == -ENOSPC) {
                        i = eviction_victim(t);
                        if (i < 0)
                                return -ENOSPC;
                        task_table_remove(t, slot(t, i)->pid);
                        t->evictions++;
                } else if (r < 0)
                        return r;
        }

        i = t->free_head;
        t->free_head = slot(t, i)->next;
        *slot(t, i) = (Task) { .pid = pid, .cpu = -1, .last_seen_ns = now_ns, .rule = -1, .queued_rule = -1,
                               .next = t->buckets[b] };
        t->buckets[b] = i;
        t->n_tasks++;
        *ret = slot(t, i);
        return 0;
}

void task_table_remove(TaskTable *t, int32_t pid) {
        int32_t *link = &t->buckets[bucket_of(t, pid)];

        for (int32_t i = *link; i >= 0; link = &slot(t, i)->next, i = *link) {
                if (slot(t, i)->pid != pid)
                        continue;
                *link = slot(t, i)->next;
                t->last = NULL;
                slot(t, i)->next = t->free_head;
                t->free_head = i;
                t->n_tasks--;
                return;
        }
}

size_t task_table_size(const TaskTable *t) {
        return t->n_tasks;
}

uint64_t task_table_evictions(const TaskTable *t) {
        return t->evictions;
}

void task_table_foreach(TaskTable *t, void (*fn)(Task *k, void *userdata), void *userdata) {
        for (size_t b = 0; b < t->n_buckets; b++)
                for (int32_t i = t->buckets[b]; i >= 0; i = slot(t, i)->next)
                        fn(slot(t, i), userdata);
}
