/*
 * event_kind.c - see event_kind.h.
 */
#include "events/event_kind.h"

enum event_kind
event_kind_of_encoding(const struct event *e)
{
	/* The last-level cache events count as such only plain: a filter makes them something else. */
	bool plain = !e->cmask && !e->inv && !e->edge;

	if (e->flags & (EVENT_F_SOFTWARE | EVENT_F_OTHER_CORE_TYPE))
		return EVENT_KIND_OTHER;
	if (e->fixed == 0 || (e->code == 0xc0 && e->umask == 0x00))
		return EVENT_KIND_INSTRUCTIONS;
	if (e->fixed == 1 || (e->code == 0x3c && e->umask == 0x00))
		return EVENT_KIND_CYCLES;
	if (e->fixed >= 0)
		return EVENT_KIND_OTHER;
	if (e->code == 0xc4 && e->umask == 0x00)
		return EVENT_KIND_BRANCHES;
	if (e->code == 0xc5 && e->umask == 0x00)
		return EVENT_KIND_BRANCH_MISSES;
	if (e->code == 0x2e && e->umask == 0x4f && plain)
		return EVENT_KIND_CACHE_REFERENCES;
	if (e->code == 0x2e && e->umask == 0x41 && plain)
		return EVENT_KIND_CACHE_MISSES;
	return EVENT_KIND_OTHER;
}
