/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* `explain [POLICY]`: why each policy (or POLICY: N or policyN) is at its frequency. */

#include <systemd/sd-bus.h>

#include "schedfreqctl.h"

int verb_explain(sd_bus *bus, const CtlOptions *o, char **args);
