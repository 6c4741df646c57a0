/*
 * delta.h - turn counter readings into counts.
 *
 * A counter is @width bits wide and wraps to zero; the PMU latches the wrap
 * in IA32_PERF_GLOBAL_STATUS. pmustat never takes the overflow interrupt,
 * so it sees at most one wrap per counter: a count is exact below
 * 2^width plus the distance from the start value to the wrap.
 */
#ifndef PMUSTAT_DELTA_H
#define PMUSTAT_DELTA_H

#include <stdbool.h>
#include <stdint.h>

/* All-ones in the low @width bits (1..64). */
uint64_t
delta_width_mask(unsigned width);

/*
 * Events counted between a counter reading @start and @end (both taken
 * modulo 2^@width), @overflowed when the counter's GLOBAL_STATUS bit was
 * set (it wrapped once). Readings with bits above the width are masked.
 */
uint64_t
delta_count(uint64_t start, uint64_t end, unsigned width, bool overflowed);

#endif
