/*
 * test_security_privileges_e2e.c - pmustat under attack, end to end: what
 * other users and the system can do to a root tool. The per-core lock in
 * another user's hands (jammed, faked, replaced by a link, owned by
 * someone else), a command line with terminal escapes, a set-user-ID
 * install, the sudo user's environment, and a write that fails: each
 * refused or contained without giving anything away or leaving a file half
 * written. Signals at the worst moment are in test_security_signals_e2e.c,
 * crash recovery and journals in test_security_recovery_e2e.c.
 *
 * Locks and journals live under /run, which no environment variable moves;
 * as in test_state_e2e.c, the emulated machine owns those paths
 * (libpmuemu.so puts them in the machine's directory, emu_paths.h), so
 * nothing here meets another pmustat or the host's /run, and the test
 * tampers with and checks them through e2e_machine_path().
 */
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <linux/capability.h>
#include <cmocka.h>

#include "hw/cpulock.h"
#include "e2e_harness.h"
#include "emu_pmu.h"
#include "pmu/journal.h"
#include "pmu/msr.h"
#include "base/err.h"
#include "security_fixture.h"

/* argv[1] of this program when it is a lock holder (lock_holder()). */
#define HOLD_LOCK "--hold-lock"

/* ---- the per-core lock under another user's hands ---- */

/*
 * A process holding core's lock on machine @m: taken as root, then (if @as)
 * kept as uid @as. It is this test program again (see main()), run on the
 * machine so that its lock is the machine's, as pmustat's is. Returns its
 * pid; closing *@release lets it go.
 */
static pid_t
lock_holder(const struct e2e_machine *m, uid_t as, int *release)
{
	char as_arg[16], ready_arg[16], hold_arg[16];
	int ready[2], hold[2];
	pid_t pid;
	char c;

	/* The holder's ends are inherited (it is told their numbers); ours are not. */
	assert_int_equal(pipe2(ready, O_CLOEXEC), 0);
	assert_int_equal(pipe2(hold, O_CLOEXEC), 0);
	assert_int_equal(fcntl(ready[1], F_SETFD, 0), 0);
	assert_int_equal(fcntl(hold[0], F_SETFD, 0), 0);
	snprintf(as_arg, sizeof(as_arg), "%u", (unsigned)as);
	snprintf(ready_arg, sizeof(ready_arg), "%d", ready[1]);
	snprintf(hold_arg, sizeof(hold_arg), "%d", hold[0]);
	pid = e2e_spawn(m, (const char *[]){ "/proc/self/exe", HOLD_LOCK, core_arg, as_arg, ready_arg,
					     hold_arg, NULL }, NULL);
	close(ready[1]);
	close(hold[0]);
	if (read(ready[0], &c, 1) != 1)
		fail_msg("the lock holder did not take core %d's lock (exit %d)", core, e2e_reap(pid));
	close(ready[0]);
	*release = hold[1];
	return pid;
}

/* The holder's side: HOLD_LOCK CORE AS READY_FD HOLD_FD. */
static int
hold_lock(char **argv)
{
	int cpu = atoi(argv[2]), ready = atoi(argv[4]), hold = atoi(argv[5]);
	uid_t as = (uid_t)strtoul(argv[3], NULL, 10);
	struct pmustat_error *err = NULL;
	char c = 'y';
	int fd;

	fd = cpulock_acquire(cpu, 0, &err);
	if (fd < 0) {
		fprintf(stderr, "%s\n", err_msg(err));
		_exit(1);
	}
	if (as && (setgroups(0, NULL) != 0 || setgid(as) != 0 || setuid(as) != 0))
		_exit(1);
	if (write(ready, &c, 1) != 1 || read(hold, &c, 1) < 0)
		_exit(2);
	/* _exit: no LeakSanitizer pass in a process that is no longer root's. */
	_exit(0);
	err_clear(&err);
}

static void
release_holder(pid_t pid, int release)
{
	close(release);
	assert_int_equal(e2e_reap(pid), 0);
}

static void
test_lock_cannot_be_jammed_or_faked(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	char name[128], path[PATH_MAX], dir[PATH_MAX], text[64];
	struct stat st;
	int release, fd;
	pid_t pid;

	(void)state;
	NEEDS_ROOT();
	machine(&m);
	/* The machine's lock file and directory, which pmustat names CPULOCK_DIR/cpuN. */
	cpulock_path(core, name, sizeof(name));
	e2e_machine_path(&m, name, path, sizeof(path));
	e2e_machine_path(&m, CPULOCK_DIR, dir, sizeof(dir));
	/* A first run makes the lock file. */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "branches", WL, NULL });
	e2e_assert_status(&r, 0);
	e2e_result_free(&r);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode) && st.st_uid == 0 && (st.st_mode & 077) == 0);

	/* Another user cannot open it to flock it, nor make one (the directories are root's). */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char other[PATH_MAX + 32];

		if (setgroups(0, NULL) != 0 || setgid(NOBODY) != 0 || setuid(NOBODY) != 0)
			_exit(3);
		fd = open(path, O_RDONLY);
		if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0) {
			/* Held: now see whether pmustat can be jammed by it. */
			pause();
		}
		snprintf(other, sizeof(other), "%s/cpu%d.planted", dir, core);
		if (open(other, O_WRONLY | O_CREAT, 0644) >= 0)
			_exit(4);
		snprintf(other, sizeof(other), "%s/x", dir);
		if (mkdir(other, 0777) == 0)
			_exit(4);
		_exit(fd >= 0 ? 5 : 0);
	}
	e2e_sleep_ms(100);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "branches", WL, NULL });
	kill(pid, SIGKILL);
	e2e_assert_status(&r, 0);
	e2e_result_free(&r);
	assert_int_equal(e2e_reap(pid), 0);

	/* Text planted in the lock file says nothing: the kernel names the holder. */
	pid = lock_holder(&m, 0, &release);
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "1\n", 2), 2);
	close(fd);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "branches", WL, NULL });
	e2e_assert_status(&r, 125);
	snprintf(text, sizeof(text), "pid %ld", (long)pid);
	e2e_assert_err_contains(&r, text);
	assert_null(strstr(r.err, "pid 1:"));
	assert_null(strstr(r.err, "pid 1,"));
	e2e_result_free(&r);
	release_holder(pid, release);

	/* A holder that does not run as root is named as such: not a pmustat run. */
	pid = lock_holder(&m, NOBODY, &release);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "branches", WL, NULL });
	e2e_assert_status(&r, 125);
	snprintf(text, sizeof(text), "pid %ld", (long)pid);
	e2e_assert_err_contains(&r, text);
	e2e_assert_err_contains(&r, "uid 65534, not root");
	e2e_result_free(&r);
	release_holder(pid, release);

	/* A symbolic link in its place is refused, and blamed on itself, not on privileges. */
	assert_int_equal(unlink(path), 0);
	assert_int_equal(symlink("/etc/hostname", path), 0);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "branches", WL, NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "symbolic link; remove it");
	assert_null(strstr(r.err, "run pmustat as root"));
	e2e_result_free(&r);
	assert_int_equal(unlink(path), 0);

	/* A lock file of another owner, or a directory others may write: refused, naming them. */
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(chown(path, NOBODY, NOBODY), 0);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "branches", WL, NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "not a private regular file");
	e2e_result_free(&r);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(chmod(dir, 0777), 0);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "branches", WL, NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "the directory " CPULOCK_DIR " is not private");
	e2e_result_free(&r);
	assert_int_equal(chmod(dir, 0755), 0);
	e2e_machine_free(&m);
}

/*
 * A command line is anybody's text: a counting run's arguments with a
 * terminal escape sequence reach neither the terminal of `pmustat state`
 * nor the message of a second run waiting for the core. The first run
 * holds the core until the SIGINT at the end, however slow the machine.
 */
static void
test_no_control_characters_from_a_command_line(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	pid_t pid;

	(void)state;
	machine(&m);
	pid = e2e_spawn(&m, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "branches", "/bin/sh", "-c",
					  "sleep 60", "\033]0;owned\007\033[2J", NULL }, NULL);
	assert_true(e2e_wait_msr(&m, (unsigned)core, msr_evtsel(0), EVTSEL_EN, EVTSEL_EN, 5000));
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "state", "-C", core_arg, NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_out_contains(&r, "?]0;owned??[2J");
	assert_null(strchr(r.out, '\033'));
	e2e_result_free(&r);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "branches", WL, NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "?]0;owned??[2J");
	assert_null(strchr(r.err, '\033'));
	e2e_result_free(&r);
	kill(-pid, SIGINT);
	e2e_reap(pid);
	e2e_machine_free(&m);
}

/* ---- privileges ---- */

/*
 * @copy run by nobody with @args (no LD_PRELOAD: the loader would drop it),
 * standard output to @outp and error to @errp: its exit status.
 */
static int
run_as_nobody(const char *copy, const char *outp, const char *errp, const char *const args[])
{
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		int o = open(outp, O_WRONLY | O_CREAT | O_TRUNC, 0666);
		int e = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0666);

		if (o < 0 || e < 0 || setgroups(0, NULL) != 0 || setgid(NOBODY) != 0 || setuid(NOBODY) != 0)
			_exit(120);
		dup2(o, 1);
		dup2(e, 2);
		unsetenv("LD_PRELOAD");
		execv(copy, (char *const *)args);
		_exit(121);
	}
	status = e2e_reap(pid);
#ifdef __SANITIZE_ADDRESS__
	/*
	 * A sanitized build: LeakSanitizer cannot trace a process that gained
	 * rights at its exec (not dumpable) and turns the exit into 1 after
	 * pmustat refused.
	 */
	if (status == 1 && strstr(slurp_file(errp), "LeakSanitizer has encountered a fatal error"))
		status = 125;
#endif
	return status;
}

/*
 * As root, a machine whose directory honours set-ID bits and file
 * capabilities (skipped on a nosuid mount), and there the paths of an
 * install's copy of pmustat and of its standard output and error, named
 * after @name (each PATH_MAX + 32 bytes).
 */
static void
install_machine(struct e2e_machine *m, const char *name, char *copy, char *outp, char *errp)
{
	struct statvfs vfs;

	NEEDS_ROOT();
	machine(m);
	if (statvfs(m->dir, &vfs) != 0 || (vfs.f_flag & ST_NOSUID)) {
		e2e_machine_free(m);
		skip();
	}
	snprintf(copy, PATH_MAX + 32, "%s/pmustat-%s", m->dir, name);
	snprintf(outp, PATH_MAX + 32, "%s/%s.out", m->dir, name);
	snprintf(errp, PATH_MAX + 32, "%s/%s.err", m->dir, name);
}

/* Installed set-user-ID root and run by nobody: refused before anything, never a root command. */
static void
test_setuid_install_is_refused(void **state)
{
	char copy[PATH_MAX + 32], outp[PATH_MAX + 32], errp[PATH_MAX + 32], *text;
	struct e2e_machine m;
	const mode_t modes[] = { 04755, 02755 };

	(void)state;
	install_machine(&m, "setid", copy, outp, errp);
	for (size_t k = 0; k < sizeof(modes) / sizeof(modes[0]); k++) {
		char cp[PATH_MAX * 2 + 64];
		int status;

		snprintf(cp, sizeof(cp), "cp '%s' '%s'", E2E_PMUSTAT, copy);
		assert_int_equal(system(cp), 0);
		assert_int_equal(chown(copy, 0, 0), 0);
		assert_int_equal(chmod(copy, modes[k]), 0);
		status = run_as_nobody(copy, outp, errp, (const char *const[]){ "pmustat", "-e", "task-clock", "--",
									"/bin/sh", "-pc", "echo euid=$(id -u)", NULL });
		text = slurp_file(outp);
		assert_null(strstr(text, "euid="));
		text = slurp_file(errp);
		if (status != 125 || !strstr(text, "set-user-ID or set-group-ID") || !strstr(text, "sudo"))
			fail_msg("mode %o: exit %d: %s", (unsigned)modes[k], status, text);
		unlink(copy);
	}
	unlink(outp);
	unlink(errp);
	e2e_machine_free(&m);
}

/* Give @path the file capability @cap, effective and permitted (what setcap CAP+ep writes). */
static void
set_file_capability(const char *path, unsigned cap)
{
	struct vfs_cap_data data;

	memset(&data, 0, sizeof(data));
	data.magic_etc = VFS_CAP_REVISION_2 | VFS_CAP_FLAGS_EFFECTIVE;
	data.data[cap / 32].permitted = 1u << (cap % 32);
	assert_int_equal(setxattr(path, "security.capability", &data, XATTR_CAPS_SZ_2, 0), 0);
}

/*
 * A copy given cap_dac_override+ep (as setcap would) and run by nobody:
 * refused before anything, so it neither replaces a root-only file
 * (info --save-cpu-dump) nor creates one in a root-only directory (-o).
 */
static void
test_file_capabilities_install_is_refused(void **state)
{
	char copy[PATH_MAX + 32], outp[PATH_MAX + 32], errp[PATH_MAX + 32], dir[PATH_MAX + 32];
	char secret[PATH_MAX + 64], created[PATH_MAX + 64], cp[PATH_MAX * 2 + 64], *text;
	struct e2e_machine m;
	struct stat st;
	int fd;

	(void)state;
	install_machine(&m, "caps", copy, outp, errp);
	snprintf(dir, sizeof(dir), "%s/root-only", m.dir);
	snprintf(secret, sizeof(secret), "%s/secret", dir);
	snprintf(created, sizeof(created), "%s/out", dir);
	assert_int_equal(mkdir(dir, 0700), 0);
	fd = open(secret, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "secret\n", 7), 7);
	close(fd);
	snprintf(cp, sizeof(cp), "cp '%s' '%s'", E2E_PMUSTAT, copy);
	assert_int_equal(system(cp), 0);
	assert_int_equal(chmod(copy, 0755), 0);
	set_file_capability(copy, CAP_DAC_OVERRIDE);

	{
		const char *const info[] = { "pmustat", "info", "--save-cpu-dump", secret, NULL };
		const char *const run[] = { "pmustat", "-o", created, "-e", "task-clock", "--", "/bin/true", NULL };
		const char *const *cases[] = { info, run };

		for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
			int status = run_as_nobody(copy, outp, errp, cases[k]);

			text = slurp_file(errp);
			if (status != 125 || !strstr(text, "capabilities") || !strstr(text, "setcap -r"))
				fail_msg("%s: exit %d: %s", cases[k][1], status, text);
			assert_string_equal(slurp_file(secret), "secret\n");
			assert_int_not_equal(stat(created, &st), 0);
		}
	}
	unlink(secret);
	rmdir(dir);
	unlink(copy);
	unlink(outp);
	unlink(errp);
	e2e_machine_free(&m);
}

/* The command gets the sudo user's HOME, USER, LOGNAME and SHELL, not root's. */
static void
test_sudo_user_environment(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct passwd *pw;
	char want[PATH_MAX * 2 + 512];

	(void)state;
	NEEDS_ROOT();
	pw = getpwuid(NOBODY);
	if (!pw) {
		skip();
		return;
	}
	snprintf(want, sizeof(want), "[%s|%s|%s|%s]\n", pw->pw_dir, pw->pw_name, pw->pw_name,
		 pw->pw_shell && pw->pw_shell[0] ? pw->pw_shell : "/bin/sh");
	machine(&m);
	/* The command runs as nobody: the preload library must be where nobody can read it. */
	e2e_machine_share(&m);
	e2e_run_env(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "branches", "/bin/sh", "-c",
					      "echo \"[$HOME|$USER|$LOGNAME|$SHELL]\"", NULL },
		    (const char *[]){ "SUDO_UID=65534", "SUDO_GID=65534", "SUDO_USER=nobody", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_out_contains(&r, want);
	e2e_result_free(&r);
	/* --as-root keeps root's. */
	e2e_run_env(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "--as-root", "-e", "branches", "/bin/sh",
					      "-c", "echo \"[$USER]\"", NULL },
		    (const char *[]){ "SUDO_UID=65534", "SUDO_GID=65534", NULL });
	e2e_assert_status(&r, 0);
	assert_null(strstr(r.out, "[nobody]"));
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

/* ---- a file that cannot be written whole: 125, naming the file, nothing half-written ---- */

/* No file of pmustat's may grow past this: a journal fits (JOURNAL_MAX_BYTES), the output does not. */
#define FILE_SIZE_LIMIT JOURNAL_MAX_BYTES

/*
 * e2e_run() with writes past FILE_SIZE_LIMIT failing (EFBIG, SIGXFSZ
 * ignored), as writes fail on a full file system: the same write(2) error
 * path, without a file system of its own to fill (no mount, no privilege).
 * The output is made to outgrow the limit by the command line it records.
 */
static void
run_limited(const struct e2e_machine *m, struct e2e_result *r, const char *const argv[])
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, old_act;
	struct rlimit lim, old;

	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = FILE_SIZE_LIMIT;
	assert_int_equal(sigaction(SIGXFSZ, &ign, &old_act), 0);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	e2e_run(m, r, argv);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	assert_int_equal(sigaction(SIGXFSZ, &old_act, NULL), 0);
}

static void
test_write_failure_leaves_nothing_half_written(void **state)
{
	char dir[PATH_MAX + 16], out[PATH_MAX + 32], base[PATH_MAX + 32];
	static char script[2 * FILE_SIZE_LIMIT];
	struct e2e_machine m;
	struct e2e_result r;
	int fd;

	(void)state;
	machine(&m);
	snprintf(dir, sizeof(dir), "%s/results", m.dir);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(out, sizeof(out), "%s/out.json", dir);
	snprintf(base, sizeof(base), "%s/base.json", dir);
	/* A command whose line alone is larger than the limit: ": xxx...". */
	memset(script, 'x', sizeof(script) - 1);
	script[0] = ':';
	script[1] = ' ';
	/* An old result that must survive a failed write whole. */
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "old\n", 4), 4);
	close(fd);

	run_limited(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "--json", "-o", out, "-e", "branches",
					      "/bin/sh", "-c", script, NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "File too large");
	e2e_assert_err_contains(&r, out);
	e2e_result_free(&r);
	assert_string_equal(slurp_file(out), "old\n");

	/* -o /dev/null: the human output, which names the command too, is not the file that fails. */
	run_limited(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-o", "/dev/null", "--save-baseline", base,
					      "-e", "branches", "/bin/sh", "-c", script, NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "--save-baseline");
	e2e_assert_err_contains(&r, "File too large");
	e2e_result_free(&r);
	assert_int_equal(access(base, F_OK), -1);
	/* Nothing else is left in the directory: no temporary file. */
	{
		char ls[PATH_MAX + 128];

		snprintf(ls, sizeof(ls), "test \"$(ls -A '%s' | tr '\\n' ' ')\" = 'out.json '", dir);
		assert_int_equal(system(ls), 0);
	}
	/* The core is free and as it was: the run itself went through (journal and all). */
	run_limited(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "branches", WL, NULL });
	e2e_assert_status(&r, 0);
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lock_cannot_be_jammed_or_faked),
		cmocka_unit_test(test_no_control_characters_from_a_command_line),
		cmocka_unit_test(test_setuid_install_is_refused),
		cmocka_unit_test(test_file_capabilities_install_is_refused),
		cmocka_unit_test(test_sudo_user_environment),
		cmocka_unit_test(test_write_failure_leaves_nothing_half_written),
	};

	/* lock_holder() runs this program again as the holder, before any test. */
	if (argc == 6 && strcmp(argv[1], HOLD_LOCK) == 0)
		return hold_lock(argv);
	if (security_fixture_init() != 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
