/*
 * hw.h - the one seam between pmustat and the machine.
 *
 * Everything pmustat knows about the CPU and its PMU comes through a
 * struct hw: CPUID (as libcpuid raw data, per logical CPU), MSR reads and
 * writes, rdpmc, rdtsc, and the handful of kernel files that decide whether
 * pmustat may program the PMU at all. hw_linux.c is the production
 * implementation and the only file that opens /dev/cpu/N/msr or executes
 * rdpmc; the test suite supplies an emulated PMU behind the same ops.
 *
 * Every operation returns 0 on success or a negative errno. None of them
 * prints: callers turn the errno into a message that names the CPU, the
 * MSR or file, and the fix (see hw_strerror_hint()).
 */
#ifndef PMUSTAT_HW_H
#define PMUSTAT_HW_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cpu_raw_data_t;

/* The kernel files pmustat reads to explain what it may do, and the machine's shape. */
enum hw_file {
	HW_FILE_RDPMC,			/* /sys/bus/event_source/devices/cpu/rdpmc */
	HW_FILE_NMI_WATCHDOG,		/* /proc/sys/kernel/nmi_watchdog */
	HW_FILE_LOCKDOWN,		/* /sys/kernel/security/lockdown */
	HW_FILE_MSR_ALLOW_WRITES,	/* /sys/module/msr/parameters/allow_writes */
	HW_FILE_PERF_EVENT_PARANOID,	/* /proc/sys/kernel/perf_event_paranoid */
	/* Hybrid parts have one PMU per core type and no devices/cpu/. */
	HW_FILE_RDPMC_CPU_CORE,		/* /sys/bus/event_source/devices/cpu_core/rdpmc */
	HW_FILE_RDPMC_CPU_ATOM,		/* /sys/bus/event_source/devices/cpu_atom/rdpmc */
	/* The machine's shape, for the constants of metric formulas. */
	HW_FILE_SMT_ACTIVE,		/* /sys/devices/system/cpu/smt/active */
	HW_FILE_CPUS_ONLINE,		/* /sys/devices/system/cpu/online */
	HW_FILE_CPU0_CORE_CPUS,		/* /sys/devices/system/cpu/cpu0/topology/core_cpus_list */
	HW_FILE_CPU0_PACKAGE_CPUS,	/* /sys/devices/system/cpu/cpu0/topology/package_cpus_list */
	HW_FILE_COUNT
};

struct hw_ops {
	/* CPUID of logical CPU @cpu, as libcpuid's raw data. */
	int (*cpuid)(void *ctx, int cpu, struct cpu_raw_data_t *raw);
	/*
	 * One CPUID leaf and subleaf of @cpu into @regs (EAX, EBX, ECX, EDX),
	 * for what libcpuid's raw data does not keep (its basic leaves stop at
	 * 0x1F: leaf 0x23). NULL: hw_cpuid_leaf() gives -EOPNOTSUPP.
	 */
	int (*cpuid_leaf)(void *ctx, int cpu, uint32_t leaf, uint32_t subleaf, uint32_t regs[4]);
	/*
	 * Make sure the MSR device of @cpu is open, for writing when
	 * @write. -ENOENT: no msr driver; -ENXIO: no such CPU; -EACCES or
	 * -EPERM: not allowed. Later rdmsr/wrmsr calls reuse the open device,
	 * so a child that drops privileges can still use it.
	 */
	int (*msr_open)(void *ctx, int cpu, bool write);
	/* -EIO where the CPU would raise #GP (unknown MSR, reserved bits). */
	int (*rdmsr)(void *ctx, int cpu, uint32_t msr, uint64_t *val);
	int (*wrmsr)(void *ctx, int cpu, uint32_t msr, uint64_t val);
	/*
	 * Whether rdpmc works in user mode on @cpu (CR4.PCE). Must not kill
	 * the caller when it does not: 0 allowed, -EPERM not allowed.
	 */
	int (*rdpmc_probe)(void *ctx, int cpu);
	/*
	 * Execute rdpmc with @ecx (bit 30 selects fixed counters). The caller
	 * must already run on @cpu; -EINVAL otherwise. Only call it after
	 * rdpmc_probe() said yes.
	 */
	int (*rdpmc)(void *ctx, int cpu, uint32_t ecx, uint64_t *val);
	/* Read one of the kernel files into @buf, NUL-terminated. */
	int (*read_file)(void *ctx, enum hw_file file, char *buf, size_t size);
	/*
	 * Write @text to one of the rdpmc files (HW_FILE_RDPMC*; any other
	 * file: -EINVAL), as `echo 2 > .../rdpmc` does. NULL in a struct hw
	 * that cannot write: hw_write_file() gives -EOPNOTSUPP.
	 */
	int (*write_file)(void *ctx, enum hw_file file, const char *text);
	/*
	 * Execute rdtsc on the CPU the caller runs on (the TSC is invariant and
	 * the same on every CPU of the machine). NULL in a struct hw without a
	 * TSC: hw_rdtsc() gives -EOPNOTSUPP.
	 */
	int (*rdtsc)(void *ctx, uint64_t *val);
	/* Release the context, all it holds and the struct hw itself. */
	void (*close)(void *ctx);
};

struct hw {
	const struct hw_ops *ops;
	void *ctx;
};

/* The production implementation: real CPUID, /dev/cpu/N/msr, rdpmc. */
struct hw *hw_linux_new(void);
void hw_free(struct hw *hw);

/* Path of a kernel file ("?" when out of range). */
const char *hw_file_path(enum hw_file file);
/* A short name for it, e.g. "rdpmc_cpu_core" (NULL when out of range). */
const char *hw_file_key(enum hw_file file);

/*
 * A one-line remedy for an errno returned by an MSR operation, e.g.
 * "load the msr driver: sudo modprobe msr". Never NULL.
 */
const char *hw_msr_hint(int err, bool write);

static inline int
hw_cpuid(struct hw *hw, int cpu, struct cpu_raw_data_t *raw)
{
	return hw->ops->cpuid(hw->ctx, cpu, raw);
}

static inline int
hw_cpuid_leaf(struct hw *hw, int cpu, uint32_t leaf, uint32_t subleaf, uint32_t regs[4])
{
	if (!hw->ops->cpuid_leaf)
		return -EOPNOTSUPP;
	return hw->ops->cpuid_leaf(hw->ctx, cpu, leaf, subleaf, regs);
}

static inline int
hw_msr_open(struct hw *hw, int cpu, bool write)
{
	return hw->ops->msr_open(hw->ctx, cpu, write);
}

static inline int
hw_rdmsr(struct hw *hw, int cpu, uint32_t msr, uint64_t *val)
{
	return hw->ops->rdmsr(hw->ctx, cpu, msr, val);
}

static inline int
hw_wrmsr(struct hw *hw, int cpu, uint32_t msr, uint64_t val)
{
	return hw->ops->wrmsr(hw->ctx, cpu, msr, val);
}

static inline int
hw_rdpmc_probe(struct hw *hw, int cpu)
{
	return hw->ops->rdpmc_probe(hw->ctx, cpu);
}

static inline int
hw_rdpmc(struct hw *hw, int cpu, uint32_t ecx, uint64_t *val)
{
	return hw->ops->rdpmc(hw->ctx, cpu, ecx, val);
}

static inline int
hw_read_file(struct hw *hw, enum hw_file file, char *buf, size_t size)
{
	return hw->ops->read_file(hw->ctx, file, buf, size);
}

static inline int
hw_write_file(struct hw *hw, enum hw_file file, const char *text)
{
	if (!hw->ops->write_file)
		return -EOPNOTSUPP;
	return hw->ops->write_file(hw->ctx, file, text);
}

static inline int
hw_rdtsc(struct hw *hw, uint64_t *val)
{
	if (!hw || !hw->ops->rdtsc)
		return -EOPNOTSUPP;
	return hw->ops->rdtsc(hw->ctx, val);
}

/* Whether @file is one of the rdpmc files, the only ones pmustat writes. */
static inline bool
hw_file_is_rdpmc(enum hw_file file)
{
	return file == HW_FILE_RDPMC || file == HW_FILE_RDPMC_CPU_CORE || file == HW_FILE_RDPMC_CPU_ATOM;
}

#endif
