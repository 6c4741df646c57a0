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

/*
 * What every compiled table starts with. The checksum, whole 64-bit words
 * with a multiply-xorshift (cheap next to the mapping), covers every byte
 * after this prefix, the rest of the table's header included.
 */
struct compiled_prefix {
	char magic[8];		/* the kind of table */
	uint32_t format_version;
	uint32_t byte_order;	/* COMPILED_BYTE_ORDER as the writer stored it */
	uint64_t size;		/* of the whole file */
	uint64_t checksum;
};

#define COMPILED_BYTE_ORDER 0x01020304u

/*
 * A writer's prefix for a file of @size bytes: @magic, @format_version,
 * the byte order and size; compiled_file_seal() adds the checksum.
 */
struct compiled_prefix compiled_prefix(const char magic[8], uint32_t format_version, size_t size);

/* Set the checksum of the @size bytes at @data to what they hold. */
void compiled_file_seal(void *data, size_t size);

/*
 * Whether the @size bytes at @data (8-byte aligned, as a mapping is) hold
 * at least @header_size bytes and start with a prefix of @magic and
 * @format_version for a file of @size bytes whose checksum matches: NULL,
 * or what is wrong, for a message.
 */
const char *compiled_file_check(const void *data, size_t size, size_t header_size,
				const char magic[8], uint32_t format_version);

/* A writer's string pool: NUL-terminated strings, by offset. */
struct compiled_strings {
	char *buf;
	size_t len, cap;
};

/*
 * Add @str to @s (NULL: COMPILED_NO_STRING); its offset, or COMPILED_NO_STRING - 1
 * when out of memory or past 4 GiB.
 */
uint32_t compiled_string_add(struct compiled_strings *s, const char *str);

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
 * Map @path and hand the mapping to @parse: 0 when it took it (the caller
 * then keeps *@map and *@size, and unmaps them), else the mapping is
 * undone and @parse's error returned; -ENOENT, @err untouched, when there
 * is no such file.
 */
typedef int (*compiled_parse_fn)(const void *data, size_t size, void *ctx);
int compiled_file_load(const char *path, compiled_parse_fn parse, void *ctx, void **map,
		       size_t *size, struct pmustat_error **err);

#endif
