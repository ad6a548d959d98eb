/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The daemon proper: owns the sd-event loop and every object (config, topology, engine, perf rings,
 * actuator), wires events → engine → actuator, handles signals (SIGTERM/SIGINT: restore and exit;
 * SIGHUP: reload; SIGPIPE: ignored), the tick timer, and the service manager protocol (sd_notify).
 *
 * The struct is visible to the modules that serve it (manager-*.c; manager-bus.c, its D-Bus face, reads its
 * state and calls the verbs below); nothing else should touch it. The manager knows nothing of its face:
 * main.c puts the face on after manager_start() and takes it off after manager_run(), see there.
 */

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#include "config.h"
#include "governed.h"
#include "governor.h"
#include "latency.h"
#include "macro.h"
#include "manager-hotplug.h"
#include "manager-watch.h"
#include "model.h"
#include "topology.h"

#define STATE_DEFAULT_PATH "/run/schedfreqd/state"
#define DECISION_LOG_SIZE 2048 /* ~180 KiB; a busy machine makes ~100s of changes per second */

typedef struct ManagerOptions {
        const char *config_path;      /* default CONFIG_DEFAULT_PATH */
        bool config_must_exist;       /* named with -c: a missing file is an error (the default path may be absent) */
        const char *state_path;       /* default STATE_DEFAULT_PATH */
        const char *lock_path;        /* the instance lock (main.c: by default actuator_lock_path() of the state file) */
        bool print_decisions;         /* one line per frequency change on stdout (replay format) */
        const char *bus_address;      /* NULL: the system bus */
        bool no_bus;                  /* run without D-Bus */
        bool observe;                 /* --observe: decide, write nothing, compare with the kernel (governor.h) */
        bool log_level_set;           /* --log-level, -q or -v given: log_level wins over the config's, reloads too */
        int events_source;            /* --events=: an EventSourceType that wins over [events] source; -1: none */
        int log_level;                /* LOG_ERR..LOG_DEBUG */
} ManagerOptions;

typedef struct ProcConn ProcConn;
typedef struct TaskNames TaskNames;
typedef struct Observer Observer;

typedef struct Manager {
        ManagerOptions opts;
        sd_event *event;
        Config config;                 /* tick_ms = auto resolved (manager_tick_resolve()) */
        KernelHz kernel_hz;            /* the running kernel's CONFIG_HZ, read once at start-up: tick_ms = auto */
        Governed gov;                  /* the policies, engine, actuator and source: what the satellites see */
        Observer *observer;            /* observe mode only */
        bool observer_print_failed;    /* its stdout failed: said once */
        ProcConn *proc;                /* NULL where the proc connector is unavailable or unused */
        bool proc_unused;              /* not subscribed: nothing needs it (manager_start_proc_conn()) */
        TaskNames *task_names;         /* pid → comm, fed by the proc connector */
        Hotplug hotplug;               /* CPU hotplug (manager-hotplug.c) */
        sd_event_source *tick_source;  /* armed on the tick grid only while some CPU is busy */
        sd_event_source *post_source;  /* after each wake-up: tick, the source's bookkeeping, limits */
        PolicyWatch watch;             /* the governed policies' files, read at wake-ups (manager-watch.c) */
        sd_event_source *sigterm_source, *sigint_source, *sighup_source;
        LatencyStats latency;          /* event time → setspeed written */
        DecisionLog decisions;
        uint64_t commits;
        uint64_t start_usec;           /* CLOCK_MONOTONIC, when manager_start() was done: for Uptime */
        int lock_fd;                   /* the instance lock (actuator_lock_take()), held for the daemon's life */
        pid_t self_pid;                /* our own task: never counted as RT (see on_sched_event) */
        cpu_set_t lost_warned;         /* CPUs whose lost events were logged at warning level */
} Manager;

/*
 * The daemon's life, in steps (main.c runs them): each returns 0 or a negative errno, already logged.
 *
 * manager_new(): ignores SIGPIPE, checks the privileges, takes the instance lock, loads the config and the
 * topology. Nothing on the machine changes yet.
 * manager_start(): the event loop and its sources, the engine, the scheduler tracepoints, the proc connector
 * and hotplug; then, last, the take-over of the policies (in observe mode the observer instead).
 * manager_run(): READY=1, the loop until SIGTERM/SIGINT, the statistics and the restore. Returns what the
 * daemon exits with: 0, or the loop's or the restore's error.
 * manager_free(): closes everything (after manager_run(), nothing is left to restore).
 */
int manager_new(const ManagerOptions *opts, Manager **ret);
int manager_start(Manager *m);
int manager_run(Manager *m);
Manager *manager_free(Manager *m);
DEFINE_TRIVIAL_CLEANUP_FUNC(Manager *, manager_free);

/*
 * Re-reads the config file. On errors keeps the running config and returns -EINVAL with a malloc'd message
 * ("FILE:LINE: reason" lines) in @ret_error.
 */
int manager_reload(Manager *m, char **ret_error);
/* "perf" or "bpf": the event source in use. */
const char *manager_source_name(const Manager *m);
/* Hands every policy back to its original governor / takes them over again. */
int manager_pause(Manager *m, char **ret_error);
int manager_resume(Manager *m, char **ret_error);
