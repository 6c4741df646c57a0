/*
 * test_baseline.c - baseline files (untrusted: every field checked, the
 * file and the field named), tolerances, and the comparison.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "report/baseline.h"
#include "base/err.h"

static char dir[] = "/tmp/pmustat-baseline-XXXXXX";
static char path[sizeof(dir) + 32];

static int
setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/b.json", dir);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	unlink(path);
	rmdir(dir);
	return 0;
}

static void
write_file(const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

#define HEAD "{\"format_version\": 1, \"cpu\": \"Intel i7-6700K\", \"cpu_model\": \"GenuineIntel-6-5E\", " \
	"\"event_table\": \"skylake\", \"exit_status\": 0, \"error\": null, "

static const char good[] = HEAD "\"events\": ["
	"{\"name\": \"INST_RETIRED.ANY\", \"requested\": \"instructions\", \"value\": 1000, \"stats\": null},"
	"{\"name\": \"LONGEST_LAT_CACHE.MISS\", \"requested\": \"LONGEST_LAT_CACHE.MISS\", \"value\": 200,"
	" \"stats\": {\"median\": 200.5}},"
	"{\"name\": \"BR_INST_RETIRED.ALL_BRANCHES\", \"requested\": \"BR_INST_RETIRED.ALL_BRANCHES\", \"value\": null},"
	"{\"name\": \"INST_RETIRED.ANY\", \"requested\": \"INST_RETIRED.ANY:k\", \"value\": 0}]}";

static void
test_load_good(void **state)
{
	static struct baseline b;
	struct pmustat_error *err = NULL;

	(void)state;
	write_file(good);
	assert_int_equal(baseline_load(path, &b, &err), 0);
	assert_string_equal(b.cpu_model, "GenuineIntel-6-5E");
	assert_string_equal(b.event_table, "skylake");
	assert_int_equal(b.nevents, 4);
	assert_true(b.events[0].counted);
	assert_true(b.events[0].value == 1000);
	/* With -r, the median. */
	assert_true(b.events[1].value == 200.5);
	assert_false(b.events[2].counted);
	err_clear(&err);
	baseline_free(&b);
}

/* -M's metrics follow the events (and regions), by name; a metric's value may be a fraction, < 0 or null. */
static void
test_load_metrics(void **state)
{
	static struct baseline b;
	struct pmustat_error *err = NULL;
	static const struct baseline_event cur[] = {
		{ "INST_RETIRED.ANY", "instructions", true, 1000 },
		{ "Info_Thread_IPC", "Info_Thread_IPC", true, 2.6 },
		{ "Delta", "Delta", true, -3 },
	};
	struct baseline_tolerances t = { 0 };
	struct baseline_cmp out[3];

	(void)state;
	write_file(HEAD "\"events\": [{\"name\": \"INST_RETIRED.ANY\", \"requested\": \"instructions\", \"value\": 1000}],"
		   " \"metrics\": [{\"name\": \"Info_Thread_IPC\", \"value\": 2.5}, {\"name\": \"Delta\", \"value\": -4},"
		   " {\"name\": \"Frontend_Bound\", \"value\": null}]}");
	assert_int_equal(baseline_load(path, &b, &err), 0);
	assert_int_equal(b.nevents, 4);
	assert_string_equal(b.events[1].requested, "Info_Thread_IPC");
	assert_true(b.events[1].counted && b.events[1].value == 2.5);
	assert_true(b.events[2].value == -4);
	assert_false(b.events[3].counted);
	/* IPC grew 4 %: fails at 0 %; -3 against -4 grew by a quarter of |-4|. */
	assert_int_equal(baseline_compare(&b, cur, 3, &t, out), 2);
	assert_true(out[1].in_baseline && !out[1].passed);
	assert_true(fabs(out[1].change_percent - 4.0) < 1e-9);
	assert_true(out[2].change_percent == 25.0);
	assert_int_equal(baseline_parse_tolerance("Info_Thread_IPC=5%", &t, &err), 0);
	assert_int_equal(baseline_compare(&b, cur, 3, &t, out), 1);
	assert_true(out[1].passed);
	err_clear(&err);
	baseline_free(&b);
}

static const struct {
	const char *text;
	const char *msg;
} bad[] = {
	{ "", "not JSON" },
	{ "[1, 2]", "not a JSON object" },
	{ "{\"format_version\": 1, \"format_version\": 1}", "not JSON" },	/* duplicate key */
	{ "{}", "format_version: missing" },
	{ "{\"format_version\": \"1\"}", "format_version: missing or not an integer" },
	{ "{\"format_version\": 99}", "format_version: 99" },
	{ "{\"format_version\": 1}", "exit_status: missing" },
	{ "{\"format_version\": 1, \"exit_status\": 3, \"error\": null}", "exit_status: 3: the run it records failed" },
	{ "{\"format_version\": 1, \"exit_status\": 0, \"error\": \"x\"}", "the run it records failed" },
	{ "{\"format_version\": 1, \"exit_status\": 0, \"error\": null}", "cpu_model: missing" },
	{ "{\"format_version\": 1, \"exit_status\": 0, \"error\": null, \"cpu_model\": 5}", "cpu_model: not a string" },
	{ HEAD "\"events\": 5}", "events: missing or not an array" },
	{ HEAD "\"events\": [5]}", "events[0]: not an object" },
	{ HEAD "\"events\": [{\"requested\": \"x\", \"value\": 1}]}", "events[0].name: missing" },
	{ HEAD "\"events\": [{\"name\": \"\", \"requested\": \"x\", \"value\": 1}]}", "events[0].name: empty" },
	{ HEAD "\"events\": [{\"name\": \"x\", \"requested\": \"x\"}]}", "events[0].value: missing" },
	{ HEAD "\"events\": [{\"name\": \"x\", \"requested\": \"x\", \"value\": -1}]}", "events[0].value: not a count" },
	{ HEAD "\"events\": [{\"name\": \"x\", \"requested\": \"x\", \"value\": 1.5}]}", "events[0].value: not a count" },
	{ HEAD "\"events\": [{\"name\": \"x\", \"requested\": \"x\", \"value\": 1, \"stats\": 3}]}", "events[0].stats: not an object" },
	{ HEAD "\"events\": [{\"name\": \"x\", \"requested\": \"x\", \"value\": 1, \"stats\": {}}]}", "events[0].stats.median" },
	{ HEAD "\"events\": [{\"name\": \"x\", \"requested\": \"x\", \"value\": 1, \"stats\": {\"median\": -2}}]}", "events[0].stats.median" },
	{ HEAD "\"events\": [{\"name\": \"a\\u0000b\", \"requested\": \"x\", \"value\": 1}]}", "not JSON" },	/* jansson refuses \\u0000 */
	{ HEAD "\"events\": [], \"metrics\": 3}", "metrics: not an array" },
	{ HEAD "\"events\": [], \"metrics\": [2]}", "metrics[0]: not an object" },
	{ HEAD "\"events\": [], \"metrics\": [{\"value\": 1}]}", "metrics[0].name: missing" },
	{ HEAD "\"events\": [], \"metrics\": [{\"name\": \"IPC\"}]}", "metrics[0].value: missing" },
	{ HEAD "\"events\": [], \"metrics\": [{\"name\": \"IPC\", \"value\": \"2\"}]}", "metrics[0].value: not a number" },
};

static void
test_load_bad(void **state)
{
	static struct baseline b;
	struct pmustat_error *err = NULL;
	char want[600];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		write_file(bad[i].text);
		if (baseline_load(path, &b, &err) != -EINVAL)
			fail_msg("'%s' loaded", bad[i].text);
		snprintf(want, sizeof(want), "baseline %s: ", path);
		if (strncmp(err_msg(err), want, strlen(want)) != 0 || !strstr(err_msg(err), bad[i].msg))
			fail_msg("'%s': '%s', want '%s' and '%s'", bad[i].text, err_msg(err), want, bad[i].msg);
	}
	err_clear(&err);
}

static void
test_long_name_refused(void **state)
{
	static struct baseline b;
	struct pmustat_error *err = NULL;
	char text[1024], name[300];

	(void)state;
	memset(name, 'A', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	snprintf(text, sizeof(text), HEAD "\"events\": [{\"name\": \"%s\", \"requested\": \"x\", \"value\": 1}]}", name);
	write_file(text);
	assert_int_equal(baseline_load(path, &b, &err), -EINVAL);
	assert_non_null(strstr(err_msg(err), "events[0].name: longer than"));
	err_clear(&err);
}

static void
test_too_many_events(void **state)
{
	static struct baseline b;
	size_t size = 64 * (BASELINE_MAX_EVENTS + 2) + 512, n;
	struct pmustat_error *err = NULL;
	char *text = malloc(size);

	(void)state;
	assert_non_null(text);
	n = (size_t)snprintf(text, size, HEAD "\"events\": [");
	for (unsigned i = 0; i <= BASELINE_MAX_EVENTS; i++)
		n += (size_t)snprintf(text + n, size - n, "%s{\"name\": \"E%u\", \"requested\": \"E\", \"value\": 1}",
				      i ? "," : "", i);
	snprintf(text + n, size - n, "]}");
	write_file(text);
	free(text);
	assert_int_equal(baseline_load(path, &b, &err), -EINVAL);
	assert_non_null(strstr(err_msg(err), "events: 257 entries"));
	err_clear(&err);
}

/* Above 16 MiB: refused from its size, before anything is read. */
static void
test_size_limit(void **state)
{
	static struct baseline b;
	struct pmustat_error *err = NULL;
	int fd;

	(void)state;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)BASELINE_MAX_BYTES + 1), 0);
	close(fd);
	assert_int_equal(baseline_load(path, &b, &err), -EFBIG);
	assert_non_null(strstr(err_msg(err), "at most 16 MiB"));
	unlink(path);
	assert_int_equal(baseline_load(path, &b, &err), -ENOENT);
	assert_non_null(strstr(err_msg(err), "cannot open"));
	assert_int_equal(baseline_load(dir, &b, &err), -EINVAL);
	assert_non_null(strstr(err_msg(err), "not a regular file"));
	err_clear(&err);
}

static void
test_tolerances(void **state)
{
	struct baseline_tolerances t;
	struct baseline_event inst = { .name = "INST_RETIRED.ANY", .requested = "instructions" };
	struct baseline_event llc = { .name = "LONGEST_LAT_CACHE.MISS", .requested = "LONGEST_LAT_CACHE.MISS" };
	struct pmustat_error *err = NULL;

	(void)state;
	memset(&t, 0, sizeof(t));
	assert_true(baseline_tolerance_for(&t, &inst) == 0);
	assert_int_equal(baseline_parse_tolerance("2%", &t, &err), 0);
	assert_true(t.default_percent == 2);
	assert_int_equal(baseline_parse_tolerance("2.5", &t, &err), 0);
	assert_true(t.default_percent == 2.5);
	assert_int_equal(baseline_parse_tolerance("INST_RETIRED.ANY=1%", &t, &err), 0);
	assert_true(baseline_tolerance_for(&t, &inst) == 1);
	assert_true(baseline_tolerance_for(&t, &llc) == 2.5);
	assert_int_equal(baseline_parse_tolerance("instructions=0.5%", &t, &err), 0);
	assert_true(baseline_tolerance_for(&t, &inst) == 0.5);
	assert_int_equal(baseline_parse_tolerance("x", &t, &err), -EINVAL);
	assert_non_null(strstr(err_msg(err), "--tolerance x"));
	assert_int_equal(baseline_parse_tolerance("-1%", &t, &err), -EINVAL);
	assert_int_equal(baseline_parse_tolerance("2%%", &t, &err), -EINVAL);
	assert_int_equal(baseline_parse_tolerance("=1%", &t, &err), -EINVAL);
	assert_int_equal(baseline_parse_tolerance("A=", &t, &err), -EINVAL);
	assert_int_equal(baseline_parse_tolerance("nan", &t, &err), -EINVAL);
	err_clear(&err);
}

static void
test_compare(void **state)
{
	static struct baseline b;
	struct baseline_tolerances t;
	struct baseline_cmp out[6];
	struct baseline_event cur[6] = {
		{ .name = "INST_RETIRED.ANY", .requested = "INST_RETIRED.ANY", .counted = true, .value = 1020 },
		{ .name = "LONGEST_LAT_CACHE.MISS", .requested = "LONGEST_LAT_CACHE.MISS", .counted = true, .value = 150 },
		{ .name = "BR_INST_RETIRED.ALL_BRANCHES", .requested = "BR_INST_RETIRED.ALL_BRANCHES", .counted = true, .value = 5 },
		{ .name = "INST_RETIRED.ANY", .requested = "INST_RETIRED.ANY:k", .counted = true, .value = 3 },
		{ .name = "NEW.EVENT", .requested = "NEW.EVENT", .counted = true, .value = 9 },
		{ .name = "INST_RETIRED.ANY", .requested = "instructions", .counted = false },
	};
	struct pmustat_error *err = NULL;

	(void)state;
	write_file(good);
	assert_int_equal(baseline_load(path, &b, &err), 0);
	memset(&t, 0, sizeof(t));
	assert_int_equal(baseline_parse_tolerance("2%", &t, &err), 0);
	/*
	 * INST_RETIRED.ANY matches "instructions" by its resolved name: +2%
	 * passes at 2%; LLC shrank 25% (passes one-sided); branches were not
	 * counted then; :k grew from 0; NEW is not in the baseline; the last
	 * was not counted now.
	 */
	assert_int_equal(baseline_compare(&b, cur, 6, &t, out), 3);
	assert_true(out[0].in_baseline && out[0].counted && out[0].passed);
	assert_true(out[0].change_percent == 2.0);
	assert_true(out[0].base == 1000);
	assert_true(out[1].passed);
	assert_true(fabs(out[1].change_percent - 100.0 * (150 - 200.5) / 200.5) < 1e-9);
	assert_false(out[2].passed);
	assert_false(out[2].counted);
	assert_false(out[3].passed);
	assert_true(isinf(out[3].change_percent));
	assert_false(out[4].in_baseline);
	assert_true(out[4].passed);
	assert_false(out[5].passed);

	/* Just above the tolerance fails; --tolerance-both fails the shrink too. */
	cur[0].value = 1020.1;
	t.both = true;
	assert_int_equal(baseline_compare(&b, cur, 2, &t, out), 2);
	assert_false(out[0].passed);
	assert_false(out[1].passed);
	/* A per-event tolerance lets LLC shrink 30%. */
	assert_int_equal(baseline_parse_tolerance("LONGEST_LAT_CACHE.MISS=30%", &t, &err), 0);
	assert_int_equal(baseline_compare(&b, cur + 1, 1, &t, out), 0);
	assert_true(out[0].tolerance_percent == 30);
	err_clear(&err);
	baseline_free(&b);
}

/* -e cycles,cycles: the k-th occurrence now is compared with the k-th then. */
static void
test_compare_event_listed_twice(void **state)
{
	static struct baseline b;
	struct baseline_tolerances t;
	struct baseline_cmp out[2];
	struct baseline_event cur[2] = {
		{ .name = "CORE_CYCLES", .requested = "cycles", .counted = true, .value = 100 },
		{ .name = "CORE_CYCLES", .requested = "cycles", .counted = true, .value = 300 },
	};
	struct pmustat_error *err = NULL;

	(void)state;
	write_file(HEAD "\"events\": ["
		   "{\"name\": \"CORE_CYCLES\", \"requested\": \"cycles\", \"value\": 100},"
		   "{\"name\": \"CORE_CYCLES\", \"requested\": \"cycles\", \"value\": 300}]}");
	assert_int_equal(baseline_load(path, &b, &err), 0);
	memset(&t, 0, sizeof(t));
	assert_int_equal(baseline_compare(&b, cur, 2, &t, out), 0);
	assert_true(out[0].base == 100 && out[1].base == 300);
	/* Against itself, always passes. */
	assert_int_equal(baseline_compare(&b, b.events, b.nevents, &t, out), 0);
	cur[0].value = 300;
	cur[1].value = 100;
	assert_int_equal(baseline_compare(&b, cur, 2, &t, out), 1);
	assert_false(out[0].passed);
	err_clear(&err);
	baseline_free(&b);
}

/* Hostile paths: a FIFO does not block, a link is not followed, the file's text is not echoed. */
static void
test_hostile_paths(void **state)
{
	static struct baseline b;
	struct pmustat_error *err = NULL;
	char fifo[sizeof(dir) + 16], link[sizeof(dir) + 16];

	(void)state;
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	snprintf(link, sizeof(link), "%s/link", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(baseline_load(fifo, &b, &err), -EINVAL);
	assert_non_null(strstr(err_msg(err), "not a regular file"));
	unlink(fifo);

	write_file("TOPSECRET:$6$hash:19000\n");
	assert_int_equal(symlink(path, link), 0);
	assert_int_equal(baseline_load(link, &b, &err), -ELOOP);
	assert_non_null(strstr(err_msg(err), "is a symbolic link"));
	assert_int_equal(baseline_load(path, &b, &err), -EINVAL);
	assert_non_null(strstr(err_msg(err), "not JSON: line 1"));
	assert_null(strstr(err_msg(err), "TOPSECRET"));

	unlink(link);
	/* (--save-baseline is written as every output file is: tests/cli/test_output_path.py.) */
	write_file(good);
	assert_int_equal(baseline_load(path, &b, &err), 0);
	assert_int_equal(b.nevents, 4);
	err_clear(&err);
	baseline_free(&b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_load_good),
		cmocka_unit_test(test_load_bad),
		cmocka_unit_test(test_load_metrics),
		cmocka_unit_test(test_long_name_refused),
		cmocka_unit_test(test_too_many_events),
		cmocka_unit_test(test_size_limit),
		cmocka_unit_test(test_tolerances),
		cmocka_unit_test(test_compare),
		cmocka_unit_test(test_compare_event_listed_twice),
		cmocka_unit_test(test_hostile_paths),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
