/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * snapshot.c: GetManagedObjects → Snapshot, every property of the daemon, policy and CPU objects by name.
 * Unknown value types are skipped (a newer daemon may add some).
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "call.h"
#include "macro.h"
#include "schedfreqctl.h"
#include "schedfreqd-dbus.h"
#include "snapshot.h"

static void prop_done(Prop *p) {
        free(p->name);
        free(p->s);
        free(p->array);
        *p = (Prop) {};
}

static void object_done(Object *o) {
        for (size_t i = 0; i < o->n_props; i++)
                prop_done(&o->props[i]);
        free(o->props);
        free(o->path);
        *o = (Object) {};
}

void snapshot_done(Snapshot *s) {
        object_done(&s->daemon);
        for (size_t i = 0; i < s->n_policies; i++)
                object_done(&s->policies[i]);
        for (size_t i = 0; i < s->n_cpus; i++)
                object_done(&s->cpus[i]);
        free(s->policies);
        free(s->cpus);
        *s = (Snapshot) {};
}

const Prop *prop_find(const Object *o, const char *name) {
        for (size_t i = 0; i < o->n_props; i++)
                if (streq(o->props[i].name, name))
                        return &o->props[i];
        return NULL;
}

uint64_t prop_u(const Object *o, const char *name) {
        const Prop *p = prop_find(o, name);

        if (!p)
                return 0;
        return p->type == 'i' ? (uint64_t) p->i : p->u;
}

const char *prop_s(const Object *o, const char *name) {
        const Prop *p = prop_find(o, name);

        return p && p->type == 's' && p->s ? p->s : "";
}

bool prop_b(const Object *o, const char *name) {
        return prop_u(o, name) != 0;
}

/* The value inside the variant @m is in, of signature @contents, into @p (p->type stays 0 when skipped). */
static int read_value(sd_bus_message *m, const char *contents, Prop *p) {
        int r;

        if (streq(contents, "s")) {
                const char *s;
                r = sd_bus_message_read_basic(m, 's', &s);
                if (r >= 0 && !(p->s = strdup(s)))
                        r = -ENOMEM;
                p->type = 's';
        } else if (streq(contents, "b")) {
                int b;
                r = sd_bus_message_read_basic(m, 'b', &b);
                p->u = b;
                p->type = 'b';
        } else if (streq(contents, "u")) {
                uint32_t u;
                r = sd_bus_message_read_basic(m, 'u', &u);
                p->u = u;
                p->type = 'u';
        } else if (streq(contents, "t")) {
                r = sd_bus_message_read_basic(m, 't', &p->u);
                p->type = 't';
        } else if (streq(contents, "i")) {
                int32_t i;
                r = sd_bus_message_read_basic(m, 'i', &i);
                p->i = i;
                p->type = 'i';
        } else if (streq(contents, "au") || streq(contents, "at")) {
                const void *data;
                size_t size, width = contents[1] == 'u' ? 4 : 8;
                r = sd_bus_message_read_array(m, contents[1], &data, &size);
                if (r >= 0) {
                        p->n_array = size / width;
                        p->array = calloc(MAX(p->n_array, (size_t) 1), sizeof(uint64_t));
                        if (!p->array)
                                r = -ENOMEM;
                        for (size_t k = 0; r >= 0 && k < p->n_array; k++)
                                p->array[k] = width == 4 ? ((const uint32_t *) data)[k] : ((const uint64_t *) data)[k];
                }
                p->type = 'a';
        } else
                r = sd_bus_message_skip(m, contents);
        return r;
}

/* Reads one a{sv} into @o.
 * analyze: false positive: the grown array is o->props's (freed by object_done()); gcc 12 loses track of a
 * pointer stored into an element of a reallocated array (@o is one of Snapshot.policies[] or .cpus[]) */
ANALYZER_FALSE_POSITIVE_BEGIN("-Wanalyzer-malloc-leak")
static int read_properties(sd_bus_message *m, Object *o) {
        int r;

        r = sd_bus_message_enter_container(m, 'a', "{sv}");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
                const char *name, *contents;
                _cleanup_(prop_done) Prop p = {}; /* owns p.s and p.array until o->props does */
                char type;

                r = sd_bus_message_read(m, "s", &name);
                if (r < 0)
                        return r;
                r = sd_bus_message_peek_type(m, &type, &contents);
                if (r < 0)
                        return r;
                r = sd_bus_message_enter_container(m, 'v', contents);
                if (r < 0)
                        return r;
                r = read_value(m, contents, &p);
                if (r < 0)
                        return r;
                r = sd_bus_message_exit_container(m); /* v */
                if (r < 0)
                        return r;
                r = sd_bus_message_exit_container(m); /* e */
                if (r < 0)
                        return r;
                if (p.type == 0)
                        continue;

                Prop *n = reallocarray(o->props, o->n_props + 1, sizeof(Prop));
                if (n)
                        o->props = n;
                if (!n || !(p.name = strdup(name)))
                        return -ENOMEM;
                o->props[o->n_props++] = p;
                p = (Prop) {};
        }
        if (r < 0)
                return r;
        return sd_bus_message_exit_container(m);
}
ANALYZER_FALSE_POSITIVE_END

/* analyze: false positive: the path is the new element's (freed by object_done()); gcc 12 loses track of a
 * pointer stored into an element of a reallocated array */
ANALYZER_FALSE_POSITIVE_BEGIN("-Wanalyzer-malloc-leak")
static int object_append(Object **objects, size_t *n, const char *path, Object **ret) {
        Object *l = reallocarray(*objects, *n + 1, sizeof(Object));

        if (!l)
                return -ENOMEM;
        *objects = l;
        l[*n] = (Object) { .path = strdup(path) };
        if (!l[*n].path)
                return -ENOMEM;
        *ret = &l[(*n)++];
        return 0;
}
ANALYZER_FALSE_POSITIVE_END

static int object_cmp(const void *a, const void *b) {
        uint64_t x = prop_u(a, "Id"), y = prop_u(b, "Id");

        return x < y ? -1 : x > y;
}

/* One object's a{sa{sv}} (its interfaces) into @s: the ones of schedfreqd's interfaces, the others skipped. */
static int read_interfaces(sd_bus_message *reply, const char *path, Snapshot *s) {
        int r;

        r = sd_bus_message_enter_container(reply, 'a', "{sa{sv}}");
        while (r >= 0 && (r = sd_bus_message_enter_container(reply, 'e', "sa{sv}")) > 0) {
                const char *interface;
                Object *o = NULL;

                r = sd_bus_message_read(reply, "s", &interface);
                if (r < 0)
                        break;
                if (streq(interface, SCHEDFREQD_BUS_INTERFACE) && !s->daemon.path) {
                        s->daemon.path = strdup(path);
                        o = s->daemon.path ? &s->daemon : NULL;
                        r = o ? 0 : -ENOMEM;
                } else if (streq(interface, SCHEDFREQD_BUS_POLICY_INTERFACE))
                        r = object_append(&s->policies, &s->n_policies, path, &o);
                else if (streq(interface, SCHEDFREQD_BUS_CPU_INTERFACE))
                        r = object_append(&s->cpus, &s->n_cpus, path, &o);
                if (r >= 0)
                        r = o ? read_properties(reply, o) : sd_bus_message_skip(reply, "a{sv}");
                if (r >= 0)
                        r = sd_bus_message_exit_container(reply);
        }
        if (r >= 0)
                r = sd_bus_message_exit_container(reply);
        return r;
}

int snapshot_read(sd_bus *bus, const char *address, Snapshot *ret) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        Snapshot s = {};
        int r;

        r = sd_bus_call_method(bus, SCHEDFREQD_BUS_NAME, SCHEDFREQD_BUS_PATH, "org.freedesktop.DBus.ObjectManager",
                               "GetManagedObjects", &error, &reply, NULL);
        if (r < 0)
                return call_failed(address, "read the status", &error, r);

        r = sd_bus_message_enter_container(reply, 'a', "{oa{sa{sv}}}");
        while (r >= 0 && (r = sd_bus_message_enter_container(reply, 'e', "oa{sa{sv}}")) > 0) {
                const char *path;

                r = sd_bus_message_read(reply, "o", &path);
                if (r >= 0)
                        r = read_interfaces(reply, path, &s);
                if (r >= 0)
                        r = sd_bus_message_exit_container(reply);
        }
        if (r >= 0 && !s.daemon.path)
                r = -EBADMSG;
        if (r < 0) {
                snapshot_done(&s);
                fprintf(stderr, "Failed to parse schedfreqd's status reply: %s\n", strerror(-r));
                return -EBADMSG;
        }
        qsort(s.policies, s.n_policies, sizeof(Object), object_cmp);
        qsort(s.cpus, s.n_cpus, sizeof(Object), object_cmp);
        *ret = s;
        return 0;
}
