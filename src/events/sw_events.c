/*
 * sw_events.c - perf's software events (perf list's "Software event"
 * section, the ones that make sense for counting one command).
 */
#include "events/sw_events.h"

#include <linux/perf_event.h>
#include <strings.h>

#include "events/event.h"

static const struct sw_event sw_events[] = {
	{ "task-clock", NULL, PERF_COUNT_SW_TASK_CLOCK, "ns",
	  "CPU time the command's threads ran, in nanoseconds" },
	{ "context-switches", "cs", PERF_COUNT_SW_CONTEXT_SWITCHES, NULL,
	  "times the command's threads were switched out" },
	{ "cpu-migrations", "migrations", PERF_COUNT_SW_CPU_MIGRATIONS, NULL,
	  "times a thread moved to another CPU" },
	{ "page-faults", "faults", PERF_COUNT_SW_PAGE_FAULTS, NULL,
	  "page faults, minor and major" },
	{ "minor-faults", NULL, PERF_COUNT_SW_PAGE_FAULTS_MIN, NULL,
	  "page faults served without I/O" },
	{ "major-faults", NULL, PERF_COUNT_SW_PAGE_FAULTS_MAJ, NULL,
	  "page faults that waited for I/O" },
};

#define N_SW (sizeof(sw_events) / sizeof(sw_events[0]))

const struct sw_event *
sw_event_find(const char *name)
{
	for (size_t i = 0; i < N_SW; i++)
		if (strcasecmp(sw_events[i].name, name) == 0 ||
		    (sw_events[i].alias && strcasecmp(sw_events[i].alias, name) == 0))
			return &sw_events[i];
	return NULL;
}

size_t
sw_event_count(void)
{
	return N_SW;
}

const struct sw_event *
sw_event_get(size_t i)
{
	return i < N_SW ? &sw_events[i] : NULL;
}

bool
event_is_software(const struct event *ev)
{
	return (ev->flags & EVENT_F_SOFTWARE) != 0;
}

const struct sw_event *
sw_event_of(const struct event *ev)
{
	return event_is_software(ev) ? sw_event_find(ev->name) : NULL;
}
