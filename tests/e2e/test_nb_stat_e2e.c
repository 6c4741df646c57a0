/*
 * test_nb_stat_e2e.c - `pmustat -e ... -- COMMAND` on the emulated
 * NetBurst machines, the real binary end to end: exact counts of the
 * workload's --nb clocks (plain, threshold, complement and edge filtered),
 * a 40-bit wrap, reruns when events share an ESCR, counters another user
 * enabled left alone, and every register as found afterwards.
 */
#include <setjmp.h>
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

/* The value of CSV row @event ("VALUE,,EVENT,...") in @out, or fail. */
static unsigned long long
csv_value(const char *out, const char *event)
{
	char needle[200];
	const char *line = out;

	snprintf(needle, sizeof(needle), ",,%s,", event);
	while (line && *line) {
		const char *nl = strchr(line, '\n');
		const char *hit = strstr(line, needle);

		if (hit && (!nl || hit < nl))
			return strtoull(line, NULL, 10);
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
	assert_int_equal(csv_value(r.err, "instr_retired:NBOGUSNTAG"), 56);
	assert_int_equal(csv_value(r.err, "cycles"), 1000);
	assert_int_equal(csv_value(r.err, "instr_retired:threshold=2"), 11);
	assert_int_equal(csv_value(r.err, "instr_retired:threshold=0:complement:edge"), 3);
	assert_int_not_equal(csv_run(r.err, "instr_retired:NBOGUSNTAG"),
			     csv_run(r.err, "instr_retired:threshold=0:complement:edge"));
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
	assert_int_equal(csv_value(r.err, "global_power_events"), 1099511627781ull);
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
	run_stat(&m, &r, "instr_retired:NBOGUSNTAG", "-v", 0);
	/* The other user's counter counted the same clocks beside us. */
	assert_int_equal(csv_value(r.err, "instr_retired:NBOGUSNTAG"), 56);
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts_exactly_with_filters),
		cmocka_unit_test(test_forty_bit_wrap),
		cmocka_unit_test(test_other_users_counters_left_alone),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
