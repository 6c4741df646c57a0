/*
 * sim_events.h - what --backend sim counts: perf's generic names with the
 * meaning they have in Valgrind's Cachegrind simulation (and Cachegrind's
 * own column names), the cache model every simulated run uses, and what
 * else is fixed so that the counts do not depend on the machine.
 *
 * Cachegrind simulates a two-level cache (I1 and D1, then a unified LL
 * that every L1 miss looks up) and a branch predictor, over the user-mode
 * instructions of the simulated program. Its columns:
 *
 *	Ir I1mr ILmr		instructions executed; their I1 and LL misses
 *	Dr D1mr DLmr		data reads; their D1 and LL misses
 *	Dw D1mw DLmw		data writes; their D1 and LL misses
 *	Bc Bcm Bi Bim		conditional and indirect branches; mispredicted
 *
 * Each name counts a sum of columns (struct sim_event.fields).
 */
#ifndef PMUSTAT_SIM_EVENTS_H
#define PMUSTAT_SIM_EVENTS_H

#include <stddef.h>
#include <stdint.h>

enum sim_field {
	SIM_IR, SIM_I1MR, SIM_ILMR,
	SIM_DR, SIM_D1MR, SIM_DLMR,
	SIM_DW, SIM_D1MW, SIM_DLMW,
	SIM_BC, SIM_BCM, SIM_BI, SIM_BIM,
	SIM_NFIELDS
};

#define SIM_BIT(f) (1u << (f))

struct sim_event {
	const char *name;		/* perf's spelling, or Cachegrind's column */
	uint32_t fields;		/* SIM_BIT()s summed */
	const char *desc;
};

/* Cachegrind's name of column @f ("Ir", "D1mr", ...). */
const char *sim_field_name(enum sim_field f);

/* The column named @name exactly as Cachegrind writes it, or -1. */
int sim_field_find(const char *name);

size_t sim_event_count(void);
const struct sim_event *sim_event_get(size_t i);

/* The event @name (perf's names any case, Cachegrind's columns exactly), or NULL. */
const struct sim_event *sim_event_find(const char *name);

/* "instructions, L1-dcache-loads, ..." into @buf: what --backend sim counts, for messages. */
void sim_event_names(char *buf, size_t size);

/* The sum of @fields over @values (one per enum sim_field). */
uint64_t sim_event_value(uint32_t fields, const uint64_t values[SIM_NFIELDS]);

/*
 * The cache model of every simulated run, fixed: Cachegrind's default
 * reads the host's caches through CPUID, so counts of the same program
 * would move with the runner's CPU. These are a common x86 layout (32 KiB
 * 8-way L1s, an 8 MiB 16-way LL, 64-byte lines).
 */
struct sim_cache {
	const char *name;		/* "I1", "D1", "LL" */
	unsigned size, assoc, line;	/* bytes, ways, bytes */
};

extern const struct sim_cache sim_caches[3];

/*
 * GLIBC_TUNABLES for the simulated program: glibc picks its string and
 * memory functions (memcpy, memset, strlen, ...) from the CPU's features,
 * and under Valgrind from the CPU model Valgrind presents, which depends
 * on the host (AVX2 or not); a `rep stosb` counts one instruction per
 * iteration. Every feature glibc 2.36 selects on is switched off, so the
 * SSE2 baseline versions run on every x86-64 host, and the cache sizes
 * its copy strategies read are fixed to the model's.
 */
extern const char sim_glibc_tunables[];

#endif
