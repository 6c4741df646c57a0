/*
 * emu_party.c - the other parties that share a real PMU, acting on one
 * CPU as they would (see emu_action.h for each action). Every write goes
 * through the CPU's rules (emu_wrmsr), so a party that would #GP here
 * would #GP on the hardware too.
 */
#include <errno.h>

#include "emu_action.h"
#include "emu_internal.h"
#include "emu_netburst.h"
#include "pmu/msr.h"

_Static_assert(EMU_ACTION_TD == EMU_TD_COUNT, "emu_action.h and enum emu_td disagree");

/*
 * handle_pmi_common() on GLOBAL_STATUS[48] (PERF_METRICS overflow) calls
 * intel_update_topdown_event(NULL), whether or not a top-down event of
 * Linux's runs: it reads FIXED_CTR3 and, unless it is 0, folds the pair
 * into its own events and writes FIXED_CTR3 = 0, then PERF_METRICS = 0
 * (the counter first: the metrics are derived from it).
 */
static int
topdown_reset(struct emu_pmu *pmu, unsigned cpu)
{
	uint64_t slots;
	int err;

	if ((err = emu_rdmsr(pmu, cpu, msr_fixed_ctr(PERF_METRICS_FIXED), &slots)) || slots == 0)
		return err;
	if ((err = emu_wrmsr(pmu, cpu, msr_fixed_ctr(PERF_METRICS_FIXED), 0)))
		return err;
	return emu_wrmsr(pmu, cpu, MSR_IA32_PERF_METRICS, 0);
}

/*
 * Linux's intel_pmu_handle_irq(): __intel_pmu_disable_all() writes 0 to
 * GLOBAL_CTRL, intel_pmu_get_status() reads GLOBAL_STATUS and
 * intel_pmu_ack_status() writes every set bit back to GLOBAL_STATUS_RESET
 * (its own counters' or not, CTR_Frz and LBR_Frz included), then
 * handle_pmi_common() handles the bits (the top-down reset above), and
 * __intel_pmu_enable_all() writes its own GLOBAL_CTRL value.
 */
static int
nmi(struct emu_pmu *pmu, unsigned cpu, const struct emu_action *a)
{
	uint64_t ctrl, status;
	int err;

	if ((err = emu_rdmsr(pmu, cpu, MSR_IA32_PERF_GLOBAL_CTRL, &ctrl)) ||
	    (err = emu_wrmsr(pmu, cpu, MSR_IA32_PERF_GLOBAL_CTRL, 0)) ||
	    (err = emu_rdmsr(pmu, cpu, MSR_IA32_PERF_GLOBAL_STATUS, &status)))
		return err;
	if (status && (err = emu_wrmsr(pmu, cpu, MSR_IA32_PERF_GLOBAL_STATUS_RESET, status)))
		return err;
	if ((status & GLOBAL_PERF_METRICS_BIT) && (err = topdown_reset(pmu, cpu)))
		return err;
	return emu_wrmsr(pmu, cpu, MSR_IA32_PERF_GLOBAL_CTRL, a->has_val ? a->val : ctrl);
}

/*
 * perf's counting event on a fixed counter: x86_perf_event_set_period()
 * writes -max_period (max_period = half the counter's range, minus one),
 * intel_pmu_enable_fixed() sets OS|USR and PMI in its FIXED_CTR_CTRL field
 * by read-modify-write, and GLOBAL_CTRL gets its bit.
 */
static int
take_fixed(struct emu_pmu *pmu, unsigned cpu, unsigned i)
{
	const struct emu_core_type *t = emu_cpu_type(pmu, cpu);
	uint64_t ctrl, global, mask = emu_low_bits(t->fixed_width);
	int err;

	if (i >= EMU_MAX_FIXED || !(t->fixed_mask & (1u << i)))
		return -EOPNOTSUPP;
	if ((err = emu_rdmsr(pmu, cpu, MSR_IA32_FIXED_CTR_CTRL, &ctrl)))
		return err;
	if (FIXED_CTRL_FIELD(ctrl, i) & (FIXED_CTRL_OS | FIXED_CTRL_USR))
		return -EBUSY;
	ctrl |= (uint64_t)(FIXED_CTRL_OS | FIXED_CTRL_USR | FIXED_CTRL_PMI) << (4 * i);
	if ((err = emu_wrmsr(pmu, cpu, msr_fixed_ctr(i), (0 - (mask >> 1)) & mask)) ||
	    (err = emu_wrmsr(pmu, cpu, MSR_IA32_FIXED_CTR_CTRL, ctrl)) ||
	    (err = emu_rdmsr(pmu, cpu, MSR_IA32_PERF_GLOBAL_CTRL, &global)))
		return err;
	return emu_wrmsr(pmu, cpu, MSR_IA32_PERF_GLOBAL_CTRL, global | GLOBAL_FIXED_BIT(i));
}

/*
 * perf's PEBS event (intel_pmu_pebs_enable()): the event select without
 * its INT bit (the PMI comes from the PEBS buffer), the counter's bit in
 * IA32_PEBS_ENABLE, then GLOBAL_CTRL's.
 */
static int
pebs(struct emu_pmu *pmu, unsigned cpu, const struct emu_action *a)
{
	const struct emu_core_type *t = emu_cpu_type(pmu, cpu);
	uint64_t sel, enable, global;
	unsigned i = a->index;
	int err;

	if (i >= EMU_MAX_GP || !((t->pebs_counters >> i) & 1) || !(t->gp_mask & (1u << i)))
		return -EOPNOTSUPP;
	if ((err = emu_rdmsr(pmu, cpu, msr_evtsel(i), &sel)))
		return err;
	if (sel & (0xff | EVTSEL_EN))
		return -EBUSY;
	sel = EVTSEL_EVENT(a->code) | EVTSEL_UMASK(a->umask) | EVTSEL_USR | EVTSEL_OS | EVTSEL_EN;
	if ((err = emu_wrmsr(pmu, cpu, msr_pmc(i), 0)) ||
	    (err = emu_wrmsr(pmu, cpu, msr_evtsel(i), sel)) ||
	    (err = emu_rdmsr(pmu, cpu, EMU_MSR_PEBS_ENABLE, &enable)) ||
	    (err = emu_wrmsr(pmu, cpu, EMU_MSR_PEBS_ENABLE, enable | (1ull << i))) ||
	    (err = emu_rdmsr(pmu, cpu, MSR_IA32_PERF_GLOBAL_CTRL, &global)))
		return err;
	return emu_wrmsr(pmu, cpu, MSR_IA32_PERF_GLOBAL_CTRL, global | (1ull << i));
}

int
emu_act(struct emu_pmu *pmu, unsigned cpu, const struct emu_action *a)
{
	const struct emu_core_type *t = emu_cpu_type(pmu, cpu);

	if (!t)
		return -ENXIO;
	switch (a->kind) {
	case EMU_ACT_WRMSR:
		return emu_wrmsr(pmu, cpu, a->msr, a->val);
	case EMU_ACT_RETIRE:
		return emu_retire(pmu, cpu, a->code, a->umask, a->ring, a->n);
	case EMU_ACT_NMI:
		return nmi(pmu, cpu, a);
	case EMU_ACT_TAKE_FIXED:
		return t->version < 2 ? -EOPNOTSUPP : take_fixed(pmu, cpu, a->index);
	case EMU_ACT_PEBS:
		return t->version < 2 || !t->pebs ? -EOPNOTSUPP : pebs(pmu, cpu, a);
	case EMU_ACT_OFFCORE:
		return t->offcore ? emu_retire_offcore(pmu, cpu, a->ring, a->val, a->n) : -EOPNOTSUPP;
	case EMU_ACT_TOPDOWN:
		return emu_retire_topdown(pmu, cpu, a->ring, a->slots);
	case EMU_ACT_NB_CLOCKS:
		return t->netburst ? emu_nb_clocks(pmu, cpu, a->code, (unsigned)a->val, a->ring,
						   a->index, a->n) : -EOPNOTSUPP;
	case EMU_ACT_TSC:
		pmu->tsc += a->n;
		return 0;
	}
	return -EINVAL;
}
