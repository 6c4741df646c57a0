/*
 * plan_nb.h - the counting plan on a NetBurst PMU (plan.h's second PMU):
 * the events placed on ESCRs and counters by nb_sched, each run's ESCR,
 * CCCR and counter writes computed by nb_encode and carried in the same
 * struct pmu_program the run loop and pmu.c execute, and the plan printed
 * for --dry-run with the encoder's reasons. Pure.
 */
#ifndef PMUSTAT_PLAN_NB_H
#define PMUSTAT_PLAN_NB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct event;
struct pmu_occupancy;
struct nb_event;
struct plan;
struct pmustat_error;

/*
 * Fill @p's slots, runs and nb_runs for @p->in (a NetBurst PMU): the
 * counters and ESCRs another user holds are left out. 0, or -errno with
 * @err: an event no free ESCR and counter can take, more runs than
 * --no-rerun allows.
 */
int plan_nb_make(struct plan *p, struct pmustat_error **err);

/*
 * Another user's counter @i of @occ, or ESCR @e armed by itself, for
 * people: "IQ_COUNTER0 (MSR_IQ_CCCR0 = 0x39000, enabled)", "CRU_ESCR1
 * (MSR_CRU_ESCR1 = 0x..., armed: ...)".
 */
/* The busy ESCRs of @occ no busy counter's CCCR selects: armed by themselves (owner.h). */
uint64_t plan_nb_escrs_alone(const struct pmu_occupancy *occ);
void plan_nb_describe_busy(const struct pmu_occupancy *occ, unsigned i, char *buf, size_t size);
void plan_nb_describe_escr(const struct pmu_occupancy *occ, unsigned e, char *buf, size_t size);

/* --dry-run: per run, which counter and ESCR count what, and every write with its reason. */
void plan_nb_print(const struct plan *p, const char *cpu, const char *const *names, FILE *out);

#endif
