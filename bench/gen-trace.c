/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gen-trace: writes a synthetic scheduler trace in the text `perf script --ns` prints for the sched
 * tracepoints (the layout daemon/events/trace-parse.c parses), for measuring `schedfreqd replay` against the number of
 * CPUs (bench/bench-scale.sh).
 *
 *   gen-trace --cpus N --events M [--tasks-per-cpu K] [--gap-us G] [--seed S]
 *
 * Every CPU is equally busy, whatever N: each one records an event every G µs on average (default 50, i.e.
 * 20,000 events/s per CPU, a CPU under a switch-heavy load), so the trace spans M x G / N µs and holds, per CPU
 * and per tick, the same work at any N. What a CPU does is a small scheduler simulation: it holds a current
 * task (or idles as swapper/N), a run queue and a pool of sleeping tasks (K each to begin with), and at each
 * step, on a CPU picked at random, one of:
 *   - idle: the next queued task, else a sleeper woken there, runs            sched_wakeup, sched_switch
 *   - a sleeper is woken onto the CPU, by the running task (half of the time  sched_wakeup [+ sched_switch R+]
 *     it preempts it), one time in 8 pulled from the next CPU first           sched_migrate_task
 *   - the running task blocks: the next queued task or idle runs              sched_switch S
 *   - the running task is preempted by a queued one (the tick)                sched_switch R+
 *   - the running task forks: the child is queued                             sched_process_fork, sched_wakeup_new
 *   - the running task exits (as often as tasks are forked)                   sched_process_exit, sched_switch X
 * Migrations go from each CPU to the one before it, at the same rate everywhere: the pools stay balanced.
 * One task in 64 is real-time (prio 49), the rest CFS (prio 120). Timestamps increase strictly, in ns.
 * sched_process_fork is not an event replay models (it skips it, as it does in real traces): a line, not an
 * event. Counts (lines, events the replay models, and per type) go to stderr at the end, "events=M" among them.
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CPUS 1024
#define FIRST_PID 1000

typedef struct TaskList {
        int32_t *pids;
        size_t n, size;
} TaskList;

typedef struct Cpu {
        int32_t curr;                 /* 0: idle */
        TaskList rq;                  /* runnable, not running */
        TaskList sleepers;
} Cpu;

typedef struct Gen {
        unsigned n_cpus;
        Cpu *cpus;
        uint64_t rng;
        uint64_t time_ns;
        uint64_t step_ns;             /* between two events of the whole trace */
        int32_t next_pid;
        uint64_t events, lines, forks, exits;
        uint64_t by_type[6];
} Gen;

enum { T_SWITCH, T_WAKEUP, T_WAKEUP_NEW, T_MIGRATE, T_EXIT, T_FORK };

static uint64_t rnd(Gen *g) {
        /* xorshift64*: fast, and plenty for choosing among a few branches. */
        g->rng ^= g->rng >> 12;
        g->rng ^= g->rng << 25;
        g->rng ^= g->rng >> 27;
        return g->rng * UINT64_C(2685821657736338717);
}

static unsigned rnd_below(Gen *g, unsigned n) {
        return (unsigned) ((rnd(g) >> 32) % n);
}

static void list_push(TaskList *l, int32_t pid) {
        if (l->n == l->size) {
                l->size = l->size ? l->size * 2 : 8;
                l->pids = realloc(l->pids, l->size * sizeof(int32_t));
                if (!l->pids) {
                        fprintf(stderr, "gen-trace: out of memory\n");
                        exit(1);
                }
        }
        l->pids[l->n++] = pid;
}

/* Removes and returns a random element (-1 if empty): order does not matter to anyone. */
static int32_t list_take(Gen *g, TaskList *l) {
        unsigned i;
        int32_t pid;

        if (l->n == 0)
                return -1;
        i = rnd_below(g, (unsigned) l->n);
        pid = l->pids[i];
        l->pids[i] = l->pids[--l->n];
        return pid;
}

static int32_t list_pop_front(TaskList *l) {
        int32_t pid;

        if (l->n == 0)
                return -1;
        pid = l->pids[0];
        memmove(l->pids, l->pids + 1, (l->n - 1) * sizeof(int32_t));
        l->n--;
        return pid;
}

static int prio_of(int32_t pid) {
        return pid > 0 && pid % 64 == 0 ? 49 : 120;
}

/* At most 15 characters (TASK_COMM_LEN): cpu < MAX_CPUS and pid < 10^8 fit in a 32-byte buffer and in 15. */
static void comm_of(int32_t pid, unsigned cpu, char buf[static 32]) {
        if (pid == 0)
                snprintf(buf, 32, "swapper/%u", cpu);
        else
                snprintf(buf, 32, "%s-%d", prio_of(pid) < 100 ? "rt" : "task", pid);
}

/* "<comm> <tid> [<cpu>] <sec>.<nsec>: sched:<event>: " with the CPU's current task as the context. */
static void header(Gen *g, unsigned cpu, const char *event) {
        char comm[32];

        g->time_ns += g->step_ns;
        comm_of(g->cpus[cpu].curr, cpu, comm);
        printf("%16s %6d [%03u] %" PRIu64 ".%09" PRIu64 ": sched:%s: ", comm, g->cpus[cpu].curr, cpu,
               g->time_ns / 1000000000, g->time_ns % 1000000000, event);
        g->lines++;
}

static void emit_switch(Gen *g, unsigned cpu, int32_t next, const char *prev_state) {
        Cpu *c = &g->cpus[cpu];
        char prev_comm[32], next_comm[32];

        comm_of(c->curr, cpu, prev_comm);
        comm_of(next, cpu, next_comm);
        header(g, cpu, "sched_switch");
        printf("prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s ==> next_comm=%s next_pid=%d next_prio=%d\n",
               prev_comm, c->curr, prio_of(c->curr), c->curr == 0 ? "R" : prev_state, next_comm, next,
               prio_of(next));
        c->curr = next;
        g->events++;
        g->by_type[T_SWITCH]++;
}

static void emit_wakeup(Gen *g, unsigned cpu, int32_t pid, bool is_new) {
        char comm[32];

        comm_of(pid, cpu, comm);
        header(g, cpu, is_new ? "sched_wakeup_new" : "sched_wakeup");
        printf("comm=%s pid=%d prio=%d target_cpu=%03u\n", comm, pid, prio_of(pid), cpu);
        g->events++;
        g->by_type[is_new ? T_WAKEUP_NEW : T_WAKEUP]++;
}

static void emit_migrate(Gen *g, unsigned cpu, int32_t pid, unsigned from) {
        char comm[32];

        comm_of(pid, cpu, comm);
        header(g, cpu, "sched_migrate_task");
        printf("comm=%s pid=%d prio=%d orig_cpu=%u dest_cpu=%u\n", comm, pid, prio_of(pid), from, cpu);
        g->events++;
        g->by_type[T_MIGRATE]++;
}

/* Wakes a sleeper onto @cpu (one time in 8 one of the next CPU's, moved here first) and queues it. */
static bool wake_one(Gen *g, unsigned cpu) {
        unsigned from = (cpu + 1) % g->n_cpus;
        int32_t pid = -1;

        if (from != cpu && rnd_below(g, 8) == 0) {
                pid = list_take(g, &g->cpus[from].sleepers);
                if (pid > 0)
                        emit_migrate(g, cpu, pid, from);
        }
        if (pid < 0)
                pid = list_take(g, &g->cpus[cpu].sleepers);
        if (pid < 0)
                return false;
        emit_wakeup(g, cpu, pid, false);
        list_push(&g->cpus[cpu].rq, pid);
        return true;
}

/* The running task leaves the CPU (@prev_state S, R+ or X): the next queued task runs, or idle. */
static void switch_out(Gen *g, unsigned cpu, const char *prev_state) {
        Cpu *c = &g->cpus[cpu];
        int32_t prev = c->curr, next = list_pop_front(&c->rq);

        emit_switch(g, cpu, next < 0 ? 0 : next, prev_state);
        if (prev == 0)
                return; /* idle is no task */
        if (prev_state[0] == 'S')
                list_push(&c->sleepers, prev);
        else if (prev_state[0] == 'R')
                list_push(&c->rq, prev);
}

static void step(Gen *g, unsigned cpu) {
        Cpu *c = &g->cpus[cpu];
        unsigned r = rnd_below(g, 100);

        if (c->curr == 0) {
                if (c->rq.n == 0 && !wake_one(g, cpu))
                        return;
                switch_out(g, cpu, "R");
                return;
        }
        if (r < 40) {
                if (wake_one(g, cpu) && r < 20)
                        switch_out(g, cpu, "R+");
        } else if (r < 88)
                switch_out(g, cpu, "S");
        else if (r < 98) {
                if (c->rq.n > 0)
                        switch_out(g, cpu, "R+");
                else
                        switch_out(g, cpu, "S");
        } else if (r < 99) {
                int32_t child = g->next_pid++;
                char comm[32], child_comm[32];

                comm_of(c->curr, cpu, comm);
                comm_of(child, cpu, child_comm);
                header(g, cpu, "sched_process_fork");
                printf("comm=%s pid=%d child_comm=%s child_pid=%d\n", comm, c->curr, child_comm, child);
                g->by_type[T_FORK]++;
                emit_wakeup(g, cpu, child, true);
                list_push(&c->rq, child);
                g->forks++;
        } else if (g->exits < g->forks) {
                char comm[32];

                comm_of(c->curr, cpu, comm);
                header(g, cpu, "sched_process_exit");
                printf("comm=%s pid=%d prio=%d\n", comm, c->curr, prio_of(c->curr));
                g->events++;
                g->by_type[T_EXIT]++;
                g->exits++;
                switch_out(g, cpu, "X");
        } else
                switch_out(g, cpu, "S");
}

static void usage(FILE *f) {
        fprintf(f, "usage: gen-trace --cpus N --events M [--tasks-per-cpu K] [--gap-us G] [--seed S]\n");
}

int main(int argc, char **argv) {
        static const struct option options[] = {
                { "cpus", required_argument, NULL, 'c' },
                { "events", required_argument, NULL, 'e' },
                { "tasks-per-cpu", required_argument, NULL, 'k' },
                { "gap-us", required_argument, NULL, 'g' },
                { "seed", required_argument, NULL, 's' },
                { "help", no_argument, NULL, 'h' },
                {}
        };
        unsigned long n_cpus = 0, per_cpu = 4;
        unsigned long long want = 0, seed = 1;
        double gap_us = 50;
        static char outbuf[1 << 20];
        Gen g = {};
        int c;

        while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0)
                switch (c) {
                case 'c':
                        n_cpus = strtoul(optarg, NULL, 10);
                        break;
                case 'e':
                        want = strtoull(optarg, NULL, 10);
                        break;
                case 'k':
                        per_cpu = strtoul(optarg, NULL, 10);
                        break;
                case 'g':
                        gap_us = strtod(optarg, NULL);
                        break;
                case 's':
                        seed = strtoull(optarg, NULL, 10);
                        break;
                case 'h':
                        usage(stdout);
                        return 0;
                default:
                        usage(stderr);
                        return 2;
                }
        if (n_cpus < 1 || n_cpus > MAX_CPUS || want == 0 || per_cpu < 1 || per_cpu > 100000 || !(gap_us > 0)) {
                usage(stderr);
                return 2;
        }

        setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
        g.n_cpus = (unsigned) n_cpus;
        g.cpus = calloc(n_cpus, sizeof(Cpu));
        if (!g.cpus)
                return 1;
        g.rng = seed * UINT64_C(0x9E3779B97F4A7C15) | 1;
        g.time_ns = UINT64_C(1000) * 1000000000; /* 1000 s after boot, as a real trace */
        g.step_ns = (uint64_t) (gap_us * 1000 / (double) n_cpus);
        if (g.step_ns == 0)
                g.step_ns = 1;
        g.next_pid = FIRST_PID;
        for (unsigned cpu = 0; cpu < n_cpus; cpu++)
                for (unsigned long i = 0; i < per_cpu; i++)
                        list_push(&g.cpus[cpu].sleepers, g.next_pid++);

        printf("# gen-trace --cpus %lu --events %llu --tasks-per-cpu %lu --gap-us %g --seed %llu\n", n_cpus, want,
               per_cpu, gap_us, seed);
        while (g.events < want)
                step(&g, rnd_below(&g, g.n_cpus));
        if (fflush(stdout) != 0 || ferror(stdout)) {
                fprintf(stderr, "gen-trace: write error: %m\n");
                return 1;
        }
        fprintf(stderr, "lines=%" PRIu64 " events=%" PRIu64 " switch=%" PRIu64 " wakeup=%" PRIu64 " wakeup_new=%" PRIu64
                " migrate=%" PRIu64 " exit=%" PRIu64 " fork=%" PRIu64 " span_ms=%.1f\n", g.lines, g.events,
                g.by_type[T_SWITCH], g.by_type[T_WAKEUP], g.by_type[T_WAKEUP_NEW], g.by_type[T_MIGRATE],
                g.by_type[T_EXIT], g.by_type[T_FORK], (double) (g.time_ns - UINT64_C(1000) * 1000000000) / 1e6);
        return 0;
}
