/*
 * test_counters_e2e.c - every counter CPUID enumerates, end to end: the
 * real binary on the emulated Arrow Lake (tests/emu, model "arrowlake"),
 * whose CPU 0 is a Lion Cove P-core (CPUID.23H.1: GP counters 0-9, fixed
 * 0-3) and CPU 1 a Skymont E-core (GP 0-7, fixed 0-2 and 4-6: a bitmap
 * with a hole at 3), while leaf 0xA says 8 GP and fixed 0-2 on both.
 *
 * GP counters 8 and 9 (IA32_PERFEVTSEL8/9 0x18E/0x18F, IA32_PMC8/9) and
 * fixed counters 4-6 (IA32_FIXED_CTR4-6 0x30D-0x30F, GLOBAL_CTRL bits
 * 36-38) count exactly and are restored bit for bit on every path, a
 * killed run included; the E-core's missing fixed counter 3 is never
 * touched (the emulator raises #GP on it, and the test counts #GPs).
 */
#include <jansson.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "e2e_harness.h"
#include "e2e_journal.h"
#include "emu_pmu.h"
#include "pmu/msr.h"

#define WL E2E_EMU_WORKLOAD
#define PCORE 0u
#define ECORE 1u

/* Ten raw events on the P-core, 0x10-0x19 umask 1, and what the workload retires of each. */
#define NGP 10
static char gp_events[NGP * 32];
static const char *gp_retire[NGP * 2];

static void
machine(struct e2e_machine *m)
{
	e2e_machine_new(m, (const char *[]){ "--model", "arrowlake", "--cpus", "2", NULL });
}

static void
make_gp_events(void)
{
	static char retire[NGP][32];
	size_t used = 0;

	for (unsigned i = 0; i < NGP; i++) {
		used += (size_t)snprintf(gp_events + used, sizeof(gp_events) - used, "%scpu/event=0x%x,umask=0x1/",
					 i ? "," : "", 0x10 + i);
		snprintf(retire[i], sizeof(retire[i]), "0x%x:1:%u", 0x10 + i, 1000 + i);
		gp_retire[2 * i] = "--retire";
		gp_retire[2 * i + 1] = retire[i];
	}
}

static uint64_t
gp_faults(const struct e2e_machine *m, unsigned cpu)
{
	struct emu_pmu *p = e2e_state(m);
	uint64_t n = p->cpu[cpu].stats.gp_faults;

	free(p);
	return n;
}

static void
assert_same(const struct e2e_machine *m, const struct emu_pmu *before)
{
	struct emu_pmu *after = e2e_state(m);

	assert_int_equal(emu_pmu_diff(before, after, stderr), 0);
	free(after);
}

/* argv: pmustat -C CPU --no-rerun -e EVENTS -- emu-workload [--sync S] RETIRES... */
static void
stat_argv(const char **argv, const char *cpu, const char *events, const char *sync, const char *const *retire,
	  unsigned nretire)
{
	unsigned k = 0;

	argv[k++] = E2E_PMUSTAT;
	argv[k++] = "-C";
	argv[k++] = cpu;
	argv[k++] = "--no-rerun";
	argv[k++] = "-x,";
	argv[k++] = "-e";
	argv[k++] = events;
	argv[k++] = "--";
	argv[k++] = WL;
	if (sync) {
		argv[k++] = "--sync";
		argv[k++] = sync;
	}
	for (unsigned i = 0; i < nretire; i++)
		argv[k++] = retire[i];
	argv[k] = NULL;
}

/* Ten events at once on the P-core: GP counters 8 and 9 count, exactly, and go back as found. */
static void
test_ten_gp_counters(void **state)
{
	const char *argv[9 + 2 + 2 * NGP + 1];
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before;
	struct e2e_sync s;
	char line[128];
	pid_t pid;

	(void)state;
	machine(&m);
	/* Values worth restoring in the two counters only CPUID.23H enumerates. */
	assert_int_equal(e2e_set_msr(&m, PCORE, msr_a_pmc(8), 0x123456789aull), 0);
	assert_int_equal(e2e_set_msr(&m, PCORE, msr_a_pmc(9), 0xfedcba98ull), 0);
	before = e2e_state(&m);

	e2e_sync_new(&m, &s, "mid");
	stat_argv(argv, "0", gp_events, s.prefix, gp_retire, 2 * NGP);
	pid = e2e_spawn(&m, argv, NULL);
	assert_true(e2e_sync_wait(&s, 20000));
	/* Mid-run: counters 8 and 9 are enabled by their own EN bit and GLOBAL_CTRL bits 8, 9. */
	assert_true(e2e_msr(&m, PCORE, msr_evtsel(8)) & EVTSEL_EN);
	assert_true(e2e_msr(&m, PCORE, msr_evtsel(9)) & EVTSEL_EN);
	assert_int_equal(e2e_msr(&m, PCORE, MSR_IA32_PERF_GLOBAL_CTRL) & 0x300, 0x300);
	e2e_sync_release(&s);
	assert_int_equal(e2e_reap(pid), 0);
	e2e_sync_free(&s);
	assert_same(&m, before);
	assert_int_equal(gp_faults(&m, PCORE), 0);

	/* The counts (a spawned run's stderr is not kept): the same run again, waited for. */
	stat_argv(argv, "0", gp_events, NULL, gp_retire, 2 * NGP);
	e2e_run(&m, &r, argv);
	e2e_assert_status(&r, 0);
	for (unsigned i = 0; i < NGP; i++) {
		snprintf(line, sizeof(line), "%u,,\"cpu/event=0x%x,umask=0x1/u\",\"cpu/event=0x%x,umask=0x1/\",pmc%u,",
			 1000 + i, 0x10 + i, 0x10 + i, i);
		e2e_assert_err_contains(&r, line);
	}
	e2e_result_free(&r);
	assert_same(&m, before);
	free(before);
	e2e_machine_free(&m);
}

/*
 * v6 auto counter reload on the E-core (CPUID.23H.2: GP 2-7 have
 * IA32_PMC_GPn_CFG_B/CFG_C): another user's configuration, which Linux
 * clears only lazily, makes GP3's overflow reload GP2 with 100. A run of
 * eight events whose 0x13 wraps GP3 must not count 0x12 on GP2: that
 * counter is another user's (state says perf), and 0x12's 1002 is exact.
 */
static void
test_auto_counter_reload_is_another_users(void **state)
{
	char events[8 * 32];
	struct e2e_machine m;
	struct e2e_result r;
	size_t used = 0;

	(void)state;
	e2e_machine_new(&m, (const char *[]){ "--model", "arrowlake", "--cpus", "2",
		"--set", "1:0x190a=0x8", "--set", "1:0x190b=100", NULL });
	for (unsigned i = 0; i < 8; i++)
		used += (size_t)snprintf(events + used, sizeof(events) - used, "%scpu/event=0x%x,umask=0x1/",
					 i ? "," : "", 0x10 + i);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "1", "-x", ",", "-e", events, "--", WL, "--quiet",
		"--cpu", "1", "--retire", "0x12:1:1002", "--retire", "0x13:1:0x1000000000005", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "1002,,\"cpu/event=0x12,umask=0x1/u\"");
	e2e_result_free(&r);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "state", "-C", "1", NULL });
	e2e_assert_status(&r, 0);
	assert_non_null(strstr(r.out[0] ? r.out : r.err, "perf"));
	e2e_result_free(&r);
	/* Left as found: the other user's reload configuration is not pmustat's to change. */
	assert_int_equal(e2e_msr(&m, ECORE, 0x190a), 0x8);
	e2e_machine_free(&m);
}

/* The E-core's fixed counters 4-6 count; its missing fixed counter 3 is never written, nor its bits. */
static void
test_fixed_counters_with_a_hole(void **state)
{
	static const char *const retire[] = { "--retire", "0x73:0:111", "--retire", "0x9c:1:222",
					      "--retire", "0xc2:2:333", "--retire", "0xa4:1:444" };
	const char *argv[9 + 8 + 1];
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before;

	(void)state;
	machine(&m);
	assert_int_equal(e2e_set_msr(&m, ECORE, msr_fixed_ctr(5), 0x55555ull), 0);
	assert_int_equal(e2e_set_msr(&m, ECORE, MSR_IA32_PERF_GLOBAL_STATUS_SET, GLOBAL_FIXED_BIT(6)), 0);
	/* The hole is real: FIXED_CTR3 and its enable do not exist on this core. */
	assert_int_not_equal(e2e_set_msr(&m, ECORE, msr_fixed_ctr(3), 0), 0);
	assert_int_equal(gp_faults(&m, ECORE), 1);
	before = e2e_state(&m);

	stat_argv(argv, "1", "TOPDOWN_BAD_SPECULATION.ALL,TOPDOWN_FE_BOUND.ALL,TOPDOWN_RETIRING.ALL,"
		  "INST_RETIRED.ANY", NULL, retire, 8);
	e2e_run(&m, &r, argv);
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "111,,TOPDOWN_BAD_SPECULATION.ALL:u,TOPDOWN_BAD_SPECULATION.ALL,fixed4,");
	e2e_assert_err_contains(&r, "222,,TOPDOWN_FE_BOUND.ALL:u,TOPDOWN_FE_BOUND.ALL,fixed5,");
	e2e_assert_err_contains(&r, "333,,TOPDOWN_RETIRING.ALL:u,TOPDOWN_RETIRING.ALL,fixed6,");
	e2e_result_free(&r);
	assert_same(&m, before);
	assert_int_equal(gp_faults(&m, ECORE), 1);

	/* Slots (fixed counter 3 elsewhere) is refused here, not written. */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "1", "-e", "TOPDOWN.SLOTS", "--", WL, NULL });
	e2e_assert_status(&r, 125);
	e2e_result_free(&r);
	/* state and reset --zero walk every counter but the missing one. */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "state", "-C", "1", "--json", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_out_contains(&r, "\"counter\": \"fixed6\"");
	assert_null(strstr(r.out, "\"counter\": \"fixed3\""));
	e2e_result_free(&r);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "reset", "-C", "1", "--zero", "--yes", NULL });
	e2e_result_free(&r);
	assert_int_equal(gp_faults(&m, ECORE), 1);	/* the test's own probe above, nothing since */
	free(before);
	e2e_machine_free(&m);
}

/* SIGKILL mid-run on GP 8/9 and fixed 0: `reset` puts back exactly what the run found. */
static void
test_killed_run_reset(void **state)
{
	const char *argv[9 + 2 + 2 * NGP + 1];
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before;
	pid_t pid;

	(void)state;
	machine(&m);
	assert_int_equal(e2e_set_msr(&m, PCORE, msr_a_pmc(8), 0xabcdef0123ull), 0);
	assert_int_equal(e2e_set_msr(&m, PCORE, msr_a_pmc(9), 0x42ull), 0);
	assert_int_equal(e2e_set_msr(&m, PCORE, MSR_IA32_PERF_GLOBAL_STATUS_SET, 1ull << 9), 0);
	before = e2e_state(&m);
	stat_argv(argv, "0", gp_events, NULL, (const char *[]){ "--sleep", "10000" }, 2);
	pid = e2e_spawn(&m, argv, NULL);
	assert_true(e2e_wait_msr(&m, PCORE, msr_evtsel(9), EVTSEL_EN, EVTSEL_EN, 10000));
	assert_true(e2e_msr(&m, PCORE, msr_evtsel(8)) & EVTSEL_EN);
	kill(-pid, SIGKILL);
	assert_int_equal(e2e_reap(pid), 128 + SIGKILL);
	assert_true(e2e_msr(&m, PCORE, msr_evtsel(9)) & EVTSEL_EN);	/* left programmed */

	/* state names the killed run's counters 8 and 9. */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "state", "-C", "0", "--json", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_out_contains(&r, "\"counter\": \"pmc9\"");
	e2e_result_free(&r);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "reset", "-C", "0", NULL });
	e2e_assert_status(&r, 0);
	e2e_result_free(&r);
	assert_same(&m, before);
	assert_int_equal(gp_faults(&m, PCORE), 0);
	free(before);
	e2e_machine_free(&m);
}

/* A JSON array of counter indices as a mask. */
static uint32_t
mask_of(json_t *a)
{
	uint32_t m = 0;
	size_t i;
	json_t *v;

	assert_true(json_is_array(a));
	json_array_foreach(a, i, v)
		m |= 1u << json_integer_value(v);
	return m;
}

/* The same on the E-core's fixed counters 4-6: killed, then put back by the next run. */
static void
test_killed_run_fixed_next_run(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before;
	pid_t pid;

	(void)state;
	machine(&m);
	assert_int_equal(e2e_set_msr(&m, ECORE, msr_fixed_ctr(4), 0x444444ull), 0);
	assert_int_equal(e2e_set_msr(&m, ECORE, msr_fixed_ctr(6), 0x666ull), 0);
	assert_int_equal(e2e_set_msr(&m, ECORE, MSR_IA32_FIXED_CTR_CTRL, 0x2u), 0);	/* someone's fixed 0, not running */
	before = e2e_state(&m);
	pid = e2e_spawn(&m, (const char *[]){ E2E_PMUSTAT, "-C", "1", "-e",
		"TOPDOWN_BAD_SPECULATION.ALL,TOPDOWN_FE_BOUND.ALL,TOPDOWN_RETIRING.ALL", "--", WL, "--sleep", "10000",
		NULL }, NULL);
	assert_true(e2e_wait_msr(&m, ECORE, MSR_IA32_PERF_GLOBAL_CTRL, 0x7ull << 36, 0x7ull << 36, 10000));
	assert_int_equal(e2e_msr(&m, ECORE, MSR_IA32_FIXED_CTR_CTRL) & 0xfff0000u, 0x2220000u);
	kill(-pid, SIGKILL);
	assert_int_equal(e2e_reap(pid), 128 + SIGKILL);
	/* The next run on the core applies the journal first, then counts. */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "1", "-x,", "-e", "TOPDOWN_RETIRING.ALL", "--", WL,
		"--retire", "0xc2:2:77", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "77,,TOPDOWN_RETIRING.ALL:u");
	e2e_result_free(&r);
	assert_same(&m, before);
	assert_int_equal(gp_faults(&m, ECORE), 0);
	free(before);
	e2e_machine_free(&m);
}

/* Whether the JSON pmu object @pmu lists architectural event @key. */
static bool
lists_arch_event(json_t *pmu, const char *key)
{
	size_t i;
	json_t *e;

	json_array_foreach(json_object_get(pmu, "arch_events"), i, e)
		if (strcmp(json_string_value(e), key) == 0)
			return true;
	return false;
}

/*
 * info tells each core type's counters as leaf 0x23 enumerates them, and
 * its architectural events as subleaf 3 does (Lion Cove: Topdown Slots,
 * no Bad Speculation; Skymont the other way round), not CPUID.0AH's
 * intersection of the two, which lists neither.
 */
static void
test_info_per_core_type(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	json_t *root, *pmu;
	char dump[PATH_MAX + 16];

	(void)state;
	machine(&m);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "info", "-C", "0", "--json", NULL });
	root = json_loads(r.out, 0, NULL);
	assert_non_null(root);
	pmu = json_object_get(root, "pmu");
	assert_int_equal(json_integer_value(json_object_get(pmu, "gp_counters")), 10);
	assert_int_equal(mask_of(json_object_get(pmu, "gp_mask")), 0x3ff);
	assert_int_equal(mask_of(json_object_get(pmu, "fixed_mask")), 0xf);
	assert_true(lists_arch_event(pmu, "TOPDOWN_SLOTS"));
	assert_false(lists_arch_event(pmu, "TOPDOWN_BAD_SPECULATION"));
	json_decref(root);
	e2e_result_free(&r);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "info", "-C", "1", "--json", NULL });
	root = json_loads(r.out, 0, NULL);
	assert_non_null(root);
	pmu = json_object_get(root, "pmu");
	assert_int_equal(json_integer_value(json_object_get(pmu, "gp_counters")), 8);
	assert_int_equal(mask_of(json_object_get(pmu, "gp_mask")), 0xff);
	assert_int_equal(mask_of(json_object_get(pmu, "fixed_mask")), 0x77);
	assert_int_equal(json_integer_value(json_object_get(pmu, "fixed_counters")), 6);
	assert_false(lists_arch_event(pmu, "TOPDOWN_SLOTS"));
	assert_true(lists_arch_event(pmu, "TOPDOWN_BAD_SPECULATION"));
	json_decref(root);
	e2e_result_free(&r);

	/* --save-cpu-dump keeps leaf 0x23, which libcpuid's format has no room for: a dump says the same. */
	snprintf(dump, sizeof(dump), "%s/cpuid.dump", m.dir);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "info", "-C", "0", "--save-cpu-dump", dump, NULL });
	e2e_assert_status(&r, 0);
	e2e_result_free(&r);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "info", "--cpu-dump", dump, "--json", NULL });
	root = json_loads(r.out, 0, NULL);
	assert_non_null(root);
	pmu = json_object_get(root, "pmu");
	assert_int_equal(mask_of(json_object_get(pmu, "gp_mask")), 0x3ff);
	assert_string_equal(json_string_value(json_object_get(pmu, "counters_from")), "CPUID.23H.1");
	assert_true(lists_arch_event(pmu, "TOPDOWN_SLOTS"));
	assert_true(json_is_null(json_object_get(pmu, "counters_note")));
	json_decref(root);
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ten_gp_counters),
		cmocka_unit_test(test_fixed_counters_with_a_hole),
		cmocka_unit_test(test_killed_run_reset),
		cmocka_unit_test(test_killed_run_fixed_next_run),
		cmocka_unit_test(test_info_per_core_type),
		cmocka_unit_test(test_auto_counter_reload_is_another_users),
	};

	make_gp_events();
	if (e2e_host_cpus() < 2) {
		fprintf(stderr, "skipped: needs 2 CPUs\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
