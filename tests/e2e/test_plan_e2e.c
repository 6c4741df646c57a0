/*
 * test_plan_e2e.c - how the counting plan places events, end to end on the
 * emulated PMU: an event asked for twice (by any spelling, by -e, the
 * default set or a --check) is counted once and reported under each
 * spelling; an event Intel's table puts on a fixed counter only moves to a
 * general-purpose counter with its architectural twin encoding when
 * another user (the NMI watchdog) holds that counter, and says so; the
 * reference clock never moves (its GP encoding counts another clock). And
 * the plan printed by --dry-run, for this machine or any CPU of a dump.
 */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "e2e_harness.h"
#include "emu_pmu.h"
#include "pmu/msr.h"

#define WL E2E_EMU_WORKLOAD

static int core;
static char core_arg[16];

static int
setup(void **state)
{
	cpu_set_t set;

	(void)state;
	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return -1;
	for (int c = 0; c < EMU_MAX_CPUS && c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			core = c;
	snprintf(core_arg, sizeof(core_arg), "%d", core);
	return 0;
}

static void
machine(struct e2e_machine *m, const char *model, bool watchdog)
{
	char cpus[16];

	snprintf(cpus, sizeof(cpus), "%d", core + 1);
	e2e_machine_new(m, (const char *[]){ "--model", model, "--cpus", cpus, watchdog ? "--watchdog" : NULL,
					     NULL });
}

/* Where --json -o writes on machine @m (the workload's stdout is its own). */
static const char *
out_path(const struct e2e_machine *m)
{
	static char path[PATH_MAX + 16];

	snprintf(path, sizeof(path), "%s/out.json", m->dir);
	return path;
}

static json_t *
record(const struct e2e_machine *m)
{
	json_error_t jerr;
	json_t *root = json_load_file(out_path(m), 0, &jerr);

	if (!root)
		fail_msg("%s: %s", out_path(m), jerr.text);
	unlink(out_path(m));
	return root;
}

/* The event of the record whose "requested" is @typed. */
static json_t *
row(json_t *root, const char *typed)
{
	json_t *events = json_object_get(root, "events"), *e;
	size_t i;

	json_array_foreach(events, i, e)
		if (strcmp(json_string_value(json_object_get(e, "requested")), typed) == 0)
			return e;
	fail_msg("no row '%s'", typed);
	return NULL;
}

static long long
value(json_t *root, const char *typed)
{
	return json_integer_value(json_object_get(row(root, typed), "value"));
}

static const char *
field(json_t *root, const char *typed, const char *key)
{
	return json_string_value(json_object_get(row(root, typed), key));
}

/*
 * The gate of the README: a branch-miss ratio named the way Intel names it,
 * beside the default set that already counts branch-misses. Each event is
 * counted once, on one counter, and reported under both names.
 */
static void
test_check_beside_the_default_set(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	json_t *root;

	(void)state;
	machine(&m, "skylake", false);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "--json", "-o", out_path(&m),
					  "--check", "BR_MISP_RETIRED.ALL_BRANCHES/BR_INST_RETIRED.ALL_BRANCHES<=0.02",
					  "--", WL, "--retire", "0xc4:0:1000", "--retire", "0xc5:0:7", NULL });
	e2e_assert_status(&r, 0);
	root = record(&m);
	assert_int_equal(value(root, "branch-misses"), 7);
	assert_int_equal(value(root, "BR_MISP_RETIRED.ALL_BRANCHES"), 7);
	assert_int_equal(value(root, "branches"), 1000);
	assert_int_equal(value(root, "BR_INST_RETIRED.ALL_BRANCHES"), 1000);
	/* Counted once: the two spellings share their counter. */
	assert_string_equal(field(root, "branch-misses", "counter"), field(root, "BR_MISP_RETIRED.ALL_BRANCHES", "counter"));
	assert_string_equal(field(root, "branches", "counter"), field(root, "BR_INST_RETIRED.ALL_BRANCHES", "counter"));
	/* Four GP counters hold branches, branch-misses: one run. */
	assert_int_equal(json_integer_value(json_object_get(root, "runs")), 1);
	assert_true(json_is_true(json_object_get(json_array_get(json_object_get(root, "checks"), 0), "passed")));
	json_decref(root);
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

/* -e cycles,cycles and -e cycles,CORE_CYCLES work as in perf: counted once. */
static void
test_same_event_twice(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	json_t *root;

	(void)state;
	machine(&m, "skylake", false);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "--json", "-o", out_path(&m),
					  "-e", "cycles,cycles", "-e", "CORE_CYCLES,r003c", "--", WL, "--retire",
					  "0x3c:0:4321", NULL });
	e2e_assert_status(&r, 0);
	root = record(&m);
	/* cycles once (one spelling, one row), CORE_CYCLES and r003c beside it, one counter. */
	assert_int_equal(json_array_size(json_object_get(root, "events")), 3);
	assert_int_equal(value(root, "cycles"), 4321);
	assert_int_equal(value(root, "CORE_CYCLES"), 4321);
	assert_int_equal(value(root, "r003c"), 4321);
	assert_string_equal(field(root, "cycles", "counter"), "fixed1");
	assert_string_equal(field(root, "r003c", "counter"), "pmc0");
	json_decref(root);
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

/*
 * The NMI watchdog holds fixed counter 1: Intel's fixed-only cycles and
 * instructions still count, on GP counters with 3C/00 and C0/00, and every
 * output says which counter and why.
 */
static void
test_fixed_only_events_move_to_their_twin(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before;
	json_t *root;

	(void)state;
	machine(&m, "skylake", true);
	before = e2e_state(&m);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "--json", "-o", out_path(&m),
					  "-e", "CPU_CLK_UNHALTED.THREAD,INST_RETIRED.ANY", "--", WL, "--retire",
					  "0x3c:0:2500", "--retire", "0xc0:0:5000", NULL });
	e2e_assert_status(&r, 0);
	root = record(&m);
	assert_int_equal(value(root, "CPU_CLK_UNHALTED.THREAD"), 2500);
	assert_int_equal(value(root, "INST_RETIRED.ANY"), 5000);
	assert_string_equal(field(root, "CPU_CLK_UNHALTED.THREAD", "counter"), "pmc0");
	assert_string_equal(field(root, "CPU_CLK_UNHALTED.THREAD", "counter_note"),
			    "fixed counter 1 is held by the NMI watchdog");
	/* Its own fixed counter was free: it stays there, no note. */
	assert_string_equal(field(root, "INST_RETIRED.ANY", "counter"), "fixed0");
	assert_true(json_is_null(json_object_get(row(root, "INST_RETIRED.ANY"), "counter_note")));
	json_decref(root);
	e2e_result_free(&r);
	/* The table and the CSV say it too. */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "CPU_CLK_UNHALTED.THREAD", "--", WL,
					  "--retire", "0x3c:0:77", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "(on pmc0: fixed counter 1 is held by the NMI watchdog)");
	e2e_result_free(&r);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-x", ";", "-e", "CPU_CLK_UNHALTED.THREAD",
					  "--", WL, "--retire", "0x3c:0:77", NULL });
	e2e_assert_err_contains(&r, "77;;CPU_CLK_UNHALTED.THREAD:u;CPU_CLK_UNHALTED.THREAD;pmc0;1;counted");
	e2e_result_free(&r);
	/* The watchdog counted on; the rest is as it was. */
	{
		struct emu_pmu *after = e2e_state(&m);

		before->cpu[core].regs.fixed_ctr[1] = after->cpu[core].regs.fixed_ctr[1];
		assert_int_equal(emu_pmu_diff(before, after, stderr), 0);
		free(after);
	}
	free(before);
	e2e_machine_free(&m);
}

/*
 * Fixed counter 2 held by perf: ref-cycles and CPU_CLK_UNHALTED.REF_TSC are
 * refused (3C/01 on a GP counter would count another clock), naming the
 * holder and the explicit alternative, and nothing is written.
 */
static void
test_reference_cycles_never_move(void **state)
{
	static const char *const names[] = { "ref-cycles", "CPU_CLK_UNHALTED.REF_TSC" };
	struct e2e_machine m;
	struct e2e_result r;
	char set[64];

	(void)state;
	snprintf(set, sizeof(set), "%d:0x38d=0xb00", core);
	{
		char cpus[16];

		snprintf(cpus, sizeof(cpus), "%d", core + 1);
		e2e_machine_new(&m, (const char *[]){ "--model", "skylake", "--cpus", cpus, "--set", set, NULL });
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct emu_pmu *before = e2e_state(&m), *after;

		e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", names[i], "--", WL, NULL });
		e2e_assert_status(&r, 125);
		e2e_assert_err_contains(&r, "counts only on fixed counter 2");
		e2e_assert_err_contains(&r, "perf_events");
		e2e_assert_err_contains(&r, "CPU_CLK_UNHALTED.REF_XCLK");
		after = e2e_state(&m);
		assert_int_equal(emu_pmu_diff(before, after, stderr), 0);
		assert_int_equal(after->cpu[core].stats.wrmsr, before->cpu[core].stats.wrmsr);
		free(before);
		free(after);
		e2e_result_free(&r);
	}
	/* Asked for explicitly, the bus-clock reference counts on a GP counter. */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-x", ",", "-e", "CPU_CLK_UNHALTED.REF_XCLK",
					  "--", WL, "--retire", "0x3c:1:99", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "99,,CPU_CLK_UNHALTED.REF_XCLK");
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

/* --dry-run prints the plan from the registers as they are, and writes nothing. */
static void
test_dry_run_plan(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before, *after;

	(void)state;
	machine(&m, "skylake", true);
	before = e2e_state(&m);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "--dry-run", "-e", "cycles,LLC_MISSES", "--",
					  WL, "--crash", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "counting plan for core");
	e2e_assert_err_contains(&r, "in use: fixed1 (field 0xb): the NMI watchdog");
	e2e_assert_err_contains(&r, "(fixed counter 1 is held by the NMI watchdog)");
	/* The watchdog keeps every GLOBAL_CTRL bit set: per-counter enables, EN last. */
	e2e_assert_err_contains(&r, "0x186 0x41003c");
	e2e_assert_err_contains(&r, "0x187 0x41412e");
	e2e_assert_err_contains(&r, "restore:");
	after = e2e_state(&m);
	assert_int_equal(after->cpu[core].stats.wrmsr, before->cpu[core].stats.wrmsr);
	assert_int_equal(emu_pmu_diff(before, after, stderr), 0);
	free(before);
	free(after);
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

static long long
run_of(json_t *root, const char *typed)
{
	return json_integer_value(json_object_get(row(root, typed), "run"));
}

/*
 * perf's groups: -e '{a,b}' counts its events in the same run of the
 * command. Five GP events on four counters: without braces the first four
 * share run 1; with them each group has a run of its own.
 */
static void
test_groups_counted_in_one_run(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before, *after;
	json_t *root;

	(void)state;
	machine(&m, "skylake", false);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "--json", "-o", out_path(&m),
					  "-e", "{r01c4,r02c4},{r03c4,r04c4,BR_INST_RETIRED.ALL_BRANCHES}", "--", WL,
					  "--retire", "0xc4:0:1000", NULL });
	e2e_assert_status(&r, 0);
	root = record(&m);
	assert_int_equal(json_integer_value(json_object_get(root, "runs")), 2);
	assert_int_equal(run_of(root, "r01c4"), 1);
	assert_int_equal(run_of(root, "r02c4"), 1);
	assert_int_equal(run_of(root, "r03c4"), 2);
	assert_int_equal(run_of(root, "r04c4"), 2);
	assert_int_equal(run_of(root, "BR_INST_RETIRED.ALL_BRANCHES"), 2);
	assert_int_equal(value(root, "BR_INST_RETIRED.ALL_BRANCHES"), 1000);
	json_decref(root);
	e2e_result_free(&r);

	/* A group larger than the free counters: refused with the reason, nothing touched. */
	before = e2e_state(&m);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "{r01c4,r02c4,r03c4,r04c4,r05c4}",
					  "--", WL, NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "event group {r01c4,r02c4,r03c4,r04c4,r05c4} cannot be counted in one run");
	e2e_assert_err_contains(&r, "drop the braces");
	after = e2e_state(&m);
	assert_int_equal(emu_pmu_diff(before, after, stderr), 0);
	free(before);
	free(after);
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

/*
 * The ratios of the table need both events from one run: the scheduler
 * keeps the pair together instead of splitting it (branches in run 1,
 * branch-misses in run 2, and no miss rate), without braces.
 */
static void
test_ratio_pairs_kept_together(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	json_t *root;

	(void)state;
	machine(&m, "skylake", false);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "--json", "-o", out_path(&m),
					  "-e", "r01c4,r02c4,r03c4,branches,branch-misses,cache-references,cache-misses",
					  "--", WL, "--retire", "0xc4:0:1000", "--retire", "0xc5:0:10", "--retire",
					  "0x2e:0x4f:400", "--retire", "0x2e:0x41:100", NULL });
	e2e_assert_status(&r, 0);
	root = record(&m);
	assert_int_equal(run_of(root, "branches"), run_of(root, "branch-misses"));
	assert_int_equal(run_of(root, "cache-references"), run_of(root, "cache-misses"));
	assert_int_equal(value(root, "branch-misses"), 10);
	assert_int_equal(value(root, "cache-misses"), 100);
	json_decref(root);
	e2e_result_free(&r);

	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e",
					  "r01c4,r02c4,r03c4,branches,branch-misses,cache-references,cache-misses",
					  "--", WL, "--retire", "0xc4:0:1000", "--retire", "0xc5:0:10", "--retire",
					  "0x2e:0x4f:400", "--retire", "0x2e:0x41:100", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "1.00% of all branches");
	e2e_assert_err_contains(&r, "25.00% of all cache refs");
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check_beside_the_default_set),
		cmocka_unit_test(test_same_event_twice),
		cmocka_unit_test(test_fixed_only_events_move_to_their_twin),
		cmocka_unit_test(test_reference_cycles_never_move),
		cmocka_unit_test(test_dry_run_plan),
		cmocka_unit_test(test_groups_counted_in_one_run),
		cmocka_unit_test(test_ratio_pairs_kept_together),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
