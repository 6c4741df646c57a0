/*
 * test_emu_netburst.c - the emulated NetBurst PMU's rules, one test per
 * rule (emu_netburst.h): the MSR map, reserved bits, ESCR -> counter
 * routing, the input lines with the threshold, complement and edge
 * filters, the 40-bit wrap and OVF, rdpmc, HT sharing, CPUID, actions.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "events/cpu.h"
#include "emu_action.h"
#include "emu_netburst.h"
#include "emu_pmu.h"
#include "test_emu_util.h"
#include "pmus/netburst/nb_regs.h"

#define CRU_ESCR0	0x3b8u
#define CRU_ESCR1	0x3b9u
#define FSB_ESCR0	0x3a2u
#define IQ_CCCR0	0x36cu
#define IQ_CCCR2	0x36eu
#define IQ_COUNTER0	0x30cu
#define IQ_COUNTER2	0x30eu
/* instr_retired (0x02), NBOGUSNTAG, T0_USR; CCCR: enable, select 4, 11b. */
#define ESCR_INSTR_T0U	(0x02u << 25 | 1u << 9 | 1u << 2)
#define CCCR_CRU0_ON	(1u << 12 | 4u << 13 | 3u << 16)
#define COMPARE		(1u << 18)
#define COMPLEMENT	(1u << 19)
#define THRESHOLD(t)	((uint32_t)(t) << 20)
#define EDGE		(1u << 24)
#define OVF		(1u << 31)

/* Clock instr_retired on CPU @cpu: @n clocks of each of @inputs, user mode. */
static void
clock_inputs(struct emu_pmu *pmu, unsigned cpu, const unsigned *inputs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		assert_int_equal(emu_nb_clocks(pmu, cpu, 0x02, 0x1, 3, inputs[i], 1), 0);
}

/* instr_retired on IQ_COUNTER0 with @cccr_extra filter bits. */
static struct emu_pmu *
counting(enum emu_model model, uint32_t cccr_extra)
{
	struct emu_pmu *pmu = new_pmu(model, 2);

	wr(pmu, 0, CRU_ESCR0, ESCR_INSTR_T0U);
	wr(pmu, 0, IQ_CCCR0, CCCR_CRU0_ON | cccr_extra);
	return pmu;
}

static void
test_models(void **state)
{
	struct emu_pmu *nw = new_pmu(EMU_MODEL_NETBURST, 2), *ps = new_pmu(EMU_MODEL_NETBURST_HT, 4);
	struct emu_config cfg;
	struct emu_pmu pmu;

	(void)state;
	assert_true(emu_cpu_type(nw, 0)->netburst);
	assert_int_equal(emu_cpu_type(nw, 0)->version, 0);
	assert_false(emu_cpu_type(nw, 0)->nb_ht);
	assert_int_equal(emu_cpu_type(nw, 0)->nb_model, 2);
	assert_true(emu_cpu_type(ps, 0)->nb_ht);
	assert_int_equal(emu_cpu_type(ps, 0)->nb_model, 4);
	assert_int_equal(emu_model_from_name("netburst"), EMU_MODEL_NETBURST);
	assert_int_equal(emu_model_from_name("netburst-ht"), EMU_MODEL_NETBURST_HT);
	/* No architectural counter to override, no NMI watchdog preset. */
	emu_config_default(&cfg, EMU_MODEL_NETBURST);
	cfg.gp = 2;
	assert_int_equal(emu_pmu_init(&pmu, &cfg, NULL), -EINVAL);
	emu_config_default(&cfg, EMU_MODEL_NETBURST);
	cfg.watchdog = true;
	assert_int_equal(emu_pmu_init(&pmu, &cfg, NULL), -EINVAL);
	emu_pmu_free(nw);
	emu_pmu_free(ps);
}

/* Exactly the SDM's registers answer; the same set pmustat's allow-list has. */
static void
test_msr_map(void **state)
{
	static const enum emu_model models[] = { EMU_MODEL_NETBURST, EMU_MODEL_NETBURST_HT };

	(void)state;
	for (size_t m = 0; m < 2; m++) {
		struct emu_pmu *pmu = new_pmu(models[m], 1);
		unsigned model = emu_cpu_type(pmu, 0)->nb_model, n = 0;
		uint32_t list[EMU_MAX_MSRS];

		for (uint32_t msr = 0; msr < 0x1000; msr++) {
			uint64_t v;
			int ret = emu_rdmsr(pmu, 0, msr, &v);

			n += ret == 0;
			/* Two encodings of the SDM's table, written apart, agree. */
			if (msr != NB_MSR_MISC_ENABLE)
				assert_int_equal(ret == 0, nb_msr_allowed(msr, model));
		}
		assert_int_equal(n, 1 + 18 + 18 + (model <= 2 ? 45 : 43));
		assert_int_equal(emu_msr_list(pmu, 0, list, EMU_MAX_MSRS), n);
		/* Architectural MSRs are not there. */
		assert_int_equal(emu_wrmsr(pmu, 0, 0x186, 0), -EIO);
		assert_int_equal(emu_wrmsr(pmu, 0, 0x38f, 0), -EIO);
		/* IA32_MISC_ENABLE: perfmon available (7), PEBS available (12 clear); read-only. */
		assert_int_equal(rd(pmu, 0, 0x1a0) & (1u << 7 | 1u << 12), 1u << 7);
		assert_int_equal(emu_wrmsr(pmu, 0, 0x1a0, rd(pmu, 0, 0x1a0)), -EIO);
		emu_pmu_free(pmu);
	}
}

static void
test_perfmon_off(void **state)
{
	struct emu_config cfg;
	struct emu_pmu *pmu;

	(void)state;
	emu_config_default(&cfg, EMU_MODEL_NETBURST);
	cfg.ncpus = 1;
	cfg.nb_perfmon_off = true;
	pmu = emu_pmu_new(&cfg);
	assert_non_null(pmu);
	assert_int_equal(rd(pmu, 0, 0x1a0) & (1u << 7), 0);
	emu_pmu_free(pmu);
}

/* A reserved bit is #GP and changes nothing. */
static void
test_reserved_bits(void **state)
{
	struct emu_pmu *nw = new_pmu(EMU_MODEL_NETBURST, 1), *ht = new_pmu(EMU_MODEL_NETBURST_HT, 2);
	static const uint64_t bad_cccr[] = { 1u << 0, 1u << 11, 1u << 28, 1u << 29, 1ull << 32 };

	(void)state;
	wr(nw, 0, CRU_ESCR0, ESCR_INSTR_T0U);
	wr_gp(nw, 0, CRU_ESCR0, 1u << 31);
	wr_gp(nw, 0, CRU_ESCR0, 1u << 0);		/* T1_USR without HT */
	wr_gp(nw, 0, CRU_ESCR0, 1ull << 32);
	wr(ht, 0, CRU_ESCR0, 1u << 0 | 1u << 1);
	for (size_t i = 0; i < sizeof(bad_cccr) / sizeof(bad_cccr[0]); i++) {
		wr_gp(nw, 0, IQ_CCCR0, bad_cccr[i]);
		wr_gp(ht, 0, IQ_CCCR0, bad_cccr[i]);
	}
	wr_gp(nw, 0, IQ_CCCR0, 1u << 27);		/* OVF_PMI_T1 without HT */
	wr(ht, 0, IQ_CCCR0, 1u << 27);
	wr(nw, 0, IQ_COUNTER0, (1ull << 40) - 1);
	wr_gp(nw, 0, IQ_COUNTER0, 1ull << 40);
	emu_pmu_free(nw);
	emu_pmu_free(ht);
}

/* The counter adds the input value each clock (inputs are 4 lines, values 0-15). */
static void
test_no_filter(void **state)
{
	static const unsigned in[] = { 5, 0, 7, 7, 7 };
	struct emu_pmu *pmu = counting(EMU_MODEL_NETBURST, 0);

	(void)state;
	clock_inputs(pmu, 0, in, 5);
	assert_int_equal(rd(pmu, 0, IQ_COUNTER0), 26);
	assert_int_equal(emu_nb_clocks(pmu, 0, 0x02, 0x1, 3, 15, 1000), 0);
	assert_int_equal(rd(pmu, 0, IQ_COUNTER0), 26 + 15000);
	assert_int_equal(emu_nb_clocks(pmu, 0, 0x02, 0x1, 3, 16, 1), -EINVAL);
	emu_pmu_free(pmu);
}

/* "Threshold 6: any input of 7 or greater increments the counter by 1." */
static void
test_threshold(void **state)
{
	static const unsigned in[] = { 5, 0, 7, 7, 7, 6, 15 };
	struct emu_pmu *pmu = counting(EMU_MODEL_NETBURST, COMPARE | THRESHOLD(6));

	(void)state;
	clock_inputs(pmu, 0, in, 7);
	assert_int_equal(rd(pmu, 0, IQ_COUNTER0), 4);
	/* Without compare the threshold is ignored. */
	wr(pmu, 0, IQ_CCCR0, CCCR_CRU0_ON | THRESHOLD(6));
	wr(pmu, 0, IQ_COUNTER0, 0);
	clock_inputs(pmu, 0, in, 7);
	assert_int_equal(rd(pmu, 0, IQ_COUNTER0), 47);
	emu_pmu_free(pmu);
}

/* Complement: input <= threshold counts, clocks without the event included. */
static void
test_complement(void **state)
{
	static const unsigned in[] = { 5, 0, 7, 7, 7, 6, 15 };
	struct emu_pmu *pmu = counting(EMU_MODEL_NETBURST, COMPARE | COMPLEMENT | THRESHOLD(6));

	(void)state;
	clock_inputs(pmu, 0, in, 7);
	assert_int_equal(rd(pmu, 0, IQ_COUNTER0), 3);
	/* 10 clocks of another event: input 0 <= 6 each time. */
	assert_int_equal(emu_nb_clocks(pmu, 0, 0x13, 0x1, 3, 1, 10), 0);
	assert_int_equal(rd(pmu, 0, IQ_COUNTER0), 13);
	/* Complement without compare does nothing either. */
	wr(pmu, 0, IQ_CCCR0, CCCR_CRU0_ON | COMPLEMENT | THRESHOLD(6));
	wr(pmu, 0, IQ_COUNTER0, 0);
	clock_inputs(pmu, 0, in, 7);
	assert_int_equal(rd(pmu, 0, IQ_COUNTER0), 47);
	emu_pmu_free(pmu);
}

/* Edge: one count per false-to-true transition of the comparison, across calls. */
static void
test_edge(void **state)
{
	static const unsigned in[] = { 5, 0, 7, 7, 7 };
	struct emu_pmu *pmu = counting(EMU_MODEL_NETBURST, COMPARE | EDGE);

	(void)state;
	clock_inputs(pmu, 0, in, 5);
	assert_int_equal(rd(pmu, 0, IQ_COUNTER0), 2);
	/* A run of many true clocks is one rising edge. */
	assert_int_equal(emu_nb_clocks(pmu, 0, 0x02, 0x1, 3, 0, 1), 0);
	assert_int_equal(emu_nb_clocks(pmu, 0, 0x02, 0x1, 3, 3, 1000), 0);
	assert_int_equal(rd(pmu, 0, IQ_COUNTER0), 3);
	/* Still true from the last call: no edge. */
	assert_int_equal(emu_nb_clocks(pmu, 0, 0x02, 0x1, 3, 3, 1), 0);
	assert_int_equal(rd(pmu, 0, IQ_COUNTER0), 3);
	/* A CCCR write forgets the last output: the next true clock is an edge. */
	wr(pmu, 0, IQ_CCCR0, CCCR_CRU0_ON | COMPARE | EDGE);
	assert_int_equal(emu_nb_clocks(pmu, 0, 0x02, 0x1, 3, 3, 1), 0);
	assert_int_equal(rd(pmu, 0, IQ_COUNTER0), 4);
	/* Complement and edge: rising edges of "input <= 2". */
	wr(pmu, 0, IQ_CCCR0, CCCR_CRU0_ON | COMPARE | COMPLEMENT | THRESHOLD(2) | EDGE);
	wr(pmu, 0, IQ_COUNTER0, 0);
	{
		static const unsigned in2[] = { 5, 1, 2, 9, 9, 0, 3 };

		clock_inputs(pmu, 0, in2, 7);
	}
	assert_int_equal(rd(pmu, 0, IQ_COUNTER0), 2);
	/* Edge without compare is not active. */
	wr(pmu, 0, IQ_CCCR0, CCCR_CRU0_ON | EDGE);
	wr(pmu, 0, IQ_COUNTER0, 0);
	clock_inputs(pmu, 0, in, 5);
	assert_int_equal(rd(pmu, 0, IQ_COUNTER0), 26);
	emu_pmu_free(pmu);
}

/* What routes a clock's input to a counter, and what does not. */
static void
test_routing(void **state)
{
	struct emu_pmu *pmu = counting(EMU_MODEL_NETBURST, 0);

	(void)state;
	assert_int_equal(emu_nb_clocks(pmu, 0, 0x02, 0x1, 0, 1, 10), 0);	/* kernel: no T0_OS */
	assert_int_equal(emu_nb_clocks(pmu, 0, 0x02, 0x2, 3, 1, 10), 0);	/* NBOGUSTAG: not in mask */
	assert_int_equal(emu_nb_clocks(pmu, 0, 0x03, 0x1, 3, 1, 10), 0);	/* another event select */
	assert_int_equal(rd(pmu, 0, IQ_COUNTER0), 0);
	assert_int_equal(emu_nb_clocks(pmu, 0, 0x02, 0x3, 3, 1, 10), 0);	/* a mask bit in common */
	assert_int_equal(rd(pmu, 0, IQ_COUNTER0), 10);
	/* Enable clear: nothing. */
	wr(pmu, 0, IQ_CCCR0, CCCR_CRU0_ON & ~(1u << 12));
	assert_int_equal(emu_nb_clocks(pmu, 0, 0x02, 0x1, 3, 1, 10), 0);
	assert_int_equal(rd(pmu, 0, IQ_COUNTER0), 10);
	/* Bits 17:16 not 11b on a part without HT: nothing. */
	wr(pmu, 0, IQ_CCCR0, CCCR_CRU0_ON & ~(3u << 16));
	assert_int_equal(emu_nb_clocks(pmu, 0, 0x02, 0x1, 3, 1, 10), 0);
	assert_int_equal(rd(pmu, 0, IQ_COUNTER0), 10);
	/* ESCR select 5 names CRU_ESCR2 for IQ_COUNTER0, not CRU_ESCR0. */
	wr(pmu, 0, IQ_CCCR0, (CCCR_CRU0_ON & ~(7u << 13)) | 5u << 13);
	assert_int_equal(emu_nb_clocks(pmu, 0, 0x02, 0x1, 3, 1, 10), 0);
	assert_int_equal(rd(pmu, 0, IQ_COUNTER0), 10);
	/* CRU_ESCR1 feeds IQ_COUNTER2, not 0. */
	wr(pmu, 0, CRU_ESCR1, ESCR_INSTR_T0U);
	wr(pmu, 0, IQ_CCCR2, CCCR_CRU0_ON);
	assert_int_equal(emu_nb_clocks(pmu, 0, 0x02, 0x1, 3, 1, 7), 0);
	assert_int_equal(rd(pmu, 0, IQ_COUNTER2), 7);
	emu_pmu_free(pmu);
}

/*
 * Every (counter, ESCR select) pair pmustat's register map names routes
 * that ESCR to that counter in the emulator, and no other pair counts.
 */
static void
test_escr_select_table(void **state)
{
	(void)state;
	for (unsigned c = 0; c < 18; c++) {
		for (unsigned sel = 0; sel < 8; sel++) {
			struct emu_pmu *pmu = new_pmu(EMU_MODEL_NETBURST, 1);
			int e = nb_escr_for(c, sel);

			/* Every existing ESCR selects event 0x3f, mask bit 0, T0_USR. */
			for (unsigned i = 0; i < NB_ESCRS; i++)
				wr(pmu, 0, nb_escr_get(i)->msr, 0x3fu << 25 | 1u << 9 | 1u << 2);
			wr(pmu, 0, NB_MSR_CCCR0 + c, 1u << 12 | sel << 13 | 3u << 16);
			assert_int_equal(emu_nb_clocks(pmu, 0, 0x3f, 0x1, 3, 1, 1), 0);
			if (rd(pmu, 0, NB_MSR_COUNTER0 + c) != (e >= 0 ? 1u : 0u))
				fail_msg("counter %u, select %u: map says %s", c, sel,
					 e >= 0 ? nb_escr_get((unsigned)e)->name : "none");
			emu_pmu_free(pmu);
		}
	}
}

/* 40 bits: the counter wraps and sets the sticky OVF flag; FORCE_OVF sets it on any increment. */
static void
test_wrap_and_ovf(void **state)
{
	struct emu_pmu *pmu = counting(EMU_MODEL_NETBURST, 0);
	uint64_t v;

	(void)state;
	wr(pmu, 0, IQ_COUNTER0, (1ull << 40) - 2);
	assert_int_equal(emu_nb_clocks(pmu, 0, 0x02, 0x1, 3, 5, 1), 0);
	assert_int_equal(rd(pmu, 0, IQ_COUNTER0), 3);
	assert_true(rd(pmu, 0, IQ_CCCR0) & OVF);
	assert_int_equal(emu_nb_clocks(pmu, 0, 0x02, 0x1, 3, 5, 1), 0);
	assert_true(rd(pmu, 0, IQ_CCCR0) & OVF);			/* sticky */
	wr(pmu, 0, IQ_CCCR0, rd(pmu, 0, IQ_CCCR0) & ~OVF);
	assert_false(rd(pmu, 0, IQ_CCCR0) & OVF);
	/* Many wraps in one call: still exact modulo 2^40. */
	assert_int_equal(emu_nb_clocks(pmu, 0, 0x02, 0x1, 3, 15, 1ull << 40), 0);
	v = (8 + 15 * (1ull << 40)) & ((1ull << 40) - 1);
	assert_int_equal(rd(pmu, 0, IQ_COUNTER0), v);
	assert_true(rd(pmu, 0, IQ_CCCR0) & OVF);
	wr(pmu, 0, IQ_CCCR0, CCCR_CRU0_ON | 1u << 25);			/* FORCE_OVF */
	assert_int_equal(emu_nb_clocks(pmu, 0, 0x02, 0x1, 3, 1, 1), 0);
	assert_true(rd(pmu, 0, IQ_CCCR0) & OVF);
	emu_pmu_free(pmu);
}

static void
test_rdpmc(void **state)
{
	struct emu_pmu *pmu = counting(EMU_MODEL_NETBURST, 0);
	uint64_t v;

	(void)state;
	wr(pmu, 0, IQ_COUNTER0, 0xab12345678ull);
	assert_int_equal(emu_rdpmc(pmu, 0, 12, &v), 0);
	assert_int_equal(v, 0xab12345678ull);			/* all 40 bits */
	assert_int_equal(emu_rdpmc(pmu, 0, 12 | 0x80000000u, &v), 0);
	assert_int_equal(v, 0x12345678u);			/* fast read: EDX = 0 */
	assert_int_equal(emu_rdpmc(pmu, 0, 17, &v), 0);
	assert_int_equal(emu_rdpmc(pmu, 0, 18, &v), -EIO);
	assert_int_equal(emu_rdpmc(pmu, 0, 0x40000000u, &v), -EIO);	/* no fixed counters */
	pmu->config.rdpmc_off = true;
	assert_int_equal(emu_rdpmc(pmu, 0, 12, &v), -EPERM);
	emu_pmu_free(pmu);
}

/* HT: CPUs 0 and 1 share one register file; T0/T1 bits pick the thread. */
static void
test_ht_threads(void **state)
{
	struct emu_pmu *pmu = new_pmu(EMU_MODEL_NETBURST_HT, 4);

	(void)state;
	wr(pmu, 0, CRU_ESCR0, 0x02u << 25 | 1u << 9 | 1u << 0);	/* T1_USR only */
	wr(pmu, 1, IQ_CCCR0, CCCR_CRU0_ON);			/* written through the sibling */
	assert_int_equal(rd(pmu, 1, CRU_ESCR0), rd(pmu, 0, CRU_ESCR0));
	assert_int_equal(emu_nb_clocks(pmu, 0, 0x02, 0x1, 3, 1, 10), 0);	/* thread 0 */
	assert_int_equal(rd(pmu, 0, IQ_COUNTER0), 0);
	assert_int_equal(emu_nb_clocks(pmu, 1, 0x02, 0x1, 3, 1, 10), 0);	/* thread 1 */
	assert_int_equal(rd(pmu, 0, IQ_COUNTER0), 10);
	/* CPU 2 is another core. */
	assert_int_equal(rd(pmu, 2, IQ_CCCR0), 0);
	assert_int_equal(emu_nb_clocks(pmu, 2, 0x02, 0x1, 3, 1, 10), 0);
	assert_int_equal(rd(pmu, 0, IQ_COUNTER0), 10);
	/* Active thread: 01 (single) counts, 10 (both) does not. */
	wr(pmu, 0, IQ_CCCR0, (CCCR_CRU0_ON & ~(3u << 16)) | 1u << 16);
	assert_int_equal(emu_nb_clocks(pmu, 1, 0x02, 0x1, 3, 1, 5), 0);
	assert_int_equal(rd(pmu, 0, IQ_COUNTER0), 15);
	wr(pmu, 0, IQ_CCCR0, (CCCR_CRU0_ON & ~(3u << 16)) | 2u << 16);
	assert_int_equal(emu_nb_clocks(pmu, 1, 0x02, 0x1, 3, 1, 5), 0);
	assert_int_equal(rd(pmu, 0, IQ_COUNTER0), 15);
	emu_pmu_free(pmu);
}

/*
 * HT and a thread-independent event (x87_FP_uop on FIRM_ESCR0, event
 * select 4): one counter with thread 0's USR bit counts both threads'
 * uops; a thread-specific one (instr_retired on CRU_ESCR0) keeps to its
 * thread. The ring still qualifies: kernel uops
 * are not counted with USR bits only. Without HT nothing changes.
 */
static void
test_ht_thread_independent(void **state)
{
	struct emu_pmu *pmu = new_pmu(EMU_MODEL_NETBURST_HT, 2);
	const uint32_t firm_escr0 = 0x3a4, flame_cccr0 = 0x368, flame_counter0 = 0x308;

	(void)state;
	wr(pmu, 0, firm_escr0, 0x04u << 25 | 0x8000u << 9 | 1u << 2);	/* x87_FP_uop:ALL, T0_USR */
	wr(pmu, 0, flame_cccr0, 1u << 12 | 1u << 13 | 3u << 16);
	wr(pmu, 0, CRU_ESCR0, ESCR_INSTR_T0U);
	wr(pmu, 0, IQ_CCCR0, CCCR_CRU0_ON);
	assert_int_equal(emu_nb_clocks(pmu, 0, 0x04, 0x8000, 3, 1, 100), 0);
	assert_int_equal(emu_nb_clocks(pmu, 1, 0x04, 0x8000, 3, 1, 200), 0);
	assert_int_equal(emu_nb_clocks(pmu, 1, 0x04, 0x8000, 0, 1, 50), 0);	/* kernel */
	assert_int_equal(emu_nb_clocks(pmu, 1, 0x02, 0x1, 3, 1, 30), 0);
	assert_int_equal(rd(pmu, 0, flame_counter0), 300);
	assert_int_equal(rd(pmu, 0, IQ_COUNTER0), 0);
	emu_pmu_free(pmu);
}

/*
 * --ht-split: CPUs k and k + N/2 are one core's threads (Linux's numbering
 * on many machines): CPUs 0 and 2 of 4 share a register file, CPU 1 is
 * another core; APIC IDs 0, 2, 1, 3 (bit 0 the thread); an odd CPU count
 * or a model without HT is refused.
 */
static void
test_ht_split(void **state)
{
	static const unsigned apic[] = { 0, 2, 1, 3 };
	struct emu_config cfg;
	struct emu_pmu *pmu;
	uint32_t regs[4];

	(void)state;
	emu_config_default(&cfg, EMU_MODEL_NETBURST_HT);
	cfg.ncpus = 4;
	cfg.nb_ht_split = true;
	pmu = emu_pmu_new(&cfg);
	assert_non_null(pmu);
	wr(pmu, 0, CRU_ESCR0, 0x02u << 25 | 1u << 9 | 1u << 0);	/* T1_USR only */
	wr(pmu, 2, IQ_CCCR0, CCCR_CRU0_ON);			/* written through the sibling */
	assert_int_equal(rd(pmu, 2, CRU_ESCR0), rd(pmu, 0, CRU_ESCR0));
	assert_int_equal(rd(pmu, 1, IQ_CCCR0), 0);
	assert_int_equal(emu_nb_clocks(pmu, 0, 0x02, 0x1, 3, 1, 10), 0);	/* thread 0 */
	assert_int_equal(emu_nb_clocks(pmu, 1, 0x02, 0x1, 3, 1, 10), 0);	/* another core */
	assert_int_equal(emu_nb_clocks(pmu, 3, 0x02, 0x1, 3, 1, 10), 0);	/* another core's thread 1 */
	assert_int_equal(rd(pmu, 0, IQ_COUNTER0), 0);
	assert_int_equal(emu_nb_clocks(pmu, 2, 0x02, 0x1, 3, 1, 7), 0);	/* thread 1 */
	assert_int_equal(rd(pmu, 0, IQ_COUNTER0), 7);
	for (unsigned cpu = 0; cpu < 4; cpu++) {
		assert_int_equal(emu_cpuid(pmu, cpu, 1, 0, regs), 0);
		assert_int_equal(regs[1] >> 24, apic[cpu]);
	}
	assert_string_equal(emu_file(pmu, HW_FILE_CPU0_CORE_CPUS), "0,2\n");
	emu_pmu_free(pmu);
	cfg.ncpus = 3;
	assert_null(emu_pmu_new(&cfg));
	emu_config_default(&cfg, EMU_MODEL_NETBURST);
	cfg.ncpus = 4;
	cfg.nb_ht_split = true;
	assert_null(emu_pmu_new(&cfg));
}

/* CPUID: each CPU its own APIC ID, which pmustat's decoder turns into the thread. */
static void
test_cpuid_threads(void **state)
{
	struct emu_pmu *pmu = new_pmu(EMU_MODEL_NETBURST_HT, 4);
	struct cpu_raw_data_t raw;
	struct cpu_info info;
	uint32_t regs[4];

	(void)state;
	assert_int_equal(emu_cpuid(pmu, 3, 1, 0, regs), 0);
	assert_int_equal(regs[1] >> 24, 3);
	for (unsigned cpu = 0; cpu < 4; cpu++) {
		assert_int_equal(emu_cpuid_raw(pmu, cpu, &raw), 0);
		cpu_decode(&raw, &info);
		assert_true(info.netburst.present);
		assert_true(info.netburst.ht);
		assert_int_equal(info.netburst.thread, cpu & 1);
	}
	emu_pmu_free(pmu);
}

/* Architectural retires count nothing here; NetBurst clocks are refused elsewhere. */
static void
test_other_pmus(void **state)
{
	struct emu_pmu *nb = counting(EMU_MODEL_NETBURST, 0), *skl = new_pmu(EMU_MODEL_SKYLAKE, 1);
	char out[8192];
	FILE *f;

	(void)state;
	assert_int_equal(emu_retire(nb, 0, 0xc0, 0x00, 3, 100), 0);
	assert_int_equal(rd(nb, 0, IQ_COUNTER0), 0);
	assert_int_equal(emu_nb_clocks(skl, 0, 0x02, 0x1, 3, 1, 1), -EINVAL);
	assert_int_equal(emu_nb_clocks(nb, 5, 0x02, 0x1, 3, 1, 1), -ENXIO);
	/* dump names NetBurst's registers, not the fixed counters at the same addresses. */
	f = fmemopen(out, sizeof(out), "w");
	assert_non_null(f);
	emu_pmu_dump(nb, 0, false, f);
	fclose(f);
	assert_non_null(strstr(out, "MSR_FLAME_COUNTER1"));
	assert_non_null(strstr(out, "MSR_IQ_CCCR0 "));
	assert_non_null(strstr(out, " 0x36c  0x0000000000039000"));
	assert_non_null(strstr(out, "MSR_CRU_ESCR5"));
	assert_null(strstr(out, "IA32_FIXED_CTR0"));
	emu_pmu_free(nb);
	emu_pmu_free(skl);
}

/* The action a workload or pmu-emu act spells, and what the others do here. */
static void
do_action(struct emu_pmu *pmu, const char *spec, int expect)
{
	struct emu_action a;
	char err[512];

	if (emu_action_parse(spec, 3, &a, err, sizeof(err)))
		fail_msg("%s: %s", spec, err);
	assert_int_equal(emu_act(pmu, 0, &a), expect);
}

static void
test_actions(void **state)
{
	struct emu_pmu *nb = counting(EMU_MODEL_NETBURST, 0), *skl = new_pmu(EMU_MODEL_SKYLAKE, 1);
	struct emu_action a;
	char err[512];

	(void)state;
	do_action(nb, "nb:0x02:0x1:5:10", 0);
	assert_int_equal(rd(nb, 0, IQ_COUNTER0), 50);
	/* The ESCR has T0_USR only: kernel clocks give input 0. */
	do_action(nb, "nb:0x02:0x1:5:10:k", 0);
	assert_int_equal(rd(nb, 0, IQ_COUNTER0), 50);
	do_action(nb, "take-fixed:1", -EOPNOTSUPP);
	do_action(nb, "pebs:0:0xc0:0", -EOPNOTSUPP);
	do_action(nb, "offcore:0x10001:1", -EOPNOTSUPP);
	do_action(nb, "nmi", -EIO);
	do_action(skl, "nb:0x02:0x1:5:10", -EOPNOTSUPP);
	assert_int_equal(emu_action_parse("nb:0x02:0x1:16:1", 3, &a, err, sizeof(err)), -EINVAL);
	assert_int_equal(emu_action_parse("nb:0x40:0x1:1:1", 3, &a, err, sizeof(err)), -EINVAL);
	assert_int_equal(emu_action_parse("nb:0x02:0x10000:1:1", 3, &a, err, sizeof(err)), -EINVAL);
	assert_int_equal(emu_action_parse("nb:0x02:0x1:1", 3, &a, err, sizeof(err)), -EINVAL);
	emu_pmu_free(nb);
	emu_pmu_free(skl);
}

static void
test_diff(void **state)
{
	struct emu_pmu *a = new_pmu(EMU_MODEL_NETBURST, 1), *b = new_pmu(EMU_MODEL_NETBURST, 1);
	char out[512] = "";
	FILE *f;

	(void)state;
	assert_int_equal(emu_pmu_diff(a, b, NULL), 0);
	wr(b, 0, 0x3e1, 0x4);			/* CRU_ESCR5, the last ESCR */
	f = fmemopen(out, sizeof(out), "w");
	assert_int_equal(emu_pmu_diff(a, b, f), 1);
	fclose(f);
	assert_non_null(strstr(out, "cpu 0 MSR_CRU_ESCR5 (0x3e1): 0x0 -> 0x4"));
	emu_pmu_free(a);
	emu_pmu_free(b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_models),
		cmocka_unit_test(test_msr_map),
		cmocka_unit_test(test_perfmon_off),
		cmocka_unit_test(test_ht_split),
		cmocka_unit_test(test_reserved_bits),
		cmocka_unit_test(test_no_filter),
		cmocka_unit_test(test_threshold),
		cmocka_unit_test(test_complement),
		cmocka_unit_test(test_edge),
		cmocka_unit_test(test_routing),
		cmocka_unit_test(test_escr_select_table),
		cmocka_unit_test(test_wrap_and_ovf),
		cmocka_unit_test(test_rdpmc),
		cmocka_unit_test(test_ht_threads),
		cmocka_unit_test(test_ht_thread_independent),
		cmocka_unit_test(test_cpuid_threads),
		cmocka_unit_test(test_other_pmus),
		cmocka_unit_test(test_actions),
		cmocka_unit_test(test_diff),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
