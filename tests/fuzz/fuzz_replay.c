/*
 * fuzz_replay.c - main() for builds without libFuzzer: feed every regular
 * file of each directory (or each file) named on the command line to
 * LLVMFuzzerTestOneInput(), in name order, printing each name first so a
 * crash says which input did it. Exit 0 when all ran; a crash or an abort
 * from a harness invariant fails the test.
 */
#include "fuzz_util.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Inputs larger than this are not seeds; refuse rather than swallow them. */
#define REPLAY_MAX_BYTES (8u << 20)

__attribute__((weak)) int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

static int
replay_file(const char *path)
{
	FILE *f = fopen(path, "rbe");
	uint8_t *buf;
	long len;
	size_t got;

	if (!f) {
		fprintf(stderr, "fuzz-replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 ||
	    (unsigned long)len > REPLAY_MAX_BYTES || fseek(f, 0, SEEK_SET) != 0) {
		fprintf(stderr, "fuzz-replay: %s: unreadable or larger than %u bytes\n", path,
			REPLAY_MAX_BYTES);
		fclose(f);
		return -1;
	}
	/* An exact-size heap copy, so ASan sees any read past the input. */
	buf = malloc(len ? (size_t)len : 1);
	if (!buf) {
		fclose(f);
		return -1;
	}
	got = fread(buf, 1, (size_t)len, f);
	fclose(f);
	if (got != (size_t)len) {
		fprintf(stderr, "fuzz-replay: %s: short read\n", path);
		free(buf);
		return -1;
	}
	fprintf(stderr, "fuzz-replay: %s (%zu bytes)\n", path, got);
	LLVMFuzzerTestOneInput(buf, got);
	free(buf);
	return 0;
}

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int
replay_dir(const char *dir, unsigned *count)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **files = NULL;
	size_t n = 0, cap = 0;
	int ret = 0;

	if (!d) {
		fprintf(stderr, "fuzz-replay: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	while ((e = readdir(d)) != NULL) {
		char *path;

		if (e->d_name[0] == '.' || strcmp(e->d_name, "README") == 0 ||
		    strcmp(e->d_name, "README.md") == 0)
			continue;
		if (n == cap) {
			char **grown = realloc(files, (cap ? cap * 2 : 64) * sizeof(*files));

			if (!grown) {
				ret = -1;
				break;
			}
			files = grown;
			cap = cap ? cap * 2 : 64;
		}
		if (asprintf(&path, "%s/%s", dir, e->d_name) < 0) {
			ret = -1;
			break;
		}
		files[n++] = path;
	}
	closedir(d);
	if (n)
		qsort(files, n, sizeof(*files), name_cmp);
	for (size_t i = 0; i < n; i++) {
		struct stat st;

		if (ret == 0 && stat(files[i], &st) == 0 && S_ISREG(st.st_mode)) {
			if (replay_file(files[i]) < 0)
				ret = -1;
			else
				(*count)++;
		}
		free(files[i]);
	}
	free(files);
	return ret;
}

int
main(int argc, char **argv)
{
	unsigned count = 0;
	int failed = 0;

	LLVMFuzzerInitialize(&argc, &argv);
	if (argc < 2) {
		fprintf(stderr, "usage: %s DIR|FILE...\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st) != 0) {
			/* A regressions directory may not exist yet: nothing to replay. */
			if (errno == ENOENT)
				continue;
			fprintf(stderr, "fuzz-replay: %s: %s\n", argv[i], strerror(errno));
			failed = 1;
		} else if (S_ISDIR(st.st_mode)) {
			failed |= replay_dir(argv[i], &count) < 0;
		} else if (replay_file(argv[i]) < 0) {
			failed = 1;
		} else {
			count++;
		}
	}
	fprintf(stderr, "fuzz-replay: %u inputs replayed%s\n", count, failed ? ", with errors" : "");
	return failed ? 1 : 0;
}
