/*
 * zen_regs.h - AMD's core PMU (APM vol. 2, "Performance Monitoring
 * Counters"; Linux arch/x86/events/amd/core.c): its CPUID bits and MSRs.
 */
#ifndef PMUSTAT_ZEN_REGS_H
#define PMUSTAT_ZEN_REGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* CPUID 0x8000_0001 ECX[23]: PerfCtrExtCore, six counters at the extended addresses. */
#define ZEN_CPUID_PERFCTR_CORE	(1u << 23)
/* CPUID 0x8000_0022 EAX[0]: PerfMonV2 (global registers); EBX[3:0]: the core counters. */
#define ZEN_CPUID_PERFMON_V2	(1u << 0)
#define ZEN_CPUID_V2_COUNTERS	0xfu

/* Counters: six at the extended addresses, four legacy ones without PerfCtrExtCore. */
#define ZEN_EXT_COUNTERS	6u
#define ZEN_LEGACY_COUNTERS	4u
#define ZEN_MAX_COUNTERS	16u
#define ZEN_COUNTER_WIDTH	48u

/* PERF_CTLi at 0xC001_0200 + 2i, PERF_CTRi at 0xC001_0201 + 2i (PerfCtrExtCore). */
#define ZEN_MSR_PERF_CTL0	0xc0010200u
#define ZEN_MSR_PERF_CTR0	0xc0010201u
/* Without PerfCtrExtCore: PERF_CTL0-3 at 0xC001_0000-3, PERF_CTR0-3 at 0xC001_0004-7. */
#define ZEN_MSR_LEGACY_CTL0	0xc0010000u
#define ZEN_MSR_LEGACY_CTR0	0xc0010004u

/* PerfMonV2: a counter counts only when its GlobalCtl bit AND its PERF_CTL En are set. */
#define ZEN_MSR_GLOBAL_STATUS	0xc0000300u
#define ZEN_MSR_GLOBAL_CTL	0xc0000301u
#define ZEN_MSR_GLOBAL_STATUS_CLR 0xc0000302u

/* PERF_CTL: the 12-bit event select is split, bits 7:0 and 35:32. */
#define ZEN_CTL_EVENT_LO	0xffull
#define ZEN_CTL_UMASK		(0xffull << 8)
#define ZEN_CTL_USR		(1ull << 16)
#define ZEN_CTL_OS		(1ull << 17)
#define ZEN_CTL_EDGE		(1ull << 18)
#define ZEN_CTL_INT		(1ull << 20)
#define ZEN_CTL_EN		(1ull << 22)
#define ZEN_CTL_INV		(1ull << 23)
#define ZEN_CTL_CMASK		(0xffull << 24)
#define ZEN_CTL_EVENT_HI	(0xfull << 32)
#define ZEN_CTL_GUEST_ONLY	(1ull << 40)
#define ZEN_CTL_HOST_ONLY	(1ull << 41)

/* Linux's NMI watchdog on AMD: a general counter counting cycles (event 0x76) with INT and En. */
#define ZEN_EVENT_CYCLES	0x76u

static inline uint32_t
zen_ctl_msr(unsigned i, int ext)
{
	return ext ? ZEN_MSR_PERF_CTL0 + 2 * i : ZEN_MSR_LEGACY_CTL0 + i;
}

static inline uint32_t
zen_ctr_msr(unsigned i, int ext)
{
	return ext ? ZEN_MSR_PERF_CTR0 + 2 * i : ZEN_MSR_LEGACY_CTR0 + i;
}

/* PERF_CTL's bits that exist (APM: 63:42, 39:36, 21 and 19 are reserved). */
#define ZEN_CTL_DEFINED		(ZEN_CTL_EVENT_LO | ZEN_CTL_UMASK | ZEN_CTL_USR | ZEN_CTL_OS | ZEN_CTL_EDGE | \
				 ZEN_CTL_INT | ZEN_CTL_EN | ZEN_CTL_INV | ZEN_CTL_CMASK | ZEN_CTL_EVENT_HI | \
				 ZEN_CTL_GUEST_ONLY | ZEN_CTL_HOST_ONLY)
/* What pmustat may write in a PERF_CTL: all but INT (it takes no interrupt) and HostOnly/GuestOnly (count both). */
#define ZEN_CTL_WRITABLE	(ZEN_CTL_DEFINED & ~(ZEN_CTL_INT | ZEN_CTL_GUEST_ONLY | ZEN_CTL_HOST_ONLY))
#define ZEN_COUNTER_MASK	((1ull << ZEN_COUNTER_WIDTH) - 1)

/* PERF_CTL's 12-bit event select from @ctl. */
static inline unsigned
zen_ctl_event(uint64_t ctl)
{
	return (unsigned)((ctl & ZEN_CTL_EVENT_LO) | ((ctl & ZEN_CTL_EVENT_HI) >> 24));
}

/* PERF_CTL @ctl with the 12-bit event select @event (bits 7:0 and 35:32), the rest kept. */
static inline uint64_t
zen_ctl_with_event(uint64_t ctl, unsigned event)
{
	return (ctl & ~(ZEN_CTL_EVENT_LO | ZEN_CTL_EVENT_HI)) | (event & 0xffu) | ((uint64_t)(event >> 8 & 0xfu) << 32);
}

/* What a register of the map is for. */
enum zen_role {
	ZEN_ROLE_CTL,			/* PERF_CTLi: one counter's */
	ZEN_ROLE_CTR,			/* PERF_CTRi: one counter's */
	ZEN_ROLE_GLOBAL_CTL,		/* PerfCntrGlobalCtl: a bit per counter, shared */
	ZEN_ROLE_GLOBAL_STATUS,		/* PerfCntrGlobalStatus: read only */
	ZEN_ROLE_GLOBAL_STATUS_CLR,	/* PerfCntrGlobalStatusClr: write 1 to clear, nothing to restore */
};

/* No restore: a register the restore never writes. */
#define ZEN_NO_RESTORE	0xffu

/*
 * One register pmustat may touch: its address, the bits it may write (0:
 * read only), the counter it belongs to (-1: shared by all), what it is
 * for, and its place in the restore (lowest first: what stops the
 * counting goes back first).
 */
struct zen_reg {
	uint32_t msr;
	uint64_t writable;
	int counter;
	enum zen_role role;
	unsigned rank;
};

/* The map's largest size: a CTL and a CTR per counter, three global registers. */
#define ZEN_MAX_REGS	(2 * ZEN_MAX_COUNTERS + 3)

struct pmu_caps;

/*
 * The register map of a core whose PMU @caps describes (zen_regs.c): the
 * extended addresses with PerfCtrExtCore, the legacy ones without, the
 * global registers with PerfMonV2. It is the allow-list, the save set
 * and the restore order. The number of registers written to @out.
 */
unsigned zen_reg_map(const struct pmu_caps *caps, struct zen_reg out[ZEN_MAX_REGS]);

/* @msr's entry in @map, or NULL: not on the allow-list. */
const struct zen_reg *zen_reg_find(const struct zen_reg *map, unsigned n, uint32_t msr);

/* @msr's name for messages ("PERF_CTL3", "PerfCntrGlobalCtl"). */
const char *zen_reg_name(uint32_t msr, char *buf, size_t size);

/* Why @value may not be written to @msr ("" when it may): allow-list, read only, a reserved bit, HostOnly/GuestOnly, INT. */
const char *zen_write_refusal(const struct zen_reg *map, unsigned n, uint32_t msr, uint64_t value);

/* Who holds a counter, from its PERF_CTL alone. */
enum zen_holder {
	ZEN_HOLDER_NONE,		/* nothing programmed */
	ZEN_HOLDER_WATCHDOG,		/* Linux's NMI watchdog: cycles (0x76) with INT and En */
	ZEN_HOLDER_PERF,		/* programmed with INT: the kernel's perf events */
	ZEN_HOLDER_OTHER,		/* programmed without INT: another counting tool, or pmustat's own */
};

enum zen_holder zen_counter_holder(uint64_t ctl);

/*
 * PerfCntrGlobalCtl as it must be written: @current (as read just
 * before) with only @mine's bits changed, set when @enable, cleared when
 * not. Another user's bits stay as they are.
 */
static inline uint64_t
zen_global_ctl_write(uint64_t current, uint64_t mine, bool enable)
{
	return enable ? current | mine : current & ~mine;
}

#endif
