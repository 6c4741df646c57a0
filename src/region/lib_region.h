/*
 * lib_region.h - libpmustat-region's insides, shared by lib_region.c (the
 * calls) and lib_attach.c (finding pmustat's area, threads, perf pages).
 * Nothing here is exported: the library's only symbols are the two
 * functions of include/pmustat/region.h.
 *
 * Trust: the shared area can be scribbled on by any process of the counted
 * program, so the library copies what it needs (event reads, capacities)
 * into struct lib_config once, after validating it, and afterwards only
 * writes to the area: its own slot and records, and the header's atomic
 * allocation counters, whose results it bounds-checks.
 */
#ifndef PMUSTAT_LIB_REGION_H
#define PMUSTAT_LIB_REGION_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "region_abi.h"

#define LIB_HIDDEN __attribute__((visibility("hidden")))
#define LIB_EXPORT __attribute__((visibility("default")))

/* Distinct name pointers one thread may have cached (power of two). */
#define LIB_TABLE		256u
/* Distinct regions one thread may have. */
#define LIB_MAX_REGIONS		192u

/* What the library took from the area's header, validated. */
struct lib_config {
	uint32_t mode;			/* enum pmustat_region_mode */
	uint32_t nevents;
	uint32_t rdpmc_n;		/* events read with rdpmc on the hot path: nevents, 0 in perf mode */
	uint32_t ecx[PMUSTAT_REGION_MAX_EVENTS];	/* rdpmc mode */
	uint64_t mask[PMUSTAT_REGION_MAX_EVENTS];	/* 2^width - 1; all ones in perf mode */
	struct pmustat_region_header *hdr;
	struct pmustat_region_thread *threads;
	uint32_t thread_capacity;
	struct pmustat_region_record *records;
	uint32_t record_capacity;
	/* perf mode */
	int owner_tid;			/* -1: none (or not in this process) */
	struct perf_event_mmap_page *owner_page[PMUSTAT_REGION_MAX_EVENTS];
	struct perf_event_attr attr[PMUSTAT_REGION_MAX_EVENTS];
};

/* One region of one thread. */
struct lib_region {
	struct pmustat_region_record *rec;
	const char *name;		/* the first pointer seen for it */
	uint32_t open;			/* open pairs now (> 1: recursion) */
};

/* A counter value, stored as rdpmc gives it (EDX:EAX) without combining the halves. */
union lib_value {
	uint64_t v;
	uint32_t half[2];
};

struct lib_frame {
	const char *key;
	struct lib_region *region;
	uint32_t counted;		/* 0: the begin could not read the counters (perf) */
	uint32_t pad;
	union lib_value start[PMUSTAT_REGION_MAX_EVENTS];
};

struct lib_thread {
	struct lib_frame *top;		/* next free frame */
	struct lib_frame *limit;
	uint64_t excess;		/* begins beyond the depth limit, still open */
	struct pmustat_region_thread *slot;	/* NULL: the thread got none */
	uint32_t slot_index;
	uint32_t nregions;
	uint32_t nentries;
	int pid;
	/* Where names that got no record go: counted nowhere. */
	struct lib_region dropped;
	struct pmustat_region_record scratch;
	/* perf mode: this thread's pages (the owner's, or its own events). */
	struct perf_event_mmap_page *page[PMUSTAT_REGION_MAX_EVENTS];
	int own_fd[PMUSTAT_REGION_MAX_EVENTS];	/* events it opened itself, -1 */
	/* Name pointer -> region, open addressing; two arrays so an index scales by 8. */
	const char *key[LIB_TABLE];
	struct lib_region *region[LIB_TABLE];
	struct lib_region regions[LIB_MAX_REGIONS];
	struct lib_frame frames[PMUSTAT_REGION_MAX_DEPTH];
};

extern LIB_HIDDEN int lib_active;
/* The key of an empty table slot: no caller can pass this pointer. */
extern LIB_HIDDEN const char lib_no_key[1];
extern LIB_HIDDEN struct lib_config lib_cfg;
extern LIB_HIDDEN __thread struct lib_thread *lib_self __attribute__((tls_model("initial-exec")));

/* The calling thread's state, made on its first call; NULL when it cannot be. */
LIB_HIDDEN struct lib_thread *lib_thread_attach(void);
/* Record of a region not seen before in @t (copied name), or NULL. */
LIB_HIDDEN struct pmustat_region_record *lib_record_new(struct lib_thread *t, const char *name);

/* Atomic add on a counter in the shared area (relaxed: pmustat reads after the run). */
static inline void
lib_count(uint64_t *counter)
{
	__atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
}

static inline void
lib_lfence(void)
{
	__asm__ volatile("lfence" ::: "memory");
}

/*
 * rdpmc without fences; the callers put lfence before the first and after
 * the last read of a group (SDM vol. 3B, RDPMC: LFENCE before waits for the
 * counted work to finish, LFENCE after keeps later work out of the count).
 */
#ifndef LIB_READ_INSN
#define LIB_READ_INSN "rdpmc"	/* the cost benchmark builds a copy with "rdtsc" */
#endif
#define LIB_RDPMC(ecx, lo, hi) \
	__asm__ volatile(LIB_READ_INSN : "=a"(lo), "=d"(hi) : "c"(ecx))
/*
 * (lo and hi are uint64_t: rdpmc writes EAX and EDX, which clears the upper
 * halves of RAX and RDX, so the compiler need not zero-extend them.)
 */

/*
 * One event's count from its perf self-monitoring page, as
 * perf_event_mmap_page documents it (and tools/lib/perf's
 * perf_mmap__read_self does): offset plus the sign-extended hardware
 * counter at index - 1, under the page's sequence lock. false when the
 * event cannot be read in user mode now (index 0: not scheduled on this
 * CPU; no cap_user_rdpmc).
 */
static inline bool
lib_perf_read(const struct perf_event_mmap_page *pc, uint64_t *val)
{
	uint32_t seq, idx;
	uint64_t lo, hi;
	uint16_t width;
	int64_t pmc;
	uint64_t cnt;

	do {
		seq = __atomic_load_n(&pc->lock, __ATOMIC_ACQUIRE);
		idx = __atomic_load_n(&pc->index, __ATOMIC_RELAXED);
		cnt = (uint64_t)__atomic_load_n(&pc->offset, __ATOMIC_RELAXED);
		width = __atomic_load_n(&pc->pmc_width, __ATOMIC_RELAXED);
		if (idx == 0 || !pc->cap_user_rdpmc || width == 0 || width > 64)
			return false;
		LIB_RDPMC(idx - 1, lo, hi);
		pmc = (int64_t)((hi << 32 | lo) << (64 - width)) >> (64 - width);
		cnt += (uint64_t)pmc;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while (__atomic_load_n(&pc->lock, __ATOMIC_RELAXED) != seq);
	*val = cnt;
	return true;
}

#endif
