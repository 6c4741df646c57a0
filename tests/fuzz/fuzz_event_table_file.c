/*
 * fuzz_event_table_file.c - the compiled event table's reader
 * (event_table_file_parse), which a run trusts with pointers into a mapped
 * file.
 *
 * Input: a compiled table named "fuzz" (seeds: tablec's output for the
 * event-table seeds). Each input is parsed as it is, then with its checksum
 * rewritten to match (compiled_file_seal), so that mutations reach the
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

static int
load(const uint8_t *data, size_t size, const char *path, struct pmustat_error **err)
{
	struct event_table *t = NULL;
	int ret = event_table_file_parse(data, size, path, "fuzz", &t, err);

	if ((ret == 0) != (t != NULL))
		fuzz_fail("result %d with%s a table", ret, t ? "" : "out");
	if (t)
		walk(t);
	event_table_free(t);
	return ret;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_compiled(data, size, load);
	return 0;
}
