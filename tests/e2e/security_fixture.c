/*
 * security_fixture.c - the machine, core and process checks the
 * test_security_*_e2e.c programs share (security_fixture.h).
 */
#include <fcntl.h>
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

#include "security_fixture.h"

int core;
char core_arg[16];
unsigned ncpus;

int
security_fixture_init(void)
{
	cpu_set_t cpus;
	long conf = sysconf(_SC_NPROCESSORS_CONF);

	if (sched_getaffinity(0, sizeof(cpus), &cpus) != 0)
		return -1;
	/* PMUSTAT_TEST_FILTER=test_name runs that one (cmocka's pattern). */
	if (getenv("PMUSTAT_TEST_FILTER"))
		cmocka_set_test_filter(getenv("PMUSTAT_TEST_FILTER"));
	for (int c = 0; c < CPU_SETSIZE && c < EMU_MAX_CPUS; c++)
		if (CPU_ISSET(c, &cpus))
			core = c;
	snprintf(core_arg, sizeof(core_arg), "%d", core);
	ncpus = (unsigned)(conf > core ? conf : core + 1);
	if (ncpus > EMU_MAX_CPUS)
		ncpus = EMU_MAX_CPUS;
	return 0;
}

void
machine(struct e2e_machine *m)
{
	char cpus[16];

	snprintf(cpus, sizeof(cpus), "%u", ncpus);
	e2e_machine_new(m, (const char *[]){ "--model", "skylake", "--cpus", cpus, NULL });
}

void
set(const struct e2e_machine *m, uint32_t msr, uint64_t v)
{
	assert_int_equal(e2e_set_msr(m, (unsigned)core, msr, v), 0);
}

uint64_t
get(const struct e2e_machine *m, uint32_t msr)
{
	return e2e_msr(m, (unsigned)core, msr);
}

void
assert_same(const struct e2e_machine *m, const struct emu_pmu *before)
{
	struct emu_pmu *after = e2e_state(m);

	assert_int_equal(emu_pmu_diff(before, after, stderr), 0);
	free(after);
}

bool
wait_gone(pid_t pid, unsigned timeout_ms)
{
	for (unsigned t = 0; t <= timeout_ms; t += 5) {
		char st = e2e_proc_state(pid);

		if (st == 0 || st == 'Z' || st == 'X')
			return true;
		e2e_sleep_ms(5);
	}
	return false;
}

char *
slurp_file(const char *path)
{
	static char buf[1 << 16];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	assert_true(n >= 0);
	buf[n] = '\0';
	return buf;
}
