/*
 * test_nb_cores_e2e.c - pmustat on several cores of the emulated NetBurst
 * machines (-C LIST, -a, -A, --dry-run), the real binary end to end: on
 * two cores each counts its own clocks; on the two Hyper-Threading threads
 * of one core (netburst-ht: CPUs 0 and 1 share one set of ESCRs, CCCRs and
 * counters) each thread counts through its own ESCRs with its own T0/T1
 * bits on its own half of the counters; a journal per core, and every
 * register as found afterwards on every exit path. And the modes beside
 * plain counting there: -I (intervals that add up to the count), --regions
 * (nb-region-demo's regions exact, rdpmc taking the counter's number) and
 * -M (refused: no metrics for NetBurst).
 */
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
#include <jansson.h>

#include "e2e_harness.h"
#include "pmu/journal.h"

#define IQ_CCCR0	0x36cu
#define IQ_CCCR2	0x36eu
#define CRU_ESCR0	0x3b8u
#define CRU_ESCR1	0x3b9u

/* Both CPUs 0 and 1 must be ours: on netburst-ht they are one core's two threads. */
static int
setup(void **state)
{
	cpu_set_t set;

	(void)state;
	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return -1;
	if (!CPU_ISSET(0, &set) || !CPU_ISSET(1, &set))
		*state = (void *)1;
	return 0;
}

#define NEED_CPUS_0_1() do { if (*state) skip(); } while (0)

/* The value of -A's CSV record "count,CPU<cpu>,VALUE,,EVENT," in @out, or fail. */
static unsigned long long
cpu_value(const char *out, int cpu, const char *event)
{
	char needle[200];
	const char *hit;

	snprintf(needle, sizeof(needle), "count,CPU%d,", cpu);
	for (hit = strstr(out, needle); hit; hit = strstr(hit + 1, needle)) {
		const char *nl = strchr(hit, '\n');
		char ev[200];

		snprintf(ev, sizeof(ev), ",,%s,", event);
		if ((hit == out || hit[-1] == '\n') && strstr(hit, ev) && (!nl || strstr(hit, ev) < nl))
			return strtoull(hit + strlen(needle), NULL, 10);
	}
	fail_msg("no row CPU%d %s in:\n%s", cpu, event, out);
	return 0;
}

/* The counter field of -A's CSV record "count,CPU<cpu>,VALUE,,EVENT,NAME,COUNTER,..." in @out (into @buf), or fail. */
static const char *
cpu_counter(const char *out, int cpu, const char *event, char *buf, size_t size)
{
	char needle[200];
	const char *hit;

	snprintf(needle, sizeof(needle), "count,CPU%d,", cpu);
	for (hit = strstr(out, needle); hit; hit = strstr(hit + 1, needle)) {
		const char *nl = strchr(hit, '\n'), *f = hit;
		char ev[200];

		snprintf(ev, sizeof(ev), ",,%s,", event);
		if ((hit != out && hit[-1] != '\n') || !strstr(hit, ev) || (nl && strstr(hit, ev) >= nl))
			continue;
		/* Past count, CPU<N>, value, unit, event, name: the counter. */
		for (int k = 0; k < 6 && f; k++)
			f = strchr(f, ',') ? strchr(f, ',') + 1 : NULL;
		if (!f)
			break;
		snprintf(buf, size, "%.*s", (int)strcspn(f, ",\n"), f);
		return buf;
	}
	fail_msg("no row CPU%d %s in:\n%s", cpu, event, out);
	return NULL;
}

/* The value of the summed CSV record "count,,VALUE,,EVENT," in @out, or fail. */
static unsigned long long
sum_value(const char *out, const char *event)
{
	char needle[200];
	const char *line = out;

	snprintf(needle, sizeof(needle), ",,%s,", event);
	while (line && *line) {
		const char *nl = strchr(line, '\n');
		const char *hit = strstr(line, needle);

		if (hit && (!nl || hit < nl) && strncmp(line, "count,,", 7) == 0)
			return strtoull(line + 7, NULL, 10);
		line = nl ? nl + 1 : NULL;
	}
	fail_msg("no row for %s in:\n%s", event, out);
	return 0;
}

static bool
journal_exists(const struct e2e_machine *m, int cpu)
{
	char rel[64], path[PATH_MAX * 2];

	snprintf(rel, sizeof(rel), JOURNAL_DIR "/cpu%d.journal", cpu);
	e2e_machine_path(m, rel, path, sizeof(path));
	return access(path, F_OK) == 0;
}

static void
assert_restored(const struct e2e_machine *m, const struct emu_pmu *before)
{
	struct emu_pmu *after = e2e_state(m);

	assert_int_equal(emu_pmu_diff(before, after, stderr), 0);
	free(after);
}

/*
 * Two cores, no Hyper-Threading: a thread on each counts its own clocks;
 * -A gives each core's, the sum both; -a is the same two cores.
 */
static void
test_two_cores_each_and_sum(void **state)
{
	static const char *const lists[][2] = { { "-C", "0,1" }, { "-a", NULL } };
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before;

	NEED_CPUS_0_1();
	e2e_machine_new(&m, (const char *[]){ "--model", "netburst", "--cpus", "2", NULL });
	before = e2e_state(&m);
	for (unsigned i = 0; i < 2; i++) {
		const char *argv[24];
		unsigned n = 0;

		argv[n++] = E2E_PMUSTAT;
		for (unsigned k = 0; k < 2 && lists[i][k]; k++)
			argv[n++] = lists[i][k];
		for (const char *const *a = (const char *[]){ "-A", "-x,", "-e", "instr_retired:NBOGUSNTAG,global_power_events",
		     "--", m.workload, "--threads", "2", "--spread", "--nb", "0x02:0x1:3,5*10", "--nb",
		     "0x13:0x1:1*1000", NULL }; *a; a++)
			argv[n++] = *a;
		argv[n] = NULL;
		e2e_run(&m, &r, argv);
		e2e_assert_status(&r, 0);
		for (int cpu = 0; cpu < 2; cpu++) {
			assert_int_equal(cpu_value(r.err, cpu, "instr_retired:NBOGUSNTAG:u"), 53);
			assert_int_equal(cpu_value(r.err, cpu, "global_power_events:u"), 1000);
		}
		e2e_result_free(&r);
		assert_restored(&m, before);
		assert_false(journal_exists(&m, 0));
		assert_false(journal_exists(&m, 1));
	}
	/* Without -A: the sums. */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "0,1", "-x,", "-e", "instr_retired:NBOGUSNTAG", "--",
		m.workload, "--threads", "2", "--spread", "--nb", "0x02:0x1:3,5*10", NULL });
	e2e_assert_status(&r, 0);
	assert_int_equal(sum_value(r.err, "instr_retired:NBOGUSNTAG:u"), 106);
	e2e_result_free(&r);
	assert_restored(&m, before);
	free(before);
	e2e_machine_free(&m);
}

/*
 * Both threads of one core (netburst-ht CPUs 0 and 1): thread 0 on
 * CRU_ESCR0 with T0_USR into IQ_COUNTER0, thread 1 on CRU_ESCR1 with
 * T1_USR into IQ_COUNTER2, so each counts its own clocks only: clocks on
 * CPU 1 alone leave CPU 0's count 0. Each thread's -A line, CSV record
 * and JSON per_cpu entry names its own counter. Sharing one ESCR would count both
 * threads' clocks in one counter, or lose one thread's bits.
 */
static void
test_ht_siblings_each_own_half(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before;
	char counter[32];

	NEED_CPUS_0_1();
	e2e_machine_new(&m, (const char *[]){ "--model", "netburst-ht", "--cpus", "2", NULL });
	before = e2e_state(&m);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "0,1", "-A", "-x,", "-v", "-e",
		"instr_retired:NBOGUSNTAG,global_power_events", "--", m.workload, "--cpu", "1", "--nb",
		"0x02:0x1:3,5*10", "--nb", "0x13:0x1:1*1000", NULL });
	e2e_assert_status(&r, 0);
	assert_int_equal(cpu_value(r.err, 0, "instr_retired:NBOGUSNTAG:u"), 0);
	assert_int_equal(cpu_value(r.err, 1, "instr_retired:NBOGUSNTAG:u"), 53);
	assert_int_equal(cpu_value(r.err, 0, "global_power_events:u"), 0);
	assert_int_equal(cpu_value(r.err, 1, "global_power_events:u"), 1000);
	e2e_assert_err_contains(&r, "instr_retired:NBOGUSNTAG       -> IQ_COUNTER2");
	/* Each thread's row names the counter of its own half, not thread 0's. */
	assert_string_equal(cpu_counter(r.err, 0, "instr_retired:NBOGUSNTAG:u", counter, sizeof(counter)),
			    "IQ_COUNTER0");
	assert_string_equal(cpu_counter(r.err, 1, "instr_retired:NBOGUSNTAG:u", counter, sizeof(counter)),
			    "IQ_COUNTER2");
	e2e_result_free(&r);
	assert_restored(&m, before);
	/* The same in the JSON's per_cpu entries, and on -A's table lines. */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "0,1", "--json", "-e", "instr_retired:NBOGUSNTAG", "--",
		m.workload, "--cpu", "1", "--nb", "0x02:0x1:3,5*10", NULL });
	e2e_assert_status(&r, 0);
	{
		json_t *root = json_loads(r.err, 0, NULL);
		json_t *pc = json_object_get(json_array_get(json_object_get(root, "events"), 0), "per_cpu");

		assert_non_null(root);
		assert_int_equal(json_array_size(pc), 2);
		assert_int_equal(json_integer_value(json_object_get(json_array_get(pc, 1), "cpu")), 1);
		assert_int_equal(json_integer_value(json_object_get(json_array_get(pc, 1), "value")), 53);
		assert_string_equal(json_string_value(json_object_get(json_array_get(pc, 0), "counter")), "IQ_COUNTER0");
		assert_string_equal(json_string_value(json_object_get(json_array_get(pc, 1), "counter")), "IQ_COUNTER2");
		json_decref(root);
	}
	e2e_result_free(&r);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "0,1", "-A", "-e", "instr_retired:NBOGUSNTAG", "--",
		m.workload, "--cpu", "1", "--nb", "0x02:0x1:3,5*10", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "CPU0                     0      instr_retired:NBOGUSNTAG:u       (IQ_COUNTER0)\n");
	e2e_assert_err_contains(&r, "CPU1                    53      instr_retired:NBOGUSNTAG:u       (IQ_COUNTER2)\n");
	e2e_result_free(&r);
	assert_restored(&m, before);
	/* A thread on each: each its own, the sum both. */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-a", "-A", "-x,", "-e", "instr_retired:NBOGUSNTAG", "--",
		m.workload, "--threads", "2", "--spread", "--nb", "0x02:0x1:4*9", NULL });
	e2e_assert_status(&r, 0);
	assert_int_equal(cpu_value(r.err, 0, "instr_retired:NBOGUSNTAG:u"), 36);
	assert_int_equal(cpu_value(r.err, 1, "instr_retired:NBOGUSNTAG:u"), 36);
	e2e_result_free(&r);
	assert_restored(&m, before);
	assert_false(journal_exists(&m, 0));
	assert_false(journal_exists(&m, 1));
	free(before);
	e2e_machine_free(&m);
}

/* --dry-run on both threads: each core's writes, with its own ESCR and its own T0/T1 bits. */
static void
test_ht_siblings_dry_run(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before;

	NEED_CPUS_0_1();
	e2e_machine_new(&m, (const char *[]){ "--model", "netburst-ht", "--cpus", "2", NULL });
	before = e2e_state(&m);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "0,1", "--dry-run", "-e", "instr_retired:NBOGUSNTAG",
		"--", "true", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "counting plan for core 0");
	e2e_assert_err_contains(&r, "logical processor 0 (T0 bits)");
	e2e_assert_err_contains(&r, "logical processor 1 (T1 bits)");
	/* Event select 2, mask 0x1, T0_USR on CRU_ESCR0; T1_USR on CRU_ESCR1. */
	e2e_assert_err_contains(&r, "wrmsr -p 0 0x3b8 0x4000204");
	e2e_assert_err_contains(&r, "wrmsr -p 1 0x3b9 0x4000201");
	e2e_result_free(&r);
	assert_restored(&m, before);
	free(before);
	e2e_machine_free(&m);
}

/*
 * Killed mid-count on both threads: a journal per core; `pmustat reset`
 * on both, or the next run on one of them (its sibling's journal put back
 * through the sibling's lock), restores every register; SIGTERM restores
 * every core itself.
 */
static void
test_ht_siblings_killed_and_terminated(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before;

	NEED_CPUS_0_1();
	for (int how = 0; how < 3; how++) {
		pid_t pid;

		e2e_machine_new(&m, (const char *[]){ "--model", "netburst-ht", "--cpus", "2", NULL });
		assert_int_equal(e2e_set_msr(&m, 0, CRU_ESCR1, (0x5ull << 25) | (0x3ull << 9)), 0);
		before = e2e_state(&m);
		pid = e2e_spawn(&m, (const char *[]){ E2E_PMUSTAT, "-C", "0,1", "-e", "instr_retired:NBOGUSNTAG", "--",
				m.workload, "--sleep", "10000", NULL }, NULL);
		assert_true(e2e_wait_msr(&m, 0, IQ_CCCR0, 1ull << 12, 1ull << 12, 5000));
		assert_true(e2e_wait_msr(&m, 0, IQ_CCCR2, 1ull << 12, 1ull << 12, 5000));
		assert_true(journal_exists(&m, 0));
		assert_true(journal_exists(&m, 1));
		if (how == 2) {
			kill(pid, SIGTERM);
			e2e_reap(pid);
			assert_restored(&m, before);
		} else {
			kill(-pid, SIGKILL);
			assert_int_equal(e2e_reap(pid), 128 + SIGKILL);
			assert_int_not_equal(e2e_msr(&m, 0, CRU_ESCR1), (0x5ull << 25) | (0x3ull << 9));
			if (how == 0)
				e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "reset", "-C", "0,1", NULL });
			else
				e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "0", "-x,", "-e",
					"instr_retired:NBOGUSNTAG", "--", "true", NULL });
			e2e_assert_status(&r, 0);
			e2e_assert_err_contains(&r, "was killed");
			e2e_result_free(&r);
			assert_restored(&m, before);
		}
		assert_false(journal_exists(&m, 0));
		assert_false(journal_exists(&m, 1));
		free(before);
		e2e_machine_free(&m);
	}
}

/* -I: each interval's clocks, on thread 1 of an HT core too; they add up to the count. */
static void
test_intervals(void **state)
{
	static const char *const models[] = { "netburst", "netburst-ht" };

	NEED_CPUS_0_1();
	for (unsigned i = 0; i < 2; i++) {
		struct e2e_machine m;
		struct e2e_result r;
		struct emu_pmu *before;
		unsigned long long sum = 0;
		unsigned lines = 0, nonzero = 0;

		e2e_machine_new(&m, (const char *[]){ "--model", models[i], "--cpus", "2", NULL });
		before = e2e_state(&m);
		e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "1", "-I", "100", "-x,", "-e",
			"instr_retired:NBOGUSNTAG", "--", m.workload, "--cpu", "1", "--nb", "0x02:0x1:3,4",
			"--steps", "3", "--step-ms", "300", NULL });
		e2e_assert_status(&r, 0);
		for (const char *l = strstr(r.err, "interval,"); l; l = strstr(l + 1, "\ninterval,")) {
			const char *f = l + (l[0] == '\n');
			unsigned long long v;

			/* interval,TIME,ROUND,RUN,CPU,VALUE,UNIT,EVENT */
			for (int k = 0; k < 5; k++)
				f = strchr(f, ',') + 1;
			v = strtoull(f, NULL, 10);
			sum += v;
			nonzero += v != 0;
			lines++;
		}
		assert_true(lines >= 3);
		assert_true(nonzero >= 2);
		assert_int_equal(sum, 21);
		assert_int_equal(sum_value(r.err, "instr_retired:NBOGUSNTAG:u"), 21);
		e2e_result_free(&r);
		assert_restored(&m, before);
		free(before);
		e2e_machine_free(&m);
	}
}

static json_t *
region_of(json_t *root, const char *name)
{
	size_t i;
	json_t *g;

	json_array_foreach(json_object_get(root, "regions"), i, g)
		if (strcmp(json_string_value(json_object_get(g, "name")), name) == 0)
			return g;
	fail_msg("no region %s", name);
	return NULL;
}

static long long
region_value(json_t *root, const char *name, size_t k)
{
	return (long long)json_integer_value(json_object_get(
		json_array_get(json_object_get(region_of(root, name), "events"), k), "value"));
}

/*
 * --regions: the library reads each NetBurst counter with rdpmc by its
 * number (0-17, SDM RDPMC), 40 bits wide: every region exact, on thread 1
 * of an HT core too. Both threads of one core at once are refused: a region
 * reads one counter number per event, and the threads count on different
 * halves.
 */
static void
test_regions(void **state)
{
	static const char *const models[] = { "netburst", "netburst-ht" };

	NEED_CPUS_0_1();
	for (unsigned i = 0; i < 2; i++) {
		struct e2e_machine m;
		struct e2e_result r;
		struct emu_pmu *before;
		json_t *root;
		json_error_t jerr;

		e2e_machine_new(&m, (const char *[]){ "--model", models[i], "--cpus", "2", NULL });
		before = e2e_state(&m);
		e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "--regions", "-C", "1", "-e",
			"instr_retired:NBOGUSNTAG,global_power_events", "--json", "-o", "/dev/stdout", "--",
			NB_REGION_DEMO, NULL });
		e2e_assert_status(&r, 0);
		root = json_loads(r.out, 0, &jerr);
		if (!root)
			fail_msg("not JSON (%s): %s\nstderr: %s", jerr.text, r.out, r.err);
		assert_int_equal(json_integer_value(json_object_get(region_of(root, "a"), "calls")), 2);
		assert_int_equal(region_value(root, "a", 0), 200);
		assert_int_equal(region_value(root, "a", 1), 2000);
		assert_int_equal(json_integer_value(json_object_get(region_of(root, "b"), "calls")), 1);
		assert_int_equal(region_value(root, "b", 0), 7);
		assert_int_equal(region_value(root, "b", 1), 70);
		json_decref(root);
		e2e_result_free(&r);
		assert_restored(&m, before);
		if (i == 1) {
			e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "--regions", "-C", "0,1", "-e",
				"instr_retired:NBOGUSNTAG", "--", NB_REGION_DEMO, NULL });
			e2e_assert_status(&r, 125);
			e2e_assert_err_contains(&r, "cores 0 and 1 are the two Hyper-Threading threads of one NetBurst core");
			e2e_result_free(&r);
			assert_restored(&m, before);
		}
		free(before);
		e2e_machine_free(&m);
	}
}

/* -M: Intel publishes no metrics for NetBurst: refused (125) before anything is written. */
static void
test_metrics_refused(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before;

	(void)state;
	e2e_machine_new(&m, (const char *[]){ "--model", "netburst", "--cpus", "1", NULL });
	before = e2e_state(&m);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", "0", "-M", "IPC", "--", "true", NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "Intel publishes no metrics for NetBurst");
	e2e_result_free(&r);
	assert_restored(&m, before);
	free(before);
	e2e_machine_free(&m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_cores_each_and_sum),
		cmocka_unit_test(test_ht_siblings_each_own_half),
		cmocka_unit_test(test_ht_siblings_dry_run),
		cmocka_unit_test(test_ht_siblings_killed_and_terminated),
		cmocka_unit_test(test_intervals),
		cmocka_unit_test(test_regions),
		cmocka_unit_test(test_metrics_refused),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
