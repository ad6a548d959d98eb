/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * Which names a raw BTF file has, without parsing its types: the name of every type is a string of its string
 * section (include/uapi/linux/btf.h struct btf_header, Documentation/bpf/btf.rst "String Encoding": NUL-separated,
 * a NUL first), so a name the strings lack no type has. bpf-events.c asks the running kernel which tracepoints
 * it has this way (one typedef btf_trace_NAME per tracepoint): 2.3 MB of strings in ~560 reads of
 * /sys/kernel/btf/vmlinux, instead of libbpf parsing the whole 5.5 MB file, which it then does again to load the
 * programs (measured 2-10 ms against 4-47 ms for the parse on the 2-vCPU VMs).
 */

#include <stdbool.h>
#include <stddef.h>

/* Sets @ret_found[i] to whether @path's string section holds @names[i] as a whole string, for i < @n. 0, or a
 * negative errno: -EINVAL when @path is not BTF in this machine's byte order, or its sections lie outside it. */
int btf_file_has_names(const char *path, const char *const *names, size_t n, bool *ret_found);

/* The same on a string section already read: @len bytes at @strings, as BTF stores them. */
void btf_strings_have_names(const char *strings, size_t len, const char *const *names, size_t n, bool *ret_found);
