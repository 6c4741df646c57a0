/*
 * test_kernel_resets_e2e.c - what the kernel does to a run's counters
 * behind its back, end to end on the emulated machine playing the kernel:
 *  - Linux's PMI handler, on GLOBAL_STATUS[48] (PERF_METRICS overflow),
 *    zeroes FIXED_CTR3 and PERF_METRICS although it owns no top-down
 *    event: a counter that steps backwards between two reads is a reset,
 *    not a wrap, and never reads as a number near 2^48;
 *  - a VM whose IA32_MISC_ENABLE[12] says PEBS is unavailable, where
 *    IA32_PEBS_ENABLE faults although CPUID has DS.
 */
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "e2e_harness.h"
#include "emu_pmu.h"
#include "pmu/msr.h"

#define SLOTS_STEP "500:500:500:500"	/* 2,000 slots a burst */
#define METRICS_OVF "0x1000000000000"	/* GLOBAL_STATUS bit 48 */

static char *
slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *text = calloc(1, 65536);

	assert_non_null(f);
	assert_non_null(text);
	(void)fread(text, 1, 65535, f);
	fclose(f);
	return text;
}


/* Event @name of the JSON @root: its object. */
static json_t *
named(json_t *root, const char *name)
{
	size_t i;
	json_t *e;

	json_array_foreach(json_object_get(root, "events"), i, e)
		if (strcmp(json_string_value(json_object_get(e, "name")), name) == 0)
			return e;
	fail_msg("no event %s", name);
	return NULL;
}

/*
 * TOPDOWN.SLOTS over four bursts of 2,000 slots; after the third, and
 * after pmustat's sampler has read 6,000, the kernel's PMI handler finds
 * PERF_METRICS' overflow bit and zeroes FIXED_CTR3. The count keeps the
 * 6,000 read before the reset and the 2,000 since: 8,000, with a warning
 * naming the reset.
 */
static void
test_slots_reset_by_the_kernel_is_no_wrap(void **state)
{
	struct e2e_machine m;
	struct e2e_sync s;
	char out[PATH_MAX + 8];
	pid_t pid;
	json_t *root;
	char *text;

	(void)state;
	e2e_machine_new(&m, (const char *[]){ "--model", "icelake", "--cpus", "2", NULL });
	e2e_sync_new(&m, &s, "reset");
	snprintf(out, sizeof(out), "%s.err", s.prefix);
	/* stderr (the JSON and the warnings) to a file: a shell in front of pmustat. */
	pid = e2e_spawn(&m, (const char *[]){ "/bin/sh", "-c", "f=$1; shift; exec \"$@\" 2>\"$f\"", "sh", out,
		E2E_PMUSTAT, "-C", "1", "--json", "-e", "TOPDOWN.SLOTS", "--",
		m.workload, "--quiet", "--cpu", "1", "--topdown", SLOTS_STEP, "--topdown", SLOTS_STEP,
		"--topdown", SLOTS_STEP, "--sync", s.prefix, "--topdown", SLOTS_STEP, NULL }, NULL);
	assert_true(e2e_sync_wait(&s, 10000));
	/* pmustat reads the counters at least once a second: let it read the 6,000. */
	usleep(1300 * 1000);
	assert_int_equal(e2e_act(&m, 1, "wrmsr:0x391=" METRICS_OVF), 0);
	assert_int_equal(e2e_act(&m, 1, "nmi"), 0);
	assert_int_equal(e2e_msr(&m, 1, msr_fixed_ctr(3)), 0);
	e2e_sync_release(&s);
	assert_int_equal(e2e_reap(pid), 0);
	e2e_sync_free(&s);
	text = slurp(out);
	root = json_loads(strstr(text, "{"), 0, NULL);
	assert_non_null(root);
	assert_int_equal(json_integer_value(json_object_get(named(root, "TOPDOWN.SLOTS"), "value")), 8000);
	assert_non_null(strstr(text, "another user reset fixed3 (TOPDOWN.SLOTS) during the run: it stepped back from 6000"));
	json_decref(root);
	free(text);
	e2e_machine_free(&m);
}

static void
assert_not_counted(json_t *root, const char *name, const char *status)
{
	json_t *e = named(root, name);

	assert_true(json_is_null(json_object_get(e, "value")));
	assert_string_equal(json_string_value(json_object_get(e, "status")), status);
}

/*
 * The hardware sets GLOBAL_STATUS[48] mid-run: PERF_METRICS' own counts
 * overflowed (the emulator plays it with GLOBAL_STATUS_SET; nobody's PMI
 * handles it). The bytes are not the run's: not counted, said once; the
 * slots are exact.
 */
static void
test_metrics_overflow_is_not_counted(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	json_t *root;

	(void)state;
	e2e_machine_new(&m, (const char *[]){ "--model", "icelake", "--cpus", "2", NULL });
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "1", "--json", "-M", "tma_retiring", "--",
		m.workload, "--quiet", "--cpu", "1", "--topdown", SLOTS_STEP, "--act", "wrmsr:0x391=" METRICS_OVF,
		"--topdown", SLOTS_STEP, NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "core 1: IA32_PERF_METRICS overflowed during the run (IA32_PERF_GLOBAL_STATUS bit 48)");
	root = json_loads(strstr(r.err, "{"), 0, NULL);
	assert_non_null(root);
	assert_int_equal(json_integer_value(json_object_get(named(root, "TOPDOWN.SLOTS"), "value")), 4000);
	assert_not_counted(root, "PERF_METRICS.RETIRING", "not counted: PERF_METRICS overflowed");
	assert_not_counted(root, "PERF_METRICS.BACKEND_BOUND", "not counted: PERF_METRICS overflowed");
	json_decref(root);
	/* pmustat's overflow bit, cleared with the rest of its own. */
	assert_int_equal(e2e_msr(&m, 1, MSR_IA32_PERF_GLOBAL_STATUS) & GLOBAL_PERF_METRICS_BIT, 0);
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

/*
 * The kernel's PMI handler folds and zeroes the pair mid-run (as in the
 * first test, now with the metrics read; fewer slots after the reset than
 * before, so the counter steps backwards): the slots keep what was read
 * before; the bytes, fractions of the slots since the reset only, are not
 * counted.
 */
static void
test_metrics_reset_by_the_kernel_is_not_counted(void **state)
{
	char out[PATH_MAX + 8];
	struct e2e_machine m;
	struct e2e_sync s;
	json_t *root;
	char *text;
	pid_t pid;

	(void)state;
	e2e_machine_new(&m, (const char *[]){ "--model", "icelake", "--cpus", "2", NULL });
	e2e_sync_new(&m, &s, "reset");
	snprintf(out, sizeof(out), "%s.err", s.prefix);
	pid = e2e_spawn(&m, (const char *[]){ "/bin/sh", "-c", "f=$1; shift; exec \"$@\" 2>\"$f\"", "sh", out,
		E2E_PMUSTAT, "-C", "1", "--json", "-M", "tma_retiring", "--",
		m.workload, "--quiet", "--cpu", "1", "--topdown", SLOTS_STEP, "--topdown", SLOTS_STEP, "--sync", s.prefix,
		"--topdown", SLOTS_STEP, NULL }, NULL);
	assert_true(e2e_sync_wait(&s, 10000));
	usleep(1300 * 1000);
	assert_int_equal(e2e_act(&m, 1, "wrmsr:0x391=" METRICS_OVF), 0);
	assert_int_equal(e2e_act(&m, 1, "nmi"), 0);
	e2e_sync_release(&s);
	assert_int_equal(e2e_reap(pid), 0);
	e2e_sync_free(&s);
	text = slurp(out);
	assert_non_null(strstr(text, "another user reset fixed counter 3 and IA32_PERF_METRICS during the run"));
	root = json_loads(strstr(text, "{"), 0, NULL);
	assert_non_null(root);
	assert_int_equal(json_integer_value(json_object_get(named(root, "TOPDOWN.SLOTS"), "value")), 6000);
	assert_not_counted(root, "PERF_METRICS.RETIRING", "not counted: PERF_METRICS reset by another user");
	json_decref(root);
	free(text);
	e2e_machine_free(&m);
}

/*
 * A KVM guest without PEBS: CPUID has DS, IA32_MISC_ENABLE[12] says PEBS
 * is unavailable, IA32_PEBS_ENABLE raises #GP. stat, state and reset work
 * there, never touching 0x3F1 (the emulator counts the #GPs), and the run
 * leaves the PMU as it found it.
 */
static void
test_vm_without_pebs(void **state)
{
	struct emu_pmu *before, *after;
	struct e2e_machine m;
	struct e2e_result r;

	(void)state;
	e2e_machine_new(&m, (const char *[]){ "--model", "skylake", "--cpus", "2", "--pebs=off", NULL });
	before = e2e_state(&m);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "1", "-x", ",", "-e", "INST_RETIRED.ANY", "--",
		m.workload, "--quiet", "--cpu", "1", "--retire", "0xc0:0:1000", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "1000,,INST_RETIRED.ANY");
	e2e_result_free(&r);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "state", "-C", "1", NULL });
	e2e_assert_status(&r, 0);
	e2e_result_free(&r);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "reset", "-C", "1", NULL });
	e2e_assert_status(&r, 0);
	e2e_result_free(&r);
	after = e2e_state(&m);
	assert_int_equal(emu_pmu_diff(before, after, stderr), 0);
	assert_int_equal(after->cpu[1].stats.gp_faults, 0);
	free(before);
	free(after);
	e2e_machine_free(&m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slots_reset_by_the_kernel_is_no_wrap),
		cmocka_unit_test(test_metrics_overflow_is_not_counted),
		cmocka_unit_test(test_metrics_reset_by_the_kernel_is_not_counted),
		cmocka_unit_test(test_vm_without_pebs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
