/*
 * cpulist.c - see cpulist.h.
 */
#include <stdio.h>

#include "base/cpulist.h"

const char *
cpulist_format(const int *cpu, unsigned n, char *buf, size_t size)
{
	size_t len = 0;

	if (size == 0)
		return buf;
	buf[0] = '\0';
	for (unsigned i = 0; i < n && len < size; i++) {
		unsigned j = i;
		int w;

		while (j + 1 < n && cpu[j + 1] == cpu[j] + 1)
			j++;
		if (j == i)
			w = snprintf(buf + len, size - len, "%s%d", i ? "," : "", cpu[i]);
		else
			w = snprintf(buf + len, size - len, "%s%d-%d", i ? "," : "", cpu[i], cpu[j]);
		if (w < 0)
			break;
		len += (size_t)w;
		i = j;
	}
	return buf;
}
