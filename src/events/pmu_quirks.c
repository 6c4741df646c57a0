#include "events/pmu_quirks.h"

#include <stddef.h>
#include <string.h>

#include "events/cpu.h"

/*
 * Alder and Raptor Lake report in CPUID.0AH the counters both core types
 * have, and have no leaf 0x23 to say more: the P-core's are Linux's
 * (arch/x86/events/intel/core.c adds 2 GP and 1 fixed counter for them).
 * Later hybrids enumerate each core type's counters in leaf 0x23 (cpu.c).
 */
struct hybrid_quirk {
	unsigned models[6];
	enum cpu_core_type core_type;
	uint32_t gp_mask;
	uint32_t fixed_mask;
	const char *why;
};

static const struct hybrid_quirk hybrid_quirks[] = {
	{ { 0x97, 0x9a, 0xb7, 0xba, 0xbf }, CPU_CORE_TYPE_CORE, 0xff, 0xf,
	  "hybrid Alder/Raptor Lake P-core: CPUID.0AH reports the E-core subset; the P-core has 8 GP and 4 fixed counters" },
};

static unsigned
popcount32(uint32_t v)
{
	return (unsigned)__builtin_popcount(v);
}

static void
apply_hybrid(struct cpu_info *cpu)
{
	if (!cpu->hybrid || cpu->family != 6 || !cpu->pmu.counters_from || strcmp(cpu->pmu.counters_from, "CPUID.0AH") != 0)
		return;

	for (size_t i = 0; i < sizeof(hybrid_quirks) / sizeof(hybrid_quirks[0]); i++) {
		const struct hybrid_quirk *q = &hybrid_quirks[i];

		if (q->core_type != cpu->core_type)
			continue;
		for (size_t m = 0; m < sizeof(q->models) / sizeof(q->models[0]) && q->models[m]; m++) {
			if (q->models[m] != cpu->model)
				continue;
			cpu->pmu.gp_mask = q->gp_mask;
			cpu->pmu.gp_counters = popcount32(q->gp_mask);
			cpu->pmu.fixed_mask = q->fixed_mask;
			cpu->pmu.fixed_counters = popcount32(q->fixed_mask);
			if (!cpu->pmu.fixed_width)
				cpu->pmu.fixed_width = cpu->pmu.gp_width;
			cpu->pmu.quirk = q->why;
			return;
		}
	}
}

/*
 * Versions 2 to 4 have at least three fixed counters, but some Core 2 parts
 * report none (the Merom X6800 dump). Linux assumes three unless running
 * under a hypervisor, which may really hide them; so do we. The width is
 * then unknown too: Core 2's counters are all 40 bits, as its GP width says.
 */
static void
apply_core2_fixed(struct cpu_info *cpu)
{
	struct pmu_caps *pmu = &cpu->pmu;

	if (pmu->version < 2 || pmu->version > 4 || cpu->hypervisor)
		return;
	if (pmu->fixed_counters >= 3)
		return;
	pmu->fixed_mask = 0x7;
	pmu->fixed_counters = 3;
	if (!pmu->fixed_width)
		pmu->fixed_width = pmu->gp_width;
	pmu->quirk = "CPUID.0AH reports fewer than 3 fixed counters on a version 2-4 PMU; every such CPU has 3 (as Linux assumes)";
}

void
pmu_quirks_apply(struct cpu_info *cpu)
{
	if (cpu->verdict != CPU_VERDICT_OK)
		return;
	apply_hybrid(cpu);
	apply_core2_fixed(cpu);
}
