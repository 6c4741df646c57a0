/*
 * pmu_fixture.c - see pmu_fixture.h.
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

struct pmu *pmu;
/* The counters the runs programmed so far go back to what they were in a later run. */
static uint32_t earlier_gp, earlier_fixed;

struct fixture *
fixture_new(enum emu_model model, bool watchdog)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct cpu_raw_data_t raw;
	struct emu_config cfg;

	assert_non_null(f);
	emu_config_default(&cfg, model);
	cfg.ncpus = 2;
	cfg.watchdog = watchdog;
	f->emu = emu_pmu_new(&cfg);
	assert_non_null(f->emu);
	f->hw = emu_hw_new(f->emu);
	assert_non_null(f->hw);
	assert_int_equal(hw_cpuid(f->hw, CPU, &raw), 0);
	cpu_decode(&raw, &f->info);
	assert_int_equal(f->info.verdict, CPU_VERDICT_OK);
	f->before = malloc(sizeof(*f->before));
	assert_non_null(f->before);
	memcpy(f->before, f->emu, sizeof(*f->emu));
	return f;
}

void
fixture_free(struct fixture *f)
{
	emu_hw_free(f->hw);
	emu_pmu_free(f->emu);
	free(f->before);
	free(f);
}

unsigned
diffs(struct fixture *f)
{
	return emu_pmu_diff(f->before, f->emu, stderr);
}

int
program(const struct event *ev, const struct sched_slot *s, unsigned n, unsigned run,
	struct pmustat_error **err)
{
	struct pmu_program prog;
	int rc;

	if (run == 0)
		earlier_gp = earlier_fixed = 0;
	rc = pmu_program_build(&pmu->caps, pmu_found_global_ctrl(pmu), pmu_occupancy(pmu)->perf_metrics, ev, s, n, run, earlier_gp, earlier_fixed,
			       &prog, err);
	if (rc)
		return rc;
	earlier_gp |= prog.gp;
	earlier_fixed |= prog.fixed;
	return pmu_program(pmu, &prog, err);
}

bool kernel_rewrites;

static void
kernel_enable_all(struct fixture *f)
{
	if (kernel_rewrites)
		assert_int_equal(emu_wrmsr(f->emu, CPU, MSR_IA32_PERF_GLOBAL_CTRL, 0x70000000full), 0);
}

void
one_run(struct fixture *f, const struct event *ev, const struct sched_slot *s, unsigned n,
	unsigned run, void (*workload)(struct fixture *), struct pmu_count *out, bool rdpmc)
{
	struct pmustat_error *err = NULL;

	if (program(ev, s, n, run, &err) != 0)
		fail_msg("program: %s", err_msg(err));
	/* Programmed but not enabled: nothing counts yet. */
	kernel_enable_all(f);
	assert_int_equal(emu_retire(f->emu, CPU, 0xc0, 0x00, 3, 1000000), 0);
	assert_int_equal(emu_retire(f->emu, CPU, 0xc4, 0x00, 3, 1000000), 0);
	assert_int_equal(pmu_enable(pmu), 0);
	pmu_mark_enabled(pmu);
	workload(f);
	assert_int_equal(pmu_disable(pmu, &err), 0);
	/* Disabled: nothing counts any more. */
	kernel_enable_all(f);
	assert_int_equal(emu_retire(f->emu, CPU, 0xc0, 0x00, 3, 1000000), 0);
	assert_int_equal(emu_retire(f->emu, CPU, 0xc4, 0x00, 3, 1000000), 0);
	assert_int_equal(emu_retire(f->emu, CPU, 0x3c, 0x00, 3, 1000000), 0);
	if (rdpmc)
		emu_hw_set_current_cpu(f->hw, CPU);
	if (pmu_read(pmu, s, n, run, rdpmc, out, &err) != 0)
		fail_msg("read: %s", err_msg(err));
	err_clear(&err);
}

void
basic_workload(struct fixture *f)
{
	/* User mode. */
	emu_retire(f->emu, CPU, 0xc0, 0x00, 3, 5000);		/* instructions */
	emu_retire(f->emu, CPU, 0x3c, 0x00, 3, 2500);		/* core cycles */
	emu_retire(f->emu, CPU, 0x3c, 0x01, 3, 2000);		/* ref cycles */
	emu_retire(f->emu, CPU, 0xc4, 0x00, 3, 700);		/* branches */
	emu_retire(f->emu, CPU, 0xc5, 0x00, 3, 7);		/* branch misses */
	emu_retire(f->emu, CPU, 0x2e, 0x41, 3, 33);		/* LLC misses */
	/* Kernel mode: not counted by default (:u). */
	emu_retire(f->emu, CPU, 0xc0, 0x00, 0, 100000);
	emu_retire(f->emu, CPU, 0xc4, 0x00, 0, 100000);
	emu_retire(f->emu, CPU, 0x2e, 0x41, 0, 100000);
	/* The other core: never counted. */
	emu_retire(f->emu, 0, 0xc0, 0x00, 3, 777777);
	emu_retire(f->emu, 0, 0x2e, 0x41, 3, 777777);
}

void
default_events(struct event *ev)
{
	ev[0] = test_fixed_event("instructions", 0, 0xc0, 0, 0xf);
	ev[1] = test_fixed_event("cycles", 1, 0x3c, 0, 0xf);
	ev[2] = test_fixed_event("ref-cycles", 2, 0x3c, 1, 0xf);
	ev[3] = test_event("branches", 0xc4, 0, 0xf);
	ev[4] = test_event("branch-misses", 0xc5, 0, 0xf);
	ev[5] = test_event("LLC_MISSES", 0x2e, 0x41, 0xf);
}

void
plan(struct fixture *f, const struct event *ev, unsigned n, struct sched_slot *s, unsigned *runs)
{
	struct pmustat_error *err = NULL;

	if (sched_plan(ev, n, &f->info.pmu, pmu_free_gp(pmu), pmu_free_fixed(pmu), s, runs,
		       NULL, &err) != 0)
		fail_msg("plan: %s", err_msg(err));
	err_clear(&err);
}

void
open_pmu(struct fixture *f)
{
	struct pmustat_error *err = NULL;
	/* The watchdog's machines say so in nmi_watchdog: whose a busy counter is. */
	struct pmu_owner_hints hints = { .watchdog_on = f->emu->config.watchdog };

	pmu_close(pmu);
	if (pmu_open(&pmu, f->hw, CPU, &f->info.pmu, false, &hints, &err) != 0)
		fail_msg("open: %s", err_msg(err));
	pmu_arm_signal_restore(pmu);
	err_clear(&err);
}

