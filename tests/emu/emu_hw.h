/*
 * emu_hw.h - struct hw (src/hw.h) over an emulated PMU, for unit tests of
 * everything above the seam (pmu.c, cmd_*.c) without hardware.
 *
 *	struct emu_config cfg;
 *	emu_config_default(&cfg, EMU_MODEL_SKYLAKE);
 *	cfg.ncpus = 2;
 *	struct emu_pmu *pmu = emu_pmu_new(&cfg);
 *	struct hw *hw = emu_hw_new(pmu);
 *	... code under test calls hw_rdmsr(hw, ...) ...
 *	emu_retire(pmu, 0, 0xc0, 0x00, 3, 1000);	// "run" a workload on CPU 0
 *	... assert on pmu->cpu[0].regs or through hw_rdmsr ...
 *	hw_free(hw);			// or emu_hw_free(hw)
 *	emu_pmu_free(pmu);
 *
 * The ops follow the config like the real machine would:
 *  - cpuid: the core type's raw data of @cpu (-ENXIO beyond ncpus).
 *  - msr_open: -ENOENT (msr absent), -EACCES (eacces), -ENXIO (no such CPU),
 *    else 0; read-only (lockdown) opens succeed. rdmsr/wrmsr open the CPU
 *    implicitly (with the same errors) if msr_open was not called.
 *  - rdmsr/wrmsr: emu_rdmsr/emu_wrmsr, so -EIO for #GP; wrmsr gives -EPERM
 *    in read-only mode or with the allow_writes file "off", and -EBADF
 *    after msr_open(cpu, false) only.
 *  - rdpmc_probe: 0, or -EPERM when config.rdpmc_off.
 *  - rdpmc: emu_rdpmc; -EINVAL when the "current CPU" (see
 *    emu_hw_set_current_cpu) is set and differs from @cpu; -EPERM if not allowed.
 *  - read_file: emu_file() text, truncated to @size - 1; -ENOENT if absent.
 *  - write_file: emu_write_file() (emu_files.h): the rdpmc files only.
 *  - close: frees the context and the struct hw (one allocation, as in
 *    hw_linux.c), so hw_free(hw) and emu_hw_free(hw) are the same.
 * The emu_pmu is borrowed, never freed by these functions.
 */
#ifndef PMUSTAT_EMU_HW_H
#define PMUSTAT_EMU_HW_H

#include "emu_pmu.h"
#include "hw/hw.h"

/* NULL with errno set on allocation failure. */
struct hw *emu_hw_new(struct emu_pmu *pmu);
void emu_hw_free(struct hw *hw);

/* The emu_pmu behind an emu hw (NULL if @hw is not one). */
struct emu_pmu *emu_hw_pmu(struct hw *hw);

/*
 * Pretend the caller runs on @cpu, for the rdpmc op's "must already run on
 * @cpu" rule; -1 (the default) accepts any CPU.
 */
void emu_hw_set_current_cpu(struct hw *hw, int cpu);

enum emu_hw_op {
	EMU_HW_OP_CPUID,
	EMU_HW_OP_MSR_OPEN,
	EMU_HW_OP_RDMSR,
	EMU_HW_OP_WRMSR,
	EMU_HW_OP_RDPMC_PROBE,
	EMU_HW_OP_RDPMC,
	EMU_HW_OP_READ_FILE,
	EMU_HW_OP_WRITE_FILE,
	EMU_HW_OP_COUNT
};

/*
 * Fault injection: the call of @op made after @after more successful-or-not
 * calls (0: the very next one) returns @err (negative errno) without doing
 * anything. One pending injection per op; @err 0 cancels it. For testing
 * that callers restore the PMU when a write fails halfway.
 */
void emu_hw_inject(struct hw *hw, enum emu_hw_op op, unsigned after, int err);

/* How many times each op was called since emu_hw_new. */
unsigned emu_hw_calls(struct hw *hw, enum emu_hw_op op);

#endif
