/*
 * The formula language (src/metrics/metric_expr.h): precedence and Python's
 * semantics, Intel's quirks (`> =`, #NA, alias[N]), null values with their
 * reasons (division by zero names the events that counted nothing), the
 * parser's refusals and limits, and which events a formula reads once the
 * constants decide its conditions.
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

#include <cmocka.h>

#include "metrics/metric_expr.h"
#include "base/err.h"

/* Slots a..h are events; the rest are constants and one literal. */
static const char *const event_names[8] = {
	"INST_RETIRED.ANY", "CPU_CLK_UNHALTED.THREAD", "CPU_CLK_UNHALTED.THREAD_ANY",
	"BR_MISP_RETIRED.ALL_BRANCHES", "MACHINE_CLEARS.COUNT", "E", "F", "G",
};

static int
resolve(void *ctx, const char *name, size_t len, struct metric_ref *out)
{
	(void)ctx;
	if (len == 1 && name[0] >= 'a' && name[0] <= 'h') {
		out->kind = METRIC_REF_EVENT;
		out->index = (unsigned)(name[0] - 'a');
		return 0;
	}
	if (len == 6 && strncmp(name, "smt_on", 6) == 0) {
		out->kind = METRIC_REF_CONST;
		out->index = METRIC_CONST_SMT_ON;
		return 0;
	}
	if (len == 3 && strncmp(name, "dur", 3) == 0) {
		out->kind = METRIC_REF_CONST;
		out->index = METRIC_CONST_DURATION_MS;
		return 0;
	}
	if (len == 3 && strncmp(name, "tsc", 3) == 0) {
		out->kind = METRIC_REF_CONST;
		out->index = METRIC_CONST_TSC_FREQ;
		return 0;
	}
	if (len == 6 && strncmp(name, "twenty", 6) == 0) {
		out->kind = METRIC_REF_NUMBER;
		out->number = 20;
		return 0;
	}
	return -1;
}

static double values[8] = { 1000, 500, 800, 10, 5, 0, 0, 3 };
static struct metric_consts consts;

static struct metric_expr *
parse(const char *text)
{
	struct metric_expr *e;
	struct pmustat_error *err = NULL;

	if (metric_expr_parse(text, resolve, NULL, &e, &err) != 0)
		fail_msg("'%s': %s", text, err_msg(err));
	err_clear(&err);
	return e;
}

static void
eval(const char *text, struct metric_result *r)
{
	struct metric_expr *e = parse(text);
	struct metric_env env = { values, 8, event_names, &consts };

	metric_expr_eval(e, &env, r);
	metric_expr_free(e);
}

static void
assert_value(const char *text, double want)
{
	struct metric_result r;

	eval(text, &r);
	if (!r.valid)
		fail_msg("'%s': null (%s), want %g", text, r.why, want);
	if (fabs(r.value - want) > 1e-12 * fabs(want))
		fail_msg("'%s' = %.17g, want %.17g", text, r.value, want);
}

static void
assert_is_null(const char *text, const char *why)
{
	struct metric_result r;

	eval(text, &r);
	if (r.valid)
		fail_msg("'%s' = %g, want null (%s)", text, r.value, why);
	if (strcmp(r.why, why) != 0)
		fail_msg("'%s': \"%s\", want \"%s\"", text, r.why, why);
	assert_true(r.value == 0);
}

static int
setup(void **state)
{
	(void)state;
	memset(&consts, 0, sizeof(consts));
	consts.value[METRIC_CONST_SMT_ON] = 1;
	consts.value[METRIC_CONST_DURATION_MS] = 250;
	consts.known = 1u << METRIC_CONST_SMT_ON | 1u << METRIC_CONST_DURATION_MS;
	return 0;
}

static void
test_arithmetic(void **state)
{
	(void)state;
	assert_value("a / ( b )", 2);
	assert_value("1+2*3", 7);
	assert_value("(1+2)*3", 9);
	assert_value("10-4-3", 3);			/* left-associative */
	assert_value("100/10/5", 2);
	assert_value("-a + +b", -500);
	assert_value("--2", 2);
	assert_value("2*-3", -6);
	assert_value("1e9", 1e9);
	assert_value("100e3 + 0.0001 + .5 + 2.", 100002.5001);
	assert_value("1E-3", 0.001);
	assert_value("max(a, b) + min(a, b)", 1500);
	assert_value("max( ( 3 ) , 0.0001 )", 3);
	assert_value("twenty * 2", 40);
	assert_value("dur / 1000", 0.25);
	assert_value("h[0] * 2", 6);			/* an uncore instance: the event */
	assert_value("100 * ( a / ( ( 4 ) * ( ( c / 2 ) if smt_on else ( b ) ) ) )", 62.5);
}

static void
test_conditions(void **state)
{
	(void)state;
	/* Python's conditional: lowest precedence, right-associative. */
	assert_value("a / b if smt_on else 0", 2);
	assert_value("1 if 0 else 2 if 0 else 3", 3);
	assert_value("1 if 1 else 2 if 0 else 3", 1);
	assert_value("(b/2) if smt_on else b", 250);
	assert_value("1 if a > b else 2", 1);
	assert_value("1 if a < b else 2", 2);
	/* Intel's ">=" is "> =" 237 times. */
	assert_value("1 if a > = 1000 else 2", 1);
	assert_value("1 if a >= 1001 else 2", 2);
	assert_value("(a <= 1000) + (a == 1000) + (a != 1000) + (a < = 999)", 2);
	/* Thresholds: & and | (and Intel's && and ||), looser than comparisons. */
	assert_value("a > 15 & b > 20", 1);
	assert_value("a > 15 && b > 600", 0);
	assert_value("a > 1e6 | b > 20", 1);
	assert_value("a > 1e6 || b < 20", 0);
	assert_value("a < 6 * 1.5", 0);
	assert_value("0 & 1 | 1", 1);			/* & before | */
	/* The branch not taken is not evaluated: its division by zero does not matter. */
	assert_value("1 if smt_on else a / f", 1);
	assert_value("0 & a / f > 1", 0);
}

static void
test_nulls(void **state)
{
	(void)state;
	assert_is_null("a / f", "no E counted (division by zero)");
	assert_is_null("a / (f + g)", "no E or F counted (division by zero)");
	assert_is_null("a / (b * f + g * c)", "no E or F counted (division by zero)");
	assert_is_null("100 * max(a / (d - 2 * e), 0)", "a denominator is 0 (division by zero)");
	assert_is_null("a / (1 - smt_on)", "a denominator is 0 (division by zero)");
	assert_is_null("a / (dur - 250)", "a denominator is 0 (division by zero)");
	/* Only the events on the path taken are named. */
	assert_is_null("a / (f if smt_on else g + b)", "no E counted (division by zero)");
	/* A null anywhere makes the whole value null, the first reason wins. */
	assert_is_null("max(a / f, 1) + b / g", "no E counted (division by zero)");
	assert_is_null("1 if a / g > 1 else 2", "no F counted (division by zero)");
	/* Unknown constants. */
	assert_is_null("a / tsc", "SYSTEM_TSC_FREQ is not known on this machine");
	/* #NA, Intel's "not available". */
	assert_is_null("#NA if 2 > 0 else 1000 * a / ( b )",
		       "Intel's data marks this value not available (#NA)");
	assert_value("#NA if 0 > 2 else 1000 * a / ( b )", 2000);
	/* Overflow never becomes inf. */
	assert_is_null("1e300 * 1e300", "the value is out of range (overflow)");
	assert_is_null("-1e300 * 1e300 - 1e300", "the value is out of range (overflow)");
}

static void
test_missing_values(void **state)
{
	struct metric_expr *e = parse("a / b");
	struct metric_result r;
	double some[2] = { 5, NAN };
	struct metric_env env = { some, 2, event_names, &consts };

	(void)state;
	metric_expr_eval(e, &env, &r);
	assert_false(r.valid);
	assert_string_equal(r.why, "CPU_CLK_UNHALTED.THREAD was not counted");
	env.n_events = 1;
	metric_expr_eval(e, &env, &r);
	assert_false(r.valid);
	env.events = NULL;
	metric_expr_eval(e, &env, &r);
	assert_false(r.valid);
	metric_expr_free(e);
}

static void
test_parse_errors(void **state)
{
	static const struct {
		const char *text, *error;
	} bad[] = {
		{ "", "column 1: the formula ends where a value was expected" },
		{ "a +", "column 4: the formula ends where a value was expected" },
		{ "(a + b", "column 7: expected ')' to close '('" },
		{ "a + b)", "column 6: unexpected ')' after a complete formula" },
		{ "a + z", "column 5: unknown name 'z'" },
		{ "max(a)", "column 6: expected ',' between the two arguments" },
		{ "max(a, b, c)", "column 9: expected ')' after the second argument" },
		{ "a if b", "column 7: expected 'else'" },
		{ "a < b < c", "chained comparisons are not supported" },
		{ "a = b", "'=' must be followed by '='" },
		{ "a ! b", "'!' must be followed by '='" },
		{ "2a", "a name runs into the number '2'" },
		{ "a @ b", "unexpected '@'" },
		{ "if", "'if' where a value was expected" },
		{ "h[", "expected an instance number after '['" },
		{ "h[0", "expected ']' after the instance number" },
		{ "1e999", "number '1e999' out of range" },
		{ ".", "unexpected '.'" },
		{ "a ** b", "unexpected '*'" },
	};
	struct pmustat_error *err = NULL;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct metric_expr *e = (struct metric_expr *)1;

		err_clear(&err);
		if (metric_expr_parse(bad[i].text, resolve, NULL, &e, &err) != -EINVAL ||
		    !strstr(err_msg(err), bad[i].error))
			fail_msg("'%s': \"%s\", want \"%s\"", bad[i].text, err_msg(err), bad[i].error);
		assert_null(e);
	}
	err_clear(&err);
}

static void
test_limits(void **state)
{
	size_t n = 5000;
	struct pmustat_error *err = NULL;
	char *text = malloc(4 * n + 8);
	struct metric_expr *e;

	(void)state;
	assert_non_null(text);
	/* Deep parentheses, deep unary minus, a long left-deep sum. */
	memset(text, '(', n);
	memcpy(text + n, "a", 2);
	assert_int_equal(metric_expr_parse(text, resolve, NULL, &e, &err), -EINVAL);
	assert_non_null(strstr(err_msg(err), "nested deeper than"));
	memset(text, '-', n);
	memcpy(text + n, "a", 2);
	assert_int_equal(metric_expr_parse(text, resolve, NULL, &e, &err), -EINVAL);
	assert_non_null(strstr(err_msg(err), "nested deeper than"));
	for (size_t i = 0; i < n; i++)
		memcpy(text + 2 * i, "a+", 2);
	memcpy(text + 2 * n, "a", 2);
	assert_int_equal(metric_expr_parse(text, resolve, NULL, &e, &err), -EINVAL);
	assert_non_null(strstr(err_msg(err), "nested deeper than"));
	/* 300 terms are fine. */
	memcpy(text + 600, "a", 2);
	assert_int_equal(metric_expr_parse(text, resolve, NULL, &e, &err), 0);
	assert_int_equal(metric_expr_size(e), 601);
	metric_expr_free(e);
	free(text);
	err_clear(&err);
}

/* Which events a formula reads once the constants decide its conditions. */
static void
test_uses(void **state)
{
	const char *text = "100 * ( a / ( ( 4 ) * ( ( c / 2 ) if smt_on else ( b ) ) ) ) + "
			   "(d if a > h else e) + (f if dur > 0 else g)";
	struct metric_expr *e = parse(text);
	struct metric_consts off = consts;
	bool used[8];
	unsigned cu;

	(void)state;
	/* SMT on: the _ANY event, not the plain one. */
	memset(used, 0, sizeof(used));
	cu = 0;
	metric_expr_uses(e, &consts, used, 8, &cu);
	assert_true(used[0] && !used[1] && used[2]);
	/* A condition on events is undecided: both branches. */
	assert_true(used[3] && used[4]);
	assert_true(used[5] && !used[6]);
	assert_int_equal(cu, 1u << METRIC_CONST_SMT_ON | 1u << METRIC_CONST_DURATION_MS);
	/* SMT off: no _ANY event. */
	off.value[METRIC_CONST_SMT_ON] = 0;
	memset(used, 0, sizeof(used));
	metric_expr_uses(e, &off, used, 8, &cu);
	assert_true(used[0] && used[1] && !used[2]);
	/* Duration not known yet: both of its branches. */
	off.known &= ~(1u << METRIC_CONST_DURATION_MS);
	memset(used, 0, sizeof(used));
	metric_expr_uses(e, &off, used, 8, &cu);
	assert_true(used[5] && used[6]);
	/* No constants at all: everything. */
	memset(used, 0, sizeof(used));
	metric_expr_uses(e, NULL, used, 8, &cu);
	for (int i = 0; i < 8; i++)
		assert_true(used[i]);
	metric_expr_free(e);
}

static void
test_const_names(void **state)
{
	(void)state;
	assert_int_equal(metric_const_by_name("HYPERTHREADING_ON"), METRIC_CONST_SMT_ON);
	assert_int_equal(metric_const_by_name("system.sockets[0].cpus.count * system.socket_count"),
			 METRIC_CONST_CPUS);
	assert_int_equal(metric_const_by_name("20"), -1);
	assert_string_equal(metric_const_name(METRIC_CONST_TSC_FREQ), "SYSTEM_TSC_FREQ");
	assert_string_equal(metric_const_name(METRIC_CONST_COUNT), "?");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_arithmetic, setup),
		cmocka_unit_test_setup(test_conditions, setup),
		cmocka_unit_test_setup(test_nulls, setup),
		cmocka_unit_test_setup(test_missing_values, setup),
		cmocka_unit_test_setup(test_parse_errors, setup),
		cmocka_unit_test_setup(test_limits, setup),
		cmocka_unit_test_setup(test_uses, setup),
		cmocka_unit_test_setup(test_const_names, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
