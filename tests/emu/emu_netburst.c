/*
 * emu_netburst.c - the emulated NetBurst PMU's rules (see emu_netburst.h).
 *
 * The ESCR map is written here in the SDM's own shape, "which ESCR does
 * ESCR select N name for counter C" (table "Performance Counter MSRs and
 * Associated CCCR and ESCR MSRs"), independently of pmustat's per-ESCR
 * list in src/netburst/nb_regs.c, so that each checks the other.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "emu_netburst.h"

#define NB_COUNTER0	0x300u
#define NB_CCCR0	0x360u
#define NB_MISC_ENABLE	0x1a0u
#define NB_WIDTH_MASK	((1ull << 40) - 1)

/*
 * IA32_MISC_ENABLE of the NetBurst models: fast strings (0), automatic
 * thermal control (3), performance monitoring available (7); BTS and PEBS
 * available (11, 12 clear). Representative, not read from the parts.
 */
#define NB_MISC_ENABLE_VALUE	0x89ull
#define NB_MISC_PERFMON		(1ull << 7)

/* CCCR fields (figure "Counter Configuration Control Register (CCCR)"). */
#define CCCR_ENABLE	(1u << 12)
#define CCCR_SELECT(v)	(((v) >> 13) & 7u)
#define CCCR_THREAD(v)	(((v) >> 16) & 3u)
#define CCCR_COMPARE	(1u << 18)
#define CCCR_COMPLEMENT	(1u << 19)
#define CCCR_THRESHOLD(v) (((v) >> 20) & 15u)
#define CCCR_EDGE	(1u << 24)
#define CCCR_FORCE_OVF	(1u << 25)
#define CCCR_OVF	(1u << 31)
/* Bits a write may set: 12-26, 30, 31, and 27 (OVF_PMI_T1) with HT. */
#define CCCR_VALID	0xc7fff000u
#define CCCR_VALID_HT	0xcffff000u
/* ESCR: 30:2, and 1:0 (T1_OS, T1_USR) with HT. */
#define ESCR_VALID	0x7ffffffcu
#define ESCR_VALID_HT	0x7fffffffu

struct escr_unit {
	const char *unit;	/* NULL: the select names no ESCR in this group */
	uint16_t msr;		/* the ESCR of the group's first counters */
	uint8_t index;		/* its number: CRU_ESCR0, CRU_ESCR2, CRU_ESCR4 */
	bool first_half_only;	/* SSU_ESCR0 has no twin */
};

/* Per counter group, by ESCR select value. */
static const struct escr_unit bpu_group[8] = {
	{ "BPU", 0x3b2, 0, false }, { "IS", 0x3b4, 0, false }, { "MOB", 0x3aa, 0, false },
	{ "ITLB", 0x3b6, 0, false }, { "PMH", 0x3ac, 0, false }, { "IX", 0x3c8, 0, false },
	{ "FSB", 0x3a2, 0, false }, { "BSU", 0x3a0, 0, false },
};
static const struct escr_unit ms_group[8] = {
	{ "MS", 0x3c0, 0, false }, { "TC", 0x3c4, 0, false }, { "TBPU", 0x3c2, 0, false },
};
static const struct escr_unit flame_group[8] = {
	{ "FLAME", 0x3a6, 0, false }, { "FIRM", 0x3a4, 0, false }, { "SAAT", 0x3ae, 0, false },
	{ "U2L", 0x3b0, 0, false }, { NULL, 0, 0, false }, { "DAC", 0x3a8, 0, false },
};
static const struct escr_unit iq_group[8] = {
	{ "IQ", 0x3ba, 0, false }, { "ALF", 0x3ca, 0, false }, { "RAT", 0x3bc, 0, false },
	{ "SSU", 0x3be, 0, true }, { "CRU", 0x3b8, 0, false }, { "CRU", 0x3cc, 2, false },
	{ "CRU", 0x3e0, 4, false },
};

static const char *const counter_names[EMU_NB_COUNTERS] = {
	"BPU", "BPU", "BPU", "BPU", "MS", "MS", "MS", "MS", "FLAME", "FLAME", "FLAME", "FLAME",
	"IQ", "IQ", "IQ", "IQ", "IQ", "IQ",
};

/* The group of counter @c and whether it is in the group's second half. */
static const struct escr_unit *
group_of(unsigned c, unsigned *half)
{
	if (c < 4) {
		*half = c >= 2;
		return bpu_group;
	}
	if (c < 8) {
		*half = c >= 6;
		return ms_group;
	}
	if (c < 12) {
		*half = c >= 10;
		return flame_group;
	}
	/* IQ_COUNTER0, 1, 4 (12, 13, 16) are the first half; 2, 3, 5 the second. */
	*half = c == 14 || c == 15 || c == 17;
	return iq_group;
}

/* The ESCR select @sel names for counter @c on model @model, or 0. */
static uint32_t
escr_for(unsigned c, unsigned sel, unsigned model)
{
	unsigned half;
	const struct escr_unit *u;

	if (c >= EMU_NB_COUNTERS || sel > 7)
		return 0;
	u = &group_of(c, &half)[sel];
	if (!u->unit || (half && u->first_half_only))
		return 0;
	/* "Available only on early processor builds (family 0FH, models 01H-02H)." */
	if (strcmp(u->unit, "IQ") == 0 && model > 2)
		return 0;
	return u->msr + half;
}

static bool
is_escr(uint32_t msr, unsigned model)
{
	if (msr < EMU_NB_ESCR_BASE || msr >= EMU_NB_ESCR_BASE + EMU_NB_ESCR_SPAN)
		return false;
	for (unsigned c = 0; c < EMU_NB_COUNTERS; c++)
		for (unsigned sel = 0; sel < 8; sel++)
			if (msr == escr_for(c, sel, model))
				return true;
	return false;
}

/* Which thread of its core @cpu is: 2k + 1, or with nb_ht_split k + ncpus/2, is thread 1. */
static unsigned
thread_of(const struct emu_pmu *pmu, unsigned cpu)
{
	if (!emu_cpu_type(pmu, cpu)->nb_ht)
		return 0;
	return pmu->config.nb_ht_split ? cpu >= pmu->ncpus / 2 : cpu & 1u;
}

/* The core @cpu is a thread of, numbered 0, 1, ... */
static unsigned
core_of(const struct emu_pmu *pmu, unsigned cpu)
{
	if (!emu_cpu_type(pmu, cpu)->nb_ht)
		return cpu;
	return pmu->config.nb_ht_split ? cpu % (pmu->ncpus / 2) : cpu / 2;
}

unsigned
emu_nb_apic_id(const struct emu_pmu *pmu, unsigned cpu)
{
	if (!emu_cpu_type(pmu, cpu)->nb_ht)
		return cpu;
	return core_of(pmu, cpu) * 2 + thread_of(pmu, cpu);
}

static struct emu_nb_regs *
regs_of(const struct emu_pmu *pmu, unsigned cpu)
{
	const struct emu_core_type *t = emu_cpu_type(pmu, cpu);

	/* The core's thread 0 holds its registers (2k, or k with nb_ht_split). */
	if (!t->nb_ht)
		return (struct emu_nb_regs *)&pmu->cpu[cpu].nb;
	return (struct emu_nb_regs *)&pmu->cpu[pmu->config.nb_ht_split ? core_of(pmu, cpu) : cpu & ~1u].nb;
}

int
emu_nb_setup_type(struct emu_core_type *t, const struct emu_config *cfg)
{
	uint32_t eax = t->cpuid.basic_cpuid[1][0];

	/* No leaf 0xA: version 0, no architectural register, the ESCR/CCCR PMU. */
	if (cfg->gp >= 0 || cfg->fixed >= 0 || cfg->watchdog)
		return -EINVAL;
	t->version = 0;
	t->netburst = true;
	t->pdcm = false;
	t->nb_model = (eax >> 4) & 0xf;
	/* HTT and two logical processors in a one-core package (setup_type()). */
	t->nb_ht = t->threads == 2;
	t->misc_enable = cfg->nb_perfmon_off ? NB_MISC_ENABLE_VALUE & ~NB_MISC_PERFMON :
		NB_MISC_ENABLE_VALUE;
	return 0;
}

void
emu_nb_power_up(struct emu_pmu *pmu, unsigned cpu)
{
	memset(&pmu->cpu[cpu].nb, 0, sizeof(pmu->cpu[cpu].nb));
}

int
emu_nb_rdmsr(const struct emu_pmu *pmu, unsigned cpu, uint32_t msr, uint64_t *val)
{
	const struct emu_core_type *t = emu_cpu_type(pmu, cpu);
	const struct emu_nb_regs *r;

	if (!t || !t->netburst)
		return -EIO;
	r = regs_of(pmu, cpu);
	if (msr >= NB_COUNTER0 && msr < NB_COUNTER0 + EMU_NB_COUNTERS)
		*val = r->counter[msr - NB_COUNTER0];
	else if (msr >= NB_CCCR0 && msr < NB_CCCR0 + EMU_NB_COUNTERS)
		*val = r->cccr[msr - NB_CCCR0];
	else if (is_escr(msr, t->nb_model))
		*val = r->escr[msr - EMU_NB_ESCR_BASE];
	else if (msr == NB_MISC_ENABLE)
		*val = t->misc_enable;
	else
		return -EIO;
	return 0;
}

int
emu_nb_wrmsr(struct emu_pmu *pmu, unsigned cpu, uint32_t msr, uint64_t val)
{
	const struct emu_core_type *t = emu_cpu_type(pmu, cpu);
	struct emu_nb_regs *r;
	unsigned i;

	if (!t || !t->netburst)
		return -EIO;
	r = regs_of(pmu, cpu);
	if (msr >= NB_COUNTER0 && msr < NB_COUNTER0 + EMU_NB_COUNTERS) {
		if (val & ~NB_WIDTH_MASK)
			return -EIO;
		r->counter[msr - NB_COUNTER0] = val;
	} else if (msr >= NB_CCCR0 && msr < NB_CCCR0 + EMU_NB_COUNTERS) {
		if (val & ~(uint64_t)(t->nb_ht ? CCCR_VALID_HT : CCCR_VALID))
			return -EIO;
		i = msr - NB_CCCR0;
		r->cccr[i] = (uint32_t)val;
		r->edge_prev[i] = 0;
	} else if (is_escr(msr, t->nb_model)) {
		if (val & ~(uint64_t)(t->nb_ht ? ESCR_VALID_HT : ESCR_VALID))
			return -EIO;
		r->escr[msr - EMU_NB_ESCR_BASE] = (uint32_t)val;
	} else {
		/* Unknown MSRs, and IA32_MISC_ENABLE, read-only here. */
		return -EIO;
	}
	return 0;
}

int
emu_nb_rdpmc(const struct emu_pmu *pmu, unsigned cpu, uint32_t ecx, uint64_t *val)
{
	uint32_t index = ecx & 0x7fffffffu;
	uint64_t v;

	if (index >= EMU_NB_COUNTERS)
		return -EIO;
	v = regs_of(pmu, cpu)->counter[index];
	*val = (ecx & 0x80000000u) ? v & 0xffffffffu : v;
	return 0;
}

/*
 * The thread-independent (TI) events, by ESCR unit and event select: the
 * SDM's table "Event Mask Qualification for Logical Processors" (vol. 3B,
 * 19-34), written here from that table, not from pmustat's events file.
 */
static const struct {
	const char *unit;
	uint8_t sel;
} ti_events[] = {
	{ "FIRM", 0x34 },	/* SSE_input_assist */
	{ "FIRM", 0x02 },	/* 64bit_MMX_uop */
	{ "FIRM", 0x0c },	/* packed_DP_uop */
	{ "FIRM", 0x08 },	/* packed_SP_uop */
	{ "FIRM", 0x0e },	/* scalar_DP_uop */
	{ "FIRM", 0x0a },	/* scalar_SP_uop */
	{ "FIRM", 0x1a },	/* 128bit_MMX_uop */
	{ "FIRM", 0x04 },	/* x87_FP_uop */
	{ "FIRM", 0x2e },	/* x87_SIMD_moves_uop */
	{ "FSB", 0x17 },	/* FSB_data_activity */
	{ "PMH", 0x01 },	/* page_walk_type */
	{ "TC", 0x01 },		/* TC_deliver_mode */
	{ "DAC", 0x05 },	/* WC_Buffer */
};

/* Whether ESCR @msr selecting event @sel selects a thread-independent event. */
static bool
thread_independent(uint32_t msr, unsigned sel)
{
	static const struct escr_unit *const groups[] = { bpu_group, ms_group, flame_group, iq_group };
	const char *unit = NULL;

	for (unsigned g = 0; g < 4 && !unit; g++)
		for (unsigned i = 0; i < 8 && !unit; i++)
			if (groups[g][i].unit && (groups[g][i].msr == msr || groups[g][i].msr + 1u == msr))
				unit = groups[g][i].unit;
	for (unsigned i = 0; unit && i < sizeof(ti_events) / sizeof(ti_events[0]); i++)
		if (strcmp(ti_events[i].unit, unit) == 0 && ti_events[i].sel == sel)
			return true;
	return false;
}

/* Whether counter @c's ESCR passes this clock's event to it. */
static bool
selected(const struct emu_nb_regs *r, const struct emu_core_type *t, unsigned c, unsigned sel,
	 unsigned mask, unsigned ring, unsigned thread)
{
	uint32_t msr = escr_for(c, CCCR_SELECT(r->cccr[c]), t->nb_model), escr, priv;

	if (!msr)
		return false;
	escr = r->escr[msr - EMU_NB_ESCR_BASE];
	/* USR for ring > 0, OS for ring 0; T0 bits 3:2, T1 bits 1:0. */
	priv = (ring == 0 ? 2u : 1u) << (thread == 0 ? 2 : 0);
	/* A TI event counts for both logical processors, whichever thread's bits are set. */
	if (t->nb_ht && thread_independent(msr, sel))
		priv = ring == 0 ? 0xau : 0x5u;
	return ((escr >> 25) & 0x3f) == sel && ((escr >> 9) & 0xffff & mask) && (escr & priv);
}

static bool
thread_qualifies(const struct emu_core_type *t, uint32_t cccr)
{
	unsigned at = CCCR_THREAD(cccr);

	/* Without HT the field is "reserved, must be set to 11B". */
	if (!t->nb_ht)
		return at == 3;
	/* The sibling counts as halted: "single" and "any" hold, "both" and "none" do not. */
	return at == 3 || at == 1;
}

int
emu_nb_clocks(struct emu_pmu *pmu, unsigned cpu, unsigned sel, unsigned mask, unsigned ring,
	      unsigned value, uint64_t count)
{
	const struct emu_core_type *t = emu_cpu_type(pmu, cpu);
	struct emu_nb_regs *r;
	unsigned thread;

	if (!t)
		return -ENXIO;
	if (!t->netburst || sel > 63 || value > 15 || count > (1ull << 59))
		return -EINVAL;
	pmu->cpu[cpu].stats.retired++;
	r = regs_of(pmu, cpu);
	thread = thread_of(pmu, cpu);
	if (count == 0)
		return 0;
	for (unsigned c = 0; c < EMU_NB_COUNTERS; c++) {
		uint32_t cccr = r->cccr[c];
		uint64_t input, inc, before;

		if (!(cccr & CCCR_ENABLE) || !thread_qualifies(t, cccr))
			continue;
		input = selected(r, t, c, sel, mask, ring, thread) ? value : 0;
		if (!(cccr & CCCR_COMPARE)) {
			inc = input * count;
		} else {
			bool out = (cccr & CCCR_COMPLEMENT) ? input <= CCCR_THRESHOLD(cccr) :
							      input > CCCR_THRESHOLD(cccr);

			if (cccr & CCCR_EDGE)
				inc = out && !r->edge_prev[c];
			else
				inc = out ? count : 0;
			r->edge_prev[c] = out;
		}
		if (!inc)
			continue;
		before = r->counter[c];
		r->counter[c] = (before + inc) & NB_WIDTH_MASK;
		/* 2^40 divides 2^64: the masked sum is exact; it wrapped if it got smaller or inc >= 2^40. */
		if (r->counter[c] < before || inc > NB_WIDTH_MASK || (cccr & CCCR_FORCE_OVF))
			r->cccr[c] |= CCCR_OVF;
	}
	return 0;
}

size_t
emu_nb_msr_list(const struct emu_pmu *pmu, unsigned cpu, uint32_t *msrs, size_t max)
{
	const struct emu_core_type *t = emu_cpu_type(pmu, cpu);
	size_t n = 0;

	if (!t || !t->netburst)
		return 0;
	if (n < max)
		msrs[n] = NB_MISC_ENABLE;
	n++;
	for (uint32_t m = NB_COUNTER0; m < NB_COUNTER0 + EMU_NB_COUNTERS; m++, n++)
		if (n < max)
			msrs[n] = m;
	for (uint32_t m = NB_CCCR0; m < NB_CCCR0 + EMU_NB_COUNTERS; m++, n++)
		if (n < max)
			msrs[n] = m;
	for (uint32_t m = EMU_NB_ESCR_BASE; m < EMU_NB_ESCR_BASE + EMU_NB_ESCR_SPAN; m++) {
		if (!is_escr(m, t->nb_model))
			continue;
		if (n < max)
			msrs[n] = m;
		n++;
	}
	return n;
}

const char *
emu_nb_msr_name(uint32_t msr, char *buf, size_t size)
{
	if (msr >= NB_COUNTER0 && msr < NB_COUNTER0 + EMU_NB_COUNTERS) {
		unsigned i = msr - NB_COUNTER0;

		snprintf(buf, size, "MSR_%s_COUNTER%u", counter_names[i], i < 12 ? i % 4 : i - 12);
		return buf;
	}
	if (msr >= NB_CCCR0 && msr < NB_CCCR0 + EMU_NB_COUNTERS) {
		unsigned i = msr - NB_CCCR0;

		snprintf(buf, size, "MSR_%s_CCCR%u", counter_names[i], i < 12 ? i % 4 : i - 12);
		return buf;
	}
	if (msr == NB_MISC_ENABLE) {
		snprintf(buf, size, "IA32_MISC_ENABLE");
		return buf;
	}
	for (unsigned c = 0; c < EMU_NB_COUNTERS; c++) {
		for (unsigned sel = 0; sel < 8; sel++) {
			unsigned half;
			const struct escr_unit *u = &group_of(c, &half)[sel];

			/* Model 1 names every ESCR, IQ_ESCR0/1 included. */
			if (escr_for(c, sel, 1) == msr) {
				snprintf(buf, size, "MSR_%s_ESCR%u", u->unit, u->index + half);
				return buf;
			}
		}
	}
	snprintf(buf, size, "MSR_0x%" PRIx32, msr);
	return buf;
}
