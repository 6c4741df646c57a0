/*
 * emu_pmu.c - the emulated PMU's rules (see emu_pmu.h). Section numbers
 * refer to the Intel SDM vol. 3B, chapter 20 (18 in older editions),
 * "Performance Monitoring", and vol. 4, table 2-2 (architectural MSRs).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "emu_netburst.h"
#include "emu_pmu.h"
#include "msr.h"

#ifndef EMU_CPUID_DIR
#define EMU_CPUID_DIR "tests/data/cpuid"
#endif

/* GLOBAL_STATUS bits beyond the counters' overflow bits (table 2-2). */
#define STATUS_PERF_METRICS	(1ull << 48)	/* Ice Lake+: PERF_METRICS overflow */
#define STATUS_TOPA_PMI		(1ull << 55)	/* v4 */
#define STATUS_LBR_FRZ		(1ull << 58)	/* v4 */
#define STATUS_CTR_FRZ		(1ull << 59)	/* v4 */
#define STATUS_ASCI		(1ull << 60)	/* v4 */
#define STATUS_OVF_UNCORE	(1ull << 61)	/* v3 */
#define STATUS_OVF_BUF		(1ull << 62)	/* PEBS buffer */
#define STATUS_COND_CHGD	(1ull << 63)
/* GLOBAL_CTRL[48]: EN_PERF_METRICS, with PERF_CAPABILITIES[15]. */
#define GLOBAL_CTRL_PERF_METRICS (1ull << 48)
#define PERF_CAP_PERF_METRICS	(1ull << 15)
/* IA32_PERFEVTSELx[33:32]: IN_TX / IN_TXCP on processors with TSX. */
#define EVTSEL_TSX_BITS		(3ull << 32)
/* GLOBAL_INUSE[63]: some counter may raise a PMI. */
#define INUSE_PMI		(1ull << 63)

/* The NMI watchdog's period: 10 s at 3 GHz, as Linux programs it (-period). */
#define WATCHDOG_PERIOD		30000000000ull

struct type_def {
	const char *name;
	const char *dump;		/* file in the CPUID dump directory */
	int gp;				/* register file when CPUID is wrong; -1 = CPUID's */
	int fixed;
	uint64_t perf_capabilities;	/* representative values, not measured ones */
	bool offcore;
	bool tsx;
	bool netburst;			/* the ESCR/CCCR PMU (emu_netburst.c) */
};

struct model_def {
	const char *name;
	unsigned ntypes;
	struct type_def types[EMU_MAX_TYPES];
	bool hybrid;
};

/*
 * PERF_CAPABILITIES: LBR format [5:0], PEBS trap [6], PEBS arch regs [7],
 * PEBS record format [11:8], SMM freeze [12], full-width write [13], PEBS
 * baseline [14], PERF_METRICS [15]. Only [13] and [15] matter to pmustat.
 */
static const struct model_def models[EMU_MODEL_COUNT] = {
	[EMU_MODEL_SKYLAKE] = { "skylake", 1, {
		{ "skylake", "intel-skylake-client-i7-6700k.txt", -1, -1, 0x33c5, true, true },
	}, false },
	[EMU_MODEL_ICELAKE] = { "icelake", 1, {
		{ "icelake", "intel-icelake-client-i7-1065g7.txt", -1, -1, 0xf4c5, true, true },
	}, false },
	[EMU_MODEL_HASWELL] = { "haswell", 1, {
		{ "haswell", "intel-haswell-client-i7-4770.txt", -1, -1, 0x12c4, true, true },
	}, false },
	[EMU_MODEL_CORE2] = { "core2", 1, {
		{ "core2", "intel-core2-penryn-x9650.txt", -1, -1, 0x00c1, false, false },
	}, false },
	[EMU_MODEL_ALDERLAKE] = { "alderlake", 2, {
		/* Golden Cove: CPUID.0AH shows the common subset 6/3, the core has 8/4. */
		{ "alderlake-pcore", "intel-alderlake-hybrid-i9-12900k-pcore.txt", 8, 4, 0xf4c5, true, false },
		{ "alderlake-ecore", "intel-alderlake-hybrid-i9-12900k-ecore.txt", -1, -1, 0x34c4, true, false },
	}, true },
	[EMU_MODEL_NOPMU] = { "nopmu", 1, {
		{ "nopmu", "vm-qemu-virtual-cpu64-rhel6.txt", 0, 0, 0, false, false },
	}, false },
	[EMU_MODEL_NETBURST] = { "netburst", 1, {
		{ "netburst", "intel-netburst-northwood-pentium4-2.66ghz.txt", 0, 0, 0, false, false, true },
	}, false },
	[EMU_MODEL_NETBURST_HT] = { "netburst-ht", 1, {
		{ "netburst-ht", "intel-netburst-prescott-pentium4-640.txt", 0, 0, 0, false, false, true },
	}, false },
};

/*
 * IA32_MISC_ENABLE of the NetBurst models: fast strings (0), automatic
 * thermal control (3), performance monitoring available (7); BTS and PEBS
 * available (11, 12 clear). Representative, not read from the parts.
 */
#define NB_MISC_ENABLE		0x89ull
#define NB_MISC_PERFMON		(1ull << 7)

static const char *const access_names[] = {
	[EMU_MSR_OK] = "ok",
	[EMU_MSR_ABSENT] = "absent",
	[EMU_MSR_EACCES] = "eacces",
	[EMU_MSR_READONLY] = "readonly",
};

static uint64_t
width_mask(unsigned width)
{
	return width >= 64 ? ~0ull : (1ull << width) - 1;
}

static uint64_t
low_bits(unsigned n)
{
	return n >= 64 ? ~0ull : (1ull << n) - 1;
}

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

static int
load_dump(const char *dir, const char *file, struct cpu_raw_data_t *raw)
{
#ifdef EMU_PMU_NO_DUMPS
	/* libpmuemu.so only maps state files that pmu-emu built. */
	(void)dir;
	(void)file;
	(void)raw;
	return -ENOTSUP;
#else
	char path[4096];
	FILE *f;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, file) >= sizeof(path))
		return -ENAMETOOLONG;
	/* libcpuid says 0 even for a file it cannot open: look first. */
	f = fopen(path, "r");
	if (!f)
		return -errno;
	fclose(f);
	memset(raw, 0, sizeof(*raw));
	if (cpuid_deserialize_raw_data(raw, path) != 0)
		return -EIO;
	if (raw->basic_cpuid[0][0] == 0 && raw->basic_cpuid[0][1] == 0)
		return -EIO;
	return 0;
#endif
}

/*
 * Decode leaf 0xA as the SDM defines it (section "Architectural
 * Performance Monitoring") and derive which bits of each MSR are valid.
 */
static int
setup_type(struct emu_core_type *t, const struct type_def *def, const struct emu_config *cfg)
{
	uint32_t *leaf_a = t->cpuid.basic_cpuid[0xa];
	unsigned max_leaf = t->cpuid.basic_cpuid[0][0];
	bool anythread;

	snprintf(t->name, sizeof(t->name), "%s", def->name);
	t->pdcm = (t->cpuid.basic_cpuid[1][2] >> 15) & 1;
	if (def->netburst) {
		uint32_t eax = t->cpuid.basic_cpuid[1][0], ebx = t->cpuid.basic_cpuid[1][1];

		/* No leaf 0xA: version 0, no architectural register, the ESCR/CCCR PMU. */
		if (cfg->gp >= 0 || cfg->fixed >= 0 || cfg->watchdog)
			return -EINVAL;
		t->netburst = true;
		t->pdcm = false;
		t->nb_model = (eax >> 4) & 0xf;
		/* HTT and two logical processors in a one-core package. */
		t->nb_ht = ((t->cpuid.basic_cpuid[1][3] >> 28) & 1) && ((ebx >> 16) & 0xff) == 2;
		t->misc_enable = cfg->nb_perfmon_off ? NB_MISC_ENABLE & ~NB_MISC_PERFMON : NB_MISC_ENABLE;
		return 0;
	}
	if (max_leaf < 0xa || (leaf_a[0] & 0xff) == 0) {
		/* No architectural PMU: every PMU MSR raises #GP. */
		t->version = 0;
		t->pdcm = false;
		return 0;
	}
	if (cfg->gp > EMU_MAX_GP || cfg->fixed > EMU_MAX_FIXED)
		return -EINVAL;
	if (cfg->gp >= 0) {
		leaf_a[0] = (leaf_a[0] & ~0xff00u) | ((uint32_t)cfg->gp << 8);
		/* EAX[31:24] and EBX describe events, not counters: unchanged. */
	}
	t->version = leaf_a[0] & 0xff;
	if (t->version >= 2 && cfg->fixed >= 0) {
		leaf_a[3] = (leaf_a[3] & ~0x1fu) | (uint32_t)cfg->fixed;
		if (t->version >= 5)
			leaf_a[2] = (uint32_t)low_bits((unsigned)cfg->fixed);
	}
	t->gp = (leaf_a[0] >> 8) & 0xff;
	t->gp_width = (leaf_a[0] >> 16) & 0xff;
	t->fixed = t->version >= 2 ? leaf_a[3] & 0x1f : 0;
	t->fixed_width = t->version >= 2 ? (leaf_a[3] >> 5) & 0xff : 0;
	if (def->gp >= 0 && cfg->gp < 0)
		t->gp = (unsigned)def->gp;
	if (def->fixed >= 0 && cfg->fixed < 0)
		t->fixed = (unsigned)def->fixed;
	if (t->gp > EMU_MAX_GP)
		t->gp = EMU_MAX_GP;
	if (t->fixed > EMU_MAX_FIXED)
		t->fixed = EMU_MAX_FIXED;
	/*
	 * Core 2 (v2) reports a fixed width of 0 on some parts; the counters
	 * are as wide as the GP ones there.
	 */
	if (t->fixed && t->fixed_width == 0)
		t->fixed_width = t->gp_width;
	t->fixed_mask = (uint32_t)low_bits(t->fixed);

	t->perf_capabilities = t->pdcm ? def->perf_capabilities : 0;
	t->full_width_write = t->perf_capabilities & PERF_CAP_FW_WRITE;
	t->offcore = def->offcore;
	/* AnyThread exists from v3 until CPUID.0AH:EDX[15] deprecates it. */
	anythread = t->version >= 3 && !((leaf_a[3] >> 15) & 1);

	t->evtsel_valid = 0xffffffffull & ~(anythread ? 0 : EVTSEL_ANY);
	if (def->tsx)
		t->evtsel_valid |= EVTSEL_TSX_BITS;

	t->fixed_ctrl_valid = 0;
	for (unsigned i = 0; i < t->fixed; i++) {
		uint64_t field = FIXED_CTRL_OS | FIXED_CTRL_USR | FIXED_CTRL_PMI;

		if (anythread)
			field |= FIXED_CTRL_ANY;
		t->fixed_ctrl_valid |= field << (4 * i);
	}

	t->global_ctrl_valid = low_bits(t->gp) | ((uint64_t)t->fixed_mask << 32);
	if (t->perf_capabilities & PERF_CAP_PERF_METRICS)
		t->global_ctrl_valid |= GLOBAL_CTRL_PERF_METRICS;

	t->global_status_valid = low_bits(t->gp) | ((uint64_t)t->fixed_mask << 32) |
		STATUS_OVF_BUF | STATUS_COND_CHGD;
	if (t->version >= 3)
		t->global_status_valid |= STATUS_OVF_UNCORE;
	if (t->version >= 4)
		t->global_status_valid |= STATUS_TOPA_PMI | STATUS_LBR_FRZ |
			STATUS_CTR_FRZ | STATUS_ASCI;
	if (t->perf_capabilities & PERF_CAP_PERF_METRICS)
		t->global_status_valid |= STATUS_PERF_METRICS;
	/* Request [15:0] and response [37:16] fields (Skylake's layout). */
	t->offcore_valid = t->offcore ? low_bits(38) : 0;
	return 0;
}

static void
power_up(const struct emu_core_type *t, struct emu_regs *regs, bool watchdog)
{
	memset(regs, 0, sizeof(*regs));
	if (t->version < 2)
		return;
	/*
	 * At reset the GP enable bits of GLOBAL_CTRL are set, so that v1 code
	 * that only knows PERFEVTSELx.EN keeps working (table 2-2).
	 */
	regs->global_ctrl = low_bits(t->gp);
	if (watchdog && (t->fixed_mask & 2)) {
		/* Linux's perf NMI watchdog: cycles on FC1, OS|USR|PMI, all enabled. */
		regs->fixed_ctr_ctrl = 0xbull << 4;
		regs->global_ctrl = t->global_ctrl_valid;
		regs->fixed_ctr[1] = (width_mask(t->fixed_width) + 1 - WATCHDOG_PERIOD) &
			width_mask(t->fixed_width);
	}
}

static void
set_default_files(struct emu_pmu *pmu)
{
	const struct emu_config *cfg = &pmu->config;
	bool has_pmu = pmu->types[0].version > 0 || pmu->types[0].netburst;

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
	emu_set_file(pmu, HW_FILE_NMI_WATCHDOG, cfg->watchdog ? "1\n" : "0\n");
	emu_set_file(pmu, HW_FILE_LOCKDOWN, cfg->msr == EMU_MSR_READONLY ?
		     "none [integrity] confidentiality\n" :
		     "[none] integrity confidentiality\n");
	/* /sys/module/msr exists only while the driver is loaded. */
	emu_set_file(pmu, HW_FILE_MSR_ALLOW_WRITES,
		     cfg->msr == EMU_MSR_ABSENT ? NULL : "on\n");
	emu_set_file(pmu, HW_FILE_PERF_EVENT_PARANOID, "2\n");
}

int
emu_pmu_init(struct emu_pmu *pmu, const struct emu_config *cfg, const char *cpuid_dir)
{
	const struct model_def *model;
	unsigned pcores;
	int err;

	if ((unsigned)cfg->model >= EMU_MODEL_COUNT || cfg->ncpus > EMU_MAX_CPUS ||
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
		err = load_dump(cpuid_dir, model->types[i].dump, &pmu->types[i].cpuid);
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
		else
			power_up(&pmu->types[cpu->type], &cpu->regs, cfg->watchdog);
	}
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

uint64_t
emu_global_inuse(const struct emu_pmu *pmu, unsigned cpu)
{
	const struct emu_core_type *t = emu_cpu_type(pmu, cpu);
	const struct emu_regs *r;
	uint64_t inuse = 0;

	if (!t || t->version < 4)
		return 0;
	r = &pmu->cpu[cpu].regs;
	/* Section "Performance Monitoring Resource In-Use MSR". */
	for (unsigned i = 0; i < t->gp; i++) {
		if (r->evtsel[i] & 0xff)
			inuse |= 1ull << i;
		if (r->evtsel[i] & EVTSEL_INT)
			inuse |= INUSE_PMI;
	}
	for (unsigned i = 0; i < t->fixed; i++) {
		unsigned field = FIXED_CTRL_FIELD(r->fixed_ctr_ctrl, i);

		if (field & (FIXED_CTRL_OS | FIXED_CTRL_USR))
			inuse |= GLOBAL_FIXED_BIT(i);
		if (field & FIXED_CTRL_PMI)
			inuse |= INUSE_PMI;
	}
	return inuse;
}

/* Which counter an MSR address names, if any. */
static bool
in_range(uint32_t msr, uint32_t base, unsigned count, unsigned *index)
{
	if (msr < base || msr >= base + count)
		return false;
	*index = msr - base;
	return true;
}

/* RDMSR without side effects. Returns 0 or -EIO (#GP). */
static int
read_reg(const struct emu_pmu *pmu, unsigned cpu, uint32_t msr, uint64_t *val)
{
	const struct emu_core_type *t = emu_cpu_type(pmu, cpu);
	const struct emu_regs *r = &pmu->cpu[cpu].regs;
	unsigned i;

	if (t && t->netburst)
		return emu_nb_rdmsr(pmu, cpu, msr, val);
	if (!t || t->version == 0)
		return -EIO;
	if (in_range(msr, MSR_IA32_PERFEVTSEL0, t->gp, &i)) {
		*val = r->evtsel[i];
	} else if (in_range(msr, MSR_IA32_PMC0, t->gp, &i)) {
		*val = r->pmc[i];
	} else if (t->full_width_write && in_range(msr, MSR_IA32_A_PMC0, t->gp, &i)) {
		*val = r->pmc[i];
	} else if (in_range(msr, MSR_IA32_FIXED_CTR0, t->fixed, &i)) {
		*val = r->fixed_ctr[i];
	} else if (msr == MSR_IA32_PERF_CAPABILITIES && t->pdcm) {
		*val = t->perf_capabilities;
	} else if (t->offcore && (msr == MSR_OFFCORE_RSP_0 || msr == MSR_OFFCORE_RSP_1)) {
		*val = r->offcore_rsp[msr - MSR_OFFCORE_RSP_0];
	} else if (t->version >= 2 && msr == MSR_IA32_FIXED_CTR_CTRL) {
		*val = r->fixed_ctr_ctrl;
	} else if (t->version >= 2 && msr == MSR_IA32_PERF_GLOBAL_STATUS) {
		*val = r->global_status;
	} else if (t->version >= 2 && msr == MSR_IA32_PERF_GLOBAL_CTRL) {
		*val = r->global_ctrl;
	} else if (t->version >= 2 && msr == MSR_IA32_PERF_GLOBAL_STATUS_RESET) {
		/* A command register: nothing to read back. */
		*val = 0;
	} else if (t->version >= 4 && msr == MSR_IA32_PERF_GLOBAL_STATUS_SET) {
		*val = 0;
	} else if (t->version >= 4 && msr == MSR_IA32_PERF_GLOBAL_INUSE) {
		*val = emu_global_inuse(pmu, cpu);
	} else {
		return -EIO;
	}
	return 0;
}

int
emu_rdmsr(struct emu_pmu *pmu, unsigned cpu, uint32_t msr, uint64_t *val)
{
	int err;

	if (cpu >= pmu->ncpus)
		return -ENXIO;
	pmu->cpu[cpu].stats.rdmsr++;
	err = read_reg(pmu, cpu, msr, val);
	if (err)
		pmu->cpu[cpu].stats.gp_faults++;
	return err;
}

static int
write_reg(struct emu_pmu *pmu, unsigned cpu, uint32_t msr, uint64_t val)
{
	const struct emu_core_type *t = emu_cpu_type(pmu, cpu);
	struct emu_regs *r = &pmu->cpu[cpu].regs;
	uint64_t gp_mask;
	unsigned i;

	if (t && t->netburst)
		return emu_nb_wrmsr(pmu, cpu, msr, val);
	if (!t || t->version == 0)
		return -EIO;
	gp_mask = width_mask(t->gp_width);
	if (in_range(msr, MSR_IA32_PERFEVTSEL0, t->gp, &i)) {
		if (val & ~t->evtsel_valid)
			return -EIO;
		r->evtsel[i] = val;
	} else if (in_range(msr, MSR_IA32_PMC0, t->gp, &i)) {
		/*
		 * Legacy writes take EAX only and sign-extend bit 31 to the
		 * counter's width (section "Full-Width Writes to Performance
		 * Counter Registers"); EDX is ignored.
		 */
		r->pmc[i] = (uint64_t)(int64_t)(int32_t)(uint32_t)val & gp_mask;
	} else if (t->full_width_write && in_range(msr, MSR_IA32_A_PMC0, t->gp, &i)) {
		if (val & ~gp_mask)
			return -EIO;
		r->pmc[i] = val;
	} else if (in_range(msr, MSR_IA32_FIXED_CTR0, t->fixed, &i)) {
		/* "Bits beyond the width of the fixed counter are reserved." */
		if (val & ~width_mask(t->fixed_width))
			return -EIO;
		r->fixed_ctr[i] = val;
	} else if (t->offcore && (msr == MSR_OFFCORE_RSP_0 || msr == MSR_OFFCORE_RSP_1)) {
		if (val & ~t->offcore_valid)
			return -EIO;
		r->offcore_rsp[msr - MSR_OFFCORE_RSP_0] = val;
	} else if (t->version >= 2 && msr == MSR_IA32_FIXED_CTR_CTRL) {
		if (val & ~t->fixed_ctrl_valid)
			return -EIO;
		r->fixed_ctr_ctrl = val;
	} else if (t->version >= 2 && msr == MSR_IA32_PERF_GLOBAL_CTRL) {
		if (val & ~t->global_ctrl_valid)
			return -EIO;
		r->global_ctrl = val;
	} else if (t->version >= 2 && msr == MSR_IA32_PERF_GLOBAL_STATUS_RESET) {
		/* Write 1 to clear; writing 0 clears nothing. */
		if (val & ~t->global_status_valid)
			return -EIO;
		r->global_status &= ~val;
	} else if (t->version >= 4 && msr == MSR_IA32_PERF_GLOBAL_STATUS_SET) {
		/* Write 1 to set; CondChgd (bit 63) cannot be set. */
		if (val & ~(t->global_status_valid & ~STATUS_COND_CHGD))
			return -EIO;
		r->global_status |= val;
	} else {
		/*
		 * Unknown MSRs, and the read-only GLOBAL_STATUS, GLOBAL_INUSE
		 * and PERF_CAPABILITIES.
		 */
		return -EIO;
	}
	return 0;
}

int
emu_wrmsr(struct emu_pmu *pmu, unsigned cpu, uint32_t msr, uint64_t val)
{
	int err;

	if (cpu >= pmu->ncpus)
		return -ENXIO;
	pmu->cpu[cpu].stats.wrmsr++;
	err = write_reg(pmu, cpu, msr, val);
	if (err)
		pmu->cpu[cpu].stats.gp_faults++;
	return err;
}

int
emu_rdpmc(struct emu_pmu *pmu, unsigned cpu, uint32_t ecx, uint64_t *val)
{
	const struct emu_core_type *t = emu_cpu_type(pmu, cpu);
	const struct emu_regs *r;
	uint32_t index = ecx & 0x3fffffffu;

	if (!t)
		return -ENXIO;
	if (pmu->config.rdpmc_off)
		return -EPERM;
	pmu->cpu[cpu].stats.rdpmc++;
	if (t->netburst)
		return emu_nb_rdpmc(pmu, cpu, ecx, val);
	r = &pmu->cpu[cpu].regs;
	/* ECX[31] (fast read, P6 only) and an index beyond the counters: #GP. */
	if (t->version == 0 || (ecx & 0x80000000u))
		return -EIO;
	if (ecx & RDPMC_FIXED) {
		if (index >= t->fixed || !(t->fixed_mask & (1u << index)))
			return -EIO;
		*val = r->fixed_ctr[index];
	} else {
		if (index >= t->gp)
			return -EIO;
		*val = r->pmc[index];
	}
	return 0;
}

/* Add @inc to a counter of @width bits; true when it wrapped. */
static bool
count(uint64_t *ctr, unsigned width, uint64_t inc)
{
	uint64_t mask = width_mask(width);
	uint64_t before = *ctr & mask;
	bool wrapped = inc > mask - before;

	/* 2^width divides 2^64, so unsigned wrap-around then masking is exact. */
	*ctr = (before + inc) & mask;
	return wrapped;
}

static const struct {
	uint8_t code;
	uint8_t umask;
} fixed_events[EMU_MAX_FIXED] = {
	{ 0xc0, 0x00 },		/* INST_RETIRED.ANY */
	{ 0x3c, 0x00 },		/* CPU_CLK_UNHALTED.THREAD */
	{ 0x3c, 0x01 },		/* CPU_CLK_UNHALTED.REF */
	{ 0xa4, 0x01 },		/* TOPDOWN.SLOTS */
};

int
emu_retire(struct emu_pmu *pmu, unsigned cpu, uint8_t code, uint8_t umask,
	   unsigned ring, uint64_t n)
{
	const struct emu_core_type *t = emu_cpu_type(pmu, cpu);
	struct emu_regs *r;

	if (!t)
		return -ENXIO;
	pmu->cpu[cpu].stats.retired++;
	r = &pmu->cpu[cpu].regs;
	if (t->version == 0 || n == 0)
		return 0;
	for (unsigned i = 0; i < t->gp; i++) {
		uint64_t sel = r->evtsel[i];
		uint64_t ring_bit = ring == 0 ? EVTSEL_OS : EVTSEL_USR;
		unsigned cmask = (sel >> 24) & 0xff;
		uint64_t inc = n;

		/* Each enable bit is ANDed with GLOBAL_CTRL's (v2+). */
		if (t->version >= 2 && !(r->global_ctrl & (1ull << i)))
			continue;
		if (!(sel & EVTSEL_EN) || !(sel & ring_bit))
			continue;
		if ((sel & 0xff) != code || ((sel >> 8) & 0xff) != umask)
			continue;
		if (cmask) {
			bool cond = n >= cmask;

			if (sel & EVTSEL_INV)
				cond = !cond;
			inc = cond ? 1 : 0;
		}
		if (inc && count(&r->pmc[i], t->gp_width, inc))
			r->global_status |= 1ull << i;
	}
	for (unsigned i = 0; i < t->fixed; i++) {
		unsigned field = FIXED_CTRL_FIELD(r->fixed_ctr_ctrl, i);
		unsigned ring_bit = ring == 0 ? FIXED_CTRL_OS : FIXED_CTRL_USR;

		if (!(r->global_ctrl & GLOBAL_FIXED_BIT(i)) || !(field & ring_bit))
			continue;
		if (fixed_events[i].code != code || fixed_events[i].umask != umask)
			continue;
		if (count(&r->fixed_ctr[i], t->fixed_width, n))
			r->global_status |= GLOBAL_FIXED_BIT(i);
	}
	return 0;
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
	/* NetBurst: each logical CPU its own initial APIC ID (with HT, bit 0 is the thread). */
	if (t->netburst && leaf == 1)
		regs[1] = (regs[1] & 0x00ffffffu) | (cpu & 0xffu) << 24;
	return 0;
}

int
emu_cpuid_raw(const struct emu_pmu *pmu, unsigned cpu, struct cpu_raw_data_t *raw)
{
	const struct emu_core_type *t = emu_cpu_type(pmu, cpu);

	if (!t)
		return -ENXIO;
	*raw = t->cpuid;
	if (t->netburst)
		raw->basic_cpuid[1][1] = (raw->basic_cpuid[1][1] & 0x00ffffffu) | (cpu & 0xffu) << 24;
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

size_t
emu_msr_list(const struct emu_pmu *pmu, unsigned cpu, uint32_t *msrs, size_t max)
{
	/* Every address any model has, ascending. */
	static const uint32_t singles[] = {
		MSR_OFFCORE_RSP_0, MSR_OFFCORE_RSP_1, MSR_IA32_PERF_CAPABILITIES,
		MSR_IA32_FIXED_CTR_CTRL, MSR_IA32_PERF_GLOBAL_STATUS,
		MSR_IA32_PERF_GLOBAL_CTRL, MSR_IA32_PERF_GLOBAL_INUSE,
	};
	uint32_t all[2 * EMU_MAX_GP + EMU_MAX_GP + EMU_MAX_FIXED + 8];
	size_t n = 0, out = 0;
	uint64_t val;

	if (cpu >= pmu->ncpus)
		return 0;
	if (pmu->types[pmu->cpu[cpu].type].netburst)
		return emu_nb_msr_list(pmu, cpu, msrs, max);
	for (unsigned i = 0; i < EMU_MAX_GP; i++)
		all[n++] = MSR_IA32_PMC0 + i;
	for (unsigned i = 0; i < EMU_MAX_GP; i++)
		all[n++] = MSR_IA32_PERFEVTSEL0 + i;
	all[n++] = singles[0];
	all[n++] = singles[1];
	for (unsigned i = 0; i < EMU_MAX_FIXED; i++)
		all[n++] = MSR_IA32_FIXED_CTR0 + i;
	for (unsigned i = 2; i < sizeof(singles) / sizeof(singles[0]); i++)
		all[n++] = singles[i];
	/* IA32_A_PMCx alias IA32_PMCx: listing them would repeat the counters. */
	for (size_t i = 0; i < n; i++) {
		if (read_reg(pmu, cpu, all[i], &val) != 0)
			continue;
		if (out < max)
			msrs[out] = all[i];
		out++;
	}
	return out;
}

const char *
emu_msr_name(uint32_t msr, char *buf, size_t size)
{
	unsigned i;

	if (in_range(msr, MSR_IA32_PERFEVTSEL0, EMU_MAX_GP, &i))
		snprintf(buf, size, "IA32_PERFEVTSEL%u", i);
	else if (in_range(msr, MSR_IA32_PMC0, EMU_MAX_GP, &i))
		snprintf(buf, size, "IA32_PMC%u", i);
	else if (in_range(msr, MSR_IA32_A_PMC0, EMU_MAX_GP, &i))
		snprintf(buf, size, "IA32_A_PMC%u", i);
	else if (in_range(msr, MSR_IA32_FIXED_CTR0, EMU_MAX_FIXED, &i))
		snprintf(buf, size, "IA32_FIXED_CTR%u", i);
	else if (msr == MSR_OFFCORE_RSP_0 || msr == MSR_OFFCORE_RSP_1)
		snprintf(buf, size, "MSR_OFFCORE_RSP_%u", msr - MSR_OFFCORE_RSP_0);
	else if (msr == MSR_IA32_PERF_CAPABILITIES)
		snprintf(buf, size, "IA32_PERF_CAPABILITIES");
	else if (msr == MSR_IA32_FIXED_CTR_CTRL)
		snprintf(buf, size, "IA32_FIXED_CTR_CTRL");
	else if (msr == MSR_IA32_PERF_GLOBAL_STATUS)
		snprintf(buf, size, "IA32_PERF_GLOBAL_STATUS");
	else if (msr == MSR_IA32_PERF_GLOBAL_CTRL)
		snprintf(buf, size, "IA32_PERF_GLOBAL_CTRL");
	else if (msr == MSR_IA32_PERF_GLOBAL_STATUS_RESET)
		snprintf(buf, size, "IA32_PERF_GLOBAL_STATUS_RESET");
	else if (msr == MSR_IA32_PERF_GLOBAL_STATUS_SET)
		snprintf(buf, size, "IA32_PERF_GLOBAL_STATUS_SET");
	else if (msr == MSR_IA32_PERF_GLOBAL_INUSE)
		snprintf(buf, size, "IA32_PERF_GLOBAL_INUSE");
	else
		snprintf(buf, size, "MSR_0x%" PRIx32, msr);
	return buf;
}

/* NetBurst's counters share addresses with the architectural fixed counters. */
static const char *
msr_name(const struct emu_core_type *t, uint32_t msr, char *buf, size_t size)
{
	return t->netburst ? emu_nb_msr_name(msr, buf, size) : emu_msr_name(msr, buf, size);
}

static void
json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(out, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", out);
		else if ((unsigned char)*s < 0x20)
			fprintf(out, "\\u%04x", (unsigned char)*s);
		else
			fputc(*s, out);
	}
	fputc('"', out);
}

static void
dump_json(const struct emu_pmu *pmu, int only, FILE *out)
{
	const struct emu_config *cfg = &pmu->config;
	uint32_t msrs[EMU_MAX_MSRS];
	bool first = true;

	fprintf(out, "{\"model\":\"%s\",\"ncpus\":%u,\"rdpmc\":%s,\"msr\":\"%s\",\"watchdog\":%s,",
		emu_model_name(cfg->model), pmu->ncpus, cfg->rdpmc_off ? "false" : "true",
		emu_msr_access_name(cfg->msr), cfg->watchdog ? "true" : "false");
	fprintf(out, "\"files\":{");
	for (int f = 0; f < HW_FILE_COUNT; f++) {
		fprintf(out, "%s\"%s\":", f ? "," : "", hw_file_key((enum hw_file)f));
		if (emu_file(pmu, f))
			json_string(out, emu_file(pmu, f));
		else
			fprintf(out, "null");
	}
	fprintf(out, "},\"cpus\":[");
	for (unsigned c = 0; c < pmu->ncpus; c++) {
		const struct emu_core_type *t = emu_cpu_type(pmu, c);
		const struct emu_stats *s = &pmu->cpu[c].stats;
		size_t n;

		if (only >= 0 && (unsigned)only != c)
			continue;
		n = emu_msr_list(pmu, c, msrs, EMU_MAX_MSRS);
		fprintf(out, "%s{\"cpu\":%u,\"type\":\"%s\",\"version\":%u,\"gp\":%u,\"gp_width\":%u,"
			"\"fixed\":%u,\"fixed_width\":%u,", first ? "" : ",", c, t->name, t->version,
			t->gp, t->gp_width, t->fixed, t->fixed_width);
		fprintf(out, "\"stats\":{\"rdmsr\":%" PRIu64 ",\"wrmsr\":%" PRIu64
			",\"gp_faults\":%" PRIu64 ",\"rdpmc\":%" PRIu64 ",\"retired\":%" PRIu64 "},",
			s->rdmsr, s->wrmsr, s->gp_faults, s->rdpmc, s->retired);
		fprintf(out, "\"msrs\":{");
		for (size_t i = 0; i < n && i < EMU_MAX_MSRS; i++) {
			uint64_t val = 0;

			read_reg(pmu, c, msrs[i], &val);
			fprintf(out, "%s\"0x%" PRIx32 "\":\"0x%" PRIx64 "\"", i ? "," : "", msrs[i], val);
		}
		fprintf(out, "}}");
		first = false;
	}
	fprintf(out, "]}\n");
}

void
emu_pmu_dump(const struct emu_pmu *pmu, int only, bool json, FILE *out)
{
	const struct emu_config *cfg = &pmu->config;
	uint32_t msrs[EMU_MAX_MSRS];
	char name[40];

	if (json) {
		dump_json(pmu, only, out);
		return;
	}
	fprintf(out, "model %s, %u CPUs, rdpmc %s, msr %s, watchdog %s\n",
		emu_model_name(cfg->model), pmu->ncpus, cfg->rdpmc_off ? "off" : "on",
		emu_msr_access_name(cfg->msr), cfg->watchdog ? "on" : "off");
	for (int f = 0; f < HW_FILE_COUNT; f++) {
		const char *text = emu_file(pmu, f);
		size_t len = text ? strcspn(text, "\n") : 0;

		fprintf(out, "  %-20s %s%.*s%s\n", hw_file_key((enum hw_file)f), text ? "\"" : "(absent)",
			(int)len, text ? text : "", text ? "\"" : "");
	}
	for (unsigned c = 0; c < pmu->ncpus; c++) {
		const struct emu_core_type *t = emu_cpu_type(pmu, c);
		const struct emu_stats *s = &pmu->cpu[c].stats;
		size_t n;

		if (only >= 0 && (unsigned)only != c)
			continue;
		if (t->netburst)
			fprintf(out, "cpu %u: %s, NetBurst, 18 counters x 40 bits, ESCR/CCCR%s\n", c,
				t->name, t->nb_ht ? (c & 1 ? ", HT thread 1" : ", HT thread 0") : "");
		else
			fprintf(out, "cpu %u: %s, perfmon v%u, %u GP x %u bits, %u fixed x %u bits\n",
				c, t->name, t->version, t->gp, t->gp_width, t->fixed, t->fixed_width);
		fprintf(out, "  accesses: %" PRIu64 " rdmsr, %" PRIu64 " wrmsr, %" PRIu64
			" #GP, %" PRIu64 " rdpmc, %" PRIu64 " retire calls\n",
			s->rdmsr, s->wrmsr, s->gp_faults, s->rdpmc, s->retired);
		n = emu_msr_list(pmu, c, msrs, EMU_MAX_MSRS);
		for (size_t i = 0; i < n && i < EMU_MAX_MSRS; i++) {
			uint64_t val = 0;

			read_reg(pmu, c, msrs[i], &val);
			fprintf(out, "  %-26s 0x%03" PRIx32 "  0x%016" PRIx64 "\n",
				msr_name(t, msrs[i], name, sizeof(name)), msrs[i], val);
		}
	}
}

unsigned
emu_pmu_diff(const struct emu_pmu *a, const struct emu_pmu *b, FILE *out)
{
	uint32_t msrs[EMU_MAX_MSRS];
	char name[40];
	unsigned diffs = 0;

	if (a->config.model != b->config.model || a->ncpus != b->ncpus ||
	    a->ntypes != b->ntypes) {
		if (out)
			fprintf(out, "machine: %s with %u CPUs -> %s with %u CPUs\n",
				emu_model_name(a->config.model), a->ncpus,
				emu_model_name(b->config.model), b->ncpus);
		return 1;
	}
	for (unsigned c = 0; c < a->ncpus; c++) {
		size_t n;

		if (a->cpu[c].type != b->cpu[c].type) {
			if (out)
				fprintf(out, "cpu %u: core type %s -> %s\n", c,
					emu_cpu_type(a, c)->name, emu_cpu_type(b, c)->name);
			diffs++;
			continue;
		}
		n = emu_msr_list(a, c, msrs, EMU_MAX_MSRS);
		for (size_t i = 0; i < n && i < EMU_MAX_MSRS; i++) {
			uint64_t va = 0, vb = 0;

			read_reg(a, c, msrs[i], &va);
			read_reg(b, c, msrs[i], &vb);
			if (va == vb)
				continue;
			diffs++;
			if (out)
				fprintf(out, "cpu %u %s (0x%" PRIx32 "): 0x%" PRIx64 " -> 0x%" PRIx64 "\n",
					c, msr_name(&a->types[a->cpu[c].type], msrs[i], name, sizeof(name)),
					msrs[i], va, vb);
		}
	}
	return diffs;
}
