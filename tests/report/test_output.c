/*
 * test_output.c - the human table, CSV and JSON of a stat run.
 */
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "report/output.h"
#include "test_util.h"

static struct event ev[4];
static struct stat_row rows[4];
static char arg0[] = "true", arg1[] = "--flag";
static char *cmd[] = { arg0, arg1, NULL };

static struct stat_report
make_report(void)
{
	struct stat_report rep;

	ev[0] = test_fixed_event("INST_RETIRED.ANY", 0, 0xc0, 0, 0xf);
	snprintf(ev[0].requested, sizeof(ev[0].requested), "instructions");
	ev[1] = test_fixed_event("CPU_CLK_UNHALTED.THREAD", 1, 0x3c, 0, 0xf);
	snprintf(ev[1].requested, sizeof(ev[1].requested), "cycles");
	ev[2] = test_event("BR_INST_RETIRED.ALL_BRANCHES", 0xc4, 0, 0xf);
	snprintf(ev[2].requested, sizeof(ev[2].requested), "branches");
	ev[3] = test_event("BR_MISP_RETIRED.ALL_BRANCHES", 0xc5, 0, 0xf);
	snprintf(ev[3].requested, sizeof(ev[3].requested), "branch-misses");
	memset(rows, 0, sizeof(rows));
	for (unsigned i = 0; i < 4; i++) {
		rows[i].ev = &ev[i];
		rows[i].run = 1;
		rows[i].counted = true;
		rows[i].status = "counted";
	}
	snprintf(rows[0].counter, sizeof(rows[0].counter), "fixed0");
	snprintf(rows[1].counter, sizeof(rows[1].counter), "fixed1");
	snprintf(rows[2].counter, sizeof(rows[2].counter), "pmc0");
	snprintf(rows[3].counter, sizeof(rows[3].counter), "pmc1");
	rows[0].value = 2000000;
	rows[1].value = 1000000;
	rows[2].value = 400000;
	rows[3].value = 4000;

	memset(&rep, 0, sizeof(rep));
	rep.version = "0.1.0";
	rep.cpu = "GenuineIntel-6-5E-3";
	rep.core = 1;
	rep.counts_cores = true;
	rep.event_table = "skylake";
	rep.command = cmd;
	rep.exit_status = 0;
	rep.command_ran = true;
	rep.elapsed = 0.25;
	rep.runs = 1;
	rep.read_method = "rdpmc";
	rep.rows = rows;
	rep.nrows = 4;
	return rep;
}

static char *
render(int kind, const struct stat_report *rep)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	if (kind == 0)
		output_human(f, rep);
	else if (kind == 1)
		output_csv(f, rep, ";");
	else
		assert_int_equal(output_json(f, rep), 0);
	fclose(f);
	return buf;
}

static void
test_thousands(void **state)
{
	char buf[40];

	(void)state;
	output_thousands(0, buf, sizeof(buf));
	assert_string_equal(buf, "0");
	output_thousands(999, buf, sizeof(buf));
	assert_string_equal(buf, "999");
	output_thousands(1000, buf, sizeof(buf));
	assert_string_equal(buf, "1,000");
	output_thousands(281474976710663ull, buf, sizeof(buf));
	assert_string_equal(buf, "281,474,976,710,663");
}

static void
test_human(void **state)
{
	struct stat_report rep = make_report();
	char *s = render(0, &rep);

	(void)state;
	assert_non_null(strstr(s, "Performance counter stats for 'true --flag' on core 1"));
	assert_non_null(strstr(s, "2,000,000      instructions:u "));
	assert_non_null(strstr(s, "2.00  insn per cycle"));
	assert_non_null(strstr(s, "1.00% of all branches"));
	assert_non_null(strstr(s, "seconds time elapsed"));
	assert_non_null(strstr(s, "Counts are per core: anything else that ran on core 1 is included"));
	free(s);

	/* IPC only from the same run. */
	rows[1].run = 2;
	rep.runs = 2;
	s = render(0, &rep);
	assert_null(strstr(s, "insn per cycle"));
	assert_non_null(strstr(s, "(run 2, fixed1)"));
	assert_non_null(strstr(s, "2 runs"));
	free(s);
}

/* The column of names widens for a long one: every annotation starts in the same column. */
static void
test_human_long_name_keeps_columns(void **state)
{
	struct stat_report rep = make_report();
	char *s, *line;
	long col = -1;

	(void)state;
	snprintf(ev[2].requested, sizeof(ev[2].requested), "BR_INST_RETIRED.ALL_BRANCHES:cmask=1:edge");
	snprintf(ev[1].requested, sizeof(ev[1].requested), "CPU_CLK_UNHALTED.THREAD");
	rows[2].status = "counted (user mode only: kernel.perf_event_paranoid=2)";
	rep.verbose = true;	/* every row has a comment */
	s = render(0, &rep);
	for (line = strtok(s, "\n"); line; line = strtok(NULL, "\n")) {
		const char *a = strstr(line, "#  ");

		if (!a)
			a = strstr(line, "(counted");
		if (!a)
			continue;
		if (col < 0)
			col = a - line;
		if (a - line != col)
			fail_msg("annotation at column %ld, not %ld: '%s'", (long)(a - line), col, line);
	}
	assert_true(col > 0);
	free(s);
}

/* perf's comments: GHz, CPUs utilized, /sec over task-clock; the resolved name only with -v. */
static void
test_human_rates(void **state)
{
	struct stat_report rep = make_report();
	struct stat_row all[6];
	struct event sw[2];
	char *s;

	(void)state;
	memcpy(all, rows, sizeof(rows));
	sw[0] = test_event("task-clock", 0, 0, 0);
	sw[0].flags = EVENT_F_SOFTWARE;
	sw[0].os = true;
	sw[1] = sw[0];
	snprintf(sw[1].name, sizeof(sw[1].name), "page-faults");
	snprintf(sw[1].requested, sizeof(sw[1].requested), "page-faults");
	memset(&all[4], 0, 2 * sizeof(all[0]));
	for (unsigned i = 4; i < 6; i++) {
		all[i].ev = &sw[i - 4];
		all[i].run = 1;
		all[i].counted = true;
		all[i].status = "counted";
	}
	all[4].unit = "ns";
	all[4].value = 500000000;	/* 0.5 s of CPU */
	all[5].value = 2000;
	rep.rows = all;
	rep.nrows = 6;
	rep.elapsed = 0.25;
	s = render(0, &rep);
	/* 1,000,000 cycles in 0.5 s of task-clock; 0.5 s of CPU in 0.25 s; 2000 faults in 0.5 s. */
	assert_non_null(strstr(s, "cycles:u                       #     0.002 GHz\n"));
	assert_non_null(strstr(s, "#     2.000 CPUs utilized\n"));
	assert_non_null(strstr(s, "#     4.000 K/sec\n"));
	/* The resolved name is not a comment... */
	assert_null(strstr(s, "#  BR_INST_RETIRED.ALL_BRANCHES"));
	free(s);
	/* ...but -v says it. */
	rep.verbose = true;
	s = render(0, &rep);
	assert_non_null(strstr(s, "#  BR_INST_RETIRED.ALL_BRANCHES"));
	free(s);
	/* Several runs: no CPUs utilized (the elapsed time is all of them), cycles' GHz only from run 1. */
	rep.verbose = false;
	rep.runs = 2;
	all[1].run = 2;
	s = render(0, &rep);
	assert_null(strstr(s, "CPUs utilized"));
	assert_null(strstr(s, "GHz"));
	assert_non_null(strstr(s, "K/sec"));
	free(s);
}

static void
test_csv(void **state)
{
	struct stat_report rep = make_report();
	char *s;

	(void)state;
	rows[3].counted = false;
	rows[3].status = "counter busy";
	s = render(1, &rep);
	assert_non_null(strstr(s, "2000000;;instructions:u;INST_RETIRED.ANY;fixed0;1;counted\n"));
	assert_non_null(strstr(s, "<not counted>;;branch-misses:u;BR_MISP_RETIRED.ALL_BRANCHES;pmc1;1;counter busy\n"));
	free(s);
}

static void
test_json(void **state)
{
	struct stat_report rep = make_report();
	json_error_t jerr;
	json_t *root, *e0;
	char *s;

	(void)state;
	rows[2].value = (1ull << 48) + 7;
	s = render(2, &rep);
	root = json_loads(s, 0, &jerr);
	assert_non_null(root);
	assert_int_equal(json_integer_value(json_object_get(root, "format_version")), OUTPUT_FORMAT_VERSION);
	assert_string_equal(json_string_value(json_object_get(root, "pmustat_version")), "0.1.0");
	assert_int_equal(json_integer_value(json_object_get(root, "core")), 1);
	assert_string_equal(json_string_value(json_object_get(root, "event_table")), "skylake");
	assert_string_equal(json_string_value(json_array_get(json_object_get(root, "command"), 1)), "--flag");
	assert_int_equal(json_integer_value(json_object_get(root, "exit_status")), 0);
	assert_true(json_is_null(json_object_get(root, "error")));
	e0 = json_array_get(json_object_get(root, "events"), 0);
	assert_string_equal(json_string_value(json_object_get(e0, "name")), "INST_RETIRED.ANY");
	assert_string_equal(json_string_value(json_object_get(e0, "requested")), "instructions");
	assert_string_equal(json_string_value(json_object_get(e0, "privilege")), "u");
	assert_int_equal(json_integer_value(json_object_get(e0, "value")), 2000000);
	assert_string_equal(json_string_value(json_object_get(e0, "counter")), "fixed0");
	assert_int_equal(json_integer_value(json_object_get(e0, "run")), 1);
	assert_string_equal(json_string_value(json_object_get(e0, "status")), "counted");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(json_object_get(root, "events"), 2), "value")),
			 (json_int_t)((1ull << 48) + 7));
	json_decref(root);
	free(s);

	/* A failure: the reason is in the JSON, with pmustat's status. */
	rep.error = "counters busy";
	rep.exit_status = 125;
	rep.command_ran = false;
	s = render(2, &rep);
	root = json_loads(s, 0, &jerr);
	assert_non_null(root);
	assert_string_equal(json_string_value(json_object_get(root, "error")), "counters busy");
	assert_int_equal(json_integer_value(json_object_get(root, "exit_status")), 125);
	json_decref(root);
	free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_thousands),
		cmocka_unit_test(test_human),
		cmocka_unit_test(test_human_long_name_keeps_columns),
		cmocka_unit_test(test_human_rates),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
