/*
 * owner.h - the one rule for "is this counter in use, and whose is it",
 * for stat (which counters it may take, and whom a refusal names), state
 * (the owner column) and reset (which counters --zero clears) alike.
 *
 * In use: an IA32_PERFEVTSELx with EN or an event/umask, a non-zero
 * IA32_FIXED_CTR_CTRL field, or the CPU's own IA32_PERF_GLOBAL_INUSE view
 * (v4+). A GLOBAL_CTRL bit alone means nothing: perf and the power-up
 * state set them all.
 *
 * Whose: Linux's NMI watchdog (nmi_watchdog is 1 and fixed counter 1's
 * field is OS|USR|PMI, 0xB); perf_events (a counter with its interrupt
 * enabled: perf sets INT/PMI on every counter it programs, pmustat never
 * does); otherwise pmustat-style programming: a pmustat run (the core's
 * lock is held), a killed one (its journal is there), or someone unknown
 * that writes the MSRs directly. Perf's PEBS counters have no INT bit
 * either (Linux clears it for PEBS events): a counter whose
 * IA32_PEBS_ENABLE bit is set is perf's too, and so is a v6 counter whose
 * IA32_PMC_GPn_CFG_B holds a reload configuration (Linux leaves one after
 * its event is gone; the counter would be reloaded behind a new user's back).
 *
 * Pure: the registers come in as values.
 */
#ifndef PMUSTAT_OWNER_H
#define PMUSTAT_OWNER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "pmu/msr.h"
#include "pmus/netburst/nb_regs.h"

struct strbuf;

enum pmu_owner {
	PMU_OWNER_NONE = 0,		/* not in use */
	PMU_OWNER_NMI_WATCHDOG,
	PMU_OWNER_PERF,
	PMU_OWNER_PMUSTAT,		/* a pmustat run in progress */
	PMU_OWNER_PMUSTAT_KILLED,	/* left by a killed run: its journal is there */
	PMU_OWNER_UNKNOWN,
};

/* The registers the rule reads (the counters' own controls). */
struct pmu_owner_regs {
	uint32_t gp_mask;		/* the counters that exist */
	uint32_t fixed_mask;
	uint64_t evtsel[PMU_MAX_GP];
	uint64_t fixed_ctrl;
	uint64_t inuse;			/* IA32_PERF_GLOBAL_INUSE, 0 before v4 */
	uint64_t pebs_enable;		/* IA32_PEBS_ENABLE, 0 without DS */
	uint64_t acr_cfg_b[PMU_MAX_GP];	/* IA32_PMC_GPn_CFG_B (v6 auto counter reload), 0 without */
	bool pebs_baseline;		/* PERF_CAPABILITIES[14]: bit 32+i is fixed counter i's */
	bool perf_metrics;		/* PERF_CAPABILITIES[15] with fixed counter 3: IA32_PERF_METRICS */
};

/* What else is known about the core. */
struct pmu_owner_hints {
	bool watchdog_on;		/* /proc/sys/kernel/nmi_watchdog is 1 */
	pid_t live_pid;			/* a pmustat run holds the core's lock (0: none, or it is us) */
	pid_t killed_pid;		/* a journal's run is gone (0: none) */
};

/* Every counter of one core: in use or not, and by whom. */
struct pmu_occupancy {
	uint32_t busy_gp;
	uint32_t busy_fixed;
	enum pmu_owner gp[PMU_MAX_GP];		/* PMU_OWNER_NONE when not busy */
	enum pmu_owner fixed[PMU_MAX_FIXED];
	uint64_t evtsel[PMU_MAX_GP];		/* what they hold, for messages */
	unsigned field[PMU_MAX_FIXED];
	pid_t live_pid, killed_pid;		/* the hints' pids, for messages */
	/*
	 * The core has IA32_PERF_METRICS: it belongs to whoever holds fixed
	 * counter 3, and goes with it (cleared and put back together).
	 */
	bool perf_metrics;
	/*
	 * A NetBurst PMU (pmu_owner_scan_nb()): another user's counters and
	 * ESCRs (nobody else's ESCR or counter is touched; --force does not
	 * take them).
	 */
	uint32_t nb_busy;
	uint64_t nb_busy_escrs;
	uint64_t nb_cccr[NB_COUNTERS];			/* what the busy CCCRs hold, for messages */
	uint64_t nb_escr[NB_ESCRS];			/* what the busy ESCRs hold, for messages */
};

/* The ESCR bits that arm it for a thread: its USR/OS bits (T0 and T1), and tagging. */
#define NB_ESCR_ARMED (NB_ESCR_T0_USR | NB_ESCR_T0_OS | NB_ESCR_T1_USR | NB_ESCR_T1_OS | NB_ESCR_TAG_ENABLE)

/*
 * The NetBurst rule, from one core's CCCRs and ESCRs as read (@escr[i] of
 * ESCR i, 0 for an ESCR the model lacks), into @out's nb_ fields:
 *  - a counter whose CCCR is enabled is another user's, and so is the
 *    ESCR that CCCR selects for it;
 *  - an ESCR armed (NB_ESCR_ARMED: a USR/OS bit of either thread, or tag
 *    enable) is another user's even when no enabled CCCR selects it: an
 *    upstream ESCR of the SDM's "Tagging Mechanism" tags uops with no
 *    counter of its own, and a user that stops a counter clears only its
 *    CCCR's enable bit (Linux's p4 driver does) and enables it again with
 *    that ESCR; so is a counter whose disabled, non-zero CCCR selects an
 *    armed ESCR (that stopped user's pair);
 *  - an ESCR with no such bit counts and tags nothing, whatever event it
 *    still selects: free, as is a counter whose CCCR is neither.
 */
void
pmu_owner_scan_nb(const uint64_t cccr[NB_COUNTERS], const uint64_t escr[NB_ESCRS], struct pmu_occupancy *out);

/* The rule. @hints may be NULL (nothing known). */
void
pmu_owner_scan(const struct pmu_owner_regs *regs, const struct pmu_owner_hints *hints,
	       struct pmu_occupancy *out);

/* The hint of /proc/sys/kernel/nmi_watchdog's text ("1\n"; NULL: unknown). */
bool
pmu_owner_watchdog_on(const char *nmi_watchdog);

/* "none", "nmi_watchdog", "perf", "pmustat", "pmustat_killed", "unknown". */
const char *
pmu_owner_name(enum pmu_owner owner);

/*
 * Who that is and what to do about it, for people: "the NMI watchdog
 * (disable it: sudo sysctl kernel.nmi_watchdog=0)".
 */
const char *
pmu_owner_who(enum pmu_owner owner);

/*
 * Whether --zero may clear a counter of @owner without --force:
 * pmustat-style programming (no interrupt bit), never the watchdog's or
 * perf's.
 */
bool
pmu_owner_pmustat_style(enum pmu_owner owner);

/*
 * The busy counters among @gp and @fixed, each with what it holds and
 * who: "fixed1 (IA32_FIXED_CTR_CTRL field 0xb): the NMI watchdog (...);
 * pmc0 (IA32_PERFEVTSEL0 = 0x53003c): ...". Appended to @b.
 */
void
pmu_occupancy_describe(const struct pmu_occupancy *o, uint32_t gp, uint32_t fixed, struct strbuf *b);

#endif
