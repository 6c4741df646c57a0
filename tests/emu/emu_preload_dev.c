/*
 * emu_preload_dev.c - libpmuemu.so's /dev/cpu/N/msr (the Linux msr
 * driver's rules) and kernel files (memfds with the state's text; the
 * rdpmc files take writes as sysfs does): open, fopen, read, write,
 * pread, pwrite, close and stat. Everything else that takes a path is
 * emu_preload_paths.c's.
 */
/*
 * Meson builds with _FILE_OFFSET_BITS=64, which renames open to open64 and
 * so on; we define both names ourselves (on x86-64 they are the same calls).
 */
#undef _FILE_OFFSET_BITS

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "emu_files.h"
#include "emu_pmu.h"
#include "emu_preload_internal.h"

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
