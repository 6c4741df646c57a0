/*
 * nb_table.c - load and look up events/netburst.json (see nb_table.h).
 */
#include "pmus/netburst/nb_table.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "pmus/netburst/nb_regs.h"
#include "base/err.h"

#define NB_TABLE_FORMAT_VERSION 1
#define NB_MAX_MASKS 16

struct nb_table {
	json_t *root;			/* every string points into it */
	const char *name;
	const char *source;
	size_t count;
	struct nb_event_desc *events;	/* sorted by name, case-insensitively */
	struct nb_mask *masks;
	size_t n_aliases;
	struct nb_alias *aliases;	/* sorted too */
};

static int
desc_cmp(const void *a, const void *b)
{
	return strcasecmp(((const struct nb_event_desc *)a)->name,
			  ((const struct nb_event_desc *)b)->name);
}

static int
desc_key(const void *key, const void *elem)
{
	return strcasecmp(key, ((const struct nb_event_desc *)elem)->name);
}

static int
alias_cmp(const void *a, const void *b)
{
	return strcasecmp(((const struct nb_alias *)a)->name, ((const struct nb_alias *)b)->name);
}

static int
alias_key(const void *key, const void *elem)
{
	return strcasecmp(key, ((const struct nb_alias *)elem)->name);
}

static const char *
str(json_t *obj, const char *key)
{
	return json_string_value(json_object_get(obj, key));
}

/* Letters, digits and '_' only: ':' '=' ',' would clash with the -e grammar. */
static bool
good_name(const char *s)
{
	if (!s || !*s)
		return false;
	return strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") == strlen(s);
}

/* A flag: absent, or the integer 1. */
static bool
flag(json_t *obj, const char *key, bool *out)
{
	json_t *v = json_object_get(obj, key);

	*out = v != NULL;
	return !v || (json_is_integer(v) && json_integer_value(v) == 1);
}

static const char *
parse_escrs(json_t *ev, struct nb_event_desc *d)
{
	json_t *list = json_object_get(ev, "escr"), *e;
	size_t i;

	if (!json_is_array(list) || json_array_size(list) == 0)
		return "\"escr\" is not a non-empty array of ESCR names";
	json_array_foreach(list, i, e) {
		int idx = json_is_string(e) ? nb_escr_find(json_string_value(e)) : -1;

		if (idx < 0)
			return "\"escr\" names an ESCR the NetBurst PMU does not have";
		if (d->escrs & (1ull << idx))
			return "\"escr\" names an ESCR twice";
		/* The table's CCCR select must be the one that names this ESCR. */
		if (nb_escr_get((unsigned)idx)->select != d->cccr_select)
			return "\"cs\" is not the CCCR ESCR-select value of every ESCR in \"escr\"";
		d->escrs |= 1ull << idx;
	}
	return NULL;
}

static const char *
parse_masks(json_t *ev, struct nb_event_desc *d, struct nb_mask *masks)
{
	json_t *list = json_object_get(ev, "m"), *m, *dm;
	uint32_t seen = 0;
	size_t i;

	if (!json_is_array(list) || json_array_size(list) > NB_MAX_MASKS)
		return "\"m\" is not an array of at most 16 mask bits";
	json_array_foreach(list, i, m) {
		json_t *bit = json_object_get(m, "b");

		masks[i].name = str(m, "n");
		masks[i].description = str(m, "d");
		if (!good_name(masks[i].name) || !masks[i].description)
			return "a mask bit without a name of [A-Za-z0-9_] or a description";
		if (!json_is_integer(bit) || json_integer_value(bit) < 0 || json_integer_value(bit) > 15)
			return "a mask bit number is not 0-15 (ESCR[24:9])";
		masks[i].bit = (unsigned)json_integer_value(bit);
		if (seen & (1u << masks[i].bit))
			return "two masks name the same bit";
		seen |= 1u << masks[i].bit;
		for (size_t j = 0; j < i; j++)
			if (strcasecmp(masks[j].name, masks[i].name) == 0)
				return "two masks have the same name";
	}
	d->n_masks = (unsigned)json_array_size(list);
	d->masks = masks;

	dm = json_object_get(ev, "dm");
	if (!json_is_array(dm))
		return "\"dm\" (the default masks, possibly []) is missing";
	json_array_foreach(dm, i, m) {
		const struct nb_mask *mask = json_is_string(m) ?
			nb_event_mask(d, json_string_value(m)) : NULL;

		if (!mask)
			return "\"dm\" names a mask the event does not have";
		d->default_mask |= (uint16_t)(1u << mask->bit);
	}
	return NULL;
}

static const char *
parse_event(json_t *ev, struct nb_event_desc *d, struct nb_mask *masks)
{
	json_t *models = json_object_get(ev, "models"), *m;
	const char *es = str(ev, "es"), *what;
	json_int_t cs;
	unsigned long sel;
	char *end;
	size_t i;

	d->name = str(ev, "n");
	d->description = str(ev, "d");
	d->note = str(ev, "note");
	if (!good_name(d->name))
		return "event name missing or not of [A-Za-z0-9_]";
	if (!d->description)
		return "no description";
	if (!es || strncmp(es, "0x", 2) != 0)
		return "\"es\" (ESCR event select) is not a hex string";
	errno = 0;
	sel = strtoul(es + 2, &end, 16);
	if (errno || end == es + 2 || *end || sel > 0x3f)
		return "\"es\" is not an ESCR[30:25] value (0x00-0x3f)";
	d->event_select = (uint8_t)sel;
	if (!json_is_integer(json_object_get(ev, "cs")))
		return "\"cs\" (CCCR ESCR select) is missing";
	cs = json_integer_value(json_object_get(ev, "cs"));
	if (cs < 0 || cs > 7)
		return "\"cs\" is not a CCCR[15:13] value (0-7)";
	d->cccr_select = (uint8_t)cs;
	what = parse_escrs(ev, d);
	if (!what)
		what = parse_masks(ev, d, masks);
	if (what)
		return what;
	if (!flag(ev, "ar", &d->at_retirement) || !flag(ev, "tag", &d->needs_tagging) ||
	    !flag(ev, "ti", &d->thread_independent))
		return "a flag (\"ar\", \"tag\") is not 1";
	if (models) {
		if (!json_is_array(models) || json_array_size(models) == 0)
			return "\"models\" is not a non-empty array";
		json_array_foreach(models, i, m) {
			if (!json_is_integer(m) || json_integer_value(m) < 0 || json_integer_value(m) > 15)
				return "\"models\" holds something other than a model 0-15";
			d->models |= (uint16_t)(1u << json_integer_value(m));
		}
	}
	return NULL;
}

static const char *
parse_alias(const struct nb_table *t, json_t *a, struct nb_alias *out)
{
	char buf[256], *save = NULL, *tok;

	out->name = str(a, "n");
	out->description = str(a, "d");
	out->target = str(a, "a");
	if (!out->name || !*out->name || strpbrk(out->name, ":,= ") || !out->description || !out->target)
		return "alias without a name (no ':', ',', '=' or space), \"a\" or \"d\"";
	if (nb_table_find(t, out->name))
		return "alias with the name of an event";
	if ((size_t)snprintf(buf, sizeof(buf), "%s", out->target) >= sizeof(buf))
		return "alias target too long";
	tok = strtok_r(buf, ":", &save);
	out->event = tok ? nb_table_find(t, tok) : NULL;
	if (!out->event)
		return "alias of an event the table does not have";
	while ((tok = strtok_r(NULL, ":", &save))) {
		const struct nb_mask *m = nb_event_mask(out->event, tok);

		if (!m)
			return "alias target names a mask its event does not have";
		out->mask |= (uint16_t)(1u << m->bit);
	}
	if (!out->mask)
		return "alias target names no mask bit";
	return NULL;
}

static int
load_aliases(struct nb_table *t, const char *path, struct pmustat_error **err)
{
	json_t *list = json_object_get(t->root, "aliases"), *a;
	size_t i;

	if (!json_is_array(list)) {
		return err_set(err, -EINVAL, "%s: \"aliases\" is missing", path);
	}
	t->n_aliases = json_array_size(list);
	t->aliases = calloc(t->n_aliases ? t->n_aliases : 1, sizeof(*t->aliases));
	if (!t->aliases) {
		return err_set(err, -ENOMEM, "%s: out of memory", path);
	}
	json_array_foreach(list, i, a) {
		const char *what = json_is_object(a) ? parse_alias(t, a, &t->aliases[i]) :
			"alias is not an object";

		if (what) {
			return err_set(err, -EINVAL, "%s: alias %zu (%s): %s", path, i,
				 t->aliases[i].name ? t->aliases[i].name : "?", what);
		}
	}
	qsort(t->aliases, t->n_aliases, sizeof(*t->aliases), alias_cmp);
	for (i = 1; i < t->n_aliases; i++) {
		if (strcasecmp(t->aliases[i - 1].name, t->aliases[i].name) == 0) {
			return err_set(err, -EINVAL, "%s: alias %s appears twice", path, t->aliases[i].name);
		}
	}
	return 0;
}

static int
load_events(struct nb_table *t, const char *path, struct pmustat_error **err)
{
	json_t *events = json_object_get(t->root, "events"), *ev;
	size_t i;

	if (!json_is_array(events) || json_array_size(events) == 0) {
		return err_set(err, -EINVAL, "%s: \"events\" is not a non-empty array", path);
	}
	t->count = json_array_size(events);
	t->events = calloc(t->count, sizeof(*t->events));
	t->masks = calloc(t->count * NB_MAX_MASKS, sizeof(*t->masks));
	if (!t->events || !t->masks) {
		return err_set(err, -ENOMEM, "%s: out of memory", path);
	}
	json_array_foreach(events, i, ev) {
		const char *what = json_is_object(ev) ?
			parse_event(ev, &t->events[i], t->masks + i * NB_MAX_MASKS) :
			"event is not an object";

		if (what) {
			return err_set(err, -EINVAL, "%s: event %zu (%s): %s", path, i,
				 t->events[i].name ? t->events[i].name : "?", what);
		}
	}
	qsort(t->events, t->count, sizeof(*t->events), desc_cmp);
	for (i = 1; i < t->count; i++) {
		if (strcasecmp(t->events[i - 1].name, t->events[i].name) == 0) {
			return err_set(err, -EINVAL, "%s: event %s appears twice", path, t->events[i].name);
		}
	}
	return 0;
}

int
nb_table_load(const char *events_dir, const char *name, struct nb_table **out,
	      struct pmustat_error **err)
{
	char path[PATH_MAX];
	json_error_t jerr;
	struct nb_table *t;
	int ret;

	*out = NULL;
	if (!*name || strchr(name, '/') || name[0] == '.') {
		return err_set(err, -EINVAL, "'%s' is not a table name", name);
	}
	if ((size_t)snprintf(path, sizeof(path), "%s/%s.json", events_dir, name) >= sizeof(path)) {
		return err_set(err, -ENAMETOOLONG, "%.200s/%.200s.json: path too long", events_dir, name);
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		return err_set(err, -ENOMEM, "%s: out of memory", path);
	}
	t->root = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
	if (!t->root) {
		if (json_error_code(&jerr) == json_error_cannot_open_file) {
			ret = err_set(err, -ENOENT, "%s: cannot open: no event table '%s'", path, name);
		} else {
			ret = err_set(err, -EINVAL, "%s:%d: %s", path, jerr.line, jerr.text);
		}
		goto fail;
	}
	if (!json_is_string(json_object_get(t->root, "pmu")) ||
	    strcmp(str(t->root, "pmu"), "netburst") != 0) {
		ret = err_set(err, -EINVAL, "%s: not a NetBurst table (\"pmu\" is not \"netburst\")", path);
		goto fail;
	}
	if (json_integer_value(json_object_get(t->root, "format_version")) != NB_TABLE_FORMAT_VERSION) {
		ret = err_set(err, -EINVAL, "%s: format_version is not %d (see events/README.md)", path,
			 NB_TABLE_FORMAT_VERSION);
		goto fail;
	}
	t->name = str(t->root, "table");
	t->source = str(json_object_get(t->root, "source"), "title");
	if (!t->name || strcmp(t->name, name) != 0 || !t->source) {
		ret = err_set(err, -EINVAL, "%s: \"table\" is not '%s', or \"source\" has no \"title\"", path, name);
		goto fail;
	}
	ret = load_events(t, path, err);
	if (!ret)
		ret = load_aliases(t, path, err);
	if (ret)
		goto fail;
	*out = t;
	return 0;
fail:
	nb_table_free(t);
	return ret;
}

void
nb_table_free(struct nb_table *t)
{
	if (!t)
		return;
	json_decref(t->root);
	free(t->events);
	free(t->masks);
	free(t->aliases);
	free(t);
}

const char *
nb_table_name(const struct nb_table *t)
{
	return t->name;
}

const char *
nb_table_source(const struct nb_table *t)
{
	return t->source;
}

const struct nb_event_desc *
nb_table_find(const struct nb_table *t, const char *name)
{
	if (!t->events)	/* no events loaded yet (an empty table has no array) */
		return NULL;
	return bsearch(name, t->events, t->count, sizeof(*t->events), desc_key);
}

size_t
nb_table_count(const struct nb_table *t)
{
	return t->count;
}

const struct nb_event_desc *
nb_table_get(const struct nb_table *t, size_t i)
{
	return i < t->count ? &t->events[i] : NULL;
}

const struct nb_alias *
nb_table_find_alias(const struct nb_table *t, const char *name)
{
	if (!t->aliases)
		return NULL;
	return bsearch(name, t->aliases, t->n_aliases, sizeof(*t->aliases), alias_key);
}

size_t
nb_table_alias_count(const struct nb_table *t)
{
	return t->n_aliases;
}

const struct nb_alias *
nb_table_alias(const struct nb_table *t, size_t i)
{
	return i < t->n_aliases ? &t->aliases[i] : NULL;
}

const struct nb_mask *
nb_event_mask(const struct nb_event_desc *ev, const char *name)
{
	for (unsigned i = 0; i < ev->n_masks; i++)
		if (ev->masks[i].name && strcasecmp(ev->masks[i].name, name) == 0)
			return &ev->masks[i];
	return NULL;
}

bool
nb_event_on_model(const struct nb_event_desc *ev, unsigned model)
{
	return ev->models == 0 || (model < 16 && (ev->models & (1u << model)));
}

const char *
nb_mask_names(const struct nb_event_desc *ev, uint16_t mask, char sep, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (unsigned bit = 0; bit < 16 && len < size; bit++) {
		const char *name = NULL;

		if (!(mask & (1u << bit)))
			continue;
		for (unsigned i = 0; ev && i < ev->n_masks; i++)
			if (ev->masks[i].bit == bit)
				name = ev->masks[i].name;
		if (len)
			len += (size_t)snprintf(buf + len, size - len, "%c", sep);
		if (len >= size)
			break;
		if (name)
			len += (size_t)snprintf(buf + len, size - len, "%s", name);
		else
			len += (size_t)snprintf(buf + len, size - len, "bit%u", bit);
	}
	return buf;
}
