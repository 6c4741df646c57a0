/*
 * test_cpulock.c - the per-core lock, and how `pmustat state` names its
 * holder (through /proc/locks, by the lock file's inode).
 *
 * The lock file has a fixed path under /run, so this test runs on an
 * emulated machine (meson starts it through run-under-emu): libpmuemu.so
 * puts the machine's /run in its own directory (tests/emu/emu_paths.h), so
 * the host's /run is never written and tests running at once never share
 * a lock. Without the emulator it refuses to run rather than lock the
 * host's cores.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "hw/cpulock.h"
#include "emu_paths.h"
#include "emu_state.h"
#include "base/err.h"

#define CPU 3

/* Where the machine keeps @path: the test, unlike pmustat, looks behind the curtain. */
static void
machine_file(const char *path, char *buf, size_t size)
{
	char dir[PATH_MAX];

	assert_int_equal(emu_paths_dir(getenv(EMU_STATE_ENV), dir, sizeof(dir)), 0);
	assert_int_equal(emu_paths_map(dir, path, buf, size), 1);
}

static void
test_second_holder_is_named(void **state)
{
	struct pmustat_error *err = NULL;
	char pid_text[32], path[128], real[PATH_MAX];
	int pipefd[2], hold[2], fd, rc, ws;
	struct stat st;
	pid_t holder;
	char c;

	(void)state;
	cpulock_path(CPU, path, sizeof(path));
	assert_int_equal(cpulock_holder(CPU), 0);
	fd = cpulock_acquire(CPU, 0, &err);
	if ((fd == -EACCES || fd == -EPERM) && geteuid() != 0) {
		print_message("skipped: uid %u may not create pmustat's lock files (%s)\n", (unsigned)geteuid(), err_msg(err));
		skip();
	}
	assert_true(fd >= 0);
	cpulock_release(fd);
	assert_int_equal(pipe(pipefd), 0);
	assert_int_equal(pipe(hold), 0);
	holder = fork();
	assert_true(holder >= 0);
	if (holder == 0) {
		int lfd = cpulock_acquire(CPU, 0, &err);

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

	/* The file is the machine's, where pmustat's name for it leads on this machine. */
	machine_file(path, real, sizeof(real));
	assert_int_equal(lstat(real, &st), 0);
	assert_true(S_ISREG(st.st_mode));

	/* state finds the holder in /proc/locks by the file's inode. */
	assert_int_equal(cpulock_holder(CPU), holder);

	/* Held elsewhere: waits (here 100 ms), then names the holder's pid (the kernel's word, not the file's). */
	rc = cpulock_acquire(CPU, 100, &err);
	assert_int_equal(rc, -EBUSY);
	snprintf(pid_text, sizeof(pid_text), "pid %d", (int)holder);
	assert_non_null(strstr(err_msg(err), pid_text));
	assert_non_null(strstr(err_msg(err), "-C"));

	/* The holder goes away (the kernel drops an flock with its fd): ours now. */
	close(hold[1]);
	close(pipefd[0]);
	assert_int_equal(waitpid(holder, &ws, 0), holder);
	assert_true(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
	assert_int_equal(cpulock_holder(CPU), 0);
	fd = cpulock_acquire(CPU, 0, &err);
	assert_true(fd >= 0);
	assert_int_equal(cpulock_holder(CPU), getpid());
	cpulock_release(fd);
	err_clear(&err);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_second_holder_is_named),
	};
	const char *st = getenv(EMU_STATE_ENV);

	if (!st || !*st) {
		fprintf(stderr, "test-cpulock: run me on an emulated machine (tests/emu/run-under-emu), "
			"which owns the lock files; not on this host's /run\n");
		return 99;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
