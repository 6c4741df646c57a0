/*
 * pmu_fixture.h - what the tests of pmu.c share: an emulated two-CPU
 * machine (tests/emu) with its snapshot, the PMU under test, and the whole
 * sequence of one run (program, enable, workload, disable, read).
 */
#ifndef PMUSTAT_TEST_PMU_FIXTURE_H
#define PMUSTAT_TEST_PMU_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>

#include "emu_pmu.h"
#include "events/cpu.h"
#include "events/event.h"
#include "hw/hw.h"
#include "pmu/counter_sched.h"
#include "pmu/pmu.h"

#define CPU 1

/* The PMU of the test; struct pmu's fields through pmu_impl.h (these are pmu/'s own tests). */
extern struct pmu *pmu;

/*
 * Linux's perf rewrites IA32_PERF_GLOBAL_CTRL with every counter's bit on
 * each PMI exit and context switch (intel_pmu_enable_all): when set, one_run()
 * plays that kernel right before the enable and right after the disable.
 */
extern bool kernel_rewrites;

struct fixture {
	struct emu_pmu *emu;
	struct hw *hw;
	struct cpu_info info;
	struct emu_pmu *before;	/* snapshot */
};

struct fixture *fixture_new(enum emu_model model, bool watchdog);
void fixture_free(struct fixture *f);
/* Registers that differ from the snapshot (each printed). */
unsigned diffs(struct fixture *f);
/* Run @run's writes (pmu/program.h) through the pmu. */
int program(const struct event *ev, const struct sched_slot *s, unsigned n, unsigned run, struct pmustat_error **err);
/* The whole sequence for one run of a plan; counts into @out. */
void one_run(struct fixture *f, const struct event *ev, const struct sched_slot *s, unsigned n, unsigned run,
	     void (*workload)(struct fixture *), struct pmu_count *out, bool rdpmc);
/* Known counts in user mode on CPU, others in kernel mode and on the other CPU. */
void basic_workload(struct fixture *f);
/* instructions, cycles, ref-cycles (fixed), branches, branch-misses, LLC_MISSES. */
void default_events(struct event *ev);
void plan(struct fixture *f, const struct event *ev, unsigned n, struct sched_slot *s, unsigned *runs);
/* pmu_open() on CPU, armed for the signal restore. */
void open_pmu(struct fixture *f);

#endif
