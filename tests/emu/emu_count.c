/*
 * emu_count.c - counting on the emulated PMU: a retire call is one burst
 * of events in one cycle; counters that count add it, wrap at their width
 * and set their overflow bits; an overflow with PMI enabled pends a PMI,
 * which freezes what IA32_DEBUGCTL asks to freeze. Sections named are the
 * SDM vol. 3B's.
 */
#include <errno.h>

#include "emu_internal.h"
#include "emu_zen.h"
#include "pmu/msr.h"

/*
 * The fixed counters' events as GP event select / umask (section
 * "Fixed-function Performance Counters" and the architectural events
 * table: FC4-FC6 are the Atom top-down counters, Linux's
 * TOPDOWN_BAD_SPECULATION.ALL, TOPDOWN_FE_BOUND.ALL, TOPDOWN_RETIRING.ALL,
 * whose programmable twins are these encodings).
 */
static const struct {
	uint8_t code;
	uint8_t umask;
} fixed_events[EMU_MAX_FIXED] = {
	{ 0xc0, 0x00 },		/* INST_RETIRED.ANY */
	{ 0x3c, 0x00 },		/* CPU_CLK_UNHALTED.THREAD */
	{ 0x3c, 0x01 },		/* CPU_CLK_UNHALTED.REF */
	{ 0xa4, 0x01 },		/* TOPDOWN.SLOTS */
	{ 0x73, 0x00 },		/* TOPDOWN_BAD_SPECULATION.ALL */
	{ 0x9c, 0x01 },		/* TOPDOWN_FE_BOUND.ALL */
	{ 0xc2, 0x02 },		/* TOPDOWN_RETIRING.ALL */
};

/*
 * Add @inc to a counter of @width bits: n mod 2^width lands in it. True
 * when it wrapped at least once (the overflow bit records one wrap or
 * many alike).
 */
static bool
count(uint64_t *ctr, unsigned width, uint64_t inc)
{
	uint64_t mask = emu_low_bits(width);
	uint64_t before = *ctr & mask;
	bool wrapped = inc > mask - before;

	/* 2^width divides 2^64, so unsigned wrap-around then masking is exact. */
	*ctr = (before + inc) & mask;
	return wrapped;
}

/*
 * v4: "(IA32_PERFEVTSELn.EN & IA32_PERF_GLOBAL_CTRL.PMCn &
 * (!IA32_PERF_GLOBAL_STATUS.CTR_FRZ)) = 1" for counting (section
 * "Architectural Performance Monitoring Version 4"), however CTR_Frz got
 * set: a PMI with FREEZE_PERFMON_ON_PMI, or a write to GLOBAL_STATUS_SET.
 */
bool
emu_frozen(const struct emu_core_type *t, const struct emu_regs *r)
{
	return t->version >= 4 && (r->global_status & EMU_STATUS_CTR_FRZ);
}

bool
emu_fixed_counts(const struct emu_core_type *t, const struct emu_regs *r, unsigned i,
		 unsigned ring)
{
	unsigned field = FIXED_CTRL_FIELD(r->fixed_ctr_ctrl, i);
	unsigned ring_bit = ring == 0 ? FIXED_CTRL_OS : FIXED_CTRL_USR;

	if (i >= EMU_MAX_FIXED || !(t->fixed_mask & (1u << i)))
		return false;
	return (r->global_ctrl & GLOBAL_FIXED_BIT(i)) && (field & ring_bit) && !emu_frozen(t, r);
}

/*
 * A PMI is pending after the burst (the interrupt itself is not
 * emulated). What it freezes (section "Freezing LBR and Performance
 * Counters on PMI"): before v4 the legacy semantics clear every enable bit
 * of GLOBAL_CTRL (FREEZE_PERFMON_ON_PMI) and DEBUGCTL.LBR
 * (FREEZE_LBRS_ON_PMI); from v4 the streamlined ones set CTR_Frz and
 * LBR_Frz in GLOBAL_STATUS instead, which software clears through
 * GLOBAL_STATUS_RESET.
 */
void
emu_pmi(const struct emu_core_type *t, struct emu_regs *r)
{
	if (r->debugctl & EMU_DEBUGCTL_FREEZE_PERFMON_ON_PMI) {
		if (t->version >= 4)
			r->global_status |= EMU_STATUS_CTR_FRZ;
		else
			r->global_ctrl = 0;
	}
	if (r->debugctl & EMU_DEBUGCTL_FREEZE_LBRS_ON_PMI) {
		if (t->version >= 4)
			r->global_status |= EMU_STATUS_LBR_FRZ;
		else
			r->debugctl &= ~EMU_DEBUGCTL_LBR;
	}
}

/* Whether GP counter @i counts this burst of (@code, @umask) at @ring; its increment. */
static bool
gp_counts(const struct emu_core_type *t, const struct emu_regs *r, unsigned i, uint8_t code,
	  uint8_t umask, unsigned ring, uint64_t n, uint64_t *inc)
{
	uint64_t sel = r->evtsel[i];
	uint64_t ring_bit = ring == 0 ? EVTSEL_OS : EVTSEL_USR;
	unsigned cmask = (sel >> 24) & 0xff;

	if (!(t->gp_mask & (1u << i)))
		return false;
	/* Each enable bit is ANDed with GLOBAL_CTRL's (v2+). */
	if (t->version >= 2 && !(r->global_ctrl & (1ull << i)))
		return false;
	if (!(sel & EVTSEL_EN) || !(sel & ring_bit) || emu_frozen(t, r))
		return false;
	if ((sel & 0xff) != code || ((sel >> 8) & 0xff) != umask || (sel & EMU_EVTSEL_UMASK2))
		return false;
	*inc = n;
	if (cmask) {
		bool cond = (sel & EMU_EVTSEL_EQ) ? n == cmask : n >= cmask;

		if (sel & EVTSEL_INV)
			cond = !cond;
		*inc = cond ? 1 : 0;
	}
	return *inc != 0;
}

/* An offcore event of the model: @k its OFFCORE_RSP MSR, or -1. */
static int
offcore_index(const struct emu_core_type *t, uint64_t sel)
{
	for (int k = 0; k < 2 && t->offcore; k++)
		if ((sel & 0xff) == t->offcore_event[k][0] &&
		    ((sel >> 8) & 0xff) == t->offcore_event[k][1])
			return k;
	return -1;
}

bool
emu_count_burst(const struct emu_core_type *t, struct emu_regs *r, uint8_t code, uint8_t umask,
		unsigned ring, uint64_t n, bool offcore, uint64_t rsp)
{
	bool pending = false;
	uint64_t ovf = 0;

	if (t->version == 0 || n == 0)
		return false;
	for (unsigned i = 0; i < t->gp; i++) {
		uint64_t inc;
		int k = offcore_index(t, r->evtsel[i]);

		if (!offcore) {
			/* Offcore events count offcore responses only. */
			if (k >= 0 || !gp_counts(t, r, i, code, umask, ring, n, &inc))
				continue;
		} else {
			if (k < 0 || r->offcore_rsp[k] != rsp ||
			    !gp_counts(t, r, i, t->offcore_event[k][0], t->offcore_event[k][1],
				       ring, n, &inc))
				continue;
		}
		if (count(&r->pmc[i], t->gp_width, inc)) {
			ovf |= 1ull << i;
			r->global_status |= 1ull << i;
			pending |= (r->evtsel[i] & EVTSEL_INT) != 0;
		}
	}
	for (unsigned i = 0; i < t->fixed && !offcore; i++) {
		if (fixed_events[i].code != code || fixed_events[i].umask != umask ||
		    !emu_fixed_counts(t, r, i, ring))
			continue;
		if (count(&r->fixed_ctr[i], t->fixed_width, n)) {
			ovf |= GLOBAL_FIXED_BIT(i);
			r->global_status |= GLOBAL_FIXED_BIT(i);
			pending |= (FIXED_CTRL_FIELD(r->fixed_ctr_ctrl, i) & FIXED_CTRL_PMI) != 0;
		}
	}
	/* Auto counter reload: a counter whose CFG_B names one that overflowed takes its CFG_C. */
	for (unsigned j = 0; ovf && j < EMU_MAX_GP; j++)
		if (((t->acr_gp_mask >> j) & 1) && (r->acr_cfg_b[j] & ovf))
			r->pmc[j] = r->acr_cfg_c[j];
	return pending;
}

static int
burst(struct emu_pmu *pmu, unsigned cpu, uint8_t code, uint8_t umask, unsigned ring, uint64_t n,
      bool offcore, uint64_t rsp)
{
	const struct emu_core_type *t = emu_cpu_type(pmu, cpu);
	struct emu_regs *r;

	if (!t)
		return -ENXIO;
	if (t->zen && !offcore) {
		uint8_t amd_umask;
		unsigned event = emu_zen_event_of(code, umask, &amd_umask);

		return emu_zen_retire(pmu, cpu, event, amd_umask, ring, n);
	}
	pmu->cpu[cpu].stats.retired++;
	r = &pmu->cpu[cpu].regs;
	if (emu_count_burst(t, r, code, umask, ring, n, offcore, rsp))
		emu_pmi(t, r);
	return 0;
}

int
emu_retire(struct emu_pmu *pmu, unsigned cpu, uint8_t code, uint8_t umask,
	   unsigned ring, uint64_t n)
{
	return burst(pmu, cpu, code, umask, ring, n, false, 0);
}

int
emu_retire_offcore(struct emu_pmu *pmu, unsigned cpu, unsigned ring, uint64_t rsp, uint64_t n)
{
	return burst(pmu, cpu, 0, 0, ring, n, true, rsp);
}
