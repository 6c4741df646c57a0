/*
 * callgrind_regions.c - see callgrind_regions.h.
 */
#include "engine/callgrind_regions.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/cachegrind_out.h"

/* Distinct region names one thread may have; more are counted as dropped. */
#define MAX_NAMES 1024u

/* One region of one thread while the file is read. */
struct open_region {
	char name[PMUSTAT_REGION_NAME_SIZE];
	bool truncated;
	unsigned depth;			/* its pairs open now (recursion) */
	uint64_t pending[SIM_NFIELDS];	/* costs since its outermost begin */
	unsigned count;			/* its record in r->counts */
};

/* One Callgrind thread of the process. */
struct thread_state {
	unsigned number;		/* Callgrind's "thread: N" */
	int index;			/* in r->threads; -1 until its first mark */
	unsigned stack[PMUSTAT_REGION_MAX_DEPTH];	/* open regions, innermost last */
	unsigned depth;
	uint64_t excess;		/* begins beyond the depth limit, still open */
	struct open_region *regions;
	unsigned nregions;
};

struct reader {
	struct region_result *r;
	const uint32_t *fields;
	pid_t pid;
	struct thread_state *threads;
	unsigned nthreads;
	unsigned cap_counts, cap_threads;
};

static struct thread_state *
thread_of(struct reader *rd, unsigned number)
{
	struct thread_state *grown;

	for (unsigned i = 0; i < rd->nthreads; i++)
		if (rd->threads[i].number == number)
			return &rd->threads[i];
	grown = realloc(rd->threads, (rd->nthreads + 1) * sizeof(*grown));
	if (!grown)
		return NULL;
	rd->threads = grown;
	memset(&grown[rd->nthreads], 0, sizeof(*grown));
	grown[rd->nthreads].number = number;
	grown[rd->nthreads].index = -1;
	return &grown[rd->nthreads++];
}

/* A new thread of the program in this Callgrind thread (its first mark, or after a reuse): a fresh record. */
static int
new_thread(struct reader *rd, struct thread_state *t, long tid)
{
	struct region_result *r = rd->r;

	if (r->nthreads == rd->cap_threads) {
		unsigned cap = rd->cap_threads ? rd->cap_threads * 2 : 8;
		struct region_thread *grown = realloc(r->threads, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		r->threads = grown;
		rd->cap_threads = cap;
	}
	memset(&r->threads[r->nthreads], 0, sizeof(r->threads[0]));
	r->threads[r->nthreads].pid = rd->pid;
	r->threads[r->nthreads].tid = tid > 0 && tid < (1L << 30) ? (pid_t)tid : 0;
	t->index = (int)r->nthreads++;
	free(t->regions);
	t->regions = NULL;
	t->nregions = 0;
	t->depth = 0;
	t->excess = 0;
	return 0;
}

/* Thread @t's region @name (@len bytes), made with its record on first sight; NULL: dropped or no memory. */
static struct open_region *
region_of(struct reader *rd, struct thread_state *t, const char *name, size_t len, int *rc)
{
	struct region_result *r = rd->r;
	char clean[PMUSTAT_REGION_NAME_SIZE];
	struct open_region *grown;
	bool cut = len >= PMUSTAT_REGION_NAME_SIZE;

	*rc = 0;
	if (cut)
		len = PMUSTAT_REGION_NAME_SIZE - 1;
	region_name_clean(clean, name, len);
	for (unsigned i = 0; i < t->nregions; i++)
		if (strcmp(t->regions[i].name, clean) == 0)
			return &t->regions[i];
	if (t->nregions >= MAX_NAMES) {
		r->threads[t->index].regions_dropped++;
		return NULL;
	}
	if (r->ncounts == rd->cap_counts) {
		unsigned cap = rd->cap_counts ? rd->cap_counts * 2 : 16;
		struct region_thread_count *more = realloc(r->counts, cap * sizeof(*more));

		if (!more)
			return *rc = -ENOMEM, NULL;
		r->counts = more;
		rd->cap_counts = cap;
	}
	grown = realloc(t->regions, (t->nregions + 1) * sizeof(*grown));
	if (!grown)
		return *rc = -ENOMEM, NULL;
	t->regions = grown;
	memset(&grown[t->nregions], 0, sizeof(*grown));
	memcpy(grown[t->nregions].name, clean, sizeof(clean));
	grown[t->nregions].truncated = cut;
	grown[t->nregions].count = r->ncounts;
	memset(&r->counts[r->ncounts], 0, sizeof(r->counts[0]));
	memcpy(r->counts[r->ncounts].name, clean, sizeof(clean));
	r->counts[r->ncounts].truncated = cut;
	r->counts[r->ncounts].thread = (unsigned)t->index;
	r->ncounts++;
	return &t->regions[t->nregions++];
}

/* A part's costs: to each region open in its thread, once. */
static void
charge(struct thread_state *t, const uint64_t cost[SIM_NFIELDS])
{
	for (unsigned i = 0; i < t->nregions; i++)
		for (unsigned f = 0; t->regions[i].depth && f < SIM_NFIELDS; f++)
			t->regions[i].pending[f] += cost[f];
}

static void
end_region(struct reader *rd, struct thread_state *t, struct open_region *o)
{
	struct region_thread_count *c = &rd->r->counts[o->count];

	t->depth--;
	o->depth--;
	c->calls++;
	if (o->depth)
		return;
	for (unsigned k = 0; k < rd->r->nevents; k++)
		c->sum[k] += sim_event_value(rd->fields[k], o->pending);
	memset(o->pending, 0, sizeof(o->pending));
}

/* The mark after "pmustat-region " (@len bytes of @m) of a part of thread @t. */
static int
apply_mark(struct reader *rd, struct thread_state *t, const char *m, size_t len)
{
	struct open_region *o;
	int rc = 0;

	if (len >= 2 && m[0] == 'n' && m[1] == ' ')
		return new_thread(rd, t, strtol(m + 2, NULL, 10));
	if (len < 2 || (m[0] != 'b' && m[0] != 'e') || m[1] != ' ')
		return -EPROTO;
	/* Marks before a thread's first "n" come from no library of ours. */
	if (t->index < 0)
		return -EPROTO;
	if (m[0] == 'b') {
		if (t->excess || t->depth >= PMUSTAT_REGION_MAX_DEPTH) {
			t->excess++;
			rd->r->threads[t->index].depth_dropped++;
			return 0;
		}
		o = region_of(rd, t, m + 2, len - 2, &rc);
		if (!o)
			return rc;
		rd->r->counts[o->count].begins++;
		o->depth++;
		t->stack[t->depth++] = (unsigned)(o - t->regions);
		return 0;
	}
	if (t->excess) {
		t->excess--;
		return 0;
	}
	o = region_of(rd, t, m + 2, len - 2, &rc);
	if (rc)
		return rc;
	if (!o || t->depth == 0 || &t->regions[t->stack[t->depth - 1]] != o) {
		rd->r->threads[t->index].unmatched_ends++;
		return 0;
	}
	end_region(rd, t, o);
	return 0;
}

/* The text after @key on the line at @p (up to @end), or NULL. */
static const char *
after_key(const char *p, const char *end, const char *key)
{
	size_t k = strlen(key);

	return (size_t)(end - p) >= k && memcmp(p, key, k) == 0 ? p + k : NULL;
}

/* One part: its costs charged, then its mark applied. */
static int
finish_part(struct reader *rd, const char *part, size_t len, const char *events, size_t events_len,
	    uint64_t totals[SIM_NFIELDS], char *why, size_t why_size)
{
	static const char mark_key[] = "desc: Trigger: Client Request: " PMUSTAT_REGION_SIM_MARK;
	uint64_t cost[SIM_NFIELDS];
	const char *mark = NULL, *p = part, *end = part + len, *v;
	size_t mark_len = 0;
	unsigned long number = 1;
	char *text;
	struct thread_state *t;
	int rc;

	for (const char *nl; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		if ((v = after_key(p, nl, "thread: ")))
			number = strtoul(v, NULL, 10);
		else if ((v = after_key(p, nl, mark_key))) {
			mark = v;
			mark_len = (size_t)(nl - v);
		}
	}
	/* The part's own summary, read with the file's events line. */
	text = malloc(events_len + len + 2);
	if (!text)
		return -ENOMEM;
	memcpy(text, events, events_len);
	text[events_len] = '\n';
	memcpy(text + events_len + 1, part, len);
	rc = cachegrind_out_parse(text, events_len + 1 + len, cost, why, why_size);
	free(text);
	if (rc)
		return rc;
	for (int f = 0; f < SIM_NFIELDS; f++)
		totals[f] += cost[f];
	t = thread_of(rd, (unsigned)number);
	if (!t)
		return -ENOMEM;
	charge(t, cost);
	if (!mark)
		return 0;
	rc = apply_mark(rd, t, mark, mark_len);
	if (rc == -EPROTO)
		snprintf(why, why_size, "a region mark that is not one: '%.*s'", (int)(mark_len > 60 ? 60 : mark_len),
			 mark);
	return rc;
}

int
callgrind_regions_add(struct region_result *r, const uint32_t *fields, pid_t pid, const char *text, size_t len,
		      uint64_t totals[SIM_NFIELDS], char *why, size_t why_size)
{
	struct reader rd = { .r = r, .fields = fields, .pid = pid, .cap_counts = r->ncounts,
			     .cap_threads = r->nthreads };
	const char *events = NULL, *part = NULL, *p = text, *end = text + len;
	size_t events_len = 0;
	int rc = 0;

	memset(totals, 0, sizeof(uint64_t) * SIM_NFIELDS);
	for (const char *nl; rc == 0 && p <= end; p = nl + 1) {
		bool last;

		nl = memchr(p, '\n', (size_t)(end - p));
		last = !nl;
		if (!nl)
			nl = end;
		if (!events && after_key(p, nl, "events:")) {
			events = p;
			events_len = (size_t)(nl - p);
		}
		if (after_key(p, nl, "part:") || last) {
			if (part && !events)
				rc = (snprintf(why, why_size, "no 'events:' line before a part's summary"), -EPROTO);
			else if (part)
				rc = finish_part(&rd, part, (size_t)((last ? nl : p) - part), events, events_len, totals,
						 why, why_size);
			part = p;
		}
		if (last)
			break;
	}
	if (rc == 0 && !events)
		rc = (snprintf(why, why_size, "no 'events:' line"), -EPROTO);
	for (unsigned i = 0; i < rd.nthreads; i++)
		free(rd.threads[i].regions);
	free(rd.threads);
	return rc;
}
