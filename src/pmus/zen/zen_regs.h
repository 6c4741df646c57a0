/*
 * zen_regs.h - AMD's core PMU (APM vol. 2, "Performance Monitoring
 * Counters"; Linux arch/x86/events/amd/core.c): its CPUID bits and MSRs.
 */
#ifndef PMUSTAT_ZEN_REGS_H
#define PMUSTAT_ZEN_REGS_H

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

/* PERF_CTL's 12-bit event select from @ctl. */
static inline unsigned
zen_ctl_event(uint64_t ctl)
{
	return (unsigned)((ctl & ZEN_CTL_EVENT_LO) | ((ctl & ZEN_CTL_EVENT_HI) >> 24));
}

#endif
