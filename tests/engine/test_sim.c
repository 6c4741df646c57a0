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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cachegrind_totals),
		cmocka_unit_test(test_callgrind_totals),
		cmocka_unit_test(test_hostile_files),
		cmocka_unit_test(test_names_and_sums),
		cmocka_unit_test(test_fixed_model),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
