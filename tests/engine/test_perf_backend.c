/*
 * test_perf_backend.c - the perf_event backend's logic against a test
 * double of struct perf_ops (what it asks the kernel, how it reacts to
 * each refusal, what it reports), and the --backend choice against the
 * in-process emulated PMU.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "engine/backend.h"
#include "events/cpu.h"
#include "events/cpu_source.h"
#include "emu_hw.h"
#include "emu_pmu.h"
#include "events/event.h"
#include "events/event_spec.h"
#include "engine/perf_counters.h"
#include "events/sw_events.h"
#include "base/err.h"

#define MAX_CALLS 16

/* The double: records every open, answers from a rule. */
struct fake {
	struct perf_event_attr attr[MAX_CALLS];
	int group_fd[MAX_CALLS];
	pid_t pid[MAX_CALLS];
	int cpu[MAX_CALLS];
	unsigned long flags[MAX_CALLS];
	unsigned opens;
	int next_fd;
	int open_fds;
	/* The kernel's answer: 0 = a new fd. */
	int hw_err;		/* for PERF_TYPE_RAW */
	int generic_err;	/* for PERF_TYPE_HARDWARE and PERF_TYPE_HW_CACHE */
	int kernel_err;		/* for any attr without exclude_kernel */
	int all_err;		/* for everything */
	bool has_cpu_pmu;
	struct perf_value value;
};

static int
fake_open(void *ctx, struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
	  unsigned long flags)
{
	struct fake *f = ctx;
	unsigned i = f->opens++;

	assert_true(i < MAX_CALLS);
	f->attr[i] = *attr;
	f->group_fd[i] = group_fd;
	f->pid[i] = pid;
	f->cpu[i] = cpu;
	f->flags[i] = flags;
	if (f->all_err)
		return f->all_err;
	if (f->kernel_err && !attr->exclude_kernel)
		return f->kernel_err;
	if (f->hw_err && attr->type == PERF_TYPE_RAW)
		return f->hw_err;
	if (f->generic_err && (attr->type == PERF_TYPE_HARDWARE || attr->type == PERF_TYPE_HW_CACHE))
		return f->generic_err;
	f->open_fds++;
	return f->next_fd++;
}

static int
fake_read(void *ctx, int fd, struct perf_value *v)
{
	struct fake *f = ctx;

	(void)fd;
	*v = f->value;
	return 0;
}

static int
fake_ioctl(void *ctx, int fd, unsigned long request, unsigned long arg)
{
	(void)ctx;
	(void)fd;
	(void)request;
	(void)arg;
	return 0;
}

static void
fake_close(void *ctx, int fd)
{
	struct fake *f = ctx;

	assert_true(fd >= 100);
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
	.read = fake_read,
	.ioctl = fake_ioctl,
	.close = fake_close,
	.pmu_exists = fake_pmu_exists,
};

static void
fake_init(struct fake *f, struct perf_seam *seam)
{
	memset(f, 0, sizeof(*f));
	f->next_fd = 100;
	seam->ops = &fake_ops;
	seam->ctx = f;
}

/* A Skylake-like PMU: v4, 4 GP, 3 fixed, every architectural event. */
static void
skylake_caps(struct pmu_caps *caps)
{
	memset(caps, 0, sizeof(*caps));
	caps->version = 4;
	caps->gp_counters = 4;
	caps->gp_mask = 0xf;
	caps->gp_width = 48;
	caps->fixed_counters = 3;
	caps->fixed_mask = 0x7;
	caps->fixed_width = 48;
	caps->arch_events_len = 7;
}

static struct event *
parse(const char *spec, const struct pmu_caps *caps, size_t *n)
{
	struct event *ev = NULL;
	struct pmustat_error *err = NULL;

	if (event_spec_parse(spec, NULL, caps, &ev, n, &err) != 0)
		fail_msg("%s: %s", spec, err_msg(err));
	err_clear(&err);
	return ev;
}

static void
env_set(struct perf_env *env, int paranoid, bool privileged, int cpu_pmu)
{
	env->paranoid = paranoid;
	env->privileged = privileged;
	env->cpu_pmu = cpu_pmu;
}

static void
test_software_names(void **state)
{
	struct pmu_caps none;
	struct event *ev;
	size_t n;
	struct pmustat_error *err = NULL;

	(void)state;
	/* No PMU at all: software events still resolve, in both rings. */
	memset(&none, 0, sizeof(none));
	ev = parse("task-clock,context-switches,cpu-migrations,page-faults,minor-faults,major-faults",
		   &none, &n);
	assert_int_equal(n, 6);
	for (size_t i = 0; i < n; i++) {
		assert_true(event_is_software(&ev[i]));
		assert_true(ev[i].usr && ev[i].os);
		assert_non_null(sw_event_of(&ev[i]));
	}
	assert_string_equal(sw_event_of(&ev[0])->unit, "ns");
	free(ev);
	/* perf's short names, and :u. */
	ev = parse("cs,migrations,faults:u", &none, &n);
	assert_string_equal(ev[0].name, "context-switches");
	assert_string_equal(ev[1].name, "cpu-migrations");
	assert_string_equal(ev[2].name, "page-faults");
	assert_true(ev[2].usr && !ev[2].os);
	free(ev);
	/* Same event twice, under two names: the same event (counted once by the engine). */
	ev = parse("page-faults,faults", &none, &n);
	assert_int_equal(n, 2);
	assert_true(event_spec_same(&ev[0], &ev[1]));
	free(ev);
	/* Two different software events are not "the same" (no encoding). */
	ev = parse("minor-faults,major-faults", &none, &n);
	assert_int_equal(n, 2);
	free(ev);
	/* PMU modifiers make no sense on them. */
	assert_int_equal(event_spec_parse("page-faults:cmask=1", NULL, &none, &ev, &n, &err),
			 -EINVAL);
	assert_non_null(strstr(err_msg(err), "software event"));
	/* A typo is suggested the software name. */
	assert_int_equal(event_spec_parse("page-falts", NULL, &none, &ev, &n, &err), -EINVAL);
	assert_non_null(strstr(err_msg(err), "page-faults"));
	err_clear(&err);
}

static void
test_attrs(void **state)
{
	struct pmu_caps caps;
	struct perf_event_attr a;
	struct event *ev, off;
	struct pmustat_error *err = NULL;
	size_t n;

	(void)state;
	skylake_caps(&caps);
	ev = parse("LLC_MISSES,ref-cycles,task-clock,cycles:k,r412e:uk", &caps, &n);
	assert_int_equal(perf_attr(&ev[0], &caps, &a, &err), 0);
	assert_int_equal(a.type, PERF_TYPE_RAW);
	/* The EVTSEL encoding less the bits the kernel owns (USR, OS, EN, INT). */
	assert_int_equal(a.config, 0x412e);
	assert_true(a.disabled && a.enable_on_exec && a.inherit);
	assert_int_equal(a.read_format, PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING);
	assert_true(a.exclude_kernel && !a.exclude_user && a.exclude_hv);
	assert_int_equal(a.sample_period, 0);
	/* ref-cycles on its fixed counter: Linux's pseudo-encoding. */
	assert_int_equal(perf_attr(&ev[1], &caps, &a, &err), 0);
	assert_int_equal(a.config, 0x0300);
	assert_int_equal(perf_attr(&ev[2], &caps, &a, &err), 0);
	assert_int_equal(a.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(a.config, PERF_COUNT_SW_TASK_CLOCK);
	assert_true(!a.exclude_kernel && !a.exclude_user);
	assert_int_equal(perf_attr(&ev[3], &caps, &a, &err), 0);
	assert_int_equal(a.config, 0x3c);
	assert_true(a.exclude_user && !a.exclude_kernel);
	assert_int_equal(perf_attr(&ev[4], &caps, &a, &err), 0);
	assert_int_equal(a.config, 0x412e);
	assert_true(!a.exclude_user && !a.exclude_kernel);
	/* An offcore event: the response value in config1. */
	off = ev[0];
	off.code = 0xb7;
	off.umask = 0x01;
	off.extra_msr = 0x1a6;
	off.extra_value = 0x10003c0091ull;
	assert_int_equal(perf_attr(&off, &caps, &a, &err), 0);
	assert_int_equal(a.config, 0x01b7);
	assert_int_equal(a.config1, 0x10003c0091ull);
	free(ev);
	err_clear(&err);
}

static void
test_group_per_run(void **state)
{
	struct perf_seam seam;
	struct fake f;
	struct perf_env env;
	struct pmu_caps caps;
	struct perf_counter c[4];
	struct event *ev;
	struct pmustat_error *err = NULL;
	size_t n;

	(void)state;
	fake_init(&f, &seam);
	skylake_caps(&caps);
	env_set(&env, 2, true, 1);
	ev = parse("instructions,page-faults,branches,task-clock", &caps, &n);
	for (size_t i = 0; i < n; i++)
		c[i].ev = &ev[i];
	assert_int_equal(perf_open_counters(&seam, &env, &caps, c, 4, 4242, &err), 0);
	assert_int_equal(f.opens, 4);
	/* Hardware: one group, the first its leader; software: alone. */
	assert_int_equal(f.group_fd[0], -1);
	assert_int_equal(f.group_fd[1], -1);
	assert_int_equal(f.group_fd[2], c[0].fd);
	assert_int_equal(f.group_fd[3], -1);
	for (unsigned i = 0; i < 4; i++) {
		assert_int_equal(f.pid[i], 4242);
		assert_int_equal(f.cpu[i], -1);
		assert_true(f.flags[i] & PERF_FLAG_FD_CLOEXEC);
	}
	f.value = (struct perf_value){ 1234, 1000, 1000 };
	assert_int_equal(perf_read_counters(&seam, c, 4, &err), 0);
	assert_int_equal(c[1].v.value, 1234);
	perf_close_counters(&seam, c, 4);
	assert_int_equal(f.open_fds, 0);
	free(ev);
	err_clear(&err);
}

static void
test_paranoid_2_user_only_fallback(void **state)
{
	struct perf_seam seam;
	struct fake f;
	struct perf_env env;
	struct pmu_caps caps;
	struct perf_counter c[2];
	struct event *ev;
	struct pmustat_error *err = NULL;
	char status[128];
	size_t n;

	(void)state;
	fake_init(&f, &seam);
	memset(&caps, 0, sizeof(caps));
	env_set(&env, 2, false, 0);
	f.kernel_err = -EACCES;
	ev = parse("page-faults,task-clock", &caps, &n);
	c[0].ev = &ev[0];
	c[1].ev = &ev[1];
	assert_int_equal(perf_open_counters(&seam, &env, &caps, c, 2, 1, &err), 0);
	/* Each asked in both rings, then in user mode. */
	assert_int_equal(f.opens, 4);
	assert_false(f.attr[0].exclude_kernel);
	assert_true(f.attr[1].exclude_kernel);
	assert_true(c[0].user_only && c[1].user_only);
	f.value = (struct perf_value){ 25600, 5000, 5000 };
	assert_int_equal(perf_read_counters(&seam, c, 2, &err), 0);
	assert_true(perf_counter_status(&c[0], &env, status, sizeof(status)));
	assert_string_equal(status, "counted (user mode only: kernel.perf_event_paranoid=2)");
	perf_close_counters(&seam, c, 2);
	assert_int_equal(f.open_fds, 0);
	free(ev);

	/* Only :k asked: nothing to fall back to; the message names the sysctl. */
	fake_init(&f, &seam);
	f.kernel_err = -EACCES;
	ev = parse("page-faults:k", &caps, &n);
	c[0].ev = &ev[0];
	assert_int_equal(perf_open_counters(&seam, &env, &caps, c, 1, 1, &err), -EACCES);
	assert_non_null(strstr(err_msg(err), "kernel.perf_event_paranoid is 2"));
	assert_non_null(strstr(err_msg(err), ":u"));
	assert_non_null(strstr(err_msg(err), "sysctl kernel.perf_event_paranoid=1"));
	assert_int_equal(f.open_fds, 0);
	free(ev);
	err_clear(&err);
}

static void
test_paranoid_3_refused_with_the_fix(void **state)
{
	struct perf_seam seam;
	struct fake f;
	struct perf_env env;
	struct pmu_caps caps;
	struct perf_counter c[2];
	struct event *ev;
	struct pmustat_error *err = NULL;
	size_t n;

	(void)state;
	fake_init(&f, &seam);
	memset(&caps, 0, sizeof(caps));
	env_set(&env, 3, false, 0);
	f.all_err = -EACCES;
	ev = parse("task-clock,page-faults", &caps, &n);
	c[0].ev = &ev[0];
	c[1].ev = &ev[1];
	assert_int_equal(perf_open_counters(&seam, &env, &caps, c, 2, 1, &err), -EACCES);
	assert_non_null(strstr(err_msg(err), "'task-clock'"));
	assert_non_null(strstr(err_msg(err), "kernel.perf_event_paranoid is 3"));
	assert_non_null(strstr(err_msg(err), "sysctl kernel.perf_event_paranoid=2"));
	assert_non_null(strstr(err_msg(err), "root"));
	assert_int_equal(f.open_fds, 0);
	free(ev);
	err_clear(&err);
}

/*
 * -A: the set opened on the command for one CPU (hardware group and
 * software events, the user-mode retry too), and a refusal that names the
 * CPU and says what per-CPU counting needs.
 */
static void
test_per_cpu_set(void **state)
{
	struct perf_seam seam;
	struct fake f;
	struct perf_env env;
	struct pmu_caps caps;
	struct perf_counter c[3];
	struct event *ev;
	struct pmustat_error *err = NULL;
	size_t n;

	(void)state;
	fake_init(&f, &seam);
	skylake_caps(&caps);
	env_set(&env, 2, false, 1);
	f.kernel_err = -EACCES;
	ev = parse("instructions:u,cycles:u,page-faults", &caps, &n);
	for (unsigned i = 0; i < 3; i++)
		c[i].ev = &ev[i];
	assert_int_equal(perf_open_counters_on_cpu(&seam, &env, &caps, c, 3, 4242, 5, &err), 0);
	/* Two hardware, page-faults in both rings then user mode. */
	assert_int_equal(f.opens, 4);
	for (unsigned i = 0; i < f.opens; i++) {
		assert_int_equal(f.pid[i], 4242);
		assert_int_equal(f.cpu[i], 5);
		assert_true(f.attr[i].inherit);
	}
	assert_int_equal(f.group_fd[1], 100);
	assert_true(c[2].user_only);
	perf_close_counters(&seam, c, 3);
	assert_int_equal(f.open_fds, 0);

	/* Refused: the CPU named, and what per-CPU counting needs. */
	fake_init(&f, &seam);
	env_set(&env, 3, false, 1);
	f.all_err = -EACCES;
	assert_int_equal(perf_open_counters_on_cpu(&seam, &env, &caps, c, 3, 4242, 5, &err), -EACCES);
	assert_non_null(strstr(err_msg(err), "-A: counting the command on CPU 5: "));
	assert_non_null(strstr(err_msg(err), "kernel.perf_event_paranoid is 3"));
	assert_non_null(strstr(err_msg(err), "kernel.perf_event_paranoid <= 0 or CAP_PERFMON"));
	assert_non_null(strstr(err_msg(err), "without -A"));
	assert_int_equal(f.open_fds, 0);
	err_clear(&err);

	/* Anywhere (no -A): neither the CPU nor the per-CPU rule. */
	fake_init(&f, &seam);
	f.all_err = -EACCES;
	assert_int_equal(perf_open_counters(&seam, &env, &caps, c, 3, 4242, &err), -EACCES);
	assert_int_equal(f.cpu[0], -1);
	assert_null(strstr(err_msg(err), "CPU 5"));
	assert_null(strstr(err_msg(err), "<= 0"));
	free(ev);
	err_clear(&err);
}

/* Hardware refusals: not supported, the reason named, the rest counts. */
static void
test_hardware_refusals(void **state)
{
	struct pmustat_error *err = NULL;
	static const struct {
		int err;
		int cpu_pmu;
		bool privileged;
		const char *says;
	} cases[] = {
		{ -ENOENT, 0, false, "no CPU PMU driver" },
		{ -ENOENT, 1, false, "does not know this raw config" },
		{ -EOPNOTSUPP, 1, false, "vPMU" },
		{ -EACCES, 1, true, "exposes no PMU (vPMU)" },
		{ -EINVAL, 1, false, "rejects this encoding" },
		{ -ENODEV, 1, false, "no PMU for this event" },
	};

	(void)state;
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct perf_seam seam;
		struct fake f;
		struct perf_env env;
		struct pmu_caps caps;
		struct perf_counter c[2];
		struct perf_event_attr a;
		struct event *ev;
		err_clear(&err);
		char status[128];
		size_t n;

		fake_init(&f, &seam);
		skylake_caps(&caps);
		env_set(&env, 2, cases[k].privileged, cases[k].cpu_pmu);
		f.hw_err = cases[k].err;
		ev = parse("instructions,page-faults", &caps, &n);
		c[0].ev = &ev[0];
		c[1].ev = &ev[1];
		assert_int_equal(perf_open_counters(&seam, &env, &caps, c, 2, 1, &err), 0);
		assert_int_equal(c[0].open_err, cases[k].err);
		assert_int_equal(c[0].fd, -1);
		assert_true(c[1].fd >= 100);
		assert_false(perf_counter_status(&c[0], &env, status, sizeof(status)));
		assert_string_equal(status, "not supported");
		assert_int_equal(perf_attr(&ev[0], &caps, &a, &err), 0);
		perf_open_error(c[0].open_err, &ev[0], &a, &env, &err);
		if (!strstr(err_msg(err), cases[k].says))
			fail_msg("errno %d: '%s' does not say '%s'", -cases[k].err, err_msg(err), cases[k].says);
		assert_non_null(strstr(err_msg(err), "'instructions'"));
		assert_non_null(strstr(err_msg(err), "raw config 0xc0"));
		perf_close_counters(&seam, c, 2);
		assert_int_equal(f.open_fds, 0);
		free(ev);
		err_clear(&err);
	}
	err_clear(&err);
}

static void
test_multiplexed_never_scaled(void **state)
{
	struct perf_env env;
	struct perf_counter c;
	char status[128];

	(void)state;
	env_set(&env, 2, true, 1);
	memset(&c, 0, sizeof(c));
	c.fd = -1;
	c.read_ok = true;
	c.v = (struct perf_value){ 500, 1000, 1000 };
	assert_true(perf_counter_status(&c, &env, status, sizeof(status)));
	assert_string_equal(status, "counted");
	c.v = (struct perf_value){ 500, 1000, 625 };
	assert_true(perf_counter_status(&c, &env, status, sizeof(status)));
	assert_string_equal(status, "multiplexed: running 62.5% of the time");
	/* The value stays what the counter counted. */
	assert_int_equal(c.v.value, 500);
	c.v = (struct perf_value){ 0, 1000, 0 };
	assert_false(perf_counter_status(&c, &env, status, sizeof(status)));
	assert_non_null(strstr(status, "not counted: the kernel never scheduled it"));
}

/*
 * A CPU pmustat does not program (an AMD one: no architectural PMU in its
 * caps): perf's generic names go to the kernel as its generic events, each
 * on its own (no group), and a refusal leaves that event <not supported>.
 */
static void
test_kernel_generic_events(void **state)
{
	struct pmu_caps none;
	struct perf_seam seam;
	struct perf_env env = { .paranoid = 2, .cpu_pmu = 0 };
	struct perf_counter c[5];
	struct pmustat_error *err = NULL;
	struct event *ev;
	struct fake f;
	size_t n;

	(void)state;
	memset(&none, 0, sizeof(none));
	assert_int_equal(event_spec_parse_kernel("instructions,cycles:u,L1-dcache-load-misses,branch-misses,task-clock",
						 &none, &ev, &n, &err), 0);
	assert_int_equal(n, 5);
	for (unsigned i = 0; i < 4; i++)
		assert_true(ev[i].flags & EVENT_F_KERNEL_GENERIC);
	fake_init(&f, &seam);
	for (unsigned i = 0; i < 5; i++)
		c[i].ev = &ev[i];
	assert_int_equal(perf_open_counters(&seam, &env, &none, c, 5, 4242, &err), 0);
	assert_int_equal(f.opens, 5);
	assert_int_equal(f.attr[0].type, PERF_TYPE_HARDWARE);
	assert_int_equal(f.attr[0].config, PERF_COUNT_HW_INSTRUCTIONS);
	assert_int_equal(f.attr[1].type, PERF_TYPE_HARDWARE);
	assert_int_equal(f.attr[1].config, PERF_COUNT_HW_CPU_CYCLES);
	assert_int_equal(f.attr[2].type, PERF_TYPE_HW_CACHE);
	assert_int_equal(f.attr[2].config, PERF_COUNT_HW_CACHE_L1D | PERF_COUNT_HW_CACHE_OP_READ << 8 |
						   PERF_COUNT_HW_CACHE_RESULT_MISS << 16);
	assert_int_equal(f.attr[3].type, PERF_TYPE_HARDWARE);
	assert_int_equal(f.attr[3].config, PERF_COUNT_HW_BRANCH_MISSES);
	assert_int_equal(f.attr[4].type, PERF_TYPE_SOFTWARE);
	for (unsigned i = 0; i < 4; i++) {
		/* User mode by default, as everywhere; no group: the kernel multiplexes as perf stat lets it. */
		assert_true(f.attr[i].exclude_kernel && !f.attr[i].exclude_user);
		assert_int_equal(f.group_fd[i], -1);
		assert_true(f.attr[i].disabled && f.attr[i].enable_on_exec && f.attr[i].inherit);
	}
	perf_close_counters(&seam, c, 5);

	/* A kernel without a PMU driver refuses them: not supported, the software event still opens. */
	fake_init(&f, &seam);
	f.generic_err = -ENOENT;
	assert_int_equal(perf_open_counters(&seam, &env, &none, c, 5, 4242, &err), 0);
	for (unsigned i = 0; i < 4; i++)
		assert_int_equal(c[i].open_err, -ENOENT);
	assert_int_equal(c[4].open_err, 0);
	assert_true(c[4].fd >= 100);
	{
		struct perf_event_attr a;

		assert_int_equal(perf_attr(&ev[0], &none, &a, &err), 0);
		perf_open_error(-ENOENT, &ev[0], &a, &env, &err);
		assert_non_null(strstr(err_msg(err), "generic hardware event 0x1"));
		assert_non_null(strstr(err_msg(err), "--backend sim"));
		err_clear(&err);
	}
	perf_close_counters(&seam, c, 5);
	free(ev);

	/* A name that is no generic one (an Intel event, slots) has nothing to send: refused. */
	assert_int_equal(event_spec_parse_kernel("INST_RETIRED.ANY", &none, &ev, &n, &err), -EINVAL);
	assert_non_null(strstr(err_msg(err), "generic"));
	err_clear(&err);
	assert_int_equal(event_spec_parse_kernel("slots", &none, &ev, &n, &err), -EINVAL);
	err_clear(&err);
}

static void
test_parse_backend(void **state)
{
	enum backend b;

	(void)state;
	assert_int_equal(backend_parse("msr", &b), 0);
	assert_int_equal(b, BACKEND_MSR);
	assert_int_equal(backend_parse("perf", &b), 0);
	assert_int_equal(b, BACKEND_PERF);
	assert_int_equal(backend_parse("auto", &b), 0);
	assert_int_equal(b, BACKEND_AUTO);
	assert_int_equal(backend_parse("sim", &b), 0);
	assert_int_equal(b, BACKEND_SIM);
	assert_string_equal(backend_name(BACKEND_SIM), "sim");
	assert_int_equal(backend_parse("MSR", &b), -EINVAL);
	assert_int_equal(backend_parse("", &b), -EINVAL);
	assert_string_equal(backend_name(BACKEND_PERF), "perf");
}

/* auto on the emulated PMU: msr when usable, else perf with the MSR path's reason. */
static void
test_choice_on_emulated_machines(void **state)
{
	struct pmustat_error *err = NULL;
	static const struct {
		enum emu_model model;
		enum emu_msr_access msr;
		enum backend want;
		const char *why;
	} cases[] = {
		{ EMU_MODEL_SKYLAKE, EMU_MSR_OK, BACKEND_MSR, "" },
		{ EMU_MODEL_SKYLAKE, EMU_MSR_ABSENT, BACKEND_PERF, "modprobe msr" },
		{ EMU_MODEL_SKYLAKE, EMU_MSR_EACCES, BACKEND_PERF, "run pmustat as root" },
		{ EMU_MODEL_SKYLAKE, EMU_MSR_READONLY, BACKEND_PERF, "lockdown" },
		{ EMU_MODEL_NOPMU, EMU_MSR_OK, BACKEND_PERF, "exposes no PMU" },
	};

	(void)state;
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct emu_config cfg;
		struct emu_pmu *pmu;
		struct cpu_info info;
		struct hw *hw;
		err_clear(&err);
		char why[1024];
		uint64_t writes;

		emu_config_default(&cfg, cases[k].model);
		cfg.msr = cases[k].msr;
		pmu = emu_pmu_new(&cfg);
		assert_non_null(pmu);
		hw = emu_hw_new(pmu);
		assert_int_equal(cpu_source_load(hw, NULL, 0, &info, NULL, &err), 0);
		writes = pmu->cpu[0].stats.wrmsr;
		assert_int_equal(backend_choose(BACKEND_AUTO, 2, hw, &info, 0, why, sizeof(why)),
				 cases[k].want);
		if (!strstr(why, cases[k].why))
			fail_msg("case %zu: '%s' does not say '%s'", k, why, cases[k].why);
		/* Choosing writes nothing. */
		assert_int_equal(pmu->cpu[0].stats.wrmsr, writes);
		/* Software events only: perf, whatever the MSRs. */
		assert_int_equal(backend_choose(BACKEND_AUTO, 0, hw, &info, 0, why, sizeof(why)),
				 BACKEND_PERF);
		assert_string_equal(why, "");
		/* An explicit choice is kept. */
		assert_int_equal(backend_choose(BACKEND_MSR, 2, hw, &info, 0, why, sizeof(why)),
				 BACKEND_MSR);
		assert_int_equal(backend_choose(BACKEND_PERF, 2, hw, &info, 0, why, sizeof(why)),
				 BACKEND_PERF);
		emu_hw_free(hw);
		emu_pmu_free(pmu);
		err_clear(&err);
	}
	err_clear(&err);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_software_names),
		cmocka_unit_test(test_attrs),
		cmocka_unit_test(test_group_per_run),
		cmocka_unit_test(test_paranoid_2_user_only_fallback),
		cmocka_unit_test(test_paranoid_3_refused_with_the_fix),
		cmocka_unit_test(test_per_cpu_set),
		cmocka_unit_test(test_hardware_refusals),
		cmocka_unit_test(test_multiplexed_never_scaled),
		cmocka_unit_test(test_kernel_generic_events),
		cmocka_unit_test(test_parse_backend),
		cmocka_unit_test(test_choice_on_emulated_machines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
