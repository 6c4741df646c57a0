/*
 * metric_table_file.c - see metric_table_file.h. The format lives here
 * alone: its writer (run by the build) and its reader.
 *
 *	header		struct file_header
 *	records		count x struct file_record, in the table's order
 *	refs		uint32 string offsets: every metric's event names, then the groups
 *	tms		uint32 metric indexes: every threshold's metrics
 *	exprs		the parsed trees, each 8-byte aligned
 *	strings		NUL-terminated, offsets from the strings' start
 */
#include "config.h"
#include "metrics/metric_table_file.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "events/compiled_file.h"
#include "metrics/metric_expr.h"
#include "metrics/metric_table_impl.h"

static const char FILE_MAGIC[8] = "PMUSTMET";
/* Raise on any change to the layout below, to what a field means, or to the tree. */
#define FILE_FORMAT_VERSION 1u

struct file_header {
	struct compiled_prefix prefix;	/* magic, version, size, checksum */
	uint32_t count, n_refs, n_groups, n_tms, exprs_size, strings_size;
	uint32_t name, source_file, source_version, tma_version;	/* string offsets */
	uint32_t records, refs, tms, exprs, strings;			/* section offsets */
	uint32_t reserved;
};

struct file_record {
	/* String offsets; perf_name and threshold may be COMPILED_NO_STRING. */
	uint32_t name, perf_name, groups, parent, category, unit, description;
	uint32_t formula_text, threshold_text;
	uint32_t events_first, n_events;		/* in refs */
	uint32_t formula, formula_size;			/* in exprs */
	uint32_t threshold, threshold_size;		/* in exprs; size 0: none */
	uint32_t tms_first, n_tms;			/* in tms */
	uint32_t level, tree;
	uint32_t reserved;
};

_Static_assert(sizeof(struct file_header) == 96, "header layout");
_Static_assert(sizeof(struct file_record) == 80, "record layout");
_Static_assert(sizeof(unsigned) == sizeof(uint32_t), "threshold_metrics are mapped");

/* ---- writer ---- */

static size_t
add_expr(unsigned char *exprs, size_t at, const struct metric_expr *e, uint32_t *off, uint32_t *size)
{
	*off = (uint32_t)at;
	*size = e ? (uint32_t)metric_expr_bytes(e) : 0;
	if (e && exprs)
		memcpy(exprs + at, e, *size);
	return compiled_align8(at + *size);
}

int
metric_table_file_write(const struct metric_table *t, FILE *f)
{
	struct file_header h = { .records = 0 };
	struct compiled_strings s = { NULL, 0, 0 };
	struct file_record *recs = calloc(t->count ? t->count : 1, sizeof(*recs));
	uint32_t *refs = NULL, *tms = NULL, bad = COMPILED_NO_STRING - 1;
	unsigned char *exprs = NULL, *out = NULL;
	size_t n_refs = t->n_groups, n_tms = 0, exprs_size = 0, i;
	int ret = -ENOMEM;

	for (i = 0; i < t->count; i++) {
		const struct metric_desc *d = &t->metrics[i].desc;
		uint32_t off, size;

		n_refs += d->n_events;
		n_tms += d->n_threshold_metrics;
		exprs_size = add_expr(NULL, exprs_size, d->formula, &off, &size);
		exprs_size = add_expr(NULL, exprs_size, d->threshold, &off, &size);
	}
	refs = calloc(n_refs + 1, sizeof(*refs));
	tms = calloc(n_tms + 1, sizeof(*tms));
	exprs = calloc(exprs_size + 1, 1);
	if (!recs || !refs || !tms || !exprs)
		goto out;
	h.name = compiled_string_add(&s, t->name);
	h.source_file = compiled_string_add(&s, t->source_file);
	h.source_version = compiled_string_add(&s, t->source_version);
	h.tma_version = compiled_string_add(&s, t->tma_version);
	n_refs = n_tms = exprs_size = 0;
	for (i = 0; i < t->count; i++) {
		const struct metric_desc *d = &t->metrics[i].desc;
		struct file_record *r = &recs[i];

		r->name = compiled_string_add(&s, d->name);
		r->perf_name = compiled_string_add(&s, d->perf_name);
		r->groups = compiled_string_add(&s, d->groups);
		r->parent = compiled_string_add(&s, d->parent);
		r->category = compiled_string_add(&s, d->category);
		r->unit = compiled_string_add(&s, d->unit);
		r->description = compiled_string_add(&s, d->description);
		r->formula_text = compiled_string_add(&s, d->formula_text);
		r->threshold_text = compiled_string_add(&s, d->threshold_text);
		r->level = d->level;
		r->tree = d->tree;
		r->events_first = (uint32_t)n_refs;
		r->n_events = d->n_events;
		for (unsigned k = 0; k < d->n_events; k++)
			refs[n_refs++] = compiled_string_add(&s, d->events[k]);
		r->tms_first = (uint32_t)n_tms;
		r->n_tms = d->n_threshold_metrics;
		for (unsigned k = 0; k < d->n_threshold_metrics; k++)
			tms[n_tms++] = d->threshold_metrics[k];
		exprs_size = add_expr(exprs, exprs_size, d->formula, &r->formula, &r->formula_size);
		exprs_size = add_expr(exprs, exprs_size, d->threshold, &r->threshold, &r->threshold_size);
		if (r->name == bad || r->perf_name == bad || r->groups == bad || r->parent == bad ||
		    r->category == bad || r->unit == bad || r->description == bad ||
		    r->formula_text == bad || r->threshold_text == bad)
			goto out;
	}
	for (i = 0; i < t->n_groups; i++)
		refs[n_refs++] = compiled_string_add(&s, t->groups[i]);
	for (i = 0; i < n_refs; i++)
		if (refs[i] == bad)
			goto out;
	h.count = (uint32_t)t->count;
	h.n_refs = (uint32_t)n_refs;
	h.n_groups = (uint32_t)t->n_groups;
	h.n_tms = (uint32_t)n_tms;
	h.exprs_size = (uint32_t)exprs_size;
	h.strings_size = (uint32_t)s.len;
	h.records = sizeof(h);
	h.refs = (uint32_t)compiled_align8(h.records + t->count * sizeof(*recs));
	h.tms = (uint32_t)compiled_align8(h.refs + n_refs * sizeof(*refs));
	h.exprs = (uint32_t)compiled_align8(h.tms + n_tms * sizeof(*tms));
	h.strings = (uint32_t)(h.exprs + exprs_size);
	h.prefix = compiled_prefix(FILE_MAGIC, FILE_FORMAT_VERSION, compiled_align8(h.strings + s.len));
	out = calloc(1, h.prefix.size);
	if (!out)
		goto out;
	memcpy(out + h.records, recs, t->count * sizeof(*recs));
	memcpy(out + h.refs, refs, n_refs * sizeof(*refs));
	memcpy(out + h.tms, tms, n_tms * sizeof(*tms));
	memcpy(out + h.exprs, exprs, exprs_size);
	memcpy(out + h.strings, s.buf, s.len);
	memcpy(out, &h, sizeof(h));
	compiled_file_seal(out, h.prefix.size);
	ret = fwrite(out, 1, h.prefix.size, f) == h.prefix.size ? 0 : -EIO;
out:
	free(out);
	free(s.buf);
	free(recs);
	free(refs);
	free(tms);
	free(exprs);
	return ret;
}

/* ---- reader ---- */

/* The sections where the header says, in a file of @size bytes; a message or NULL. */
static const char *
check_sections(const struct file_header *h, size_t size)
{
	if (h->records != sizeof(*h) || h->n_groups > h->n_refs ||
	    h->refs != compiled_align8(h->records + (uint64_t)h->count * sizeof(struct file_record)) ||
	    h->tms != compiled_align8(h->refs + (uint64_t)h->n_refs * sizeof(uint32_t)) ||
	    h->exprs != compiled_align8(h->tms + (uint64_t)h->n_tms * sizeof(uint32_t)) ||
	    h->strings != (uint64_t)h->exprs + h->exprs_size ||
	    compiled_align8((uint64_t)h->strings + h->strings_size) != size || h->strings_size == 0)
		return "sections out of place";
	return NULL;
}

struct reader {
	const struct file_header *h;
	const unsigned char *base;
	const char *strings;
	int ok;
};

static const char *
str(struct reader *rd, uint32_t off)
{
	return compiled_string_at(rd->strings, rd->h->strings_size, off, &rd->ok);
}

/* A non-NULL string. */
static const char *
str_set(struct reader *rd, uint32_t off)
{
	const char *s = str(rd, off);

	if (!s)
		rd->ok = 0;
	return s ? s : "";
}

static const struct metric_expr *
expr(struct reader *rd, uint32_t off, uint32_t size, unsigned n_refs)
{
	const struct metric_expr *e;

	if (off % 8 || (uint64_t)off + size > rd->h->exprs_size) {
		rd->ok = 0;
		return NULL;
	}
	e = metric_expr_check(rd->base + rd->h->exprs + off, size, n_refs);
	if (!e)
		rd->ok = 0;
	return e;
}

static void
read_metric(struct reader *rd, const struct file_record *r, struct metric_info *mi,
	    char **refs, size_t count)
{
	struct metric_desc *d = &mi->desc;
	const uint32_t *tms = (const uint32_t *)(const void *)(rd->base + rd->h->tms);

	d->name = str_set(rd, r->name);
	d->perf_name = str(rd, r->perf_name);
	mi->perf_name = (char *)d->perf_name;	/* never written nor freed: the table is mapped */
	d->groups = str_set(rd, r->groups);
	d->parent = str_set(rd, r->parent);
	d->category = str_set(rd, r->category);
	d->unit = str_set(rd, r->unit);
	d->description = str_set(rd, r->description);
	d->formula_text = str_set(rd, r->formula_text);
	d->threshold_text = str(rd, r->threshold_text);
	d->level = r->level;
	d->tree = r->tree;
	if (!rd->ok || !*d->name || r->level < 1 || r->level > 16 || r->tree > 1 ||
	    (uint64_t)r->events_first + r->n_events > rd->h->n_refs - rd->h->n_groups ||
	    (uint64_t)r->tms_first + r->n_tms > rd->h->n_tms ||
	    !d->threshold_text != !r->threshold_size) {
		rd->ok = 0;
		return;
	}
	d->n_events = r->n_events;
	mi->events = refs + r->events_first;
	d->events = (const char *const *)mi->events;
	d->formula = expr(rd, r->formula, r->formula_size, r->n_events);
	if (r->threshold_size) {
		d->n_threshold_metrics = r->n_tms;
		d->threshold_metrics = tms + r->tms_first;
		for (unsigned k = 0; k < r->n_tms; k++)
			if (tms[r->tms_first + k] >= count)
				rd->ok = 0;
		d->threshold = expr(rd, r->threshold, r->threshold_size, r->n_tms);
	}
}

int
metric_table_file_parse(const void *data, size_t size, const char *path, const char *name,
			struct metric_table **out, struct pmustat_error **err)
{
	struct file_header h;
	struct reader rd = { &h, data, NULL, 1 };
	const struct file_record *recs;
	const uint32_t *refs;
	struct metric_table *t;
	const char *what;
	char **ref_strs;
	size_t i;

	*out = NULL;
	what = compiled_file_check(data, size, sizeof(h), FILE_MAGIC, FILE_FORMAT_VERSION);
	if (!what) {
		memcpy(&h, data, sizeof(h));
		what = check_sections(&h, size);
	}
	if (what)
		return err_set(err, -EINVAL, "%s: %s: rebuild or reinstall pmustat", path, what);
	rd.strings = (const char *)data + h.strings;
	if (rd.strings[h.strings_size - 1] != '\0')
		return err_set(err, -EINVAL, "%s: strings not terminated: rebuild or reinstall pmustat",
			       path);
	t = calloc(1, sizeof(*t));
	ref_strs = calloc(h.n_refs + 1, sizeof(*ref_strs));
	if (!t || !ref_strs || arena_keep(t, ref_strs) < 0 ||
	    !(t->metrics = calloc(h.count ? h.count : 1, sizeof(*t->metrics)))) {
		if (!t || !t->n_owned)
			free(ref_strs);
		metric_table_free(t);
		return err_set(err, -ENOMEM, "%s: out of memory", path);
	}
	t->mapped = true;
	refs = (const uint32_t *)(const void *)((const unsigned char *)data + h.refs);
	for (i = 0; i < h.n_refs; i++)
		ref_strs[i] = (char *)str_set(&rd, refs[i]);
	t->name = str_set(&rd, h.name);
	t->source_file = str_set(&rd, h.source_file);
	t->source_version = str_set(&rd, h.source_version);
	t->tma_version = str_set(&rd, h.tma_version);
	if (!rd.ok || strcmp(t->name, name) != 0) {
		metric_table_free(t);
		return err_set(err, -EINVAL, "%s: not the compiled metric table '%s': rebuild or reinstall pmustat",
			       path, name);
	}
	t->count = h.count;
	recs = (const struct file_record *)(const void *)((const unsigned char *)data + h.records);
	for (i = 0; i < h.count && rd.ok; i++) {
		read_metric(&rd, &recs[i], &t->metrics[i], ref_strs, h.count);
		t->loaded = i + 1;
	}
	if (!rd.ok) {
		metric_table_free(t);
		return err_set(err, -EINVAL, "%s: metric %zu is corrupt: rebuild or reinstall pmustat",
			       path, i - 1);
	}
	t->groups = ref_strs + (h.n_refs - h.n_groups);
	t->n_groups = h.n_groups;
	*out = t;
	return 0;
}

struct parse_args {
	const char *path, *name;
	struct metric_table **out;
	struct pmustat_error **err;
};

static int
parse_mapped(const void *data, size_t size, void *ctx)
{
	struct parse_args *a = ctx;

	return metric_table_file_parse(data, size, a->path, a->name, a->out, a->err);
}

int
metric_table_file_load(const char *path, const char *name, struct metric_table **out,
		struct pmustat_error **err)
{
	struct parse_args a = { path, name, out, err };
	void *map;
	size_t size;
	int ret;

	*out = NULL;
	ret = compiled_file_load(path, parse_mapped, &a, &map, &size, err);
	if (ret == 0) {
		(*out)->map = map;
		(*out)->map_size = size;
	}
	return ret;
}
