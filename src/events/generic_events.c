/*
 * generic_events.c - see generic_events.h. The cache names follow perf's
 * Intel choices (arch/x86/events/intel/core.c) with the events Intel's
 * tables have: across generations the same thing changed its name
 * (MEM_UOPS_RETIRED on Haswell, MEM_INST_RETIRED from Skylake on).
 */
#include <linux/perf_event.h>
#include <string.h>
#include <strings.h>

#include "events/event_table.h"
#include "events/generic_events.h"

/* The kernel's encodings (include/uapi/linux/perf_event.h). */
#define HW(c) PERF_TYPE_HARDWARE, PERF_COUNT_HW_##c
#define CACHE(id, op, res) PERF_TYPE_HW_CACHE, \
	(PERF_COUNT_HW_CACHE_##id | PERF_COUNT_HW_CACHE_OP_##op << 8 | PERF_COUNT_HW_CACHE_RESULT_##res << 16)
#define NO_KERNEL GENERIC_NO_KERNEL_TYPE, 0

static const struct generic_event generic[] = {
	{ "cycles", "CORE_CYCLES", { NULL }, "core cycles (fixed counter 1)", HW(CPU_CYCLES) },
	{ "instructions", "INSTRUCTIONS_RETIRED", { NULL }, "instructions retired (fixed counter 0)", HW(INSTRUCTIONS) },
	{ "ref-cycles", "REF_CYCLES", { NULL }, "reference cycles at the TSC rate (fixed counter 2)", HW(REF_CPU_CYCLES) },
	{ "branches", "BRANCH_INSTRUCTIONS", { NULL }, "branch instructions retired", HW(BRANCH_INSTRUCTIONS) },
	{ "branch-instructions", "BRANCH_INSTRUCTIONS", { NULL }, "branch instructions retired", HW(BRANCH_INSTRUCTIONS) },
	{ "branch-misses", "BRANCH_MISSES", { NULL }, "mispredicted branches retired", HW(BRANCH_MISSES) },
	{ "cache-references", "LLC_REFERENCES", { NULL }, "last-level (L3) cache references", HW(CACHE_REFERENCES) },
	{ "cache-misses", "LLC_MISSES", { NULL }, "last-level (L3) cache misses", HW(CACHE_MISSES) },
	{ "slots", "TOPDOWN_SLOTS", { NULL }, "top-down issue slots (fixed counter 3)", NO_KERNEL },
	{ "L1-dcache-loads", NULL, { "MEM_INST_RETIRED.ALL_LOADS", "MEM_UOPS_RETIRED.ALL_LOADS" },
	  "retired loads (each looks up the L1 data cache)", CACHE(L1D, READ, ACCESS) },
	{ "L1-dcache-load-misses", NULL, { "L1D.REPLACEMENT" }, "L1 data cache lines replaced (misses)", CACHE(L1D, READ, MISS) },
	{ "L1-dcache-stores", NULL, { "MEM_INST_RETIRED.ALL_STORES", "MEM_UOPS_RETIRED.ALL_STORES" },
	  "retired stores", CACHE(L1D, WRITE, ACCESS) },
	{ "L1-icache-load-misses", NULL, { "ICACHE_64B.IFTAG_MISS", "ICACHE.MISSES" },
	  "instruction cache misses", CACHE(L1I, READ, MISS) },
	{ "LLC-loads", NULL, { "MEM_LOAD_RETIRED.L2_MISS", "MEM_LOAD_UOPS_RETIRED.L2_MISS" },
	  "retired loads that missed L2, so looked up in the last-level (L3) cache", CACHE(LL, READ, ACCESS) },
	{ "LLC-load-misses", NULL, { "MEM_LOAD_RETIRED.L3_MISS", "MEM_LOAD_UOPS_RETIRED.L3_MISS" },
	  "retired loads that missed the last-level (L3) cache", CACHE(LL, READ, MISS) },
	{ "dTLB-loads", NULL, { "MEM_INST_RETIRED.ALL_LOADS", "MEM_UOPS_RETIRED.ALL_LOADS" },
	  "retired loads (each looks up the data TLB)", CACHE(DTLB, READ, ACCESS) },
	{ "dTLB-load-misses", NULL, { "DTLB_LOAD_MISSES.MISS_CAUSES_A_WALK", "DTLB_LOAD_MISSES.WALK_COMPLETED" },
	  "loads that missed every TLB level (a page walk)", CACHE(DTLB, READ, MISS) },
	{ "dTLB-stores", NULL, { "MEM_INST_RETIRED.ALL_STORES", "MEM_UOPS_RETIRED.ALL_STORES" },
	  "retired stores (each looks up the data TLB)", CACHE(DTLB, WRITE, ACCESS) },
	{ "dTLB-store-misses", NULL, { "DTLB_STORE_MISSES.MISS_CAUSES_A_WALK", "DTLB_STORE_MISSES.WALK_COMPLETED" },
	  "stores that missed every TLB level (a page walk)", CACHE(DTLB, WRITE, MISS) },
	{ "iTLB-load-misses", NULL, { "ITLB_MISSES.MISS_CAUSES_A_WALK", "ITLB_MISSES.WALK_COMPLETED" },
	  "instruction fetches that missed every TLB level (a page walk)", CACHE(ITLB, READ, MISS) },
	{ "branch-loads", NULL, { "BR_INST_RETIRED.ALL_BRANCHES" }, "branch instructions retired", CACHE(BPU, READ, ACCESS) },
	{ "branch-load-misses", NULL, { "BR_MISP_RETIRED.ALL_BRANCHES" }, "mispredicted branches retired", CACHE(BPU, READ, MISS) },
};

size_t
generic_event_count(void)
{
	return sizeof(generic) / sizeof(generic[0]);
}

const struct generic_event *
generic_event_get(size_t i)
{
	return i < generic_event_count() ? &generic[i] : NULL;
}

const struct generic_event *
generic_event_find(const char *name)
{
	for (size_t i = 0; i < generic_event_count(); i++)
		if (strcasecmp(generic[i].name, name) == 0)
			return &generic[i];
	return NULL;
}

const struct event_desc *
generic_event_in_table(const struct generic_event *g, const struct event_table *table)
{
	const struct event_desc *d;

	for (size_t i = 0; table && i < GENERIC_MAX_CANDIDATES && g->table_names[i]; i++)
		if ((d = event_table_find(table, g->table_names[i])))
			return d;
	return NULL;
}
