/*
 * cpu.h - what raw CPUID says about a logical CPU and its PMU.
 *
 * cpu_decode() is pure: libcpuid raw data in, facts out. Quirks that CPUID
 * gets wrong (hybrid P-cores, Core 2) are applied from pmu_quirks.c and
 * reported, never hidden.
 */
#ifndef PMUSTAT_CPU_H
#define PMUSTAT_CPU_H

#include <stdbool.h>
#include <stdint.h>

struct cpu_raw_data_t;
struct pmu_family;

enum cpu_vendor {
	CPU_VENDOR_UNKNOWN = 0,
	CPU_VENDOR_INTEL,
	CPU_VENDOR_AMD,
	CPU_VENDOR_OTHER,
};

/* CPUID.1AH:EAX[31:24]; the values are the SDM's. */
enum cpu_core_type {
	CPU_CORE_TYPE_NONE = 0,
	CPU_CORE_TYPE_ATOM = 0x20,
	CPU_CORE_TYPE_CORE = 0x40,
};

/* Why pmustat can or cannot use this CPU's PMU. */
enum cpu_verdict {
	CPU_VERDICT_OK = 0,
	CPU_VERDICT_NO_DATA,		/* raw data is all zero */
	CPU_VERDICT_NOT_INTEL,		/* AMD and others: not an Intel PMU */
	CPU_VERDICT_NETBURST,		/* family 0xF: the ESCR/CCCR PMU (netburst caps) */
	CPU_VERDICT_VM_NO_PMU,		/* hypervisor hides leaf 0xA */
	CPU_VERDICT_NO_ARCH_PERFMON,	/* leaf 0xA absent or version 0 */
	CPU_VERDICT_PERFMON_V1,		/* no IA32_PERF_GLOBAL_CTRL */
	CPU_VERDICT_FAMILY_CANNOT,	/* a family's PMU pmustat cannot count on: cpu_info.pmu_why says why */
};

struct pmu_caps {
	/*
	 * The PMU family (pmu/family.h): how pmu/ opens, checks, reads and
	 * restores this PMU. NULL: the architectural PMU's own code, or no PMU.
	 */
	const struct pmu_family *family;
	unsigned version;		/* CPUID.0AH:EAX[7:0] */
	unsigned gp_counters;		/* general-purpose counters usable */
	uint32_t gp_mask;		/* their indices */
	unsigned gp_width;		/* bits */
	unsigned fixed_counters;	/* fixed counters usable */
	uint32_t fixed_mask;		/* their indices (v5: may have holes) */
	unsigned fixed_width;
	unsigned arch_events_len;	/* EAX[31:24]: valid bits of EBX */
	uint32_t arch_events_unavailable; /* EBX: set = event NOT available */
	bool anythread_deprecated;	/* EDX[15] */
	bool pdcm;			/* CPUID.1:ECX[15]: PERF_CAPABILITIES */
	bool ds;			/* CPUID.1:EDX[21]: debug store, IA32_PEBS_ENABLE */
	bool tsx;			/* CPUID.7.0:EBX[4] HLE or [11] RTM: EVTSEL IN_TX, IN_TXCP */
	/* With Arch LBR (CPUID.7.0:EDX[19]), CPUID.1CH:ECX[19:16]: GP counters that may log into the LBRs (EVTSEL bit 35). */
	uint32_t lbr_log_counters;
	/* CPUID.23H.2 EAX (where 0x23.0:EAX[2] says it is valid): GP counters with auto counter reload. */
	uint32_t acr_gp_mask;
	/* CPUID's own numbers, before quirks. */
	unsigned cpuid_gp_counters;
	unsigned cpuid_fixed_counters;
	/*
	 * Which leaf enumerated the counters: "CPUID.0AH", or "CPUID.23H.1"
	 * (its bitmaps replace leaf 0xA's, which on a hybrid part are what
	 * every core type has). NULL without a PMU.
	 */
	const char *counters_from;
	/* Why the counters may be fewer than the core's (a dump without leaf 0x23), or NULL. */
	const char *counters_note;
	/* Why the numbers above differ from CPUID, or NULL. */
	const char *quirk;
	/*
	 * A NetBurst PMU instead (struct netburst_caps has the rest): the
	 * model decides which ESCRs exist, the thread which T0/T1 bits count.
	 * What pmu/ needs to open, check and restore it behind the same calls.
	 */
	bool netburst;
	/*
	 * A family that enumerates its counters by CPUID feature bits (not
	 * leaf 0xA) says which it found: counters at the family's extended
	 * addresses, and global enable, status and clear registers.
	 */
	bool ext_counters;
	bool global_regs;
	unsigned nb_model;
	bool nb_ht;
	unsigned nb_thread;
};

/*
 * The NetBurst PMU (family 0xF without CPUID leaf 0xA; src/netburst/), as
 * far as CPUID tells: whether IA32_MISC_ENABLE[7] says it is usable takes
 * an MSR read (nb_probe()).
 */
struct netburst_caps {
	bool present;
	unsigned counters;		/* 18, in 9 pairs, one CCCR each */
	unsigned width;			/* 40 */
	unsigned escrs;			/* 45, or 43 from model 3 on */
	bool ht;			/* two logical processors share the PMU */
	unsigned thread;		/* this CPU's: which ESCR T0/T1 bits count */
	unsigned apic_id;		/* CPUID.1:EBX[31:24]: the two threads of a core differ in bit 0 */
};

struct cpu_info {
	enum cpu_vendor vendor;
	char vendor_id[13];		/* "GenuineIntel" */
	char brand[49];			/* trimmed brand string, may be empty */
	unsigned family;		/* display family (base + extended) */
	unsigned model;			/* display model (with extended model) */
	unsigned stepping;
	unsigned max_basic_leaf;
	bool hypervisor;		/* CPUID.1:ECX[31] */
	bool hybrid;			/* CPUID.7.0:EDX[15] */
	enum cpu_core_type core_type;	/* CPUID.1AH:EAX[31:24] */
	uint32_t native_model_id;	/* CPUID.1AH:EAX[23:0] */
	struct pmu_caps pmu;
	struct netburst_caps netburst;
	/*
	 * CPUID 0x8000_0022 (EAX, EBX, ECX, EDX), beyond libcpuid's extended
	 * leaves: read apart as leaf 0x23 is (struct cpu_leaf23). Zero when
	 * not read or out of range (@ext22_read false).
	 */
	bool ext22_read;
	uint32_t ext22[4];
	enum cpu_verdict verdict;
	/* The family's own sentence for CPU_VERDICT_FAMILY_CANNOT: what it found and what to do. */
	char pmu_why[512];
};

/*
 * CPUID leaf 0x23 (architectural performance monitoring extended), which
 * libcpuid 0.6.2's raw data cannot hold (its basic leaves stop at 0x1F):
 * read apart, live through hw_cpuid_leaf(), or from a dump's own lines.
 */
/* Subleaves read: 0 (which are valid), 1 (counters), 2 (auto counter reload), 3 (events). */
#define CPU_LEAF23_SUBLEAVES 4

struct cpu_leaf23 {
	bool read;			/* false: not available (a dump without subleaves 0 and 1) */
	uint32_t sub[CPU_LEAF23_SUBLEAVES][4];	/* EAX, EBX, ECX, EDX; a dump's missing ones 0 */
	/* CPUID 0x8000_0022 subleaf 0, which libcpuid's extended leaves (to 0x8000_001F) cannot hold either. */
	bool ext22_read;
	uint32_t ext22[4];
};

/* Decode @raw. Never fails: problems end up in ->verdict. */
void cpu_decode(const struct cpu_raw_data_t *raw, struct cpu_info *out);
/*
 * The same with leaf 0x23 (@l23 may be NULL: not read). Where it is in
 * range (max basic leaf >= 0x23) and 0x23.0:EAX[1] says subleaf 1 is
 * valid, its GP (EAX) and fixed (EBX) bitmaps are the counters, as Linux's
 * update_pmu_cap() reads them; where 0x23.0:EAX[3] says subleaf 3 is,
 * its EAX (a set bit: the event is supported) is which architectural
 * events this core type has, where CPUID.0AH:EBX is on a hybrid what
 * every core type has.
 */
void cpu_decode_ext(const struct cpu_raw_data_t *raw, const struct cpu_leaf23 *l23, struct cpu_info *out);

/*
 * Whether pmustat can count on @cpu's PMU: an architectural PMU it
 * supports (verdict OK) or another family's PMU it programs. The one rule
 * for stat, list, info and reset.
 */
bool cpu_can_count(const struct cpu_info *cpu);

/*
 * Ask the PMU families in turn whether the CPU @raw describes has their
 * PMU (cpu_decode() does, after the generic fields): the first that has
 * it goes into out->pmu.family and fills in its part of @out. Defined
 * with the list of families, src/pmus/families.c.
 */
void pmu_families_detect(const struct cpu_raw_data_t *raw, struct cpu_info *out);

/* "core", "atom" or NULL. */
const char *cpu_core_type_name(enum cpu_core_type type);
const char *cpu_vendor_name(enum cpu_vendor vendor);

/* One line: why pmustat can or cannot count, and what to do. */
const char *cpu_verdict_text(enum cpu_verdict verdict);
/* The same for @cpu: its family's own sentence where the family said why it cannot count. */
const char *cpu_why(const struct cpu_info *cpu);

/*
 * The mapfile key, "GenuineIntel-6-55-7" (family decimal, model and
 * stepping upper-case hex), as Intel's mapfile.csv and Linux perf build it.
 */
void cpu_mapfile_key(const struct cpu_info *cpu, char *buf, unsigned size);

#endif
