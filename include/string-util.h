/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Small string helpers shared by the line parsers (topology INI, state file). */

/* Cuts the whitespace (isspace()) at both ends of @s in place; returns the first non-space character. */
char *strip(char *s);
