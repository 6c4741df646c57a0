/*
 * test_sched.c - counter assignment and batching into runs.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "events/event.h"
#include "pmu/counter_sched.h"
#include "test_util.h"
#include "base/err.h"

/* Every event placed once; no counter used twice in a run; masks honoured. */
static void
check_plan(const struct event *ev, unsigned n, const struct sched_slot *s, unsigned runs,
	   uint32_t gp_free, uint32_t fixed_free)
{
	for (unsigned r = 0; r < runs; r++) {
		uint32_t gp = 0, fixed = 0;

		for (unsigned i = 0; i < n; i++) {
			if (s[i].run != r)
				continue;
			if (s[i].kind == SCHED_FIXED) {
				assert_int_equal((int)s[i].index, ev[i].fixed);
				assert_true(fixed_free & (1u << s[i].index));
				assert_false(fixed & (1u << s[i].index));
				fixed |= 1u << s[i].index;
			} else {
				assert_int_equal(s[i].kind, SCHED_GP);
				assert_true(ev[i].gp_mask & gp_free & (1u << s[i].index));
				assert_false(gp & (1u << s[i].index));
				gp |= 1u << s[i].index;
			}
		}
	}
	for (unsigned i = 0; i < n; i++)
		assert_true(s[i].run < runs);
}

static void
test_default_set_one_run(void **state)
{
	struct pmu_caps caps = test_caps_skylake();
	struct event ev[] = {
		test_fixed_event("instructions", 0, 0xc0, 0, 0xf),
		test_fixed_event("cycles", 1, 0x3c, 0, 0xf),
		test_fixed_event("ref-cycles", 2, 0x3c, 1, 0xf),
		test_event("branches", 0xc4, 0, 0xf),
		test_event("branch-misses", 0xc5, 0, 0xf),
	};
	struct sched_slot s[5];
	unsigned runs = 0, bad;
	struct pmustat_error *err = NULL;

	(void)state;
	assert_int_equal(sched_plan(ev, 5, &caps, 0xf, 0x7, s, &runs, &bad, &err), 0);
	assert_int_equal(runs, 1);
	assert_int_equal(s[0].kind, SCHED_FIXED);
	assert_int_equal(s[1].kind, SCHED_FIXED);
	assert_int_equal(s[2].kind, SCHED_FIXED);
	assert_int_equal(s[3].kind, SCHED_GP);
	assert_int_equal(s[4].kind, SCHED_GP);
	check_plan(ev, 5, s, runs, 0xf, 0x7);
	err_clear(&err);
}

static void
test_watchdog_cycles_to_gp(void **state)
{
	struct pmu_caps caps = test_caps_skylake();
	struct event ev[] = {
		test_fixed_event("instructions", 0, 0xc0, 0, 0xf),
		test_fixed_event("cycles", 1, 0x3c, 0, 0xf),
	};
	struct sched_slot s[2];
	unsigned runs = 0;
	struct pmustat_error *err = NULL;

	(void)state;
	/* The NMI watchdog holds fixed counter 1. */
	assert_int_equal(sched_plan(ev, 2, &caps, 0xf, 0x5, s, &runs, NULL, &err), 0);
	assert_int_equal(runs, 1);
	assert_int_equal(s[0].kind, SCHED_FIXED);
	assert_int_equal(s[1].kind, SCHED_GP);
	check_plan(ev, 2, s, runs, 0xf, 0x5);
	err_clear(&err);
}

static void
test_six_on_four_two_runs(void **state)
{
	struct pmu_caps caps = test_caps_skylake();
	struct event ev[6];
	struct sched_slot s[6];
	unsigned runs = 0, in_run[2] = { 0, 0 };
	struct pmustat_error *err = NULL;

	(void)state;
	for (unsigned i = 0; i < 6; i++)
		ev[i] = test_event("E", (uint8_t)(0x10 + i), 1, 0xf);
	assert_int_equal(sched_plan(ev, 6, &caps, 0xf, 0x7, s, &runs, NULL, &err), 0);
	assert_int_equal(runs, 2);
	check_plan(ev, 6, s, runs, 0xf, 0x7);
	for (unsigned i = 0; i < 6; i++)
		in_run[s[i].run]++;
	assert_int_equal(in_run[0], 4);
	assert_int_equal(in_run[1], 2);
	err_clear(&err);
}

static void
test_restricted_counters(void **state)
{
	struct pmu_caps caps = test_caps_skylake();
	struct event ev[] = {
		test_event("ANY", 0x11, 1, 0xff),
		test_event("ONLY0", 0x12, 1, 0x1),
		test_event("LOW4", 0x13, 1, 0xf),
		test_event("LOW4b", 0x14, 1, 0xf),
		test_event("LOW4c", 0x15, 1, 0xf),
	};
	struct sched_slot s[5];
	unsigned runs = 0;
	struct pmustat_error *err = NULL;

	(void)state;
	caps.gp_counters = 8;
	caps.gp_mask = 0xff;
	assert_int_equal(sched_plan(ev, 5, &caps, 0xff, 0x7, s, &runs, NULL, &err), 0);
	/* ANY first must not block ONLY0 off counter 0: one run, matched. */
	assert_int_equal(runs, 1);
	assert_int_equal(s[1].index, 0);
	check_plan(ev, 5, s, runs, 0xff, 0x7);
	for (unsigned i = 2; i < 5; i++)
		assert_true(s[i].index < 4);
	err_clear(&err);
}

static void
test_taken_alone(void **state)
{
	struct pmu_caps caps = test_caps_skylake();
	struct event ev[] = {
		test_fixed_event("instructions", 0, 0xc0, 0, 0xf),
		test_event("A", 0x11, 1, 0xf),
		test_event("ALONE", 0x12, 1, 0xf),
		test_event("B", 0x13, 1, 0xf),
	};
	struct sched_slot s[4];
	unsigned runs = 0;
	struct pmustat_error *err = NULL;

	(void)state;
	ev[2].flags |= EVENT_F_TAKEN_ALONE;
	assert_int_equal(sched_plan(ev, 4, &caps, 0xf, 0x7, s, &runs, NULL, &err), 0);
	assert_int_equal(runs, 2);
	check_plan(ev, 4, s, runs, 0xf, 0x7);
	/* No other GP event shares ALONE's run. */
	for (unsigned i = 0; i < 4; i++)
		if (i != 2 && s[i].kind == SCHED_GP)
			assert_int_not_equal(s[i].run, s[2].run);
	err_clear(&err);
}

static void
test_extra_msr_one_value_per_run(void **state)
{
	struct pmu_caps caps = test_caps_skylake();
	struct event ev[] = {
		test_event("OCR.A", 0xb7, 1, 0xf),
		test_event("OCR.B", 0xb7, 1, 0xf),
		test_event("OCR.A2", 0xb7, 1, 0xf),
	};
	struct sched_slot s[3];
	unsigned runs = 0;
	struct pmustat_error *err = NULL;

	(void)state;
	ev[0].extra_msr = ev[1].extra_msr = ev[2].extra_msr = 0x1a6;
	ev[0].extra_value = 0x10001;
	ev[1].extra_value = 0x20001;
	ev[2].extra_value = 0x10001;
	assert_int_equal(sched_plan(ev, 3, &caps, 0xf, 0x7, s, &runs, NULL, &err), 0);
	assert_int_equal(runs, 2);
	assert_int_equal(s[0].run, s[2].run);
	assert_int_not_equal(s[0].run, s[1].run);
	err_clear(&err);
}

static void
test_all_busy_refused(void **state)
{
	struct pmu_caps caps = test_caps_skylake();
	struct event ev[] = {
		test_fixed_event("instructions", 0, 0xc0, 0, 0xf),
		test_event("branches", 0xc4, 0, 0xf),
	};
	struct sched_slot s[2];
	unsigned runs = 0, bad = 99;
	struct pmustat_error *err = NULL;

	(void)state;
	/* Fixed 0 free, no GP counter free: branches cannot go anywhere. */
	assert_int_equal(sched_plan(ev, 2, &caps, 0x0, 0x1, s, &runs, &bad, &err), -ENOSPC);
	assert_int_equal(bad, 1);
	assert_non_null(strstr(err_msg(err), "branches"));
	/* A fixed-only event whose fixed counter is busy. */
	ev[0].gp_mask = 0;
	assert_int_equal(sched_plan(ev, 1, &caps, 0xf, 0x6, s, &runs, &bad, &err), -ENOSPC);
	assert_int_equal(bad, 0);
	err_clear(&err);
}

static void
test_duplicate_fixed_goes_to_gp(void **state)
{
	struct pmu_caps caps = test_caps_skylake();
	struct event ev[] = {
		test_fixed_event("instructions:u", 0, 0xc0, 0, 0xf),
		test_fixed_event("instructions:k", 0, 0xc0, 0, 0xf),
	};
	struct sched_slot s[2];
	unsigned runs = 0;
	struct pmustat_error *err = NULL;

	(void)state;
	ev[1].usr = false;
	ev[1].os = true;
	assert_int_equal(sched_plan(ev, 2, &caps, 0xf, 0x7, s, &runs, NULL, &err), 0);
	assert_int_equal(runs, 1);
	assert_int_equal(s[0].kind, SCHED_FIXED);
	assert_int_equal(s[1].kind, SCHED_GP);
	err_clear(&err);
}

/* Pinned events keep their run and fill it first; the free ones go around them. */
static void
test_pinned_runs(void **state)
{
	struct pmu_caps caps = test_caps_skylake();
	struct event ev[] = {
		test_event("free-a", 0xc4, 0, 0xf),
		test_event("m1-a", 0x0e, 1, 0xf),
		test_event("m1-b", 0xc2, 2, 0xf),
		test_event("m1-c", 0x0d, 1, 0xf),
		test_event("m1-d", 0x9c, 1, 0xf),
		test_fixed_event("m2-cycles", 1, 0x3c, 0, 0xf),
		test_event("m2-a", 0xc5, 0, 0xf),
	};
	const int pinned[] = { -1, 0, 0, 0, 0, 1, 1 };
	const int too_many[] = { 0, 0, 0, 0, 0, 1, 1 };
	struct sched_slot s[7];
	unsigned runs = 0, bad = 99;
	struct pmustat_error *err = NULL;

	(void)state;
	assert_int_equal(sched_plan_pinned(ev, 7, pinned, &caps, 0xf, 0x7, s, &runs, &bad, &err), 0);
	check_plan(ev, 7, s, runs, 0xf, 0x7);
	assert_int_equal(runs, 2);
	for (unsigned i = 1; i < 7; i++)
		assert_int_equal(s[i].run, (unsigned)pinned[i]);
	/* Unpinned, first in the list: the greedy batching would put it in run 0 and split m1. */
	assert_int_equal(s[0].run, 1);
	assert_int_equal(sched_plan(ev, 7, &caps, 0xf, 0x7, s, &runs, &bad, &err), 0);
	assert_int_equal(s[0].run, 0);
	/* Five GP events pinned together on four counters: refused, naming one. */
	assert_int_equal(sched_plan_pinned(ev, 7, too_many, &caps, 0xf, 0x7, s, &runs, &bad, &err), -ENOSPC);
	assert_int_equal(bad, 4);
	assert_string_equal(err_msg(err),
			    "event m1-d does not fit in run 1 beside the events it must be counted with (the free general-purpose counters are 0xf)");
	err_clear(&err);
}

/* A byte of IA32_PERF_METRICS takes no counter, and needs fixed counter 3 in its run. */
static void
test_perf_metrics_bytes(void **state)
{
	struct pmu_caps caps = test_caps_skylake();
	struct event ev[] = {
		test_fixed_event("slots", 3, 0xa4, 1, 0),
		test_event("fe-byte", 0, 2, 0),
		test_event("be-byte", 0, 3, 0),
	};
	const int pinned[] = { 0, 0, 0 };
	const int apart[] = { 0, 1, 1 };
	struct sched_slot s[3];
	unsigned runs = 0, bad = 99;
	struct pmustat_error *err = NULL;
	char name[16];

	(void)state;
	caps.fixed_counters = 4;
	caps.fixed_mask = 0xf;
	ev[1].flags = ev[2].flags = EVENT_F_PERF_METRICS;
	assert_int_equal(sched_plan_pinned(ev, 3, pinned, &caps, 0xf, 0xf, s, &runs, &bad, &err), 0);
	assert_int_equal(runs, 1);
	assert_int_equal(s[0].kind, SCHED_FIXED);
	assert_int_equal(s[1].kind, SCHED_METRICS);
	assert_int_equal(s[1].index, 2);
	assert_int_equal(s[2].index, 3);
	sched_counter_name(&s[2], name, sizeof(name));
	assert_string_equal(name, "metrics3");
	/* Without SLOTS beside them: refused. */
	assert_int_equal(sched_plan_pinned(ev, 3, apart, &caps, 0xf, 0xf, s, &runs, &bad, &err), -ENOSPC);
	assert_string_equal(err_msg(err),
			    "run 2 reads IA32_PERF_METRICS, which needs fixed counter 3 (TOPDOWN.SLOTS) counting in the same run");
	err_clear(&err);
}

static void
test_counter_names(void **state)
{
	struct sched_slot a = { SCHED_FIXED, 1, 0 }, b = { SCHED_GP, 3, 0 }, c = { SCHED_NONE, 0, 0 };
	char buf[16];

	(void)state;
	sched_counter_name(&a, buf, sizeof(buf));
	assert_string_equal(buf, "fixed1");
	sched_counter_name(&b, buf, sizeof(buf));
	assert_string_equal(buf, "pmc3");
	sched_counter_name(&c, buf, sizeof(buf));
	assert_string_equal(buf, "-");
}

/* Five GP events on four counters: a group at the end goes whole into the second run. */
static void
test_group_counted_in_one_run(void **state)
{
	struct pmu_caps caps = test_caps_skylake();
	struct event ev[] = {
		test_event("a", 0x01, 1, 0xf),
		test_event("b", 0x02, 1, 0xf),
		test_event("c", 0x03, 1, 0xf),
		test_event("branches", 0xc4, 0, 0xf),
		test_event("branch-misses", 0xc5, 0, 0xf),
	};
	struct sched_slot s[5];
	unsigned runs = 0;
	struct pmustat_error *err = NULL;

	(void)state;
	/* Without a group the pair is split (branches in run 1, its misses in run 2). */
	assert_int_equal(sched_plan(ev, 5, &caps, 0xf, 0x7, s, &runs, NULL, &err), 0);
	assert_int_equal(runs, 2);
	assert_int_not_equal(s[3].run, s[4].run);
	ev[3].group = ev[4].group = 1;
	assert_int_equal(sched_plan(ev, 5, &caps, 0xf, 0x7, s, &runs, NULL, &err), 0);
	assert_int_equal(runs, 2);
	assert_int_equal(s[3].run, s[4].run);
	check_plan(ev, 5, s, runs, 0xf, 0x7);
	/* A group first: its members together in run 1, the others wherever they fit. */
	ev[3].group = ev[4].group = 0;
	ev[0].group = ev[2].group = ev[4].group = 7;
	assert_int_equal(sched_plan(ev, 5, &caps, 0xf, 0x7, s, &runs, NULL, &err), 0);
	assert_int_equal(s[0].run, s[2].run);
	assert_int_equal(s[0].run, s[4].run);
	check_plan(ev, 5, s, runs, 0xf, 0x7);
	err_clear(&err);
}

/* A group larger than the free counters is refused with the reason; a ratio's pair is split instead. */
static void
test_group_that_cannot_fit(void **state)
{
	struct pmu_caps caps = test_caps_skylake();
	struct event ev[] = {
		test_event("a", 0x01, 1, 0xf),
		test_event("b", 0x02, 1, 0xf),
		test_event("branches", 0xc4, 0, 0xf),
		test_event("branch-misses", 0xc5, 0, 0xf),
	};
	struct sched_slot s[4];
	unsigned runs = 0, bad = 99;
	struct pmustat_error *err = NULL;

	(void)state;
	for (unsigned i = 0; i < 4; i++)
		ev[i].group = 3;
	/* Two GP counters free (the others held by someone else). */
	assert_int_equal(sched_plan(ev, 4, &caps, 0x3, 0x7, s, &runs, &bad, &err), -ENOSPC);
	assert_int_equal(bad, 0);
	assert_non_null(strstr(err_msg(err), "event group {a,b,branches,branch-misses} cannot be counted in one run"));
	assert_non_null(strstr(err_msg(err), "2 general-purpose"));
	err_clear(&err);
	for (unsigned i = 0; i < 4; i++)
		ev[i].group_soft = true;
	assert_int_equal(sched_plan(ev, 4, &caps, 0x3, 0x7, s, &runs, &bad, &err), 0);
	assert_int_equal(runs, 2);
	check_plan(ev, 4, s, runs, 0x3, 0x7);
	err_clear(&err);
}

/* An offcore event on Skylake: 0xB7 through MSR_OFFCORE_RSP_0, or 0xBB through MSR_OFFCORE_RSP_1. */
static struct event
offcore_event(const char *name, uint64_t rsp)
{
	struct event e = test_event(name, 0xb7, 0x01, 0xf);

	e.extra_msr = 0x1a6;
	e.extra_value = rsp;
	e.alt_msr = 0x1a7;
	e.alt_value = rsp;
	e.alt_code = 0xbb;
	e.alt_umask = 0x01;
	return e;
}

/*
 * Two offcore events with different values share a run, the second
 * through the other MSR; a third needs another run. With MSR_OFFCORE_RSP_0
 * another user's, every one goes through MSR_OFFCORE_RSP_1, one per run;
 * with both, none can be counted.
 */
static void
test_offcore_uses_both_msrs(void **state)
{
	struct pmu_caps caps = test_caps_skylake();
	struct event ev[] = {
		offcore_event("ocr.a", 0x10004),
		offcore_event("ocr.b", 0x3fc01c0004),
		offcore_event("ocr.c", 0x10001c0004),
	};
	struct sched_slot s[3];
	struct event e;
	unsigned runs = 0, bad = 9;
	struct pmustat_error *err = NULL;

	(void)state;
	assert_int_equal(sched_plan(ev, 2, &caps, 0xf, 0x7, s, &runs, NULL, &err), 0);
	assert_int_equal(runs, 1);
	assert_false(s[0].alt);
	assert_true(s[1].alt);
	sched_slot_event(&ev[1], &s[1], &e);
	assert_int_equal(e.code, 0xbb);
	assert_int_equal(e.extra_msr, 0x1a7);
	assert_int_equal(e.extra_value, 0x3fc01c0004ull);

	assert_int_equal(sched_plan(ev, 3, &caps, 0xf, 0x7, s, &runs, NULL, &err), 0);
	assert_int_equal(runs, 2);
	assert_int_equal(s[2].run, 1);
	check_plan(ev, 3, s, runs, 0xf, 0x7);

	assert_int_equal(sched_plan_offcore(ev, 2, NULL, &caps, 0xf, 0x7, 0x2, s, &runs, NULL, &err), 0);
	assert_int_equal(runs, 2);
	assert_true(s[0].alt && s[1].alt);

	assert_int_equal(sched_plan_offcore(ev, 1, NULL, &caps, 0xf, 0x7, 0x0, s, &runs, &bad, &err), -ENOSPC);
	assert_int_equal(bad, 0);
	assert_non_null(strstr(err_msg(err), "MSR_OFFCORE_RSP_0 (0x1a6) or MSR_OFFCORE_RSP_1 (0x1a7)"));
	err_clear(&err);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_group_counted_in_one_run),
		cmocka_unit_test(test_group_that_cannot_fit),
		cmocka_unit_test(test_default_set_one_run),
		cmocka_unit_test(test_watchdog_cycles_to_gp),
		cmocka_unit_test(test_six_on_four_two_runs),
		cmocka_unit_test(test_restricted_counters),
		cmocka_unit_test(test_taken_alone),
		cmocka_unit_test(test_extra_msr_one_value_per_run),
		cmocka_unit_test(test_all_busy_refused),
		cmocka_unit_test(test_duplicate_fixed_goes_to_gp),
		cmocka_unit_test(test_pinned_runs),
		cmocka_unit_test(test_perf_metrics_bytes),
		cmocka_unit_test(test_counter_names),
		cmocka_unit_test(test_offcore_uses_both_msrs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
