/*
 * cpu_source.h - the CPU pmustat describes: a logical CPU of this machine,
 * read through the hardware seam, or one from a libcpuid raw dump (to ask
 * "what would pmustat do on that machine", offline).
 */
#ifndef PMUSTAT_CPU_SOURCE_H
#define PMUSTAT_CPU_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct pmustat_error;

struct cpu_info;
struct hw;

/* Dumps larger than this are refused before libcpuid reads them. */
#define CPU_DUMP_MAX_BYTES (16u << 20)

/*
 * Describe logical CPU @cpu: from @dump_path when it is not NULL (then @hw
 * is not used; @cpu < 0 picks the dump's last CPU), otherwise through @hw.
 * Returns 0, or -errno with a message naming the file or CPU in @err.
 * @used_cpu (may be NULL) receives the CPU index described.
 */
int cpu_source_load(struct hw *hw, const char *dump_path, int cpu,
		    struct cpu_info *out, int *used_cpu, struct pmustat_error **err);

/*
 * Write the raw CPUID of every CPU in @cpus (of @ncpus) to @out in
 * libcpuid's format, for bug reports; @path names it in messages. The
 * caller opens and puts the file in place (outfile.h).
 */
int cpu_source_save(struct hw *hw, const int *cpus, int ncpus, FILE *out, const char *path,
		    struct pmustat_error **err);

/* A -C argument: a CPU number 0..CPU_SETSIZE-1. 0, or -EINVAL. */
int cpu_parse_number(const char *arg, int *cpu);

/*
 * A -C LIST: "all", or comma-separated CPUs and ranges ("0-3,6"), each
 * below @ncpus, into @set (@ncpus entries). 0, or -EINVAL with the usage
 * message.
 */
int cpu_parse_list(const char *list, int ncpus, bool *set, struct pmustat_error **err);

/* The last CPU in this process's affinity mask (pmustat's default core). */
int cpu_default_core(void);

#endif
