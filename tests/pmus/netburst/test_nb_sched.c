/*
 * test_nb_sched.c - NetBurst events on ESCRs and counters: the "Counter
 * Numbers Per ESCR" constraints, ESCR conflicts, busy counters and ESCRs,
 * batching into runs, and an exhaustive comparison with brute force.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pmus/netburst/nb_regs.h"
#include "pmus/netburst/nb_sched.h"
#include "nb_test_util.h"
#include "base/err.h"

#define ALL_COUNTERS	((1u << NB_COUNTERS) - 1)
#define ALL_ESCRS	((1ull << NB_ESCRS) - 1)

static struct nb_table *table;

/* Every event once; per run, one event per ESCR and per counter; each counter fed by its ESCR. */
static void
check_plan(const struct nb_event *ev, size_t n, const struct nb_slot *s, unsigned runs,
	   uint32_t counters_free, uint64_t escrs_free)
{
	for (size_t i = 0; i < n; i++) {
		assert_true(s[i].run < runs);
		assert_true(ev[i].escrs & escrs_free & (1ull << s[i].escr));
		assert_true(nb_escr_get(s[i].escr)->counters & counters_free & (1u << s[i].counter));
		for (size_t j = 0; j < i; j++) {
			if (s[j].run != s[i].run)
				continue;
			assert_int_not_equal(s[j].escr, s[i].escr);
			assert_int_not_equal(s[j].counter, s[i].counter);
		}
	}
	for (unsigned r = 0; r < runs; r++) {
		bool used = false;

		for (size_t i = 0; i < n; i++)
			used |= s[i].run == r;
		assert_true(used);
	}
}

static unsigned
plan(const char *spec, unsigned model, uint32_t counters_free, uint64_t escrs_free,
     struct nb_slot *slots, size_t *n_out)
{
	size_t n;
	struct nb_event *ev = nb_test_events(table, spec, model, &n);
	unsigned runs = 0, bad = 0;
	struct pmustat_error *err = NULL;

	if (nb_sched_plan(ev, (unsigned)n, model, counters_free, escrs_free, slots, &runs, &bad, &err) != 0)
		fail_msg("%s: %s", spec, err_msg(err));
	check_plan(ev, n, slots, runs, counters_free, escrs_free);
	free(ev);
	if (n_out)
		*n_out = n;
	err_clear(&err);
	return runs;
}

static void
test_first_choice(void **state)
{
	struct nb_slot s[4];

	(void)state;
	assert_int_equal(plan("global_power_events", 2, ALL_COUNTERS, ALL_ESCRS, s, NULL), 1);
	assert_int_equal(s[0].escr, (unsigned)nb_escr_find("FSB_ESCR0"));
	assert_int_equal(s[0].counter, 0);
	assert_int_equal(plan("instructions", 2, ALL_COUNTERS, ALL_ESCRS, s, NULL), 1);
	assert_int_equal(s[0].escr, (unsigned)nb_escr_find("CRU_ESCR0"));
	assert_int_equal(s[0].counter, 12);
}

/* BSQ_allocation has only BSU_ESCR0: the event placed first must move to BSU_ESCR1. */
static void
test_rematch_on_conflict(void **state)
{
	struct nb_slot s[4];

	(void)state;
	assert_int_equal(plan("BSQ_cache_reference,BSQ_allocation:REQ_TYPE0", 2, ALL_COUNTERS, ALL_ESCRS, s, NULL), 1);
	assert_int_equal(s[0].escr, (unsigned)nb_escr_find("BSU_ESCR1"));
	assert_int_equal(s[1].escr, (unsigned)nb_escr_find("BSU_ESCR0"));
	/* Two events that only BSU_ESCR0 selects conflict: two runs. */
	assert_int_equal(plan("BSQ_allocation:REQ_TYPE0,BSQ_allocation:REQ_TYPE1", 2, ALL_COUNTERS,
			      ALL_ESCRS, s, NULL), 2);
	/* IOQ_active_entries: only FSB_ESCR1, so global_power_events takes FSB_ESCR0. */
	assert_int_equal(plan("IOQ_active_entries,cycles", 2, ALL_COUNTERS, ALL_ESCRS, s, NULL), 1);
	assert_int_equal(s[0].escr, (unsigned)nb_escr_find("FSB_ESCR1"));
	assert_int_equal(s[1].escr, (unsigned)nb_escr_find("FSB_ESCR0"));
}

/* The CRU ESCRs feed counters 12, 13, 16 (ESCR0/2/4) and 14, 15, 17 (ESCR1/3/5). */
static void
test_counter_groups(void **state)
{
	struct nb_slot s[8];
	size_t n;

	(void)state;
	/* Three CRU_ESCR0/1 events: two ESCRs, so two runs. */
	assert_int_equal(plan("instructions,uops_retired,branch-misses", 2, ALL_COUNTERS, ALL_ESCRS, s, &n), 2);
	/* Six at-retirement events over CRU_ESCR0-3 fill two runs of four ESCRs. */
	assert_int_equal(plan("instructions,uops_retired,branch-misses,branches,x87_assist,machine_clear",
			      2, ALL_COUNTERS, ALL_ESCRS, s, &n), 2);
	/* With only IQ_COUNTER0 free, one IQ event per run. */
	assert_int_equal(plan("instructions,branches", 2, 1u << 12, ALL_ESCRS, s, &n), 2);
	assert_int_equal(s[0].counter, 12);
	assert_int_equal(s[1].counter, 12);
	/* Counters 0-1 free only: ESCR1s (counters 2-3) are useless, three ESCR0 events take two runs. */
	assert_int_equal(plan("cycles,BPU_fetch_request,ITLB_reference", 2, 0x3, ALL_ESCRS, s, &n), 2);
	for (size_t i = 0; i < n; i++)
		assert_true(s[i].counter <= 1);
}

/* Another user's ESCR or counter is never taken. */
static void
test_busy_resources(void **state)
{
	struct nb_slot s[4];

	(void)state;
	assert_int_equal(plan("cycles", 2, ALL_COUNTERS, ALL_ESCRS & ~(1ull << nb_escr_find("FSB_ESCR0")), s, NULL), 1);
	assert_int_equal(s[0].escr, (unsigned)nb_escr_find("FSB_ESCR1"));
	assert_int_equal(s[0].counter, 2);
	assert_int_equal(plan("cycles", 2, ALL_COUNTERS & ~1u, ALL_ESCRS, s, NULL), 1);
	assert_int_equal(s[0].counter, 1);
}

static void
test_refusals(void **state)
{
	struct nb_slot s[SCHED_MAX_EVENTS + 1];
	struct nb_event ev[SCHED_MAX_EVENTS + 1];
	size_t n;
	struct nb_event *one = nb_test_events(table, "cycles", 2, &n);
	unsigned runs, bad = 99;
	struct pmustat_error *err = NULL;

	(void)state;
	/* Counters 0-3 in use: global_power_events fits nowhere. */
	assert_int_equal(nb_sched_plan(one, 1, 2, ALL_COUNTERS & ~0xfu, ALL_ESCRS, s, &runs, &bad, &err), -ENOSPC);
	assert_int_equal(bad, 0);
	assert_non_null(strstr(err_msg(err), "cycles needs one of FSB_ESCR0 (its counters are in use) FSB_ESCR1 (its counters are in use)"));
	assert_int_equal(nb_sched_plan(one, 1, 2, ALL_COUNTERS, 0, s, &runs, &bad, &err), -ENOSPC);
	assert_non_null(strstr(err_msg(err), "FSB_ESCR0 (in use)"));
	for (unsigned i = 0; i <= SCHED_MAX_EVENTS; i++)
		ev[i] = one[0];
	assert_int_equal(nb_sched_plan(ev, SCHED_MAX_EVENTS + 1, 2, ALL_COUNTERS, ALL_ESCRS, s, &runs,
				       &bad, &err), -E2BIG);
	free(one);
	err_clear(&err);
}

/* Every countable event of the table, at once: the runs they need, all placed. */
static void
test_whole_table(void **state)
{
	char spec[4096] = "";
	size_t len = 0, n;
	struct nb_event *ev;
	struct nb_slot s[SCHED_MAX_EVENTS];
	unsigned runs, bad;
	struct pmustat_error *err = NULL;

	(void)state;
	for (size_t i = 0; i < nb_table_count(table); i++) {
		const struct nb_event_desc *d = nb_table_get(table, i);

		if (d->needs_tagging || !nb_event_on_model(d, 4))
			continue;
		len += (size_t)snprintf(spec + len, sizeof(spec) - len, "%s%s:%s", len ? "," : "",
					d->name, d->masks[0].name);
	}
	ev = nb_test_events(table, spec, 4, &n);
	assert_int_equal(nb_sched_plan(ev, (unsigned)n, 4, ALL_COUNTERS, ALL_ESCRS, s, &runs, &bad, &err), 0);
	check_plan(ev, n, s, runs, ALL_COUNTERS, ALL_ESCRS);
	print_message("%zu events in %u runs\n", n, runs);
	/* The FIRM_ESCR0/1 pair alone selects 9 events: at least 5 runs. */
	assert_true(runs >= 5);
	free(ev);
	err_clear(&err);
}

/* Brute force: can every event of @ev get a distinct ESCR and counter? */
static bool
fits(const struct nb_event *ev, size_t n, size_t i, uint64_t escrs_used, uint32_t ctr_used,
     uint32_t counters_free)
{
	if (i == n)
		return true;
	for (unsigned e = 0; e < NB_ESCRS; e++) {
		if (!(ev[i].escrs & (1ull << e)) || (escrs_used & (1ull << e)))
			continue;
		for (unsigned c = 0; c < NB_COUNTERS; c++) {
			if (!(nb_escr_get(e)->counters & counters_free & (1u << c)) || (ctr_used & (1u << c)))
				continue;
			if (fits(ev, n, i + 1, escrs_used | 1ull << e, ctr_used | 1u << c, counters_free))
				return true;
		}
	}
	return false;
}

/* Random small sets and free masks: one run exactly when brute force says they fit. */
static void
test_exact_against_brute_force(void **state)
{
	struct pmustat_error *err = NULL;
	static const char *const pool[] = {
		"cycles", "instructions", "branches", "branch-misses", "uops_retired", "x87_assist",
		"machine_clear", "BSQ_cache_reference", "BSQ_allocation:REQ_TYPE0",
		"bsq_active_entries:REQ_TYPE0", "IOQ_allocation", "IOQ_active_entries", "BPU_fetch_request",
		"ITLB_reference", "page_walk_type", "MOB_load_replay", "resource_stall", "TC_misc",
		"uop_queue_writes", "retired_branch_type", "x87_FP_uop", "WC_Buffer", "memory_complete",
		"load_port_replay",
	};
	const size_t npool = sizeof(pool) / sizeof(pool[0]);
	unsigned seed = 12345, agree = 0;

	(void)state;
	for (unsigned round = 0; round < 400; round++) {
		struct nb_event ev[6];
		struct nb_slot s[6];
		size_t n = 2 + (seed = seed * 1103515245u + 12345u) % 5, k = 0;
		uint32_t counters_free = ALL_COUNTERS;
		unsigned runs, bad;
		err_clear(&err);

		for (unsigned c = 0; c < NB_COUNTERS; c++)
			if (((seed = seed * 1103515245u + 12345u) >> 16) % 4 == 0)
				counters_free &= ~(1u << c);
		while (k < n) {
			size_t m;
			struct nb_event *e = nb_test_events(table,
				pool[((seed = seed * 1103515245u + 12345u) >> 16) % npool], 4, &m);
			bool dup = false;

			for (size_t j = 0; j < k; j++)
				dup |= ev[j].event_select == e->event_select && ev[j].escrs == e->escrs;
			if (!dup)
				ev[k++] = e[0];
			free(e);
		}
		if (nb_sched_plan(ev, (unsigned)n, 4, counters_free, ALL_ESCRS, s, &runs, &bad, &err) != 0)
			continue;	/* one event fits nowhere with these counters */
		check_plan(ev, n, s, runs, counters_free, ALL_ESCRS);
		assert_int_equal(runs == 1, fits(ev, n, 0, 0, 0, counters_free));
		agree++;
		err_clear(&err);
	}
	print_message("%u plans agree with brute force\n", agree);
	assert_true(agree > 200);
	err_clear(&err);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_choice),
		cmocka_unit_test(test_rematch_on_conflict),
		cmocka_unit_test(test_counter_groups),
		cmocka_unit_test(test_busy_resources),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_whole_table),
		cmocka_unit_test(test_exact_against_brute_force),
	};

	return nb_test_main(argc, argv, tests, sizeof(tests) / sizeof(tests[0]), &table);
}
