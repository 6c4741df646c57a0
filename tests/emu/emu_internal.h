/*
 * emu_internal.h - what the emulator core's files share (not for users of
 * the emulator: they include emu_pmu.h).
 *
 *	emu_pmu.c	models, CPUID, power-up, kernel files
 *	emu_regs.c	RDMSR/WRMSR/RDPMC and the reserved-bit rules (which bits
 *			each type may set, from its CPUID)
 *	emu_count.c	counting: retire bursts, wraps, PMI and freeze
 *	emu_topdown.c	TOPDOWN.SLOTS and IA32_PERF_METRICS
 *	emu_dump.c	MSR names, dump, diff
 *	emu_party.c	what another party (kernel, perf) does to the PMU
 *	emu_netburst.c	the NetBurst models' ESCR/CCCR PMU (emu_netburst.h)
 */
#ifndef PMUSTAT_EMU_INTERNAL_H
#define PMUSTAT_EMU_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "emu_pmu.h"

/* IA32_PERFEVTSELx fields beyond src/msr.h's. */
#define EMU_EVTSEL_IN_TX	(1ull << 32)	/* TSX */
#define EMU_EVTSEL_IN_TXCP	(1ull << 33)	/* TSX, IA32_PERFEVTSEL2 only */
#define EMU_EVTSEL_ADAPTIVE	(1ull << 34)	/* PEBS baseline: adaptive record */
#define EMU_EVTSEL_BR_CNTR	(1ull << 35)	/* Arch LBR event logging (Linux's ARCH_PERFMON_EVENTSEL_BR_CNTR) */
#define EMU_EVTSEL_EQ		(1ull << 36)	/* v6, CPUID.23H.0:EBX[1] */
#define EMU_EVTSEL_UMASK2	(0xffull << 40)	/* v6, CPUID.23H.0:EBX[0] */

/* IA32_PERF_CAPABILITIES bits. */
#define EMU_PERF_CAP_SMM_FREEZE	(1ull << 12)
#define EMU_PERF_CAP_PEBS_BASELINE (1ull << 14)
#define EMU_PERF_CAP_PERF_METRICS (1ull << 15)

static inline uint64_t
emu_low_bits(unsigned n)
{
	return n >= 64 ? ~0ull : (1ull << n) - 1;
}

/* Which counter an MSR address names, if any. */
static inline bool
emu_in_range(uint32_t msr, uint32_t base, unsigned count, unsigned *index)
{
	if (msr < base || msr >= base + count)
		return false;
	*index = msr - base;
	return true;
}

/*
 * Bits a write may set in each MSR of @t, from its CPUID and counters; the
 * rest are reserved (#GP) (emu_regs.c).
 */
void emu_setup_valid_bits(struct emu_core_type *t);
/* RDMSR without side effects (emu_regs.c). 0 or -EIO (#GP). */
int emu_read_reg(const struct emu_pmu *pmu, unsigned cpu, uint32_t msr, uint64_t *val);

/* Whether counting is frozen: GLOBAL_STATUS.CTR_Frz on v4+ (emu_count.c). */
bool emu_frozen(const struct emu_core_type *t, const struct emu_regs *r);
/* Whether fixed counter @i counts at @ring now (GLOBAL_CTRL, its field, not frozen). */
bool emu_fixed_counts(const struct emu_core_type *t, const struct emu_regs *r, unsigned i,
		      unsigned ring);

/*
 * Count one burst of @n events (@code, @umask) at @ring, or with
 * @offcore, @n offcore responses @rsp, in every counter that counts it
 * (emu_count.c). True when one of them wrapped with its PMI enabled: the
 * caller then calls emu_pmi() once the cycle's bursts are all counted.
 */
bool emu_count_burst(const struct emu_core_type *t, struct emu_regs *r, uint8_t code,
		     uint8_t umask, unsigned ring, uint64_t n, bool offcore, uint64_t rsp);
/* A pending PMI: freeze what IA32_DEBUGCTL asks to freeze. */
void emu_pmi(const struct emu_core_type *t, struct emu_regs *r);

/* IA32_PERF_METRICS read and write (emu_topdown.c). */
uint64_t emu_td_read(const struct emu_core_type *t, const struct emu_regs *r);
void emu_td_write(const struct emu_core_type *t, struct emu_regs *r, uint64_t val);

#endif
