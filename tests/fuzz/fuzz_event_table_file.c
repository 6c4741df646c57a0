/*
 * fuzz_event_table_file.c - the compiled event table's reader
 * (event_table_file_parse), which a run trusts with pointers into a mapped
 * file.
 *
 * Input: a compiled table named "fuzz" (seeds: tablec's output for the
 * event-table seeds). Each input is parsed as it is, then with its checksum
 * rewritten to match (event_table_file_seal), so that mutations reach the
 * checks behind it. A table that loads is walked: every string read to its
 * end, every event found by its name, every extra read.
 */
#include "fuzz_util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/err.h"
#include "events/event_table.h"
#include "events/event_table_file.h"

static volatile size_t sink;

static void
walk(const struct event_table *t)
{
	size_t n = event_table_count(t);

	if (strcmp(event_table_name(t), "fuzz") != 0 || !event_table_source_file(t) ||
	    !event_table_source_version(t))
		fuzz_fail("table identity missing");
	for (size_t i = 0; i < n; i++) {
		const struct event_desc *d = event_table_get(t, i), *found;

		if (!d || !d->name || !d->description)
			fuzz_fail("event %zu: NULL name or description", i);
		sink += strlen(d->description) + (d->alias_of ? strlen(d->alias_of) : 0) +
			(d->errata ? strlen(d->errata) : 0);
		found = event_table_find(t, d->name);
		if (!found || strcasecmp(found->name, d->name) != 0)
			fuzz_fail("event %zu '%s' not found by its own name", i, d->name);
		for (unsigned k = 0; k < d->n_extra; k++)
			sink += d->extra[k].msr + d->extra[k].code;
	}
	if (event_table_get(t, n))
		fuzz_fail("event_table_get past the end");
}

static void
parse(const uint8_t *data, size_t size)
{
	struct event_table *t = NULL;
	struct pmustat_error *err = NULL;
	int ret = event_table_file_parse(data, size, "fuzz.pmt", "fuzz", &t, &err);

	if (ret == 0) {
		if (!t)
			fuzz_fail("success without a table");
		walk(t);
		event_table_free(t);
	} else {
		if (t)
			fuzz_fail("failure with a table");
		if (ret != -EINVAL && ret != -ENOMEM)
			fuzz_fail("unexpected return %d (%s)", ret, err_msg(err));
		if (!strstr(err_msg(err), "fuzz.pmt: "))
			fuzz_fail("error %d without the file's name: %s", ret, err_msg(err));
	}
	err_clear(&err);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* A copy of its own size: ASan sees any read past the end. */
	uint8_t *copy = malloc(size ? size : 1);

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	parse(copy, size);
	event_table_file_seal(copy, size);
	parse(copy, size);
	free(copy);
	return 0;
}
