/*
 * test_check.c - --check expressions, table-driven: what parses to what,
 * what every bad expression says and where the caret goes, and evaluation
 * against a table of counted events.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <cmocka.h>

#include "report/check.h"

/* The counted events the evaluation tests see: median, mean, min, max. */
static const struct {
	const char *name;
	double median, mean, min, max;
} counted[] = {
	{ "INST_RETIRED.ANY", 1000, 1100, 900, 1400 },
	{ "BR_INST_RETIRED.ALL_BRANCHES", 500, 500, 500, 500 },
	{ "BR_MISP_RETIRED.ALL_BRANCHES", 5, 5, 5, 5 },
	{ "LONGEST_LAT_CACHE.MISS", 1500000, 1500000, 1500000, 1500000 },
	{ "branch-misses", 7, 7, 7, 7 },
	{ "INST_RETIRED.ANY:k", 42, 42, 42, 42 },
	{ "ZERO", 0, 0, 0, 0 },
};

static int
lookup(void *ctx, const char *event, enum check_agg agg, double *value)
{
	(void)ctx;
	for (size_t i = 0; i < sizeof(counted) / sizeof(counted[0]); i++) {
		if (strcasecmp(counted[i].name, event) != 0)
			continue;
		switch (agg) {
		case CHECK_AGG_MEAN:
			*value = counted[i].mean;
			break;
		case CHECK_AGG_MIN:
			*value = counted[i].min;
			break;
		case CHECK_AGG_MAX:
			*value = counted[i].max;
			break;
		default:
			*value = counted[i].median;
			break;
		}
		return 0;
	}
	return -ENOENT;
}

static const struct {
	const char *text;
	bool passed;
	bool defined;
	double lhs, rhs;
} good[] = {
	{ "INST_RETIRED.ANY<=1000", true, true, 1000, 1000 },
	{ "INST_RETIRED.ANY<1000", false, true, 1000, 1000 },
	{ "INST_RETIRED.ANY >= 1k", true, true, 1000, 1000 },
	{ "INST_RETIRED.ANY > 1k", false, true, 1000, 1000 },
	{ "INST_RETIRED.ANY == 1e3", true, true, 1000, 1000 },
	{ "INST_RETIRED.ANY==999", false, true, 1000, 999 },
	{ "LONGEST_LAT_CACHE.MISS <= 1.5M", true, true, 1500000, 1500000 },
	{ "LONGEST_LAT_CACHE.MISS < 1.5M", false, true, 1500000, 1500000 },
	{ "LONGEST_LAT_CACHE.MISS <= 0.002G", true, true, 1500000, 2000000 },
	{ "LONGEST_LAT_CACHE.MISS <= 15E+5", true, true, 1500000, 1500000 },
	{ "BR_MISP_RETIRED.ALL_BRANCHES/BR_INST_RETIRED.ALL_BRANCHES<=0.02", true, true, 0.01, 0.02 },
	{ "BR_MISP_RETIRED.ALL_BRANCHES/BR_INST_RETIRED.ALL_BRANCHES<=0.5%", false, true, 0.01, 0.005 },
	{ "BR_MISP_RETIRED.ALL_BRANCHES / BR_INST_RETIRED.ALL_BRANCHES <= 1%", true, true, 0.01, 0.01 },
	{ "mean(INST_RETIRED.ANY) <= 1100", true, true, 1100, 1100 },
	{ "median(INST_RETIRED.ANY) == 1000", true, true, 1000, 1000 },
	{ "max( INST_RETIRED.ANY ) < 1.4k", false, true, 1400, 1400 },
	{ "min(INST_RETIRED.ANY)>=900", true, true, 900, 900 },
	{ "max(INST_RETIRED.ANY) - min(INST_RETIRED.ANY) <= 0.5 * median(INST_RETIRED.ANY)", true, true, 500, 500 },
	{ "branch-misses <= 7", true, true, 7, 7 },
	{ "INST_RETIRED.ANY:k < 43", true, true, 42, 43 },
	{ "\"INST_RETIRED.ANY\" <= 1000", true, true, 1000, 1000 },
	{ "(INST_RETIRED.ANY + 1000) * 2 == 4k", true, true, 4000, 4000 },
	{ "-INST_RETIRED.ANY < 0", true, true, -1000, 0 },
	{ "INST_RETIRED.ANY - -1 == 1001", true, true, 1001, 1001 },
	{ "INST_RETIRED.ANY <= BR_INST_RETIRED.ALL_BRANCHES * 2", true, true, 1000, 1000 },
	{ "2 * 3 + 4 == 10", true, true, 10, 10 },
	{ "2 + 3 * 4 == 14", true, true, 14, 14 },
	{ "12 / 3 / 2 == 2", true, true, 2, 2 },
	{ "10 - 3 - 2 == 5", true, true, 5, 5 },
	{ ".5 == 0.5", true, true, 0.5, 0.5 },
	/* Undefined sides fail, with the reason. */
	{ "NOT_COUNTED.EVENT <= 5", false, false, 0, 0 },
	{ "INST_RETIRED.ANY / ZERO <= 5", false, false, 0, 0 },
	{ "INST_RETIRED.ANY * 1e300 * 1e300 <= 5", false, false, 0, 0 },
	{ "5 <= 1e308 + 1e308 - 1e308", false, false, 0, 0 },
};

static void
test_good_expressions(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		struct check c;
		struct check_error err;
		struct check_result res;

		if (check_parse(good[i].text, &c, &err) != 0)
			fail_msg("'%s': %s at column %u", good[i].text, err.msg, err.column);
		check_eval(&c, lookup, NULL, &res);
		if (res.passed != good[i].passed || res.defined != good[i].defined)
			fail_msg("'%s': passed %d defined %d (%s), want %d %d", good[i].text, res.passed,
				 res.defined, res.why, good[i].passed, good[i].defined);
		if (res.defined && (fabs(res.lhs - good[i].lhs) > 1e-12 || fabs(res.rhs - good[i].rhs) > 1e-12))
			fail_msg("'%s': %g vs %g, want %g vs %g", good[i].text, res.lhs, res.rhs, good[i].lhs,
				 good[i].rhs);
		if (!res.defined)
			assert_true(res.why[0] != '\0');
	}
}

static const struct {
	const char *text;
	unsigned column;	/* 0-based, where the caret goes */
	const char *msg;	/* part of the message */
} bad[] = {
	{ "", 0, "found the end" },
	{ "INST_RETIRED.ANY", 16, "expected a comparison" },
	{ "INST_RETIRED.ANY 5", 17, "found '5'" },
	{ "INST_RETIRED.ANY = 5", 17, "use '=='" },
	{ "INST_RETIRED.ANY != 5", 17, "'!=' is not supported" },
	{ "INST_RETIRED.ANY <=", 19, "found the end" },
	{ "INST_RETIRED.ANY <= 5x", 21, "after a number" },
	{ "INST_RETIRED.ANY <= 5kB", 22, "after a number" },
	{ "INST_RETIRED.ANY <= 1e", 22, "exponent" },
	{ "INST_RETIRED.ANY <= 1.", 22, "decimal point" },
	{ "INST_RETIRED.ANY <= 1e999", 20, "out of range" },
	{ "INST_RETIRED.ANY <= 5 <= 6", 22, "one comparison per check" },
	{ "INST_RETIRED.ANY <= 5)", 21, "unexpected ')'" },
	{ "(INST_RETIRED.ANY <= 5", 18, "expected ')'" },
	{ "max(INST_RETIRED.ANY <= 5", 21, "expected ')' after the event of max(" },
	{ "max(5) <= 5", 4, "expected an event name" },
	{ "\"INST_RETIRED.ANY <= 5", 0, "unterminated" },
	{ "\"\" <= 5", 0, "empty event name" },
	{ "INST_RETIRED.ANY <= $5", 20, "found '$'" },
	{ "INST_RETIRED.ANY * <= 5", 19, "found '<'" },
	{ "A+B+C+D+E+F+G+H+I <= 1", 16, "more than 8 events" },
	{ "INST_RETIRED.ANY\x01 <= 5", 16, "unexpected byte 0x01" },
};

static void
test_bad_expressions(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct check c;
		struct check_error err;

		if (check_parse(bad[i].text, &c, &err) != -EINVAL)
			fail_msg("'%s' parsed", bad[i].text);
		if (err.column != bad[i].column || !strstr(err.msg, bad[i].msg))
			fail_msg("'%s': '%s' at column %u, want '%s' at %u", bad[i].text, err.msg,
				 err.column, bad[i].msg, bad[i].column);
	}
}

/* Deep nesting stops at the limit instead of the stack. */
static void
test_depth_limit(void **state)
{
	char text[4096];
	struct check c;
	struct check_error err;
	size_t n = 0;

	(void)state;
	for (int i = 0; i < 200; i++)
		text[n++] = '(';
	snprintf(text + n, sizeof(text) - n, "1");
	assert_int_equal(check_parse(text, &c, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "nested too deeply"));
	assert_true(err.column < 20);

	n = 0;
	for (int i = 0; i < 200; i++)
		text[n++] = '-';
	snprintf(text + n, sizeof(text) - n, "1 < 2");
	assert_int_equal(check_parse(text, &c, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "nested too deeply"));

	/* Up to the limit is fine. */
	n = 0;
	for (int i = 0; i < CHECK_MAX_DEPTH - 2; i++)
		text[n++] = '(';
	text[n++] = '1';
	for (int i = 0; i < CHECK_MAX_DEPTH - 2; i++)
		text[n++] = ')';
	snprintf(text + n, sizeof(text) - n, " == 1");
	assert_int_equal(check_parse(text, &c, &err), 0);
}

static void
test_too_long(void **state)
{
	char text[CHECK_TEXT_MAX + 10];
	struct check c;
	struct check_error err;

	(void)state;
	memset(text, 'A', sizeof(text) - 1);
	text[sizeof(text) - 1] = '\0';
	assert_int_equal(check_parse(text, &c, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "longer than"));

	/* 64 nodes at most: 1+1+...+1 with 40 terms is 79 nodes. */
	{
		char sum[256] = "1";
		size_t len = 1;

		for (int i = 0; i < 40; i++)
			len += (size_t)snprintf(sum + len, sizeof(sum) - len, "+1");
		snprintf(sum + len, sizeof(sum) - len, "==41");
		assert_int_equal(check_parse(sum, &c, &err), -EINVAL);
		assert_non_null(strstr(err.msg, "too long"));
	}
}

/* The caret sits under the offending column. */
static void
test_caret(void **state)
{
	struct check c;
	struct check_error err;
	char *buf = NULL;
	size_t size = 0;
	FILE *f;

	(void)state;
	assert_int_equal(check_parse("INST_RETIRED.ANY <= 5x", &c, &err), -EINVAL);
	f = open_memstream(&buf, &size);
	assert_non_null(f);
	check_print_error(f, "INST_RETIRED.ANY <= 5x", &err);
	fclose(f);
	assert_string_equal(buf,
		"pmustat: --check: unexpected 'x' after a number (suffixes: k, M, G, %) at column 22\n"
		"  INST_RETIRED.ANY <= 5x\n"
		"                       ^\n");
	free(buf);
}

static void
test_events_listed_once(void **state)
{
	struct check c;
	struct check_error err;

	(void)state;
	assert_int_equal(check_parse("A/B + mean(A) - max(B) <= C", &c, &err), 0);
	assert_int_equal(c.nevents, 3);
	assert_string_equal(c.events[0], "A");
	assert_string_equal(c.events[1], "B");
	assert_string_equal(c.events[2], "C");
	assert_true(check_rhs_has_event(&c));
	assert_int_equal(check_parse("A <= 5", &c, &err), 0);
	assert_false(check_rhs_has_event(&c));
	/* "maximum" is an event, not max(. */
	assert_int_equal(check_parse("maximum <= 5", &c, &err), 0);
	assert_string_equal(c.events[0], "maximum");
}

static void
test_event_matches(void **state)
{
	(void)state;
	assert_true(check_event_matches("instructions", "instructions", "INST_RETIRED.ANY"));
	assert_true(check_event_matches("INST_RETIRED.ANY", "instructions", "INST_RETIRED.ANY"));
	assert_true(check_event_matches("inst_retired.any", "INST_RETIRED.ANY", "INST_RETIRED.ANY"));
	assert_true(check_event_matches("INST_RETIRED.ANY:k", "INST_RETIRED.ANY:k", "INST_RETIRED.ANY"));
	/* A ring modifier makes it another event. */
	assert_false(check_event_matches("INST_RETIRED.ANY", "INST_RETIRED.ANY:k", "INST_RETIRED.ANY"));
	assert_false(check_event_matches("INST_RETIRED.ANY:k", "instructions", "INST_RETIRED.ANY"));
	assert_false(check_event_matches("cycles", "instructions", "INST_RETIRED.ANY"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_expressions),
		cmocka_unit_test(test_bad_expressions),
		cmocka_unit_test(test_depth_limit),
		cmocka_unit_test(test_too_long),
		cmocka_unit_test(test_caret),
		cmocka_unit_test(test_events_listed_once),
		cmocka_unit_test(test_event_matches),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
