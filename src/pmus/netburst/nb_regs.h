/*
 * nb_regs.h - the NetBurst PMU's registers: addresses, layouts, which ESCR
 * feeds which counter, and the allow-list. Pure data and lookups.
 *
 * Sources: SDM vol. 3B, tables "Performance Counter MSRs and Associated
 * CCCR and ESCR MSRs (Pentium 4 and Intel Xeon Processors)" (the ESCR
 * address list and the ESCR-select value of each ESCR per counter) and
 * the ESCR/CCCR figures; "Counter Numbers Per ESCR" in the event tables.
 */
#ifndef PMUSTAT_NB_REGS_H
#define PMUSTAT_NB_REGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NB_COUNTERS		18	/* 9 pairs, one CCCR each */
#define NB_COUNTER_WIDTH	40
#define NB_ESCRS		45	/* 43 from model 3 on: IQ_ESCR0/1 are gone */

#define NB_MSR_COUNTER0		0x300u	/* + i, i < 18 */
#define NB_MSR_CCCR0		0x360u	/* + i */

/* IA32_MISC_ENABLE: bit 7 performance monitoring available (RO), bit 12
 * PEBS unavailable (RO). Read only, never written. */
#define NB_MSR_MISC_ENABLE	0x1a0u
#define NB_MISC_PERFMON		(1ull << 7)
#define NB_MISC_PEBS_UNAVAIL	(1ull << 12)

/*
 * ESCR fields (figures "Event Selection Control Register (ESCR) for
 * Pentium 4 Processor..."). Without Hyper-Threading bits 1:0 are reserved
 * and bits 3:2 are OS/USR; with it, bits 3:2 qualify logical processor 0
 * (T0_OS/T0_USR) and 1:0 logical processor 1.
 */
#define NB_ESCR_T1_USR		(1ull << 0)
#define NB_ESCR_T1_OS		(1ull << 1)
#define NB_ESCR_T0_USR		(1ull << 2)
#define NB_ESCR_T0_OS		(1ull << 3)
#define NB_ESCR_TAG_ENABLE	(1ull << 4)
#define NB_ESCR_TAG_VALUE(v)	(((uint64_t)(v) & 0xfu) << 5)
#define NB_ESCR_EVENT_MASK(m)	(((uint64_t)(m) & 0xffffu) << 9)
#define NB_ESCR_EVENT_SELECT(e)	(((uint64_t)(e) & 0x3fu) << 25)
#define NB_ESCR_GET_MASK(v)	((unsigned)(((v) >> 9) & 0xffffu))
#define NB_ESCR_GET_SELECT(v)	((unsigned)(((v) >> 25) & 0x3fu))

/*
 * CCCR fields (figure "Counter Configuration Control Register (CCCR)").
 * Bits 17:16 are "reserved, must be set to 11B" without Hyper-Threading
 * and the active-thread field with it, where 11B means "any".
 */
#define NB_CCCR_ENABLE		(1ull << 12)
#define NB_CCCR_ESCR_SELECT(s)	(((uint64_t)(s) & 0x7u) << 13)
#define NB_CCCR_ACTIVE_THREAD(t) (((uint64_t)(t) & 0x3u) << 16)
#define NB_CCCR_REQUIRED	NB_CCCR_ACTIVE_THREAD(3)
#define NB_CCCR_COMPARE		(1ull << 18)
#define NB_CCCR_COMPLEMENT	(1ull << 19)
#define NB_CCCR_THRESHOLD(t)	(((uint64_t)(t) & 0xfu) << 20)
#define NB_CCCR_EDGE		(1ull << 24)
#define NB_CCCR_FORCE_OVF	(1ull << 25)
#define NB_CCCR_OVF_PMI_T0	(1ull << 26)	/* OVF_PMI without HT */
#define NB_CCCR_OVF_PMI_T1	(1ull << 27)	/* reserved without HT */
#define NB_CCCR_CASCADE		(1ull << 30)
#define NB_CCCR_OVF		(1ull << 31)
#define NB_CCCR_GET_SELECT(v)	((unsigned)(((v) >> 13) & 0x7u))
#define NB_CCCR_GET_THRESHOLD(v) ((unsigned)(((v) >> 20) & 0xfu))

struct nb_escr {
	const char *name;	/* "CRU_ESCR0", as the SDM names the MSR less "MSR_" */
	uint32_t msr;
	uint8_t select;		/* the CCCR ESCR-select value that names it */
	uint32_t counters;	/* bit i: counter i can count its events */
	uint8_t last_model;	/* 0, or the last model that has it (IQ_ESCR0/1: 2) */
};

/* ESCR i, 0 <= i < NB_ESCRS, in address order; NULL beyond. */
const struct nb_escr *nb_escr_get(unsigned i);
/* Index of the ESCR named @name (case-insensitive, "MSR_" prefix allowed), or -1. */
int nb_escr_find(const char *name);
/* Index of the ESCR at @msr, or -1. */
int nb_escr_by_msr(uint32_t msr);
/* Whether ESCR @i exists on a family-15 CPU of model @model. */
bool nb_escr_exists(unsigned i, unsigned model);
/* Index of the ESCR that counter @counter reads with ESCR-select @select, or -1. */
int nb_escr_for(unsigned counter, unsigned select);
/* How many ESCRs model @model has (45, or 43 from model 3 on). */
unsigned nb_escr_count(unsigned model);

static inline uint32_t nb_counter_msr(unsigned i) { return NB_MSR_COUNTER0 + i; }
static inline uint32_t nb_cccr_msr(unsigned i) { return NB_MSR_CCCR0 + i; }
/* "BPU_COUNTER0" ... "IQ_COUNTER5"; "BPU_CCCR0" ... "IQ_CCCR5"; "?" beyond. */
const char *nb_counter_name(unsigned i);
const char *nb_cccr_name(unsigned i);
/* The other counter of @i's pair (0-1, 2-3, ... 16-17). */
static inline unsigned nb_counter_sibling(unsigned i) { return i ^ 1u; }

/*
 * The allow-list: exactly the counters 0x300-0x311, the CCCRs 0x360-0x371
 * and the ESCRs model @model has. IA32_MISC_ENABLE is not on it (pmustat
 * only reads that one, through nb_probe()).
 */
bool nb_msr_allowed(uint32_t msr, unsigned model);
/* "MSR_CRU_ESCR0", "MSR_IQ_CCCR0", "MSR_IQ_COUNTER0", "IA32_MISC_ENABLE" or "MSR 0x..." into @buf. */
const char *nb_msr_name(uint32_t msr, char *buf, size_t size);

/*
 * The bits a write may set; any other bit is reserved. @ht: the part has
 * Hyper-Threading (T1 bits, OVF_PMI_T1). The counter field mask covers
 * the 40 bits of a counter.
 */
uint64_t nb_escr_valid_bits(bool ht);
uint64_t nb_cccr_valid_bits(bool ht);
#define NB_COUNTER_MASK		((1ull << NB_COUNTER_WIDTH) - 1)

#endif
