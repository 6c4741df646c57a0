/*
 * event_table_file.c - see event_table_file.h. The format lives here
 * alone: its writer (run by the build) and its reader.
 *
 *	header		struct file_header
 *	records		count x struct file_record, in the table's name order
 *	extras		n_extra x struct event_extra, as the run uses them
 *	strings		NUL-terminated, offsets from the strings' start
 *
 * Sections start on 8-byte boundaries; the file is padded to one.
 */
#include "config.h"
#include "events/event_table_file.h"

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/err.h"
#include "events/compiled_file.h"
#include "events/event_table_impl.h"

static const char FILE_MAGIC[8] = "PMUSTEVT";
/* Raise on any change to the layout below or to what a field means. */
#define FILE_FORMAT_VERSION 1u
#define FIXED_NONE 0xffu

struct file_header {
	struct compiled_prefix prefix;	/* magic, version, size, checksum */
	uint32_t count, n_extra, strings_size;
	uint32_t name, source_file, source_version;	/* string offsets */
	uint32_t records, extras, strings;		/* section offsets */
	uint32_t reserved;
};

enum record_bit {
	REC_INV = 1u << 0,
	REC_EDGE = 1u << 1,
	REC_ANY = 1u << 2,
	REC_EQUAL = 1u << 3,
};

struct file_record {
	uint32_t name, description, alias_of, errata;	/* string offsets or COMPILED_NO_STRING */
	uint32_t counters, counters_htoff;
	uint32_t extra_first;
	uint16_t n_extra;
	uint8_t code, umask, umask_ext, cmask;
	uint8_t bits;		/* enum record_bit */
	uint8_t fixed;		/* FIXED_NONE, or the fixed counter */
	uint8_t flags;		/* enum event_desc_flag */
	uint8_t reserved[3];
};

_Static_assert(sizeof(struct file_header) == 72, "header layout");
_Static_assert(sizeof(struct file_record) == 40, "record layout");
/* The extras are mapped as the run reads them. */
_Static_assert(sizeof(struct event_extra) == 16 && offsetof(struct event_extra, msr) == 4 &&
	       offsetof(struct event_extra, value) == 8, "event_extra layout");

/* ---- writer ---- */

int
event_table_file_write(const struct event_table *t, FILE *f)
{
	struct file_header h = { .records = 0 };
	struct compiled_strings s = { NULL, 0, 0 };
	struct file_record *recs = calloc(t->count ? t->count : 1, sizeof(*recs));
	struct event_extra *extras;
	size_t n_extra = 0, i;
	unsigned char *out = NULL;
	int ret = -ENOMEM;

	for (i = 0; i < t->count; i++)
		n_extra += t->descs[i].alias_of ? 0 : t->descs[i].n_extra;
	extras = calloc(n_extra ? n_extra : 1, sizeof(*extras));
	if (!recs || !extras)
		goto out;
	h.name = compiled_string_add(&s, t->name);
	h.source_file = compiled_string_add(&s, t->source_file);
	h.source_version = compiled_string_add(&s, t->source_version);
	n_extra = 0;
	for (i = 0; i < t->count; i++) {
		const struct event_desc *d = &t->descs[i];
		struct file_record *r = &recs[i];

		r->name = compiled_string_add(&s, d->name);
		r->description = compiled_string_add(&s, d->description);
		r->alias_of = compiled_string_add(&s, d->alias_of);
		r->errata = compiled_string_add(&s, d->errata);
		r->code = d->code;
		r->umask = d->umask;
		r->umask_ext = d->umask_ext;
		r->cmask = d->cmask;
		r->bits = (d->inv ? REC_INV : 0) | (d->edge ? REC_EDGE : 0) |
			  (d->any_thread ? REC_ANY : 0) | (d->equal ? REC_EQUAL : 0);
		r->fixed = d->fixed < 0 ? FIXED_NONE : (uint8_t)d->fixed;
		r->counters = d->counters;
		r->counters_htoff = d->counters_htoff;
		r->flags = (uint8_t)d->flags;
		r->n_extra = (uint16_t)d->n_extra;
		/* An alias shares its target's variants: written once. */
		if (d->n_extra && !d->alias_of) {
			r->extra_first = (uint32_t)n_extra;
			memcpy(extras + n_extra, d->extra, d->n_extra * sizeof(*extras));
			n_extra += d->n_extra;
		}
	}
	for (i = 0; i < t->count; i++) {
		const struct event_desc *target;

		if (!t->descs[i].alias_of || !t->descs[i].n_extra)
			continue;
		target = event_table_find(t, t->descs[i].alias_of);
		recs[i].extra_first = recs[target - t->descs].extra_first;
	}
	if (s.len >= COMPILED_NO_STRING - 1)
		goto out;
	h.count = (uint32_t)t->count;
	h.n_extra = (uint32_t)n_extra;
	h.strings_size = (uint32_t)s.len;
	h.records = sizeof(h);
	h.extras = (uint32_t)compiled_align8(h.records + t->count * sizeof(*recs));
	h.strings = (uint32_t)compiled_align8(h.extras + n_extra * sizeof(*extras));
	h.prefix = compiled_prefix(FILE_MAGIC, FILE_FORMAT_VERSION, compiled_align8(h.strings + s.len));
	out = calloc(1, h.prefix.size);
	if (!out)
		goto out;
	memcpy(out + h.records, recs, t->count * sizeof(*recs));
	memcpy(out + h.extras, extras, n_extra * sizeof(*extras));
	memcpy(out + h.strings, s.buf, s.len);
	memcpy(out, &h, sizeof(h));
	compiled_file_seal(out, h.prefix.size);
	ret = fwrite(out, 1, h.prefix.size, f) == h.prefix.size ? 0 : -EIO;
out:
	free(out);
	free(s.buf);
	free(recs);
	free(extras);
	return ret;
}

/* ---- reader ---- */

/* The sections where the header says, in a file of @size bytes; a message or NULL. */
static const char *
check_sections(const struct file_header *h, size_t size)
{
	if (h->records != sizeof(*h) ||
	    h->extras != compiled_align8(h->records + (uint64_t)h->count * sizeof(struct file_record)) ||
	    h->strings != compiled_align8(h->extras + (uint64_t)h->n_extra * sizeof(struct event_extra)) ||
	    compiled_align8((uint64_t)h->strings + h->strings_size) != size || h->strings_size == 0)
		return "sections out of place";
	return NULL;
}

int
event_table_file_parse(const void *data, size_t size, const char *path, const char *name,
		       struct event_table **out, struct pmustat_error **err)
{
	struct file_header h;
	const unsigned char *base = data;
	const struct file_record *recs;
	const char *strings, *what;
	struct event_table *t;
	int ok = 1;
	size_t i;

	*out = NULL;
	what = compiled_file_check(data, size, sizeof(h), FILE_MAGIC, FILE_FORMAT_VERSION);
	if (!what) {
		memcpy(&h, data, sizeof(h));
		what = check_sections(&h, size);
	}
	if (what)
		return err_set(err, -EINVAL, "%s: %s: rebuild or reinstall pmustat", path, what);
	strings = (const char *)base + h.strings;
	if (strings[h.strings_size - 1] != '\0')
		return err_set(err, -EINVAL, "%s: strings not terminated: rebuild or reinstall pmustat",
			       path);
	t = calloc(1, sizeof(*t));
	if (!t || !(t->descs = calloc(h.count ? h.count : 1, sizeof(*t->descs)))) {
		free(t);
		return err_set(err, -ENOMEM, "%s: out of memory", path);
	}
	t->name = compiled_string_at(strings, h.strings_size, h.name, &ok);
	t->source_file = compiled_string_at(strings, h.strings_size, h.source_file, &ok);
	t->source_version = compiled_string_at(strings, h.strings_size, h.source_version, &ok);
	if (!ok || !t->name || !t->source_file || !t->source_version || strcmp(t->name, name) != 0) {
		event_table_free(t);
		return err_set(err, -EINVAL, "%s: not the compiled table '%s': rebuild or reinstall pmustat",
			       path, name);
	}
	t->count = h.count;
	recs = (const struct file_record *)(const void *)(base + h.records);
	for (i = 0; i < h.count && ok; i++) {
		const struct file_record *r = &recs[i];
		struct event_desc *d = &t->descs[i];

		d->name = compiled_string_at(strings, h.strings_size, r->name, &ok);
		d->description = compiled_string_at(strings, h.strings_size, r->description, &ok);
		d->alias_of = compiled_string_at(strings, h.strings_size, r->alias_of, &ok);
		d->errata = compiled_string_at(strings, h.strings_size, r->errata, &ok);
		d->code = r->code;
		d->umask = r->umask;
		d->umask_ext = r->umask_ext;
		d->cmask = r->cmask;
		d->inv = r->bits & REC_INV;
		d->edge = r->bits & REC_EDGE;
		d->any_thread = r->bits & REC_ANY;
		d->equal = r->bits & REC_EQUAL;
		d->fixed = r->fixed == FIXED_NONE ? -1 : (int)r->fixed;
		d->counters = r->counters;
		d->counters_htoff = r->counters_htoff;
		d->flags = r->flags;
		d->n_extra = r->n_extra;
		ok = ok && d->name && *d->name && d->description && (d->fixed < 32) &&
		     (uint64_t)r->extra_first + r->n_extra <= h.n_extra &&
		     (i == 0 || strcasecmp(t->descs[i - 1].name, d->name) < 0);
		d->extra = r->n_extra ? (const struct event_extra *)(const void *)(base + h.extras) + r->extra_first : NULL;
	}
	if (!ok) {
		event_table_free(t);
		return err_set(err, -EINVAL, "%s: event %zu is corrupt: rebuild or reinstall pmustat",
			       path, i - 1);
	}
	*out = t;
	return 0;
}

struct parse_args {
	const char *path, *name;
	struct event_table **out;
	struct pmustat_error **err;
};

static int
parse_mapped(const void *data, size_t size, void *ctx)
{
	struct parse_args *a = ctx;

	return event_table_file_parse(data, size, a->path, a->name, a->out, a->err);
}

int
event_table_file_load(const char *path, const char *name, struct event_table **out,
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
