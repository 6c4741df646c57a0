/*
 * nb_table.h - the NetBurst event table, events/netburst.json (format in
 * events/README.md), written from the SDM's NetBurst event tables.
 *
 * Loaded once, read-only afterwards; names are looked up case-insensitively
 * and iterated in name order. Every event's ESCRs are checked against the
 * register map (nb_regs.h): the CCCR ESCR-select value the table gives must
 * be the one that names each of its ESCRs.
 */
#ifndef PMUSTAT_NB_TABLE_H
#define PMUSTAT_NB_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pmustat_error;

struct nb_table;

/* One event-mask bit: ESCR[24:9] bit @bit (0-15) of the event. */
struct nb_mask {
	const char *name;		/* "NBOGUSNTAG" */
	const char *description;
	unsigned bit;
};

struct nb_event_desc {
	const char *name;		/* "instr_retired" */
	const char *description;
	const char *note;		/* the SDM's event-specific note, or NULL */
	uint8_t event_select;		/* ESCR[30:25] */
	uint8_t cccr_select;		/* CCCR[15:13] of every ESCR below */
	uint64_t escrs;			/* bit i: ESCR i (nb_escr_get) may select it */
	unsigned n_masks;
	const struct nb_mask *masks;	/* by bit */
	uint16_t default_mask;		/* mask bits when none is named; 0: one must be */
	bool at_retirement;		/* the SDM's at-retirement table */
	/*
	 * Counts only uops tagged upstream (front_end_event, execution_event,
	 * replay_event) or only tags (uop_type): pmustat does not program
	 * tagging, so these are listed but refused.
	 */
	bool needs_tagging;
	/*
	 * The SDM's thread-independent (TI) events: with Hyper-Threading the
	 * counter counts both logical processors' events, whatever the ESCR's
	 * T0/T1 bits say (Linux's p4 "shared").
	 */
	bool thread_independent;
	uint16_t models;		/* bit m: model m has it; 0: every model */
};

/* A name with an architectural meaning, e.g. cycles = global_power_events:RUNNING. */
struct nb_alias {
	const char *name;
	const char *description;
	const char *target;		/* "global_power_events:RUNNING" */
	const struct nb_event_desc *event;
	uint16_t mask;
};

/*
 * Load @events_dir/@name.json. 0 and *@out, or -ENOENT (no such file),
 * -EINVAL (not a NetBurst table, or one that breaks a rule: @err says
 * which event and what), -ENOMEM; @err is "path: what".
 */
int nb_table_load(const char *events_dir, const char *name, struct nb_table **out,
		  struct pmustat_error **err);
void nb_table_free(struct nb_table *t);

const char *nb_table_name(const struct nb_table *t);
/* The "source" object's "title" (what the data was written from). */
const char *nb_table_source(const struct nb_table *t);

const struct nb_event_desc *nb_table_find(const struct nb_table *t, const char *name);
size_t nb_table_count(const struct nb_table *t);
const struct nb_event_desc *nb_table_get(const struct nb_table *t, size_t i);

const struct nb_alias *nb_table_find_alias(const struct nb_table *t, const char *name);
size_t nb_table_alias_count(const struct nb_table *t);
const struct nb_alias *nb_table_alias(const struct nb_table *t, size_t i);

/* The mask named @name (case-insensitive) of @ev, or NULL. */
const struct nb_mask *nb_event_mask(const struct nb_event_desc *ev, const char *name);
/* Whether @ev exists on model @model. */
bool nb_event_on_model(const struct nb_event_desc *ev, unsigned model);
/* "NBOGUSNTAG:NBOGUSTAG" (@sep ':') for the bits of @mask into @buf ("bitN" for unnamed bits). */
const char *nb_mask_names(const struct nb_event_desc *ev, uint16_t mask, char sep, char *buf,
			  size_t size);

#endif
