/*
 * nb_regs.c - the NetBurst register map (see nb_regs.h).
 */
#include "pmus/netburst/nb_regs.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* The counters each ESCR can feed ("Counter Numbers Per ESCR"). */
#define C01	0x00003u		/* BPU_COUNTER0, 1 */
#define C23	0x0000cu		/* BPU_COUNTER2, 3 */
#define C45	0x00030u		/* MS_COUNTER0, 1 */
#define C67	0x000c0u		/* MS_COUNTER2, 3 */
#define C89	0x00300u		/* FLAME_COUNTER0, 1 */
#define CAB	0x00c00u		/* FLAME_COUNTER2, 3 */
#define CIQ0	0x13000u		/* IQ_COUNTER0, 1, 4 (counters 12, 13, 16) */
#define CIQ1	0x2c000u		/* IQ_COUNTER2, 3, 5 (counters 14, 15, 17) */

/*
 * Every ESCR, in address order: name, MSR, the ESCR-select value CCCRs
 * name it by, the counters it feeds, and the last model that has it.
 */
static const struct nb_escr escrs[NB_ESCRS] = {
	{ "BSU_ESCR0",   0x3a0, 7, C01, 0 },
	{ "BSU_ESCR1",   0x3a1, 7, C23, 0 },
	{ "FSB_ESCR0",   0x3a2, 6, C01, 0 },
	{ "FSB_ESCR1",   0x3a3, 6, C23, 0 },
	{ "FIRM_ESCR0",  0x3a4, 1, C89, 0 },
	{ "FIRM_ESCR1",  0x3a5, 1, CAB, 0 },
	{ "FLAME_ESCR0", 0x3a6, 0, C89, 0 },
	{ "FLAME_ESCR1", 0x3a7, 0, CAB, 0 },
	{ "DAC_ESCR0",   0x3a8, 5, C89, 0 },
	{ "DAC_ESCR1",   0x3a9, 5, CAB, 0 },
	{ "MOB_ESCR0",   0x3aa, 2, C01, 0 },
	{ "MOB_ESCR1",   0x3ab, 2, C23, 0 },
	{ "PMH_ESCR0",   0x3ac, 4, C01, 0 },
	{ "PMH_ESCR1",   0x3ad, 4, C23, 0 },
	{ "SAAT_ESCR0",  0x3ae, 2, C89, 0 },
	{ "SAAT_ESCR1",  0x3af, 2, CAB, 0 },
	{ "U2L_ESCR0",   0x3b0, 3, C89, 0 },
	{ "U2L_ESCR1",   0x3b1, 3, CAB, 0 },
	{ "BPU_ESCR0",   0x3b2, 0, C01, 0 },
	{ "BPU_ESCR1",   0x3b3, 0, C23, 0 },
	{ "IS_ESCR0",    0x3b4, 1, C01, 0 },
	{ "IS_ESCR1",    0x3b5, 1, C23, 0 },
	{ "ITLB_ESCR0",  0x3b6, 3, C01, 0 },
	{ "ITLB_ESCR1",  0x3b7, 3, C23, 0 },
	{ "CRU_ESCR0",   0x3b8, 4, CIQ0, 0 },
	{ "CRU_ESCR1",   0x3b9, 4, CIQ1, 0 },
	/* "Available only on early processor builds (family 0FH, models 01H-02H)." */
	{ "IQ_ESCR0",    0x3ba, 0, CIQ0, 2 },
	{ "IQ_ESCR1",    0x3bb, 0, CIQ1, 2 },
	{ "RAT_ESCR0",   0x3bc, 2, CIQ0, 0 },
	{ "RAT_ESCR1",   0x3bd, 2, CIQ1, 0 },
	{ "SSU_ESCR0",   0x3be, 3, CIQ0, 0 },
	{ "MS_ESCR0",    0x3c0, 0, C45, 0 },
	{ "MS_ESCR1",    0x3c1, 0, C67, 0 },
	{ "TBPU_ESCR0",  0x3c2, 2, C45, 0 },
	{ "TBPU_ESCR1",  0x3c3, 2, C67, 0 },
	{ "TC_ESCR0",    0x3c4, 1, C45, 0 },
	{ "TC_ESCR1",    0x3c5, 1, C67, 0 },
	{ "IX_ESCR0",    0x3c8, 5, C01, 0 },
	{ "IX_ESCR1",    0x3c9, 5, C23, 0 },
	{ "ALF_ESCR0",   0x3ca, 1, CIQ0, 0 },
	{ "ALF_ESCR1",   0x3cb, 1, CIQ1, 0 },
	{ "CRU_ESCR2",   0x3cc, 5, CIQ0, 0 },
	{ "CRU_ESCR3",   0x3cd, 5, CIQ1, 0 },
	{ "CRU_ESCR4",   0x3e0, 6, CIQ0, 0 },
	{ "CRU_ESCR5",   0x3e1, 6, CIQ1, 0 },
};

static const char *const counter_names[NB_COUNTERS] = {
	"BPU_COUNTER0", "BPU_COUNTER1", "BPU_COUNTER2", "BPU_COUNTER3",
	"MS_COUNTER0", "MS_COUNTER1", "MS_COUNTER2", "MS_COUNTER3",
	"FLAME_COUNTER0", "FLAME_COUNTER1", "FLAME_COUNTER2", "FLAME_COUNTER3",
	"IQ_COUNTER0", "IQ_COUNTER1", "IQ_COUNTER2", "IQ_COUNTER3", "IQ_COUNTER4", "IQ_COUNTER5",
};

static const char *const cccr_names[NB_COUNTERS] = {
	"BPU_CCCR0", "BPU_CCCR1", "BPU_CCCR2", "BPU_CCCR3",
	"MS_CCCR0", "MS_CCCR1", "MS_CCCR2", "MS_CCCR3",
	"FLAME_CCCR0", "FLAME_CCCR1", "FLAME_CCCR2", "FLAME_CCCR3",
	"IQ_CCCR0", "IQ_CCCR1", "IQ_CCCR2", "IQ_CCCR3", "IQ_CCCR4", "IQ_CCCR5",
};

const struct nb_escr *
nb_escr_get(unsigned i)
{
	return i < NB_ESCRS ? &escrs[i] : NULL;
}

int
nb_escr_find(const char *name)
{
	if (strncasecmp(name, "MSR_", 4) == 0)
		name += 4;
	for (unsigned i = 0; i < NB_ESCRS; i++)
		if (strcasecmp(escrs[i].name, name) == 0)
			return (int)i;
	return -1;
}

int
nb_escr_by_msr(uint32_t msr)
{
	for (unsigned i = 0; i < NB_ESCRS; i++)
		if (escrs[i].msr == msr)
			return (int)i;
	return -1;
}

bool
nb_escr_exists(unsigned i, unsigned model)
{
	return i < NB_ESCRS && (escrs[i].last_model == 0 || model <= escrs[i].last_model);
}

unsigned
nb_escr_count(unsigned model)
{
	unsigned n = 0;

	for (unsigned i = 0; i < NB_ESCRS; i++)
		n += nb_escr_exists(i, model);
	return n;
}

int
nb_escr_for(unsigned counter, unsigned select)
{
	if (counter >= NB_COUNTERS)
		return -1;
	for (unsigned i = 0; i < NB_ESCRS; i++)
		if (escrs[i].select == select && (escrs[i].counters & (1u << counter)))
			return (int)i;
	return -1;
}

const char *
nb_counter_name(unsigned i)
{
	return i < NB_COUNTERS ? counter_names[i] : "?";
}

const char *
nb_cccr_name(unsigned i)
{
	return i < NB_COUNTERS ? cccr_names[i] : "?";
}

bool
nb_msr_allowed(uint32_t msr, unsigned model)
{
	int escr;

	if (msr >= NB_MSR_COUNTER0 && msr < NB_MSR_COUNTER0 + NB_COUNTERS)
		return true;
	if (msr >= NB_MSR_CCCR0 && msr < NB_MSR_CCCR0 + NB_COUNTERS)
		return true;
	escr = nb_escr_by_msr(msr);
	return escr >= 0 && nb_escr_exists((unsigned)escr, model);
}

const char *
nb_msr_name(uint32_t msr, char *buf, size_t size)
{
	int escr = nb_escr_by_msr(msr);

	if (msr >= NB_MSR_COUNTER0 && msr < NB_MSR_COUNTER0 + NB_COUNTERS)
		snprintf(buf, size, "MSR_%s", counter_names[msr - NB_MSR_COUNTER0]);
	else if (msr >= NB_MSR_CCCR0 && msr < NB_MSR_CCCR0 + NB_COUNTERS)
		snprintf(buf, size, "MSR_%s", cccr_names[msr - NB_MSR_CCCR0]);
	else if (escr >= 0)
		snprintf(buf, size, "MSR_%s", escrs[escr].name);
	else if (msr == NB_MSR_MISC_ENABLE)
		snprintf(buf, size, "IA32_MISC_ENABLE");
	else
		snprintf(buf, size, "MSR 0x%x", msr);
	return buf;
}

uint64_t
nb_escr_valid_bits(bool ht)
{
	/* Bits 30:2 always; 1:0 are T1_OS/T1_USR with HT, reserved without. */
	uint64_t v = 0x7ffffffcull;

	return ht ? v | NB_ESCR_T1_OS | NB_ESCR_T1_USR : v;
}

uint64_t
nb_cccr_valid_bits(bool ht)
{
	/* 11:0, 29:28 (and 27 without HT) and 63:32 are reserved. */
	uint64_t v = NB_CCCR_ENABLE | NB_CCCR_ESCR_SELECT(7) | NB_CCCR_ACTIVE_THREAD(3) |
		     NB_CCCR_COMPARE | NB_CCCR_COMPLEMENT | NB_CCCR_THRESHOLD(15) |
		     NB_CCCR_EDGE | NB_CCCR_FORCE_OVF | NB_CCCR_OVF_PMI_T0 |
		     NB_CCCR_CASCADE | NB_CCCR_OVF;

	return ht ? v | NB_CCCR_OVF_PMI_T1 : v;
}
