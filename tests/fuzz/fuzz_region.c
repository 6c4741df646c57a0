/*
 * fuzz_region.c - the region area as the counted program leaves it
 * (region_result_parse), which pmustat reads as untrusted input.
 *
 * Input: byte 0 picks the area pmustat made: bit 0 the mode (rdpmc, perf),
 * bits 4:1 the number of events - 1, bit 5 whether the rest of the input
 * overwrites the whole area from offset 0 (header included) or only what
 * the library writes (the header's counters and both tables); byte 1 the
 * capacities (bits 1:0 threads - 1, bits 4:2 records - 1). The rest is the
 * area's bytes; the area is zero past the input.
 *
 * Checked: a refusal has a message and leaves nothing allocated; an
 * accepted result stays within the capacities, every count points at a
 * thread, names are NUL-terminated printable UTF-8, totals are sorted by
 * name without repeats and add up the counts (or refuse counts past any run's).
 */
#include "fuzz_util.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "region/region_host.h"
#include "base/err.h"

static void
check_name(const char *name)
{
	const unsigned char *s = (const unsigned char *)name;
	size_t len = strnlen(name, PMUSTAT_REGION_NAME_SIZE);

	if (len == PMUSTAT_REGION_NAME_SIZE)
		fuzz_fail("name not NUL-terminated");
	for (size_t i = 0; i < len; i++) {
		if (s[i] < 0x20 || s[i] == 0x7f)
			fuzz_fail("control character 0x%02x in a name", s[i]);
	}
}

static void
check_result(const struct region_result *r, const struct region_host_params *p)
{
	for (unsigned i = 0; i < r->ncounts; i++) {
		const struct region_thread_count *c = &r->counts[i];

		if (c->thread >= r->nthreads)
			fuzz_fail("count %u of thread %u, %u threads", i, c->thread, r->nthreads);
		if (c->calls > c->begins && c->begins != UINT64_MAX)
			fuzz_fail("count %u: %llu calls of %llu begins", i, (unsigned long long)c->calls,
				  (unsigned long long)c->begins);
		check_name(c->name);
	}
	if (r->nthreads > p->thread_capacity || r->ncounts > p->record_capacity ||
	    r->ntotals > r->ncounts)
		fuzz_fail("%u threads, %u counts, %u totals", r->nthreads, r->ncounts, r->ntotals);
	for (unsigned i = 0; i < r->ntotals; i++) {
		const struct region_total *t = &r->totals[i];
		uint64_t calls = 0;
		bool wrapped = false;

		check_name(t->name);
		if (i > 0 && strcmp(r->totals[i - 1].name, t->name) >= 0)
			fuzz_fail("totals not sorted: '%s' then '%s'", r->totals[i - 1].name, t->name);
		for (unsigned j = 0; j < r->ncounts; j++) {
			if (strcmp(r->counts[j].name, t->name) != 0)
				continue;
			if (calls + r->counts[j].calls < calls)
				wrapped = true;
			calls += r->counts[j].calls;
		}
		if (!wrapped && calls != t->calls)
			fuzz_fail("total '%s': %llu calls, counts add up to %llu", t->name,
				  (unsigned long long)t->calls, (unsigned long long)calls);
		if (wrapped || t->calls > REGION_COUNT_MAX)
			fuzz_fail("total '%s' past any run's count (%llu calls) not refused", t->name,
				  (unsigned long long)t->calls);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct region_host_params p = { 0 };
	struct pmustat_region_header h;
	struct region_result r;
	unsigned char *area;
	size_t from;
	struct pmustat_error *err = NULL;
	int ret;

	if (size < 2)
		return 0;
	p.mode = data[0] & 1 ? PMUSTAT_REGION_MODE_PERF : PMUSTAT_REGION_MODE_RDPMC;
	p.nevents = ((data[0] >> 1) & 0xf) + 1;
	p.thread_capacity = (data[1] & 3) + 1;
	p.record_capacity = ((data[1] >> 2) & 7) + 1;
	for (unsigned i = 0; i < p.nevents; i++)
		p.events[i] = (struct region_host_event){ .rdpmc_ecx = i, .width = 40 + i, .perf_fd = -1 };
	if (region_header_init(&p, &h, &err) != 0)
		fuzz_fail("params refused: %s", err_msg(err));
	area = calloc(1, (size_t)h.area_size);
	if (!area)
		fuzz_fail("out of memory");
	memcpy(area, &h, sizeof(h));
	from = data[0] & 0x20 ? 0 : offsetof(struct pmustat_region_header, attached);
	data += 2;
	size -= 2;
	if (size > h.area_size - from)
		size = (size_t)h.area_size - from;
	memcpy(area + from, data, size);

	ret = region_result_parse(area, (size_t)h.area_size, &p, &r, &err);
	if (ret < 0) {
		if (!err_msg(err)[0])
			fuzz_fail("refused (%d) without a message", ret);
		if (r.counts || r.threads || r.totals || r.ncounts)
			fuzz_fail("refused but left a result");
	} else {
		check_result(&r, &p);
		region_result_free(&r);
	}
	free(area);
	err_clear(&err);
	return 0;
}
