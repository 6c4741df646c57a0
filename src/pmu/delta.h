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

/*
 * Events between two readings @last and @now (taken modulo the counter's
 * width, @mask = delta_width_mask()) of a running counter read at most
 * INTERVAL_WRAP_MS apart: the modular difference, one wrap included. A
 * difference beyond half the counter's range (2^47 events on a 48-bit
 * counter, 2^39 on a 40-bit one: no event comes near that in a second) is
 * no wrap but a step backwards: another user reset the counter (Linux's
 * PMI handler zeroes FIXED_CTR3 on a PERF_METRICS overflow whoever owns
 * it). Then *@reset is set and the count is @now, what counted since the
 * reset to zero; the events between @last and the reset are lost.
 */
uint64_t
delta_step(uint64_t last, uint64_t now, uint64_t mask, bool *reset);

#endif
