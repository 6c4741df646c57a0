/*
 * hw_linux.c - the real machine: CPUID through libcpuid on a pinned thread,
 * MSRs through the Linux msr driver, rdpmc and rdtsc in user mode, and the kernel
 * files (written: only the rdpmc files).
 *
 * This is the only file that opens /dev/cpu/N/msr or executes rdpmc. It
 * uses plain open/pread/pwrite/read/close, which are async-signal-safe, so
 * a signal handler may restore MSRs through it.
 */
#include "hw/hw.h"

#include <errno.h>
#include <fcntl.h>
#include <libcpuid/libcpuid.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* One cached fd per CPU, opened read-only or read-write. */
struct msr_fd {
	int fd;
	bool writable;
};

struct hw_linux {
	struct hw hw;
	int ncpus;
	struct msr_fd *msr;
};

static int
pin_to(int cpu, cpu_set_t *saved)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(*saved), saved) < 0)
		return -errno;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0)
		return errno == EINVAL ? -ENXIO : -errno;
	return 0;
}

static int
linux_cpuid(void *ctx, int cpu, struct cpu_raw_data_t *raw)
{
	cpu_set_t saved;
	int ret;

	(void)ctx;
	if (cpu < 0 || cpu >= CPU_SETSIZE)
		return -ENXIO;
	/* CPUID answers for the CPU it runs on: hybrid cores differ. */
	ret = pin_to(cpu, &saved);
	if (ret < 0)
		return ret;
	ret = cpuid_get_raw_data(raw) == 0 ? 0 : -EIO;
	/* Back to where we were; if that fails we merely stay on @cpu. */
	(void)sched_setaffinity(0, sizeof(saved), &saved);
	return ret;
}

/* Through libcpuid's cpu_exec_cpuid_ext, so an interposed libcpuid answers this too. */
static int
linux_cpuid_leaf(void *ctx, int cpu, uint32_t leaf, uint32_t subleaf, uint32_t regs[4])
{
	cpu_set_t saved;
	int ret;

	(void)ctx;
	if (cpu < 0 || cpu >= CPU_SETSIZE)
		return -ENXIO;
	ret = pin_to(cpu, &saved);
	if (ret < 0)
		return ret;
	regs[0] = leaf;
	regs[1] = 0;
	regs[2] = subleaf;
	regs[3] = 0;
	cpu_exec_cpuid_ext(regs);
	(void)sched_setaffinity(0, sizeof(saved), &saved);
	return 0;
}

static int
linux_msr_open(void *ctx, int cpu, bool write)
{
	struct hw_linux *hl = ctx;
	char path[64];
	struct stat st;
	int fd;

	if (cpu < 0 || cpu >= hl->ncpus)
		return -ENXIO;
	if (hl->msr[cpu].fd >= 0 && (hl->msr[cpu].writable || !write))
		return 0;

	snprintf(path, sizeof(path), "/dev/cpu/%d/msr", cpu);
	/* CLOEXEC: the counted command must not inherit a root MSR handle. */
	fd = open(path, (write ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		if (e == ENOENT) {
			snprintf(path, sizeof(path), "/dev/cpu/%d", cpu);
			if (stat(path, &st) < 0)
				return -ENXIO;
		}
		return -e;
	}
	if (hl->msr[cpu].fd >= 0)
		close(hl->msr[cpu].fd);
	hl->msr[cpu].fd = fd;
	hl->msr[cpu].writable = write;
	return 0;
}

static int
linux_rdmsr(void *ctx, int cpu, uint32_t msr, uint64_t *val)
{
	struct hw_linux *hl = ctx;
	ssize_t n;
	int ret = linux_msr_open(ctx, cpu, false);

	if (ret < 0)
		return ret;
	n = pread(hl->msr[cpu].fd, val, sizeof(*val), (off_t)msr);
	if (n < 0)
		return -errno;
	return n == sizeof(*val) ? 0 : -EIO;
}

static int
linux_wrmsr(void *ctx, int cpu, uint32_t msr, uint64_t val)
{
	struct hw_linux *hl = ctx;
	ssize_t n;
	int ret = linux_msr_open(ctx, cpu, true);

	if (ret < 0)
		return ret;
	n = pwrite(hl->msr[cpu].fd, &val, sizeof(val), (off_t)msr);
	if (n < 0)
		return -errno;
	return n == sizeof(val) ? 0 : -EIO;
}

static inline uint64_t
do_rdpmc(uint32_t ecx)
{
	uint32_t lo, hi;

	/* lfence: do not let rdpmc run ahead of the work it should count. */
	__asm__ volatile("lfence\n\trdpmc" : "=a"(lo), "=d"(hi) : "c"(ecx) : "memory");
	return ((uint64_t)hi << 32) | lo;
}

/*
 * rdpmc raises #GP (SIGSEGV) in user mode unless CR4.PCE is set, so it is
 * tried in a child: the verdict is how the child ends. The child keeps the
 * inherited SIGSEGV disposition (a sanitizer's handler reports and exits
 * non-zero; it must not print on our stderr, hence /dev/null).
 */
static int
linux_rdpmc_probe(void *ctx, int cpu)
{
	pid_t pid;
	int status;

	(void)ctx;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		cpu_set_t set;
		int devnull = open("/dev/null", O_WRONLY);

		if (devnull >= 0)
			(void)dup2(devnull, STDERR_FILENO);
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set) < 0)
			_exit(2);
		(void)do_rdpmc(0);
		_exit(0);
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return -errno;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 2)
		return -ENXIO;
	return (WIFEXITED(status) && WEXITSTATUS(status) == 0) ? 0 : -EPERM;
}

static int
linux_rdpmc(void *ctx, int cpu, uint32_t ecx, uint64_t *val)
{
	(void)ctx;
	if (sched_getcpu() != cpu)
		return -EINVAL;
	*val = do_rdpmc(ecx);
	return 0;
}

static int
linux_read_file(void *ctx, enum hw_file file, char *buf, size_t size)
{
	ssize_t n;
	size_t len = 0;
	int fd;

	(void)ctx;
	if ((unsigned)file >= HW_FILE_COUNT || size == 0)
		return -EINVAL;
	fd = open(hw_file_path(file), O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (len + 1 < size) {
		n = read(fd, buf + len, size - 1 - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			n = -errno;
			close(fd);
			return (int)n;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	close(fd);
	return 0;
}

static int
linux_write_file(void *ctx, enum hw_file file, const char *text)
{
	size_t len = strlen(text), done = 0;
	int fd, err = 0;

	(void)ctx;
	if (!hw_file_is_rdpmc(file))
		return -EINVAL;
	fd = open(hw_file_path(file), O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (done < len) {
		ssize_t n = write(fd, text + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : -EIO;
			break;
		}
		done += (size_t)n;
	}
	/* sysfs reports a rejected value (EINVAL) from write(), rarely from close(). */
	if (close(fd) < 0 && err == 0 && errno != EINTR)
		err = -errno;
	return err;
}

/*
 * Through libcpuid's cpu_rdtsc(), as CPUID goes through libcpuid: the
 * emulator's preload library answers it on any host (tests/emu). rdtsc
 * itself works in user mode unless a process asked for PR_TSC_SIGSEGV.
 */
static int
linux_rdtsc(void *ctx, uint64_t *val)
{
	(void)ctx;
	cpu_rdtsc(val);
	return 0;
}

static void
linux_close(void *ctx)
{
	struct hw_linux *hl = ctx;

	for (int i = 0; i < hl->ncpus; i++) {
		if (hl->msr[i].fd >= 0)
			close(hl->msr[i].fd);
	}
	free(hl->msr);
	free(hl);
}

static const struct hw_ops linux_ops = {
	.cpuid = linux_cpuid,
	.cpuid_leaf = linux_cpuid_leaf,
	.msr_open = linux_msr_open,
	.rdmsr = linux_rdmsr,
	.wrmsr = linux_wrmsr,
	.rdpmc_probe = linux_rdpmc_probe,
	.rdpmc = linux_rdpmc,
	.read_file = linux_read_file,
	.write_file = linux_write_file,
	.rdtsc = linux_rdtsc,
	.close = linux_close,
};

struct hw *
hw_linux_new(void)
{
	struct hw_linux *hl = calloc(1, sizeof(*hl));
	long n = sysconf(_SC_NPROCESSORS_CONF);

	if (!hl)
		return NULL;
	hl->ncpus = n > 0 ? (int)n : 1;
	hl->msr = calloc((size_t)hl->ncpus, sizeof(*hl->msr));
	if (!hl->msr) {
		free(hl);
		return NULL;
	}
	for (int i = 0; i < hl->ncpus; i++)
		hl->msr[i].fd = -1;
	hl->hw.ops = &linux_ops;
	hl->hw.ctx = hl;
	return &hl->hw;
}

void
hw_free(struct hw *hw)
{
	if (hw)
		hw->ops->close(hw->ctx);
}

const char *
hw_msr_hint(int err, bool write)
{
	switch (-err) {
	case ENOENT:
		return "the msr driver is not loaded: run 'sudo modprobe msr'";
	case ENXIO:
		return "no such CPU (or it is offline): pick one from 'nproc' / lscpu";
	case EACCES:
		return "permission denied: run pmustat as root (sudo), or give it CAP_SYS_RAWIO and access to /dev/cpu/*/msr";
	case EPERM:
		return write ? "MSR writes are blocked: kernel lockdown (Secure Boot) or msr.allow_writes=off; boot with msr.allow_writes=on without lockdown, or count with perf stat"
			     : "not permitted: run pmustat as root (sudo); under kernel lockdown the msr driver refuses raw access";
	case EIO:
		return "the CPU refused this MSR access (#GP): the register does not exist on this CPU or the value has reserved bits";
	default:
		break;
	}
	return "see dmesg for msr driver messages";
}
