/*
 * nb_detect.h - is the NetBurst PMU there to be used? CPUID says it is a
 * family-15 part without leaf 0xA (cpu.h: struct netburst_caps);
 * IA32_MISC_ENABLE says whether performance monitoring is available
 * (bit 7) and whether PEBS is not (bit 12), as Linux's p4 driver checks
 * before it uses the PMU.
 */
#ifndef PMUSTAT_NB_DETECT_H
#define PMUSTAT_NB_DETECT_H

#include <stdbool.h>
#include <stdint.h>

struct hw;

struct nb_misc {
	int read;		/* 0: read; -errno: could not (no msr driver, EACCES, #GP) */
	uint64_t value;
	bool perfmon;		/* bit 7: performance monitoring available */
	bool pebs;		/* bit 12 clear: PEBS available */
};

/* Decode an IA32_MISC_ENABLE value into @m (read = 0). Pure. */
void nb_misc_decode(uint64_t value, struct nb_misc *m);

/*
 * Read IA32_MISC_ENABLE of @cpu through the seam: opens the MSR device
 * read-only and reads that one register, nothing else. Returns m->read.
 */
int nb_probe(struct hw *hw, int cpu, struct nb_misc *m);

#endif
