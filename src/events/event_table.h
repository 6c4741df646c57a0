/*
 * event_table.h - one microarchitecture's core events, as converted from
 * Intel's perfmon data by scripts/perfmon2events (events/<table>.json; the
 * format is described in events/README.md).
 *
 * A table is loaded once, read-only afterwards, and looked up by event
 * name case-insensitively. Only the table the caller names is read.
 */
#ifndef PMUSTAT_EVENT_TABLE_H
#define PMUSTAT_EVENT_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pmustat_error;

struct event_table;

/* Why a table event cannot simply be counted, or how it must be. */
enum event_desc_flag {
	EVENT_DESC_PEBS_ONLY	= 1u << 0,	/* PEBS 2 / CollectPEBSRecord 3 */
	EVENT_DESC_TAKEN_ALONE	= 1u << 1,	/* no other GP event beside it */
	EVENT_DESC_DEPRECATED	= 1u << 2,	/* old name; see alias_of */
	EVENT_DESC_NO_MSR_VALUE	= 1u << 3,	/* offcore, but no response value */
};

/* One way to program an event that needs an extra MSR. */
struct event_extra {
	uint8_t code;
	uint8_t umask;
	uint32_t msr;		/* 0x1a6/0x1a7 offcore, 0x3f6, 0x3f7, ... */
	uint64_t value;
};

/*
 * One event as published. For a deprecated alias, every encoding field is
 * the new event's and alias_of is its name.
 */
struct event_desc {
	const char *name;
	const char *description;	/* brief description, never NULL */
	const char *alias_of;		/* new name when deprecated, or NULL */
	const char *errata;		/* Intel erratum IDs, or NULL */
	uint8_t code;
	uint8_t umask;
	uint8_t umask_ext;		/* UMASK2, v6 */
	uint8_t cmask;
	bool inv;
	bool edge;
	bool any_thread;
	bool equal;			/* EQ bit, v6 */
	/*
	 * fixed >= 0: the event lives only on that fixed counter (counters
	 * is then 0 and code/umask are the pseudo-encoding 0x00/fixed+1,
	 * never a PERFEVTSEL value). Otherwise the PMCs it may use, as
	 * published (bits beyond what pmustat programs included).
	 */
	int fixed;
	uint32_t counters;
	uint32_t counters_htoff;	/* with HT off (SNB…CLX), else == counters */
	/* Extra-MSR variants, any one of which counts the event; code and
	 * umask above are extra[0]'s. */
	unsigned n_extra;
	const struct event_extra *extra;
	unsigned flags;			/* enum event_desc_flag */
};

/*
 * Load the table @name: compiled at build time (share/pmustat/tables/
 * @name.pmt beside @events_dir, event_table_file.h) when there is one,
 * else @events_dir/@name.json. Returns 0 and *@out, or a negative errno
 * with @err set to "path: what" (-ENOENT: no such table; -EINVAL: not a
 * valid table, or a compiled one that is corrupt or of another format
 * version; -EMEDIUMTYPE: a table of another PMU family, which that
 * family's own loader reads (pmu/family.h, events_load); -ENOMEM).
 */
int event_table_load(const char *events_dir, const char *name,
		     struct event_table **out, struct pmustat_error **err);
/*
 * The same from the JSON alone, never the compiled table: what the build's
 * compiler (tablec) reads, and what tests compare the compiled table with.
 */
int event_table_load_json(const char *events_dir, const char *name,
			  struct event_table **out, struct pmustat_error **err);
void event_table_free(struct event_table *table);

/* Table name ("skylake"), and upstream provenance for messages. */
const char *event_table_name(const struct event_table *table);
const char *event_table_source_file(const struct event_table *table);
const char *event_table_source_version(const struct event_table *table);

/* @name case-insensitively, or NULL. */
const struct event_desc *event_table_find(const struct event_table *table,
					  const char *name);

/* Iteration in name order: 0 <= i < event_table_count(). */
size_t event_table_count(const struct event_table *table);
const struct event_desc *event_table_get(const struct event_table *table, size_t i);

#endif
