/*
 * test_cpulock.c - the per-core lock. Uses a CPU number no machine has
 * (the lock file is the real one under /run/pmustat/lock, so a live
 * pmustat is never disturbed) and a second process to hold it. Needs root,
 * as pmustat does: only root may create the lock.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "cpulock.h"

#define FAKE_CPU 100000

static void
remove_lock_file(void)
{
	char path[128];

	cpulock_path(FAKE_CPU, path, sizeof(path));
	unlink(path);
}

static void
test_second_holder_is_named(void **state)
{
	char err[512] = "", pid_text[32];
	int pipefd[2], hold[2], fd, rc, ws;
	pid_t holder;
	char c;

	(void)state;
	if (geteuid() != 0)
		skip();
	assert_int_equal(pipe(pipefd), 0);
	assert_int_equal(pipe(hold), 0);
	holder = fork();
	assert_true(holder >= 0);
	if (holder == 0) {
		int lfd = cpulock_acquire(FAKE_CPU, 0, err, sizeof(err));

		/* Tell the parent, then hold the lock until it closes the pipe. */
		c = lfd >= 0 ? 'y' : 'n';
		if (write(pipefd[1], &c, 1) != 1)
			_exit(2);
		close(hold[1]);
		if (read(hold[0], &c, 1) < 0)
			_exit(2);
		cpulock_release(lfd);
		_exit(lfd >= 0 ? 0 : 1);
	}
	close(pipefd[1]);
	close(hold[0]);
	assert_int_equal(read(pipefd[0], &c, 1), 1);
	assert_int_equal(c, 'y');

	/* Held elsewhere: waits (here 100 ms), then names the holder's pid (the kernel's word, not the file's). */
	rc = cpulock_acquire(FAKE_CPU, 100, err, sizeof(err));
	assert_int_equal(rc, -EBUSY);
	snprintf(pid_text, sizeof(pid_text), "pid %d", (int)holder);
	assert_non_null(strstr(err, pid_text));
	assert_non_null(strstr(err, "-C"));

	/* The holder goes away (the kernel drops an flock with its fd): ours now. */
	close(hold[1]);
	close(pipefd[0]);
	assert_int_equal(waitpid(holder, &ws, 0), holder);
	assert_true(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
	fd = cpulock_acquire(FAKE_CPU, 0, err, sizeof(err));
	assert_true(fd >= 0);
	cpulock_release(fd);
	remove_lock_file();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_second_holder_is_named),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
