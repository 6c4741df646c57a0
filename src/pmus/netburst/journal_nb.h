/*
 * journal_nb.h - the crash journal of a NetBurst PMU (journal_nb.c), the
 * journal operations of its family table (pmu/family.h): the counters a
 * run programs with their CCCRs and the ESCRs it writes, and their
 * restore by the same rules as journal_apply.c's.
 */
#ifndef PMUSTAT_JOURNAL_NB_H
#define PMUSTAT_JOURNAL_NB_H

#include <stdbool.h>
#include <stdint.h>

struct hw;
struct journal;
struct journal_result;
struct pmu;
struct pmu_caps;
struct pmu_program;
struct pmustat_error;
struct strbuf;

int journal_from_nb(struct journal *j, const struct pmu *p, const struct pmu_program *progs, unsigned nprogs,
		    struct pmustat_error **err);
bool journal_wrote_ok_nb(const struct journal *j, uint32_t msr);
bool journal_complete_nb(const struct journal *j);
int journal_apply_nb(struct hw *hw, const struct pmu_caps *caps, const struct journal *j,
		     struct journal_result *res, struct pmustat_error **err);
void journal_left_nb(const struct journal_result *res, struct strbuf *b);

#endif
