/*
 * test_stat_models_e2e.c - e2e-stat on models other than the default:
 * Haswell's legacy writes, a hybrid's table, Ice Lake's slots, Core 2's
 * 40-bit counters, and counting without rdpmc.
 */
#include "stat_e2e.h"

void
test_legacy_writes_haswell(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before;
	char out[PATH_MAX + 16];
	json_t *root;

	(void)state;
	machine(&m, "haswell", false);
	json_path(&m, out, sizeof(out));
	/* A leftover counter value that legacy (sign-extending) writes can rebuild. */
	assert_int_equal(e2e_set_msr(&m, (unsigned)core, MSR_IA32_PMC0, 0x80001234), 0);
	before = e2e_state(&m);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "--json", "-o", out,
					  "-e", "branches", WL, "--retire", "0xc4:0:4294967300", NULL });
	e2e_assert_status(&r, 0);
	root = load_json(&m);
	/* Past 2^32: the legacy 32-bit write path does not cut counts. */
	assert_int_equal(value_at(root, 0), 4294967300ll);
	json_decref(root);
	assert_restored(&m, before);
	free(before);
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

void
test_hybrid_table_of_the_core(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	char cpus[16], out[PATH_MAX + 16];
	json_t *root;

	(void)state;
	if (core == 0) {
		print_message("skipped: needs a second CPU to run on\n");
		skip();
	}
	/* CPUs [0, core) are P-cores, the last one an E-core. */
	snprintf(cpus, sizeof(cpus), "%d", core + 1);
	{
		char pcores[16];

		snprintf(pcores, sizeof(pcores), "%d", core);
		e2e_machine_new(&m, (const char *[]){ "--model", "alderlake", "--cpus", cpus,
						      "--pcores", pcores, NULL });
	}
	json_path(&m, out, sizeof(out));
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "--json", "-o", out,
					  "-e", "instructions", WL, "--retire", "0xc0:0:11", NULL });
	e2e_assert_status(&r, 0);
	root = load_json(&m);
	assert_string_equal(json_string_value(json_object_get(root, "event_table")), "alderlake_gracemont");
	assert_int_equal(value_at(root, 0), 11);
	json_decref(root);
	e2e_result_free(&r);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "0", "--dry-run", "--json", "-o", out,
					  "-e", "instructions", WL, NULL });
	e2e_assert_status(&r, 0);
	root = load_json(&m);
	assert_string_equal(json_string_value(json_object_get(root, "event_table")), "alderlake_goldencove");
	json_decref(root);
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

void
test_icelake_slots_by_default(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;

	(void)state;
	machine(&m, "icelake", false);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-x", ",", WL,
					  "--retire", "0xa4:1:12345", "--retire", "0xc0:0:11", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "12345,,slots:u,TOPDOWN_SLOTS,fixed3,1,counted,,");
	e2e_assert_err_contains(&r, "11,,instructions:u,INSTRUCTIONS_RETIRED,fixed0,1,counted,,");
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

void
test_msr_reads_without_rdpmc(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before;
	char cpus[16], out[PATH_MAX + 16];
	json_t *root;

	(void)state;
	snprintf(cpus, sizeof(cpus), "%d", core + 1);
	e2e_machine_new(&m, (const char *[]){ "--model", "skylake", "--cpus", cpus, "--rdpmc=off", NULL });
	json_path(&m, out, sizeof(out));
	before = e2e_state(&m);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "--json", "-o", out,
					  "-e", "instructions,branches", WL, USER_WORK, NULL });
	e2e_assert_status(&r, 0);
	root = load_json(&m);
	assert_string_equal(json_string_value(json_object_get(root, "read_method")), "MSR reads");
	assert_int_equal(value_at(root, 0), 5000);
	assert_int_equal(value_at(root, 1), 700);
	json_decref(root);
	assert_restored(&m, before);
	free(before);
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

void
test_core2_v2_40_bit(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before;
	char out[PATH_MAX + 16];
	json_t *root;

	(void)state;
	machine(&m, "core2", false);
	json_path(&m, out, sizeof(out));
	before = e2e_state(&m);
	/* No table for Core 2: architectural events; 40-bit counters wrap past 2^40. */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "--json", "-o", out,
					  "-e", "instructions,branches", WL,
					  "--retire", "0xc0:0:1099511627786", "--retire", "0xc4:0:8", NULL });
	e2e_assert_status(&r, 0);
	root = load_json(&m);
	assert_true(json_is_null(json_object_get(root, "event_table")));
	assert_int_equal(value_at(root, 0), (1ll << 40) + 10);
	assert_int_equal(value_at(root, 1), 8);
	json_decref(root);
	assert_restored(&m, before);
	free(before);
	e2e_result_free(&r);
	e2e_machine_free(&m);
}
