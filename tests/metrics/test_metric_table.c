/*
 * metric_table_load over every shipped metric table (every formula and
 * threshold of every metric parses), and what -M names: Intel's names and
 * groups, perf's spellings, unions, duplicates, "did you mean", and the
 * errors of broken tables.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "metrics/metric_expr.h"
#include "metrics/metric_table.h"
#include "base/err.h"

static const char *events_dir;

/* Every metrics/<name>.json loads, with as many metrics as the file lists. */
static void
test_every_table_parses(void **state)
{
	struct pmustat_error *err = NULL;
	char dir[PATH_MAX];
	struct dirent *de;
	unsigned tables = 0, metrics = 0, thresholds = 0, nodes = 0;
	DIR *d;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/metrics", events_dir);
	d = opendir(dir);
	assert_non_null(d);
	while ((de = readdir(d)) != NULL) {
		size_t len = strlen(de->d_name);
		char name[256], path[PATH_MAX + 256];
		struct metric_table *t;
		json_t *root;
		size_t want;

		if (len < 6 || strcmp(de->d_name + len - 5, ".json") != 0)
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)(len - 5), de->d_name);
		if (metric_table_load(events_dir, name, &t, &err) != 0)
			fail_msg("%s", err_msg(err));
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		root = json_load_file(path, 0, NULL);
		assert_non_null(root);
		want = json_array_size(json_object_get(root, "metrics"));
		json_decref(root);
		assert_int_equal(metric_table_count(t), want);
		assert_string_equal(metric_table_name(t), name);
		for (size_t i = 0; i < want; i++) {
			const struct metric_desc *m = metric_table_get(t, i);

			assert_non_null(m->formula);
			assert_true(m->level >= 1);
			assert_int_equal(metric_table_find(t, m->name), (long)i);
			if (m->perf_name)
				assert_int_equal(metric_table_find(t, m->perf_name), (long)i);
			if (m->threshold_text) {
				assert_non_null(m->threshold);
				thresholds++;
			}
			nodes += metric_expr_size(m->formula);
		}
		metrics += (unsigned)want;
		tables++;
		metric_table_free(t);
	}
	closedir(d);
	print_message("%u tables, %u metrics (%u thresholds, %u formula nodes) parsed\n",
		      tables, metrics, thresholds, nodes);
	assert_int_equal(tables, 21);
	assert_int_equal(metrics, 4403);
	err_clear(&err);
}

static struct metric_table *
load(const char *name)
{
	struct metric_table *t;
	struct pmustat_error *err = NULL;

	if (metric_table_load(events_dir, name, &t, &err) != 0)
		fail_msg("%s", err_msg(err));
	err_clear(&err);
	return t;
}

/* The names of the list, "A,B,C". */
static const char *
names(const struct metric_table *t, const struct metric_list *l)
{
	static char buf[8192];
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < l->n && used < sizeof(buf); i++)
		used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%s", i ? "," : "",
					 metric_table_get(t, l->metric[i])->name);
	return buf;
}

static const char *
select_names(const struct metric_table *t, const char *spec)
{
	struct metric_list l = { 0, 0, NULL };
	struct pmustat_error *err = NULL;
	static char out[8192];

	if (metric_table_select(t, spec, &l, &err) != 0)
		fail_msg("-M %s: %s", spec, err_msg(err));
	snprintf(out, sizeof(out), "%s", names(t, &l));
	metric_list_free(&l);
	err_clear(&err);
	return out;
}

static void
test_names_and_groups(void **state)
{
	struct metric_table *t = load("skylake");
	const struct metric_desc *d;

	(void)state;
	/* Intel's names in any case, perf's names. */
	assert_string_equal(select_names(t, "Frontend_Bound"), "Frontend_Bound");
	assert_string_equal(select_names(t, "frontend_bound"), "Frontend_Bound");
	assert_string_equal(select_names(t, "tma_frontend_bound"), "Frontend_Bound");
	assert_string_equal(select_names(t, "Info_Thread_IPC"), "Info_Thread_IPC");
	assert_string_equal(select_names(t, "tma_info_thread_ipc"), "Info_Thread_IPC");
	d = metric_table_get(t, (size_t)metric_table_find(t, "Info_Thread_IPC"));
	assert_string_equal(d->perf_name, "tma_info_thread_ipc");
	assert_false(d->tree);
	assert_string_equal(d->unit, "");
	d = metric_table_get(t, (size_t)metric_table_find(t, "Frontend_Bound"));
	assert_true(d->tree);
	assert_string_equal(d->unit, "percent");
	assert_int_equal(d->level, 1);
	assert_non_null(d->threshold);
	/* Intel's TmaL1 has Info metrics too; perf's TopdownL1 is the tree's top. */
	assert_string_equal(select_names(t, "TmaL1"),
			    "Frontend_Bound,Bad_Speculation,Backend_Bound,Retiring,"
			    "Info_Thread_SLOTS,Info_Core_CoreIPC,Info_Inst_Mix_Instructions");
	assert_string_equal(select_names(t, "TopdownL1"),
			    "Frontend_Bound,Bad_Speculation,Backend_Bound,Retiring");
	assert_string_equal(select_names(t, "tma_L1_group"), select_names(t, "topdownl1"));
	assert_string_equal(select_names(t, "TopdownL2"),
			    "Fetch_Latency,Fetch_Bandwidth,Branch_Mispredicts,Machine_Clears,"
			    "Memory_Bound,Core_Bound,Light_Operations,Heavy_Operations");
	/* perf's children of a node. */
	assert_string_equal(select_names(t, "tma_frontend_bound_group"),
			    "Fetch_Latency,Fetch_Bandwidth");
	/* Lists, repeated names and overlapping groups: each metric once, first mention first. */
	assert_string_equal(select_names(t, "Retiring, Frontend_Bound,TopdownL1,retiring"),
			    "Retiring,Frontend_Bound,Bad_Speculation,Backend_Bound");
	/* A name that is also a group gives both, as perf. */
	assert_true(strncmp(select_names(t, "DSB"), "DSB,", 4) == 0 ||
		    strstr(select_names(t, "DSB"), ",DSB"));
	assert_true(strchr(select_names(t, "DSB"), ',') != NULL);
	metric_table_free(t);
}

static void
test_select_errors(void **state)
{
	struct metric_table *t = load("skylake");
	struct metric_list l = { 0, 0, NULL };
	struct pmustat_error *err = NULL;

	(void)state;
	assert_int_equal(metric_table_select(t, "Frontend_Bond", &l, &err), -EINVAL);
	assert_string_equal(err_msg(err), "unknown metric or metric group 'Frontend_Bond' for skylake; did you mean Frontend_Bound?");
	assert_int_equal(metric_table_select(t, "TopDownL7", &l, &err), -EINVAL);
	assert_non_null(strstr(err_msg(err), "did you mean TopdownL1"));
	assert_int_equal(metric_table_select(t, "TmaL9", &l, &err), -EINVAL);
	assert_non_null(strstr(err_msg(err), "TmaL1"));
	assert_int_equal(metric_table_select(t, "Summary,,IPC", &l, &err), -EINVAL);
	assert_non_null(strstr(err_msg(err), "empty metric name"));
	assert_int_equal(metric_table_select(t, "", &l, &err), -EINVAL);
	/* A bad term later in the list leaves the list as it was. */
	assert_int_equal(metric_table_select(t, "Retiring,nonsense_xyz", &l, &err),
			 -EINVAL);
	assert_int_equal(l.n, 0);
	assert_non_null(strstr(err_msg(err), "'nonsense_xyz'"));
	assert_null(strstr(err_msg(err), "did you mean"));
	/* Repeated -M: one list. */
	assert_int_equal(metric_table_select(t, "TopdownL1", &l, &err), 0);
	assert_int_equal(metric_table_select(t, "Frontend_Bound,Info_Thread_IPC", &l, &err), 0);
	assert_string_equal(names(t, &l), "Frontend_Bound,Bad_Speculation,Backend_Bound,Retiring,"
			    "Info_Thread_IPC");
	metric_list_free(&l);
	metric_table_free(t);
	err_clear(&err);
}

/* A table in a temporary events dir. */
static int
load_text(const char *json, struct pmustat_error **err)
{
	char dir[] = "/tmp/pmustat-metrics-XXXXXX", path[PATH_MAX];
	struct metric_table *t = NULL;
	FILE *f;
	int ret;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/metrics", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/metrics/x.json", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(json, f);
	fclose(f);
	ret = metric_table_load(dir, "x", &t, err);
	assert_true(ret == 0 ? t != NULL : t == NULL);
	metric_table_free(t);
	unlink(path);
	snprintf(path, sizeof(path), "%s/metrics", dir);
	rmdir(path);
	rmdir(dir);
	return ret;
}

#define HEAD "{\"format_version\":1,\"table\":\"x\",\"metrics\":["

static void
test_bad_tables(void **state)
{
	static const struct {
		const char *json, *error;
	} bad[] = {
		{ "{\"format_version\":2,\"table\":\"x\",\"metrics\":[]}", "format_version is not 1" },
		{ "{\"format_version\":1,\"table\":\"y\",\"metrics\":[]}", "\"table\" is not 'x'" },
		{ HEAD "{\"n\":\"A\",\"l\":1,\"f\":\"a/\",\"e\":\"a=X\"}]}",
		  "metric 0 (A): formula: column 3: the formula ends where a value was expected" },
		{ HEAD "{\"n\":\"A\",\"l\":1,\"f\":\"a/b\",\"e\":\"a=X\"}]}",
		  "formula: column 3: unknown name 'b'" },
		{ HEAD "{\"n\":\"A\",\"l\":1,\"f\":\"a\",\"e\":\"a=X;b\"}]}",
		  "\"e\" (events): is not \"alias=NAME;...\"" },
		{ HEAD "{\"n\":\"A\",\"l\":1,\"f\":\"k\",\"k\":\"k=NO_SUCH\"}]}",
		  "unknown constant 'NO_SUCH'" },
		{ HEAD "{\"n\":\"A\",\"l\":0,\"f\":\"1\"}]}", "\"l\" (level) is not 1-16" },
		{ HEAD "{\"n\":\"A\",\"l\":1,\"f\":\"1\"},{\"n\":\"a\",\"l\":1,\"f\":\"2\"}]}",
		  "metric 1 (a): name: given to two metrics" },
		{ HEAD "{\"n\":\"A\",\"l\":1,\"f\":\"1\",\"t\":\"a > 1\",\"tm\":\"a=B\"}]}",
		  "threshold: names unknown metric 'B'" },
		{ HEAD "{\"n\":\"A\",\"l\":1,\"f\":\"1\",\"t\":\"b > 1\",\"tm\":\"a=A\"}]}",
		  "threshold: column 1: unknown name 'b'" },
		{ HEAD "{\"l\":1,\"f\":\"1\"}]}", "a metric without a name" },
	};
	struct pmustat_error *err = NULL;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err_clear(&err);
		if (load_text(bad[i].json, &err) != -EINVAL || !strstr(err_msg(err), bad[i].error))
			fail_msg("case %zu: \"%s\", want \"%s\"", i, err_msg(err), bad[i].error);
	}
	assert_int_equal(load_text(HEAD "{\"n\":\"A\",\"l\":1,\"f\":\"a*k\",\"e\":\"a=X\","
				   "\"k\":\"k=20\",\"t\":\"a>1\",\"tm\":\"a=A\"}]}", &err), 0);
	{
		struct metric_table *t;

		assert_int_equal(metric_table_load("/nonexistent-pmustat", "skylake", &t, &err), -ENOENT);
		assert_non_null(strstr(err_msg(err), "/nonexistent-pmustat/metrics/skylake.json"));
		assert_int_equal(metric_table_load(events_dir, "../skylake", &t, &err),
				 -EINVAL);
	}
	err_clear(&err);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_table_parses),
		cmocka_unit_test(test_names_and_groups),
		cmocka_unit_test(test_select_errors),
		cmocka_unit_test(test_bad_tables),
	};

	if (argc != 2) {
		fprintf(stderr, "usage: %s EVENTS_DIR\n", argv[0]);
		return 2;
	}
	events_dir = argv[1];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
