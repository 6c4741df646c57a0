/*
 * demo-workload: the small program the README's quick start counts. It
 * chases a random cycle of pointers through 64 MiB, far more than any
 * last-level cache, so nearly every step is an LLC miss, and prints the
 * sum so the work cannot be optimised away.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define SLOTS (64u << 20) / sizeof(size_t)
#define STEPS 4000000u

int
main(void)
{
	size_t *next = malloc(SLOTS * sizeof(*next));
	uint64_t rng = 0x9e3779b97f4a7c15ull;
	size_t pos = 0, sum = 0;

	if (!next) {
		fprintf(stderr, "demo-workload: out of memory\n");
		return 1;
	}
	/* Sattolo's shuffle: one cycle through every slot. */
	for (size_t i = 0; i < SLOTS; i++)
		next[i] = i;
	for (size_t i = SLOTS - 1; i > 0; i--) {
		size_t j, t;

		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		j = (size_t)(rng % i);
		t = next[i];
		next[i] = next[j];
		next[j] = t;
	}
	for (unsigned s = 0; s < STEPS; s++) {
		pos = next[pos];
		sum += pos;
	}
	printf("demo-workload: %u dependent loads over 64 MiB, checksum %zu\n", STEPS, sum);
	free(next);
	return 0;
}
