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

/* Three of Skylake's offcore events, each with its own request/response value. */
#define OCR_A		"OFFCORE_RESPONSE.DEMAND_CODE_RD.ANY_RESPONSE"		/* 0x10004 */
#define OCR_B		"OFFCORE_RESPONSE.DEMAND_CODE_RD.L3_HIT.ANY_SNOOP"	/* 0x3fc01c0004 */
#define OCR_C		"OFFCORE_RESPONSE.DEMAND_CODE_RD.L3_HIT.SNOOP_HITM"	/* 0x10001c0004 */
#define OCR_STEPS	"--offcore", "0x10004:111", "--offcore", "0x3fc01c0004:222", "--offcore", "0x10001c0004:7", \
			"--offcore", "0x10001:5"
/* Stale values nobody's counter reads: pmustat may use both MSRs, and puts these back. */
#define FOUND_RSP0	0x123ull
#define FOUND_RSP1	0x456ull

static void
skylake_with_stale_offcore(struct e2e_machine *m, const char *const *more)
{
	const char *args[16] = { "--model", "skylake", "--cpus", "2", "--set", "1:0x1a6=0x123", "--set", "1:0x1a7=0x456" };
	unsigned n = 8;

	while (more && *more && n < 15)
		args[n++] = *more++;
	args[n] = NULL;
	e2e_machine_new(m, args);
}

/*
 * Two offcore events in one run: the first through MSR_OFFCORE_RSP_0 and
 * event 0xB7, the second through MSR_OFFCORE_RSP_1 and event 0xBB, each
 * MSR with its own response value (the emulator counts an offcore event
 * only when its MSR holds the response's value). Both exact, both MSRs
 * back as found.
 */
static void
test_two_offcore_events_one_run(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;

	(void)state;
	skylake_with_stale_offcore(&m, NULL);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "1", "-x", ",", "-e", OCR_A "," OCR_B, "--",
		m.workload, "--quiet", "--cpu", "1", OCR_STEPS, NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "111,,"OCR_A":u,"OCR_A",pmc0,1,counted");
	e2e_assert_err_contains(&r, "222,,"OCR_B":u,"OCR_B",pmc1,1,counted");
	assert_int_equal(e2e_msr(&m, 1, MSR_OFFCORE_RSP_0), FOUND_RSP0);
	assert_int_equal(e2e_msr(&m, 1, MSR_OFFCORE_RSP_1), FOUND_RSP1);
	e2e_result_free(&r);

	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "1", "--dry-run", "-e", OCR_A "," OCR_B, "--", "true", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "1 run of the command");
	e2e_assert_err_contains(&r, "0x186 0x101b7\t");
	e2e_assert_err_contains(&r, "0x187 0x101bb\t");
	e2e_assert_err_contains(&r, "0x1a6 0x10004\t");
	e2e_assert_err_contains(&r, "0x1a7 0x3fc01c0004\t");
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

/*
 * Another user (perf's own offcore event) rewrites MSR_OFFCORE_RSP_0 in
 * the middle of a run: pmustat's pmc0 counts that user's responses from
 * then on (the emulator counts 5 of them, not the 111 asked). pmustat
 * finds the filter changed before it stops the counters, reports that
 * event as not counted (stderr and JSON, naming the MSR), and leaves the
 * MSR as that user wrote it; the event on RSP_1 is exact and RSP_1 goes
 * back as found.
 */
static void
test_offcore_filter_rewritten_mid_run_is_not_counted(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;

	(void)state;
	skylake_with_stale_offcore(&m, NULL);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "1", "-x", ",", "-e", OCR_A "," OCR_B, "--",
		m.workload, "--quiet", "--cpu", "1", "--offcore", "0x10004:100", "--act", "wrmsr:0x1a6=0x10001",
		"--offcore", "0x10001:5", "--offcore", "0x10004:11", "--offcore", "0x3fc01c0004:222", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "another user (perf?) rewrote MSR_OFFCORE_RSP_0 (0x1a6) during the run (0x10001");
	e2e_assert_err_contains(&r, ","OCR_A":u,"OCR_A",pmc0,1,not_counted,offcore response filter changed by another user");
	e2e_assert_err_contains(&r, "222,,"OCR_B":u,"OCR_B",pmc1,1,counted");
	assert_int_equal(e2e_msr(&m, 1, MSR_OFFCORE_RSP_0), 0x10001);
	assert_int_equal(e2e_msr(&m, 1, MSR_OFFCORE_RSP_1), FOUND_RSP1);
	/* pmustat's counters themselves are back as found. */
	assert_int_equal(e2e_msr(&m, 1, msr_evtsel(0)), 0);
	assert_int_equal(e2e_msr(&m, 1, msr_evtsel(1)), 0);
	e2e_result_free(&r);

	/* Untouched, the same run counts both exactly, and RSP_0 (now that user's) is given back to them. */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "1", "-x", ",", "-e", OCR_A "," OCR_B, "--",
		m.workload, "--quiet", "--cpu", "1", "--offcore", "0x10004:100", "--offcore", "0x3fc01c0004:222", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "100,,"OCR_A":u,"OCR_A",pmc0,1,counted");
	assert_int_equal(e2e_msr(&m, 1, MSR_OFFCORE_RSP_0), 0x10001);
	e2e_result_free(&r);

	/*
	 * Three events take two runs, the second on RSP_0 again: once that
	 * user rewrote it in the first, the second run does not write it
	 * (125, saying why; the first run's counts are printed).
	 */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "1", "-x", ",", "-e", OCR_A "," OCR_B "," OCR_C, "--",
		m.workload, "--quiet", "--cpu", "1", "--offcore", "0x10004:100", "--act", "wrmsr:0x1a6=0x20001",
		"--offcore", "0x3fc01c0004:222", NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "222,,"OCR_B":u,"OCR_B",pmc1,1,counted");
	e2e_assert_err_contains(&r, "refusing to write MSR_OFFCORE_RSP_0 (0x1a6)");
	e2e_assert_err_contains(&r, "another user rewrote during an earlier run");
	assert_int_equal(e2e_msr(&m, 1, MSR_OFFCORE_RSP_0), 0x20001);
	assert_int_equal(e2e_msr(&m, 1, MSR_OFFCORE_RSP_1), FOUND_RSP1);
	assert_int_equal(e2e_msr(&m, 1, msr_evtsel(0)), 0);
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

/* Three take two runs, where they took three: the third shares no MSR with the first two's values. */
static void
test_three_offcore_events_two_runs(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;

	(void)state;
	skylake_with_stale_offcore(&m, NULL);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "1", "-x", ",", "-e", OCR_A "," OCR_B "," OCR_C, "--",
		m.workload, "--quiet", "--cpu", "1", OCR_STEPS, NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "111,,"OCR_A":u,"OCR_A",pmc0,1,counted");
	e2e_assert_err_contains(&r, "222,,"OCR_B":u,"OCR_B",pmc1,1,counted");
	e2e_assert_err_contains(&r, "7,,"OCR_C":u,"OCR_C",pmc0,2,counted");
	assert_int_equal(e2e_msr(&m, 1, MSR_OFFCORE_RSP_0), FOUND_RSP0);
	assert_int_equal(e2e_msr(&m, 1, MSR_OFFCORE_RSP_1), FOUND_RSP1);
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

/* A signal to pmustat, and SIGKILL then reset, mid-run with both MSRs programmed: both come back. */
static void
test_both_offcore_msrs_restored_on_every_path(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	pid_t pid;

	(void)state;
	skylake_with_stale_offcore(&m, NULL);
	for (int sig = 0; sig < 2; sig++) {
		pid = e2e_spawn(&m, (const char *[]){ E2E_PMUSTAT, "-C", "1", "-e", OCR_A "," OCR_B, "--",
			m.workload, "--quiet", "--cpu", "1", "--sleep", "10000", NULL }, NULL);
		assert_true(e2e_wait_msr(&m, 1, MSR_OFFCORE_RSP_1, ~0ull, 0x3fc01c0004ull, 5000));
		assert_int_equal(e2e_msr(&m, 1, MSR_OFFCORE_RSP_0), 0x10004ull);
		if (sig == 0) {
			kill(pid, SIGTERM);
			assert_int_equal(e2e_reap(pid), 128 + SIGTERM);
		} else {
			kill(-pid, SIGKILL);
			assert_int_equal(e2e_reap(pid), 128 + SIGKILL);
			assert_int_equal(e2e_msr(&m, 1, MSR_OFFCORE_RSP_1), 0x3fc01c0004ull);
			e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "reset", "-C", "1", NULL });
			e2e_assert_status(&r, 0);
			e2e_result_free(&r);
		}
		assert_int_equal(e2e_msr(&m, 1, MSR_OFFCORE_RSP_0), FOUND_RSP0);
		assert_int_equal(e2e_msr(&m, 1, MSR_OFFCORE_RSP_1), FOUND_RSP1);
		assert_int_equal(e2e_msr(&m, 1, msr_evtsel(0)), 0);
		assert_int_equal(e2e_msr(&m, 1, msr_evtsel(1)), 0);
	}
	e2e_machine_free(&m);
}

/*
 * perf counts an offcore event on pmc0 through MSR_OFFCORE_RSP_0 (0x10001,
 * its INT bit set): pmustat never writes that MSR, and counts its own
 * first offcore event through MSR_OFFCORE_RSP_1; two of them take two
 * runs. perf's counter counts its own responses only, as if pmustat had
 * not been there. With both MSRs read by perf's counters, pmustat refuses
 * and names them, writing nothing.
 */
static void
test_their_offcore_rsp0_moves_ours_to_rsp1(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before, *after;

	(void)state;
	e2e_machine_new(&m, (const char *[]){ "--model", "skylake", "--cpus", "2", "--set", "1:0x1a6=0x10001", "--set",
		"1:0x186=0x5301b7", NULL });
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "1", "-v", "-x", ",", "-e", OCR_A, "--",
		m.workload, "--quiet", "--cpu", "1", OCR_STEPS, NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "111,,"OCR_A":u,"OCR_A",pmc1,1,counted");
	e2e_assert_err_contains(&r, " -> pmc1 (MSR_OFFCORE_RSP_1), run 1\n");
	assert_int_equal(e2e_msr(&m, 1, MSR_OFFCORE_RSP_0), 0x10001ull);
	assert_int_equal(e2e_msr(&m, 1, msr_pmc(0)), 5);	/* perf's responses, and only those */
	assert_int_equal(e2e_msr(&m, 1, msr_evtsel(0)), 0x5301b7ull);
	assert_int_equal(e2e_msr(&m, 1, MSR_OFFCORE_RSP_1), 0);
	e2e_result_free(&r);

	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "1", "-x", ",", "-e", OCR_A "," OCR_B, "--",
		m.workload, "--quiet", "--cpu", "1", OCR_STEPS, NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "111,,"OCR_A":u,"OCR_A",pmc1,1,counted");
	e2e_assert_err_contains(&r, "222,,"OCR_B":u,"OCR_B",pmc1,2,counted");
	assert_int_equal(e2e_msr(&m, 1, MSR_OFFCORE_RSP_0), 0x10001ull);
	assert_int_equal(e2e_msr(&m, 1, msr_pmc(0)), 15);	/* two more runs of the command, 5 each */
	e2e_result_free(&r);

	/* perf takes MSR_OFFCORE_RSP_1 too (pmc2, event 0xBB). */
	assert_int_equal(e2e_set_msr(&m, 1, MSR_OFFCORE_RSP_1, 0x10002), 0);
	assert_int_equal(e2e_set_msr(&m, 1, msr_evtsel(2), 0x5301bb), 0);
	before = e2e_state(&m);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "1", "-e", OCR_A, "--",
		m.workload, "--quiet", "--cpu", "1", OCR_STEPS, NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "MSR_OFFCORE_RSP_0 (0x1a6) or MSR_OFFCORE_RSP_1 (0x1a7)");
	e2e_assert_err_contains(&r, "pmc0 (IA32_PERFEVTSEL0 = 0x5301b7): perf_events");
	e2e_assert_err_contains(&r, "pmc2 (IA32_PERFEVTSEL2 = 0x5301bb): perf_events");
	after = e2e_state(&m);
	assert_int_equal(after->cpu[1].stats.wrmsr, before->cpu[1].stats.wrmsr);
	free(before);
	free(after);
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

/*
 * The other encodings of the pair: on Alder Lake's Gracemont E-cores one
 * event code with umask 1 (MSR_OFFCORE_RSP_0) or 2 (MSR_OFFCORE_RSP_1), on
 * its Golden Cove P-cores events 0x2A and 0x2B. Two in one run on each.
 */
static void
test_two_offcore_events_one_run_hybrid(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;

	(void)state;
	e2e_machine_new(&m, (const char *[]){ "--model", "alderlake", "--cpus", "2", "--pcores", "1", NULL });
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "1", "-x", ",", "-e",
		"OCR.COREWB_M.ANY_RESPONSE,OCR.DEMAND_CODE_RD.ANY_RESPONSE", "--", m.workload, "--quiet", "--cpu", "1",
		"--offcore", "0x10008:11", "--offcore", "0x10004:22", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "11,,OCR.COREWB_M.ANY_RESPONSE:u,OCR.COREWB_M.ANY_RESPONSE,pmc0,1,counted");
	e2e_assert_err_contains(&r, "22,,OCR.DEMAND_CODE_RD.ANY_RESPONSE:u,OCR.DEMAND_CODE_RD.ANY_RESPONSE,pmc1,1,counted");
	e2e_result_free(&r);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "0", "-x", ",", "-e",
		"OCR.COREWB_M.L3_HIT,OCR.COREWB_NONM.L3_HIT", "--", m.workload, "--quiet", "--cpu", "0",
		"--offcore", "0x1f803c0008:11", "--offcore", "0x1f803c1000:22", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "11,,OCR.COREWB_M.L3_HIT:u,OCR.COREWB_M.L3_HIT,pmc0,1,counted");
	e2e_assert_err_contains(&r, "22,,OCR.COREWB_NONM.L3_HIT:u,OCR.COREWB_NONM.L3_HIT,pmc1,1,counted");
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
		cmocka_unit_test(test_two_offcore_events_one_run),
		cmocka_unit_test(test_offcore_filter_rewritten_mid_run_is_not_counted),
		cmocka_unit_test(test_three_offcore_events_two_runs),
		cmocka_unit_test(test_both_offcore_msrs_restored_on_every_path),
		cmocka_unit_test(test_their_offcore_rsp0_moves_ours_to_rsp1),
		cmocka_unit_test(test_two_offcore_events_one_run_hybrid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
