/*
 * test_hybrid_e2e.c - a list of cores across a hybrid's core types, on the
 * emulated Alder Lake (CPU 0 a P-core, CPU 1 an E-core): each core
 * programmed from its own type's table (an event both tables name with
 * different encodings counts on each), the counts summed and per CPU, an
 * event one type lacks refused naming it and the type, perf's
 * cpu_core/.../ and cpu_atom/.../ spellings, every core restored.
 */
#include <jansson.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "e2e_harness.h"
#include "emu_pmu.h"

#define WL E2E_EMU_WORKLOAD

/* The hybrid's P-cores are CPUs [0, pcores): CPUs 0 and 1 must be ours. */
static void
need_cpus_0_1(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) != 0 || !CPU_ISSET(0, &set) || !CPU_ISSET(1, &set))
		skip();
}

static void
alderlake(struct e2e_machine *m)
{
	e2e_machine_new(m, (const char *[]){ "--model", "alderlake", "--cpus", "2", "--pcores", "1", NULL });
}

static json_t *
parse_json(const char *text)
{
	json_error_t jerr;
	json_t *root = json_loads(text, 0, &jerr);

	if (!root)
		fail_msg("not JSON (%s): %s", jerr.text, text);
	return root;
}

static json_t *
event_named(json_t *root, const char *name)
{
	json_t *events = json_object_get(root, "events"), *e;
	size_t i;

	json_array_foreach(events, i, e)
		if (strcmp(json_string_value(json_object_get(e, "requested")), name) == 0)
			return e;
	fail_msg("no event %s", name);
	return NULL;
}

static long long
value(json_t *root, const char *name)
{
	return json_integer_value(json_object_get(event_named(root, name), "value"));
}

static long long
per_cpu(json_t *root, const char *name, int cpu)
{
	json_t *a = json_object_get(event_named(root, name), "per_cpu"), *o;
	size_t i;

	assert_true(json_is_array(a));
	json_array_foreach(a, i, o)
		if (json_integer_value(json_object_get(o, "cpu")) == cpu)
			return json_integer_value(json_object_get(o, "value"));
	fail_msg("%s: no per_cpu entry for CPU %d", name, cpu);
	return -1;
}

static void
assert_restored(const struct e2e_machine *m, const struct emu_pmu *before)
{
	struct emu_pmu *after = e2e_state(m);

	assert_int_equal(emu_pmu_diff(before, after, stderr), 0);
	free(after);
}

/*
 * BACLEARS.ANY is event 0x60 umask 1 on Golden Cove and 0xE6 umask 1 on
 * Gracemont: a thread on each core retires 500 of the one and 700 of the
 * other, so each core counts only what its own table's encoding selects.
 */
static void
test_each_core_its_own_table(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before;
	json_t *root;

	(void)state;
	need_cpus_0_1();
	alderlake(&m);
	before = e2e_state(&m);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "0,1", "--json", "-v", "-e", "BACLEARS.ANY,INST_RETIRED.ANY",
		"--", WL, "--quiet", "--threads", "2", "--spread", "--retire", "0x60:1:500", "--retire", "0xe6:1:700",
		"--retire", "0xc0:0:1000", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "core 0 (GenuineIntel-6-97-2, core), table alderlake_goldencove");
	e2e_assert_err_contains(&r, "core 1 (GenuineIntel-6-97-2, atom), table alderlake_gracemont");
	root = parse_json(strstr(r.err, "{"));
	assert_int_equal(per_cpu(root, "BACLEARS.ANY", 0), 500);
	assert_int_equal(per_cpu(root, "BACLEARS.ANY", 1), 700);
	assert_int_equal(value(root, "BACLEARS.ANY"), 1200);
	assert_int_equal(value(root, "INST_RETIRED.ANY"), 2000);
	json_decref(root);
	assert_restored(&m, before);
	e2e_result_free(&r);
	free(before);
	e2e_machine_free(&m);
}

/* An event only the P-cores' table has: refused, naming it and the E-cores, nothing written. */
static void
test_event_one_type_lacks(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before;

	(void)state;
	need_cpus_0_1();
	alderlake(&m);
	before = e2e_state(&m);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "0,1", "-e", "ARITH.DIVIDER_ACTIVE", "--", WL, "--quiet",
		NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "on the atom cores of the list (core: 0, atom: 1)");
	e2e_assert_err_contains(&r, "'ARITH.DIVIDER_ACTIVE' for alderlake_gracemont");
	assert_restored(&m, before);
	e2e_result_free(&r);

	/* The default set: what both types count (no slots, the P-core's fixed counter 3). */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "0,1", "--", WL, "--quiet", "--threads", "2", "--spread",
		"--retire", "0xc0:0:1000", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "2,000      instructions:u");
	assert_null(strstr(r.err, "slots"));
	e2e_result_free(&r);
	free(before);
	e2e_machine_free(&m);
}

/*
 * perf's spellings name an event of one core type: cpu_core/BACLEARS.ANY/
 * counts 0x60 on the P-core and nothing on the E-core, cpu_atom/.../ the
 * reverse (its ring as spelled); on a list of one type the other type's
 * spelling is refused.
 */
static void
test_per_type_spellings(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before;
	json_t *root;

	(void)state;
	need_cpus_0_1();
	alderlake(&m);
	before = e2e_state(&m);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "0,1", "--json", "-e",
		"cpu_core/BACLEARS.ANY/,cpu_atom/BACLEARS.ANY/,cpu_atom/event=0xe6,umask=1/k,cpu_core/ARITH.DIVIDER_ACTIVE/",
		"--", WL, "--quiet", "--threads", "2", "--spread", "--retire", "0x60:1:500", "--retire", "0xe6:1:700",
		NULL });
	e2e_assert_status(&r, 0);
	root = parse_json(r.err);
	assert_int_equal(per_cpu(root, "cpu_core/BACLEARS.ANY/", 0), 500);
	assert_int_equal(per_cpu(root, "cpu_core/BACLEARS.ANY/", 1), 0);
	assert_int_equal(value(root, "cpu_core/BACLEARS.ANY/"), 500);
	assert_int_equal(per_cpu(root, "cpu_atom/BACLEARS.ANY/", 0), 0);
	assert_int_equal(per_cpu(root, "cpu_atom/BACLEARS.ANY/", 1), 700);
	/* Kernel mode only: the workload's are user mode. */
	assert_int_equal(value(root, "cpu_atom/event=0xe6,umask=1/k"), 0);
	json_decref(root);
	assert_restored(&m, before);
	e2e_result_free(&r);

	/* Only E-cores listed: a P-core event would count nothing. */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "1", "-e", "cpu_core/BACLEARS.ANY/", "--", WL, "--quiet",
		NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "'cpu_core/BACLEARS.ANY/' counts on the other core type's cores only, and every listed core is atom");
	e2e_result_free(&r);
	free(before);
	e2e_machine_free(&m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_each_core_its_own_table),
		cmocka_unit_test(test_event_one_type_lacks),
		cmocka_unit_test(test_per_type_spellings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
