/*
 * program.h - what one run writes to the PMU, as a value: every MSR write
 * of programming (with counting off), of the enable (in the corked child,
 * right before execve) and of the disable, in order. Computed without the
 * hardware (pmu_program_build(), from the events' placement); executed by
 * pmu.c, which checks each write against the allow-list and the counters
 * pmustat holds before it writes anything; printed by a dry run
 * (engine/plan_print.c); recorded in the crash journal (journal.c).
 *
 * A write changes only the bits of its mask: the rest of the register stays
 * as it is then. Shared registers (IA32_PERF_GLOBAL_CTRL,
 * IA32_FIXED_CTR_CTRL) are written that way, with only pmustat's bits and
 * fields in the mask. Bits in @found go back to the value the register had
 * when pmu_open() saved it (a counter an earlier run used, this one not).
 */
#ifndef PMUSTAT_PROGRAM_H
#define PMUSTAT_PROGRAM_H

#include <stdbool.h>
#include <stdint.h>

#include "pmu/counter_sched.h"
#include "pmu/msr.h"

struct event;
struct pmu_caps;
struct pmustat_error;

enum pmu_enable_mode {
	/*
	 * EVTSEL.EN and the fixed fields gate every counter in both modes
	 * (the kernel may set GLOBAL_CTRL bits at any time); in this one our
	 * IA32_PERF_GLOBAL_CTRL bits also start (last write) and stop (first
	 * write) every counter at once.
	 */
	PMU_ENABLE_GLOBAL,
	PMU_ENABLE_PER_COUNTER,	/* somebody keeps those bits set: EVTSEL.EN and the fixed fields only */
};

struct pmu_write {
	uint32_t msr;
	uint64_t mask;		/* the bits written; ~0: the whole register */
	uint64_t value;		/* within mask */
	uint64_t found;		/* within mask: bits that go back to the saved value */
	bool clear_ovf;		/* IA32_PERF_GLOBAL_STATUS_RESET: 1s only for the mask's bits that may be set */
};

/*
 * Writes of one step: at most a whole PMU's registers (a NetBurst run's
 * program is an ESCR, a CCCR and a counter for each of its 18 counters,
 * its enable and disable one CCCR each).
 */
#define PMU_PROGRAM_MAX	64
#define PMU_SEQ_MAX	20

struct pmu_program {
	unsigned run;			/* 0-based */
	uint32_t gp, fixed;		/* the counters it counts on */
	bool perf_metrics;		/* IA32_PERF_METRICS read with fixed counter 3 (GLOBAL_CTRL[48]) */
	bool perf_metrics_reg;		/* IA32_PERF_METRICS cleared with fixed counter 3 (and put back with it) */
	uint32_t nb;			/* NetBurst: its counters (bit i: counter i) */
	/* MSR_OFFCORE_RSP_0/1: the GP counter (its bit) whose event each filters, 0 when unused; the value */
	uint32_t offcore_gp[PMU_NUM_OFFCORE];
	uint64_t offcore_val[PMU_NUM_OFFCORE];
	enum pmu_enable_mode mode;
	struct pmu_write program[PMU_PROGRAM_MAX];	/* counting stays off */
	unsigned nprogram;
	struct pmu_write enable[PMU_SEQ_MAX];		/* the last one starts the counting */
	unsigned nenable;
	struct pmu_write disable[PMU_SEQ_MAX];
	unsigned ndisable;
};

/*
 * The program of run @run of @ev[0..n) placed by @slots, on a PMU with
 * @caps whose IA32_PERF_GLOBAL_CTRL held @global_ctrl when found (it
 * decides the enable mode: GLOBAL when none of this run's bits is set
 * there). @earlier_gp, @earlier_fixed: the counters runs before this one
 * used (their registers go back to the saved values). @perf_metrics: the
 * core has IA32_PERF_METRICS, which a run of fixed counter 3 clears after
 * the counter (the SDM: software clears both together), whether or not it
 * reads it. Pure. 0, or -EINVAL with @err when an event cannot be encoded
 * for this PMU (a reserved bit).
 */
int
pmu_program_build(const struct pmu_caps *caps, uint64_t global_ctrl, bool perf_metrics, const struct event *ev,
		  const struct sched_slot *slots, unsigned n, unsigned run, uint32_t earlier_gp,
		  uint32_t earlier_fixed, struct pmu_program *out, struct pmustat_error **err);

/* IA32_PERF_GLOBAL_CTRL/STATUS bits of a run's counters and, when it reads them, PERF_METRICS' bit 48. */
uint64_t
pmu_run_bits(const struct pmu_program *prog);

/* IA32_PERF_GLOBAL_CTRL/STATUS bits of the counters @gp and @fixed. */
uint64_t
pmu_global_bits(uint32_t gp, uint32_t fixed);

#endif
