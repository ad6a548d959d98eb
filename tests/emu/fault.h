/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * fault.h: injected faults for cpufreq-emu: the rules a test writes to the hidden control file .emu-faults
 * at the mount root, and the check the FUSE glue makes before each open, read (show) and write (store).
 * Pure: no FUSE, no Emu, no logging, so tests/unit/test-emu-fault.c links fault.c alone.
 *
 * Commands, one per line (a write may hold several; it is applied all or nothing; bash's echo and printf
 * flush stdout at each newline, so several rules go in one write(2) with `cat FILE > .emu-faults`):
 *
 *   fail PATH ERRNO [op=write|read|open] [after=K] [count=N] [prob=P] [seed=S]
 *   clear [PATH]
 *
 * PATH is relative to the mount root, as the emulator sees it (cpufreq/policy1/scaling_setspeed; the
 * cpuN/cpufreq link is resolved by the kernel before the emulator sees a path), or an fnmatch(3) pattern
 * (FNM_PATHNAME: '*' does not cross '/'). ERRNO is a name (EBUSY) or a number. A matching op first passes
 * @after times; after that it fails, with probability P (default 1) drawn from the rule's own PRNG seeded
 * with S (default 1), until the rule has failed N ops (default: no limit); then the rule is spent but still
 * listed. Rules are consulted in order, and the first one that fails an op ends the walk (later rules do
 * not see that op). `clear` removes every rule, `clear PATH` those written with exactly that PATH.
 *
 * Reading .emu-faults lists the rules, one line each:
 *
 *   fail PATH ERRNO op=OP after=K count=N|inf prob=P seed=S seen=M hits=H[ spent]
 *
 * seen counts the matching ops the rule was consulted for, hits those it failed.
 */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Enough for any emulated path (the longest, cpufreq/policyNNN/scaling_available_frequencies, is 49). */
#define FAULT_PATH_MAX 64
#define FAULT_RULES_MAX 16
/* One listed rule, worst case: "fail " + path + " E<15 chars>" + op + after + count + prob (%.9g) + seed +
 * seen + hits + " spent\n". The whole list fits one page (tree.c checks). */
#define FAULT_LINE_MAX 240
/* The longest reason fault_set_apply() gives for refusing a write. */
#define FAULT_WHY_MAX 256

typedef enum FaultOp {
        FAULT_OP_WRITE, /* the store: the value is not applied */
        FAULT_OP_READ,  /* the show */
        FAULT_OP_OPEN,  /* the open, for reading or writing */
        _FAULT_OP_MAX,
        _FAULT_OP_INVALID = -EINVAL,
} FaultOp;

typedef struct FaultRule {
        char path[FAULT_PATH_MAX]; /* as written: an exact path or a pattern */
        int error;                 /* positive errno */
        FaultOp op;
        uint32_t after;            /* matching ops that pass before faults start */
        uint32_t count;            /* ops to fail, then the rule is spent; 0: no limit */
        double prob;               /* in [0, 1] */
        uint64_t seed;
        uint64_t rng;              /* xorshift64* state, from @seed */
        uint64_t seen;             /* matching ops consulted */
        uint64_t hits;             /* ops failed */
} FaultRule;

typedef struct FaultSet {
        FaultRule rules[FAULT_RULES_MAX];
        size_t n_rules;
} FaultSet; /* all zero: no rule */

const char *fault_op_to_string(FaultOp op);
FaultOp fault_op_from_string(const char *s);

/* "EBUSY" or "16" -> 16. Only errnos a FUSE reply can carry (1..511); -EINVAL otherwise. */
int fault_errno_from_string(const char *s);

/* Applies the commands in @text (NUL-terminated, one per line; blank lines and lines starting with '#' are
 * skipped) to @s, all or nothing. Returns 0, -EINVAL for a bad command or -ENOSPC for more than
 * FAULT_RULES_MAX rules; then @s is unchanged and @why (of @why_size bytes) says which line and why. */
int fault_set_apply(FaultSet *s, const char *text, char *why, size_t why_size);

/* Called for each @op on @path (relative to the mount root): 0 to let it proceed, or the negative errno of
 * the first rule that fails it (that rule's hits grow). */
int fault_set_check(FaultSet *s, FaultOp op, const char *path);

bool fault_rule_spent(const FaultRule *r);

/* The listing described above, NUL-terminated; returns its length (truncated to @size - 1). */
int fault_set_format(const FaultSet *s, char *buf, size_t size);
