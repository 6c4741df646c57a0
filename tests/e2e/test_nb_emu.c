/*
 * test_nb_emu.c - NetBurst end to end on the emulated machines: the real
 * `pmustat info` on the netburst and netburst-ht models (detection,
 * IA32_MISC_ENABLE read, the honest verdict, nothing written), and the
 * workload's --nb clocks through the preloaded emulator, counted exactly
 * by counters programmed with the writes nb_encode_run() computes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "e2e_harness.h"
#include "pmus/netburst/nb_encode.h"
#include "pmus/netburst/nb_sched.h"
#include "nb_test_util.h"
#include "base/err.h"

static const char *events_dir;

static json_t *
info_json(const struct e2e_machine *m, const char *cpu, int status, struct e2e_result *r)
{
	json_error_t error;
	json_t *root;

	e2e_run(m, r, (const char *[]){ E2E_PMUSTAT, "info", "--json", "-C", cpu, NULL });
	e2e_assert_status(r, status);
	root = json_loads(r->out, 0, &error);
	if (!root)
		fail_msg("not JSON: %s", error.text);
	return root;
}

static json_t *
nb_of(json_t *root)
{
	json_t *nb = json_object_get(json_object_get(root, "pmu"), "netburst");

	assert_true(json_is_object(nb));
	return nb;
}

static void
test_info_detects_netburst(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before, *after;
	json_t *root, *nb;

	(void)state;
	e2e_machine_new(&m, (const char *[]){ "--model", "netburst", "--cpus", "1", NULL });
	before = e2e_state(&m);
	root = info_json(&m, "0", 0, &r);
	nb = nb_of(root);
	assert_int_equal(json_integer_value(json_object_get(nb, "counters")), 18);
	assert_int_equal(json_integer_value(json_object_get(nb, "width")), 40);
	assert_int_equal(json_integer_value(json_object_get(nb, "escrs")), 45);
	assert_string_equal(json_string_value(json_object_get(nb, "misc_enable")), "0x89");
	assert_true(json_is_true(json_object_get(nb, "perfmon_available")));
	assert_true(json_is_true(json_object_get(nb, "pebs_available")));
	assert_false(json_is_true(json_object_get(nb, "ht")));
	assert_string_equal(json_string_value(json_object_get(root, "event_table")), "netburst");
	assert_string_equal(json_string_value(json_object_get(root, "verdict")),
			    "pmustat can count on CPU 0 (counters read with rdpmc)");
	assert_true(json_is_true(json_object_get(root, "usable")));
	json_decref(root);
	e2e_result_free(&r);
	/* The human form says what the PMU is. */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "info", "-C", "0", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "NetBurst PMU: 18 counters \u00d7 40 bits, ESCR/CCCR");
	e2e_assert_err_contains(&r, "MISC_ENABLE  0x89: performance monitoring available");
	e2e_result_free(&r);
	/* It only read. */
	after = e2e_state(&m);
	assert_int_equal(emu_pmu_diff(before, after, stderr), 0);
	free(before);
	free(after);
	e2e_machine_free(&m);
}

/* HT: the thread is the CPU's, from its APIC ID; Prescott has 43 ESCRs. */
static void
test_info_ht_threads(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	json_t *root;

	(void)state;
	e2e_machine_new(&m, (const char *[]){ "--model", "netburst-ht", "--cpus", "2", NULL });
	for (int cpu = 0; cpu < 2; cpu++) {
		root = info_json(&m, cpu ? "1" : "0", 0, &r);
		assert_true(json_is_true(json_object_get(nb_of(root), "ht")));
		assert_int_equal(json_integer_value(json_object_get(nb_of(root), "thread")), cpu);
		assert_int_equal(json_integer_value(json_object_get(nb_of(root), "escrs")), 43);
		json_decref(root);
		e2e_result_free(&r);
	}
	e2e_machine_free(&m);
}

/* IA32_MISC_ENABLE[7] clear: the verdict names the register and the CPU. */
static void
test_info_perfmon_unavailable(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	json_t *root;

	(void)state;
	e2e_machine_new(&m, (const char *[]){ "--model", "netburst", "--cpus", "1", "--perfmon=off", NULL });
	root = info_json(&m, "0", 1, &r);
	assert_true(json_is_false(json_object_get(nb_of(root), "perfmon_available")));
	assert_string_equal(json_string_value(json_object_get(root, "verdict")),
			    "cannot count: IA32_MISC_ENABLE (0x1a0) bit 7 on CPU 0 says performance monitoring is unavailable");
	json_decref(root);
	e2e_result_free(&r);
	/* Without the msr driver the register is unknown, and info says why. */
	e2e_machine_free(&m);
	e2e_machine_new(&m, (const char *[]){ "--model", "netburst", "--cpus", "1", "--msr=absent", NULL });
	root = info_json(&m, "0", 1, &r);
	assert_true(json_is_null(json_object_get(nb_of(root), "misc_enable")));
	json_decref(root);
	e2e_result_free(&r);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "info", "-C", "0", NULL });
	e2e_assert_err_contains(&r, "MISC_ENABLE  unread: /dev/cpu/0/msr");
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

/*
 * pmustat's encodings, written as the pmu layer will write them, count the
 * workload's clocks exactly: the raw count, a threshold filter and a
 * complement+edge filter on one run.
 */
static void
test_encoded_run_counts_exactly(void **state)
{
	struct nb_table *t = nb_test_table(events_dir);
	static const struct nb_target target = { 2, false, 0 };
	struct e2e_machine m;
	struct e2e_result r;
	struct nb_event *ev;
	struct nb_slot slots[3];
	struct nb_run_writes w;
	unsigned runs, bad;
	struct pmustat_error *err = NULL;
	size_t n;

	(void)state;
	ev = nb_test_events(t, "instructions,instr_retired:threshold=2,"
			    "instr_retired:threshold=0:complement:edge", 2, &n);
	assert_int_equal(nb_sched_plan(ev, 3, 2, (1u << 18) - 1, ~0ull, slots, &runs, &bad, &err), 0);
	/* Three events on CRU_ESCR0/1: two ESCRs, so two runs. */
	assert_int_equal(runs, 2);
	e2e_machine_new(&m, (const char *[]){ "--model", "netburst", "--cpus", "1", NULL });
	for (unsigned run = 0; run < runs; run++) {
		assert_int_equal(nb_encode_run(ev, slots, 3, run, &target, &w, &err), 0);
		for (unsigned i = 0; i < w.n_program; i++)
			assert_int_equal(e2e_set_msr(&m, 0, w.program[i].msr, w.program[i].value), 0);
		for (unsigned i = 0; i < w.n_enable; i++)
			assert_int_equal(e2e_set_msr(&m, 0, w.enable[i].msr, w.enable[i].value), 0);
		/* Inputs 3, 0, 1, 5 x 10, 0 x 4, 2 (NBOGUSNTAG), and 100 kernel clocks. */
		e2e_run(&m, &r, (const char *[]){ "/usr/bin/taskset", "-c", "0", E2E_EMU_WORKLOAD,
			"--nb", "0x02:0x1:3,0,1,5*10,0*4,2", "--nb", "0x02:0x1:9*100:k", NULL });
		e2e_assert_status(&r, 0);
		e2e_result_free(&r);
		for (unsigned i = 0; i < w.n_disable; i++)
			assert_int_equal(e2e_set_msr(&m, 0, w.disable[i].msr, w.disable[i].value), 0);
		for (unsigned i = 0; i < 3; i++) {
			uint64_t count;

			if (slots[i].run != run)
				continue;
			count = e2e_msr(&m, 0, nb_counter_msr(slots[i].counter));
			print_message("%s: %llu\n", ev[i].requested, (unsigned long long)count);
			if (i == 0)		/* 3 + 0 + 1 + 50 + 0 + 2 */
				assert_int_equal(count, 56);
			else if (i == 1)	/* clocks above 2: 3, and 5 ten times */
				assert_int_equal(count, 11);
			else			/* user clocks turning to "input <= 0": 0 after 3, 0 after 5s, and the kernel run */
				assert_int_equal(count, 3);
		}
	}
	free(ev);
	nb_table_free(t);
	e2e_machine_free(&m);
	err_clear(&err);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_info_detects_netburst),
		cmocka_unit_test(test_info_ht_threads),
		cmocka_unit_test(test_info_perfmon_unavailable),
		cmocka_unit_test(test_encoded_run_counts_exactly),
	};

	if (argc != 2) {
		fprintf(stderr, "usage: %s EVENTS_DIR\n", argv[0]);
		return 2;
	}
	events_dir = argv[1];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
