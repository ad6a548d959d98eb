/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The connection to schedfreqd's bus, and what a failed call means for the user (a message, an exit code). */

#include <systemd/sd-bus.h>

/* @address: --address, or NULL for the system bus. Returns 0, or -ESRCH after saying why. */
int connect_bus(const char *address, sd_bus **ret);

/* Reports a failed call (@what: "read the status") and returns what it means as schedfreqctl.h's errno
 * (-ESRCH not running or no answer, -EACCES denied, -EBADMSG configuration rejected, -EIO anything else);
 * @address as connect_bus()'s. */
int call_failed(const char *address, const char *what, const sd_bus_error *error, int r);
