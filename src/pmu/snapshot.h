/*
 * snapshot.h - one core's PMU registers as they are, read through the
 * hardware seam (reads only, the MSR device opened read-only), and
 * decoded: the fields of an EVTSEL, the event it counts. Who holds the
 * counters is owner.h's rule, fed by pmu_snapshot_occupancy(). For
 * `pmustat state`, `reset`, `info` and a dry run's view of the core.
 */
#ifndef PMUSTAT_SNAPSHOT_H
#define PMUSTAT_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "events/cpu.h"
#include "pmu/msr.h"
#include "pmu/owner.h"

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

struct pmu_snapshot {
	int cpu;
	struct pmu_caps caps;
	uint32_t gp_mask;		/* caps', capped at PMU_MAX_GP */
	uint32_t fixed_mask;
	uint64_t global_ctrl;
	uint64_t global_status;
	uint64_t global_inuse;		/* valid when has_inuse (v4+) */
	bool has_inuse;
	uint64_t pebs_enable;		/* IA32_PEBS_ENABLE, 0 without DS */
	uint64_t acr_cfg_b[PMU_MAX_GP];	/* IA32_PMC_GPn_CFG_B (v6 auto counter reload), 0 without */
	uint64_t perf_capabilities;	/* IA32_PERF_CAPABILITIES, 0 without PDCM */
	uint64_t fixed_ctrl;
	uint64_t evtsel[PMU_MAX_GP];
	uint64_t pmc[PMU_MAX_GP];
	uint64_t fixed_ctr[PMU_MAX_FIXED];
};

/*
 * Read @cpu's PMU registers through @hw (msr_open read-only, rdmsr only;
 * never a write). @caps describes the PMU (version >= 2). 0, or -errno
 * with a message naming the core, the MSR and the fix.
 */
int
pmu_snapshot_read(struct hw *hw, int cpu, const struct pmu_caps *caps, struct pmu_snapshot *st,
		  struct pmustat_error **err);

/* Who holds each counter of @st: owner.h's rule on its registers. @hints may be NULL. */
void
pmu_snapshot_occupancy(const struct pmu_snapshot *st, const struct pmu_owner_hints *hints,
		       struct pmu_occupancy *out);

void
pmu_evtsel_decode(uint64_t v, struct pmu_evtsel_fields *f);

/*
 * The event @evtsel counts, by its encoding, from @table (NULL: the
 * architectural events only), into @buf; "raw" when nothing matches, ""
 * when the EVTSEL is zero (unprogrammed).
 */
const char *
pmu_snapshot_event_name(const struct event_table *table, uint64_t evtsel, char *buf, size_t size);

/* Fixed counter @i's event, from @table when it names one. */
const char *
pmu_snapshot_fixed_event_name(const struct event_table *table, unsigned i);

#endif
