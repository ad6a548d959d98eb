/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * governed.h: the governed policies and the objects that act on them, as the manager lends them to its satellites
 * (manager-watch.c, manager-hotplug.c, manager-rules.c, manager-sessions.c, manager-service.c). The manager owns
 * everything here and keeps the fields current (start, reload, pause and resume); a satellite is handed this, not
 * the Manager, so it reaches neither the event loop, the D-Bus face, nor the other satellites' state, and none of
 * them includes manager.h (issue #26: no two files that include each other).
 */

#include <stdbool.h>

#include "actuator.h"
#include "topology.h"

typedef struct Engine Engine;
typedef struct Actuator Actuator;
typedef struct EventSource EventSource;

typedef struct Governed {
        Topology *topology;
        bool *managed;                 /* per policy index: the config asks for it (policies=) */
        PolicyHealth *health;          /* per policy index: governed, backing off, offline, released */
        Engine *engine;
        Actuator *actuator;            /* NULL in observe mode: nothing is taken over */
        EventSource *source;           /* the live event source: perf or bpf (event-source.h) */
        bool observe;                  /* --observe: decide, write nothing, compare with the kernel */
        bool paused;                   /* Pause: the policies handed back to their governors */
} Governed;
