/*
 * emu_pmu.h - an emulated Intel architectural PMU (SDM vol. 3B, chapter
 * "Performance Monitoring", architectural perfmon versions 2 to 5), for
 * testing pmustat on machines that have none.
 *
 * The emulator core is pure: a struct emu_pmu holds the model (CPUID of each
 * core type, counter counts and widths, which bits are reserved) and the
 * register file of every logical CPU, and the functions below apply the
 * SDM's rules to it. It does no I/O except emu_pmu_init() reading the CPUID
 * dumps. Two front ends share it:
 *
 *  - emu_hw.h: struct hw (src/hw.h) over an emu_pmu, for in-process tests;
 *  - libpmuemu.so (emu_preload.c): an LD_PRELOAD library that plays
 *    /dev/cpu/N/msr, rdpmc and CPUID for the real pmustat binary, with the
 *    emu_pmu living in a shared state file (emu_state.h).
 *
 * struct emu_pmu contains no pointers, so it can be malloc'ed, mmap'ed from
 * a file shared between processes, or copied byte for byte (snapshots).
 *
 * What is emulated (see README.md for the rules and the SDM sections):
 *  - IA32_PERFEVTSELx 0x186+, IA32_PMCx 0xC1+ (writes sign-extend bit 31),
 *    IA32_A_PMCx 0x4C1+ (only with PERF_CAPABILITIES[13]; full width), up
 *    to ten GP counters; IA32_FIXED_CTRx 0x309+ (up to seven, with holes
 *    where CPUID says so), IA32_FIXED_CTR_CTRL 0x38D,
 *    IA32_PERF_GLOBAL_STATUS 0x38E (read-only), IA32_PERF_GLOBAL_CTRL 0x38F,
 *    IA32_PERF_GLOBAL_STATUS_RESET 0x390 (write-1-to-clear),
 *    IA32_PERF_GLOBAL_STATUS_SET 0x391 and IA32_PERF_GLOBAL_INUSE 0x392
 *    (v4+), IA32_PERF_CAPABILITIES 0x345 (read-only; when CPUID.1:ECX.PDCM),
 *    MSR_OFFCORE_RSP_0/1 0x1A6/0x1A7, IA32_DEBUGCTL 0x1D9 (freeze on PMI),
 *    IA32_PEBS_ENABLE 0x3F1, IA32_PERF_METRICS 0x329 (PERF_CAPABILITIES[15]),
 *    and on v6 the aliases IA32_PMC_GPn_CTR / _CFG_A and IA32_PMC_FXm_CTR.
 *  - Any other MSR, a counter beyond the model's, or a write that sets a
 *    reserved bit raises #GP: -EIO, and the register is left unchanged.
 *  - Counting happens only when something "retires" events through
 *    emu_retire() and friends; there is no clock. A PMI is abstract: it is
 *    what freezes the counters (DEBUGCTL freeze bits), nothing is delivered.
 *    PEBS records are not written; PEBS_ENABLE only marks owned counters.
 *  - The NetBurst models ("netburst", "netburst-ht") have the other PMU
 *    instead: counters, CCCRs and ESCRs, clocked by emu_nb_clocks(); see
 *    emu_netburst.h.
 */
#ifndef PMUSTAT_EMU_PMU_H
#define PMUSTAT_EMU_PMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <libcpuid/libcpuid.h>

#include "hw/hw.h"

/*
 * MSRs the emulator has beyond what pmustat programs (src/msr.h): SDM vol. 4
 * table 2-2 and vol. 3B "Performance Monitoring".
 */
#define EMU_MSR_DEBUGCTL	0x1d9u	/* IA32_DEBUGCTL */
#define EMU_MSR_PERF_METRICS	0x329u	/* IA32_PERF_METRICS, PERF_CAPABILITIES[15] */
#define EMU_MSR_PEBS_ENABLE	0x3f1u	/* IA32_PEBS_ENABLE */
#define EMU_MSR_MISC_ENABLE	0x1a0u	/* IA32_MISC_ENABLE (read-only here) */
/* IA32_MISC_ENABLE: fast strings (0) and performance monitoring available (7), as parts power up. */
#define EMU_MISC_ENABLE_VALUE	0x81ull
#define EMU_MISC_BTS_UNAVAIL	(1ull << 11)
#define EMU_MISC_PEBS_UNAVAIL	(1ull << 12)
/* v6 aliases, 4 apart per counter (Linux's MSR_IA32_PMC_V6_*). */
#define EMU_MSR_V6_GP0_CTR	0x1900u
#define EMU_MSR_V6_GP0_CFG_A	0x1901u
/* Auto counter reload (CPUID.23H.2): which counters' overflow reloads GP n, and with what. */
#define EMU_MSR_V6_GP0_CFG_B	0x1902u
#define EMU_MSR_V6_GP0_CFG_C	0x1903u
#define EMU_MSR_V6_FX0_CTR	0x1980u
#define EMU_MSR_V6_STEP		4u

/* IA32_DEBUGCTL bits that matter here. */
#define EMU_DEBUGCTL_LBR		(1ull << 0)
#define EMU_DEBUGCTL_FREEZE_LBRS_ON_PMI	(1ull << 11)
#define EMU_DEBUGCTL_FREEZE_PERFMON_ON_PMI (1ull << 12)

/* IA32_PERF_GLOBAL_STATUS bits beyond the counters' overflow bits (table 2-2). */
#define EMU_STATUS_PERF_METRICS	(1ull << 48)	/* Ice Lake+: PERF_METRICS overflow */
#define EMU_STATUS_TOPA_PMI	(1ull << 55)	/* v4 */
#define EMU_STATUS_LBR_FRZ	(1ull << 58)	/* v4 */
#define EMU_STATUS_CTR_FRZ	(1ull << 59)	/* v4 */
#define EMU_STATUS_ASCI		(1ull << 60)	/* v4 */
#define EMU_STATUS_OVF_UNCORE	(1ull << 61)	/* v3 */
#define EMU_STATUS_OVF_BUF	(1ull << 62)	/* PEBS buffer */
#define EMU_STATUS_COND_CHGD	(1ull << 63)
/* IA32_PERF_GLOBAL_CTRL[48]: EN_PERF_METRICS. */
#define EMU_GLOBAL_CTRL_PERF_METRICS (1ull << 48)
/* IA32_PERF_GLOBAL_INUSE[63]: PMI in use. */
#define EMU_INUSE_PMI		(1ull << 63)
/* RDPMC ECX[29]: IA32_PERF_METRICS (Linux's INTEL_PMC_FIXED_RDPMC_METRICS). */
#define EMU_RDPMC_METRICS	0x20000000u

/* Logical CPUs the emulated machine may have (the host's count, capped). */
#define EMU_MAX_CPUS	512
/*
 * Register file size: the architectural MSRs the SDM (vol. 4, table 2-2)
 * lists, IA32_PMC0-9 / IA32_PERFEVTSEL0-9 / IA32_A_PMC0-9 and
 * IA32_FIXED_CTR0-6 at consecutive addresses.
 */
#define EMU_MAX_GP	10
#define EMU_MAX_FIXED	7
/* Basic CPUID leaves past libcpuid's raw data (0x20-0x23) kept per type. */
#define EMU_HI_LEAF0	0x20u
#define EMU_HI_LEAVES	4
#define EMU_HI_SUBLEAVES 16
/* Core types per machine: one, or two for a hybrid. */
#define EMU_MAX_TYPES	2

/* "PMUE" and the layout version of struct emu_pmu (state files). */
#define EMU_PMU_MAGIC	0x45554d50u
#define EMU_PMU_ABI	5u

/* NetBurst register file: 18 counters and CCCRs, ESCRs at 0x3a0-0x3e1. */
#define EMU_NB_COUNTERS	18
#define EMU_NB_ESCR_BASE 0x3a0u
#define EMU_NB_ESCR_SPAN 66		/* 0x3a0-0x3e1; 45 of them are ESCRs */
/* The most MSRs a CPU of any model implements (NetBurst: 18 + 18 + 45 + 1). */
#define EMU_MAX_MSRS	128

enum emu_model {
	EMU_MODEL_SKYLAKE,	/* "skylake": i7-6700K, v4, 4 GP x 48, 3 fixed, full-width writes */
	EMU_MODEL_ICELAKE,	/* "icelake": i7-1065G7, v5, 8 GP, 4 fixed (SLOTS), ECX bitmap 0xF */
	EMU_MODEL_HASWELL,	/* "haswell": i7-4770, v3, 4 GP x 48, 3 fixed, no full-width writes */
	EMU_MODEL_CORE2,	/* "core2": Penryn X9650, v2, 2 GP x 40, 3 fixed x 40 */
	EMU_MODEL_ALDERLAKE,	/* "alderlake": i9-12900K hybrid; P-cores 8 GP / 4 fixed behind
				 * CPUID's 6 / 3 (the ADL quirk), E-cores 6 GP / 3 fixed */
	EMU_MODEL_ARROWLAKE,	/* "arrowlake": Ultra 5 245K hybrid, v6; leaf 0x23 says P-cores
				 * (Lion Cove) 10 GP / fixed 0-3, E-cores (Skymont) 8 GP /
				 * fixed 0-2 and 4-6, behind leaf 0xA's 8 / 3 */
	EMU_MODEL_NOPMU,	/* "nopmu": QEMU vCPU, hypervisor bit, no leaf 0xA, PMU MSRs #GP */
	EMU_MODEL_NETBURST,	/* "netburst": Pentium 4 Northwood, ESCR/CCCR PMU, no HT */
	EMU_MODEL_NETBURST_HT,	/* "netburst-ht": Pentium 4 640 (Prescott), HT: CPUs 2k and
				 * 2k+1 are the two threads of a core and share its PMU */
	EMU_MODEL_SKYLAKEX,	/* "skylakex": Xeon Platinum 8180 (Skylake-SP), Skylake's PMU;
				 * its tables have the server metrics (TSC, cpu_utilization) */
	EMU_MODEL_ZEN2,		/* "zen2": AMD family 17h, six counters (PerfCtrExtCore), no PerfMonV2 */
	EMU_MODEL_ZEN4,		/* "zen4": Ryzen 9 7950X, family 19h, six counters, PerfMonV2 */
	EMU_MODEL_ZEN5,		/* "zen5": family 1Ah, six counters, PerfMonV2 (emu_zen.h) */
	EMU_MODEL_COUNT
};

/* How /dev/cpu/N/msr behaves (the in-process msr_open follows it too). */
enum emu_msr_access {
	EMU_MSR_OK,		/* "ok": root may read and write */
	EMU_MSR_ABSENT,		/* "absent": no msr driver, open gives ENOENT */
	EMU_MSR_EACCES,		/* "eacces": open gives EACCES */
	EMU_MSR_READONLY,	/* "readonly": lockdown, reads work, writes give EPERM */
};

struct emu_config {
	enum emu_model model;
	/* Logical CPUs; 0 means one (in-process) or the host's (pmu-emu init). */
	unsigned ncpus;
	/* Hybrid only: CPUs [0, pcores) are P-cores, the rest E-cores; 0 = half, rounded up. */
	unsigned pcores;
	/*
	 * Override the number of counters, both in CPUID leaf 0xA and in the
	 * register file (every core type); -1 keeps the model's.
	 */
	int gp;
	int fixed;
	/* CR4.PCE clear: rdpmc faults (and the rdpmc file says "1"). */
	bool rdpmc_off;
	enum emu_msr_access msr;
	/*
	 * The Linux NMI watchdog owns fixed counter 1 on every CPU:
	 * FIXED_CTR_CTRL = 0xB0, every GLOBAL_CTRL bit set, FIXED_CTR1
	 * running, nmi_watchdog file "1".
	 */
	bool watchdog;
	/*
	 * Linux's "buddy" hard-lockup detector (6.5 on, in place of the perf
	 * NMI watchdog): nmi_watchdog file "1", and no counter held.
	 */
	bool buddy_watchdog;
	/* NetBurst: IA32_MISC_ENABLE[7] clear, "performance monitoring unavailable". */
	bool nb_perfmon_off;
	/*
	 * A VM without PEBS, as KVM makes one: IA32_MISC_ENABLE[11] and [12]
	 * (BTS and PEBS unavailable) set, IA32_PEBS_ENABLE raises #GP, and
	 * CPUID.1:EDX.DS stays set (architectural models).
	 */
	bool pebs_off;
	/*
	 * NetBurst with HT: CPUs k and k + ncpus/2 are one core's two threads
	 * (as Linux numbers many machines: every core's first thread, then
	 * every core's second), not 2k and 2k+1. Needs an even ncpus.
	 */
	bool nb_ht_split;
	/*
	 * The caller's own user-mode code around its system calls, which real
	 * counters see: after each WRMSR through the msr device returns, and
	 * before each execve, the preload library retires this many
	 * instructions (INST_RETIRED.ANY, 0xC0/0x00) at ring 3 on the
	 * caller's CPU. 0: none (the default).
	 */
	unsigned caller_insns;
	/* ptrace() fails with EPERM, as under YAMA ptrace_scope 3 or a seccomp filter. */
	bool ptrace_off;
	/*
	 * Linux's perf rewriting IA32_PERF_GLOBAL_CTRL with every counter's
	 * bit (intel_pmu_enable_all, on each PMI exit and context switch),
	 * at two moments outside a stat run's counted window: when a process
	 * calls execve (it is scheduled in on its CPU; before the caller's
	 * own code of caller_insns), and right before the caller reads
	 * IA32_PERF_GLOBAL_STATUS through the msr device (pmustat does when it
	 * opens the PMU and when it reads a run's counts, after its disable).
	 * Each time GLOBAL_CTRL = kernel_ctrl on that CPU, and kernel_insns
	 * user-mode instructions of another program (INST_RETIRED.ANY and,
	 * as many, BR_INST_RETIRED 0xC4) retire there. 0: none (the default).
	 */
	uint64_t kernel_ctrl;
	unsigned kernel_insns;
};

/* What one core type is: its CPUID and the PMU behind it. */
struct emu_core_type {
	char name[24];			/* "skylake", "alderlake-pcore", ... */
	struct cpu_raw_data_t cpuid;	/* what CPUID answers (overrides applied) */
	unsigned threads;		/* threads per core, as CPUID says (leaf 0BH, or leaves 1 and 4) */
	unsigned version;		/* architectural perfmon version, 0 = no PMU */
	unsigned gp;			/* GP register slots: highest existing counter + 1 */
	unsigned fixed;			/* fixed register slots, likewise */
	uint32_t gp_mask;		/* which GP counters exist */
	uint32_t fixed_mask;		/* which fixed counters exist */
	unsigned gp_width;
	unsigned fixed_width;
	bool pdcm;			/* IA32_PERF_CAPABILITIES exists */
	bool full_width_write;		/* IA32_A_PMCx exist */
	bool offcore;			/* MSR_OFFCORE_RSP_0/1 exist */
	uint8_t offcore_event[2][2];	/* event, umask that use RSP_0 / RSP_1 */
	bool tsx;			/* CPUID.7.0:EBX HLE or RTM: IN_TX, IN_TXCP */
	bool pebs;			/* IA32_PEBS_ENABLE exists */
	unsigned topdown;		/* IA32_PERF_METRICS fields: 0, 4 (L1) or 8 (L1+L2) */
	uint64_t perf_capabilities;
	/* Bits a write may set; any other bit is reserved (#GP). */
	uint64_t evtsel_valid;		/* IN_TXCP only on EVTSEL2: evtsel2_valid */
	uint64_t evtsel2_valid;
	uint32_t br_cntr_counters;	/* EVTSELs that may also set BR_CNTR (bit 35) */
	uint32_t acr_gp_mask;		/* CPUID.23H.2 EAX: GP counters with CFG_B/CFG_C */
	uint64_t acr_cause_valid;	/* 23H.2 ECX | EDX << 32: counters whose overflow may reload */
	uint64_t fixed_ctrl_valid;
	uint64_t global_ctrl_valid;
	uint64_t global_status_valid;	/* bits STATUS can hold = RESET/SET writable bits */
	uint64_t offcore_valid;
	uint64_t debugctl_valid;
	uint64_t pebs_valid;
	uint64_t pebs_counters;		/* PEBS_ENABLE bits that enable a counter (INUSE[63]) */
	uint64_t perf_metrics_valid;
	/* Leaves 0x20-0x23 (subleaves 0-15) as the dump has them, 0 beyond. */
	uint32_t hi_leaf[EMU_HI_LEAVES][EMU_HI_SUBLEAVES][4];
	/* NetBurst (version 0, no leaf 0xA): the ESCR/CCCR PMU instead. */
	bool netburst;
	bool nb_ht;			/* two threads per core (threads == 2) share the registers */
	unsigned nb_model;		/* family-15 model: IQ_ESCR0/1 only up to 2 */
	uint64_t misc_enable;		/* IA32_MISC_ENABLE, read-only here (every model) */
	/* AMD Zen (version 0, no leaf 0xA): its core PMU instead (emu_zen.h). */
	bool zen;
	bool zen_ext;			/* PerfCtrExtCore: counters at 0xC001_0200 */
	bool zen_v2;			/* PerfMonV2: the global registers */
	uint32_t ext22[4];		/* CPUID 0x8000_0022 */
};

/* Top-down categories: IA32_PERF_METRICS byte order (L1, then L2). */
enum emu_td {
	EMU_TD_RETIRING,
	EMU_TD_BAD_SPEC,
	EMU_TD_FE_BOUND,
	EMU_TD_BE_BOUND,
	EMU_TD_HEAVY_OPS,	/* part of retiring */
	EMU_TD_BR_MISPREDICT,	/* part of bad speculation */
	EMU_TD_FETCH_LAT,	/* part of frontend bound */
	EMU_TD_MEM_BOUND,	/* part of backend bound */
	EMU_TD_COUNT
};

/*
 * One logical CPU's PMU registers. GLOBAL_INUSE and PERF_METRICS are
 * derived: td[k] is 255 x the slots of category k since PERF_METRICS was
 * last written (plus the written fraction x FIXED_CTR3 at that moment),
 * so PERF_METRICS byte k reads td[k] / FIXED_CTR3 (emu_topdown.c).
 */
struct emu_regs {
	uint64_t evtsel[EMU_MAX_GP];
	uint64_t pmc[EMU_MAX_GP];
	uint64_t fixed_ctr[EMU_MAX_FIXED];
	uint64_t fixed_ctr_ctrl;
	uint64_t global_status;
	uint64_t global_ctrl;
	uint64_t offcore_rsp[2];
	uint64_t debugctl;
	uint64_t pebs_enable;
	uint64_t td[EMU_TD_COUNT];
	uint64_t acr_cfg_b[EMU_MAX_GP];	/* IA32_PMC_GPn_CFG_B: reload GP n when these overflow */
	uint64_t acr_cfg_c[EMU_MAX_GP];	/* IA32_PMC_GPn_CFG_C: the value it is reloaded with */
};

/* How often each CPU's MSRs were accessed (not part of the diffed state). */
struct emu_stats {
	uint64_t rdmsr;
	uint64_t wrmsr;
	uint64_t gp_faults;		/* accesses that raised #GP */
	uint64_t rdpmc;
	uint64_t retired;		/* emu_retire() calls */
};

/*
 * One NetBurst core's PMU. With HT the even CPU of a pair holds it for
 * both threads; the odd CPU's copy is unused.
 */
struct emu_nb_regs {
	uint64_t counter[EMU_NB_COUNTERS];	/* 40 bits */
	uint32_t cccr[EMU_NB_COUNTERS];		/* bits 63:32 are reserved */
	uint32_t escr[EMU_NB_ESCR_SPAN];	/* by address - 0x3a0 */
	/* Each counter's last threshold-comparison output, for the edge filter. */
	uint8_t edge_prev[EMU_NB_COUNTERS];
};

struct emu_cpu {
	unsigned type;			/* index into emu_pmu.types */
	union {
		struct emu_regs regs;		/* architectural models */
		struct emu_nb_regs nb;		/* NetBurst models */
	};
	struct emu_stats stats;
};

#define EMU_FILE_MAX 128

struct emu_pmu {
	uint32_t magic;			/* EMU_PMU_MAGIC */
	uint32_t abi;			/* EMU_PMU_ABI */
	uint64_t size;			/* sizeof(struct emu_pmu) */
	/* Spin lock for processes sharing a state file; the core never takes it. */
	int lock;
	/* Who may open /dev/cpu/N/msr (the node is 0600): 0, or pmu-emu init's caller. */
	uint32_t msr_owner_uid;
	struct emu_config config;
	unsigned ncpus;
	unsigned ntypes;
	struct emu_core_type types[EMU_MAX_TYPES];
	/* Contents of the kernel files of enum hw_file; "" with present false = absent. */
	bool file_present[HW_FILE_COUNT];
	char file_text[HW_FILE_COUNT][EMU_FILE_MAX];
	/*
	 * The time-stamp counter: one for the machine (an invariant TSC reads
	 * the same on every CPU), 0 at power-up, moved only by the action
	 * tsc:N, so that a test knows what rdtsc reads at each point.
	 */
	uint64_t tsc;
	struct emu_cpu cpu[EMU_MAX_CPUS];
};

/*
 * The model's defaults: ncpus 0, pcores 0, gp/fixed -1, rdpmc on, msr ok,
 * no watchdog, NetBurst performance monitoring available.
 */
void emu_config_default(struct emu_config *cfg, enum emu_model model);

const char *emu_model_name(enum emu_model model);
/* -1 if unknown. */
int emu_model_from_name(const char *name);
const char *emu_msr_access_name(enum emu_msr_access access);
int emu_msr_access_from_name(const char *name);

/*
 * Build the machine: read the model's CPUID dumps from @cpuid_dir (NULL:
 * EMU_CPUID_DIR, the source tree's tests/data/cpuid), apply the config,
 * put every CPU in its power-up state (GLOBAL_CTRL = the GP enable bits, as
 * the SDM's "state following power-up" table says, the rest 0) or the
 * watchdog preset. 0 or -errno (-EINVAL: bad config,
 * -ENOENT/-EIO: dump missing or unreadable).
 */
int emu_pmu_init(struct emu_pmu *pmu, const struct emu_config *cfg, const char *cpuid_dir);
/* calloc + emu_pmu_init; NULL with errno set. */
struct emu_pmu *emu_pmu_new(const struct emu_config *cfg);
void emu_pmu_free(struct emu_pmu *pmu);
/* Whether @pmu looks like a struct emu_pmu of this build (magic, abi, size, counts). */
bool emu_pmu_valid(const struct emu_pmu *pmu);

/* NULL if @cpu does not exist. */
const struct emu_core_type *emu_cpu_type(const struct emu_pmu *pmu, unsigned cpu);

/*
 * RDMSR / WRMSR on logical CPU @cpu. 0, -EIO where the CPU raises #GP
 * (MSR not implemented, reserved bit set, read-only MSR written), -ENXIO
 * when @cpu does not exist. The msr device's access modes (EACCES,
 * read-only) are the front ends' business, not the core's.
 */
int emu_rdmsr(struct emu_pmu *pmu, unsigned cpu, uint32_t msr, uint64_t *val);
int emu_wrmsr(struct emu_pmu *pmu, unsigned cpu, uint32_t msr, uint64_t val);

/*
 * RDPMC with @ecx on @cpu: ECX[30] selects the fixed counters, ECX[29]
 * (with PERF_CAPABILITIES[15], index 0) IA32_PERF_METRICS, ECX[29:0] the
 * index otherwise; any other ECX bit or an index beyond the model raises
 * #GP (-EIO). -EPERM when rdpmc is not allowed (CR4.PCE clear: also #GP on
 * real hardware, reported apart so callers can tell). The value has the
 * counter's width.
 */
int emu_rdpmc(struct emu_pmu *pmu, unsigned cpu, uint32_t ecx, uint64_t *val);

/* IA32_PERF_GLOBAL_INUSE as the CPU computes it (0 before v4). */
uint64_t emu_global_inuse(const struct emu_pmu *pmu, unsigned cpu);

/*
 * Retire @n events (@code, @umask) at privilege @ring (0 kernel, 3 user)
 * on @cpu. Every counter that counts increments by n mod 2^width, wraps at
 * its width and sets its overflow bit in GLOBAL_STATUS when it wraps (once,
 * however many times one burst wraps it: the bit cannot count).
 *
 * A GP counter i counts when GLOBAL_CTRL[i], EVTSEL.EN, the ring's bit
 * (USR for ring > 0, OS for ring 0), and event select and umask equal
 * @code and @umask (UMASK2 0), and the model's offcore events
 * (offcore_event) never: they count through emu_retire_offcore(). Fixed
 * counter i counts when GLOBAL_CTRL[32+i] and its FIXED_CTR_CTRL field
 * enables the ring, for its architectural event: FC0 (0xC0,0x00)
 * instructions, FC1 (0x3C,0x00) core cycles, FC2 (0x3C,0x01) reference
 * cycles, FC3 (0xA4,0x01) topdown slots, FC4 (0x73,0x00) bad speculation,
 * FC5 (0x9C,0x01) frontend bound, FC6 (0xC2,0x02) retiring slots. On v4+
 * nothing counts while GLOBAL_STATUS.CTR_Frz is set.
 *
 * Each call is one burst of @n events in a single cycle, with no such
 * events in the cycles around it. So for a GP counter with CMASK c > 0
 * the condition is (n >= c), or (n == c) with EQ (v6), inverted by INV,
 * and the counter adds 1 when it holds (EDGE changes nothing: every burst
 * is one rising edge). With CMASK 0 the counter adds @n and INV and EDGE
 * are ignored.
 *
 * A counter that wraps with its PMI enabled (EVTSEL.INT, the fixed PMI
 * bit) pends a PMI after the burst: with DEBUGCTL.FREEZE_PERFMON_ON_PMI
 * the CPU sets CTR_Frz (v4+) or clears GLOBAL_CTRL (v2, v3); with
 * FREEZE_LBRS_ON_PMI it sets LBR_Frz (v4+) or clears DEBUGCTL.LBR.
 *
 * 0, or -ENXIO when @cpu does not exist.
 */
int emu_retire(struct emu_pmu *pmu, unsigned cpu, uint8_t code, uint8_t umask,
	       unsigned ring, uint64_t n);

/*
 * Retire @n offcore responses whose request/response word is @rsp: a GP
 * counter programmed with offcore event k (MSR_OFFCORE_RSP_k's event)
 * counts them when MSR_OFFCORE_RSP_k equals @rsp exactly, under the rules
 * of emu_retire(). 0, -ENXIO.
 */
int emu_retire_offcore(struct emu_pmu *pmu, unsigned cpu, unsigned ring, uint64_t rsp,
		       uint64_t n);

/*
 * Retire top-down slots at @ring: @slots[k] slots of category k (enum
 * emu_td; the L2 ones are parts of their L1 parent and must not exceed
 * it). One burst each of the architectural top-down events: TOPDOWN.SLOTS
 * (0xA4,0x01) = the L1 sum, backend bound (0xA4,0x02), bad speculation
 * (0x73,0x00), frontend bound (0x9C,0x01), retiring (0xC2,0x02). While
 * fixed counter 3 counts them and GLOBAL_CTRL[48] is set, IA32_PERF_METRICS
 * takes them in. 0, -EINVAL (an L2 slot count above its parent's), -ENXIO.
 */
int emu_retire_topdown(struct emu_pmu *pmu, unsigned cpu, unsigned ring,
		       const uint64_t slots[EMU_TD_COUNT]);

/* IA32_PERF_METRICS as the CPU reads it (0 without PERF_METRICS). */
uint64_t emu_perf_metrics(const struct emu_pmu *pmu, unsigned cpu);

/*
 * CPUID (@leaf, @subleaf) of @cpu as the model answers it into @regs
 * (EAX, EBX, ECX, EDX). 0 when the model's data covers the leaf (basic
 * 0x0-0x23, extended 0x80000000-0x8000001F, with the subleaves libcpuid
 * stores and subleaves 0-15 of 0x20-0x23), -ENOENT otherwise (callers may
 * ask the host), -ENXIO for a CPU that does not exist. On the NetBurst
 * models leaf 1 EBX[31:24], the initial APIC ID, is the CPU's number (so
 * with HT, bit 0 is its thread).
 */
int emu_cpuid(const struct emu_pmu *pmu, unsigned cpu, uint32_t leaf, uint32_t subleaf,
	      uint32_t regs[4]);
/* All of @cpu's CPUID as libcpuid's raw data, as emu_cpuid() answers it. */
int emu_cpuid_raw(const struct emu_pmu *pmu, unsigned cpu, struct cpu_raw_data_t *raw);

/*
 * A kernel file's contents, or NULL when the file is absent. The machine's
 * shape (smt/active, cpu/online, cpu0's core_cpus_list and
 * package_cpus_list) follows the model: one package of all the CPUs, a
 * core's threads adjacent (2k, 2k+1), as many as its CPUID says, on a
 * hybrid only among the P-cores.
 */
const char *emu_file(const struct emu_pmu *pmu, enum hw_file file);
/* Replace it; NULL makes it absent. Text longer than EMU_FILE_MAX-1 is cut. */
void emu_set_file(struct emu_pmu *pmu, enum hw_file file, const char *text);

/*
 * Whether the msr driver refuses writes (EPERM): lockdown (EMU_MSR_READONLY)
 * or msr.allow_writes=off (the allow_writes file says "off").
 */
bool emu_msr_writes_blocked(const struct emu_pmu *pmu);

/*
 * The MSRs @cpu implements, in ascending order, into @msrs (at most @max);
 * returns how many there are. Write-only 0x390/0x391 are left out.
 */
size_t emu_msr_list(const struct emu_pmu *pmu, unsigned cpu, uint32_t *msrs, size_t max);
/* "IA32_PERFEVTSEL0", "IA32_FIXED_CTR_CTRL", ... or "MSR_0x1234" (in @buf). */
const char *emu_msr_name(uint32_t msr, char *buf, size_t size);

/*
 * Print the registers of @cpu (-1: every CPU), readable or as JSON:
 * {"model":..., "cpus":[{"cpu":0,"type":"skylake","msrs":{"0x186":"0x...",...}},...]}.
 */
void emu_pmu_dump(const struct emu_pmu *pmu, int cpu, bool json, FILE *out);

/*
 * Compare the register files (and the model) of @a and @b; print each
 * difference as "cpu N MSR_NAME (0xADDR): 0x... -> 0x..." to @out (may be
 * NULL). Returns the number of differences. Access statistics are ignored.
 */
unsigned emu_pmu_diff(const struct emu_pmu *a, const struct emu_pmu *b, FILE *out);

#endif
