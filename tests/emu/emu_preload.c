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
 * emu_preload_internal.h says which file holds what.
 */
/*
 * Meson builds with _FILE_OFFSET_BITS=64, which renames open to open64 and
 * so on; we define both names ourselves (on x86-64 they are the same calls).
 */
#undef _FILE_OFFSET_BITS

#include <asm/prctl.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "emu_paths.h"
#include "emu_pmu.h"
#include "emu_state.h"
#include "emu_preload_api.h"
#include "emu_preload_internal.h"

struct emu_pmu *emu;
char machine_dir[PATH_MAX];
bool machine_owns_run;
size_t machine_dir_room;
bool cpuid_faulting;
struct msr_fd fd_table[FD_TABLE];
struct kfile_fd kfile_table[FD_TABLE];
struct sigaction app_segv;
bool segv_installed;

int (*real_open)(const char *, int, ...);
int (*real_openat)(int, const char *, int, ...);
ssize_t (*real_pread)(int, void *, size_t, off_t);
ssize_t (*real_pwrite)(int, const void *, size_t, off_t);
ssize_t (*real_read)(int, void *, size_t);
ssize_t (*real_write)(int, const void *, size_t);
int (*real_close)(int);
FILE *(*real_fopen)(const char *, const char *);
int (*real_stat)(const char *, struct stat *);
int (*real_lstat)(const char *, struct stat *);
int (*real_fstatat)(int, const char *, struct stat *, int);
int (*real_statx)(int, const char *, int, unsigned, struct statx *);
int (*real_access)(const char *, int);
int (*real_faccessat)(int, const char *, int, int);
int (*real_mkdir)(const char *, mode_t);
int (*real_mkdirat)(int, const char *, mode_t);
int (*real_rmdir)(const char *);
int (*real_unlink)(const char *);
int (*real_unlinkat)(int, const char *, int);
int (*real_rename)(const char *, const char *);
int (*real_renameat)(int, const char *, int, const char *);
int (*real_renameat2)(int, const char *, int, const char *, unsigned);
DIR *(*real_opendir)(const char *);
int (*real_chdir)(const char *);
int (*real_chmod)(const char *, mode_t);
int (*real_fchmodat)(int, const char *, mode_t, int);
int (*real_chown)(const char *, uid_t, gid_t);
int (*real_lchown)(const char *, uid_t, gid_t);
int (*real_fchownat)(int, const char *, uid_t, gid_t, int);
int (*real_truncate)(const char *, off_t);
ssize_t (*real_readlink)(const char *, char *, size_t);
ssize_t (*real_readlinkat)(int, const char *, char *, size_t);
int (*real_symlink)(const char *, const char *);
int (*real_link)(const char *, const char *);
int (*real_sigaction)(int, const struct sigaction *, struct sigaction *);

void *
next_symbol(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

/* Called by every interposer: another library's constructor may run first. */
void
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

/* Block every signal around the lock (see the top of the file). */
void
lock_all(sigset_t *saved)
{
	sigset_t all;

	sigfillset(&all);
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, saved, _NSIG / 8);
	emu_state_lock(emu);
}

void
unlock_all(const sigset_t *saved)
{
	emu_state_unlock(emu);
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, saved, NULL, _NSIG / 8);
}

/*
 * The caller's user-mode code around a system call (emu_config's
 * caller_insns), retired on the CPU it runs on. With the lock held.
 */
void
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
void
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
