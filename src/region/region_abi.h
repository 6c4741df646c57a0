/*
 * region_abi.h - the contract between pmustat and libpmustat-region, the
 * marker library a program links to count code regions (include/pmustat/region.h).
 *
 * pmustat programs the counters, then hands the program one shared memory
 * area (a sealed memfd) by file descriptor number in the environment:
 *
 *	PMUSTAT_REGION_FD=<decimal fd>		(inherited, not close-on-exec)
 *
 * The area starts with a struct pmustat_region_header that says how to read
 * the counters (rdpmc ECX values and widths, or perf self-monitoring pages)
 * and where the two tables are: per-thread slots and per-(thread, region)
 * records. The library appends slots and records with atomic counters and
 * writes only its own slots and records afterwards, so no lock is needed on
 * the hot path. pmustat reads the area back after the run as untrusted
 * input: any process in the counted program can scribble on it.
 *
 * Layout rules (version 1):
 *  - little-endian, naturally aligned, no padding the compiler would add
 *    (the _Static_asserts below pin every size);
 *  - header at offset 0; thread slots at thread_offset, thread_capacity of
 *    them, thread_size bytes apart; records at record_offset likewise;
 *    all inside area_size; offsets multiples of 64;
 *  - fields marked [pmustat] are written by pmustat before the run and
 *    only read by the library; [library] fields are written by the
 *    library (the counters in the header with atomic read-modify-write);
 *  - a record or slot becomes valid when its `state` is set to
 *    PMUSTAT_REGION_PUBLISHED (a release store after its fields); an
 *    allocation counter that exceeds the capacity counts refusals.
 *
 * Counting semantics the library implements (and pmustat reports):
 *  - a record is one region name in one thread; `calls` counts completed
 *    begin/end pairs, `sum[i]` the events counted between them, and
 *    `minus_open` minus the pairs open now, modulo 2^32, so that begin()
 *    calls are calls + (uint32_t)-minus_open (the library keeps one
 *    counter per begin and end, not two);
 *  - nested regions are inclusive: an outer region's sums include its
 *    inner regions' events;
 *  - a region begun again while it is open in the same thread (recursion)
 *    counts every pair in `calls` but its events only once, over the
 *    outermost pair;
 *  - deltas are taken modulo 2^width, so one wrap of a counter inside a
 *    region is exact (a region longer than 2^width events is not).
 *
 * Compatibility: the library accepts only its own PMUSTAT_REGION_VERSION;
 * any change to a field's meaning or place bumps it. pmustat accepts an
 * area whose version is its own.
 */
#ifndef PMUSTAT_REGION_ABI_H
#define PMUSTAT_REGION_ABI_H

#include <stdint.h>

#define PMUSTAT_REGION_ENV_FD		"PMUSTAT_REGION_FD"
/*
 * --regions --backend sim: set (to "1") in the environment of a command
 * that runs under Valgrind's Callgrind. The library then marks each begin
 * and end with a Callgrind dump (CALLGRIND_DUMP_STATS_AT) whose trigger is
 * PMUSTAT_REGION_SIM_MARK "b NAME" or "e NAME", and a thread's first call
 * with PMUSTAT_REGION_SIM_MARK "n TID"; pmustat reads the regions back
 * from the dumps (engine/callgrind_regions.h). No shared area.
 */
#define PMUSTAT_REGION_ENV_SIM		"PMUSTAT_REGION_SIM"
#define PMUSTAT_REGION_SIM_MARK		"pmustat-region "

/* "PMUREGN1" as a little-endian 64-bit word. */
#define PMUSTAT_REGION_MAGIC		0x314e474552554d50ull
#define PMUSTAT_REGION_VERSION		2u

#define PMUSTAT_REGION_MAX_EVENTS	16u
/* Bytes of a name kept in a record, NUL included; longer names are cut. */
#define PMUSTAT_REGION_NAME_SIZE	64u
/* Open regions per thread; deeper begins are dropped and counted. */
#define PMUSTAT_REGION_MAX_DEPTH	64u
/* Caps pmustat may ask for, so a hostile header cannot make either side allocate gigabytes. */
#define PMUSTAT_REGION_MAX_THREADS	65536u
#define PMUSTAT_REGION_MAX_RECORDS	1048576u

/* How the library reads the counters. */
enum pmustat_region_mode {
	/* rdpmc with each event's ECX; counters per core, programmed by pmustat (MSR backend). */
	PMUSTAT_REGION_MODE_RDPMC = 1,
	/*
	 * perf self-monitoring: the thread that owns the events (owner_tid)
	 * maps each event's perf_fd and reads it through its
	 * perf_event_mmap_page (index, offset, pmc_width, under the page's
	 * seqlock); any other thread opens its own events from perf_type /
	 * perf_config* / perf_flags (perf backend).
	 */
	PMUSTAT_REGION_MODE_PERF = 2,
};

/* perf_flags: perf_event_attr bits pmustat wants for the events. */
#define PMUSTAT_REGION_PERF_EXCLUDE_USER	0x1u
#define PMUSTAT_REGION_PERF_EXCLUDE_KERNEL	0x2u
#define PMUSTAT_REGION_PERF_EXCLUDE_HV		0x4u

/* One event, as the library reads it. [pmustat] */
struct pmustat_region_event {
	uint32_t rdpmc_ecx;	/* rdpmc mode: ECX (bit 30: fixed counter) */
	uint32_t width;		/* rdpmc mode: counter width in bits, 1..64 */
	int32_t perf_fd;	/* perf mode: the owner thread's event fd, -1 if none */
	uint32_t perf_type;	/* perf mode: perf_event_attr.type for other threads */
	uint64_t perf_config;
	uint64_t perf_config1;
	uint64_t perf_config2;
	uint32_t perf_flags;	/* PMUSTAT_REGION_PERF_* */
	uint32_t reserved[5];
};

/* Why the library did not record (attach_error), as positive errno-like codes. */
enum pmustat_region_attach_error {
	PMUSTAT_REGION_ATTACH_OK = 0,
	PMUSTAT_REGION_ATTACH_BAD_HEADER = 1,	/* magic, sizes or layout refused */
	PMUSTAT_REGION_ATTACH_VERSION = 2,	/* another contract version */
	PMUSTAT_REGION_ATTACH_PERF = 3,		/* perf mode: the owner's pages could not be mapped */
};

struct pmustat_region_header {
	/* [pmustat] */
	uint64_t magic;			/* PMUSTAT_REGION_MAGIC */
	uint32_t version;		/* PMUSTAT_REGION_VERSION */
	uint32_t header_size;		/* sizeof(struct pmustat_region_header) */
	uint64_t area_size;		/* bytes of the whole area */
	uint32_t mode;			/* enum pmustat_region_mode */
	uint32_t nevents;		/* 1..PMUSTAT_REGION_MAX_EVENTS */
	uint32_t run;			/* which run (batch) of pmustat this area belongs to */
	int32_t owner_tid;		/* perf mode: the task perf_fd counts; else 0 */
	uint32_t thread_offset;
	uint32_t thread_size;		/* sizeof(struct pmustat_region_thread) */
	uint32_t thread_capacity;
	uint32_t record_offset;
	uint32_t record_size;		/* sizeof(struct pmustat_region_record) */
	uint32_t record_capacity;
	uint32_t reserved0[2];
	struct pmustat_region_event event[PMUSTAT_REGION_MAX_EVENTS];

	/* [library], updated atomically */
	uint32_t attached;		/* processes that accepted the area */
	uint32_t attach_error;		/* last refusal, enum pmustat_region_attach_error */
	uint32_t threads_used;		/* slots asked for (> capacity: the rest refused) */
	uint32_t records_used;		/* records asked for, likewise */
	uint64_t threads_dropped;	/* threads that got no slot */
	uint64_t calls_dropped;		/* pairs not recorded: no slot, no record */
	uint64_t reserved1[11];
};

#define PMUSTAT_REGION_PUBLISHED	1u

/* One thread of the counted program (a process's threads each have one). [library] */
struct pmustat_region_thread {
	uint32_t state;			/* PMUSTAT_REGION_PUBLISHED once pid/tid are set */
	int32_t pid;
	int32_t tid;
	int32_t perf_error;		/* perf mode: -errno when this thread could not open its events */
	uint64_t unmatched_ends;	/* end() that did not close the innermost open region */
	uint64_t depth_dropped;		/* begin() beyond PMUSTAT_REGION_MAX_DEPTH (and its end) */
	uint64_t regions_dropped;	/* pairs of regions that got no record */
	uint64_t reserved[3];
};

#define PMUSTAT_REGION_NAME_TRUNCATED	0x1u

/* One region in one thread. [library] */
struct pmustat_region_record {
	uint32_t state;			/* PMUSTAT_REGION_PUBLISHED once thread/name are set */
	uint32_t thread;		/* index of its thread slot */
	uint32_t flags;			/* PMUSTAT_REGION_NAME_TRUNCATED */
	uint32_t minus_open;		/* minus the pairs open now (recursion: several), mod 2^32 */
	uint64_t reserved2;		/* version 1's begins: 0 */
	uint64_t calls;			/* completed pairs */
	uint64_t uncounted;		/* pairs in no sum: perf, not scheduled; rdpmc, read on two CPUs */
	char name[PMUSTAT_REGION_NAME_SIZE];	/* NUL-terminated */
	uint64_t sum[PMUSTAT_REGION_MAX_EVENTS];
	uint64_t reserved1[3];
};

_Static_assert(sizeof(struct pmustat_region_event) == 64, "region ABI: event");
_Static_assert(sizeof(struct pmustat_region_header) == 1216, "region ABI: header");
_Static_assert(sizeof(struct pmustat_region_thread) == 64, "region ABI: thread");
_Static_assert(sizeof(struct pmustat_region_record) == 256, "region ABI: record");

#endif
