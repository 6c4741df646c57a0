/*
 * compiled_file.h - what the tables compiled at build time share
 * (event_table_file.h, metrics/metric_table_file.h): the checksum that
 * catches a damaged file, the string pool a writer builds, and mapping a
 * file read-only.
 */
#ifndef PMUSTAT_COMPILED_FILE_H
#define PMUSTAT_COMPILED_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pmustat_error;

/* A string offset that names no string (a NULL pointer). */
#define COMPILED_NO_STRING UINT32_MAX

/* Every section starts on, and the file is padded to, 8 bytes. */
static inline size_t
compiled_align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* Of the @n bytes at @p, whole 64-bit words: cheap next to the mapping. */
uint64_t compiled_checksum(const void *p, size_t n);

/* A writer's string pool: NUL-terminated strings, by offset. */
struct compiled_strings {
	char *buf;
	size_t len, cap;
};

/*
 * Add @s (NULL: COMPILED_NO_STRING); its offset, or COMPILED_NO_STRING - 1
 * when out of memory or past 4 GiB.
 */
uint32_t compiled_string_add(struct compiled_strings *pool, const char *s);

/*
 * The string at @off of the @size bytes at @strings (which end in a NUL,
 * checked once by the reader): NULL for COMPILED_NO_STRING, and *@ok false
 * for an offset out of bounds.
 */
static inline const char *
compiled_string_at(const char *strings, size_t size, uint32_t off, int *ok)
{
	if (off == COMPILED_NO_STRING)
		return NULL;
	if (off >= size) {
		*ok = 0;
		return "";
	}
	return strings + off;
}

/*
 * Where the compiled table @name@suffix of the tables in @events_dir is:
 * @events_dir's parent taken by its name (the build tree's events/ is a
 * link to the source's), then tables/. False when it has no parent to name
 * or the path does not fit @size.
 */
bool compiled_file_path(const char *events_dir, const char *name, const char *suffix, char *path,
			size_t size);

/*
 * Map @path read-only. 0 and *@map, *@size; -ENOENT, @err untouched, when
 * there is no such file; another negative errno with @err "path: what".
 */
int compiled_file_map(const char *path, void **map, size_t *size, struct pmustat_error **err);

#endif
