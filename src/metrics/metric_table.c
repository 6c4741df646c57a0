#include "config.h"
#include "metrics/metric_table.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <sys/mman.h>

#include <jansson.h>

#include "metrics/metric_expr.h"
#include "metrics/metric_table_file.h"
#include "metrics/metric_table_impl.h"
#include "events/compiled_file.h"
#include "base/err.h"

#define METRIC_TABLE_FORMAT_VERSION 1
#define METRIC_TABLE_NAME_MAX 127
/* Aliases of one metric: Intel's largest has 99 events. */
#define MAX_ALIASES 256

static const char *
get_string(json_t *obj, const char *key)
{
	return json_string_value(json_object_get(obj, key));
}

/* "a=NAME;b=NAME" split in place: aliases[i], names[i]; NULL on a bad list. */
static const char *
split_pairs(char *s, char **aliases, char **names, unsigned max, unsigned *n)
{
	*n = 0;
	if (!*s)
		return NULL;
	for (;;) {
		char *semi = strchr(s, ';'), *eq;

		if (semi)
			*semi = '\0';
		eq = strchr(s, '=');
		if (!eq || eq == s || !eq[1])
			return "is not \"alias=NAME;...\"";
		if (*n == max)
			return "has too many entries";
		*eq = '\0';
		aliases[*n] = s;
		names[(*n)++] = eq + 1;
		if (!semi)
			return NULL;
		s = semi + 1;
	}
}

/* What the names of one formula stand for. */
struct scope {
	char *aliases[MAX_ALIASES];
	char *names[MAX_ALIASES];
	unsigned n_events;		/* the first n_events aliases are events */
	unsigned n;
	bool threshold;			/* aliases are metric slots, no constants */
};

static int
resolve(void *ctx, const char *name, size_t len, struct metric_ref *out)
{
	const struct scope *sc = ctx;

	for (unsigned i = 0; i < sc->n; i++) {
		const char *a = sc->aliases[i];

		if (a[0] != name[0] || strncmp(a, name, len) != 0 || a[len])
			continue;
		if (i < sc->n_events) {
			out->kind = METRIC_REF_EVENT;
			out->index = i;
			return 0;
		}
		if (isdigit((unsigned char)sc->names[i][0])) {
			char *end;

			out->kind = METRIC_REF_NUMBER;
			out->number = strtod(sc->names[i], &end);
			return *end ? -1 : 0;
		}
		out->kind = METRIC_REF_CONST;
		out->index = (unsigned)metric_const_by_name(sc->names[i]);
		return 0;
	}
	/* Used bare, never listed among the constants. */
	if (!sc->threshold && len == strlen("DURATIONTIMEINSECONDS") &&
	    strncmp(name, "DURATIONTIMEINSECONDS", len) == 0) {
		out->kind = METRIC_REF_CONST;
		out->index = METRIC_CONST_DURATION_S;
		return 0;
	}
	return -1;
}

/* perf's name: "tma_" and Intel's name in lower case. */
static char *
perf_name(const char *name)
{
	size_t len = strlen(name) + 5;
	char *s = malloc(len);

	if (!s)
		return NULL;
	snprintf(s, len, "tma_%s", name);
	for (char *p = s + 4; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return s;
}

static bool
has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Copy of a JSON string member ("" when absent), owned by the table's arena. */
static char *
dup_member(struct metric_table *t, json_t *obj, const char *key)
{
	const char *s = get_string(obj, key);
	char *copy = strdup(s ? s : "");

	if (copy && arena_keep(t, copy) < 0) {
		free(copy);
		return NULL;
	}
	return copy;
}

int
arena_keep(struct metric_table *t, void *p)
{
	if (t->n_owned == t->cap_owned) {
		size_t cap = t->cap_owned ? t->cap_owned * 2 : 256;
		void **owned = realloc(t->owned, cap * sizeof(*owned));

		if (!owned)
			return -ENOMEM;
		t->owned = owned;
		t->cap_owned = cap;
	}
	t->owned[t->n_owned++] = p;
	return 0;
}

/* One metric, except its threshold (which needs every name first). */
static int
load_metric(struct metric_table *t, json_t *m, struct metric_info *mi, const char **what,
	    char *detail, size_t detail_len)
{
	struct metric_desc *d = &mi->desc;
	struct pmustat_error *perr = NULL;
	struct scope sc;
	char *events, *consts;
	const char *bad;
	json_t *level = json_object_get(m, "l");
	unsigned n_consts;
	int ret;

	d->name = get_string(m, "n");
	if (!d->name || !*d->name || !d->name[strspn(d->name, " ")]) {
		*what = "a metric without a name";
		return -EINVAL;
	}
	if (!metric_name_selectable(d->name)) {
		*what = "a metric name -M cannot give (a comma, a blank at an end, or 160 characters or more)";
		return -EINVAL;
	}
	if (!json_is_integer(level) || json_integer_value(level) < 1 ||
	    json_integer_value(level) > 16) {
		*what = "\"l\" (level) is not 1-16";
		return -EINVAL;
	}
	d->level = (unsigned)json_integer_value(level);
	d->groups = get_string(m, "g") ? get_string(m, "g") : "";
	d->parent = get_string(m, "p") ? get_string(m, "p") : "";
	d->category = get_string(m, "c") ? get_string(m, "c") : "TMA";
	d->unit = get_string(m, "u") ? get_string(m, "u") : "";
	d->description = get_string(m, "d") ? get_string(m, "d") : "";
	d->formula_text = get_string(m, "f");
	if (!d->formula_text) {
		*what = "no formula (\"f\")";
		return -EINVAL;
	}
	d->tree = strcmp(d->category, "TMA") == 0 && !has_prefix(d->name, "Info_") &&
		  !has_prefix(d->name, "Bottleneck_");
	if (strcmp(d->category, "TMA") == 0) {
		mi->perf_name = perf_name(d->name);
		if (!mi->perf_name)
			return -ENOMEM;
		d->perf_name = mi->perf_name;
	}

	events = dup_member(t, m, "e");
	consts = dup_member(t, m, "k");
	if (!events || !consts)
		return -ENOMEM;
	bad = split_pairs(events, sc.aliases, sc.names, MAX_ALIASES, &sc.n_events);
	if (bad) {
		*what = "\"e\" (events)";
		snprintf(detail, detail_len, "%s", bad);
		return -EINVAL;
	}
	bad = split_pairs(consts, sc.aliases + sc.n_events, sc.names + sc.n_events,
			  MAX_ALIASES - sc.n_events, &n_consts);
	if (bad) {
		*what = "\"k\" (constants)";
		snprintf(detail, detail_len, "%s", bad);
		return -EINVAL;
	}
	sc.n = sc.n_events + n_consts;
	sc.threshold = false;
	for (unsigned i = sc.n_events; i < sc.n; i++) {
		if (!isdigit((unsigned char)sc.names[i][0]) && metric_const_by_name(sc.names[i]) < 0) {
			*what = "\"k\" (constants)";
			snprintf(detail, detail_len, "unknown constant '%.80s'", sc.names[i]);
			return -EINVAL;
		}
	}
	mi->events = calloc(sc.n_events ? sc.n_events : 1, sizeof(*mi->events));
	if (!mi->events)
		return -ENOMEM;
	for (unsigned i = 0; i < sc.n_events; i++)
		mi->events[i] = sc.names[i];
	d->events = (const char *const *)mi->events;
	d->n_events = sc.n_events;

	ret = metric_expr_parse(d->formula_text, resolve, &sc, &mi->formula, &perr);
	snprintf(detail, detail_len, "%s", err_msg(perr));
	err_free(perr);
	if (ret) {
		*what = "formula";
		return ret;
	}
	d->formula = mi->formula;
	return 0;
}

/* The threshold: its aliases name metrics of this table. */
static int
load_threshold(struct metric_table *t, json_t *m, struct metric_info *mi, const char **what,
	       char *detail, size_t detail_len)
{
	struct metric_desc *d = &mi->desc;
	struct pmustat_error *perr = NULL;
	struct scope sc;
	char *pairs;
	const char *bad;
	int ret;

	d->threshold_text = get_string(m, "t");
	if (!d->threshold_text)
		return 0;
	pairs = dup_member(t, m, "tm");
	if (!pairs)
		return -ENOMEM;
	bad = split_pairs(pairs, sc.aliases, sc.names, MAX_ALIASES, &sc.n);
	if (bad) {
		*what = "\"tm\" (threshold metrics)";
		snprintf(detail, detail_len, "%s", bad);
		return -EINVAL;
	}
	sc.n_events = sc.n;
	sc.threshold = true;
	mi->threshold_metrics = calloc(sc.n ? sc.n : 1, sizeof(*mi->threshold_metrics));
	if (!mi->threshold_metrics)
		return -ENOMEM;
	for (unsigned i = 0; i < sc.n; i++) {
		long k = metric_table_find(t, sc.names[i]);

		if (k < 0 || strcasecmp(t->metrics[k].desc.name, sc.names[i]) != 0) {
			*what = "threshold";
			snprintf(detail, detail_len, "names unknown metric '%.80s'", sc.names[i]);
			return -EINVAL;
		}
		mi->threshold_metrics[i] = (unsigned)k;
	}
	d->threshold_metrics = mi->threshold_metrics;
	d->n_threshold_metrics = sc.n;
	ret = metric_expr_parse(d->threshold_text, resolve, &sc, &mi->threshold, &perr);
	snprintf(detail, detail_len, "%s", err_msg(perr));
	err_free(perr);
	if (ret) {
		*what = "threshold";
		return ret;
	}
	d->threshold = mi->threshold;
	return 0;
}

/* Every group name once, for "did you mean". */
static int
collect_groups(struct metric_table *t)
{
	for (size_t i = 0; i < t->loaded; i++) {
		const char *g = t->metrics[i].desc.groups ? t->metrics[i].desc.groups : "";

		while (*g) {
			size_t n = strcspn(g, ";"), k;

			for (k = 0; k < t->n_groups; k++)
				if (strlen(t->groups[k]) == n && strncasecmp(t->groups[k], g, n) == 0)
					break;
			if (k == t->n_groups && n) {
				char *copy = strndup(g, n);
				char **grown = realloc(t->groups, (t->n_groups + 1) * sizeof(*grown));

				if (grown)
					t->groups = grown;
				if (!copy || !grown || arena_keep(t, copy) < 0) {
					free(copy);
					return -ENOMEM;
				}
				t->groups[t->n_groups++] = copy;
			}
			g += n;
			if (*g == ';')
				g++;
		}
	}
	return 0;
}

static int
open_table(const char *events_dir, const char *name, struct metric_table *t, char *path,
	   size_t path_len, struct pmustat_error **err)
{
	json_error_t jerr;

	if (!*name || strchr(name, '/') || name[0] == '.' || strlen(name) > METRIC_TABLE_NAME_MAX) {
		return err_set(err, -EINVAL, "'%.40s' is not a metric table name", name);
	}
	if ((size_t)snprintf(path, path_len, "%s/metrics/%s.json", events_dir, name) >= path_len) {
		return err_set(err, -ENAMETOOLONG, "%s/metrics/%s.json: path too long", events_dir, name);
	}
	t->root = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
	if (!t->root) {
		if (json_error_code(&jerr) == json_error_cannot_open_file) {
			return err_set(err, -ENOENT, "%s: cannot open: no metrics for '%s'", path, name);
		}
		return err_set(err, json_error_code(&jerr) == json_error_out_of_memory ? -ENOMEM : -EINVAL, "%s:%d: %s", path, jerr.line, jerr.text);
	}
	if (json_integer_value(json_object_get(t->root, "format_version")) !=
	    METRIC_TABLE_FORMAT_VERSION) {
		return err_set(err, -EINVAL, "%s: format_version is not %d: regenerate with scripts/perfmon2events",
			 path, METRIC_TABLE_FORMAT_VERSION);
	}
	t->name = get_string(t->root, "table");
	if (!t->name || strcmp(t->name, name) != 0 ||
	    !json_is_array(json_object_get(t->root, "metrics"))) {
		return err_set(err, -EINVAL, "%s: \"table\" is not '%s' or \"metrics\" is missing", path, name);
	}
	t->source_file = get_string(json_object_get(t->root, "source"), "file");
	t->source_version = get_string(json_object_get(t->root, "source"), "version");
	t->tma_version = get_string(json_object_get(t->root, "source"), "tma_version");
	if (!t->source_file)
		t->source_file = "";
	if (!t->source_version)
		t->source_version = "";
	if (!t->tma_version)
		t->tma_version = "";
	return 0;
}

int
metric_table_load(const char *events_dir, const char *name, struct metric_table **out,
		  struct pmustat_error **err)
{
	char path[PATH_MAX];
	int ret;

	*out = NULL;
	if (!*name || strchr(name, '/') || name[0] == '.' || strlen(name) > METRIC_TABLE_NAME_MAX) {
		return err_set(err, -EINVAL, "'%.40s' is not a metric table name", name);
	}
	if (compiled_file_path(events_dir, name, METRIC_TABLE_FILE_SUFFIX, path, sizeof(path))) {
		ret = metric_table_file_load(path, name, out, err);
		if (ret != -ENOENT)
			return ret;
	}
	return metric_table_load_json(events_dir, name, out, err);
}

int
metric_table_load_json(const char *events_dir, const char *name, struct metric_table **out,
		       struct pmustat_error **err)
{
	char path[PATH_MAX], detail[512];
	struct metric_table *t;
	json_t *metrics, *m;
	const char *what = NULL;
	size_t i;
	int ret;

	*out = NULL;
	t = calloc(1, sizeof(*t));
	if (!t) {
		return err_set(err, -ENOMEM, "%s/metrics/%s.json: out of memory", events_dir, name);
	}
	ret = open_table(events_dir, name, t, path, sizeof(path), err);
	if (ret)
		goto fail;
	metrics = json_object_get(t->root, "metrics");
	t->count = json_array_size(metrics);
	t->metrics = calloc(t->count ? t->count : 1, sizeof(*t->metrics));
	if (!t->metrics)
		goto nomem;
	/* Names first: thresholds refer to later metrics. */
	json_array_foreach(metrics, i, m) {
		detail[0] = '\0';
		ret = json_is_object(m) ? load_metric(t, m, &t->metrics[i], &what, detail,
						      sizeof(detail)) : -EINVAL;
		if (!json_is_object(m))
			what = "not an object";
		if (ret == -ENOMEM)
			goto nomem;
		if (ret)
			goto bad_metric;
		/* Searches the metrics before this one only. */
		if (metric_table_find(t, t->metrics[i].desc.name) >= 0 ||
		    (t->metrics[i].perf_name && metric_table_find(t, t->metrics[i].perf_name) >= 0)) {
			what = "name";
			snprintf(detail, sizeof(detail), "given to two metrics");
			ret = -EINVAL;
			goto bad_metric;
		}
		t->loaded = i + 1;
	}
	json_array_foreach(metrics, i, m) {
		detail[0] = '\0';
		ret = load_threshold(t, m, &t->metrics[i], &what, detail, sizeof(detail));
		if (ret == -ENOMEM)
			goto nomem;
		if (ret)
			goto bad_metric;
	}
	if (collect_groups(t) < 0)
		goto nomem;
	*out = t;
	return 0;

bad_metric:
	err_set(err, ret ? ret : -EINVAL, "%s: metric %zu (%.80s): %s%s%s", path, i,
		 t->metrics && i < t->count && t->metrics[i].desc.name ? t->metrics[i].desc.name : "?",
		 what, detail[0] ? ": " : "", detail);
	goto fail;
nomem:
	err_set(err, -ENOMEM, "%s: out of memory", path);
	ret = -ENOMEM;
fail:
	metric_table_free(t);
	return ret;
}

void
metric_table_free(struct metric_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; !t->mapped && t->metrics && i < t->count; i++) {
		struct metric_info *mi = &t->metrics[i];

		metric_expr_free(mi->formula);
		metric_expr_free(mi->threshold);
		free(mi->events);
		free(mi->threshold_metrics);
		free(mi->perf_name);
	}
	for (size_t i = 0; i < t->n_owned; i++)
		free(t->owned[i]);
	free(t->owned);
	if (!t->mapped)
		free(t->groups);
	free(t->metrics);
	json_decref(t->root);
	if (t->map)
		munmap(t->map, t->map_size);
	free(t);
}

const char *
metric_table_name(const struct metric_table *t)
{
	return t->name;
}

const char *
metric_table_source_file(const struct metric_table *t)
{
	return t->source_file;
}

const char *
metric_table_source_version(const struct metric_table *t)
{
	return t->source_version;
}

const char *
metric_table_tma_version(const struct metric_table *t)
{
	return t->tma_version;
}

size_t
metric_table_count(const struct metric_table *t)
{
	return t->loaded;
}

const struct metric_desc *
metric_table_get(const struct metric_table *t, size_t i)
{
	return i < t->loaded ? &t->metrics[i].desc : NULL;
}

long
metric_table_find(const struct metric_table *t, const char *name)
{
	for (size_t i = 0; i < t->loaded; i++) {
		const struct metric_desc *d = &t->metrics[i].desc;

		if (strcasecmp(d->name, name) == 0 || (d->perf_name && strcasecmp(d->perf_name, name) == 0))
			return (long)i;
	}
	return -1;
}
