/*
 * two_cores_fixture.c - the cores, machine and checks the tests counting
 * on two cores share (two_cores_fixture.h).
 */
#include <jansson.h>
#include <limits.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "pmu/journal.h"
#include "two_cores_fixture.h"

int cpu0 = -1, cpu1 = -1;
char list_arg[32], range_arg[32], cpus_arg[16];

int
two_cores_setup(void **state)
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

void
machine(struct e2e_machine *m, bool watchdog)
{
	if (watchdog)
		e2e_machine_new(m, (const char *[]){ "--model", "skylake", "--cpus", cpus_arg, "--watchdog", NULL });
	else
		e2e_machine_new(m, (const char *[]){ "--model", "skylake", "--cpus", cpus_arg, NULL });
}

json_t *
parse_json(const char *text)
{
	json_error_t jerr;
	json_t *root = json_loads(text, 0, &jerr);

	if (!root)
		fail_msg("not JSON (%s): %s", jerr.text, text);
	return root;
}

json_t *
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

json_t *
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

long long
per_cpu(json_t *root, const char *name, int cpu)
{
	return json_integer_value(json_object_get(per_cpu_entry(root, name, cpu), "value"));
}

const char *
per_cpu_counter(json_t *root, const char *name, int cpu)
{
	const char *c = json_string_value(json_object_get(per_cpu_entry(root, name, cpu), "counter"));

	if (!c)
		fail_msg("%s: the per_cpu entry for CPU %d names no counter", name, cpu);
	return c;
}

long long
value(json_t *root, const char *name)
{
	return json_integer_value(json_object_get(event_named(root, name), "value"));
}

void
assert_restored(const struct e2e_machine *m, const struct emu_pmu *before)
{
	struct emu_pmu *after = e2e_state(m);

	assert_int_equal(emu_pmu_diff(before, after, stderr), 0);
	free(after);
}

uint64_t
writes_on(const struct e2e_machine *m, int cpu)
{
	struct emu_pmu *p = e2e_state(m);
	uint64_t n = p->cpu[cpu].stats.wrmsr;

	free(p);
	return n;
}

bool
journal_exists(const struct e2e_machine *m, int cpu)
{
	char rel[64], path[PATH_MAX * 2];

	snprintf(rel, sizeof(rel), JOURNAL_DIR "/cpu%d.journal", cpu);
	e2e_machine_path(m, rel, path, sizeof(path));
	return access(path, F_OK) == 0;
}
