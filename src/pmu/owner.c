/*
 * owner.c - see owner.h.
 */
#include <string.h>

#include "base/strbuf.h"
#include "pmu/owner.h"

/* Linux's watchdog: cycles on fixed counter 1, both rings, with its PMI. */
#define WATCHDOG_FIELD (FIXED_CTRL_OS | FIXED_CTRL_USR | FIXED_CTRL_PMI)

/*
 * The counters IA32_PEBS_ENABLE gives to PEBS, as GLOBAL_CTRL bits. With
 * PEBS baseline, bit i is GP counter i and bit 32+i fixed counter i;
 * before it (Nehalem to Skylake), bits 35:32 are the load-latency enables
 * LL_EN_PMC0-3 of GP counters 0-3.
 */
static uint64_t
pebs_counters(const struct pmu_owner_regs *regs)
{
	uint64_t v = regs->pebs_enable;

	if (regs->pebs_baseline)
		return v;
	return (v & 0xffffffffull) | ((v >> 32) & 0xfull);
}

void
pmu_owner_scan(const struct pmu_owner_regs *regs, const struct pmu_owner_hints *hints,
	       struct pmu_occupancy *out)
{
	enum pmu_owner ours = PMU_OWNER_UNKNOWN;
	bool watchdog_on = hints && hints->watchdog_on;
	uint64_t pebs_on = pebs_counters(regs);

	memset(out, 0, sizeof(*out));
	/* pmustat never sets INT or PMI; a live run beats a journal left by a dead one. */
	if (hints && hints->live_pid > 0)
		ours = PMU_OWNER_PMUSTAT;
	else if (hints && hints->killed_pid > 0)
		ours = PMU_OWNER_PMUSTAT_KILLED;
	out->perf_metrics = regs->perf_metrics && (regs->fixed_mask & (1u << PERF_METRICS_FIXED));
	if (hints) {
		out->live_pid = hints->live_pid;
		out->killed_pid = hints->killed_pid;
	}
	for (unsigned i = 0; i < PMU_MAX_GP; i++) {
		uint64_t v = regs->evtsel[i];
		bool pebs = pebs_on & (1ull << i);
		bool reload = regs->acr_cfg_b[i] != 0;

		if (!(regs->gp_mask & (1u << i)))
			continue;
		if (!(v & (EVTSEL_EN | 0xffffu)) && !(regs->inuse & (1ull << i)) && !pebs && !reload)
			continue;
		out->busy_gp |= 1u << i;
		out->evtsel[i] = v;
		/* A reload configuration is Linux's (pmustat never writes one), live even with EVTSEL clear. */
		out->gp[i] = (v & EVTSEL_INT) || pebs || reload ? PMU_OWNER_PERF : ours;
	}
	for (unsigned i = 0; i < PMU_MAX_FIXED; i++) {
		unsigned f = (unsigned)FIXED_CTRL_FIELD(regs->fixed_ctrl, i);
		bool pebs = pebs_on & GLOBAL_FIXED_BIT(i);

		if (!(regs->fixed_mask & (1u << i)))
			continue;
		if (!f && !(regs->inuse & GLOBAL_FIXED_BIT(i)) && !pebs)
			continue;
		out->busy_fixed |= 1u << i;
		out->field[i] = f;
		if (i == 1 && watchdog_on && (f & ~FIXED_CTRL_ANY) == WATCHDOG_FIELD)
			out->fixed[i] = PMU_OWNER_NMI_WATCHDOG;
		else if ((f & FIXED_CTRL_PMI) || pebs)
			out->fixed[i] = PMU_OWNER_PERF;
		else
			out->fixed[i] = ours;
	}
}

bool
pmu_owner_watchdog_on(const char *nmi_watchdog)
{
	return nmi_watchdog && nmi_watchdog[0] == '1';
}

const char *
pmu_owner_name(enum pmu_owner owner)
{
	switch (owner) {
	case PMU_OWNER_NONE:
		return "none";
	case PMU_OWNER_NMI_WATCHDOG:
		return "nmi_watchdog";
	case PMU_OWNER_PERF:
		return "perf";
	case PMU_OWNER_PMUSTAT:
		return "pmustat";
	case PMU_OWNER_PMUSTAT_KILLED:
		return "pmustat_killed";
	case PMU_OWNER_UNKNOWN:
		break;
	}
	return "unknown";
}

const char *
pmu_owner_who(enum pmu_owner owner)
{
	switch (owner) {
	case PMU_OWNER_NONE:
		return "nobody";
	case PMU_OWNER_NMI_WATCHDOG:
		return "the NMI watchdog (disable it: sudo sysctl kernel.nmi_watchdog=0)";
	case PMU_OWNER_PERF:
		return "perf_events (a perf session, or the NMI watchdog: see 'perf stat'/'perf record' processes)";
	case PMU_OWNER_PMUSTAT:
		return "another pmustat run";
	case PMU_OWNER_PMUSTAT_KILLED:
		return "a killed pmustat run ('pmustat reset' puts back what it saved)";
	case PMU_OWNER_UNKNOWN:
		break;
	}
	return "a tool that programs the MSRs directly (another pmustat, likwid, wrmsr)";
}

bool
pmu_owner_pmustat_style(enum pmu_owner owner)
{
	return owner == PMU_OWNER_PMUSTAT || owner == PMU_OWNER_PMUSTAT_KILLED || owner == PMU_OWNER_UNKNOWN;
}

void
pmu_occupancy_describe(const struct pmu_occupancy *o, uint32_t gp, uint32_t fixed, struct strbuf *b)
{
	bool first = true;

	for (unsigned i = 0; i < PMU_MAX_FIXED; i++) {
		if (!(o->busy_fixed & fixed & (1u << i)))
			continue;
		strbuf_printf(b, "%sfixed%u (IA32_FIXED_CTR_CTRL field 0x%x): %s", first ? "" : "; ", i,
			      o->field[i], pmu_owner_who(o->fixed[i]));
		first = false;
	}
	for (unsigned i = 0; i < PMU_MAX_GP; i++) {
		if (!(o->busy_gp & gp & (1u << i)))
			continue;
		strbuf_printf(b, "%spmc%u (IA32_PERFEVTSEL%u = 0x%llx): %s", first ? "" : "; ", i, i,
			      (unsigned long long)o->evtsel[i], pmu_owner_who(o->gp[i]));
		first = false;
	}
}

void
pmu_owner_scan_nb(const uint64_t cccr[NB_COUNTERS], const uint64_t escr[NB_ESCRS], struct pmu_occupancy *out)
{
	for (unsigned i = 0; i < NB_ESCRS; i++) {
		if (!(escr[i] & NB_ESCR_ARMED))
			continue;
		out->nb_busy_escrs |= 1ull << i;
		out->nb_escr[i] = escr[i];
	}
	for (unsigned i = 0; i < NB_COUNTERS; i++) {
		int x = nb_escr_for(i, NB_CCCR_GET_SELECT(cccr[i]));
		bool enabled = cccr[i] & NB_CCCR_ENABLE;

		if (!enabled && (cccr[i] == 0 || x < 0 || !(out->nb_busy_escrs & (1ull << x))))
			continue;
		out->nb_busy |= 1u << i;
		out->nb_cccr[i] = cccr[i];
		if (x >= 0) {
			out->nb_busy_escrs |= 1ull << x;
			out->nb_escr[x] = escr[x];
		}
	}
}
