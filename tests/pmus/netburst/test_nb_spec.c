/*
 * test_nb_spec.c - -e terms on a NetBurst CPU: names, aliases, mask bits
 * as modifiers, :threshold=N, :complement, :edge, :u/:k, and the refusals.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pmus/netburst/nb_regs.h"
#include "nb_test_util.h"
#include "base/err.h"

static struct nb_table *table;

static struct nb_event
one(const char *spec, unsigned model)
{
	size_t n;
	struct nb_event *ev = nb_test_events(table, spec, model, &n), out;

	assert_int_equal(n, 1);
	out = ev[0];
	free(ev);
	return out;
}

static void
refused(const char *spec, unsigned model, const char *what)
{
	struct nb_event *ev = NULL;
	size_t n = 99;
	struct pmustat_error *err = NULL;

	print_message("%s\n", spec);
	assert_int_equal(nb_spec_parse(spec, table, model, &ev, &n, &err), -EINVAL);
	assert_null(ev);
	assert_int_equal(n, 0);
	if (!strstr(err_msg(err), what))
		fail_msg("'%s': error '%s' does not say '%s'", spec, err_msg(err), what);
	err_clear(&err);
}

static void
test_defaults(void **state)
{
	struct nb_event e = one("global_power_events", 2);

	(void)state;
	assert_int_equal(e.event_select, 0x13);
	assert_int_equal(e.mask, 0x1);
	assert_true(e.escrs == (1ull << nb_escr_find("FSB_ESCR0") | 1ull << nb_escr_find("FSB_ESCR1")));
	assert_true(e.usr);			/* user-only by default */
	assert_false(e.os);
	assert_false(e.compare);
	assert_string_equal(e.name, "global_power_events:RUNNING");
	assert_string_equal(e.requested, "global_power_events");
	/* The non-bogus masks, whatever the case of the name. */
	e = one("INSTR_RETIRED", 2);
	assert_int_equal(e.mask, 0x3);
	assert_string_equal(e.name, "instr_retired:NBOGUSNTAG:NBOGUSTAG");
}

static void
test_masks_and_rings(void **state)
{
	struct nb_event e = one("instr_retired:NBOGUSNTAG:bogusntag:uk", 2);

	(void)state;
	assert_int_equal(e.mask, 0x5);
	assert_true(e.usr && e.os);
	e = one("instr_retired:BOGUSTAG:k", 2);
	assert_int_equal(e.mask, 0x8);
	assert_false(e.usr);
	assert_true(e.os);
	e = one("branch_retired:MMTM", 4);
	assert_int_equal(e.event_select, 0x06);
	assert_int_equal(e.mask, 0x8);
	/* Mask bit 15 is ESCR bit 24, the top of the field. */
	e = one("x87_FP_uop", 2);
	assert_int_equal(e.mask, 0x8000);
}

static void
test_aliases(void **state)
{
	struct nb_event e = one("cycles", 2);

	(void)state;
	assert_int_equal(e.event_select, 0x13);
	assert_int_equal(e.mask, 0x1);
	assert_string_equal(e.requested, "cycles");
	e = one("instructions:k", 2);
	assert_int_equal(e.event_select, 0x02);
	assert_int_equal(e.mask, 0x3);
	assert_true(e.os && !e.usr);
	/* An alias brings its masks; more may be added. */
	e = one("instructions:BOGUSNTAG", 2);
	assert_int_equal(e.mask, 0x7);
	e = one("branch-misses", 2);
	assert_int_equal(e.event_select, 0x03);
	assert_int_equal(e.mask, 0x1);
	e = one("branches", 2);
	assert_int_equal(e.mask, 0xf);
}

static void
test_filters(void **state)
{
	struct nb_event e = one("instr_retired:threshold=3", 2);

	(void)state;
	assert_true(e.compare);
	assert_int_equal(e.threshold, 3);
	assert_false(e.complement);
	assert_false(e.edge);
	e = one("instr_retired:threshold=0x0f:complement:edge", 2);
	assert_true(e.compare && e.complement && e.edge);
	assert_int_equal(e.threshold, 15);
	/* The canonical name says it all, and resolves to the same event. */
	assert_string_equal(e.name, "instr_retired:NBOGUSNTAG:NBOGUSTAG:threshold=15:complement:edge");
	{
		struct nb_event again = one(e.name, 2);

		assert_int_equal(again.mask, e.mask);
		assert_true(again.compare && again.complement && again.edge);
		assert_int_equal(again.threshold, 15);
	}
	/* Edge alone: compare with threshold 0, rising edges of "input > 0". */
	e = one("machine_clear:edge", 2);
	assert_true(e.compare && e.edge);
	assert_int_equal(e.threshold, 0);
	/* threshold=0 alone still sets compare: 1 per clock, not the input value. */
	e = one("uops_retired:threshold=0", 2);
	assert_true(e.compare);
}

static void
test_lists(void **state)
{
	size_t n;
	struct nb_event *ev = nb_test_events(table, "cycles,instructions,BSQ_cache_reference:RD_2ndL_MISS", 4, &n);

	(void)state;
	assert_int_equal(n, 3);
	assert_int_equal(ev[2].mask, 1u << 8);
	free(ev);
	/* The same counting twice is refused; different filters are different events. */
	refused("cycles,global_power_events:RUNNING", 2, "same event");
	ev = nb_test_events(table, "instr_retired,instr_retired:threshold=1", 2, &n);
	assert_int_equal(n, 2);
	free(ev);
}

static void
test_refusals(void **state)
{
	(void)state;
	refused("instr_retierd", 2, "did you mean instr_retired?");
	refused("INST_RETIRED.ANY", 2, "unknown event 'INST_RETIRED.ANY' for netburst");
	refused("instr_retired:RUNNING", 2, "neither a mask of instr_retired (NBOGUSNTAG, NBOGUSTAG, BOGUSNTAG, BOGUSTAG)");
	refused("instr_retired:threshold=16", 2, "0-15");
	refused("instr_retired:threshold=-1", 2, "0-15");
	refused("instr_retired:threshold=", 2, "0-15");
	refused("instr_retired:threshold=1:threshold=2", 2, "twice");
	refused("instr_retired:u:k", 2, "one of :u, :k and :uk");
	refused("execution_event", 2, "tagged");
	refused("uop_type", 4, "tagged");
	refused("instr_completed", 2, "model 2");
	refused("BSQ_allocation", 2, "at least one mask bit");
	refused("b2b_cycles", 2, "at least one mask bit");
	refused(":NBOGUS", 2, "empty event name");
	refused("cycles,", 2, "empty event name");
}

static void
test_instr_completed_on_prescott(void **state)
{
	struct nb_event e = one("instr_completed", 4);

	(void)state;
	assert_int_equal(e.event_select, 0x07);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_masks_and_rings),
		cmocka_unit_test(test_aliases),
		cmocka_unit_test(test_filters),
		cmocka_unit_test(test_lists),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_instr_completed_on_prescott),
	};

	return nb_test_main(argc, argv, tests, sizeof(tests) / sizeof(tests[0]), &table);
}
