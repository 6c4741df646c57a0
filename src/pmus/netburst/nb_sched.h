/*
 * nb_sched.h - place resolved NetBurst events on ESCRs and counters.
 *
 * The NetBurst counterpart of sched.h, with the same shape so the engine
 * can treat both PMUs alike: events in, one slot per event out (where it
 * counts and in which run), -ENOSPC / -E2BIG with a message otherwise.
 *
 * Each event needs one of the ESCRs that can select it (the table's
 * "ESCR restrictions") and one counter that ESCR feeds ("Counter Numbers
 * Per ESCR"), whose CCCR then names the ESCR by its ESCR-select value.
 * An ESCR selects one event at a time, so two events on one ESCR conflict;
 * a counter counts one event. When the events do not all fit, they are
 * split into runs (the command runs once per run), each event counted
 * exactly once, in one run. Each run is an exact matching (a small max
 * flow: events -> ESCRs -> counter groups), so a set of events that fits
 * is never refused because of an unlucky first choice. Pure: no hardware.
 */
#ifndef PMUSTAT_NB_SCHED_H
#define PMUSTAT_NB_SCHED_H

#include <stddef.h>
#include <stdint.h>

#include "pmu/counter_sched.h"

struct pmustat_error;

struct nb_event;

struct nb_slot {
	unsigned escr;		/* index into nb_escr_get() */
	unsigned counter;	/* 0-17; its CCCR is the same number */
	unsigned run;		/* 0-based */
};

/*
 * Place @n events on a CPU of model @model. @counters_free: the counters
 * pmustat may use (bit i = counter i; those with another user's CCCR
 * enabled are not); @escrs_free: the ESCRs it may use (bit i = ESCR i;
 * another user's are not). On success fills @slots[0..n) and *@runs (>= 1
 * when n > 0) and returns 0. -ENOSPC when event *@bad fits no free ESCR
 * and counter even alone; -E2BIG when n > SCHED_MAX_EVENTS; both with a
 * message in @err.
 */
int
nb_sched_plan(const struct nb_event *ev, unsigned n, unsigned model, uint32_t counters_free,
	      uint64_t escrs_free, struct nb_slot *slots, unsigned *runs, unsigned *bad,
	      struct pmustat_error **err);

/* "MSR_IQ_COUNTER0 via CRU_ESCR0" for @slot into @buf. */
void
nb_sched_slot_name(const struct nb_slot *slot, char *buf, size_t size);

#endif
