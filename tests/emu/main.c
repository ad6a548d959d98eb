/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cpufreq-emu: serves an emulated /sys/devices/system/cpu over FUSE (libfuse3 high-level API, one thread).
 *
 *   cpufreq-emu --topology FILE [--log FILE] [--ready-fd N] [--foreground] [--die-with-parent] [--debug]
 *               [--uevents] MOUNTPOINT
 *
 * Meant to run as root inside a private mount namespace (tests/emu-run). Mounted with allow_other so other
 * users' processes see the tree too, and without default_permissions: the emulator itself enforces what
 * kernfs does (an open for writing of a read-only attribute is EACCES even for root, 0400 files are root's).
 *
 * Why the FUSE settings: every write() must reach the store function as one call, and its error must reach
 * the writer, so files are direct_io (through the page cache a failed write turns into EIO or is merged
 * with others), and file contents never come from a cache. What the kernel caches is the names: the path
 * walk of an open(2) on sysfs runs in the dcache (fs/kernfs/dir.c kernfs_dop_revalidate()), so here too a
 * name once looked up stays (entry_timeout ENTRY_TIMEOUT_S): opening cpufreq/policy5/scaling_governor again
 * costs the open and the read, not a LOOKUP for each of its three components first (at zero timeouts three
 * quarters of a 1024-CPU daemon start-up's requests were lookups). Nothing else is cached, and every request
 * resolves its path again (emu_resolve()), so a node that goes away (cpuN/topology when its CPU goes offline,
 * schedutil/ when the governor changes) still fails as on sysfs: stat(2) with ENOENT (attributes are not
 * cached, so the kernel asks: GETATTR), open(2), opendir(3) and access(2) with ENOENT (op_open, op_opendir,
 * op_access); and a node that appears is seen at once (negative timeout 0: no cached "no such file"). Link
 * targets are cached as well (FUSE_CAP_CACHE_SYMLINKS; kernfs builds them in memory): the links never go
 * away or change (cpuN/cpufreq stays once its policy exists, always to the same policyM), and no name changes
 * type, so a cached name is never wrong, only possibly gone.
 *
 * Hotplug announcements (--uevents): a write to cpuN/online that changes the CPU's state also sends the
 * kernel's uevent (emu-uevent.c). Refused in the initial network namespace, where the host's udev would hear
 * it: tests/emu-run --net --uevents runs the emulator and the command in a private one.
 *
 * Fault injection: the hidden file .emu-faults at the mount root (mode 0600, found by name, never listed)
 * takes commands that make chosen ops fail; the language is in fault.h. Each write is handled in this one
 * thread, so when `echo ... > .emu-faults` returns, the rules are in force. Inside the namespace:
 *
 *   echo 'fail cpufreq/policy1/scaling_setspeed EBUSY count=2' > /sys/devices/system/cpu/.emu-faults
 *   echo 'fail cpufreq/policy?/scaling_governor EIO prob=0.3 seed=7' > .../.emu-faults
 *   echo 'fail cpufreq/policy0/scaling_cur_freq EIO op=read after=1' > .../.emu-faults
 *   cat .../.emu-faults        # the rules, each with seen= and hits= counters
 *   echo clear > .../.emu-faults
 *
 * A write fault fails the store before the attribute sees the value; a read fault fails the show; an open
 * fault fails the open. A bad command fails the write with EINVAL (ENOSPC past 16 rules) and one line on
 * stderr says why. Injected write failures (and failed opens for writing) go to the write log like the
 * kernel's own, with " injected" after the errno (emu-log.c). The control file itself is never faulted.
 *
 * Request counts: the hidden file .emu-ops (mode 0600, never listed) shows how many requests the emulator served
 * for the tree since it started, one "KIND COUNT" line per kind (getattr: LOOKUP and GETATTR, readlink, readdir,
 * opendir, open, read, write; the control files are not counted); `echo reset > .emu-ops` zeroes them. What
 * tests/integration/test-startup-sysfs.sh bounds a daemon start-up by.
 */

#define FUSE_USE_VERSION 31

#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <fuse_lowlevel.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "emu.h"
#include "log.h"
#include "macro.h"

/* Per open file: the text a read at offset 0 produced, so a reader that continues at a later offset sees
 * the same snapshot, as kernfs' seq_file does. A read at offset 0 always regenerates (pread loops). */
typedef struct OpenFile {
        size_t len;
        bool valid;
        bool control;         /* a control file: its reads are not counted (.emu-ops) */
        char buf[EMU_PAGE_SIZE];
} OpenFile;

static Emu *emu_of_context(void) {
        return fuse_get_context()->private_data;
}

static const char *relative(const char *path) {
        return path + strspn(path, "/");
}

/* The errno a rule of .emu-faults gives this op on @n, or 0. */
static int injected_fault(Emu *e, const Node *n, FaultOp op, const char *path) {
        if (n->type == NODE_CONTROL)
                return 0;
        return fault_set_check(&e->faults, op, relative(path));
}

/* How long the kernel keeps a name it looked up (see the top of the file): the emulator's lifetime, in
 * practice; a long test runs a few minutes. */
#define ENTRY_TIMEOUT_S (24.0 * 3600)

static void *op_init(struct fuse_conn_info *conn, struct fuse_config *cfg) {
        /* Link targets too (see the top of the file): a walk through cpuN/cpufreq, as every libcpupower path
         * takes, then costs no READLINK each time, as on sysfs (kernfs_iop_get_link() needs no I/O). */
        if (conn->capable & FUSE_CAP_CACHE_SYMLINKS)
                conn->want |= FUSE_CAP_CACHE_SYMLINKS;
        cfg->entry_timeout = ENTRY_TIMEOUT_S;
        cfg->attr_timeout = 0;
        cfg->negative_timeout = 0;
        cfg->direct_io = 1;
        cfg->kernel_cache = 0;
        cfg->auto_cache = 0;
        return emu_of_context();
}

static int op_getattr(const char *path, struct stat *st, struct fuse_file_info *fi) {
        Emu *e = emu_of_context();
        char target[64];
        Node n;
        int r;

        r = emu_resolve(e, path, &n);
        emu_count_op(e, EMU_OP_GETATTR, r < 0 ? NULL : &n);
        if (r < 0)
                return r;

        *st = (struct stat) {
                .st_mode = emu_node_mode(&n),
                .st_nlink = n.type == NODE_DIR ? 2 : 1,
                .st_uid = 0,
                .st_gid = 0,
                .st_blksize = EMU_PAGE_SIZE,
                .st_atim = e->birth,
                .st_mtim = e->birth,
                .st_ctim = e->birth,
        };
        if (n.type == NODE_FILE || n.type == NODE_CONTROL)
                st->st_size = EMU_PAGE_SIZE; /* sysfs reports a page for every attribute */
        else if (n.type == NODE_LINK)
                st->st_size = emu_node_readlink(&n, target, sizeof(target));
        return 0;
}

static int op_readlink(const char *path, char *buf, size_t size) {
        Emu *e = emu_of_context();
        Node n;
        int r;

        r = emu_resolve(e, path, &n);
        emu_count_op(e, EMU_OP_READLINK, r < 0 ? NULL : &n);
        if (r < 0)
                return r;
        r = emu_node_readlink(&n, buf, size);
        return r < 0 ? r : 0;
}

typedef struct FillContext {
        void *buf;
        fuse_fill_dir_t filler;
} FillContext;

static int fill_one(void *userdata, const char *name, const Node *n) {
        FillContext *c = userdata;
        struct stat st = { .st_mode = emu_node_mode(n) };

        return c->filler(c->buf, name, &st, 0, 0) ? -ENOBUFS : 0;
}

static int op_readdir(const char *path, void *buf, fuse_fill_dir_t filler, off_t offset, struct fuse_file_info *fi,
                      enum fuse_readdir_flags flags) {
        FillContext c = { .buf = buf, .filler = filler };
        Emu *e = emu_of_context();
        Node n;
        int r;

        r = emu_resolve(e, path, &n);
        emu_count_op(e, EMU_OP_READDIR, r < 0 ? NULL : &n);
        if (r < 0)
                return r;
        if (n.type != NODE_DIR)
                return -ENOTDIR;

        (void) filler(buf, ".", NULL, 0, 0);
        (void) filler(buf, "..", NULL, 0, 0);
        r = emu_node_list(e, &n, fill_one, &c);
        return r == -ENOBUFS ? 0 : r;
}

/* The directory must still exist: with names cached, the kernel opens it without a LOOKUP. */
static int op_opendir(const char *path, struct fuse_file_info *fi) {
        Emu *e = emu_of_context();
        Node n;
        int r;

        r = emu_resolve(e, path, &n);
        emu_count_op(e, EMU_OP_OPENDIR, r < 0 ? NULL : &n);
        if (r < 0)
                return r;
        return n.type == NODE_DIR ? 0 : -ENOTDIR;
}

/* access(2): whether the node exists, as the LOOKUP said when names were not cached. Nothing more, as before
 * (without this op the kernel takes ENOSYS as "allowed" for good): op_open enforces the modes. */
static int op_access(const char *path, int mask) {
        Node n;

        return emu_resolve(emu_of_context(), path, &n);
}

/* kernfs_fop_open(): opening for writing needs a store function and a write bit, even for root
 * (CAP_DAC_OVERRIDE passes the VFS check, then kernfs says -EACCES). Other users get the mode bits. */
static int check_open(const Node *n, int flags, uid_t uid) {
        int acc = flags & O_ACCMODE;
        mode_t mode = emu_node_mode(n);

        if (acc != O_RDONLY) {
                if (!(mode & S_IWUSR) || uid != 0)
                        return -EACCES;
        }
        if (acc != O_WRONLY && uid != 0 && !(mode & S_IROTH))
                return -EACCES;
        return 0;
}

static int op_open(const char *path, struct fuse_file_info *fi) {
        Emu *e = emu_of_context();
        bool injected;
        OpenFile *of;
        Node n;
        int r;

        r = emu_resolve(e, path, &n);
        emu_count_op(e, EMU_OP_OPEN, r < 0 ? NULL : &n);
        if (r < 0)
                return r;
        if (n.type != NODE_FILE && n.type != NODE_CONTROL)
                return -EISDIR;

        r = check_open(&n, fi->flags, fuse_get_context()->uid);
        injected = false;
        if (r >= 0) {
                r = injected_fault(e, &n, FAULT_OP_OPEN, path);
                injected = r < 0;
        }
        if (r < 0) {
                if ((fi->flags & O_ACCMODE) != O_RDONLY)
                        emu_log_write(e, relative(path), "", 0, r, injected);
                return r;
        }

        of = calloc(1, sizeof(*of));
        if (!of)
                return -ENOMEM;
        of->control = n.type == NODE_CONTROL;
        fi->fh = (uint64_t) (uintptr_t) of;
        fi->direct_io = 1;
        fi->keep_cache = 0;
        return 0;
}

static int op_release(const char *path, struct fuse_file_info *fi) {
        free((OpenFile *) (uintptr_t) fi->fh);
        fi->fh = 0;
        return 0;
}

static int op_read(const char *path, char *buf, size_t size, off_t offset, struct fuse_file_info *fi) {
        OpenFile *of = (OpenFile *) (uintptr_t) fi->fh;
        Emu *e = emu_of_context();
        size_t n;

        if (!of)
                return -EBADF;
        if (!of->control)
                e->ops[EMU_OP_READ]++;

        if (offset == 0 || !of->valid) {
                Node node;
                int r;

                r = emu_resolve(e, path, &node);
                if (r < 0)
                        return -ENODEV; /* the node went away under an open file (kernfs_get_active() fails) */
                r = injected_fault(e, &node, FAULT_OP_READ, path);
                if (r < 0)
                        return r;
                r = emu_node_show(e, &node, of->buf, sizeof(of->buf));
                if (r < 0)
                        return r;
                of->len = (size_t) r;
                of->valid = true;
        }

        if (offset < 0 || (size_t) offset >= of->len)
                return 0;
        n = MIN(size, of->len - (size_t) offset);
        memcpy(buf, of->buf + offset, n);
        return (int) n;
}

/* kernfs_fop_write_iter() + sysfs_kf_write(): at most a page, NUL-terminated, the offset ignored by every
 * cpufreq store; an empty write stores nothing. Each call is one store and is logged. */
static int op_write(const char *path, const char *buf, size_t size, off_t offset, struct fuse_file_info *fi) {
        char kbuf[EMU_PAGE_SIZE + 1];
        Emu *e = emu_of_context();
        size_t len;
        Node n;
        int r;

        r = emu_resolve(e, path, &n);
        emu_count_op(e, EMU_OP_WRITE, r < 0 ? NULL : &n);
        if (r < 0)
                r = -ENODEV;
        if (r < 0 || size == 0) {
                if (r < 0 || n.type != NODE_CONTROL)
                        emu_log_write(e, relative(path), buf, size, r, false);
                return r;
        }

        len = MIN(size, (size_t) EMU_PAGE_SIZE);
        memcpy(kbuf, buf, len);
        kbuf[len] = '\0';

        /* The control file is not sysfs: its writes stay out of the write log. */
        if (n.type == NODE_CONTROL) {
                r = emu_node_store(e, &n, kbuf);
                return r < 0 ? r : (int) len;
        }

        r = injected_fault(e, &n, FAULT_OP_WRITE, path);
        if (r < 0) {
                emu_log_write(e, relative(path), buf, len, r, true);
                return r;
        }

        emu_log_store_begin(e);
        r = emu_node_store(e, &n, kbuf);
        emu_log_write(e, relative(path), buf, len, r, false);
        return r < 0 ? r : (int) len;
}

/* O_TRUNC and truncate(2): kernfs' setattr ignores the size, so this succeeds and changes nothing. */
static int op_truncate(const char *path, off_t size, struct fuse_file_info *fi) {
        Node n;

        return emu_resolve(emu_of_context(), path, &n);
}

static int op_create(const char *path, mode_t mode, struct fuse_file_info *fi) {
        return -EACCES; /* kernfs directories cannot hold new files */
}

static const struct fuse_operations ops = {
        .init = op_init,
        .getattr = op_getattr,
        .readlink = op_readlink,
        .readdir = op_readdir,
        .opendir = op_opendir,
        .access = op_access,
        .open = op_open,
        .release = op_release,
        .read = op_read,
        .write = op_write,
        .truncate = op_truncate,
        .create = op_create,
};

typedef struct Args {
        const char *topology;
        const char *log;
        const char *mountpoint;
        int ready_fd;
        bool foreground;
        bool die_with_parent;
        bool debug;
        bool uevents;
} Args;

static void help(void) {
        printf("Usage: cpufreq-emu --topology FILE [--log FILE] [--ready-fd N] [--foreground]\n"
               "                   [--die-with-parent] [--debug] [--uevents] MOUNTPOINT\n"
               "Serves an emulated /sys/devices/system/cpu with the kernel's cpufreq semantics (see tests/emu-run).\n"
               "  --topology FILE     machine description (schedfreqd topology format)\n"
               "  --log FILE          append one line per write and per frequency change\n"
               "  --ready-fd N        write \"ready\\n\" to fd N and close it once mounted\n"
               "  --foreground        do not daemonize\n"
               "  --die-with-parent   exit (unmounting) when the parent process dies (with --foreground)\n"
               "  --debug             libfuse debug output (implies --foreground)\n"
               "  --uevents           send the kernel's CPU online/offline uevents (private network namespace only)\n");
}

static int parse_int_fd(const char *s, int *ret) {
        char *end;
        long v;

        errno = 0;
        v = strtol(s, &end, 10);
        if (errno != 0 || end == s || *end || v < 0 || v > 1 << 20)
                return -EINVAL;
        *ret = (int) v;
        return 0;
}

static int parse_args(int argc, char **argv, Args *a) {
        enum { ARG_TOPOLOGY = 0x100, ARG_LOG, ARG_READY_FD, ARG_FOREGROUND, ARG_DIE_WITH_PARENT, ARG_DEBUG, ARG_UEVENTS };
        static const struct option options[] = {
                { "help",            no_argument,       NULL, 'h' },
                { "topology",        required_argument, NULL, ARG_TOPOLOGY },
                { "log",             required_argument, NULL, ARG_LOG },
                { "ready-fd",        required_argument, NULL, ARG_READY_FD },
                { "foreground",      no_argument,       NULL, ARG_FOREGROUND },
                { "die-with-parent", no_argument,       NULL, ARG_DIE_WITH_PARENT },
                { "debug",           no_argument,       NULL, ARG_DEBUG },
                { "uevents",         no_argument,       NULL, ARG_UEVENTS },
                {}
        };
        int c;

        *a = (Args) { .ready_fd = -1 };
        while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0)
                switch (c) {
                case 'h':
                        help();
                        exit(EXIT_SUCCESS);
                case ARG_TOPOLOGY:
                        a->topology = optarg;
                        break;
                case ARG_LOG:
                        a->log = optarg;
                        break;
                case ARG_READY_FD:
                        if (parse_int_fd(optarg, &a->ready_fd) < 0 || fcntl(a->ready_fd, F_GETFD) < 0)
                                return log_error_errno(SYNTHETIC_ERRNO(EBADF), "--ready-fd %s is not an open fd", optarg);
                        break;
                case ARG_FOREGROUND:
                        a->foreground = true;
                        break;
                case ARG_DIE_WITH_PARENT:
                        a->die_with_parent = true;
                        break;
                case ARG_DEBUG:
                        a->debug = a->foreground = true;
                        break;
                case ARG_UEVENTS:
                        a->uevents = true;
                        break;
                default:
                        return -EINVAL;
                }

        if (!a->topology)
                return log_error_errno(SYNTHETIC_ERRNO(EINVAL), "--topology FILE is required");
        if (optind != argc - 1)
                return log_error_errno(SYNTHETIC_ERRNO(EINVAL), "expected exactly one MOUNTPOINT");
        a->mountpoint = argv[optind];
        return 0;
}

static int emu_load(const Args *a, Emu **ret) {
        _cleanup_(topology_freep) Topology *t = NULL;
        _cleanup_free_ char *error = NULL;
        _cleanup_close_ int fd = -EBADF;
        int r;

        r = topology_load(a->topology, &t, &error);
        if (r < 0 && error)
                return log_error_errno(r, "%s", error);
        if (r < 0)
                return log_error_errno(r, "%s: cannot load the topology: %m", a->topology);
        if (CPU_COUNT(&t->possible) == 0)
                return log_error_errno(SYNTHETIC_ERRNO(EINVAL), "%s: the topology has no CPU", a->topology);

        if (a->log) {
                fd = open(a->log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
                if (fd < 0)
                        return log_error_errno(errno, "%s: %m", a->log);
        }

        r = emu_new(t, fd, ret);
        if (r < 0)
                return log_error_errno(r, "cannot set up the emulator: %m");
        TAKE_PTR(t);
        TAKE_FD(fd);
        if (a->uevents) {
                r = emu_uevent_open(*ret);
                if (r < 0) {
                        *ret = emu_free(*ret);
                        return r;
                }
        }
        return 0;
}

static struct fuse_session *signal_session;

static void on_exit_signal(int sig) {
        if (signal_session)
                fuse_session_exit(signal_session);
}

/* SIGTERM, SIGINT and SIGHUP end the loop (then we unmount and exit 0). Installed unconditionally:
 * fuse_set_signal_handlers() skips signals that are ignored, and a shell starts background jobs with
 * SIGINT ignored. No SA_RESTART, so the read on /dev/fuse returns EINTR and the loop sees the exit. */
static int install_signal_handlers(struct fuse_session *se) {
        struct sigaction sa = { .sa_handler = on_exit_signal };
        struct sigaction ign = { .sa_handler = SIG_IGN };

        signal_session = se;
        sigemptyset(&sa.sa_mask);
        if (sigaction(SIGTERM, &sa, NULL) < 0 || sigaction(SIGINT, &sa, NULL) < 0 ||
            sigaction(SIGHUP, &sa, NULL) < 0 || sigaction(SIGPIPE, &ign, NULL) < 0)
                return -errno;
        return 0;
}

/* After the mount: the fd a caller waits on gets one line and EOF. */
static void signal_ready(int fd) {
        if (fd < 0)
                return;
        (void) !write(fd, "ready\n", 6);
        (void) close(fd);
}

static int serve(const Args *a, Emu *e) {
        char *fuse_argv[] = { "cpufreq-emu", "-o", "allow_other,fsname=cpufreq-emu,subtype=cpufreq-emu", "-d", NULL };
        struct fuse_args args = FUSE_ARGS_INIT(a->debug ? 4 : 3, fuse_argv);
        pid_t parent = getppid();
        struct fuse *f;
        int r;

        f = fuse_new(&args, &ops, sizeof(ops), e);
        fuse_opt_free_args(&args); /* fuse_new() may have copied the vector to add options */
        if (!f)
                return log_error_errno(SYNTHETIC_ERRNO(EIO), "fuse_new() failed");
        if (fuse_mount(f, a->mountpoint) != 0) {
                fuse_destroy(f);
                return log_error_errno(SYNTHETIC_ERRNO(EIO), "cannot mount on %s", a->mountpoint);
        }
        r = install_signal_handlers(fuse_get_session(f));
        if (r < 0) {
                r = log_error_errno(r, "cannot install signal handlers: %m");
                goto finish;
        }
        if (fuse_daemonize(a->foreground) != 0) {
                r = log_error_errno(SYNTHETIC_ERRNO(EIO), "cannot daemonize");
                goto finish;
        }
        /* If the parent (tests/emu-run's shell) is SIGKILLed, SIGTERM us so the mount goes too. */
        if (a->die_with_parent && a->foreground &&
            (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() != parent)) {
                r = log_error_errno(SYNTHETIC_ERRNO(ESRCH), "the parent process is gone");
                goto finish;
        }

        signal_ready(a->ready_fd);
        r = fuse_loop(f);
        r = r < 0 ? log_error_errno(r, "fuse_loop() failed: %m") : 0;

finish:
        signal_session = NULL;
        fuse_unmount(f);
        fuse_destroy(f);
        return r;
}

int main(int argc, char **argv) {
        _cleanup_(emu_freep) Emu *e = NULL;
        Args a;
        int r;

        log_set_prefix(false);
        r = parse_args(argc, argv, &a);
        if (r < 0)
                return EXIT_FAILURE;
        r = emu_load(&a, &e);
        if (r < 0)
                return EXIT_FAILURE;
        r = serve(&a, e);
        if (e->log_fd >= 0)
                (void) close(e->log_fd);
        return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
