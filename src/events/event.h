/*
 * event.h - one event, resolved: everything needed to program a counter.
 *
 * event_spec.c produces these from the -e strings (named events from the
 * event table, architectural aliases, raw forms); sched.c places them on
 * counters; evtsel.c turns them into MSR values. Nothing here touches
 * hardware.
 */
#ifndef PMUSTAT_EVENT_H
#define PMUSTAT_EVENT_H

#include <stdbool.h>
#include <stdint.h>

#define EVENT_NAME_MAX 160

/* Why an event, though its name resolved, cannot be counted. */
enum event_flag {
	EVENT_F_PEBS_ONLY	= 1u << 0,	/* PEBS 2 / CollectPEBSRecord 3 */
	EVENT_F_TAKEN_ALONE	= 1u << 1,	/* no other GP event beside it */
	EVENT_F_DEPRECATED	= 1u << 2,	/* resolved through an old name */
	EVENT_F_RAW		= 1u << 3,	/* rXXXX or cpu/.../ */
	EVENT_F_ARCH		= 1u << 4,	/* architectural event */
	EVENT_F_SOFTWARE	= 1u << 5,	/* kernel software event (sw_events.h), no EVTSEL */
	/*
	 * A byte of IA32_PERF_METRICS (top-down, Ice Lake+), no EVTSEL: read
	 * after a run in which fixed counter 3 counted SLOTS; umask is the
	 * byte (0 Retiring, 1 Bad Speculation, 2 Frontend Bound, 3 Backend
	 * Bound, 4-7 the level-2 ones), the count its value, 0-255 (x/255 of
	 * the slots).
	 */
	EVENT_F_PERF_METRICS	= 1u << 6,
	EVENT_F_NETBURST	= 1u << 7,	/* a NetBurst ESCR/CCCR event (pmus/netburst/), no EVTSEL */
	/*
	 * cpu_core/.../ or cpu_atom/.../ resolved for the other core type of
	 * a hybrid: counted on that type's cores only, nothing to program
	 * on these (no counter, no encoding; requested is the spelling).
	 */
	EVENT_F_OTHER_CORE_TYPE	= 1u << 8,
	/*
	 * --backend sim: counted by Valgrind's simulation (events/sim_events.h),
	 * sim_fields the Cachegrind columns it sums; no counter, no encoding.
	 */
	EVENT_F_SIMULATED	= 1u << 9,
	/*
	 * One of perf's generic names on a CPU pmustat cannot program (another
	 * vendor, no PMU it knows): opened through perf_event as the kernel's
	 * own generic event (perf_type PERF_TYPE_HARDWARE or
	 * PERF_TYPE_HW_CACHE, perf_config), the kernel deciding whether it
	 * counts here.
	 */
	EVENT_F_KERNEL_GENERIC	= 1u << 10,
};

struct event {
	/* As resolved (canonical, e.g. "LONGEST_LAT_CACHE.MISS") and as typed. */
	char name[EVENT_NAME_MAX];
	char requested[EVENT_NAME_MAX];

	/* IA32_PERFEVTSELx fields; EN and INT are the programmer's business. */
	uint8_t code;
	uint8_t umask;
	uint8_t umask_ext;	/* v6 UMASK2, bits 47:40 */
	uint8_t cmask;
	bool inv;
	bool edge;
	bool any_thread;
	bool usr;		/* count ring 3 (default) */
	bool os;		/* count ring 0 (:k) */

	/*
	 * Where it may run: a fixed counter (fixed >= 0, which then also
	 * defines the encoding), and/or the GP counters in gp_mask. An event
	 * with a fixed counter and a non-zero gp_mask may go either way (the
	 * architectural twin); gp_mask == 0 means fixed only.
	 */
	int fixed;
	uint32_t gp_mask;

	/* An extra MSR the event needs (offcore response), or 0. */
	uint32_t extra_msr;
	uint64_t extra_value;
	/*
	 * The other offcore response MSR that counts the same event, with its
	 * own event code and umask (Intel's tables: "EventCode": "0xB7, 0xBB",
	 * "MSRIndex": "0x1a6,0x1a7"), or alt_msr 0. The scheduler uses it
	 * (sched_slot.alt) when extra_msr is taken in a run, or by another user.
	 */
	uint32_t alt_msr;
	uint64_t alt_value;
	uint8_t alt_code, alt_umask;

	unsigned flags;		/* enum event_flag */

	/*
	 * Events with the same non-zero group are counted in the same run:
	 * perf's -e '{a,b}' (refused when they cannot fit one run), or, with
	 * group_soft, a pair pmustat keeps together for a ratio (IPC, miss
	 * rates), split when it cannot fit.
	 */
	unsigned group;
	bool group_soft;

	/*
	 * EVENT_F_NETBURST: code is the ESCR event select, cmask the CCCR
	 * threshold, inv its complement, edge its edge; these complete it.
	 */
	uint16_t nb_mask;	/* ESCR event mask, bits 24:9 */
	uint64_t nb_escrs;	/* the ESCRs that may select it (bit i: nb_escr_get(i)) */
	bool nb_compare;	/* the CCCR's compare flag */

	uint32_t sim_fields;	/* EVENT_F_SIMULATED: SIM_BIT()s of sim_events.h */
	uint32_t perf_type;	/* EVENT_F_KERNEL_GENERIC */
	uint64_t perf_config;
};

#endif
