/*
 * The -e grammar, table-driven: every alias, raw form and modifier, and the
 * bad inputs, against the real Skylake, Cascade Lake, Sapphire Rapids and
 * Lion Cove tables in events/ and PMUs described by hand.
 */
#include "event_spec_test.h"

const char *events_dir;

/* Skylake client with HT on: v4, 4 GP, 3 fixed, all 7 arch events. */
const struct pmu_caps skl_caps = {
	.version = 4, .gp_counters = 4, .gp_mask = 0xf, .gp_width = 48,
	.fixed_counters = 3, .fixed_mask = 0x7, .fixed_width = 48,
	.arch_events_len = 7,
};
/* The same with HT off: CPUID reports 8 GP counters. */
const struct pmu_caps skl_htoff_caps = {
	.version = 4, .gp_counters = 8, .gp_mask = 0xff, .gp_width = 48,
	.fixed_counters = 3, .fixed_mask = 0x7, .fixed_width = 48,
	.arch_events_len = 7,
};
/* Sapphire Rapids: v5, 8 GP, 4 fixed, AnyThread deprecated, 8 arch events. */
const struct pmu_caps spr_caps = {
	.version = 5, .gp_counters = 8, .gp_mask = 0xff, .gp_width = 48,
	.fixed_counters = 4, .fixed_mask = 0xf, .fixed_width = 48,
	.arch_events_len = 8, .anythread_deprecated = true,
};
/* Lion Cove: v6, 10 GP (pmustat uses 8), 4 fixed, 13 arch events. */
const struct pmu_caps lnc_caps = {
	.version = 6, .gp_counters = 10, .gp_mask = 0x3ff, .gp_width = 48,
	.fixed_counters = 4, .fixed_mask = 0xf, .fixed_width = 48,
	.arch_events_len = 13, .anythread_deprecated = true,
};
/* A Nehalem-like PMU whose EBX says LLC Misses (bit 4) and Branch
 * Mispredicts (bit 6) are not available. */
const struct pmu_caps ebx_caps = {
	.version = 3, .gp_counters = 4, .gp_mask = 0xf, .gp_width = 48,
	.fixed_counters = 3, .fixed_mask = 0x7, .fixed_width = 48,
	.arch_events_len = 7, .arch_events_unavailable = (1u << 4) | (1u << 6),
};
/* A PMU with only 2 GP counters and no fixed ones (v1-like VM). */
const struct pmu_caps tiny_caps = {
	.version = 2, .gp_counters = 2, .gp_mask = 0x3, .gp_width = 40,
	.arch_events_len = 7,
};

static const char *const table_names[T_COUNT] = {
	NULL, "skylake", "cascadelakex", "sapphirerapids", "lunarlake_lioncove", "haswell",
};
struct event_table *tables[T_COUNT];

static const struct spec_case cases[] = {
	/* The classic recipe: LLC misses, user only. */
	{ "LLC_MISSES", T_SKL, &skl_caps, 1, NULL,
	  { { "LLC_MISSES", 0x2e, 0x41, 0, 0, NOFLAGS, U, -1, 0xf, 0, 0, ARCH } } },
	{ "llc_misses", T_NONE, &skl_caps, 1, NULL,
	  { { "LLC_MISSES", 0x2e, 0x41, 0, 0, NOFLAGS, U, -1, 0xf, 0, 0, ARCH } } },
	{ "LLC_REFERENCES", T_SKL, &skl_caps, 1, NULL,
	  { { "LLC_REFERENCES", 0x2e, 0x4f, 0, 0, NOFLAGS, U, -1, 0xf, 0, 0, ARCH } } },
	{ "INSTRUCTIONS_RETIRED", T_SKL, &skl_caps, 1, NULL,
	  { { "INSTRUCTIONS_RETIRED", 0xc0, 0, 0, 0, NOFLAGS, U, 0, 0xf, 0, 0, ARCH } } },
	{ "CORE_CYCLES", T_SKL, &skl_caps, 1, NULL,
	  { { "CORE_CYCLES", 0x3c, 0, 0, 0, NOFLAGS, U, 1, 0xf, 0, 0, ARCH } } },
	/* Fixed counter 2 only: on a GP counter 3C/01 counts another clock (REF_XCLK). */
	{ "REF_CYCLES", T_SKL, &skl_caps, 1, NULL,
	  { { "REF_CYCLES", 0x3c, 0x01, 0, 0, NOFLAGS, U, 2, 0, 0, 0, ARCH } } },
	{ "ref-cycles", T_SKL, &tiny_caps, 0, "counts on fixed counter 2, which this CPU does not report", { { 0 } } },
	{ "BRANCH_INSTRUCTIONS", T_SKL, &skl_caps, 1, NULL,
	  { { "BRANCH_INSTRUCTIONS", 0xc4, 0, 0, 0, NOFLAGS, U, -1, 0xf, 0, 0, ARCH } } },
	{ "BRANCH_MISSES", T_SKL, &skl_caps, 1, NULL,
	  { { "BRANCH_MISSES", 0xc5, 0, 0, 0, NOFLAGS, U, -1, 0xf, 0, 0, ARCH } } },
	/* perf's generic names. */
	{ "cycles,instructions,ref-cycles", T_SKL, &skl_caps, 3, NULL,
	  { { "CORE_CYCLES", 0x3c, 0, 0, 0, NOFLAGS, U, 1, 0xf, 0, 0, ARCH },
	    { "INSTRUCTIONS_RETIRED", 0xc0, 0, 0, 0, NOFLAGS, U, 0, 0xf, 0, 0, ARCH },
	    { "REF_CYCLES", 0x3c, 0x01, 0, 0, NOFLAGS, U, 2, 0, 0, 0, ARCH } } },
	{ "branches,branch-misses", T_SKL, &skl_caps, 2, NULL,
	  { { "BRANCH_INSTRUCTIONS", 0xc4, 0, 0, 0, NOFLAGS, U, -1, 0xf, 0, 0, ARCH },
	    { "BRANCH_MISSES", 0xc5, 0, 0, 0, NOFLAGS, U, -1, 0xf, 0, 0, ARCH } } },
	{ "cache-references,CACHE-MISSES", T_NONE, &skl_caps, 2, NULL,
	  { { "LLC_REFERENCES", 0x2e, 0x4f, 0, 0, NOFLAGS, U, -1, 0xf, 0, 0, ARCH },
	    { "LLC_MISSES", 0x2e, 0x41, 0, 0, NOFLAGS, U, -1, 0xf, 0, 0, ARCH } } },
	/* Topdown Slots: fixed counter 3 on SPR, bit 7 absent on Skylake. */
	{ "TOPDOWN_SLOTS", T_SPR, &spr_caps, 1, NULL,
	  { { "TOPDOWN_SLOTS", 0xa4, 0x01, 0, 0, NOFLAGS, U, 3, 0xff, 0, 0, ARCH } } },
	{ "slots", T_SKL, &skl_caps, 0, "CPUID.0AH enumerates only 7 architectural events", { { 0 } } },
	{ "LBR_INSERTS", T_LNC, &lnc_caps, 1, NULL,
	  { { "LBR_INSERTS", 0xe4, 0x01, 0, 0, NOFLAGS, U, -1, 0x3ff, 0, 0, ARCH } } },
	/* CPUID.0AH:EBX says no. */
	{ "cache-misses", T_NONE, &ebx_caps, 0, "CPUID.0AH:EBX bit 4 is set", { { 0 } } },
	{ "BRANCH_MISSES", T_NONE, &ebx_caps, 0, "\"Branch Mispredicts Retired\") is not available", { { 0 } } },
	/* No fixed counters: the architectural twin goes to a GP counter. */
	{ "instructions", T_NONE, &tiny_caps, 1, NULL,
	  { { "INSTRUCTIONS_RETIRED", 0xc0, 0, 0, 0, NOFLAGS, U, -1, 0x3, 0, 0, ARCH } } },

	/* Privilege modifiers. */
	{ "LLC_MISSES:u", T_SKL, &skl_caps, 1, NULL,
	  { { "LLC_MISSES", 0x2e, 0x41, 0, 0, NOFLAGS, U, -1, 0xf, 0, 0, ARCH } } },
	{ "LLC_MISSES:k", T_SKL, &skl_caps, 1, NULL,
	  { { "LLC_MISSES", 0x2e, 0x41, 0, 0, NOFLAGS, K, -1, 0xf, 0, 0, ARCH } } },
	{ "LLC_MISSES:uk", T_SKL, &skl_caps, 1, NULL,
	  { { "LLC_MISSES", 0x2e, 0x41, 0, 0, NOFLAGS, UK, -1, 0xf, 0, 0, ARCH } } },
	{ "cycles:ku", T_SKL, &skl_caps, 1, NULL,
	  { { "CORE_CYCLES", 0x3c, 0, 0, 0, NOFLAGS, UK, 1, 0xf, 0, 0, ARCH } } },
	{ "cycles:u:k", T_SKL, &skl_caps, 0, "privilege level twice", { { 0 } } },

	/* Table names, case-insensitive, and their restrictions. */
	{ "longest_lat_cache.miss", T_SKL, &skl_caps, 1, NULL,
	  { { "LONGEST_LAT_CACHE.MISS", 0x2e, 0x41, 0, 0, NOFLAGS, U, -1, 0xf, 0, 0, 0 } } },
	{ "CYCLE_ACTIVITY.STALLS_L1D_MISS", T_SKL, &skl_caps, 1, NULL,
	  { { "CYCLE_ACTIVITY.STALLS_L1D_MISS", 0xa3, 0x0c, 0, 12, NOFLAGS, U, -1, 0xf, 0, 0, 0 } } },
	/* HT off: CounterHTOff applies. */
	{ "CYCLE_ACTIVITY.STALLS_L1D_MISS", T_SKL, &skl_htoff_caps, 1, NULL,
	  { { "CYCLE_ACTIVITY.STALLS_L1D_MISS", 0xa3, 0x0c, 0, 12, NOFLAGS, U, -1, 0xff, 0, 0, 0 } } },
	/*
	 * Intel's fixed-only events: their fixed counter, or a GP counter with
	 * the architectural twin encoding when that is someone else's.
	 */
	{ "INST_RETIRED.ANY", T_SKL, &skl_caps, 1, NULL,
	  { { "INST_RETIRED.ANY", 0xc0, 0x00, 0, 0, NOFLAGS, U, 0, 0xf, 0, 0, 0 } } },
	{ "CPU_CLK_UNHALTED.THREAD", T_SKL, &skl_caps, 1, NULL,
	  { { "CPU_CLK_UNHALTED.THREAD", 0x3c, 0x00, 0, 0, NOFLAGS, U, 1, 0xf, 0, 0, 0 } } },
	{ "TOPDOWN.SLOTS:k", T_SPR, &spr_caps, 1, NULL,
	  { { "TOPDOWN.SLOTS", 0xa4, 0x01, 0, 0, NOFLAGS, K, 3, 0xff, 0, 0, 0 } } },
	/* No twin: the reference clock at the TSC rate, and slots where CPUID has no such event. */
	{ "CPU_CLK_UNHALTED.REF_TSC", T_SKL, &skl_caps, 1, NULL,
	  { { "CPU_CLK_UNHALTED.REF_TSC", 0x00, 0x03, 0, 0, NOFLAGS, U, 2, 0, 0, 0, 0 } } },
	{ "TOPDOWN.SLOTS", T_SPR, &skl_caps, 0, "fixed counter 3, which this CPU does not report", { { 0 } } },
	{ "INST_RETIRED.ANY", T_SKL, &tiny_caps, 1, NULL,
	  { { "INST_RETIRED.ANY", 0xc0, 0x00, 0, 0, NOFLAGS, U, -1, 0x3, 0, 0, 0 } } },
	/* AnyThread: fine on Skylake (v4), refused where deprecated. */
	{ "CPU_CLK_UNHALTED.THREAD_ANY", T_SKL, &skl_caps, 1, NULL,
	  { { "CPU_CLK_UNHALTED.THREAD_ANY", 0x3c, 0x00, 0, 0, false, false, true, U, 1, 0xf, 0, 0, 0 } } },
	{ "CPU_CLK_UNHALTED.REF_XCLK_ANY", T_SKL, &spr_caps, 0, "AnyThread", { { 0 } } },
	/* Deprecated names resolve to the new ones. */
	{ "L2_LINES_OUT.USELESS_PREF", T_SKL, &skl_caps, 1, NULL,
	  { { "L2_LINES_OUT.USELESS_HWPF", 0xf2, 0x04, 0, 0, NOFLAGS, U, -1, 0xf, 0, 0, EVENT_F_DEPRECATED } } },
	/* Offcore response: MSR 0x1a6 with the first event code. */
	{ "OFFCORE_RESPONSE.DEMAND_DATA_RD.ANY_RESPONSE", T_SKL, &skl_caps, 1, NULL,
	  { { "OFFCORE_RESPONSE.DEMAND_DATA_RD.ANY_RESPONSE", 0xb7, 0x01, 0, 0, NOFLAGS, U, -1, 0xf, 0x1a6, 0x10001, 0 } } },
	{ "OCR.DEMAND_DATA_RD.ANY_RESPONSE", T_SPR, &spr_caps, 1, NULL,
	  { { "OCR.DEMAND_DATA_RD.ANY_RESPONSE", 0x2a, 0x01, 0, 0, NOFLAGS, U, -1, 0xf, 0x1a6, 0x10001, 0 } } },
	{ "OFFCORE_RESPONSE", T_SKL, &skl_caps, 0, "MSR_OFFCORE_RSP_0/1", { { 0 } } },
	/* Extra MSRs pmustat does not program; PEBS-only; TakenAlone. */
	{ "FRONTEND_RETIRED.DSB_MISS", T_SKL, &skl_caps, 0, "needs MSR 0x3f7 (MSR_PEBS_FRONTEND)", { { 0 } } },
	{ "MEM_TRANS_RETIRED.LOAD_LATENCY_GT_4", T_SKL, &skl_caps, 0, "PEBS", { { 0 } } },
	{ "BR_INST_RETIRED.ALL_BRANCHES_PEBS", T_SKL, &skl_caps, 0, "PEBS-only", { { 0 } } },
	/* UMaskExt: v6 only. */
	{ "BR_INST_RETIRED.COND", T_LNC, &lnc_caps, 1, NULL,
	  { { "BR_INST_RETIRED.COND", 0xc4, 0x11, 0x01, 0, NOFLAGS, U, -1, 0x3ff, 0, 0, 0 } } },
	{ "BR_INST_RETIRED.COND", T_LNC, &spr_caps, 0, "UMASK2 (UMaskExt), a perfmon v6 field; this PMU is version 5", { { 0 } } },

	/* Modifiers on named events. */
	{ "UOPS_ISSUED.ANY:cmask=1:inv", T_SKL, &skl_caps, 1, NULL,
	  { { "UOPS_ISSUED.ANY", 0x0e, 0x01, 0, 1, true, false, false, U, -1, 0xf, 0, 0, 0 } } },
	{ "UOPS_ISSUED.ANY:edge:cmask=0x10:uk", T_SKL, &skl_caps, 1, NULL,
	  { { "UOPS_ISSUED.ANY", 0x0e, 0x01, 0, 16, false, true, false, UK, -1, 0xf, 0, 0, 0 } } },
	/* cmask moves an architectural twin off its fixed counter... */
	{ "instructions:cmask=1", T_SKL, &skl_caps, 1, NULL,
	  { { "INSTRUCTIONS_RETIRED", 0xc0, 0, 0, 1, NOFLAGS, U, -1, 0xf, 0, 0, ARCH } } },
	/* ...and so does it Intel's fixed-only event with a twin; one without cannot take it. */
	{ "INST_RETIRED.ANY:inv", T_SKL, &skl_caps, 1, NULL,
	  { { "INST_RETIRED.ANY", 0xc0, 0x00, 0, 0, true, false, false, U, -1, 0xf, 0, 0, 0 } } },
	{ "CPU_CLK_UNHALTED.REF_TSC:inv", T_SKL, &skl_caps, 0, "lives only on fixed counter 2", { { 0 } } },
	{ "UOPS_ISSUED.ANY:cmask=256", T_SKL, &skl_caps, 0, "cmask must be a number from 0 to 255", { { 0 } } },
	{ "UOPS_ISSUED.ANY:cmask=", T_SKL, &skl_caps, 0, "cmask must be a number", { { 0 } } },
	{ "UOPS_ISSUED.ANY:cmask=1:cmask=2", T_SKL, &skl_caps, 0, "cmask twice", { { 0 } } },
	{ "UOPS_ISSUED.ANY:inv:inv", T_SKL, &skl_caps, 0, "inv twice", { { 0 } } },
	{ "UOPS_ISSUED.ANY:x", T_SKL, &skl_caps, 0, "unknown modifier 'x'", { { 0 } } },
	{ "UOPS_ISSUED.ANY:", T_SKL, &skl_caps, 0, "empty modifier", { { 0 } } },
	{ ":u", T_SKL, &skl_caps, 0, "no event name", { { 0 } } },
	{ ":x", T_SKL, &skl_caps, 0, "no event name", { { 0 } } },
	{ "cycles:x", T_SKL, &skl_caps, 0, "unknown modifier 'x' in 'cycles:x'", { { 0 } } },

	/* Raw: perf's rUUEE. */
	{ "r412e", T_SKL, &skl_caps, 1, NULL,
	  { { "r412e", 0x2e, 0x41, 0, 0, NOFLAGS, U, -1, 0xf, 0, 0, RAW } } },
	{ "R412E:k", T_NONE, &skl_caps, 1, NULL,
	  { { "R412E", 0x2e, 0x41, 0, 0, NOFLAGS, K, -1, 0xf, 0, 0, RAW } } },
	/* The classic 0x41412E: USR from bit 16, EN ignored. */
	{ "r41412e", T_SKL, &skl_caps, 1, NULL,
	  { { "r41412e", 0x2e, 0x41, 0, 0, NOFLAGS, U, -1, 0xf, 0, 0, RAW } } },
	{ "r41412e:k", T_SKL, &skl_caps, 0, "privilege level twice", { { 0 } } },
	/* cmask 1, inv, edge, any in the high bits. */
	{ "r01a4010e", T_SKL, &skl_caps, 1, NULL,
	  { { "r01a4010e", 0x0e, 0x01, 0, 1, true, true, true, U, -1, 0xf, 0, 0, RAW } } },
	{ "r010e:cmask=2:edge", T_SKL, &skl_caps, 1, NULL,
	  { { "r010e", 0x0e, 0x01, 0, 2, false, true, false, U, -1, 0xf, 0, 0, RAW } } },
	{ "r0100000011c4", T_LNC, &lnc_caps, 1, NULL,
	  { { "r0100000011c4", 0xc4, 0x11, 0x01, 0, NOFLAGS, U, -1, 0x3ff, 0, 0, RAW } } },
	{ "r0100000011c4", T_SKL, &skl_caps, 0, "perfmon v6 field", { { 0 } } },
	{ "r", T_SKL, &skl_caps, 0, "needs hex digits", { { 0 } } },
	{ "r1FFFFFFFFF", T_SKL, &skl_caps, 0, "above bit 31", { { 0 } } },
	{ "r10000000000000000", T_SKL, &skl_caps, 0, "more than 16 hex digits", { { 0 } } },
	{ "r10412e", T_SKL, &skl_caps, 0, "INT (bit 20)", { { 0 } } },
	{ "r8412e", T_SKL, &skl_caps, 0, "PC (bit 19)", { { 0 } } },
	{ "r0000412e", T_SPR, &spr_caps, 1, NULL,
	  { { "r0000412e", 0x2e, 0x41, 0, 0, NOFLAGS, U, -1, 0xff, 0, 0, RAW } } },
	{ "r20412e", T_SPR, &spr_caps, 0, "AnyThread", { { 0 } } },

	/* Raw: cpu/.../ with commas inside, in a list. */
	{ "cpu/event=0x2e,umask=0x41/", T_SKL, &skl_caps, 1, NULL,
	  { { "cpu/event=0x2e,umask=0x41/", 0x2e, 0x41, 0, 0, NOFLAGS, U, -1, 0xf, 0, 0, RAW } } },
	{ "cycles,cpu/event=0x2e,umask=0x41,cmask=1,inv,edge,name=llc_stall/,instructions", T_SKL, &skl_caps, 3, NULL,
	  { { "CORE_CYCLES", 0x3c, 0, 0, 0, NOFLAGS, U, 1, 0xf, 0, 0, ARCH },
	    { "llc_stall", 0x2e, 0x41, 0, 1, true, true, false, U, -1, 0xf, 0, 0, RAW },
	    { "INSTRUCTIONS_RETIRED", 0xc0, 0, 0, 0, NOFLAGS, U, 0, 0xf, 0, 0, ARCH } } },
	{ "cpu/event=0x3c,any=1/k", T_SKL, &skl_caps, 1, NULL,
	  { { "cpu/event=0x3c,any=1/", 0x3c, 0, 0, 0, false, false, true, K, -1, 0xf, 0, 0, RAW } } },
	{ "cpu/event=0x3c,inv=0/uk", T_SKL, &skl_caps, 1, NULL,
	  { { "cpu/event=0x3c,inv=0/", 0x3c, 0, 0, 0, NOFLAGS, UK, -1, 0xf, 0, 0, RAW } } },
	{ "cpu/event=0x3c/:k", T_SKL, &skl_caps, 1, NULL,
	  { { "cpu/event=0x3c/", 0x3c, 0, 0, 0, NOFLAGS, K, -1, 0xf, 0, 0, RAW } } },
	{ "cpu/event=0xc4,umask=0x11,umask2=1/", T_LNC, &lnc_caps, 1, NULL,
	  { { "cpu/event=0xc4,umask=0x11,umask2=1/", 0xc4, 0x11, 0x01, 0, NOFLAGS, U, -1, 0x3ff, 0, 0, RAW } } },
	{ "cpu/event=0x2e,umask=0x41", T_SKL, &skl_caps, 0, "no closing '/'", { { 0 } } },
	{ "cpu//", T_SKL, &skl_caps, 0, "no parameters", { { 0 } } },
	{ "cpu/umask=0x41/", T_SKL, &skl_caps, 0, "no event=", { { 0 } } },
	{ "cpu/event=0x100/", T_SKL, &skl_caps, 0, "event needs a value from 0 to 0xff", { { 0 } } },
	{ "cpu/event=0x2e,foo=1/", T_SKL, &skl_caps, 0, "unknown parameter 'foo'", { { 0 } } },
	{ "cpu/event=0x2e,inv=2/", T_SKL, &skl_caps, 0, "inv takes 0 or 1", { { 0 } } },
	{ "cpu/event=0x2e/kk", T_SKL, &skl_caps, 0, "bad privilege letters", { { 0 } } },
	{ "cpu/event=0x2e/x", T_SKL, &skl_caps, 0, "unexpected 'x' after the closing '/'", { { 0 } } },
	{ "cpu/event=0x2e/u:k", T_SKL, &skl_caps, 0, "privilege level twice", { { 0 } } },
	{ "cpu/event=0x2e,name=/", T_SKL, &skl_caps, 0, "name= needs a label", { { 0 } } },

	/* Bad inputs. */
	{ "", T_SKL, &skl_caps, 0, "empty event list", { { 0 } } },
	{ ",", T_SKL, &skl_caps, 0, "empty event name (item 1", { { 0 } } },
	{ "cycles,", T_SKL, &skl_caps, 0, "empty event name (item 2", { { 0 } } },
	{ "cycles,,instructions", T_SKL, &skl_caps, 0, "empty event name (item 2", { { 0 } } },
	{ "LLC_MISES", T_SKL, &skl_caps, 0, "unknown event 'LLC_MISES' for skylake; did you mean LLC_MISSES", { { 0 } } },
	{ "LONGEST_LAT_CACHE.MIS", T_SKL, &skl_caps, 0, "did you mean LONGEST_LAT_CACHE.MISS", { { 0 } } },
	{ "NO_SUCH_THING_AT_ALL", T_SKL, &skl_caps, 0, "unknown event 'NO_SUCH_THING_AT_ALL' for skylake", { { 0 } } },
	{ "LONGEST_LAT_CACHE.MISS", T_NONE, &skl_caps, 0, "no event table", { { 0 } } },
	{ "UNC_CHA_CLOCKTICKS", T_SKL, &skl_caps, 0, "uncore event", { { 0 } } },
	{ "uncore_imc/event=0x4/", T_SKL, &skl_caps, 0, "only the core PMU", { { 0 } } },
	/* The same event twice is two events here; the engine counts it once (engine/requests.c). */
	{ "cycles,cycles", T_SKL, &skl_caps, 2, NULL,
	  { { "CORE_CYCLES", 0x3c, 0, 0, 0, NOFLAGS, U, 1, 0xf, 0, 0, ARCH },
	    { "CORE_CYCLES", 0x3c, 0, 0, 0, NOFLAGS, U, 1, 0xf, 0, 0, ARCH } } },
	{ "r412e,LLC_MISSES", T_SKL, &skl_caps, 2, NULL,
	  { { "r412e", 0x2e, 0x41, 0, 0, NOFLAGS, U, -1, 0xf, 0, 0, RAW },
	    { "LLC_MISSES", 0x2e, 0x41, 0, 0, NOFLAGS, U, -1, 0xf, 0, 0, ARCH } } },
	/* The same event in different modes is not a duplicate. */
	{ "cycles:u,cycles:k", T_SKL, &skl_caps, 2, NULL,
	  { { "CORE_CYCLES", 0x3c, 0, 0, 0, NOFLAGS, U, 1, 0xf, 0, 0, ARCH },
	    { "CORE_CYCLES", 0x3c, 0, 0, 0, NOFLAGS, K, 1, 0xf, 0, 0, ARCH } } },
	/* Spaces around names are forgiven. */
	{ " cycles , instructions ", T_SKL, &skl_caps, 2, NULL,
	  { { "CORE_CYCLES", 0x3c, 0, 0, 0, NOFLAGS, U, 1, 0xf, 0, 0, ARCH },
	    { "INSTRUCTIONS_RETIRED", 0xc0, 0, 0, 0, NOFLAGS, U, 0, 0xf, 0, 0, ARCH } } },
	/* CLX's OFFCORE_RESPONSE:request=... names were dropped on purpose. */
	{ "OFFCORE_RESPONSE:request=DEMAND_DATA_RD:response=ANY_RESPONSE", T_CLX, &skl_caps, 0,
	  "unknown event 'OFFCORE_RESPONSE'", { { 0 } } },
	/* 2 GP counters: Haswell's PMC2-only event cannot be placed. */
	{ "L1D_PEND_MISS.PENDING", T_HSW, &skl_caps, 1, NULL,
	  { { "L1D_PEND_MISS.PENDING", 0x48, 0x01, 0, 0, NOFLAGS, U, -1, 0x4, 0, 0, 0 } } },
	{ "L1D_PEND_MISS.PENDING", T_HSW, &tiny_caps, 0, "can only be counted on PMC2", { { 0 } } },
};

void
check_event(const struct spec_case *c, size_t i, const struct event *ev)
{
	const struct want *w = &c->want[i];

	if (w->name && strcmp(ev->name, w->name) != 0)
		fail_msg("'%s' #%zu: name '%s', want '%s'", c->spec, i, ev->name, w->name);
	CHECK_FIELD(code, code);
	CHECK_FIELD(umask, umask);
	CHECK_FIELD(umask_ext, umask_ext);
	CHECK_FIELD(cmask, cmask);
	CHECK_FIELD(inv, inv);
	CHECK_FIELD(edge, edge);
	CHECK_FIELD(any_thread, any);
	CHECK_FIELD(usr, usr);
	CHECK_FIELD(os, os);
	CHECK_FIELD(fixed, fixed);
	CHECK_FIELD(gp_mask, gp_mask);
	CHECK_FIELD(extra_msr, extra_msr);
	CHECK_FIELD(extra_value, extra_value);
	CHECK_FIELD(flags, flags);
}

static void
test_cases(void **state)
{
	struct pmustat_error *err = NULL;
	size_t k;

	(void)state;
	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const struct spec_case *c = &cases[k];
		struct event *evs = (struct event *)0x1;
		size_t n = 99, i;
		err_clear(&err);
		int ret;

		ret = event_spec_parse(c->spec, tables[c->table], c->caps, &evs, &n, &err);
		if (c->count == 0) {
			if (ret != -EINVAL)
				fail_msg("'%s' parsed (ret %d), want an error containing \"%s\"",
					 c->spec, ret, c->error);
			if (!strstr(err_msg(err), c->error))
				fail_msg("'%s': error \"%s\" lacks \"%s\"", c->spec, err_msg(err), c->error);
			assert_null(evs);
			assert_int_equal(n, 0);
			continue;
		}
		if (ret != 0)
			fail_msg("'%s' failed: %s", c->spec, err_msg(err));
		assert_int_equal(n, c->count);
		for (i = 0; i < n && i < 3; i++)
			check_event(c, i, &evs[i]);
		for (i = 0; i < n; i++)
			assert_non_null(strstr(c->spec, evs[i].requested));
		free(evs);
		err_clear(&err);
	}
	err_clear(&err);
}

/*
 * 20 000 specs stitched from grammar fragments and odd bytes (a fixed
 * seed): every one either resolves to countable events or fails with a
 * message; none crashes (the suite also runs under ASan/UBSan).
 */
static void
test_mutations(void **state)
{
	struct pmustat_error *err = NULL;
	static const char *const pieces[] = {
		"cycles", "LLC_MISSES", "r412e", "r", "cpu/", "/", "event=", "umask=", "0x2e",
		"41", ",", ":", "u", "k", "uk", "cmask=", "inv", "edge", "any", "name=",
		"=", "INST_RETIRED.ANY", "UOPS_ISSUED.ANY", "OCR.DEMAND_DATA_RD.ANY_RESPONSE",
		"FFFFFFFFFFFFFFFFF", " ", "\t", "\xff", "%s%n", "-1", "256", "1",
	};
	const size_t n_pieces = sizeof(pieces) / sizeof(pieces[0]);
	unsigned long long rng = 0x9e3779b97f4a7c15ull;
	unsigned ok = 0, bad = 0, k;

	(void)state;
	for (k = 0; k < 20000; k++) {
		char spec[512] = "";
		size_t len = 0, parts, i, n;
		struct event *evs;
		err_clear(&err);
		int ret;

		rng = rng * 6364136223846793005ull + 1442695040888963407ull;
		parts = 1 + (rng >> 33) % 8;
		for (i = 0; i < parts; i++) {
			const char *p;

			rng = rng * 6364136223846793005ull + 1442695040888963407ull;
			p = pieces[(rng >> 33) % n_pieces];
			if (len + strlen(p) < sizeof(spec))
				len += (size_t)snprintf(spec + len, sizeof(spec) - len, "%s", p);
		}
		err_clear(&err);
		ret = event_spec_parse(spec, tables[k % 2 ? T_SKL : T_SPR],
				       k % 2 ? &skl_caps : &spr_caps, &evs, &n, &err);
		if (ret == 0) {
			assert_true(n > 0);
			for (i = 0; i < n; i++) {
				if (!evs[i].usr && !evs[i].os)
					fail_msg("'%s': event %zu counts in no mode", spec, i);
				if (evs[i].fixed < 0 && !evs[i].gp_mask)
					fail_msg("'%s': event %zu has no counter", spec, i);
				if (!evs[i].name[0])
					fail_msg("'%s': event %zu has no name", spec, i);
			}
			free(evs);
			ok++;
		} else {
			if (ret != -EINVAL || !err_msg(err)[0])
				fail_msg("'%s': ret %d, message \"%s\"", spec, ret, err_msg(err));
			bad++;
		}
		err_clear(&err);
	}
	/* The fragments must exercise both outcomes. */
	print_message("mutations: %u parsed, %u refused\n", ok, bad);
	assert_true(ok > 100);
	assert_true(bad > 100);
	err_clear(&err);
}

/* Every alias, on a PMU that has all 13 architectural events. */
static void
test_every_alias(void **state)
{
	static const struct { const char *alias, *key; } generic[] = {
		{ "cycles", "CORE_CYCLES" }, { "instructions", "INSTRUCTIONS_RETIRED" },
		{ "ref-cycles", "REF_CYCLES" }, { "branches", "BRANCH_INSTRUCTIONS" },
		{ "branch-instructions", "BRANCH_INSTRUCTIONS" },
		{ "branch-misses", "BRANCH_MISSES" }, { "cache-references", "LLC_REFERENCES" },
		{ "cache-misses", "LLC_MISSES" }, { "slots", "TOPDOWN_SLOTS" },
	};
	struct event *evs;
	size_t n, i;
	struct pmustat_error *err = NULL;

	(void)state;
	for (i = 0; i < arch_event_count() + sizeof(generic) / sizeof(generic[0]); i++) {
		const struct arch_event *ae;
		const char *typed;

		if (i < arch_event_count()) {
			ae = arch_event_get((unsigned)i);
			typed = ae->key;
		} else {
			typed = generic[i - arch_event_count()].alias;
			ae = arch_event_by_key(generic[i - arch_event_count()].key);
		}
		assert_non_null(ae);
		if (event_spec_parse(typed, tables[T_LNC], &lnc_caps, &evs, &n, &err) != 0)
			fail_msg("%s: %s", typed, err_msg(err));
		assert_int_equal(n, 1);
		assert_string_equal(evs[0].name, ae->key);
		assert_string_equal(evs[0].requested, typed);
		assert_int_equal(evs[0].code, ae->code);
		assert_int_equal(evs[0].umask, ae->umask);
		assert_int_equal(evs[0].fixed, ae->fixed);
		/* Every one on any of Lion Cove's ten GP counters too, but UnHalted Reference Cycles (another clock there). */
		assert_int_equal(evs[0].gp_mask, ae->fixed >= 0 && !ae->fixed_twin ? 0 : 0x3ff);
		assert_int_equal(evs[0].flags, EVENT_F_ARCH);
		free(evs);
	}
	err_clear(&err);
}

/* 10 000 commas: an error, quickly, no crash. */
static void
test_many_commas(void **state)
{
	char *spec = malloc(10001);
	struct event *evs;
	size_t n;
	struct pmustat_error *err = NULL;

	(void)state;
	assert_non_null(spec);
	memset(spec, ',', 10000);
	spec[10000] = '\0';
	assert_int_equal(event_spec_parse(spec, tables[T_SKL], &skl_caps, &evs, &n, &err),
			 -EINVAL);
	assert_non_null(strstr(err_msg(err), "empty event name (item 1"));
	free(spec);
	err_clear(&err);
}

/* Many valid events in one list, and a name too long for struct event. */
static void
test_long_inputs(void **state)
{
	size_t len = 0, i, n;
	char *spec = malloc(1 << 16);
	char name[EVENT_NAME_MAX + 10];
	struct event *evs;
	struct pmustat_error *err = NULL;

	(void)state;
	assert_non_null(spec);
	/* cpu/event=N/ for every code: 256 distinct events. */
	for (i = 0; i < 256; i++)
		len += (size_t)sprintf(spec + len, "%scpu/event=%zu/", i ? "," : "", i);
	assert_int_equal(event_spec_parse(spec, tables[T_SKL], &skl_caps, &evs, &n, &err), 0);
	assert_int_equal(n, 256);
	assert_int_equal(evs[255].code, 255);
	free(evs);

	memset(name, 'A', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	assert_int_equal(event_spec_parse(name, tables[T_SKL], &skl_caps, &evs, &n, &err),
			 -EINVAL);
	assert_non_null(strstr(err_msg(err), "too long"));
	free(spec);
	err_clear(&err);
}

/* Several -e options: append accumulates (an event again is an event again). */
static void
test_append(void **state)
{
	struct event *evs = NULL;
	size_t n = 0;
	struct pmustat_error *err = NULL;

	(void)state;
	assert_int_equal(event_spec_append("cycles", tables[T_SKL], &skl_caps, &evs, &n, &err), 0);
	assert_int_equal(event_spec_append("LLC_MISSES,instructions", tables[T_SKL], &skl_caps, &evs, &n, &err), 0);
	assert_int_equal(n, 3);
	assert_int_equal(event_spec_append("BRANCH_MISSES,cycles", tables[T_SKL], &skl_caps, &evs, &n, &err), 0);
	assert_int_equal(n, 5);
	assert_string_equal(evs[1].name, "LLC_MISSES");
	assert_true(event_spec_same(&evs[0], &evs[4]));
	/* A failing list leaves the events as they were. */
	assert_int_equal(event_spec_append("LLC_MISSES,NO_SUCH", tables[T_SKL], &skl_caps, &evs, &n, &err), -EINVAL);
	assert_int_equal(n, 5);
	free(evs);
	err_clear(&err);
}

static void
test_suggest(void **state)
{
	const char *out[3];
	size_t n;

	(void)state;
	n = event_spec_suggest("BR_INST_RETIRED.ALL_BRANCHE", tables[T_SKL], out, 3);
	assert_true(n >= 1);
	assert_string_equal(out[0], "BR_INST_RETIRED.ALL_BRANCHES");
	n = event_spec_suggest("cyles", NULL, out, 3);
	assert_true(n >= 1);
	assert_string_equal(out[0], "cycles");
	assert_int_equal(event_spec_suggest("ZZZZZZZZZZZZZZZZZZZZZ", tables[T_SKL], out, 3), 0);
}

static int
setup(void **state)
{
	struct pmustat_error *err = NULL;
	int i;

	(void)state;
	for (i = 1; i < T_COUNT; i++) {
		if (event_table_load(events_dir, table_names[i], &tables[i], &err) != 0) {
			fprintf(stderr, "%s\n", err_msg(err));
			return -1;
		}
	}
	err_clear(&err);
	return 0;
}

static int
teardown(void **state)
{
	int i;

	(void)state;
	for (i = 1; i < T_COUNT; i++)
		event_table_free(tables[i]);
	return 0;
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),
		cmocka_unit_test(test_every_alias),
		cmocka_unit_test(test_many_commas),
		cmocka_unit_test(test_mutations),
		cmocka_unit_test(test_long_inputs),
		cmocka_unit_test(test_append),
		cmocka_unit_test(test_suggest),
		cmocka_unit_test(test_arch_events),
		cmocka_unit_test(test_groups),
		cmocka_unit_test(test_generic_cache_names),
		cmocka_unit_test(test_core_type_spellings),
	};

	if (argc != 2) {
		fprintf(stderr, "usage: %s EVENTS_DIR\n", argv[0]);
		return 2;
	}
	events_dir = argv[1];
	return cmocka_run_group_tests(tests, setup, teardown);
}
