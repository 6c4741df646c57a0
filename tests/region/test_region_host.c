/*
 * region_host: the area pmustat makes for a run, and the reader that turns
 * what libpmustat-region wrote into a result, treating every byte of it as
 * untrusted. Areas are built here by hand, as the library (or a program
 * scribbling on them) would leave them.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "region/region_host.h"
#include "base/err.h"

struct area {
	struct region_host_params p;
	struct pmustat_region_header h;
	unsigned char *buf;
	size_t size;
};

static void
area_new(struct area *a, unsigned nevents)
{
	struct pmustat_error *err = NULL;

	memset(a, 0, sizeof(*a));
	a->p.mode = PMUSTAT_REGION_MODE_RDPMC;
	a->p.nevents = nevents;
	a->p.run = 1;
	a->p.thread_capacity = 4;
	a->p.record_capacity = 8;
	for (unsigned i = 0; i < nevents; i++)
		a->p.events[i] = (struct region_host_event){ .rdpmc_ecx = i, .width = 48, .perf_fd = -1 };
	assert_int_equal(region_header_init(&a->p, &a->h, &err), 0);
	a->size = (size_t)a->h.area_size;
	assert_true(a->size >= sizeof(a->h));
	if (a->size < sizeof(a->h))
		abort();	/* cmocka's failure does not return here, but the analyzer cannot know */
	a->buf = calloc(1, a->size);
	assert_non_null(a->buf);
	memcpy(a->buf, &a->h, sizeof(a->h));
	err_clear(&err);
}

static struct pmustat_region_header *
hdr(struct area *a)
{
	return (void *)a->buf;
}

/* What the library does on a thread's first call. */
static struct pmustat_region_thread *
add_thread(struct area *a, int pid, int tid)
{
	struct pmustat_region_thread *t;

	t = (void *)(a->buf + a->h.thread_offset + hdr(a)->threads_used * a->h.thread_size);
	hdr(a)->threads_used++;
	t->pid = pid;
	t->tid = tid;
	t->state = PMUSTAT_REGION_PUBLISHED;
	return t;
}

static struct pmustat_region_record *
add_record(struct area *a, uint32_t thread, const char *name, uint64_t calls, uint64_t sum0)
{
	struct pmustat_region_record *r;

	r = (void *)(a->buf + a->h.record_offset + hdr(a)->records_used * a->h.record_size);
	hdr(a)->records_used++;
	r->thread = thread;
	strncpy(r->name, name, sizeof(r->name) - 1);
	r->calls = calls;
	r->sum[0] = sum0;
	r->state = PMUSTAT_REGION_PUBLISHED;
	return r;
}

static int
parse(struct area *a, struct region_result *r, struct pmustat_error **err)
{
	return region_result_parse(a->buf, a->size, &a->p, r, err);
}

static void
expect_refused(struct area *a, const char *what)
{
	struct region_result r;
	struct pmustat_error *err = NULL;

	assert_int_equal(parse(a, &r, &err), -EPROTO);
	if (!strstr(err_msg(err), what))
		fail_msg("refusal '%s' does not mention '%s'", err_msg(err), what);
	assert_int_equal(r.ncounts, 0);
	assert_null(r.counts);
	err_clear(&err);
}

static void
test_params_checked(void **state)
{
	struct region_host_params p = { .mode = PMUSTAT_REGION_MODE_RDPMC, .nevents = 1 };
	struct pmustat_region_header h;
	struct pmustat_error *err = NULL;

	(void)state;
	p.events[0].width = 48;
	assert_int_equal(region_header_init(&p, &h, &err), 0);
	assert_int_equal(h.thread_capacity, REGION_HOST_DEFAULT_THREADS);
	assert_int_equal(h.record_capacity, REGION_HOST_DEFAULT_RECORDS);
	assert_int_equal(h.thread_offset % 64, 0);
	assert_int_equal(h.record_offset % 64, 0);
	assert_int_equal(h.area_size, h.record_offset + (uint64_t)h.record_capacity * h.record_size);

	p.nevents = 0;
	assert_int_equal(region_header_init(&p, &h, &err), -EINVAL);
	p.nevents = PMUSTAT_REGION_MAX_EVENTS + 1;
	assert_int_equal(region_header_init(&p, &h, &err), -EINVAL);
	p.nevents = 1;
	p.events[0].width = 65;
	assert_int_equal(region_header_init(&p, &h, &err), -EINVAL);
	p.events[0].width = 40;
	p.events[0].rdpmc_ecx = 0x80000000u;	/* would make rdpmc fault */
	assert_int_equal(region_header_init(&p, &h, &err), -EINVAL);
	assert_non_null(strstr(err_msg(err), "ECX"));
	p.events[0].rdpmc_ecx = 1u << 30 | 2;
	assert_int_equal(region_header_init(&p, &h, &err), 0);
	p.record_capacity = PMUSTAT_REGION_MAX_RECORDS + 1;
	assert_int_equal(region_header_init(&p, &h, &err), -EINVAL);
	p.record_capacity = 0;
	p.mode = 7;
	assert_int_equal(region_header_init(&p, &h, &err), -EINVAL);
	err_clear(&err);
}

static void
test_never_attached(void **state)
{
	struct region_result r;
	struct area a;
	struct pmustat_error *err = NULL;

	(void)state;
	area_new(&a, 2);
	assert_int_equal(parse(&a, &r, &err), 0);
	assert_int_equal(r.attached, 0);
	assert_int_equal(r.nthreads, 0);
	assert_int_equal(r.ncounts, 0);
	assert_int_equal(r.ntotals, 0);
	assert_int_equal(r.run, 1);
	region_result_free(&r);
	free(a.buf);
	err_clear(&err);
}

static void
test_counts_and_totals(void **state)
{
	struct pmustat_region_record *rec;
	struct pmustat_region_thread *t1;
	struct region_result r;
	struct area a;
	struct pmustat_error *err = NULL;

	(void)state;
	area_new(&a, 2);
	hdr(&a)->attached = 1;
	add_thread(&a, 100, 100);
	t1 = add_thread(&a, 100, 101);
	t1->unmatched_ends = 3;
	rec = add_record(&a, 0, "hot", 2, 2000);
	rec->sum[1] = 7;
	add_record(&a, 0, "cold", 1, 50);
	rec = add_record(&a, 1, "hot", 3, 30);
	rec->minus_open = 0xffffffffu;	/* one still open when the thread ended: 4 begins */
	assert_int_equal(parse(&a, &r, &err), 0);

	assert_int_equal(r.attached, 1);
	assert_int_equal(r.nthreads, 2);
	assert_int_equal(r.threads[1].tid, 101);
	assert_int_equal(r.threads[1].unmatched_ends, 3);
	assert_int_equal(r.ncounts, 3);
	/* By thread, then name. */
	assert_string_equal(r.counts[0].name, "cold");
	assert_string_equal(r.counts[1].name, "hot");
	assert_int_equal(r.counts[2].thread, 1);
	assert_int_equal(r.ntotals, 2);
	assert_string_equal(r.totals[0].name, "cold");
	assert_int_equal(r.totals[0].calls, 1);
	assert_int_equal(r.totals[0].sum[0], 50);
	assert_string_equal(r.totals[1].name, "hot");
	assert_int_equal(r.totals[1].threads, 2);
	assert_int_equal(r.totals[1].calls, 5);
	assert_int_equal(r.totals[1].begins, 6);
	assert_int_equal(r.totals[1].sum[0], 2030);
	assert_int_equal(r.totals[1].sum[1], 7);
	assert_false(r.totals[1].saturated);
	region_result_free(&r);
	free(a.buf);
	err_clear(&err);
}

static void
test_unfinished_entries_skipped(void **state)
{
	struct region_result r;
	struct area a;
	struct pmustat_error *err = NULL;

	(void)state;
	area_new(&a, 1);
	add_thread(&a, 100, 100);
	hdr(&a)->threads_used++;	/* slot taken, process killed before it was filled */
	add_record(&a, 0, "hot", 1, 1);
	hdr(&a)->records_used++;	/* likewise a record */
	assert_int_equal(parse(&a, &r, &err), 0);
	assert_int_equal(r.skipped, 2);
	assert_int_equal(r.nthreads, 1);
	assert_int_equal(r.ncounts, 1);
	region_result_free(&r);
	free(a.buf);
	err_clear(&err);
}

static void
test_names_made_printable(void **state)
{
	struct region_result r;
	struct area a;
	struct pmustat_error *err = NULL;

	(void)state;
	area_new(&a, 1);
	add_thread(&a, 1, 1);
	add_record(&a, 0, "a\nb\x1b[31m", 1, 1);
	add_record(&a, 0, "gr\xc3\xb6\xc3\x9f" "e", 1, 1);	/* valid UTF-8 stays */
	add_record(&a, 0, "x\xff\xc3(\xed\xa0\x80", 1, 1);	/* invalid bytes, a surrogate */
	assert_int_equal(parse(&a, &r, &err), 0);
	assert_int_equal(r.ncounts, 3);
	assert_string_equal(r.counts[0].name, "a?b?[31m");
	assert_string_equal(r.counts[1].name, "gr\xc3\xb6\xc3\x9f" "e");
	assert_string_equal(r.counts[2].name, "x?" "?(?" "??");
	region_result_free(&r);
	free(a.buf);
	err_clear(&err);
}

static void
test_duplicates_merged_sums_saturate(void **state)
{
	struct pmustat_region_record *rec;
	struct region_result r;
	struct area a;
	struct pmustat_error *err = NULL;

	(void)state;
	area_new(&a, 1);
	add_thread(&a, 1, 1);
	add_thread(&a, 1, 2);
	/* Two long names cut to the same 63 bytes are one region to the reader. */
	rec = add_record(&a, 0, "x", 1, 10);
	rec->flags = PMUSTAT_REGION_NAME_TRUNCATED;
	add_record(&a, 0, "x", 2, 20);
	add_record(&a, 1, "x", 1, UINT64_MAX - 5);
	assert_int_equal(parse(&a, &r, &err), 0);
	assert_int_equal(r.ncounts, 2);
	assert_int_equal(r.counts[0].calls, 3);
	assert_int_equal(r.counts[0].sum[0], 30);
	assert_true(r.counts[0].truncated);
	assert_int_equal(r.ntotals, 1);
	assert_int_equal(r.totals[0].sum[0], UINT64_MAX);
	assert_true(r.totals[0].saturated);
	region_result_free(&r);
	free(a.buf);
	err_clear(&err);
}

static void
test_corruption_refused(void **state)
{
	struct pmustat_region_record *rec;
	struct pmustat_region_thread *t;
	struct region_result r;
	struct area a;
	struct pmustat_error *err = NULL;

	(void)state;
	area_new(&a, 2);
	hdr(&a)->nevents = 3;
	expect_refused(&a, "header");
	free(a.buf);

	area_new(&a, 2);
	hdr(&a)->event[0].rdpmc_ecx = 5;
	expect_refused(&a, "header");
	free(a.buf);

	area_new(&a, 2);
	hdr(&a)->reserved1[3] = 1;
	expect_refused(&a, "header");
	free(a.buf);

	area_new(&a, 2);
	hdr(&a)->threads_used = 5;
	expect_refused(&a, "threads");
	free(a.buf);

	area_new(&a, 2);
	hdr(&a)->records_used = 9;
	expect_refused(&a, "records");
	free(a.buf);

	area_new(&a, 2);
	t = add_thread(&a, 1, 1);
	t->state = 7;
	expect_refused(&a, "thread slot 0");
	t->state = PMUSTAT_REGION_PUBLISHED;
	t->tid = -3;
	expect_refused(&a, "thread slot 0");
	t->tid = 1;
	t->perf_error = 5;
	expect_refused(&a, "thread slot 0");
	t->perf_error = 0;
	assert_int_equal(parse(&a, &r, &err), 0);
	region_result_free(&r);

	rec = add_record(&a, 3, "hot", 1, 1);	/* thread beyond those used */
	expect_refused(&a, "record 0");
	rec->thread = 0;
	memset(rec->name, 'a', sizeof(rec->name));	/* no NUL */
	expect_refused(&a, "record 0");
	strcpy(rec->name, "hot");
	rec->flags = 0x10;
	expect_refused(&a, "record 0");
	rec->flags = 0;
	rec->calls = UINT64_MAX;	/* with the open pair, more begins than a counter holds */
	rec->minus_open = 0xffffffffu;
	expect_refused(&a, "impossible");
	rec->minus_open = 0;
	rec->calls = 1;
	rec->reserved2 = 1;	/* version 1's begins */
	expect_refused(&a, "record 0");
	rec->reserved2 = 0;
	rec->uncounted = 2;	/* more pairs in no sum than pairs */
	expect_refused(&a, "impossible");
	rec->uncounted = 0;
	rec->sum[2] = 1;	/* only 2 events were programmed */
	expect_refused(&a, "not programmed");
	rec->sum[2] = 0;
	rec->reserved1[0] = 1;
	expect_refused(&a, "record 0");
	rec->reserved1[0] = 0;
	assert_int_equal(parse(&a, &r, &err), 0);
	region_result_free(&r);

	/* A record of an unpublished slot. */
	t->state = 0;
	expect_refused(&a, "record 0");
	free(a.buf);

	area_new(&a, 1);
	assert_int_equal(region_result_parse(a.buf, a.size - 1, &a.p, &r, &err), -EPROTO);
	free(a.buf);
	err_clear(&err);
}

/* The real area: a sealed memfd the child inherits, read back by pread. */
static void
test_area_round_trip(void **state)
{
	struct region_host_params p = { .mode = PMUSTAT_REGION_MODE_RDPMC, .nevents = 1, .run = 2 };
	struct pmustat_region_thread slot = { .state = PMUSTAT_REGION_PUBLISHED, .pid = 9, .tid = 9 };
	struct pmustat_region_record rec = { .state = PMUSTAT_REGION_PUBLISHED, .calls = 4 };
	struct pmustat_region_header h;
	struct region_area *a;
	struct region_result r;
	uint32_t used = 1;
	struct pmustat_error *err = NULL;
	char env[64], want[64];
	int fd;

	(void)state;
	p.events[0].width = 48;
	assert_int_equal(region_area_create(&p, &a, &err), 0);
	fd = region_area_fd(a);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	assert_int_equal(region_area_env(a, env, sizeof(env)), 0);
	snprintf(want, sizeof(want), "PMUSTAT_REGION_FD=%d", fd);
	assert_string_equal(env, want);
	assert_int_equal(region_area_env(a, env, 5), -ENOSPC);
	assert_int_equal(region_area_inherit(a), 0);
	assert_false(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	/* Sealed: nobody can shrink it under a reader's feet. */
	assert_true(ftruncate(fd, 100) < 0);
	assert_true((fcntl(fd, F_GET_SEALS) & (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)) ==
		    (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL));

	assert_int_equal(pread(fd, &h, sizeof(h), 0), (ssize_t)sizeof(h));
	assert_true(h.magic == PMUSTAT_REGION_MAGIC);
	assert_int_equal(h.run, 2);
	assert_int_equal(region_area_size(a), (size_t)h.area_size);
	strcpy(rec.name, "loop");
	rec.sum[0] = 12345;
	assert_int_equal(pwrite(fd, &slot, sizeof(slot), h.thread_offset), (ssize_t)sizeof(slot));
	assert_int_equal(pwrite(fd, &rec, sizeof(rec), h.record_offset), (ssize_t)sizeof(rec));
	assert_int_equal(pwrite(fd, &used, 4, offsetof(struct pmustat_region_header, threads_used)), 4);
	assert_int_equal(pwrite(fd, &used, 4, offsetof(struct pmustat_region_header, records_used)), 4);
	assert_int_equal(region_area_read(a, &r, &err), 0);
	assert_int_equal(r.ntotals, 1);
	assert_string_equal(r.totals[0].name, "loop");
	assert_int_equal(r.totals[0].calls, 4);
	assert_int_equal(r.totals[0].sum[0], 12345);
	region_result_free(&r);
	region_area_free(a);

	p.nevents = 0;
	assert_int_equal(region_area_create(&p, &a, &err), -EINVAL);
	assert_null(a);
	err_clear(&err);
}

static void
test_attach_error_text(void **state)
{
	(void)state;
	assert_non_null(strstr(region_attach_error_str(PMUSTAT_REGION_ATTACH_VERSION), "version"));
	assert_non_null(strstr(region_attach_error_str(PMUSTAT_REGION_ATTACH_PERF), "perf"));
	assert_non_null(region_attach_error_str(99));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_params_checked),
		cmocka_unit_test(test_never_attached),
		cmocka_unit_test(test_counts_and_totals),
		cmocka_unit_test(test_unfinished_entries_skipped),
		cmocka_unit_test(test_names_made_printable),
		cmocka_unit_test(test_duplicates_merged_sums_saturate),
		cmocka_unit_test(test_corruption_refused),
		cmocka_unit_test(test_area_round_trip),
		cmocka_unit_test(test_attach_error_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
