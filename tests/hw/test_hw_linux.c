/*
 * The production seam on this machine, which has no usable PMU: every
 * failure must come back as the documented -errno, and probing rdpmc must
 * never kill the caller.
 */
#include <errno.h>
#include <libcpuid/libcpuid.h>
#include <sched.h>
#include <signal.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "hw/hw.h"

static void
test_cpuid_per_cpu(void **state)
{
	struct hw *hw = hw_linux_new();
	struct cpu_raw_data_t raw;
	cpu_set_t before, after;

	(void)state;
	assert_non_null(hw);
	sched_getaffinity(0, sizeof(before), &before);
	memset(&raw, 0, sizeof(raw));
	assert_int_equal(hw_cpuid(hw, 0, &raw), 0);
	assert_true(raw.basic_cpuid[0][0] > 0);
	/* Pinning for CPUID must not leak into the caller's affinity. */
	sched_getaffinity(0, sizeof(after), &after);
	assert_true(CPU_EQUAL(&before, &after));

	assert_int_equal(hw_cpuid(hw, CPU_SETSIZE - 1, &raw), -ENXIO);
	assert_int_equal(hw_cpuid(hw, -1, &raw), -ENXIO);
	hw_free(hw);
}

static void
test_msr_errors(void **state)
{
	struct hw *hw = hw_linux_new();
	uint64_t v;
	int ret;

	(void)state;
	assert_int_equal(hw_msr_open(hw, 100000, false), -ENXIO);
	assert_int_equal(hw_rdmsr(hw, 100000, 0x38f, &v), -ENXIO);

	ret = hw_msr_open(hw, 0, false);
	/* Loaded driver and root, no driver, or not root: nothing else. */
	assert_true(ret == 0 || ret == -ENOENT || ret == -EACCES || ret == -EPERM);
	if (access("/dev/cpu/0/msr", F_OK) != 0)
		assert_int_equal(ret, -ENOENT);
	hw_free(hw);
}

static void
test_rdpmc_probe_survives(void **state)
{
	struct hw *hw = hw_linux_new();
	uint64_t v;
	cpu_set_t one, saved;
	int ret;

	(void)state;
	/*
	 * cmocka's SIGSEGV handler longjmps back into the runner, which would
	 * let the probe's child escape; pmustat itself has no such handler.
	 */
	signal(SIGSEGV, SIG_DFL);
	ret = hw_rdpmc_probe(hw, 0);
	assert_true(ret == 0 || ret == -EPERM);
	assert_int_equal(hw_rdpmc_probe(hw, CPU_SETSIZE - 1), -ENXIO);
	/* rdpmc refuses to run on a CPU the caller is not on (pinned: no race). */
	sched_getaffinity(0, sizeof(saved), &saved);
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
	assert_int_equal(hw_rdpmc(hw, 1, 0, &v), -EINVAL);
	sched_setaffinity(0, sizeof(saved), &saved);
	hw_free(hw);
}

static void
test_kernel_files(void **state)
{
	struct hw *hw = hw_linux_new();
	char buf[64];
	int ret;

	(void)state;
	ret = hw_read_file(hw, HW_FILE_PERF_EVENT_PARANOID, buf, sizeof(buf));
	if (ret == 0)
		assert_true(buf[0] == '-' || (buf[0] >= '0' && buf[0] <= '9'));
	else
		assert_int_equal(ret, -ENOENT);
	assert_int_equal(hw_read_file(hw, HW_FILE_COUNT, buf, sizeof(buf)), -EINVAL);
	assert_string_equal(hw_file_path(HW_FILE_RDPMC), "/sys/bus/event_source/devices/cpu/rdpmc");
	hw_free(hw);
}

static void
test_hints_name_the_fix(void **state)
{
	(void)state;
	assert_non_null(strstr(hw_msr_hint(-ENOENT, false), "modprobe msr"));
	assert_non_null(strstr(hw_msr_hint(-EACCES, false), "root"));
	assert_non_null(strstr(hw_msr_hint(-EPERM, true), "allow_writes"));
	assert_non_null(strstr(hw_msr_hint(-EIO, true), "reserved bits"));
	assert_non_null(hw_msr_hint(-EBUSY, true));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpuid_per_cpu),
		cmocka_unit_test(test_msr_errors),
		cmocka_unit_test(test_rdpmc_probe_survives),
		cmocka_unit_test(test_kernel_files),
		cmocka_unit_test(test_hints_name_the_fix),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
