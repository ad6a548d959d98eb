/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* `reload`, `pause`, `resume`: the daemon's control methods (root). */

#include <systemd/sd-bus.h>

#include "schedfreqctl.h"

int verb_reload(sd_bus *bus, const CtlOptions *o, char **args);
int verb_pause(sd_bus *bus, const CtlOptions *o, char **args);
int verb_resume(sd_bus *bus, const CtlOptions *o, char **args);
