/*
 * sim_events.c - see sim_events.h.
 */
#include "events/sim_events.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static const struct sim_event events[] = {
	{ "instructions", SIM_BIT(SIM_IR), "instructions executed (Ir)" },
	{ "branches", SIM_BIT(SIM_BC) | SIM_BIT(SIM_BI), "conditional and indirect branches (Bc + Bi)" },
	{ "branch-instructions", SIM_BIT(SIM_BC) | SIM_BIT(SIM_BI), "conditional and indirect branches (Bc + Bi)" },
	{ "branch-misses", SIM_BIT(SIM_BCM) | SIM_BIT(SIM_BIM),
	  "mispredicted conditional and indirect branches (Bcm + Bim)" },
	{ "cache-references", SIM_BIT(SIM_I1MR) | SIM_BIT(SIM_D1MR) | SIM_BIT(SIM_D1MW),
	  "last-level cache accesses: every L1 miss, instruction and data (I1mr + D1mr + D1mw)" },
	{ "cache-misses", SIM_BIT(SIM_ILMR) | SIM_BIT(SIM_DLMR) | SIM_BIT(SIM_DLMW),
	  "last-level cache misses, instruction and data (ILmr + DLmr + DLmw)" },
	{ "L1-dcache-loads", SIM_BIT(SIM_DR), "data reads (Dr)" },
	{ "L1-dcache-load-misses", SIM_BIT(SIM_D1MR), "data reads that missed D1 (D1mr)" },
	{ "L1-dcache-stores", SIM_BIT(SIM_DW), "data writes (Dw)" },
	{ "L1-dcache-store-misses", SIM_BIT(SIM_D1MW), "data writes that missed D1 (D1mw)" },
	{ "L1-icache-loads", SIM_BIT(SIM_IR), "instruction fetches (Ir)" },
	{ "L1-icache-load-misses", SIM_BIT(SIM_I1MR), "instruction fetches that missed I1 (I1mr)" },
	{ "LLC-loads", SIM_BIT(SIM_D1MR), "data reads that looked up the last-level cache (D1mr)" },
	{ "LLC-load-misses", SIM_BIT(SIM_DLMR), "data reads that missed the last-level cache (DLmr)" },
	{ "LLC-stores", SIM_BIT(SIM_D1MW), "data writes that looked up the last-level cache (D1mw)" },
	{ "LLC-store-misses", SIM_BIT(SIM_DLMW), "data writes that missed the last-level cache (DLmw)" },
};

/* Cachegrind's own columns, each an event of its own. */
static const struct sim_event columns[SIM_NFIELDS] = {
#define COLUMN(f, n) [f] = { n, SIM_BIT(f), "Cachegrind's column " n }
	COLUMN(SIM_IR, "Ir"), COLUMN(SIM_I1MR, "I1mr"), COLUMN(SIM_ILMR, "ILmr"),
	COLUMN(SIM_DR, "Dr"), COLUMN(SIM_D1MR, "D1mr"), COLUMN(SIM_DLMR, "DLmr"),
	COLUMN(SIM_DW, "Dw"), COLUMN(SIM_D1MW, "D1mw"), COLUMN(SIM_DLMW, "DLmw"),
	COLUMN(SIM_BC, "Bc"), COLUMN(SIM_BCM, "Bcm"), COLUMN(SIM_BI, "Bi"), COLUMN(SIM_BIM, "Bim"),
#undef COLUMN
};

const struct sim_cache sim_caches[3] = {
	{ "I1", 32768, 8, 64 },
	{ "D1", 32768, 8, 64 },
	{ "LL", 8388608, 16, 64 },
};

/*
 * Feature names as glibc 2.36's cpu-tunables.c spells them (an unknown
 * name is ignored, a misspelt one silently: "AVX2_Usable" is not one).
 * The cache sizes match sim_caches; the non-temporal threshold is glibc's
 * own rule for them (3/4 of the shared cache).
 *
 * The list ends with a comma: glibc 2.36's parser steps past the NUL
 * after the last name and reads whatever byte follows as more names,
 * which made about one run in fifteen count a few instructions more or
 * less; after a trailing comma it stops at the NUL.
 */
const char sim_glibc_tunables[] =
	"glibc.cpu.hwcaps="
	"-AVX,-AVX2,-AVX512F,-AVX512CD,-AVX512BW,-AVX512DQ,-AVX512ER,-AVX512PF,-AVX512VL,"
	"-ERMS,-FSRM,-SSSE3,-SSE4_1,-SSE4_2,-BMI1,-BMI2,-LZCNT,-MOVBE,-POPCNT,-RTM,-FMA,-FMA4,-XSAVEC,"
	"-Fast_Rep_String,-Fast_Unaligned_Load,-Fast_Unaligned_Copy,-Fast_Copy_Backward,"
	"-Prefer_ERMS,-Prefer_FSRM,-Slow_BSF,-Prefer_PMINUB_for_stringop,-AVX_Fast_Unaligned_Load,"
	"-Prefer_No_VZEROUPPER,-Prefer_AVX2_STRCMP,-Prefer_No_AVX512,"
	":glibc.cpu.x86_data_cache_size=32768"
	":glibc.cpu.x86_shared_cache_size=8388608"
	":glibc.cpu.x86_non_temporal_threshold=6291456";

const char *
sim_field_name(enum sim_field f)
{
	return (unsigned)f < SIM_NFIELDS ? columns[f].name : "?";
}

int
sim_field_find(const char *name)
{
	for (int f = 0; f < SIM_NFIELDS; f++)
		if (strcmp(columns[f].name, name) == 0)
			return f;
	return -1;
}

size_t
sim_event_count(void)
{
	return sizeof(events) / sizeof(events[0]);
}

const struct sim_event *
sim_event_get(size_t i)
{
	return i < sim_event_count() ? &events[i] : NULL;
}

const struct sim_event *
sim_event_find(const char *name)
{
	int f;

	for (size_t i = 0; i < sim_event_count(); i++)
		if (strcasecmp(events[i].name, name) == 0)
			return &events[i];
	f = sim_field_find(name);
	return f < 0 ? NULL : &columns[f];
}

void
sim_event_names(char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sim_event_count() && n < size; i++) {
		int w = snprintf(buf + n, size - n, "%s%s", i ? ", " : "", events[i].name);

		if (w < 0)
			return;
		n += (size_t)w;
	}
	if (n < size)
		snprintf(buf + n, size - n, ", or Cachegrind's columns (Ir, I1mr, ILmr, Dr, D1mr, DLmr, Dw, D1mw, DLmw, Bc, Bcm, Bi, Bim)");
}

uint64_t
sim_event_value(uint32_t fields, const uint64_t values[SIM_NFIELDS])
{
	uint64_t sum = 0;

	for (int f = 0; f < SIM_NFIELDS; f++)
		if (fields & SIM_BIT(f))
			sum += values[f];
	return sum;
}
