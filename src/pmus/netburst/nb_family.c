/*
 * nb_family.c - the NetBurst PMU's family table: CPUID detection, and the
 * calls pmu/ makes through pmu/family.h, which are pmu_nb.c's.
 */
#include "pmus/netburst/nb_family.h"

#include <jansson.h>
#include <libcpuid/libcpuid.h>

#include "events/cpu.h"
#include "pmus/netburst/journal_nb.h"
#include "pmus/netburst/nb_info.h"
#include "pmus/netburst/nb_list.h"
#include "pmus/netburst/nb_regs.h"
#include "pmus/netburst/nb_table.h"
#include "pmus/netburst/plan_nb.h"
#include "pmus/netburst/pmu_nb.h"

/* libcpuid's register order within a leaf. */
enum { R_EAX, R_EBX, R_ECX, R_EDX };

static uint32_t
bits(uint32_t v, unsigned hi, unsigned lo)
{
	return (v >> lo) & ((1u << (hi - lo + 1)) - 1);
}

/*
 * Family 0xF without leaf 0xA: the NetBurst PMU. Its registers are shared
 * by the logical processors of a core, so the ESCR bits that count are
 * the thread's: thread = initial APIC ID (CPUID.1:EBX[31:24]) modulo the
 * threads per core, which are the logical processors per package
 * (EBX[23:16], when CPUID.1:EDX.HTT) over the cores per package
 * (CPUID.4:EAX[31:26] + 1; a dual-core Pentium D has 2 logical processors
 * and no Hyper-Threading).
 */
static bool
detect(const struct cpu_raw_data_t *raw, struct cpu_info *out)
{
	struct netburst_caps *nb = &out->netburst;
	uint32_t ebx = raw->basic_cpuid[1][R_EBX];
	unsigned logical = 1, cores = 1, per_core;

	if (out->vendor != CPU_VENDOR_INTEL || out->family != 0xf || out->pmu.version != 0)
		return false;
	nb->present = true;
	nb->counters = NB_COUNTERS;
	nb->width = NB_COUNTER_WIDTH;
	nb->escrs = nb_escr_count(out->model);
	if (bits(raw->basic_cpuid[1][R_EDX], 28, 28))
		logical = bits(ebx, 23, 16);
	if (out->max_basic_leaf >= 4)
		cores = bits(raw->intel_fn4[0][R_EAX], 31, 26) + 1;
	per_core = cores && logical > cores ? logical / cores : 1;
	nb->ht = per_core >= 2;
	nb->thread = nb->ht ? bits(ebx, 31, 24) & 1 : 0;
	nb->apic_id = bits(ebx, 31, 24);
	out->pmu.netburst = true;
	out->pmu.nb_model = out->model;
	out->pmu.nb_ht = nb->ht;
	out->pmu.nb_thread = nb->thread;
	return true;
}

/*
 * pmu_nb_open_at(), then the restore order as data: CCCRs first (they
 * stop the counting), then ESCRs, then counters.
 */
static int
open_core(struct pmu *p, const struct pmu_owner_hints *hints, struct pmustat_error **err)
{
	int rc;

	(void)hints;
	rc = pmu_nb_open_at(p, err);

	if (rc)
		return rc;
	p->n_restore = 0;
	for (unsigned i = 0; i < NB_COUNTERS; i++)
		p->restore_order[p->n_restore++] = &p->nb_cccr[i];
	for (unsigned i = 0; i < NB_ESCRS; i++)
		if (p->nb_escr[i].msr)
			p->restore_order[p->n_restore++] = &p->nb_escr[i];
	for (unsigned i = 0; i < NB_COUNTERS; i++)
		p->restore_order[p->n_restore++] = &p->nb_ctr[i];
	return 0;
}

/* The event table operations (pmu/family.h) over nb_table.h and nb_list.h. */
static int
events_load(const char *dir, const char *name, void **out, struct pmustat_error **err)
{
	struct nb_table *t = NULL;
	int rc = nb_table_load(dir, name, &t, err);

	*out = t;
	return rc;
}

static void
events_free(void *table)
{
	nb_table_free(table);
}

static const char *
events_name(const void *table)
{
	return nb_table_name(table);
}

static const char *
events_source(const void *table)
{
	return nb_table_source(table);
}

static unsigned
list_text(FILE *out, const void *table, const char *pattern, bool (*match)(const char *, const char *),
	  bool long_format)
{
	return nb_list_text(out, table, pattern, match, long_format);
}

static void
list_json(json_t *root, const void *table, const char *pattern, bool (*match)(const char *, const char *))
{
	nb_list_json(root, table, pattern, match);
}

_Static_assert(2 * NB_COUNTERS + NB_ESCRS <= PMU_MAX_RESTORE, "NetBurst's registers fit the restore order");

const struct pmu_family pmu_family_netburst = {
	.name = "netburst",
	.title = "NetBurst",
	.detect = detect,
	.open = open_core,
	.allowed = pmu_nb_allowed,
	.reg_of = pmu_nb_reg_of,
	.refusal = pmu_nb_refusal,
	.reg_name = nb_msr_name,
	/* A CCCR's OVF flag says its counter wrapped; the disable must not clear it before the read sees it. */
	.disable_keeps = NB_CCCR_OVF,
	.read = pmu_nb_read,
	.clear = pmu_nb_clear,
	.journal_from = journal_from_nb,
	.journal_wrote_ok = journal_wrote_ok_nb,
	.journal_complete = journal_complete_nb,
	.journal_apply = journal_apply_nb,
	.journal_left = journal_left_nb,
	.probe = nb_info_probe,
	.unusable = nb_info_unusable,
	.info_text = nb_info_text,
	.info_json = nb_info_json,
	.msr_only = true,
	.no_metrics = "Intel publishes no metrics for NetBurst (family 15) and its events are not the architectural ones the formulas use",
	.events_load = events_load,
	.events_free = events_free,
	.events_name = events_name,
	.events_source = events_source,
	.list_text = list_text,
	.list_json = list_json,
	.plan = plan_nb_make,
	.plan_print = plan_nb_print,
	.plain_counter_msr = NB_MSR_COUNTER0,
	.plain_counters = NB_COUNTERS,
	.plain_counter_width = NB_COUNTER_WIDTH,
};
