/*
 * nb_spec.h - the -e grammar on a NetBurst PMU: what the user typed,
 * resolved against the NetBurst table into struct nb_event values, or
 * refused with a reason. Touches no hardware.
 *
 *   spec  := term (',' term)*
 *   term  := NAME (':' mod)*
 *   mod   := MASK | 'u' | 'k' | 'uk' | 'ku'
 *          | 'threshold=' N (0-15) | 'complement' | 'edge'
 *
 * NAME is a table event (global_power_events, instr_retired, ...) or one
 * of the table's aliases (cycles, instructions, branch-misses, ...), case
 * insensitively. MASK names one of the event's ESCR event-mask bits
 * (instr_retired:NBOGUSNTAG:NBOGUSTAG); without one the event counts with
 * its default masks, and an event that has none must be given one. An
 * alias brings its masks; more may be added.
 *
 * threshold=N, complement and edge program the CCCR's filter, and any of
 * them sets its compare flag (without which the SDM ignores all three):
 * the counter then adds 1 in each clock where the event's input value is
 * above N (at most N with complement), or, with edge, only in a clock
 * where that becomes true. Without them the counter adds the input value
 * (0-15) every clock. Counting is user-only unless :k or :uk says
 * otherwise.
 *
 * Refused: unknown names and masks (with suggestions), events that need
 * tagging (front_end_event, execution_event, replay_event, uop_type),
 * events the CPU's model does not have, no mask bit, a threshold above 15,
 * :u and :k twice, and the same event given twice.
 */
#ifndef PMUSTAT_NB_SPEC_H
#define PMUSTAT_NB_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "events/event.h"

struct pmustat_error;
struct pmu_caps;

struct nb_table;

/* One NetBurst event, resolved: everything the ESCR and CCCR need. A value. */
struct nb_event {
	/* Canonical ("instr_retired:NBOGUSNTAG|NBOGUSTAG") and as typed. */
	char name[EVENT_NAME_MAX];
	char requested[EVENT_NAME_MAX];

	uint8_t event_select;	/* ESCR[30:25] */
	uint16_t mask;		/* ESCR[24:9] */
	uint64_t escrs;		/* ESCRs that may select it (bit i: nb_escr_get(i)) */
	bool thread_independent;	/* counts both HT threads' events (nb_event_desc's) */
	enum event_kind kind;	/* cycles, instructions, ...: the table's alias of that name, unfiltered */
	/* As struct event's: a {group} (or a ratio's pair, soft) counted in one run; 0: none. */
	unsigned group;
	bool group_soft;
	bool usr, os;

	/* CCCR filter; compare is set whenever one of the others was asked for. */
	bool compare;
	bool complement;
	bool edge;
	uint8_t threshold;
};

/*
 * Parse @spec into a new array *@out of *@count events (free() it), for a
 * CPU of family 15, model @model. 0, or -EINVAL / -ENOMEM with @err set,
 * e.g. "unknown event 'instr_retierd' for netburst; did you mean
 * instr_retired?".
 */
int nb_spec_parse(const char *spec, const struct nb_table *table, unsigned model,
		  struct nb_event **out, size_t *count, struct pmustat_error **err);

/* A resolved NetBurst term as the engine's event value (EVENT_F_NETBURST), and back. */
void nb_event_as_event(const struct nb_event *nb, struct event *out);
void nb_event_from_event(const struct event *e, struct nb_event *out);

/*
 * The NetBurst terms of the one -e grammar (event_spec.h's
 * event_term_resolver, arg a struct nb_spec_terms): a software event as
 * anywhere, any other term from @table as nb_spec_parse() resolves it.
 */
struct nb_spec_terms {
	const struct nb_table *table;
	unsigned model;
	const struct pmu_caps *caps;	/* for the software events */
};

int nb_spec_term(const void *arg, const char *term, struct event *ev, struct pmustat_error **err);

#endif
