/*
 * emu_preload.c - libpmuemu.so: plays an Intel PMU for an unmodified
 * program (pmustat) and everything it starts, when preloaded with
 * LD_PRELOAD=libpmuemu.so PMUSTAT_EMU_STATE=/abs/path/state (made by
 * `pmu-emu init`). Without PMUSTAT_EMU_STATE it passes everything through.
 *
 *  - /dev/cpu/N/msr: open/openat (and their 64/fortify variants), pread,
 *    pwrite, read, write, close, stat behave like the Linux msr driver:
 *    8-byte units at offset = MSR, EINVAL for other sizes, EIO where the CPU
 *    raises #GP, ENOENT without the driver or for a CPU the machine does not
 *    have (no node, and no /dev/cpu/N either), EACCES for anyone but the state file's owner (root, normally),
 *    EPERM on writes under lockdown, EBADF against the fd's access mode.
 *    Each open gets a memfd, so the fd is real (fork, CLOEXEC, close work)
 *    and the table below maps it back to its CPU.
 *  - The kernel files of enum hw_file (and the hybrid cpu_core/cpu_atom
 *    rdpmc files) are served from the state as memfds: read() just works.
 *    The rdpmc files also take writes, as sysfs does: open for writing
 *    (the state file's owner only, like the 0644 root file), then write()
 *    or pwrite() of "N\n" changes the machine (emu_write_file(): the file,
 *    and whether rdpmc faults), EINVAL for what the kernel refuses. Writes
 *    through stdio stay in libc, out of reach: use write().
 *  - The machine's own files (pmustat's journals and locks under /run, see
 *    emu_paths.h) live in the machine's directory STATE.d: every libc call
 *    that takes a path (open*, fopen, stat*, statx, access, mkdir*,
 *    unlink*, rmdir, rename*, opendir, chdir, chmod*, chown*, truncate,
 *    readlink*, symlink, link) sends /run/pmustat/... and
 *    /run/lock/pmustat-* there. Relative paths under a directory fd
 *    opened that way land there by themselves; the file is real, so
 *    flock() and /proc/locks (by inode) work as on the host.
 *  - rdpmc: the instruction faults (#GP -> SIGSEGV, si_code SI_KERNEL) in
 *    user mode; the SIGSEGV handler decodes 0F 33, answers from the current
 *    CPU's counters and skips it. With rdpmc off, or for a bad ECX, the
 *    program sees the SIGSEGV it would see on hardware.
 *  - CPUID: libcpuid's cpu_exec_cpuid/cpu_exec_cpuid_ext (called through
 *    its PLT) answer the model for the CPU the caller runs on, on any host.
 *    Where the host can make CPUID fault (Intel, ARCH_SET_CPUID), the
 *    handler also answers the instruction itself (0F A2).
 *  - rdtsc: libcpuid's cpu_rdtsc (pmustat's way to it) reads the machine's
 *    TSC, which only the action tsc:N moves; the instruction itself is
 *    left alone (trapping it would break the vDSO's clock_gettime).
 *  - The program's own SIGSEGV handler keeps working: sigaction() and
 *    signal() for SIGSEGV are recorded, and faults that are not emulated are
 *    passed to that handler (or kill the process, by default).
 *  - The caller's own code: with caller_insns (pmu-emu init --caller-insns
 *    N), each WRMSR through the msr device (after it) and each execve
 *    (before it) retires N user-mode instructions on the caller's CPU, as
 *    the code around those system calls would on hardware. With
 *    --ptrace=off, ptrace() fails with EPERM. With --kernel-ctrl, Linux's
 *    perf rewrites GLOBAL_CTRL at each execve and before each read of
 *    GLOBAL_STATUS (emu_config's kernel_ctrl).
 *  - pmuemu_retire() lets a workload "retire" events on its CPU, and
 *    pmuemu_act() do an action there (emu_action.h).
 *
 * Several processes share the state: writes take the spin lock in the
 * mapping with all signals blocked (so a signal handler that restores MSRs
 * cannot deadlock on it); rdpmc and CPUID read without it (aligned 64-bit
 * loads are atomic on x86-64, the model never changes). Everything the
 * SIGSEGV handler calls is async-signal-safe.
 *
 * This library is built without sanitizers: see tests/emu/meson.build.
 */
/*
 * Meson builds with _FILE_OFFSET_BITS=64, which renames open to open64 and
 * so on; we define both names ourselves (on x86-64 they are the same calls).
 */
#undef _FILE_OFFSET_BITS

#include <asm/prctl.h>
#include <cpuid.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <ucontext.h>
#include <unistd.h>

#include "emu_files.h"
#include "emu_paths.h"
#include "emu_pmu.h"
#include "emu_state.h"
#include "emu_preload_api.h"

/* SDM vol. 4, table 2-2. */
#define EMU_MSR_GLOBAL_STATUS	0x38e
#define EMU_MSR_GLOBAL_CTRL	0x38f

#define EXPORT __attribute__((visibility("default")))

/* fds we track: enough for any test; higher fds pass through. */
#define FD_TABLE 4096

struct msr_fd {
	int cpu;		/* -1: not an emulated msr device */
	int accmode;		/* O_RDONLY, O_WRONLY or O_RDWR */
	dev_t dev;
	ino_t ino;
};

static struct emu_pmu *emu;
static char machine_dir[PATH_MAX];	/* STATE.d */
static bool machine_owns_run;		/* PMUSTAT_EMU_STATE is set: the machine's files move */
static size_t machine_dir_room;		/* PATH_MAX; 0 when STATE.d has no valid name: they fail */
static bool cpuid_faulting;
static struct msr_fd fd_table[FD_TABLE];
/* Kernel files open for writing (their enum hw_file; -1: none), checked by dev/ino like msr fds. */
struct kfile_fd {
	int file;
	dev_t dev;
	ino_t ino;
};
static struct kfile_fd kfile_table[FD_TABLE];
static struct sigaction app_segv;	/* what the program asked for */
static bool segv_installed;

static int (*real_open)(const char *, int, ...);
static int (*real_openat)(int, const char *, int, ...);
static ssize_t (*real_pread)(int, void *, size_t, off_t);
static ssize_t (*real_pwrite)(int, const void *, size_t, off_t);
static ssize_t (*real_read)(int, void *, size_t);
static ssize_t (*real_write)(int, const void *, size_t);
static int (*real_close)(int);
static FILE *(*real_fopen)(const char *, const char *);
static int (*real_stat)(const char *, struct stat *);
static int (*real_lstat)(const char *, struct stat *);
static int (*real_fstatat)(int, const char *, struct stat *, int);
static int (*real_statx)(int, const char *, int, unsigned, struct statx *);
static int (*real_access)(const char *, int);
static int (*real_faccessat)(int, const char *, int, int);
static int (*real_mkdir)(const char *, mode_t);
static int (*real_mkdirat)(int, const char *, mode_t);
static int (*real_rmdir)(const char *);
static int (*real_unlink)(const char *);
static int (*real_unlinkat)(int, const char *, int);
static int (*real_rename)(const char *, const char *);
static int (*real_renameat)(int, const char *, int, const char *);
static int (*real_renameat2)(int, const char *, int, const char *, unsigned);
static DIR *(*real_opendir)(const char *);
static int (*real_chdir)(const char *);
static int (*real_chmod)(const char *, mode_t);
static int (*real_fchmodat)(int, const char *, mode_t, int);
static int (*real_chown)(const char *, uid_t, gid_t);
static int (*real_lchown)(const char *, uid_t, gid_t);
static int (*real_fchownat)(int, const char *, uid_t, gid_t, int);
static int (*real_truncate)(const char *, off_t);
static ssize_t (*real_readlink)(const char *, char *, size_t);
static ssize_t (*real_readlinkat)(int, const char *, char *, size_t);
static int (*real_symlink)(const char *, const char *);
static int (*real_link)(const char *, const char *);
static int (*real_sigaction)(int, const struct sigaction *, struct sigaction *);

static void *
next_symbol(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

/* Called by every interposer: another library's constructor may run first. */
static void
resolve(void)
{
	if (real_open)
		return;
	real_openat = next_symbol("openat");
	real_pread = next_symbol("pread");
	real_pwrite = next_symbol("pwrite");
	real_read = next_symbol("read");
	real_write = next_symbol("write");
	real_close = next_symbol("close");
	real_fopen = next_symbol("fopen");
	real_stat = next_symbol("stat");
	real_lstat = next_symbol("lstat");
	real_fstatat = next_symbol("fstatat");
	real_statx = next_symbol("statx");
	real_access = next_symbol("access");
	real_faccessat = next_symbol("faccessat");
	real_mkdir = next_symbol("mkdir");
	real_mkdirat = next_symbol("mkdirat");
	real_rmdir = next_symbol("rmdir");
	real_unlink = next_symbol("unlink");
	real_unlinkat = next_symbol("unlinkat");
	real_rename = next_symbol("rename");
	real_renameat = next_symbol("renameat");
	real_renameat2 = next_symbol("renameat2");
	real_opendir = next_symbol("opendir");
	real_chdir = next_symbol("chdir");
	real_chmod = next_symbol("chmod");
	real_fchmodat = next_symbol("fchmodat");
	real_chown = next_symbol("chown");
	real_lchown = next_symbol("lchown");
	real_fchownat = next_symbol("fchownat");
	real_truncate = next_symbol("truncate");
	real_readlink = next_symbol("readlink");
	real_readlinkat = next_symbol("readlinkat");
	real_symlink = next_symbol("symlink");
	real_link = next_symbol("link");
	real_sigaction = next_symbol("sigaction");
	__atomic_store_n(&real_open, next_symbol("open"), __ATOMIC_RELEASE);
}

static void
say(const char *msg)
{
	syscall(SYS_write, STDERR_FILENO, msg, strlen(msg));
}

/* ---- paths ---- */

/*
 * @path, or its place in the machine's directory when it is one of the
 * machine's own files (emu_paths.h); NULL with errno when that place has
 * no valid name, so that nothing falls through to the host's /run.
 * Async-signal-safe: pmustat unlinks its journal from a signal handler.
 */
static const char *
moved(const char *path, char buf[PATH_MAX])
{
	int rc;

	if (!machine_owns_run || !path || path[0] != '/')
		return path;
	rc = emu_paths_map(machine_dir, path, buf, machine_dir_room);
	if (rc < 0) {
		errno = -rc;
		return NULL;
	}
	return rc ? buf : path;
}

/*
 * In an interposer: @path becomes its moved self, or the call fails. Only
 * absolute paths move (a relative one in an *at() call is relative to a
 * directory that, if it is the machine's, was opened moved already).
 */
#define MOVE(path, buf) do { if (!((path) = moved((path), (buf)))) return -1; } while (0)

enum path_kind {
	PATH_OTHER,
	PATH_MSR,		/* /dev/cpu/N/msr */
	PATH_CPU_DIR,		/* /dev/cpu/N */
	PATH_FILE,		/* one of the kernel files */
};


/*
 * Classify @path; *num is the CPU (msr, cpu dir) or the enum hw_file.
 */
static enum path_kind
classify(const char *path, long *num)
{
	const char *p;
	char *end;

	if (!emu || !path)
		return PATH_OTHER;
	if (strncmp(path, "/dev/cpu/", 9) == 0) {
		p = path + 9;
		if (*p < '0' || *p > '9')
			return PATH_OTHER;
		*num = strtol(p, &end, 10);
		if (*end == '\0' || strcmp(end, "/") == 0)
			return PATH_CPU_DIR;
		if (strcmp(end, "/msr") == 0)
			return PATH_MSR;
		return PATH_OTHER;
	}
	for (int f = 0; f < HW_FILE_COUNT; f++) {
		if (strcmp(path, hw_file_path((enum hw_file)f)) == 0) {
			*num = f;
			return PATH_FILE;
		}
	}
	return PATH_OTHER;
}

static bool
cpu_exists(long cpu)
{
	return cpu >= 0 && cpu < (long)emu->ncpus;
}

/* The text of a kernel file, or NULL when the emulated machine has none. */
static const char *
file_text(long file)
{
	return emu_file(emu, (enum hw_file)file);
}

static int
make_memfd(const char *name, int flags)
{
	return (int)syscall(SYS_memfd_create, name, (flags & O_CLOEXEC) ? MFD_CLOEXEC : 0);
}

/* open() of an emulated path: an fd, or -1 with errno. */
static int
emu_open(enum path_kind kind, long num, int flags)
{
	int accmode = flags & O_ACCMODE;
	struct stat st;
	const char *text;
	int fd;

	switch (kind) {
	case PATH_MSR:
		if (emu->config.msr == EMU_MSR_ABSENT) {
			errno = ENOENT;
			return -1;
		}
		/* The device node is 0600 root; EACCES decides before the driver. */
		if (emu->config.msr == EMU_MSR_EACCES || geteuid() != emu->msr_owner_uid) {
			errno = EACCES;
			return -1;
		}
		/*
		 * The driver makes a node per online CPU, so a CPU the machine
		 * lacks has none: ENOENT, and /dev/cpu/N is missing too (the
		 * driver's own ENXIO needs a node whose CPU went offline).
		 */
		if (!cpu_exists(num)) {
			errno = ENOENT;
			return -1;
		}
		fd = make_memfd("pmuemu-msr", flags);
		if (fd < 0)
			return -1;
		if (fd >= FD_TABLE || fstat(fd, &st) < 0) {
			real_close(fd);
			errno = EMFILE;
			return -1;
		}
		fd_table[fd] = (struct msr_fd){ (int)num, accmode, st.st_dev, st.st_ino };
		return fd;
	case PATH_CPU_DIR:
		if (!cpu_exists(num)) {
			errno = ENOENT;
			return -1;
		}
		/* Nobody reads the directory itself: any directory fd will do. */
		return real_open("/", flags & ~(O_WRONLY | O_RDWR | O_CREAT | O_TRUNC));
	case PATH_FILE:
		text = file_text(num);
		if (!text) {
			errno = ENOENT;
			return -1;
		}
		/* sysfs: only the rdpmc files are writable, and only by root (the machine's owner). */
		if (accmode != O_RDONLY && !emu_file_writable((enum hw_file)num)) {
			errno = EACCES;
			return -1;
		}
		if (accmode != O_RDONLY && geteuid() != emu->msr_owner_uid) {
			errno = EACCES;
			return -1;
		}
		fd = make_memfd("pmuemu-file", flags);
		if (fd < 0)
			return -1;
		if (syscall(SYS_write, fd, text, strlen(text)) < 0 || lseek(fd, 0, SEEK_SET) < 0) {
			real_close(fd);
			errno = EIO;
			return -1;
		}
		if (accmode != O_RDONLY) {
			if (fd >= FD_TABLE || fstat(fd, &st) < 0) {
				real_close(fd);
				errno = EMFILE;
				return -1;
			}
			kfile_table[fd] = (struct kfile_fd){ (int)num, st.st_dev, st.st_ino };
		}
		return fd;
	case PATH_OTHER:
		break;
	}
	errno = EINVAL;
	return -1;
}

/* The msr device behind @fd, or NULL. */
static struct msr_fd *
msr_of(int fd)
{
	struct msr_fd *m;
	struct stat st;

	if (!emu || fd < 0 || fd >= FD_TABLE || fd_table[fd].cpu < 0)
		return NULL;
	m = &fd_table[fd];
	/* A close we did not see (e.g. inside libc) would leave a stale entry. */
	if (fstat(fd, &st) < 0 || st.st_dev != m->dev || st.st_ino != m->ino) {
		m->cpu = -1;
		return NULL;
	}
	return m;
}

/* The kernel file open for writing behind @fd, or NULL. */
static struct kfile_fd *
kfile_of(int fd)
{
	struct kfile_fd *k;
	struct stat st;

	if (!emu || fd < 0 || fd >= FD_TABLE || kfile_table[fd].file < 0)
		return NULL;
	k = &kfile_table[fd];
	if (fstat(fd, &st) < 0 || st.st_dev != k->dev || st.st_ino != k->ino) {
		k->file = -1;
		return NULL;
	}
	return k;
}

static void lock_all(sigset_t *saved);
static void unlock_all(const sigset_t *saved);

/* A sysfs store: the whole write is the value (at most a page; ours are a few bytes). */
static ssize_t
kfile_write(const struct kfile_fd *k, const void *buf, size_t count)
{
	char text[64];
	sigset_t saved;
	int err;

	if (count == 0)
		return 0;
	if (count >= sizeof(text)) {
		errno = EINVAL;
		return -1;
	}
	memcpy(text, buf, count);
	text[count] = '\0';
	lock_all(&saved);
	err = emu_write_file(emu, (enum hw_file)k->file, text);
	unlock_all(&saved);
	if (err) {
		errno = -err;
		return -1;
	}
	return (ssize_t)count;
}

/* Block every signal around the lock (see the top of the file). */
static void
lock_all(sigset_t *saved)
{
	sigset_t all;

	sigfillset(&all);
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, saved, _NSIG / 8);
	emu_state_lock(emu);
}

static void
unlock_all(const sigset_t *saved)
{
	emu_state_unlock(emu);
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, saved, NULL, _NSIG / 8);
}

/*
 * The caller's user-mode code around a system call (emu_config's
 * caller_insns), retired on the CPU it runs on. With the lock held.
 */
static void
retire_caller_code(void)
{
	int cpu;

	if (!emu->config.caller_insns)
		return;
	cpu = sched_getcpu();
	if (cpu >= 0)
		(void)emu_retire(emu, (unsigned)cpu, 0xc0, 0x00, 3, emu->config.caller_insns);
}

/*
 * Linux's perf at a context switch on @cpu (emu_config's kernel_ctrl):
 * GLOBAL_CTRL rewritten, and another program's code retired there. With
 * the lock held.
 */
static void
kernel_rewrites(int cpu)
{
	if (!emu->config.kernel_ctrl || cpu < 0)
		return;
	(void)emu_wrmsr(emu, (unsigned)cpu, EMU_MSR_GLOBAL_CTRL, emu->config.kernel_ctrl);
	if (emu->config.kernel_insns) {
		(void)emu_retire(emu, (unsigned)cpu, 0xc0, 0x00, 3, emu->config.kernel_insns);
		(void)emu_retire(emu, (unsigned)cpu, 0xc4, 0x00, 3, emu->config.kernel_insns);
	}
}

/* msr_read()/msr_write() of arch/x86/kernel/msr.c. */
static ssize_t
msr_io(struct msr_fd *m, void *buf, size_t count, off_t pos, bool write)
{
	uint32_t reg = (uint32_t)pos;
	uint64_t *data = buf;
	size_t done = 0;
	sigset_t saved;
	int err = 0;

	if (write ? m->accmode == O_RDONLY : m->accmode == O_WRONLY) {
		errno = EBADF;
		return -1;
	}
	if (write && emu_msr_writes_blocked(emu)) {
		errno = EPERM;
		return -1;
	}
	if (count % 8) {
		errno = EINVAL;
		return -1;
	}
	lock_all(&saved);
	if (!write && reg == EMU_MSR_GLOBAL_STATUS)
		kernel_rewrites(m->cpu);
	for (; done < count; done += 8, data++) {
		uint64_t val;

		if (write) {
			memcpy(&val, data, 8);
			err = emu_wrmsr(emu, (unsigned)m->cpu, reg, val);
		} else {
			err = emu_rdmsr(emu, (unsigned)m->cpu, reg, &val);
			if (!err)
				memcpy(data, &val, 8);
		}
		if (err)
			break;
	}
	/* The return path of the write: the caller's own instructions, on its CPU. */
	if (write && done)
		retire_caller_code();
	unlock_all(&saved);
	if (done)
		return (ssize_t)done;
	errno = -err;
	return err ? -1 : 0;
}

/* ---- open and friends ---- */

static int
open_common(int dirfd, const char *path, int flags, mode_t mode, bool at)
{
	char buf[PATH_MAX];
	enum path_kind kind;
	long num = 0;

	resolve();
	kind = (at && dirfd != AT_FDCWD && path && path[0] != '/') ?
		PATH_OTHER : classify(path, &num);
	if (kind != PATH_OTHER)
		return emu_open(kind, num, flags);
	MOVE(path, buf);
	if (at)
		return real_openat(dirfd, path, flags, mode);
	return real_open(path, flags, mode);
}

static mode_t
mode_arg(int flags, va_list ap)
{
	return (flags & (O_CREAT | __O_TMPFILE)) ? (mode_t)va_arg(ap, int) : 0;
}

EXPORT int
open(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	return open_common(AT_FDCWD, path, flags, mode, false);
}

EXPORT int
open64(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	return open_common(AT_FDCWD, path, flags, mode, false);
}

EXPORT int
openat(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	return open_common(dirfd, path, flags, mode, true);
}

EXPORT int
openat64(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	return open_common(dirfd, path, flags, mode, true);
}

/* _FORTIFY_SOURCE versions (no mode argument). */
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);

EXPORT int
__open_2(const char *path, int flags)
{
	return open_common(AT_FDCWD, path, flags, 0, false);
}

EXPORT int
__open64_2(const char *path, int flags)
{
	return open_common(AT_FDCWD, path, flags, 0, false);
}

EXPORT int
__openat_2(int dirfd, const char *path, int flags)
{
	return open_common(dirfd, path, flags, 0, true);
}

EXPORT int
__openat64_2(int dirfd, const char *path, int flags)
{
	return open_common(dirfd, path, flags, 0, true);
}

/* fopen() opens inside libc, out of our reach: route our paths through open(). */
static FILE *
fopen_common(const char *path, const char *mode)
{
	char buf[PATH_MAX];
	enum path_kind kind;
	long num = 0;
	int flags, fd;
	FILE *f;

	resolve();
	kind = classify(path, &num);
	if (kind == PATH_OTHER) {
		path = moved(path, buf);
		return path ? real_fopen(path, mode) : NULL;
	}
	flags = strchr(mode, '+') ? O_RDWR : (mode[0] == 'r' ? O_RDONLY : O_WRONLY);
	if (strchr(mode, 'e'))
		flags |= O_CLOEXEC;
	fd = emu_open(kind, num, flags);
	if (fd < 0)
		return NULL;
	f = fdopen(fd, mode);
	if (!f) {
		int e = errno;

		if (fd < FD_TABLE)
			fd_table[fd].cpu = -1;
		real_close(fd);
		errno = e;
	}
	return f;
}

EXPORT FILE *
fopen(const char *path, const char *mode)
{
	return fopen_common(path, mode);
}

EXPORT FILE *
fopen64(const char *path, const char *mode)
{
	return fopen_common(path, mode);
}

EXPORT ssize_t
pread(int fd, void *buf, size_t count, off_t pos)
{
	struct msr_fd *m;

	resolve();
	m = msr_of(fd);
	if (m)
		return msr_io(m, buf, count, pos, false);
	return real_pread(fd, buf, count, pos);
}

EXPORT ssize_t
pread64(int fd, void *buf, size_t count, off_t pos)
{
	return pread(fd, buf, count, pos);
}

EXPORT ssize_t
pwrite(int fd, const void *buf, size_t count, off_t pos)
{
	struct msr_fd *m;

	struct kfile_fd *k;

	resolve();
	m = msr_of(fd);
	if (m)
		return msr_io(m, (void *)buf, count, pos, true);
	k = kfile_of(fd);
	if (k)
		return kfile_write(k, buf, count);
	return real_pwrite(fd, buf, count, pos);
}

EXPORT ssize_t
pwrite64(int fd, const void *buf, size_t count, off_t pos)
{
	return pwrite(fd, buf, count, pos);
}

/* read()/write() use the file position, which the msr driver never moves. */
EXPORT ssize_t
read(int fd, void *buf, size_t count)
{
	struct msr_fd *m;

	resolve();
	m = msr_of(fd);
	if (m)
		return msr_io(m, buf, count, lseek(fd, 0, SEEK_CUR), false);
	return real_read(fd, buf, count);
}

EXPORT ssize_t
write(int fd, const void *buf, size_t count)
{
	struct msr_fd *m;

	struct kfile_fd *k;

	resolve();
	m = msr_of(fd);
	if (m)
		return msr_io(m, (void *)buf, count, lseek(fd, 0, SEEK_CUR), true);
	k = kfile_of(fd);
	if (k)
		return kfile_write(k, buf, count);
	return real_write(fd, buf, count);
}

EXPORT int
close(int fd)
{
	resolve();
	if (fd >= 0 && fd < FD_TABLE) {
		fd_table[fd].cpu = -1;
		kfile_table[fd].file = -1;
	}
	return real_close(fd);
}

/* stat of /dev/cpu/N[/msr] and the kernel files, as the emulated machine has them. */
static int
stat_common(const char *path, struct stat *st, bool link)
{
	char buf[PATH_MAX];
	enum path_kind kind;
	long num = 0;

	resolve();
	kind = classify(path, &num);
	switch (kind) {
	case PATH_OTHER:
		break;
	case PATH_CPU_DIR:
	case PATH_MSR:
		if (!cpu_exists(num) || (kind == PATH_MSR && emu->config.msr == EMU_MSR_ABSENT)) {
			errno = ENOENT;
			return -1;
		}
		memset(st, 0, sizeof(*st));
		st->st_mode = kind == PATH_MSR ? S_IFCHR | 0600 : S_IFDIR | 0755;
		st->st_nlink = 1;
		st->st_uid = emu->msr_owner_uid;
		/* The msr driver's major number is 202. */
		if (kind == PATH_MSR)
			st->st_rdev = makedev(202, (unsigned)num);
		return 0;
	case PATH_FILE:
		if (!file_text(num)) {
			errno = ENOENT;
			return -1;
		}
		memset(st, 0, sizeof(*st));
		st->st_mode = S_IFREG | 0644;
		st->st_nlink = 1;
		st->st_size = 4096;
		return 0;
	}
	MOVE(path, buf);
	return link ? real_lstat(path, st) : real_stat(path, st);
}

EXPORT int
stat(const char *path, struct stat *st)
{
	return stat_common(path, st, false);
}

EXPORT int
stat64(const char *path, struct stat64 *st)
{
	return stat_common(path, (struct stat *)st, false);
}

EXPORT int
lstat(const char *path, struct stat *st)
{
	return stat_common(path, st, true);
}

EXPORT int
lstat64(const char *path, struct stat64 *st)
{
	return stat_common(path, (struct stat *)st, true);
}

/*
 * The rest of the calls that take a path, for the machine's own files
 * only: fstatat() and statx() are not asked about /dev/cpu or the kernel
 * files by anything we run (stat() and open() are).
 */
EXPORT int
fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	char buf[PATH_MAX];

	resolve();
	MOVE(path, buf);
	return real_fstatat(dirfd, path, st, flags);
}

EXPORT int
fstatat64(int dirfd, const char *path, struct stat64 *st, int flags)
{
	return fstatat(dirfd, path, (struct stat *)st, flags);
}

EXPORT int
statx(int dirfd, const char *path, int flags, unsigned mask, struct statx *st)
{
	char buf[PATH_MAX];

	resolve();
	MOVE(path, buf);
	return real_statx(dirfd, path, flags, mask, st);
}

EXPORT int
access(const char *path, int mode)
{
	char buf[PATH_MAX];

	resolve();
	MOVE(path, buf);
	return real_access(path, mode);
}

EXPORT int
faccessat(int dirfd, const char *path, int mode, int flags)
{
	char buf[PATH_MAX];

	resolve();
	MOVE(path, buf);
	return real_faccessat(dirfd, path, mode, flags);
}

EXPORT int
mkdir(const char *path, mode_t mode)
{
	char buf[PATH_MAX];

	resolve();
	MOVE(path, buf);
	return real_mkdir(path, mode);
}

EXPORT int
mkdirat(int dirfd, const char *path, mode_t mode)
{
	char buf[PATH_MAX];

	resolve();
	MOVE(path, buf);
	return real_mkdirat(dirfd, path, mode);
}

EXPORT int
rmdir(const char *path)
{
	char buf[PATH_MAX];

	resolve();
	MOVE(path, buf);
	return real_rmdir(path);
}

EXPORT int
unlink(const char *path)
{
	char buf[PATH_MAX];

	resolve();
	MOVE(path, buf);
	return real_unlink(path);
}

EXPORT int
unlinkat(int dirfd, const char *path, int flags)
{
	char buf[PATH_MAX];

	resolve();
	MOVE(path, buf);
	return real_unlinkat(dirfd, path, flags);
}

EXPORT int
rename(const char *from, const char *to)
{
	char buf1[PATH_MAX], buf2[PATH_MAX];

	resolve();
	MOVE(from, buf1);
	MOVE(to, buf2);
	return real_rename(from, to);
}

EXPORT int
renameat(int fromfd, const char *from, int tofd, const char *to)
{
	char buf1[PATH_MAX], buf2[PATH_MAX];

	resolve();
	MOVE(from, buf1);
	MOVE(to, buf2);
	return real_renameat(fromfd, from, tofd, to);
}

EXPORT int
renameat2(int fromfd, const char *from, int tofd, const char *to, unsigned flags)
{
	char buf1[PATH_MAX], buf2[PATH_MAX];

	resolve();
	MOVE(from, buf1);
	MOVE(to, buf2);
	return real_renameat2(fromfd, from, tofd, to, flags);
}

EXPORT DIR *
opendir(const char *path)
{
	char buf[PATH_MAX];

	resolve();
	path = moved(path, buf);
	return path ? real_opendir(path) : NULL;
}

EXPORT int
chdir(const char *path)
{
	char buf[PATH_MAX];

	resolve();
	MOVE(path, buf);
	return real_chdir(path);
}

EXPORT int
chmod(const char *path, mode_t mode)
{
	char buf[PATH_MAX];

	resolve();
	MOVE(path, buf);
	return real_chmod(path, mode);
}

EXPORT int
fchmodat(int dirfd, const char *path, mode_t mode, int flags)
{
	char buf[PATH_MAX];

	resolve();
	MOVE(path, buf);
	return real_fchmodat(dirfd, path, mode, flags);
}

EXPORT int
chown(const char *path, uid_t uid, gid_t gid)
{
	char buf[PATH_MAX];

	resolve();
	MOVE(path, buf);
	return real_chown(path, uid, gid);
}

EXPORT int
lchown(const char *path, uid_t uid, gid_t gid)
{
	char buf[PATH_MAX];

	resolve();
	MOVE(path, buf);
	return real_lchown(path, uid, gid);
}

EXPORT int
fchownat(int dirfd, const char *path, uid_t uid, gid_t gid, int flags)
{
	char buf[PATH_MAX];

	resolve();
	MOVE(path, buf);
	return real_fchownat(dirfd, path, uid, gid, flags);
}

EXPORT int
truncate(const char *path, off_t len)
{
	char buf[PATH_MAX];

	resolve();
	MOVE(path, buf);
	return real_truncate(path, len);
}

EXPORT int
truncate64(const char *path, off_t len)
{
	return truncate(path, len);
}

EXPORT ssize_t
readlink(const char *path, char *out, size_t size)
{
	char buf[PATH_MAX];

	resolve();
	MOVE(path, buf);
	return real_readlink(path, out, size);
}

EXPORT ssize_t
readlinkat(int dirfd, const char *path, char *out, size_t size)
{
	char buf[PATH_MAX];

	resolve();
	MOVE(path, buf);
	return real_readlinkat(dirfd, path, out, size);
}

/* The link's own name moves; what it points to is text, kept as written. */
EXPORT int
symlink(const char *target, const char *path)
{
	char buf[PATH_MAX];

	resolve();
	MOVE(path, buf);
	return real_symlink(target, path);
}

EXPORT int
link(const char *from, const char *to)
{
	char buf1[PATH_MAX], buf2[PATH_MAX];

	resolve();
	MOVE(from, buf1);
	MOVE(to, buf2);
	return real_link(from, to);
}

/* ---- CPUID ---- */

static void
host_cpuid(uint32_t regs[4])
{
	uint32_t a, b, c, d;

	/* With faulting on, the instruction would trap into our own handler. */
	if (cpuid_faulting)
		syscall(SYS_arch_prctl, ARCH_SET_CPUID, 1);
	__cpuid_count(regs[0], regs[2], a, b, c, d);
	if (cpuid_faulting)
		syscall(SYS_arch_prctl, ARCH_SET_CPUID, 0);
	regs[0] = a;
	regs[1] = b;
	regs[2] = c;
	regs[3] = d;
}

/* The model's answer for the CPU we run on, or the host's for other leaves. */
static void
answer_cpuid(uint32_t regs[4])
{
	int cpu = sched_getcpu();

	if (emu && cpu >= 0 && emu_cpuid(emu, (unsigned)cpu, regs[0], regs[2], regs) == 0)
		return;
	host_cpuid(regs);
}

EXPORT void
cpu_exec_cpuid(uint32_t eax, uint32_t *regs)
{
	regs[0] = eax;
	regs[1] = regs[2] = regs[3] = 0;
	answer_cpuid(regs);
}

EXPORT void
cpu_exec_cpuid_ext(uint32_t *regs)
{
	answer_cpuid(regs);
}

/*
 * rdtsc: libcpuid's cpu_rdtsc(), which pmustat calls for it (hw_linux.c),
 * reads the machine's emulated TSC (moved only by the action tsc:N), so
 * that tests know what each read gives. Without a state: the host's.
 */
EXPORT void
cpu_rdtsc(uint64_t *result)
{
	uint32_t lo, hi;

	if (emu) {
		*result = __atomic_load_n(&emu->tsc, __ATOMIC_RELAXED);
		return;
	}
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	*result = ((uint64_t)hi << 32) | lo;
}

/* ---- SIGSEGV: rdpmc, CPUID faulting, and the program's own handler ---- */

static void
pass_to_program(int sig, siginfo_t *si, void *uc)
{
	struct sigaction act = app_segv;
	struct sigaction dfl;

	if (act.sa_flags & SA_RESETHAND) {
		app_segv.sa_handler = SIG_DFL;
		app_segv.sa_flags &= ~SA_SIGINFO;
	}
	if ((act.sa_flags & SA_SIGINFO) && act.sa_sigaction) {
		act.sa_sigaction(sig, si, uc);
		return;
	}
	if (!(act.sa_flags & SA_SIGINFO) && act.sa_handler != SIG_DFL && act.sa_handler != SIG_IGN) {
		act.sa_handler(sig);
		return;
	}
	/*
	 * Default action: die of SIGSEGV like the program would. A fault
	 * happens again on return; a sent signal is sent again (it stays
	 * pending until the handler returns).
	 */
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	real_sigaction(SIGSEGV, &dfl, NULL);
	segv_installed = false;
	if (si->si_code != SI_KERNEL)
		raise(sig);
}

static void
segv_handler(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	greg_t *gregs = uc->uc_mcontext.gregs;
	const unsigned char *ip = (const unsigned char *)gregs[REG_RIP];
	int saved_errno = errno;

	/* #GP reports SI_KERNEL; page faults (SEGV_MAPERR...) never are ours. */
	if (emu && si->si_code == SI_KERNEL && ip && ip[0] == 0x0f) {
		if (ip[1] == 0x33) {
			int cpu = sched_getcpu();
			uint64_t val;

			if (cpu >= 0 && emu_rdpmc(emu, (unsigned)cpu, (uint32_t)gregs[REG_RCX], &val) == 0) {
				gregs[REG_RAX] = (greg_t)(val & 0xffffffffu);
				gregs[REG_RDX] = (greg_t)(val >> 32);
				gregs[REG_RIP] += 2;
				errno = saved_errno;
				return;
			}
		} else if (ip[1] == 0xa2 && cpuid_faulting) {
			uint32_t regs[4] = {
				(uint32_t)gregs[REG_RAX], 0, (uint32_t)gregs[REG_RCX], 0,
			};

			answer_cpuid(regs);
			gregs[REG_RAX] = regs[0];
			gregs[REG_RBX] = regs[1];
			gregs[REG_RCX] = regs[2];
			gregs[REG_RDX] = regs[3];
			gregs[REG_RIP] += 2;
			errno = saved_errno;
			return;
		}
	}
	errno = saved_errno;
	pass_to_program(sig, si, ucv);
}

static int
install_segv(int extra_flags)
{
	struct sigaction act;

	memset(&act, 0, sizeof(act));
	act.sa_sigaction = segv_handler;
	act.sa_flags = SA_SIGINFO | extra_flags;
	sigemptyset(&act.sa_mask);
	if (real_sigaction(SIGSEGV, &act, NULL) < 0)
		return -1;
	segv_installed = true;
	return 0;
}

EXPORT int
sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	resolve();
	if (sig != SIGSEGV || !segv_installed)
		return real_sigaction(sig, act, old);
	if (old)
		*old = app_segv;
	if (act) {
		app_segv = *act;
		/* Run where the program wants its handler to run (sigaltstack). */
		install_segv(act->sa_flags & SA_ONSTACK);
	}
	return 0;
}

EXPORT sighandler_t
signal(int sig, sighandler_t handler)
{
	static sighandler_t (*real_signal)(int, sighandler_t);
	struct sigaction act, old;

	resolve();
	if (sig != SIGSEGV || !segv_installed) {
		if (!real_signal)
			real_signal = next_symbol("signal");
		return real_signal(sig, handler);
	}
	memset(&act, 0, sizeof(act));
	act.sa_handler = handler;
	act.sa_flags = SA_RESTART;
	sigemptyset(&act.sa_mask);
	if (sigaction(sig, &act, &old) < 0)
		return SIG_ERR;
	return (old.sa_flags & SA_SIGINFO) ? (sighandler_t)(void (*)(void))old.sa_sigaction :
		old.sa_handler;
}

/* ---- execve and ptrace ---- */

/* The call path into execve is the caller's code too (emu_config's caller_insns). */
EXPORT int
execve(const char *path, char *const argv[], char *const envp[])
{
	static int (*real_execve)(const char *, char *const[], char *const[]);
	sigset_t saved;

	if (!real_execve)
		real_execve = next_symbol("execve");
	if (emu && (emu->config.caller_insns || emu->config.kernel_ctrl)) {
		lock_all(&saved);
		kernel_rewrites(sched_getcpu());
		retire_caller_code();
		unlock_all(&saved);
	}
	return real_execve(path, argv, envp);
}

/* --ptrace=off: refused, as YAMA ptrace_scope 3 or a seccomp filter would. */
EXPORT long
ptrace(enum __ptrace_request request, ...)
{
	static long (*real_ptrace)(enum __ptrace_request, ...);
	va_list ap;
	pid_t pid;
	void *addr, *data;

	va_start(ap, request);
	pid = va_arg(ap, pid_t);
	addr = va_arg(ap, void *);
	data = va_arg(ap, void *);
	va_end(ap);
	if (emu && emu->config.ptrace_off) {
		errno = EPERM;
		return -1;
	}
	if (!real_ptrace)
		real_ptrace = next_symbol("ptrace");
	return real_ptrace(request, pid, addr, data);
}

/* ---- the workload's entry points (emu_preload_api.h) ---- */

EXPORT int
pmuemu_active(void)
{
	return emu != NULL;
}

EXPORT int
pmuemu_retire(unsigned code, unsigned umask, unsigned ring, uint64_t n)
{
	sigset_t saved;
	int cpu, err;

	if (!emu)
		return -ENODEV;
	if (code > 0xff || umask > 0xff)
		return -EINVAL;
	lock_all(&saved);
	/* Inside the lock: the CPU and the count belong together. */
	cpu = sched_getcpu();
	err = cpu < 0 ? -errno : emu_retire(emu, (unsigned)cpu, (uint8_t)code, (uint8_t)umask, ring, n);
	unlock_all(&saved);
	return err;
}

EXPORT int
pmuemu_act(const struct emu_action *a)
{
	sigset_t saved;
	int cpu, err;

	if (!emu)
		return -ENODEV;
	lock_all(&saved);
	cpu = sched_getcpu();
	err = cpu < 0 ? -errno : emu_act(emu, (unsigned)cpu, a);
	unlock_all(&saved);
	return err;
}

__attribute__((constructor)) static void
pmuemu_init(void)
{
	const char *path = getenv(EMU_STATE_ENV);
	const char *faulting = getenv("PMUSTAT_EMU_CPUID_FAULTING");
	struct emu_pmu *map;
	int err;

	resolve();
	for (int i = 0; i < FD_TABLE; i++) {
		fd_table[i].cpu = -1;
		kfile_table[i].file = -1;
	}
	if (!path || !*path)
		return;
	/*
	 * The machine's files are its own even when its PMU cannot be
	 * emulated below: a test never reaches the host's /run.
	 */
	machine_owns_run = true;
	if (emu_paths_dir(path, machine_dir, sizeof(machine_dir)) == 0)
		machine_dir_room = sizeof(machine_dir);
	err = emu_state_map(path, &map);
	if (err) {
		say("libpmuemu: cannot use the state file named by " EMU_STATE_ENV
		    " (make it with pmu-emu init); the PMU is NOT emulated: ");
		say(strerror(-err));
		say("\n");
		return;
	}
	if (real_sigaction(SIGSEGV, NULL, &app_segv) < 0 || install_segv(0) < 0) {
		say("libpmuemu: cannot install the SIGSEGV handler; the PMU is NOT emulated\n");
		emu_state_unmap(map);
		return;
	}
	/* A state made without pmu-emu init (a copy, a snapshot) gets its /run now. */
	if (machine_dir_room && syscall(SYS_faccessat, AT_FDCWD, machine_dir, F_OK) != 0)
		(void)emu_paths_create(machine_dir);
	emu = map;
	/* Intel hosts: make the CPUID instruction itself answer the model. */
	if (!faulting || strcmp(faulting, "0") != 0)
		cpuid_faulting = syscall(SYS_arch_prctl, ARCH_SET_CPUID, 0) == 0;
}
