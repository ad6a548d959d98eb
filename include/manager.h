/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The daemon proper: owns the sd-event loop and every object (config, topology, engine, perf rings,
 * actuator), wires events → engine → actuator, handles signals (SIGTERM/SIGINT: restore and exit;
 * SIGHUP: reload), the tick timer, and the service manager protocol (sd_notify).
 */

#include <stdbool.h>

typedef struct ManagerOptions {
        const char *config_path;      /* default CONFIG_DEFAULT_PATH */
        const char *state_path;       /* default STATE_DEFAULT_PATH */
        bool print_decisions;         /* one line per frequency change on stdout (replay format) */
} ManagerOptions;

#define STATE_DEFAULT_PATH "/run/schedfreqd/state"

/* Runs the daemon until SIGTERM/SIGINT. Returns 0 on a clean exit, a negative errno (already logged) else. */
int manager_run(const ManagerOptions *opts);
