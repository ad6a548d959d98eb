/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * task-names.c: the bounded pid → (tgid, comm) table behind events.h.
 *
 * Layout: a pool of entries (handed out from a high-water mark, recycled through a free list), an
 * open-addressing hash index over it (linear probing, at most half full, deletion by backward shift so no
 * tombstones accumulate under fork/exit churn) and a doubly linked LRU list through the entries. Everything
 * is allocated once with calloc, so a 65536-entry table costs its pages only as pids get used.
 */

#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "events.h"
#include "log.h"
#include "proc-walk.h"

#define NIL UINT32_MAX

typedef struct Entry {
        pid_t pid, tgid;
        uint32_t prev, next;            /* LRU list, most recent at head; the free list uses next */
        uint32_t gen;                   /* the scan generation that last saw (or set) it */
        char comm[TASK_COMM_LEN];
} Entry;

struct TaskNames {
        char *proc_root;
        uint32_t capacity;
        Entry *entries;
        uint32_t n_used;                /* entries[0..n_used) have been handed out at least once */
        uint32_t free_head;
        uint32_t *slots;                /* 0: empty, else entry index + 1 */
        uint32_t slot_mask;
        unsigned slot_bits;
        uint32_t head, tail;
        uint32_t gen;
        TaskNamesStats stats;
};

static uint32_t hash_pid(const TaskNames *t, pid_t pid) {
        /* Fibonacci hashing: sequential pids spread over the whole index. */
        return (uint32_t) ((uint32_t) pid * UINT32_C(2654435761)) >> (32 - t->slot_bits);
}

int task_names_new(const char *proc_root, size_t capacity, TaskNames **ret) {
        _cleanup_(task_names_freep) TaskNames *t = NULL;
        size_t n_slots = 2;
        unsigned bits = 1;

        if (!ret)
                return -EINVAL;
        if (capacity == 0)
                capacity = TASK_NAMES_DEFAULT_CAPACITY;
        if (capacity > TASK_NAMES_MAX_CAPACITY)
                return -EINVAL;
        while (n_slots < 2 * capacity) {
                n_slots <<= 1;
                bits++;
        }

        t = calloc(1, sizeof(*t));
        if (!t)
                return -ENOMEM;
        t->proc_root = strdup(proc_root ?: "/proc");
        t->entries = calloc(capacity, sizeof(Entry));
        t->slots = calloc(n_slots, sizeof(uint32_t));
        if (!t->proc_root || !t->entries || !t->slots)
                return -ENOMEM;
        t->capacity = (uint32_t) capacity;
        t->slot_mask = (uint32_t) n_slots - 1;
        t->slot_bits = bits;
        t->free_head = t->head = t->tail = NIL;
        t->stats.capacity = capacity;

        *ret = TAKE_PTR(t);
        return 0;
}

TaskNames *task_names_free(TaskNames *t) {
        if (!t)
                return NULL;
        free(t->proc_root);
        free(t->entries);
        free(t->slots);
        free(t);
        return NULL;
}

/* The slot holding @pid, or NIL. */
static uint32_t slot_find(const TaskNames *t, pid_t pid) {
        for (uint32_t i = hash_pid(t, pid);; i = (i + 1) & t->slot_mask) {
                uint32_t s = t->slots[i];

                if (s == 0)
                        return NIL;
                if (t->entries[s - 1].pid == pid)
                        return i;
        }
}

static void slot_insert(TaskNames *t, uint32_t idx) {
        uint32_t i = hash_pid(t, t->entries[idx].pid);

        while (t->slots[i] != 0)
                i = (i + 1) & t->slot_mask;
        t->slots[i] = idx + 1;
}

/* Backward-shift deletion (Knuth 6.4, algorithm R): keeps every probe chain unbroken without tombstones. */
static void slot_delete(TaskNames *t, uint32_t i) {
        uint32_t j = i;

        t->slots[i] = 0;
        for (;;) {
                uint32_t k;

                j = (j + 1) & t->slot_mask;
                if (t->slots[j] == 0)
                        return;
                k = hash_pid(t, t->entries[t->slots[j] - 1].pid);
                /* Leave slot j alone if its home k lies cyclically in (i, j]. */
                if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
                        continue;
                t->slots[i] = t->slots[j];
                t->slots[j] = 0;
                i = j;
        }
}

static void lru_unlink(TaskNames *t, uint32_t idx) {
        Entry *e = &t->entries[idx];

        if (e->prev != NIL)
                t->entries[e->prev].next = e->next;
        else
                t->head = e->next;
        if (e->next != NIL)
                t->entries[e->next].prev = e->prev;
        else
                t->tail = e->prev;
        e->prev = e->next = NIL;
}

static void lru_push_head(TaskNames *t, uint32_t idx) {
        Entry *e = &t->entries[idx];

        e->prev = NIL;
        e->next = t->head;
        if (t->head != NIL)
                t->entries[t->head].prev = idx;
        else
                t->tail = idx;
        t->head = idx;
}

static void lru_touch(TaskNames *t, uint32_t idx) {
        if (t->head == idx)
                return;
        lru_unlink(t, idx);
        lru_push_head(t, idx);
}

static void entry_remove(TaskNames *t, uint32_t slot) {
        uint32_t idx = t->slots[slot] - 1;

        slot_delete(t, slot);
        lru_unlink(t, idx);
        t->entries[idx].next = t->free_head;
        t->free_head = idx;
        t->stats.size--;
}

static uint32_t entry_alloc(TaskNames *t) {
        uint32_t idx;

        if (t->free_head != NIL) {
                idx = t->free_head;
                t->free_head = t->entries[idx].next;
                return idx;
        }
        if (t->n_used < t->capacity)
                return t->n_used++;

        /* Full: drop the least recently used entry. */
        entry_remove(t, slot_find(t, t->entries[t->tail].pid));
        t->stats.evicted++;
        idx = t->free_head;
        t->free_head = t->entries[idx].next;
        return idx;
}

static void comm_copy(char dst[TASK_COMM_LEN], const char *src) {
        size_t n = strnlen(src, TASK_COMM_LEN - 1);

        memcpy(dst, src, n);
        memset(dst + n, 0, TASK_COMM_LEN - n);
}

static void entry_set(TaskNames *t, pid_t pid, pid_t tgid, const char *comm) {
        char buf[TASK_COMM_LEN];
        uint32_t slot, idx;
        Entry *e;

        comm_copy(buf, comm);
        slot = slot_find(t, pid);
        if (slot != NIL) {
                idx = t->slots[slot] - 1;
                e = &t->entries[idx];
                if (e->tgid != tgid || memcmp(e->comm, buf, TASK_COMM_LEN) != 0)
                        t->stats.updated++;
                lru_touch(t, idx);
        } else {
                idx = entry_alloc(t);
                e = &t->entries[idx];
                e->pid = pid;
                slot_insert(t, idx);
                lru_push_head(t, idx);
                t->stats.added++;
                t->stats.size++;
        }
        e->tgid = tgid;
        e->gen = t->gen;
        memcpy(e->comm, buf, TASK_COMM_LEN);
}

static int comm_read_at(int dir_fd, const char *path, char ret[TASK_COMM_LEN]) {
        _cleanup_close_ int fd = -EBADF;
        char buf[64];
        ssize_t n;

        fd = openat(dir_fd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return negative_errno();
        n = read(fd, buf, sizeof(buf) - 1);
        if (n < 0)
                return negative_errno();
        /* A zombie reaped between open and read, or a fake tree's empty file. */
        if (n == 0)
                return -ENOENT;
        buf[n] = 0;
        buf[strcspn(buf, "\n")] = 0;
        comm_copy(ret, buf);
        return 0;
}

/* /proc/PID/comm works for any thread id too (the per-thread directories are hidden, not absent). */
static int comm_read_pid(TaskNames *t, pid_t pid, char ret[TASK_COMM_LEN]) {
        char path[PATH_MAX];
        int r;

        if ((size_t) snprintf(path, sizeof(path), "%s/%d/comm", t->proc_root, (int) pid) >= sizeof(path))
                return -ENAMETOOLONG;
        r = comm_read_at(AT_FDCWD, path, ret);
        if (r < 0)
                t->stats.comm_read_failures++;
        return r;
}

int task_names_read(TaskNames *t, pid_t pid, TaskName *ret) {
        if (!t || pid <= 0 || !ret)
                return -EINVAL;
        *ret = (TaskName) { .pid = pid };
        return comm_read_pid(t, pid, ret->comm);
}

int task_names_lookup(TaskNames *t, pid_t pid, TaskName *ret) {
        uint32_t slot, idx;
        const Entry *e;

        if (!t || pid <= 0)
                return -EINVAL;
        slot = slot_find(t, pid);
        if (slot == NIL)
                return -ENOENT;
        idx = t->slots[slot] - 1;
        lru_touch(t, idx);
        e = &t->entries[idx];
        if (ret) {
                *ret = (TaskName) { .pid = e->pid, .tgid = e->tgid };
                memcpy(ret->comm, e->comm, TASK_COMM_LEN);
        }
        return 0;
}

int task_names_set(TaskNames *t, pid_t pid, pid_t tgid, const char *comm) {
        if (!t || pid <= 0 || tgid <= 0 || !comm)
                return -EINVAL;
        entry_set(t, pid, tgid, comm);
        return 0;
}

int task_names_fork(TaskNames *t, pid_t parent_pid, pid_t pid, pid_t tgid) {
        char comm[TASK_COMM_LEN];
        pid_t from;
        uint32_t slot;
        int r;

        if (!t || pid <= 0 || tgid <= 0)
                return -EINVAL;

        /*
         * copy_process() duplicates the creator's task_struct, comm included. The event names the child's
         * real_parent, which for a new thread is the parent of the whole process (CLONE_THREAD keeps
         * current->real_parent), so a thread takes its leader's name and a process its parent's. A thread
         * created by a renamed non-leader thread gets the leader's name here: the best guess without a read.
         */
        from = pid != tgid ? tgid : parent_pid;
        slot = from > 0 && from != pid ? slot_find(t, from) : NIL;
        if (slot != NIL)
                comm_copy(comm, t->entries[t->slots[slot] - 1].comm);
        else {
                r = comm_read_pid(t, pid, comm);
                if (r < 0)
                        return -ENOENT;
        }
        entry_set(t, pid, tgid, comm);
        return 0;
}

int task_names_exec(TaskNames *t, pid_t pid, pid_t tgid) {
        char comm[TASK_COMM_LEN];
        int r;

        if (!t || pid <= 0 || tgid <= 0)
                return -EINVAL;
        r = comm_read_pid(t, pid, comm);
        if (r < 0) {
                (void) task_names_forget(t, pid);
                return -ENOENT;
        }
        entry_set(t, pid, tgid, comm);
        return 0;
}

bool task_names_forget(TaskNames *t, pid_t pid) {
        uint32_t slot;

        if (!t || pid <= 0)
                return false;
        slot = slot_find(t, pid);
        if (slot == NIL)
                return false;
        entry_remove(t, slot);
        t->stats.removed++;
        return true;
}

/* A thread's name, TID/comm under @dir_fd (TGID/task, or the root for a tree without task/). */
static int on_thread(int dir_fd, int32_t tgid, int32_t tid, void *userdata) {
        char path[32], comm[TASK_COMM_LEN];

        (void) snprintf(path, sizeof(path), "%d/comm", (int) tid);
        if (comm_read_at(dir_fd, path, comm) < 0)
                return 0;       /* exited meanwhile */
        entry_set(userdata, tid, tgid, comm);
        return 1;
}

static int on_process(int root_fd, int32_t tgid, void *userdata) {
        return proc_walk_threads(root_fd, tgid, on_thread, userdata);
}

int task_names_rescan(TaskNames *t) {
        uint32_t gen;
        int n;

        if (!t)
                return -EINVAL;
        gen = ++t->gen;
        n = proc_walk_processes(t->proc_root, on_process, t);
        if (n < 0)
                return n;

        /*
         * Every entry the scan saw was moved to the head of the LRU list, so what it did not see (exited
         * while events were lost) sits at the tail.
         */
        while (t->tail != NIL && t->entries[t->tail].gen != gen) {
                entry_remove(t, slot_find(t, t->entries[t->tail].pid));
                t->stats.scan_dropped++;
        }
        t->stats.scans++;
        t->stats.scan_tasks = (uint64_t) n;
        log_debug("task names: scanned %s, %d tasks, %" PRIu64 " entries", t->proc_root, n, t->stats.size);
        return n;
}

int task_names_foreach(TaskNames *t, int (*cb)(const TaskName *n, void *userdata), void *userdata) {
        if (!t || !cb)
                return -EINVAL;
        for (uint32_t i = t->head; i != NIL;) {
                const Entry *e = &t->entries[i];
                TaskName n = { .pid = e->pid, .tgid = e->tgid };
                int r;

                i = e->next;
                memcpy(n.comm, e->comm, TASK_COMM_LEN);
                r = cb(&n, userdata);
                if (r < 0)
                        return r;
        }
        return 0;
}

size_t task_names_size(const TaskNames *t) {
        return t ? (size_t) t->stats.size : 0;
}

const TaskNamesStats *task_names_stats(const TaskNames *t) {
        return t ? &t->stats : NULL;
}
