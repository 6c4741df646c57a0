/*
 * event_table_impl.h - the loaded table, shared by its two readers: the
 * JSON one (event_table.c) and the compiled one (event_table_file.c).
 * Nothing else includes it.
 */
#ifndef PMUSTAT_EVENT_TABLE_IMPL_H
#define PMUSTAT_EVENT_TABLE_IMPL_H

#include <stddef.h>

#include <jansson.h>

#include "events/event_table.h"

struct event_table {
	/* Every string in the descs points into one of these. */
	json_t *root;		/* the JSON document, or NULL */
	void *map;		/* the compiled file, mapped read-only, or NULL */
	size_t map_size;
	const char *name;
	const char *source_file;
	const char *source_version;
	size_t count;
	struct event_desc *descs;	/* sorted by name, case-insensitively */
	struct event_extra *extras;	/* owned when loaded from JSON */
};

#endif
