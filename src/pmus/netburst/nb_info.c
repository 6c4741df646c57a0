/*
 * nb_info.c - what `pmustat info` says of a NetBurst PMU (its family
 * table's info operations, pmu/family.h): the counters, Hyper-Threading,
 * and IA32_MISC_ENABLE, which says whether performance monitoring is
 * available at all.
 */
#include "pmus/netburst/nb_info.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "events/cpu.h"
#include "hw/hw.h"
#include "pmu/family.h"
#include "pmus/netburst/nb_detect.h"

int
nb_info_probe(struct hw *hw, int cpu, struct pmu_family_probe *out)
{
	struct nb_misc m;

	out->live = true;
	out->read = nb_probe(hw, cpu, &m);
	out->value = m.value;
	return out->read;
}

const char *
nb_info_unusable(const struct pmu_family_probe *probe, int cpu, char *buf, size_t size)
{
	struct nb_misc m;

	if (!probe->live || probe->read)
		return NULL;
	nb_misc_decode(probe->value, &m);
	if (m.perfmon)
		return NULL;
	snprintf(buf, size,
		 "IA32_MISC_ENABLE (0x1a0) bit 7 on CPU %d says performance monitoring is unavailable", cpu);
	return buf;
}

void
nb_info_text(const struct cpu_info *c, const struct pmu_family_probe *probe, int cpu, FILE *o)
{
	const struct netburst_caps *nb = &c->netburst;
	struct nb_misc m;

	fprintf(o, "  NetBurst PMU: %u counters \u00d7 %u bits, ESCR/CCCR (%u CCCRs, %u ESCRs)\n",
		nb->counters, nb->width, nb->counters, nb->escrs);
	if (nb->ht)
		fprintf(o, "  HT           2 logical processors share it; this is thread %u (ESCR T%u bits)\n",
			nb->thread, nb->thread);
	nb_misc_decode(probe->value, &m);
	if (!probe->live)
		fprintf(o, "  MISC_ENABLE  not known from a dump (bit 7: performance monitoring available)\n");
	else if (probe->read)
		fprintf(o, "  MISC_ENABLE  unread: /dev/cpu/%d/msr: %s; %s\n", cpu, strerror(-probe->read),
			hw_msr_hint(probe->read, false));
	else
		fprintf(o, "  MISC_ENABLE  0x%llx: performance monitoring %savailable, PEBS %savailable\n",
			(unsigned long long)probe->value, m.perfmon ? "" : "NOT ", m.pebs ? "" : "un");
}

json_t *
nb_info_json(const struct cpu_info *c, const struct pmu_family_probe *probe)
{
	const struct netburst_caps *nb = &c->netburst;
	bool known = probe->live && probe->read == 0;
	struct nb_misc m;
	char value[24];

	nb_misc_decode(probe->value, &m);
	snprintf(value, sizeof(value), "0x%llx", (unsigned long long)probe->value);
	return json_pack("{s:i, s:i, s:i, s:i, s:b, s:i, s:o, s:o, s:o}",
			 "counters", (int)nb->counters, "width", (int)nb->width,
			 "cccrs", (int)nb->counters, "escrs", (int)nb->escrs,
			 "ht", nb->ht, "thread", (int)nb->thread,
			 "misc_enable", known ? json_string(value) : json_null(),
			 "perfmon_available", known ? json_boolean(m.perfmon) : json_null(),
			 "pebs_available", known ? json_boolean(m.pebs) : json_null());
}
