/*
 * event_table: every shipped table loads and is consistent; lookups ignore
 * case; broken tables are refused with the file named.
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
#include <unistd.h>

#include <cmocka.h>

#include "events/event_table.h"
#include "base/err.h"

static const char *events_dir;

static void
test_every_table(void **state)
{
	struct pmustat_error *err = NULL;
	DIR *d = opendir(events_dir);
	struct dirent *de;
	unsigned tables = 0;
	size_t events = 0;

	(void)state;
	assert_non_null(d);
	while ((de = readdir(d))) {
		err_clear(&err);
		char name[256];
		size_t len = strlen(de->d_name), i;
		struct event_table *t;
		int ret;

		if (len < 6 || strcmp(de->d_name + len - 5, ".json") != 0)
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)(len - 5), de->d_name);
		ret = event_table_load(events_dir, name, &t, &err);
		/* Another PMU's table (netburst.json) is refused as such; tests/netburst loads it. */
		if (ret == -EMEDIUMTYPE && strcmp(name, "netburst") == 0)
			continue;
		if (ret != 0)
			fail_msg("%s", err_msg(err));
		assert_string_equal(event_table_name(t), name);
		assert_true(strstr(event_table_source_file(t), "_core.json") != NULL);
		assert_true(event_table_count(t) > 100);
		for (i = 0; i < event_table_count(t); i++) {
			const struct event_desc *e = event_table_get(t, i);

			/* Sorted, unique, found by any case. */
			if (i > 0)
				assert_true(strcasecmp(event_table_get(t, i - 1)->name, e->name) < 0);
			assert_ptr_equal(event_table_find(t, e->name), e);
			if (e->fixed >= 0) {
				assert_int_equal(e->counters, 0);
				assert_int_equal(e->code, 0);
				assert_int_equal(e->umask, e->fixed + 1);
			} else {
				assert_int_not_equal(e->counters, 0);
			}
			if (e->alias_of) {
				const struct event_desc *target = event_table_find(t, e->alias_of);

				assert_non_null(target);
				assert_true(e->flags & EVENT_DESC_DEPRECATED);
				assert_int_equal(e->code, target->code);
				assert_int_equal(e->umask, target->umask);
			}
			if (e->n_extra) {
				assert_int_equal(e->extra[0].code, e->code);
				assert_int_equal(e->extra[0].umask, e->umask);
			}
		}
		assert_null(event_table_get(t, event_table_count(t)));
		events += event_table_count(t);
		tables++;
		event_table_free(t);
		err_clear(&err);
	}
	closedir(d);
	/* 47 files, 18,475 events, less CLX's 1,008 dropped names. */
	assert_int_equal(tables, 47);
	assert_int_equal(events, 18475 - 1008);
	err_clear(&err);
}

static void
test_lookup(void **state)
{
	struct event_table *t;
	const struct event_desc *e, *e2;
	struct pmustat_error *err = NULL;

	(void)state;
	assert_int_equal(event_table_load(events_dir, "skylake", &t, &err), 0);
	e = event_table_find(t, "longest_lat_cache.MISS");
	assert_non_null(e);
	assert_string_equal(e->name, "LONGEST_LAT_CACHE.MISS");
	assert_int_equal(e->code, 0x2e);
	assert_int_equal(e->umask, 0x41);
	assert_int_equal(e->counters, 0xf);
	assert_int_equal(e->counters_htoff, 0xff);
	assert_int_equal(e->fixed, -1);
	assert_string_equal(e->errata, "SKL057");
	assert_null(event_table_find(t, "LONGEST_LAT_CACHE"));
	assert_null(event_table_find(t, ""));

	/* Offcore: two codes, one per MSR. */
	e = event_table_find(t, "OFFCORE_RESPONSE.DEMAND_DATA_RD.ANY_RESPONSE");
	assert_non_null(e);
	assert_int_equal(e->n_extra, 2);
	assert_int_equal(e->extra[0].code, 0xb7);
	assert_int_equal(e->extra[0].msr, 0x1a6);
	assert_int_equal(e->extra[1].code, 0xbb);
	assert_int_equal(e->extra[1].msr, 0x1a7);
	assert_int_equal(e->extra[1].value, 0x10001);

	/* A deprecated alias carries the new event's encoding. */
	e = event_table_find(t, "L2_LINES_OUT.USELESS_PREF");
	e2 = event_table_find(t, "L2_LINES_OUT.USELESS_HWPF");
	assert_non_null(e);
	assert_non_null(e2);
	assert_string_equal(e->alias_of, "L2_LINES_OUT.USELESS_HWPF");
	assert_true(e->flags & EVENT_DESC_DEPRECATED);
	assert_int_equal(e->code, e2->code);
	assert_int_equal(e->umask, e2->umask);

	e = event_table_find(t, "CPU_CLK_UNHALTED.THREAD_ANY");
	assert_non_null(e);
	assert_int_equal(e->fixed, 1);
	assert_true(e->any_thread);
	assert_true(event_table_find(t, "BR_INST_RETIRED.ALL_BRANCHES_PEBS")->flags & EVENT_DESC_PEBS_ONLY);
	assert_true(event_table_find(t, "FRONTEND_RETIRED.DSB_MISS")->flags & EVENT_DESC_TAKEN_ALONE);
	event_table_free(t);

	/* The Jaketown fix and the 1-based files. */
	assert_int_equal(event_table_load(events_dir, "jaketown", &t, &err), 0);
	assert_int_equal(event_table_find(t, "CPU_CLK_UNHALTED.THREAD_ANY")->fixed, 1);
	event_table_free(t);
	assert_int_equal(event_table_load(events_dir, "nehalemep", &t, &err), 0);
	assert_int_equal(event_table_find(t, "INST_RETIRED.ANY")->fixed, 0);
	assert_int_equal(event_table_find(t, "CPU_CLK_UNHALTED.REF")->fixed, 2);
	event_table_free(t);

	/* Atom: one MSR listed for two umasks pairs by MSR (KNL 0x1a7 -> umask 2). */
	assert_int_equal(event_table_load(events_dir, "knightslanding", &t, &err), 0);
	e = event_table_find(t, "OFFCORE_RESPONSE.PARTIAL_WRITES.ANY_RESPONSE");
	assert_non_null(e);
	assert_int_equal(e->n_extra, 1);
	assert_int_equal(e->extra[0].msr, 0x1a7);
	assert_int_equal(e->umask, 0x02);
	assert_int_equal(e->extra[0].value, 0x10100);
	event_table_free(t);
	err_clear(&err);
}

/* A table written to a temporary directory. */
static int
load_text(const char *text, const char *name, struct pmustat_error **err)
{
	char dir[] = "/tmp/pmustat-table-XXXXXX";
	char path[PATH_MAX];
	struct event_table *t = NULL;
	FILE *f;
	int ret;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/%s.json", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	ret = event_table_load(dir, name, &t, err);
	if (ret == 0)
		event_table_free(t);
	unlink(path);
	rmdir(dir);
	return ret;
}

#define HEAD "{\"format_version\":1,\"table\":\"t\",\"source\":{\"file\":\"x_core.json\",\"version\":\"1\"},\"events\":["

static void
test_bad_tables(void **state)
{
	static const struct {
		const char *text;
		const char *error;
	} bad[] = {
		{ "{", "t.json:1:" },
		{ "{\"format_version\":2,\"table\":\"t\",\"events\":[]}", "format_version is not 1" },
		{ "{\"format_version\":1,\"table\":\"u\",\"events\":[]}", "\"table\" is not 't'" },
		{ HEAD "{\"n\":\"A\",\"e\":256,\"u\":0,\"c\":1}]}", "event 0 (A): event code" },
		{ HEAD "{\"n\":\"A\",\"e\":1,\"u\":0}]}", "bad counter mask" },
		{ HEAD "{\"e\":1,\"u\":0,\"c\":1}]}", "without a name" },
		{ HEAD "{\"n\":\"A\",\"e\":1,\"u\":0,\"c\":1},{\"n\":\"a\",\"e\":1,\"u\":0,\"c\":1}]}", "appears twice" },
		{ HEAD "{\"n\":\"A\",\"d\":\"x\",\"dep\":1,\"a\":\"B\"}]}", "alias of a missing event" },
		{ HEAD "{\"n\":\"A\",\"e\":1,\"u\":0,\"c\":1,\"x\":\"1/0/1a6=zz\"}]}", "is not \"code/umask" },
		{ HEAD "{\"n\":\"A\",\"e\":1,\"u\":0,\"c\":1,\"x\":\"2/0/1a6=0x1\"}]}", "does not match" },
		{ HEAD "{\"n\":\"A\",\"e\":1,\"u\":0,\"c\":1,\"x\":\"1/0/0=0x1\"}]}", "is not \"code/umask" },
		{ HEAD "{\"n\":\"A\",\"e\":1,\"u\":0,\"c\":1,\"x\":\"1/0/1a6=0x1;\"}]}", "is not \"code/umask" },
		{ HEAD "{\"n\":\"A\",\"e\":1,\"u\":0,\"c\":1,\"x\":[1]}]}", "\"x\" is not a string" },
		{ HEAD "{\"n\":\"A\",\"e\":1,\"u\":0,\"c\":1,\"inv\":2}]}", "not 0 or 1" },
		{ HEAD "{\"n\":\"A\",\"e\":0,\"u\":1,\"f\":0,\"c\":1}]}", "bad fixed counter" },
	};
	struct pmustat_error *err = NULL;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err_clear(&err);
		if (load_text(bad[i].text, "t", &err) != -EINVAL)
			fail_msg("case %zu loaded", i);
		if (!strstr(err_msg(err), bad[i].error) || !strstr(err_msg(err), "/t.json"))
			fail_msg("case %zu: \"%s\" lacks \"%s\"", i, err_msg(err), bad[i].error);
	}
	assert_int_equal(load_text(HEAD "{\"n\":\"A\",\"e\":1,\"u\":0,\"c\":1}]}", "t", &err), 0);
	err_clear(&err);
}

static void
test_missing(void **state)
{
	struct event_table *t = (struct event_table *)0x1;
	struct pmustat_error *err = NULL;

	(void)state;
	assert_int_equal(event_table_load(events_dir, "no_such_table", &t, &err), -ENOENT);
	assert_null(t);
	assert_non_null(strstr(err_msg(err), "no_such_table.json"));
	assert_int_equal(event_table_load(events_dir, "../events/skylake", &t, &err), -EINVAL);
	assert_int_equal(event_table_load(events_dir, "", &t, &err), -EINVAL);
	event_table_free(NULL);
	err_clear(&err);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_table),
		cmocka_unit_test(test_lookup),
		cmocka_unit_test(test_bad_tables),
		cmocka_unit_test(test_missing),
	};

	if (argc != 2) {
		fprintf(stderr, "usage: %s EVENTS_DIR\n", argv[0]);
		return 2;
	}
	events_dir = argv[1];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
