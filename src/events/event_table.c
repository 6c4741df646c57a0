#include "config.h"
#include "events/event_table.h"
#include "base/err.h"
#include "events/compiled_file.h"
#include "events/event_table_file.h"
#include "events/event_table_impl.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>

#define EVENT_TABLE_FORMAT_VERSION 1
/* Upstream's longest is 20 (alderlake_goldencove); mapfile.c allows 127. */
#define EVENT_TABLE_NAME_MAX 127

static int
desc_cmp(const void *a, const void *b)
{
	const struct event_desc *da = a, *db = b;

	return strcasecmp(da->name, db->name);
}

static int
key_cmp(const void *key, const void *elem)
{
	const struct event_desc *d = elem;

	return strcasecmp(key, d->name);
}

/* An optional integer member in [0, max]; absent means 0. */
static bool
get_uint(json_t *obj, const char *key, json_int_t max, json_int_t *out)
{
	json_t *v = json_object_get(obj, key);

	*out = 0;
	if (!v)
		return true;
	if (!json_is_integer(v))
		return false;
	*out = json_integer_value(v);
	return *out >= 0 && *out <= max;
}

static const char *
get_string(json_t *obj, const char *key)
{
	return json_string_value(json_object_get(obj, key));
}

/* Variants in a string: "code/umask/msr=0xvalue;..." (hex). */
static unsigned
count_extras(const char *x)
{
	unsigned n = 1;

	for (; *x; x++)
		n += *x == ';';
	return n;
}

static int
parse_extras(const char *x, struct event_extra *out, unsigned *count, const char **what)
{
	unsigned n = 0;

	for (;;) {
		unsigned long code, umask, msr;
		unsigned long long value;
		char *end;

		errno = 0;
		code = strtoul(x, &end, 16);
		if (errno || end == x || *end != '/' || code > 0xff)
			goto bad;
		x = end + 1;
		umask = strtoul(x, &end, 16);
		if (errno || end == x || *end != '/' || umask > 0xff)
			goto bad;
		x = end + 1;
		msr = strtoul(x, &end, 16);
		if (errno || end == x || *end != '=' || msr == 0 || msr > UINT32_MAX)
			goto bad;
		x = end + 1;
		if (strncmp(x, "0x", 2) != 0)
			goto bad;
		value = strtoull(x, &end, 16);
		if (errno || end == x + 2 || (*end != ';' && *end != '\0'))
			goto bad;
		out[n].code = (uint8_t)code;
		out[n].umask = (uint8_t)umask;
		out[n].msr = (uint32_t)msr;
		out[n].value = value;
		n++;
		if (!*end)
			break;
		x = end + 1;
	}
	*count = n;
	return 0;
bad:
	*what = "\"x\" is not \"code/umask/msr=0xvalue;...\"";
	return -EINVAL;
}

static int
parse_event(json_t *ev, struct event_desc *d, struct event_extra *extras,
	    const char **what)
{
	json_int_t code, umask, ux, cm, c, ch, f, flag;
	json_t *x;

	d->name = get_string(ev, "n");
	d->description = get_string(ev, "d");
	d->alias_of = get_string(ev, "a");
	d->errata = get_string(ev, "err");
	if (!d->name || !*d->name) {
		*what = "event without a name";
		return -EINVAL;
	}
	if (!d->description)
		d->description = "";
	d->fixed = -1;
	if (!get_uint(ev, "dep", 1, &flag)) {
		*what = "bad \"dep\"";
		return -EINVAL;
	}
	d->flags |= flag ? EVENT_DESC_DEPRECATED : 0;
	if (d->alias_of) {
		/* The encoding comes from the target, resolved after sorting. */
		if (!flag) {
			*what = "alias that is not deprecated";
			return -EINVAL;
		}
		return 0;
	}

	if (!get_uint(ev, "e", 0xff, &code) || !get_uint(ev, "u", 0xff, &umask) ||
	    !get_uint(ev, "ux", 0xff, &ux) || !get_uint(ev, "cm", 0xff, &cm)) {
		*what = "event code, umask, UMaskExt or cmask out of range";
		return -EINVAL;
	}
	if (!json_object_get(ev, "e") || !json_object_get(ev, "u")) {
		*what = "event without \"e\" or \"u\"";
		return -EINVAL;
	}
	d->code = (uint8_t)code;
	d->umask = (uint8_t)umask;
	d->umask_ext = (uint8_t)ux;
	d->cmask = (uint8_t)cm;
	if (!get_uint(ev, "inv", 1, &flag))
		goto bad_flag;
	d->inv = flag;
	if (!get_uint(ev, "edge", 1, &flag))
		goto bad_flag;
	d->edge = flag;
	if (!get_uint(ev, "any", 1, &flag))
		goto bad_flag;
	d->any_thread = flag;
	if (!get_uint(ev, "eq", 1, &flag))
		goto bad_flag;
	d->equal = flag;
	if (!get_uint(ev, "p", 1, &flag))
		goto bad_flag;
	d->flags |= flag ? EVENT_DESC_PEBS_ONLY : 0;
	if (!get_uint(ev, "ta", 1, &flag))
		goto bad_flag;
	d->flags |= flag ? EVENT_DESC_TAKEN_ALONE : 0;
	if (!get_uint(ev, "o", 1, &flag))
		goto bad_flag;
	d->flags |= flag ? EVENT_DESC_NO_MSR_VALUE : 0;

	if (json_object_get(ev, "f")) {
		if (!get_uint(ev, "f", 31, &f) || json_object_get(ev, "c")) {
			*what = "bad fixed counter";
			return -EINVAL;
		}
		d->fixed = (int)f;
	} else {
		if (!get_uint(ev, "c", UINT32_MAX, &c) || c == 0 ||
		    !get_uint(ev, "ch", UINT32_MAX, &ch)) {
			*what = "bad counter mask";
			return -EINVAL;
		}
		d->counters = (uint32_t)c;
		d->counters_htoff = ch ? (uint32_t)ch : (uint32_t)c;
	}

	x = json_object_get(ev, "x");
	if (x) {
		int ret;

		if (!json_is_string(x)) {
			*what = "\"x\" is not a string";
			return -EINVAL;
		}
		ret = parse_extras(json_string_value(x), extras, &d->n_extra, what);
		if (ret)
			return ret;
		d->extra = extras;
		if (extras[0].code != d->code || extras[0].umask != d->umask) {
			*what = "\"x\"[0] does not match the event's code and umask";
			return -EINVAL;
		}
	}
	return 0;

bad_flag:
	*what = "a flag is not 0 or 1";
	return -EINVAL;
}

static int
resolve_aliases(struct event_table *t, const char **what, const char **who)
{
	size_t i;

	for (i = 0; i < t->count; i++) {
		struct event_desc *d = &t->descs[i];
		const struct event_desc *target;
		struct event_desc copy;

		if (!d->alias_of)
			continue;
		target = event_table_find(t, d->alias_of);
		if (!target || target->alias_of) {
			*who = d->name;
			*what = "alias of a missing event or of another alias";
			return -EINVAL;
		}
		copy = *target;
		copy.name = d->name;
		copy.description = d->description;
		copy.alias_of = target->name;
		copy.flags |= EVENT_DESC_DEPRECATED;
		*d = copy;
	}
	return 0;
}

static int
check_table_name(const char *name, struct pmustat_error **err)
{
	if (!*name || strchr(name, '/') || name[0] == '.') {
		return err_set(err, -EINVAL, "'%s' is not a table name", name);
	}
	/* Refused before it becomes a path (and a message cut short). */
	if (strlen(name) > EVENT_TABLE_NAME_MAX) {
		return err_set(err, -EINVAL, "'%.40s...' is not a table name: too long (%zu characters, at most %d)",
			 name, strlen(name), EVENT_TABLE_NAME_MAX);
	}
	return 0;
}

int
event_table_load(const char *events_dir, const char *name,
		 struct event_table **out, struct pmustat_error **err)
{
	char path[PATH_MAX];
	int ret;

	*out = NULL;
	ret = check_table_name(name, err);
	if (ret)
		return ret;
	if (compiled_file_path(events_dir, name, EVENT_TABLE_FILE_SUFFIX, path, sizeof(path))) {
		ret = event_table_file_load(path, name, out, err);
		if (ret != -ENOENT)
			return ret;
	}
	return event_table_load_json(events_dir, name, out, err);
}

int
event_table_load_json(const char *events_dir, const char *name,
		      struct event_table **out, struct pmustat_error **err)
{
	char path[PATH_MAX];
	json_error_t jerr;
	json_t *events, *ev;
	struct event_table *t = NULL;
	size_t i, n_extra = 0, used_extra = 0;
	const char *what = NULL, *who = NULL;
	int ret;

	*out = NULL;
	ret = check_table_name(name, err);
	if (ret)
		return ret;
	if ((size_t)snprintf(path, sizeof(path), "%s/%s.json", events_dir, name) >=
	    sizeof(path)) {
		return err_set(err, -ENAMETOOLONG, "%s/%s.json: path too long", events_dir, name);
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		goto nomem;
	t->root = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
	if (!t->root) {
		if (json_error_code(&jerr) == json_error_cannot_open_file) {
			ret = err_set(err, -ENOENT, "%s: cannot open: no event table '%s'",
				 path, name);
		} else {
			ret = err_set(err, -EINVAL, "%s:%d: %s", path, jerr.line, jerr.text);
		}
		goto fail;
	}
	/* A table of another PMU family (its "pmu" key): that family's own loader reads it. */
	if (json_object_get(t->root, "pmu")) {
		ret = err_set(err, -EMEDIUMTYPE, "%s: a table for the %s PMU, not the architectural one",
			 path, json_string_value(json_object_get(t->root, "pmu")) ?
			 json_string_value(json_object_get(t->root, "pmu")) : "?");
		goto fail;
	}
	if (json_integer_value(json_object_get(t->root, "format_version")) !=
	    EVENT_TABLE_FORMAT_VERSION) {
		ret = err_set(err, -EINVAL, "%s: format_version is not %d: regenerate with scripts/perfmon2events",
			 path, EVENT_TABLE_FORMAT_VERSION);
		goto fail;
	}
	t->name = get_string(t->root, "table");
	t->source_file = get_string(json_object_get(t->root, "source"), "file");
	t->source_version = get_string(json_object_get(t->root, "source"), "version");
	events = json_object_get(t->root, "events");
	if (!t->name || strcmp(t->name, name) != 0 || !json_is_array(events)) {
		ret = err_set(err, -EINVAL, "%s: \"table\" is not '%s' or \"events\" is missing",
			 path, name);
		goto fail;
	}
	if (!t->source_file)
		t->source_file = "";
	if (!t->source_version)
		t->source_version = "";

	t->count = json_array_size(events);
	json_array_foreach(events, i, ev) {
		const char *x = json_string_value(json_object_get(ev, "x"));

		n_extra += x ? count_extras(x) : 0;
	}
	t->descs = calloc(t->count ? t->count : 1, sizeof(*t->descs));
	t->extras = calloc(n_extra ? n_extra : 1, sizeof(*t->extras));
	if (!t->descs || !t->extras)
		goto nomem;
	json_array_foreach(events, i, ev) {
		if (!json_is_object(ev)) {
			ret = err_set(err, -EINVAL, "%s: event %zu is not an object", path, i);
			goto fail;
		}
		ret = parse_event(ev, &t->descs[i], t->extras + used_extra, &what);
		if (ret) {
			err_set(err, ret, "%s: event %zu (%s): %s", path, i,
				 t->descs[i].name ? t->descs[i].name : "?", what);
			goto fail;
		}
		used_extra += t->descs[i].n_extra;
	}

	/* The converter sorts already; sorting again keeps lookups honest. */
	qsort(t->descs, t->count, sizeof(*t->descs), desc_cmp);
	for (i = 1; i < t->count; i++) {
		if (strcasecmp(t->descs[i - 1].name, t->descs[i].name) == 0) {
			ret = err_set(err, -EINVAL, "%s: event %s appears twice", path,
				 t->descs[i].name);
			goto fail;
		}
	}
	ret = resolve_aliases(t, &what, &who);
	if (ret) {
		err_set(err, ret, "%s: event %s: %s", path, who, what);
		goto fail;
	}
	*out = t;
	return 0;

nomem:
	err_set(err, -ENOMEM, "%s/%s.json: out of memory", events_dir, name);
	ret = -ENOMEM;
fail:
	event_table_free(t);
	return ret;
}

void
event_table_free(struct event_table *table)
{
	if (!table)
		return;
	json_decref(table->root);
	if (table->map)
		munmap(table->map, table->map_size);
	free(table->descs);
	free(table->extras);
	free(table);
}

const char *
event_table_name(const struct event_table *table)
{
	return table->name;
}

const char *
event_table_source_file(const struct event_table *table)
{
	return table->source_file;
}

const char *
event_table_source_version(const struct event_table *table)
{
	return table->source_version;
}

const struct event_desc *
event_table_find(const struct event_table *table, const char *name)
{
	return bsearch(name, table->descs, table->count, sizeof(*table->descs),
		       key_cmp);
}

size_t
event_table_count(const struct event_table *table)
{
	return table->count;
}

const struct event_desc *
event_table_get(const struct event_table *table, size_t i)
{
	return i < table->count ? &table->descs[i] : NULL;
}
