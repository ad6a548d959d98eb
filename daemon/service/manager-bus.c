/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * manager-bus.c: the manager's D-Bus face, the daemon's D-Bus API (include/schedfreqd-dbus.h, docs/dbus.md). It
 * owns the sd-bus connection, the object registrations and the PropertiesChanged timer; it reads the Manager
 * and the engine and calls the manager's verbs, and decides nothing itself. The manager does not know it.
 *
 * Every object is served by a fallback vtable with an object finder: the finder fills a "values" struct
 * from the engine at the moment of the call, and the vtable's properties point into it with offsetof (the
 * timesyncd-bus.c style). The same fill functions feed the PropertiesChanged timer, which compares them
 * with what it last announced, property by property: the vtables' EMITS_CHANGE entries are the list.
 */

#include <assert.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>
#include <time.h>

#include "config.h"
#include "event-source.h"
#include "events.h"
#include "governor.h"
#include "latency.h"
#include "log.h"
#include "manager-bus-internal.h"
#include "manager-bus.h"
#include "manager.h"
#include "schedfreqd-dbus.h"
#include "time-util.h"
#include "version.h" /* generated: $(BUILD)/include/version.h */


/* --- values ------------------------------------------------------------------------------------------ */

static void daemon_values(const ManagerBus *b, DaemonValues *v) {
        const Manager *m = b->manager;
        const EngineStats *es = engine_stats(m->gov.engine);
        EventSourceStats ss = {};

        if (m->gov.source)
                event_source_stats(m->gov.source, &ss);
        *v = (DaemonValues) {
                .version = VERSION_STRING,
                .uptime_usec = m->start_usec > 0 ? monotonic_usec() - m->start_usec : 0,
                .events = m->gov.source && event_source_decides(m->gov.source) ? ss.events : es->events,
                .events_lost = ss.lost,
                .ring_overflows = es->resyncs,
                .events_late = es->late_events,
                /* The proc connector is optional (it does not work in a new pid namespace). */
                .proc_connector = m->proc ? "active" : m->proc_unused ? "unused" : "unavailable",
                .event_source = manager_source_name(m),
                .local = es->decisions[DECISION_LOCAL],
                .remote = es->decisions[DECISION_REMOTE],
                .deferred = es->deferred,
                .writes = m->commits,
                .latency_count = m->latency.count,
                .latency_p50_usec = latency_quantile_usec(&m->latency, 500),
                .latency_p99_usec = latency_quantile_usec(&m->latency, 990),
                .latency_max_usec = m->latency.max_ns / 1000,
                .latency_sum_usec = m->latency.sum_ns / 1000,
                .paused = m->gov.paused,
        };
        memcpy(v->latency_buckets, m->latency.buckets, sizeof(v->latency_buckets));
}

/* A CPU's signals: the source's where it decides (bpf: the kernel's own), else the engine's model. */
static int manager_cpu_state(const Manager *m, unsigned cpu, CpuState *ret) {
        int r = m->gov.source ? event_source_cpu_state(m->gov.source, cpu, ret) : -EOPNOTSUPP;

        if (r == -EOPNOTSUPP)
                return engine_cpu_state(m->gov.engine, cpu, ret);
        return r;
}

/* A policy's demand: the engine's, or with a source that decides the max over its CPUs' effective utilisation
 * (sugov_next_freq_shared()). */
static unsigned manager_policy_util(const Manager *m, size_t i) {
        const PolicyDesc *p = &m->gov.topology->policies[i];
        unsigned util = 0;
        CpuState cs;

        if (!m->gov.source || !event_source_decides(m->gov.source))
                return engine_policy_util(m->gov.engine, (unsigned) i);
        for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
                if (CPU_ISSET(cpu, &p->cpus) && event_source_cpu_state(m->gov.source, (unsigned) cpu, &cs) >= 0)
                        util = MAX(util, cs.effective);
        return util;
}

/* A status read (a Get or GetAll of a policy): its CPUs' state as of now, not of the last decision. */
static void manager_refresh_cpus(const Manager *m, const cpu_set_t *cpus) {
        if (!m->gov.source)
                return;
        for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
                if (CPU_ISSET(cpu, cpus))
                        (void) event_source_refresh_cpu(m->gov.source, (unsigned) cpu);
}

static void policy_values(const ManagerBus *b, size_t i, PolicyValues *v) {
        const Manager *m = b->manager;
        const PolicyDesc *p = &m->gov.topology->policies[i];
        PolicyStats ps = {};

        (void) engine_policy_stats(m->gov.engine, (unsigned) i, &ps);
        *v = (PolicyValues) {
                .id = p->id,
                .desc = p,
                .driver = p->driver,
                .taken_over_from = m->gov.managed[i] ? p->governor : "",
                .current_khz = engine_policy_khz(m->gov.engine, (unsigned) i),
                .min_khz = ps.min_khz,
                .max_khz = ps.max_khz,
                .cpuinfo_min_khz = p->cpuinfo_min_khz,
                .cpuinfo_max_khz = p->cpuinfo_max_khz,
                .demand = manager_policy_util(m, i),
                .managed = m->gov.managed[i],
                .remote_permitted = ps.remote_permitted,
                .local = ps.decisions[DECISION_LOCAL],
                .remote = ps.decisions[DECISION_REMOTE],
                .deferred = ps.deferred,
                .last_change_usec = ps.last_change_ns / 1000,
                .last_reason = ps.last_change_ns > 0 ? decision_reason_to_string(ps.last_reason) : "",
        };
        if (!v->last_reason)
                v->last_reason = "";
        v->state = m->gov.managed[i] ? policy_health_state_to_string(m->gov.health[i].state) : "unmanaged";
        v->last_error = -m->gov.health[i].error;
        v->write_errors = m->gov.health[i].write_errors;
}

static void cpu_values(const ManagerBus *b, size_t i, CpuValues *v) {
        const Manager *m = b->manager;
        const PolicyDesc *p = topology_policy_of_cpu(m->gov.topology, b->cpus[i]);
        CpuState cs = {};

        (void) manager_cpu_state(m, b->cpus[i], &cs);
        *v = (CpuValues) {
                .id = b->cpus[i],
                .policy = p ? p->id : 0,
                .util = cs.util,
                .util_avg = cs.util_avg,
                .util_est_sum = cs.util_est_sum,
                .runnable_rt = cs.nr_rt_runnable,
                .busy = cs.busy,
        };
}

/* --- object paths --------------------------------------------------------------------------------------- */

/* "PREFIX/N" with N a plain decimal number (no sign, no leading zero) → N. */
static int path_number(const char *path, const char *prefix, unsigned *ret) {
        size_t l = strlen(prefix);
        const char *s;
        unsigned long n = 0;

        if (strncmp(path, prefix, l) != 0 || path[l] != '/')
                return 0;
        s = path + l + 1;
        if (s[0] < '0' || s[0] > '9' || (s[0] == '0' && s[1] != '\0'))
                return 0;
        for (; *s; s++) {
                if (*s < '0' || *s > '9' || n > CPU_SETSIZE)
                        return 0;
                n = n * 10 + (unsigned long) (*s - '0');
        }
        if (n >= CPU_SETSIZE)
                return 0;
        *ret = (unsigned) n;
        return 1;
}

static int policy_index_of(const ManagerBus *b, unsigned id, size_t *ret) {
        const Topology *t = b->manager->gov.topology;
        const PolicyDesc *p = topology_policy_by_id(t, id);

        if (!p)
                return 0;
        *ret = (size_t) (p - t->policies);
        return 1;
}

static int cpu_index_of(const ManagerBus *b, unsigned cpu, size_t *ret) {
        for (size_t i = 0; i < b->n_cpus; i++)
                if (b->cpus[i] == cpu) {
                        *ret = i;
                        return 1;
                }
        return 0;
}

static int daemon_find(sd_bus *bus, const char *path, const char *interface, void *userdata, void **ret_found,
                       sd_bus_error *error) {
        ManagerBus *b = ASSERT_PTR(userdata);

        if (!streq(path, SCHEDFREQD_BUS_PATH))
                return 0;
        /* The ManagerBus itself, so that the methods get it; the properties point into b->daemon_now (DV()). */
        daemon_values(b, &b->daemon_now);
        *ret_found = b;
        return 1;
}

static int policy_find(sd_bus *bus, const char *path, const char *interface, void *userdata, void **ret_found,
                       sd_bus_error *error) {
        ManagerBus *b = ASSERT_PTR(userdata);
        unsigned id;
        size_t i;

        if (path_number(path, SCHEDFREQD_BUS_POLICY_PREFIX, &id) <= 0 || policy_index_of(b, id, &i) <= 0)
                return 0;
        manager_refresh_cpus(b->manager, &b->manager->gov.topology->policies[i].cpus);
        policy_values(b, i, &b->policy_now[i]);
        *ret_found = &b->policy_now[i];
        return 1;
}

static int cpu_find(sd_bus *bus, const char *path, const char *interface, void *userdata, void **ret_found,
                    sd_bus_error *error) {
        ManagerBus *b = ASSERT_PTR(userdata);
        unsigned cpu;
        size_t i;

        if (path_number(path, SCHEDFREQD_BUS_CPU_PREFIX, &cpu) <= 0 || cpu_index_of(b, cpu, &i) <= 0)
                return 0;
        if (b->manager->gov.source)
                (void) event_source_refresh_cpu(b->manager->gov.source, cpu);
        cpu_values(b, i, &b->cpu_now[i]);
        *ret_found = &b->cpu_now[i];
        return 1;
}

static void strv_free(char **l) {
        if (!l)
                return;
        for (char **s = l; *s; s++)
                free(*s);
        free(l);
}

static void strv_freep(char ***l) {
        strv_free(*l);
}

/* Every object: the daemon, its policies and CPUs (for introspection and the ObjectManager). */
static int enumerate_nodes(sd_bus *bus, const char *prefix, void *userdata, char ***ret_nodes, sd_bus_error *error) {
        _cleanup_(strv_freep) char **l = NULL;
        ManagerBus *b = ASSERT_PTR(userdata);
        size_t n = 0, n_policies = b->manager->gov.topology->n_policies;

        l = calloc(1 + n_policies + b->n_cpus + 1, sizeof(char *));
        if (!l)
                return -ENOMEM;
        l[n] = strdup(SCHEDFREQD_BUS_PATH);
        if (!l[n++])
                return -ENOMEM;
        for (size_t i = 0; i < n_policies; i++)
                if (asprintf(&l[n++], SCHEDFREQD_BUS_POLICY_PREFIX "/%u", b->manager->gov.topology->policies[i].id) < 0) {
                        l[--n] = NULL;
                        return -ENOMEM;
                }
        for (size_t i = 0; i < b->n_cpus; i++)
                if (asprintf(&l[n++], SCHEDFREQD_BUS_CPU_PREFIX "/%u", b->cpus[i]) < 0) {
                        l[--n] = NULL;
                        return -ENOMEM;
                }
        *ret_nodes = TAKE_PTR(l);
        return 1;
}

/* --- properties with a custom getter ----------------------------------------------------------------------- */

static int property_get_latency_histogram(sd_bus *bus, const char *path, const char *interface,
                                          const char *property, sd_bus_message *reply, void *userdata,
                                          sd_bus_error *error) {
        const uint64_t *buckets = ASSERT_PTR(userdata);

        return sd_bus_message_append_array(reply, 't', buckets, sizeof(uint64_t) * LATENCY_BUCKETS);
}

static int property_get_cpus(sd_bus *bus, const char *path, const char *interface, const char *property,
                             sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        const PolicyDesc *p = *(const PolicyDesc **) ASSERT_PTR(userdata);
        int r;

        r = sd_bus_message_open_container(reply, 'a', "u");
        if (r < 0)
                return r;
        for (unsigned cpu = 0; cpu < CPU_SETSIZE; cpu++) {
                if (!CPU_ISSET(cpu, &p->cpus))
                        continue;
                uint32_t u = cpu;
                r = sd_bus_message_append_basic(reply, 'u', &u);
                if (r < 0)
                        return r;
        }
        return sd_bus_message_close_container(reply);
}

/* --- vtables ------------------------------------------------------------------------------------------- */

#define EMITS SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE
#define DV(field) (offsetof(ManagerBus, daemon_now) + offsetof(DaemonValues, field))
#define CONST SD_BUS_VTABLE_PROPERTY_CONST

static const sd_bus_vtable daemon_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("Version", "s", NULL, DV(version), CONST),
        /* Changes all the time: never signalled, read it when needed. */
        SD_BUS_PROPERTY("UptimeUSec", "t", NULL, DV(uptime_usec), 0),
        SD_BUS_PROPERTY("EventsSeen", "t", NULL, DV(events), EMITS),
        SD_BUS_PROPERTY("EventsLost", "t", NULL, DV(events_lost), EMITS),
        SD_BUS_PROPERTY("RingOverflows", "t", NULL, DV(ring_overflows), EMITS),
        SD_BUS_PROPERTY("EventsLate", "t", NULL, DV(events_late), EMITS),
        SD_BUS_PROPERTY("ProcConnector", "s", NULL, DV(proc_connector), EMITS),
        /* Chosen at start-up ([events] source, --events): "perf" or "bpf". */
        SD_BUS_PROPERTY("EventSource", "s", NULL, DV(event_source), CONST),
        SD_BUS_PROPERTY("LocalDecisions", "t", NULL, DV(local), EMITS),
        SD_BUS_PROPERTY("RemoteDecisions", "t", NULL, DV(remote), EMITS),
        SD_BUS_PROPERTY("DeferredDecisions", "t", NULL, DV(deferred), EMITS),
        SD_BUS_PROPERTY("FrequencyWrites", "t", NULL, DV(writes), EMITS),
        SD_BUS_PROPERTY("ReactionLatencyCount", "t", NULL, DV(latency_count), EMITS),
        SD_BUS_PROPERTY("ReactionLatencyP50USec", "t", NULL, DV(latency_p50_usec), EMITS),
        SD_BUS_PROPERTY("ReactionLatencyP99USec", "t", NULL, DV(latency_p99_usec), EMITS),
        SD_BUS_PROPERTY("ReactionLatencyMaxUSec", "t", NULL, DV(latency_max_usec), EMITS),
        SD_BUS_PROPERTY("ReactionLatencyHistogram", "at", property_get_latency_histogram,
                        DV(latency_buckets), EMITS),
        SD_BUS_PROPERTY("ReactionLatencySumUSec", "t", NULL, DV(latency_sum_usec), EMITS),
        SD_BUS_PROPERTY("Paused", "b", NULL, DV(paused), EMITS),
        /* Control: root only, checked in bus_check_root() (see there for why UNPRIVILEGED). */
        SD_BUS_METHOD("Reload", "", "", method_reload, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("Pause", "", "", method_pause, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("Resume", "", "", method_resume, SD_BUS_VTABLE_UNPRIVILEGED),
        /* Read-only. */
        SD_BUS_METHOD_WITH_NAMES("GetDecisions", "u", SD_BUS_PARAM(max), SCHEDFREQD_DECISIONS_SIGNATURE,
                                 SD_BUS_PARAM(decisions), method_get_decisions, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("GetRules", "", SD_BUS_PARAM(), SCHEDFREQD_RULES_SIGNATURE, SD_BUS_PARAM(rules),
                                 method_get_rules, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END,
};

static const sd_bus_vtable policy_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("Id", "u", NULL, offsetof(PolicyValues, id), CONST),
        SD_BUS_PROPERTY("CPUs", "au", property_get_cpus, offsetof(PolicyValues, desc), CONST),
        SD_BUS_PROPERTY("Driver", "s", NULL, offsetof(PolicyValues, driver), CONST),
        SD_BUS_PROPERTY("Managed", "b", NULL, offsetof(PolicyValues, managed), CONST),
        SD_BUS_PROPERTY("GovernorTakenOverFrom", "s", NULL, offsetof(PolicyValues, taken_over_from), CONST),
        SD_BUS_PROPERTY("CpuinfoMinKHz", "u", NULL, offsetof(PolicyValues, cpuinfo_min_khz), CONST),
        SD_BUS_PROPERTY("CpuinfoMaxKHz", "u", NULL, offsetof(PolicyValues, cpuinfo_max_khz), CONST),
        SD_BUS_PROPERTY("CurrentKHz", "u", NULL, offsetof(PolicyValues, current_khz), EMITS),
        SD_BUS_PROPERTY("MinKHz", "u", NULL, offsetof(PolicyValues, min_khz), EMITS),
        SD_BUS_PROPERTY("MaxKHz", "u", NULL, offsetof(PolicyValues, max_khz), EMITS),
        SD_BUS_PROPERTY("Demand", "u", NULL, offsetof(PolicyValues, demand), EMITS),
        SD_BUS_PROPERTY("RemotePermitted", "b", NULL, offsetof(PolicyValues, remote_permitted), EMITS),
        SD_BUS_PROPERTY("LocalDecisions", "t", NULL, offsetof(PolicyValues, local), EMITS),
        SD_BUS_PROPERTY("RemoteDecisions", "t", NULL, offsetof(PolicyValues, remote), EMITS),
        SD_BUS_PROPERTY("DeferredDecisions", "t", NULL, offsetof(PolicyValues, deferred), EMITS),
        SD_BUS_PROPERTY("LastChangeUSec", "t", NULL, offsetof(PolicyValues, last_change_usec), EMITS),
        SD_BUS_PROPERTY("LastReason", "s", NULL, offsetof(PolicyValues, last_reason), EMITS),
        SD_BUS_PROPERTY("State", "s", NULL, offsetof(PolicyValues, state), EMITS),
        SD_BUS_PROPERTY("LastWriteErrno", "i", NULL, offsetof(PolicyValues, last_error), EMITS),
        SD_BUS_PROPERTY("WriteErrors", "t", NULL, offsetof(PolicyValues, write_errors), EMITS),
        SD_BUS_VTABLE_END,
};

static const sd_bus_vtable cpu_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("Id", "u", NULL, offsetof(CpuValues, id), CONST),
        SD_BUS_PROPERTY("Policy", "u", NULL, offsetof(CpuValues, policy), CONST),
        SD_BUS_PROPERTY("Util", "u", NULL, offsetof(CpuValues, util), EMITS),
        SD_BUS_PROPERTY("UtilAvg", "u", NULL, offsetof(CpuValues, util_avg), EMITS),
        SD_BUS_PROPERTY("UtilEstSum", "u", NULL, offsetof(CpuValues, util_est_sum), EMITS),
        SD_BUS_PROPERTY("RunnableRT", "u", NULL, offsetof(CpuValues, runnable_rt), EMITS),
        SD_BUS_PROPERTY("Busy", "b", NULL, offsetof(CpuValues, busy), EMITS),
        SD_BUS_VTABLE_END,
};

/* --- PropertiesChanged at a bounded rate --------------------------------------------------------------- */

/*
 * What an object announces is what its vtable says: each property flagged EMITS_CHANGE whose value differs
 * between the values now and those last sent, found where the vtable's offset points (less @base: the daemon's
 * offsets, DV(), count from the ManagerBus). One signal per object, the names in the vtable's order.
 */
#define NAMES_MAX 24 /* EMITS_CHANGE properties of one vtable, at most (the daemon's has 16) */

/* The bytes a property of @signature takes in a values struct, as sd-bus reads them; 0 for a string. */
static size_t property_size(const char *signature) {
        if (streq(signature, "t"))
                return sizeof(uint64_t);
        if (streq(signature, "u"))
                return sizeof(uint32_t);
        if (streq(signature, "i"))
                return sizeof(int32_t);
        if (streq(signature, "b"))
                return sizeof(int);
        if (streq(signature, "at"))
                return sizeof(uint64_t[LATENCY_BUCKETS]); /* the one array: property_get_latency_histogram() */
        assert(streq(signature, "s"));
        return 0;
}

static bool property_changed(const sd_bus_vtable *v, size_t base, const void *now, const void *sent) {
        size_t offset = v->x.property.offset - base, size = property_size(v->x.property.signature);
        const uint8_t *a = (const uint8_t *) now + offset, *b = (const uint8_t *) sent + offset;

        if (size == 0)
                return !streq(*(const char *const *) a, *(const char *const *) b);
        return memcmp(a, b, size) != 0;
}

/* Whether an object's announced properties changed; with @emit, one PropertiesChanged naming them. */
static bool emit_changes(ManagerBus *b, bool emit, const char *path, const char *interface,
                         const sd_bus_vtable *vtable, size_t base, const void *now, const void *sent) {
        char *names[NAMES_MAX + 1];
        size_t n = 0;
        int r;

        for (const sd_bus_vtable *v = vtable; v->type != _SD_BUS_VTABLE_END; v++)
                if (v->type == _SD_BUS_VTABLE_PROPERTY && (v->flags & SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE) &&
                    property_changed(v, base, now, sent)) {
                        assert(n < NAMES_MAX);
                        names[n++] = (char *) v->x.property.member;
                        if (!emit)
                                return true;
                }
        if (n == 0)
                return false;
        names[n] = NULL;
        r = sd_bus_emit_properties_changed_strv(b->bus, path, interface, names);
        if (r < 0)
                log_debug_errno(r, "Failed to emit PropertiesChanged on %s, ignoring: %m", path);
        return true;
}

static bool emit_daemon_changes(ManagerBus *b, bool emit) {
        DaemonValues v;
        bool changed;

        daemon_values(b, &v);
        changed = emit_changes(b, emit, SCHEDFREQD_BUS_PATH, SCHEDFREQD_BUS_INTERFACE, daemon_vtable,
                               offsetof(ManagerBus, daemon_now), &v, &b->daemon_sent);
        if (emit)
                b->daemon_sent = v;
        return changed;
}

static bool emit_policy_changes(ManagerBus *b, bool emit, size_t i) {
        char path[sizeof(SCHEDFREQD_BUS_POLICY_PREFIX) + 16];
        PolicyValues v;
        bool changed;

        policy_values(b, i, &v);
        (void) snprintf(path, sizeof(path), SCHEDFREQD_BUS_POLICY_PREFIX "/%u", v.id);
        changed = emit_changes(b, emit, path, SCHEDFREQD_BUS_POLICY_INTERFACE, policy_vtable, 0, &v,
                               &b->policy_sent[i]);
        if (emit)
                b->policy_sent[i] = v;
        return changed;
}

static bool emit_cpu_changes(ManagerBus *b, bool emit, size_t i) {
        char path[sizeof(SCHEDFREQD_BUS_CPU_PREFIX) + 16];
        CpuValues v;
        bool changed;

        cpu_values(b, i, &v);
        (void) snprintf(path, sizeof(path), SCHEDFREQD_BUS_CPU_PREFIX "/%u", v.id);
        changed = emit_changes(b, emit, path, SCHEDFREQD_BUS_CPU_INTERFACE, cpu_vtable, 0, &v, &b->cpu_sent[i]);
        if (emit)
                b->cpu_sent[i] = v;
        return changed;
}

/* Every object's changes: announced (@emit), or only looked for (stops at the first). Whether there were any. */
static bool emit_all_changes(ManagerBus *b, bool emit) {
        bool changed = emit_daemon_changes(b, emit);

        for (size_t i = 0; i < b->manager->gov.topology->n_policies && (emit || !changed); i++)
                changed = emit_policy_changes(b, emit, i) || changed;
        for (size_t i = 0; i < b->n_cpus && (emit || !changed); i++)
                changed = emit_cpu_changes(b, emit, i) || changed;
        return changed;
}

/* The trailing announcement of a burst of changes, BUS_PROPERTIES_CHANGED_INTERVAL_USEC after the previous one. */
static int on_changes_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        ManagerBus *b = ASSERT_PTR(userdata);

        (void) emit_all_changes(b, true);
        b->emitted_usec = usec;
        b->timer_fired = true;
        return 0;
}

/*
 * After every wake-up of the loop (and only then: a quiet machine wakes nobody, so no timer runs while nothing
 * happens): when an announced property changed, announce it now if the last announcement is an interval old,
 * else once the interval is over (the one-shot timer; while it is armed, it will). The timer's own wake-up does
 * not look (sd-event dispatches one source per iteration, then the post sources): it announced everything there
 * was, and what changed since is what the kernel counts between the daemon's wake-ups on the bpf source (its
 * events and lost records, read live), which would re-arm it every interval on any machine that schedules
 * anything (a CI run: 9.8 wake-ups/s idle on the bus). They are announced at the next wake-up that has work.
 */
static int on_post_changes(sd_event_source *s, void *userdata) {
        ManagerBus *b = ASSERT_PTR(userdata);
        uint64_t now_usec = monotonic_usec(), due_usec = b->emitted_usec + BUS_PROPERTIES_CHANGED_INTERVAL_USEC;
        int enabled = SD_EVENT_OFF, r;

        if (b->timer_fired) {
                b->timer_fired = false;
                return 0;
        }
        (void) sd_event_source_get_enabled(b->changes_source, &enabled);
        if (enabled != SD_EVENT_OFF || !emit_all_changes(b, false))
                return 0;
        if (now_usec >= due_usec) {
                (void) emit_all_changes(b, true);
                b->emitted_usec = now_usec;
                return 0;
        }
        r = sd_event_source_set_time(b->changes_source, due_usec);
        if (r >= 0)
                r = sd_event_source_set_enabled(b->changes_source, SD_EVENT_ONESHOT);
        if (r < 0)
                log_debug_errno(r, "Failed to arm the PropertiesChanged timer, announcing at the next wake-up: %m");
        return 0;
}

static int on_disconnected(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        ManagerBus *b = ASSERT_PTR(userdata);

        log_warning("Lost the D-Bus connection, running without D-Bus from now on.");
        (void) sd_event_source_set_enabled(b->changes_source, SD_EVENT_OFF);
        (void) sd_event_source_set_enabled(b->post_source, SD_EVENT_OFF);
        return 0;
}

/* --- setup --------------------------------------------------------------------------------------------- */

ManagerBus *manager_bus_free(ManagerBus *b) {
        if (!b)
                return NULL;
        sd_event_source_disable_unref(b->changes_source);
        sd_event_source_disable_unref(b->post_source);
        if (b->bus) {
                (void) sd_bus_flush(b->bus);
                (void) sd_bus_detach_event(b->bus);
                sd_bus_close_unref(b->bus);
        }
        free(b->policy_now);
        free(b->policy_sent);
        free(b->cpus);
        free(b->cpu_now);
        free(b->cpu_sent);
        free(b);
        return NULL;
}

static int bus_connect(const Manager *m, sd_bus **ret) {
        _cleanup_(sd_bus_unrefp) sd_bus *bus = NULL;
        int r;

        if (!m->opts.bus_address)
                return sd_bus_open_system_with_description(ret, "schedfreqd");

        r = sd_bus_new(&bus);
        if (r < 0)
                return r;
        (void) sd_bus_set_description(bus, "schedfreqd");
        r = sd_bus_set_address(bus, m->opts.bus_address);
        if (r < 0)
                return r;
        r = sd_bus_set_bus_client(bus, true);
        if (r < 0)
                return r;
        r = sd_bus_start(bus);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(bus);
        return 0;
}

static int bus_register(ManagerBus *b) {
        sd_bus *bus = b->bus;
        int r;

        r = sd_bus_add_fallback_vtable(bus, NULL, SCHEDFREQD_BUS_PATH, SCHEDFREQD_BUS_INTERFACE, daemon_vtable,
                                       daemon_find, b);
        if (r < 0)
                return r;
        r = sd_bus_add_fallback_vtable(bus, NULL, SCHEDFREQD_BUS_POLICY_PREFIX, SCHEDFREQD_BUS_POLICY_INTERFACE,
                                       policy_vtable, policy_find, b);
        if (r < 0)
                return r;
        r = sd_bus_add_fallback_vtable(bus, NULL, SCHEDFREQD_BUS_CPU_PREFIX, SCHEDFREQD_BUS_CPU_INTERFACE,
                                       cpu_vtable, cpu_find, b);
        if (r < 0)
                return r;
        r = sd_bus_add_node_enumerator(bus, NULL, SCHEDFREQD_BUS_PATH, enumerate_nodes, b);
        if (r < 0)
                return r;
        r = sd_bus_add_object_manager(bus, NULL, SCHEDFREQD_BUS_PATH);
        if (r < 0)
                return r;
        return sd_bus_match_signal(bus, NULL, "org.freedesktop.DBus.Local", "/org/freedesktop/DBus/Local",
                                   "org.freedesktop.DBus.Local", "Disconnected", on_disconnected, b);
}

static int bus_alloc_tables(ManagerBus *b) {
        const Topology *t = b->manager->gov.topology;
        size_t n_policies = MAX(t->n_policies, (size_t) 1);
        CpuState cs;

        b->policy_now = calloc(n_policies, sizeof(PolicyValues));
        b->policy_sent = calloc(n_policies, sizeof(PolicyValues));
        b->cpus = calloc(CPU_SETSIZE, sizeof(unsigned));
        if (!b->policy_now || !b->policy_sent || !b->cpus)
                return -ENOMEM;

        /* Every CPU the engine models (those of the topology's policies). */
        for (unsigned cpu = 0; cpu < CPU_SETSIZE; cpu++)
                if (topology_policy_of_cpu(t, cpu) && engine_cpu_state(b->manager->gov.engine, cpu, &cs) >= 0)
                        b->cpus[b->n_cpus++] = cpu;

        b->cpu_now = calloc(MAX(b->n_cpus, (size_t) 1), sizeof(CpuValues));
        b->cpu_sent = calloc(MAX(b->n_cpus, (size_t) 1), sizeof(CpuValues));
        if (!b->cpu_now || !b->cpu_sent)
                return -ENOMEM;

        /* What clients see at first is the baseline: the timer announces changes from here on. */
        daemon_values(b, &b->daemon_sent);
        for (size_t i = 0; i < t->n_policies; i++)
                policy_values(b, i, &b->policy_sent[i]);
        for (size_t i = 0; i < b->n_cpus; i++)
                cpu_values(b, i, &b->cpu_sent[i]);
        return 0;
}

int manager_bus_new(Manager *m, ManagerBus **ret) {
        _cleanup_(manager_bus_freep) ManagerBus *b = NULL;
        const char *where = m->opts.bus_address ? m->opts.bus_address : "the system bus";
        int r;

        b = calloc(1, sizeof(ManagerBus));
        if (!b)
                return log_oom();
        b->manager = m;

        r = bus_alloc_tables(b);
        if (r < 0)
                return log_oom();

        r = bus_connect(m, &b->bus);
        if (r < 0) {
                /*
                 * No bus is a normal way to run (early boot, a container, a CI namespace): one message saying what
                 * is off and why (two lines, each under 120 columns), at info for the system bus; a warning when
                 * --bus-address named one. The daemon governs all the same, so this is not a failure the caller
                 * needs to repeat.
                 */
                const char *address = m->opts.bus_address ?: secure_getenv("DBUS_SYSTEM_BUS_ADDRESS");

                log_full_errno(m->opts.bus_address ? LOG_WARNING : LOG_INFO, r,
                               "No D-Bus, running without it: the D-Bus status and schedfreqctl are off.\n"
                               "Cannot connect to %s (%s: %m).", where,
                               address ?: "unix:path=/run/dbus/system_bus_socket");
                *ret = NULL;
                return 0;
        }

        r = bus_register(b);
        if (r < 0)
                return log_warning_errno(r, "Failed to register the D-Bus objects: %m");

        r = sd_bus_attach_event(b->bus, m->event, SD_EVENT_PRIORITY_NORMAL);
        if (r < 0)
                return log_warning_errno(r, "Failed to attach the bus to the event loop: %m");

        /* Synchronous on purpose: if the policy does not let us own the name, we want to know now. */
        r = sd_bus_request_name(b->bus, SCHEDFREQD_BUS_NAME, 0);
        if (r < 0)
                return log_warning_errno(r, "Failed to acquire the bus name %s on %s%s: %m", SCHEDFREQD_BUS_NAME,
                                         where, r == -EEXIST ? " (another schedfreqd is running?)" :
                                                r == -EACCES ? " (not root, or the bus policy file "
                                                               "io.github.schedfreqd.Governor1.conf is not installed?)" : "");

        /* Armed by on_post_changes() only, one-shot; accurate to a tenth of the interval (sd-event's default
         * accuracy, 250 ms, would let the announcements trail by more than the interval itself). */
        r = sd_event_add_time(m->event, &b->changes_source, CLOCK_MONOTONIC, UINT64_MAX,
                              BUS_PROPERTIES_CHANGED_INTERVAL_USEC / 10, on_changes_timer, b);
        if (r < 0)
                return log_warning_errno(r, "Failed to add the PropertiesChanged timer: %m");
        (void) sd_event_source_set_enabled(b->changes_source, SD_EVENT_OFF);
        (void) sd_event_source_set_description(b->changes_source, "bus-properties-changed");
        r = sd_event_add_post(m->event, &b->post_source, on_post_changes, b);
        if (r < 0)
                return log_warning_errno(r, "Failed to add the PropertiesChanged check: %m");
        (void) sd_event_source_set_description(b->post_source, "bus-properties-check");

        log_info("D-Bus: %s on %s.", SCHEDFREQD_BUS_NAME, where);
        *ret = TAKE_PTR(b);
        return 0;
}
