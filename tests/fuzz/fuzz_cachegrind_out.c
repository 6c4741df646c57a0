/*
 * fuzz_cachegrind_out.c - the totals of a Valgrind output file
 * (cachegrind_out_parse), which --backend sim reads after a program ran
 * the user's code.
 *
 * Input: the file's bytes (not NUL-terminated: the parser takes a length).
 * Checked: a refusal has a reason; an accepted file had an events and a
 * summary (or totals) line. Then the same bytes as a Callgrind file of
 * --regions (callgrind_regions_add): every record within bounds.
 */
#include "fuzz_util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine/cachegrind_out.h"
#include "engine/callgrind_regions.h"

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
	/* The same bytes as a --regions Callgrind file: every region's record within bounds. */
	{
		const uint32_t fields[2] = { SIM_BIT(SIM_IR), SIM_BIT(SIM_D1MR) | SIM_BIT(SIM_D1MW) };
		struct region_result r;

		memset(&r, 0, sizeof(r));
		r.nevents = 2;
		why[0] = '\0';
		rc = callgrind_regions_add(&r, fields, 1, text, size, v, why, sizeof(why));
		if (rc == -EPROTO && !why[0])
			fuzz_fail("regions refused without a reason");
		if (rc == 0 && region_result_totals(&r) == 0) {
			for (unsigned i = 0; i < r.ncounts; i++)
				if (r.counts[i].thread >= r.nthreads || strlen(r.counts[i].name) >= sizeof(r.counts[i].name) ||
				    r.counts[i].calls > r.counts[i].begins)
					fuzz_fail("region record %u out of bounds", i);
		}
		region_result_free(&r);
	}
	free(text);
	return 0;
}
