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

/* The part read so far: its costs charged to its thread, then its mark applied. */
static int
finish_part(struct callgrind_reader *cr)
{
	struct reader *rd = cr->rd;
	uint64_t cost[SIM_NFIELDS];
	char text[sizeof(cr->events) + sizeof(cr->summary) + 2];
	struct thread_state *t;
	int rc;

	if (!cr->in_part)
		return 0;
	cr->in_part = false;
	if (!cr->events[0])
		return snprintf(cr->why, cr->why_size, "no 'events:' line before a part's summary"), -EPROTO;
	snprintf(text, sizeof(text), "%s\n%s\n", cr->events, cr->summary);
	rc = cachegrind_out_parse(text, strlen(text), cost, cr->why, cr->why_size);
	if (rc)
		return rc;
	for (int f = 0; f < SIM_NFIELDS; f++)
		cr->totals[f] += cost[f];
	t = thread_of(rd, cr->thread);
	if (!t)
		return -ENOMEM;
	charge(t, cost);
	if (!cr->mark_len)
		return 0;
	rc = apply_mark(rd, t, cr->mark, cr->mark_len);
	if (rc == -EPROTO)
		snprintf(cr->why, cr->why_size, "a region mark that is not one: '%.*s'",
			 (int)(cr->mark_len > 60 ? 60 : cr->mark_len), cr->mark);
	return rc;
}

int
callgrind_regions_begin(struct callgrind_reader *cr, struct region_result *r, const uint32_t *fields, pid_t pid,
			uint64_t totals[SIM_NFIELDS], char *why, size_t why_size)
{
	memset(cr, 0, sizeof(*cr));
	cr->rd = calloc(1, sizeof(*cr->rd));
	if (!cr->rd)
		return -ENOMEM;
	cr->rd->r = r;
	cr->rd->fields = fields;
	cr->rd->pid = pid;
	cr->rd->cap_counts = r->ncounts;
	cr->rd->cap_threads = r->nthreads;
	cr->totals = totals;
	cr->why = why;
	cr->why_size = why_size;
	memset(totals, 0, sizeof(uint64_t) * SIM_NFIELDS);
	return 0;
}

/* @dst (@size bytes) gets [@p, @end), cut to fit. */
static void
keep(char *dst, size_t size, const char *p, const char *end)
{
	size_t n = (size_t)(end - p) < size - 1 ? (size_t)(end - p) : size - 1;

	memcpy(dst, p, n);
	dst[n] = '\0';
}

int
callgrind_regions_line(struct callgrind_reader *cr, const char *line, size_t len)
{
	static const char mark_key[] = "desc: Trigger: Client Request: " PMUSTAT_REGION_SIM_MARK;
	const char *end = line + len, *v;
	int rc;

	if (after_key(line, end, "part:")) {
		rc = finish_part(cr);
		cr->in_part = true;
		cr->thread = 1;
		cr->mark_len = 0;
		cr->summary[0] = '\0';
		return rc;
	}
	if (!cr->events[0] && after_key(line, end, "events:"))
		keep(cr->events, sizeof(cr->events), line, end);
	else if (!cr->in_part)
		return 0;
	else if ((v = after_key(line, end, "thread: ")))
		cr->thread = (unsigned)strtoul(v, NULL, 10);
	else if ((v = after_key(line, end, mark_key))) {
		cr->mark_len = (size_t)(end - v) < sizeof(cr->mark) ? (size_t)(end - v) : sizeof(cr->mark);
		memcpy(cr->mark, v, cr->mark_len);
	} else if (after_key(line, end, "summary:")) {
		keep(cr->summary, sizeof(cr->summary), line, end);
	}
	return 0;
}

int
callgrind_regions_end(struct callgrind_reader *cr)
{
	int rc = 0;

	if (!cr->rd)
		return 0;
	rc = finish_part(cr);
	if (rc == 0 && !cr->events[0])
		rc = (snprintf(cr->why, cr->why_size, "no 'events:' line"), -EPROTO);
	for (unsigned i = 0; i < cr->rd->nthreads; i++)
		free(cr->rd->threads[i].regions);
	free(cr->rd->threads);
	free(cr->rd);
	cr->rd = NULL;
	return rc;
}

int
callgrind_regions_add(struct region_result *r, const uint32_t *fields, pid_t pid, const char *text, size_t len,
		      uint64_t totals[SIM_NFIELDS], char *why, size_t why_size)
{
	struct callgrind_reader cr;
	const char *p = text, *end = text + len;
	int rc = callgrind_regions_begin(&cr, r, fields, pid, totals, why, why_size), rc2;

	while (rc == 0 && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		if (!nl)
			nl = end;
		rc = callgrind_regions_line(&cr, p, (size_t)(nl - p));
		p = nl + 1;
	}
	rc2 = callgrind_regions_end(&cr);
	return rc ? rc : rc2;
}
