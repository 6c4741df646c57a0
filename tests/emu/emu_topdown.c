/*
 * emu_topdown.c - top-down slots and IA32_PERF_METRICS (0x329), on P-cores
 * from Ice Lake with PERF_CAPABILITIES[15] (SDM vol. 3B, "Performance
 * Metrics"; Linux's topdown.txt and icl_update_topdown_event()).
 *
 * PERF_METRICS holds one 8-bit fraction of 0xFF per category: Retiring
 * [7:0], Bad Speculation [15:8], Frontend Bound [23:16], Backend Bound
 * [31:24], and with eight metrics (Golden Cove on) Heavy Operations
 * [39:32], Branch Mispredicts [47:40], Fetch Latency [55:48], Memory Bound
 * [63:56], each level-2 one a part of its level-1 parent. "The values in
 * PERF_METRICS are derived from fixed counter 3" (Linux): the metric's
 * slots are (byte / 0xFF) x FIXED_CTR3, which is why software writes
 * FIXED_CTR3 before PERF_METRICS, and zero to both to start afresh.
 *
 * The emulator keeps, per category k, td[k] = 255 x the slots of k taken
 * in since PERF_METRICS was written, plus the written byte x FIXED_CTR3 at
 * the write. A read divides by FIXED_CTR3 now. So a value written back
 * after FIXED_CTR3 reads back exactly, and slots retired from zero read as
 * the exact fractions. How the hardware rounds is not documented; the
 * emulator (a choice, see README.md):
 *  - level 1: when the four td add up to 255 x FIXED_CTR3 (slots retired
 *    from zero, or a consistent value written), floor each and give the
 *    units left to the largest remainders (lowest byte first on ties), so
 *    the four bytes sum to 0xFF as Linux's topdown.txt says they do;
 *    otherwise each rounds to nearest, at most 0xFF;
 *  - level 2: round to nearest, at most its parent's byte;
 *  - FIXED_CTR3 = 0 reads 0.
 */
#include <errno.h>

#include "emu_internal.h"

__extension__ typedef unsigned __int128 u128;

static uint64_t
sat_add(uint64_t a, u128 b)
{
	u128 sum = (u128)a + b;

	return sum > UINT64_MAX ? UINT64_MAX : (uint64_t)sum;
}

static unsigned
rounded(uint64_t td, uint64_t slots)
{
	u128 v = ((u128)td + slots / 2) / slots;

	return v > 0xff ? 0xff : (unsigned)v;
}

uint64_t
emu_td_read(const struct emu_core_type *t, const struct emu_regs *r)
{
	uint64_t slots = r->fixed_ctr[3];
	unsigned byte[EMU_TD_COUNT] = { 0 };
	uint64_t rem[4];
	u128 sum = 0;
	uint64_t val = 0;

	if (!t->topdown || slots == 0)
		return 0;
	for (unsigned k = 0; k < 4; k++)
		sum += r->td[k];
	if (sum == (u128)255 * slots) {
		unsigned left = 255;

		for (unsigned k = 0; k < 4; k++) {
			byte[k] = (unsigned)(r->td[k] / slots);
			rem[k] = r->td[k] % slots;
			left -= byte[k];
		}
		while (left--) {
			unsigned best = 0;

			for (unsigned k = 1; k < 4; k++)
				if (rem[k] > rem[best])
					best = k;
			byte[best]++;
			rem[best] = 0;
		}
	} else {
		for (unsigned k = 0; k < 4; k++)
			byte[k] = rounded(r->td[k], slots);
	}
	for (unsigned k = 4; k < t->topdown; k++) {
		byte[k] = rounded(r->td[k], slots);
		if (byte[k] > byte[k - 4])
			byte[k] = byte[k - 4];
	}
	for (unsigned k = 0; k < t->topdown; k++)
		val |= (uint64_t)byte[k] << (8 * k);
	return val;
}

void
emu_td_write(const struct emu_core_type *t, struct emu_regs *r, uint64_t val)
{
	for (unsigned k = 0; k < EMU_TD_COUNT; k++)
		r->td[k] = k < t->topdown ? ((val >> (8 * k)) & 0xff) * r->fixed_ctr[3] : 0;
}

uint64_t
emu_perf_metrics(const struct emu_pmu *pmu, unsigned cpu)
{
	const struct emu_core_type *t = emu_cpu_type(pmu, cpu);

	return t ? emu_td_read(t, &pmu->cpu[cpu].regs) : 0;
}

int
emu_retire_topdown(struct emu_pmu *pmu, unsigned cpu, unsigned ring,
		   const uint64_t slots[EMU_TD_COUNT])
{
	const struct emu_core_type *t = emu_cpu_type(pmu, cpu);
	/* The architectural top-down events (table "Architectural Performance Events"). */
	static const struct {
		uint8_t code, umask;
		int td;		/* category, or -1: every level-1 slot */
	} events[] = {
		{ 0xa4, 0x01, -1 },			/* Topdown Slots */
		{ 0xa4, 0x02, EMU_TD_BE_BOUND },	/* Topdown Backend Bound */
		{ 0x73, 0x00, EMU_TD_BAD_SPEC },	/* Topdown Bad Speculation */
		{ 0x9c, 0x01, EMU_TD_FE_BOUND },	/* Topdown Frontend Bound */
		{ 0xc2, 0x02, EMU_TD_RETIRING },	/* Topdown Retiring */
	};
	struct emu_regs *r;
	uint64_t total = 0;
	bool metrics, pending = false;

	if (!t)
		return -ENXIO;
	for (unsigned k = 0; k < 4; k++) {
		if (slots[4 + k] > slots[k] || total + slots[k] < total)
			return -EINVAL;
		total += slots[k];
	}
	pmu->cpu[cpu].stats.retired++;
	r = &pmu->cpu[cpu].regs;
	/* Decided before the cycle counts: a PMI it raises acts after it. */
	metrics = t->topdown && emu_fixed_counts(t, r, 3, ring) &&
		(r->global_ctrl & EMU_GLOBAL_CTRL_PERF_METRICS);
	for (unsigned e = 0; e < sizeof(events) / sizeof(events[0]); e++)
		pending |= emu_count_burst(t, r, events[e].code, events[e].umask, ring,
					   events[e].td < 0 ? total : slots[events[e].td], false, 0);
	if (metrics)
		for (unsigned k = 0; k < t->topdown; k++)
			r->td[k] = sat_add(r->td[k], (u128)255 * slots[k]);
	if (pending)
		emu_pmi(t, r);
	return 0;
}
