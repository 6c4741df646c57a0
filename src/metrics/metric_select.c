/*
 * metric_select.c - what -M NAME|GROUP[,...] names in a metric table:
 * Intel's metric names and groups, perf's spellings of both, and a "did you
 * mean" for the rest.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "metrics/metric_table.h"
#include "metrics/metric_table_impl.h"
#include "events/suggest.h"
#include "base/err.h"
#include "base/strbuf.h"

/* One -M term, trimmed; perf's longest group names are ~40 characters. */
#define TERM_MAX 160

static bool
blank(char c)
{
	return c == ' ' || c == '\t';
}

bool
metric_name_selectable(const char *name)
{
	size_t len = strlen(name);

	return len > 0 && len < TERM_MAX && !strchr(name, ',') && !blank(name[0]) && !blank(name[len - 1]);
}

bool
metric_in_group(const struct metric_desc *d, const char *group)
{
	size_t len = strlen(group);
	const char *g = d->groups;

	while (*g) {
		size_t n = strcspn(g, ";");

		if (n == len && strncasecmp(g, group, len) == 0)
			return true;
		g += n;
		if (*g == ';')
			g++;
	}
	return false;
}

/* TopdownL<N> or tma_L<N>_group: N, else 0. */
static unsigned
perf_level_group(const char *term)
{
	const char *digits;
	char *end;
	unsigned long n;

	if (strncasecmp(term, "TopdownL", 8) == 0)
		digits = term + 8;
	else if (strncasecmp(term, "tma_L", 5) == 0)
		digits = term + 5;
	else
		return 0;
	if (*digits < '1' || *digits > '9')
		return 0;
	n = strtoul(digits, &end, 10);
	if (digits == term + 8 ? *end != '\0' : strcasecmp(end, "_group") != 0)
		return 0;
	return n <= 16 ? (unsigned)n : 0;
}

/* tma_<node>_group: the children of the tree node whose perf name is tma_<node>. */
static bool
perf_child_group(const struct metric_desc *d, const struct metric_table *t, const char *term)
{
	size_t len = strlen(term);
	long parent;
	char node[TERM_MAX];

	if (!*d->parent || len <= strlen("tma__group") || strncasecmp(term, "tma_", 4) != 0 ||
	    strcasecmp(term + len - 6, "_group") != 0 || len - 6 >= sizeof(node))
		return false;
	memcpy(node, term, len - 6);
	node[len - 6] = '\0';
	parent = metric_table_find(t, node);
	return parent >= 0 && t->metrics[parent].perf_name &&
	       strcasecmp(t->metrics[parent].perf_name, node) == 0 &&
	       strcasecmp(t->metrics[parent].desc.name, d->parent) == 0;
}

static bool
term_selects(const struct metric_table *t, const struct metric_desc *d, const char *term)
{
	unsigned level = perf_level_group(term);

	if (strcasecmp(d->name, term) == 0 || (d->perf_name && strcasecmp(d->perf_name, term) == 0))
		return true;
	if (metric_in_group(d, term))
		return true;
	if (level)
		return d->tree && d->level == level;
	return perf_child_group(d, t, term);
}

static int
list_add(struct metric_list *list, unsigned metric)
{
	for (unsigned i = 0; i < list->n; i++)
		if (list->metric[i] == metric)
			return 0;
	if (list->n == list->cap) {
		unsigned cap = list->cap ? list->cap * 2 : 16;
		unsigned *grown = realloc(list->metric, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		list->metric = grown;
		list->cap = cap;
	}
	list->metric[list->n++] = metric;
	return 0;
}

static int
unknown(const struct metric_table *t, const char *term, struct pmustat_error **err)
{
	static const char *const perf_groups[] = { "TopdownL1", "TopdownL2", "TopdownL3",
						   "TopdownL4", "TopdownL5", "TopdownL6" };
	struct suggest s;

	suggest_init(&s, term, SUGGEST_SHOWN);
	for (size_t i = 0; i < t->loaded; i++) {
		suggest_consider(&s, t->metrics[i].desc.name);
		if (t->metrics[i].perf_name)
			suggest_consider(&s, t->metrics[i].perf_name);
	}
	for (size_t i = 0; i < sizeof(perf_groups) / sizeof(perf_groups[0]); i++)
		suggest_consider(&s, perf_groups[i]);
	for (size_t i = 0; i < t->n_groups; i++)
		suggest_consider(&s, t->groups[i]);
	struct strbuf b = STRBUF_INIT;

	suggest_append(&s, &b);
	err_set(err, -EINVAL, "unknown metric or metric group '%s' for %s%s", term, t->name, strbuf_str(&b));
	strbuf_free(&b);
	return -EINVAL;
}

int
metric_table_select(const struct metric_table *t, const char *spec, struct metric_list *list,
		    struct pmustat_error **err)
{
	struct metric_list added = { 0, 0, NULL };
	const char *p = spec;
	int ret = 0;

	for (;;) {
		size_t len = strcspn(p, ",");
		const char *start = p, *end = p + len;
		char term[TERM_MAX];
		bool any = false;

		while (start < end && blank(*start))
			start++;
		while (end > start && blank(end[-1]))
			end--;
		if (start == end) {
			ret = err_set(err, -EINVAL, "-M '%s': empty metric name%s", spec,
				 *spec ? " (two commas, or one at an end)" : "");
			break;
		}
		if ((size_t)(end - start) >= sizeof(term)) {
			ret = err_set(err, -EINVAL, "-M: '%.40s...' is not a metric or group name: too long",
				 start);
			break;
		}
		memcpy(term, start, (size_t)(end - start));
		term[end - start] = '\0';
		for (size_t i = 0; i < t->loaded && ret == 0; i++) {
			if (!term_selects(t, &t->metrics[i].desc, term))
				continue;
			any = true;
			ret = list_add(&added, (unsigned)i);
		}
		if (ret == 0 && !any)
			ret = unknown(t, term, err);
		if (ret || !p[len])
			break;
		p += len + 1;
	}
	if (ret == -ENOMEM)
		err_set(err, -ENOMEM, "-M '%.40s': out of memory", spec);
	for (unsigned i = 0; ret == 0 && i < added.n; i++)
		ret = list_add(list, added.metric[i]);
	free(added.metric);
	return ret;
}

void
metric_list_free(struct metric_list *list)
{
	free(list->metric);
	list->metric = NULL;
	list->n = list->cap = 0;
}
