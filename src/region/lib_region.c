/*
 * lib_region.c - pmustat_region_begin() and pmustat_region_end(): the hot
 * path of libpmustat-region.
 *
 * A begin finds the thread's region for @name (a pointer-keyed table, the
 * name's contents only on a miss), pushes a frame and reads the counters
 * into it last thing; an end checks that it closes the innermost frame,
 * reads the counters first thing and adds the differences, modulo each
 * counter's width, to the region's record in pmustat's area. No locks, no
 * system calls: each thread writes only its own records. See region_abi.h
 * for the semantics (nesting, recursion, what is dropped and counted).
 */
#include <pmustat/region.h>

#include "lib_region.h"

_Static_assert(LIB_TABLE == 256, "lib_hash() gives 8 bits");

static inline uint32_t
lib_hash(const char *name)
{
	return (uint32_t)(((uintptr_t)name * 0x9e3779b97f4a7c15ull) >> 56);
}

/* The region for @name by contents, or a new one; caches @name's pointer. */
static struct lib_region *
lookup_slow(struct lib_thread *t, const char *name)
{
	uint32_t h = lib_hash(name);
	struct lib_region *r = NULL;
	struct pmustat_region_record *rec;

	if (!t->slot) {
		lib_count(&lib_cfg.hdr->calls_dropped);
		return &t->dropped;
	}
	for (uint32_t i = 0; i < LIB_TABLE; i++) {
		uint32_t k = (h + i) & (LIB_TABLE - 1);

		if (t->key[k] == name)
			return t->region[k];
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
		if (!rec) {
			/* Not cached: every pair of it is counted as dropped. */
			lib_count(&t->slot->regions_dropped);
			return &t->dropped;
		}
		r = &t->regions[t->nregions++];
		r->rec = rec;
		r->name = name;
		r->open = 0;
	}
	/* Keep the table at most 3/4 full so probes end; past that, this path. */
	if (t->nentries < LIB_TABLE / 4 * 3) {
		for (uint32_t i = 0; i < LIB_TABLE; i++) {
			uint32_t k = (h + i) & (LIB_TABLE - 1);

			if (t->key[k] == lib_no_key) {
				t->key[k] = name;
				t->region[k] = r;
				t->nentries++;
				break;
			}
		}
	}
	return r;
}

static inline struct lib_region *
lookup(struct lib_thread *t, const char *name)
{
	uint32_t k = lib_hash(name);

	if (t->key[k] == name)
		return t->region[k];
	return lookup_slow(t, name);
}

/* Each case reads one event and falls through to the next (Duff's device). */
#define BEGIN_CASE(i) \
	case (i) + 1: \
		LIB_RDPMC(lib_cfg.ecx[i], lo, hi); \
		f->start[i].half[0] = (uint32_t)lo; \
		f->start[i].half[1] = (uint32_t)hi
#define BEGIN_READ(i)	BEGIN_CASE(i); __attribute__((fallthrough))

#define END_CASE(i) \
	case (i) + 1: \
		LIB_RDPMC(lib_cfg.ecx[i], lo, hi); \
		rec->sum[i] += ((hi << 32 | lo) - f->start[i].v) & lib_cfg.mask[i]
#define END_READ(i)	END_CASE(i); __attribute__((fallthrough))

static __attribute__((noinline)) void
perf_begin(struct lib_thread *t, struct lib_frame *f)
{
	f->counted = 1;
	lib_lfence();
	for (uint32_t i = 0; i < lib_cfg.nevents; i++) {
		if (!t->page[i] || !lib_perf_read(t->page[i], &f->start[i].v))
			f->counted = 0;
	}
	lib_lfence();
}

/* pop() in perf mode: the counters from the pages, then the bookkeeping. */
static __attribute__((noinline)) void
perf_pop(struct lib_thread *t, struct lib_frame *f, struct pmustat_region_record *rec)
{
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
	rec->calls++;
	t->top = f;
}

/* The counters at a begin, into the new frame @f: the last thing a begin does. */
static inline __attribute__((always_inline)) void
read_begin(struct lib_thread *t, struct lib_frame *f)
{
	uint64_t lo, hi;

	lib_lfence();
	switch (lib_cfg.rdpmc_n) {
	BEGIN_READ(15);
	BEGIN_READ(14);
	BEGIN_READ(13);
	BEGIN_READ(12);
	BEGIN_READ(11);
	BEGIN_READ(10);
	BEGIN_READ(9);
	BEGIN_READ(8);
	BEGIN_READ(7);
	BEGIN_READ(6);
	BEGIN_READ(5);
	BEGIN_READ(4);
	BEGIN_READ(3);
	BEGIN_READ(2);
	BEGIN_READ(1);
	BEGIN_CASE(0);
		break;
	case 0:
		perf_begin(t, f);	/* perf mode */
		return;
	default:
		__builtin_unreachable();	/* 0..16, checked when attaching */
	}
	lib_lfence();
}

/*
 * The counters at an end, differences into @rec; in perf mode perf_pop()
 * does the whole close and this returns false.
 */
static inline __attribute__((always_inline)) bool
read_end(struct lib_thread *t, struct lib_frame *f, struct pmustat_region_record *rec)
{
	uint64_t lo, hi;

	lib_lfence();
	switch (lib_cfg.rdpmc_n) {
	END_READ(15);
	END_READ(14);
	END_READ(13);
	END_READ(12);
	END_READ(11);
	END_READ(10);
	END_READ(9);
	END_READ(8);
	END_READ(7);
	END_READ(6);
	END_READ(5);
	END_READ(4);
	END_READ(3);
	END_READ(2);
	END_READ(1);
	END_CASE(0);
		break;
	case 0:
		perf_pop(t, f, rec);
		return false;
	default:
		__builtin_unreachable();
	}
	lib_lfence();
	return true;
}

/* Push a frame for region @r and read the counters unless it is already open. */
static inline __attribute__((always_inline)) void
push(struct lib_thread *t, struct lib_frame *f, const char *name, struct lib_region *r)
{
	t->top = f + 1;
	f->key = name;
	f->region = r;
	r->rec->begins++;
	if (r->open++ == 0)
		read_begin(t, f);
	/* else recursion: counted by the outermost pair */
}

/* The calling thread's state, made on its first call (NULL: it cannot record). */
static inline struct lib_thread *
self(void)
{
	struct lib_thread *t = lib_self;

	return t ? t : lib_thread_attach();
}

/* Every begin the hot path does not take: first call of a thread, a name not cached, too deep. */
static __attribute__((noinline)) void
begin_slow(const char *name)
{
	struct lib_thread *t;
	struct lib_frame *f;

	if (!name || !(t = self()))
		return;
	f = t->top;
	if (f == t->limit) {
		t->excess++;
		if (t->slot)
			t->slot->depth_dropped++;
		return;
	}
	push(t, f, name, lookup(t, name));
}

LIB_EXPORT void
pmustat_region_begin(const char *name)
{
	struct lib_thread *t;
	struct lib_frame *f;
	uint32_t k;

	if (__builtin_expect(!lib_active, 0))
		return;
	t = lib_self;
	if (__builtin_expect(!t, 0))
		goto slow;
	f = t->top;
	k = lib_hash(name);
	/* (A NULL name never matches: empty slots hold lib_no_key.) */
	if (__builtin_expect(f == t->limit || t->key[k] != name, 0))
		goto slow;
	push(t, f, name, t->region[k]);
	return;
slow:
	begin_slow(name);
}

/* Close frame @f of @t: read the counters unless an outer pair of the same region is open. */
static inline __attribute__((always_inline)) void
pop(struct lib_thread *t, struct lib_frame *f)
{
	struct lib_region *r = f->region;
	struct pmustat_region_record *rec = r->rec;

	if (--r->open == 0 && !read_end(t, f, rec))
		return;
	/* else recursion: the outermost pair counts */
	rec->calls++;
	t->top = f;
}

/*
 * Every end the hot path does not take: first call of a thread, begins
 * dropped for depth, nothing open, or @name not the pointer the innermost
 * frame was begun with. Regions are their names' contents, and the
 * begin's pointer is still valid (region.h asks for names that stay).
 */
static __attribute__((noinline)) void
end_slow(const char *name)
{
	struct lib_thread *t;
	struct lib_frame *f;

	if (!name || !(t = self()))
		return;
	if (t->excess) {
		t->excess--;
		return;
	}
	f = t->top - (t->top != t->frames);
	if (t->top == t->frames || strcmp(f->key, name) != 0) {
		if (t->slot)
			t->slot->unmatched_ends++;
		return;
	}
	pop(t, f);
}

LIB_EXPORT void
pmustat_region_end(const char *name)
{
	struct lib_thread *t;
	struct lib_frame *f;

	if (__builtin_expect(!lib_active, 0))
		return;
	t = lib_self;
	if (__builtin_expect(!t || t->excess || t->top == t->frames, 0))
		goto slow;
	f = t->top - 1;
	if (__builtin_expect(f->key != name, 0))
		goto slow;
	pop(t, f);
	return;
slow:
	end_slow(name);
}
