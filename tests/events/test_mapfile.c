/*
 * mapfile_choose_table: by vendor-family-model(-stepping) and hybrid core
 * type, from hand-made cpu_info and from the real CPUID dumps in
 * tests/data/cpuid; the metrics file named by the same row
 * (mapfile_choose); and the errors of a broken mapfile.
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
#include <unistd.h>

#include <cmocka.h>

#include "events/cpu.h"
#include "events/cpu_source.h"
#include "events/mapfile.h"
#include "base/err.h"

static const char *events_dir;
static const char *dump_dir;

struct map_case {
	const char *vendor;
	unsigned family, model, stepping;
	enum cpu_core_type core_type;
	uint32_t native;
	const char *table;	/* NULL: -ENOENT */
};

static const struct map_case cases[] = {
	{ "GenuineIntel", 6, 0x5e, 3, 0, 0, "skylake" },
	{ "GenuineIntel", 6, 0x9e, 9, 0, 0, "skylake" },		/* Kaby/Coffee Lake */
	{ "GenuineIntel", 6, 0x55, 4, 0, 0, "skylakex" },		/* stepping class */
	{ "GenuineIntel", 6, 0x55, 7, 0, 0, "cascadelakex" },
	{ "GenuineIntel", 6, 0x55, 0xb, 0, 0, "cascadelakex" },
	{ "GenuineIntel", 6, 0x1a, 5, 0, 0, "nehalemep" },
	{ "GenuineIntel", 6, 0x2d, 7, 0, 0, "jaketown" },
	{ "GenuineIntel", 6, 0x8f, 8, 0, 0, "sapphirerapids" },
	{ "GenuineIntel", 6, 0x96, 1, 0, 0, "elkhartlake" },
	/* Hybrid: one row per core type (and native model ID). */
	{ "GenuineIntel", 6, 0x97, 2, CPU_CORE_TYPE_CORE, 1, "alderlake_goldencove" },
	{ "GenuineIntel", 6, 0x97, 2, CPU_CORE_TYPE_ATOM, 1, "alderlake_gracemont" },
	{ "GenuineIntel", 6, 0xb7, 1, CPU_CORE_TYPE_CORE, 1, "alderlake_goldencove" },
	{ "GenuineIntel", 6, 0xaa, 4, CPU_CORE_TYPE_ATOM, 2, "meteorlake_crestmont" },
	{ "GenuineIntel", 6, 0xc5, 2, CPU_CORE_TYPE_ATOM, 3, "arrowlake_skymont" },
	{ "GenuineIntel", 6, 0xc5, 2, CPU_CORE_TYPE_ATOM, 2, "arrowlake_crestmont" },
	{ "GenuineIntel", 6, 0xc5, 2, CPU_CORE_TYPE_CORE, 3, "arrowlake_lioncove" },
	{ "GenuineIntel", 6, 0xc6, 2, CPU_CORE_TYPE_ATOM, 2, NULL },	/* no LP E-cores on ARL-S */
	{ "GenuineIntel", 18, 0x1, 0, CPU_CORE_TYPE_CORE, 5, "novalake_coyotecove" },
	{ "GenuineIntel", 18, 0x3, 0, CPU_CORE_TYPE_ATOM, 5, "novalake_arcticwolf" },
	/* Alder Lake-N: E-cores only, a plain row. */
	{ "GenuineIntel", 6, 0xbe, 0, CPU_CORE_TYPE_ATOM, 1, "alderlake_gracemont" },
	{ "GenuineIntel", 6, 0xbe, 0, 0, 0, "alderlake_gracemont" },
	/* A hybrid model whose core type was not reported. */
	{ "GenuineIntel", 6, 0x97, 2, 0, 0, NULL },
	/* No table: Core 2, Lakefield, Diamond Rapids, AMD. */
	{ "GenuineIntel", 6, 0x0f, 6, 0, 0, NULL },
	{ "GenuineIntel", 6, 0x8a, 1, CPU_CORE_TYPE_CORE, 0, NULL },
	{ "GenuineIntel", 19, 0x1, 0, 0, 0, NULL },
	{ "AuthenticAMD", 25, 0x61, 2, 0, 0, NULL },
	/* Keys are matched whole: 6-5 must not match 6-5E. */
	{ "GenuineIntel", 6, 0x5, 0, 0, 0, NULL },
};

static void
fill_cpu(struct cpu_info *cpu, const char *vendor, unsigned family, unsigned model,
	 unsigned stepping, enum cpu_core_type type, uint32_t native)
{
	memset(cpu, 0, sizeof(*cpu));
	snprintf(cpu->vendor_id, sizeof(cpu->vendor_id), "%s", vendor);
	cpu->vendor = strcmp(vendor, "GenuineIntel") == 0 ? CPU_VENDOR_INTEL : CPU_VENDOR_AMD;
	cpu->family = family;
	cpu->model = model;
	cpu->stepping = stepping;
	cpu->core_type = type;
	cpu->hybrid = type != CPU_CORE_TYPE_NONE;
	cpu->native_model_id = native;
}

static void
test_cases(void **state)
{
	struct pmustat_error *err = NULL;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct map_case *c = &cases[i];
		struct cpu_info cpu;
		err_clear(&err);
		char table[64] = "";
		int ret;

		fill_cpu(&cpu, c->vendor, c->family, c->model, c->stepping, c->core_type, c->native);
		ret = mapfile_choose_table(events_dir, &cpu, table, sizeof(table), &err);
		if (c->table) {
			if (ret != 0 || strcmp(table, c->table) != 0)
				fail_msg("%s-%u-%X-%X type 0x%x/%u: got %d '%s' (%s), want %s",
					 c->vendor, c->family, c->model, c->stepping, c->core_type,
					 c->native, ret, table, err_msg(err), c->table);
		} else {
			if (ret != -ENOENT)
				fail_msg("%s-%u-%X-%X: got %d '%s', want -ENOENT", c->vendor,
					 c->family, c->model, c->stepping, ret, table);
			assert_non_null(strstr(err_msg(err), "mapfile.csv"));
		}
		err_clear(&err);
	}
	err_clear(&err);
}

/* The hybrid failure says which CPUID.1AH values had no row. */
static void
test_hybrid_message(void **state)
{
	struct cpu_info cpu;
	struct pmustat_error *err = NULL;
	char table[64];

	(void)state;
	fill_cpu(&cpu, "GenuineIntel", 6, 0xc6, 2, CPU_CORE_TYPE_ATOM, 2);
	assert_int_equal(mapfile_choose_table(events_dir, &cpu, table, sizeof(table), &err),
			 -ENOENT);
	assert_non_null(strstr(err_msg(err), "core type 0x20, native model ID 0x000002"));
	/* Too small a buffer for the name is an error, not a truncation. */
	fill_cpu(&cpu, "GenuineIntel", 6, 0x97, 2, CPU_CORE_TYPE_CORE, 1);
	assert_int_equal(mapfile_choose_table(events_dir, &cpu, table, 8, &err),
			 -ENAMETOOLONG);
	err_clear(&err);
}

struct dump_case {
	const char *file;
	const char *table;	/* NULL: -ENOENT */
};

/* Real CPUID through cpu_source (the last CPU of each dump). */
static const struct dump_case dumps[] = {
	{ "intel-skylake-client-i7-6700k.txt", "skylake" },
	{ "intel-skylake-sp-xeon-platinum-8180.txt", "skylakex" },
	{ "intel-cascadelake-sp-xeon-gold-5215.txt", "cascadelakex" },
	{ "intel-sandybridge-client-i7-2600.txt", "sandybridge" },
	{ "intel-nehalem-client-i7-920.txt", "nehalemep" },
	{ "intel-icelake-client-i7-1065g7.txt", "icelake" },
	{ "intel-sapphirerapids-xeon-w9-3475x.txt", "sapphirerapids" },
	{ "intel-alderlake-hybrid-i9-12900k-pcore.txt", "alderlake_goldencove" },
	{ "intel-alderlake-hybrid-i9-12900k-ecore.txt", "alderlake_gracemont" },
	{ "intel-gracemont-alderlake-n-i3-n305.txt", "alderlake_gracemont" },
	{ "intel-goldmont-celeron-j3455.txt", "goldmont" },
	{ "intel-core2-penryn-x9650.txt", NULL },
	{ "amd-zen4-ryzen9-7950x.txt", NULL },
};

static void
test_dumps(void **state)
{
	struct pmustat_error *err = NULL;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(dumps) / sizeof(dumps[0]); i++) {
		err_clear(&err);
		char path[PATH_MAX], table[64] = "";
		struct cpu_info cpu;
		int ret;

		snprintf(path, sizeof(path), "%s/%s", dump_dir, dumps[i].file);
		if (cpu_source_load(NULL, path, -1, &cpu, NULL, &err) != 0)
			fail_msg("%s", err_msg(err));
		ret = mapfile_choose_table(events_dir, &cpu, table, sizeof(table), &err);
		if (dumps[i].table ? ret != 0 || strcmp(table, dumps[i].table) != 0 : ret != -ENOENT)
			fail_msg("%s: got %d '%s' (%s), want %s", dumps[i].file, ret, table, err_msg(err),
				 dumps[i].table ? dumps[i].table : "-ENOENT");
		err_clear(&err);
	}
	err_clear(&err);
}

/* A mapfile in a temporary directory; returns the result and the message. */
static int
choose_from(const char *text, struct pmustat_error **err, char *table, size_t table_len)
{
	char dir[] = "/tmp/pmustat-map-XXXXXX";
	char path[PATH_MAX];
	struct cpu_info cpu;
	FILE *f;
	int ret;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/mapfile.csv", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	fill_cpu(&cpu, "GenuineIntel", 6, 0x5e, 3, 0, 0);
	ret = mapfile_choose_table(dir, &cpu, table, table_len, err);
	unlink(path);
	rmdir(dir);
	return ret;
}

#define MAP_HEADER "# comment\nFamily-model,Core Type,Native Model ID,Table,Version\n"

static void
test_bad_mapfiles(void **state)
{
	static const struct {
		const char *text;
		int ret;
		const char *error;
	} bad[] = {
		{ "", -EINVAL, "mapfile.csv:0: no header line" },
		{ "Family-model,Version,Filename\n", -EINVAL, "mapfile.csv:1: header is not" },
		{ MAP_HEADER "GenuineIntel-6-5E,,,skylake\n", -EINVAL, "mapfile.csv:3: too few fields" },
		{ MAP_HEADER "GenuineIntel-6-5E,,,skylake,V1,x\n", -EINVAL, "mapfile.csv:3: too many fields" },
		{ MAP_HEADER "GenuineIntel-6-4E,,,skylake,V1\nGenuineIntel-6-(5E,,,skylake,V1\n", -EINVAL,
		  "mapfile.csv:4: 'GenuineIntel-6-(5E' is not a valid extended regular expression" },
		{ MAP_HEADER "GenuineIntel-6-5E,,,../x,V1\n", -EINVAL, "mapfile.csv:3: Table must be" },
		{ MAP_HEADER "GenuineIntel-6-5E,0x40,zz,skylake,V1\n", -EINVAL, "mapfile.csv:3: Native Model ID" },
		{ MAP_HEADER "GenuineIntel-6-5F,,,skylake,V1\n", -ENOENT, "no event table for GenuineIntel-6-5E-3" },
	};
	struct pmustat_error *err = NULL;
	char table[64];
	size_t i;
	int ret;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err_clear(&err);
		ret = choose_from(bad[i].text, &err, table, sizeof(table));
		if (ret != bad[i].ret || !strstr(err_msg(err), bad[i].error))
			fail_msg("case %zu: %d \"%s\", want %d \"%s\"", i, ret, err_msg(err), bad[i].ret,
				 bad[i].error);
	}
	/* Alternation and stepping classes as ERE, blank lines, CRLF. */
	assert_int_equal(choose_from(MAP_HEADER "\nGenuineIntel-6-(4E|5E),,,skylake,V1\r\n",
				     &err, table, sizeof(table)), 0);
	assert_string_equal(table, "skylake");
	assert_int_equal(choose_from(MAP_HEADER "GenuineIntel-6-5E-[0-2],,,a,V1\nGenuineIntel-6-5E-[3-9],,,b,V1\n",
				     &err, table, sizeof(table)), 0);
	assert_string_equal(table, "b");
	/* The first matching row wins. */
	assert_int_equal(choose_from(MAP_HEADER "GenuineIntel-6-5E,,,first,V1\nGenuineIntel-6-5E,,,second,V1\n",
				     &err, table, sizeof(table)), 0);
	assert_string_equal(table, "first");
	err_clear(&err);
}

/* The metrics file comes from the same row as the table. */
/*
 * Literal keys are compared as strings, and a pattern is compiled only when
 * the key starts with its literal prefix: a broken pattern for another
 * model is never compiled (so never reported), one for this model is.
 */
static void
test_patterns_compiled_only_when_needed(void **state)
{
	struct pmustat_error *err = NULL;
	char table[64];

	(void)state;
	assert_int_equal(choose_from(MAP_HEADER "GenuineIntel-6-4E-(,,,broken,V1\n"
					       "GenuineIntel-6-5E,,,skylake,V1\n", &err, table, sizeof(table)), 0);
	assert_string_equal(table, "skylake");
	/* The stepping key GenuineIntel-6-5E-3 matched by a pattern with its prefix. */
	assert_int_equal(choose_from(MAP_HEADER "GenuineIntel-6-5E-[0-2],,,other,V1\n"
					       "GenuineIntel-6-5E-[34],,,skylake,V1\n", &err, table, sizeof(table)), 0);
	assert_string_equal(table, "skylake");
	/* Alternation has no prefix to trust: compiled, and matched. */
	assert_int_equal(choose_from(MAP_HEADER "GenuineIntel-6-(4E|5E),,,skylake,V1\n", &err, table,
				     sizeof(table)), 0);
	assert_string_equal(table, "skylake");
	/* A literal that is a prefix of the key is not a match. */
	assert_int_equal(choose_from(MAP_HEADER "GenuineIntel-6-5,,,skylake,V1\n", &err, table,
				     sizeof(table)), -ENOENT);
	assert_int_equal(choose_from(MAP_HEADER "GenuineIntel-6-5E-(,,,broken,V1\n", &err, table,
				     sizeof(table)), -EINVAL);
	assert_non_null(strstr(err_msg(err), "not a valid extended regular expression"));
	err_clear(&err);
}

static void
test_metrics_column(void **state)
{
	static const struct {
		unsigned model, stepping;
		enum cpu_core_type type;
		uint32_t native;
		const char *table, *metrics;
	} shipped[] = {
		{ 0x5e, 3, 0, 0, "skylake", "skylake" },
		{ 0x55, 4, 0, 0, "skylakex", "skylakex" },
		{ 0x55, 7, 0, 0, "cascadelakex", "cascadelakex" },
		{ 0x8f, 8, 0, 0, "sapphirerapids", "sapphirerapids" },
		/* Intel publishes P-core metrics only. */
		{ 0x97, 2, CPU_CORE_TYPE_CORE, 1, "alderlake_goldencove", "alderlake_goldencove" },
		{ 0x97, 2, CPU_CORE_TYPE_ATOM, 1, "alderlake_gracemont", "" },
		{ 0xbe, 0, 0, 0, "alderlake_gracemont", "" },
		{ 0x2d, 7, 0, 0, "jaketown", "" },
	};
	struct mapfile_choice c;
	struct cpu_info cpu;
	struct pmustat_error *err = NULL;
	char table[64];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(shipped) / sizeof(shipped[0]); i++) {
		fill_cpu(&cpu, "GenuineIntel", 6, shipped[i].model, shipped[i].stepping,
			 shipped[i].type, shipped[i].native);
		if (mapfile_choose(events_dir, &cpu, &c, &err) != 0)
			fail_msg("model %x: %s", shipped[i].model, err_msg(err));
		assert_string_equal(c.table, shipped[i].table);
		assert_string_equal(c.metrics, shipped[i].metrics);
	}
#define METRICS_HEADER "Family-model,Core Type,Native Model ID,Table,Version,Metrics\n"
	assert_int_equal(choose_from(METRICS_HEADER "GenuineIntel-6-5E,,,skylake,V1,skl\n",
				     &err, table, sizeof(table)), 0);
	assert_string_equal(table, "skylake");
	assert_int_equal(choose_from(METRICS_HEADER "GenuineIntel-6-5E,,,skylake,V1\n",
				     &err, table, sizeof(table)), -EINVAL);
	assert_non_null(strstr(err_msg(err), "too few fields"));
	assert_int_equal(choose_from(METRICS_HEADER "GenuineIntel-6-5E,,,skylake,V1,../m\n",
				     &err, table, sizeof(table)), -EINVAL);
	assert_non_null(strstr(err_msg(err), "Metrics must be empty or a name"));
	err_clear(&err);
}

static void
test_missing_dir(void **state)
{
	struct cpu_info cpu;
	struct pmustat_error *err = NULL;
	char table[64];

	(void)state;
	fill_cpu(&cpu, "GenuineIntel", 6, 0x5e, 3, 0, 0);
	assert_int_equal(mapfile_choose_table("/nonexistent-pmustat", &cpu, table, sizeof(table), &err), -EIO);
	assert_non_null(strstr(err_msg(err), "/nonexistent-pmustat/mapfile.csv"));
	err_clear(&err);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),
		cmocka_unit_test(test_hybrid_message),
		cmocka_unit_test(test_dumps),
		cmocka_unit_test(test_bad_mapfiles),
		cmocka_unit_test(test_patterns_compiled_only_when_needed),
		cmocka_unit_test(test_metrics_column),
		cmocka_unit_test(test_missing_dir),
	};

	if (argc != 3) {
		fprintf(stderr, "usage: %s EVENTS_DIR CPUID_DUMP_DIR\n", argv[0]);
		return 2;
	}
	events_dir = argv[1];
	dump_dir = argv[2];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
