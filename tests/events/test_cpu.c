/*
 * CPU and PMU detection from every raw CPUID dump in tests/data/cpuid:
 * the values must be those the SDM's CPUID.0AH decoding and the dumps'
 * README give, after the documented quirks.
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
#include <libcpuid/libcpuid.h>

#include "events/cpu.h"
#include "events/cpu_source.h"
#include "base/err.h"

static const char *dump_dir;

struct expect {
	const char *file;
	enum cpu_vendor vendor;
	unsigned family, model, stepping;
	enum cpu_verdict verdict;
	unsigned version;
	unsigned gp, gp_width;
	unsigned fixed, fixed_width;
	uint32_t fixed_mask;
	enum cpu_core_type core_type;
	uint32_t arch_unavailable;	/* CPUID.0AH:EBX; where 0x23.3 is valid, the events its EAX lacks */
	bool quirk;
};

#define INTEL CPU_VENDOR_INTEL
#define OK CPU_VERDICT_OK
#define NONE CPU_CORE_TYPE_NONE
#define CORE CPU_CORE_TYPE_CORE
#define ATOM CPU_CORE_TYPE_ATOM

static const struct expect cases[] = {
	{ "intel-netburst-prescott-pentium4-640.txt", INTEL, 0xf, 0x04, 3, CPU_VERDICT_NETBURST, 0, 0, 0, 0, 0, 0, NONE, 0, false },
	/* Max leaf 2: the leaf-0xA slot holds garbage that must not be decoded. */
	{ "intel-netburst-northwood-pentium4-2.66ghz.txt", INTEL, 0xf, 0x02, 9, CPU_VERDICT_NETBURST, 0, 0, 0, 0, 0, 0, NONE, 0, false },
	/* Reports 0 fixed counters; it has 3 (40 bits, like its GP counters). */
	{ "intel-core2-merom-x6800.txt", INTEL, 6, 0x0f, 6, OK, 2, 2, 40, 3, 40, 0x7, NONE, 0, true },
	{ "intel-core2-penryn-x9650.txt", INTEL, 6, 0x17, 6, OK, 2, 2, 40, 3, 40, 0x7, NONE, 0, false },
	{ "intel-nehalem-client-i7-920.txt", INTEL, 6, 0x1a, 4, OK, 3, 4, 48, 3, 48, 0x7, NONE, 0x40, false },
	/* Hyper-V root partition: leaf 0xA all zero under a hypervisor. */
	{ "intel-nehalem-ex-xeon-x7560-hyperv-root.txt", INTEL, 6, 0x2e, 6, CPU_VERDICT_VM_NO_PMU, 0, 0, 0, 0, 0, 0, NONE, 0, false },
	{ "intel-westmere-client-i5-650.txt", INTEL, 6, 0x25, 2, OK, 3, 4, 48, 3, 48, 0x7, NONE, 0x04, false },
	{ "intel-sandybridge-client-i7-2600.txt", INTEL, 6, 0x2a, 7, OK, 3, 4, 48, 3, 48, 0x7, NONE, 0, false },
	{ "intel-ivybridge-client-i7-3770k.txt", INTEL, 6, 0x3a, 9, OK, 3, 4, 48, 3, 48, 0x7, NONE, 0, false },
	{ "intel-haswell-client-i7-4770.txt", INTEL, 6, 0x3c, 3, OK, 3, 4, 48, 3, 48, 0x7, NONE, 0, false },
	{ "intel-haswell-ep-xeon-e5-2699v3.txt", INTEL, 6, 0x3f, 2, OK, 3, 4, 48, 3, 48, 0x7, NONE, 0, false },
	{ "intel-broadwell-client-i7-5775c.txt", INTEL, 6, 0x47, 1, OK, 3, 4, 48, 3, 48, 0x7, NONE, 0, false },
	{ "intel-broadwell-ep-xeon-e5-2696v4.txt", INTEL, 6, 0x4f, 1, OK, 3, 4, 48, 3, 48, 0x7, NONE, 0, false },
	{ "intel-skylake-client-i7-6700k.txt", INTEL, 6, 0x5e, 3, OK, 4, 4, 48, 3, 48, 0x7, NONE, 0, false },
	{ "intel-skylake-sp-xeon-platinum-8180.txt", INTEL, 6, 0x55, 4, OK, 4, 4, 48, 3, 48, 0x7, NONE, 0, false },
	{ "intel-kabylake-client-i7-7700k.txt", INTEL, 6, 0x9e, 9, OK, 4, 4, 48, 3, 48, 0x7, NONE, 0, false },
	{ "intel-coffeelake-client-i7-8700k.txt", INTEL, 6, 0x9e, 0xa, OK, 4, 4, 48, 3, 48, 0x7, NONE, 0, false },
	{ "intel-cascadelake-sp-xeon-gold-5215.txt", INTEL, 6, 0x55, 7, OK, 4, 4, 48, 3, 48, 0x7, NONE, 0, false },
	{ "intel-icelake-client-i7-1065g7.txt", INTEL, 6, 0x7e, 5, OK, 5, 8, 48, 4, 48, 0xf, NONE, 0, false },
	{ "intel-icelake-sp-xeon-platinum-8351n.txt", INTEL, 6, 0x6a, 6, OK, 5, 8, 48, 4, 48, 0xf, NONE, 0, false },
	{ "intel-tigerlake-client-i7-1165g7.txt", INTEL, 6, 0x8c, 1, OK, 5, 8, 48, 4, 48, 0xf, NONE, 0, false },
	/* Whole hybrid dump: the single-CPU default is the last CPU, an E-core. */
	{ "intel-alderlake-hybrid-i9-12900k.txt", INTEL, 6, 0x97, 2, OK, 5, 6, 48, 3, 48, 0x7, ATOM, 0, false },
	/* P-core: CPUID reports the common subset; the core has 8 GP + 4 fixed. */
	{ "intel-alderlake-hybrid-i9-12900k-pcore.txt", INTEL, 6, 0x97, 2, OK, 5, 8, 48, 4, 48, 0xf, CORE, 0, true },
	{ "intel-alderlake-hybrid-i9-12900k-ecore.txt", INTEL, 6, 0x97, 2, OK, 5, 6, 48, 3, 48, 0x7, ATOM, 0, false },
	/* Same family/model as the i9, no E-cores: CPUID tells the truth. */
	{ "intel-alderlake-client-i5-12400.txt", INTEL, 6, 0x97, 2, OK, 5, 8, 48, 4, 48, 0xf, NONE, 0, false },
	{ "intel-raptorlake-hybrid-i5-13600k.txt", INTEL, 6, 0xb7, 1, OK, 5, 6, 48, 3, 48, 0x7, ATOM, 0, false },
	{ "intel-meteorlake-hybrid-ultra7-155h.txt", INTEL, 6, 0xaa, 4, OK, 5, 8, 48, 3, 48, 0x7, ATOM, 0xffffff80, false },
	/* Last CPU is a P-core (Lion Cove): 10 GP, fixed 0-3 per the dump's leaf 0x23, no quirk table. */
	{ "intel-arrowlake-hybrid-ultra5-245k.txt", INTEL, 6, 0xc6, 2, OK, 6, 10, 48, 4, 48, 0xf, CORE, 0xffffe200, false },
	/* Last CPU is an E-core (Skymont): fixed 0-2 and 4-6 per leaf 0x23. */
	{ "intel-lunarlake-hybrid-ultra9-288v.txt", INTEL, 6, 0xbd, 1, OK, 6, 8, 48, 6, 48, 0x77, ATOM, 0xffffe080, false },
	{ "intel-lakefield-hybrid-i5-l16g7.txt", INTEL, 6, 0x8a, 1, OK, 5, 4, 48, 3, 48, 0x7, CORE, 0x04, false },
	{ "intel-sapphirerapids-xeon-w9-3475x.txt", INTEL, 6, 0x8f, 8, OK, 5, 8, 48, 4, 48, 0xf, NONE, 0, false },
	{ "intel-emeraldrapids-xeon-platinum-8570.txt", INTEL, 6, 0xcf, 2, OK, 5, 8, 48, 4, 48, 0xf, NONE, 0, false },
	{ "intel-goldmont-celeron-j3455.txt", INTEL, 6, 0x5c, 9, OK, 4, 4, 48, 3, 48, 0x7, NONE, 0, false },
	/* Tremont reports an Atom core type without the hybrid bit. */
	{ "intel-tremont-pentium-silver-n6005.txt", INTEL, 6, 0x9c, 0, OK, 5, 4, 48, 3, 48, 0x7, ATOM, 0, false },
	{ "intel-gracemont-alderlake-n-i3-n305.txt", INTEL, 6, 0xbe, 0, OK, 5, 6, 48, 3, 48, 0x7, ATOM, 0, false },
	/* Max leaf 4: the leaf-0xA slot repeats leaf 4 and must be ignored. */
	{ "vm-qemu-virtual-cpu64-rhel6.txt", INTEL, 6, 0x0d, 3, CPU_VERDICT_VM_NO_PMU, 0, 0, 0, 0, 0, 0, NONE, 0, false },
	{ "amd-zen4-ryzen9-7950x.txt", CPU_VENDOR_AMD, 0x19, 0x61, 2, CPU_VERDICT_FAMILY_CANNOT, 0, 0, 0, 0, 0, 0, NONE, 0, false },
};

static void
dump_path(const char *file, char *buf, size_t size)
{
	snprintf(buf, size, "%s/%s", dump_dir, file);
}

static void
test_every_dump(void **state)
{
	struct pmustat_error *err = NULL;
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct expect *e = &cases[i];
		struct cpu_info c;
		err_clear(&err);
		char path[PATH_MAX];
		int ret;

		dump_path(e->file, path, sizeof(path));
		ret = cpu_source_load(NULL, path, -1, &c, NULL, &err);
		if (ret != 0)
			fail_msg("%s: %s", e->file, err_msg(err));
		print_message("%s\n", e->file);
		assert_int_equal(c.vendor, e->vendor);
		assert_int_equal(c.family, e->family);
		assert_int_equal(c.model, e->model);
		assert_int_equal(c.stepping, e->stepping);
		assert_int_equal(c.verdict, e->verdict);
		assert_int_equal(c.core_type, e->core_type);
		if (e->verdict != OK)
			continue;
		assert_int_equal(c.pmu.version, e->version);
		assert_int_equal(c.pmu.gp_counters, e->gp);
		assert_int_equal(c.pmu.gp_width, e->gp_width);
		assert_int_equal(c.pmu.fixed_counters, e->fixed);
		assert_int_equal(c.pmu.fixed_width, e->fixed_width);
		assert_int_equal(c.pmu.fixed_mask, e->fixed_mask);
		assert_int_equal(c.pmu.arch_events_unavailable, e->arch_unavailable);
		assert_int_equal(c.pmu.quirk != NULL, e->quirk);
		err_clear(&err);
	}
	err_clear(&err);
}

/* NetBurst from the two dumps: the ESCR/CCCR PMU, and only on those. */
static void
test_netburst_dumps(void **state)
{
	struct pmustat_error *err = NULL;
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cpu_info c;
		err_clear(&err);
		char path[PATH_MAX];
		bool netburst = strstr(cases[i].file, "netburst") != NULL;

		dump_path(cases[i].file, path, sizeof(path));
		assert_int_equal(cpu_source_load(NULL, path, -1, &c, NULL, &err), 0);
		assert_int_equal(c.netburst.present, netburst);
		if (!netburst)
			continue;
		assert_int_equal(c.verdict, CPU_VERDICT_NETBURST);
		assert_int_equal(c.netburst.counters, 18);
		assert_int_equal(c.netburst.width, 40);
		assert_int_equal(c.netburst.thread, 0);
		/* Northwood (model 2) still has IQ_ESCR0/1; Prescott (model 4) does not. */
		assert_int_equal(c.netburst.escrs, c.model <= 2 ? 45 : 43);
		/* The 2.66 GHz Northwood has no HT; the Pentium 4 640 has. */
		assert_int_equal(c.netburst.ht, c.model == 4);
		err_clear(&err);
	}
	err_clear(&err);
}

/* A family-15 CPUID: @logical processors per package, @cores, this one's APIC ID. */
static void
netburst_raw(struct cpu_raw_data_t *raw, unsigned logical, unsigned cores, unsigned apic)
{
	memset(raw, 0, sizeof(*raw));
	raw->basic_cpuid[0][0] = 4;
	memcpy(&raw->basic_cpuid[0][1], "Genu", 4);
	memcpy(&raw->basic_cpuid[0][3], "ineI", 4);
	memcpy(&raw->basic_cpuid[0][2], "ntel", 4);
	raw->basic_cpuid[1][0] = 0xf64;				/* family 15, model 6 */
	raw->basic_cpuid[1][1] = apic << 24 | logical << 16;
	raw->basic_cpuid[1][3] = 1u << 28;			/* HTT */
	raw->intel_fn4[0][0] = (cores - 1) << 26;
}

/* The ESCR thread bits follow the APIC ID only where two threads share a core. */
static void
test_netburst_threads(void **state)
{
	struct cpu_raw_data_t raw;
	struct cpu_info c;

	(void)state;
	netburst_raw(&raw, 2, 1, 1);		/* Hyper-Threading, the second thread */
	cpu_decode(&raw, &c);
	assert_true(c.netburst.present);
	assert_true(c.netburst.ht);
	assert_int_equal(c.netburst.thread, 1);
	netburst_raw(&raw, 2, 2, 1);		/* Pentium D: two cores, no HT */
	cpu_decode(&raw, &c);
	assert_false(c.netburst.ht);
	assert_int_equal(c.netburst.thread, 0);
	netburst_raw(&raw, 4, 2, 3);		/* Pentium EE 840: two cores with HT */
	cpu_decode(&raw, &c);
	assert_true(c.netburst.ht);
	assert_int_equal(c.netburst.thread, 1);
	assert_int_equal(c.netburst.escrs, 43);
}

/* An Intel CPU with max leaf @max and leaf 0xA @a (EAX, EBX, ECX, EDX). */
static void
perfmon_raw(struct cpu_raw_data_t *raw, uint32_t max, const uint32_t a[4], bool hybrid)
{
	memset(raw, 0, sizeof(*raw));
	raw->basic_cpuid[0][0] = max;
	memcpy(&raw->basic_cpuid[0][1], "Genu", 4);
	memcpy(&raw->basic_cpuid[0][3], "ineI", 4);
	memcpy(&raw->basic_cpuid[0][2], "ntel", 4);
	raw->basic_cpuid[1][0] = 0xc06d1;			/* family 6, model 0xCD: no quirk applies */
	raw->basic_cpuid[7][3] = hybrid ? 1u << 15 : 0;
	memcpy(raw->basic_cpuid[0xa], a, 4 * sizeof(uint32_t));
}

/* The counters from leaf 0xA (v5 fixed bitmap) and leaf 0x23 values, as the SDM and Linux read them. */
static void
test_counter_enumeration(void **state)
{
	/* v5, 8 GP x 48, fixed: EDX[4:0] = 3, ECX bitmap 0x70 (fixed 4-6, a hole at 3). */
	static const uint32_t v5[4] = { 0x08300805, 0, 0x70, 0x00008603 };
	/* v6 as Arrow Lake's leaf 0xA: 8 GP, fixed 0-2. */
	static const uint32_t v6[4] = { 0x0d300806, 0x280, 0x7, 0x00008603 };
	struct cpu_raw_data_t raw;
	struct cpu_leaf23 l23;
	struct cpu_info c;

	(void)state;
	perfmon_raw(&raw, 0x1f, v5, false);
	cpu_decode(&raw, &c);
	assert_int_equal(c.pmu.gp_mask, 0xff);
	assert_int_equal(c.pmu.fixed_mask, 0x77);
	assert_int_equal(c.pmu.fixed_counters, 6);
	assert_string_equal(c.pmu.counters_from, "CPUID.0AH");
	assert_null(c.pmu.counters_note);
	/* Before v5 ECX is not a bitmap. */
	{
		uint32_t v4[4] = { 0x08300804, 0, 0x70, 0x00008603 };

		perfmon_raw(&raw, 0x1f, v4, false);
		cpu_decode(&raw, &c);
		assert_int_equal(c.pmu.fixed_mask, 0x7);
	}

	/* Lion Cove: leaf 0x23.1 EAX = GP 0-9, EBX = fixed 0-3. */
	perfmon_raw(&raw, 0x23, v6, true);
	memset(&l23, 0, sizeof(l23));
	l23.read = true;
	l23.sub[0][0] = 0xb;			/* subleaf 1 valid (bit 1) */
	l23.sub[1][0] = 0x3ff;
	l23.sub[1][1] = 0xf;
	cpu_decode_ext(&raw, &l23, &c);
	assert_int_equal(c.pmu.gp_mask, 0x3ff);
	assert_int_equal(c.pmu.gp_counters, 10);
	assert_int_equal(c.pmu.fixed_mask, 0xf);
	assert_int_equal(c.pmu.cpuid_gp_counters, 8);
	assert_string_equal(c.pmu.counters_from, "CPUID.23H.1");
	assert_null(c.pmu.quirk);
	/* Skymont: fixed 0-2 and 4-6. */
	l23.sub[1][0] = 0xff;
	l23.sub[1][1] = 0x77;
	cpu_decode_ext(&raw, &l23, &c);
	assert_int_equal(c.pmu.gp_mask, 0xff);
	assert_int_equal(c.pmu.fixed_mask, 0x77);
	assert_int_equal(c.pmu.fixed_counters, 6);
	/* Subleaf 1 not valid: leaf 0xA stands. */
	l23.sub[0][0] = 0x1;
	cpu_decode_ext(&raw, &l23, &c);
	assert_int_equal(c.pmu.gp_mask, 0xff);
	assert_int_equal(c.pmu.fixed_mask, 0x7);
	assert_string_equal(c.pmu.counters_from, "CPUID.0AH");
	/* Leaf 0x23 beyond the maximum leaf: its slot is not read, whatever it holds. */
	l23.sub[0][0] = 0xb;
	perfmon_raw(&raw, 0x20, v6, true);
	cpu_decode_ext(&raw, &l23, &c);
	assert_int_equal(c.pmu.gp_mask, 0xff);
	assert_null(c.pmu.counters_note);
	/* In range but not read (a dump without it): leaf 0xA's, and said so. */
	perfmon_raw(&raw, 0x23, v6, true);
	cpu_decode(&raw, &c);
	assert_int_equal(c.pmu.gp_mask, 0xff);
	assert_int_equal(c.pmu.fixed_mask, 0x7);
	assert_non_null(c.pmu.counters_note);
}

/* Hybrid dumps hold every CPU; -C picks one, and its own core type decides. */
static void
test_hybrid_cpu_choice(void **state)
{
	struct cpu_info c;
	struct pmustat_error *err = NULL;
	char path[PATH_MAX];
	int used = -1;

	(void)state;
	dump_path("intel-alderlake-hybrid-i9-12900k.txt", path, sizeof(path));
	assert_int_equal(cpu_source_load(NULL, path, 0, &c, &used, &err), 0);
	assert_int_equal(used, 0);
	assert_int_equal(c.core_type, CORE);
	assert_int_equal(c.pmu.gp_counters, 8);
	assert_int_equal(c.pmu.fixed_counters, 4);

	assert_int_equal(cpu_source_load(NULL, path, 16, &c, &used, &err), 0);
	assert_int_equal(c.core_type, ATOM);
	assert_int_equal(c.pmu.gp_counters, 6);

	assert_int_equal(cpu_source_load(NULL, path, -1, &c, &used, &err), 0);
	assert_int_equal(used, 23);

	assert_int_equal(cpu_source_load(NULL, path, 24, &c, &used, &err), -ENXIO);
	assert_non_null(strstr(err_msg(err), "24 CPUs"));

	/* Lakefield lists its E-cores first. */
	dump_path("intel-lakefield-hybrid-i5-l16g7.txt", path, sizeof(path));
	assert_int_equal(cpu_source_load(NULL, path, 0, &c, &used, &err), 0);
	assert_int_equal(c.core_type, ATOM);
	err_clear(&err);
}

static void
test_mapfile_keys(void **state)
{
	struct pmustat_error *err = NULL;
	static const struct {
		const char *file;
		const char *key;
	} keys[] = {
		{ "intel-skylake-sp-xeon-platinum-8180.txt", "GenuineIntel-6-55-4" },
		{ "intel-cascadelake-sp-xeon-gold-5215.txt", "GenuineIntel-6-55-7" },
		{ "intel-coffeelake-client-i7-8700k.txt", "GenuineIntel-6-9E-A" },
		{ "intel-core2-merom-x6800.txt", "GenuineIntel-6-F-6" },
		{ "amd-zen4-ryzen9-7950x.txt", "AuthenticAMD-25-61-2" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		struct cpu_info c;
		err_clear(&err);
		char path[PATH_MAX], key[64];

		dump_path(keys[i].file, path, sizeof(path));
		assert_int_equal(cpu_source_load(NULL, path, -1, &c, NULL, &err), 0);
		cpu_mapfile_key(&c, key, sizeof(key));
		assert_string_equal(key, keys[i].key);
		err_clear(&err);
	}
	err_clear(&err);
}

static char tmpdir[] = "/tmp/pmustat-test-cpu-XXXXXX";

static void
write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Every way a --cpu-dump can be wrong ends in a message naming the file. */
static void
test_bad_dumps(void **state)
{
	struct cpu_info c;
	struct pmustat_error *err = NULL;
	char path[PATH_MAX], link[PATH_MAX], target[PATH_MAX];

	(void)state;
	assert_non_null(mkdtemp(tmpdir));

	snprintf(path, sizeof(path), "%s/missing.txt", tmpdir);
	assert_int_equal(cpu_source_load(NULL, path, -1, &c, NULL, &err), -ENOENT);
	assert_non_null(strstr(err_msg(err), path));

	/* libcpuid "succeeds" on text it does not understand, with all zeros. */
	snprintf(path, sizeof(path), "%s/garbage.txt", tmpdir);
	write_file(path, "this is not a CPUID dump\nCPUID 0000000A: nonsense\n");
	assert_int_equal(cpu_source_load(NULL, path, -1, &c, NULL, &err), -EINVAL);
	assert_non_null(strstr(err_msg(err), path));
	assert_non_null(strstr(err_msg(err), "could not read"));

	snprintf(path, sizeof(path), "%s/empty.txt", tmpdir);
	write_file(path, "");
	assert_int_equal(cpu_source_load(NULL, path, -1, &c, NULL, &err), -EINVAL);

	assert_int_equal(cpu_source_load(NULL, tmpdir, -1, &c, NULL, &err), -EINVAL);
	assert_non_null(strstr(err_msg(err), "not a regular file"));

	dump_path("intel-skylake-client-i7-6700k.txt", target, sizeof(target));
	snprintf(link, sizeof(link), "%s/link.txt", tmpdir);
	assert_int_equal(symlink(target, link), 0);
	assert_int_equal(cpu_source_load(NULL, link, -1, &c, NULL, &err), -ELOOP);
	assert_non_null(strstr(err_msg(err), "symbolic link"));

	/* A single-CPU dump has CPU 0 only. */
	assert_int_equal(cpu_source_load(NULL, target, 1, &c, NULL, &err), -ENXIO);

	unlink(link);
	snprintf(path, sizeof(path), "%s/missing.txt", tmpdir);
	snprintf(path, sizeof(path), "%s/garbage.txt", tmpdir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/empty.txt", tmpdir);
	unlink(path);
	rmdir(tmpdir);
	err_clear(&err);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_dump),
		cmocka_unit_test(test_netburst_dumps),
		cmocka_unit_test(test_netburst_threads),
		cmocka_unit_test(test_counter_enumeration),
		cmocka_unit_test(test_hybrid_cpu_choice),
		cmocka_unit_test(test_mapfile_keys),
		cmocka_unit_test(test_bad_dumps),
	};

	if (argc != 2) {
		fprintf(stderr, "usage: %s DUMP_DIR\n", argv[0]);
		return 2;
	}
	dump_dir = argv[1];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
