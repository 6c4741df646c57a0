/*
 * program.c - see program.h. The order is the one pmustat has always
 * written in: the event selects (and those of an earlier run back to what
 * they were), the fixed fields, the offcore responses, the counters from
 * zero, our overflow bits cleared, and, when another user keeps
 * GLOBAL_CTRL bits set, ours set too when some are clear. EN and the fixed
 * fields stay clear in every mode until the enable, so whatever sets
 * GLOBAL_CTRL bits meanwhile starts nothing.
 */
#include <errno.h>
#include <string.h>

#include "base/err.h"
#include "events/event.h"
#include "pmu/evtsel.h"
#include "pmu/program.h"

uint64_t
pmu_global_bits(uint32_t gp, uint32_t fixed)
{
	uint64_t bits = gp;

	for (unsigned i = 0; i < PMU_MAX_FIXED; i++)
		if (fixed & (1u << i))
			bits |= GLOBAL_FIXED_BIT(i);
	return bits;
}

uint64_t
pmu_run_bits(const struct pmu_program *prog)
{
	return pmu_global_bits(prog->gp, prog->fixed) | (prog->perf_metrics ? GLOBAL_PERF_METRICS_BIT : 0);
}

static void
add(struct pmu_write *list, unsigned *n, unsigned max, struct pmu_write w)
{
	if (*n < max)
		list[(*n)++] = w;
}

#define PROGRAM(...) add(out->program, &out->nprogram, PMU_PROGRAM_MAX, (struct pmu_write){ __VA_ARGS__ })
#define ENABLE(...) add(out->enable, &out->nenable, PMU_SEQ_MAX, (struct pmu_write){ __VA_ARGS__ })
#define DISABLE(...) add(out->disable, &out->ndisable, PMU_SEQ_MAX, (struct pmu_write){ __VA_ARGS__ })

int
pmu_program_build(const struct pmu_caps *caps, uint64_t global_ctrl, bool perf_metrics, const struct event *ev,
		  const struct sched_slot *slots, unsigned n, unsigned run, uint32_t earlier_gp,
		  uint32_t earlier_fixed, struct pmu_program *out, struct pmustat_error **err)
{
	uint64_t evtsel[PMU_MAX_GP] = { 0 };
	uint64_t bits, fmask = 0, ffound = 0, fon = 0, fixed_fields = 0;
	unsigned field[PMU_MAX_FIXED] = { 0 };
	int rc;

	memset(out, 0, sizeof(*out));
	out->run = run;
	for (unsigned k = 0; k < n; k++) {
		const struct sched_slot *s = &slots[k];
		struct event e;

		if (s->run != run || s->kind == SCHED_NONE)
			continue;
		if (s->kind == SCHED_METRICS) {
			out->perf_metrics = true;
			continue;
		}
		if (s->kind == SCHED_FIXED) {
			if (s->index >= PMU_MAX_FIXED)
				return err_set(err, -EINVAL, "fixed counter %u is beyond what pmustat programs", s->index);
			rc = evtsel_fixed_field(&ev[k], caps, &field[s->index], err);
			if (rc)
				return rc;
			out->fixed |= 1u << s->index;
		} else {
			if (s->index >= PMU_MAX_GP)
				return err_set(err, -EINVAL, "general-purpose counter %u is beyond what pmustat programs",
					       s->index);
			sched_slot_event(&ev[k], s, &e);
			rc = evtsel_encode(&e, caps, false, &evtsel[s->index], err);
			if (rc)
				return rc;
			out->gp |= 1u << s->index;
			if (e.extra_msr) {
				unsigned o = e.extra_msr - MSR_OFFCORE_RSP_0;

				if (e.extra_msr < MSR_OFFCORE_RSP_0 || o >= PMU_NUM_OFFCORE)
					return err_set(err, -EINVAL, "event %s needs MSR 0x%x, which pmustat does not program",
						       e.name, e.extra_msr);
				out->offcore_gp[o] = 1u << s->index;
				out->offcore_val[o] = e.extra_value;
			}
		}
	}
	if (out->perf_metrics && !(out->fixed & (1u << PERF_METRICS_FIXED)))
		return err_set(err, -EINVAL, "run %u reads IA32_PERF_METRICS without fixed counter 3", run + 1);
	out->perf_metrics_reg = out->perf_metrics || (perf_metrics && (out->fixed & (1u << PERF_METRICS_FIXED)));
	bits = pmu_run_bits(out);
	/*
	 * GLOBAL_CTRL is ours to toggle too when none of our counters' bits
	 * is set; otherwise somebody (perf) keeps them set and the counters
	 * are started one by one through EN and the fixed fields alone.
	 */
	out->mode = (global_ctrl & bits) == 0 ? PMU_ENABLE_GLOBAL : PMU_ENABLE_PER_COUNTER;

	/*
	 * GLOBAL mode: our GLOBAL_CTRL bits were found clear and are left so
	 * (no read-modify-write to clear them again): EN and the fixed fields
	 * keep the counters off whoever sets those bits until the enable.
	 */
	/* pmu_program() leaves a free counter's to the enable, which writes it whole (pmu.c: left_to_enable()). */
	for (unsigned i = 0; i < PMU_MAX_GP; i++) {
		if (out->gp & (1u << i))
			PROGRAM(.msr = msr_evtsel(i), .mask = UINT64_MAX, .value = evtsel[i]);
		else if (earlier_gp & (1u << i))
			PROGRAM(.msr = msr_evtsel(i), .mask = UINT64_MAX, .found = UINT64_MAX);
	}
	for (unsigned i = 0; i < PMU_MAX_FIXED; i++) {
		uint64_t f = 0xfull << (4 * i);

		if (out->fixed & (1u << i)) {
			fmask |= f;
			fon |= (uint64_t)field[i] << (4 * i);
		} else if (earlier_fixed & (1u << i)) {
			fmask |= f;
			ffound |= f;
		}
	}
	if (fmask)
		PROGRAM(.msr = MSR_IA32_FIXED_CTR_CTRL, .mask = fmask, .value = 0, .found = ffound);
	for (unsigned o = 0; o < PMU_NUM_OFFCORE; o++)
		if (out->offcore_gp[o])
			PROGRAM(.msr = MSR_OFFCORE_RSP_0 + o, .mask = UINT64_MAX, .value = out->offcore_val[o]);
	for (unsigned i = 0; i < PMU_MAX_GP; i++)
		if (out->gp & (1u << i))
			PROGRAM(.msr = msr_pmc(i), .mask = UINT64_MAX, .value = 0);
	for (unsigned i = 0; i < PMU_MAX_FIXED; i++)
		if (out->fixed & (1u << i))
			PROGRAM(.msr = msr_fixed_ctr(i), .mask = UINT64_MAX, .value = 0);
	/*
	 * The SDM: software clears IA32_PERF_METRICS together with FIXED_CTR3
	 * before it starts counting, the counter first. A run that counts
	 * SLOTS without reading it clears it too: the fractions are of
	 * FIXED_CTR3's slots, and with EN_PERF_METRICS set (Linux keeps it
	 * set) they take in this run's; another user's pair goes back at the
	 * end, counter first.
	 */
	if (out->perf_metrics_reg)
		PROGRAM(.msr = MSR_IA32_PERF_METRICS, .mask = UINT64_MAX, .value = 0);
	/* Our overflow bits, as found or left by the last run: write 1 to clear. */
	if (bits)
		PROGRAM(.msr = MSR_IA32_PERF_GLOBAL_STATUS_RESET, .mask = bits, .value = bits, .clear_ovf = true);
	/*
	 * EN and the fields are clear, so setting these starts nothing; when
	 * all of them were found set (Linux sets every counter's), there is
	 * nothing to set.
	 */
	if (out->mode == PMU_ENABLE_PER_COUNTER && bits && (global_ctrl & bits) != bits)
		PROGRAM(.msr = MSR_IA32_PERF_GLOBAL_CTRL, .mask = bits, .value = bits);

	/*
	 * Each counter's own enable gates it always: Linux rewrites
	 * GLOBAL_CTRL with every counter's bit on each PMI exit and context
	 * switch (intel_pmu_enable_all), so a GLOBAL_CTRL bit alone cannot
	 * keep a counter off before the enable or after the disable. When
	 * GLOBAL_CTRL is ours as well, its write comes last in the enable
	 * (every counter starts at once) and first in the disable (every
	 * counter stops at once).
	 */
	if (out->mode == PMU_ENABLE_GLOBAL && bits)
		DISABLE(.msr = MSR_IA32_PERF_GLOBAL_CTRL, .mask = bits, .value = 0);
	for (unsigned i = 0; i < PMU_MAX_FIXED; i++)
		if (out->fixed & (1u << i))
			fixed_fields |= 0xfull << (4 * i);
	if (out->fixed)
		DISABLE(.msr = MSR_IA32_FIXED_CTR_CTRL, .mask = fixed_fields, .value = 0);
	for (unsigned i = 0; i < PMU_MAX_GP; i++) {
		if (!(out->gp & (1u << i)))
			continue;
		ENABLE(.msr = msr_evtsel(i), .mask = UINT64_MAX, .value = evtsel[i] | EVTSEL_EN);
		DISABLE(.msr = msr_evtsel(i), .mask = UINT64_MAX, .value = evtsel[i]);
	}
	if (out->fixed)
		ENABLE(.msr = MSR_IA32_FIXED_CTR_CTRL, .mask = fixed_fields, .value = fon);
	if (out->mode == PMU_ENABLE_GLOBAL && bits)
		ENABLE(.msr = MSR_IA32_PERF_GLOBAL_CTRL, .mask = bits, .value = bits);
	return 0;
}
