/*
 * delta.c - width- and overflow-aware counts.
 */
#include "pmu/delta.h"

uint64_t
delta_width_mask(unsigned width)
{
	if (width == 0 || width >= 64)
		return ~0ull;
	return (1ull << width) - 1;
}

uint64_t
delta_count(uint64_t start, uint64_t end, unsigned width, bool overflowed)
{
	uint64_t mask = delta_width_mask(width);
	uint64_t d;

	start &= mask;
	end &= mask;
	d = (end - start) & mask;
	/*
	 * end < start: the modular difference already holds the one wrap.
	 * end >= start with the overflow bit: the counter went all the way
	 * round, so a whole period is missing from the difference.
	 */
	if (overflowed && end >= start && width < 64)
		d += mask + 1;
	return d;
}

uint64_t
delta_step(uint64_t last, uint64_t now, uint64_t mask, bool *reset)
{
	uint64_t d = (now - last) & mask;

	if (d > (mask >> 1) + 1) {
		*reset = true;
		return now & mask;
	}
	return d;
}
