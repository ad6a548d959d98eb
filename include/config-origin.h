/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdint.h>

/*
 * Where a setting was read, for messages that come after the load (config_check_topology(), the checks of
 * [rule:NAME] sections): a file name kept in Config.origin_files and a line. Config stays a plain value
 * (copied, never freed), so the names live inside it; line 0 = not read from a file.
 */
typedef struct ConfigOrigin {
        uint32_t file;            /* offset of the NUL-terminated name in Config.origin_files */
        uint32_t line;
} ConfigOrigin;
