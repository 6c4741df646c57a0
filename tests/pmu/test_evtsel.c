/*
 * test_evtsel.c - IA32_PERFEVTSELx / FIXED_CTR_CTRL encoding and the
 * reserved bits of each PMU version.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "pmu/evtsel.h"
#include "pmu/msr.h"
#include "test_util.h"
#include "base/err.h"

static void
test_llc_misses_skylake_user_only(void **state)
{
	struct pmu_caps caps = test_caps_skylake();
	struct event e = test_event("LLC_MISSES", 0x2e, 0x41, 0xf);
	struct pmustat_error *err = NULL;
	uint64_t v = 0;

	(void)state;
	assert_int_equal(evtsel_encode(&e, &caps, true, &v, &err), 0);
	assert_int_equal(v, 0x41412e);
	assert_int_equal(evtsel_encode(&e, &caps, false, &v, &err), 0);
	assert_int_equal(v, 0x01412e);
	err_clear(&err);
}

static void
test_modifiers(void **state)
{
	struct pmu_caps caps = test_caps_skylake();
	struct event e = test_event("X", 0xa3, 0x14, 0xf);
	struct pmustat_error *err = NULL;
	uint64_t v;

	(void)state;
	e.os = true;
	e.cmask = 20;
	e.inv = true;
	e.edge = true;
	assert_int_equal(evtsel_encode(&e, &caps, false, &v, &err), 0);
	assert_int_equal(v, 0x14ull << 24 | EVTSEL_INV | EVTSEL_EDGE | EVTSEL_OS | EVTSEL_USR | 0x14a3);
	/* pmustat counts: never PC, never INT. */
	assert_int_equal(v & (EVTSEL_PC | EVTSEL_INT), 0);
	err_clear(&err);
}

static void
test_no_ring_refused(void **state)
{
	struct pmu_caps caps = test_caps_skylake();
	struct event e = test_event("X", 0xc0, 0, 0xf);
	struct pmustat_error *err = NULL;
	uint64_t v = 0x1234;

	(void)state;
	e.usr = false;
	assert_int_equal(evtsel_encode(&e, &caps, true, &v, &err), -EINVAL);
	assert_int_equal(v, 0x1234);
	assert_non_null(strstr(err_msg(err), "no ring"));
	err_clear(&err);
}

static void
test_anythread(void **state)
{
	struct pmu_caps caps = test_caps_skylake();
	struct event e = test_event("X", 0x3c, 0, 0xf);
	struct pmustat_error *err = NULL;
	uint64_t v;
	unsigned f;

	(void)state;
	e.any_thread = true;
	/* v4 without the deprecation flag: ANY is a real bit. */
	assert_int_equal(evtsel_encode(&e, &caps, false, &v, &err), 0);
	assert_true(v & EVTSEL_ANY);
	/* v5 (Ice Lake) deprecates it: reserved, refused. */
	caps.version = 5;
	caps.anythread_deprecated = true;
	assert_int_equal(evtsel_encode(&e, &caps, false, &v, &err), -EINVAL);
	assert_non_null(strstr(err_msg(err), "AnyThread"));
	assert_false(evtsel_writable_mask(&caps) & EVTSEL_ANY);
	e.fixed = 1;
	assert_int_equal(evtsel_fixed_field(&e, &caps, &f, &err), -EINVAL);
	err_clear(&err);
	/* Before v3 (Core 2) there is no AnyThread bit at all. */
	caps = test_caps_skylake();
	caps.version = 2;
	e.fixed = -1;
	assert_int_equal(evtsel_encode(&e, &caps, false, &v, &err), -EINVAL);
	assert_false(evtsel_writable_mask(&caps) & EVTSEL_ANY);
	err_clear(&err);
}

/* What the journal may put back: IN_TX with TSX, IN_TXCP on EVTSEL2 only. */
static void
test_accepted_bits(void **state)
{
	struct pmu_caps caps = test_caps_skylake();

	(void)state;
	caps.tsx = false;
	assert_false(evtsel_accepted_mask(&caps, 2) & (EVTSEL_IN_TX | EVTSEL_IN_TXCP));
	caps.tsx = true;
	assert_true(evtsel_accepted_mask(&caps, 2) & EVTSEL_IN_TXCP);
	assert_true(evtsel_accepted_mask(&caps, 0) & EVTSEL_IN_TX);
	assert_false(evtsel_accepted_mask(&caps, 0) & EVTSEL_IN_TXCP);
	assert_true(evtsel_accepted_mask(&caps, 0) & EVTSEL_INT);
	assert_false(evtsel_accepted_mask(&caps, 0) & (1ull << 35));
}

static void
test_umask2_needs_v6(void **state)
{
	struct pmu_caps caps = test_caps_skylake();
	struct event e = test_event("X", 0xd0, 0x01, 0xff);
	struct pmustat_error *err = NULL;
	uint64_t v;

	(void)state;
	e.umask_ext = 0x22;
	assert_int_equal(evtsel_encode(&e, &caps, false, &v, &err), -EINVAL);
	assert_non_null(strstr(err_msg(err), "UMASK2"));
	caps.version = 6;
	caps.anythread_deprecated = true;
	assert_int_equal(evtsel_encode(&e, &caps, false, &v, &err), 0);
	assert_int_equal(v, 0x22ull << 40 | EVTSEL_USR | 0x01d0);
	err_clear(&err);
}

static void
test_writable_mask(void **state)
{
	struct pmu_caps caps = test_caps_skylake();
	uint64_t m = evtsel_writable_mask(&caps);

	(void)state;
	/* Bits 32-35 (model-specific TSX filters) and 48-63 are never written. */
	assert_int_equal(m & 0xffffffff00000000ull, 0);
	assert_int_equal(m & (EVTSEL_PC | EVTSEL_INT), 0);
	assert_true(m & EVTSEL_EN);
	caps.version = 6;
	m = evtsel_writable_mask(&caps);
	assert_int_equal(m & 0xffffffff00000000ull, EVTSEL_EQ | EVTSEL_UMASK2(0xff));
	assert_int_equal(m & 0xf00000000ull, 0);
}

static void
test_fixed_field(void **state)
{
	struct pmu_caps caps = test_caps_skylake();
	struct event e = test_fixed_event("instructions", 0, 0xc0, 0, 0xf);
	struct pmustat_error *err = NULL;
	unsigned f;

	(void)state;
	assert_true(evtsel_fixed_ok(&e, &caps));
	assert_int_equal(evtsel_fixed_field(&e, &caps, &f, &err), 0);
	assert_int_equal(f, FIXED_CTRL_USR);
	e.os = true;
	assert_int_equal(evtsel_fixed_field(&e, &caps, &f, &err), 0);
	assert_int_equal(f, FIXED_CTRL_USR | FIXED_CTRL_OS);
	/* A cmask cannot be applied by a fixed counter. */
	e.cmask = 1;
	assert_false(evtsel_fixed_ok(&e, &caps));
	e.cmask = 0;
	/* Fixed counter 3 (SLOTS) does not exist on Skylake. */
	e.fixed = 3;
	assert_false(evtsel_fixed_ok(&e, &caps));
	err_clear(&err);
}

static void
test_fixed_ctrl_fields(void **state)
{
	struct pmu_caps caps = test_caps_skylake();

	(void)state;
	/* The watchdog's field 1 (0xb) stays as it is. */
	assert_int_equal(fixed_ctrl_with_field(0xb0, 0, 0x2), 0xb2);
	assert_int_equal(fixed_ctrl_with_field(0xb2, 0, 0x0), 0xb0);
	assert_int_equal(fixed_ctrl_with_field(0xb0, 2, 0x3), 0x3b0);
	assert_int_equal(fixed_ctrl_writable_mask(&caps, 2), 0x700);
	caps.anythread_deprecated = true;
	assert_int_equal(fixed_ctrl_writable_mask(&caps, 2), 0x300);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_llc_misses_skylake_user_only),
		cmocka_unit_test(test_modifiers),
		cmocka_unit_test(test_no_ring_refused),
		cmocka_unit_test(test_anythread),
		cmocka_unit_test(test_accepted_bits),
		cmocka_unit_test(test_umask2_needs_v6),
		cmocka_unit_test(test_writable_mask),
		cmocka_unit_test(test_fixed_field),
		cmocka_unit_test(test_fixed_ctrl_fields),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
