/*
 * test_exposition.c - the Prometheus / OpenMetrics exposition of a stat
 * run: how names become families, clashes, labels and their escaping,
 * rows that did not count, -A, -r, both formats.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "report/output.h"
#include "test_util.h"

static struct event ev[4];
static struct stat_row rows[4];
static char arg0[] = "./prog", arg1[] = "say \"hi\"\\\n";
static char *cmd[] = { arg0, arg1, NULL };

static struct stat_report
make_report(void)
{
	struct stat_report rep;

	ev[0] = test_fixed_event("INST_RETIRED.ANY", 0, 0xc0, 0, 0xf);
	snprintf(ev[0].requested, sizeof(ev[0].requested), "instructions:u");
	ev[1] = test_fixed_event("INST_RETIRED.ANY", 0, 0xc0, 0, 0xf);
	snprintf(ev[1].requested, sizeof(ev[1].requested), "INSTRUCTIONS");
	ev[2] = test_event("LONGEST_LAT_CACHE.MISS", 0x2e, 0x41, 0xf);
	ev[3] = test_event("BR_MISP_RETIRED.ALL_BRANCHES", 0xc5, 0, 0xf);
	snprintf(ev[3].requested, sizeof(ev[3].requested), "branch-misses");
	memset(rows, 0, sizeof(rows));
	for (unsigned i = 0; i < 4; i++) {
		ev[i].usr = true;
		rows[i].ev = &ev[i];
		rows[i].run = 1;
		rows[i].counted = true;
		rows[i].status = "counted";
		rows[i].value = 1000 * (i + 1);
	}
	rows[0].help = "Instructions retired from execution.";
	rows[3].counted = false;
	rows[3].status = "not counted: counter taken by another user";
	memset(&rep, 0, sizeof(rep));
	rep.version = "0.1.0";
	rep.cpu = "GenuineIntel-6-5E-3";
	rep.event_table = "skylake";
	rep.command = cmd;
	rep.command_ran = true;
	rep.elapsed = 0.25;
	rep.backend = "msr";
	rep.rows = rows;
	rep.nrows = 4;
	return rep;
}

static void
names_labels_and_clashes(void **state)
{
	struct stat_report rep = make_report();
	char *t = output_exposition_text(&rep, EXPOSITION_PROMETHEUS);

	(void)state;
	assert_non_null(t);
	/* "instructions:u" and "INSTRUCTIONS": one family, one sample (the same count). */
	assert_non_null(strstr(t, "# HELP pmustat_instructions_total Instructions retired from execution.\n"
				  "# TYPE pmustat_instructions_total counter\n"
				  "pmustat_instructions_total{event=\"INST_RETIRED.ANY\",mode=\"u\",pmu=\"cpu\",backend=\"msr\","
				  "command=\"./prog say \\\"hi\\\"\\\\\\n\"} 1000\n# HELP"));
	assert_null(strstr(t, "} 2000\n"));
	assert_non_null(strstr(t, "pmustat_longest_lat_cache_miss_total{event=\"LONGEST_LAT_CACHE.MISS\""));
	assert_non_null(strstr(t, "# HELP pmustat_longest_lat_cache_miss_total pmustat count of LONGEST_LAT_CACHE.MISS\n"));
	/* Not counted: no counter sample, its validity gauge 0 with the reason. */
	assert_null(strstr(t, "pmustat_branch_misses_total{"));
	assert_non_null(strstr(t, "pmustat_event_valid{name=\"pmustat_branch_misses_total\",event=\"BR_MISP_RETIRED.ALL_BRANCHES\""));
	assert_non_null(strstr(t, "reason=\"not counted: counter taken by another user\"} 0\n"));
	assert_non_null(strstr(t, "reason=\"counted\"} 1\n"));
	assert_non_null(strstr(t, "pmustat_exit_status 0\n"));
	assert_null(strstr(t, "# EOF"));
	assert_null(strstr(t, "# UNIT"));
	free(t);
}

static void
openmetrics_and_units(void **state)
{
	struct stat_report rep = make_report();
	struct event clock = test_event("task-clock", 0, 0, 0);
	char *t;

	(void)state;
	snprintf(clock.requested, sizeof(clock.requested), "task-clock");
	clock.flags |= EVENT_F_SOFTWARE;
	clock.usr = clock.os = true;
	rows[2].ev = &clock;
	rows[2].unit = "ns";
	rows[2].value = 1500000000;
	t = output_exposition_text(&rep, EXPOSITION_OPENMETRICS);
	assert_non_null(t);
	assert_non_null(strstr(t, "# TYPE pmustat_instructions counter\n"));
	assert_non_null(strstr(t, "# TYPE pmustat_task_clock_seconds counter\n# UNIT pmustat_task_clock_seconds seconds\n"
				  "pmustat_task_clock_seconds_total{event=\"task-clock\",mode=\"uk\",pmu=\"software\""));
	assert_non_null(strstr(t, "} 1.5\n"));
	assert_int_equal(strcmp(t + strlen(t) - 6, "# EOF\n"), 0);
	free(t);
}

static void
per_cpu_and_repeat(void **state)
{
	struct stat_report rep = make_report();
	static const int cores[] = { 2, 5 };
	static const uint64_t per[] = { 400, 600 };
	static const uint64_t runs[] = { 900, 1000, 1100 };
	static const char *const pmus[] = { "cpu_core", "cpu_atom" };
	char *t;

	(void)state;
	rep.nrows = 1;
	rep.cores = cores;
	rep.ncores = 2;
	rep.per_cpu = true;
	rep.core_pmu = pmus;
	rows[0].cpu_values = per;
	t = output_exposition_text(&rep, EXPOSITION_PROMETHEUS);
	assert_non_null(strstr(t, "pmustat_instructions_total{cpu=\"2\",event=\"INST_RETIRED.ANY\",mode=\"u\",pmu=\"cpu_core\""));
	assert_non_null(strstr(t, "pmustat_instructions_total{cpu=\"5\",event=\"INST_RETIRED.ANY\",mode=\"u\",pmu=\"cpu_atom\""));
	free(t);
	/* -r 3: the counter is the total of the rounds, the statistics gauges. */
	rep.per_cpu = false;
	rep.repeat = 3;
	rep.rounds = 3;
	rows[0].cpu_values = NULL;
	rows[0].values = runs;
	rows[0].nvalues = 3;
	rows[0].stats = (struct stats_summary){ .n = 3, .mean = 1000, .median = 1000, .min = 900, .max = 1100,
						 .stddev = 100 };
	rows[0].value = 1000;
	t = output_exposition_text(&rep, EXPOSITION_PROMETHEUS);
	assert_non_null(strstr(t, "\"} 3000\n"));
	assert_non_null(strstr(t, "pmustat_run_max{name=\"pmustat_instructions_total\""));
	assert_non_null(strstr(t, "pmustat_runs 3\n"));
	free(t);
}

static void
own_family_names_kept(void **state)
{
	struct stat_report rep = make_report();

	(void)state;
	snprintf(ev[0].requested, sizeof(ev[0].requested), "info");
	rep.nrows = 1;
	char *t = output_exposition_text(&rep, EXPOSITION_PROMETHEUS);

	assert_non_null(strstr(t, "pmustat_info_event_total{"));
	assert_non_null(strstr(t, "# TYPE pmustat_info gauge\n"));
	free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(names_labels_and_clashes),
		cmocka_unit_test(openmetrics_and_units),
		cmocka_unit_test(per_cpu_and_repeat),
		cmocka_unit_test(own_family_names_kept),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
