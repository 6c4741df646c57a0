/*
 * nb_test_util.h - shared by the NetBurst unit tests: load the shipped
 * table and resolve -e specs against it, failing the test on error.
 */
#ifndef PMUSTAT_NB_TEST_UTIL_H
#define PMUSTAT_NB_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>

#include "pmus/netburst/nb_spec.h"
#include "pmus/netburst/nb_table.h"
#include "base/err.h"

static inline struct nb_table *
nb_test_table(const char *events_dir)
{
	struct nb_table *t;
	struct pmustat_error *err = NULL;

	if (nb_table_load(events_dir, "netburst", &t, &err) != 0)
		fail_msg("%s", err_msg(err));
	err_clear(&err);
	return t;
}

/* @spec on a model-@model CPU; *@n events, free() them. */
static inline struct nb_event *
nb_test_events(const struct nb_table *t, const char *spec, unsigned model, size_t *n)
{
	struct nb_event *ev;
	struct pmustat_error *err = NULL;

	if (nb_spec_parse(spec, t, model, &ev, n, &err) != 0)
		fail_msg("%s: %s", spec, err_msg(err));
	err_clear(&err);
	return ev;
}

/*
 * main() of a test that needs the table: argv[1] is the events directory;
 * *@table is loaded for @tests and freed after.
 */
static inline int
nb_test_main(int argc, char **argv, const struct CMUnitTest *tests, size_t n,
	     struct nb_table **table)
{
	int ret;

	if (argc != 2) {
		fprintf(stderr, "usage: %s EVENTS_DIR\n", argv[0]);
		return 2;
	}
	*table = nb_test_table(argv[1]);
	ret = _cmocka_run_group_tests(argv[0], tests, n, NULL, NULL);
	nb_table_free(*table);
	return ret;
}

#endif
