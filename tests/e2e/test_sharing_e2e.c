/*
 * test_sharing_e2e.c - living beside perf and the kernel: the emulated
 * machine plays the other users of the PMU (a perf PEBS event, whose
 * counter has no interrupt bit and shows only in IA32_PEBS_ENABLE and
 * GLOBAL_INUSE[63]), and pmustat's stat, state and reset must treat what
 * they hold as theirs, and a counter they stopped mid-run is not counted.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <jansson.h>

#include "e2e_harness.h"
#include "pmu/msr.h"

static json_t *
parse(const char *text)
{
	json_error_t jerr;
	json_t *root = json_loads(text, 0, &jerr);

	if (!root)
		fail_msg("not JSON (%s): %s", jerr.text, text);
	return root;
}

static const char *
owner_of(json_t *root, const char *name)
{
	json_t *core = json_array_get(json_object_get(root, "cores"), 0);
	size_t i;
	json_t *c;

	json_array_foreach(json_object_get(core, "counters"), i, c)
		if (strcmp(json_string_value(json_object_get(c, "counter")), name) == 0)
			return json_string_value(json_object_get(c, "owner"));
	fail_msg("no counter %s", name);
	return NULL;
}

/*
 * perf holds pmc0 for a PEBS event (EVTSEL with EN and no INT, its
 * IA32_PEBS_ENABLE bit): state calls it perf's, reset --zero leaves it,
 * and a stat run that would need it names perf.
 */
static void
test_pebs_counter_belongs_to_perf(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	uint64_t evtsel0;
	json_t *root;

	(void)state;
	e2e_machine_new(&m, (const char *[]){ "--model", "skylake", "--cpus", "2", NULL });
	assert_int_equal(e2e_act(&m, 1, "pebs:0:0xc0:0"), 0);
	evtsel0 = e2e_msr(&m, 1, msr_evtsel(0));
	assert_int_equal(evtsel0 & EVTSEL_INT, 0);	/* as Linux programs a PEBS event */

	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "state", "-C", "1", "--json", NULL });
	e2e_assert_status(&r, 0);
	root = parse(r.out);
	assert_string_equal(owner_of(root, "pmc0"), "perf");
	json_decref(root);
	e2e_result_free(&r);

	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "reset", "-C", "1", "--zero", "--yes", NULL });
	e2e_assert_status(&r, 0);
	assert_null(strstr(r.err, "cleared pmc0"));
	assert_int_equal(e2e_msr(&m, 1, msr_evtsel(0)), evtsel0);
	assert_int_equal(e2e_msr(&m, 1, 0x3f1), 1);
	e2e_result_free(&r);

	/* A stat run schedules around it, naming perf, and leaves it as it was. */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "1", "-v", "-e", "r01c4", "--",
		m.workload, "--quiet", "--retire", "0xc4:1:7", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "pmc0 (IA32_PERFEVTSEL0 = 0x4300c0): perf_events");
	e2e_assert_err_contains(&r, "r01c4 ");
	assert_int_equal(e2e_msr(&m, 1, msr_evtsel(0)), evtsel0);
	assert_int_equal(e2e_msr(&m, 1, 0x3f1), 1);
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

/*
 * perf takes fixed counter 1 in the middle of a run (its field of
 * FIXED_CTR_CTRL, its GLOBAL_CTRL bit): pmustat's disable and restore
 * change only pmustat's own fields and bits, so perf's counter keeps
 * counting after pmustat is gone.
 */
static void
test_counter_taken_mid_run_keeps_running(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;

	(void)state;
	e2e_machine_new(&m, (const char *[]){ "--model", "skylake", "--cpus", "2", NULL });
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "1", "-x", ",", "-e", "INST_RETIRED.ANY", "--",
		m.workload, "--quiet", "--cpu", "1", "--retire", "0xc0:0:300", "--act", "take-fixed:1", "--retire",
		"0xc0:0:200", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "500,,INST_RETIRED.ANY");
	/* perf's field (OS|USR|PMI) and enable are still there; pmustat's are as found. */
	assert_int_equal(e2e_msr(&m, 1, MSR_IA32_FIXED_CTR_CTRL), 0xb0);
	assert_int_equal(e2e_msr(&m, 1, MSR_IA32_PERF_GLOBAL_CTRL), 0x20000000full);
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

static json_t *
event_of(json_t *root, unsigned i)
{
	json_t *e = json_array_get(json_object_get(root, "events"), i);

	assert_non_null(e);
	return e;
}

/*
 * perf programs pmc0, which pmustat holds behind its back, in the middle
 * of a run (its event select, its counter, every GLOBAL_CTRL bit, as
 * x86_pmu_enable does): pmustat finds the counter is not its own any
 * more when it comes to stop it, reports that count as not counted (on
 * stderr and in the JSON) and leaves perf's counter running as perf set
 * it; fixed counter 0, still pmustat's, is exact.
 */
static void
test_counter_reprogrammed_mid_run_is_not_counted(void **state)
{
	const uint64_t perf_evtsel = 0x5300c4;	/* branches: EN, INT, OS, USR */
	struct e2e_machine m;
	struct e2e_result r;
	json_t *root;

	(void)state;
	/* Nobody's GLOBAL_CTRL bits set: pmustat toggles its own too. */
	e2e_machine_new(&m, (const char *[]){ "--model", "skylake", "--cpus", "2", "--set", "0x38f=0", NULL });
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "1", "--json", "-e", "INST_RETIRED.ANY,r00c0", "--",
		m.workload, "--quiet", "--cpu", "1", "--retire", "0xc0:0:300", "--act", "wrmsr:0x186=0x5300c4",
		"--act", "wrmsr:0xc1=0x1000", "--act", "wrmsr:0x38f=0x70000000f", "--retire", "0xc0:0:200",
		"--retire", "0xc4:0:50", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "another user (perf?) programmed pmc0 during the run (IA32_PERFEVTSEL0 = 0x5300c4");
	root = json_loads(strstr(r.err, "{"), 0, NULL);
	assert_non_null(root);
	assert_int_equal(json_integer_value(json_object_get(event_of(root, 0), "value")), 500);
	assert_true(json_is_null(json_object_get(event_of(root, 1), "value")));
	assert_string_equal(json_string_value(json_object_get(event_of(root, 1), "status")),
			    "not counted: counter taken by another user");
	json_decref(root);
	/* perf's counter is as perf left it, still enabled; pmustat's fixed counter is back to clear. */
	assert_int_equal(e2e_msr(&m, 1, msr_evtsel(0)), perf_evtsel);
	assert_int_equal(e2e_msr(&m, 1, msr_pmc(0)), 0x1000 + 50);
	assert_int_equal(e2e_msr(&m, 1, MSR_IA32_PERF_GLOBAL_CTRL), 0x60000000full);
	assert_int_equal(e2e_msr(&m, 1, MSR_IA32_FIXED_CTR_CTRL), 0);
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

/*
 * Another user clears the general-purpose enables in IA32_PERF_GLOBAL_CTRL
 * mid-run and leaves them clear (a tool, or a kernel that rewrites the
 * register with only its own counters' bits): pmc0 stopped counting then.
 * pmustat finds it before the disable and reports that count as not
 * counted, instead of a short one; fixed counter 0, still enabled, is
 * exact, and GLOBAL_CTRL is left as that user set it.
 */
static void
test_enable_cleared_in_global_ctrl_is_not_counted(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	json_t *root;

	(void)state;
	/* Every enable set, as Linux leaves them: pmustat writes no GLOBAL_CTRL bit of its own. */
	e2e_machine_new(&m, (const char *[]){ "--model", "skylake", "--cpus", "2", "--set", "0x38f=0x70000000f", NULL });
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "1", "--json", "-e", "INST_RETIRED.ANY,LLC_MISSES", "--",
		m.workload, "--quiet", "--cpu", "1", "--retire", "0xc0:0:300", "--retire", "0x2e:0x41:5",
		"--act", "wrmsr:0x38f=0x700000000", "--retire", "0xc0:0:200", "--retire", "0x2e:0x41:7", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "another user cleared the enable of pmc0 during the run");
	root = json_loads(strstr(r.err, "{"), 0, NULL);
	assert_non_null(root);
	assert_int_equal(json_integer_value(json_object_get(event_of(root, 0), "value")), 500);
	assert_true(json_is_null(json_object_get(event_of(root, 1), "value")));
	assert_string_equal(json_string_value(json_object_get(event_of(root, 1), "status")),
			    "not counted: counter stopped by another user");
	json_decref(root);
	assert_int_equal(e2e_msr(&m, 1, MSR_IA32_PERF_GLOBAL_CTRL), 0x700000000ull);
	assert_int_equal(e2e_msr(&m, 1, msr_evtsel(0)), 0);
	assert_int_equal(e2e_msr(&m, 1, MSR_IA32_FIXED_CTR_CTRL), 0);
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

#define CTR_FRZ "0x800000000000000"	/* GLOBAL_STATUS bit 59 */

/*
 * A PMI with FREEZE_PERFMON_ON_PMI left the PMU frozen (CTR_Frz): nothing
 * counts. pmustat refuses, saying what froze it and how to clear it, and
 * touches nothing; with --force it clears the bit, counts, and sets it
 * back as it found it.
 */
static void
test_frozen_pmu_is_reported(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before, *after;

	(void)state;
	e2e_machine_new(&m, (const char *[]){ "--model", "skylake", "--cpus", "2", "--set", "0x391=" CTR_FRZ, NULL });
	before = e2e_state(&m);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "1", "-e", "INST_RETIRED.ANY", "--",
		m.workload, "--quiet", "--retire", "0xc0:0:1000", NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "frozen");
	e2e_assert_err_contains(&r, "CTR_Frz");
	e2e_assert_err_contains(&r, "FREEZE_PERFMON_ON_PMI");
	/* Who sets it: not perf's LBR call stacks (those set FREEZE_LBRS_ON_PMI, LBR_Frz). */
	e2e_assert_err_contains(&r, "Linux 4.20 to 5.9 with counter freezing");
	assert_null(strstr(r.err, "LBR call stacks sets it"));
	e2e_assert_err_contains(&r, "--force");
	after = e2e_state(&m);
	assert_int_equal(emu_pmu_diff(before, after, stderr), 0);
	assert_int_equal(after->cpu[1].stats.wrmsr, before->cpu[1].stats.wrmsr);
	free(after);
	e2e_result_free(&r);

	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "1", "--force", "-x", ",", "-e", "INST_RETIRED.ANY", "--",
		m.workload, "--quiet", "--retire", "0xc0:0:1000", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "1000,,INST_RETIRED.ANY");
	assert_int_equal(e2e_msr(&m, 1, MSR_IA32_PERF_GLOBAL_STATUS), 0x800000000000000ull);
	e2e_result_free(&r);
	free(before);
	e2e_machine_free(&m);
}

/* Frozen in the middle of the run (another user's PMI): the counts are not trusted, and say why. */
static void
test_frozen_mid_run_is_reported(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;

	(void)state;
	e2e_machine_new(&m, (const char *[]){ "--model", "skylake", "--cpus", "2", NULL });
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "1", "-e", "INST_RETIRED.ANY", "--",
		m.workload, "--quiet", "--cpu", "1", "--retire", "0xc0:0:300", "--act", "wrmsr:0x391=" CTR_FRZ,
		"--retire", "0xc0:0:200", NULL });
	e2e_assert_err_contains(&r, "frozen");
	e2e_assert_err_contains(&r, "CTR_Frz");
	assert_null(strstr(r.err, "  300      INST_RETIRED.ANY"));
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

/*
 * A --force run over a frozen PMU cleared CTR_Frz and is then SIGKILLed
 * while it counts: its journal says the PMU was frozen, so `reset` puts
 * the freeze back with everything else, bit for bit as the run found it.
 */
static void
test_killed_force_run_refreezes_on_reset(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before, *after;
	pid_t pid;

	(void)state;
	e2e_machine_new(&m, (const char *[]){ "--model", "skylake", "--cpus", "2", "--set", "0x391=" CTR_FRZ, NULL });
	before = e2e_state(&m);
	pid = e2e_spawn(&m, (const char *[]){ E2E_PMUSTAT, "-C", "1", "--force", "-e", "INST_RETIRED.ANY", "--",
		m.workload, "--quiet", "--sleep", "10000", NULL }, NULL);
	/* Unfrozen and counting: fixed counter 0's field is set at the enable. */
	assert_true(e2e_wait_msr(&m, 1, MSR_IA32_FIXED_CTR_CTRL, 0xf, 0x2, 5000));
	assert_int_equal(e2e_msr(&m, 1, MSR_IA32_PERF_GLOBAL_STATUS) & 0x800000000000000ull, 0);
	kill(-pid, SIGKILL);
	assert_int_equal(e2e_reap(pid), 128 + SIGKILL);

	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "reset", "-C", "1", NULL });
	e2e_assert_status(&r, 0);
	after = e2e_state(&m);
	assert_int_equal(emu_pmu_diff(before, after, stderr), 0);
	assert_int_equal(e2e_msr(&m, 1, MSR_IA32_PERF_GLOBAL_STATUS), 0x800000000000000ull);
	free(after);
	free(before);
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

/*
 * perf's cycles-t on pmc2 (IN_TX and IN_TXCP, bits 32 and 33, which the
 * hardware accepts on EVTSEL2 with TSX), taken by a --force run that is
 * then killed: the journal holds perf's value, and reset puts it back.
 */
static void
test_journal_takes_tsx_event_selects(void **state)
{
	const uint64_t cycles_t = 0x30053003cull;	/* IN_TXCP|IN_TX, EN, INT, OS, USR, 0x3c */
	struct e2e_machine m;
	struct e2e_result r;
	pid_t pid;

	(void)state;
	e2e_machine_new(&m, (const char *[]){ "--model", "skylake", "--cpus", "2", "--set", "1:0x188=0x30053003c",
		NULL });
	assert_int_equal(e2e_msr(&m, 1, msr_evtsel(2)), cycles_t);
	pid = e2e_spawn(&m, (const char *[]){ E2E_PMUSTAT, "-C", "1", "--force", "-e", "r01c4,r02c4,r04c4,r08c4", "--",
		m.workload, "--quiet", "--sleep", "10000", NULL }, NULL);
	assert_true(e2e_wait_msr(&m, 1, msr_evtsel(2), 0xffff, 0x04c4, 5000));
	kill(-pid, SIGKILL);
	assert_int_equal(e2e_reap(pid), 128 + SIGKILL);

	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "reset", "-C", "1", NULL });
	e2e_assert_status(&r, 0);
	assert_int_equal(e2e_msr(&m, 1, msr_evtsel(2)), cycles_t);
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

/*
 * perf's event with branch-counter logging (EVTSEL bit 35, which Linux
 * sets for the LBR event logging of Sierra Forest, Lunar and Arrow Lake:
 * CPUID.7.0:EDX[19] and the counters of CPUID.1CH:ECX[19:16]) on pmc0 of
 * an Arrow Lake P-core, taken by a --force run that is then killed: the
 * journal holds perf's value, and reset puts it back.
 */
static void
test_journal_takes_branch_counter_logging(void **state)
{
	const uint64_t br_cntr = 0x8005300c4ull;	/* BR_CNTR, EN, INT, OS, USR, 0xc4 */
	struct e2e_machine m;
	struct e2e_result r;
	pid_t pid;

	(void)state;
	e2e_machine_new(&m, (const char *[]){ "--model", "arrowlake", "--cpus", "2", "--gp", "4",
		"--set", "0:0x186=0x8005300c4", NULL });
	assert_int_equal(e2e_msr(&m, 0, msr_evtsel(0)), br_cntr);
	pid = e2e_spawn(&m, (const char *[]){ E2E_PMUSTAT, "-C", "0", "--force", "-e", "r01c4,r02c4,r04c4,r08c4", "--",
		m.workload, "--quiet", "--sleep", "10000", NULL }, NULL);
	assert_true(e2e_wait_msr(&m, 0, msr_evtsel(0), 1ull << 35 | EVTSEL_EN, EVTSEL_EN, 5000));
	kill(-pid, SIGKILL);
	assert_int_equal(e2e_reap(pid), 128 + SIGKILL);

	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "reset", "-C", "0", NULL });
	e2e_assert_status(&r, 0);
	assert_int_equal(e2e_msr(&m, 0, msr_evtsel(0)), br_cntr);
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pebs_counter_belongs_to_perf),
		cmocka_unit_test(test_counter_taken_mid_run_keeps_running),
		cmocka_unit_test(test_counter_reprogrammed_mid_run_is_not_counted),
		cmocka_unit_test(test_enable_cleared_in_global_ctrl_is_not_counted),
		cmocka_unit_test(test_frozen_pmu_is_reported),
		cmocka_unit_test(test_frozen_mid_run_is_reported),
		cmocka_unit_test(test_journal_takes_tsx_event_selects),
		cmocka_unit_test(test_journal_takes_branch_counter_logging),
		cmocka_unit_test(test_killed_force_run_refreezes_on_reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
