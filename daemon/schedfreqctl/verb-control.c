/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * verb-control.c: `reload`, `pause` and `resume` call the method of that name and print one line. Only root may
 * (the bus policy, systemd/io.github.schedfreqd.Governor1.conf, and
 * the daemon both check); a refusal says to use sudo.
 */

#include <errno.h>
#include <stdio.h>

#include "call.h"
#include "format.h"
#include "macro.h"
#include "schedfreqd-dbus.h"
#include "verb-control.h"

/* @verb names the command in messages, @what the action in failures; @done is printed on success. */
static int control_call(sd_bus *bus, const char *address, const char *verb, const char *method, const char *what,
                        const char *done) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        r = sd_bus_call_method(bus, SCHEDFREQD_BUS_NAME, SCHEDFREQD_BUS_PATH, SCHEDFREQD_BUS_INTERFACE, method,
                               &error, NULL, NULL);
        /*
         * Refused by the bus policy (its message lists the rules it matched) or by the daemon: one line that says
         * what to do. Root is the rule; the bus's reasons are in docs/dbus.md.
         */
        if (r < 0 && (sd_bus_error_has_name(&error, SD_BUS_ERROR_ACCESS_DENIED) || r == -EACCES || r == -EPERM)) {
                fprintf(stderr, "Permission denied: %s needs root (try: sudo schedfreqctl %s).\n", verb, verb);
                return -EACCES;
        }
        if (r < 0)
                return call_failed(address, what, &error, r);
        printf("%s\n", done);
        return stdout_done(0);
}

int verb_reload(sd_bus *bus, const CtlOptions *o, char **args) {
        return control_call(bus, o->address, "reload", "Reload", "reload the configuration", "Configuration reloaded.");
}

int verb_pause(sd_bus *bus, const CtlOptions *o, char **args) {
        return control_call(bus, o->address, "pause", "Pause", "pause",
                            "Paused: the policies are back under their original governors.");
}

int verb_resume(sd_bus *bus, const CtlOptions *o, char **args) {
        return control_call(bus, o->address, "resume", "Resume", "resume",
                            "Resumed: schedfreqd governs the policies again.");
}
