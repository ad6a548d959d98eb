/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * call.c: schedfreqctl's connection to the bus, and the mapping of a failed call to a message and an exit code
 * (schedfreqd not running, no answer, permission denied, configuration rejected, anything else).
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "call.h"
#include "macro.h"
#include "schedfreqctl.h"
#include "schedfreqd-dbus.h"

static int not_running(const char *address) {
        fprintf(stderr, "schedfreqd is not running (no %s on the %s).\n", SCHEDFREQD_BUS_NAME,
                address ? "bus at --address" : "system bus");
        return -ESRCH;
}

int call_failed(const char *address, const char *what, const sd_bus_error *error, int r) {
        if (sd_bus_error_has_names(error, SD_BUS_ERROR_SERVICE_UNKNOWN, SD_BUS_ERROR_NAME_HAS_NO_OWNER,
                                   SD_BUS_ERROR_DISCONNECTED) ||
            (!sd_bus_error_is_set(error) && (r == -ENOTCONN || r == -ECONNRESET)))
                return not_running(address);
        if (sd_bus_error_has_name(error, SD_BUS_ERROR_NO_REPLY)) {
                fprintf(stderr, "schedfreqd did not answer %s (it may have exited or be stuck).\n", what);
                return -ESRCH;
        }
        if (sd_bus_error_has_name(error, SD_BUS_ERROR_ACCESS_DENIED) || r == -EACCES || r == -EPERM) {
                fprintf(stderr, "Permission denied: %s needs root (%s).\n", what,
                        error && error->message ? error->message : strerror(-r));
                return -EACCES;
        }
        if (sd_bus_error_has_name(error, SCHEDFREQD_ERROR_CONFIG_REJECTED)) {
                fprintf(stderr, "The configuration was rejected; schedfreqd keeps running with the old one:\n%s\n",
                        error->message ? error->message : "(no details)");
                return -EBADMSG;
        }
        fprintf(stderr, "Failed to %s: %s\n", what, error && error->message ? error->message : strerror(-r));
        return -EIO; /* not r: an -EINVAL of sd-bus's is no usage error */
}

int connect_bus(const char *address, sd_bus **ret) {
        _cleanup_(sd_bus_unrefp) sd_bus *bus = NULL;
        int r;

        if (address) {
                r = sd_bus_new(&bus);
                if (r >= 0)
                        r = sd_bus_set_address(bus, address);
                if (r >= 0)
                        r = sd_bus_set_bus_client(bus, true);
                if (r >= 0)
                        r = sd_bus_start(bus);
        } else
                r = sd_bus_open_system(&bus);
        if (r < 0) {
                const char *shown = address ? address : getenv("DBUS_SYSTEM_BUS_ADDRESS");

                fprintf(stderr, "Cannot connect to the system bus%s%s: %s\n"
                        "schedfreqd is not running (no D-Bus system bus, so no %s).\n",
                        shown ? " at " : "", shown ? shown : "", strerror(-r), SCHEDFREQD_BUS_NAME);
                return -ESRCH;
        }
        *ret = TAKE_PTR(bus);
        return 0;
}
