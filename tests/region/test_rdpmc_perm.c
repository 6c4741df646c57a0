/*
 * rdpmc_perm: setting the rdpmc file to 2 for a run and putting back what
 * was there, on the in-process emulated machine (whose rdpmc follows the
 * file, as the kernel's CR4.PCE does), and the production seam's refusals.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "emu_hw.h"
#include "region/rdpmc_perm.h"
#include "base/err.h"

struct machine {
	struct emu_pmu *pmu;
	struct hw *hw;
};

static void
machine_new(struct machine *m, enum emu_model model, bool rdpmc_off)
{
	struct emu_config cfg;

	emu_config_default(&cfg, model);
	cfg.ncpus = 2;
	cfg.rdpmc_off = rdpmc_off;
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
test_allow_then_restore(void **state)
{
	struct machine m;
	struct rdpmc_perm p;
	uint64_t v;

	(void)state;
	machine_new(&m, EMU_MODEL_SKYLAKE, true);
	assert_int_equal(rdpmc_perm_read(m.hw, HW_FILE_RDPMC), 1);
	assert_int_equal(emu_rdpmc(m.pmu, 0, 0, &v), -EPERM);

	assert_int_equal(rdpmc_perm_allow(m.hw, HW_FILE_RDPMC, &p), 0);
	assert_int_equal(p.found, 1);
	assert_true(p.changed);
	assert_int_equal(rdpmc_perm_read(m.hw, HW_FILE_RDPMC), 2);
	assert_int_equal(emu_rdpmc(m.pmu, 0, 0, &v), 0);

	assert_int_equal(rdpmc_perm_restore(m.hw, &p), 0);
	assert_false(p.changed);
	assert_string_equal(emu_file(m.pmu, HW_FILE_RDPMC), "1\n");
	assert_int_equal(emu_rdpmc(m.pmu, 0, 0, &v), -EPERM);
	/* Nothing left to restore: a second call writes nothing. */
	assert_int_equal(rdpmc_perm_restore(m.hw, &p), 0);
	assert_int_equal(emu_hw_calls(m.hw, EMU_HW_OP_WRITE_FILE), 2);
	machine_free(&m);
}

static void
test_already_allowed_writes_nothing(void **state)
{
	struct machine m;
	struct rdpmc_perm p;

	(void)state;
	machine_new(&m, EMU_MODEL_SKYLAKE, false);
	assert_int_equal(rdpmc_perm_allow(m.hw, HW_FILE_RDPMC, &p), 0);
	assert_int_equal(p.found, 2);
	assert_false(p.changed);
	assert_int_equal(rdpmc_perm_restore(m.hw, &p), 0);
	assert_int_equal(emu_hw_calls(m.hw, EMU_HW_OP_WRITE_FILE), 0);
	machine_free(&m);
}

static void
test_zero_is_restored_as_zero(void **state)
{
	struct machine m;
	struct rdpmc_perm p;

	(void)state;
	machine_new(&m, EMU_MODEL_SKYLAKE, false);
	assert_int_equal(hw_write_file(m.hw, HW_FILE_RDPMC, "0"), 0);
	assert_int_equal(rdpmc_perm_allow(m.hw, HW_FILE_RDPMC, &p), 0);
	assert_int_equal(p.found, 0);
	assert_int_equal(rdpmc_perm_restore(m.hw, &p), 0);
	assert_string_equal(emu_file(m.pmu, HW_FILE_RDPMC), "0\n");
	machine_free(&m);
}

static void
test_write_refused(void **state)
{
	struct machine m;
	struct rdpmc_perm p;
	char msg[256];

	(void)state;
	machine_new(&m, EMU_MODEL_SKYLAKE, true);
	emu_hw_inject(m.hw, EMU_HW_OP_WRITE_FILE, 0, -EACCES);
	assert_int_equal(rdpmc_perm_allow(m.hw, HW_FILE_RDPMC, &p), -EACCES);
	assert_false(p.changed);
	assert_int_equal(rdpmc_perm_restore(m.hw, &p), 0);
	assert_string_equal(emu_file(m.pmu, HW_FILE_RDPMC), "1\n");
	rdpmc_perm_explain(HW_FILE_RDPMC, -EACCES, msg, sizeof(msg));
	assert_non_null(strstr(msg, "/sys/bus/event_source/devices/cpu/rdpmc"));
	assert_non_null(strstr(msg, "root"));

	/* A value the kernel refuses, and a file that is not an rdpmc file. */
	assert_int_equal(hw_write_file(m.hw, HW_FILE_RDPMC, "3"), -EINVAL);
	assert_int_equal(hw_write_file(m.hw, HW_FILE_RDPMC, "2x"), -EINVAL);
	assert_int_equal(hw_write_file(m.hw, HW_FILE_NMI_WATCHDOG, "0"), -EINVAL);
	assert_int_equal(rdpmc_perm_allow(m.hw, HW_FILE_NMI_WATCHDOG, &p), -EINVAL);
	machine_free(&m);
}

static void
test_no_pmu_driver(void **state)
{
	struct machine m;
	struct rdpmc_perm p;
	char msg[256];

	(void)state;
	machine_new(&m, EMU_MODEL_NOPMU, false);
	assert_int_equal(rdpmc_perm_allow(m.hw, HW_FILE_RDPMC, &p), -ENOENT);
	assert_false(p.changed);
	rdpmc_perm_explain(HW_FILE_RDPMC, -ENOENT, msg, sizeof(msg));
	assert_non_null(strstr(msg, "does not exist"));
	machine_free(&m);
}

static void
test_unreadable_value(void **state)
{
	struct machine m;
	struct rdpmc_perm p;

	(void)state;
	machine_new(&m, EMU_MODEL_SKYLAKE, true);
	emu_set_file(m.pmu, HW_FILE_RDPMC, "garbage\n");
	assert_int_equal(rdpmc_perm_allow(m.hw, HW_FILE_RDPMC, &p), -EPROTO);
	assert_false(p.changed);
	assert_int_equal(emu_hw_calls(m.hw, EMU_HW_OP_WRITE_FILE), 0);
	machine_free(&m);
}

static void
test_hybrid_files(void **state)
{
	struct machine m;
	struct rdpmc_perm p;
	uint64_t v;

	(void)state;
	machine_new(&m, EMU_MODEL_ALDERLAKE, true);
	assert_int_equal(rdpmc_perm_allow(m.hw, HW_FILE_RDPMC, &p), -ENOENT);
	assert_int_equal(rdpmc_perm_allow(m.hw, HW_FILE_RDPMC_CPU_CORE, &p), 0);
	/* The E-cores' PMU still says 1, so the emulator keeps rdpmc off. */
	assert_int_equal(emu_rdpmc(m.pmu, 0, 0, &v), -EPERM);
	assert_int_equal(rdpmc_perm_restore(m.hw, &p), 0);
	assert_string_equal(emu_file(m.pmu, HW_FILE_RDPMC_CPU_CORE), "1\n");
	machine_free(&m);
}

/* The production seam writes nothing but the rdpmc files. */
static void
test_linux_writes_only_rdpmc(void **state)
{
	struct hw *hw = hw_linux_new();

	(void)state;
	assert_non_null(hw);
	assert_int_equal(hw_write_file(hw, HW_FILE_LOCKDOWN, "none"), -EINVAL);
	assert_int_equal(hw_write_file(hw, HW_FILE_NMI_WATCHDOG, "0"), -EINVAL);
	if (access(hw_file_path(HW_FILE_RDPMC), F_OK) != 0)
		assert_int_equal(hw_write_file(hw, HW_FILE_RDPMC, "2"), -ENOENT);
	hw_free(hw);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_allow_then_restore),
		cmocka_unit_test(test_already_allowed_writes_nothing),
		cmocka_unit_test(test_zero_is_restored_as_zero),
		cmocka_unit_test(test_write_refused),
		cmocka_unit_test(test_no_pmu_driver),
		cmocka_unit_test(test_unreadable_value),
		cmocka_unit_test(test_hybrid_files),
		cmocka_unit_test(test_linux_writes_only_rdpmc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
