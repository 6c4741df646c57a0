/*
 * sw_events.h - the kernel's software events that pmustat counts through
 * perf_event whatever the backend: perf's names, the
 * PERF_COUNT_SW_* config, and the unit of the value.
 *
 * A resolved software event is a struct event with EVENT_F_SOFTWARE set
 * and its canonical name from this table; it has no EVTSEL fields and is
 * never placed on a PMU counter.
 */
#ifndef PMUSTAT_SW_EVENTS_H
#define PMUSTAT_SW_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct event;

struct sw_event {
	const char *name;	/* perf's name, e.g. "page-faults" */
	const char *alias;	/* perf's short name ("faults"), or NULL */
	uint32_t config;	/* PERF_COUNT_SW_* */
	const char *unit;	/* "ns" for the clocks, NULL for plain counts */
	const char *desc;	/* one line for 'pmustat list' and the man page */
};

/* By name or alias, case-insensitive; NULL when @name is none of them. */
const struct sw_event *
sw_event_find(const char *name);

size_t
sw_event_count(void);

const struct sw_event *
sw_event_get(size_t i);

/* Whether @ev is a software event (EVENT_F_SOFTWARE). */
bool
event_is_software(const struct event *ev);

/* The table entry of a resolved software event; NULL for others. */
const struct sw_event *
sw_event_of(const struct event *ev);

#endif
