/*
 * test_parties.c - the harness playing the other parties of a shared PMU
 * while a real program runs: emu-workload stopping at a sync point for
 * the test to act as the kernel or perf, its action and top-down steps,
 * its real-time steps, and machines that start with preset registers.
 */
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "e2e_harness.h"
#include "pmu/msr.h"

#define WORKLOAD E2E_EMU_WORKLOAD

/* A CPU this test may run on, as a string for --cpu, and the machine around it. */
static unsigned
machine_around_a_cpu(struct e2e_machine *m, const char *model, char cpu_arg[16],
		     const char *const extra[])
{
	const char *args[16] = { "--model", model };
	cpu_set_t set;
	unsigned cpu = 0, n = 2;

	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	while (!CPU_ISSET(cpu, &set))
		cpu++;
	snprintf(cpu_arg, 16, "%u", cpu);
	for (size_t i = 0; extra && extra[i] && n < 15; i++)
		args[n++] = extra[i];
	args[n] = NULL;
	e2e_machine_new(m, args);	/* --cpus: the host's, so the CPU exists */
	return cpu;
}

static void
test_workload_stops_for_the_kernel(void **state)
{
	struct e2e_machine m;
	struct e2e_sync s;
	char cpu_arg[16];
	unsigned cpu = machine_around_a_cpu(&m, "skylake", cpu_arg, NULL);
	uint64_t max = (1ull << 48) - 1;
	pid_t pid;

	(void)state;
	assert_int_equal(e2e_set_msr(&m, cpu, msr_evtsel(0),
				     EVTSEL_EVENT(0xc0) | EVTSEL_USR | EVTSEL_EN | EVTSEL_INT), 0);
	assert_int_equal(e2e_set_msr(&m, cpu, msr_a_pmc(0), max - 9), 0);
	e2e_sync_new(&m, &s, "mid");
	pid = e2e_spawn(&m, (const char *[]){ WORKLOAD, "--quiet", "--cpu", cpu_arg,
		"--retire", "0xc0:0:100", "--sync", s.prefix, "--retire", "0xc0:0:5", NULL }, NULL);
	assert_true(e2e_sync_wait(&s, 20000));
	/* Stopped between the bursts: the first wrapped the counter, the second is to come. */
	assert_int_equal(e2e_msr(&m, cpu, msr_pmc(0)), 90);
	assert_int_equal(e2e_msr(&m, cpu, MSR_IA32_PERF_GLOBAL_STATUS), 1);
	/* The kernel's PMI handler acks every bit, its own or not. */
	assert_int_equal(e2e_act(&m, cpu, "nmi"), 0);
	assert_int_equal(e2e_msr(&m, cpu, MSR_IA32_PERF_GLOBAL_STATUS), 0);
	e2e_sync_release(&s);
	assert_int_equal(e2e_reap(pid), 0);
	assert_int_equal(e2e_msr(&m, cpu, msr_pmc(0)), 95);
	assert_int_equal(e2e_msr(&m, cpu, MSR_IA32_PERF_GLOBAL_STATUS), 0);
	e2e_sync_free(&s);
	e2e_machine_free(&m);
}

static void
test_sync_point_passed_many_times(void **state)
{
	struct e2e_machine m;
	struct e2e_sync s;
	char cpu_arg[16];
	unsigned cpu = machine_around_a_cpu(&m, "skylake", cpu_arg, NULL);
	pid_t pid;

	(void)state;
	assert_int_equal(e2e_set_msr(&m, cpu, msr_evtsel(1),
				     EVTSEL_EVENT(0xc4) | EVTSEL_USR | EVTSEL_EN), 0);
	e2e_sync_new(&m, &s, "loop");
	pid = e2e_spawn(&m, (const char *[]){ WORKLOAD, "--quiet", "--cpu", cpu_arg,
		"--retire", "0xc4:0:7", "--sync", s.prefix, "--steps", "3", NULL }, NULL);
	for (uint64_t k = 1; k <= 3; k++) {
		assert_true(e2e_sync_wait(&s, 20000));
		assert_int_equal(e2e_msr(&m, cpu, msr_pmc(1)), 7 * k);
		/* perf turns counter 1 off and on again between passages: no effect. */
		assert_int_equal(e2e_act(&m, cpu, "wrmsr:0x38f=0x0"), 0);
		assert_int_equal(e2e_act(&m, cpu, "wrmsr:0x38f=0xf"), 0);
		e2e_sync_release(&s);
	}
	assert_int_equal(e2e_reap(pid), 0);
	/* Gone: a wait says so instead of hanging. */
	assert_false(e2e_sync_wait(&s, 100));
	e2e_sync_free(&s);
	e2e_machine_free(&m);
}

static void
test_workload_acts_as_perf(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	char cpu_arg[16];
	unsigned cpu = machine_around_a_cpu(&m, "skylake", cpu_arg, NULL);

	(void)state;
	e2e_run(&m, &r, (const char *[]){ WORKLOAD, "--quiet", "--cpu", cpu_arg,
		"--act", "take-fixed:1", "--act", "pebs:0:0xd0:0x81", "--retire", "0xd0:0x81:3",
		"--act", "take-fixed:1", NULL });
	/* The second take-fixed finds the counter taken: the step fails, exit 2. */
	e2e_assert_status(&r, 2);
	e2e_assert_err_contains(&r, "take-fixed:1 on cpu");
	e2e_result_free(&r);
	assert_int_equal(e2e_msr(&m, cpu, MSR_IA32_FIXED_CTR_CTRL), 0xb0);
	assert_int_equal(e2e_msr(&m, cpu, 0x3f1), 1);
	assert_int_equal(e2e_msr(&m, cpu, msr_pmc(0)), 3);
	assert_int_equal(e2e_msr(&m, cpu, MSR_IA32_PERF_GLOBAL_INUSE),
			 1 | GLOBAL_FIXED_BIT(1) | (1ull << 63));
	e2e_machine_free(&m);
}

static void
test_workload_retires_topdown_and_offcore(void **state)
{
	struct e2e_machine m, sky;
	struct e2e_result r;
	char cpu_arg[16];
	unsigned cpu = machine_around_a_cpu(&m, "icelake", cpu_arg, (const char *const[]){
		"--set", "0x38d=0x2000", "--set", "0x38f=0x1000800000000", NULL });

	(void)state;
	e2e_run(&m, &r, (const char *[]){ WORKLOAD, "--quiet", "--cpu", cpu_arg,
		"--topdown", "100:50:30:20", NULL });
	e2e_assert_status(&r, 0);
	e2e_result_free(&r);
	assert_int_equal(e2e_msr(&m, cpu, msr_fixed_ctr(3)), 200);
	assert_int_equal(e2e_msr(&m, cpu, 0x329), 0x19264080);
	e2e_machine_free(&m);

	cpu = machine_around_a_cpu(&sky, "skylake", cpu_arg, (const char *const[]){
		"--set", "0x186=0x4101b7", "--set", "0x187=0x4101bb", "--set", "0x1a6=0x10001",
		"--set", "0x1a7=0x10002", NULL });
	e2e_run(&sky, &r, (const char *[]){ WORKLOAD, "--quiet", "--cpu", cpu_arg,
		"--offcore", "0x10001:11", "--offcore", "0x10002:22", "--offcore", "0x10002:1:k", NULL });
	e2e_assert_status(&r, 0);
	e2e_result_free(&r);
	assert_int_equal(e2e_msr(&sky, cpu, msr_pmc(0)), 11);
	assert_int_equal(e2e_msr(&sky, cpu, msr_pmc(1)), 22);
	e2e_machine_free(&sky);
}

static void
test_steps_are_apart_in_real_time(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct timespec t0, t1;
	char cpu_arg[16];
	unsigned cpu = machine_around_a_cpu(&m, "skylake", cpu_arg, NULL);
	long ms;

	(void)state;
	assert_int_equal(e2e_set_msr(&m, cpu, msr_evtsel(0),
				     EVTSEL_EVENT(0xc0) | EVTSEL_USR | EVTSEL_EN), 0);
	/* 2^47 per step, three steps 100 ms apart: 1.5 x 2^48, one wrap. */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	e2e_run(&m, &r, (const char *[]){ WORKLOAD, "--quiet", "--cpu", cpu_arg,
		"--retire", "0xc0:0:0x800000000000", "--steps", "3", "--step-ms", "100", NULL });
	clock_gettime(CLOCK_MONOTONIC, &t1);
	e2e_assert_status(&r, 0);
	e2e_result_free(&r);
	ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
	assert_true(ms >= 200);
	assert_int_equal(e2e_msr(&m, cpu, msr_pmc(0)), 1ull << 47);
	assert_int_equal(e2e_msr(&m, cpu, MSR_IA32_PERF_GLOBAL_STATUS), 1);
	e2e_machine_free(&m);
}

static void
test_machine_starts_with_presets(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *pmu;

	(void)state;
	/* A frozen PMU with perf's PEBS counter on CPU 0, as another party left it. */
	e2e_machine_new(&m, (const char *[]){ "--model", "skylake", "--cpus", "2",
		"--set", "0x391=0x800000000000000", "--set", "0:0x186=0x4300c0", "--set", "0:0x3f1=1",
		NULL });
	assert_int_equal(e2e_msr(&m, 0, MSR_IA32_PERF_GLOBAL_STATUS), 1ull << 59);
	assert_int_equal(e2e_msr(&m, 1, MSR_IA32_PERF_GLOBAL_STATUS), 1ull << 59);
	assert_int_equal(e2e_msr(&m, 0, msr_evtsel(0)), 0x4300c0);
	assert_int_equal(e2e_msr(&m, 1, msr_evtsel(0)), 0);
	assert_int_equal(e2e_msr(&m, 0, MSR_IA32_PERF_GLOBAL_INUSE), 1 | (1ull << 63));
	/* Presets are the starting state: no accesses counted. */
	pmu = e2e_state(&m);
	assert_int_equal(pmu->cpu[0].stats.wrmsr, 0);
	free(pmu);
	assert_int_equal(e2e_act(&m, 0, "pebs:0:0xc0:0"), -EBUSY);
	/* A preset the CPU would refuse is refused. */
	e2e_run(&m, &r, (const char *[]){ E2E_PMU_EMU, "init", "--model", "skylake", "--cpus",
		"1", "--set", "0x38e=1", "/dev/null", NULL });
	e2e_assert_status(&r, 2);
	e2e_assert_err_contains(&r, "#GP");
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_workload_stops_for_the_kernel),
		cmocka_unit_test(test_sync_point_passed_many_times),
		cmocka_unit_test(test_workload_acts_as_perf),
		cmocka_unit_test(test_workload_retires_topdown_and_offcore),
		cmocka_unit_test(test_steps_are_apart_in_real_time),
		cmocka_unit_test(test_machine_starts_with_presets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
