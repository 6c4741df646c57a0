/*
 * cpulist.h - a list of CPUs as people and perf write it: "0-3,6".
 */
#ifndef PMUSTAT_CPULIST_H
#define PMUSTAT_CPULIST_H

#include <stddef.h>

/*
 * The @n ascending CPUs @cpu into @buf, runs of consecutive CPUs folded
 * into ranges ("0-3,6"); truncated to @size. Returns @buf.
 */
const char *
cpulist_format(const int *cpu, unsigned n, char *buf, size_t size);

#endif
