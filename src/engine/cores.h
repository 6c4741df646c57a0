/*
 * cores.h - the cores a stat run counts on: -C N (one), -C LIST (perf's
 * syntax, "0,2-3"), -a (every CPU pmustat may run on), or by default the
 * last CPU pmustat may run on. Resolved once into an ascending list, the
 * order every per-core step (locks, journals, programming, restore) walks.
 */
#ifndef PMUSTAT_CORES_H
#define PMUSTAT_CORES_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>

struct pmustat_error;
struct stat_opts;

struct cores {
	int *cpu;		/* ascending, each once */
	unsigned n;
};

/*
 * The cores of @o (with --cpu-dump, the -C core alone, or -1: the dump's).
 * Every listed CPU must be one pmustat may run on (its affinity: taskset,
 * a cgroup cpuset), since the command runs there. 0, or -errno with a
 * message naming the CPU and what to do.
 */
int
cores_resolve(const struct stat_opts *o, struct cores *out, struct pmustat_error **err);

void
cores_free(struct cores *c);

#endif
