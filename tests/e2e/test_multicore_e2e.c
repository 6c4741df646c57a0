/*
 * test_multicore_e2e.c - counting on several cores end to end: the real
 * pmustat with -C LIST, -a and -A on the emulated PMU, counting
 * emu-workload --threads (a threaded program whose threads retire exact
 * counts on the CPUs they run on). The sums and each core's count are
 * exact, every core is restored bit for bit however the run ends, and a
 * core that cannot take the events refuses the whole run with nothing
 * written on any core.
 *
 * The emulated machine has the host's CPU numbering: the tests use the
 * first two CPUs this process may run on, and skip on a host with one.
 */
#include <jansson.h>
#include <limits.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "e2e_harness.h"
#include "emu_pmu.h"
#include "pmu/journal.h"
#include "pmu/msr.h"

#define WL E2E_EMU_WORKLOAD

/* The two cores counted: the first two CPUs we may run on. */
static int cpu0 = -1, cpu1 = -1;
static char list_arg[32], range_arg[32], cpus_arg[16];

static int
setup(void **state)
{
	const int limit = EMU_MAX_CPUS < CPU_SETSIZE ? EMU_MAX_CPUS : CPU_SETSIZE;
	cpu_set_t set;

	(void)state;
	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return -1;
	for (int c = 0; c < limit && cpu1 < 0; c++) {
		if (!CPU_ISSET(c, &set))
			continue;
		if (cpu0 < 0)
			cpu0 = c;
		else
			cpu1 = c;
	}
	snprintf(list_arg, sizeof(list_arg), "%d,%d", cpu0, cpu1);
	if (cpu1 == cpu0 + 1)
		snprintf(range_arg, sizeof(range_arg), "%d-%d", cpu0, cpu1);
	else
		snprintf(range_arg, sizeof(range_arg), "%s", list_arg);
	snprintf(cpus_arg, sizeof(cpus_arg), "%d", cpu1 + 1);
	return 0;
}

#define NEED_TWO_CPUS() do { if (cpu1 < 0) skip(); } while (0)

static void
machine(struct e2e_machine *m, bool watchdog)
{
	if (watchdog)
		e2e_machine_new(m, (const char *[]){ "--model", "skylake", "--cpus", cpus_arg, "--watchdog", NULL });
	else
		e2e_machine_new(m, (const char *[]){ "--model", "skylake", "--cpus", cpus_arg, NULL });
}

static json_t *
parse_json(const char *text)
{
	json_error_t jerr;
	json_t *root = json_loads(text, 0, &jerr);

	if (!root)
		fail_msg("not JSON (%s): %s", jerr.text, text);
	return root;
}

static json_t *
event_named(json_t *root, const char *name)
{
	json_t *events = json_object_get(root, "events"), *e;
	size_t i;

	json_array_foreach(events, i, e)
		if (strcmp(json_string_value(json_object_get(e, "requested")), name) == 0)
			return e;
	fail_msg("no event %s", name);
	return NULL;
}

/* Event @name's per_cpu entry for @cpu. */
static json_t *
per_cpu_entry(json_t *root, const char *name, int cpu)
{
	json_t *a = json_object_get(event_named(root, name), "per_cpu"), *o;
	size_t i;

	assert_true(json_is_array(a));
	assert_int_equal(json_array_size(a), 2);
	json_array_foreach(a, i, o)
		if (json_integer_value(json_object_get(o, "cpu")) == cpu)
			return o;
	fail_msg("%s: no per_cpu entry for CPU %d", name, cpu);
	return NULL;
}

/* Event @name's per_cpu value on @cpu. */
static long long
per_cpu(json_t *root, const char *name, int cpu)
{
	return json_integer_value(json_object_get(per_cpu_entry(root, name, cpu), "value"));
}

/* The counter event @name counted on @cpu, as its per_cpu entry names it. */
static const char *
per_cpu_counter(json_t *root, const char *name, int cpu)
{
	const char *c = json_string_value(json_object_get(per_cpu_entry(root, name, cpu), "counter"));

	if (!c)
		fail_msg("%s: the per_cpu entry for CPU %d names no counter", name, cpu);
	return c;
}

static long long
value(json_t *root, const char *name)
{
	return json_integer_value(json_object_get(event_named(root, name), "value"));
}

static void
assert_restored(const struct e2e_machine *m, const struct emu_pmu *before)
{
	struct emu_pmu *after = e2e_state(m);

	assert_int_equal(emu_pmu_diff(before, after, stderr), 0);
	free(after);
}

static uint64_t
writes_on(const struct e2e_machine *m, int cpu)
{
	struct emu_pmu *p = e2e_state(m);
	uint64_t n = p->cpu[cpu].stats.wrmsr;

	free(p);
	return n;
}

static bool
journal_exists(const struct e2e_machine *m, int cpu)
{
	char rel[64], path[PATH_MAX * 2];

	snprintf(rel, sizeof(rel), JOURNAL_DIR "/cpu%d.journal", cpu);
	e2e_machine_path(m, rel, path, sizeof(path));
	return access(path, F_OK) == 0;
}

/* Two threads, one on each core: both cores counted, the sum and each core exact. */
static void
test_two_cores_sum_and_per_cpu(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before;
	json_t *root;

	(void)state;
	NEED_TWO_CPUS();
	machine(&m, false);
	before = e2e_state(&m);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", list_arg, "--json", "-e", "INST_RETIRED.ANY,LLC_MISSES",
		"--", WL, "--quiet", "--threads", "2", "--spread", "--retire", "0xc0:0:1000", "--retire",
		"0x2e:0x41:7", NULL });
	e2e_assert_status(&r, 0);
	root = parse_json(r.err);
	assert_int_equal(value(root, "INST_RETIRED.ANY"), 2000);
	assert_int_equal(value(root, "LLC_MISSES"), 14);
	assert_int_equal(per_cpu(root, "INST_RETIRED.ANY", cpu0), 1000);
	assert_int_equal(per_cpu(root, "INST_RETIRED.ANY", cpu1), 1000);
	assert_int_equal(per_cpu(root, "LLC_MISSES", cpu0), 7);
	assert_int_equal(per_cpu(root, "LLC_MISSES", cpu1), 7);
	assert_int_equal(json_array_size(json_object_get(root, "cores")), 2);
	json_decref(root);
	assert_restored(&m, before);
	assert_false(journal_exists(&m, cpu0));
	assert_false(journal_exists(&m, cpu1));
	e2e_result_free(&r);
	free(before);
	e2e_machine_free(&m);
}

/*
 * Wraps on every core: a thread on each retires 5 x 2^47 instructions 1.5 s
 * apart, on 48-bit counters, and the kernel's PMI handler acks each
 * overflow bit after every step. The reads during the run (every listed
 * core, at least once a second) count both wraps on each core.
 */
static void
test_wraps_on_every_core(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	json_t *root;
	const long long each = 5LL << 47;

	(void)state;
	NEED_TWO_CPUS();
	machine(&m, false);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", list_arg, "--json", "-e", "INST_RETIRED.ANY,r00c0", "--",
		WL, "--quiet", "--threads", "2", "--spread", "--retire", "0xc0:0:0x800000000000", "--act", "nmi",
		"--steps", "5", "--step-ms", "1500", NULL });
	e2e_assert_status(&r, 0);
	root = parse_json(r.err);
	assert_int_equal(per_cpu(root, "INST_RETIRED.ANY", cpu0), each);
	assert_int_equal(per_cpu(root, "INST_RETIRED.ANY", cpu1), each);
	assert_int_equal(per_cpu(root, "r00c0", cpu0), each);
	assert_int_equal(per_cpu(root, "r00c0", cpu1), each);
	assert_int_equal(value(root, "INST_RETIRED.ANY"), 2 * each);
	assert_int_equal(value(root, "r00c0"), 2 * each);
	/* Enabled at the exec stop on both cores; exact when pmustat may run off both. */
	assert_string_equal(json_string_value(json_object_get(root, "window")),
			    e2e_host_cpus() > 2 ? "exact" : "approximate");
	json_decref(root);
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

/* Four threads left to the scheduler on two cores: the total is exact wherever they ran. */
static void
test_four_threads_exact_total(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before;
	json_t *root;

	(void)state;
	NEED_TWO_CPUS();
	machine(&m, false);
	before = e2e_state(&m);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", range_arg, "--json", "-e", "INST_RETIRED.ANY", "--", WL,
		"--quiet", "--threads", "4", "--retire", "0xc0:0:12345", "--steps", "3", NULL });
	e2e_assert_status(&r, 0);
	root = parse_json(r.err);
	assert_int_equal(value(root, "INST_RETIRED.ANY"), 4 * 3 * 12345);
	assert_int_equal(per_cpu(root, "INST_RETIRED.ANY", cpu0) + per_cpu(root, "INST_RETIRED.ANY", cpu1),
			 4 * 3 * 12345);
	json_decref(root);
	assert_restored(&m, before);
	e2e_result_free(&r);
	free(before);
	e2e_machine_free(&m);
}

/* -A: one line per CPU, CSV's first field CPU<N>; the human table and its closing note. */
static void
test_per_cpu_lines(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	char line[128];

	(void)state;
	NEED_TWO_CPUS();
	machine(&m, false);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", list_arg, "-A", "-x", ",", "-e", "INST_RETIRED.ANY",
		"--", WL, "--quiet", "--threads", "2", "--spread", "--retire", "0xc0:0:1000", NULL });
	e2e_assert_status(&r, 0);
	snprintf(line, sizeof(line), "CPU%d,1000,,INST_RETIRED.ANY:u,INST_RETIRED.ANY,fixed0,1,counted\n", cpu0);
	e2e_assert_err_contains(&r, line);
	snprintf(line, sizeof(line), "CPU%d,1000,,INST_RETIRED.ANY:u,", cpu1);
	e2e_assert_err_contains(&r, line);
	e2e_result_free(&r);

	/* Summed by default: one CSV line with the total. */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", list_arg, "-x", ",", "-e", "INST_RETIRED.ANY", "--", WL,
		"--quiet", "--threads", "2", "--spread", "--retire", "0xc0:0:1000", NULL });
	e2e_assert_status(&r, 0);
	assert_string_equal(r.err, "2000,,INST_RETIRED.ANY:u,INST_RETIRED.ANY,fixed0,1,counted\n");
	e2e_result_free(&r);

	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", list_arg, "-A", "-e", "INST_RETIRED.ANY", "--", WL,
		"--quiet", "--threads", "2", "--spread", "--retire", "0xc0:0:1000", NULL });
	e2e_assert_status(&r, 0);
	{
		char cpu[16];

		snprintf(cpu, sizeof(cpu), "CPU%d", cpu0);
		snprintf(line, sizeof(line), "%-8s%18s      INST_RETIRED.ANY", cpu, "1,000");
	}
	e2e_assert_err_contains(&r, line);
	snprintf(line, sizeof(line), "on cores %s", range_arg);
	e2e_assert_err_contains(&r, line);
	e2e_assert_err_contains(&r, "one line per core");
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

/*
 * Each core its own plan: the NMI watchdog holds fixed counter 1 on the
 * second core only, so cycles go to a general-purpose counter there and
 * stay on fixed counter 1 on the first; both count in the one run, and
 * each core's entry (JSON per_cpu, -A's CSV and table lines) names the
 * counter it used there, not the first core's.
 */
static void
test_each_core_its_own_assignment(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before;
	json_t *root;

	(void)state;
	NEED_TWO_CPUS();
	machine(&m, false);
	/* The watchdog's programming, on the second core alone. */
	assert_int_equal(e2e_set_msr(&m, (unsigned)cpu1, MSR_IA32_FIXED_CTR_CTRL, 0xb0), 0);
	before = e2e_state(&m);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-v", "-C", list_arg, "--json", "-e",
		"INST_RETIRED.ANY,CPU_CLK_UNHALTED.THREAD", "--", WL, "--quiet", "--threads", "2", "--spread",
		"--retire", "0xc0:0:1000", "--retire", "0x3c:0:3000", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "CPU_CLK_UNHALTED.THREAD        -> fixed1, run 1");
	e2e_assert_err_contains(&r, "CPU_CLK_UNHALTED.THREAD        -> pmc0, run 1");
	root = parse_json(strchr(r.err, '{'));
	assert_int_equal(json_integer_value(json_object_get(root, "runs")), 1);
	assert_int_equal(value(root, "CPU_CLK_UNHALTED.THREAD"), 6000);
	assert_int_equal(per_cpu(root, "CPU_CLK_UNHALTED.THREAD", cpu0), 3000);
	assert_int_equal(per_cpu(root, "CPU_CLK_UNHALTED.THREAD", cpu1), 3000);
	assert_string_equal(per_cpu_counter(root, "CPU_CLK_UNHALTED.THREAD", cpu0), "fixed1");
	assert_string_equal(per_cpu_counter(root, "CPU_CLK_UNHALTED.THREAD", cpu1), "pmc0");
	assert_string_equal(per_cpu_counter(root, "INST_RETIRED.ANY", cpu0), "fixed0");
	assert_string_equal(per_cpu_counter(root, "INST_RETIRED.ANY", cpu1), "fixed0");
	json_decref(root);
	assert_restored(&m, before);
	e2e_result_free(&r);

	/* -A: each CSV record and each table line with its core's counter (and why it is not fixed1 there). */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", list_arg, "-A", "-x,", "-e", "CPU_CLK_UNHALTED.THREAD",
		"--", WL, "--quiet", "--threads", "2", "--spread", "--retire", "0x3c:0:3000", NULL });
	e2e_assert_status(&r, 0);
	{
		char line[160];

		snprintf(line, sizeof(line), "CPU%d,3000,,CPU_CLK_UNHALTED.THREAD:u,CPU_CLK_UNHALTED.THREAD,fixed1,1,counted\n",
			 cpu0);
		e2e_assert_err_contains(&r, line);
		snprintf(line, sizeof(line), "CPU%d,3000,,CPU_CLK_UNHALTED.THREAD:u,CPU_CLK_UNHALTED.THREAD,pmc0,1,counted\n",
			 cpu1);
		e2e_assert_err_contains(&r, line);
	}
	e2e_result_free(&r);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", list_arg, "-A", "-e", "CPU_CLK_UNHALTED.THREAD", "--", WL,
		"--quiet", "--threads", "2", "--spread", "--retire", "0x3c:0:3000", NULL });
	e2e_assert_status(&r, 0);
	{
		char cpu[16], line[200];

		snprintf(cpu, sizeof(cpu), "CPU%d", cpu0);
		snprintf(line, sizeof(line), "%-8s%18s      CPU_CLK_UNHALTED.THREAD:u        (fixed1)\n", cpu, "3,000");
		e2e_assert_err_contains(&r, line);
		snprintf(cpu, sizeof(cpu), "CPU%d", cpu1);
		snprintf(line, sizeof(line),
			 "%-8s%18s      CPU_CLK_UNHALTED.THREAD:u        (pmc0)  (on pmc0: fixed counter 1 is held by ", cpu,
			 "3,000");
		e2e_assert_err_contains(&r, line);
	}
	e2e_result_free(&r);
	assert_restored(&m, before);
	free(before);
	e2e_machine_free(&m);
}

/*
 * --regions reads one rdpmc index per event on whichever core a thread
 * runs: every core counts each event on the same counter, so a core's own
 * fixed counter held by the watchdog moves the event to the same GP
 * counter on every core.
 */
static void
test_regions_same_counter_on_every_core(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before;
	json_t *root;

	(void)state;
	NEED_TWO_CPUS();
	machine(&m, false);
	assert_int_equal(e2e_set_msr(&m, (unsigned)cpu1, MSR_IA32_FIXED_CTR_CTRL, 0xb0), 0);
	before = e2e_state(&m);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-v", "--regions", "-C", list_arg, "--json", "-e",
		"INST_RETIRED.ANY,CPU_CLK_UNHALTED.THREAD", "--", WL, "--quiet", "--threads", "2", "--spread",
		"--retire", "0xc0:0:1000", "--retire", "0x3c:0:3000", NULL });
	e2e_assert_status(&r, 0);
	assert_null(strstr(r.err, "CPU_CLK_UNHALTED.THREAD        -> fixed1"));
	e2e_assert_err_contains(&r, "CPU_CLK_UNHALTED.THREAD        -> pmc0, run 1");
	root = parse_json(strchr(r.err, '{'));
	assert_int_equal(value(root, "CPU_CLK_UNHALTED.THREAD"), 6000);
	assert_int_equal(per_cpu(root, "CPU_CLK_UNHALTED.THREAD", cpu0), 3000);
	assert_int_equal(per_cpu(root, "CPU_CLK_UNHALTED.THREAD", cpu1), 3000);
	/* --regions: the same counter on every core, and each entry says so. */
	assert_string_equal(per_cpu_counter(root, "CPU_CLK_UNHALTED.THREAD", cpu0), "pmc0");
	assert_string_equal(per_cpu_counter(root, "CPU_CLK_UNHALTED.THREAD", cpu1), "pmc0");
	json_decref(root);
	assert_restored(&m, before);
	e2e_result_free(&r);
	free(before);
	e2e_machine_free(&m);
}

/* One core whose counters are all held refuses the whole run: 125, the core named, nothing written. */
static void
test_busy_core_refuses_whole_run(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before;
	uint64_t w0, w1;
	char msg[32];

	(void)state;
	NEED_TWO_CPUS();
	machine(&m, false);
	/* Another user holds every general-purpose counter of the second core. */
	for (unsigned i = 0; i < 4; i++)
		assert_int_equal(e2e_set_msr(&m, (unsigned)cpu1, msr_evtsel(i), 0x43003c), 0);
	before = e2e_state(&m);
	w0 = writes_on(&m, cpu0);
	w1 = writes_on(&m, cpu1);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", list_arg, "-e", "LLC_MISSES", "--", WL, "--quiet",
		"--retire", "0x2e:0x41:7", NULL });
	e2e_assert_status(&r, 125);
	snprintf(msg, sizeof(msg), "core %d: counters busy", cpu1);
	e2e_assert_err_contains(&r, msg);
	e2e_assert_err_contains(&r, "nothing was written on any of the cores");
	assert_int_equal(writes_on(&m, cpu0), w0);
	assert_int_equal(writes_on(&m, cpu1), w1);
	assert_restored(&m, before);
	assert_false(journal_exists(&m, cpu0));
	assert_false(journal_exists(&m, cpu1));
	e2e_result_free(&r);
	free(before);
	e2e_machine_free(&m);
}

/* Spawn pmustat on both cores with a workload stopped at sync point @s (both cores programmed). */
static pid_t
spawn_stopped(struct e2e_machine *m, struct e2e_sync *s)
{
	pid_t pid;

	e2e_sync_new(m, s, "mid");
	pid = e2e_spawn(m, (const char *[]){ E2E_PMUSTAT, "-C", list_arg, "-e", "INST_RETIRED.ANY,LLC_MISSES", "--",
		WL, "--quiet", "--retire", "0xc0:0:1000", "--sync", s->prefix, NULL }, NULL);
	assert_true(e2e_sync_wait(s, 20000));
	/* Both cores are programmed now, each with its journal. */
	assert_int_not_equal(e2e_msr(m, (unsigned)cpu0, MSR_IA32_FIXED_CTR_CTRL), 0);
	assert_int_not_equal(e2e_msr(m, (unsigned)cpu1, MSR_IA32_FIXED_CTR_CTRL), 0);
	assert_true(journal_exists(m, cpu0));
	assert_true(journal_exists(m, cpu1));
	return pid;
}

/* SIGTERM mid-run: the handler restores both cores and removes both journals. */
static void
test_sigterm_restores_both_cores(void **state)
{
	struct e2e_machine m;
	struct e2e_sync s;
	struct emu_pmu *before;
	pid_t pid;

	(void)state;
	NEED_TWO_CPUS();
	machine(&m, true);
	before = e2e_state(&m);
	pid = spawn_stopped(&m, &s);
	assert_int_equal(kill(pid, SIGTERM), 0);
	assert_int_equal(e2e_reap(pid), 128 + SIGTERM);
	assert_restored(&m, before);
	assert_false(journal_exists(&m, cpu0));
	assert_false(journal_exists(&m, cpu1));
	e2e_sync_free(&s);
	free(before);
	e2e_machine_free(&m);
}

/* SIGKILL mid-run leaves both journals; the next run (or reset) puts both cores back. */
static void
test_sigkill_then_next_run_or_reset(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct e2e_sync s;
	struct emu_pmu *before;
	pid_t pid;

	(void)state;
	NEED_TWO_CPUS();
	for (int use_reset = 0; use_reset < 2; use_reset++) {
		machine(&m, true);
		before = e2e_state(&m);
		pid = spawn_stopped(&m, &s);
		assert_int_equal(kill(pid, SIGKILL), 0);
		assert_int_equal(e2e_reap(pid), 128 + SIGKILL);
		e2e_sync_release(&s);	/* the orphaned workload ends */
		e2e_sleep_ms(100);
		assert_true(journal_exists(&m, cpu0));
		assert_true(journal_exists(&m, cpu1));
		if (use_reset)
			e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "reset", "-C", list_arg, NULL });
		else
			e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", list_arg, "-e", "INST_RETIRED.ANY", "--",
				WL, "--quiet", NULL });
		e2e_assert_status(&r, 0);
		assert_restored(&m, before);
		assert_false(journal_exists(&m, cpu0));
		assert_false(journal_exists(&m, cpu1));
		e2e_result_free(&r);
		e2e_sync_free(&s);
		free(before);
		e2e_machine_free(&m);
	}
}

/* A target that crashes, and a command that cannot run: both cores restored. */
static void
test_crash_and_error_restore_both(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before;

	(void)state;
	NEED_TWO_CPUS();
	machine(&m, true);
	before = e2e_state(&m);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", list_arg, "-e", "INST_RETIRED.ANY", "--", WL, "--quiet",
		"--threads", "2", "--spread", "--retire", "0xc0:0:10", "--crash", NULL });
	e2e_assert_status(&r, 128 + SIGSEGV);
	assert_restored(&m, before);
	e2e_result_free(&r);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", list_arg, "-e", "INST_RETIRED.ANY", "--",
		"/nonexistent/prog", NULL });
	e2e_assert_status(&r, 127);
	assert_restored(&m, before);
	assert_false(journal_exists(&m, cpu0));
	assert_false(journal_exists(&m, cpu1));
	e2e_result_free(&r);
	free(before);
	e2e_machine_free(&m);
}

/*
 * Another run holds the second core: a run on both waits, then refuses
 * naming it, having written nothing on the first core (whose lock it
 * took first, in ascending order).
 */
static void
test_core_locked_by_another_run(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct e2e_sync s;
	char one[16];
	uint64_t w0;
	pid_t pid;

	(void)state;
	NEED_TWO_CPUS();
	machine(&m, false);
	e2e_sync_new(&m, &s, "hold");
	snprintf(one, sizeof(one), "%d", cpu1);
	pid = e2e_spawn(&m, (const char *[]){ E2E_PMUSTAT, "-C", one, "-e", "INST_RETIRED.ANY", "--", WL, "--quiet",
		"--sync", s.prefix, NULL }, NULL);
	assert_true(e2e_sync_wait(&s, 20000));
	w0 = writes_on(&m, cpu0);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", list_arg, "-e", "INST_RETIRED.ANY", "--", WL, "--quiet",
		NULL });
	e2e_assert_status(&r, 125);
	snprintf(one, sizeof(one), "core %d", cpu1);
	e2e_assert_err_contains(&r, one);
	assert_int_equal(writes_on(&m, cpu0), w0);
	assert_false(journal_exists(&m, cpu0));
	e2e_sync_release(&s);
	assert_int_equal(e2e_reap(pid), 0);
	e2e_result_free(&r);
	e2e_sync_free(&s);
	e2e_machine_free(&m);
}

/* -a is every CPU pmustat may run on; -C LIST syntax errors and CPUs outside the affinity. */
static void
test_all_cpus_and_bad_lists(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	json_t *root;
	cpu_set_t set;
	char list[32];

	(void)state;
	NEED_TWO_CPUS();
	machine(&m, false);
	/* -a under an affinity of the two cores: those two. */
	CPU_ZERO(&set);
	CPU_SET(cpu0, &set);
	CPU_SET(cpu1, &set);
	{
		cpu_set_t old;

		assert_int_equal(sched_getaffinity(0, sizeof(old), &old), 0);
		assert_int_equal(sched_setaffinity(0, sizeof(set), &set), 0);
		e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-a", "--json", "-e", "INST_RETIRED.ANY", "--", WL,
			"--quiet", "--threads", "2", "--spread", "--retire", "0xc0:0:500", NULL });
		assert_int_equal(sched_setaffinity(0, sizeof(old), &old), 0);
	}
	e2e_assert_status(&r, 0);
	root = parse_json(r.err);
	assert_int_equal(value(root, "INST_RETIRED.ANY"), 1000);
	assert_int_equal(per_cpu(root, "INST_RETIRED.ANY", cpu1), 500);
	json_decref(root);
	e2e_result_free(&r);

	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "0,,1", "--", WL, "--quiet", NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "-C 0,,1: not a CPU number, nor a list of CPUs");
	e2e_result_free(&r);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "3-1", "--", WL, "--quiet", NULL });
	e2e_assert_status(&r, 125);
	e2e_result_free(&r);
	snprintf(list, sizeof(list), "%d,%d", cpu0, CPU_SETSIZE - 1);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", list, "--", WL, "--quiet", NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "is outside the CPUs pmustat may run on");
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

/* The sum of the "interval" CSV lines of @cpu ("CPU<N>", or NULL: lines without a CPU field) for @event. */
static long long
interval_sum(const char *text, const char *cpu, const char *event)
{
	long long sum = 0;

	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		char fields[7][64];
		int n = sscanf(l, "interval,%63[^,],%63[^,],%63[^,],%63[^,],%63[^,\n],%63[^,\n]", fields[0], fields[1],
			       fields[2], fields[3], fields[4], fields[5]);

		if (cpu && n == 6 && strcmp(fields[3], cpu) == 0 && strcmp(fields[5], event) == 0)
			sum += atoll(fields[4]);
		else if (!cpu && n == 5 && strcmp(fields[4], event) == 0)
			sum += atoll(fields[3]);
	}
	return sum;
}

/*
 * -I with a list of cores: the sampler reads every listed core (from a CPU
 * not counted), the intervals add up to the sums, and with -A each core's
 * intervals to its own count. A list of one CPU runs the same code on any
 * host; two cores need a third CPU for the sampler.
 */
static void
test_interval_per_cpu(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	cpu_set_t set;
	char one[16], cpu[16];
	int third = -1;

	(void)state;
	NEED_TWO_CPUS();
	machine(&m, false);
	snprintf(one, sizeof(one), "%d-%d", cpu1, cpu1);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", one, "-A", "-I", "50", "-x", ",", "-e",
		"INST_RETIRED.ANY", "--", WL, "--quiet", "--retire", "0xc0:0:1000", "--steps", "3", "--step-ms", "80",
		NULL });
	e2e_assert_status(&r, 0);
	snprintf(cpu, sizeof(cpu), "CPU%d", cpu1);
	assert_int_equal(interval_sum(r.err, cpu, "INST_RETIRED.ANY:u"), 3000);
	e2e_assert_err_contains(&r, ",3000,,INST_RETIRED.ANY:u,");
	e2e_result_free(&r);

	/* No CPU left for the sampler: refused before anything is touched. */
	CPU_ZERO(&set);
	CPU_SET(cpu0, &set);
	CPU_SET(cpu1, &set);
	{
		cpu_set_t old;

		assert_int_equal(sched_getaffinity(0, sizeof(old), &old), 0);
		assert_int_equal(sched_setaffinity(0, sizeof(set), &set), 0);
		e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", list_arg, "-I", "50", "-e", "INST_RETIRED.ANY",
			"--", WL, "--quiet", NULL });
		assert_int_equal(sched_setaffinity(0, sizeof(old), &old), 0);
		for (int c = cpu1 + 1; c < CPU_SETSIZE && c < EMU_MAX_CPUS && third < 0; c++)
			if (CPU_ISSET(c, &old))
				third = c;
	}
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "-I reads the counters from a CPU that is not counted");
	e2e_result_free(&r);
	e2e_machine_free(&m);
	if (third < 0)
		return;

	/* A third CPU for the sampler: two cores sampled, each exact. */
	{
		char cpus[16];

		snprintf(cpus, sizeof(cpus), "%d", third + 1);
		e2e_machine_new(&m, (const char *[]){ "--model", "skylake", "--cpus", cpus, NULL });
	}
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", list_arg, "-A", "-I", "50", "-x", ",", "-e",
		"INST_RETIRED.ANY", "--", WL, "--quiet", "--threads", "2", "--spread", "--retire", "0xc0:0:1000",
		"--steps", "3", "--step-ms", "80", NULL });
	e2e_assert_status(&r, 0);
	snprintf(cpu, sizeof(cpu), "CPU%d", cpu0);
	assert_int_equal(interval_sum(r.err, cpu, "INST_RETIRED.ANY:u"), 3000);
	snprintf(cpu, sizeof(cpu), "CPU%d", cpu1);
	assert_int_equal(interval_sum(r.err, cpu, "INST_RETIRED.ANY:u"), 3000);
	e2e_result_free(&r);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", list_arg, "-I", "50", "-x", ",", "-e",
		"INST_RETIRED.ANY", "--", WL, "--quiet", "--threads", "2", "--retire", "0xc0:0:1000", "--steps", "3",
		"--step-ms", "80", NULL });
	e2e_assert_status(&r, 0);
	assert_int_equal(interval_sum(r.err, NULL, "INST_RETIRED.ANY:u"), 6000);
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

/* -r and --check gate on the sums over the cores. */
static void
test_repeat_and_check_on_sums(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;

	(void)state;
	NEED_TWO_CPUS();
	machine(&m, false);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", list_arg, "-r", "3", "--check", "INST_RETIRED.ANY == 2000",
		"-e", "INST_RETIRED.ANY", "--", WL, "--quiet", "--threads", "2", "--retire", "0xc0:0:1000", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "PASS  INST_RETIRED.ANY == 2000");
	e2e_result_free(&r);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", list_arg, "--check", "INST_RETIRED.ANY <= 1000", "-e",
		"INST_RETIRED.ANY", "--", WL, "--quiet", "--threads", "2", "--spread", "--retire", "0xc0:0:1000", NULL });
	e2e_assert_status(&r, 3);
	e2e_assert_err_contains(&r, "FAIL  INST_RETIRED.ANY <= 1000  (measured 2000)");
	e2e_result_free(&r);
	/* -A with -r: each core's median of its rounds. */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", list_arg, "-A", "-r", "2", "-x", ",", "-e",
		"INST_RETIRED.ANY", "--", WL, "--quiet", "--threads", "2", "--spread", "--retire", "0xc0:0:1000", NULL });
	e2e_assert_status(&r, 0);
	{
		char line[64];

		snprintf(line, sizeof(line), "CPU%d,1000,,INST_RETIRED.ANY:u,", cpu1);
		e2e_assert_err_contains(&r, line);
	}
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

/*
 * Busy counters on one core that would batch the events differently:
 * every core keeps to the counters free on all, so each event is counted
 * on both cores in the same run, exactly.
 */
static void
test_batches_common_to_every_core(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before;
	json_t *root;

	(void)state;
	NEED_TWO_CPUS();
	machine(&m, false);
	/* Another user holds three of the second core's four general-purpose counters. */
	for (unsigned i = 1; i < 4; i++)
		assert_int_equal(e2e_set_msr(&m, (unsigned)cpu1, msr_evtsel(i), 0x43003c), 0);
	before = e2e_state(&m);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", list_arg, "--json", "-e",
		"LONGEST_LAT_CACHE.MISS,BR_INST_RETIRED.ALL_BRANCHES", "--", WL, "--quiet", "--threads", "2",
		"--spread", "--retire", "0x2e:0x41:7", "--retire", "0xc4:0:300", NULL });
	e2e_assert_status(&r, 0);
	root = parse_json(r.err);
	assert_int_equal(json_integer_value(json_object_get(root, "runs")), 2);
	assert_int_equal(value(root, "LONGEST_LAT_CACHE.MISS"), 14);
	assert_int_equal(per_cpu(root, "BR_INST_RETIRED.ALL_BRANCHES", cpu0), 300);
	assert_int_equal(per_cpu(root, "BR_INST_RETIRED.ALL_BRANCHES", cpu1), 300);
	json_decref(root);
	assert_restored(&m, before);
	e2e_result_free(&r);

	/* --dry-run prints each core's plan. */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", list_arg, "--dry-run", "-e",
		"LONGEST_LAT_CACHE.MISS,BR_INST_RETIRED.ALL_BRANCHES", "--", WL, NULL });
	e2e_assert_status(&r, 0);
	{
		char line[96];

		snprintf(line, sizeof(line), "counting plan for core %d (", cpu0);
		e2e_assert_err_contains(&r, line);
		snprintf(line, sizeof(line), "counting plan for core %d (", cpu1);
		e2e_assert_err_contains(&r, line);
		e2e_assert_err_contains(&r, "2 events, 2 runs of the command");
	}
	e2e_result_free(&r);
	free(before);
	e2e_machine_free(&m);
}

/* A list across a hybrid's core types with the perf backend: refused, naming why; -A on the perf backend: per CPU. */
static void
test_refused_lists(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	char msg[64];

	(void)state;
	NEED_TWO_CPUS();
	if (cpu0 != 0 || cpu1 != 1)
		skip();		/* the hybrid's P-cores are CPUs [0, pcores) */
	/* A hybrid's two types count together (test_hybrid_e2e.c); different CPUs do not. */
	e2e_machine_new(&m, (const char *[]){ "--model", "alderlake", "--cpus", "2", "--pcores", "1", NULL });
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "--backend", "perf", "-C", "0,1", "-e", "INST_RETIRED.ANY", "--",
		WL, "--quiet", NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "a list across core types counts hardware events through the MSR backend only");
	e2e_result_free(&r);
	e2e_machine_free(&m);

	/* The perf backend with -A: the command's counts on each listed CPU (the kernel's software events). */
	machine(&m, false);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "--backend", "perf", "-C", list_arg, "-A", "-x", ",", "-e",
		"task-clock", "--", WL, "--quiet", "--threads", "2", "--spread", NULL });
	e2e_assert_status(&r, 0);
	snprintf(msg, sizeof(msg), "CPU%d,", cpu0);
	e2e_assert_err_contains(&r, msg);
	snprintf(msg, sizeof(msg), "CPU%d,", cpu1);
	e2e_assert_err_contains(&r, msg);
	e2e_assert_err_contains(&r, ",ns,task-clock,");
	e2e_result_free(&r);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "--backend", "perf", "-C", list_arg, "-e", "task-clock", "--",
		WL, "--quiet", "--threads", "2", NULL });
	e2e_assert_status(&r, 0);
	snprintf(msg, sizeof(msg), "on cores %s:", range_arg);
	e2e_assert_err_contains(&r, msg);
	e2e_assert_err_contains(&r, "task-clock");
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_cores_sum_and_per_cpu),
		cmocka_unit_test(test_four_threads_exact_total),
		cmocka_unit_test(test_wraps_on_every_core),
		cmocka_unit_test(test_per_cpu_lines),
		cmocka_unit_test(test_each_core_its_own_assignment),
		cmocka_unit_test(test_regions_same_counter_on_every_core),
		cmocka_unit_test(test_busy_core_refuses_whole_run),
		cmocka_unit_test(test_sigterm_restores_both_cores),
		cmocka_unit_test(test_sigkill_then_next_run_or_reset),
		cmocka_unit_test(test_crash_and_error_restore_both),
		cmocka_unit_test(test_core_locked_by_another_run),
		cmocka_unit_test(test_all_cpus_and_bad_lists),
		cmocka_unit_test(test_interval_per_cpu),
		cmocka_unit_test(test_repeat_and_check_on_sums),
		cmocka_unit_test(test_batches_common_to_every_core),
		cmocka_unit_test(test_refused_lists),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
