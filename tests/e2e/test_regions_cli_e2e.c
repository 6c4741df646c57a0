/*
 * pmustat --regions end to end: the real binary on the emulated PMU runs
 * tests/region's programs (libpmustat-region linked) and reports exact
 * per-region sums and calls, per thread, over reruns, in text, CSV and
 * JSON; --check REGION:EVENT; and the rdpmc file set to 2 for the run and
 * put back on every exit path: the normal end, a fatal signal, and after a
 * SIGKILL by the next run or by `pmustat reset` (the rdpmc journal).
 */
#include "regions_cli_e2e.h"

int core;
char core_arg[16];
unsigned ncpus;

/* A Skylake with every CPU of the host; @extra (NULL-terminated) after. */
void
machine(struct e2e_machine *m, const char *extra1, const char *extra2)
{
	char cpus[16];

	snprintf(cpus, sizeof(cpus), "%u", ncpus);
	e2e_machine_new(m, (const char *[]){ "--model", "skylake", "--cpus", cpus, extra1, extra2, NULL });
}

/* The emulated machine's rdpmc file, first line. */
char *
rdpmc_file(const struct e2e_machine *m, char *buf, size_t size)
{
	struct emu_pmu *p = e2e_state(m);
	const char *t = emu_file(p, HW_FILE_RDPMC);

	snprintf(buf, size, "%s", t ? t : "(none)");
	buf[strcspn(buf, "\n")] = '\0';
	free(p);
	return buf;
}

void
assert_rdpmc(const struct e2e_machine *m, const char *want)
{
	char buf[32];

	assert_string_equal(rdpmc_file(m, buf, sizeof(buf)), want);
}

bool
journal_exists(const struct e2e_machine *m)
{
	char path[PATH_MAX], moved[PATH_MAX];

	rdpmc_journal_path(JOURNAL_DIR, path, sizeof(path));
	e2e_machine_path(m, path, moved, sizeof(moved));
	return access(moved, F_OK) == 0;
}

json_t *
parse(const struct e2e_result *r)
{
	json_error_t jerr;
	json_t *root = json_loads(r->out, 0, &jerr);

	if (!root)
		fail_msg("not JSON (%s): %s\nstderr: %s", jerr.text, r->out, r->err);
	return root;
}

json_t *
region(json_t *root, const char *name)
{
	size_t i;
	json_t *g;

	json_array_foreach(json_object_get(root, "regions"), i, g)
		if (strcmp(json_string_value(json_object_get(g, "name")), name) == 0)
			return g;
	fail_msg("no region %s", name);
	return NULL;
}

/* Region @name's value of its @k-th event (JSON null: -1). */
long long
region_value(json_t *root, const char *name, size_t k)
{
	json_t *v = json_object_get(json_array_get(json_object_get(region(root, name), "events"), k), "value");

	return json_is_null(v) ? -1 : (long long)json_integer_value(v);
}

long long
calls(json_t *root, const char *name)
{
	return (long long)json_integer_value(json_object_get(region(root, name), "calls"));
}

long long
event_value(json_t *root, size_t k)
{
	return (long long)json_integer_value(json_object_get(json_array_get(json_object_get(root, "events"), k),
							     "value"));
}

/* Region @name: @c calls, @units LLC misses and ten times as many instructions. */
void
expect_region(json_t *root, const char *name, long long c, long long units)
{
	if (calls(root, name) != c || region_value(root, name, 0) != units ||
	    region_value(root, name, 1) != 10 * units)
		fail_msg("region %s: %lld calls, %lld, %lld; want %lld, %lld, %lld", name, calls(root, name),
			 region_value(root, name, 0), region_value(root, name, 1), c, units, 10 * units);
}

/* The demo, counted by pmustat itself: every region exact, per thread too, the whole run unchanged. */
static void
test_demo_exact(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	json_t *root, *threads, *t;
	long long sums[2] = { 0, 0 };
	size_t i;

	(void)state;
	machine(&m, NULL, NULL);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "--regions", "-C", core_arg, "-e",
					  "LLC_MISSES,INST_RETIRED.ANY", "--json", "-o", "/dev/stdout", "--", REGION_DEMO, NULL });
	e2e_assert_status(&r, 0);
	root = parse(&r);
	assert_int_equal(event_value(root, 0), 1233);
	assert_int_equal(event_value(root, 1), 12330);
	assert_int_equal(json_array_size(json_object_get(root, "regions")), 5);
	expect_region(root, "hot", 3, 1200);
	expect_region(root, "cold", 1, 18);
	expect_region(root, "inner", 1, 5);
	expect_region(root, "rec", 2, 5);
	expect_region(root, "worker", 1, 7);
	assert_int_equal(json_integer_value(json_object_get(region(root, "hot"), "threads")), 2);
	/* Per thread: the main thread's two calls of 100, the worker's one of 1000. */
	threads = json_object_get(region(root, "hot"), "per_thread");
	assert_int_equal(json_array_size(threads), 2);
	json_array_foreach(threads, i, t) {
		json_t *ev = json_object_get(t, "events");

		sums[i] = (long long)json_integer_value(json_object_get(json_array_get(ev, 0), "value"));
		assert_int_equal(json_integer_value(json_object_get(t, "calls")), sums[i] == 200 ? 2 : 1);
	}
	assert_true((sums[0] == 200 && sums[1] == 1000) || (sums[0] == 1000 && sums[1] == 200));
	json_decref(root);
	e2e_result_free(&r);
	/* Already 2 on this machine: left alone, no journal. */
	assert_rdpmc(&m, "2");
	assert_false(journal_exists(&m));
	e2e_machine_free(&m);
}

/* The text block and the CSV records. */
static void
test_text_and_csv(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;

	(void)state;
	machine(&m, NULL, NULL);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "--regions", "-C", core_arg, "-e", "LLC_MISSES", "--",
					  REGION_DEMO, NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, " hot: 3 calls in 2 threads\n             1,200      LLC_MISSES:u\n");
	e2e_assert_err_contains(&r, " cold: 1 call\n                18      LLC_MISSES:u\n");
	e2e_result_free(&r);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "--regions", "-C", core_arg, "-e", "LLC_MISSES", "-x", ";",
					  "--", REGION_DEMO, NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "1233;;LLC_MISSES:u;LLC_MISSES;pmc0;1;counted\n"
				"region;cold;1;18;LLC_MISSES:u;LLC_MISSES\n"
				"region;hot;3;1200;LLC_MISSES:u;LLC_MISSES\n"
				"region;inner;1;5;LLC_MISSES:u;LLC_MISSES\n"
				"region;rec;2;5;LLC_MISSES:u;LLC_MISSES\n"
				"region;worker;1;7;LLC_MISSES:u;LLC_MISSES\n");
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

/*
 * -A: each region's threads in the text and CSV (without it, only how many
 * threads); with events over several runs, why there are none.
 */
static void
test_per_thread_under_A(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	char want[256];
	int tid_main = -1, tid_worker = -1;
	const char *p;

	(void)state;
	machine(&m, NULL, NULL);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "--regions", "-C", core_arg, "-e", "LLC_MISSES", "--",
					  REGION_DEMO, NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, " hot: 3 calls in 2 threads\n             1,200      LLC_MISSES:u\n\n");
	assert_null(strstr(r.err, " thread "));
	e2e_result_free(&r);

	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "--regions", "-A", "-C", core_arg, "-e", "LLC_MISSES", "-x", ";",
					  "--", REGION_DEMO, NULL });
	e2e_assert_status(&r, 0);
	/* The main thread's two calls of 100, the worker's one of 1000; cold in the main thread only. */
	p = strstr(r.err, "region-thread;hot;");
	assert_non_null(p);
	for (int k = 0; k < 2; k++) {
		unsigned long long c = 0, sum = 0;
		int tid = -1;

		assert_non_null(p);
		assert_int_equal(sscanf(p, "region-thread;hot;%d;%llu;%llu;", &tid, &c, &sum), 3);
		if (c == 2 && sum == 200)
			tid_main = tid;
		else if (c == 1 && sum == 1000)
			tid_worker = tid;
		else
			fail_msg("hot: thread %d with %llu calls, %llu", tid, c, sum);
		p = strstr(p + 1, "region-thread;hot;");
	}
	assert_true(tid_main > 0 && tid_worker > 0 && tid_main != tid_worker);
	snprintf(want, sizeof(want), "region;cold;1;18;LLC_MISSES:u;LLC_MISSES\nregion-thread;cold;%d;1;18;LLC_MISSES:u;LLC_MISSES\n",
		 tid_main);
	e2e_assert_err_contains(&r, want);
	snprintf(want, sizeof(want), "region-thread;worker;%d;1;7;LLC_MISSES:u;LLC_MISSES\n", tid_worker);
	e2e_assert_err_contains(&r, want);
	e2e_result_free(&r);

	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "--regions", "-A", "-C", core_arg, "-e", "LLC_MISSES", "--",
					  REGION_DEMO, NULL });
	e2e_assert_status(&r, 0);
	/* A line per thread (another run: other tids), a region of one thread too. */
	p = strstr(r.err, " cold: 1 call\n                18      LLC_MISSES:u\n");
	assert_non_null(p);
	p += strlen(" cold: 1 call\n                18      LLC_MISSES:u\n");
	assert_true(sscanf(p, "%*24c thread %d: 1 call, 18 LLC_MISSES:u\n", &tid_main) == 1 && tid_main > 0);
	snprintf(want, sizeof(want), "%24s thread %d: 2 calls, 200 LLC_MISSES:u\n", "", tid_main);
	e2e_assert_err_contains(&r, want);
	assert_non_null(strstr(r.err, ": 1 call, 1,000 LLC_MISSES:u\n"));
	e2e_result_free(&r);
	e2e_machine_free(&m);

	/* Two runs: the threads of one are not those of the other. */
	machine(&m, "--gp", "1");
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "--regions", "-A", "-C", core_arg, "-e", "LLC_MISSES,r00c0",
					  "--", REGION_DEMO, NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "per thread: none, the events took 2 runs of the command");
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

/*
 * -M per region: each metric from the region's sums of its events (IPC of
 * hot 120/40, of cold 10/100); a metric needing the run's duration has
 * none in a region, and says why; text, CSV and JSON.
 */
static void
test_metrics_per_region(void **state)
{
	const char *script[] = { "b:hot", "r:6", "c:20", "e:hot", "b:cold", "c:100", "r:1", "e:cold", "b:hot", "r:6",
				 "c:20", "e:hot" };
	const char *argv[32] = { E2E_PMUSTAT, "--regions", "-C", core_arg, "-M", "IPC,Info_Memory_L3_Cache_Fill_BW",
				 "--json", "-o", "/dev/stdout", "--", REGION_SCRIPT };
	struct e2e_machine m;
	struct e2e_result r;
	json_t *root, *ms, *top;
	size_t n = 11;

	(void)state;
	for (size_t i = 0; i < sizeof(script) / sizeof(script[0]); i++)
		argv[n++] = script[i];
	machine(&m, NULL, NULL);
	e2e_run(&m, &r, argv);
	e2e_assert_status(&r, 0);
	root = parse(&r);
	ms = json_object_get(region(root, "hot"), "metrics");
	assert_int_equal(json_array_size(ms), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(ms, 0), "name")), "Info_Thread_IPC");
	assert_true(json_real_value(json_object_get(json_array_get(ms, 0), "value")) == 3.0);
	assert_true(json_is_null(json_object_get(json_array_get(ms, 1), "value")));
	assert_non_null(strstr(json_string_value(json_object_get(json_array_get(ms, 1), "reason")), "DURATIONTIMEINMILLISECONDS"));
	ms = json_object_get(region(root, "cold"), "metrics");
	assert_true(json_real_value(json_object_get(json_array_get(ms, 0), "value")) == 10.0 / 100.0);
	/* The whole run's: 130 / 140, and a bandwidth over its wall time. */
	top = json_object_get(root, "metrics");
	assert_true(json_real_value(json_object_get(json_array_get(top, 0), "value")) == 130.0 / 140.0);
	assert_true(json_is_real(json_object_get(json_array_get(top, 1), "value")));
	json_decref(root);
	e2e_result_free(&r);

	argv[6] = "-x";
	argv[7] = ";";
	argv[8] = "-r1";
	e2e_run(&m, &r, argv);
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "region-metric;hot;3;;Info_Thread_IPC;1;counted;\n");
	e2e_assert_err_contains(&r, "region-metric;cold;0.10000000000000001;;Info_Thread_IPC;1;counted;\n");
	e2e_assert_err_contains(&r, "region-metric;cold;;;Info_Memory_L3_Cache_Fill_BW;1;a code region has no duration of its own");
	e2e_result_free(&r);

	argv[6] = "-r1";
	argv[7] = "-r1";
	e2e_run(&m, &r, argv);
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, " hot: 2 calls\n               120      INST_RETIRED.ANY:u\n                40      CPU_CLK_UNHALTED.THREAD:u\n");
	e2e_assert_err_contains(&r, "                12      LONGEST_LAT_CACHE.MISS:u\n                 3      Info_Thread_IPC");
	e2e_assert_err_contains(&r, "Info_Memory_L3_Cache_Fill_BW    (no value: a code region has no duration of its own");
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

/* One general-purpose counter for two events: two runs, each event's region sums from its own. */
static void
test_reruns(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	json_t *root;

	(void)state;
	machine(&m, "--gp", "1");
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "--regions", "-C", core_arg, "-e", "LLC_MISSES,r00c0",
					  "--json", "-o", "/dev/stdout", "--", REGION_DEMO, NULL });
	e2e_assert_status(&r, 0);
	root = parse(&r);
	assert_int_equal(json_integer_value(json_object_get(root, "runs")), 2);
	assert_int_equal(event_value(root, 0), 1233);
	assert_int_equal(event_value(root, 1), 12330);
	expect_region(root, "hot", 3, 1200);
	expect_region(root, "worker", 1, 7);
	/* Threads differ between the runs: no per-thread counts. */
	assert_true(json_is_null(json_object_get(region(root, "hot"), "per_thread")));
	json_decref(root);
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

/* -r 3: each region event has every round's sum and its median. */
static void
test_repeat(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	json_t *root, *ev;

	(void)state;
	machine(&m, NULL, NULL);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "--regions", "-r", "3", "-C", core_arg, "-e", "LLC_MISSES",
					  "--json", "-o", "/dev/stdout", "--", REGION_DEMO, NULL });
	e2e_assert_status(&r, 0);
	root = parse(&r);
	ev = json_array_get(json_object_get(region(root, "hot"), "events"), 0);
	assert_int_equal(json_array_size(json_object_get(ev, "values")), 3);
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(json_integer_value(json_array_get(json_object_get(ev, "values"), i)), 1200);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(ev, "stats"), "median")), 1200);
	assert_int_equal(calls(root, "hot"), 3);
	json_decref(root);
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

/* --check REGION:EVENT: a pass, a fail (exit 3), a region never run (fails), and without --regions a refusal. */
static void
test_checks(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	json_t *root, *checks;

	(void)state;
	machine(&m, NULL, NULL);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "--regions", "-C", core_arg, "-e", "LLC_MISSES",
					  "--check", "hot:LLC_MISSES<=1200", "--json", "-o", "/dev/stdout", "--", REGION_DEMO, NULL });
	e2e_assert_status(&r, 0);
	e2e_result_free(&r);
	/* The event of a check is counted even when -e does not name it. */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "--regions", "-C", core_arg, "-e", "LLC_MISSES",
					  "--check", "hot:LLC_MISSES<=1200", "--check", "cold:INST_RETIRED.ANY<180",
					  "--check", "nosuch:LLC_MISSES<=1", "--json", "-o", "/dev/stdout", "--", REGION_DEMO, NULL });
	e2e_assert_status(&r, 3);
	root = parse(&r);
	checks = json_object_get(root, "checks");
	assert_true(json_is_true(json_object_get(json_array_get(checks, 0), "passed")));
	assert_true(json_is_false(json_object_get(json_array_get(checks, 1), "passed")));
	assert_int_equal(json_integer_value(json_object_get(json_array_get(checks, 1), "value")), 180);
	assert_true(json_is_false(json_object_get(json_array_get(checks, 2), "passed")));
	assert_true(json_is_null(json_object_get(json_array_get(checks, 2), "value")));
	assert_int_equal(json_array_size(json_object_get(root, "failed")), 2);
	json_decref(root);
	e2e_result_free(&r);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "LLC_MISSES",
					  "--check", "hot:LLC_MISSES<=1200", "--", REGION_DEMO, NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "needs --regions");
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

/* Set region @name's first event in the baseline @path to @value (and its median). */
static void
edit_baseline(const char *path, const char *name, long long value)
{
	json_error_t jerr;
	json_t *root = json_load_file(path, 0, &jerr), *ev;

	if (!root)
		fail_msg("%s: %s", path, jerr.text);
	ev = json_array_get(json_object_get(region(root, name), "events"), 0);
	json_object_set_new(ev, "value", json_integer(value));
	json_object_set_new(json_object_get(ev, "stats"), "median", json_integer(value));
	assert_int_equal(json_dump_file(root, path, JSON_INDENT(2)), 0);
	json_decref(root);
}

/* --save-baseline keeps the regions; --baseline compares REGION:EVENT with its own tolerance. */
static void
test_baseline(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	char path[PATH_MAX + 16];
	json_t *root;

	(void)state;
	machine(&m, NULL, NULL);
	snprintf(path, sizeof(path), "%s/base.json", m.dir);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "--regions", "-C", core_arg, "-e", "LLC_MISSES",
					  "--save-baseline", path, "--", REGION_DEMO, NULL });
	e2e_assert_status(&r, 0);
	e2e_result_free(&r);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "--regions", "-C", core_arg, "-e", "LLC_MISSES",
					  "--baseline", path, "--", REGION_DEMO, NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "PASS  baseline hot:LLC_MISSES");
	e2e_result_free(&r);
	/* hot had 1000 then: +20% fails, a tolerance of 25% for it alone passes. */
	edit_baseline(path, "hot", 1000);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "--regions", "-C", core_arg, "-e", "LLC_MISSES",
					  "--baseline", path, "--json", "-o", "/dev/stdout", "--", REGION_DEMO, NULL });
	e2e_assert_status(&r, 3);
	root = parse(&r);
	assert_int_equal(json_array_size(json_object_get(root, "failed")), 1);
	assert_string_equal(json_string_value(json_array_get(json_object_get(root, "failed"), 0)),
			    "baseline hot:LLC_MISSES");
	json_decref(root);
	e2e_result_free(&r);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "--regions", "-C", core_arg, "-e", "LLC_MISSES",
					  "--baseline", path, "--tolerance", "hot:LLC_MISSES=25%", "--", REGION_DEMO,
					  NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "PASS  baseline hot:LLC_MISSES  (1200 vs 1000: +20.00%, tolerance +25%)");
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

/*
 * The scheduler moves the command's thread between a begin and its end, on
 * two counted cores: that pair read two cores' counters, so it is a call
 * in no sum, and pmustat says how many; a pair on one core counts.
 */
static void
test_thread_moved_mid_region(void **state)
{
	char cpus[32], to[16], from[16];
	struct e2e_machine m;
	struct e2e_result r;
	int other = core == 0 ? 1 : 0;

	(void)state;
	if ((unsigned)other >= ncpus)
		fail_msg("the test needs two CPUs");
	snprintf(cpus, sizeof(cpus), "%d,%d", other < core ? other : core, other < core ? core : other);
	snprintf(from, sizeof(from), "cpu:%d", core);
	snprintf(to, sizeof(to), "cpu:%d", other);
	machine(&m, NULL, NULL);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "--regions", "-C", cpus, "-e", "LLC_MISSES", "--",
		REGION_SCRIPT, from, "r:1000", "b:moved", "r:100", to, "r:100", "e:moved", "b:stayed", "r:5", "e:stayed", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "run 1: 1 pair(s) ran on two CPUs");
	e2e_assert_err_contains(&r, " moved: 1 call\n                 0      LLC_MISSES:u\n");
	e2e_assert_err_contains(&r, " stayed: 1 call\n                 5      LLC_MISSES:u\n");
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_demo_exact),
		cmocka_unit_test(test_text_and_csv),
		cmocka_unit_test(test_reruns),
		cmocka_unit_test(test_repeat),
		cmocka_unit_test(test_checks),
		cmocka_unit_test(test_baseline),
		cmocka_unit_test(test_rdpmc_set_and_restored),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_per_thread_under_A),
		cmocka_unit_test(test_metrics_per_region),
		cmocka_unit_test(test_perf_backend_leaves_room),
		cmocka_unit_test(test_sigterm_restores),
		cmocka_unit_test(test_sigkill_next_run_restores),
		cmocka_unit_test(test_sigkill_reset_restores),
		cmocka_unit_test(test_corrupt_journal),
		cmocka_unit_test(test_thread_moved_mid_region),
	};
	core = e2e_last_cpu();
	if (core < 0)
		return 1;
	snprintf(core_arg, sizeof(core_arg), "%d", core);
	ncpus = e2e_all_cpus(core);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
