/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * A snapshot of every property of every schedfreqd object (the daemon, its policies, its CPUs), read with one
 * GetManagedObjects call. `status`, `--json`, `watch`, `explain` and `metrics` format it.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

typedef struct Prop {
        char *name;
        char type;                 /* 's', 'b', 'u', 't', 'i' or 'a' (an array of unsigned integers) */
        char *s;
        uint64_t u;                /* b, u, t */
        int64_t i;
        uint64_t *array;
        size_t n_array;
} Prop;

typedef struct Object {
        char *path;
        Prop *props;
        size_t n_props;
} Object;

typedef struct Snapshot {
        Object daemon;
        Object *policies;          /* by Id */
        size_t n_policies;
        Object *cpus;              /* by Id */
        size_t n_cpus;
} Snapshot;

/* A property of @o, or NULL; prop_u(), prop_s() and prop_b() read a missing one as 0, "" and false. */
const Prop *prop_find(const Object *o, const char *name);
uint64_t prop_u(const Object *o, const char *name);
const char *prop_s(const Object *o, const char *name);
bool prop_b(const Object *o, const char *name);

/* Returns 0, or a negative errno (already reported, schedfreqctl.h); @address as connect_bus()'s. */
int snapshot_read(sd_bus *bus, const char *address, Snapshot *ret);
void snapshot_done(Snapshot *s);
