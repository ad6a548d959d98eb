/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The manager's D-Bus face (daemon/service/manager-bus.c): the objects, properties and methods of
 * include/schedfreqd-dbus.h on the system bus (or the bus at ManagerOptions.bus_address). It only translates:
 * every property is read live from the engine and the Manager, every method calls a manager verb. Control
 * methods are for root only, checked from the sender's credentials (the bus policy file is the first fence,
 * this is the second). The manager does not know its face: main.c puts it on and takes it off.
 *
 * PropertiesChanged is never sent per scheduler event: after a wake-up of the loop each object's properties are
 * compared with what was last announced, and one signal per object that changed is emitted at most every
 * BUS_PROPERTIES_CHANGED_INTERVAL_USEC (a one-shot timer for the trailing one), so each object signals at most
 * 1 s / interval times a second (10/s by default), and a quiet machine wakes the daemon for none.
 */

#include "macro.h"
#include "manager.h"

/* Compile-time default: at most 10 PropertiesChanged per object per second. */
#define BUS_PROPERTIES_CHANGED_INTERVAL_USEC (100 * 1000)

typedef struct ManagerBus ManagerBus;

/*
 * Connects to m->opts.bus_address (or the system bus: DBUS_SYSTEM_BUS_ADDRESS, else the default socket),
 * registers the objects, takes the bus name and attaches to m->event. Call after manager_start() (the
 * take-over): m->topology and m->engine must exist. Returns 0, or a negative errno after logging why at
 * warning level (the caller runs without D-Bus). No bus to connect to is not an error: logged in one line,
 * 0 with *@ret NULL. Free it before the Manager.
 */
int manager_bus_new(Manager *m, ManagerBus **ret);
ManagerBus *manager_bus_free(ManagerBus *b);
DEFINE_TRIVIAL_CLEANUP_FUNC(ManagerBus *, manager_bus_free);
