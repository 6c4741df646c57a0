/*
 * fuzz_event_table.c - event table JSON (event_table_load) and what the
 * rest of pmustat does with a table it accepted.
 *
 * Input: the whole file, written as fuzz.json in a private directory and
 * loaded as table "fuzz" (so a valid seed says "table": "fuzz"). A table
 * that loads is then walked: every event is found again by name, and the
 * first events are resolved with event_spec_parse() on a perfmon v5 and a
 * v6 PMU, so hostile encodings (fixed counter 31, empty counter masks,
 * extra MSRs) reach the code that turns them into MSR values.
 */
#include "fuzz_util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "events/cpu.h"
#include "events/event.h"
#include "events/event_spec.h"
#include "events/event_table.h"
#include "pmu/msr.h"
#include "base/err.h"

#define RESOLVE_AT_MOST 64

static const struct pmu_caps pmus[2] = {
	{ .version = 5, .gp_counters = 8, .gp_mask = 0xff, .gp_width = 48, .fixed_counters = 4,
	  .fixed_mask = 0xf, .fixed_width = 48, .arch_events_len = 8 },
	{ .version = 6, .gp_counters = 10, .gp_mask = 0x3ff, .gp_width = 48, .fixed_counters = 7,
	  .fixed_mask = 0x77, .fixed_width = 48, .arch_events_len = 13 },
};

static void
walk(const struct event_table *t)
{
	struct pmustat_error *err = NULL;
	size_t n = event_table_count(t);

	if (!event_table_name(t) || strcmp(event_table_name(t), "fuzz") != 0 ||
	    !event_table_source_file(t) || !event_table_source_version(t))
		fuzz_fail("table identity missing");
	for (size_t i = 0; i < n; i++) {
		const struct event_desc *d = event_table_get(t, i), *found;

		if (!d || !d->name || !d->description)
			fuzz_fail("event %zu: NULL name or description", i);
		found = event_table_find(t, d->name);
		if (!found || strcasecmp(found->name, d->name) != 0)
			fuzz_fail("event %zu '%s' not found by its own name", i, d->name);
		if (i > 0 && strcasecmp(event_table_get(t, i - 1)->name, d->name) >= 0)
			fuzz_fail("events not sorted at %zu", i);
		if (d->n_extra && (!d->extra || d->extra[0].code != d->code ||
				   d->extra[0].umask != d->umask))
			fuzz_fail("event '%s': extra[0] does not match", d->name);
		if (d->alias_of && !event_table_find(t, d->alias_of))
			fuzz_fail("event '%s': alias of missing '%s'", d->name, d->alias_of);
	}
	if (event_table_get(t, n))
		fuzz_fail("event_table_get past the end");

	for (size_t i = 0; i < n && i < RESOLVE_AT_MOST; i++) {
		const struct event_desc *d = event_table_get(t, i);

		for (size_t p = 0; p < sizeof(pmus) / sizeof(pmus[0]); p++) {
			struct event *evs = NULL;
			size_t count = 0;
			err_clear(&err);

			/* Names with ',' or ':' are split by the grammar; that is fine. */
			if (event_spec_parse(d->name, t, &pmus[p], &evs, &count, &err) == 0) {
				for (size_t k = 0; k < count; k++) {
					const struct event *ev = &evs[k];

					if (ev->fixed >= PMU_MAX_FIXED ||
					    (ev->fixed >= 0 && !(pmus[p].fixed_mask & (1u << ev->fixed))))
						fuzz_fail("'%s' on fixed counter %d", d->name, ev->fixed);
					if (ev->gp_mask & ~pmus[p].gp_mask & 0xffu)
						fuzz_fail("'%s' GP mask 0x%x", d->name, ev->gp_mask);
					if (ev->extra_msr && ev->extra_msr != MSR_OFFCORE_RSP_0 &&
					    ev->extra_msr != MSR_OFFCORE_RSP_1)
						fuzz_fail("'%s' programs MSR 0x%x", d->name, ev->extra_msr);
				}
			}
			free(evs);
			err_clear(&err);
		}
	}
	err_clear(&err);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct event_table *t = NULL;
	struct pmustat_error *err = NULL;
	int ret;

	fuzz_write("fuzz.json", data, size);
	ret = event_table_load(fuzz_tmpdir(), "fuzz", &t, &err);
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
		if (!err_msg(err)[0])
			fuzz_fail("error %d without a message", ret);
	}
	err_clear(&err);
	return 0;
}
