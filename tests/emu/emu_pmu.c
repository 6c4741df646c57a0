/*
 * emu_pmu.c - the emulated machines: models, their CPUID, power-up state
 * and kernel files (see emu_pmu.h; the register rules are in emu_regs.c).
 * Sections named are the Intel SDM vol. 3B's, chapter "Performance
 * Monitoring" (20 in current editions, 18 in older ones), and vol. 4,
 * table 2-2 (architectural MSRs).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu_internal.h"
#include "emu_netburst.h"
#include "emu_zen.h"
#include "pmu/msr.h"

#ifndef EMU_CPUID_DIR
#define EMU_CPUID_DIR "tests/data/cpuid"
#endif

/* The NMI watchdog's period: 10 s at 3 GHz, as Linux programs it (-period). */
#define WATCHDOG_PERIOD		30000000000ull

struct type_def {
	const char *name;
	const char *dump;		/* file in the CPUID dump directory */
	unsigned section;		/* its "Logical CPU #N" to use */
	int gp;				/* register file when CPUID is wrong; -1 = CPUID's */
	int fixed;
	uint64_t perf_capabilities;	/* representative values, not measured ones */
	uint8_t offcore[2][2];		/* event, umask using OFFCORE_RSP_0 / _1; 0 = none */
	unsigned topdown;		/* PERF_METRICS fields (with PERF_CAPABILITIES[15]) */
	bool netburst;			/* the ESCR/CCCR PMU (emu_netburst.c) */
	unsigned zen;			/* AMD's core PMU of Zen 2, 4 or 5 (emu_zen.c); 0: none */
};

struct model_def {
	const char *name;
	unsigned ntypes;
	struct type_def types[EMU_MAX_TYPES];
	bool hybrid;
};

/* Offcore events as the perfmon tables give them ("EventCode", "MSRIndex"). */
#define OFFCORE_B7_BB	{ { 0xb7, 0x01 }, { 0xbb, 0x01 } }	/* Nehalem .. Ice Lake */
#define OFFCORE_2A_2B	{ { 0x2a, 0x01 }, { 0x2b, 0x01 } }	/* Golden Cove, Lion Cove */
#define OFFCORE_B7_B7	{ { 0xb7, 0x01 }, { 0xb7, 0x02 } }	/* Gracemont, Skymont */

/*
 * PERF_CAPABILITIES: LBR format [5:0], PEBS trap [6], PEBS arch regs [7],
 * PEBS record format [11:8], SMM freeze [12], full-width write [13], PEBS
 * baseline [14], PERF_METRICS [15]. What matters here: [12] (DEBUGCTL[14]),
 * [13], [14] (PEBS on every counter) and [15].
 */
static const struct model_def models[EMU_MODEL_COUNT] = {
	[EMU_MODEL_SKYLAKE] = { "skylake", 1, {
		{ .name = "skylake", .dump = "intel-skylake-client-i7-6700k.txt", .gp = -1,
		  .fixed = -1, .perf_capabilities = 0x33c5, .offcore = OFFCORE_B7_BB },
	}, false },
	[EMU_MODEL_ICELAKE] = { "icelake", 1, {
		{ .name = "icelake", .dump = "intel-icelake-client-i7-1065g7.txt", .gp = -1,
		  .fixed = -1, .perf_capabilities = 0xf4c5, .offcore = OFFCORE_B7_BB,
		  .topdown = 4 },
	}, false },
	[EMU_MODEL_HASWELL] = { "haswell", 1, {
		{ .name = "haswell", .dump = "intel-haswell-client-i7-4770.txt", .gp = -1,
		  .fixed = -1, .perf_capabilities = 0x12c4, .offcore = OFFCORE_B7_BB },
	}, false },
	[EMU_MODEL_CORE2] = { "core2", 1, {
		{ .name = "core2", .dump = "intel-core2-penryn-x9650.txt", .gp = -1, .fixed = -1,
		  .perf_capabilities = 0x00c1 },
	}, false },
	[EMU_MODEL_ALDERLAKE] = { "alderlake", 2, {
		/* Golden Cove: CPUID.0AH shows the common subset 6/3, the core has 8/4. */
		{ .name = "alderlake-pcore", .dump = "intel-alderlake-hybrid-i9-12900k-pcore.txt",
		  .gp = 8, .fixed = 4, .perf_capabilities = 0xf4c5, .offcore = OFFCORE_2A_2B,
		  .topdown = 8 },
		{ .name = "alderlake-ecore", .dump = "intel-alderlake-hybrid-i9-12900k-ecore.txt",
		  .gp = -1, .fixed = -1, .perf_capabilities = 0x74c4, .offcore = OFFCORE_B7_B7 },
	}, true },
	[EMU_MODEL_ARROWLAKE] = { "arrowlake", 2, {
		/* Leaf 0x23 has each type's counters: CPU #0 Lion Cove, CPU #2 Skymont. */
		{ .name = "arrowlake-pcore", .dump = "intel-arrowlake-hybrid-ultra5-245k.txt",
		  .section = 0, .gp = -1, .fixed = -1, .perf_capabilities = 0xf4c5,
		  .offcore = OFFCORE_2A_2B, .topdown = 8 },
		{ .name = "arrowlake-ecore", .dump = "intel-arrowlake-hybrid-ultra5-245k.txt",
		  .section = 2, .gp = -1, .fixed = -1, .perf_capabilities = 0x74c4,
		  .offcore = OFFCORE_B7_B7 },
	}, true },
	[EMU_MODEL_NOPMU] = { "nopmu", 1, {
		{ .name = "nopmu", .dump = "vm-qemu-virtual-cpu64-rhel6.txt", .gp = 0, .fixed = 0 },
	}, false },
	[EMU_MODEL_NETBURST] = { "netburst", 1, {
		{ .name = "netburst", .dump = "intel-netburst-northwood-pentium4-2.66ghz.txt",
		  .netburst = true },
	}, false },
	[EMU_MODEL_NETBURST_HT] = { "netburst-ht", 1, {
		{ .name = "netburst-ht", .dump = "intel-netburst-prescott-pentium4-640.txt",
		  .netburst = true },
	}, false },
	[EMU_MODEL_SKYLAKEX] = { "skylakex", 1, {
		{ .name = "skylakex", .dump = "intel-skylake-sp-xeon-platinum-8180.txt", .gp = -1,
		  .fixed = -1, .perf_capabilities = 0x33c5, .offcore = OFFCORE_B7_BB },
	}, false },
	[EMU_MODEL_ZEN2] = { "zen2", 1, {
		{ .name = "zen2", .dump = "amd-zen4-ryzen9-7950x.txt", .zen = 2 },
	}, false },
	[EMU_MODEL_ZEN4] = { "zen4", 1, {
		{ .name = "zen4", .dump = "amd-zen4-ryzen9-7950x.txt", .zen = 4 },
	}, false },
	[EMU_MODEL_ZEN5] = { "zen5", 1, {
		{ .name = "zen5", .dump = "amd-zen4-ryzen9-7950x.txt", .zen = 5 },
	}, false },
};

static const char *const access_names[] = {
	[EMU_MSR_OK] = "ok",
	[EMU_MSR_ABSENT] = "absent",
	[EMU_MSR_EACCES] = "eacces",
	[EMU_MSR_READONLY] = "readonly",
};

void
emu_config_default(struct emu_config *cfg, enum emu_model model)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->model = model;
	cfg->gp = -1;
	cfg->fixed = -1;
	cfg->msr = EMU_MSR_OK;
}

const char *
emu_model_name(enum emu_model model)
{
	if ((unsigned)model >= EMU_MODEL_COUNT)
		return "?";
	return models[model].name;
}

int
emu_model_from_name(const char *name)
{
	for (int i = 0; i < EMU_MODEL_COUNT; i++)
		if (strcmp(models[i].name, name) == 0)
			return i;
	return -1;
}

const char *
emu_msr_access_name(enum emu_msr_access access)
{
	if ((unsigned)access >= sizeof(access_names) / sizeof(access_names[0]))
		return "?";
	return access_names[access];
}

int
emu_msr_access_from_name(const char *name)
{
	for (unsigned i = 0; i < sizeof(access_names) / sizeof(access_names[0]); i++)
		if (strcmp(access_names[i], name) == 0)
			return (int)i;
	return -1;
}

/*
 * Leaves 0x20-0x23 of dump section @section, which libcpuid 0.6.2 does not
 * keep: lines "CPUID 000000LL: EAX-EBX-ECX-EDX [SL nn]" (no tag: subleaf 0).
 */
static void
load_hi_leaves(FILE *f, unsigned section, uint32_t hi[EMU_HI_LEAVES][EMU_HI_SUBLEAVES][4])
{
	char line[256];
	int current = -1;

	memset(hi, 0, sizeof(uint32_t) * EMU_HI_LEAVES * EMU_HI_SUBLEAVES * 4);
	while (fgets(line, sizeof(line), f)) {
		unsigned leaf, sub = 0, cpu;
		uint32_t r[4];
		const char *tag;

		if (sscanf(line, "------[ CPUID Registers / Logical CPU #%u", &cpu) == 1) {
			current = (int)cpu;
			continue;
		}
		if (current > (int)section)
			break;
		if (current >= 0 && current != (int)section)
			continue;
		if (sscanf(line, "CPUID %x: %x-%x-%x-%x", &leaf, &r[0], &r[1], &r[2], &r[3]) != 5)
			continue;
		if (leaf < EMU_HI_LEAF0 || leaf >= EMU_HI_LEAF0 + EMU_HI_LEAVES)
			continue;
		tag = strstr(line, "[SL ");
		if (tag && sscanf(tag, "[SL %x]", &sub) != 1)
			continue;
		if (sub < EMU_HI_SUBLEAVES)
			memcpy(hi[leaf - EMU_HI_LEAF0][sub], r, sizeof(r));
	}
}

static int
load_dump(const char *dir, const struct type_def *def, struct emu_core_type *t)
{
#ifdef EMU_PMU_NO_DUMPS
	/* libpmuemu.so only maps state files that pmu-emu built. */
	(void)dir;
	(void)def;
	(void)t;
	(void)load_hi_leaves;
	return -ENOTSUP;
#else
	struct cpu_raw_data_array_t all;
	char path[4096];
	int err = 0;
	FILE *f;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, def->dump) >= sizeof(path))
		return -ENAMETOOLONG;
	/* libcpuid says 0 even for a file it cannot open: look first. */
	f = fopen(path, "r");
	if (!f)
		return -errno;
	memset(&all, 0, sizeof(all));
	if (cpuid_deserialize_all_raw_data(&all, path) != 0 || def->section >= all.num_raw) {
		err = -EIO;
	} else {
		t->cpuid = all.raw[def->section];
		if (t->cpuid.basic_cpuid[0][0] == 0 && t->cpuid.basic_cpuid[0][1] == 0)
			err = -EIO;
		else
			load_hi_leaves(f, def->section, t->hi_leaf);
	}
	cpuid_free_raw_data_array(&all);
	fclose(f);
	return err;
#endif
}

static unsigned
slots(uint32_t mask)
{
	return mask ? 32u - (unsigned)__builtin_clz(mask) : 0;
}

/*
 * Which counters exist: CPUID leaf 0xA ("Architectural Performance
 * Monitoring": EAX[15:8] GP counters; fixed counter i if ECX[i] (v5+) or
 * EDX[4:0] > i), superseded by leaf 0x23 subleaf 1 (GP and fixed bitmaps)
 * when leaf 0x23.0:EAX[1] says it is valid, as Linux's update_pmu_cap()
 * reads it. --gp/--fixed rewrite all of them; a model's override wins
 * where CPUID is known to be wrong (the ADL P-core).
 */
static void
setup_counters(struct emu_core_type *t, const struct type_def *def, const struct emu_config *cfg)
{
	uint32_t *leaf_a = t->cpuid.basic_cpuid[0xa];
	uint32_t *l23_1 = t->hi_leaf[0x23 - EMU_HI_LEAF0][1];
	bool leaf23 = t->cpuid.basic_cpuid[0][0] >= 0x23 &&
		(t->hi_leaf[0x23 - EMU_HI_LEAF0][0][0] & 2);

	if (cfg->gp >= 0) {
		/* EAX[31:24] and EBX describe events, not counters: unchanged. */
		leaf_a[0] = (leaf_a[0] & ~0xff00u) | ((uint32_t)cfg->gp << 8);
		if (leaf23)
			l23_1[0] = (uint32_t)emu_low_bits((unsigned)cfg->gp);
	}
	if (t->version >= 2 && cfg->fixed >= 0) {
		leaf_a[3] = (leaf_a[3] & ~0x1fu) | (uint32_t)cfg->fixed;
		if (t->version >= 5)
			leaf_a[2] = (uint32_t)emu_low_bits((unsigned)cfg->fixed);
		if (leaf23)
			l23_1[1] = (uint32_t)emu_low_bits((unsigned)cfg->fixed);
	}
	t->gp_mask = (uint32_t)emu_low_bits((leaf_a[0] >> 8) & 0xff);
	t->fixed_mask = 0;
	if (t->version >= 2)
		t->fixed_mask = (uint32_t)emu_low_bits(leaf_a[3] & 0x1f) |
			(t->version >= 5 ? leaf_a[2] : 0);
	if (leaf23) {
		t->gp_mask = l23_1[0];
		t->fixed_mask = l23_1[1];
	}
	if (def->gp >= 0 && cfg->gp < 0)
		t->gp_mask = (uint32_t)emu_low_bits((unsigned)def->gp);
	if (def->fixed >= 0 && cfg->fixed < 0)
		t->fixed_mask = (uint32_t)emu_low_bits((unsigned)def->fixed);
	t->gp_mask &= (uint32_t)emu_low_bits(EMU_MAX_GP);
	t->fixed_mask &= (uint32_t)emu_low_bits(EMU_MAX_FIXED);
	t->gp = slots(t->gp_mask);
	t->fixed = slots(t->fixed_mask);
	t->gp_width = (leaf_a[0] >> 16) & 0xff;
	t->fixed_width = t->version >= 2 ? (leaf_a[3] >> 5) & 0xff : 0;
	/*
	 * Core 2 (v2) reports a fixed width of 0 on some parts; the counters
	 * are as wide as the GP ones there.
	 */
	if (t->fixed && t->fixed_width == 0)
		t->fixed_width = t->gp_width;
}

/*
 * Threads per core as the type's CPUID says, the SDM's way ("Identifying
 * Topological Relationships in a Multi-Processor System", vol. 3A): leaf
 * 0BH's SMT level (ECX[15:8] = 1), EBX[15:0]; before that leaf, leaf 1's
 * logical processors per package (EBX[23:16], when EDX.HTT says it is
 * valid) over leaf 4's cores per package (EAX[31:26] + 1).
 */
static unsigned
threads_per_core(const struct cpu_raw_data_t *raw)
{
	uint32_t max_leaf = raw->basic_cpuid[0][0];
	unsigned logical, cores = 1;
	unsigned smt_threads = raw->intel_fn11[0][1] & 0xffff;

	if (max_leaf >= 0xb && ((raw->intel_fn11[0][2] >> 8) & 0xff) == 1 && smt_threads)
		return smt_threads;
	if (!((raw->basic_cpuid[1][3] >> 28) & 1))
		return 1;
	logical = (raw->basic_cpuid[1][1] >> 16) & 0xff;
	if (max_leaf >= 4)
		cores = (raw->intel_fn4[0][0] >> 26) + 1;
	return logical > cores ? logical / cores : 1;
}

static int
setup_type(struct emu_core_type *t, const struct type_def *def, const struct emu_config *cfg)
{
	unsigned max_leaf = t->cpuid.basic_cpuid[0][0];

	snprintf(t->name, sizeof(t->name), "%s", def->name);
	t->pdcm = (t->cpuid.basic_cpuid[1][2] >> 15) & 1;
	t->threads = threads_per_core(&t->cpuid);
	if (def->netburst)
		return emu_nb_setup_type(t, cfg);
	if (def->zen)
		return emu_zen_setup_type(t, def->zen, cfg);
	if (max_leaf < 0xa || (t->cpuid.basic_cpuid[0xa][0] & 0xff) == 0) {
		/* No architectural PMU: every PMU MSR raises #GP. */
		t->version = 0;
		t->pdcm = false;
		return 0;
	}
	if (cfg->gp > EMU_MAX_GP || cfg->fixed > EMU_MAX_FIXED)
		return -EINVAL;
	t->version = t->cpuid.basic_cpuid[0xa][0] & 0xff;
	setup_counters(t, def, cfg);
	t->perf_capabilities = t->pdcm ? def->perf_capabilities : 0;
	t->full_width_write = t->perf_capabilities & PERF_CAP_FW_WRITE;
	t->offcore = def->offcore[0][0] != 0;
	memcpy(t->offcore_event, def->offcore, sizeof(t->offcore_event));
	t->topdown = (t->perf_capabilities & EMU_PERF_CAP_PERF_METRICS) &&
		(t->fixed_mask & 8) ? def->topdown : 0;
	emu_setup_valid_bits(t);
	t->misc_enable = EMU_MISC_ENABLE_VALUE;
	if (cfg->pebs_off) {
		t->misc_enable |= EMU_MISC_BTS_UNAVAIL | EMU_MISC_PEBS_UNAVAIL;
		t->pebs = false;
		t->pebs_counters = t->pebs_valid = 0;
	}
	return 0;
}

/*
 * Power-up, reset or INIT (vol. 3A, table "IA-32 and Intel 64 Processor
 * States Following Power-up, Reset, or INIT"): "IA32_PERF_GLOBAL_CTRL:
 * Sets bits n-1:0 and clears the upper bits", n the number of GP
 * counters, so that v1 code that only knows PERFEVTSELx.EN keeps working;
 * the fixed counters' bits are among the upper ones. Everything else 0.
 */
static void
power_up(const struct emu_core_type *t, struct emu_regs *regs, bool watchdog)
{
	memset(regs, 0, sizeof(*regs));
	if (t->version < 2)
		return;
	regs->global_ctrl = t->gp_mask;
	if (watchdog && (t->fixed_mask & 2)) {
		uint64_t mask = emu_low_bits(t->fixed_width);

		/* Linux's perf NMI watchdog: cycles on FC1, OS|USR|PMI, all enabled. */
		regs->fixed_ctr_ctrl = 0xbull << 4;
		regs->global_ctrl = t->global_ctrl_valid;
		regs->fixed_ctr[1] = (mask + 1 - WATCHDOG_PERIOD) & mask;
	}
}

/* A sysfs CPU list of @first..@last, as the kernel prints it ("0\n", "0-7\n"). */
static void
cpu_range(char *buf, size_t size, unsigned first, unsigned last)
{
	if (first == last)
		snprintf(buf, size, "%u\n", first);
	else
		snprintf(buf, size, "%u-%u\n", first, last);
}

/*
 * The machine's shape in sysfs: one package of all its CPUs, every one
 * online; a core's threads are adjacent CPU numbers (2k and 2k+1 with two
 * threads, as the NetBurst HT model pairs them), as many as the core
 * type's CPUID says, and on a hybrid only among the P-cores [0, pcores).
 * smt/active is "1" when cpu0's core has more than one thread online.
 */
static void
set_topology_files(struct emu_pmu *pmu)
{
	unsigned threads = pmu->types[pmu->cpu[0].type].threads, core = 1;
	char text[EMU_FILE_MAX];

	while (core < threads && core < pmu->ncpus && pmu->cpu[core].type == pmu->cpu[0].type)
		core++;
	emu_set_file(pmu, HW_FILE_SMT_ACTIVE, core > 1 ? "1\n" : "0\n");
	cpu_range(text, sizeof(text), 0, pmu->ncpus - 1);
	emu_set_file(pmu, HW_FILE_CPUS_ONLINE, text);
	emu_set_file(pmu, HW_FILE_CPU0_PACKAGE_CPUS, text);
	cpu_range(text, sizeof(text), 0, core - 1);
	if (pmu->config.nb_ht_split)
		snprintf(text, sizeof(text), "0,%u\n", pmu->ncpus / 2);
	emu_set_file(pmu, HW_FILE_CPU0_CORE_CPUS, text);
}

static void
set_default_files(struct emu_pmu *pmu)
{
	const struct emu_config *cfg = &pmu->config;
	bool has_pmu = pmu->types[0].version > 0 || pmu->types[0].netburst || pmu->types[0].zen;

	/*
	 * rdpmc: "2" lets any process use rdpmc; "1" (the Linux default) only
	 * processes with a perf mmap, so pmustat cannot. A hybrid machine has
	 * cpu_core/ and cpu_atom/ instead of cpu/, and a machine without PMU
	 * has neither.
	 */
	if (has_pmu && !models[cfg->model].hybrid)
		emu_set_file(pmu, HW_FILE_RDPMC, cfg->rdpmc_off ? "1\n" : "2\n");
	else
		emu_set_file(pmu, HW_FILE_RDPMC, NULL);
	if (has_pmu && models[cfg->model].hybrid) {
		emu_set_file(pmu, HW_FILE_RDPMC_CPU_CORE, cfg->rdpmc_off ? "1\n" : "2\n");
		emu_set_file(pmu, HW_FILE_RDPMC_CPU_ATOM, cfg->rdpmc_off ? "1\n" : "2\n");
	} else {
		emu_set_file(pmu, HW_FILE_RDPMC_CPU_CORE, NULL);
		emu_set_file(pmu, HW_FILE_RDPMC_CPU_ATOM, NULL);
	}
	emu_set_file(pmu, HW_FILE_NMI_WATCHDOG, cfg->watchdog || cfg->buddy_watchdog ? "1\n" : "0\n");
	emu_set_file(pmu, HW_FILE_LOCKDOWN, cfg->msr == EMU_MSR_READONLY ?
		     "none [integrity] confidentiality\n" :
		     "[none] integrity confidentiality\n");
	/* /sys/module/msr exists only while the driver is loaded. */
	emu_set_file(pmu, HW_FILE_MSR_ALLOW_WRITES,
		     cfg->msr == EMU_MSR_ABSENT ? NULL : "on\n");
	emu_set_file(pmu, HW_FILE_PERF_EVENT_PARANOID, "2\n");
	set_topology_files(pmu);
}

int
emu_pmu_init(struct emu_pmu *pmu, const struct emu_config *cfg, const char *cpuid_dir)
{
	const struct model_def *model;
	unsigned pcores;
	int err;

	if ((unsigned)cfg->model >= EMU_MODEL_COUNT || cfg->ncpus > EMU_MAX_CPUS ||
	    (cfg->nb_ht_split && (cfg->ncpus < 2 || cfg->ncpus % 2)) ||
	    (unsigned)cfg->msr > EMU_MSR_READONLY || cfg->gp > EMU_MAX_GP ||
	    cfg->fixed > EMU_MAX_FIXED || cfg->gp < -1 || cfg->fixed < -1)
		return -EINVAL;
	if (!cpuid_dir)
		cpuid_dir = EMU_CPUID_DIR;
	model = &models[cfg->model];

	memset(pmu, 0, sizeof(*pmu));
	pmu->magic = EMU_PMU_MAGIC;
	pmu->abi = EMU_PMU_ABI;
	pmu->size = sizeof(*pmu);
	pmu->config = *cfg;
	pmu->ncpus = cfg->ncpus ? cfg->ncpus : 1;
	pmu->ntypes = model->ntypes;
	for (unsigned i = 0; i < model->ntypes; i++) {
		err = load_dump(cpuid_dir, &model->types[i], &pmu->types[i]);
		if (err)
			return err;
		err = setup_type(&pmu->types[i], &model->types[i], cfg);
		if (err)
			return err;
	}

	pcores = cfg->pcores ? cfg->pcores : (pmu->ncpus + 1) / 2;
	for (unsigned c = 0; c < pmu->ncpus; c++) {
		struct emu_cpu *cpu = &pmu->cpu[c];

		cpu->type = model->hybrid && c >= pcores ? 1 : 0;
		if (pmu->types[cpu->type].netburst)
			emu_nb_power_up(pmu, c);
		else if (pmu->types[cpu->type].zen)
			emu_zen_power_up(pmu, c);
		else
			power_up(&pmu->types[cpu->type], &cpu->regs, cfg->watchdog);
	}
	if (cfg->nb_ht_split && !pmu->types[0].nb_ht)
		return -EINVAL;
	set_default_files(pmu);
	return 0;
}

struct emu_pmu *
emu_pmu_new(const struct emu_config *cfg)
{
	struct emu_pmu *pmu = calloc(1, sizeof(*pmu));
	int err;

	if (!pmu)
		return NULL;
	err = emu_pmu_init(pmu, cfg, NULL);
	if (err) {
		free(pmu);
		errno = -err;
		return NULL;
	}
	return pmu;
}

void
emu_pmu_free(struct emu_pmu *pmu)
{
	free(pmu);
}

bool
emu_pmu_valid(const struct emu_pmu *pmu)
{
	if (pmu->magic != EMU_PMU_MAGIC || pmu->abi != EMU_PMU_ABI ||
	    pmu->size != sizeof(*pmu))
		return false;
	if (pmu->ncpus == 0 || pmu->ncpus > EMU_MAX_CPUS || pmu->ntypes == 0 ||
	    pmu->ntypes > EMU_MAX_TYPES)
		return false;
	for (unsigned c = 0; c < pmu->ncpus; c++)
		if (pmu->cpu[c].type >= pmu->ntypes)
			return false;
	for (unsigned i = 0; i < pmu->ntypes; i++)
		if (pmu->types[i].gp > EMU_MAX_GP || pmu->types[i].fixed > EMU_MAX_FIXED)
			return false;
	return true;
}

const struct emu_core_type *
emu_cpu_type(const struct emu_pmu *pmu, unsigned cpu)
{
	if (cpu >= pmu->ncpus)
		return NULL;
	return &pmu->types[pmu->cpu[cpu].type];
}

/*
 * CPUID.1:EBX as @cpu answers it. NetBurst: each logical CPU its own
 * initial APIC ID in bits 31:24 (with HT, bit 0 is the thread); the other
 * models answer their dump's.
 */
static uint32_t
leaf1_ebx(const struct emu_pmu *pmu, const struct emu_core_type *t, unsigned cpu)
{
	uint32_t ebx = t->cpuid.basic_cpuid[1][1];

	return t->netburst ? (ebx & 0x00ffffffu) | (emu_nb_apic_id(pmu, cpu) & 0xffu) << 24 : ebx;
}

int
emu_cpuid(const struct emu_pmu *pmu, unsigned cpu, uint32_t leaf, uint32_t subleaf,
	  uint32_t regs[4])
{
	const struct emu_core_type *t = emu_cpu_type(pmu, cpu);
	const struct cpu_raw_data_t *raw;
	const uint32_t *src = NULL;
	static const uint32_t zero[4];

	if (!t)
		return -ENXIO;
	raw = &t->cpuid;
	if (leaf < MAX_CPUID_LEVEL) {
		switch (leaf) {
		case 4:
			src = subleaf < MAX_INTELFN4_LEVEL ? raw->intel_fn4[subleaf] : zero;
			break;
		case 0xb:
			src = subleaf < MAX_INTELFN11_LEVEL ? raw->intel_fn11[subleaf] : zero;
			break;
		case 0x12:
			src = subleaf < MAX_INTELFN12H_LEVEL ? raw->intel_fn12h[subleaf] : zero;
			break;
		case 0x14:
			src = subleaf < MAX_INTELFN14H_LEVEL ? raw->intel_fn14h[subleaf] : zero;
			break;
		case 0x7:
		case 0xd:
		case 0xf:
		case 0x10:
		case 0x18:
			/* Subleaf 0 is stored, the others are not. */
			src = subleaf == 0 ? raw->basic_cpuid[leaf] : zero;
			break;
		default:
			src = raw->basic_cpuid[leaf];
			break;
		}
	} else if (leaf >= EMU_HI_LEAF0 && leaf < EMU_HI_LEAF0 + EMU_HI_LEAVES) {
		src = subleaf < EMU_HI_SUBLEAVES ? t->hi_leaf[leaf - EMU_HI_LEAF0][subleaf] : zero;
	} else if (leaf == 0x80000022u && t->zen) {
		src = subleaf == 0 && raw->ext_cpuid[0][0] >= leaf ? t->ext22 : zero;
	} else if (leaf >= 0x80000000u && leaf < 0x80000000u + MAX_EXT_CPUID_LEVEL) {
		if (leaf == 0x8000001du)
			src = subleaf < MAX_AMDFN8000001DH_LEVEL ?
				raw->amd_fn8000001dh[subleaf] : zero;
		else
			src = raw->ext_cpuid[leaf - 0x80000000u];
	} else {
		return -ENOENT;
	}
	memcpy(regs, src, 4 * sizeof(uint32_t));
	if (leaf == 1)
		regs[1] = leaf1_ebx(pmu, t, cpu);
	return 0;
}

int
emu_cpuid_raw(const struct emu_pmu *pmu, unsigned cpu, struct cpu_raw_data_t *raw)
{
	const struct emu_core_type *t = emu_cpu_type(pmu, cpu);

	if (!t)
		return -ENXIO;
	*raw = t->cpuid;
	raw->basic_cpuid[1][1] = leaf1_ebx(pmu, t, cpu);
	return 0;
}

const char *
emu_file(const struct emu_pmu *pmu, enum hw_file file)
{
	if ((unsigned)file >= HW_FILE_COUNT || !pmu->file_present[file])
		return NULL;
	return pmu->file_text[file];
}

void
emu_set_file(struct emu_pmu *pmu, enum hw_file file, const char *text)
{
	if ((unsigned)file >= HW_FILE_COUNT)
		return;
	pmu->file_present[file] = text != NULL;
	snprintf(pmu->file_text[file], EMU_FILE_MAX, "%s", text ? text : "");
}

bool
emu_msr_writes_blocked(const struct emu_pmu *pmu)
{
	const char *allow = emu_file(pmu, HW_FILE_MSR_ALLOW_WRITES);

	return pmu->config.msr == EMU_MSR_READONLY || (allow && strncmp(allow, "off", 3) == 0);
}
