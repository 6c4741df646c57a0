/*
 * test_region_lib_perf_e2e.c - libpmustat-region on perf's user pages
 * instead of pmustat's area: pages it can and cannot read, other threads'
 * own events, the kernel's events read by the thread itself.
 */
#include "region_lib_e2e.h"

/* A perf_event_mmap_page as the kernel fills it, in a memfd the child inherits. */
static int
fake_page(uint32_t index, int64_t offset, bool rdpmc)
{
	struct perf_event_mmap_page pg;
	int fd = memfd_create("fake-perf-page", 0);

	assert_true(fd >= 0);
	memset(&pg, 0, sizeof(pg));
	pg.lock = 2;
	pg.index = index;
	pg.offset = offset;
	pg.pmc_width = WIDTH;
	pg.cap_user_rdpmc = rdpmc;
	assert_int_equal(ftruncate(fd, sysconf(_SC_PAGESIZE)), 0);
	assert_int_equal(pwrite(fd, &pg, sizeof(pg), 0), (ssize_t)sizeof(pg));
	return fd;
}

/*
 * Perf mode: @fd0/@fd1 stand for the self-read events pmustat's child
 * opens before execve (their pages say which counter to rdpmc); other
 * threads open their own events (software dummies here: index 0, so
 * their pairs are "uncounted").
 */
static struct region_result
perf_script(struct fixture *f, int fd0, int fd1, const char *const steps[])
{
	const char *argv[16] = { REGION_SCRIPT };
	char *env[4];
	struct region_result r;
	struct pmustat_error *err = NULL;
	int status;
	size_t n = 1;
	pid_t pid;

	memset(f, 0, sizeof(*f));
	e2e_machine_new(&f->m, (const char *[]){ "--model", "skylake", "--cpus", "2", NULL });
	assert_int_equal(e2e_set_msr(&f->m, CPU, MSR_IA32_PERFEVTSEL0, LLC_EVTSEL), 0);
	/* Sign extension at the counter's width: it wraps inside the first pair. */
	assert_int_equal(e2e_set_msr(&f->m, CPU, MSR_IA32_A_PMC0, (1ull << WIDTH) - 5), 0);
	assert_int_equal(e2e_set_msr(&f->m, CPU, MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_USR), 0);
	assert_int_equal(e2e_set_msr(&f->m, CPU, MSR_IA32_PERF_GLOBAL_CTRL, 1ull | 1ull << 32), 0);
	f->p.mode = PMUSTAT_REGION_MODE_PERF;
	f->p.nevents = 2;
	for (unsigned i = 0; i < 2; i++)
		f->p.events[i] = (struct region_host_event){
			.perf_fd = -1, .perf_type = PERF_TYPE_SOFTWARE, .perf_config = PERF_COUNT_SW_DUMMY,
			.perf_flags = PMUSTAT_REGION_PERF_EXCLUDE_KERNEL | PMUSTAT_REGION_PERF_EXCLUDE_HV,
		};
	if (region_area_create(&f->p, &f->area, &err) != 0)
		fail_msg("%s", err_msg(err));
	assert_int_equal(region_area_env(f->area, f->env, sizeof(f->env)), 0);
	for (size_t i = 0; steps[i] && n < 15; i++)
		argv[n++] = steps[i];
	argv[n] = NULL;
	assert_true(asprintf(&env[0], "LD_PRELOAD=%s", E2E_LIBPMUEMU) > 0);
	assert_true(asprintf(&env[1], "%s=%s", EMU_STATE_ENV, f->m.state) > 0);
	env[2] = f->env;
	env[3] = NULL;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* What pmustat's child does between fork and execve. */
		int fds[2] = { fd0, fd1 };
		cpu_set_t one;

		CPU_ZERO(&one);
		CPU_SET(CPU, &one);
		if (sched_setaffinity(0, sizeof(one), &one) < 0 || region_area_inherit(f->area) < 0)
			_exit(125);
		/* No pages given: the real kernel's events, opened as pmustat's child opens them. */
		if (fd0 < 0 ? region_area_open_perf(f->area, perf_sys_linux(), NULL) < 0
			    : region_area_set_perf(f->area, getpid(), fds, 2) < 0)
			_exit(125);
		execve(REGION_SCRIPT, (char *const *)argv, env);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("region-script in perf mode ended with status 0x%x", status);
	free(env[0]);
	free(env[1]);
	if (fd0 >= 0) {
		close(fd0);
		close(fd1);
	}
	if (region_area_read(f->area, &r, &err) != 0)
		fail_msg("%s", err_msg(err));
	err_clear(&err);
	return r;
}

void
test_perf_pages(void **state)
{
	struct region_result r;
	struct fixture f;

	(void)state;
	/* index is ECX + 1: GP0, and fixed counter 0 (10 instructions per miss). */
	r = perf_script(&f, fake_page(1, 1000, true), fake_page((1u << 30) + 1, -5, true),
			(const char *[]){ "b:a", "r:7", "e:a", "b:a", "r:3", "e:a", NULL });
	assert_int_equal(r.attached, 1);
	assert_int_equal(r.attach_error, 0);
	assert_int_equal(total(&r, "a")->calls, 2);
	assert_int_equal(total(&r, "a")->uncounted, 0);
	assert_int_equal(total(&r, "a")->sum[0], 10);
	assert_int_equal(total(&r, "a")->sum[1], 100);
	region_result_free(&r);
	teardown(&f);
}

void
test_perf_not_readable(void **state)
{
	struct region_result r;
	struct fixture f;

	(void)state;
	/* An event not on the PMU now (index 0), or without cap_user_rdpmc: the pair is not counted. */
	r = perf_script(&f, fake_page(1, 0, true), fake_page(0, 0, true),
			(const char *[]){ "b:a", "r:7", "e:a", NULL });
	assert_int_equal(total(&r, "a")->calls, 1);
	assert_int_equal(total(&r, "a")->uncounted, 1);
	assert_int_equal(total(&r, "a")->sum[0], 0);
	region_result_free(&r);
	teardown(&f);

	r = perf_script(&f, fake_page(1, 0, false), fake_page(1, 0, true),
			(const char *[]){ "b:a", "r:7", "e:a", NULL });
	assert_int_equal(total(&r, "a")->uncounted, 1);
	region_result_free(&r);
	teardown(&f);
}

void
test_perf_other_threads_open_their_own(void **state)
{
	struct region_result r;
	struct fixture f;

	(void)state;
	r = perf_script(&f, fake_page(1, 0, true), fake_page(1, 0, true),
			(const char *[]){ "threads:2", "b:t", "r:1", "e:t", NULL });
	assert_int_equal(r.nthreads, 2);
	for (unsigned i = 0; i < r.nthreads; i++)
		assert_int_equal(r.threads[i].perf_error, 0);
	/* Their own (dummy) events are never on a counter: every pair uncounted, none lost. */
	assert_int_equal(total(&r, "t")->calls, 2);
	assert_int_equal(total(&r, "t")->uncounted, 2);
	region_result_free(&r);
	teardown(&f);
}

/*
 * The self-read events opened for real by the child before its execve
 * (region_area_open_perf()), inherited by the command, whose library maps
 * their pages: software events here, never on a PMU counter (page index
 * 0, as for a hardware event the kernel could not schedule), so every pair
 * is a call and uncounted; the mapping itself must work (no refusal).
 */
void
test_perf_self_read_events_of_the_kernel(void **state)
{
	struct region_result r;
	struct fixture f;

	(void)state;
	r = perf_script(&f, -1, -1, (const char *[]){ "b:a", "r:7", "e:a", "b:a", "e:a", "threads:2", "b:t", "e:t", NULL });
	assert_int_equal(r.attached, 1);
	assert_int_equal(r.attach_error, PMUSTAT_REGION_ATTACH_OK);
	assert_int_equal(total(&r, "a")->calls, 2);
	assert_int_equal(total(&r, "a")->uncounted, 2);
	assert_int_equal(total(&r, "a")->sum[0], 0);
	assert_int_equal(total(&r, "t")->calls, 2);
	assert_int_equal(total(&r, "t")->uncounted, 2);
	for (unsigned i = 0; i < r.nthreads; i++)
		assert_int_equal(r.threads[i].perf_error, 0);
	region_result_free(&r);
	teardown(&f);
}
