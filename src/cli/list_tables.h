/*
 * list_tables.h - `pmustat list --tables`: the event tables pmustat has
 * (the *.json files of the events directory) and the CPUs the mapfile
 * gives each; and "did you mean" for a mistyped --table NAME.
 */
#ifndef PMUSTAT_LIST_TABLES_H
#define PMUSTAT_LIST_TABLES_H

#include <stdbool.h>

struct pmustat_error;

/*
 * Print the tables of @events_dir whose name or CPUs match @pattern (NULL:
 * all), as text or JSON. 0, or a negative errno with @err.
 */
int list_tables(const char *events_dir, const char *pattern, bool json, struct pmustat_error **err);

/* Append "; did you mean A, B?" naming the tables of @events_dir closest to @typed to @err. */
void list_tables_suggest(const char *events_dir, const char *typed, struct pmustat_error **err);

#endif
