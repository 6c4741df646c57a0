/*
 * clock.c - see clock.h.
 */
#include <time.h>

#include "base/clock.h"

double
clock_monotonic_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
