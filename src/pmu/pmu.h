/*
 * pmu.h - pmustat's use of one core's PMU, through the hardware seam.
 *
 * The sequence is: pmu_open() (open the MSR device, read and save every
 * register pmustat may touch, find the counters somebody else uses), then
 * for each run pmu_program() (counting off), pmu_enable() in the corked
 * child, pmu_disable() and pmu_read() in the parent, and finally
 * pmu_restore(). Only allow-listed PMU MSRs are accessed, no value with a
 * reserved bit is written, and another user's counters, FIXED_CTR_CTRL
 * fields and GLOBAL_CTRL bits are never changed (unless --force takes the
 * counters, and then they are restored).
 *
 * A struct pmu holds everything restore needs in place (no heap, no
 * stdio): keep it in static storage and pmu_restore_from_signal() can put
 * the PMU back from a signal handler.
 */
#ifndef PMUSTAT_PMU_H
#define PMUSTAT_PMU_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "events/cpu.h"
#include "pmu/msr.h"
#include "pmu/counter_sched.h"

struct pmustat_error;

struct event;
struct hw;

/* One saved register: its value when found and what pmustat last wrote. */
struct pmu_reg {
	uint32_t msr;		/* 0 when this slot is unused */
	uint64_t saved;
	uint64_t cur;		/* valid when cur_known */
	bool cur_known;
	bool dirty;		/* written by pmustat: restore it */
};

struct pmu_write {
	uint32_t msr;
	uint64_t val;
};

enum pmu_enable_mode {
	PMU_ENABLE_GLOBAL,	/* our IA32_PERF_GLOBAL_CTRL bits */
	PMU_ENABLE_PER_COUNTER,	/* EVTSEL.EN and FIXED_CTR_CTRL fields */
};

#define PMU_MAX_SEQ (PMU_MAX_GP + 2)
#define PMU_NUM_OFFCORE 2

struct pmu {
	struct hw *hw;
	int cpu;
	struct pmu_caps caps;
	uint32_t gp_mask;		/* caps' GP counters, capped at PMU_MAX_GP */
	uint32_t fixed_mask;
	bool full_width;		/* IA32_PERF_CAPABILITIES[13] */
	uint64_t perf_capabilities;

	struct pmu_reg evtsel[PMU_MAX_GP];
	struct pmu_reg pmc[PMU_MAX_GP];
	struct pmu_reg fixed_ctr[PMU_MAX_FIXED];
	struct pmu_reg fixed_ctrl;
	struct pmu_reg global_ctrl;
	struct pmu_reg offcore[PMU_NUM_OFFCORE];
	uint64_t status_saved;		/* GLOBAL_STATUS when found */
	uint64_t status_pending;	/* overflow bits that may be set now */
	uint64_t inuse;			/* GLOBAL_INUSE (v4+), else 0 */

	/* Counters another user holds, and those of them --force takes. */
	uint32_t busy_gp, busy_fixed;
	uint32_t taken_gp, taken_fixed;

	/* The current run. */
	uint32_t run_gp, run_fixed;
	enum pmu_enable_mode mode;
	struct pmu_write enable_seq[PMU_MAX_SEQ];
	struct pmu_write disable_seq[PMU_MAX_SEQ];
	unsigned n_enable, n_disable;
	/* Programmed and not disabled since: the child may have enabled. */
	bool may_count;

	/* Accesses made, for the figures (rdpmc not included). */
	unsigned long msr_reads, msr_writes, rdpmc_reads;
	/* Set once something was written; cleared by pmu_restore(). */
	volatile sig_atomic_t armed;
};

/* One counter's reading after a run. */
struct pmu_count {
	uint64_t raw;
	bool overflowed;
	uint64_t value;			/* width- and overflow-aware count */
};

/*
 * Open @cpu's MSR device for writing and save the PMU state (reads only).
 * @uses_offcore: save MSR_OFFCORE_RSP_0/1 too. 0, or -errno with a message
 * naming the core, the MSR and the fix.
 */
int
pmu_open(struct pmu *p, struct hw *hw, int cpu, const struct pmu_caps *caps,
	 bool uses_offcore, struct pmustat_error **err);

/* Counters pmustat may use: the PMU's, less the busy ones not taken. */
uint32_t pmu_free_gp(const struct pmu *p);
uint32_t pmu_free_fixed(const struct pmu *p);

/* --force: take the busy counters too (they are restored after). */
void
pmu_take_busy(struct pmu *p);

/*
 * Who probably holds a busy counter, and what to do about it, for the
 * refusal message. @nmi_watchdog is the kernel file's text or NULL.
 */
void
pmu_describe_busy(const struct pmu *p, const char *nmi_watchdog, char *buf, size_t size);

/*
 * What pmu_program() writes for run @run, computed without writing: the
 * counters it uses, each EVTSEL as programmed (EN included in GLOBAL mode,
 * where GLOBAL_CTRL starts them; in PER_COUNTER mode pmu_enable() writes
 * it again with EN), each fixed counter's counting field, the offcore
 * response values, and the enable mode. For the crash journal, which must
 * say exactly what a run programs.
 */
struct pmu_run_plan {
	uint32_t gp, fixed;
	enum pmu_enable_mode mode;
	uint64_t evtsel[PMU_MAX_GP];
	unsigned field[PMU_MAX_FIXED];
	uint64_t offcore[PMU_NUM_OFFCORE];
	uint32_t offcore_used;
};

int
pmu_plan_run(const struct pmu *p, const struct event *ev, const struct sched_slot *slots,
	     unsigned n, unsigned run, struct pmu_run_plan *pl, struct pmustat_error **err);

/*
 * Program run @run of the plan with counting off: EVTSELs and our
 * FIXED_CTR_CTRL fields, extra MSRs, counters zeroed, our overflow bits
 * cleared. Counters of earlier runs not used by this one go back to their
 * saved state. Also prepares the enable and disable sequences.
 */
int
pmu_program(struct pmu *p, const struct event *ev, const struct sched_slot *slots,
	    unsigned n, unsigned run, struct pmustat_error **err);

/*
 * Enable exactly this run's counters. For the runner's callback (@arg is
 * the struct pmu): async-signal-safe, seam writes only, and the last write
 * is the one that starts the counting.
 */
int
pmu_enable(void *arg);

/* Record that the child ran pmu_enable() (the parent did not see it). */
void
pmu_mark_enabled(struct pmu *p);

/* Stop this run's counters. */
int
pmu_disable(struct pmu *p, struct pmustat_error **err);

/*
 * Read this run's counters (rdpmc when @use_rdpmc: the caller runs on the
 * core; MSR reads otherwise) into @counts[i] for each event of the run,
 * then clear our overflow bits.
 */
int
pmu_read(struct pmu *p, const struct sched_slot *slots, unsigned n, unsigned run,
	 bool use_rdpmc, struct pmu_count *counts, struct pmustat_error **err);

/*
 * Put every register pmustat wrote back to its saved value. 0, -errno of
 * the first failed write (the others are still attempted), or 1 when a
 * legacy counter write could not reproduce a saved value exactly.
 */
int
pmu_restore(struct pmu *p);

/*
 * Let pmu_restore_from_signal() restore @p (NULL: nothing). Call before the
 * first write.
 */
void
pmu_arm_signal_restore(struct pmu *p);

/* pmu_restore() of the armed pmu, with its result; async-signal-safe. */
int
pmu_restore_from_signal(void);

/* "IA32_PERFEVTSEL0", "IA32_FIXED_CTR_CTRL", ... into @buf, for messages. */
const char *
pmu_msr_name(uint32_t msr, char *buf, size_t size);

/* Is @msr one pmustat may access on this PMU? */
bool
pmu_msr_allowed(const struct pmu *p, uint32_t msr);

#endif
