/*
 * emu_preload_internal.h - what the files of libpmuemu.so share (the
 * library is built with -fvisibility=hidden: none of this is exported).
 *
 *	emu_preload.c		the machine's state, libc's own entry points,
 *				the lock, execve, ptrace, the workload's API,
 *				the constructor
 *	emu_preload_dev.c	/dev/cpu/N/msr and the kernel files: open,
 *				read, write, close, stat
 *	emu_preload_paths.c	the machine's own files: every other call that
 *				takes a path
 *	emu_preload_cpu.c	CPUID, rdtsc, and the SIGSEGV handler (rdpmc,
 *				CPUID faulting, the program's own handler)
 */
#ifndef PMUSTAT_EMU_PRELOAD_INTERNAL_H
#define PMUSTAT_EMU_PRELOAD_INTERNAL_H

#include <dirent.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

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

/* Kernel files open for writing (their enum hw_file; -1: none), checked by dev/ino like msr fds. */
struct kfile_fd {
	int file;
	dev_t dev;
	ino_t ino;
};

extern struct emu_pmu *emu;
extern char machine_dir[PATH_MAX];	/* STATE.d */
extern bool machine_owns_run;		/* PMUSTAT_EMU_STATE is set: the machine's files move */
extern size_t machine_dir_room;		/* PATH_MAX; 0 when STATE.d has no valid name: they fail */
extern bool cpuid_faulting;
extern struct msr_fd fd_table[FD_TABLE];
extern struct kfile_fd kfile_table[FD_TABLE];
extern struct sigaction app_segv;	/* what the program asked for */
extern bool segv_installed;

extern int (*real_open)(const char *, int, ...);
extern int (*real_openat)(int, const char *, int, ...);
extern ssize_t (*real_pread)(int, void *, size_t, off_t);
extern ssize_t (*real_pwrite)(int, const void *, size_t, off_t);
extern ssize_t (*real_read)(int, void *, size_t);
extern ssize_t (*real_write)(int, const void *, size_t);
extern int (*real_close)(int);
extern FILE *(*real_fopen)(const char *, const char *);
extern int (*real_stat)(const char *, struct stat *);
extern int (*real_lstat)(const char *, struct stat *);
extern int (*real_fstatat)(int, const char *, struct stat *, int);
extern int (*real_statx)(int, const char *, int, unsigned, struct statx *);
extern int (*real_access)(const char *, int);
extern int (*real_faccessat)(int, const char *, int, int);
extern int (*real_mkdir)(const char *, mode_t);
extern int (*real_mkdirat)(int, const char *, mode_t);
extern int (*real_rmdir)(const char *);
extern int (*real_unlink)(const char *);
extern int (*real_unlinkat)(int, const char *, int);
extern int (*real_rename)(const char *, const char *);
extern int (*real_renameat)(int, const char *, int, const char *);
extern int (*real_renameat2)(int, const char *, int, const char *, unsigned);
extern DIR *(*real_opendir)(const char *);
extern int (*real_chdir)(const char *);
extern int (*real_chmod)(const char *, mode_t);
extern int (*real_fchmodat)(int, const char *, mode_t, int);
extern int (*real_chown)(const char *, uid_t, gid_t);
extern int (*real_lchown)(const char *, uid_t, gid_t);
extern int (*real_fchownat)(int, const char *, uid_t, gid_t, int);
extern int (*real_truncate)(const char *, off_t);
extern ssize_t (*real_readlink)(const char *, char *, size_t);
extern ssize_t (*real_readlinkat)(int, const char *, char *, size_t);
extern int (*real_symlink)(const char *, const char *);
extern int (*real_link)(const char *, const char *);
extern int (*real_sigaction)(int, const struct sigaction *, struct sigaction *);

/* emu_preload.c */
void *next_symbol(const char *name);
void resolve(void);
void lock_all(sigset_t *saved);
void unlock_all(const sigset_t *saved);
void retire_caller_code(void);
void kernel_rewrites(int cpu);

/* emu_preload_paths.c */
const char *moved(const char *path, char buf[PATH_MAX]);

/* emu_preload_cpu.c */
int install_segv(int extra_flags);

/*
 * In an interposer: @path becomes its moved self, or the call fails. Only
 * absolute paths move (a relative one in an *at() call is relative to a
 * directory that, if it is the machine's, was opened moved already).
 */
#define MOVE(path, buf) do { if (!((path) = moved((path), (buf)))) return -1; } while (0)

#endif
