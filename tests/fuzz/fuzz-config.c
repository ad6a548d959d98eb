/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * config_load() on arbitrary file contents (it reads a path: the input goes through a memfd). Contract
 * (include/config.h): any error but -ENOMEM comes with a message; @ret is only written on success.
 */

#include <string.h>

#include "config.h"
#include "fuzz.h"
#include "macro.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_free_ char *error = NULL;
        char path[32];
        Config cfg, untouched;
        int r;

        if (fuzz_memfd_path(data, size, path) < 0)
                return 0;
        memset(&cfg, 0xa5, sizeof(cfg));
        untouched = cfg;

        /* missing_ok = false: the memfd always exists; a "missing" error would be a bug here. */
        r = config_load(path, false, &cfg, &error);
        if (r < 0) {
                FUZZ_ASSERT(r == -ENOMEM || error);
                FUZZ_ASSERT(memcmp(&cfg, &untouched, sizeof(cfg)) == 0);
        }
        return 0;
}
