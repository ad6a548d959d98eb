/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The D-Bus face's insides, shared by manager-bus.c (objects, properties, PropertiesChanged, set-up) and
 * manager-bus-methods.c (the methods its vtables name). Not for anyone else: see daemon/service/manager-bus.h.
 */

#include <stdint.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "latency.h"
#include "manager.h"
#include "topology.h"

typedef struct DaemonValues {
        const char *version;
        uint64_t uptime_usec;
        uint64_t events, events_lost, events_late, ring_overflows;
        const char *proc_connector;
        const char *event_source;          /* "perf" or "bpf" */
        uint64_t local, remote, deferred;
        uint64_t writes;
        uint64_t latency_count, latency_p50_usec, latency_p99_usec, latency_max_usec;
        uint64_t latency_sum_usec;         /* for a histogram's _sum (schedfreqctl metrics) */
        uint64_t latency_buckets[LATENCY_BUCKETS];
        int paused;
} DaemonValues;

typedef struct PolicyValues {
        uint32_t id;
        const PolicyDesc *desc;            /* for CPUs */
        const char *driver;
        const char *taken_over_from;       /* "" when the policy is not managed */
        uint32_t current_khz, min_khz, max_khz;
        uint32_t cpuinfo_min_khz, cpuinfo_max_khz;
        uint32_t demand;
        int managed, remote_permitted;
        uint64_t local, remote, deferred;
        uint64_t last_change_usec;
        const char *last_reason;           /* "" before the first change */
        const char *state;                 /* actuator.h: governed, backing-off, offline, released */
        int32_t last_error;                /* errno of the last failed write, 0 = none */
        uint64_t write_errors;
} PolicyValues;

typedef struct CpuValues {
        uint32_t id;
        uint32_t policy;
        uint32_t util, util_avg, util_est_sum, runnable_rt;
        int busy;
} CpuValues;

struct ManagerBus {
        Manager *manager;
        sd_bus *bus;
        sd_event_source *changes_source;           /* one-shot: a trailing PropertiesChanged (on_post_changes()) */
        sd_event_source *post_source;              /* after every wake-up: did an announced property change? */
        uint64_t emitted_usec;                     /* CLOCK_MONOTONIC of the last announcement (0: none yet) */
        bool timer_fired;                          /* this loop iteration dispatched changes_source */
        /* What the finders hand to sd-bus (refreshed on every call), and what was last announced. */
        DaemonValues daemon_now, daemon_sent;
        PolicyValues *policy_now, *policy_sent;    /* per policy index */
        unsigned *cpus;                            /* the CPUs with an object, ascending */
        size_t n_cpus;
        CpuValues *cpu_now, *cpu_sent;             /* per index into cpus */
};

/* manager-bus-methods.c: the methods of the daemon object (userdata: the ManagerBus). */
int method_reload(sd_bus_message *message, void *userdata, sd_bus_error *error);
int method_pause(sd_bus_message *message, void *userdata, sd_bus_error *error);
int method_resume(sd_bus_message *message, void *userdata, sd_bus_error *error);
int method_get_decisions(sd_bus_message *message, void *userdata, sd_bus_error *error);
int method_get_rules(sd_bus_message *message, void *userdata, sd_bus_error *error);
