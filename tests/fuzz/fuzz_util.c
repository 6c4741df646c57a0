#include "fuzz_util.h"

#include "base/err.h"
#include "events/compiled_file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmpdir[PATH_MAX];

/* Only files we wrote live there; no recursion needed. */
static void
remove_tmpdir(void)
{
	DIR *d;
	struct dirent *e;

	if (!tmpdir[0])
		return;
	d = opendir(tmpdir);
	if (d) {
		while ((e = readdir(d)) != NULL) {
			if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
				(void)unlinkat(dirfd(d), e->d_name, 0);
		}
		closedir(d);
	}
	(void)rmdir(tmpdir);
}

void
fuzz_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("fuzz: invariant broken: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	abort();
}

const char *
fuzz_tmpdir(void)
{
	const char *base = getenv("TMPDIR");

	if (tmpdir[0])
		return tmpdir;
	if (!base || !*base)
		base = "/tmp";
	if ((size_t)snprintf(tmpdir, sizeof(tmpdir), "%s/pmustat-fuzz-XXXXXX", base) >=
	    sizeof(tmpdir) || !mkdtemp(tmpdir))
		fuzz_fail("cannot make a temporary directory under %s", base);
	atexit(remove_tmpdir);
	return tmpdir;
}

const char *
fuzz_write(const char *name, const uint8_t *data, size_t size)
{
	static char path[PATH_MAX + 64];
	size_t done = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", fuzz_tmpdir(), name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		fuzz_fail("cannot create %s", path);
	while (done < size) {
		ssize_t n = write(fd, data + done, size - done);

		if (n <= 0)
			fuzz_fail("cannot write %s", path);
		done += (size_t)n;
	}
	if (close(fd) != 0)
		fuzz_fail("cannot close %s", path);
	return path;
}

char *
fuzz_strndup(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		fuzz_fail("out of memory for %zu bytes", size + 1);
	if (size)
		memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

const char *
fuzz_events_dir(void)
{
	const char *dir = getenv("FUZZ_EVENTS_DIR");

	return dir && *dir ? dir : FUZZ_SOURCE_EVENTS_DIR;
}

void
fuzz_compiled(const uint8_t *data, size_t size, fuzz_compiled_load_fn load)
{
	static const char path[] = "fuzz.pmt";
	uint8_t *copy = malloc(size ? size : 1);

	if (!copy)
		return;
	memcpy(copy, data, size);
	for (int sealed = 0; sealed < 2; sealed++) {
		struct pmustat_error *err = NULL;
		int ret;

		if (sealed)
			compiled_file_seal(copy, size);
		ret = load(copy, size, path, &err);
		if (ret != 0 && ret != -EINVAL && ret != -ENOMEM)
			fuzz_fail("unexpected return %d (%s)", ret, err_msg(err));
		if (ret != 0 && strncmp(err_msg(err), path, strlen(path)) != 0)
			fuzz_fail("error %d without the file's name: %s", ret, err_msg(err));
		err_clear(&err);
	}
	free(copy);
}
