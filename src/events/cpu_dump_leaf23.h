/*
 * cpu_dump_leaf23.h - CPUID leaf 0x23 from a CPUID dump's own lines.
 * libcpuid 0.6.2 reads dumps into raw data that has no room for it; the
 * AIDA64-style dumps ("CPUID 00000023: EAX-EBX-ECX-EDX [SL 01]") carry it.
 */
#ifndef PMUSTAT_CPU_DUMP_LEAF23_H
#define PMUSTAT_CPU_DUMP_LEAF23_H

struct cpu_leaf23;

/*
 * Fill @out with leaf 0x23 subleaves 0 and 1 of logical CPU @cpu of the
 * dump at @path (read as libcpuid reads it: lines of at most 99 bytes;
 * the blocks of a dump without CPU headers are CPU 0's). out->read is
 * true only when both subleaves are there; a dump without them (libcpuid's
 * own format, which has no line for them) leaves it false.
 */
void cpu_dump_leaf23(const char *path, int cpu, struct cpu_leaf23 *out);

#endif
