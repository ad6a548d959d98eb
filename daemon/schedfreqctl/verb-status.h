/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* `status` (the default verb) and `watch`: the snapshot as a table, or as JSON with --json. */

#include <systemd/sd-bus.h>

#include "schedfreqctl.h"

int verb_status(sd_bus *bus, const CtlOptions *o, char **args);
int verb_watch(sd_bus *bus, const CtlOptions *o, char **args);
