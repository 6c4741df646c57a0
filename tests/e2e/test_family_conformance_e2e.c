/*
 * test_family_conformance_e2e.c - one table of cases, run by the real
 * binary against every PMU family's emulator model: what a family must
 * do to be done (src/README.md, "A new PMU family").
 *
 *	count		an event counted exactly, every register as found after
 *	wrap		a counter wrapping once at its width, counted exactly
 *	taken		another user takes a counter of the run mid-run: that
 *			count is "not counted", the other exact, and that
 *			user's registers are as they left them
 *	kill-reset	pmustat SIGKILLed mid-count leaves its crash journal;
 *			`pmustat reset` applies it (the journal's round trip)
 *			and everything is as found, bit for bit
 *
 * A model gives the words its family speaks (events, workload steps, the
 * register that says a run is counting); the cases are the same for all.
 */
#include <limits.h>
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
#include "e2e_journal.h"

/* Another user's write mid-run ("wrmsr:MSR=VALUE"), and its bits that must stay as written. */
struct other_write {
	uint32_t msr;
	uint64_t value;
	uint64_t theirs;
};

struct family_model {
	const char *model;		/* pmu-emu init --model */
	const char *cpus;		/* --cpus */
	unsigned cpu;			/* the CPU counted (-C) */
	/* An event the workload step @step_option @step<count> makes happen exactly. */
	const char *event;
	const char *label;		/* its CSV label */
	const char *step_option;	/* "--retire" or "--nb" */
	const char *step;		/* the step's argument, the count after it */
	unsigned width;			/* the event's counter's width in bits */
	/* A run counting @kill_event has programmed @wait_msr when (value & mask) == mask. */
	const char *kill_event;
	uint32_t wait_msr;
	uint64_t wait_mask;
	/*
	 * The taken case: @taken_events counted, the step run 300 and 200
	 * times around @takes (another user programming the counter of the
	 * second event, which then is not counted); the first counts 500.
	 * NULL: the case is not run for the model (say why beside it).
	 */
	const char *taken_events;
	const char *taken_label;
	struct other_write takes[3];
};

#define EVTSEL0		0x186u
#define PMC0		0xc1u
#define GLOBAL_CTRL	0x38fu
#define EVTSEL_EN	(1ull << 22)
#define IQ_CCCR0	0x36cu
#define NB_CCCR_ENABLE	(1ull << 12)
#define IQ_COUNTER0	0x30cu
#define CRU_ESCR0	0x3b8u

/*
 * perf programming pmc0 behind pmustat's back: branches with EN, INT, OS,
 * USR, its counter (which counts on), every enable; pmc0's is perf's then.
 */
#define INTEL_TAKES                                                                                \
	{ { EVTSEL0, 0x5300c4, ~0ull }, { PMC0, 0x1000, 0 }, { GLOBAL_CTRL, 0x70000000full, 1 } }

#define INTEL_MODEL(name, ncpus)                                                                   \
	{ .model = name, .cpus = ncpus, .cpu = 0, .event = "INST_RETIRED.ANY", .label = "INST_RETIRED.ANY:u", \
	  .step_option = "--retire", .step = "0xc0:0:", .width = 48, .kill_event = "r00c4",     \
	  .wait_msr = EVTSEL0, .wait_mask = EVTSEL_EN, .taken_events = "INST_RETIRED.ANY,r00c0",    \
	  .taken_label = "r00c0", .takes = INTEL_TAKES }

/*
 * Linux's p4 driver programming instr_retired:NBOGUSNTAG for perf on
 * thread 0 behind pmustat's back: CRU_ESCR0 with T0_OS|T0_USR, IQ_COUNTER0
 * at minus its period (it counts on), IQ_CCCR0 enabled with ESCR select 4,
 * any thread and OVF_PMI_T0; the CCCR and ESCR are perf's then.
 */
#define NETBURST_TAKES                                                                             \
	{ { CRU_ESCR0, 0x400020cull, ~0ull }, { IQ_COUNTER0, (1ull << 40) - 1000, 0 }, { IQ_CCCR0, 0x4039000ull, ~0ull } }

#define NETBURST_MODEL(name, ncpus)                                                                \
	{ .model = name, .cpus = ncpus, .cpu = 0, .event = "global_power_events",                  \
	  .label = "global_power_events:u", .step_option = "--nb", .step = "0x13:0x1:1*", .width = 40, \
	  .kill_event = "instr_retired:NBOGUSNTAG", .wait_msr = IQ_CCCR0, .wait_mask = NB_CCCR_ENABLE, \
	  .taken_events = "global_power_events,instr_retired:NBOGUSNTAG",                               \
	  .taken_label = "instr_retired:NBOGUSNTAG", .takes = NETBURST_TAKES }

static const struct family_model models[] = {
	INTEL_MODEL("skylake", "2"),
	INTEL_MODEL("icelake", "2"),
	/* Arrow Lake: CPU 0 a Lion Cove P-core of the hybrid part. */
	INTEL_MODEL("arrowlake", "4"),
	NETBURST_MODEL("netburst", "1"),
	NETBURST_MODEL("netburst-ht", "2"),
};

/* The value of CSV row @label ("count,,VALUE,,LABEL,...") in @out, or fail. */
static unsigned long long
csv_value(const char *out, const char *label)
{
	char needle[200];

	snprintf(needle, sizeof(needle), ",,%s,", label);
	for (const char *line = out; line && *line;) {
		const char *nl = strchr(line, '\n');
		const char *hit = strstr(line, needle);

		if (hit && (!nl || hit < nl) && hit > line) {
			/* The value is the field before the label's empty one ("count,,VALUE,,LABEL,..."). */
			const char *v = hit;

			while (v > line && v[-1] != ',')
				v--;
			return strtoull(v, NULL, 10);
		}
		line = nl ? nl + 1 : NULL;
	}
	fail_msg("no row for %s in:\n%s", label, out);
	return 0;
}

static void
machine_new(struct e2e_machine *m, const struct family_model *f)
{
	e2e_machine_new(m, (const char *[]){ "--model", f->model, "--cpus", f->cpus, NULL });
}

static void
assert_restored(const struct e2e_machine *m, const struct emu_pmu *before)
{
	struct emu_pmu *after = e2e_state(m);

	assert_int_equal(emu_pmu_diff(before, after, stderr), 0);
	free(after);
}

/* `pmustat -C CPU -x, -e EVENT -- workload --cpu CPU STEP(n)`: exit 0 and the count. */
static unsigned long long
count_steps(const struct e2e_machine *m, const struct family_model *f, unsigned long long n)
{
	char cpu[16], step[64];
	struct e2e_result r;
	unsigned long long v;

	snprintf(cpu, sizeof(cpu), "%u", f->cpu);
	snprintf(step, sizeof(step), "%s%llu", f->step, n);
	e2e_run(m, &r, (const char *[]){ E2E_PMUSTAT, "-C", cpu, "-x,", "-e", f->event, "--", m->workload,
		"--quiet", "--cpu", cpu, f->step_option, step, NULL });
	if (r.status != 0)
		fail_msg("%s: exit %d; stderr:\n%s", f->model, r.status, r.err);
	v = csv_value(r.err, f->label);
	e2e_result_free(&r);
	return v;
}

static void
test_count(void **state)
{
	const struct family_model *f = *state;
	struct e2e_machine m;
	struct emu_pmu *before;

	machine_new(&m, f);
	before = e2e_state(&m);
	assert_int_equal(count_steps(&m, f, 1000), 1000);
	assert_restored(&m, before);
	free(before);
	e2e_machine_free(&m);
}

static void
test_wrap(void **state)
{
	const struct family_model *f = *state;
	unsigned long long n = (1ull << f->width) + 5;
	struct e2e_machine m;
	struct emu_pmu *before;

	machine_new(&m, f);
	before = e2e_state(&m);
	assert_int_equal(count_steps(&m, f, n), n);
	assert_restored(&m, before);
	free(before);
	e2e_machine_free(&m);
}

static json_t *
event_of(json_t *root, unsigned i)
{
	json_t *e = json_array_get(json_object_get(root, "events"), i);

	assert_non_null(e);
	return e;
}

static void
test_taken(void **state)
{
	const struct family_model *f = *state;
	char cpu[16], first[64], second[64], acts[3][64];
	struct e2e_machine m;
	struct e2e_result r;
	json_t *root;

	machine_new(&m, f);
	snprintf(cpu, sizeof(cpu), "%u", f->cpu);
	snprintf(first, sizeof(first), "%s300", f->step);
	snprintf(second, sizeof(second), "%s200", f->step);
	for (unsigned i = 0; i < 3; i++)
		snprintf(acts[i], sizeof(acts[i]), "wrmsr:0x%x=0x%llx", f->takes[i].msr,
			 (unsigned long long)f->takes[i].value);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", cpu, "--json", "-e", f->taken_events, "--", m.workload,
		"--quiet", "--cpu", cpu, f->step_option, first, "--act", acts[0], "--act", acts[1], "--act", acts[2],
		f->step_option, second, NULL });
	e2e_assert_status(&r, 0);
	root = json_loads(strstr(r.err, "{"), 0, NULL);
	assert_non_null(root);
	assert_int_equal(json_integer_value(json_object_get(event_of(root, 0), "value")), 500);
	assert_true(json_is_null(json_object_get(event_of(root, 1), "value")));
	assert_string_equal(json_string_value(json_object_get(event_of(root, 1), "status")), "not_counted");
	assert_string_equal(json_string_value(json_object_get(event_of(root, 1), "status_text")),
			    "not counted: counter taken by another user");
	json_decref(root);
	/* The other user's registers and bits are as they wrote them. */
	for (unsigned i = 0; i < 3; i++)
		assert_int_equal(e2e_msr(&m, f->cpu, f->takes[i].msr) & f->takes[i].theirs,
				 f->takes[i].value & f->takes[i].theirs);
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

static bool
journal_exists(const struct e2e_machine *m, unsigned cpu)
{
	char path[PATH_MAX * 2];

	e2e_journal_file(m, (int)cpu, path, sizeof(path));
	return access(path, F_OK) == 0;
}

static void
test_kill_reset(void **state)
{
	const struct family_model *f = *state;
	char cpu[16];
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before;
	pid_t pid;

	machine_new(&m, f);
	snprintf(cpu, sizeof(cpu), "%u", f->cpu);
	before = e2e_state(&m);
	pid = e2e_spawn(&m, (const char *[]){ E2E_PMUSTAT, "-C", cpu, "-e", f->kill_event, "--", m.workload,
		"--sleep", "10000", NULL }, NULL);
	assert_true(e2e_wait_msr(&m, f->cpu, f->wait_msr, f->wait_mask, f->wait_mask, 5000));
	e2e_sleep_ms(100);
	kill(-pid, SIGKILL);
	assert_int_equal(e2e_reap(pid), 128 + SIGKILL);
	assert_true(journal_exists(&m, f->cpu));
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "reset", "-C", cpu, NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "was killed");
	e2e_result_free(&r);
	assert_false(journal_exists(&m, f->cpu));
	assert_restored(&m, before);
	free(before);
	e2e_machine_free(&m);
}

int
main(void)
{
	static const struct {
		const char *name;
		CMUnitTestFunction fn;
		bool needs_takes;
	} cases[] = {
		{ "count", test_count, false },
		{ "wrap", test_wrap, false },
		{ "taken", test_taken, true },
		{ "kill-reset", test_kill_reset, false },
	};
	static char names[sizeof(models) / sizeof(models[0])][sizeof(cases) / sizeof(cases[0])][64];
	struct CMUnitTest tests[sizeof(names) / sizeof(names[0][0])];
	size_t n = 0;

	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
		for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
			if (cases[c].needs_takes && !models[i].taken_events)
				continue;
			snprintf(names[i][c], sizeof(names[i][c]), "%s: %s", models[i].model, cases[c].name);
			tests[n++] = (struct CMUnitTest){ .name = names[i][c], .test_func = cases[c].fn,
							  .initial_state = (void *)&models[i] };
		}
	}
	return _cmocka_run_group_tests("family-conformance", tests, n, NULL, NULL);
}
