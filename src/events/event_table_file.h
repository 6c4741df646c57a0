/*
 * event_table_file.h - an event table compiled at build time: the data of
 * events/<table>.json, as event_table.c loads it, written by the build
 * (tablec, a meson custom target) into share/pmustat/tables/<table>.pmt
 * and mapped read-only by a run, with nothing to parse.
 *
 * The file is checked before anything in it is used: magic, format version,
 * byte order, size, a checksum over every byte, every offset and count in
 * bounds, every string terminated inside the file. One that fails is
 * refused with a message naming the file, never trusted.
 */
#ifndef PMUSTAT_EVENT_TABLE_FILE_H
#define PMUSTAT_EVENT_TABLE_FILE_H

#include <stddef.h>
#include <stdio.h>

struct event_table;
struct pmustat_error;

/* The compiled table's file name suffix. */
#define EVENT_TABLE_FILE_SUFFIX ".pmt"

/* Write @table to @f in the compiled form. Returns 0 or a negative errno. */
int event_table_file_write(const struct event_table *table, FILE *f);

/*
 * Map @path, the compiled table @name. Returns 0 and *@out; -ENOENT when
 * there is no such file (the caller reads the JSON); -EINVAL with @err
 * "path: what" when it is corrupt, truncated or of another format version.
 */
int event_table_file_load(const char *path, const char *name,
			  struct event_table **out, struct pmustat_error **err);

/* The same check and result over @size bytes at @data (the fuzz target). */
int event_table_file_parse(const void *data, size_t size, const char *path,
			   const char *name, struct event_table **out,
			   struct pmustat_error **err);


#endif
