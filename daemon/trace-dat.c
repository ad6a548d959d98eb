/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace-dat.c: a trace-cmd .dat → SchedEvents (include/trace-dat.h). libtracecmd reads the file (headers, the
 * event formats into a libtraceevent handle, the per-CPU ring-buffer pages, their merge in time order); each
 * record's payload is the kernel's trace entry, the bytes a perf ring's PERF_SAMPLE_RAW carries, so the live
 * daemon's decoder (tp-decode.c) decodes it with the layouts tp_format_from_tep() takes from the file's formats.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <trace-cmd.h>

#include "tp-decode.h"
#include "tp-format.h"
#include "trace-dat.h"

struct TraceDat {
        struct tracecmd_input *input;
        struct tracecmd_input **handles; /* input, then one per buffer instance (trace-cmd record -B) */
        int n_handles;
        struct tep_handle *tep;
        TpFormat format;
};

typedef struct IterateContext {
        TraceDat *dat;
        TraceDatHandler handler;
        void *userdata;
        uint64_t index;
        int error;             /* the handler's, or -EBADMSG with reason */
        char *reason;
} IterateContext;

bool trace_dat_magic(const void *head, size_t size) {
        return size >= TRACE_DAT_MAGIC_LEN && memcmp(head, TRACE_DAT_MAGIC, TRACE_DAT_MAGIC_LEN) == 0;
}

TraceDat *trace_dat_free(TraceDat *d) {
        if (!d)
                return NULL;
        /* An instance's handle holds a reference on the input (tracecmd_close() of it drops it). */
        for (int i = d->n_handles - 1; i >= 1; i--)
                tracecmd_close(d->handles[i]);
        tracecmd_close(d->input);
        free(d->handles);
        free(d);
        return NULL;
}

/*
 * tracecmd_open_fd() with stdout pointed at /dev/null: libtracecmd 3.1 reports a truncated file with a printf()
 * (lib/trace-cmd/trace-input.c, read_cpu_data() and init_buffer_cpu_data(): "File possibly truncated"), which
 * would land among the decisions scripts read. Our own error says it instead.
 */
static struct tracecmd_input *open_quietly(int fd) {
        struct tracecmd_input *input;
        int saved = -EBADF, null_fd;

        (void) fflush(stdout);
        null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
        if (null_fd >= 0) {
                saved = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
                if (saved < 0 || dup2(null_fd, STDOUT_FILENO) < 0) {
                        if (saved >= 0)
                                (void) close(saved);
                        saved = -EBADF;
                }
                (void) close(null_fd);
        }
        input = tracecmd_open_fd(fd, TRACECMD_FL_LOAD_NO_PLUGINS | TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS);
        if (saved >= 0) {
                (void) dup2(saved, STDOUT_FILENO);
                (void) close(saved);
        }
        return input;
}

static int open_buffers(TraceDat *d) {
        int n = tracecmd_buffer_instances(d->input);

        if (n < 0)
                n = 0;
        d->handles = calloc((size_t) n + 1, sizeof(*d->handles));
        if (!d->handles)
                return -ENOMEM;
        d->handles[d->n_handles++] = d->input;
        for (int i = 0; i < n; i++) {
                struct tracecmd_input *h = tracecmd_buffer_instance_handle(d->input, i);

                if (!h)
                        return -EBADMSG;
                d->handles[d->n_handles++] = h;
        }
        return 0;
}

/* The layouts of the file's own sched formats (its own function: gcc 12's -fanalyzer takes a _cleanup_free_ variable
 * initialised to NULL for uninitialised on an early return before its use, docs/reliability.md). */
static int dat_read_format(TraceDat *d, char **ret_error) {
        _cleanup_free_ char *reason = NULL;
        int r = tp_format_from_tep(d->tep, &d->format, &reason);

        if (r < 0 && ret_error && reason && asprintf(ret_error, "the event format of %s", reason) < 0)
                *ret_error = NULL;
        return r;
}

int trace_dat_open(int fd, TraceDat **ret, char **ret_error) {
        _cleanup_(trace_dat_freep) TraceDat *d = NULL;
        int own_fd, r;

        d = calloc(1, sizeof(*d));
        if (!d)
                return -ENOMEM;
        /* libtracecmd reads from the start and closes the fd with the handle: give it its own. */
        own_fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        if (own_fd < 0)
                return -errno;
        if (lseek(own_fd, 0, SEEK_SET) < 0) {
                r = -errno;
                (void) close(own_fd);
                if (ret_error)
                        *ret_error = strdup("a trace-cmd .dat is read from a file, not a pipe: give its path");
                return r == -ESPIPE ? -EINVAL : r;
        }
        tracecmd_set_loglevel(TEP_LOG_NONE);
        d->input = open_quietly(own_fd);
        if (!d->input) {
                (void) close(own_fd);
                if (ret_error)
                        *ret_error = strdup("not a readable trace-cmd .dat (truncated or corrupt: libtracecmd "
                                            "cannot open it)");
                return -EBADMSG;
        }
        r = open_buffers(d);
        if (r < 0) {
                if (ret_error && r == -EBADMSG)
                        *ret_error = strdup("a buffer instance of the .dat cannot be opened (truncated or corrupt)");
                return r;
        }
        d->tep = tracecmd_get_tep(d->input);
        if (!d->tep)
                return -EBADMSG;
        r = dat_read_format(d, ret_error);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(d);
        return 0;
}

static int iterate_error(IterateContext *c, const char *reason) {
        c->error = -EBADMSG;
        c->reason = strdup(reason);
        return -1;
}

static int on_record(struct tracecmd_input *handle, struct tep_record *record, int cpu, void *userdata) {
        IterateContext *c = ASSERT_PTR(userdata);
        const TpFormat *f = &c->dat->format;
        uint64_t lost = record->missed_events > 0 ? (uint64_t) record->missed_events :
                        record->missed_events < 0 ? UINT64_MAX : 0;
        SchedEvent ev;
        int r;

        c->index++;
        if (record->size < 0 || !record->data)
                return iterate_error(c, "a record without data");
        if (sched_event_decode_type(f, record->data, (size_t) record->size) < 0) {
                r = c->handler(NULL, c->index, lost, c->userdata);
                if (r < 0) {
                        c->error = r;
                        return -1;
                }
                return 0;
        }
        if (sched_event_decode(f, record->data, (size_t) record->size, &ev) < 0)
                return iterate_error(c, "a record shorter than its event's format, or with a string outside it");
        ev.time_ns = record->ts;
        ev.cpu = record->cpu;
        ev.context_pid = tep_data_pid(c->dat->tep, record);
        ev.has_context = ev.context_pid >= 0;
        r = c->handler(&ev, c->index, lost, c->userdata);
        if (r < 0) {
                c->error = r;
                return -1;
        }
        return 0;
}

int trace_dat_iterate(TraceDat *d, TraceDatHandler handler, void *userdata, uint64_t *ret_index, char **ret_reason) {
        IterateContext c = { .dat = d, .handler = handler, .userdata = userdata };

        (void) tracecmd_iterate_events_multi(d->handles, d->n_handles, on_record, &c);
        *ret_index = c.index;
        if (c.error < 0) {
                if (ret_reason)
                        *ret_reason = c.reason;
                else
                        free(c.reason);
                return c.error;
        }
        return 0;
}
