/*
 * emu_regs.c - RDMSR, WRMSR and RDPMC on the emulated PMU: which MSRs
 * exist and which bits a write may set (emu_core_type's *_valid masks,
 * derived here from the type's CPUID). Sections named are the SDM vol. 3B's.
 */
#include <errno.h>

#include "emu_internal.h"
#include "emu_netburst.h"
#include "emu_zen.h"
#include "pmu/msr.h"

/* @msr is counter @i of a bank at @base, @stride apart, and @mask has it. */
static bool
in_bank(uint32_t mask, unsigned max, uint32_t msr, uint32_t base, unsigned stride, unsigned *i)
{
	if (msr < base || (msr - base) % stride || (msr - base) / stride >= max)
		return false;
	*i = (msr - base) / stride;
	return (mask >> *i) & 1;
}

static bool
gp_exists(const struct emu_core_type *t, uint32_t msr, uint32_t base, unsigned stride,
	  unsigned *i)
{
	return in_bank(t->gp_mask, EMU_MAX_GP, msr, base, stride, i);
}

static bool
fixed_exists(const struct emu_core_type *t, uint32_t msr, uint32_t base, unsigned stride,
	     unsigned *i)
{
	return in_bank(t->fixed_mask, EMU_MAX_FIXED, msr, base, stride, i);
}

/*
 * The counter MSRs: legacy IA32_PMCx (@legacy), IA32_A_PMCx (with
 * PERF_CAPABILITIES[13]) and, on v6, the aliases IA32_PMC_GPn_CTR
 * (0x1900 + 4n), which Linux uses from v6 on ("Perfmon MSRs aliasing").
 */
static bool
gp_counter(const struct emu_core_type *t, uint32_t msr, unsigned *i, bool *legacy)
{
	*legacy = gp_exists(t, msr, MSR_IA32_PMC0, 1, i);
	if (*legacy)
		return true;
	if (t->full_width_write && gp_exists(t, msr, MSR_IA32_A_PMC0, 1, i))
		return true;
	return t->version >= 6 && gp_exists(t, msr, EMU_MSR_V6_GP0_CTR, EMU_MSR_V6_STEP, i);
}

static bool
gp_evtsel(const struct emu_core_type *t, uint32_t msr, unsigned *i)
{
	return gp_exists(t, msr, MSR_IA32_PERFEVTSEL0, 1, i) ||
		(t->version >= 6 && gp_exists(t, msr, EMU_MSR_V6_GP0_CFG_A, EMU_MSR_V6_STEP, i));
}

/* IA32_PMC_GPn_CFG_B or _CFG_C (@base) of a counter CPUID.23H.2 gives auto counter reload. */
static bool
acr_reg(const struct emu_core_type *t, uint32_t msr, uint32_t base, unsigned *i)
{
	return in_bank(t->acr_gp_mask, EMU_MAX_GP, msr, base, EMU_MSR_V6_STEP, i);
}

static bool
fixed_counter(const struct emu_core_type *t, uint32_t msr, unsigned *i)
{
	return fixed_exists(t, msr, MSR_IA32_FIXED_CTR0, 1, i) ||
		(t->version >= 6 && fixed_exists(t, msr, EMU_MSR_V6_FX0_CTR, EMU_MSR_V6_STEP, i));
}

int
emu_read_reg(const struct emu_pmu *pmu, unsigned cpu, uint32_t msr, uint64_t *val)
{
	const struct emu_core_type *t = emu_cpu_type(pmu, cpu);
	const struct emu_regs *r;
	unsigned i;
	bool legacy;

	if (t && t->netburst)
		return emu_nb_rdmsr(pmu, cpu, msr, val);
	if (t && t->zen)
		return emu_zen_rdmsr(pmu, cpu, msr, val);
	if (!t || t->version == 0)
		return -EIO;
	r = &pmu->cpu[cpu].regs;
	if (gp_evtsel(t, msr, &i)) {
		*val = r->evtsel[i];
	} else if (gp_counter(t, msr, &i, &legacy)) {
		*val = r->pmc[i];
	} else if (fixed_counter(t, msr, &i)) {
		*val = r->fixed_ctr[i];
	} else if (msr == MSR_IA32_PERF_CAPABILITIES && t->pdcm) {
		*val = t->perf_capabilities;
	} else if (t->offcore && (msr == MSR_OFFCORE_RSP_0 || msr == MSR_OFFCORE_RSP_1)) {
		*val = r->offcore_rsp[msr - MSR_OFFCORE_RSP_0];
	} else if (msr == EMU_MSR_DEBUGCTL) {
		*val = r->debugctl;
	} else if (msr == EMU_MSR_PEBS_ENABLE && t->pebs) {
		*val = r->pebs_enable;
	} else if (acr_reg(t, msr, EMU_MSR_V6_GP0_CFG_B, &i)) {
		*val = r->acr_cfg_b[i];
	} else if (acr_reg(t, msr, EMU_MSR_V6_GP0_CFG_C, &i)) {
		*val = r->acr_cfg_c[i];
	} else if (msr == EMU_MSR_MISC_ENABLE) {
		*val = t->misc_enable;
	} else if (msr == EMU_MSR_PERF_METRICS && t->topdown) {
		*val = emu_td_read(t, r);
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
	err = emu_read_reg(pmu, cpu, msr, val);
	if (err)
		pmu->cpu[cpu].stats.gp_faults++;
	return err;
}

/* The counter, control and status MSRs (the others: write_reg). */
static int
write_counting_reg(const struct emu_core_type *t, struct emu_regs *r, uint32_t msr, uint64_t val)
{
	uint64_t gp_mask = emu_low_bits(t->gp_width);
	unsigned i;
	bool legacy;

	if (gp_evtsel(t, msr, &i)) {
		if (val & ~((i == 2 ? t->evtsel2_valid : t->evtsel_valid) |
			    (((t->br_cntr_counters >> i) & 1) ? EMU_EVTSEL_BR_CNTR : 0)))
			return -EIO;
		r->evtsel[i] = val;
	} else if (gp_counter(t, msr, &i, &legacy)) {
		if (legacy) {
			/*
			 * Legacy writes take EAX only and sign-extend bit 31 to
			 * the counter's width (section "Full-Width Writes to
			 * Performance Counter Registers"); EDX is ignored.
			 */
			r->pmc[i] = (uint64_t)(int64_t)(int32_t)(uint32_t)val & gp_mask;
		} else {
			if (val & ~gp_mask)
				return -EIO;
			r->pmc[i] = val;
		}
	} else if (fixed_counter(t, msr, &i)) {
		/* "Bits beyond the width of the fixed counter are reserved." */
		if (val & ~emu_low_bits(t->fixed_width))
			return -EIO;
		r->fixed_ctr[i] = val;
	} else if (t->version >= 2 && msr == MSR_IA32_FIXED_CTR_CTRL) {
		if (val & ~t->fixed_ctrl_valid)
			return -EIO;
		r->fixed_ctr_ctrl = val;
	} else if (t->version >= 2 && msr == MSR_IA32_PERF_GLOBAL_CTRL) {
		if (val & ~t->global_ctrl_valid)
			return -EIO;
		r->global_ctrl = val;
	} else if (t->version >= 2 && msr == MSR_IA32_PERF_GLOBAL_STATUS_RESET) {
		/*
		 * Write 1 to clear; writing 0 clears nothing. Clearing CTR_Frz
		 * unfreezes the counters (section "Architectural Performance
		 * Monitoring Version 4").
		 */
		if (val & ~t->global_status_valid)
			return -EIO;
		r->global_status &= ~val;
	} else if (t->version >= 4 && msr == MSR_IA32_PERF_GLOBAL_STATUS_SET) {
		/* Write 1 to set; CondChgd (bit 63) cannot be set. CTR_Frz set freezes. */
		if (val & ~(t->global_status_valid & ~EMU_STATUS_COND_CHGD))
			return -EIO;
		r->global_status |= val;
	} else {
		return -ENOENT;
	}
	return 0;
}

static int
write_reg(struct emu_pmu *pmu, unsigned cpu, uint32_t msr, uint64_t val)
{
	const struct emu_core_type *t = emu_cpu_type(pmu, cpu);
	struct emu_regs *r = &pmu->cpu[cpu].regs;
	unsigned i;
	int err;

	if (t && t->netburst)
		return emu_nb_wrmsr(pmu, cpu, msr, val);
	if (t && t->zen)
		return emu_zen_wrmsr(pmu, cpu, msr, val);
	if (!t || t->version == 0)
		return -EIO;
	err = write_counting_reg(t, r, msr, val);
	if (err != -ENOENT)
		return err;
	if (t->offcore && (msr == MSR_OFFCORE_RSP_0 || msr == MSR_OFFCORE_RSP_1)) {
		if (val & ~t->offcore_valid)
			return -EIO;
		r->offcore_rsp[msr - MSR_OFFCORE_RSP_0] = val;
	} else if (msr == EMU_MSR_DEBUGCTL) {
		if (val & ~t->debugctl_valid)
			return -EIO;
		r->debugctl = val;
	} else if (msr == EMU_MSR_PEBS_ENABLE && t->pebs) {
		if (val & ~t->pebs_valid)
			return -EIO;
		r->pebs_enable = val;
	} else if (msr == EMU_MSR_PERF_METRICS && t->topdown) {
		if (val & ~t->perf_metrics_valid)
			return -EIO;
		emu_td_write(t, r, val);
	} else if (acr_reg(t, msr, EMU_MSR_V6_GP0_CFG_B, &i)) {
		if (val & ~t->acr_cause_valid)
			return -EIO;
		r->acr_cfg_b[i] = val;
	} else if (acr_reg(t, msr, EMU_MSR_V6_GP0_CFG_C, &i)) {
		if (val & ~emu_low_bits(t->gp_width))
			return -EIO;
		r->acr_cfg_c[i] = val;
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
	uint32_t index = ecx & 0x1fffffffu;

	if (!t)
		return -ENXIO;
	if (pmu->config.rdpmc_off)
		return -EPERM;
	pmu->cpu[cpu].stats.rdpmc++;
	if (t->netburst)
		return emu_nb_rdpmc(pmu, cpu, ecx, val);
	if (t->zen)
		return emu_zen_rdpmc(pmu, cpu, ecx, val);
	r = &pmu->cpu[cpu].regs;
	/* ECX[31] (fast read, P6 only) and an index beyond the counters: #GP. */
	if (t->version == 0 || (ecx & 0x80000000u))
		return -EIO;
	if ((ecx & RDPMC_FIXED) && (ecx & EMU_RDPMC_METRICS))
		return -EIO;
	if (ecx & EMU_RDPMC_METRICS) {
		/* Linux's INTEL_PMC_FIXED_RDPMC_METRICS: PERF_METRICS at index 0. */
		if (!t->topdown || index != 0)
			return -EIO;
		*val = emu_td_read(t, r);
	} else if (ecx & RDPMC_FIXED) {
		if (index >= EMU_MAX_FIXED || !(t->fixed_mask & (1u << index)))
			return -EIO;
		*val = r->fixed_ctr[index];
	} else {
		if (index >= EMU_MAX_GP || !(t->gp_mask & (1u << index)))
			return -EIO;
		*val = r->pmc[index];
	}
	return 0;
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
	/*
	 * Section "Performance Monitoring Resource In-Use MSR": bit n is
	 * (IA32_PERFEVTSELn[7:0] != 0), bit 32+i (IA32_FIXED_CTR_CTRL's enable
	 * field i != 0), PMI_InUse (63) any EVTSELn.INT, fixed ENi_PMI or
	 * IA32_PEBS_ENABLE counter enable (a PEBS counter's PMI comes from
	 * the PEBS buffer, so perf clears its INT bit).
	 */
	for (unsigned i = 0; i < t->gp; i++) {
		if (!(t->gp_mask & (1u << i)))
			continue;
		if (r->evtsel[i] & 0xff)
			inuse |= 1ull << i;
		if (r->evtsel[i] & EVTSEL_INT)
			inuse |= EMU_INUSE_PMI;
	}
	for (unsigned i = 0; i < t->fixed; i++) {
		unsigned field = FIXED_CTRL_FIELD(r->fixed_ctr_ctrl, i);

		if (field & (FIXED_CTRL_OS | FIXED_CTRL_USR))
			inuse |= GLOBAL_FIXED_BIT(i);
		if (field & FIXED_CTRL_PMI)
			inuse |= EMU_INUSE_PMI;
	}
	if (r->pebs_enable & t->pebs_counters)
		inuse |= EMU_INUSE_PMI;
	return inuse;
}

void
emu_setup_valid_bits(struct emu_core_type *t)
{
	const uint32_t *leaf_a = t->cpuid.basic_cpuid[0xa];
	const uint32_t *leaf7 = t->cpuid.basic_cpuid[7];
	const uint32_t *l23_0 = t->hi_leaf[0x23 - EMU_HI_LEAF0][0];
	uint64_t caps = t->perf_capabilities;
	/* AnyThread exists from v3 until CPUID.0AH:EDX[15] deprecates it. */
	bool anythread = t->version >= 3 && !((leaf_a[3] >> 15) & 1);
	bool baseline = caps & EMU_PERF_CAP_PEBS_BASELINE;
	bool rtm = (leaf7[1] >> 11) & 1;

	/*
	 * IN_TX and IN_TXCP "may only be set if the processor supports HLE or
	 * RTM", and IN_TXCP "only for IA32_PERFEVTSEL2" (section "Performance
	 * Monitoring and Intel TSX").
	 */
	t->tsx = ((leaf7[1] >> 4) & 1) || rtm;
	t->evtsel_valid = 0xffffffffull & ~(anythread ? 0 : EVTSEL_ANY);
	/* Linux's ICL_EVENTSEL_ADAPTIVE: a PEBS counter's adaptive record. */
	if (baseline)
		t->evtsel_valid |= EMU_EVTSEL_ADAPTIVE;
	/* v6: UMASK2 with CPUID.23H.0:EBX[0], EQ with EBX[1]. */
	if (t->version >= 6 && t->cpuid.basic_cpuid[0][0] >= 0x23) {
		if (l23_0[1] & 1)
			t->evtsel_valid |= EMU_EVTSEL_UMASK2;
		if (l23_0[1] & 2)
			t->evtsel_valid |= EMU_EVTSEL_EQ;
	}
	if (t->tsx)
		t->evtsel_valid |= EMU_EVTSEL_IN_TX;
	t->evtsel2_valid = t->evtsel_valid | (t->tsx ? EMU_EVTSEL_IN_TXCP : 0);
	/*
	 * Branch-counter logging into the architectural LBRs (Sierra Forest,
	 * Lunar and Arrow Lake): CPUID.7.0:EDX[19] (Arch LBR), and
	 * CPUID.1CH:ECX[19:16] the GP counters whose event select may set it
	 * (Linux's lbr_counters, ARCH_PERFMON_EVENTSEL_BR_CNTR).
	 */
	/*
	 * Auto counter reload (v6, CPUID.23H.0:EAX[2]: subleaf 2 valid): EAX
	 * the GP counters that have IA32_PMC_GPn_CFG_B/CFG_C, ECX (GP) and
	 * EDX (fixed, bits 32+) the counters whose overflow may reload them.
	 */
	t->acr_gp_mask = 0;
	t->acr_cause_valid = 0;
	if (t->version >= 6 && t->cpuid.basic_cpuid[0][0] >= 0x23 && (l23_0[0] & 4)) {
		const uint32_t *l23_2 = t->hi_leaf[0x23 - EMU_HI_LEAF0][2];

		t->acr_gp_mask = l23_2[0] & t->gp_mask;
		t->acr_cause_valid = (l23_2[2] & t->gp_mask) | (uint64_t)(l23_2[3] & t->fixed_mask) << 32;
	}
	t->br_cntr_counters = 0;
	if (((leaf7[3] >> 19) & 1) && t->cpuid.basic_cpuid[0][0] >= 0x1c)
		t->br_cntr_counters = (t->cpuid.basic_cpuid[0x1c][2] >> 16) & 0xf & t->gp_mask;

	t->fixed_ctrl_valid = 0;
	for (unsigned i = 0; i < t->fixed; i++) {
		uint64_t field = FIXED_CTRL_OS | FIXED_CTRL_USR | FIXED_CTRL_PMI;

		if (!(t->fixed_mask & (1u << i)))
			continue;
		if (anythread)
			field |= FIXED_CTRL_ANY;
		t->fixed_ctrl_valid |= field << (4 * i);
		/* Linux's ICL_FIXED_0_ADAPTIVE: bit 32 + 4i with PEBS baseline. */
		if (baseline)
			t->fixed_ctrl_valid |= 1ull << (32 + 4 * i);
	}

	t->global_ctrl_valid = t->gp_mask | ((uint64_t)t->fixed_mask << 32);
	t->global_status_valid = t->global_ctrl_valid | EMU_STATUS_OVF_BUF | EMU_STATUS_COND_CHGD;
	if (t->version >= 3)
		t->global_status_valid |= EMU_STATUS_OVF_UNCORE;
	if (t->version >= 4)
		t->global_status_valid |= EMU_STATUS_TOPA_PMI | EMU_STATUS_LBR_FRZ |
			EMU_STATUS_CTR_FRZ;
	/* ASCI: "If CPUID.(EAX=07H, ECX=0):EBX[2] = 1" (SGX), table 2-2. */
	if (t->version >= 4 && ((leaf7[1] >> 2) & 1))
		t->global_status_valid |= EMU_STATUS_ASCI;
	if (t->topdown) {
		t->global_ctrl_valid |= EMU_GLOBAL_CTRL_PERF_METRICS;
		t->global_status_valid |= EMU_STATUS_PERF_METRICS;
		t->perf_metrics_valid = emu_low_bits(8 * t->topdown);
	}
	/* Request [15:0] and response [37:16] fields (Skylake's layout). */
	t->offcore_valid = t->offcore ? emu_low_bits(38) : 0;

	/*
	 * IA32_DEBUGCTL: LBR [0], BTF [1], TR [6], BTS [7], BTINT [8],
	 * BTS_OFF_OS/USR [10:9], FREEZE_LBRS_ON_PMI [11], FREEZE_PERFMON_ON_PMI
	 * [12]; UNCORE_PMI_EN [13] from Nehalem (v3); FREEZE_WHILE_SMM [14]
	 * with PERF_CAPABILITIES[12]; RTM_DEBUG [15] with RTM; BUS_LOCK_DETECT
	 * [2] with CPUID.7.0:ECX[24].
	 */
	t->debugctl_valid = 0x1fc3;
	if (t->version >= 3)
		t->debugctl_valid |= 1ull << 13;
	if (caps & EMU_PERF_CAP_SMM_FREEZE)
		t->debugctl_valid |= 1ull << 14;
	if (rtm)
		t->debugctl_valid |= 1ull << 15;
	if ((leaf7[2] >> 24) & 1)
		t->debugctl_valid |= 1ull << 2;

	/*
	 * IA32_PEBS_ENABLE (with CPUID.1:EDX.DS): Core's PEBS is IA32_PMC0
	 * only (bit 0); Nehalem to Skylake have PEBS_EN_PMC0-3 [3:0] and the
	 * load-latency LL_EN_PMC0-3 [35:32] (Sandy/Ivy Bridge's PS_EN [63] is
	 * no model here); with PEBS baseline (extended PEBS, Ice Lake and
	 * Gracemont on) every GP counter [n-1:0] and fixed counter [32+i].
	 */
	t->pebs = (t->cpuid.basic_cpuid[1][3] >> 21) & 1;
	if (!t->pebs)
		t->pebs_counters = 0;
	else if (baseline)
		t->pebs_counters = t->global_ctrl_valid & ~EMU_GLOBAL_CTRL_PERF_METRICS;
	else if (t->version >= 3)
		t->pebs_counters = t->gp_mask & 0xf;
	else
		t->pebs_counters = t->gp_mask & 1;
	t->pebs_valid = t->pebs_counters;
	if (t->pebs && !baseline && t->version >= 3)
		t->pebs_valid |= t->pebs_counters << 32;
}
