/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The D-Bus surface of the daemon (daemon/bus.c): the objects, properties and methods of
 * include/schedfreqd-dbus.h on the system bus (or the bus at ManagerOptions.bus_address). It only
 * translates: every property is read live from the engine and the Manager, every method calls a manager
 * verb. Control methods are for root only, checked from the sender's credentials (the bus policy file is
 * the first fence, this is the second).
 *
 * PropertiesChanged is never sent per scheduler event: a timer compares each object's properties with what
 * was last announced every BUS_PROPERTIES_CHANGED_INTERVAL_USEC and emits one signal per object that
 * changed, so each object signals at most 1 s / interval times a second (10/s by default).
 */

#include "manager.h"

/* Compile-time default: at most 10 PropertiesChanged per object per second. */
#define BUS_PROPERTIES_CHANGED_INTERVAL_USEC (100 * 1000)

typedef struct Bus Bus;

/*
 * Connects to m->opts.bus_address (or the system bus: DBUS_SYSTEM_BUS_ADDRESS, else the default socket),
 * registers the objects, takes the bus name and attaches to m->event. Call after take-over: m->topology and
 * m->engine must exist. Returns 0, or a negative errno after logging why at warning level (the caller runs
 * without D-Bus). No bus to connect to is not an error: logged in one line, 0 with *@ret NULL.
 */
int bus_new(Manager *m, Bus **ret);
Bus *bus_free(Bus *b);
static inline void bus_freep(Bus **b) {
        if (*b)
                bus_free(*b);
}
