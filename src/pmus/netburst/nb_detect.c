/*
 * nb_detect.c - IA32_MISC_ENABLE decoded and read (see nb_detect.h).
 */
#include "pmus/netburst/nb_detect.h"

#include <string.h>

#include "hw/hw.h"
#include "pmus/netburst/nb_regs.h"

void
nb_misc_decode(uint64_t value, struct nb_misc *m)
{
	memset(m, 0, sizeof(*m));
	m->value = value;
	m->perfmon = value & NB_MISC_PERFMON;
	m->pebs = !(value & NB_MISC_PEBS_UNAVAIL);
}

int
nb_probe(struct hw *hw, int cpu, struct nb_misc *m)
{
	uint64_t v = 0;
	int ret;

	memset(m, 0, sizeof(*m));
	ret = hw_msr_open(hw, cpu, false);
	if (!ret)
		ret = hw_rdmsr(hw, cpu, NB_MSR_MISC_ENABLE, &v);
	if (ret) {
		m->read = ret;
		return ret;
	}
	nb_misc_decode(v, m);
	return 0;
}
