/*
 * test_pmu.c - pmu.c against the in-process emulated PMU (tests/emu):
 * save, program, enable, count, read, restore, bit for bit; counters
 * another user holds when pmustat comes.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <libcpuid/libcpuid.h>

#include "events/cpu.h"
#include "emu_hw.h"
#include "emu_pmu.h"
#include "pmu/evtsel.h"
#include "pmu/msr.h"
#include "pmu/pmu.h"
#include "pmu/pmu_impl.h"
#include "pmu/program.h"
#include "pmu/counter_sched.h"
#include "test_util.h"
#include "pmu_fixture.h"
#include "base/err.h"
#include "base/strbuf.h"

static void
test_skylake_exact_and_restored(void **state)
{
	struct fixture *f = fixture_new(EMU_MODEL_SKYLAKE, false);
	struct event ev[6];
	struct sched_slot s[6];
	struct pmu_count c[6];
	unsigned runs;

	(void)state;
	default_events(ev);
	open_pmu(f);
	assert_int_equal(pmu->occ.busy_gp, 0);
	assert_int_equal(pmu->occ.busy_fixed, 0);
	plan(f, ev, 6, s, &runs);
	assert_int_equal(runs, 1);
	one_run(f, ev, s, 6, 0, basic_workload, c, true);
	assert_int_equal(c[0].value, 5000);
	assert_int_equal(c[1].value, 2500);
	assert_int_equal(c[2].value, 2000);
	assert_int_equal(c[3].value, 700);
	assert_int_equal(c[4].value, 7);
	assert_int_equal(c[5].value, 33);
	/* LLC_MISSES user-only on Skylake: 0x41412E while it counted. */
	assert_int_equal(s[5].kind, SCHED_GP);
	assert_int_equal(pmu_restore(pmu), 0);
	assert_int_equal(diffs(f), 0);
	/* rdpmc reads, no MSR read of a counter. */
	assert_int_equal(pmu->rdpmc_reads, 6);
	fixture_free(f);
}

static void
test_llc_misses_evtsel_value(void **state)
{
	struct fixture *f = fixture_new(EMU_MODEL_SKYLAKE, false);
	struct event ev = test_event("LLC_MISSES", 0x2e, 0x41, 0xf);
	struct sched_slot s;
	unsigned runs;
	struct pmustat_error *err = NULL;

	(void)state;
	open_pmu(f);
	plan(f, &ev, 1, &s, &runs);
	assert_int_equal(program(&ev, &s, 1, 0, &err), 0);
	assert_int_equal(pmu_enable(pmu), 0);
	/* Whichever way it is enabled, the running EVTSEL is 0x41412E. */
	assert_int_equal(f->emu->cpu[CPU].regs.evtsel[s.index], 0x41412e);
	assert_int_equal(pmu_restore(pmu), 0);
	assert_int_equal(diffs(f), 0);
	fixture_free(f);
	err_clear(&err);
}

static void
test_kernel_mode(void **state)
{
	struct fixture *f = fixture_new(EMU_MODEL_SKYLAKE, false);
	struct event ev[2];
	struct sched_slot s[2];
	struct pmu_count c[2];
	unsigned runs;

	(void)state;
	ev[0] = test_fixed_event("instructions:k", 0, 0xc0, 0, 0xf);
	ev[0].usr = false;
	ev[0].os = true;
	ev[1] = test_event("branches:uk", 0xc4, 0, 0xf);
	ev[1].os = true;
	open_pmu(f);
	plan(f, ev, 2, s, &runs);
	one_run(f, ev, s, 2, 0, basic_workload, c, false);
	assert_int_equal(c[0].value, 100000);
	assert_int_equal(c[1].value, 100700);
	assert_int_equal(pmu_restore(pmu), 0);
	assert_int_equal(diffs(f), 0);
	fixture_free(f);
}

static void
test_six_events_two_runs(void **state)
{
	struct pmustat_error *err = NULL;
	struct fixture *f = fixture_new(EMU_MODEL_SKYLAKE, false);
	struct event ev[6];
	struct sched_slot s[6];
	struct pmu_count c[6];
	unsigned runs;

	(void)state;
	for (unsigned i = 0; i < 6; i++)
		ev[i] = test_event("E", (uint8_t)(0x10 + i), 1, 0xf);
	open_pmu(f);
	plan(f, ev, 6, s, &runs);
	assert_int_equal(runs, 2);
	for (unsigned r = 0; r < runs; r++) {
		struct pmu_count rc[6];
		err_clear(&err);

		assert_int_equal(program(ev, s, 6, r, &err), 0);
		assert_int_equal(pmu_enable(pmu), 0);
		pmu_mark_enabled(pmu);
		for (unsigned i = 0; i < 6; i++)
			emu_retire(f->emu, CPU, (uint8_t)(0x10 + i), 1, 3, 1000 * (i + 1));
		assert_int_equal(pmu_disable(pmu, &err), 0);
		assert_int_equal(pmu_read(pmu, s, 6, r, false, rc, &err), 0);
		for (unsigned i = 0; i < 6; i++)
			if (s[i].run == r)
				c[i] = rc[i];
		err_clear(&err);
	}
	for (unsigned i = 0; i < 6; i++)
		assert_int_equal(c[i].value, 1000 * (i + 1));
	assert_int_equal(pmu_restore(pmu), 0);
	assert_int_equal(diffs(f), 0);
	fixture_free(f);
	err_clear(&err);
}

static void
huge_workload(struct fixture *f)
{
	emu_retire(f->emu, CPU, 0xc0, 0x00, 3, (1ull << 48) + 12345);
	emu_retire(f->emu, CPU, 0xc4, 0x00, 3, (1ull << 48) + 5);
}

static void
test_count_past_2_48(void **state)
{
	struct fixture *f = fixture_new(EMU_MODEL_SKYLAKE, false);
	struct event ev[2];
	struct sched_slot s[2];
	struct pmu_count c[2];
	unsigned runs;

	(void)state;
	ev[0] = test_fixed_event("instructions", 0, 0xc0, 0, 0xf);
	ev[1] = test_event("branches", 0xc4, 0, 0xf);
	open_pmu(f);
	plan(f, ev, 2, s, &runs);
	one_run(f, ev, s, 2, 0, huge_workload, c, true);
	assert_true(c[0].overflowed);
	assert_int_equal(c[0].value, (1ull << 48) + 12345);
	assert_int_equal(c[1].value, (1ull << 48) + 5);
	/* Our overflow bits were cleared (write 1 to clear), then all restored. */
	assert_int_equal(f->emu->cpu[CPU].regs.global_status, 0);
	assert_int_equal(pmu_restore(pmu), 0);
	assert_int_equal(diffs(f), 0);
	fixture_free(f);
}

static void
watchdog_workload(struct fixture *f)
{
	basic_workload(f);
	/* The watchdog's field must be as found while we count. */
	assert_int_equal(FIXED_CTRL_FIELD(f->emu->cpu[CPU].regs.fixed_ctr_ctrl, 1), 0xb);
}

static void
test_watchdog_shared(void **state)
{
	struct fixture *f = fixture_new(EMU_MODEL_SKYLAKE, true);
	struct event ev[6];
	struct sched_slot s[6];
	struct pmu_count c[6];
	uint64_t wd_before;
	unsigned runs;

	(void)state;
	default_events(ev);
	open_pmu(f);
	assert_int_equal(pmu->occ.busy_fixed, 0x2);
	assert_int_equal(pmu->occ.busy_gp, 0);
	plan(f, ev, 6, s, &runs);
	assert_int_equal(runs, 1);
	/* Core cycles go to a GP counter with the architectural encoding. */
	assert_int_equal(s[1].kind, SCHED_GP);
	wd_before = f->emu->cpu[CPU].regs.fixed_ctr[1];
	one_run(f, ev, s, 6, 0, watchdog_workload, c, true);
	/* Every GLOBAL_CTRL bit is set: counters were enabled one by one. */
	assert_int_equal(pmu->mode, PMU_ENABLE_PER_COUNTER);
	assert_int_equal(c[0].value, 5000);
	assert_int_equal(c[1].value, 2500);
	assert_int_equal(c[2].value, 2000);
	assert_int_equal(c[3].value, 700);
	assert_int_equal(c[4].value, 7);
	assert_int_equal(c[5].value, 33);
	assert_int_equal(pmu_restore(pmu), 0);
	/* The watchdog counted on: its counter is the only difference. */
	assert_int_equal(f->emu->cpu[CPU].regs.fixed_ctr[1] - wd_before, 2500 + 1000000);
	f->before->cpu[CPU].regs.fixed_ctr[1] = f->emu->cpu[CPU].regs.fixed_ctr[1];
	assert_int_equal(diffs(f), 0);
	fixture_free(f);
}

static void
test_all_busy_refused_nothing_written(void **state)
{
	struct fixture *f = fixture_new(EMU_MODEL_SKYLAKE, true);
	struct event ev[2];
	struct sched_slot s[2];
	unsigned runs, bad;
	uint64_t writes;
	struct pmustat_error *err = NULL;
	struct strbuf who = STRBUF_INIT;

	(void)state;
	/* Someone else holds every GP counter (and the watchdog FC1). */
	for (unsigned i = 0; i < 4; i++)
		assert_int_equal(emu_wrmsr(f->emu, CPU, msr_evtsel(i), 0x53003c | (i == 0 ? EVTSEL_INT : 0)), 0);
	memcpy(f->before, f->emu, sizeof(*f->emu));
	writes = f->emu->cpu[CPU].stats.wrmsr;
	ev[0] = test_fixed_event("cycles", 1, 0x3c, 0, 0xf);
	ev[1] = test_event("branches", 0xc4, 0, 0xf);
	open_pmu(f);
	assert_int_equal(pmu->occ.busy_gp, 0xf);
	assert_int_equal(sched_plan(ev, 2, &f->info.pmu, pmu_free_gp(pmu), pmu_free_fixed(pmu),
				    s, &runs, &bad, &err), -ENOSPC);
	pmu_occupancy_describe(pmu_occupancy(pmu), 0xf, 0x7, &who);
	assert_non_null(strstr(strbuf_str(&who), "fixed1"));
	assert_non_null(strstr(strbuf_str(&who), "NMI watchdog"));
	assert_non_null(strstr(strbuf_str(&who), "pmc0"));
	assert_non_null(strstr(strbuf_str(&who), "perf_events"));
	assert_non_null(strstr(strbuf_str(&who), "pmc3"));
	strbuf_free(&who);
	assert_int_equal(pmu_restore(pmu), 0);
	assert_int_equal(f->emu->cpu[CPU].stats.wrmsr, writes);
	assert_int_equal(diffs(f), 0);
	fixture_free(f);
	err_clear(&err);
}

static void
test_force_takes_and_restores(void **state)
{
	struct fixture *f = fixture_new(EMU_MODEL_SKYLAKE, true);
	struct event ev = test_fixed_event("cycles", 1, 0x3c, 0, 0);
	struct sched_slot s;
	struct pmu_count c;
	unsigned runs;

	(void)state;
	open_pmu(f);
	pmu_take_busy(pmu);
	plan(f, &ev, 1, &s, &runs);
	assert_int_equal(s.kind, SCHED_FIXED);
	assert_int_equal(s.index, 1);
	one_run(f, &ev, &s, 1, 0, basic_workload, &c, false);
	assert_int_equal(c.value, 2500);
	assert_int_equal(pmu_restore(pmu), 0);
	/* The watchdog's field and counter value as found. */
	assert_int_equal(diffs(f), 0);
	fixture_free(f);
}

static void
test_legacy_writes_haswell(void **state)
{
	struct fixture *f = fixture_new(EMU_MODEL_HASWELL, false);
	struct event ev = test_event("branches", 0xc4, 0, 0xf);
	struct sched_slot s;
	struct pmu_count c;
	unsigned runs;

	(void)state;
	/* Leftovers in the counters: one a legacy write can rebuild, one not. */
	f->emu->cpu[CPU].regs.pmc[0] = 0xffff80001234ull;
	f->emu->cpu[CPU].regs.pmc[1] = 0x123400000000ull;
	memcpy(f->before, f->emu, sizeof(*f->emu));
	open_pmu(f);
	assert_false(pmu->full_width);
	plan(f, &ev, 1, &s, &runs);
	assert_int_equal(s.index, 0);
	one_run(f, &ev, &s, 1, 0, basic_workload, &c, false);
	assert_int_equal(c.value, 700);
	assert_int_equal(pmu_restore(pmu), 0);
	assert_int_equal(diffs(f), 0);
	/* No full-width MSR was ever touched. */
	assert_int_equal(f->emu->cpu[CPU].stats.gp_faults, 0);
	fixture_free(f);

	/* A value bits 31:0 cannot rebuild: restore says so (1), never faults. */
	f = fixture_new(EMU_MODEL_HASWELL, false);
	f->emu->cpu[CPU].regs.pmc[0] = 0x123400000005ull;
	open_pmu(f);
	plan(f, &ev, 1, &s, &runs);
	one_run(f, &ev, &s, 1, 0, basic_workload, &c, false);
	assert_int_equal(c.value, 700);
	assert_int_equal(pmu_restore(pmu), 1);
	assert_int_equal(f->emu->cpu[CPU].regs.pmc[0], 5);
	assert_int_equal(f->emu->cpu[CPU].stats.gp_faults, 0);
	fixture_free(f);
}

static void
test_restore_after_failed_write(void **state)
{
	struct fixture *f = fixture_new(EMU_MODEL_SKYLAKE, true);
	struct event ev[6];
	struct sched_slot s[6];
	unsigned runs;
	struct pmustat_error *err = NULL;

	(void)state;
	default_events(ev);
	/* Counters holding values, so the program step zeroes each (the event selects wait for the enable). */
	for (unsigned i = 0; i < 4; i++)
		f->emu->cpu[CPU].regs.pmc[i] = f->before->cpu[CPU].regs.pmc[i] = 100 + i;
	open_pmu(f);
	plan(f, ev, 6, s, &runs);
	/* The fourth write fails halfway through programming. */
	emu_hw_inject(f->hw, EMU_HW_OP_WRMSR, 3, -EIO);
	assert_int_equal(program(ev, s, 6, 0, &err), -EIO);
	assert_non_null(strstr(err_msg(err), "core 1"));
	assert_int_equal(pmu_restore(pmu), 0);
	assert_int_equal(diffs(f), 0);
	fixture_free(f);
	err_clear(&err);
}

static void
test_restore_from_signal(void **state)
{
	struct fixture *f = fixture_new(EMU_MODEL_SKYLAKE, false);
	struct event ev[6];
	struct sched_slot s[6];
	unsigned runs;
	struct pmustat_error *err = NULL;

	(void)state;
	default_events(ev);
	open_pmu(f);
	plan(f, ev, 6, s, &runs);
	assert_int_equal(program(ev, s, 6, 0, &err), 0);
	assert_int_equal(pmu_enable(pmu), 0);
	basic_workload(f);
	/* A signal mid-run: the handler's restore, without mark/disable/read. */
	pmu_restore_from_signal();
	assert_int_equal(diffs(f), 0);
	pmu_arm_signal_restore(NULL);
	fixture_free(f);
	err_clear(&err);
}
static void
test_allow_list(void **state)
{
	struct fixture *f = fixture_new(EMU_MODEL_SKYLAKE, false);

	(void)state;
	open_pmu(f);
	assert_true(pmu_msr_allowed(pmu, 0x186));
	assert_true(pmu_msr_allowed(pmu, 0x189));
	assert_false(pmu_msr_allowed(pmu, 0x18a));	/* PERFEVTSEL4: Skylake has 4 */
	assert_true(pmu_msr_allowed(pmu, 0x4c1));
	assert_true(pmu_msr_allowed(pmu, 0x30b));
	assert_false(pmu_msr_allowed(pmu, 0x30c));	/* FIXED_CTR3: not on Skylake */
	assert_false(pmu_msr_allowed(pmu, 0x10));	/* TSC */
	assert_false(pmu_msr_allowed(pmu, 0x1a0));	/* MISC_ENABLE */
	assert_int_equal(pmu_restore(pmu), 0);
	fixture_free(f);
}
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_skylake_exact_and_restored),
		cmocka_unit_test(test_llc_misses_evtsel_value),
		cmocka_unit_test(test_kernel_mode),
		cmocka_unit_test(test_six_events_two_runs),
		cmocka_unit_test(test_count_past_2_48),
		cmocka_unit_test(test_watchdog_shared),
		cmocka_unit_test(test_all_busy_refused_nothing_written),
		cmocka_unit_test(test_force_takes_and_restores),
		cmocka_unit_test(test_legacy_writes_haswell),
		cmocka_unit_test(test_restore_after_failed_write),
		cmocka_unit_test(test_restore_from_signal),
		cmocka_unit_test(test_allow_list),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
