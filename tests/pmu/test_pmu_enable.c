/*
 * test_pmu_enable.c - pmu.c's enable and disable against the in-process
 * emulated PMU: what they cost in MSR accesses, the counters started and
 * stopped at once through IA32_PERF_GLOBAL_CTRL when it is free, and what
 * another user does to the counters mid-run.
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
/* The 4 events of the cores-scaling benchmark: all on GP counters. */
static void
four_gp_events(struct event *ev)
{
	ev[0] = test_event("LLC_MISSES", 0x2e, 0x41, 0xf);
	ev[1] = test_event("LLC_REFERENCES", 0x2e, 0x4f, 0xf);
	ev[2] = test_event("branches", 0xc4, 0, 0xf);
	ev[3] = test_event("branch-misses", 0xc5, 0, 0xf);
}

/*
 * The MSR backend's sequence on core @cpu, as engine/backend_msr.c makes
 * it: lean open (IA32_PERF_CAPABILITIES from @like when given), plan, the
 * plan's counter values saved with rdpmc, program, enable, count, disable,
 * read with rdpmc, restore. The core's MSR reads plus writes.
 */
static uint64_t
backend_sequence(struct fixture *f, int cpu, const struct pmu *like, struct pmu **out)
{
	struct pmustat_error *err = NULL;
	struct pmu_owner_hints hints = { .watchdog_on = false };
	struct event ev[4];
	struct sched_slot s[4];
	struct pmu_count c[4];
	struct pmu_program prog;
	struct pmu *p = NULL;
	unsigned runs = 0;

	four_gp_events(ev);
	f->emu->cpu[cpu].stats = (struct emu_stats){ 0 };
	if (pmu_open_lean(&p, f->hw, cpu, &f->info.pmu, false, &hints, like, &err) != 0 ||
	    sched_plan(ev, 4, &f->info.pmu, pmu_free_gp(p), pmu_free_fixed(p), s, &runs, NULL, &err) != 0)
		fail_msg("open and plan: %s", err_msg(err));
	assert_int_equal(runs, 1);
	if (pmu_program_build(&p->caps, pmu_found_global_ctrl(p), false, ev, s, 4, 0, 0, 0, &prog, &err) != 0)
		fail_msg("build: %s", err_msg(err));
	emu_hw_set_current_cpu(f->hw, cpu);
	if (pmu_save_counters(p, prog.gp, prog.fixed, true, &err) != 0 || pmu_program(p, &prog, &err) != 0)
		fail_msg("save and program: %s", err_msg(err));
	assert_int_equal(pmu_enable(p), 0);
	pmu_mark_enabled(p);
	for (unsigned e = 0; e < 4; e++)
		assert_int_equal(emu_retire(f->emu, (unsigned)cpu, ev[e].code, ev[e].umask, 3, 1000u + e), 0);
	if (pmu_disable(p, &err) != 0 || pmu_read(p, s, 4, 0, true, c, &err) != 0)
		fail_msg("disable and read: %s", err_msg(err));
	for (unsigned e = 0; e < 4; e++)
		assert_int_equal(c[e].value, 1000u + e);
	assert_int_equal(pmu_restore(p), 0);
	assert_int_equal(f->emu->cpu[cpu].stats.rdmsr + f->emu->cpu[cpu].stats.wrmsr, p->msr_reads + p->msr_writes);
	assert_int_equal(f->emu->cpu[cpu].stats.rdpmc, 8);	/* 4 saved, 4 read */
	err_clear(&err);
	*out = p;
	return p->msr_reads + p->msr_writes;
}

/*
 * What a run on several cores costs in MSR accesses for 4 events, per core
 * (the figures of the README's table): 28 on the first core and 27 on each
 * other of its type with the GLOBAL_CTRL bits set, as Linux leaves them
 * (GLOBAL_CTRL read once before the disable, to find a counter another
 * user stopped there; IA32_MISC_ENABLE read to know whether
 * IA32_PEBS_ENABLE is there); 32 and 31 with them clear, where one
 * read-modify-write of GLOBAL_CTRL starts the counters at once, one stops
 * them (its read is that check's), and the restore reads it to put back
 * only our bits. Every core comes back bit for bit.
 */
static void
test_msr_budget_four_events(void **state)
{
	static const struct { bool clear; uint64_t first, extra; } cases[] = {
		{ false, 28, 27 },
		{ true, 32, 31 },
	};

	(void)state;
	for (unsigned k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct fixture *f = fixture_new(EMU_MODEL_SKYLAKE, false);
		struct pmu *first, *extra;
		uint64_t n1, n2;

		for (unsigned cpu = 0; cases[k].clear && cpu < 2; cpu++)
			assert_int_equal(emu_wrmsr(f->emu, cpu, MSR_IA32_PERF_GLOBAL_CTRL, 0), 0);
		memcpy(f->before, f->emu, sizeof(*f->emu));
		n1 = backend_sequence(f, CPU, NULL, &first);
		n2 = backend_sequence(f, 0, first, &extra);
		print_message("GLOBAL_CTRL bits %s: %llu MSR accesses on the first core, %llu on another\n",
			      cases[k].clear ? "clear" : "set", (unsigned long long)n1, (unsigned long long)n2);
		assert_int_equal(pmu_mode(first), cases[k].clear ? PMU_ENABLE_GLOBAL : PMU_ENABLE_PER_COUNTER);
		assert_int_equal(n1, cases[k].first);
		assert_int_equal(n2, cases[k].extra);
		for (unsigned cpu = 0; cpu < 2; cpu++)
			f->before->cpu[cpu].stats = f->emu->cpu[cpu].stats;
		assert_int_equal(diffs(f), 0);
		pmu_close(first);
		pmu_close(extra);
		fixture_free(f);
	}
}

static void
test_global_ctrl_ours_one_enabling_write(void **state)
{
	struct fixture *f = fixture_new(EMU_MODEL_SKYLAKE, false);
	struct event ev[6];
	struct sched_slot s[6];
	struct pmu_count c[6];
	unsigned runs;

	(void)state;
	/* Nobody keeps GLOBAL_CTRL bits set (the power-up GP bits cleared). */
	assert_int_equal(emu_wrmsr(f->emu, CPU, MSR_IA32_PERF_GLOBAL_CTRL, 0), 0);
	memcpy(f->before, f->emu, sizeof(*f->emu));
	default_events(ev);
	open_pmu(f);
	plan(f, ev, 6, s, &runs);
	one_run(f, ev, s, 6, 0, basic_workload, c, true);
	assert_int_equal(pmu->mode, PMU_ENABLE_GLOBAL);
	/*
	 * The last write starts every counter at once: GLOBAL_CTRL with
	 * exactly our bits, after each counter's own enable.
	 */
	assert_int_equal(pmu->n_enable, 5);
	assert_int_equal(pmu->enable_seq[4].msr, MSR_IA32_PERF_GLOBAL_CTRL);
	assert_int_equal(pmu->enable_seq[4].val, 0x700000000ull | 0x7);
	/* And the first write of the disable stops them at once. */
	assert_int_equal(pmu->disable_seq[0].msr, MSR_IA32_PERF_GLOBAL_CTRL);
	assert_int_equal(c[0].value, 5000);
	assert_int_equal(c[1].value, 2500);
	assert_int_equal(c[2].value, 2000);
	assert_int_equal(c[3].value, 700);
	assert_int_equal(c[4].value, 7);
	assert_int_equal(c[5].value, 33);
	assert_int_equal(pmu_restore(pmu), 0);
	assert_int_equal(diffs(f), 0);
	fixture_free(f);
}

/*
 * GLOBAL_CTRL holds none of the run's bits when pmustat comes, then the
 * kernel sets every bit between the program and the enable and again
 * after the disable (one_run() retires a million instructions and branches
 * at both points): each counter's own enable keeps it off outside the
 * window, so the counts are exact.
 */
static void
test_kernel_sets_global_ctrl_outside_the_window(void **state)
{
	struct fixture *f = fixture_new(EMU_MODEL_SKYLAKE, false);
	struct event ev[6];
	struct sched_slot s[6];
	struct pmu_count c[6];
	unsigned runs;
	uint64_t ctrl;

	(void)state;
	assert_int_equal(emu_wrmsr(f->emu, CPU, MSR_IA32_PERF_GLOBAL_CTRL, 0), 0);
	memcpy(f->before, f->emu, sizeof(*f->emu));
	default_events(ev);
	open_pmu(f);
	plan(f, ev, 6, s, &runs);
	kernel_rewrites = true;
	one_run(f, ev, s, 6, 0, basic_workload, c, false);
	kernel_rewrites = false;
	assert_int_equal(pmu->mode, PMU_ENABLE_GLOBAL);
	assert_int_equal(c[0].value, 5000);
	assert_int_equal(c[1].value, 2500);
	assert_int_equal(c[2].value, 2000);
	assert_int_equal(c[3].value, 700);
	assert_int_equal(c[4].value, 7);
	assert_int_equal(c[5].value, 33);
	assert_int_equal(pmu_restore(pmu), 0);
	/* Our bits went back to clear; the kernel's others stay. */
	assert_int_equal(emu_rdmsr(f->emu, CPU, MSR_IA32_PERF_GLOBAL_CTRL, &ctrl), 0);
	assert_int_equal(ctrl, 0x8ull);
	fixture_free(f);
}

/* Mid-run, perf programs pmc0 (branches, its own counter value) and another tool clears pmc1's EN. */
static void
other_users_workload(struct fixture *f)
{
	uint64_t v;

	emu_retire(f->emu, CPU, 0xc4, 0x00, 3, 300);
	assert_int_equal(emu_wrmsr(f->emu, CPU, msr_evtsel(0), 0x5300c4), 0);
	assert_int_equal(emu_wrmsr(f->emu, CPU, msr_pmc(0), 0x1000), 0);
	assert_int_equal(emu_rdmsr(f->emu, CPU, msr_evtsel(1), &v), 0);
	assert_int_equal(emu_wrmsr(f->emu, CPU, msr_evtsel(1), v & ~EVTSEL_EN), 0);
	basic_workload(f);
}

/*
 * Counters another user took or stopped mid-run are found before the
 * disable: a taken one is reported taken and left exactly as its new
 * owner set it (event select, counter, GLOBAL_CTRL bit); a stopped one is
 * reported stopped and restored; the others count exactly.
 */
static void
test_counters_taken_or_stopped_mid_run(void **state)
{
	struct fixture *f = fixture_new(EMU_MODEL_SKYLAKE, false);
	struct event ev[6];
	struct sched_slot s[6];
	struct pmu_count c[6];
	unsigned runs;
	uint64_t v;

	(void)state;
	assert_int_equal(emu_wrmsr(f->emu, CPU, MSR_IA32_PERF_GLOBAL_CTRL, 0), 0);
	memcpy(f->before, f->emu, sizeof(*f->emu));
	default_events(ev);
	open_pmu(f);
	plan(f, ev, 6, s, &runs);
	assert_int_equal(s[3].kind, SCHED_GP);
	assert_int_equal(s[3].index, 0);
	assert_int_equal(s[4].index, 1);
	one_run(f, ev, s, 6, 0, other_users_workload, c, false);
	assert_true(c[3].taken);
	assert_int_equal(c[3].ctl, 0x5300c4);
	assert_false(c[4].taken);
	assert_true(c[4].stopped);
	for (unsigned k = 0; k < 6; k++)
		if (k != 3 && k != 4)
			assert_false(c[k].taken || c[k].stopped);
	assert_int_equal(c[0].value, 5000);
	assert_int_equal(c[5].value, 33);
	assert_int_equal(pmu_restore(pmu), 0);
	/* perf's pmc0, as perf left it and still enabled; everything else as found. */
	assert_int_equal(emu_rdmsr(f->emu, CPU, msr_evtsel(0), &v), 0);
	assert_int_equal(v, 0x5300c4);
	assert_int_equal(emu_rdmsr(f->emu, CPU, msr_pmc(0), &v), 0);
	/* Its branches (OS and USR): the workload's, and one_run()'s million after pmustat's disable. */
	assert_int_equal(v, 0x1000 + 700 + 100000 + 1000000);
	assert_int_equal(emu_rdmsr(f->emu, CPU, MSR_IA32_PERF_GLOBAL_CTRL, &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(emu_rdmsr(f->emu, CPU, msr_evtsel(1), &v), 0);
	assert_int_equal(v, 0);
	/* A later run may not program the counter perf took. */
	assert_false(pmu_free_gp(pmu) & 1u);
	fixture_free(f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_msr_budget_four_events),
		cmocka_unit_test(test_global_ctrl_ours_one_enabling_write),
		cmocka_unit_test(test_kernel_sets_global_ctrl_outside_the_window),
		cmocka_unit_test(test_counters_taken_or_stopped_mid_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
