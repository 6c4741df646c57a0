/*
 * pmu_state.h - one core's PMU registers as they are, read through the
 * hardware seam (reads only, the MSR device opened read-only), decoded,
 * and who probably programmed them. For `pmustat state` and `reset`.
 *
 * Who: the NMI watchdog (nmi_watchdog is 1 and fixed counter 1's field is
 * 0xB: OS, USR and PMI), perf_events (a counter with its interrupt enabled:
 * perf sets INT/PMI on every counter it programs, pmustat never does), a
 * pmustat run (the core's lock is held, or its journal's run is alive),
 * a killed pmustat run (its journal is still there), or unknown.
 */
#ifndef PMUSTAT_PMU_STATE_H
#define PMUSTAT_PMU_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "events/cpu.h"
#include "pmu/msr.h"

struct pmustat_error;

struct event_table;
struct hw;

/* IA32_PERFEVTSELx, field by field. */
struct pmu_evtsel_fields {
	uint8_t event;
	uint8_t umask;
	uint8_t cmask;
	uint8_t umask2;		/* v6 */
	bool usr, os, edge, pc, intr, any, en, inv, eq;
};

enum pmu_owner {
	PMU_OWNER_NONE = 0,	/* not in use */
	PMU_OWNER_NMI_WATCHDOG,
	PMU_OWNER_PERF,
	PMU_OWNER_PMUSTAT,	/* a pmustat run in progress */
	PMU_OWNER_PMUSTAT_KILLED,	/* left by a killed run: its journal is there */
	PMU_OWNER_UNKNOWN,
};

/* What is known about pmustat on the core, for the owner guess. */
struct pmu_state_pmustat {
	pid_t live_pid;			/* holder of the core's lock, 0 if none */
	char live_command[256];		/* its command line, may be "" */
	pid_t killed_pid;		/* pid in a journal whose run is gone, 0 if none */
};

struct pmu_state {
	int cpu;
	struct pmu_caps caps;
	uint32_t gp_mask;		/* caps', capped at PMU_MAX_GP */
	uint32_t fixed_mask;
	uint64_t global_ctrl;
	uint64_t global_status;
	uint64_t global_inuse;		/* valid when has_inuse (v4+) */
	bool has_inuse;
	uint64_t fixed_ctrl;
	uint64_t evtsel[PMU_MAX_GP];
	uint64_t pmc[PMU_MAX_GP];
	uint64_t fixed_ctr[PMU_MAX_FIXED];
	/*
	 * In use: an EVTSEL with EN or an event/umask, a non-zero fixed
	 * field, or GLOBAL_INUSE's word. The same rule as pmu_open() and
	 * access_check(): a GLOBAL_CTRL bit alone means nothing (perf and the
	 * power-up state set them all).
	 */
	uint32_t busy_gp;
	uint32_t busy_fixed;
	enum pmu_owner owner_gp[PMU_MAX_GP];
	enum pmu_owner owner_fixed[PMU_MAX_FIXED];
};

/*
 * Read @cpu's PMU registers through @hw (msr_open read-only, rdmsr only;
 * never a write). @caps describes the PMU (version >= 2). 0, or -errno
 * with a message naming the core, the MSR and the fix.
 */
int
pmu_state_read(struct hw *hw, int cpu, const struct pmu_caps *caps, struct pmu_state *st,
	       struct pmustat_error **err);

/*
 * Fill owner_gp/owner_fixed of the busy counters. @nmi_watchdog: the
 * kernel file's text or NULL; @pm: what is known of pmustat runs (NULL:
 * nothing).
 */
void
pmu_state_guess_owners(struct pmu_state *st, const char *nmi_watchdog,
		       const struct pmu_state_pmustat *pm);

/* "none", "nmi_watchdog", "perf", "pmustat", "pmustat_killed", "unknown". */
const char *
pmu_owner_name(enum pmu_owner owner);

void
pmu_state_decode_evtsel(uint64_t v, struct pmu_evtsel_fields *f);

/*
 * The event @evtsel counts, by its encoding, from @table (NULL: the
 * architectural events only), into @buf; "raw" when nothing matches, ""
 * when the EVTSEL is zero (unprogrammed).
 */
const char *
pmu_state_event_name(const struct event_table *table, uint64_t evtsel, char *buf, size_t size);

/* Fixed counter @i's event, from @table when it names one. */
const char *
pmu_state_fixed_event_name(const struct event_table *table, unsigned i);

/*
 * A -C LIST: "all", or comma-separated CPUs and ranges ("0-3,6"), each
 * below @ncpus, into @set (@ncpus entries). 0, or -EINVAL with a message.
 */
int
pmu_state_parse_cpus(const char *list, int ncpus, bool *set, struct pmustat_error **err);

#endif
