/*
 * metric-eval EVENTS_DIR: evaluate metrics with pmustat's own evaluator, for
 * tests/metrics/check_metric_reference.py, which evaluates the same formulas
 * independently (Python's own parser) and compares.
 *
 * Each input line is "TABLE METRIC SMT V1 V2 ... Vn": the metric of
 * events/metrics/TABLE.json with HYPERTHREADING_ON = SMT and Vi the value of
 * its i-th event (Intel's order, the "e" list). The other constants are
 * fixed (see consts_for()). Each output line is "value %.17g" or
 * "null REASON". Exit 0 after the last line, 1 on a malformed line or a
 * table that does not load.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/metric_expr.h"
#include "metrics/metric_table.h"
#include "base/err.h"

#define MAX_TABLES 64
#define MAX_VALUES 256

static struct {
	char name[128];
	struct metric_table *t;
} tables[MAX_TABLES];
static unsigned n_tables;

static struct metric_table *
table(const char *dir, const char *name)
{
	struct pmustat_error *err = NULL;

	for (unsigned i = 0; i < n_tables; i++)
		if (strcmp(tables[i].name, name) == 0)
			return tables[i].t;
	if (n_tables == MAX_TABLES)
		return NULL;
	if (metric_table_load(dir, name, &tables[n_tables].t, &err) != 0) {
		fprintf(stderr, "metric-eval: %s\n", err_msg(err));
		return NULL;
	}
	snprintf(tables[n_tables].name, sizeof(tables[n_tables].name), "%s", name);
	err_clear(&err);
	return tables[n_tables++].t;
}

/* The constants the Python side uses too. */
static void
consts_for(int smt, struct metric_consts *c)
{
	memset(c, 0, sizeof(*c));
	c->value[METRIC_CONST_SMT_ON] = smt;
	c->value[METRIC_CONST_THREADS] = smt ? 2 : 1;
	c->value[METRIC_CONST_DURATION_MS] = 1500;
	c->value[METRIC_CONST_DURATION_S] = 1.5;
	c->value[METRIC_CONST_TSC_FREQ] = 2.5e9;
	c->value[METRIC_CONST_SOCKETS] = 2;
	c->value[METRIC_CONST_CORES_PER_SOCKET] = 4;
	c->value[METRIC_CONST_CHAS_PER_SOCKET] = 10;
	c->value[METRIC_CONST_CPUS] = 16;
	c->known = (1u << METRIC_CONST_COUNT) - 1;
}

int
main(int argc, char **argv)
{
	char line[1 << 16];
	unsigned lineno = 0;
	int status = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: metric-eval EVENTS_DIR < cases\n");
		return 2;
	}
	while (fgets(line, sizeof(line), stdin)) {
		char *save = NULL, *tname = strtok_r(line, " \n", &save);
		char *mname = strtok_r(NULL, " \n", &save), *smt = strtok_r(NULL, " \n", &save), *tok;
		double values[MAX_VALUES];
		unsigned n = 0;
		struct metric_table *t;
		const struct metric_desc *d;
		struct metric_consts c;
		struct metric_result r;
		struct metric_env env;
		long k;

		lineno++;
		if (!tname || !mname || !smt) {
			fprintf(stderr, "metric-eval: line %u: want TABLE METRIC SMT VALUES...\n", lineno);
			return 1;
		}
		t = table(argv[1], tname);
		if (!t)
			return 1;
		k = metric_table_find(t, mname);
		if (k < 0) {
			fprintf(stderr, "metric-eval: line %u: no metric %s in %s\n", lineno, mname, tname);
			return 1;
		}
		d = metric_table_get(t, (size_t)k);
		while ((tok = strtok_r(NULL, " \n", &save)) != NULL && n < MAX_VALUES)
			values[n++] = strtod(tok, NULL);
		if (n != d->n_events) {
			fprintf(stderr, "metric-eval: line %u: %s has %u events, %u values given\n",
				lineno, mname, d->n_events, n);
			return 1;
		}
		consts_for(atoi(smt), &c);
		env = (struct metric_env){ values, n, d->events, &c };
		metric_expr_eval(d->formula, &env, &r);
		if (r.valid)
			printf("value %.17g\n", r.value);
		else
			printf("null %s\n", r.why);
	}
	for (unsigned i = 0; i < n_tables; i++)
		metric_table_free(tables[i].t);
	if (fflush(stdout) != 0)
		status = 1;
	return status;
}
