/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf-events.c's wake-up policy against the real kernel (root; no skip; at least 2 CPUs): lazy mode
 * (perf_events_set_quiet()), the busy detector, and the drain timer armed only in the watermark state.
 *
 * The children that are woken run on CPU 1 and are woken from CPU 1 (by this process or a peer pinned
 * there), so the wake-ups are recorded in task context on CPU 1, never in its idle context (lost to perf on
 * these VMs, see test-perf-events.c). Readability is checked with poll(2) on CPU 1's ring fd (perf_poll()
 * reports POLLIN once per ring wake-up). Other tasks of the machine wake up on CPU 1 too: a round in which
 * such a wake-up (or a detector sample) was recorded, or in which the ring's watermark may have been
 * crossed (watermark_possible()), proves nothing and is retried; the quiet set also lists the tasks seen
 * waking up during a warm-up, as the manager would. The children run SCHED_FIFO (child_start()): each poke
 * wakes a blocked child exactly once, whatever the CFS state of this process.
 */

#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>

#include "events.h"
#include "macro.h"
#include "test.h"
#include "time-util.h"

#define ROUND_POKES 20
#define ROUND_ATTEMPTS 40
#define ROUND_POLL_MS 100
#define RING_PAGES 256

enum { QUIET, LOUD, _WATCHED_MAX };

typedef enum TaskState { TASK_UNKNOWN, TASK_ASLEEP, TASK_WOKEN, TASK_RUNNING, TASK_PREEMPTED } TaskState;

typedef struct Child {
        pid_t pid;                        /* kept after it exits: its last events are drained after that */
        bool running;
        int cmd, ack, result;             /* the parent's ends */
} Child;

typedef struct Fixture {
        PerfEvents *p;
        sd_event *e;
        int fd1;                          /* CPU 1's ring */
        struct perf_event_mmap_page *page1; /* its control page, mapped again read-only here */
        size_t page1_size;
        pid_t self;
        Child child[_WATCHED_MAX];
        int32_t quiet[PERF_EVENTS_QUIET_MAX];
        size_t n_quiet;

        /* collected by the handler */
        unsigned wakeups[_WATCHED_MAX], wakeup_new[_WATCHED_MAX];
        TaskState state[_WATCHED_MAX];
        unsigned duplicated, lost, out_of_order;
        uint64_t drain_newest, last_drain; /* order is guaranteed within a drain (late events across drains) */
        unsigned noise;                   /* CPU 1 events that may wake the ring legitimately */
        uint64_t wake_samples;            /* CPU 1 samples of the events that may have wakeup_events=1 */
        uint64_t round_head;              /* CPU 1's data_head when settle() consumed the wake-up flag */
        unsigned runtime_samples;         /* SCHED_EVENT_RUNTIME of the quiet child */
        uint64_t runtime_max_ns, runtime_first_ns;
        bool learn;                       /* warm-up: add the wakees seen to the quiet set */
} Fixture;

static Config test_config(WakeupMode mode) {
        Config c = {
                .drain_interval_usec = 4000,
                .ring_pages = RING_PAGES,
                .wakeup = mode,
                .adaptive_high_per_sec = 20000,
        };
        return c;
}

static cpu_set_t all_cpus(void) {
        cpu_set_t s;

        CPU_ZERO(&s);
        for (int i = 0; i < (int) sysconf(_SC_NPROCESSORS_ONLN); i++)
                CPU_SET(i, &s);
        return s;
}

static int pin_to(int cpu) {
        cpu_set_t set;

        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        return sched_setaffinity(0, sizeof(set), &set) < 0 ? -errno : 0;
}

static void unpin(void) {
        cpu_set_t s = all_cpus();

        (void) sched_setaffinity(0, sizeof(s), &s);
}

static unsigned voluntary_switches(void) {
        _cleanup_fclose_ FILE *f = fopen("/proc/self/status", "re");
        char line[256];
        unsigned n = 0;

        while (f && fgets(line, sizeof(line), f))
                if (sscanf(line, "voluntary_ctxt_switches: %u", &n) == 1)
                        break;
        return n;
}

static void spin_ms(unsigned ms) {
        uint64_t end = monotonic_ns() + ms * UINT64_C(1000000);

        while (monotonic_ns() < end)
                ;
}

/*
 * A child on the caller's CPU, blocked on a command pipe: 'w' acks, 's' spins 20 ms then acks, 'q' reports
 * how many times it blocked since it started (its own count: the ground truth for its wake-ups) and exits.
 *
 * It runs SCHED_FIFO, so that a poke (a command, then its ack) wakes it exactly once, from a blocked state.
 * As a normal task it could be preempted by the poker on the same CPU, woken by its ack, before it blocked
 * again: the next command then found it runnable and woke nothing. That pattern is self-sustaining: seen
 * here for 100 pokes in a row (child: 0 voluntary, 100 involuntary switches; worse after the adaptive test
 * left this process with little CFS lag). A real-time task is never preempted by a normal one: after its ack
 * it runs until it blocks, and whoever wrote the command runs only then.
 */
static int child_start(Child *ret) {
        int cmd[2], ack[2], result[2];
        pid_t pid;

        if (pipe2(cmd, O_CLOEXEC) < 0 || pipe2(ack, O_CLOEXEC) < 0 || pipe2(result, O_CLOEXEC) < 0)
                return -errno;
        pid = fork();
        if (pid < 0)
                return -errno;
        if (pid == 0) {
                unsigned base = voluntary_switches(), n;
                char c;

                (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
                for (;;) {
                        if (read(cmd[0], &c, 1) != 1)
                                _exit(3);
                        if (c == 'q')
                                break;
                        if (c == 's')
                                spin_ms(20);
                        if (write(ack[1], &c, 1) != 1)
                                _exit(3);
                }
                n = voluntary_switches() - base;
                _exit(write(result[1], &n, sizeof(n)) == sizeof(n) ? 0 : 3);
        }
        close(cmd[0]), close(ack[1]), close(result[1]);
        *ret = (Child) { .pid = pid, .running = true, .cmd = cmd[1], .ack = ack[0], .result = result[0] };
        if (sched_setscheduler(pid, SCHED_FIFO, &(struct sched_param) { .sched_priority = 1 }) < 0)
                return -errno; /* (the caller's cleanup kills it) */
        return 0;
}

static int child_send(const Child *c, char cmd) {
        return write(c->cmd, &cmd, 1) == 1 ? 0 : -EIO;
}

static int child_wait_ack(const Child *c) {
        char x;

        return read(c->ack, &x, 1) == 1 ? 0 : -EIO;
}

static int child_poke(const Child *c, char cmd) {
        return child_send(c, cmd) ?: child_wait_ack(c);
}

/* Ends the child; *ret_blocked: how many times it blocked. */
static int child_stop(Child *c, unsigned *ret_blocked) {
        int status, r = 0;

        if (!c->running)
                return -ESRCH;
        if (child_send(c, 'q') < 0 || read(c->result, ret_blocked, sizeof(*ret_blocked)) != sizeof(*ret_blocked))
                r = -EIO;
        if (waitpid(c->pid, &status, 0) != c->pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
                r = r ?: -ECHILD;
        close(c->cmd), close(c->ack), close(c->result);
        c->running = false;
        return r;
}

static void child_kill(Child *c) {
        if (!c->running)
                return;
        (void) kill(c->pid, SIGKILL);
        (void) waitpid(c->pid, NULL, 0);
        close(c->cmd), close(c->ack), close(c->result);
        c->running = false;
}

static int watched(const Fixture *f, pid_t pid) {
        for (int i = 0; i < _WATCHED_MAX; i++)
                if (f->child[i].pid > 0 && f->child[i].pid == pid)
                        return i;
        return -1;
}

static bool is_quiet(const Fixture *f, pid_t pid) {
        for (size_t i = 0; i < f->n_quiet; i++)
                if (f->quiet[i] == pid)
                        return true;
        return false;
}

static void quiet_add(Fixture *f, pid_t pid) {
        if (pid > 0 && pid != f->self && !is_quiet(f, pid) && f->n_quiet < PERF_EVENTS_QUIET_MAX)
                f->quiet[f->n_quiet++] = pid;
}

/*
 * A watched child's life as the events tell it. Two wake-ups with no switch-in between are one wake-up
 * recorded twice (try_to_wake_up() traces nothing once the task is TASK_RUNNING); a switch-in of a task
 * asleep since its last switch-out means its wake-up was lost. (A wake-up of a task that is running or
 * preempted is real: it set TASK_INTERRUPTIBLE and was woken before it called schedule().)
 */
static void track(Fixture *f, const SchedEvent *ev) {
        int w;

        switch (ev->type) {
        case SCHED_EVENT_WAKEUP:
        case SCHED_EVENT_WAKEUP_NEW:
                w = watched(f, ev->wakeup.pid);
                if (w < 0)
                        return;
                if (ev->type == SCHED_EVENT_WAKEUP_NEW) {
                        f->wakeup_new[w]++;
                        f->state[w] = TASK_WOKEN;
                        return;
                }
                f->wakeups[w]++;
                f->duplicated += f->state[w] == TASK_WOKEN;
                f->state[w] = TASK_WOKEN;
                return;
        case SCHED_EVENT_SWITCH:
                w = watched(f, ev->sw.prev_pid);
                if (w >= 0)
                        f->state[w] = ev->sw.prev_runnable ? TASK_PREEMPTED : TASK_ASLEEP;
                w = watched(f, ev->sw.next_pid);
                if (w >= 0) {
                        f->lost += f->state[w] == TASK_ASLEEP;
                        f->state[w] = TASK_RUNNING;
                }
                return;
        default:
                return;
        }
}

static int on_event(const SchedEvent *ev, void *userdata) {
        Fixture *f = userdata;

        uint64_t drain = perf_events_stats(f->p)->drains;

        if (drain != f->last_drain)
                f->drain_newest = 0;
        f->last_drain = drain;
        f->out_of_order += ev->time_ns < f->drain_newest;
        f->drain_newest = MAX(f->drain_newest, ev->time_ns);
        track(f, ev);
        if (ev->type == SCHED_EVENT_RUNTIME && watched(f, ev->runtime.pid) == QUIET) {
                f->runtime_samples++;
                if (f->runtime_first_ns == 0)
                        f->runtime_first_ns = ev->time_ns;
                f->runtime_max_ns = MAX(f->runtime_max_ns, ev->runtime.runtime_ns);
        }
        if (f->learn && (ev->type == SCHED_EVENT_WAKEUP || ev->type == SCHED_EVENT_WAKEUP_NEW) &&
            watched(f, ev->wakeup.pid) < 0)
                quiet_add(f, ev->wakeup.pid);
        if (ev->cpu == 1 && (ev->type == SCHED_EVENT_WAKEUP || ev->type == SCHED_EVENT_WAKEUP_NEW ||
                             ev->type == SCHED_EVENT_RUNTIME))
                f->wake_samples++;
        if (ev->cpu == 1 && ev->type == SCHED_EVENT_RUNTIME)
                f->noise++;
        if (ev->cpu == 1 && (ev->type == SCHED_EVENT_WAKEUP || ev->type == SCHED_EVENT_WAKEUP_NEW) &&
            !is_quiet(f, ev->wakeup.pid))
                f->noise++;
        return 0;
}

/* 1 if the ring fd reports POLLIN within @timeout_ms, 0 if not. Consumes the ring's wake-up flag. */
static int ring_poll(int fd, int timeout_ms) {
        struct pollfd pfd = { .fd = fd, .events = POLLIN };
        int r = poll(&pfd, 1, timeout_ms);

        if (r < 0)
                return -errno;
        return (pfd.revents & POLLIN) != 0;
}

static uint64_t ring_head(const Fixture *f) {
        return __atomic_load_n(&f->page1->data_head, __ATOMIC_ACQUIRE);
}

/*
 * Whether the ring's watermark (a quarter of it, W: perf-events.c) may have woken the reader while its head
 * went from @h0 to @h1 (everything up to @h1 delivered since). The kernel wakes the reader when a record
 * ends more than W past rb->wakeup, then adds W to rb->wakeup (__perf_output_begin()); but rb->wakeup also
 * counts one per sample of a wakeup_events=1 event (perf_output_sample()), so the j-th wake-up is not at
 * j W: it is at the end of the first record past j W + n, n the number of such samples before it. Only
 * wake-ups and detector samples can be such samples, and every one of them that was written is delivered
 * (counted in wake_samples), or dropped as a duplicate or malformed: n is at most their sum. So wake-up j is
 * somewhere in (j W, j W + n_max + a record]; a round whose (h0, h1] meets none of those intervals saw no
 * watermark wake-up. (Checking only whether h1 / W changed missed the wake-ups that come after the quarter:
 * seen as "readable" in the next round, with nothing to explain it.)
 */
#define RECORD_MAX 1024
static bool watermark_possible(const Fixture *f, uint64_t h0, uint64_t h1) {
        const PerfEventsStats *s = perf_events_stats(f->p);
        uint64_t w = f->page1->data_size / 4, n_max = f->wake_samples + s->duplicates + s->malformed, j;

        if (h1 <= w)
                return false;
        j = (h1 - 1) / w; /* the last j with j W < h1: its interval ends last */
        return j * w + n_max + RECORD_MAX > h0;
}

/* Everything recorded so far delivered, and the ring's wake-up flag consumed (round_head: the head then). */
static int settle(Fixture *f) {
        int r = perf_events_drain(f->p);

        f->round_head = ring_head(f);
        (void) ring_poll(f->fd1, 0);
        return r;
}

static void fixture_done(Fixture *f) {
        for (int i = 0; i < _WATCHED_MAX; i++)
                child_kill(&f->child[i]);
        if (f->page1)
                (void) munmap(f->page1, f->page1_size);
        f->p = perf_events_free(f->p);
        f->e = sd_event_unref(f->e);
        unpin();
}

/*
 * Opens the events (immediate) and starts the two children on CPU 1 (this process runs there too), then
 * learns for @learn_ms which other tasks wake up: they join the quiet set next to the quiet child.
 */
static int fixture_start(Fixture *f, WakeupMode mode, unsigned learn_ms) {
        cpu_set_t cpus = all_cpus();
        Config cfg = test_config(mode);
        uint64_t end;
        int r;

        *f = (Fixture) { .self = getpid() };
        if (CPU_COUNT(&cpus) < 2)
                return -EOPNOTSUPP;
        r = sd_event_new(&f->e);
        if (r < 0)
                return r;
        r = perf_events_new(f->e, &cpus, &cfg, on_event, f, &f->p);
        if (r < 0)
                return r;
        f->fd1 = perf_events_ring_fd(f->p, 1);
        if (f->fd1 < 0)
                return f->fd1;
        f->page1_size = (size_t) (RING_PAGES + 1) * (size_t) sysconf(_SC_PAGESIZE);
        f->page1 = mmap(NULL, f->page1_size, PROT_READ, MAP_SHARED, f->fd1, 0);
        if (f->page1 == MAP_FAILED) {
                f->page1 = NULL;
                return -errno;
        }
        r = pin_to(1); /* the children inherit it: no migration at their start */
        for (int i = 0; i < _WATCHED_MAX && r >= 0; i++)
                r = child_start(&f->child[i]);
        if (r < 0)
                return r;
        quiet_add(f, f->child[QUIET].pid);
        f->learn = true;
        for (end = monotonic_ns() + learn_ms * UINT64_C(1000000); monotonic_ns() < end;) {
                (void) ring_poll(f->fd1, 10);
                r = perf_events_drain(f->p);
                if (r < 0)
                        return r;
        }
        f->learn = false;
        return 0;
}

/*
 * Wakes the quiet child once and checks right after its ack whether CPU 1's ring is readable. No timeout is
 * needed: perf sets the ring's POLLIN flag when it writes a sample that wakes (perf_output_wakeup(), in the
 * waker's context on CPU 1), before the write(2) that woke the child returns. Returns 1 (readable), 0 (not),
 * or -EAGAIN when something else that wakes the ring (another task's wake-up on CPU 1, a detector sample,
 * a watermark crossing) may have happened meanwhile: that poke proves nothing. -EIO if the poke woke no one.
 */
static int quiet_poke(Fixture *f) {
        uint64_t head;
        unsigned before;
        int readable, r;

        r = settle(f);
        if (r < 0)
                return r;
        f->noise = 0;
        before = f->wakeups[QUIET];
        r = child_poke(&f->child[QUIET], 'w');
        if (r < 0)
                return r;
        readable = ring_poll(f->fd1, 0);
        head = ring_head(f);
        r = perf_events_drain(f->p);
        if (r < 0 || readable < 0)
                return r < 0 ? r : readable;
        if (f->wakeups[QUIET] == before)
                return -EIO; /* cannot be: the child is blocked when poked (child_start()) */
        if (f->noise > 0 || watermark_possible(f, f->round_head, head))
                return -EAGAIN;
        return readable;
}

/* Pokes until @want clean pokes (at most 100 times as many in all); counts those that made it readable. */
static int quiet_pokes(Fixture *f, unsigned want, unsigned *ret_clean, unsigned *ret_readable) {
        *ret_clean = *ret_readable = 0;
        for (unsigned i = 0; i < want * 100 && *ret_clean < want; i++) {
                int r = quiet_poke(f);

                if (r == -EAGAIN)
                        continue;
                if (r < 0)
                        return r;
                (*ret_clean)++;
                *ret_readable += r;
        }
        return 0;
}

/*
 * The same over a bounded time: ROUND_POKES wake-ups, then ROUND_POLL_MS of poll(2). Returns 1, 0, or
 * -EAGAIN (noise, as above: frequent on a loaded machine, rare on a quiet one). Best effort.
 */
static int quiet_round(Fixture *f, unsigned *ret_wakeups) {
        uint64_t head;
        unsigned before;
        int readable, r;

        r = settle(f);
        if (r < 0)
                return r;
        f->noise = 0;
        before = f->wakeups[QUIET];
        for (unsigned i = 0; i < ROUND_POKES; i++) {
                r = child_poke(&f->child[QUIET], 'w');
                if (r < 0)
                        return r;
        }
        readable = ring_poll(f->fd1, ROUND_POLL_MS);
        head = ring_head(f);
        r = perf_events_drain(f->p);
        if (r < 0 || readable < 0)
                return r < 0 ? r : readable;
        *ret_wakeups = f->wakeups[QUIET] - before;
        return f->noise > 0 || watermark_possible(f, f->round_head, head) ? -EAGAIN : readable;
}

/* Retries quiet_round() until a round without noise: its result. */
static int quiet_clean_round(Fixture *f, unsigned *ret_wakeups, unsigned *ret_attempts) {
        int r = -EAGAIN;

        for (*ret_attempts = 1; *ret_attempts <= ROUND_ATTEMPTS; (*ret_attempts)++) {
                r = quiet_round(f, ret_wakeups);
                if (r != -EAGAIN)
                        return r;
        }
        return r;
}

/*
 * Wakes child @w once and returns whether CPU 1's ring was readable right after (see quiet_poke()), or -EIO
 * if no wake-up of it was delivered (the child is blocked when poked: every poke wakes it).
 */
static int poke_readable(Fixture *f, int w) {
        unsigned before = f->wakeups[w];
        int r, readable;

        r = settle(f);
        if (r < 0)
                return r;
        r = child_poke(&f->child[w], 'w');
        if (r < 0)
                return r;
        readable = ring_poll(f->fd1, 0);
        r = perf_events_drain(f->p);
        if (r < 0 || readable < 0)
                return r < 0 ? r : readable;
        return f->wakeups[w] != before ? readable : -EIO;
}

/* Ends both children and checks each wake-up was delivered exactly once, in order. */
static void check_exactly_once(Fixture *f) {
        unsigned blocked[_WATCHED_MAX];

        for (int i = 0; i < _WATCHED_MAX; i++)
                ASSERT_OK(child_stop(&f->child[i], &blocked[i]));
        ASSERT_OK(perf_events_drain(f->p));
        fprintf(stderr, "# quiet child blocked %u times, %u wake-ups delivered; loud child %u, %u; "
                "%u lost, %u duplicated; duplicates dropped %" PRIu64 "\n", blocked[QUIET], f->wakeups[QUIET],
                blocked[LOUD], f->wakeups[LOUD], f->lost, f->duplicated, perf_events_stats(f->p)->duplicates);
        for (int i = 0; i < _WATCHED_MAX; i++) {
                ASSERT_TRUE(f->wakeups[i] >= blocked[i]); /* every block ends in a wake-up */
                ASSERT_EQ(f->wakeup_new[i], 1);
        }
        ASSERT_EQ(f->lost, 0);
        ASSERT_EQ(f->duplicated, 0);
        ASSERT_EQ(f->out_of_order, 0);
        ASSERT_U64_EQ(perf_events_stats(f->p)->lost, 0);
}

TEST(lazy_quiet_wakeups_wait_in_ring) {
        _cleanup_(fixture_done) Fixture f;
        unsigned clean = 0, readable = 0, n = 0, attempts = 0;
        int r;

        ASSERT_OK(fixture_start(&f, WAKEUP_MODE_IMMEDIATE, 300));
        fprintf(stderr, "# quiet set: the quiet child and %zu tasks seen waking\n", f.n_quiet - 1);

        /* Immediate: each wake-up of the child makes the ring readable. */
        ASSERT_OK(quiet_pokes(&f, 10, &clean, &readable));
        ASSERT_EQ(clean, 10);
        ASSERT_EQ(readable, 10);

        ASSERT_OK(perf_events_set_quiet(f.p, f.quiet, f.n_quiet));
        ASSERT_TRUE(perf_events_stats(f.p)->lazy);
        ASSERT_EQ(perf_events_stats(f.p)->quiet_pids, f.n_quiet);

        /* Lazy: the quiet child's wake-ups are recorded (quiet_poke() checks) but leave it unreadable. */
        ASSERT_OK(quiet_pokes(&f, ROUND_POKES, &clean, &readable));
        fprintf(stderr, "# lazy: %u of %u clean wake-ups of the quiet child made the ring readable\n", readable,
                clean);
        ASSERT_EQ(clean, ROUND_POKES);
        ASSERT_EQ(readable, 0);

        r = quiet_clean_round(&f, &n, &attempts);
        fprintf(stderr, "# lazy: %d (1: readable, 0: not, -11: only noisy rounds) within %d ms after %u wake-ups "
                "(attempt %u)\n", r, ROUND_POLL_MS, n, attempts);
        if (r != -EAGAIN) {
                ASSERT_EQ(r, 0);
                ASSERT_TRUE(n >= 1);
        }

        /* A wake-up of a task outside the set makes it readable at once. */
        ASSERT_EQ(poke_readable(&f, LOUD), 1);
        ASSERT_U64_EQ(perf_events_stats(f.p)->filter_errors, 0);
        check_exactly_once(&f);
}

TEST(leaving_lazy_restores_immediate) {
        _cleanup_(fixture_done) Fixture f;
        unsigned clean = 0, readable = 0;

        ASSERT_OK(fixture_start(&f, WAKEUP_MODE_IMMEDIATE, 300));
        ASSERT_OK(perf_events_set_quiet(f.p, f.quiet, f.n_quiet));
        ASSERT_OK(quiet_pokes(&f, 5, &clean, &readable));
        ASSERT_EQ(clean, 5);
        ASSERT_EQ(readable, 0);

        ASSERT_OK(perf_events_set_quiet(f.p, NULL, 0));
        ASSERT_TRUE(!perf_events_stats(f.p)->lazy);
        ASSERT_TRUE(perf_events_stats(f.p)->immediate);
        ASSERT_EQ(perf_events_stats(f.p)->quiet_pids, 0);
        ASSERT_U64_EQ(perf_events_stats(f.p)->lazy_switches, 2);
        for (unsigned i = 0; i < 10; i++)
                ASSERT_EQ(poke_readable(&f, QUIET), 1); /* no noise can hide a failure here */
        check_exactly_once(&f);
}

/*
 * A quiet task that starts to run: lazy mode must not hide it. The child spins 20 ms on CPU 1 while this
 * process waits on CPU 0: CPU 1's ring must become readable (the detector's wakeup_events=1) within a tick
 * or two of the child's first millisecond, and a SCHED_EVENT_RUNTIME of the child be delivered. In immediate
 * mode too: the detector is on in every state (the model's evidence that a task still runs).
 */
TEST(busy_detector_wakes_for_quiet_hog) {
        _cleanup_(fixture_done) Fixture f;
        uint64_t t0, worst_ms = 0;

        ASSERT_OK(fixture_start(&f, WAKEUP_MODE_IMMEDIATE, 0));
        ASSERT_OK(pin_to(0));

        /* Immediate: the hog's runtime is delivered as well, in >= 1 ms pieces (the detector's filter). */
        ASSERT_OK(child_poke(&f.child[QUIET], 's'));
        ASSERT_OK(perf_events_drain(f.p));
        ASSERT_TRUE(f.runtime_samples >= 1);
        ASSERT_TRUE(f.runtime_max_ns >= 1000000);

        ASSERT_OK(perf_events_set_quiet(f.p, f.quiet, f.n_quiet));
        ASSERT_TRUE(perf_events_stats(f.p)->lazy);
        for (unsigned i = 0; i < 3; i++) {
                int readable;

                ASSERT_OK(settle(&f));
                f.runtime_samples = 0;
                f.runtime_first_ns = 0;
                t0 = monotonic_ns();
                ASSERT_OK(child_send(&f.child[QUIET], 's'));
                readable = ring_poll(f.fd1, 1000);
                ASSERT_OK(child_wait_ack(&f.child[QUIET]));
                ASSERT_OK(perf_events_drain(f.p));
                /* The detector's sample is the proof it fired; it has wakeup_events=1: the ring woke. */
                ASSERT_EQ(readable, 1);
                ASSERT_TRUE(f.runtime_samples >= 1);
                ASSERT_TRUE(f.runtime_first_ns > t0);
                worst_ms = MAX(worst_ms, (f.runtime_first_ns - t0) / 1000000);
        }
        fprintf(stderr, "# hog: first detector sample at most %" PRIu64 " ms after its start; max runtime %" PRIu64
                " µs\n", worst_ms, f.runtime_max_ns / 1000);
        ASSERT_TRUE(worst_ms <= 15); /* 1 ms of running, then the next tick (4 ms at HZ=250) */
        ASSERT_TRUE(f.runtime_max_ns >= 1000000);

        /* Left lazy: the detector stays on (it is on in every state), so the hog is still seen. */
        ASSERT_OK(perf_events_set_quiet(f.p, NULL, 0));
        ASSERT_OK(settle(&f));
        f.runtime_samples = 0;
        ASSERT_OK(child_poke(&f.child[QUIET], 's'));
        ASSERT_OK(perf_events_drain(f.p));
        ASSERT_TRUE(f.runtime_samples >= 1);
}

/*
 * State switches while a child is woken 1000 times by a peer (both on CPU 1): lazy with the child quiet,
 * lazy with the child not quiet, immediate, watermark (through reconfigure), over and over as fast as
 * possible. Every wake-up must be delivered exactly once: a switch that loses one, or one recorded by both
 * generations of fds and not dropped, breaks the count.
 */
static pid_t fork_waker(int data_fd, int ack_fd, unsigned n) {
        pid_t pid = fork();
        char c = 'w';

        if (pid != 0)
                return pid;
        (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
        for (unsigned i = 0; i < n; i++) {
                (void) nanosleep(&(struct timespec) { .tv_nsec = 50000 }, NULL);
                if (write(data_fd, &c, 1) != 1 || read(ack_fd, &c, 1) != 1)
                        _exit(3);
        }
        _exit(0);
}

TEST(switches_lose_and_duplicate_nothing) {
        _cleanup_(fixture_done) Fixture f;
        Config cfg = test_config(WAKEUP_MODE_IMMEDIATE);
        unsigned switches = 0, blocked = 0;
        int32_t other;
        pid_t waker;
        int status;

        ASSERT_OK(fixture_start(&f, WAKEUP_MODE_IMMEDIATE, 0));
        /* The quiet child is woken by a peer on CPU 1 through its command pipe (it acks every 'w'). */
        waker = fork_waker(f.child[QUIET].cmd, f.child[QUIET].ack, 1000);
        ASSERT_TRUE(waker > 0);
        ASSERT_OK(pin_to(0));
        other = f.child[LOUD].pid;

        while (waitpid(waker, &status, WNOHANG) == 0) {
                int32_t set[2] = { f.child[QUIET].pid, other };

                switch (switches++ % 5) {
                case 0:
                        ASSERT_OK(perf_events_set_quiet(f.p, set, 2));         /* lazy, child quiet */
                        break;
                case 1:
                        ASSERT_OK(perf_events_set_quiet(f.p, &other, 1));      /* lazy, child not quiet */
                        break;
                case 2:
                        ASSERT_OK(perf_events_set_quiet(f.p, NULL, 0));        /* immediate */
                        break;
                case 3:
                        cfg.wakeup = WAKEUP_MODE_WATERMARK;
                        ASSERT_OK(perf_events_reconfigure(f.p, &cfg));
                        ASSERT_OK(perf_events_set_quiet(f.p, set, 1));         /* remembered only */
                        break;
                case 4:
                        cfg.wakeup = WAKEUP_MODE_IMMEDIATE;                    /* lazy again, child quiet */
                        ASSERT_OK(perf_events_reconfigure(f.p, &cfg));
                        ASSERT_TRUE(perf_events_stats(f.p)->lazy);
                        break;
                }
                ASSERT_OK(perf_events_drain(f.p));
        }
        ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        fprintf(stderr, "# %u switches during the wake-ups\n", switches);
        ASSERT_TRUE(switches >= 20);
        ASSERT_OK(child_stop(&f.child[QUIET], &blocked));
        ASSERT_OK(perf_events_drain(f.p));
        fprintf(stderr, "# child blocked %u times, %u wake-ups delivered, %u lost, %u duplicated; %" PRIu64
                " duplicates dropped, %" PRIu64 " lazy switches\n", blocked, f.wakeups[QUIET], f.lost, f.duplicated,
                perf_events_stats(f.p)->duplicates, perf_events_stats(f.p)->lazy_switches);
        ASSERT_TRUE(blocked >= 900);
        ASSERT_TRUE(f.wakeups[QUIET] >= blocked);
        ASSERT_EQ(f.lost, 0);
        ASSERT_EQ(f.duplicated, 0);
        ASSERT_U64_EQ(perf_events_stats(f.p)->lost, 0);
        ASSERT_U64_EQ(perf_events_stats(f.p)->filter_errors, 0);
}

static int enabled_state(PerfEvents *p) {
        int enabled = -1;

        if (sd_event_source_get_enabled(perf_events_drain_timer(p), &enabled) < 0)
                return -1;
        return enabled;
}

/* Runs the loop for @ms; returns the drains that no ring wake-up triggered (the timer's). */
static uint64_t timer_drains(sd_event *e, PerfEvents *p, unsigned ms) {
        uint64_t drains = perf_events_stats(p)->drains, wakeups = perf_events_stats(p)->wakeups;
        uint64_t end = monotonic_ns() + ms * UINT64_C(1000000);

        while (monotonic_ns() < end)
                (void) sd_event_run(e, 10000);
        return (perf_events_stats(p)->drains - drains) - (perf_events_stats(p)->wakeups - wakeups);
}

static int count_event(const SchedEvent *ev, void *userdata) {
        (*(uint64_t *) userdata)++;
        return 0;
}

/*
 * The timer source exists in every mode but is enabled in the watermark state only; and, measured through
 * the loop, no drain happens in immediate mode but those a ring wake-up triggered.
 */
TEST(drain_timer_only_in_watermark) {
        _cleanup_(perf_events_freep) PerfEvents *p = NULL;
        _cleanup_(sd_event_unrefp) sd_event *e = NULL;
        cpu_set_t cpus = all_cpus();
        Config cfg = test_config(WAKEUP_MODE_IMMEDIATE);
        int32_t pid1 = 1;
        uint64_t n = 0, t;

        ASSERT_OK(sd_event_new(&e));
        ASSERT_OK(perf_events_new(e, &cpus, &cfg, count_event, &n, &p));
        ASSERT_TRUE(perf_events_drain_timer(p) != NULL);
        ASSERT_EQ(enabled_state(p), SD_EVENT_OFF);
        t = timer_drains(e, p, 300);
        fprintf(stderr, "# immediate: %" PRIu64 " drains without a ring wake-up in 300 ms\n", t);
        ASSERT_U64_EQ(t, 0);

        ASSERT_OK(perf_events_set_quiet(p, &pid1, 1));
        ASSERT_TRUE(perf_events_stats(p)->lazy);
        ASSERT_EQ(enabled_state(p), SD_EVENT_OFF);
        t = timer_drains(e, p, 300);
        fprintf(stderr, "# lazy: %" PRIu64 " drains without a ring wake-up in 300 ms\n", t);
        ASSERT_U64_EQ(t, 0);

        cfg.wakeup = WAKEUP_MODE_WATERMARK;
        ASSERT_OK(perf_events_reconfigure(p, &cfg));
        ASSERT_TRUE(!perf_events_stats(p)->immediate);
        ASSERT_TRUE(!perf_events_stats(p)->lazy);
        ASSERT_EQ(perf_events_stats(p)->quiet_pids, 1); /* remembered */
        ASSERT_EQ(enabled_state(p), SD_EVENT_ON);
        t = timer_drains(e, p, 300);
        fprintf(stderr, "# watermark: %" PRIu64 " timer drains in 300 ms (interval 4 ms)\n", t);
        ASSERT_TRUE(t >= 30);

        cfg.wakeup = WAKEUP_MODE_ADAPTIVE; /* starts immediate: lazy again, the timer off */
        cfg.adaptive_high_per_sec = 100000000; /* whatever else runs on this machine */
        ASSERT_OK(perf_events_reconfigure(p, &cfg));
        ASSERT_TRUE(perf_events_stats(p)->lazy);
        ASSERT_EQ(enabled_state(p), SD_EVENT_OFF);
        ASSERT_U64_EQ(timer_drains(e, p, 100), 0);

        /* A watermark-mode start arms it at once. */
        p = perf_events_free(p);
        cfg.wakeup = WAKEUP_MODE_WATERMARK;
        ASSERT_OK(perf_events_new(e, &cpus, &cfg, count_event, &n, &p));
        ASSERT_EQ(enabled_state(p), SD_EVENT_ON);
}

/* Two processes taking turns on CPU 1 with sched_yield(): far above the adaptive threshold. */
static void fork_yielders(pid_t ret[2]) {
        for (unsigned i = 0; i < 2; i++) {
                ret[i] = fork();
                if (ret[i] != 0)
                        continue;
                (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
                if (pin_to(1) < 0)
                        _exit(2);
                for (;;)
                        (void) sched_yield();
        }
}

static bool await_immediate(sd_event *e, PerfEvents *p, bool immediate) {
        uint64_t deadline = monotonic_ns() + 10 * UINT64_C(1000000000);

        while (perf_events_stats(p)->immediate != immediate)
                if (monotonic_ns() > deadline || sd_event_run(e, 10000) < 0)
                        return false;
        return true;
}

/*
 * Adaptive while lazy: under load the state goes to watermark (the timer armed, the quiet set kept but not
 * applied); back to immediate, the quiet set is applied again. The rate is measured at the drains the ring
 * wake-ups trigger (no timer in immediate mode).
 */
TEST(adaptive_keeps_the_quiet_set) {
        _cleanup_(sd_event_unrefp) sd_event *e = NULL;
        _cleanup_(perf_events_freep) PerfEvents *p = NULL;
        struct sched_param fifo = { .sched_priority = 1 }, other = { .sched_priority = 0 };
        cpu_set_t cpus = all_cpus();
        Config cfg = test_config(WAKEUP_MODE_ADAPTIVE);
        int32_t pid1 = 1;
        uint64_t n = 0;
        bool high, low, lazy_high;
        unsigned quiet_high;
        int timer_high, fifo_r;
        pid_t load[2];

        cfg.adaptive_high_per_sec = 40000;
        ASSERT_OK(sd_event_new(&e));
        ASSERT_OK(perf_events_new(e, &cpus, &cfg, count_event, &n, &p));
        ASSERT_OK(perf_events_set_quiet(p, &pid1, 1));
        ASSERT_TRUE(perf_events_stats(p)->lazy);

        fork_yielders(load);
        fifo_r = sched_setscheduler(0, SCHED_FIFO, &fifo);
        high = await_immediate(e, p, false);
        lazy_high = perf_events_stats(p)->lazy;
        quiet_high = perf_events_stats(p)->quiet_pids;
        timer_high = enabled_state(p);
        fprintf(stderr, "# under load: %" PRIu64 " events/s, immediate=%d lazy=%d\n",
                perf_events_stats(p)->rate_per_sec, perf_events_stats(p)->immediate, lazy_high);
        for (unsigned i = 0; i < 2; i++) {
                (void) kill(load[i], SIGKILL);
                (void) waitpid(load[i], NULL, 0);
        }
        (void) sched_setscheduler(0, SCHED_OTHER, &other);
        ASSERT_OK(fifo_r);
        ASSERT_TRUE(high);
        ASSERT_TRUE(!lazy_high);
        ASSERT_EQ(quiet_high, 1);
        ASSERT_EQ(timer_high, SD_EVENT_ON);

        low = await_immediate(e, p, true);
        fprintf(stderr, "# idle again: %" PRIu64 " events/s, immediate=%d lazy=%d\n",
                perf_events_stats(p)->rate_per_sec, perf_events_stats(p)->immediate, perf_events_stats(p)->lazy);
        ASSERT_TRUE(low);
        ASSERT_TRUE(perf_events_stats(p)->lazy);
        ASSERT_EQ(enabled_state(p), SD_EVENT_OFF);
        ASSERT_EQ(perf_events_stats(p)->mode_switches, 2);
        ASSERT_U64_EQ(perf_events_stats(p)->lazy_switches, 3); /* in, out (watermark), in again */
        ASSERT_U64_EQ(perf_events_stats(p)->lost, 0);
}

/*
 * A filter the kernel refuses (the test hook names a field sched_wakeup lacks; checked: EINVAL): lazy mode
 * is not entered, or is left, the error is counted, and the wake-ups are in normal immediate mode: a
 * wake-up of the would-be quiet child still makes the ring readable at once, and nothing is lost.
 */
TEST(refused_filter_falls_back_to_immediate) {
        _cleanup_(fixture_done) Fixture f;
        int32_t set[1];

        ASSERT_OK(fixture_start(&f, WAKEUP_MODE_IMMEDIATE, 0));
        set[0] = f.child[QUIET].pid;

        perf_events_test_break_filters(f.p, true);
        ASSERT_ERROR(perf_events_set_quiet(f.p, set, 1), EINVAL);
        ASSERT_U64_EQ(perf_events_stats(f.p)->filter_errors, 1);
        ASSERT_TRUE(!perf_events_stats(f.p)->lazy);
        ASSERT_TRUE(perf_events_stats(f.p)->immediate);
        ASSERT_EQ(perf_events_stats(f.p)->quiet_pids, 0);
        ASSERT_EQ(poke_readable(&f, QUIET), 1);

        /* From lazy mode: a new set that fails leaves lazy mode. */
        perf_events_test_break_filters(f.p, false);
        ASSERT_OK(perf_events_set_quiet(f.p, set, 1));
        ASSERT_TRUE(perf_events_stats(f.p)->lazy);
        perf_events_test_break_filters(f.p, true);
        set[0] = f.child[LOUD].pid;
        ASSERT_ERROR(perf_events_set_quiet(f.p, set, 1), EINVAL);
        ASSERT_U64_EQ(perf_events_stats(f.p)->filter_errors, 2);
        ASSERT_TRUE(!perf_events_stats(f.p)->lazy);
        ASSERT_TRUE(perf_events_stats(f.p)->immediate);
        ASSERT_EQ(poke_readable(&f, QUIET), 1);
        check_exactly_once(&f);
}

TEST(set_quiet_arguments) {
        _cleanup_(perf_events_freep) PerfEvents *p = NULL;
        _cleanup_(sd_event_unrefp) sd_event *e = NULL;
        cpu_set_t cpus = all_cpus();
        Config cfg = test_config(WAKEUP_MODE_IMMEDIATE);
        int32_t many[PERF_EVENTS_QUIET_MAX + 10], bad = 0, self = getpid();
        uint64_t n = 0, switches;

        for (unsigned i = 0; i < ELEMENTSOF(many); i++)
                many[i] = 4000000 - (int32_t) i; /* no such tasks: valid filters all the same */
        ASSERT_OK(sd_event_new(&e));
        ASSERT_OK(perf_events_new(e, &cpus, &cfg, count_event, &n, &p));
        ASSERT_ERROR(perf_events_set_quiet(p, &bad, 1), EINVAL);
        ASSERT_ERROR(perf_events_set_quiet(p, NULL, 1), EINVAL);
        ASSERT_OK(perf_events_set_quiet(p, many, ELEMENTSOF(many)));
        ASSERT_EQ(perf_events_stats(p)->quiet_pids, PERF_EVENTS_QUIET_MAX);
        ASSERT_TRUE(perf_events_stats(p)->lazy);
        switches = perf_events_stats(p)->lazy_switches;
        ASSERT_OK(perf_events_set_quiet(p, many, PERF_EVENTS_QUIET_MAX)); /* the same set: nothing to do */
        ASSERT_U64_EQ(perf_events_stats(p)->lazy_switches, switches);
        ASSERT_OK(perf_events_set_quiet(p, &self, 1)); /* only ourselves: no set */
        ASSERT_TRUE(!perf_events_stats(p)->lazy);
        ASSERT_U64_EQ(perf_events_stats(p)->filter_errors, 0);
}

DEFINE_TEST_MAIN
