/*
 * tablec - the build's table compiler: reads events/<name>.json with the
 * loader a run would use (every check included) and writes the compiled
 * table (event_table_file.h) that a run maps instead.
 *
 *	tablec EVENTS_DIR NAME OUTPUT
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "base/err.h"
#include "events/event_table.h"
#include "events/event_table_file.h"

int
main(int argc, char **argv)
{
	struct pmustat_error *err = NULL;
	struct event_table *table;
	FILE *f;
	int ret;

	if (argc != 4) {
		fprintf(stderr, "usage: tablec EVENTS_DIR NAME OUTPUT\n");
		return 2;
	}
	if (event_table_load_json(argv[1], argv[2], &table, &err) < 0) {
		fprintf(stderr, "tablec: %s\n", err_msg(err));
		return 1;
	}
	f = fopen(argv[3], "wbe");
	if (!f) {
		perror(argv[3]);
		return 1;
	}
	ret = event_table_file_write(table, f);
	if (fclose(f) != 0 || ret < 0) {
		fprintf(stderr, "tablec: %s: write failed\n", argv[3]);
		remove(argv[3]);
		return 1;
	}
	event_table_free(table);
	return 0;
}
