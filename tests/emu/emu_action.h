/*
 * emu_action.h - what a workload or another party does to the emulated PMU
 * of one CPU, as one action: the kernel's PMI handler, perf taking a
 * counter, a write "from outside", or a workload retiring top-down slots
 * or offcore responses, or NetBurst clocks. Spelled the same everywhere (emu-workload --act,
 * pmu-emu act, e2e_act()):
 *
 *	wrmsr:MSR=VAL		WRMSR through the CPU's rules (#GP: -EIO)
 *	retire:CODE:UMASK:N	N events, like emu-workload --retire
 *	nmi[:CTRL]		Linux's PMI handler (intel_pmu_handle_irq):
 *				GLOBAL_CTRL = 0, every set GLOBAL_STATUS bit
 *				written to GLOBAL_STATUS_RESET, GLOBAL_CTRL =
 *				CTRL (default: what it was)
 *	take-fixed:I		perf takes fixed counter I (-EBUSY if its
 *				FIXED_CTR_CTRL field is not 0): counter =
 *				perf's start value 2^(width-1)+1, field =
 *				OS|USR|PMI, GLOBAL_CTRL[32+I] set
 *	pebs:I:CODE:UMASK	perf programs GP counter I as a PEBS event
 *				(-EBUSY if EVTSELI is in use): counter 0,
 *				EVTSELI = event|umask|USR|OS|EN with INT clear,
 *				PEBS_ENABLE[I] and GLOBAL_CTRL[I] set
 *	offcore:RSP:N		N offcore responses whose request/response
 *				word is RSP (emu_retire_offcore)
 *	topdown:RET:BAD:FE:BE[:HEAVY:BRMISP:FETCHLAT:MEMBOUND]
 *				top-down slots per category (emu_retire_topdown)
 *	tsc:N			the time-stamp counter moves on by N (rdtsc
 *				reads it, machine-wide, on every model)
 *	nb:SEL:MASK:VALUE:N	NetBurst models: N clocks of ESCR event select
 *				SEL with sub-event bits MASK and input value
 *				VALUE, 0-15 (emu_nb_clocks)
 *
 * retire, offcore, topdown and nb take a trailing :u (ring 3, the default
 * unless told otherwise) or :k (ring 0). Numbers are C literals (0x...).
 *
 * This header needs nothing else, so emu-workload (which reaches the core
 * only through libpmuemu.so) parses actions with emu_action.c alone.
 */
#ifndef PMUSTAT_EMU_ACTION_H
#define PMUSTAT_EMU_ACTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Top-down categories, enum emu_td's order. */
#define EMU_ACTION_TD	8

enum emu_action_kind {
	EMU_ACT_WRMSR,
	EMU_ACT_RETIRE,
	EMU_ACT_NMI,
	EMU_ACT_TAKE_FIXED,
	EMU_ACT_PEBS,
	EMU_ACT_OFFCORE,
	EMU_ACT_TOPDOWN,
	EMU_ACT_NB_CLOCKS,
	EMU_ACT_TSC,
};

struct emu_action {
	enum emu_action_kind kind;
	uint32_t msr;			/* wrmsr */
	uint64_t val;			/* wrmsr value, nmi GLOBAL_CTRL, offcore RSP, nb MASK */
	bool has_val;			/* nmi: CTRL given */
	unsigned index;			/* take-fixed, pebs: the counter; nb: VALUE */
	uint8_t code, umask;		/* retire, pebs; nb: SEL in code */
	unsigned ring;			/* 3 user, 0 kernel */
	uint64_t n;			/* retire, offcore, nb, tsc: how many */
	uint64_t slots[EMU_ACTION_TD];	/* topdown */
};

/*
 * Parse @spec into @a, with @ring (3 or 0) where it gives none. 0, or
 * -EINVAL with the reason in @err (@errsize bytes).
 */
int emu_action_parse(const char *spec, unsigned ring, struct emu_action *a, char *err,
		     size_t errsize);

/* The syntax above, one line, for usage messages. */
extern const char emu_action_syntax[];

struct emu_pmu;
/*
 * Do @a on @cpu (emu_party.c; the caller holds the state lock if the PMU
 * is shared). 0, -EIO (#GP on one of its writes), -EBUSY (the counter is
 * someone's), -EOPNOTSUPP (the model has no such thing), -EINVAL, -ENXIO.
 */
int emu_act(struct emu_pmu *pmu, unsigned cpu, const struct emu_action *a);

#endif
