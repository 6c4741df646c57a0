/*
 * pmu_regs.h - the register helpers of pmu/ (pmu_regs.c), for pmu.c and
 * journal.c only.
 */
#ifndef PMUSTAT_PMU_REGS_H
#define PMUSTAT_PMU_REGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pmu;
struct pmu_reg;
struct pmustat_error;

/* RDMSR/WRMSR of an allow-listed MSR (-EACCES otherwise), counted. */
int pmu_rd(struct pmu *p, uint32_t msr, uint64_t *val);
int pmu_wr(struct pmu *p, uint32_t msr, uint64_t val);

/* Write @val to a saved register unless it is known to hold it already. */
int pmu_reg_set(struct pmu *p, struct pmu_reg *r, uint64_t val);
/* Set @mask's bits of @r to @val's, the others as the register holds them now (a read first unless @mask is all). */
int pmu_reg_set_bits(struct pmu *p, struct pmu_reg *r, uint64_t val, uint64_t mask);

/* @msr's name for messages, the family's when it names its own. */
const char *pmu_reg_name(const struct pmu *p, uint32_t msr, char *buf, size_t size);

/* Whether @p's family has plain counters (pmu/family.h), which pmu.c's IA32_PMCx paths leave alone. */
bool pmu_plain_counters(const struct pmu *p);

/* Read @msr into slot @r as its saved value. */
int pmu_reg_load(struct pmu *p, struct pmu_reg *r, uint32_t msr);

/*
 * Write GP counter @i: IA32_A_PMCx with full-width writes, else bits 31:0
 * to IA32_PMCx (sign-extended by the CPU). 1 when the counter cannot hold
 * @val exactly that way.
 */
int pmu_pmc_set(struct pmu *p, unsigned i, uint64_t val);
int pmu_fixed_ctr_set(struct pmu *p, unsigned i, uint64_t val);

/*
 * "core N: WHAT MSR (0x...) failed: ...; the fix" into *@err. Returns @rc.
 */
int pmu_fail(const struct pmu *p, int rc, const char *what, uint32_t msr, bool write,
	     struct pmustat_error **err);

#endif
