/*
 * test_nb_table.c - events/netburst.json loaded and looked up: the SDM's
 * encodings of a few events, the aliases, the masks, and every way a
 * broken table is refused with a message naming the file and the event.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <cmocka.h>

#include "events/event_table.h"
#include "pmus/netburst/nb_regs.h"
#include "pmus/netburst/nb_table.h"
#include "base/err.h"

static const char *events_dir;

static struct nb_table *
load(void)
{
	struct nb_table *t;
	struct pmustat_error *err = NULL;

	if (nb_table_load(events_dir, "netburst", &t, &err) != 0)
		fail_msg("%s", err_msg(err));
	err_clear(&err);
	return t;
}

static uint64_t
escr_bits(const char *a, const char *b)
{
	uint64_t v = 1ull << nb_escr_find(a);

	return b ? v | 1ull << nb_escr_find(b) : v;
}

/* The SDM tables' values for a sample of both tables. */
static void
test_sdm_encodings(void **state)
{
	static const struct {
		const char *name;
		unsigned select, cccr;
		const char *escr0, *escr1;
		const char *mask;
		unsigned bit;
	} cases[] = {
		{ "global_power_events", 0x13, 6, "FSB_ESCR0", "FSB_ESCR1", "RUNNING", 0 },
		{ "instr_retired", 0x02, 4, "CRU_ESCR0", "CRU_ESCR1", "BOGUSTAG", 3 },
		{ "branch_retired", 0x06, 5, "CRU_ESCR2", "CRU_ESCR3", "MMTM", 3 },
		{ "BSQ_cache_reference", 0x0c, 7, "BSU_ESCR0", "BSU_ESCR1", "RD_2ndL_MISS", 8 },
		{ "BSQ_allocation", 0x05, 7, "BSU_ESCR0", NULL, "MEM_TYPE2", 13 },
		{ "IOQ_active_entries", 0x1a, 6, "FSB_ESCR1", NULL, "PREFETCH", 15 },
		{ "TC_deliver_mode", 0x01, 1, "TC_ESCR0", "TC_ESCR1", "IB", 7 },
		{ "uop_queue_writes", 0x09, 0, "MS_ESCR0", "MS_ESCR1", "FROM_ROM", 2 },
		{ "resource_stall", 0x01, 1, "ALF_ESCR0", "ALF_ESCR1", "SBFULL", 5 },
		{ "WC_Buffer", 0x05, 5, "DAC_ESCR0", "DAC_ESCR1", "WCB_FULL_EVICT", 1 },
		{ "x87_FP_uop", 0x04, 1, "FIRM_ESCR0", "FIRM_ESCR1", "ALL", 15 },
		{ "uop_type", 0x02, 2, "RAT_ESCR0", "RAT_ESCR1", "TAGSTORES", 2 },
		{ "machine_clear", 0x02, 5, "CRU_ESCR2", "CRU_ESCR3", "SMCLEAR", 6 },
		{ "mispred_branch_retired", 0x03, 4, "CRU_ESCR0", "CRU_ESCR1", "NBOGUS", 0 },
		{ "page_walk_type", 0x01, 4, "PMH_ESCR0", "PMH_ESCR1", "ITMISS", 1 },
		{ "ITLB_reference", 0x18, 3, "ITLB_ESCR0", "ITLB_ESCR1", "HIT_UK", 2 },
		{ "b2b_cycles", 0x16, 6, "FSB_ESCR0", "FSB_ESCR1", "BIT6", 6 },
	};
	struct nb_table *t = load();

	(void)state;
	assert_string_equal(nb_table_name(t), "netburst");
	assert_true(nb_table_count(t) >= 46);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct nb_event_desc *d = nb_table_find(t, cases[i].name);
		const struct nb_mask *m;

		print_message("%s\n", cases[i].name);
		assert_non_null(d);
		assert_int_equal(d->event_select, cases[i].select);
		assert_int_equal(d->cccr_select, cases[i].cccr);
		assert_true(d->escrs == escr_bits(cases[i].escr0, cases[i].escr1));
		m = nb_event_mask(d, cases[i].mask);
		assert_non_null(m);
		assert_int_equal(m->bit, cases[i].bit);
	}
	nb_table_free(t);
}

/* Sorted, unique, found by any case; every ESCR's select matches the table's. */
static void
test_lookup_and_consistency(void **state)
{
	struct nb_table *t = load();
	char upper[64];

	(void)state;
	for (size_t i = 0; i < nb_table_count(t); i++) {
		const struct nb_event_desc *d = nb_table_get(t, i);

		if (i)
			assert_true(strcasecmp(nb_table_get(t, i - 1)->name, d->name) < 0);
		assert_ptr_equal(nb_table_find(t, d->name), d);
		assert_true(d->escrs != 0);
		assert_true(d->n_masks > 0);
		for (unsigned e = 0; e < NB_ESCRS; e++)
			if (d->escrs & (1ull << e))
				assert_int_equal(nb_escr_get(e)->select, d->cccr_select);
		/* Defaults are masks of the event. */
		for (unsigned b = 0; b < 16; b++) {
			bool named = false;

			for (unsigned m = 0; m < d->n_masks; m++)
				named |= d->masks[m].bit == b;
			if (d->default_mask & (1u << b))
				assert_true(named);
		}
	}
	snprintf(upper, sizeof(upper), "GLOBAL_POWER_EVENTS");
	assert_non_null(nb_table_find(t, upper));
	assert_null(nb_table_find(t, "INST_RETIRED.ANY"));
	assert_non_null(nb_event_mask(nb_table_find(t, "instr_retired"), "nbogusntag"));
	assert_null(nb_event_mask(nb_table_find(t, "instr_retired"), "RUNNING"));
	/* Tagging-only events are there, flagged; instr_completed is model 3, 4, 6 only. */
	assert_true(nb_table_find(t, "execution_event")->needs_tagging);
	assert_false(nb_table_find(t, "instr_retired")->needs_tagging);
	assert_true(nb_table_find(t, "branch_retired")->at_retirement);
	assert_false(nb_event_on_model(nb_table_find(t, "instr_completed"), 2));
	assert_true(nb_event_on_model(nb_table_find(t, "instr_completed"), 4));
	assert_true(nb_event_on_model(nb_table_find(t, "instr_retired"), 2));
	nb_table_free(t);
}

static void
test_aliases(void **state)
{
	struct nb_table *t = load();
	const struct nb_alias *a;
	char buf[128];

	(void)state;
	a = nb_table_find_alias(t, "cycles");
	assert_non_null(a);
	assert_string_equal(a->event->name, "global_power_events");
	assert_int_equal(a->mask, 1);
	a = nb_table_find_alias(t, "INSTRUCTIONS");
	assert_non_null(a);
	assert_string_equal(a->event->name, "instr_retired");
	assert_int_equal(a->mask, 0x3);		/* NBOGUSNTAG | NBOGUSTAG: non-bogus only */
	assert_string_equal(nb_mask_names(a->event, a->mask, '|', buf, sizeof(buf)), "NBOGUSNTAG|NBOGUSTAG");
	a = nb_table_find_alias(t, "branch-misses");
	assert_non_null(a);
	assert_string_equal(a->event->name, "mispred_branch_retired");
	assert_non_null(nb_table_find_alias(t, "BRANCH_MISSES"));
	assert_null(nb_table_find_alias(t, "instr_retired"));
	nb_table_free(t);
}

/* The architectural loader refuses it as another PMU's table, and vice versa. */
static void
test_kinds_do_not_mix(void **state)
{
	struct event_table *et;
	struct nb_table *nt;
	struct pmustat_error *err = NULL;

	(void)state;
	assert_int_equal(event_table_load(events_dir, "netburst", &et, &err), -EMEDIUMTYPE);
	assert_non_null(strstr(err_msg(err), "netburst.json"));
	assert_int_equal(nb_table_load(events_dir, "skylake", &nt, &err), -EINVAL);
	assert_non_null(strstr(err_msg(err), "not a NetBurst table"));
	assert_int_equal(nb_table_load(events_dir, "no_such", &nt, &err), -ENOENT);
	assert_int_equal(nb_table_load(events_dir, "../etc", &nt, &err), -EINVAL);
	err_clear(&err);
}

/* A table with one event, @event (JSON), and @aliases in a temporary directory. */
static int
load_text(const char *event, const char *aliases, struct pmustat_error **err)
{
	char dir[] = "/tmp/pmustat-nbtable-XXXXXX", path[PATH_MAX];
	struct nb_table *t = NULL;
	FILE *f;
	int ret;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t.json", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "{\"format_version\": 1, \"pmu\": \"netburst\", \"table\": \"t\", "
		"\"source\": {\"title\": \"test\"}, \"events\": [%s], \"aliases\": [%s]}", event, aliases);
	fclose(f);
	ret = nb_table_load(dir, "t", &t, err);
	nb_table_free(t);
	unlink(path);
	rmdir(dir);
	return ret;
}

/* A good event: name, event select, default masks. */
#define EV(n, es, dm) "{\"n\": \"" n "\", \"d\": \"x\", \"es\": \"" es "\", \"cs\": 6, " \
	"\"escr\": [\"FSB_ESCR0\"], \"m\": [{\"n\": \"RUNNING\", \"b\": 0, \"d\": \"y\"}], \"dm\": [" dm "]}"
#define GOOD EV("e", "0x13", "\"RUNNING\"")

static void
test_broken_tables(void **state)
{
	static const struct {
		const char *event, *aliases, *what;
	} cases[] = {
		{ GOOD, "", NULL },
		{ EV("e", "0x40", ""), "", "ESCR[30:25]" },
		{ "{\"n\": \"e\", \"d\": \"x\", \"es\": \"0x13\", \"cs\": 6, \"escr\": [\"FSB_ESCR9\"], \"m\": [], \"dm\": []}",
		  "", "does not have" },
		/* The CCCR select 03H the SDM prints for b2b_cycles does not name FSB_ESCR0. */
		{ "{\"n\": \"e\", \"d\": \"x\", \"es\": \"0x16\", \"cs\": 3, \"escr\": [\"FSB_ESCR0\"], \"m\": [], \"dm\": []}",
		  "", "CCCR ESCR-select" },
		{ "{\"n\": \"e\", \"d\": \"x\", \"es\": \"0x13\", \"cs\": 6, \"escr\": [\"FSB_ESCR0\"], "
		  "\"m\": [{\"n\": \"A\", \"b\": 16, \"d\": \"y\"}], \"dm\": []}", "", "0-15" },
		{ "{\"n\": \"e\", \"d\": \"x\", \"es\": \"0x13\", \"cs\": 6, \"escr\": [\"FSB_ESCR0\"], "
		  "\"m\": [{\"n\": \"A\", \"b\": 1, \"d\": \"y\"}, {\"n\": \"B\", \"b\": 1, \"d\": \"z\"}], \"dm\": []}",
		  "", "same bit" },
		{ EV("e", "0x13", "\"NOPE\""), "", "\"dm\"" },
		{ EV("a:b", "0x13", ""), "", "[A-Za-z0-9_]" },
		{ GOOD, "{\"n\": \"c\", \"a\": \"e:RUNNING:NOPE\", \"d\": \"x\"}", "mask" },
		{ GOOD, "{\"n\": \"c\", \"a\": \"f\", \"d\": \"x\"}", "does not have" },
		{ GOOD, "{\"n\": \"e\", \"a\": \"e:RUNNING\", \"d\": \"x\"}", "name of an event" },
		{ GOOD ", " GOOD, "", "twice" },
	};
	struct pmustat_error *err = NULL;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int ret = load_text(cases[i].event, cases[i].aliases, &err);

		print_message("case %zu: %s\n", i, ret ? err_msg(err) : "loads");
		if (!cases[i].what) {
			assert_int_equal(ret, 0);
			continue;
		}
		assert_int_equal(ret, -EINVAL);
		assert_non_null(strstr(err_msg(err), "t.json"));
		assert_non_null(strstr(err_msg(err), cases[i].what));
	}
	err_clear(&err);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sdm_encodings),
		cmocka_unit_test(test_lookup_and_consistency),
		cmocka_unit_test(test_aliases),
		cmocka_unit_test(test_kinds_do_not_mix),
		cmocka_unit_test(test_broken_tables),
	};

	if (argc != 2) {
		fprintf(stderr, "usage: %s EVENTS_DIR\n", argv[0]);
		return 2;
	}
	events_dir = argv[1];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
