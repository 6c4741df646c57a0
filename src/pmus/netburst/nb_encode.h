/*
 * nb_encode.h - the ESCR and CCCR values of NetBurst events, and the MSR
 * writes of one run as a value: what the pmu layer writes, and what
 * --dry-run prints. Pure.
 *
 * ESCR (SDM figure "Event Selection Control Register (ESCR)"): event
 * select 30:25, event mask 24:9, and the privilege bits of the logical
 * processor that counts: T0_OS/T0_USR (3:2) for thread 0 and for a part
 * without Hyper-Threading, T1_OS/T1_USR (1:0) for thread 1. No tagging.
 * CCCR: enable (12), ESCR select (15:13), bits 17:16 = 11B (reserved and
 * required without HT; "count when any logical processor is active" with
 * it), compare (18), complement (19), threshold (23:20), edge (24).
 * Nothing else: no PMI, no cascade, no FORCE_OVF. No value with a reserved
 * bit is ever produced.
 */
#ifndef PMUSTAT_NB_ENCODE_H
#define PMUSTAT_NB_ENCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmus/netburst/nb_regs.h"

struct pmustat_error;

struct nb_event;
struct nb_slot;

/* The logical processor the events count on. */
struct nb_target {
	unsigned model;		/* family-15 model: decides which ESCRs exist */
	bool ht;		/* Hyper-Threading: the T1 bits exist */
	unsigned thread;	/* 0 or 1: which T0/T1 bits (0 without HT) */
};

struct nb_write {
	uint32_t msr;
	uint64_t value;
	char reason[160];	/* "MSR_CRU_ESCR0: instr_retired, mask NBOGUSNTAG|NBOGUSTAG, T0 user" */
};

/* At most one ESCR, counter and CCCR write per counter. */
#define NB_MAX_WRITES	(3 * NB_COUNTERS)

/*
 * One run: @program (counting off: the ESCRs, the CCCRs with enable clear,
 * the counters zeroed), then @enable (the CCCRs with enable set: the last
 * write starts the last counter), then, after the command, @disable (the
 * CCCRs with enable clear again). Saving and restoring what was there is
 * the pmu layer's job, not this plan's.
 */
struct nb_run_writes {
	unsigned run;
	struct nb_write program[NB_MAX_WRITES];
	unsigned n_program;
	struct nb_write enable[NB_COUNTERS];
	unsigned n_enable;
	struct nb_write disable[NB_COUNTERS];
	unsigned n_disable;
};

/* The ESCR value of @ev for @target (thread bits, no tagging). */
uint64_t nb_escr_value(const struct nb_event *ev, const struct nb_target *target);
/* The CCCR value of @ev counting through ESCR @escr; @enable sets bit 12. */
uint64_t nb_cccr_value(const struct nb_event *ev, unsigned escr, bool enable);

/*
 * The writes of run @run of a plan (@ev[i] on @slots[i]). 0, or -EINVAL
 * with @err set when a slot is impossible (an ESCR the model lacks, a
 * counter its ESCR does not feed, two events on one ESCR or counter) or a
 * value would set a reserved bit: a plan that did not come from
 * nb_sched_plan() is checked, not trusted.
 */
int nb_encode_run(const struct nb_event *ev, const struct nb_slot *slots, unsigned n,
		  unsigned run, const struct nb_target *target, struct nb_run_writes *out,
		  struct pmustat_error **err);

/* Whether @value may be written to an ESCR / CCCR / counter of a part with(out) HT. */
bool nb_escr_ok(uint64_t value, bool ht);
bool nb_cccr_ok(uint64_t value, bool ht);
bool nb_counter_ok(uint64_t value);

#endif
