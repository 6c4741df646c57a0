/*
 * test_regs_e2e.c - the registers that go with a counter: IA32_PERF_METRICS
 * with fixed counter 3 (SLOTS), and the offcore response MSRs
 * (MSR_OFFCORE_RSP_0/1) with the events that read them. The emulated
 * machine plays the other user (perf, the kernel) holding a value in them;
 * pmustat counts exactly and gives every value back bit for bit, on a
 * normal exit, a signal to pmustat, and SIGKILL followed by reset.
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

#include "e2e_harness.h"
#include "pmu/msr.h"

/*
 * Linux's IA32_PERF_GLOBAL_CTRL on an Ice Lake with perf idle: every
 * counter's bit and EN_PERF_METRICS (bit 48), x86_pmu.intel_ctrl. With it,
 * PERF_METRICS takes in whatever fixed counter 3 counts.
 */
#define ICL_LINUX_GLOBAL_CTRL	"0x1000f000000ff"
#define THEIR_SLOTS		5000000ull
#define THEIR_METRICS		0x40302010ull	/* Retiring 0x10, Bad Spec 0x20, FE 0x30, BE 0x40 */
#define OUR_SLOTS		1000000ull	/* the workload's --topdown, summed */
#define TOPDOWN_STEP		"100000:200000:300000:400000"

/* perf left its SLOTS count and its fractions of them; Linux's GLOBAL_CTRL. */
static void
icelake_with_their_metrics(struct e2e_machine *m)
{
	e2e_machine_new(m, (const char *[]){ "--model", "icelake", "--cpus", "2", "--set", "1:0x38f=" ICL_LINUX_GLOBAL_CTRL,
		"--set", "1:0x30c=5000000", "--set", "1:0x329=0x40302010", NULL });
	assert_int_equal(e2e_msr(m, 1, MSR_IA32_PERF_METRICS), THEIR_METRICS);
}

static void
assert_their_metrics_back(const struct e2e_machine *m)
{
	assert_int_equal(e2e_msr(m, 1, msr_fixed_ctr(3)), THEIR_SLOTS);
	assert_int_equal(e2e_msr(m, 1, MSR_IA32_PERF_METRICS), THEIR_METRICS);
	assert_int_equal(e2e_msr(m, 1, MSR_IA32_PERF_GLOBAL_CTRL), 0x1000f000000ffull);
	assert_int_equal(e2e_msr(m, 1, MSR_IA32_FIXED_CTR_CTRL), 0);
}

/*
 * TOPDOWN.SLOTS counted as a plain event (no -M, no PERF_METRICS read):
 * the count is exact and the other user's PERF_METRICS comes back.
 */
static void
test_slots_alone_keeps_their_perf_metrics(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;

	(void)state;
	icelake_with_their_metrics(&m);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "1", "-x", ",", "-e", "TOPDOWN.SLOTS", "--",
		m.workload, "--quiet", "--cpu", "1", "--topdown", TOPDOWN_STEP, NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "1000000,,TOPDOWN.SLOTS:u,TOPDOWN.SLOTS,fixed3,");
	assert_their_metrics_back(&m);
	e2e_result_free(&r);

	/* A dry run shows the clear, after the counter's. */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "1", "--dry-run", "-e", "TOPDOWN.SLOTS", "--", "true", NULL });
	e2e_assert_status(&r, 0);
	assert_non_null(strstr(r.err, "0x30c 0x0"));
	assert_non_null(strstr(r.err, "0x329 0x0"));
	assert_true(strstr(r.err, "0x30c 0x0") < strstr(r.err, "0x329 0x0"));
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

/* A SIGTERM to pmustat mid-run: it puts PERF_METRICS back before it dies. */
static void
test_slots_signal_keeps_their_perf_metrics(void **state)
{
	struct e2e_machine m;
	pid_t pid;

	(void)state;
	icelake_with_their_metrics(&m);
	pid = e2e_spawn(&m, (const char *[]){ E2E_PMUSTAT, "-C", "1", "-e", "TOPDOWN.SLOTS", "--",
		m.workload, "--quiet", "--cpu", "1", "--topdown", TOPDOWN_STEP, "--sleep", "10000", NULL }, NULL);
	assert_true(e2e_wait_msr(&m, 1, msr_fixed_ctr(3), ~0ull, OUR_SLOTS, 5000));
	kill(pid, SIGTERM);
	assert_int_equal(e2e_reap(pid), 128 + SIGTERM);
	assert_their_metrics_back(&m);
	e2e_machine_free(&m);
}

/* SIGKILL mid-run: the journal holds PERF_METRICS with FIXED_CTR3, and reset puts both back. */
static void
test_slots_killed_reset_keeps_their_perf_metrics(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	pid_t pid;

	(void)state;
	icelake_with_their_metrics(&m);
	pid = e2e_spawn(&m, (const char *[]){ E2E_PMUSTAT, "-C", "1", "-e", "TOPDOWN.SLOTS", "--",
		m.workload, "--quiet", "--cpu", "1", "--topdown", TOPDOWN_STEP, "--sleep", "10000", NULL }, NULL);
	assert_true(e2e_wait_msr(&m, 1, msr_fixed_ctr(3), ~0ull, OUR_SLOTS, 5000));
	kill(-pid, SIGKILL);
	assert_int_equal(e2e_reap(pid), 128 + SIGKILL);
	assert_int_not_equal(e2e_msr(&m, 1, MSR_IA32_PERF_METRICS), THEIR_METRICS);

	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "reset", "-C", "1", NULL });
	e2e_assert_status(&r, 0);
	assert_their_metrics_back(&m);
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slots_alone_keeps_their_perf_metrics),
		cmocka_unit_test(test_slots_signal_keeps_their_perf_metrics),
		cmocka_unit_test(test_slots_killed_reset_keeps_their_perf_metrics),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
