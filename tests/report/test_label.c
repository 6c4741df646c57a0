/*
 * test_label.c - the name a count is shown under says the ring it counted:
 * "instructions:u" by default, as typed when the spelling says it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "report/label.h"
#include "test_util.h"

static const char *
label(const char *requested, bool usr, bool os)
{
	static char buf[EVENT_NAME_MAX + 8];
	struct event e = test_event("X", 0xc0, 0, 0xf);

	snprintf(e.requested, sizeof(e.requested), "%s", requested);
	e.usr = usr;
	e.os = os;
	label_of(&e, buf, sizeof(buf));
	return buf;
}

static void
test_user_only_by_default(void **state)
{
	(void)state;
	assert_string_equal(label("instructions", true, false), "instructions:u");
	assert_string_equal(label("LONGEST_LAT_CACHE.MISS", true, false), "LONGEST_LAT_CACHE.MISS:u");
	assert_string_equal(label("r412e", true, false), "r412e:u");
	assert_string_equal(label("LLC_MISSES:cmask=1", true, false), "LLC_MISSES:cmask=1:u");
	/* perf's cpu/.../ form takes the letters right after the slash. */
	assert_string_equal(label("cpu/event=0x2e,umask=0x41/", true, false), "cpu/event=0x2e,umask=0x41/u");
}

static void
test_spelled_rings_shown_as_typed(void **state)
{
	(void)state;
	assert_string_equal(label("instructions:u", true, false), "instructions:u");
	assert_string_equal(label("cycles:k", false, true), "cycles:k");
	assert_string_equal(label("branches:uk", true, true), "branches:uk");
	assert_string_equal(label("LLC_MISSES:k:cmask=1", false, true), "LLC_MISSES:k:cmask=1");
	assert_string_equal(label("cpu/event=0x3c/k", false, true), "cpu/event=0x3c/k");
	/* A name that only contains the letters is not a ring. */
	assert_string_equal(label("cpu/event=0x2e,umask=0x41,name=uk/", true, false),
			    "cpu/event=0x2e,umask=0x41,name=uk/u");
}

static void
test_both_rings_no_suffix(void **state)
{
	(void)state;
	assert_string_equal(label("task-clock", true, true), "task-clock");
	assert_string_equal(label("kernel-only", false, true), "kernel-only:k");
}

static void
test_privilege_field(void **state)
{
	struct event e = test_event("X", 0xc0, 0, 0xf);

	(void)state;
	assert_string_equal(label_privilege(&e), "u");
	e.os = true;
	assert_string_equal(label_privilege(&e), "uk");
	e.usr = false;
	assert_string_equal(label_privilege(&e), "k");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_user_only_by_default),
		cmocka_unit_test(test_spelled_rings_shown_as_typed),
		cmocka_unit_test(test_both_rings_no_suffix),
		cmocka_unit_test(test_privilege_field),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
