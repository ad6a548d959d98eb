/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * What every file of schedfreqctl shares: its exit codes and its parsed options. main.c parses the options and
 * dispatches the verb from its table; each verb-*.c file holds verbs of one concern.
 */

#include <stdbool.h>

/*
 * Errors are messages and exit codes, never a crash (--help and schedfreqctl(1) list them). One convention
 * inside, the daemon's: a function returns 0 (or a count) on success and a negative errno on failure, having
 * said on stderr what failed where it failed; main.c alone turns that into an exit code (exit_code_from_errno()):
 *   -EINVAL            EXIT_USAGE: what the user typed (a verb's argument); nothing else returns it
 *   -ESRCH             EXIT_NOT_RUNNING: no schedfreqd on the bus, no bus, or no answer
 *   -EACCES, -EPERM    EXIT_DENIED
 *   anything else      EXIT_FAILED (-EBADMSG: a reply or a file that does not parse, or is rejected)
 */
typedef enum ExitCode {
        EXIT_OK = 0,
        EXIT_FAILED = 1,         /* a method failed, a configuration was rejected or is invalid */
        EXIT_USAGE = 2,
        EXIT_NOT_RUNNING = 3,    /* schedfreqd is not running (or there is no bus) */
        EXIT_DENIED = 4,         /* permission denied */
} ExitCode;

typedef struct CtlOptions {
        const char *address;     /* --address: the bus to use; NULL: $DBUS_SYSTEM_BUS_ADDRESS or the system bus */
        bool json;
        bool wide;               /* status, watch: every column (~120), not the 80-column table */
        unsigned count;          /* watch: 0 = until interrupted */
        double interval_s;       /* watch */
        unsigned decisions;      /* explain: how many recent decisions to list */
        bool strict;             /* check-config: policies that do not exist are errors */
        const char *topology;    /* check-config: the machine's description instead of sysfs */
} CtlOptions;
