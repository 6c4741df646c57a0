/*
 * test_nb_encode.c - ESCR and CCCR values checked bit by bit against the
 * SDM's figures, the writes of a run, the reserved bits, the allow-list.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pmus/netburst/nb_encode.h"
#include "pmus/netburst/nb_regs.h"
#include "pmus/netburst/nb_sched.h"
#include "nb_test_util.h"
#include "base/err.h"

static struct nb_table *table;
static const struct nb_target northwood = { 2, false, 0 };
static const struct nb_target prescott_t0 = { 4, true, 0 };
static const struct nb_target prescott_t1 = { 4, true, 1 };

static struct nb_event
one(const char *spec)
{
	size_t n;
	struct nb_event *ev = nb_test_events(table, spec, 4, &n), out = ev[0];

	free(ev);
	return out;
}

/* ESCR: event select 30:25, mask 24:9, T0_OS 3, T0_USR 2, T1_OS 1, T1_USR 0; nothing else. */
static void
test_escr_layout(void **state)
{
	struct nb_event e = one("instructions");
	uint64_t v = nb_escr_value(&e, &northwood);

	(void)state;
	assert_int_equal((v >> 25) & 0x3f, 0x02);	/* instr_retired */
	assert_int_equal((v >> 9) & 0xffff, 0x3);	/* NBOGUSNTAG | NBOGUSTAG */
	assert_int_equal(v & 0xf, 0x4);			/* T0_USR (USR without HT) */
	assert_int_equal(v & 0x1f0, 0);			/* no tagging */
	assert_int_equal(v, 0x04000604);
	/* The same on thread 1 of an HT core: T1_USR, bit 0. */
	assert_int_equal(nb_escr_value(&e, &prescott_t1), 0x04000601);
	assert_int_equal(nb_escr_value(&e, &prescott_t0), 0x04000604);
	e = one("cycles:uk");
	assert_int_equal(nb_escr_value(&e, &northwood), 0x2600020c);	/* 0x13 << 25 | 1 << 9 | OS | USR */
	assert_int_equal(nb_escr_value(&e, &prescott_t1), 0x26000203);
	e = one("x87_FP_uop:k");					/* mask bit 15 = ESCR bit 24 */
	assert_int_equal(nb_escr_value(&e, &northwood), 0x04u << 25 | 1u << 24 | 1u << 3);
}

/* CCCR: enable 12, ESCR select 15:13, 17:16 = 11b, compare 18, complement 19, threshold 23:20, edge 24. */
static void
test_cccr_layout(void **state)
{
	struct nb_event e = one("instructions");
	unsigned cru0 = (unsigned)nb_escr_find("CRU_ESCR0");

	(void)state;
	assert_int_equal(nb_cccr_value(&e, cru0, true), 0x39000);	/* 1 << 12 | 4 << 13 | 3 << 16 */
	assert_int_equal(nb_cccr_value(&e, cru0, false), 0x38000);
	e = one("instr_retired:threshold=3");
	assert_int_equal(nb_cccr_value(&e, cru0, true), 0x39000 | 1u << 18 | 3u << 20);
	e = one("instr_retired:threshold=15:complement:edge");
	assert_int_equal(nb_cccr_value(&e, cru0, true),
			 0x39000 | 1u << 18 | 1u << 19 | 15u << 20 | 1u << 24);
	e = one("cycles");
	assert_int_equal(nb_cccr_value(&e, (unsigned)nb_escr_find("FSB_ESCR1"), true),
			 1u << 12 | 6u << 13 | 3u << 16);
	e = one("BSQ_cache_reference");
	assert_int_equal(nb_cccr_value(&e, (unsigned)nb_escr_find("BSU_ESCR0"), true), 0x3f000);
}

static void
test_reserved_bits(void **state)
{
	(void)state;
	assert_false(nb_escr_ok(NB_ESCR_T1_USR, false));	/* bits 1:0 without HT */
	assert_true(nb_escr_ok(NB_ESCR_T1_USR, true));
	assert_false(nb_escr_ok(1ull << 31, true));
	assert_false(nb_escr_ok(1ull << 32, true));
	assert_true(nb_escr_ok(0x7ffffffcull, false));
	assert_false(nb_cccr_ok(1ull << 11, true));		/* 11:0 */
	assert_false(nb_cccr_ok(1ull << 28, true));		/* 29:28 */
	assert_false(nb_cccr_ok(NB_CCCR_OVF_PMI_T1, false));	/* 27 without HT */
	assert_true(nb_cccr_ok(NB_CCCR_OVF_PMI_T1, true));
	assert_false(nb_cccr_ok(1ull << 32, true));
	assert_true(nb_cccr_ok(0xc7fff000ull, true));
	assert_true(nb_counter_ok(0xffffffffffull));
	assert_false(nb_counter_ok(1ull << 40));
}

/* Exactly the counters, the CCCRs and the ESCRs the model has. */
static void
test_allow_list(void **state)
{
	unsigned n2 = 0, n4 = 0;

	(void)state;
	for (uint32_t msr = 0; msr < 0x1000; msr++) {
		n2 += nb_msr_allowed(msr, 2);
		n4 += nb_msr_allowed(msr, 4);
	}
	assert_int_equal(n2, 18 + 18 + 45);
	assert_int_equal(n4, 18 + 18 + 43);
	assert_true(nb_msr_allowed(0x300, 4) && nb_msr_allowed(0x311, 4));
	assert_false(nb_msr_allowed(0x312, 4));
	assert_true(nb_msr_allowed(0x360, 4) && nb_msr_allowed(0x371, 4));
	assert_false(nb_msr_allowed(0x372, 4));
	assert_true(nb_msr_allowed(0x3a0, 4) && nb_msr_allowed(0x3e1, 4));
	/* Holes in 0x3a0-0x3e1, and IQ_ESCR0/1 after model 2. */
	assert_false(nb_msr_allowed(0x3bf, 2));
	assert_false(nb_msr_allowed(0x3c6, 2));
	assert_false(nb_msr_allowed(0x3c7, 2));
	assert_false(nb_msr_allowed(0x3ce, 2));
	assert_false(nb_msr_allowed(0x3df, 2));
	assert_false(nb_msr_allowed(0x3e2, 2));
	assert_true(nb_msr_allowed(0x3ba, 2));
	assert_false(nb_msr_allowed(0x3ba, 4));
	assert_false(nb_msr_allowed(NB_MSR_MISC_ENABLE, 4));
	/* Every ESCR-select value a CCCR may use names a listed ESCR, or none. */
	for (unsigned c = 0; c < NB_COUNTERS; c++)
		for (unsigned sel = 0; sel < 8; sel++) {
			int e = nb_escr_for(c, sel);

			if (e >= 0)
				assert_true(nb_escr_get((unsigned)e)->counters & (1u << c));
		}
	/* The SDM's table: IQ_COUNTER5 (17) has no SSU_ESCR, IQ_COUNTER4 (16) has. */
	assert_int_equal(nb_escr_for(16, 3), nb_escr_find("SSU_ESCR0"));
	assert_int_equal(nb_escr_for(17, 3), -1);
	assert_int_equal(nb_escr_for(9, 5), nb_escr_find("DAC_ESCR0"));
}

static void
test_run_writes(void **state)
{
	size_t n;
	struct nb_event *ev = nb_test_events(table, "cycles,instructions:threshold=2:edge", 4, &n);
	struct nb_slot slots[2];
	struct nb_run_writes w;
	unsigned runs, bad;
	struct pmustat_error *err = NULL;

	(void)state;
	assert_int_equal(nb_sched_plan(ev, 2, 4, (1u << NB_COUNTERS) - 1, ~0ull, slots, &runs, &bad, &err), 0);
	assert_int_equal(nb_encode_run(ev, slots, 2, 0, &prescott_t1, &w, &err), 0);
	assert_int_equal(w.n_program, 6);
	assert_int_equal(w.n_enable, 2);
	assert_int_equal(w.n_disable, 2);
	/* ESCR, CCCR (counting off), counter zeroed; per event, in event order. */
	assert_int_equal(w.program[0].msr, 0x3a2);		/* FSB_ESCR0 */
	assert_int_equal(w.program[0].value, 0x26000201);	/* T1_USR */
	assert_int_equal(w.program[1].msr, 0x360);		/* BPU_CCCR0 */
	assert_int_equal(w.program[1].value, 0x3c000);
	assert_int_equal(w.program[2].msr, 0x300);
	assert_int_equal(w.program[2].value, 0);
	assert_int_equal(w.program[3].msr, 0x3b8);		/* CRU_ESCR0 */
	assert_int_equal(w.program[4].msr, 0x36c);		/* IQ_CCCR0 */
	assert_int_equal(w.program[4].value, 0x38000 | 1u << 18 | 2u << 20 | 1u << 24);
	assert_int_equal(w.program[5].msr, 0x30c);
	assert_int_equal(w.enable[0].value, 0x3d000);
	assert_int_equal(w.enable[1].msr, 0x36c);
	assert_int_equal(w.enable[1].value, w.program[4].value | 1u << 12);
	assert_int_equal(w.disable[1].value, w.program[4].value);
	assert_non_null(strstr(w.program[0].reason, "MSR_FSB_ESCR0: global_power_events:RUNNING"));
	assert_non_null(strstr(w.program[0].reason, "T1 user"));
	assert_non_null(strstr(w.program[4].reason, "ESCR select 4 (CRU_ESCR0)"));
	assert_non_null(strstr(w.program[4].reason, "input > 2, rising edges only"));
	for (unsigned i = 0; i < w.n_program; i++)
		assert_true(nb_msr_allowed(w.program[i].msr, 4));
	/* A plan that did not come from the scheduler is checked. */
	slots[1].escr = (unsigned)nb_escr_find("FSB_ESCR1");
	assert_int_equal(nb_encode_run(ev, slots, 2, 0, &prescott_t1, &w, &err), -EINVAL);
	slots[1].escr = (unsigned)nb_escr_find("CRU_ESCR1");		/* counter 12 is not CRU_ESCR1's */
	assert_int_equal(nb_encode_run(ev, slots, 2, 0, &prescott_t1, &w, &err), -EINVAL);
	slots[1] = slots[0];
	ev[1] = ev[0];
	assert_int_equal(nb_encode_run(ev, slots, 2, 0, &prescott_t1, &w, &err), -EINVAL);
	assert_non_null(strstr(err_msg(err), "share"));
	free(ev);
	err_clear(&err);
}

/* IQ_ESCR0/1 are gone from model 3: a plan naming them is refused there. */
static void
test_model_escrs(void **state)
{
	struct nb_event e = one("instructions");
	struct nb_slot slot = { (unsigned)nb_escr_find("IQ_ESCR0"), 12, 0 };
	struct nb_run_writes w;
	struct pmustat_error *err = NULL;

	(void)state;
	e.escrs |= 1ull << slot.escr;		/* as if an event could use it */
	assert_int_equal(nb_encode_run(&e, &slot, 1, 0, &prescott_t0, &w, &err), -EINVAL);
	assert_int_equal(nb_encode_run(&e, &slot, 1, 0, &northwood, &w, &err), 0);
	err_clear(&err);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escr_layout),
		cmocka_unit_test(test_cccr_layout),
		cmocka_unit_test(test_reserved_bits),
		cmocka_unit_test(test_allow_list),
		cmocka_unit_test(test_run_writes),
		cmocka_unit_test(test_model_escrs),
	};

	return nb_test_main(argc, argv, tests, sizeof(tests) / sizeof(tests[0]), &table);
}
