/*
 * test_emu_util.h - what the emulator's unit tests share: a machine, and
 * RDMSR/WRMSR that fail the test when the CPU does not answer as expected.
 */
#ifndef PMUSTAT_TEST_EMU_UTIL_H
#define PMUSTAT_TEST_EMU_UTIL_H

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "emu_pmu.h"
#include "pmu/msr.h"

#define EVTSEL_COUNT(code, umask, bits) \
	(EVTSEL_EVENT(code) | EVTSEL_UMASK(umask) | EVTSEL_EN | (bits))

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

/* Overflow GP counter @i (and fixed counter @f) of CPU 0 with retires. */
static inline void
overflow(struct emu_pmu *pmu, unsigned i)
{
	const struct emu_core_type *t = emu_cpu_type(pmu, 0);
	uint64_t max = (1ull << t->gp_width) - 1;

	wr(pmu, 0, msr_evtsel(i), EVTSEL_COUNT(0x2e, 0x41, EVTSEL_USR));
	if (t->full_width_write)
		wr(pmu, 0, msr_a_pmc(i), max);
	else
		wr(pmu, 0, msr_pmc(i), (uint32_t)-1);	/* sign-extends to max */
	assert_int_equal(emu_retire(pmu, 0, 0x2e, 0x41, 3, 1), 0);
}

#endif
