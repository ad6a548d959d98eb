/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The D-Bus contract between schedfreqd (daemon/service/manager-bus.c) and its clients (schedfreqctl, busctl, scripts):
 * names, paths, interfaces, error names and the GetDecisions and GetRules record signatures. docs/dbus.md describes it;
 * systemd/io.github.schedfreqd.Governor1.conf is the bus policy.
 *
 * Naming (shared/notes/conventions.md): reverse-DNS, bus name == main interface name, object path the same
 * string with '.' → '/'. The project owns no domain; io.github.<project> is the reverse-DNS form that
 * Flatpak/AppStream use for projects hosted on GitHub, and org.freedesktop.* is reserved for freedesktop.org
 * projects. "Governor1" names what the object is and carries the API version (like login1, timedate1):
 * an incompatible change would add Governor2 next to it.
 */

#define SCHEDFREQD_BUS_NAME "io.github.schedfreqd.Governor1"
#define SCHEDFREQD_BUS_PATH "/io/github/schedfreqd/Governor1"

/* The daemon object, at SCHEDFREQD_BUS_PATH (also an org.freedesktop.DBus.ObjectManager). */
#define SCHEDFREQD_BUS_INTERFACE SCHEDFREQD_BUS_NAME
/* One object per cpufreq policy N: SCHEDFREQD_BUS_PATH "/policy/N". */
#define SCHEDFREQD_BUS_POLICY_INTERFACE SCHEDFREQD_BUS_NAME ".Policy"
#define SCHEDFREQD_BUS_POLICY_PREFIX SCHEDFREQD_BUS_PATH "/policy"
/* One object per CPU N of the governed topology: SCHEDFREQD_BUS_PATH "/cpu/N". */
#define SCHEDFREQD_BUS_CPU_INTERFACE SCHEDFREQD_BUS_NAME ".CPU"
#define SCHEDFREQD_BUS_CPU_PREFIX SCHEDFREQD_BUS_PATH "/cpu"

/* Reload(): the new configuration was rejected; the message is its "FILE:LINE: reason" lines. */
#define SCHEDFREQD_ERROR_CONFIG_REJECTED SCHEDFREQD_BUS_NAME ".Error.ConfigRejected"
/* Pause()/Resume(): the policies could not be handed back or taken over again; the message says why. */
#define SCHEDFREQD_ERROR_FAILED SCHEDFREQD_BUS_NAME ".Error.Failed"
/* Control methods from a non-root caller get org.freedesktop.DBus.Error.AccessDenied. */

/*
 * GetDecisions(u max) → a(tuuuissbsuttus), oldest first, at most @max records (0: all the ring holds):
 *   t  TimeUSec            CLOCK_MONOTONIC µs of the event (or tick) that triggered the decision
 *   u  Policy              policy number N
 *   u  OldKHz, u NewKHz
 *   i  CPU                 the CPU whose event caused it
 *   s  Event               "sched_switch", "sched_wakeup", … or "tick"
 *   s  Kind                "local" or "remote"
 *   b  Deferred            it applied a demand change a disallowed remote event had to leave for later
 *   s  Reason              "demand", "rt", "iowait", "limits", "rule"
 *   u  Demand              the policy's utilisation, 0..1024
 *   t  WrittenUSec         CLOCK_MONOTONIC µs when the scaling_setspeed write completed
 *   t  DeferredSinceUSec   when the deferred change was recorded (0 unless Deferred)
 *   u  Pid                 the task the triggering event was about (the woken, the switched-in, for a tick the
 *                          running one), 0 = none or idle
 *   s  Comm                its name when the decision was made (the proc connector's), "" = unknown
 */
#define SCHEDFREQD_DECISION_TYPE "(tuuuissbsuttus)"
#define SCHEDFREQD_DECISIONS_SIGNATURE "a" SCHEDFREQD_DECISION_TYPE

/*
 * GetRules() → a(sssssa{sv}ta(us)), the per-process rules in force ([rule:NAME] sections, include/config.h), in
 * configuration order (empty without rules):
 *   s  Name                the NAME of [rule:NAME]
 *   s  Comm, s Exe, s Cgroup   the match keys' globs ("" when the rule has no such key)
 *   s  Origin              "FILE:LINE" of its [rule:NAME] header, the last one read ("" when unknown)
 *   a{sv} Actions          every action by its field name (RuleAction.field, include/config.h), the value it
 *                          has in this rule, the one that does nothing when it is not set: "MinUtil" q and
 *                          "MaxUtil" q (0..1024: 0 and 1024 when not set), "RTBoost" b, "Ignore" b. A client
 *                          skips a name it does not know: a new action is a new entry, not a new signature
 *   t  Decisions           frequency changes it decided (reason "rule") since it was loaded
 *   a(us) Tasks            the tasks it applies to now (thread id, name; "" when the name is not known), by
 *                          ascending id, at most SCHEDFREQD_RULE_TASKS_MAX
 */
#define SCHEDFREQD_RULE_TASKS_MAX 256U
#define SCHEDFREQD_RULE_CONTENTS "sssssa{sv}ta(us)"
#define SCHEDFREQD_RULE_TYPE "(" SCHEDFREQD_RULE_CONTENTS ")"
#define SCHEDFREQD_RULES_SIGNATURE "a" SCHEDFREQD_RULE_TYPE
