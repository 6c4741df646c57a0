/*
 * --regions with the perf backend, against a perf_ops test double and the
 * in-process emulated PMU: when it is refused (no core PMU driver, rdpmc
 * 0) and when not; the events as the library's threads open them; and the
 * self-read events pmustat's child opens before execve (what it asks the
 * kernel, what it records in the area, what it closes when one fails).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/err.h"
#include "emu_hw.h"
#include "emu_pmu.h"
#include "engine/regions_perf.h"
#include "events/cpu.h"
#include "events/event.h"
#include "events/event_spec.h"
#include "hw/perf_sys.h"
#include "test_util.h"

#define MAX_OPENS 8

struct fake {
	struct perf_event_attr attr[MAX_OPENS];
	pid_t pid[MAX_OPENS];
	int cpu[MAX_OPENS], group_fd[MAX_OPENS];
	unsigned long flags[MAX_OPENS];
	unsigned opens;
	int fail_at;		/* the open that fails (-1: none) */
	int fail_err;
	int open_fds;
	bool has_cpu_pmu;
};

static int
fake_open(void *ctx, struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd, unsigned long flags)
{
	struct fake *f = ctx;
	unsigned i = f->opens++;

	assert_true(i < MAX_OPENS);
	f->attr[i] = *attr;
	f->pid[i] = pid;
	f->cpu[i] = cpu;
	f->group_fd[i] = group_fd;
	f->flags[i] = flags;
	if ((int)i == f->fail_at)
		return f->fail_err;
	f->open_fds++;
	return 200 + (int)i;
}

static void
fake_close(void *ctx, int fd)
{
	struct fake *f = ctx;

	assert_true(fd >= 200);
	f->open_fds--;
}

static int
fake_pmu_exists(void *ctx, const char *pmu)
{
	struct fake *f = ctx;

	return f->has_cpu_pmu && strcmp(pmu, "cpu") == 0;
}

static const struct perf_ops fake_ops = {
	.open = fake_open,
	.close = fake_close,
	.pmu_exists = fake_pmu_exists,
};

static struct perf_seam
fake_seam(struct fake *f, bool cpu_pmu)
{
	memset(f, 0, sizeof(*f));
	f->fail_at = -1;
	f->has_cpu_pmu = cpu_pmu;
	return (struct perf_seam){ &fake_ops, f };
}

struct machine {
	struct emu_pmu *pmu;
	struct hw *hw;
};

static void
machine_new(struct machine *m)
{
	struct emu_config cfg;

	emu_config_default(&cfg, EMU_MODEL_SKYLAKE);
	cfg.ncpus = 1;
	m->pmu = emu_pmu_new(&cfg);
	assert_non_null(m->pmu);
	m->hw = emu_hw_new(m->pmu);
	assert_non_null(m->hw);
}

static void
machine_free(struct machine *m)
{
	hw_free(m->hw);
	emu_pmu_free(m->pmu);
}

static void
test_refused_without_a_core_pmu(void **state)
{
	struct machine m;
	struct fake f;
	struct perf_seam p = fake_seam(&f, false);
	struct pmustat_error *err = NULL;

	(void)state;
	machine_new(&m);
	assert_int_equal(regions_perf_usable(&p, m.hw, HW_FILE_RDPMC, "no /dev/cpu/0/msr", &err), -ENODEV);
	assert_non_null(strstr(err_msg(err), "no PMU driver"));
	assert_non_null(strstr(err_msg(err), "no /dev/cpu/0/msr"));
	err_clear(&err);
	machine_free(&m);
}

static void
test_rdpmc_file(void **state)
{
	struct machine m;
	struct fake f;
	struct perf_seam p = fake_seam(&f, true);
	struct pmustat_error *err = NULL;

	(void)state;
	machine_new(&m);
	/* 1, the kernel's default, serves a process with mapped events; 2 too; unchanged either way. */
	emu_set_file(m.pmu, HW_FILE_RDPMC, "1\n");
	assert_int_equal(regions_perf_usable(&p, m.hw, HW_FILE_RDPMC, "", &err), 0);
	assert_string_equal(emu_file(m.pmu, HW_FILE_RDPMC), "1\n");
	emu_set_file(m.pmu, HW_FILE_RDPMC, "2\n");
	assert_int_equal(regions_perf_usable(&p, m.hw, HW_FILE_RDPMC, "", &err), 0);
	/* 0: rdpmc faults even with a mapped event. */
	emu_set_file(m.pmu, HW_FILE_RDPMC, "0\n");
	assert_int_equal(regions_perf_usable(&p, m.hw, HW_FILE_RDPMC, "", &err), -EACCES);
	assert_non_null(strstr(err_msg(err), "/sys/bus/event_source/devices/cpu/rdpmc is 0"));
	assert_non_null(strstr(err_msg(err), "echo 1"));
	assert_string_equal(emu_file(m.pmu, HW_FILE_RDPMC), "0\n");
	err_clear(&err);
	/* No file beside a PMU driver: an older kernel, where mapped events may rdpmc. */
	emu_set_file(m.pmu, HW_FILE_RDPMC, NULL);
	assert_int_equal(regions_perf_usable(&p, m.hw, HW_FILE_RDPMC, "", &err), 0);
	machine_free(&m);
}

static void
test_events_as_perf_encodes_them(void **state)
{
	struct pmu_caps caps = test_caps_skylake();
	struct event *ev = NULL;
	struct region_host_event out;
	struct pmustat_error *err = NULL;
	size_t n;

	(void)state;
	assert_int_equal(event_spec_parse("LLC_MISSES,r01c0:uk", NULL, &caps, &ev, &n, &err), 0);
	assert_int_equal(regions_perf_event(&ev[0], &caps, &out, &err), 0);
	assert_int_equal(out.perf_type, PERF_TYPE_RAW);
	assert_int_equal(out.perf_config, 0x412e);
	assert_int_equal(out.perf_flags, PMUSTAT_REGION_PERF_EXCLUDE_KERNEL | PMUSTAT_REGION_PERF_EXCLUDE_HV);
	assert_int_equal(out.perf_fd, -1);
	assert_int_equal(regions_perf_event(&ev[1], &caps, &out, &err), 0);
	assert_int_equal(out.perf_config, 0x01c0);
	assert_int_equal(out.perf_flags, 0);
	free(ev);
}

static struct region_area *
perf_area(unsigned nevents)
{
	struct region_host_params prm;
	struct region_area *a = NULL;
	struct pmustat_error *err = NULL;

	memset(&prm, 0, sizeof(prm));
	prm.mode = PMUSTAT_REGION_MODE_PERF;
	prm.nevents = nevents;
	for (unsigned i = 0; i < nevents; i++)
		prm.events[i] = (struct region_host_event){
			.perf_fd = -1, .perf_type = PERF_TYPE_RAW, .perf_config = 0x412e + i,
			.perf_config1 = 7 * i, .perf_flags = i ? PMUSTAT_REGION_PERF_EXCLUDE_KERNEL : 0,
		};
	if (region_area_create(&prm, &a, &err) != 0)
		fail_msg("%s", err_msg(err));
	return a;
}

static void
test_child_opens_self_read_events(void **state)
{
	struct fake f;
	struct perf_seam p = fake_seam(&f, true);
	struct region_area *a = perf_area(3);
	struct pmustat_region_header h;

	(void)state;
	assert_int_equal(region_area_open_perf(a, &p, NULL), 0);
	assert_int_equal(f.opens, 3);
	assert_int_equal(f.open_fds, 3);
	for (unsigned i = 0; i < 3; i++) {
		const struct perf_event_attr *at = &f.attr[i];

		/* The calling task on any CPU, alone, inherited across execve (no FD_CLOEXEC). */
		assert_int_equal(f.pid[i], 0);
		assert_int_equal(f.cpu[i], -1);
		assert_int_equal(f.group_fd[i], -1);
		assert_int_equal(f.flags[i], 0);
		assert_int_equal(at->type, PERF_TYPE_RAW);
		assert_int_equal(at->config, 0x412e + i);
		assert_int_equal(at->config1, 7 * i);
		assert_int_equal(at->exclude_kernel, i ? 1 : 0);
		/* Never multiplexed, counting from the execve, this thread only (others open their own). */
		assert_int_equal(at->pinned, 1);
		assert_int_equal(at->disabled, 1);
		assert_int_equal(at->enable_on_exec, 1);
		assert_int_equal(at->inherit, 0);
	}
	/* The library finds the owner and its fds in the header. */
	assert_int_equal(pread(region_area_fd(a), &h, sizeof(h), 0), (ssize_t)sizeof(h));
	assert_int_equal(h.owner_tid, getpid());
	for (unsigned i = 0; i < 3; i++)
		assert_int_equal(h.event[i].perf_fd, 200 + (int)i);
	region_area_free(a);
}

static void
test_child_refused_closes_what_it_opened(void **state)
{
	struct fake f;
	struct perf_seam p = fake_seam(&f, true);
	struct region_area *a = perf_area(3);
	struct pmustat_region_header h;
	unsigned failed = 99;

	(void)state;
	f.fail_at = 2;
	f.fail_err = -ENOENT;
	assert_int_equal(region_area_open_perf(a, &p, &failed), -ENOENT);
	assert_int_equal(failed, 2);
	assert_int_equal(f.open_fds, 0);
	assert_int_equal(pread(region_area_fd(a), &h, sizeof(h), 0), (ssize_t)sizeof(h));
	assert_int_equal(h.owner_tid, 0);
	region_area_free(a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refused_without_a_core_pmu),
		cmocka_unit_test(test_rdpmc_file),
		cmocka_unit_test(test_events_as_perf_encodes_them),
		cmocka_unit_test(test_child_opens_self_read_events),
		cmocka_unit_test(test_child_refused_closes_what_it_opened),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
