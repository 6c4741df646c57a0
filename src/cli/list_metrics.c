#include "config.h"
#include "base/err.h"
#include "cli/list_metrics.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "metrics/metric_table.h"

#define LIST_METRICS_FORMAT_VERSION 1

static bool
groups_match(const char *pattern, const char *groups)
{
	char group[128];

	while (*groups) {
		size_t n = strcspn(groups, ";");

		snprintf(group, sizeof(group), "%.*s", (int)n, groups);
		if (list_text_matches(pattern, group))
			return true;
		groups += n;
		if (*groups == ';')
			groups++;
	}
	return false;
}

/* Text matches, or what -M PATTERN would count (TopdownL1, tma_*_group). */
static bool
metric_matches(const char *pattern, const struct metric_desc *d, const struct metric_list *selected,
	       unsigned index)
{
	for (unsigned i = 0; i < selected->n; i++)
		if (selected->metric[i] == index)
			return true;
	const char *texts[] = { d->name, d->perf_name, d->groups, d->description };

	return !pattern || groups_match(pattern, d->groups) ||
	       list_texts_match(pattern, texts, sizeof(texts) / sizeof(texts[0]));
}

unsigned
list_metrics_matching(const char *events_dir, const char *name, const char *pattern)
{
	struct metric_table *t = NULL;
	struct metric_list selected = { 0, 0, NULL };
	struct pmustat_error *err = NULL;
	unsigned n = 0;

	if (!pattern || !name[0] || metric_table_load(events_dir, name, &t, &err) < 0) {
		err_free(err);
		return 0;
	}
	(void)metric_table_select(t, pattern, &selected, NULL);
	for (size_t i = 0; i < metric_table_count(t); i++)
		n += metric_matches(pattern, metric_table_get(t, i), &selected, (unsigned)i);
	metric_list_free(&selected);
	metric_table_free(t);
	return n;
}

static void
print_groups(const char *groups)
{
	while (*groups) {
		size_t n = strcspn(groups, ";");

		printf("%.*s%s", (int)n, groups, groups[n] ? ", " : "");
		groups += n;
		if (*groups == ';')
			groups++;
	}
}

static void
print_text(const struct metric_table *t, const struct list_metrics_opts *o,
	   const struct metric_list *selected)
{
	size_t shown = 0;

	printf("Metrics of %s (Intel perfmon %s, version %s, TMA %s):\n", metric_table_name(t),
	       metric_table_source_file(t), metric_table_source_version(t),
	       metric_table_tma_version(t)[0] ? metric_table_tma_version(t) : "-");
	for (size_t i = 0; i < metric_table_count(t); i++) {
		const struct metric_desc *d = metric_table_get(t, i);

		if (!metric_matches(o->pattern, d, selected, (unsigned)i))
			continue;
		printf("  %s\n        level %u%s%s%s", d->name, d->level, d->unit[0] ? ", " : "",
		       d->unit, d->groups[0] ? ", groups " : "");
		print_groups(d->groups);
		putchar('\n');
		if (d->description[0])
			printf("        %s\n", d->description);
		if (o->long_format) {
			if (d->perf_name)
				printf("        perf: %s\n", d->perf_name);
			if (d->parent[0])
				printf("        parent: %s\n", d->parent);
			for (unsigned e = 0; e < d->n_events; e++)
				printf("        %s %s\n", e ? "      " : "events", d->events[e]);
			printf("        formula: %s\n", d->formula_text);
			if (d->threshold_text)
				printf("        threshold: %s\n", d->threshold_text);
		}
		shown++;
	}
	if (!shown)
		printf("  (no metric matches '%s')\n", o->pattern);
}

static json_t *
groups_json(const char *groups)
{
	json_t *arr = json_array();

	while (*groups) {
		size_t n = strcspn(groups, ";");

		json_array_append_new(arr, json_stringn(groups, n));
		groups += n;
		if (*groups == ';')
			groups++;
	}
	return arr;
}

static json_t *
metric_json(const struct metric_desc *d)
{
	json_t *events = json_array();

	for (unsigned e = 0; e < d->n_events; e++)
		json_array_append_new(events, json_string(d->events[e]));
	return json_pack("{s:s, s:o, s:o, s:i, s:s, s:o, s:b, s:s, s:o, s:s, s:o}",
			 "name", d->name,
			 "perf_name", d->perf_name ? json_string(d->perf_name) : json_null(),
			 "groups", groups_json(d->groups),
			 "level", (int)d->level,
			 "unit", d->unit,
			 "parent", d->parent[0] ? json_string(d->parent) : json_null(),
			 "tree", d->tree,
			 "description", d->description,
			 "events", events,
			 "formula", d->formula_text,
			 "threshold", d->threshold_text ? json_string(d->threshold_text) : json_null());
}

static int
print_json(const struct metric_table *t, const struct list_metrics_opts *o,
	   const struct metric_list *selected)
{
	json_t *root = json_object(), *metrics = json_array();
	int ret;

	json_object_set_new(root, "format_version", json_integer(LIST_METRICS_FORMAT_VERSION));
	json_object_set_new(root, "table", t ? json_string(metric_table_name(t)) : json_null());
	json_object_set_new(root, "source", t ?
			    json_pack("{s:s, s:s, s:s}", "file", metric_table_source_file(t),
				      "version", metric_table_source_version(t),
				      "tma_version", metric_table_tma_version(t)) : json_null());
	json_object_set_new(root, "pattern", o->pattern ? json_string(o->pattern) : json_null());
	for (size_t i = 0; t && i < metric_table_count(t); i++) {
		const struct metric_desc *d = metric_table_get(t, i);

		if (metric_matches(o->pattern, d, selected, (unsigned)i))
			json_array_append_new(metrics, metric_json(d));
	}
	json_object_set_new(root, "metrics", metrics);
	ret = json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(root);
	putchar('\n');
	return ret ? -EIO : 0;
}

int
list_metrics(const char *events_dir, const char *name, const char *why,
	     const struct list_metrics_opts *o, struct pmustat_error **err)
{
	struct metric_table *t = NULL;
	struct metric_list selected = { 0, 0, NULL };
	int ret;

	if (!name[0]) {
		fprintf(stderr, "pmustat list: warning: %s\n", why);
		if (o->json)
			return print_json(NULL, o, &selected);
		return 0;
	}
	ret = metric_table_load(events_dir, name, &t, err);
	if (ret < 0) {
		if (ret == -ENOENT)
			err_append(err, "; the metric tables are the *.json files in %s/metrics", events_dir);
		return ret;
	}
	/* Not an error when it names nothing: then it is only a text pattern. */
	if (o->pattern)
		(void)metric_table_select(t, o->pattern, &selected, NULL);
	if (o->json)
		ret = print_json(t, o, &selected);
	else
		print_text(t, o, &selected);
	metric_list_free(&selected);
	metric_table_free(t);
	return ret;
}
