/*
 * cachegrind_out.h - the totals of a Cachegrind (or Callgrind) output file:
 * its "events:" line names the columns, its "summary:" (or "totals:") line
 * holds the whole process's counts in that order. Pure: text in, numbers
 * out, every field checked (the file is written by a program that ran the
 * user's code).
 */
#ifndef PMUSTAT_CACHEGRIND_OUT_H
#define PMUSTAT_CACHEGRIND_OUT_H

#include <stddef.h>
#include <stdint.h>

#include "events/sim_events.h"

/*
 * Parse @len bytes of @text into @values (one per enum sim_field; a column
 * the file does not have is 0). 0, or -EPROTO with why in @why: no events
 * or summary line, a column twice, a number that is not one, more or fewer
 * numbers than columns.
 */
int
cachegrind_out_parse(const char *text, size_t len, uint64_t values[SIM_NFIELDS], char *why, size_t why_size);

#endif
