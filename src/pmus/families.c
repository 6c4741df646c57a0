/*
 * families.c - the PMU families pmustat knows, in the order CPUID asks
 * them (pmu/family.h). A new family is one line here, its folder beside
 * this file, its subdir in src/meson.build and its emulator model.
 */
#include "pmu/family.h"

#include "events/cpu.h"
#include "pmus/intel/arch_family.h"
#include "pmus/netburst/nb_family.h"
#include "pmus/zen/zen_family.h"

const struct pmu_family *const pmu_families[] = {
	&pmu_family_netburst,
	&pmu_family_zen,
	&pmu_family_architectural,
	NULL,
};

void
pmu_families_detect(const struct cpu_raw_data_t *raw, struct cpu_info *out)
{
	out->pmu.family = NULL;
	for (const struct pmu_family *const *f = pmu_families; *f; f++) {
		if ((*f)->detect && (*f)->detect(raw, out)) {
			out->pmu.family = *f;
			return;
		}
	}
}
