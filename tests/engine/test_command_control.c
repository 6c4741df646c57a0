/*
 * test_command_control.c - perf's --control protocol (each command ended
 * by a newline or a NUL, "ack\n" after each known one, unknown ones
 * ignored), -D's delayed enable and --timeout's SIGTERM on a real child;
 * and -G's lookup of the cgroup hierarchy in a mounts file.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/err.h"
#include "engine/cgroup.h"
#include "engine/command_control.h"

static int switched_on, switched_off;

static void
record(void *arg, bool on)
{
	(void)arg;
	if (on)
		switched_on++;
	else
		switched_off++;
}

static void
feed(struct command_control *k, const char *bytes, size_t n)
{
	for (size_t i = 0; i < n; i++)
		(void)command_control_byte(k, bytes[i]);
}

static void
test_protocol(void **state)
{
	struct command_control k;
	int ack[2];
	char got[64] = "";
	ssize_t n;

	(void)state;
	assert_int_equal(pipe(ack), 0);
	memset(&k, 0, sizeof(k));
	k.ctl_fd = -1;
	k.ack_fd = ack[1];
	k.set_enabled = record;
	switched_on = switched_off = 0;
	/* Split across reads, newline or NUL ended; an unknown word is ignored, unanswered. */
	feed(&k, "ena", 3);
	assert_int_equal(switched_on, 0);
	feed(&k, "ble\n", 4);
	feed(&k, "disable\0", 8);
	assert_int_equal(command_control_byte(&k, 'x'), 0);
	assert_int_equal(command_control_byte(&k, '\n'), -1);
	feed(&k, "ping\n", 5);
	assert_int_equal(switched_on, 1);
	assert_int_equal(switched_off, 1);
	close(ack[1]);
	n = read(ack[0], got, sizeof(got) - 1);
	assert_true(n > 0);
	got[n] = '\0';
	assert_string_equal(got, "ack\nack\nack\n");
	close(ack[0]);
}

static void
test_delay_and_timeout(void **state)
{
	struct command_control k;
	pid_t child;
	int ws;

	(void)state;
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		pause();
		_exit(0);
	}
	memset(&k, 0, sizeof(k));
	k.ctl_fd = k.ack_fd = -1;
	k.delay_ms = 20;
	k.timeout_ms = 60;
	k.set_enabled = record;
	switched_on = switched_off = 0;
	assert_int_equal(command_control_start(&k, child), 0);
	assert_int_equal(waitpid(child, &ws, 0), child);
	assert_true(WIFSIGNALED(ws) && WTERMSIG(ws) == SIGTERM);
	assert_true(command_control_stop(&k));
	assert_int_equal(switched_on, 1);

	/* Nothing asked: no thread, nothing done. */
	memset(&k, 0, sizeof(k));
	k.ctl_fd = k.ack_fd = -1;
	assert_int_equal(command_control_start(&k, getpid()), 0);
	assert_false(command_control_stop(&k));
}

static void
test_cgroup_hierarchy(void **state)
{
	char dir[] = "/tmp/pmustat-cgroup.XXXXXX", mounts[128], sub[160];
	struct pmustat_error *err = NULL;
	FILE *f;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(mounts, sizeof(mounts), "%s/mounts", dir);
	snprintf(sub, sizeof(sub), "%s/web", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	/* v2 and a v1 hierarchy with perf_event: the v1 one is perf's. */
	f = fopen(mounts, "w");
	assert_non_null(f);
	fprintf(f, "cgroup2 /nonexistent/unified cgroup2 rw 0 0\ncgroup %s cgroup rw,perf_event 0 0\n", dir);
	fclose(f);
	fd = cgroup_open("web", mounts, &err);
	assert_true(fd >= 0);
	close(fd);
	fd = cgroup_open("/web", mounts, &err);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(cgroup_open("nosuch", mounts, &err), -ENOENT);
	assert_non_null(strstr(err_msg(err), "-G nosuch: "));
	assert_non_null(strstr(err_msg(err), "no such cgroup"));
	err_clear(&err);
	assert_int_equal(cgroup_open("../etc", mounts, &err), -EINVAL);
	err_clear(&err);
	/* v2 only: its mount. */
	f = fopen(mounts, "w");
	assert_non_null(f);
	fprintf(f, "cgroup %s/x cgroup rw,cpu 0 0\ncgroup2 %s cgroup2 rw 0 0\n", dir, dir);
	fclose(f);
	fd = cgroup_open("web", mounts, &err);
	assert_true(fd >= 0);
	close(fd);
	/* Neither. */
	f = fopen(mounts, "w");
	assert_non_null(f);
	fprintf(f, "proc /proc proc rw 0 0\n");
	fclose(f);
	assert_int_equal(cgroup_open("web", mounts, &err), -ENOENT);
	assert_non_null(strstr(err_msg(err), "no cgroup hierarchy"));
	err_clear(&err);
	unlink(mounts);
	rmdir(sub);
	rmdir(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_protocol),
		cmocka_unit_test(test_delay_and_timeout),
		cmocka_unit_test(test_cgroup_hierarchy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
