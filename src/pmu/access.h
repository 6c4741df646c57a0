/*
 * access.h - can pmustat program the PMU of a core on this machine, and if
 * not, what stands in the way: the msr driver, permissions, kernel lockdown
 * or msr.allow_writes, rdpmc, counters someone else holds.
 */
#ifndef PMUSTAT_ACCESS_H
#define PMUSTAT_ACCESS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "hw/hw.h"
#include "pmu/msr.h"
#include "pmu/owner.h"

struct cpu_info;
struct hw;

/* A check that was not made (an earlier one failed, or it would not be safe). */
#define ACCESS_NOT_TRIED 1

struct access_report {
	bool checked;
	int msr_read;		/* opening /dev/cpu/N/msr read-only: 0 or -errno */
	int msr_write;		/* ... read-write */
	int write_probe;	/* a no-op MSR write: 0, -errno or ACCESS_NOT_TRIED */
	int rdpmc;		/* 0 allowed, -EPERM, or ACCESS_NOT_TRIED */
	enum hw_file rdpmc_source;	/* which PMU's rdpmc file applies */
	char rdpmc_file[32];	/* its contents, "" when unreadable */
	char nmi_watchdog[32];
	char lockdown[32];	/* the active mode, e.g. "none", "integrity" */
	char allow_writes[32];

	/* Counters in use on the core, when its MSRs could be read. */
	int counters_read;	/* 0 or -errno of the first failed read */
	uint32_t gp_busy;
	uint32_t fixed_busy;
	enum pmu_owner owner_gp[PMU_MAX_GP];	/* of the busy ones */
	enum pmu_owner owner_fixed[PMU_MAX_FIXED];
	uint64_t global_ctrl;
	uint64_t fixed_ctrl;
};

/* Run every check for @cpu, whose PMU @info describes (version >= 2). */
/* The rdpmc file of the PMU of a core like @info's (cpu_core/ or cpu_atom/ on a hybrid). */
enum hw_file access_rdpmc_file(const struct cpu_info *info);
void access_check(struct hw *hw, const struct cpu_info *info, int cpu, struct access_report *r);

/*
 * When something prevents counting, write one line with the cause and
 * the fix to @buf and return true.
 */
bool access_blocker(const struct access_report *r, int cpu, char *buf, size_t size);

void access_print(const struct access_report *r, int cpu, FILE *out);
json_t *access_json(const struct access_report *r);

#endif
