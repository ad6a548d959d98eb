/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * actuator_state_parse() on arbitrary state file text (fmemopen). Contract (include/actuator.h): -EINVAL
 * comes with a "NAME:LINE: reason"; what it returns is freed by actuator_saved_free_many() (the leak checker
 * holds it to that).
 */

#include <string.h>

#include "actuator.h"
#include "fuzz.h"
#include "macro.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_free_ char *error = NULL, *text = NULL;
        _cleanup_fclose_ FILE *f = NULL;
        ActuatorSaved *s = NULL;
        size_t n = 0;
        int r;

        /* fmemopen() refuses a zero size on older glibc: an empty input is /dev/null. */
        if (size == 0)
                f = fopen("/dev/null", "re");
        else {
                text = malloc(size);
                if (!text)
                        return 0;
                memcpy(text, data, size);
                f = fmemopen(text, size, "r");
        }
        if (!f)
                return 0;

        r = actuator_state_parse(f, "fuzz/state", &s, &n, &error);
        if (r == -EINVAL)
                FUZZ_ASSERT(error);
        if (r >= 0) {
                for (size_t i = 0; i < n; i++)
                        FUZZ_ASSERT(s[i].dir);
                actuator_saved_free_many(s, n);
        }
        return 0;
}
