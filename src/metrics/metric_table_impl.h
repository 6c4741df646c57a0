/*
 * metric_table_impl.h - the insides of struct metric_table, shared by the
 * loader (metric_table.c) and the -M names (metric_select.c) only.
 */
#ifndef PMUSTAT_METRIC_TABLE_IMPL_H
#define PMUSTAT_METRIC_TABLE_IMPL_H

#include <jansson.h>
#include <stdbool.h>

#include "metrics/metric_table.h"

struct metric_info {
	struct metric_desc desc;	/* strings point into the JSON or the arena */
	struct metric_expr *formula, *threshold;
	char **events;
	unsigned *threshold_metrics;
	char *perf_name;
};

struct metric_table {
	json_t *root;			/* the JSON document, or NULL */
	/*
	 * Compiled (metric_table_file.h): strings, trees and threshold
	 * metrics point into the map, only the metrics, the event name and
	 * group arrays (in the arena) are allocated.
	 */
	bool mapped;
	void *map;
	size_t map_size;
	const char *name, *source_file, *source_version, *tma_version;
	size_t count;			/* in the file */
	size_t loaded;			/* usable: all of them once loading succeeded */
	struct metric_info *metrics;
	char **groups;			/* every group name, once (in the arena) */
	size_t n_groups;
	void **owned;			/* split copies of "e", "k", "tm" */
	size_t n_owned, cap_owned;
};

/*
 * Whether -M can name @name (metric_select.c, where its grammar is): no
 * comma, no blank at either end, shorter than a term may be. The loader
 * refuses a table with a metric that could never be selected.
 */
bool metric_name_selectable(const char *name);

/* Free @p with the table; -ENOMEM when that cannot be recorded. */
int arena_keep(struct metric_table *t, void *p);

#endif
