/*
 * test_stats.c - statistics over repeated runs, against values worked out
 * by hand.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "report/stats.h"

static void
assert_close(double got, double want)
{
	if (fabs(got - want) > 1e-9 * (fabs(want) > 1 ? fabs(want) : 1))
		fail_msg("got %.17g, want %.17g", got, want);
}

static void
test_odd(void **state)
{
	const uint64_t v[] = { 10, 30, 20, 50, 40 };
	struct stats_summary st;

	(void)state;
	assert_int_equal(stats_compute(v, 5, &st), 0);
	assert_int_equal(st.n, 5);
	assert_close(st.mean, 30);
	assert_close(st.median, 30);
	assert_int_equal(st.min, 10);
	assert_int_equal(st.max, 50);
	/* Sum of squares 1000, / (n - 1) = 250. */
	assert_close(st.stddev, sqrt(250));
	assert_close(st.rel_stddev_percent, 100 * sqrt(250) / 30);
	/* The input is left alone. */
	assert_int_equal(v[0], 10);
	assert_int_equal(v[1], 30);
}

static void
test_even_median_is_the_mean_of_the_middle_two(void **state)
{
	const uint64_t v[] = { 4, 1, 3, 2 };
	struct stats_summary st;

	(void)state;
	assert_int_equal(stats_compute(v, 4, &st), 0);
	assert_close(st.median, 2.5);
	assert_close(st.mean, 2.5);
}

static void
test_one_run(void **state)
{
	const uint64_t v[] = { 1000 };
	struct stats_summary st;

	(void)state;
	assert_int_equal(stats_compute(v, 1, &st), 0);
	assert_close(st.median, 1000);
	assert_close(st.stddev, 0);
	assert_close(st.rel_stddev_percent, 0);
}

static void
test_identical_and_zero(void **state)
{
	const uint64_t same[] = { 7, 7, 7 }, zero[] = { 0, 0 };
	struct stats_summary st;

	(void)state;
	assert_int_equal(stats_compute(same, 3, &st), 0);
	assert_close(st.stddev, 0);
	assert_int_equal(stats_compute(zero, 2, &st), 0);
	assert_close(st.mean, 0);
	assert_close(st.rel_stddev_percent, 0);
	assert_int_equal(stats_compute(zero, 0, &st), -EINVAL);
	assert_int_equal(st.n, 0);
}

/* Counts near 2^64: no overflow in the median of two, no cancellation in stddev. */
static void
test_large(void **state)
{
	const uint64_t v[] = { UINT64_MAX, UINT64_MAX - 1 };
	const uint64_t w[] = { 1000000000000, 1000000000001, 1000000000002 };
	struct stats_summary st;

	(void)state;
	assert_int_equal(stats_compute(v, 2, &st), 0);
	assert_true(st.median > 1.8e19);
	assert_int_equal(st.min, UINT64_MAX - 1);
	assert_int_equal(st.max, UINT64_MAX);
	assert_int_equal(stats_compute(w, 3, &st), 0);
	assert_close(st.stddev, 1);
	assert_close(st.median, 1000000000001.0);
}

/* The median as a count is exact past 2^53 (a double is not) and rounds a half up, near 2^64 too. */
static void
test_median_count_exact(void **state)
{
	const uint64_t odd[] = { 9007199254740993ull };
	const uint64_t even[] = { 9007199254740993ull, 9007199254740995ull };
	const uint64_t half[] = { UINT64_MAX - 1, UINT64_MAX };
	struct stats_summary st;

	(void)state;
	assert_int_equal(stats_compute(odd, 1, &st), 0);
	assert_int_equal(st.median_count, 9007199254740993ull);
	assert_false(st.median_half);
	assert_int_equal(stats_compute(even, 2, &st), 0);
	assert_int_equal(st.median_count, 9007199254740994ull);
	assert_false(st.median_half);
	assert_int_equal(stats_compute(half, 2, &st), 0);
	assert_int_equal(st.median_count, UINT64_MAX);
	assert_true(st.median_half);
}

/* -r reports the mean: exact as a count where a double (2^53) or the plain sum (2^64) is not. */
static void
test_mean_count_exact(void **state)
{
	const uint64_t above_double[] = { 9007199254740993ull, 9007199254740993ull, 9007199254740996ull };
	const uint64_t near_max[] = { UINT64_MAX, UINT64_MAX - 2, UINT64_MAX - 1 };
	const uint64_t half[] = { 1, 2 };
	struct stats_summary st;

	(void)state;
	assert_int_equal(stats_compute(above_double, 3, &st), 0);
	assert_int_equal(st.mean_count, 9007199254740994ull);
	assert_int_equal(stats_compute(near_max, 3, &st), 0);
	assert_int_equal(st.mean_count, UINT64_MAX - 1);
	assert_int_equal(stats_compute(half, 2, &st), 0);
	assert_int_equal(st.mean_count, 2);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_odd),
		cmocka_unit_test(test_even_median_is_the_mean_of_the_middle_two),
		cmocka_unit_test(test_median_count_exact),
		cmocka_unit_test(test_mean_count_exact),
		cmocka_unit_test(test_one_run),
		cmocka_unit_test(test_identical_and_zero),
		cmocka_unit_test(test_large),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
