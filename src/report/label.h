/*
 * label.h - the name a result is shown under, and what it counted.
 *
 * pmustat counts user mode only unless told otherwise (:k, :uk), so a count
 * is shown with the ring it is restricted to, as perf does when it restricts
 * counting: "instructions:u", "r412e:k", "cpu/event=0x3c/u". A name whose
 * spelling already says its ring ("instructions:uk", "cycles:u:cmask=1") is
 * shown as typed; an event counted in both rings gets no suffix.
 */
#ifndef PMUSTAT_LABEL_H
#define PMUSTAT_LABEL_H

#include <stddef.h>

struct event;

/* "u", "k" or "uk": the rings @e counts in. */
const char *
label_privilege(const struct event *e);

/* The name @e was asked for (or its resolved one), with its ring when restricted to one, into @buf. */
void
label_of(const struct event *e, char *buf, size_t size);

#endif
