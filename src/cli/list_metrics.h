/*
 * list_metrics.h - `pmustat list --metrics`: the metrics of one metric
 * table (src/metrics/), filtered like the events, as text or JSON.
 */
#ifndef PMUSTAT_LIST_METRICS_H
#define PMUSTAT_LIST_METRICS_H

#include <stdbool.h>
#include <stddef.h>

struct pmustat_error;

struct list_metrics_opts {
	const char *pattern;
	bool long_format;
	bool json;
};

/* The pattern rule of `pmustat list` (cmd_list.c): substring or glob, any case. */
bool list_text_matches(const char *pattern, const char *text);
/* The same over a thing's @n texts (NULL ones skipped); several words: each in one of them. */
bool list_texts_match(const char *pattern, const char *const *texts, size_t n);
/*
 * How many metrics of @events_dir/metrics/@name.json @pattern matches, for
 * the hint of a listing of events (0 when there is no such table).
 */
unsigned list_metrics_matching(const char *events_dir, const char *name, const char *pattern);

/*
 * Print the metrics of @events_dir/metrics/@name.json that match. @name
 * empty: this CPU has none (@why says why): a warning, and an empty
 * listing. Returns 0, or a negative errno with @err (-EIO: stdout failed).
 */
int list_metrics(const char *events_dir, const char *name, const char *why,
		 const struct list_metrics_opts *o, struct pmustat_error **err);

#endif
