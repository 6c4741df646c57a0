/*
 * topology.h - where a CPU sits: its package (socket), die and core, from
 * sysfs (/sys/devices/system/cpu/cpuN/topology), for --per-core's
 * grouping of SMT siblings as perf stat does (S0-D0-C1).
 */
#ifndef PMUSTAT_TOPOLOGY_H
#define PMUSTAT_TOPOLOGY_H

struct cpu_topology {
	int package, die, core;
};

/* CPU @cpu's place under @sysfs_cpu ("/sys/devices/system/cpu"): 0, or -errno (die_id may be absent: 0). */
int topology_of(const char *sysfs_cpu, int cpu, struct cpu_topology *t);

#endif
