/*
 * nb_test_util.h - shared by the NetBurst unit tests: load the shipped
 * table and resolve -e specs against it, failing the test on error.
 */
#ifndef PMUSTAT_NB_TEST_UTIL_H
#define PMUSTAT_NB_TEST_UTIL_H

#include <stdlib.h>

#include "netburst/nb_spec.h"
#include "netburst/nb_table.h"

static inline struct nb_table *
nb_test_table(const char *events_dir)
{
	struct nb_table *t;
	char err[512];

	if (nb_table_load(events_dir, "netburst", &t, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	return t;
}

/* @spec on a model-@model CPU; *@n events, free() them. */
static inline struct nb_event *
nb_test_events(const struct nb_table *t, const char *spec, unsigned model, size_t *n)
{
	struct nb_event *ev;
	char err[512];

	if (nb_spec_parse(spec, t, model, &ev, n, err, sizeof(err)) != 0)
		fail_msg("%s: %s", spec, err);
	return ev;
}

#endif
