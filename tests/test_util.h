/*
 * test_util.h - small builders of values the unit tests share (events, PMU caps).
 */
#ifndef PMUSTAT_TEST_UTIL_H
#define PMUSTAT_TEST_UTIL_H

#include <stdio.h>
#include <string.h>

#include "events/cpu.h"
#include "events/event.h"
#include "events/event_kind.h"

/* A user-only GP event: code/umask, allowed on @gp_mask. */
static inline struct event
test_event(const char *name, uint8_t code, uint8_t umask, uint32_t gp_mask)
{
	struct event e;

	memset(&e, 0, sizeof(e));
	snprintf(e.name, sizeof(e.name), "%s", name);
	snprintf(e.requested, sizeof(e.requested), "%s", name);
	e.code = code;
	e.umask = umask;
	e.usr = true;
	e.fixed = -1;
	e.gp_mask = gp_mask;
	/* As the resolver sets it (event_spec.c). */
	e.kind = event_kind_of_encoding(&e);
	return e;
}

/* An event with a fixed counter and its architectural GP twin. */
static inline struct event
test_fixed_event(const char *name, int fixed, uint8_t code, uint8_t umask, uint32_t gp_mask)
{
	struct event e = test_event(name, code, umask, gp_mask);

	e.fixed = fixed;
	e.kind = event_kind_of_encoding(&e);
	return e;
}

/* Skylake client: v4, 4 GP x 48, 3 fixed x 48, PDCM. */
static inline struct pmu_caps
test_caps_skylake(void)
{
	struct pmu_caps c;

	memset(&c, 0, sizeof(c));
	c.version = 4;
	c.gp_counters = 4;
	c.gp_mask = 0xf;
	c.gp_width = 48;
	c.fixed_counters = 3;
	c.fixed_mask = 0x7;
	c.fixed_width = 48;
	c.arch_events_len = 7;
	c.pdcm = true;
	c.cpuid_gp_counters = 4;
	c.cpuid_fixed_counters = 3;
	return c;
}

#endif
