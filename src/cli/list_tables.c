/*
 * list_tables.c - see list_tables.h.
 */
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "cli/list_metrics.h"
#include "cli/list_tables.h"
#include "events/suggest.h"

#define TABLE_NAME_MAX 64

struct table_entry {
	char name[TABLE_NAME_MAX];
	struct strbuf cpus;	/* the mapfile's keys for it, ", "-separated */
};

struct tables {
	struct table_entry *t;
	size_t n;
};

static int
by_name(const void *a, const void *b)
{
	return strcmp(((const struct table_entry *)a)->name, ((const struct table_entry *)b)->name);
}

static void
tables_free(struct tables *ts)
{
	for (size_t i = 0; i < ts->n; i++)
		strbuf_free(&ts->t[i].cpus);
	free(ts->t);
	ts->t = NULL;
	ts->n = 0;
}

/* Every NAME.json of @dir, sorted. */
static int
read_names(const char *dir, struct tables *ts, struct pmustat_error **err)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t cap = 0;

	if (!d)
		return err_set(err, -errno, "%s: %s (pmustat's event tables)", dir, strerror(errno));
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (len <= 5 || len - 5 >= TABLE_NAME_MAX || strcmp(de->d_name + len - 5, ".json") != 0)
			continue;
		if (ts->n == cap) {
			struct table_entry *grown;

			cap = cap ? cap * 2 : 64;
			grown = realloc(ts->t, cap * sizeof(*grown));
			if (!grown) {
				closedir(d);
				return err_set(err, -ENOMEM, "out of memory");
			}
			ts->t = grown;
		}
		memset(&ts->t[ts->n], 0, sizeof(ts->t[ts->n]));
		snprintf(ts->t[ts->n].name, sizeof(ts->t[ts->n].name), "%.*s", (int)(len - 5), de->d_name);
		ts->n++;
	}
	closedir(d);
	if (ts->n)
		qsort(ts->t, ts->n, sizeof(*ts->t), by_name);
	return 0;
}

/* The mapfile's Family-model keys beside each table (its rows: key,core type,native model,table,...). */
static void
read_cpus(const char *dir, struct tables *ts)
{
	char path[4096], *line = NULL;
	size_t cap = 0;
	FILE *f;

	if ((size_t)snprintf(path, sizeof(path), "%s/mapfile.csv", dir) >= sizeof(path))
		return;
	f = fopen(path, "re");
	if (!f)
		return;
	while (getline(&line, &cap, f) > 0) {
		char *field[4] = { line, NULL, NULL, NULL }, *p = line;

		if (line[0] == '#' || strncmp(line, "Family-model,", 13) == 0)
			continue;
		for (unsigned k = 1; k < 4 && (p = strchr(p, ',')); k++) {
			*p++ = '\0';
			field[k] = p;
		}
		if (!field[3])
			continue;
		field[3][strcspn(field[3], ",\r\n")] = '\0';
		for (size_t i = 0; i < ts->n; i++) {
			if (strcmp(ts->t[i].name, field[3]) != 0)
				continue;
			if (strstr(strbuf_str(&ts->t[i].cpus), field[0]))
				break;
			strbuf_printf(&ts->t[i].cpus, "%s%s", strbuf_str(&ts->t[i].cpus)[0] ? ", " : "", field[0]);
			break;
		}
	}
	free(line);
	fclose(f);
}

int
list_tables(const char *events_dir, const char *pattern, bool json, struct pmustat_error **err)
{
	struct tables ts = { NULL, 0 };
	json_t *root = NULL, *arr = NULL;
	int rc = read_names(events_dir, &ts, err);

	if (rc) {
		tables_free(&ts);
		return rc;
	}
	read_cpus(events_dir, &ts);
	if (json) {
		root = json_object();
		arr = json_array();
		json_object_set_new(root, "format_version", json_integer(1));
		json_object_set_new(root, "directory", json_string(events_dir));
	} else {
		printf("Event tables in %s (pmustat list --table NAME lists one):\n", events_dir);
	}
	for (size_t i = 0; i < ts.n; i++) {
		const char *cpus = strbuf_str(&ts.t[i].cpus);

		if (pattern && !list_text_matches(pattern, ts.t[i].name) && !list_text_matches(pattern, cpus))
			continue;
		if (json)
			json_array_append_new(arr, json_pack("{s:s, s:s}", "name", ts.t[i].name, "cpus", cpus));
		else
			printf("  %-24s %s\n", ts.t[i].name, cpus[0] ? cpus : "(no mapfile entry: NetBurst, chosen from CPUID)");
	}
	if (json) {
		json_object_set_new(root, "tables", arr);
		if (json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0)
			rc = err_set(err, -EIO, "cannot write the listing to standard output");
		putchar('\n');
		json_decref(root);
	}
	tables_free(&ts);
	return rc;
}

void
list_tables_suggest(const char *events_dir, const char *typed, struct pmustat_error **err)
{
	struct tables ts = { NULL, 0 };
	struct pmustat_error *e = NULL;
	struct strbuf b = STRBUF_INIT;
	struct suggest s;

	if (read_names(events_dir, &ts, &e)) {
		err_clear(&e);
		tables_free(&ts);
		return;
	}
	suggest_init(&s, typed, SUGGEST_SHOWN);
	for (size_t i = 0; i < ts.n; i++)
		suggest_consider(&s, ts.t[i].name);
	if (suggest_append(&s, &b))
		err_append(err, "%s", strbuf_str(&b));
	else
		err_append(err, "; 'pmustat list --tables' lists them");
	strbuf_free(&b);
	tables_free(&ts);
}
