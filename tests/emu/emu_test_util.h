/*
 * emu_test_util.h - what the emulator's own unit tests share: a machine of
 * a model, and MSR reads and writes that fail the test when the emulated
 * CPU raises #GP (or, for wr_gp(), when it does not).
 */
#ifndef PMUSTAT_EMU_TEST_UTIL_H
#define PMUSTAT_EMU_TEST_UTIL_H

#include <errno.h>

#include "emu_pmu.h"

static inline struct emu_pmu *
new_pmu(enum emu_model model, unsigned ncpus)
{
	struct emu_config cfg;
	struct emu_pmu *pmu;

	emu_config_default(&cfg, model);
	cfg.ncpus = ncpus;
	pmu = emu_pmu_new(&cfg);
	assert_non_null(pmu);
	return pmu;
}

static inline uint64_t
rd(struct emu_pmu *pmu, unsigned cpu, uint32_t msr)
{
	uint64_t val = 0xdeadbeef;

	assert_int_equal(emu_rdmsr(pmu, cpu, msr, &val), 0);
	return val;
}

static inline void
wr(struct emu_pmu *pmu, unsigned cpu, uint32_t msr, uint64_t val)
{
	assert_int_equal(emu_wrmsr(pmu, cpu, msr, val), 0);
}

/* A write that must #GP and leave the register as it was. */
static inline void
wr_gp(struct emu_pmu *pmu, unsigned cpu, uint32_t msr, uint64_t val)
{
	uint64_t before = 0, after = 0;
	int readable = emu_rdmsr(pmu, cpu, msr, &before);

	assert_int_equal(emu_wrmsr(pmu, cpu, msr, val), -EIO);
	if (readable == 0) {
		assert_int_equal(emu_rdmsr(pmu, cpu, msr, &after), 0);
		assert_int_equal(before, after);
	}
}

#endif
