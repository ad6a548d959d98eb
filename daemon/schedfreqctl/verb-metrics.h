/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* `metrics`: every counter and gauge in the OpenMetrics text format (docs/metrics.md). */

#include <systemd/sd-bus.h>

#include "schedfreqctl.h"

int verb_metrics(sd_bus *bus, const CtlOptions *o, char **args);
