/*
 * libpmustat-region in real programs on the emulated PMU, with this test
 * playing pmustat's side through region_host: program counters by hand,
 * make the area, run region-demo or region-script pinned to the counted
 * CPU under libpmuemu.so (whose SIGSEGV handler answers the library's
 * rdpmc), read the records back, and check exact sums and calls.
 */
#include "region_lib_e2e.h"

/*
 * GP0 counts LLC misses from @preset, FIXED0 instructions (10 per miss);
 * the area has @nevents events, alternately on GP0 and FIXED0. With
 * @narrow, event i is read as a counter of 8 + i bits: each sum is then its
 * own counter's count modulo its own width, so an event read with another
 * event's ECX or mask shows.
 */
void
setup_events(struct fixture *f, uint64_t preset, unsigned threads, unsigned records, unsigned nevents,
	     bool narrow)
{
	struct pmustat_error *err = NULL;

	memset(f, 0, sizeof(*f));
	e2e_machine_new(&f->m, (const char *[]){ "--model", "skylake", "--cpus", "2", NULL });
	assert_int_equal(e2e_set_msr(&f->m, CPU, MSR_IA32_PERFEVTSEL0, LLC_EVTSEL), 0);
	assert_int_equal(e2e_set_msr(&f->m, CPU, MSR_IA32_A_PMC0, preset), 0);
	assert_int_equal(e2e_set_msr(&f->m, CPU, MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_USR), 0);
	assert_int_equal(e2e_set_msr(&f->m, CPU, MSR_IA32_PERF_GLOBAL_CTRL, 1ull | 1ull << 32), 0);
	f->p.mode = PMUSTAT_REGION_MODE_RDPMC;
	f->p.nevents = nevents;
	for (unsigned i = 0; i < nevents; i++)
		f->p.events[i] = (struct region_host_event){
			.rdpmc_ecx = i % 2 ? 1u << 30 : 0, .width = narrow ? 8 + i : WIDTH, .perf_fd = -1,
		};
	f->p.thread_capacity = threads;
	f->p.record_capacity = records;
	if (region_area_create(&f->p, &f->area, &err) != 0)
		fail_msg("%s", err_msg(err));
	/* Every child of this test inherits it (pmustat does this in its child only). */
	assert_int_equal(region_area_inherit(f->area), 0);
	assert_int_equal(region_area_env(f->area, f->env, sizeof(f->env)), 0);
	err_clear(&err);
}

/* GP0 and FIXED0 at their width. */
void
setup(struct fixture *f, uint64_t preset, unsigned threads, unsigned records)
{
	setup_events(f, preset, threads, records, 2, false);
}

void
teardown(struct fixture *f)
{
	region_area_free(f->area);
	e2e_machine_free(&f->m);
}

/* Run @argv pinned to CPU with the area in its environment (and @extra_env). */
void
run_pinned(struct fixture *f, const char *const argv[], const char *extra_env, int want_status)
{
	const char *env[] = { f->env, extra_env, NULL };
	struct e2e_result r;
	cpu_set_t saved, one;

	assert_int_equal(sched_getaffinity(0, sizeof(saved), &saved), 0);
	CPU_ZERO(&one);
	CPU_SET(CPU, &one);
	assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
	e2e_run_env(&f->m, &r, argv, extra_env ? env : (const char *[]){ f->env, NULL });
	assert_int_equal(sched_setaffinity(0, sizeof(saved), &saved), 0);
	if (r.status != want_status)
		fail_msg("%s exited %d (want %d): %s", argv[0], r.status, want_status, r.err);
	e2e_result_free(&r);
}

void
read_result(struct fixture *f, struct region_result *r)
{
	struct pmustat_error *err = NULL;

	if (region_area_read(f->area, r, &err) != 0)
		fail_msg("%s", err_msg(err));
	err_clear(&err);
}

const struct region_total *
total(const struct region_result *r, const char *name)
{
	static const struct region_total none;

	for (unsigned i = 0; i < r->ntotals; i++)
		if (strcmp(r->totals[i].name, name) == 0)
			return &r->totals[i];
	fail_msg("no region '%s' in the result", name);
	return &none;
}

void
expect_total(const struct region_result *r, const char *name, uint64_t calls, uint64_t units)
{
	const struct region_total *t = total(r, name);

	if (t->calls != calls || t->sum[0] != units || t->sum[1] != 10 * units)
		fail_msg("region %s: %llu calls, %llu LLC, %llu instructions; want %llu, %llu, %llu",
			 name, (unsigned long long)t->calls, (unsigned long long)t->sum[0],
			 (unsigned long long)t->sum[1], (unsigned long long)calls,
			 (unsigned long long)units, (unsigned long long)(10 * units));
}

/* The demo: exact per-region sums and calls, per thread too, with a wrap inside "hot". */
static void
test_demo_exact(void **state)
{
	/* 1 outside and the first "hot" leave 49 to the wrap: it happens inside the second. */
	const uint64_t preset = (1ull << WIDTH) - 150;
	struct region_result r;
	struct fixture f;
	unsigned worker;

	(void)state;
	setup(&f, preset, 0, 0);
	run_pinned(&f, (const char *[]){ REGION_DEMO, NULL }, NULL, 0);
	read_result(&f, &r);
	assert_int_equal(r.attached, 1);
	assert_int_equal(r.attach_error, 0);
	assert_int_equal(r.nthreads, 2);
	expect_total(&r, "hot", 3, 1200);
	expect_total(&r, "cold", 1, 18);
	expect_total(&r, "inner", 1, 5);
	expect_total(&r, "worker", 1, 7);
	expect_total(&r, "rec", 2, 5);
	assert_int_equal(total(&r, "rec")->begins, 2);
	assert_int_equal(r.ntotals, 5);
	assert_int_equal(total(&r, "hot")->threads, 2);
	/* Per thread: the worker's "hot" is its own 1000. */
	worker = r.counts[0].thread == 0 && strcmp(r.counts[0].name, "cold") == 0 ? 1 : 0;
	for (unsigned i = 0; i < r.ncounts; i++) {
		if (strcmp(r.counts[i].name, "hot") == 0)
			assert_int_equal(r.counts[i].sum[0], r.counts[i].thread == worker ? 1000 : 200);
	}
	for (unsigned i = 0; i < r.nthreads; i++) {
		assert_int_equal(r.threads[i].unmatched_ends, 0);
		assert_int_equal(r.threads[i].depth_dropped, 0);
	}
	/* Whole run: every event, inside regions or not, and the counter did wrap. */
	assert_int_equal(e2e_msr(&f.m, CPU, MSR_IA32_PMC0), (preset + 1233) & MASK);
	assert_int_equal(e2e_msr(&f.m, CPU, MSR_IA32_FIXED_CTR0), 12330);
	region_result_free(&r);
	teardown(&f);
}

/* The shared library loaded with dlopen() after the program started: the same exact sums. */
static void
test_loaded_with_dlopen(void **state)
{
	struct region_result r;
	struct fixture f;

	(void)state;
	setup(&f, 0, 0, 0);
	run_pinned(&f, (const char *[]){ REGION_DLOPEN, REGION_LIB, NULL }, NULL, 0);
	read_result(&f, &r);
	assert_int_equal(r.attached, 1);
	assert_int_equal(r.nthreads, 2);
	expect_total(&r, "hot", 3, 1205);
	expect_total(&r, "inner", 1, 5);
	assert_int_equal(r.threads[0].unmatched_ends + r.threads[1].unmatched_ends, 0);
	region_result_free(&r);
	teardown(&f);
}

/* Not started by pmustat: no area, no rdpmc, nothing recorded, never a fault. */
static void
test_without_pmustat(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	pid_t pid;
	int status;

	(void)state;
	/* rdpmc faults on this emulated machine: the library must not execute it. */
	e2e_machine_new(&m, (const char *[]){ "--model", "skylake", "--cpus", "2", "--rdpmc=off", NULL });
	e2e_run(&m, &r, (const char *[]){ REGION_DEMO, NULL });
	e2e_assert_status(&r, 0);
	e2e_result_free(&r);
	e2e_run_env(&m, &r, (const char *[]){ REGION_DEMO, NULL },
		    (const char *[]){ "PMUSTAT_REGION_FD=0", NULL });	/* stdin: not an area */
	e2e_assert_status(&r, 0);
	e2e_result_free(&r);
	e2e_machine_free(&m);

	/* And with no emulator at all, where rdpmc would kill it. */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, STDOUT_FILENO);
		unsetenv("LD_PRELOAD");
		unsetenv(PMUSTAT_REGION_ENV_FD);
		execl(REGION_SCRIPT, REGION_SCRIPT, "b:a", "b:a", "e:b", "e:a", "null", "e:a", NULL);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static struct region_result
script(struct fixture *f, const char *const steps[], unsigned threads, unsigned records)
{
	const char *argv[32] = { REGION_SCRIPT };
	struct region_result r;
	size_t n = 1;

	setup(f, 0, threads, records);
	for (size_t i = 0; steps[i] && n < 31; i++)
		argv[n++] = steps[i];
	argv[n] = NULL;
	run_pinned(f, argv, NULL, 0);
	read_result(f, &r);
	return r;
}

static void
test_mismatched_ends(void **state)
{
	struct region_result r;
	struct fixture f;

	(void)state;
	/* e:b does not close "a"; e:x closes nothing; E:a closes "a" from another pointer. */
	r = script(&f, (const char *[]){ "e:x", "b:a", "r:5", "e:b", "r:2", "E:a", "null", NULL }, 0, 0);
	assert_int_equal(r.nthreads, 1);
	assert_int_equal(r.threads[0].unmatched_ends, 2);
	assert_int_equal(r.ntotals, 1);
	assert_string_equal(r.totals[0].name, "a");
	assert_int_equal(r.totals[0].calls, 1);
	assert_int_equal(r.totals[0].sum[0], 7);
	region_result_free(&r);
	teardown(&f);
}

static void
test_same_name_other_pointer(void **state)
{
	struct region_result r;
	struct fixture f;

	(void)state;
	r = script(&f, (const char *[]){ "b:x", "r:3", "e:x", "B:x", "r:4", "E:x", "b:x", "r:1", "E:x",
					 NULL }, 0, 0);
	assert_int_equal(r.ncounts, 1);
	assert_int_equal(r.totals[0].calls, 3);
	assert_int_equal(r.totals[0].sum[0], 8);
	assert_int_equal(r.threads[0].unmatched_ends, 0);
	region_result_free(&r);
	teardown(&f);
}

static void
test_recursion_and_left_open(void **state)
{
	struct region_result r;
	struct fixture f;

	(void)state;
	r = script(&f, (const char *[]){ "b:r", "r:1", "b:r", "b:r", "r:4", "e:r", "e:r", "r:2", "e:r",
					 "b:open", "r:9", NULL }, 0, 0);
	assert_int_equal(total(&r, "r")->calls, 3);
	assert_int_equal(total(&r, "r")->sum[0], 7);	/* the outermost pair, once */
	assert_int_equal(total(&r, "r")->begins, 3);
	/* Begun, never ended: begins without calls, no sums. */
	assert_int_equal(total(&r, "open")->begins, 1);
	assert_int_equal(total(&r, "open")->calls, 0);
	assert_int_equal(total(&r, "open")->sum[0], 0);
	region_result_free(&r);
	teardown(&f);
}

/*
 * Begins find their region in the frame at their depth, which remembers the
 * name it held last: names that alternate at one depth (each begin a miss),
 * nested regions repeated (hits at two depths), inner names that alternate
 * under a repeated outer one.
 */
static void
test_frame_cache_sequences(void **state)
{
	struct region_result r;
	struct fixture f;

	(void)state;
	r = script(&f, (const char *[]){ "b:a", "r:1", "e:a", "b:b", "r:2", "e:b", "b:a", "r:4", "e:a",
					 "b:b", "r:8", "e:b", "b:a", "r:16", "e:a", NULL }, 0, 0);
	expect_total(&r, "a", 3, 21);
	expect_total(&r, "b", 2, 10);
	assert_int_equal(r.ntotals, 2);
	region_result_free(&r);
	teardown(&f);

	r = script(&f, (const char *[]){ "b:o", "r:1", "b:i", "r:2", "e:i", "e:o", "b:o", "r:4", "b:i",
					 "r:8", "e:i", "r:16", "e:o", "b:o", "b:i", "r:32", "e:i", "e:o", NULL },
		   0, 0);
	expect_total(&r, "o", 3, 63);
	expect_total(&r, "i", 3, 42);
	region_result_free(&r);
	teardown(&f);

	r = script(&f, (const char *[]){ "b:o", "b:x", "r:1", "e:x", "b:y", "r:2", "e:y", "e:o", "b:o",
					 "b:y", "r:4", "e:y", "b:x", "r:8", "e:x", "r:16", "e:o", NULL }, 0, 0);
	expect_total(&r, "o", 2, 31);
	expect_total(&r, "x", 2, 9);
	expect_total(&r, "y", 2, 6);
	assert_int_equal(r.threads[0].unmatched_ends, 0);
	region_result_free(&r);
	teardown(&f);
}

/* Recursion when every frame already holds the region: still the outermost pair only. */
static void
test_recursion_through_the_cache(void **state)
{
	struct region_result r;
	struct fixture f;

	(void)state;
	/* The second round hits at both depths; then r alone at depth 1, not recursive. */
	r = script(&f, (const char *[]){ "b:r", "r:1", "b:r", "r:2", "e:r", "e:r", "b:r", "r:4", "b:r",
					 "r:8", "e:r", "r:16", "e:r", "b:o", "b:r", "r:32", "e:r", "e:o", NULL },
		   0, 0);
	expect_total(&r, "r", 5, 63);
	assert_int_equal(total(&r, "r")->begins, 5);
	expect_total(&r, "o", 1, 32);
	region_result_free(&r);
	teardown(&f);
}

/*
 * Every variant, 1 to 16 events: each reads its events with their own ECX
 * and mask, on its first pair (the thread's first call, a miss) and on
 * its second (a hit), and writes no sum beyond them (the reader refuses
 * an area with sums of unprogrammed events).
 */
static void
test_every_number_of_events(void **state)
{
	const uint64_t units = 300;
	struct region_result r;
	struct fixture f;

	(void)state;
	for (unsigned n = 1; n <= PMUSTAT_REGION_MAX_EVENTS; n++) {
		setup_events(&f, 0, 0, 0, n, true);
		run_pinned(&f, (const char *[]){ REGION_SCRIPT, "b:a", "r:300", "e:a", "b:a", "r:300", "e:a",
						 NULL }, NULL, 0);
		read_result(&f, &r);
		assert_int_equal(r.ntotals, 1);
		assert_int_equal(r.totals[0].calls, 2);
		for (unsigned i = 0; i < n; i++) {
			uint64_t per_pair = (i % 2 ? 10 * units : units) & ((1ull << (8 + i)) - 1);

			if (r.totals[0].sum[i] != 2 * per_pair)
				fail_msg("%u events: event %u summed %llu, want %llu", n, i,
					 (unsigned long long)r.totals[0].sum[i],
					 (unsigned long long)(2 * per_pair));
		}
		region_result_free(&r);
		teardown(&f);
	}
}

static void
test_depth_limit(void **state)
{
	struct region_result r;
	struct fixture f;
	char name[16];

	(void)state;
	r = script(&f, (const char *[]){ "b*70:d", "r:1", "e*70:d", "b:after", "e:after", NULL }, 0, 0);
	assert_int_equal(r.threads[0].depth_dropped, 70 - PMUSTAT_REGION_MAX_DEPTH);
	assert_int_equal(r.threads[0].unmatched_ends, 0);
	assert_int_equal(r.ntotals, PMUSTAT_REGION_MAX_DEPTH + 1);
	for (unsigned i = 0; i < PMUSTAT_REGION_MAX_DEPTH; i++) {
		snprintf(name, sizeof(name), "d%u", i);
		assert_int_equal(total(&r, name)->calls, 1);
		assert_int_equal(total(&r, name)->sum[0], 1);
	}
	assert_int_equal(total(&r, "after")->calls, 1);
	region_result_free(&r);
	teardown(&f);

	/* A name the thread knows, begun on a full stack: dropped like a new one, then all closes. */
	r = script(&f, (const char *[]){ "b:a", "e:a", "b*64:d", "b:a", "r:1", "b:a", "e:a", "e:a", "e*64:d",
					 "b:a", "r:2", "e:a", NULL }, 0, 0);
	assert_int_equal(r.threads[0].depth_dropped, 2);
	assert_int_equal(r.threads[0].unmatched_ends, 0);
	assert_int_equal(total(&r, "a")->calls, 2);
	assert_int_equal(total(&r, "a")->sum[0], 2);
	assert_int_equal(total(&r, "d63")->calls, 1);
	assert_int_equal(total(&r, "d63")->sum[0], 1);
	region_result_free(&r);
	teardown(&f);
}

static void
test_record_area_full(void **state)
{
	struct region_result r;
	struct fixture f;

	(void)state;
	/* The second n9 at depth 0 finds it in that frame: it must still be counted as dropped. */
	r = script(&f, (const char *[]){ "b*10:n", "r:2", "e*10:n", "b:n9", "e:n9", "b:n9", "r:1", "e:n9",
					 "b:n0", "r:4", "e:n0", NULL }, 0, 8);
	assert_int_equal(r.ncounts, 8);
	/* n8 and n9 got no record: their 4 pairs are counted as dropped, not lost silently. */
	assert_int_equal(r.threads[0].regions_dropped, 4);
	assert_int_equal(r.threads[0].unmatched_ends, 0);
	assert_int_equal(total(&r, "n7")->sum[0], 2);
	assert_int_equal(total(&r, "n0")->calls, 2);
	assert_int_equal(total(&r, "n0")->sum[0], 6);
	region_result_free(&r);
	teardown(&f);
}

static void
test_threads_and_slot_limit(void **state)
{
	struct region_result r;
	struct fixture f;

	(void)state;
	r = script(&f, (const char *[]){ "threads:8", "b:t", "b:u", "e:u", "e:t", "b:t", "e:t", NULL }, 4, 0);
	assert_int_equal(r.nthreads, 4);
	assert_int_equal(r.threads_dropped, 4);
	/* Each thread without a slot drops its three pairs (the last one a hit at its depth). */
	assert_int_equal(r.calls_dropped, 12);
	assert_int_equal(total(&r, "t")->calls, 8);
	assert_int_equal(total(&r, "t")->threads, 4);
	assert_int_equal(total(&r, "u")->calls, 4);
	for (unsigned i = 0; i < r.nthreads; i++)
		assert_int_equal(r.threads[i].unmatched_ends, 0);
	region_result_free(&r);
	teardown(&f);
}

static void
test_fork(void **state)
{
	struct region_result r;
	struct fixture f;

	(void)state;
	/* The child starts with no open region: its e:o is unmatched, the parent's is not. */
	r = script(&f, (const char *[]){ "b:p", "r:2", "e:p", "b:o", "fork", "e:o", "b:q", "r:1", "e:q",
					 NULL }, 0, 0);
	assert_int_equal(r.attached, 1);
	assert_int_equal(r.nthreads, 2);
	assert_true(r.threads[0].pid != r.threads[1].pid);
	assert_int_equal(r.threads[0].unmatched_ends + r.threads[1].unmatched_ends, 1);
	assert_int_equal(total(&r, "p")->calls, 1);
	assert_int_equal(total(&r, "p")->sum[0], 2);
	assert_int_equal(total(&r, "q")->calls, 2);
	assert_int_equal(total(&r, "q")->threads, 2);
	assert_int_equal(total(&r, "o")->calls, 1);
	region_result_free(&r);
	teardown(&f);
}

/* An area the library must refuse: another contract version. */
/*
 * The scheduler moves the thread to another core between a begin and its
 * end: the end's rdpmc reads the other core's counters, whose difference
 * from the begin's is no count (here 2^48 - 999,900 modulo the width). The
 * pair is a call in no sum, counted as uncounted; a pair wholly on the new
 * core counts as usual.
 */
static void
test_thread_moved_mid_region(void **state)
{
	struct region_result r;
	struct fixture f;
	const struct region_total *t;

	(void)state;
	setup(&f, 1000000, 0, 0);
	/* The same events on CPU 1, from zero. */
	assert_int_equal(e2e_set_msr(&f.m, 1, MSR_IA32_PERFEVTSEL0, LLC_EVTSEL), 0);
	assert_int_equal(e2e_set_msr(&f.m, 1, MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_USR), 0);
	assert_int_equal(e2e_set_msr(&f.m, 1, MSR_IA32_PERF_GLOBAL_CTRL, 1ull | 1ull << 32), 0);
	run_pinned(&f, (const char *[]){ REGION_SCRIPT, "b:moved", "r:100", "cpu:1", "r:100", "e:moved",
		"b:stayed", "r:5", "e:stayed", NULL }, NULL, 0);
	read_result(&f, &r);
	t = total(&r, "moved");
	assert_int_equal(t->calls, 1);
	assert_int_equal(t->uncounted, 1);
	assert_int_equal(t->sum[0], 0);
	assert_int_equal(t->sum[1], 0);
	expect_total(&r, "stayed", 1, 5);
	assert_int_equal(total(&r, "stayed")->uncounted, 0);
	region_result_free(&r);
	teardown(&f);
}

static void
test_version_refused(void **state)
{
	uint32_t version = PMUSTAT_REGION_VERSION + 1, code = 0, attached = 1;
	struct fixture f;

	(void)state;
	setup(&f, 0, 0, 0);
	assert_int_equal(pwrite(region_area_fd(f.area), &version, 4,
				offsetof(struct pmustat_region_header, version)), 4);
	run_pinned(&f, (const char *[]){ REGION_SCRIPT, "b:a", "r:1", "e:a", NULL }, NULL, 0);
	assert_int_equal(pread(region_area_fd(f.area), &code, 4,
			       offsetof(struct pmustat_region_header, attach_error)), 4);
	assert_int_equal(pread(region_area_fd(f.area), &attached, 4,
			       offsetof(struct pmustat_region_header, attached)), 4);
	assert_int_equal(code, PMUSTAT_REGION_ATTACH_VERSION);
	assert_int_equal(attached, 0);
	teardown(&f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_demo_exact),
		cmocka_unit_test(test_without_pmustat),
		cmocka_unit_test(test_loaded_with_dlopen),
		cmocka_unit_test(test_mismatched_ends),
		cmocka_unit_test(test_same_name_other_pointer),
		cmocka_unit_test(test_recursion_and_left_open),
		cmocka_unit_test(test_frame_cache_sequences),
		cmocka_unit_test(test_recursion_through_the_cache),
		cmocka_unit_test(test_every_number_of_events),
		cmocka_unit_test(test_depth_limit),
		cmocka_unit_test(test_record_area_full),
		cmocka_unit_test(test_threads_and_slot_limit),
		cmocka_unit_test(test_fork),
		cmocka_unit_test(test_thread_moved_mid_region),
		cmocka_unit_test(test_version_refused),
		cmocka_unit_test(test_perf_pages),
		cmocka_unit_test(test_perf_not_readable),
		cmocka_unit_test(test_perf_other_threads_open_their_own),
		cmocka_unit_test(test_perf_self_read_events_of_the_kernel),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
