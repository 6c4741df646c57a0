/*
 * test_delta.c - counts from readings: widths, wraps, overflow bits.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "pmu/delta.h"

static void
test_plain(void **state)
{
	(void)state;
	assert_int_equal(delta_count(0, 12345, 48, false), 12345);
	assert_int_equal(delta_count(100, 250, 48, false), 150);
}

static void
test_wrap_without_status(void **state)
{
	uint64_t max48 = (1ull << 48) - 1;

	(void)state;
	/* Started near the top, wrapped: the modular difference is right. */
	assert_int_equal(delta_count(max48 - 9, 5, 48, true), 15);
	assert_int_equal(delta_count(max48 - 9, 5, 48, false), 15);
}

static void
test_past_2_48(void **state)
{
	(void)state;
	/* From zero, overflow bit set, reading 7: 2^48 + 7 events. */
	assert_int_equal(delta_count(0, 7, 48, true), (1ull << 48) + 7);
	/* 40-bit counters (Core 2). */
	assert_int_equal(delta_count(0, 1, 40, true), (1ull << 40) + 1);
}

static void
test_masks_high_bits(void **state)
{
	(void)state;
	/* A legacy reading with sign-extended upper bits is taken modulo 2^width. */
	assert_int_equal(delta_count(0, 0xffffffffffff0010ull, 48, false), 0xffffffff0010ull);
	assert_int_equal(delta_width_mask(48), (1ull << 48) - 1);
	assert_int_equal(delta_width_mask(64), ~0ull);
	assert_int_equal(delta_count(5, 3, 64, false), (uint64_t)-2);
}

/* Two reads of a running counter: a wrap goes forward, a reset backwards. */
static void
test_step_wrap_and_reset(void **state)
{
	uint64_t m48 = (1ull << 48) - 1, m40 = (1ull << 40) - 1;
	bool reset = false;

	(void)state;
	assert_int_equal(delta_step(m48 - 9, 5, m48, &reset), 15);
	assert_int_equal(delta_step(0, 1ull << 47, m48, &reset), 1ull << 47);
	assert_int_equal(delta_step(1ull << 47, 0, m48, &reset), 1ull << 47);
	assert_false(reset);
	/* Linux zeroed FIXED_CTR3 after 6,000 slots; 2,000 since. */
	assert_int_equal(delta_step(6000, 2000, m48, &reset), 2000);
	assert_true(reset);
	reset = false;
	assert_int_equal(delta_step(100, 3, m40, &reset), 3);
	assert_true(reset);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_wrap_without_status),
		cmocka_unit_test(test_past_2_48),
		cmocka_unit_test(test_masks_high_bits),
		cmocka_unit_test(test_step_wrap_and_reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
