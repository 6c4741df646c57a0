/*
 * clock.h - seconds on CLOCK_MONOTONIC, for elapsed times and deadlines,
 * which must not jump when someone sets the wall clock during a run.
 */
#ifndef PMUSTAT_CLOCK_H
#define PMUSTAT_CLOCK_H

double clock_monotonic_seconds(void);

#endif
