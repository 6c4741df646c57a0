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
#include <stddef.h>
#if defined(__has_include)
#if __has_include(<sys/rseq.h>)
#include <sys/rseq.h>
#endif
#endif
#include <stdint.h>
#include <string.h>

#include "region_abi.h"

#define LIB_HIDDEN __attribute__((visibility("hidden")))
#define LIB_EXPORT __attribute__((visibility("default")))

/* Distinct name pointers one thread may have in its table (power of two). */
#define LIB_TABLE		256u
/* Distinct regions one thread may have. */
#define LIB_MAX_REGIONS		192u

/*
 * A thread's stack of open regions, with guard frames whose key no name
 * can match (lib_no_key), so that the hot paths' single key compare also
 * catches an empty stack, a full one and begins beyond it:
 *
 *	frames[0]			guard: an end with nothing open
 *	frames[1 .. MAX_DEPTH]		the open regions
 *	frames[LIB_FRAME_FULL]		guard: a begin on a full stack
 *	frames[LIB_FRAME_EXCESS]	guard: lib_top points here while begins
 *					beyond the limit are open (excess)
 */
#define LIB_FRAME_FULL		(PMUSTAT_REGION_MAX_DEPTH + 1)
#define LIB_FRAME_EXCESS	(PMUSTAT_REGION_MAX_DEPTH + 2)
#define LIB_FRAMES		(PMUSTAT_REGION_MAX_DEPTH + 3)

/*
 * minus_open of a region that got no record: far from 0 either way, so its
 * begins never read the counters and its ends never count, and both take
 * the out-of-line path that counts them as dropped.
 */
#define LIB_NEVER_OPEN		0x80000000u

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

/*
 * One region of one thread. Its record's minus_open is minus the pairs of it
 * open now (recursion: more than one), modulo 2^32; 0 when closed. Negated
 * so that "the first begin" is the borrow of a decrement and "the last end"
 * the zero of an increment, each one instruction on memory; in the record,
 * so that it also gives pmustat the begins (calls plus the pairs still
 * open) without a second counter per begin. LIB_NEVER_OPEN in the
 * thread's scratch record, for names without a record.
 */
struct lib_region {
	struct pmustat_region_record *rec;
	const char *name;		/* the first pointer seen for it */
};

/* A counter value, stored as rdpmc gives it (EDX:EAX) without combining the halves. */
union lib_value {
	uint64_t v;
	uint32_t half[2];
};

/*
 * One level of a thread's stack. It keeps its key and region after it is
 * closed: the next begin at the same depth is, in the common loop, the same
 * name, and finds its region with one compare (a cache per depth, so nested
 * regions each hit at their own level).
 */
struct lib_frame {
	const char *key;		/* the name pointer it was begun with last */
	struct pmustat_region_record *rec;	/* its region's */
	uint32_t counted;		/* perf mode: 0 when the begin could not read the counters */
	uint32_t cpu;			/* rdpmc mode: lib_cpu() before the begin's reads */
	union lib_value start[PMUSTAT_REGION_MAX_EVENTS];
};

struct lib_thread {
	uint64_t excess;		/* begins beyond the depth limit, still open */
	struct pmustat_region_thread *slot;	/* NULL: the thread got none */
	uint32_t slot_index;
	uint32_t nregions;
	uint32_t nentries;
	int pid;
	/* Where names that got no record go: counted as dropped, never read. */
	struct pmustat_region_record scratch;
	/* perf mode: this thread's pages (the owner's, or its own events). */
	struct perf_event_mmap_page *page[PMUSTAT_REGION_MAX_EVENTS];
	int own_fd[PMUSTAT_REGION_MAX_EVENTS];	/* events it opened itself, -1 */
	/* Name pointer -> region's record, open addressing; two arrays so an index scales by 8. */
	const char *key[LIB_TABLE];
	struct pmustat_region_record *rec[LIB_TABLE];
	struct lib_region regions[LIB_MAX_REGIONS];
	struct lib_frame frames[LIB_FRAMES];
};

typedef void lib_call_fn(const char *name);

/*
 * What pmustat_region_begin() and _end() jump to: a function that returns
 * when the library is inactive (not started by pmustat: the call costs the
 * load and the branch of that jump), else the variant for the area's mode
 * and number of events. Set once, by the constructor.
 */
extern LIB_HIDDEN lib_call_fn *lib_begin_call;
extern LIB_HIDDEN lib_call_fn *lib_end_call;
/* The key of an empty table slot and of guard frames: no caller can pass this pointer. */
extern LIB_HIDDEN const char lib_no_key[1];
extern LIB_HIDDEN struct lib_config lib_cfg;
/* Two guard frames: lib_top of a thread that has no state yet (or no more). */
extern LIB_HIDDEN struct lib_frame lib_detached[2];
/* The next free frame of the calling thread; &lib_detached[1] until its first call. */
extern LIB_HIDDEN __thread struct lib_frame *lib_top __attribute__((tls_model("initial-exec")));
extern LIB_HIDDEN __thread struct lib_thread *lib_self __attribute__((tls_model("initial-exec")));

/* The calling thread's state, made on its first call; NULL when it cannot be. */
LIB_HIDDEN struct lib_thread *lib_thread_attach(void);
/* Record of a region not seen before in @t (copied name), or NULL. */
LIB_HIDDEN struct pmustat_region_record *lib_record_new(struct lib_thread *t, const char *name);
/* Point lib_begin_call and lib_end_call at the variants for lib_cfg (when attached). */
LIB_HIDDEN void lib_arm(void);
/*
 * lib_valgrind.c: under Valgrind with PMUSTAT_REGION_ENV_SIM set (--backend
 * sim), point them at the variants that mark the boundaries for Callgrind.
 * Returns whether it did (false: not under Valgrind, or built without
 * Valgrind's headers).
 */
LIB_HIDDEN bool lib_valgrind_arm(void);

/*
 * --*x, and whether *x was 0 (the borrow): one instruction on memory and a
 * branch on the carry flag, which gcc 12 does not make of the C. (An
 * increment's zero it does: ++x != 0 is addl $1 and jne.)
 */
static inline bool
lib_dec_was_zero(uint32_t *x)
{
	bool borrow;

	__asm__("subl $1, %0" : "+m"(*x), "=@ccc"(borrow));
	return borrow;
}

/*
 * Push (+1) or pop (-1) the calling thread's top frame: one add on the
 * thread-local pointer in memory. (gcc 12 computes the new address in a
 * register and stores it, two instructions; the hot paths know the frame
 * they move from, so the add gives the same pointer.)
 */
static inline void
lib_top_move(int frames)
{
	__asm__("addq %1, %0" : "+m"(lib_top) : "er"((long)frames * (long)sizeof(struct lib_frame)));
}

/* Atomic add on a counter in the shared area (relaxed: pmustat reads after the run). */
static inline void
lib_count(uint64_t *counter)
{
	__atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
}

/* getcpu(), for a thread without an rseq area (lib_attach.c). */
LIB_HIDDEN uint32_t lib_cpu_slow(void);

/*
 * The CPU the calling thread runs on, for the rdpmc reads of a pair, which
 * read that CPU's counters: a pair whose reads were on two CPUs subtracts
 * two cores' counters. glibc (2.35 on) registers each thread's rseq area,
 * whose cpu_id the kernel updates before the thread returns to user mode on
 * another CPU: one load from the thread pointer, async-signal-safe, no
 * system call. Without one (an older libc, glibc.pthread.rseq=0, a kernel
 * that refused it: __rseq_size 0), getcpu().
 */
static inline uint32_t
lib_cpu(void)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 35)) && defined(__x86_64__)
	if (__builtin_expect(__rseq_size != 0, 1)) {
		uint32_t cpu;

		/* The area is at the thread pointer (%fs's base) plus __rseq_offset. */
		__asm__ volatile("movl %%fs:(%1), %0"
				 : "=r"(cpu)
				 : "r"(__rseq_offset + (ptrdiff_t)offsetof(struct rseq, cpu_id)));
		return cpu;
	}
#endif
	return lib_cpu_slow();
}

static inline void
lib_lfence(void)
{
	__asm__ volatile("lfence" ::: "memory");
}

/*
 * rdpmc without fences; the callers put lfence before the first and after
 * the last read of a group, four per pair: before a begin's reads (earlier
 * work finishes outside the region), after them (the region's work does not
 * start before them), and likewise at the end. The SDM's RDPMC entry (vol.
 * 2B) asks for a serializing instruction such as CPUID before and/or after
 * the read for an exact count; LFENCE orders instruction execution the same
 * way (vol. 2A, LFENCE: it does not execute until all prior instructions
 * have completed locally, and no later instruction begins execution until
 * it completes) without CPUID's cost, a VM exit in a virtual machine, but
 * does not drain the store buffer. Reads of one group need no fence
 * between them: each event's window is bracketed by its own two reads.
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
