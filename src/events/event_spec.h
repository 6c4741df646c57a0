/*
 * event_spec.h - the -e grammar: turn what the user typed into resolved
 * struct events (src/event.h), or refuse with a reason. Touches no hardware.
 *
 *   spec     := term (',' term)*
 *   term     := NAME mods | 'r' HEX mods | 'cpu/' param (',' param)* '/' [uk]* mods
 *             | ('cpu_core/' | 'cpu_atom/') (NAME | param (',' param)*) '/' [uk]* mods
 *   mods     := (':' mod)*
 *   mod      := 'u' | 'k' | 'uk' | 'ku' | 'cmask=' N | 'inv' | 'edge'
 *   param    := 'event=' N | 'umask=' N | 'umask2=' N | 'cmask=' N
 *             | 'inv' ['=' 0|1] | 'edge' ['=' 0|1] | 'any' ['=' 0|1]
 *             | 'name=' LABEL
 *
 * NAME is looked up case-insensitively: first the architectural aliases
 * (LLC_MISSES, LLC_REFERENCES, INSTRUCTIONS_RETIRED, CORE_CYCLES,
 * REF_CYCLES, BRANCH_INSTRUCTIONS, BRANCH_MISSES, TOPDOWN_SLOTS, ... and
 * perf's cycles, instructions, ref-cycles, branches, branch-misses,
 * cache-references, cache-misses), then the CPU's event table; deprecated
 * table names resolve to their new names. rHEX is perf's raw config:
 * umask << 8 | event, plus edge (bit 18), any (21), inv (23), cmask (31:24)
 * and, on perfmon v6, UMASK2 (47:40); USR/OS bits (16, 17) set the mode and
 * EN (22) is ignored. Counting is user-only unless :k or :uk says otherwise.
 *
 * perf's software events (task-clock, context-switches/cs,
 * cpu-migrations/migrations, page-faults/faults, minor-faults,
 * major-faults; src/sw_events.h) resolve before anything else, need no
 * PMU, and count in both rings unless :u or :k is given.
 */
#ifndef PMUSTAT_EVENT_SPEC_H
#define PMUSTAT_EVENT_SPEC_H

#include <stdbool.h>
#include <stddef.h>

#include "events/event.h"

struct pmustat_error;

struct event_table;
struct pmu_caps;

/*
 * Parse @spec into a new array *@out of *@count events (free() it). @table
 * may be NULL (no table for this CPU: aliases and raw events only). @caps
 * decides what this CPU can count: the GP/fixed counters that exist, the
 * CPUID.0AH:EBX availability of architectural events, perfmon v6 fields,
 * AnyThread. Returns 0, or -EINVAL (-ENOMEM) with @err set, e.g.
 *   "unknown event 'LLC_MISES' for skylake; did you mean LLC_MISSES, ...?"
 *   "event 'FRONTEND_RETIRED.DSB_MISS' needs MSR 0x3f7 (MSR_PEBS_FRONTEND),
 *    which pmustat does not program"
 * Events are refused when they are PEBS-only, uncore, unavailable per
 * CPUID.0AH:EBX, need an extra MSR other than 0x1a6/0x1a7, use UMASK2 or EQ
 * on a PMU older than v6, set AnyThread where it is deprecated, or fit no
 * counter this CPU has. The same event given twice is two events here: a
 * caller counts it once (engine/requests.c) and reports each spelling.
 */
int event_spec_parse(const char *spec, const struct event_table *table,
		     const struct pmu_caps *caps, struct event **out, size_t *count,
		     struct pmustat_error **err);

/*
 * The same for a core of a hybrid's type @core_type (CPUID.1AH: 0x40
 * core, 0x20 atom; 0 on other CPUs): perf's cpu_core/TERM/ and
 * cpu_atom/TERM/ name an event of one core type. On a core of that type
 * TERM resolves as usual (requested keeps the whole spelling); on the
 * other type it is an EVENT_F_OTHER_CORE_TYPE event, counted nowhere
 * there; on a CPU that is no hybrid it is refused.
 */
/*
 * The same for a CPU whose PMU pmustat does not program (another vendor, a
 * VM without the architectural PMU) counted through perf_event: perf's
 * generic names (instructions, cycles, L1-dcache-load-misses, ...) become
 * the kernel's generic events (EVENT_F_KERNEL_GENERIC: PERF_TYPE_HARDWARE
 * or PERF_TYPE_HW_CACHE), which the kernel maps to the vendor's PMU or
 * refuses; software events as usual; any other name is refused.
 */
int event_spec_parse_kernel(const char *spec, const struct pmu_caps *caps, struct event **out, size_t *count,
			    struct pmustat_error **err);

int event_spec_parse_typed(const char *spec, const struct event_table *table, const struct pmu_caps *caps,
			   int core_type, struct event **out, size_t *count, struct pmustat_error **err);

/*
 * More events than any PMU counts in one run (the scheduler's limit is
 * lower): absurd lists are refused here, before a caller's search for
 * duplicates makes them quadratic (100 000 events took 10 s).
 */
#define EVENT_SPEC_MAX_EVENTS 256

/*
 * Append the events of @spec to *@events (of *@count, grown with realloc),
 * for callers with several -e options; a total above EVENT_SPEC_MAX_EVENTS
 * is refused. Same errors as event_spec_parse(); on error *@events is
 * unchanged in content (it may have been reallocated).
 */
int event_spec_append(const char *spec, const struct event_table *table,
		      const struct pmu_caps *caps, struct event **events,
		      size_t *count, struct pmustat_error **err);

/*
 * Whether @a and @b count the same thing (same encoding, mode, counter and
 * extra MSR value; software events by name): the rule by which an event
 * asked for twice is counted once (engine/requests.c, metrics).
 */
bool event_spec_same(const struct event *a, const struct event *b);

/*
 * Up to @max (at most SUGGEST_MAX) names from @table and the aliases closest
 * to @name, best first, by the ranking of suggest.h: the names an unknown
 * event's error offers. Returns how many.
 */
size_t event_spec_suggest(const char *name, const struct event_table *table,
			  const char **out, size_t max);

#endif
