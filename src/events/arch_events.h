/*
 * arch_events.h - the architectural performance events (SDM vol. 3B,
 * "Pre-defined Architectural Performance Events"), enumerated by
 * CPUID.0AH:EBX: a set bit means the event is NOT available.
 */
#ifndef PMUSTAT_ARCH_EVENTS_H
#define PMUSTAT_ARCH_EVENTS_H

#include <stdbool.h>
#include <stdint.h>

struct pmu_caps;

struct arch_event {
	unsigned bit;		/* CPUID.0AH:EBX bit */
	const char *name;	/* SDM name, e.g. "LLC Misses" */
	const char *key;	/* pmustat's name, e.g. "LLC_MISSES" */
	uint8_t code;
	uint8_t umask;
	int fixed;		/* fixed counter that counts it too, or -1 */
	/*
	 * Whether this GP encoding counts exactly what that fixed counter
	 * counts (its twin), so an event of the fixed counter can move to a
	 * general-purpose counter when another user holds the fixed one.
	 * Not UnHalted Reference Cycles: 3CH/01H on a GP counter counts the
	 * reference clock at the bus or crystal rate, fixed counter 2 at the
	 * TSC rate.
	 */
	bool fixed_twin;
};

/* Number of entries in the table below. */
unsigned arch_event_count(void);
const struct arch_event *arch_event_get(unsigned i);
const struct arch_event *arch_event_by_key(const char *key);
/*
 * The architectural event whose GP encoding is fixed counter @fixed's twin
 * (fixed_twin above), or NULL: 0 INSTRUCTIONS_RETIRED, 1 CORE_CYCLES, 3
 * TOPDOWN_SLOTS; none for 2.
 */
const struct arch_event *arch_event_fixed_twin(int fixed);

/* Whether the PMU described by @caps enumerates the event as available. */
bool arch_event_available(const struct pmu_caps *caps, const struct arch_event *ev);

#endif
