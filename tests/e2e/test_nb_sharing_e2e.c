/*
 * test_nb_sharing_e2e.c - pmustat and the other users of a NetBurst PMU,
 * the real binary end to end on the emulated models, the emulator playing
 * the other party: perf on the Hyper-Threading sibling (CPUs 0 and 1 of
 * netburst-ht share one set of ESCRs, CCCRs and counters), perf taking a
 * counter pmustat holds mid-run, and the other thread's events.
 */
#include <signal.h>
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

#define IQ_COUNTER0	0x30cu
#define IQ_COUNTER2	0x30eu
#define IQ_CCCR0	0x36cu
#define IQ_CCCR2	0x36eu
#define CRU_ESCR0	0x3b8u
#define CRU_ESCR1	0x3b9u

/*
 * What Linux's p4 driver writes for perf's instructions on thread 0 of a
 * core (p4_pmu_enable_event): instr_retired:NBOGUSNTAG on CRU_ESCR0 with
 * T0_OS|T0_USR, IQ_COUNTER0 at minus its period (1000), IQ_CCCR0 enabled
 * with ESCR select 4, active thread "any" and OVF_PMI_T0.
 */
#define PERF_ESCR	0x400020cull
#define PERF_COUNTER	((1ull << 40) - 1000)
#define PERF_CCCR	0x4039000ull

/* The "--act wrmsr:MSR=VALUE" argument for @msr, @value, into @buf. */
static const char *
wrmsr_act(char *buf, size_t size, uint32_t msr, uint64_t value)
{
	snprintf(buf, size, "wrmsr:0x%x=0x%llx", msr, (unsigned long long)value);
	return buf;
}

static json_t *
event_of(json_t *root, unsigned i)
{
	json_t *e = json_array_get(json_object_get(root, "events"), i);

	assert_non_null(e);
	return e;
}

/*
 * One thread of an HT core counted (CPU 1): pmustat keeps to thread 1's
 * half of the shared registers (CRU_ESCR1, IQ_COUNTER2), as Linux's p4
 * driver splits them, so perf on the sibling (CPU 0), programming thread
 * 0's half mid-run as Linux does, takes nothing of pmustat's: the count is
 * exact, and perf's ESCR, CCCR and counter are as perf left them. On
 * thread 0's half, pmustat's counter would have been perf's.
 */
static void
test_one_thread_keeps_to_its_half(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	char a1[64], a2[64], a3[64];

	E2E_NEED_CPUS_0_1();
	e2e_machine_new(&m, (const char *[]){ "--model", "netburst-ht", "--cpus", "2", NULL });
	/* The plans say so: each thread of the core keeps to its own half. */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "0", "--dry-run", "-e", "instr_retired:NBOGUSNTAG",
		"--", "true", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "IQ_COUNTER0 via CRU_ESCR0");
	e2e_result_free(&r);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "1", "--dry-run", "-e", "instr_retired:NBOGUSNTAG",
		"--", "true", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "IQ_COUNTER2 via CRU_ESCR1");
	e2e_result_free(&r);
	/* The workload's --act writes the core's shared registers, as perf on CPU 0 would. */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "1", "-x,", "-e", "instr_retired:NBOGUSNTAG", "--",
		m.workload, "--quiet", "--cpu", "1", "--nb", "0x02:0x1:1*100", "--act",
		wrmsr_act(a1, sizeof(a1), CRU_ESCR0, PERF_ESCR), "--act",
		wrmsr_act(a2, sizeof(a2), IQ_COUNTER0, PERF_COUNTER), "--act",
		wrmsr_act(a3, sizeof(a3), IQ_CCCR0, PERF_CCCR), "--nb", "0x02:0x1:1*200", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "300,,instr_retired:NBOGUSNTAG:u,");
	e2e_result_free(&r);
	assert_int_equal(e2e_msr(&m, 0, CRU_ESCR0), PERF_ESCR);
	assert_int_equal(e2e_msr(&m, 0, IQ_COUNTER0), PERF_COUNTER);
	assert_int_equal(e2e_msr(&m, 0, IQ_CCCR0), PERF_CCCR);
	assert_int_equal(e2e_msr(&m, 0, CRU_ESCR1), 0);
	assert_int_equal(e2e_msr(&m, 0, IQ_CCCR2), 0);
	assert_int_equal(e2e_msr(&m, 0, IQ_COUNTER2), 0);
	e2e_machine_free(&m);
}

/*
 * perf takes the counter pmustat counts on mid-run: on a NetBurst part
 * without HT perf on the same CPU, on an HT core a tool on the sibling
 * that programs thread 1's half. As on Intel, pmustat finds the CCCR is
 * not what it wrote when it comes to stop the counter: that count is "not
 * counted: counter taken by another user" (stderr and JSON), and perf's
 * ESCR, CCCR and counter are left as perf has them, still counting; the
 * other event, still pmustat's, is exact and its registers go back.
 */
static void
test_counter_taken_mid_run(void **state)
{
	static const struct {
		const char *model, *cpu;
		uint32_t escr, counter, cccr;
		uint64_t perf_escr;
		uint64_t counted;	/* of the workload's 200 clocks after perf's writes, perf's counter's */
	} cases[] = {
		{ "netburst", "0", CRU_ESCR0, IQ_COUNTER0, IQ_CCCR0, PERF_ESCR, 200 },
		/* Perf on CPU 0 counting thread 0's instructions through thread 1's ESCR: none of CPU 1's. */
		{ "netburst-ht", "1", CRU_ESCR1, IQ_COUNTER2, IQ_CCCR2, PERF_ESCR, 0 },
	};

	E2E_NEED_CPUS_0_1();
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct e2e_machine m;
		struct e2e_result r;
		char a1[64], a2[64], a3[64], want[200];
		json_t *root;

		e2e_machine_new(&m, (const char *[]){ "--model", cases[i].model, "--cpus", "2", NULL });
		e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", cases[i].cpu, "--json", "-e",
			"instr_retired:NBOGUSNTAG,global_power_events", "--", m.workload, "--quiet", "--cpu",
			cases[i].cpu, "--nb", "0x02:0x1:1*100", "--act",
			wrmsr_act(a1, sizeof(a1), cases[i].escr, cases[i].perf_escr), "--act",
			wrmsr_act(a2, sizeof(a2), cases[i].counter, PERF_COUNTER), "--act",
			wrmsr_act(a3, sizeof(a3), cases[i].cccr, PERF_CCCR), "--nb", "0x02:0x1:1*200", "--nb",
			"0x13:0x1:1*1000", NULL });
		e2e_assert_status(&r, 0);
		snprintf(want, sizeof(want), "another user (perf?) programmed %s during the run (MSR_%s = 0x%llx",
			 cases[i].counter == IQ_COUNTER0 ? "IQ_COUNTER0" : "IQ_COUNTER2",
			 cases[i].cccr == IQ_CCCR0 ? "IQ_CCCR0" : "IQ_CCCR2", PERF_CCCR);
		e2e_assert_err_contains(&r, want);
		root = json_loads(strstr(r.err, "{"), 0, NULL);
		assert_non_null(root);
		assert_true(json_is_null(json_object_get(event_of(root, 0), "value")));
		assert_string_equal(json_string_value(json_object_get(event_of(root, 0), "status_text")),
				    "not counted: counter taken by another user");
		assert_int_equal(json_integer_value(json_object_get(event_of(root, 1), "value")), 1000);
		json_decref(root);
		e2e_result_free(&r);
		/* perf's registers as perf left them, its counter still counting; pmustat's other counter back. */
		assert_int_equal(e2e_msr(&m, 0, cases[i].escr), cases[i].perf_escr);
		assert_int_equal(e2e_msr(&m, 0, cases[i].cccr), PERF_CCCR);
		assert_int_equal(e2e_msr(&m, 0, cases[i].counter), PERF_COUNTER + cases[i].counted);
		for (uint32_t c = 0x360; c < 0x360 + 18; c++)
			if (c != cases[i].cccr)
				assert_int_equal(e2e_msr(&m, 0, c), 0);
		e2e_machine_free(&m);
	}
}

/* The value of -A's CSV record "count,CPU<cpu>,VALUE,,EVENT," (or, @cpu < 0, the sum's "count,,VALUE,,EVENT,") in @out. */
static unsigned long long
row_value(const char *out, int cpu, const char *event)
{
	char prefix[32] = "count,,", want[200];

	if (cpu >= 0)
		snprintf(prefix, sizeof(prefix), "count,CPU%d,", cpu);
	snprintf(want, sizeof(want), ",,%s,", event);
	for (const char *line = out; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		const char *v = line + strlen(prefix), *nl = strchr(line, '\n'), *ev = strstr(line, want);

		if (strncmp(line, prefix, strlen(prefix)) == 0 && ev && (!nl || ev < nl) && *v >= '0' && *v <= '9')
			return strtoull(v, NULL, 10);
	}
	fail_msg("no row %d %s in:\n%s", cpu, event, out);
	return 0;
}

/*
 * A thread-independent event (the SDM's TI events; x87_FP_uop) on both
 * threads of a core (-C 0,1): its counter counts both threads' uops
 * whatever the T0/T1 bits say, so programming it on each thread counted
 * every uop twice (600 for 300). pmustat counts it once, on thread 0,
 * for the pair: the sum is the 300 uops, CPU 1's line says where its
 * count is; a thread-specific event (instr_retired) still counts per
 * thread. One thread alone (-C 1) counts both threads' uops, as the SDM
 * has it, and says so.
 */
static void
test_thread_independent_counted_once(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;

	E2E_NEED_CPUS_0_1();
	e2e_machine_new(&m, (const char *[]){ "--model", "netburst-ht", "--cpus", "2", NULL });
	/* 150 x87 uops and 50 instructions on each thread. */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "0,1", "-x,", "-e", "x87_FP_uop,instr_retired:NBOGUSNTAG",
		"--", m.workload, "--quiet", "--threads", "2", "--spread", "--nb", "0x04:0x8000:1*150", "--nb",
		"0x02:0x1:1*50", NULL });
	e2e_assert_status(&r, 0);
	assert_int_equal(row_value(r.err, -1, "x87_FP_uop:u"), 300);
	assert_int_equal(row_value(r.err, -1, "instr_retired:NBOGUSNTAG:u"), 100);
	e2e_result_free(&r);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "0,1", "-A", "-x,", "-e",
		"x87_FP_uop,instr_retired:NBOGUSNTAG", "--", m.workload, "--quiet", "--threads", "2", "--spread",
		"--nb", "0x04:0x8000:1*150", "--nb", "0x02:0x1:1*50", NULL });
	e2e_assert_status(&r, 0);
	assert_int_equal(row_value(r.err, 0, "x87_FP_uop:u"), 300);
	assert_int_equal(row_value(r.err, 1, "x87_FP_uop:u"), 0);
	assert_int_equal(row_value(r.err, 0, "instr_retired:NBOGUSNTAG:u"), 50);
	assert_int_equal(row_value(r.err, 1, "instr_retired:NBOGUSNTAG:u"), 50);
	e2e_result_free(&r);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "0,1", "-A", "-e", "x87_FP_uop", "--", "true", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "both threads' count is core 0's");
	e2e_result_free(&r);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "0,1", "--dry-run", "-e", "x87_FP_uop", "--", "true",
		NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "counted on core 0 for both Hyper-Threading threads");
	e2e_result_free(&r);
	/*
	 * Three on FIRM_ESCR0, the one ESCR of thread 0's half that selects
	 * them: three runs; thread 1 keeps the same runs, programming none.
	 */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "0,1", "-x,", "-e",
		"x87_FP_uop,packed_SP_uop,instr_retired:NBOGUSNTAG,scalar_SP_uop", "--", m.workload, "--quiet",
		"--threads", "2", "--spread", "--nb", "0x04:0x8000:1*150", "--nb", "0x08:0x8000:1*20", "--nb",
		"0x0a:0x8000:1*7", "--nb", "0x02:0x1:1*50", NULL });
	e2e_assert_status(&r, 0);
	assert_int_equal(row_value(r.err, -1, "x87_FP_uop:u"), 300);
	assert_int_equal(row_value(r.err, -1, "packed_SP_uop:u"), 40);
	assert_int_equal(row_value(r.err, -1, "scalar_SP_uop:u"), 14);
	assert_int_equal(row_value(r.err, -1, "instr_retired:NBOGUSNTAG:u"), 100);
	e2e_result_free(&r);
	/* One thread: both threads' uops, and a note that says so. */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "1", "-x,", "-e", "x87_FP_uop", "--", m.workload,
		"--quiet", "--threads", "2", "--spread", "--nb", "0x04:0x8000:1*150", NULL });
	e2e_assert_status(&r, 0);
	assert_int_equal(row_value(r.err, -1, "x87_FP_uop:u"), 300);
	e2e_assert_err_contains(&r, "core 1: x87_FP_uop is thread-independent: its counter counts the events of both Hyper-Threading threads of the core, so its count includes what ran on core 0");
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

/*
 * One owner rule for stat, state and reset --zero (pmu_owner_scan_nb()):
 * - a run on CPU 0 holds IQ_COUNTER0 of the core both threads share:
 *   `state -C 1` calls it "pmustat" as `state -C 0` does (the sibling's
 *   lock and journal), "pmustat_killed" once that run is killed;
 * - perf's stopped counter (Linux's p4 driver clears only the CCCR's
 *   enable, its ESCR still armed, OVF_PMI set) is busy for stat
 *   (--dry-run names it in use), for state (not idle: "perf",
 *   stopped) and for reset --zero (perf's: left alone); a stopped counter
 *   without a PMI bit is pmustat-style for all three, so --zero clears it.
 */
static void
test_one_owner_rule(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	pid_t pid;

	E2E_NEED_CPUS_0_1();
	e2e_machine_new(&m, (const char *[]){ "--model", "netburst-ht", "--cpus", "2", NULL });
	pid = e2e_spawn(&m, (const char *[]){ E2E_PMUSTAT, "-C", "0", "-e", "instr_retired:NBOGUSNTAG", "--",
			m.workload, "--sleep", "10000", NULL }, NULL);
	assert_true(e2e_wait_msr(&m, 0, IQ_CCCR0, 1ull << 12, 1ull << 12, 5000));
	for (unsigned k = 0; k < 2; k++) {
		e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "state", "-C", k ? "1" : "0", NULL });
		e2e_assert_status(&r, 0);
		e2e_assert_out_contains(&r, "IQ_COUNTER0    0x00039000");
		e2e_assert_out_contains(&r, "none                 pmustat");
		e2e_result_free(&r);
	}
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "state", "-C", "1", "--json", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_out_contains(&r, "\"owner\": \"pmustat\"");
	e2e_result_free(&r);
	kill(-pid, SIGKILL);
	assert_int_equal(e2e_reap(pid), 128 + SIGKILL);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "state", "-C", "1", NULL });
	e2e_assert_out_contains(&r, "pmustat_killed");
	e2e_result_free(&r);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "reset", "-C", "0", NULL });
	e2e_assert_status(&r, 0);
	e2e_result_free(&r);

	/* perf's stopped pair on thread 0's half, a pmustat-style one on thread 1's. */
	assert_int_equal(e2e_set_msr(&m, 0, CRU_ESCR0, PERF_ESCR), 0);
	assert_int_equal(e2e_set_msr(&m, 0, IQ_CCCR0, PERF_CCCR & ~(1ull << 12)), 0);
	assert_int_equal(e2e_set_msr(&m, 0, CRU_ESCR1, 0x4000201), 0);
	assert_int_equal(e2e_set_msr(&m, 0, IQ_CCCR2, 0x38000), 0);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "state", "-C", "0", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_out_contains(&r, "perf (stopped: enable clear, its ESCR armed)");
	e2e_assert_out_contains(&r, "unknown (stopped: enable clear, its ESCR armed)");
	e2e_assert_out_contains(&r, "16 of 18 counters idle");
	e2e_result_free(&r);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "0", "--dry-run", "-e", "instr_retired:NBOGUSNTAG", "--",
		"true", NULL });
	/* Both CRU ESCRs held: stat refuses instr_retired, naming the two stopped counters. */
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "IQ_COUNTER0 (MSR_IQ_CCCR0 = 0x4038000, stopped");
	e2e_assert_err_contains(&r, "IQ_COUNTER2 (MSR_IQ_CCCR2 = 0x38000, stopped");
	e2e_result_free(&r);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "reset", "-C", "0", "--zero", "--yes", NULL });
	e2e_assert_status(&r, 0);
	e2e_result_free(&r);
	assert_int_equal(e2e_msr(&m, 0, IQ_CCCR0), PERF_CCCR & ~(1ull << 12));
	assert_int_equal(e2e_msr(&m, 0, CRU_ESCR0), PERF_ESCR);
	assert_int_equal(e2e_msr(&m, 0, IQ_CCCR2), 0);
	assert_int_equal(e2e_msr(&m, 0, CRU_ESCR1), 0);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "state", "-C", "1", NULL });
	e2e_assert_out_contains(&r, "17 of 18 counters idle");
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_thread_keeps_to_its_half),
		cmocka_unit_test(test_counter_taken_mid_run),
		cmocka_unit_test(test_thread_independent_counted_once),
		cmocka_unit_test(test_one_owner_rule),
	};

	return cmocka_run_group_tests(tests, e2e_setup_cpus_0_1, NULL);
}
