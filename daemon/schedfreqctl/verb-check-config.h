/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* `check-config FILE`: validates a configuration file with the daemon's own parser; needs no daemon. */

#include <systemd/sd-bus.h>

#include "schedfreqctl.h"

/* @bus is not used (NULL). */
int verb_check_config(sd_bus *bus, const CtlOptions *o, char **args);
