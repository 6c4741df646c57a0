/*
 * core_types.h - a list of cores across a hybrid's core types (P-cores
 * and E-cores, CPUID.1AH): each type has its own CPU description, event
 * table (the mapfile row of its core type, never a codename) and PMU, so
 * the requests are resolved in each type's table and each core is
 * planned and programmed from its own type's. The rows stay one list (an
 * event's count is summed over every listed core, -A gives each core's);
 * an event one type lacks is refused, naming the event and the type.
 */
#ifndef PMUSTAT_CORE_TYPES_H
#define PMUSTAT_CORE_TYPES_H

#include <stdbool.h>
#include <stddef.h>

#include "engine/requests.h"
#include "engine/target.h"

struct hw;
struct pmustat_error;
struct stat_opts;

struct core_types {
	bool mixed;			/* the list spans two core types */
	struct target other;		/* the other type's CPU and table (mixed only) */
	struct stat_events ev;		/* the requests resolved in its table */
	const struct target **core_t;	/* per listed core: its type's (first or &other) */
	const struct stat_events **core_ev;
	const int *cpus;		/* the listed cores */
	unsigned ncores;
};

/*
 * Read every listed core's CPUID: all the CPU @first is, or (on a hybrid)
 * the other core type of the same model, opened as ct->other. Anything
 * else is refused, naming both cores. 0, or -errno with @err.
 */
int
core_types_open(struct core_types *ct, struct hw *hw, const struct target *first, const int *cores,
		unsigned ncores, struct pmustat_error **err);

/*
 * Mixed lists: resolve @o's requests in the other type's table too (as
 * @first_ev was in @first's), refusing what only one type has or what a
 * list across types cannot do (-M, --regions, -I, the perf backend's
 * hardware events). The default set keeps to what both types count.
 * Fills core_t/core_ev. 0, or -errno with @err.
 */
int
core_types_resolve(struct core_types *ct, const struct stat_opts *o, struct target *first,
		   struct stat_events *first_ev, struct pmustat_error **err);

/* Each type and its listed CPUs, "core: 0-7, atom: 8-15", for messages and notes. */
const char *
core_types_describe(const struct core_types *ct, char *buf, size_t size);

void
core_types_free(struct core_types *ct);

#endif
