/*
 * fuzz_util.h - what the parser harnesses share.
 *
 * Every harness defines LLVMFuzzerTestOneInput() (and may define
 * LLVMFuzzerInitialize()). With clang it links libFuzzer; with any compiler
 * it also links fuzz_replay.c, a small main() that feeds it every file of
 * the directories named on its command line (the seed corpus and the crash
 * regressions), so the normal suite replays them.
 *
 * Parsers that read files (event tables, the mapfile, libcpuid dumps) get
 * the input written to a private temporary directory: their file-based API
 * is what pmustat uses, so it is what is fuzzed.
 */
#ifndef PMUSTAT_FUZZ_UTIL_H
#define PMUSTAT_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* A private directory, made on first use and removed at exit. */
const char *fuzz_tmpdir(void);

/*
 * Write @data to @name in fuzz_tmpdir() (replacing it); returns the full
 * path in a static buffer. Aborts on failure: a harness that cannot write
 * its input must not report "no crash".
 */
const char *fuzz_write(const char *name, const uint8_t *data, size_t size);

/* @data as a NUL-terminated string (malloc'd; stops at an embedded NUL). */
char *fuzz_strndup(const uint8_t *data, size_t size);

/* The source tree's events/ (the shipped tables), or $FUZZ_EVENTS_DIR. */
const char *fuzz_events_dir(void);

/*
 * A compiled table's reader: @load(data, size, path, &err) parses, and on
 * success walks and frees the table, returning the reader's result. It is
 * given the input as it is, then with its checksum rewritten to match
 * (compiled_file_seal), so that mutations reach the checks behind it, each
 * time in a copy of the input's own size (ASan sees a read past its end).
 * A failure must be -EINVAL or -ENOMEM with a message starting with path.
 */
struct pmustat_error;
typedef int (*fuzz_compiled_load_fn)(const uint8_t *data, size_t size, const char *path,
				     struct pmustat_error **err);
void fuzz_compiled(const uint8_t *data, size_t size, fuzz_compiled_load_fn load);

/* abort() with a message: a broken invariant is a finding. */
void fuzz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif
