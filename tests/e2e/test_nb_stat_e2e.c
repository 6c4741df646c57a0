/*
 * test_nb_stat_e2e.c - `pmustat -e ... -- COMMAND` on the emulated
 * NetBurst machines, the real binary end to end: exact counts of the
 * workload's --nb clocks (plain, threshold, complement and edge filtered),
 * a 40-bit wrap, reruns when events share an ESCR, counters another user
 * enabled left alone, and every register as found afterwards.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "e2e_harness.h"

#define IQ_CCCR0	0x36cu
#define IQ_CCCR1	0x36du
#define IQ_COUNTER0	0x30cu
#define CRU_ESCR0	0x3b8u
#define MS_CCCR0	0x364u
#define IQ_CCCR2	0x36eu
#define CRU_ESCR1	0x3b9u

/* The value of CSV "count" record @event ("count,,VALUE,,EVENT,...") in @out, or fail. */
static unsigned long long
csv_value(const char *out, const char *event)
{
	char needle[200];
	const char *line = out;

	snprintf(needle, sizeof(needle), ",,%s,", event);
	while (line && *line) {
		const char *nl = strchr(line, '\n');
		const char *hit = strstr(line, needle);

		if (hit && (!nl || hit < nl) && strncmp(line, "count,,", 7) == 0)
			return strtoull(line + 7, NULL, 10);
		line = nl ? nl + 1 : NULL;
	}
	fail_msg("no row for %s in:\n%s", event, out);
	return 0;
}

/* The run (1-based) CSV row @event was counted in. */
static unsigned
csv_run(const char *out, const char *event)
{
	char needle[200];
	const char *hit, *comma;

	snprintf(needle, sizeof(needle), ",,%s,", event);
	hit = strstr(out, needle);
	assert_non_null(hit);
	/* VALUE,,EVENT,CANONICAL,COUNTER,RUN,STATUS */
	comma = hit + strlen(needle);
	for (int field = 0; field < 2; field++) {
		comma = strchr(comma, ',');
		assert_non_null(comma);
		comma++;
	}
	return (unsigned)strtoul(comma, NULL, 10);
}

static void
run_stat(const struct e2e_machine *m, struct e2e_result *r, const char *events, const char *option, int status)
{
	e2e_run(m, r, (const char *[]){ E2E_PMUSTAT, "-C", "0", "-x,", option, "-e", events, "--", m->workload,
		"--nb", "0x02:0x1:3,0,1,5*10,0*4,2", "--nb", "0x02:0x1:9*100:k", "--nb", "0x13:0x1:1*1000",
		NULL });
	if (r->status != status)
		fail_msg("exit %d, not %d; stderr:\n%s", r->status, status, r->err);
}

/*
 * The filters of "Filtering Events": 56 = 3 + 0 + 1 + 50 + 2 (the input
 * added each clock, user only), 11 clocks above 2, 3 rising edges of
 * "input <= 0", and 1000 clocks of global_power_events. Two instr_retired
 * events more than CRU_ESCR0/1 can take: two runs. Nothing is left changed.
 */
static void
test_counts_exactly_with_filters(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before, *after;

	(void)state;
	e2e_machine_new(&m, (const char *[]){ "--model", "netburst", "--cpus", "1", NULL });
	before = e2e_state(&m);
	run_stat(&m, &r, "instr_retired:NBOGUSNTAG,cycles,instr_retired:threshold=2,"
		 "instr_retired:threshold=0:complement:edge", "-v", 0);
	assert_int_equal(csv_value(r.err, "instr_retired:NBOGUSNTAG:u"), 56);
	assert_int_equal(csv_value(r.err, "cycles:u"), 1000);
	assert_int_equal(csv_value(r.err, "instr_retired:threshold=2:u"), 11);
	assert_int_equal(csv_value(r.err, "instr_retired:threshold=0:complement:edge:u"), 3);
	assert_int_not_equal(csv_run(r.err, "instr_retired:NBOGUSNTAG:u"),
			     csv_run(r.err, "instr_retired:threshold=0:complement:edge:u"));
	e2e_result_free(&r);
	after = e2e_state(&m);
	assert_int_equal(emu_pmu_diff(before, after, stderr), 0);
	free(before);
	free(after);
	/* --no-rerun refuses what needs two runs, before any write. */
	run_stat(&m, &r, "instr_retired:NBOGUSNTAG,instr_retired:threshold=2,"
		 "instr_retired:threshold=0:complement:edge", "--no-rerun", 125);
	e2e_assert_err_contains(&r, "need 2 runs");
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

/* 2^40 + 5 clocks: the counter wraps once and the CCCR's OVF flag says so. */
static void
test_forty_bit_wrap(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before, *after;

	(void)state;
	e2e_machine_new(&m, (const char *[]){ "--model", "netburst", "--cpus", "1", NULL });
	before = e2e_state(&m);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "0", "-x,", "-e", "global_power_events", "--",
		m.workload, "--nb", "0x13:0x1:1*1099511627781", NULL });
	e2e_assert_status(&r, 0);
	assert_int_equal(csv_value(r.err, "global_power_events:u"), 1099511627781ull);
	e2e_result_free(&r);
	after = e2e_state(&m);
	assert_int_equal(emu_pmu_diff(before, after, stderr), 0);
	free(before);
	free(after);
	e2e_machine_free(&m);
}

/*
 * Another user's enabled CCCRs (IQ_CCCR0 and IQ_CCCR1 through CRU_ESCR0,
 * MS_CCCR0, IQ_CCCR2 through CRU_ESCR3): their counters and CRU_ESCR0
 * are not touched, and instr_retired goes to a free counter CRU_ESCR1 feeds.
 */
static void
test_other_users_counters_left_alone(void **state)
{
	/* Enabled, ESCR select 4 (CRU_ESCR0 for IQ counters 0/1), bits 17:16 = 11b. */
	const uint64_t cccr = (1ull << 12) | (4ull << 13) | (3ull << 16);
	const uint64_t cccr2 = (1ull << 12) | (5ull << 13) | (3ull << 16);
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before, *after;

	(void)state;
	e2e_machine_new(&m, (const char *[]){ "--model", "netburst", "--cpus", "1", NULL });
	assert_int_equal(e2e_set_msr(&m, 0, CRU_ESCR0, (0x2ull << 25) | (0x1ull << 9) | (1ull << 2)), 0);
	assert_int_equal(e2e_set_msr(&m, 0, IQ_CCCR0, cccr), 0);
	assert_int_equal(e2e_set_msr(&m, 0, IQ_CCCR1, cccr), 0);
	assert_int_equal(e2e_set_msr(&m, 0, MS_CCCR0, (1ull << 12) | (3ull << 16)), 0);
	/* IQ_COUNTER2 through CRU_ESCR3 (select 5): CRU_ESCR1 is free, that counter is not. */
	assert_int_equal(e2e_set_msr(&m, 0, IQ_CCCR2, cccr2), 0);
	before = e2e_state(&m);
	/* --dry-run reads the CCCRs and plans around them, writing nothing. */
	run_stat(&m, &r, "instr_retired:NBOGUSNTAG", "--dry-run", 0);
	e2e_assert_err_contains(&r, "in use: IQ_COUNTER0 (MSR_IQ_CCCR0 = 0x39000, enabled): another user's");
	e2e_assert_err_contains(&r, "in use: IQ_COUNTER2 (MSR_IQ_CCCR2 = 0x3b000, enabled)");
	e2e_result_free(&r);
	after = e2e_state(&m);
	assert_int_equal(emu_pmu_diff(before, after, stderr), 0);
	free(after);
	run_stat(&m, &r, "instr_retired:NBOGUSNTAG", "-v", 0);
	/* The other user's counter counted the same clocks beside us. */
	assert_int_equal(csv_value(r.err, "instr_retired:NBOGUSNTAG:u"), 56);
	assert_non_null(strstr(r.err, "IQ_COUNTER3") ? strstr(r.err, "IQ_COUNTER3") : strstr(r.err, "IQ_COUNTER5"));
	e2e_result_free(&r);
	after = e2e_state(&m);
	/* Only the other user's counters moved (the clocks above), nothing of ours is left. */
	assert_int_equal(after->cpu[0].nb.cccr[12], cccr);
	assert_int_equal(after->cpu[0].nb.cccr[13], cccr);
	assert_int_equal(after->cpu[0].nb.cccr[14], cccr2);
	assert_int_equal(e2e_msr(&m, 0, CRU_ESCR0), (0x2ull << 25) | (0x1ull << 9) | (1ull << 2));
	for (unsigned i = 0; i < 18; i++) {
		if (i == 12 || i == 13 || i == 14)
			continue;
		assert_int_equal(e2e_msr(&m, 0, 0x360 + i), before->cpu[0].nb.cccr[i]);
		assert_int_equal(e2e_msr(&m, 0, 0x300 + i), before->cpu[0].nb.counter[i]);
	}
	free(before);
	free(after);
	e2e_machine_free(&m);
}

/*
 * pmustat SIGKILLed mid-count (the command too) leaves IQ_COUNTER0
 * counting and CRU_ESCR0 programmed; `pmustat reset`, or the next run,
 * puts back what it found, bit for bit, from the crash journal. Another
 * user's CCCR enabled since on a counter the run did not use stays.
 */
static void
test_sigkill_then_reset_or_next_run(void **state)
{
	/* Found: CRU_ESCR0 left programmed (no CCCR enabled on it), a count in IQ_COUNTER0. */
	const uint64_t escr_found = (0x5ull << 25) | (0x3ull << 9);
	const uint64_t ms_cccr = (1ull << 12) | (3ull << 16);
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before, *after;

	(void)state;
	for (int next_run = 0; next_run < 2; next_run++) {
		pid_t pid;

		e2e_machine_new(&m, (const char *[]){ "--model", "netburst", "--cpus", "1", NULL });
		assert_int_equal(e2e_set_msr(&m, 0, CRU_ESCR0, escr_found), 0);
		assert_int_equal(e2e_set_msr(&m, 0, IQ_COUNTER0, 0x1234), 0);
		before = e2e_state(&m);
		pid = e2e_spawn(&m, (const char *[]){ E2E_PMUSTAT, "-C", "0", "-e", "instr_retired:NBOGUSNTAG", "--",
				m.workload, "--sleep", "10000", NULL }, NULL);
		assert_true(e2e_wait_msr(&m, 0, IQ_CCCR0, 1ull << 12, 1ull << 12, 5000));
		e2e_sleep_ms(100);
		kill(-pid, SIGKILL);
		assert_int_equal(e2e_reap(pid), 128 + SIGKILL);
		assert_int_not_equal(e2e_msr(&m, 0, CRU_ESCR0), escr_found);
		/* Somebody else since: MS_COUNTER0 (not the run's) enabled. */
		assert_int_equal(e2e_set_msr(&m, 0, MS_CCCR0, ms_cccr), 0);
		if (next_run)
			e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "0", "-x,", "-e", "instr_retired:NBOGUSNTAG",
				"--", m.workload, "--nb", "0x02:0x1:7", NULL });
		else
			e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "reset", "-C", "0", NULL });
		e2e_assert_status(&r, 0);
		e2e_assert_err_contains(&r, "was killed");
		if (next_run)
			assert_int_equal(csv_value(r.err, "instr_retired:NBOGUSNTAG:u"), 7);
		e2e_result_free(&r);
		assert_int_equal(e2e_msr(&m, 0, MS_CCCR0), ms_cccr);
		assert_int_equal(e2e_set_msr(&m, 0, MS_CCCR0, 0), 0);
		after = e2e_state(&m);
		assert_int_equal(emu_pmu_diff(before, after, stderr), 0);
		free(before);
		free(after);
		e2e_machine_free(&m);
	}
}

/*
 * Hyper-Threading (netburst-ht: CPUs 0 and 1 are one core's two threads,
 * one PMU): each thread counts its own clocks exactly through its T0/T1
 * USR bits, and while a run holds CPU 0 a run on CPU 1 is refused (the
 * ESCRs and counters are the same), touching nothing.
 */
static void
test_ht_threads_and_shared_pmu_lock(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before, *after;
	pid_t pid;

	(void)state;
	e2e_machine_new(&m, (const char *[]){ "--model", "netburst-ht", "--cpus", "2", NULL });
	before = e2e_state(&m);
	for (int cpu = 0; cpu < 2; cpu++) {
		e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", cpu ? "1" : "0", "-x,", "-e",
			"instr_retired:NBOGUSNTAG", "--", m.workload, "--nb", cpu ? "0x02:0x1:3,5*10" : "0x02:0x1:4*9",
			NULL });
		e2e_assert_status(&r, 0);
		assert_int_equal(csv_value(r.err, "instr_retired:NBOGUSNTAG:u"), cpu ? 53 : 36);
		e2e_result_free(&r);
	}
	after = e2e_state(&m);
	assert_int_equal(emu_pmu_diff(before, after, stderr), 0);
	free(after);
	pid = e2e_spawn(&m, (const char *[]){ E2E_PMUSTAT, "-C", "0", "-e", "instr_retired:NBOGUSNTAG", "--",
			m.workload, "--sleep", "10000", NULL }, NULL);
	assert_true(e2e_wait_msr(&m, 0, IQ_CCCR0, 1ull << 12, 1ull << 12, 5000));
	after = e2e_state(&m);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "1", "-e", "instr_retired:NBOGUSNTAG", "--", "true",
		NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "core 1 is in use by another pmustat");
	e2e_result_free(&r);
	{
		struct emu_pmu *during = e2e_state(&m);

		assert_int_equal(emu_pmu_diff(after, during, stderr), 0);
		free(during);
	}
	free(after);
	kill(-pid, SIGTERM);
	e2e_reap(pid);
	after = e2e_state(&m);
	assert_int_equal(emu_pmu_diff(before, after, stderr), 0);
	free(before);
	free(after);
	e2e_machine_free(&m);
}

/* IA32_MISC_ENABLE[7] clear: refused before any write, naming the register. */
static void
test_perfmon_unavailable_refused(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before, *after;

	(void)state;
	e2e_machine_new(&m, (const char *[]){ "--model", "netburst", "--cpus", "1", "--perfmon=off", NULL });
	before = e2e_state(&m);
	run_stat(&m, &r, "instr_retired:NBOGUSNTAG", "-v", 125);
	e2e_assert_err_contains(&r, "IA32_MISC_ENABLE (0x1a0) bit 7 says performance monitoring is unavailable");
	e2e_result_free(&r);
	after = e2e_state(&m);
	assert_int_equal(emu_pmu_diff(before, after, stderr), 0);
	free(before);
	free(after);
	e2e_machine_free(&m);
}

/*
 * `pmustat state` of a NetBurst core: each enabled counter decoded (its
 * ESCR, event and mask names, USR/OS bits, filter) with its owner, a live
 * pmustat run, then a killed one; read only.
 */
static void
test_state_decodes_counters(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before, *after;
	pid_t pid;

	(void)state;
	e2e_machine_new(&m, (const char *[]){ "--model", "netburst", "--cpus", "1", NULL });
	pid = e2e_spawn(&m, (const char *[]){ E2E_PMUSTAT, "-C", "0", "-e", "instr_retired:threshold=2:edge", "--",
			m.workload, "--sleep", "10000", NULL }, NULL);
	assert_true(e2e_wait_msr(&m, 0, IQ_CCCR0, 1ull << 12, 1ull << 12, 5000));
	before = e2e_state(&m);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "state", "-C", "0", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_out_contains(&r, "NetBurst PMU, 18 counters x 40 bits, 45 ESCRs");
	e2e_assert_out_contains(&r, "IQ_COUNTER0");
	e2e_assert_out_contains(&r, "CRU_ESCR0   instr_retired:NBOGUSNTAG:NBOGUSTAG");
	e2e_assert_out_contains(&r, "T0_USR       threshold > 2, edge  pmustat");
	e2e_assert_out_contains(&r, "17 of 18 counters idle");
	e2e_result_free(&r);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "state", "-C", "0", "--json", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_out_contains(&r, "\"pmu\": \"netburst\"");
	e2e_assert_out_contains(&r, "\"counter\": \"IQ_COUNTER0\"");
	e2e_assert_out_contains(&r, "\"owner\": \"pmustat\"");
	e2e_result_free(&r);
	after = e2e_state(&m);
	assert_int_equal(emu_pmu_diff(before, after, stderr), 0);
	free(before);
	free(after);
	kill(-pid, SIGKILL);
	assert_int_equal(e2e_reap(pid), 128 + SIGKILL);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "state", "-C", "0", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_out_contains(&r, "pmustat_killed");
	e2e_result_free(&r);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "reset", "-C", "0", NULL });
	e2e_assert_status(&r, 0);
	e2e_result_free(&r);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "state", "-C", "0", NULL });
	e2e_assert_out_contains(&r, "18 of 18 counters idle");
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

/*
 * HT: a run killed on CPU 1 left the shared PMU programmed and its journal
 * under CPU 1; the next run on CPU 0 (the same core) puts it back first.
 */
static void
test_ht_sibling_journal_recovered(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before, *after;
	pid_t pid;

	(void)state;
	e2e_machine_new(&m, (const char *[]){ "--model", "netburst-ht", "--cpus", "2", NULL });
	assert_int_equal(e2e_set_msr(&m, 0, IQ_COUNTER0, 0x4242), 0);
	before = e2e_state(&m);
	pid = e2e_spawn(&m, (const char *[]){ E2E_PMUSTAT, "-C", "1", "-e", "instr_retired:NBOGUSNTAG", "--",
			m.workload, "--sleep", "10000", NULL }, NULL);
	assert_true(e2e_wait_msr(&m, 0, IQ_CCCR0, 1ull << 12, 1ull << 12, 5000));
	e2e_sleep_ms(100);
	kill(-pid, SIGKILL);
	assert_int_equal(e2e_reap(pid), 128 + SIGKILL);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "0", "-x,", "-e", "instr_retired:NBOGUSNTAG", "--",
		m.workload, "--nb", "0x02:0x1:2*5", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "core 1: pmustat pid");
	e2e_assert_err_contains(&r, "was killed");
	assert_int_equal(csv_value(r.err, "instr_retired:NBOGUSNTAG:u"), 10);
	e2e_result_free(&r);
	after = e2e_state(&m);
	assert_int_equal(emu_pmu_diff(before, after, stderr), 0);
	free(before);
	free(after);
	e2e_machine_free(&m);
}

/* Software events count beside NetBurst ones; the perf backend is refused for these. */
static void
test_software_events_and_perf_backend(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;

	(void)state;
	e2e_machine_new(&m, (const char *[]){ "--model", "netburst", "--cpus", "1", NULL });
	run_stat(&m, &r, "task-clock,global_power_events", "-v", 0);
	assert_int_equal(csv_value(r.err, "global_power_events:u"), 1000);
	assert_non_null(strstr(r.err, ",msec,task-clock,task-clock,-,1,counted"));
	e2e_result_free(&r);
	run_stat(&m, &r, "global_power_events", "--backend=perf", 125);
	e2e_assert_err_contains(&r, "NetBurst events count only through the MSR backend");
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

/*
 * Another user's stopped counter: IQ_CCCR0 disabled (as Linux's p4 driver
 * stops one) but still selecting CRU_ESCR0, armed with T0_USR, and its
 * count in IQ_COUNTER0. pmustat counts through CRU_ESCR1 and IQ_COUNTER2
 * instead; when that user resumes mid-run (its CCCR enabled again), its
 * counter goes on from its own count and keeps its enable after the run.
 * With CRU_ESCR1 armed too (a tagging upstream ESCR: tag enable, no
 * counter), instr_retired has no ESCR left: refused, naming both.
 */
static void
test_armed_escr_behind_disabled_cccr(void **state)
{
	const uint64_t escr = (0x2ull << 25) | (0x1ull << 9) | (1ull << 2);
	const uint64_t stopped = (4ull << 13) | (3ull << 16), resumed = stopped | (1ull << 12);
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before, *after;
	char act[64];

	(void)state;
	e2e_machine_new(&m, (const char *[]){ "--model", "netburst", "--cpus", "1", NULL });
	assert_int_equal(e2e_set_msr(&m, 0, CRU_ESCR0, escr), 0);
	assert_int_equal(e2e_set_msr(&m, 0, IQ_CCCR0, stopped), 0);
	assert_int_equal(e2e_set_msr(&m, 0, IQ_COUNTER0, 1000), 0);
	before = e2e_state(&m);
	run_stat(&m, &r, "instr_retired:NBOGUSNTAG", "--dry-run", 0);
	e2e_assert_err_contains(&r, "in use: IQ_COUNTER0 (MSR_IQ_CCCR0 = 0x38000, stopped: disabled, selecting the armed CRU_ESCR0): another user's");
	e2e_assert_err_contains(&r, "instr_retired:NBOGUSNTAG         IQ_COUNTER2 via CRU_ESCR1");
	e2e_result_free(&r);
	snprintf(act, sizeof(act), "wrmsr:0x%x=0x%llx", IQ_CCCR0, (unsigned long long)resumed);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "0", "-x,", "-e", "instr_retired:NBOGUSNTAG", "--",
		m.workload, "--act", act, "--nb", "0x02:0x1:3*10", NULL });
	e2e_assert_status(&r, 0);
	assert_int_equal(csv_value(r.err, "instr_retired:NBOGUSNTAG:u"), 30);
	e2e_result_free(&r);
	assert_int_equal(e2e_msr(&m, 0, IQ_CCCR0), resumed);
	assert_int_equal(e2e_msr(&m, 0, CRU_ESCR0), escr);
	assert_int_equal(e2e_msr(&m, 0, IQ_COUNTER0), 1030);
	/* Everything else as found. */
	assert_int_equal(e2e_set_msr(&m, 0, IQ_CCCR0, stopped), 0);
	assert_int_equal(e2e_set_msr(&m, 0, IQ_COUNTER0, 1000), 0);
	after = e2e_state(&m);
	assert_int_equal(emu_pmu_diff(before, after, stderr), 0);
	free(after);
	free(before);
	/* CRU_ESCR1 armed for tagging (bit 4), no counter: no ESCR for instr_retired. */
	assert_int_equal(e2e_set_msr(&m, 0, CRU_ESCR1, (0x2ull << 25) | (1ull << 4)), 0);
	before = e2e_state(&m);
	run_stat(&m, &r, "instr_retired:NBOGUSNTAG", "-v", 125);
	e2e_assert_err_contains(&r, "CRU_ESCR1 (MSR_CRU_ESCR1 = 0x4000010, armed: USR/OS or tag bits set, though no enabled CCCR selects it)");
	e2e_assert_err_contains(&r, "IQ_COUNTER0 (MSR_IQ_CCCR0 = 0x38000, stopped");
	e2e_result_free(&r);
	after = e2e_state(&m);
	assert_int_equal(emu_pmu_diff(before, after, stderr), 0);
	free(after);
	free(before);
	e2e_machine_free(&m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts_exactly_with_filters),
		cmocka_unit_test(test_forty_bit_wrap),
		cmocka_unit_test(test_other_users_counters_left_alone),
		cmocka_unit_test(test_armed_escr_behind_disabled_cccr),
		cmocka_unit_test(test_sigkill_then_reset_or_next_run),
		cmocka_unit_test(test_ht_threads_and_shared_pmu_lock),
		cmocka_unit_test(test_perfmon_unavailable_refused),
		cmocka_unit_test(test_state_decodes_counters),
		cmocka_unit_test(test_ht_sibling_journal_recovered),
		cmocka_unit_test(test_software_events_and_perf_backend),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
