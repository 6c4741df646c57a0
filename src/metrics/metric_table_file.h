/*
 * metric_table_file.h - a metric table compiled at build time: the data of
 * events/metrics/<table>.json as metric_table.c loads it, every formula and
 * threshold already parsed (the trees as metric_expr.c makes them), written
 * by the build (tablec) into share/pmustat/tables/<table>.metrics.pmt and
 * mapped read-only by a run.
 *
 * Checked as the compiled event tables are (events/event_table_file.h):
 * magic, format version, byte order, size, checksum, every offset, count
 * and string; every tree by metric_expr_check(). One that fails is refused
 * with a message naming the file, never trusted.
 */
#ifndef PMUSTAT_METRIC_TABLE_FILE_H
#define PMUSTAT_METRIC_TABLE_FILE_H

#include <stddef.h>
#include <stdio.h>

struct metric_table;
struct pmustat_error;

#define METRIC_TABLE_FILE_SUFFIX ".metrics.pmt"

/* Write @t (loaded from its JSON) to @f. Returns 0 or a negative errno. */
int metric_table_file_write(const struct metric_table *t, FILE *f);

/* Map @path, the compiled metric table @name: as event_table_file_load(). */
int metric_table_file_load(const char *path, const char *name, struct metric_table **out,
			   struct pmustat_error **err);

/* The same check and result over @size bytes at @data (the fuzz target). */
int metric_table_file_parse(const void *data, size_t size, const char *path, const char *name,
			    struct metric_table **out, struct pmustat_error **err);

#endif
