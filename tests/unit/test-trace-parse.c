/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests for the text trace line parser (trace-parse.c): `perf script` lines printed by perf 6.1 on a 6.18 kernel,
 * ftrace lines as the tracefs `trace` file (6.18), trace-cmd report 3.1.6 and old kernels print them.
 */

#include <errno.h>
#include <time.h>

#include <string.h>

#include "events.h"
#include "macro.h"
#include "test.h"

static int parse(const char *line, SchedEvent *ev) {
        const char *reason = NULL;
        int r = trace_parse_line(line, ev, &reason);

        if (r < 0 && !reason)
                return -EFAULT; /* an error must always say why */
        return r;
}

TEST(switch_usec) {
        SchedEvent ev;

        ASSERT_EQ(parse("            perf  4533 [000]   551.307788:       sched:sched_switch: prev_comm=perf "
                        "prev_pid=4533 prev_prio=120 prev_state=D ==> next_comm=migration/0 next_pid=18 next_prio=0\n",
                        &ev),
                  TRACE_LINE_EVENT);
        ASSERT_EQ(ev.type, SCHED_EVENT_SWITCH);
        ASSERT_EQ(ev.cpu, 0);
        ASSERT_U64_EQ(ev.time_ns, UINT64_C(551307788000));
        ASSERT_STREQ(ev.sw.prev_comm, "perf");
        ASSERT_EQ(ev.sw.prev_pid, 4533);
        ASSERT_EQ(ev.sw.prev_prio, 120);
        ASSERT_TRUE(!ev.sw.prev_runnable);
        ASSERT_STREQ(ev.sw.next_comm, "migration/0");
        ASSERT_EQ(ev.sw.next_pid, 18);
        ASSERT_EQ(ev.sw.next_prio, 0);
}

/* The "comm tid" column: the task current when the event was recorded (the lost-switch evidence, demand.c). */
TEST(context) {
        SchedEvent ev;

        ASSERT_EQ(parse("   tokio-rt-worker    81 [000]  9491.888523: sched:sched_wakeup: comm=rcu_preempt pid=15 "
                        "prio=120 target_cpu=000", &ev), TRACE_LINE_EVENT);
        ASSERT_TRUE(ev.has_context);
        ASSERT_EQ(ev.context_pid, 81);
        ASSERT_EQ(parse("         swapper     0 [001]   551.307995123: sched:sched_wakeup: comm=a pid=5 prio=120 "
                        "target_cpu=001", &ev), TRACE_LINE_EVENT);
        ASSERT_TRUE(ev.has_context);
        ASSERT_EQ(ev.context_pid, 0);
        /* perf script -F pid,tid prints "pid/tid": the thread is the one that runs. */
        ASSERT_EQ(parse("  worker 4533/4540 [001] 1.000000: sched:sched_wakeup: comm=a pid=5 prio=120 target_cpu=001",
                        &ev), TRACE_LINE_EVENT);
        ASSERT_EQ(ev.context_pid, 4540);
        /* No tid column (perf script -F cpu,time,event,trace), or a comm ending in digits glued to it: none. */
        ASSERT_EQ(parse("[001] 1.000000: sched:sched_wakeup: comm=a pid=5 prio=120 target_cpu=001", &ev),
                  TRACE_LINE_EVENT);
        ASSERT_TRUE(!ev.has_context);
        ASSERT_EQ(parse("kworker/1:0[001] 1.000000: sched:sched_wakeup: comm=a pid=5 prio=120 target_cpu=001", &ev),
                  TRACE_LINE_EVENT);
        ASSERT_TRUE(!ev.has_context);
}

TEST(switch_ns_preempted_and_idle) {
        SchedEvent ev;

        ASSERT_EQ(parse("         swapper     0 [001]   551.307995123:       sched:sched_switch: prev_comm=swapper/1 "
                        "prev_pid=0 prev_prio=120 prev_state=R+ ==> next_comm=perf-exec next_pid=4535 next_prio=120",
                        &ev),
                  TRACE_LINE_EVENT);
        ASSERT_EQ(ev.cpu, 1);
        ASSERT_U64_EQ(ev.time_ns, UINT64_C(551307995123));
        ASSERT_TRUE(ev.sw.prev_runnable);
        ASSERT_EQ(ev.sw.prev_state, 0x100);

        ASSERT_EQ(parse("x 1 [001] 1.000000: sched:sched_switch: prev_comm=x prev_pid=1 prev_prio=120 "
                        "prev_state=R ==> next_comm=swapper/1 next_pid=0 next_prio=120", &ev),
                  TRACE_LINE_EVENT);
        ASSERT_TRUE(ev.sw.prev_runnable);
        ASSERT_EQ(ev.sw.next_pid, 0);

        ASSERT_EQ(parse("x 1 [001] 1.000000: sched:sched_switch: prev_comm=x prev_pid=1 prev_prio=120 "
                        "prev_state=S|D ==> next_comm=swapper/1 next_pid=0 next_prio=120", &ev),
                  TRACE_LINE_EVENT);
        ASSERT_TRUE(!ev.sw.prev_runnable);
        ASSERT_EQ(ev.sw.prev_state, 0x3);
}

TEST(comm_with_spaces_and_brackets) {
        SchedEvent ev;

        ASSERT_EQ(parse("  Web [Content] 812 [003] 10.000001: sched:sched_wakeup: comm=Web Content pid=812 prio=120 "
                        "target_cpu=002", &ev),
                  TRACE_LINE_EVENT);
        ASSERT_EQ(ev.type, SCHED_EVENT_WAKEUP);
        ASSERT_EQ(ev.cpu, 3);
        ASSERT_STREQ(ev.wakeup.comm, "Web Content");
        ASSERT_EQ(ev.wakeup.pid, 812);
        ASSERT_EQ(ev.wakeup.target_cpu, 2);
}

/*
 * How the one-pass field scan (trace-fields.c) splits a line: a value runs to the next " word=", so a key inside
 * a comm ends the comm and counts as the first occurrence; '=' without a space before it, spaces, a newline.
 */
TEST(fields_split) {
        SchedEvent ev;

        /* A comm holding " prev_pid=": the first occurrence wins, as the old strstr() lookup had it. */
        ASSERT_EQ(parse("x 1 [000] 1.000000: sched:sched_switch: prev_comm=evil prev_pid=7 prev_pid=4533 prev_prio=120 "
                        "prev_state=S ==> next_comm=a b=c d next_pid=9 next_prio=120\n", &ev),
                  TRACE_LINE_EVENT);
        ASSERT_STREQ(ev.sw.prev_comm, "evil");
        ASSERT_EQ(ev.sw.prev_pid, 7);
        ASSERT_STREQ(ev.sw.next_comm, "a");
        ASSERT_EQ(ev.sw.next_pid, 9);

        /* '=' inside a word and spaces inside a comm do not end it; " ==> " does; comms are cut at 15 bytes. */
        ASSERT_EQ(parse("x 1 [000] 1.000000: sched:sched_switch: prev_comm=a=b c prev_pid=1 prev_prio=1 "
                        "prev_state=S|D ==> next_comm=Web Content Process next_pid=2 next_prio=3", &ev),
                  TRACE_LINE_EVENT);
        ASSERT_STREQ(ev.sw.prev_comm, "a=b c");
        ASSERT_EQ(ev.sw.prev_state, 0x3);
        ASSERT_STREQ(ev.sw.next_comm, "Web Content Pro");

        /* A key right after the event name, without a space; a "[ns]" ending runtime=; strtol()'s forms. */
        ASSERT_EQ(parse("sh 5 [001] 1.000000: sched:sched_stat_runtime:comm=sh pid= +5 runtime=7 [ns]", &ev),
                  TRACE_LINE_EVENT);
        ASSERT_STREQ(ev.runtime.comm, "sh");
        ASSERT_EQ(ev.runtime.pid, 5);
        ASSERT_U64_EQ(ev.runtime.runtime_ns, 7);
        ASSERT_EQ(parse("sh 5 [001] 1.000000: sched:sched_stat_runtime: comm=sh pid=5 runtime=12 [ns]", &ev),
                  TRACE_LINE_EVENT);
        ASSERT_U64_EQ(ev.runtime.runtime_ns, 12);
        ASSERT_EQ(parse("sh 5 [001] 1.000000: sched:sched_process_exit: comm=sh pid=-2147483648 "
                        "prio=0000000000000000000000000000000001", &ev), TRACE_LINE_EVENT);
        ASSERT_EQ(ev.exit.pid, INT32_MIN);
        ASSERT_EQ(ev.exit.prio, 0); /* only the first 31 bytes are read */
        ASSERT_EQ(parse("sh 5 [001] 1.000000: sched:sched_process_exit: comm=sh pid=2147483648 prio=1", &ev), -EINVAL);
        ASSERT_EQ(parse("sh 5 [001] 1.000000: sched:sched_stat_iowait: comm=sh pid=5 delay=-0 [ns]", &ev), -EINVAL);

        /* A newline ends a value, a key after it (and a space) still counts. */
        ASSERT_EQ(parse("sh 5 [001] 1.000000: sched:sched_process_exit: comm=sh\n pid=5 prio=1", &ev),
                  TRACE_LINE_EVENT);
        ASSERT_STREQ(ev.exit.comm, "sh");
        ASSERT_EQ(ev.exit.pid, 5);
}

TEST(other_events) {
        SchedEvent ev;

        ASSERT_EQ(parse("     migration/0    18 [000]   551.307792: sched:sched_migrate_task: comm=perf pid=4533 "
                        "prio=120 orig_cpu=0 dest_cpu=1", &ev),
                  TRACE_LINE_EVENT);
        ASSERT_EQ(ev.type, SCHED_EVENT_MIGRATE);
        ASSERT_EQ(ev.migrate.orig_cpu, 0);
        ASSERT_EQ(ev.migrate.dest_cpu, 1);

        ASSERT_EQ(parse("sh 4535 [001] 551.309252: sched:sched_stat_runtime: comm=sh pid=4535 runtime=1014308 [ns]",
                        &ev),
                  TRACE_LINE_EVENT);
        ASSERT_EQ(ev.type, SCHED_EVENT_RUNTIME);
        ASSERT_U64_EQ(ev.runtime.runtime_ns, 1014308);

        /* 6.1 still printed vruntime. */
        ASSERT_EQ(parse("sh 4535 [001] 551.309252: sched:sched_stat_runtime: comm=sh pid=4535 runtime=1014308 [ns] "
                        "vruntime=2000 [ns]", &ev),
                  TRACE_LINE_EVENT);
        ASSERT_U64_EQ(ev.runtime.runtime_ns, 1014308);

        ASSERT_EQ(parse("sh 4535 [001] 551.309252: sched:sched_process_exit: comm=sh pid=4535 prio=120 group_dead=1",
                        &ev),
                  TRACE_LINE_EVENT);
        ASSERT_EQ(ev.type, SCHED_EVENT_EXIT);
        ASSERT_EQ(ev.exit.pid, 4535);

        ASSERT_EQ(parse("bash 7 [000] 2.000000: sched:sched_wakeup_new: comm=bash pid=8 prio=120 target_cpu=001", &ev),
                  TRACE_LINE_EVENT);
        ASSERT_EQ(ev.type, SCHED_EVENT_WAKEUP_NEW);
        ASSERT_EQ(ev.wakeup.target_cpu, 1);

        /* schedstats kernels: the iowait boost's event (sched_stat_template's TP_printk) */
        ASSERT_EQ(parse("   swapper/1     0 [001]     1.001000: sched:sched_stat_iowait: comm=io pid=800 delay=900000 [ns]",
                        &ev),
                  TRACE_LINE_EVENT);
        ASSERT_EQ(ev.type, SCHED_EVENT_STAT_IOWAIT);
        ASSERT_EQ(ev.cpu, 1);
        ASSERT_U64_EQ(ev.time_ns, UINT64_C(1001000000));
        ASSERT_STREQ(ev.iowait.comm, "io");
        ASSERT_EQ(ev.iowait.pid, 800);
        ASSERT_U64_EQ(ev.iowait.delay_ns, 900000);
}

/* The tracefs `trace` file of 6.18: "comm-pid [cpu] flags time: event: fields" (kernel/trace/trace_output.c). */
TEST(ftrace_trace_file) {
        TraceTextFormat format = TRACE_TEXT_UNKNOWN;
        const char *reason = NULL;
        SchedEvent ev;

        ASSERT_EQ(trace_parse_line_format("            bash-4442    [000] d..2. 22554.847850: sched_switch: "
                                          "prev_comm=bash prev_pid=4442 prev_prio=120 prev_state=S ==> "
                                          "next_comm=cc1 next_pid=24922 next_prio=120\n", &format, &ev, &reason),
                  TRACE_LINE_EVENT);
        ASSERT_EQ(format, TRACE_TEXT_FTRACE);
        ASSERT_EQ(ev.type, SCHED_EVENT_SWITCH);
        ASSERT_EQ(ev.cpu, 0);
        ASSERT_U64_EQ(ev.time_ns, UINT64_C(22554847850000));
        ASSERT_TRUE(ev.has_context);
        ASSERT_EQ(ev.context_pid, 4442);
        ASSERT_STREQ(ev.sw.prev_comm, "bash");
        ASSERT_EQ(ev.sw.next_pid, 24922);
        ASSERT_TRUE(!ev.sw.prev_runnable);

        /* A perf script line in an ftrace trace: its first event line decided. */
        ASSERT_EQ(trace_parse_line_format("bash 7 [000] 2.000000: sched:sched_wakeup_new: comm=bash pid=8 prio=120 "
                                          "target_cpu=001", &format, &ev, &reason), -EINVAL);
        ASSERT_TRUE(reason && strstr(reason, "perf script"));

        /* The header comments, and the lost-events marker the kernel prints (print_trace_line()). */
        ASSERT_EQ(parse("# tracer: nop\n", &ev), TRACE_LINE_EMPTY);
        ASSERT_EQ(parse("#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n", &ev), TRACE_LINE_EMPTY);
        ASSERT_EQ(parse("CPU:1 [LOST 1234 EVENTS]\n", &ev), TRACE_LINE_LOST);
        ASSERT_EQ(parse("CPU:1 [LOST EVENTS]\n", &ev), -EINVAL);

        /* cpu_frequency without its subsystem. */
        TraceCpuFrequency f;
        ASSERT_EQ(trace_parse_cpu_frequency("          <idle>-0       [001] d.h2.   551.307795: cpu_frequency: "
                                            "state=1800000 cpu_id=1", &f), 1);
        ASSERT_EQ(f.cpu, 1);
        ASSERT_EQ(f.khz, 1800000u);
}

/* Sessions (trace-parse.h, TraceSession): setsid's exit in both layouts, a failed one, run-oracle.sh's lines. */
TEST(sessions) {
        TraceSession s;

        ASSERT_EQ(trace_parse_session("          setsid 28557 [001] 54400.776400718: syscalls:sys_exit_setsid: 0x6f8d",
                                      &s), 1);
        ASSERT_EQ(s.pid, 28557);
        ASSERT_EQ(s.sid, 28557);
        ASSERT_EQ(s.time_ns, UINT64_C(54400776400718));
        ASSERT_EQ(trace_parse_session("          setsid-28557   [001] d..1. 54400.776400: sys_exit_setsid: 0x6f8d",
                                      &s), 1);
        ASSERT_EQ(s.sid, 28557);
        /* -EPERM (a group leader already), printed unsigned: no new session */
        ASSERT_EQ(trace_parse_session("            bash   900 [000] 10.000000: syscalls:sys_exit_setsid: "
                                      "0xffffffffffffffff", &s), 0);
        ASSERT_EQ(trace_parse_session("            bash   900 [000] 10.000000: syscalls:sys_exit_setsid: zz", &s),
                  -EINVAL);
        ASSERT_EQ(trace_parse_session("# schedfreqd-session: pid=812 sid=800", &s), 1);
        ASSERT_EQ(s.pid, 812);
        ASSERT_EQ(s.sid, 800);
        ASSERT_EQ(s.time_ns, 0u);
        ASSERT_EQ(trace_parse_session("# schedfreqd-session: pid=2 sid=0", &s), 1);
        ASSERT_EQ(s.sid, 0);
        ASSERT_EQ(trace_parse_session("# schedfreqd-session: pid=812", &s), -EINVAL);
        ASSERT_EQ(trace_parse_session("# a comment", &s), 0);
        ASSERT_EQ(trace_parse_session("            bash   900 [000] 10.000000: sched:sched_stat_runtime: comm=bash "
                                      "pid=900 runtime=1 [ns]", &s), 0);
}

/*
 * The task column: comms with spaces and dashes (split at the last dash before the pid), the tgid column of
 * options/record-tgid ("(-------)" unknown), no flags column (options/irq-info off), old 4-character flags.
 */
TEST(ftrace_task_column) {
        SchedEvent ev;

        ASSERT_EQ(parse("   Web Content-a-812     (    800) [003]    10.000001: sched_wakeup: comm=Web Content "
                        "pid=812 prio=120 target_cpu=002", &ev), TRACE_LINE_EVENT);
        ASSERT_EQ(ev.context_pid, 812);
        ASSERT_EQ(ev.cpu, 3);
        ASSERT_STREQ(ev.wakeup.comm, "Web Content");
        ASSERT_EQ(ev.wakeup.target_cpu, 2);

        ASSERT_EQ(parse("          <idle>-0       (-------) [001] dN.3. 10.000001: sched_wakeup: comm=a pid=5 prio=120 "
                        "target_cpu=001", &ev), TRACE_LINE_EVENT);
        ASSERT_TRUE(ev.has_context);
        ASSERT_EQ(ev.context_pid, 0);

        ASSERT_EQ(parse("  kworker/u8:1-123   [000] d..3  10.000001: sched_wakeup: comm=a pid=5 prio=120 "
                        "success=1 target_cpu=001", &ev), TRACE_LINE_EVENT);
        ASSERT_EQ(ev.context_pid, 123);
        ASSERT_EQ(ev.wakeup.target_cpu, 1);

        /* No dash before the pid: no context, but the event is read. */
        ASSERT_EQ(parse("[000] d..3 10.000001: sched_wakeup: comm=a pid=5 prio=120 target_cpu=001", &ev),
                  TRACE_LINE_EVENT);
        ASSERT_TRUE(!ev.has_context);
}

/* Old kernels' print formats: prev_state letters of 3.x-4.13, R+ with TASK_STATE_MAX; a raw number (-R). */
TEST(ftrace_old_kernels) {
        SchedEvent ev;

        ASSERT_EQ(parse("  mover-600   (  600) [001] d..3     1.303000: sched_switch: prev_comm=mover prev_pid=600 "
                        "prev_prio=120 prev_state=D|K ==> next_comm=swapper/1 next_pid=0 next_prio=120", &ev),
                  TRACE_LINE_EVENT);
        ASSERT_TRUE(!ev.sw.prev_runnable);
        ASSERT_EQ(parse("  a-1 [001] d..3 1.3: sched_switch: prev_comm=a prev_pid=1 prev_prio=120 prev_state=x|W "
                        "==> next_comm=b next_pid=2 next_prio=120", &ev), -EINVAL); /* 1 decimal */
        ASSERT_EQ(parse("  a-1 [001] d..3 1.300000: sched_switch: prev_comm=a prev_pid=1 prev_prio=120 prev_state=R+ "
                        "==> next_comm=b next_pid=2 next_prio=120", &ev), TRACE_LINE_EVENT);
        ASSERT_TRUE(ev.sw.prev_runnable);
        ASSERT_EQ(parse("  a-1 [001] 1.300000000: sched_switch: prev_comm=a prev_pid=1 prev_prio=120 prev_state=256 "
                        "==> next_comm=b next_pid=2 next_prio=120", &ev), TRACE_LINE_EVENT);
        ASSERT_TRUE(ev.sw.prev_runnable);
        ASSERT_EQ(parse("  a-1 [001] 1.300000000: sched_switch: prev_comm=a prev_pid=1 prev_prio=120 prev_state=2050 "
                        "==> next_comm=b next_pid=2 next_prio=120", &ev), TRACE_LINE_EVENT);
        ASSERT_TRUE(!ev.sw.prev_runnable);
}

/* trace-cmd report 3.1.6: the sched_switch plugin's forms, the buffer name of -B, its own non-event lines. */
TEST(trace_cmd_report) {
        SchedEvent ev;

        ASSERT_EQ(parse("cpus=2\n", &ev), TRACE_LINE_EMPTY);
        ASSERT_EQ(parse("CPU 1 is empty\n", &ev), TRACE_LINE_EMPTY);
        ASSERT_EQ(parse("CPU:0 [123 EVENTS DROPPED]\n", &ev), TRACE_LINE_LOST);
        ASSERT_EQ(parse("CPU:0 [EVENTS DROPPED]\n", &ev), TRACE_LINE_LOST);

        ASSERT_EQ(parse("sfqfmt:               sh-636   [000] 22602.174041: sched_switch:         trace-cmd:636 [120] "
                        "t ==> trace-cmd:635 [120]\n", &ev), TRACE_LINE_EVENT);
        ASSERT_EQ(ev.context_pid, 636);
        ASSERT_STREQ(ev.sw.prev_comm, "trace-cmd");
        ASSERT_EQ(ev.sw.prev_pid, 636);
        ASSERT_EQ(ev.sw.prev_prio, 120);
        ASSERT_TRUE(!ev.sw.prev_runnable);
        ASSERT_STREQ(ev.sw.next_comm, "trace-cmd");
        ASSERT_EQ(ev.sw.next_pid, 635);
        ASSERT_EQ(ev.sw.next_prio, 120);

        /* Comms with ':', spaces and " ==> "; a preempted task shows as R. */
        ASSERT_EQ(parse("  x-1 [001] 5.000000: sched_switch: a ==> b:c:7 [-1] R ==> kworker/1:0:8 [100]", &ev),
                  TRACE_LINE_EVENT);
        ASSERT_STREQ(ev.sw.prev_comm, "a ==> b:c");
        ASSERT_EQ(ev.sw.prev_pid, 7);
        ASSERT_EQ(ev.sw.prev_prio, -1);
        ASSERT_TRUE(ev.sw.prev_runnable);
        ASSERT_STREQ(ev.sw.next_comm, "kworker/1:0");
        ASSERT_EQ(ev.sw.next_pid, 8);

        ASSERT_EQ(parse("          <idle>-0     [001] 22602.174057: sched_wakeup:         strace:629 [120] CPU:001",
                        &ev), TRACE_LINE_EVENT);
        ASSERT_EQ(ev.type, SCHED_EVENT_WAKEUP);
        ASSERT_STREQ(ev.wakeup.comm, "strace");
        ASSERT_EQ(ev.wakeup.pid, 629);
        ASSERT_EQ(ev.wakeup.prio, 120);
        ASSERT_EQ(ev.wakeup.target_cpu, 1);
        ASSERT_EQ(parse("  a-1 [001] 1.000000: sched_wakeup_new: Web Content:9 [120] success=1 CPU:003", &ev),
                  TRACE_LINE_EVENT);
        ASSERT_EQ(ev.type, SCHED_EVENT_WAKEUP_NEW);
        ASSERT_STREQ(ev.wakeup.comm, "Web Content");
        ASSERT_EQ(ev.wakeup.target_cpu, 3);

        static const char *const bad[] = {
                "  a-1 [001] 1.000000: sched_switch: a:1 [120] Q ==> b:2 [120]",
                "  a-1 [001] 1.000000: sched_switch: a:1 [120] S ==> b:2",
                "  a-1 [001] 1.000000: sched_switch: a:x [120] S ==> b:2 [120]",
                "  a-1 [001] 1.000000: sched_wakeup: a:1 [120] CPU:",
                "  a-1 [001] 1.000000: sched_wakeup: a:1 [120] CPU:-1",
                "  a-1 [001] 1.000000: sched_wakeup: a:1 CPU:001",
                "  a-1 [001] 1.000000: sched_wakeup: 1 [120] CPU:001",
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                if (parse(bad[i], &ev) != -EINVAL)
                        TEST_FAIL("accepted or mis-rejected: %s", bad[i]);
}

TEST(skipped_lines) {
        SchedEvent ev;

        ASSERT_EQ(parse("\n", &ev), TRACE_LINE_EMPTY);
        ASSERT_EQ(parse("# perf script header", &ev), TRACE_LINE_EMPTY);
        ASSERT_EQ(parse("bash 7 [000] 2.000000: sched:sched_waking: comm=bash pid=8 prio=120 target_cpu=001", &ev),
                  TRACE_LINE_OTHER);
        ASSERT_EQ(parse("bash 7 [000] 2.000000: irq:irq_handler_entry: irq=1 name=i8042", &ev), TRACE_LINE_OTHER);
}

TEST(malformed) {
        static const char *const bad[] = {
                "garbage",
                "perf 1 [000] 551.30778: sched:sched_switch: prev_comm=a prev_pid=1 prev_prio=1 prev_state=S ==> "
                "next_comm=b next_pid=2 next_prio=3", /* 5 fractional digits */
                "perf 1 [000] 551.307788: sched:sched_switch: prev_comm=a prev_pid=x prev_prio=1 prev_state=S ==> "
                "next_comm=b next_pid=2 next_prio=3",
                "perf 1 [000] 551.307788: sched:sched_switch: prev_comm=a prev_pid=1 prev_prio=1 prev_state=Q ==> "
                "next_comm=b next_pid=2 next_prio=3",
                "perf 1 [000] 551.307788: sched:sched_switch: prev_comm=a prev_pid=1 prev_prio=1 prev_state=S",
                "perf 1 [000] 551.307788: sched:sched_wakeup: comm=a pid=1 prio=120",
                "perf 1 [000] 551.307788: sched:sched_wakeup: comm=a pid=1 prio=120 target_cpu=-1",
                "perf 1 [000] 551.307788: sched:sched_migrate_task: comm=a pid=1 prio=120 orig_cpu=0",
                "perf 1 [000] 551.307788: sched:sched_stat_runtime: comm=a pid=1 runtime=-5 [ns]",
                "perf 1 [000] 551.307788: sched:sched_process_exit: comm=a",
                "perf 1 [000] 551.307788: sched:sched_stat_iowait: comm=a pid=1 [ns]",
                "perf 1 [000] 551.307788: sched:sched_stat_iowait: comm=a delay=5 [ns]",
                "perf 1 [000] 99999999999999999999.000000: sched:sched_process_exit: comm=a pid=1 prio=1",
        };
        SchedEvent ev;

        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
                if (parse(bad[i], &ev) != -EINVAL)
                        TEST_FAIL("accepted or mis-rejected: %s", bad[i]);
}

DEFINE_TEST_MAIN
