/*
 * event_kind.h - the generic kind (event.h's enum event_kind) of an event
 * of the architectural (Intel) PMU, from its encoding: the architectural
 * events' codes (SDM vol. 3B, "Pre-defined Architectural Performance
 * Events") and their fixed counters, whatever name was typed
 * (instructions, INST_RETIRED.ANY, r00c0).
 */
#ifndef PMUSTAT_EVENT_KIND_H
#define PMUSTAT_EVENT_KIND_H

#include "events/event.h"

/* @e's kind; EVENT_KIND_OTHER for a software event or any other encoding. */
enum event_kind event_kind_of_encoding(const struct event *e);

#endif
