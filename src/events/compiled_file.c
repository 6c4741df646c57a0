/*
 * compiled_file.c - see compiled_file.h.
 */
#include "config.h"
#include "events/compiled_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"

/* Far above any table's (the largest is under 1 MiB). */
#define COMPILED_SIZE_MAX (64u << 20)

static uint64_t
checksum(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t h = 0x9e3779b97f4a7c15u;

	for (size_t i = 0; i + 8 <= n; i += 8) {
		uint64_t w;

		memcpy(&w, b + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdu;
		h ^= h >> 32;
	}
	return h;
}

struct compiled_prefix
compiled_prefix(const char magic[8], uint32_t format_version, size_t size)
{
	struct compiled_prefix p = { .format_version = format_version,
				     .byte_order = COMPILED_BYTE_ORDER, .size = size };

	memcpy(p.magic, magic, sizeof(p.magic));
	return p;
}

void
compiled_file_seal(void *data, size_t size)
{
	struct compiled_prefix p;

	if (size < sizeof(p))
		return;
	memcpy(&p, data, sizeof(p));
	p.checksum = checksum((const unsigned char *)data + sizeof(p), size - sizeof(p));
	memcpy(data, &p, sizeof(p));
}

const char *
compiled_file_check(const void *data, size_t size, size_t header_size, const char magic[8],
		    uint32_t format_version)
{
	struct compiled_prefix p;

	if (size < header_size || size < sizeof(p))
		return "truncated (shorter than its header)";
	/* A mapping is; what its records are read as needs it. */
	if ((uintptr_t)data % 8)
		return "not 8-byte aligned in memory";
	memcpy(&p, data, sizeof(p));
	if (memcmp(p.magic, magic, sizeof(p.magic)) != 0)
		return "not a compiled pmustat table of this kind";
	if (p.byte_order != COMPILED_BYTE_ORDER)
		return "written on a machine of the other byte order";
	if (p.format_version != format_version)
		return "compiled for another version of pmustat (format version differs)";
	if (p.size != size)
		return "truncated or extended (size differs from its header's)";
	if (checksum((const unsigned char *)data + sizeof(p), size - sizeof(p)) != p.checksum)
		return "checksum mismatch (corrupt)";
	return NULL;
}

uint32_t
compiled_string_add(struct compiled_strings *s, const char *str)
{
	size_t n;
	uint32_t off;

	if (!str)
		return COMPILED_NO_STRING;
	n = strlen(str) + 1;
	if (s->len + n >= COMPILED_NO_STRING - 1)
		return COMPILED_NO_STRING - 1;
	if (s->len + n > s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 4096;
		char *buf;

		while (cap < s->len + n)
			cap *= 2;
		buf = realloc(s->buf, cap);
		if (!buf)
			return COMPILED_NO_STRING - 1;
		s->buf = buf;
		s->cap = cap;
	}
	memcpy(s->buf + s->len, str, n);
	off = (uint32_t)s->len;
	s->len += n;
	return off;
}

bool
compiled_file_path(const char *events_dir, const char *name, const char *suffix, char *path,
		   size_t size)
{
	const char *slash = strrchr(events_dir, '/');

	if (!slash || slash == events_dir)
		return false;
	return (size_t)snprintf(path, size, "%.*s/tables/%s%s", (int)(slash - events_dir), events_dir,
				name, suffix) < size;
}

/* Map @path read-only: 0 and *@map, *@size, or a negative errno as compiled_file_load(). */
static int
map_file(const char *path, void **map, size_t *size, struct pmustat_error **err)
{
	struct stat st = { 0 };
	int fd, ret;

	*map = NULL;
	*size = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return -ENOENT;
		return err_set(err, -errno, "%s: cannot open: %s", path, strerror(errno));
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    (uint64_t)st.st_size > COMPILED_SIZE_MAX) {
		close(fd);
		return err_set(err, -EINVAL, "%s: not a compiled table (size %lld): rebuild or reinstall pmustat",
			       path, (long long)st.st_size);
	}
	*map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	ret = *map == MAP_FAILED ? -errno : 0;
	close(fd);
	if (ret) {
		*map = NULL;
		return err_set(err, ret, "%s: cannot map: %s", path, strerror(-ret));
	}
	*size = (size_t)st.st_size;
	return 0;
}

int
compiled_file_load(const char *path, compiled_parse_fn parse, void *ctx, void **map, size_t *size,
		   struct pmustat_error **err)
{
	int ret = map_file(path, map, size, err);

	if (ret)
		return ret;
	ret = parse(*map, *size, ctx);
	if (ret) {
		munmap(*map, *size);
		*map = NULL;
		*size = 0;
	}
	return ret;
}
