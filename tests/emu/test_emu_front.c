/*
 * test_emu_front.c - the emulator's front ends: struct hw in process, state
 * files shared between processes, dump and diff.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emu_action.h"
#include "emu_hw.h"
#include "emu_state.h"
#include "test_emu_util.h"

static void
test_diff_lists_each_msr(void **state)
{
	struct emu_pmu *a = new_pmu(EMU_MODEL_SKYLAKE, 2);
	struct emu_pmu *b = malloc(sizeof(*b));
	char buf[512] = "";
	FILE *out = fmemopen(buf, sizeof(buf), "w");

	(void)state;
	assert_non_null(b);
	memcpy(b, a, sizeof(*a));
	assert_int_equal(emu_pmu_diff(a, b, NULL), 0);
	/* Statistics are not state. */
	uint64_t val;
	emu_rdmsr(b, 0, msr_pmc(0), &val);
	assert_int_equal(emu_pmu_diff(a, b, NULL), 0);
	wr(b, 1, msr_evtsel(3), EVTSEL_COUNT(0xc0, 0, EVTSEL_USR));
	wr(b, 0, MSR_IA32_PERF_GLOBAL_CTRL, 0);
	/* GLOBAL_INUSE follows EVTSEL3, so it differs too. */
	assert_int_equal(emu_pmu_diff(a, b, out), 3);
	fclose(out);
	assert_non_null(strstr(buf, "cpu 1 IA32_PERF_GLOBAL_INUSE (0x392): 0x0 -> 0x8"));
	assert_non_null(strstr(buf, "cpu 1 IA32_PERFEVTSEL3 (0x189): 0x0 -> 0x4100c0"));
	assert_non_null(strstr(buf, "cpu 0 IA32_PERF_GLOBAL_CTRL (0x38f): 0xf -> 0x0"));
	emu_pmu_free(a);
	free(b);
}

static void
test_state_file_round_trip(void **state)
{
	char path[] = "/tmp/emu-state-XXXXXX";
	struct emu_pmu *pmu = new_pmu(EMU_MODEL_HASWELL, 2);
	struct emu_pmu *map = NULL;
	struct emu_pmu *copy = malloc(sizeof(*copy));
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_non_null(copy);
	assert_int_equal(emu_state_map(path, &map), -EINVAL);	/* empty file */
	assert_int_equal(emu_state_write(path, pmu), 0);
	assert_int_equal(emu_state_map(path, &map), 0);
	emu_state_lock(map);
	wr(map, 1, msr_pmc(2), 77);
	emu_state_unlock(map);
	emu_state_unmap(map);
	assert_int_equal(emu_state_read(path, copy), 0);
	assert_int_equal(rd(copy, 1, msr_pmc(2)), 77);
	assert_int_equal(emu_pmu_diff(pmu, copy, NULL), 1);
	unlink(path);
	emu_pmu_free(pmu);
	free(copy);
}

static void
test_dump_json(void **state)
{
	struct emu_pmu *pmu = new_pmu(EMU_MODEL_SKYLAKE, 1);
	char buf[4096] = "";
	FILE *out = fmemopen(buf, sizeof(buf), "w");

	(void)state;
	wr(pmu, 0, msr_evtsel(0), 0x4100c0);
	emu_pmu_dump(pmu, -1, true, out);
	fclose(out);
	assert_non_null(strstr(buf, "\"model\":\"skylake\""));
	assert_non_null(strstr(buf, "\"0x186\":\"0x4100c0\""));
	assert_non_null(strstr(buf, "\"nmi_watchdog\":\"0\\n\""));
	emu_pmu_free(pmu);
}

/* The in-process struct hw. */
static void
test_hw_ops_follow_config(void **state)
{
	struct emu_config cfg;
	struct emu_pmu *pmu;
	struct hw *hw;
	struct cpu_raw_data_t raw;
	char buf[64];
	uint64_t val;

	(void)state;
	emu_config_default(&cfg, EMU_MODEL_SKYLAKE);
	cfg.ncpus = 2;
	pmu = emu_pmu_new(&cfg);
	hw = emu_hw_new(pmu);
	assert_non_null(hw);
	assert_ptr_equal(emu_hw_pmu(hw), pmu);
	assert_int_equal(hw_cpuid(hw, 1, &raw), 0);
	assert_int_equal(raw.basic_cpuid[0xa][0], 0x07300404);
	assert_int_equal(hw_cpuid(hw, 2, &raw), -ENXIO);
	assert_int_equal(hw_msr_open(hw, 2, false), -ENXIO);
	assert_int_equal(hw_msr_open(hw, 1, false), 0);
	assert_int_equal(hw_wrmsr(hw, 1, msr_evtsel(0), 1), -EBADF);
	assert_int_equal(hw_msr_open(hw, 1, true), 0);
	assert_int_equal(hw_wrmsr(hw, 1, msr_evtsel(0), 0x4100c0), 0);
	assert_int_equal(hw_rdmsr(hw, 1, msr_evtsel(0), &val), 0);
	assert_int_equal(val, 0x4100c0);
	/* Implicit open by rdmsr/wrmsr. */
	assert_int_equal(hw_wrmsr(hw, 0, msr_pmc(0), 5), 0);
	assert_int_equal(hw_wrmsr(hw, 0, 0x1234, 5), -EIO);
	assert_int_equal(hw_rdpmc_probe(hw, 0), 0);
	emu_hw_set_current_cpu(hw, 1);
	assert_int_equal(hw_rdpmc(hw, 0, 0, &val), -EINVAL);
	emu_hw_set_current_cpu(hw, 0);
	assert_int_equal(hw_rdpmc(hw, 0, 0, &val), 0);
	assert_int_equal(val, 5);
	assert_int_equal(hw_read_file(hw, HW_FILE_RDPMC, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "2\n");
	assert_int_equal(hw_read_file(hw, HW_FILE_LOCKDOWN, buf, 4), 0);
	assert_string_equal(buf, "[no");
	emu_set_file(pmu, HW_FILE_LOCKDOWN, NULL);
	assert_int_equal(hw_read_file(hw, HW_FILE_LOCKDOWN, buf, sizeof(buf)), -ENOENT);
	assert_int_equal(emu_hw_calls(hw, EMU_HW_OP_WRMSR), 4);
	hw_free(hw);

	static const struct {
		enum emu_msr_access access;
		int open_err, write_err;
	} modes[] = {
		{ EMU_MSR_ABSENT, -ENOENT, -ENOENT },
		{ EMU_MSR_EACCES, -EACCES, -EACCES },
		{ EMU_MSR_READONLY, 0, -EPERM },
	};
	for (size_t i = 0; i < 3; i++) {
		pmu->config.msr = modes[i].access;
		hw = emu_hw_new(pmu);
		assert_int_equal(hw_msr_open(hw, 0, true), modes[i].open_err);
		assert_int_equal(hw_wrmsr(hw, 0, msr_pmc(0), 9), modes[i].write_err);
		emu_hw_free(hw);
	}
	assert_int_equal(pmu->cpu[0].regs.pmc[0], 5);
	pmu->config.rdpmc_off = true;
	hw = emu_hw_new(pmu);
	assert_int_equal(hw_rdpmc_probe(hw, 0), -EPERM);
	emu_hw_free(hw);
	emu_pmu_free(pmu);
}

static void
test_hw_fault_injection(void **state)
{
	struct emu_pmu *pmu = new_pmu(EMU_MODEL_SKYLAKE, 1);
	struct hw *hw = emu_hw_new(pmu);

	(void)state;
	emu_hw_inject(hw, EMU_HW_OP_WRMSR, 1, -EIO);
	assert_int_equal(hw_wrmsr(hw, 0, msr_pmc(0), 1), 0);
	assert_int_equal(hw_wrmsr(hw, 0, msr_pmc(1), 2), -EIO);
	assert_int_equal(hw_wrmsr(hw, 0, msr_pmc(2), 3), 0);
	assert_int_equal(pmu->cpu[0].regs.pmc[0], 1);
	assert_int_equal(pmu->cpu[0].regs.pmc[1], 0);
	assert_int_equal(pmu->cpu[0].regs.pmc[2], 3);
	emu_hw_free(hw);
	emu_pmu_free(pmu);
}

/* The TSC: 0 at power-up, the same on every CPU, moved only by tsc:N; struct hw reads it. */
static void
test_tsc_moves_only_by_its_action(void **state)
{
	struct emu_pmu *pmu = new_pmu(EMU_MODEL_SKYLAKEX, 2);
	struct hw *hw = emu_hw_new(pmu);
	struct emu_action a;
	char err[128];
	uint64_t v = 1;

	(void)state;
	assert_non_null(hw);
	assert_int_equal(hw_rdtsc(hw, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(emu_action_parse("tsc:12000", 3, &a, err, sizeof(err)), 0);
	assert_int_equal(emu_act(pmu, 1, &a), 0);
	assert_int_equal(emu_retire(pmu, 0, 0x3c, 0x01, 3, 500), 0);	/* reference cycles are not the TSC */
	assert_int_equal(emu_act(pmu, 0, &a), 0);
	assert_int_equal(hw_rdtsc(hw, &v), 0);
	assert_int_equal(v, 24000);
	assert_int_equal(emu_action_parse("tsc:5:u", 3, &a, err, sizeof(err)), -EINVAL);
	assert_int_equal(emu_action_parse("tsc", 3, &a, err, sizeof(err)), -EINVAL);
	emu_hw_free(hw);
	emu_pmu_free(pmu);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_diff_lists_each_msr),
		cmocka_unit_test(test_state_file_round_trip),
		cmocka_unit_test(test_dump_json),
		cmocka_unit_test(test_hw_ops_follow_config),
		cmocka_unit_test(test_hw_fault_injection),
		cmocka_unit_test(test_tsc_moves_only_by_its_action),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
