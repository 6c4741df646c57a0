/*
 * msr.h - addresses and bit fields of the architectural PMU MSRs
 * (Intel SDM vol. 3B, "Performance Monitoring", and vol. 4, "Model-Specific
 * Registers"). Only what pmustat programs or reads is here.
 */
#ifndef PMUSTAT_MSR_H
#define PMUSTAT_MSR_H

#include <stdint.h>

#define MSR_IA32_PMC0			0x0c1u	/* + i, legacy: writes sign-extend bit 31 */
#define MSR_IA32_PERFEVTSEL0		0x186u	/* + i */
#define MSR_OFFCORE_RSP_0		0x1a6u
#define MSR_OFFCORE_RSP_1		0x1a7u
#define MSR_IA32_FIXED_CTR0		0x309u	/* + i */
#define MSR_IA32_PERF_METRICS		0x329u	/* Ice Lake+: top-down fractions; PERF_CAPABILITIES[15] */
#define MSR_IA32_PERF_CAPABILITIES	0x345u
/* With CPUID.1:EDX.DS: bit i = GP counter i's PEBS, bit 32+i fixed counter i's (read only: another user's). */
#define MSR_IA32_PEBS_ENABLE		0x3f1u
/* Read only (never written): bit 12 says PEBS is unavailable, and then IA32_PEBS_ENABLE may not exist. */
#define MSR_IA32_MISC_ENABLE		0x1a0u
#define MISC_ENABLE_PEBS_UNAVAIL	(1ull << 12)
#define MSR_IA32_FIXED_CTR_CTRL		0x38du
#define MSR_IA32_PERF_GLOBAL_STATUS	0x38eu
#define MSR_IA32_PERF_GLOBAL_CTRL	0x38fu
/* Called IA32_PERF_GLOBAL_OVF_CTRL before v4. Write-1-to-clear. */
#define MSR_IA32_PERF_GLOBAL_STATUS_RESET 0x390u
#define MSR_IA32_PERF_GLOBAL_STATUS_SET	0x391u	/* v4+ */
#define MSR_IA32_PERF_GLOBAL_INUSE	0x392u	/* v4+ */
#define MSR_IA32_A_PMC0			0x4c1u	/* + i, full width; PERF_CAPABILITIES[13] */

/*
 * The counters SDM vol. 4 table 2-2 numbers at consecutive legacy
 * addresses: IA32_PMC0-9 (0xC1-0xCA), IA32_PERFEVTSEL0-9 (0x186-0x18F),
 * IA32_A_PMC0-9 (0x4C1-0x4CA) and IA32_FIXED_CTR0-6 (0x309-0x30F); GP
 * counter i is GLOBAL_CTRL/STATUS bit i, fixed counter i bit 32+i. Lion
 * Cove has ten GP counters, Skymont fixed counters 4-6 (CPUID.23H.1).
 * Counters CPUID enumerates beyond these exist only in v6's alias range
 * (0x1900 + 4n, 0x1980 + 4m): pmustat does not use them, and says so.
 */
#define PMU_MAX_GP	10
#define PMU_MAX_FIXED	7
/* MSR_OFFCORE_RSP_0 and _1. */
#define PMU_NUM_OFFCORE	2

/* IA32_PERFEVTSELx fields. */
#define EVTSEL_EVENT(v)		((uint64_t)(v) & 0xffu)
#define EVTSEL_UMASK(v)		(((uint64_t)(v) & 0xffu) << 8)
#define EVTSEL_USR		(1ull << 16)
#define EVTSEL_OS		(1ull << 17)
#define EVTSEL_EDGE		(1ull << 18)
#define EVTSEL_PC		(1ull << 19)
#define EVTSEL_INT		(1ull << 20)
#define EVTSEL_ANY		(1ull << 21)
#define EVTSEL_EN		(1ull << 22)
#define EVTSEL_INV		(1ull << 23)
#define EVTSEL_CMASK(v)		(((uint64_t)(v) & 0xffu) << 24)
#define EVTSEL_EQ		(1ull << 36)	/* v6 */
/* With TSX (CPUID.7.0:EBX HLE or RTM): count in transactions only; IN_TXCP on EVTSEL2 only. */
#define EVTSEL_IN_TX		(1ull << 32)
#define EVTSEL_IN_TXCP		(1ull << 33)
/* Branch-counter logging into Arch LBR (Linux's ARCH_PERFMON_EVENTSEL_BR_CNTR): pmu_caps.lbr_log_counters. */
#define EVTSEL_BR_CNTR		(1ull << 35)
#define EVTSEL_UMASK2(v)	(((uint64_t)(v) & 0xffu) << 40)	/* v6 */

/* IA32_FIXED_CTR_CTRL: 4 bits per counter at [4i+3:4i]. */
#define FIXED_CTRL_OS		0x1u
#define FIXED_CTRL_USR		0x2u
#define FIXED_CTRL_ANY		0x4u
#define FIXED_CTRL_PMI		0x8u
#define FIXED_CTRL_FIELD(ctrl, i)	(((ctrl) >> (4 * (i))) & 0xfu)

/* IA32_PERF_GLOBAL_CTRL / STATUS bit of fixed counter i. */
#define GLOBAL_FIXED_BIT(i)	(1ull << (32 + (i)))
/* IA32_PERF_GLOBAL_STATUS (v4+): LBRs frozen, counters frozen (a PMI under IA32_DEBUGCTL's freeze bits). */
#define GLOBAL_STATUS_LBR_FRZ	(1ull << 58)
#define GLOBAL_STATUS_CTR_FRZ	(1ull << 59)

/* IA32_PERF_CAPABILITIES[13]: full-width writes through IA32_A_PMCx. */
#define PERF_CAP_FW_WRITE	(1ull << 13)
/* IA32_PERF_CAPABILITIES[15]: IA32_PERF_METRICS, read with fixed counter 3 (SLOTS). */
#define PERF_CAP_PERF_METRICS	(1ull << 15)
/* IA32_PERF_GLOBAL_CTRL[48] EN_PERF_METRICS, IA32_PERF_GLOBAL_STATUS[48] its overflow. */
#define GLOBAL_PERF_METRICS_BIT	(1ull << 48)
/* The fixed counter IA32_PERF_METRICS divides: 3, TOPDOWN.SLOTS. */
#define PERF_METRICS_FIXED	3u
/* PEBS baseline (Ice Lake, Gracemont on): IA32_PEBS_ENABLE has a bit for every GP and fixed counter. */
#define PERF_CAP_PEBS_BASELINE	(1ull << 14)

/* rdpmc ECX[30] selects the fixed counters. */
#define RDPMC_FIXED		0x40000000u

static inline uint32_t msr_pmc(unsigned i) { return MSR_IA32_PMC0 + i; }
static inline uint32_t msr_a_pmc(unsigned i) { return MSR_IA32_A_PMC0 + i; }
static inline uint32_t msr_evtsel(unsigned i) { return MSR_IA32_PERFEVTSEL0 + i; }
static inline uint32_t msr_fixed_ctr(unsigned i) { return MSR_IA32_FIXED_CTR0 + i; }
/*
 * v6 auto counter reload (CPUID.23H.2): IA32_PMC_GPn_CFG_B (0x1902 + 4n),
 * the counters whose overflow reloads GP counter n (with CFG_C). Only read.
 */
static inline uint32_t msr_acr_cfg_b(unsigned i) { return 0x1902u + 4 * i; }

#endif
