/*
 * generic_events.h - perf's generic event names, the ones a perf user
 * types first: the hardware ones (cycles, instructions, cache-misses, ...),
 * aliases of the architectural events, and the hardware-cache ones
 * (L1-dcache-load-misses, dTLB-load-misses, ...), which name an event of
 * the CPU's table where the table has one that counts that (the first of
 * a few candidates, as perf's own Intel mapping picks them). `-e` resolves
 * them, `list` shows them and "did you mean" offers them.
 */
#ifndef PMUSTAT_GENERIC_EVENTS_H
#define PMUSTAT_GENERIC_EVENTS_H

#include <stddef.h>

struct event_desc;
struct event_table;

#define GENERIC_MAX_CANDIDATES 3

struct generic_event {
	const char *name;		/* as perf spells it */
	const char *arch_key;		/* an architectural event (arch_events.h), or NULL */
	/* Else the table events that count it, the first the table has is used. */
	const char *table_names[GENERIC_MAX_CANDIDATES];
	const char *desc;
	/*
	 * The kernel's own generic event for it (perf_event_open's
	 * PERF_TYPE_HARDWARE or PERF_TYPE_HW_CACHE and its config), which
	 * the kernel maps to each vendor's PMU; GENERIC_NO_KERNEL_TYPE: none.
	 */
	unsigned perf_type;
	unsigned long long perf_config;
};

#define GENERIC_NO_KERNEL_TYPE 0xffffffffu

size_t generic_event_count(void);
const struct generic_event *generic_event_get(size_t i);

/* The generic event named @name (any case), or NULL. */
const struct generic_event *generic_event_find(const char *name);

/* The table event a hardware-cache name stands for in @table, or NULL (none there, or no table). */
const struct event_desc *generic_event_in_table(const struct generic_event *g, const struct event_table *table);

#endif
