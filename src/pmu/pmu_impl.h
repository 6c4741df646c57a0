/*
 * pmu_impl.h - struct pmu itself, for the files of pmu/ only (pmu.c, and
 * journal.c, which replays a journal through it). Everything else uses
 * pmu.h's functions.
 */
#ifndef PMUSTAT_PMU_IMPL_H
#define PMUSTAT_PMU_IMPL_H

#include <signal.h>

#include "pmus/netburst/nb_regs.h"
#include "pmu/family.h"
#include "pmu/pmu.h"

/* One saved register: its value when found and what pmustat last wrote. */
struct pmu_reg {
	uint32_t msr;		/* 0 when this slot is unused */
	uint64_t saved;
	uint64_t cur;		/* valid when cur_known */
	bool cur_known;
	bool dirty;		/* written by pmustat: restore it */
	/*
	 * The bits pmustat wrote. Of a shared register (GLOBAL_CTRL,
	 * FIXED_CTR_CTRL) only these are pmustat's: every later write and the
	 * restore read it first and change only them, so a field or bit
	 * another user set meanwhile stays.
	 */
	uint64_t mine;
};

/* A write of the enable or disable sequence: @val within @mask, the rest as the register is then. */
struct pmu_seq_write {
	uint32_t msr;
	uint64_t val;
	uint64_t mask;
};

/* Registers a family's open() may list in the restore order (pmu/family.h). */
#define PMU_MAX_RESTORE 96

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
	struct pmu_reg perf_metrics;	/* IA32_PERF_METRICS, when the PMU has it (msr 0 otherwise) */
	uint64_t status_saved;		/* GLOBAL_STATUS when found */
	uint64_t status_pending;	/* overflow bits that may be set now */
	bool unfreeze;			/* --force over a frozen PMU: clear CTR_Frz at the first program */
	bool unfroze;			/* --force cleared CTR_Frz: set it back at the restore */
	uint64_t pebs_enable;		/* IA32_PEBS_ENABLE (with DS), else 0: another user's PEBS counters */
	uint64_t acr_cfg_b[PMU_MAX_GP];	/* IA32_PMC_GPn_CFG_B (v6 auto counter reload), else 0 */

	/* Who held the counters when found, and those of them --force takes. */
	struct pmu_occupancy occ;
	uint32_t taken_gp, taken_fixed;

	/* The current run. */
	uint32_t run_gp, run_fixed;
	uint32_t run_offcore_gp[PMU_NUM_OFFCORE];	/* as struct pmu_program's offcore_gp, offcore_val */
	uint64_t run_offcore_val[PMU_NUM_OFFCORE];
	bool run_perf_metrics;
	enum pmu_enable_mode mode;
	struct pmu_seq_write enable_seq[PMU_SEQ_MAX];
	struct pmu_seq_write disable_seq[PMU_SEQ_MAX];
	unsigned n_enable, n_disable;
	/* Programmed and not disabled since: the child may have enabled. */
	bool may_count;
	/*
	 * Found by the disable (taken.c): counters of the run another user
	 * programmed meanwhile (theirs now), or stopped (EN or the field
	 * cleared, still ours), and what their EVTSEL (fixed field) held.
	 */
	uint32_t lost_gp, lost_fixed, stopped_gp, stopped_fixed;
	/* GP counters whose offcore response filter another user rewrote (theirs now), and what it held. */
	uint32_t refiltered_gp;
	uint64_t refiltered_rsp[PMU_NUM_OFFCORE];
	uint32_t offcore_lost;		/* bit o: MSR_OFFCORE_RSP_o is that user's from then on (never written again) */
	/* global_ctrl.cur was just read by the check above: the disable's RMW need not read it again. */
	bool global_ctrl_fresh;
	uint64_t lost_ctl[PMU_MAX_GP];
	unsigned lost_fixed_ctl[PMU_MAX_FIXED];

	/* A NetBurst PMU (caps.netburst): its registers, by number (pmu_nb.c). */
	struct pmu_reg nb_ctr[NB_COUNTERS];
	struct pmu_reg nb_cccr[NB_COUNTERS];
	struct pmu_reg nb_escr[NB_ESCRS];
	uint32_t run_nb;

	/*
	 * A family with its own open() (pmu/family.h): its saved registers in
	 * the order they go back, which the restore walks (data, so that a
	 * signal handler can do it).
	 */
	struct pmu_reg *restore_order[PMU_MAX_RESTORE];
	unsigned n_restore;

	/* Accesses made, for the figures (rdpmc not included). */
	unsigned long msr_reads, msr_writes, rdpmc_reads;
	/* Set once something was written; cleared by pmu_restore(). */
	volatile sig_atomic_t armed;
};

/*
 * Open @p in place (journal.c's replay keeps its own): pmu_open() without
 * the allocation.
 */
int
pmu_open_at(struct pmu *p, struct hw *hw, int cpu, const struct pmu_caps *caps, bool uses_offcore,
	    const struct pmu_owner_hints *hints, struct pmustat_error **err);

/*
 * Before the disable: read the run's EVTSELs, FIXED_CTR_CTRL and
 * GLOBAL_CTRL and find the counters another user took or stopped
 * (taken.c); a taken one leaves
 * the disable sequence and the restore. 0, or -errno of the read of
 * *@failed.
 */
int
pmu_find_taken(struct pmu *p, uint32_t *failed);

/*
 * --force over a frozen PMU (pmu_check_frozen()): clear CTR_Frz now, once,
 * after the crash journal has recorded it (freeze.c). 0 or -errno.
 */
int
pmu_unfreeze_now(struct pmu *p, struct pmustat_error **err);

/* The saved-register slot of @msr on @p, or NULL. */
struct pmu_reg *
pmu_reg_of(struct pmu *p, uint32_t msr);

#endif
