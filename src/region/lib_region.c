/*
 * lib_region.c - pmustat_region_begin() and pmustat_region_end(): the hot
 * path of libpmustat-region.
 *
 * A begin finds the region for @name in the frame at the top of the
 * thread's stack, which remembers the name it held last (one compare in a
 * loop that begins the same region again), pushes it and reads the
 * counters last thing; an end checks that it closes the innermost frame,
 * reads the counters first thing and adds the differences, modulo each
 * counter's width, to the region's record in pmustat's area. No locks, no
 * system calls: each thread writes only its own records. See region_abi.h
 * for the semantics (nesting, recursion, what is dropped and counted).
 *
 * The instructions of a pair are counted by scripts/bench-region; what
 * the hot path does not need is out of line:
 *  - the exported functions only jump through lib_begin_call/lib_end_call,
 *    which the constructor points at the variant for the area's number of
 *    events (the reads unrolled, no loop, no switch), or at a return;
 *  - the key compare also catches a thread's first call, an empty or full
 *    stack and begins beyond it (guard frames, lib_region.h);
 *  - a begin of another name than its frame held probes the thread's table
 *    once, inline (two regions that take turns in a loop); everything else
 *    (new names and pointers, recursion, names without a record, perf
 *    mode, mismatched ends) goes to noinline functions.
 */
#include <pmustat/region.h>

#include "lib_region.h"

_Static_assert(LIB_TABLE == 256, "lib_hash() gives 8 bits");

static inline uint32_t
lib_hash(const char *name)
{
	return (uint32_t)(((uintptr_t)name * 0x9e3779b97f4a7c15ull) >> 56);
}

/* The record of @name's region, by contents, or a new one; caches @name's pointer. */
static struct pmustat_region_record *
lookup_slow(struct lib_thread *t, const char *name)
{
	uint32_t h = lib_hash(name);
	struct lib_region *r = NULL;
	struct pmustat_region_record *rec;

	if (!t->slot)
		return &t->scratch;
	for (uint32_t i = 0; i < LIB_TABLE; i++) {
		uint32_t k = (h + i) & (LIB_TABLE - 1);

		if (t->key[k] == name)
			return t->rec[k];
		if (t->key[k] == lib_no_key)
			break;
	}
	for (uint32_t i = 0; i < t->nregions; i++) {
		if (strcmp(t->regions[i].name, name) == 0) {
			r = &t->regions[i];
			break;
		}
	}
	if (!r) {
		rec = t->nregions < LIB_MAX_REGIONS ? lib_record_new(t, name) : NULL;
		if (!rec)
			return &t->scratch;	/* not cached: asked again, counted per pair */
		r = &t->regions[t->nregions++];
		r->rec = rec;
		r->name = name;
		rec->minus_open = 0;
	}
	/* Keep the table at most 3/4 full so probes end; past that, this path. */
	if (t->nentries < LIB_TABLE / 4 * 3) {
		for (uint32_t i = 0; i < LIB_TABLE; i++) {
			uint32_t k = (h + i) & (LIB_TABLE - 1);

			if (t->key[k] == lib_no_key) {
				t->key[k] = name;
				t->rec[k] = r->rec;
				t->nentries++;
				break;
			}
		}
	}
	return r->rec;
}

/*
 * Perf mode: the counters from the threads' perf pages (lib_perf_read());
 * a pair either of whose reads failed is a call, not summed.
 */
static __attribute__((noinline)) void
perf_begin(struct lib_frame *f)
{
	struct lib_thread *t = lib_self;

	f->counted = 1;
	lib_lfence();
	for (uint32_t i = 0; i < lib_cfg.nevents; i++) {
		if (!t->page[i] || !lib_perf_read(t->page[i], &f->start[i].v))
			f->counted = 0;
	}
	lib_lfence();
}

static __attribute__((noinline)) void
perf_end(const struct lib_frame *f, struct pmustat_region_record *rec)
{
	struct lib_thread *t = lib_self;
	uint64_t now[PMUSTAT_REGION_MAX_EVENTS];
	bool ok = f->counted;

	lib_lfence();
	for (uint32_t i = 0; i < lib_cfg.nevents; i++) {
		if (!t->page[i] || !lib_perf_read(t->page[i], &now[i]))
			ok = false;
	}
	lib_lfence();
	if (ok) {
		for (uint32_t i = 0; i < lib_cfg.nevents; i++)
			rec->sum[i] += now[i] - f->start[i].v;
	} else {
		rec->uncounted++;
	}
}

/* Unroll a loop over the events completely (its count is a constant in each variant). */
#if defined(__clang__)
#define LIB_UNROLL	_Pragma("clang loop unroll(full)")
#else
#define LIB_UNROLL	_Pragma("GCC unroll 16")
#endif

/*
 * The counters at a begin, into frame @f: the last thing a begin does.
 * @n is a constant in each variant, so the loop is unrolled and nothing
 * but the reads and their stores remains.
 */
static inline __attribute__((always_inline)) void
read_begin(struct lib_frame *f, unsigned n)
{
	if (n == 0) {
		perf_begin(f);
		return;
	}
	f->cpu = lib_cpu();
	lib_lfence();
	LIB_UNROLL
	for (unsigned i = 0; i < n; i++) {
		uint64_t lo, hi;

		LIB_RDPMC(lib_cfg.ecx[i], lo, hi);
		/* Two 32-bit stores: combining the halves waits for the end. */
		f->start[i].half[0] = (uint32_t)lo;
		f->start[i].half[1] = (uint32_t)hi;
	}
	lib_lfence();
}

/*
 * A pair whose reads were not all on one CPU (the thread moved between
 * its begin and its end, or during their reads): two cores' counters, no
 * count. A call, uncounted.
 */
static __attribute__((noinline)) void
end_moved(struct pmustat_region_record *rec)
{
	rec->uncounted++;
}

/*
 * The counters at an end, the differences modulo each counter's width into
 * @rec, when the CPU after the reads is the one before the begin's.
 */
static inline __attribute__((always_inline)) void
read_end(const struct lib_frame *f, struct pmustat_region_record *rec, unsigned n)
{
	uint64_t now[PMUSTAT_REGION_MAX_EVENTS];

	if (n == 0) {
		perf_end(f, rec);
		return;
	}
	lib_lfence();
	LIB_UNROLL
	for (unsigned i = 0; i < n; i++) {
		uint64_t lo, hi;

		LIB_RDPMC(lib_cfg.ecx[i], lo, hi);
		now[i] = hi << 32 | lo;
	}
	lib_lfence();
	if (__builtin_expect(lib_cpu() != f->cpu, 0)) {
		end_moved(rec);
		return;
	}
	LIB_UNROLL
	for (unsigned i = 0; i < n; i++)
		rec->sum[i] += (now[i] - f->start[i].v) & lib_cfg.mask[i];
}

/*
 * A begin of a region (record @rec) that must not read: it is already open
 * in this thread (recursion: the outermost pair counts), or @rec is the
 * thread's stand-in for names that got no record, whose pairs are counted here.
 */
static __attribute__((noinline)) void
begin_nested(const struct pmustat_region_record *rec)
{
	struct lib_thread *t = lib_self;

	if (rec != &t->scratch)
		return;
	lib_count(t->slot ? &t->slot->regions_dropped : &lib_cfg.hdr->calls_dropped);
}

/*
 * Every begin the hot path does not take: the thread's first call, a name
 * not at its first probe in the thread's table (new, or a pointer not seen
 * before), NULL, a full stack. Makes the top frame hold @name's region,
 * then begins again (a hit).
 */
static __attribute__((noinline)) void
begin_slow(const char *name)
{
	struct lib_thread *t = lib_self;
	struct lib_frame *f;

	if (!name)
		return;
	if (!t && !(t = lib_thread_attach()))
		return;
	f = lib_top;
	if (f >= &t->frames[LIB_FRAME_FULL]) {
		t->excess++;
		if (t->slot)
			t->slot->depth_dropped++;
		lib_top = &t->frames[LIB_FRAME_EXCESS];
		return;
	}
	f->key = name;
	f->rec = lookup_slow(t, name);
	lib_begin_call(name);
}

/* An end that closes recursion (an outer pair of the region is open) or a dropped name. */
static __attribute__((noinline)) void
end_nested(struct lib_frame *f)
{
	f->rec->calls++;
	lib_top = f;
}

/*
 * Every end whose name is not the pointer the innermost frame was begun
 * with: the thread's first call, ends of begins dropped for depth, nothing
 * open, another pointer to the same name, or a mismatch. Regions are their
 * names' contents, and the begin's pointer is still valid (region.h asks
 * for names that stay), so an equal name ends the frame under that pointer.
 */
static __attribute__((noinline)) void
end_slow(const char *name)
{
	struct lib_thread *t = lib_self;
	struct lib_frame *f;

	if (!name)
		return;
	if (!t && !(t = lib_thread_attach()))
		return;
	if (t->excess) {
		if (--t->excess == 0)
			lib_top = &t->frames[LIB_FRAME_FULL];
		return;
	}
	f = lib_top - 1;
	if (f == &t->frames[0] || strcmp(f->key, name) != 0) {
		if (t->slot)
			t->slot->unmatched_ends++;
		return;
	}
	lib_end_call(f->key);
}

/*
 * The hot paths, for @n events read with rdpmc (0: perf mode). Everything
 * a begin does before its reads and an end after them is outside the
 * counted window; an end does only what it must (which frame, is it the
 * outermost pair) before it reads.
 */
static inline __attribute__((always_inline)) void
begin(const char *name, unsigned n)
{
	struct lib_frame *f = lib_top;
	struct lib_thread *t;
	struct pmustat_region_record *rec;
	uint32_t k;

	if (__builtin_expect(f->key != name, 0)) {
		/*
		 * Another name than this depth held last (names that take turns
		 * in a loop): the thread's table, first probe only, inline. Not
		 * into a guard frame; NULL is in no table.
		 */
		t = lib_self;
		k = lib_hash(name);
		if (__builtin_expect(!t || t->key[k] != name || f >= &t->frames[LIB_FRAME_FULL], 0)) {
			begin_slow(name);
			return;
		}
		f->key = name;
		f->rec = t->rec[k];
	}
	lib_top_move(1);
	rec = f->rec;
	if (__builtin_expect(!lib_dec_was_zero(&rec->minus_open), 0)) {
		begin_nested(rec);
		return;
	}
	read_begin(f, n);
}

static inline __attribute__((always_inline)) void
end(const char *name, unsigned n)
{
	struct lib_frame *f = lib_top - 1;
	struct pmustat_region_record *rec;

	if (__builtin_expect(f->key != name, 0)) {
		end_slow(name);
		return;
	}
	rec = f->rec;
	if (__builtin_expect(++rec->minus_open != 0, 0)) {
		end_nested(f);
		return;
	}
	read_end(f, rec, n);
	rec->calls++;
	lib_top_move(-1);
}

#define VARIANT(n) \
	static void begin_##n(const char *name) { begin(name, n); } \
	static void end_##n(const char *name) { end(name, n); }
VARIANT(0) VARIANT(1) VARIANT(2) VARIANT(3) VARIANT(4) VARIANT(5) VARIANT(6)
VARIANT(7) VARIANT(8) VARIANT(9) VARIANT(10) VARIANT(11) VARIANT(12) VARIANT(13)
VARIANT(14) VARIANT(15) VARIANT(16)

/* Per number of rdpmc events; [0]: perf mode. */
static lib_call_fn *const begin_variant[] = {
	begin_0, begin_1, begin_2, begin_3, begin_4, begin_5, begin_6, begin_7, begin_8,
	begin_9, begin_10, begin_11, begin_12, begin_13, begin_14, begin_15, begin_16,
};
static lib_call_fn *const end_variant[] = {
	end_0, end_1, end_2, end_3, end_4, end_5, end_6, end_7, end_8,
	end_9, end_10, end_11, end_12, end_13, end_14, end_15, end_16,
};
_Static_assert(sizeof(begin_variant) / sizeof(begin_variant[0]) == PMUSTAT_REGION_MAX_EVENTS + 1,
	       "a variant per number of events");

static void
inactive(const char *name)
{
	(void)name;
}

LIB_HIDDEN lib_call_fn *lib_begin_call = inactive;
LIB_HIDDEN lib_call_fn *lib_end_call = inactive;

LIB_HIDDEN void
lib_arm(void)
{
	lib_begin_call = begin_variant[lib_cfg.rdpmc_n];
	lib_end_call = end_variant[lib_cfg.rdpmc_n];
}

LIB_EXPORT void
pmustat_region_begin(const char *name)
{
	lib_begin_call(name);
}

LIB_EXPORT void
pmustat_region_end(const char *name)
{
	lib_end_call(name);
}
