/*
 * nb_list.h - `pmustat list` for a NetBurst table: each event with its
 * description and, in the long form, its ESCR event select, the ESCRs
 * that can select it and the counters they feed, the CCCR ESCR-select
 * value and its mask bits; then the table's aliases. Presentation only.
 */
#ifndef PMUSTAT_NB_LIST_H
#define PMUSTAT_NB_LIST_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

struct nb_table;

/*
 * Whether @pattern selects @text: NULL selects all, a pattern with * ? [
 * is a glob, anything else a substring; both ignore case.
 */
typedef bool (*nb_list_match_fn)(const char *pattern, const char *text);

/* Print the events and aliases @match selects; returns how many were shown. */
unsigned nb_list_text(FILE *out, const struct nb_table *t, const char *pattern,
		      nb_list_match_fn match, bool long_format);

/* The same as two JSON arrays, set on @root as "events" and "aliases". */
void nb_list_json(json_t *root, const struct nb_table *t, const char *pattern,
		  nb_list_match_fn match);

#endif
