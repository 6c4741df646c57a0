/*
 * tablec - the build's table compiler: reads events/<name>.json or
 * events/metrics/<name>.json with the loader a run would use (every check,
 * every formula parsed) and writes the compiled table that a run maps
 * instead (events/event_table_file.h, metrics/metric_table_file.h).
 *
 *	tablec events|metrics EVENTS_DIR NAME OUTPUT
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "base/err.h"
#include "events/event_table.h"
#include "events/event_table_file.h"
#include "metrics/metric_table.h"
#include "metrics/metric_table_file.h"

static int
compile(const char *kind, const char *dir, const char *name, FILE *f, struct pmustat_error **err)
{
	int ret;

	if (strcmp(kind, "events") == 0) {
		struct event_table *t;

		ret = event_table_load_json(dir, name, &t, err);
		if (ret == 0) {
			ret = event_table_file_write(t, f);
			event_table_free(t);
		}
	} else {
		struct metric_table *t;

		ret = metric_table_load_json(dir, name, &t, err);
		if (ret == 0) {
			ret = metric_table_file_write(t, f);
			metric_table_free(t);
		}
	}
	return ret;
}

int
main(int argc, char **argv)
{
	struct pmustat_error *err = NULL;
	FILE *f;
	int ret;

	if (argc != 5 || (strcmp(argv[1], "events") != 0 && strcmp(argv[1], "metrics") != 0)) {
		fprintf(stderr, "usage: tablec events|metrics EVENTS_DIR NAME OUTPUT\n");
		return 2;
	}
	f = fopen(argv[4], "wbe");
	if (!f) {
		perror(argv[4]);
		return 1;
	}
	ret = compile(argv[1], argv[2], argv[3], f, &err);
	if (fclose(f) != 0 && ret == 0)
		ret = -1;
	if (ret < 0) {
		fprintf(stderr, "tablec: %s: %s\n", argv[4], err ? err_msg(err) : "write failed");
		remove(argv[4]);
		return 1;
	}
	return 0;
}
