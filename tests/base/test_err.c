/*
 * test_err.c - the error value (src/base/err.h) and heap text
 * (src/base/strbuf.h): whole messages however long, context in front and
 * behind, replacement without leaks, and the caller that passes NULL.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/err.h"
#include "base/exit_codes.h"
#include "base/strbuf.h"

static int
fails(struct pmustat_error **err, const char *what)
{
	return err_set(err, -ENOENT, "no such table '%s'", what);
}

static void
test_set_and_read(void **state)
{
	struct pmustat_error *err = NULL;

	(void)state;
	assert_string_equal(err_msg(err), "");
	assert_int_equal(err_status(err), 0);
	assert_int_equal(err_rc(err), 0);
	assert_int_equal(fails(&err, "skylake"), -ENOENT);
	assert_string_equal(err_msg(err), "no such table 'skylake'");
	assert_int_equal(err_status(err), EXIT_PMUSTAT_FAILURE);
	assert_int_equal(err_rc(err), -ENOENT);
	assert_int_equal(err->errnum, ENOENT);
	/* A second failure replaces the first (no leak under ASan). */
	assert_int_equal(err_set(&err, -EINVAL, "bad %d", 3), -EINVAL);
	assert_string_equal(err_msg(err), "bad 3");
	err_clear(&err);
	assert_null(err);
	/* The caller that wants only the errno. */
	assert_int_equal(fails(NULL, "x"), -ENOENT);
}

static void
test_no_truncation(void **state)
{
	struct pmustat_error *err = NULL;
	char *big = malloc(100001);

	(void)state;
	assert_non_null(big);
	memset(big, 'a', 100000);
	big[100000] = '\0';
	err_set(&err, -E2BIG, "%s!", big);
	assert_int_equal(strlen(err_msg(err)), 100001);
	assert_int_equal(err_msg(err)[100000], '!');
	err_wrap(&err, "core %d", 3);
	assert_int_equal(strncmp(err_msg(err), "core 3: aaa", 11), 0);
	assert_int_equal(strlen(err_msg(err)), 100001 + 8);
	err_clear(&err);
	free(big);
}

static void
test_wrap_and_append(void **state)
{
	struct pmustat_error *err = NULL;

	(void)state;
	fails(&err, "x");
	assert_int_equal(err_wrap(&err, "--table %s", "x"), -ENOENT);
	assert_int_equal(err_append(&err, "; the tables are in %s", "/usr/share"), -ENOENT);
	assert_string_equal(err_msg(err), "--table x: no such table 'x'; the tables are in /usr/share");
	err_clear(&err);
	/* Wrapping nothing makes an error of the context alone. */
	assert_int_equal(err_wrap(&err, "core %d", 1), -EIO);
	assert_string_equal(err_msg(err), "core 1");
	err_clear(&err);
	assert_int_equal(err_wrap(NULL, "x"), -EIO);
}

static void
test_status_and_move(void **state)
{
	struct pmustat_error *a = NULL, *b = NULL;

	(void)state;
	err_set_status(&a, EXIT_NOT_FOUND, -ENOENT, "%s: command not found", "nope");
	assert_int_equal(err_status(a), EXIT_NOT_FOUND);
	err_set(&b, -EIO, "old");
	err_move(&b, &a);
	assert_null(a);
	assert_string_equal(err_msg(b), "nope: command not found");
	err_move(NULL, &b);
	assert_null(b);
}

static void
test_strbuf(void **state)
{
	struct strbuf b = STRBUF_INIT;
	char *s;

	(void)state;
	assert_string_equal(strbuf_str(&b), "");
	for (int i = 0; i < 1000; i++)
		strbuf_printf(&b, "%s%d", b.len ? "," : "", i);
	assert_false(strbuf_failed(&b));
	assert_int_equal(strncmp(strbuf_str(&b), "0,1,2,", 6), 0);
	assert_int_equal(strcmp(strbuf_str(&b) + b.len - 4, ",999"), 0);
	s = strbuf_take(&b);
	assert_non_null(s);
	assert_string_equal(strbuf_str(&b), "");
	free(s);
	s = strbuf_take(&b);
	assert_string_equal(s, "");
	free(s);
	s = str_printf("%s-%u", "pmc", 3u);
	assert_string_equal(s, "pmc-3");
	free(s);
	strbuf_free(&b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_and_read),
		cmocka_unit_test(test_no_truncation),
		cmocka_unit_test(test_wrap_and_append),
		cmocka_unit_test(test_status_and_move),
		cmocka_unit_test(test_strbuf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
