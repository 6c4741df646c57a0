/*
 * test_sim.c - --backend sim's pure parts: what each name sums
 * (events/sim_events.h) and the totals of Cachegrind's and Callgrind's
 * output files (engine/cachegrind_out.h), hostile files included.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "engine/cachegrind_out.h"
#include "engine/callgrind_regions.h"
#include "events/sim_events.h"

/* The shape of Valgrind 3.19's cachegrind.out with --cache-sim=yes --branch-sim=yes. */
static const char cachegrind_file[] =
	"desc: I1 cache:         32768 B, 64 B, 8-way associative\n"
	"desc: D1 cache:         32768 B, 64 B, 8-way associative\n"
	"desc: LL cache:         8388608 B, 64 B, 16-way associative\n"
	"cmd: ./m\n"
	"events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw Bc Bcm Bi Bim\n"
	"fl=???\n"
	"fn=0x0000000000001040\n"
	"0 1 2 3 4 5 6 7 8 9 10 11 12 13\n"
	"summary: 12278531 1326 1299 3967953 974729 1045 2633333 655907 33123 1342508 4016 465 222\n";

static void
test_cachegrind_totals(void **state)
{
	uint64_t v[SIM_NFIELDS];
	char why[128];

	(void)state;
	assert_int_equal(cachegrind_out_parse(cachegrind_file, strlen(cachegrind_file), v, why, sizeof(why)), 0);
	assert_int_equal(v[SIM_IR], 12278531);
	assert_int_equal(v[SIM_I1MR], 1326);
	assert_int_equal(v[SIM_ILMR], 1299);
	assert_int_equal(v[SIM_DR], 3967953);
	assert_int_equal(v[SIM_D1MR], 974729);
	assert_int_equal(v[SIM_DLMR], 1045);
	assert_int_equal(v[SIM_DW], 2633333);
	assert_int_equal(v[SIM_D1MW], 655907);
	assert_int_equal(v[SIM_DLMW], 33123);
	assert_int_equal(v[SIM_BC], 1342508);
	assert_int_equal(v[SIM_BCM], 4016);
	assert_int_equal(v[SIM_BI], 465);
	assert_int_equal(v[SIM_BIM], 222);
}

/* Callgrind orders its columns otherwise, says "totals:" and leaves trailing zeros out. */
static void
test_callgrind_totals(void **state)
{
	static const char file[] = "version: 1\ncmd: ./m\nevents: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi Bim\n"
				   "fn=(1) main\n5 3 1\ntotals: 100 40 30 2 7\n";
	uint64_t v[SIM_NFIELDS];
	char why[128];

	(void)state;
	assert_int_equal(cachegrind_out_parse(file, strlen(file), v, why, sizeof(why)), 0);
	assert_int_equal(v[SIM_IR], 100);
	assert_int_equal(v[SIM_DR], 40);
	assert_int_equal(v[SIM_DW], 30);
	assert_int_equal(v[SIM_I1MR], 2);
	assert_int_equal(v[SIM_D1MR], 7);
	assert_int_equal(v[SIM_D1MW], 0);
	assert_int_equal(v[SIM_BIM], 0);
}

static void
refused(const char *text, const char *why_part)
{
	uint64_t v[SIM_NFIELDS];
	char why[128];

	assert_int_equal(cachegrind_out_parse(text, strlen(text), v, why, sizeof(why)), -EPROTO);
	if (!strstr(why, why_part))
		fail_msg("'%s': want a reason with '%s', got '%s'", text, why_part, why);
}

static void
test_hostile_files(void **state)
{
	(void)state;
	refused("", "events");
	refused("summary: 1 2\n", "events");
	refused("events: Ir Dr\n", "summary");
	refused("events: Ir Dr\nsummary: 1 2 3\n", "more numbers");
	refused("events: Ir Dr\nsummary: 1 x\n", "not a count");
	refused("events: Ir Dr\nsummary: -1 2\n", "not a count");
	refused("events: Ir Dr\nsummary: 99999999999999999999 2\n", "not a count");
	refused("events: Ir Ir\nsummary: 1 2\n", "twice");
	refused("events: Ir\nsummary:\n", "empty");
	/* A key must start its line. */
	refused("xevents: Ir\nsummary: 1\n", "events");
}

static void
test_names_and_sums(void **state)
{
	uint64_t v[SIM_NFIELDS];
	const struct sim_event *e;
	char names[600];

	(void)state;
	for (int f = 0; f < SIM_NFIELDS; f++)
		v[f] = (uint64_t)1 << f;
	assert_int_equal(sim_event_value(sim_event_find("instructions")->fields, v), v[SIM_IR]);
	assert_int_equal(sim_event_value(sim_event_find("L1-dcache-loads")->fields, v), v[SIM_DR]);
	assert_int_equal(sim_event_value(sim_event_find("L1-dcache-stores")->fields, v), v[SIM_DW]);
	assert_int_equal(sim_event_value(sim_event_find("L1-dcache-load-misses")->fields, v), v[SIM_D1MR]);
	assert_int_equal(sim_event_value(sim_event_find("L1-dcache-store-misses")->fields, v), v[SIM_D1MW]);
	assert_int_equal(sim_event_value(sim_event_find("L1-icache-load-misses")->fields, v), v[SIM_I1MR]);
	assert_int_equal(sim_event_value(sim_event_find("LLC-load-misses")->fields, v), v[SIM_DLMR]);
	assert_int_equal(sim_event_value(sim_event_find("LLC-store-misses")->fields, v), v[SIM_DLMW]);
	assert_int_equal(sim_event_value(sim_event_find("cache-references")->fields, v),
			 v[SIM_I1MR] + v[SIM_D1MR] + v[SIM_D1MW]);
	assert_int_equal(sim_event_value(sim_event_find("cache-misses")->fields, v),
			 v[SIM_ILMR] + v[SIM_DLMR] + v[SIM_DLMW]);
	assert_int_equal(sim_event_value(sim_event_find("branches")->fields, v), v[SIM_BC] + v[SIM_BI]);
	assert_int_equal(sim_event_value(sim_event_find("branch-misses")->fields, v), v[SIM_BCM] + v[SIM_BIM]);
	/* perf's names in any case; Cachegrind's columns exactly. */
	assert_non_null(sim_event_find("INSTRUCTIONS"));
	e = sim_event_find("D1mw");
	assert_non_null(e);
	assert_int_equal(e->fields, SIM_BIT(SIM_D1MW));
	assert_null(sim_event_find("d1mw"));
	/* Nothing without a simulated meaning. */
	assert_null(sim_event_find("cycles"));
	assert_null(sim_event_find("ref-cycles"));
	assert_null(sim_event_find("INST_RETIRED.ANY"));
	assert_null(sim_event_find("task-clock"));
	sim_event_names(names, sizeof(names));
	assert_non_null(strstr(names, "instructions"));
	assert_non_null(strstr(names, "Bim"));
}

/* The fixed model: what Valgrind is given and glibc is told agree. */
static void
test_fixed_model(void **state)
{
	(void)state;
	assert_string_equal(sim_caches[0].name, "I1");
	assert_string_equal(sim_caches[1].name, "D1");
	assert_string_equal(sim_caches[2].name, "LL");
	for (unsigned i = 0; i < 3; i++) {
		unsigned sets = sim_caches[i].size / (sim_caches[i].assoc * sim_caches[i].line);

		/* Cachegrind wants a power-of-two number of sets. */
		assert_int_equal(sets & (sets - 1), 0);
	}
	assert_non_null(strstr(sim_glibc_tunables, "x86_data_cache_size=32768"));
	assert_non_null(strstr(sim_glibc_tunables, "x86_shared_cache_size=8388608"));
	/* glibc 2.36's spelling, not the old "AVX2_Usable"; a trailing comma ends the list. */
	assert_non_null(strstr(sim_glibc_tunables, "glibc.cpu.hwcaps=-AVX,-AVX2,"));
	assert_null(strstr(sim_glibc_tunables, "Usable"));
	assert_non_null(strstr(sim_glibc_tunables, ",:glibc.cpu.x86"));
}

/*
 * Callgrind's dumps at the library's marks, two threads: "a" holds "b"
 * (nested), "r" begun inside itself (recursion), an end that closes
 * nothing, thread 2 reused by a new thread after its "n" mark.
 */
static const char dumps[] =
	"version: 1\ncmd: ./demo\n"
	"part: 1\nthread: 1\ndesc: Trigger: Client Request: pmustat-region n 100\n"
	"events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi Bim\nsummary: 1000 1\n"
	"part: 2\nthread: 1\ndesc: Trigger: Client Request: pmustat-region b a\nsummary: 5\n"
	"part: 3\nthread: 1\ndesc: Trigger: Client Request: pmustat-region b b\nsummary: 10 2\n"
	"part: 4\nthread: 1\ndesc: Trigger: Client Request: pmustat-region e b\nsummary: 20 3\n"
	"part: 5\nthread: 1\ndesc: Trigger: Client Request: pmustat-region e x\nsummary: 1\n"
	"part: 6\nthread: 1\ndesc: Trigger: Client Request: pmustat-region e a\nsummary: 30\n"
	"part: 7\nthread: 2\ndesc: Trigger: Client Request: pmustat-region n 101\nsummary: 7\n"
	"part: 8\nthread: 2\ndesc: Trigger: Client Request: pmustat-region b r\nsummary: 1\n"
	"part: 9\nthread: 2\ndesc: Trigger: Client Request: pmustat-region b r\nsummary: 100\n"
	"part: 10\nthread: 2\ndesc: Trigger: Client Request: pmustat-region e r\nsummary: 200\n"
	"part: 11\nthread: 2\ndesc: Trigger: Client Request: pmustat-region e r\nsummary: 300\n"
	"part: 12\nthread: 2\ndesc: Trigger: Client Request: pmustat-region n 102\nsummary: 2\n"
	"part: 13\nthread: 2\ndesc: Trigger: Client Request: pmustat-region b a\nsummary: 3\n"
	"part: 14\nthread: 2\ndesc: Trigger: Client Request: pmustat-region e a\nsummary: 40\n"
	"part: 15\nthread: 1\ndesc: Trigger: Program termination\nsummary: 9\n"
	"totals: 0\n";

/* Region @name's totals (the test fails when there is none). */
static const struct region_total *
total_named(const struct region_result *r, const char *name)
{
	static const struct region_total none;

	for (unsigned i = 0; i < r->ntotals; i++)
		if (strcmp(r->totals[i].name, name) == 0)
			return &r->totals[i];
	fail_msg("no region %s", name);
	return &none;
}

static void
test_callgrind_regions(void **state)
{
	const uint32_t fields[2] = { SIM_BIT(SIM_IR), SIM_BIT(SIM_DR) };
	struct region_result r;
	uint64_t totals[SIM_NFIELDS];
	const struct region_total *t;
	char why[128];

	(void)state;
	memset(&r, 0, sizeof(r));
	r.nevents = 2;
	assert_int_equal(callgrind_regions_add(&r, fields, 4242, dumps, strlen(dumps), totals, why, sizeof(why)), 0);
	assert_int_equal(region_result_totals(&r), 0);
	/* Every part is in the whole process's counts. */
	assert_int_equal(totals[SIM_IR], 1000 + 5 + 10 + 20 + 1 + 30 + 7 + 1 + 100 + 200 + 300 + 2 + 3 + 40 + 9);
	assert_int_equal(totals[SIM_DR], 1 + 2 + 3);
	assert_int_equal(r.nthreads, 3);
	assert_int_equal(r.threads[0].tid, 100);
	assert_int_equal(r.threads[0].pid, 4242);
	assert_int_equal(r.threads[0].unmatched_ends, 1);
	assert_int_equal(r.threads[2].tid, 102);
	/* a: from its begin to its end, b's costs and the stray end's included. */
	t = total_named(&r, "a");
	assert_int_equal(t->calls, 2);
	assert_int_equal(t->threads, 2);
	assert_int_equal(t->sum[0], (10 + 20 + 1 + 30) + 40);
	assert_int_equal(t->sum[1], 2 + 3);
	t = total_named(&r, "b");
	assert_int_equal(t->calls, 1);
	assert_int_equal(t->sum[0], 20);
	assert_int_equal(t->sum[1], 3);
	/* r: two calls, its costs once, over the outermost pair. */
	t = total_named(&r, "r");
	assert_int_equal(t->calls, 2);
	assert_int_equal(t->begins, 2);
	assert_int_equal(t->sum[0], 100 + 200 + 300);
	region_result_free(&r);
}

static void
test_callgrind_regions_hostile(void **state)
{
	const uint32_t fields[1] = { SIM_BIT(SIM_IR) };
	static const char *const bad[] = {
		/* A mark of a kind the library never writes. */
		("events: Ir\npart: 1\nthread: 1\ndesc: Trigger: Client Request: pmustat-region n 1\nsummary: 1\n"
		 "part: 2\nthread: 1\ndesc: Trigger: Client Request: pmustat-region q x\nsummary: 1\n"),
		/* A begin before the thread's first mark. */
		"events: Ir\npart: 1\nthread: 1\ndesc: Trigger: Client Request: pmustat-region b x\nsummary: 1\n",
		/* No events line; a summary that is not one. */
		"part: 1\nthread: 1\nsummary: 1\n",
		"events: Ir\npart: 1\nthread: 1\nsummary: x\n",
	};
	uint64_t totals[SIM_NFIELDS];
	char why[128];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct region_result r;

		memset(&r, 0, sizeof(r));
		r.nevents = 1;
		why[0] = '\0';
		assert_int_equal(callgrind_regions_add(&r, fields, 1, bad[i], strlen(bad[i]), totals, why, sizeof(why)),
				 -EPROTO);
		assert_true(why[0] != '\0');
		region_result_free(&r);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cachegrind_totals),
		cmocka_unit_test(test_callgrind_totals),
		cmocka_unit_test(test_hostile_files),
		cmocka_unit_test(test_names_and_sums),
		cmocka_unit_test(test_fixed_model),
		cmocka_unit_test(test_callgrind_regions),
		cmocka_unit_test(test_callgrind_regions_hostile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
