/*
 * test_attacks_e2e.c - pmustat against an unlucky machine and a careless or
 * hostile caller, end to end: the real binary on the emulated PMU, started
 * with signals, limits and descriptors nobody planned for. Each case is an
 * attack that once got through; each asserts that the PMU ends as it began,
 * no journal is left behind, and pmustat says what failed (exit 125) rather
 * than dying silently or reporting success.
 *
 * The limits and closed descriptors are set by this very program, re-run as
 * a wrapper (WRAP, below) between the harness and pmustat, so that they
 * apply to pmustat alone and the harness keeps its own.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "e2e_harness.h"
#include "e2e_journal.h"
#include "emu_pmu.h"
#include "pmu/msr.h"

#define WL E2E_EMU_WORKLOAD
/* argv[1] of this program when it is the wrapper (wrap_main()). */
#define WRAP "--wrap"
/* Six events: a journal of several hundred bytes, more than FSIZE_LIMIT. */
static const char six_events[] =
	"LLC_MISSES,INST_RETIRED.ANY,CPU_CLK_UNHALTED.THREAD,BR_INST_RETIRED.ALL_BRANCHES,BR_MISP_RETIRED.ALL_BRANCHES,CPU_CLK_UNHALTED.REF_TSC";
/* Room for pmustat's message on stderr (a file of the harness's), not for that journal. */
#define FSIZE_LIMIT "fsize=300"

static int core;
static char core_arg[16];
static unsigned ncpus;
static char self[PATH_MAX];

/*
 * The wrapper: WRAP [fsize=BYTES] [nofile=N] [close=FD] [stdout=PATH] [stderr=PATH] [append=FD:PATH]
 *	 -- PROGRAM ARGS...
 * sets those on itself, the signals at their defaults, and executes PROGRAM.
 */
static int
wrap_main(int argc, char **argv)
{
	int i = 2;

	signal(SIGXFSZ, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
		const char *eq = strchr(argv[i], '=');
		struct rlimit lim;

		if (!eq)
			return 2;
		lim.rlim_cur = lim.rlim_max = strtoul(eq + 1, NULL, 10);
		if (strncmp(argv[i], "fsize=", 6) == 0 && setrlimit(RLIMIT_FSIZE, &lim) != 0)
			return 2;
		if (strncmp(argv[i], "nofile=", 7) == 0 && setrlimit(RLIMIT_NOFILE, &lim) != 0)
			return 2;
		if (strncmp(argv[i], "append=", 7) == 0) {
			/* append=N:PATH: descriptor N open on PATH for appending, as N>>PATH in a shell. */
			char *colon;
			int want = (int)strtol(eq + 1, &colon, 10);
			int fd = *colon == ':' ? open(colon + 1, O_WRONLY | O_APPEND) : -1;

			if (fd < 0 || (fd != want && (dup2(fd, want) < 0 || close(fd) != 0)))
				return 2;
		}
		if (strncmp(argv[i], "close=", 6) == 0)
			close((int)strtol(eq + 1, NULL, 10));
		if (strncmp(argv[i], "stdout=", 7) == 0 || strncmp(argv[i], "stderr=", 7) == 0) {
			int fd = open(eq + 1, O_WRONLY);

			if (fd < 0 || dup2(fd, argv[i][3] == 'o' ? STDOUT_FILENO : STDERR_FILENO) < 0)
				return 2;
			close(fd);
		}
	}
	if (i + 1 >= argc)
		return 2;
	execv(argv[i + 1], argv + i + 1);
	return 127;
}

static void
machine(struct e2e_machine *m)
{
	char cpus[16];

	snprintf(cpus, sizeof(cpus), "%u", ncpus);
	e2e_machine_new(m, (const char *[]){ "--model", "skylake", "--cpus", cpus, NULL });
}

static void
assert_same(const struct e2e_machine *m, const struct emu_pmu *before)
{
	struct emu_pmu *after = e2e_state(m);

	assert_int_equal(emu_pmu_diff(before, after, stderr), 0);
	free(after);
}

static void
assert_no_journal(const struct e2e_machine *m)
{
	char path[PATH_MAX];

	e2e_journal_file(m, core, path, sizeof(path));
	assert_int_equal(access(path, F_OK), -1);
}

/* No file but the lock directory is left in the machine's /run/pmustat (no temporary journal). */
static void
assert_run_dir_clean(const struct e2e_machine *m)
{
	char dir[PATH_MAX];
	struct dirent *d;
	DIR *dp;

	e2e_machine_path(m, JOURNAL_DIR, dir, sizeof(dir));
	dp = opendir(dir);
	assert_non_null(dp);
	while ((d = readdir(dp)) != NULL)
		if (strcmp(d->d_name, ".") != 0 && strcmp(d->d_name, "..") != 0 && strcmp(d->d_name, "lock") != 0)
			fail_msg("%s/%s is left behind", dir, d->d_name);
	closedir(dp);
}

/*
 * kill -USR1, -ALRM, timeout -s PROF, a batch system's RLIMIT_CPU: every
 * signal whose default action ends a process used to end pmustat with its
 * counter left programmed and counting, the command running on. Each must
 * be passed on to the command and the PMU restored before pmustat dies of it.
 */
static void
test_every_terminating_signal_restores(void **state)
{
	static const int sigs[] = { SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU };
	struct e2e_machine m;
	struct emu_pmu *before;

	(void)state;
	machine(&m);
	before = e2e_state(&m);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		pid_t pid = e2e_spawn(&m, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "LLC_MISSES", "--",
							    WL, "--sleep", "5000", "--quiet", NULL }, NULL);

		/* Counting: EVTSEL0 enabled with LLC_MISSES (event 0x2e, umask 0x41). */
		assert_true(e2e_wait_msr(&m, (unsigned)core, msr_evtsel(0), EVTSEL_EN | 0xffff,
					 EVTSEL_EN | 0x412e, 5000));
		assert_int_equal(kill(pid, sigs[i]), 0);
		assert_int_equal(e2e_reap(pid), 128 + sigs[i]);
		assert_same(&m, before);
		assert_no_journal(&m);
	}
	free(before);
	e2e_machine_free(&m);
}

/*
 * A file size limit (or a full /run) met by the journal: pmustat used to be
 * killed by SIGXFSZ with no word, or to blame a stale errno. It must say
 * "File too large", naming the journal, count nothing and leave nothing.
 * The command still gets SIGXFSZ and SIGPIPE at their defaults.
 */
static void
test_file_size_limit_is_a_reported_write_error(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before;

	(void)state;
	machine(&m);
	before = e2e_state(&m);
	e2e_run(&m, &r, (const char *[]){ self, WRAP, FSIZE_LIMIT, "--", E2E_PMUSTAT, "-C", core_arg,
					  "-e", six_events, "-o", "/dev/null", "--", WL, "--quiet", NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "journal");
	e2e_assert_err_contains(&r, "File too large");
	e2e_result_free(&r);
	assert_same(&m, before);
	assert_run_dir_clean(&m);

	/* SigIgn of the command: nothing pmustat ignores for itself leaks into it. */
	e2e_run(&m, &r, (const char *[]){ self, WRAP, "--", E2E_PMUSTAT, "-C", core_arg, "-e", "LLC_MISSES", "-o",
					  "/dev/null", "--", "/bin/grep", "SigIgn", "/proc/self/status", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_out_contains(&r, "SigIgn:\t0000000000000000\n");
	e2e_result_free(&r);
	free(before);
	e2e_machine_free(&m);
}

/*
 * Out of descriptors at every point of a run (RLIMIT_NOFILE from 4 up): a
 * refusal that names the cause ("ok failed: Success" did not), the PMU as
 * it was, no journal.
 */
static void
test_out_of_descriptors_says_why(void **state)
{
	struct e2e_machine m;
	struct emu_pmu *before;

	(void)state;
	machine(&m);
	before = e2e_state(&m);
	for (int n = 4; n <= 16; n++) {
		char lim[32];
		struct e2e_result r;

		snprintf(lim, sizeof(lim), "nofile=%d", n);
		e2e_run(&m, &r, (const char *[]){ self, WRAP, lim, "--", E2E_PMUSTAT, "-C", core_arg, "-e",
						  "LLC_MISSES,INST_RETIRED.ANY", "-o", "/dev/null", "--", WL, "--quiet",
						  NULL });
		/* Too few for the dynamic loader itself: pmustat never started. */
		if (r.status == 127 && strstr(r.err, "error while loading shared libraries")) {
			e2e_result_free(&r);
			continue;
		}
		if (r.status != 0) {
			e2e_assert_status(&r, 125);
			assert_non_null(strstr(r.err, "pmustat"));
			assert_null(strstr(r.err, "Success"));
			assert_null(strstr(r.err, "ok failed"));
		}
		e2e_result_free(&r);
		assert_same(&m, before);
		assert_no_journal(&m);
	}
	free(before);
	e2e_machine_free(&m);
}

/* Is /proc/@pid/fd/@fd the lock, the MSR device or another of pmustat's own files? */
static bool
fd_is_pmustats(pid_t pid, int fd)
{
	char path[64], target[PATH_MAX];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%ld/fd/%d", (long)pid, fd);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return false;
	target[n] = '\0';
	return strstr(target, "/lock/cpu") || strstr(target, "msr") || strstr(target, "journal");
}

/*
 * Started with standard input and output closed (cmd <&- >&-), pmustat's
 * first open() took descriptor 0 for the lock and 1 for the MSR device, and
 * what it printed to "stdout" went to the MSR device. Its standard
 * descriptors must stay placeholders, and a report that cannot be written
 * there is a failure.
 */
static void
test_closed_standard_descriptors(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before;
	pid_t pid;

	(void)state;
	machine(&m);
	before = e2e_state(&m);
	pid = e2e_spawn(&m, (const char *[]){ self, WRAP, "close=0", "close=1", "--", E2E_PMUSTAT, "-C", core_arg,
					      "-e", "LLC_MISSES", "--", WL, "--sleep", "5000", "--quiet", NULL }, NULL);
	assert_true(e2e_wait_msr(&m, (unsigned)core, msr_evtsel(0), EVTSEL_EN, EVTSEL_EN, 5000));
	for (int fd = 0; fd <= 2; fd++)
		assert_false(fd_is_pmustats(pid, fd));
	assert_int_equal(kill(pid, SIGTERM), 0);
	assert_int_equal(e2e_reap(pid), 128 + SIGTERM);
	assert_same(&m, before);

	e2e_run(&m, &r, (const char *[]){ self, WRAP, "close=1", "--", E2E_PMUSTAT, "state", "-C", core_arg, NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "pmustat state:");
	e2e_assert_err_contains(&r, "standard output");
	e2e_result_free(&r);
	assert_same(&m, before);
	free(before);
	e2e_machine_free(&m);
}

/* state, reset --json, info --json, list, help and --version into a full disk: 125, never 0. */
static void
test_results_lost_on_stdout_fail(void **state)
{
	static const char *const cmds[][4] = {
		{ "state", "-C", NULL, NULL },
		{ "state", "--json", "-C", NULL },
		{ "reset", "--json", "-C", NULL },
		{ "info", "--json", "-C", NULL },
		{ "list", NULL, NULL, NULL },
		{ "list", "--json", NULL, NULL },
		{ "help", NULL, NULL, NULL },
		{ "--version", NULL, NULL, NULL },
	};
	struct e2e_machine m;

	(void)state;
	machine(&m);
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		const char *argv[12] = { self, WRAP, "stdout=/dev/full", "--", E2E_PMUSTAT };
		struct e2e_result r;
		size_t n = 5;

		for (size_t k = 0; k < 4 && cmds[i][k]; k++)
			argv[n++] = cmds[i][k];
		if (strcmp(argv[n - 1], "-C") == 0)
			argv[n++] = core_arg;
		argv[n] = NULL;
		e2e_run(&m, &r, argv);
		if (r.status != 125)
			fail_msg("pmustat %s > /dev/full: exit %d, want 125; stderr: %s", cmds[i][0], r.status, r.err);
		e2e_assert_err_contains(&r, "standard output");
		e2e_result_free(&r);
	}
	e2e_machine_free(&m);
}

/*
 * The human reports go to standard error: info's, reset's after it put a
 * killed run's counters back, stat's table. Into a full disk, each is
 * lost: 125, never 0 (reset still restores).
 */
static void
test_results_lost_on_stderr_fail(void **state)
{
	static const char *const cmds[][6] = {
		{ "reset", "-C", NULL },
		{ "info", NULL },
		{ "info", "-C", NULL },
		{ "list", "--help", NULL },
		{ "-C", NULL },
	};
	struct e2e_machine m;
	struct emu_pmu *before;

	(void)state;
	machine(&m);
	before = e2e_state(&m);
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		const char *argv[16] = { self, WRAP, "stderr=/dev/full", "--", E2E_PMUSTAT };
		struct e2e_result r;
		size_t n = 5;

		for (size_t k = 0; cmds[i][k]; k++)
			argv[n++] = cmds[i][k];
		if (strcmp(argv[n - 1], "-C") == 0)
			argv[n++] = core_arg;
		if (strcmp(cmds[i][0], "-C") == 0) {
			argv[n++] = "-e";
			argv[n++] = "LLC_MISSES";
			argv[n++] = "--";
			argv[n++] = WL;
			argv[n++] = "--quiet";
		}
		argv[n] = NULL;
		if (strcmp(cmds[i][0], "reset") == 0) {
			/* A killed run's counters and journal for reset to put back. */
			pid_t pid = e2e_spawn(&m, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "LLC_MISSES", "--",
							       WL, "--sleep", "10000", "--quiet", NULL }, NULL);

			assert_true(e2e_wait_msr(&m, (unsigned)core, msr_evtsel(0), EVTSEL_EN, EVTSEL_EN, 5000));
			kill(-pid, SIGKILL);
			assert_int_equal(e2e_reap(pid), 128 + SIGKILL);
		}
		e2e_run(&m, &r, argv);
		/* --help's text is on standard output: nothing lost. */
		if (r.status != (strcmp(cmds[i][1] ? cmds[i][1] : "", "--help") == 0 ? 0 : 125))
			fail_msg("pmustat %s %s 2> /dev/full: exit %d", cmds[i][0], cmds[i][1] ? cmds[i][1] : "", r.status);
		e2e_result_free(&r);
		assert_same(&m, before);
		assert_no_journal(&m);
	}
	free(before);
	e2e_machine_free(&m);
}

/* A small file's text, in a buffer the next call reuses. */
static const char *
slurp_text(const char *path)
{
	static char buf[4096];
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

/*
 * -o and --save-baseline (or --baseline) naming one file, in any spelling:
 * one result silently replaced the other. Refused before the command runs.
 */
static void
test_output_and_baseline_one_file(void **state)
{
	char out[PATH_MAX + 16], alias[PATH_MAX + 16], link[PATH_MAX + 16];
	struct e2e_machine m;
	struct e2e_result r;

	(void)state;
	machine(&m);
	snprintf(out, sizeof(out), "%s/r.json", m.dir);
	snprintf(alias, sizeof(alias), "%s/./r.json", m.dir);
	snprintf(link, sizeof(link), "%s/l.json", m.dir);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "LLC_MISSES", "--json", "-o", out,
					  "--save-baseline", alias, "--", "/bin/echo", "RAN", NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "are one file");
	assert_null(strstr(r.out, "RAN"));
	e2e_result_free(&r);
	assert_int_equal(access(out, F_OK), -1);

	/* A baseline, then an -o through a link to it: the baseline must survive. */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "LLC_MISSES", "-o", "/dev/null",
					  "--save-baseline", out, "--", WL, "--quiet", NULL });
	e2e_assert_status(&r, 0);
	e2e_result_free(&r);
	assert_int_equal(symlink(out, link), 0);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "LLC_MISSES", "-x", ",", "-o", link,
					  "--baseline", out, "--", WL, "--quiet", NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "--baseline");
	e2e_result_free(&r);
	{
		struct stat st;
		FILE *f = fopen(out, "r");
		char head[64] = "";

		assert_non_null(f);
		assert_non_null(fgets(head, sizeof(head), f));
		fclose(f);
		assert_int_equal(head[0], '{');
		assert_int_equal(lstat(link, &st), 0);
		assert_true(S_ISLNK(st.st_mode));
	}
	/*
	 * --log-fd 8 with 8>>baseline, and a standard error (where the
	 * results go without -o) appended to it: refused (the latter
	 * silently: its message would land there too), the baseline intact.
	 */
	{
		char append[PATH_MAX + 32], before[4096];

		snprintf(append, sizeof(append), "append=8:%s", out);
		snprintf(before, sizeof(before), "%s", slurp_text(out));
		e2e_run(&m, &r, (const char *[]){ self, WRAP, append, "--", E2E_PMUSTAT, "-C", core_arg, "-e",
						  "LLC_MISSES", "--log-fd", "8", "--baseline", out, "--", WL, "--quiet",
						  NULL });
		e2e_assert_status(&r, 125);
		e2e_assert_err_contains(&r, "--log-fd 8 is open on the --baseline file");
		e2e_result_free(&r);
		assert_string_equal(slurp_text(out), before);
		snprintf(append, sizeof(append), "append=2:%s", out);
		e2e_run(&m, &r, (const char *[]){ self, WRAP, append, "--", E2E_PMUSTAT, "-C", core_arg, "-e",
						  "LLC_MISSES", "--json", "--baseline", out, "--", WL, "--quiet", NULL });
		e2e_assert_status(&r, 125);
		e2e_result_free(&r);
		assert_string_equal(slurp_text(out), before);
	}
	/* Devices take any number of writers. */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "LLC_MISSES", "-o", "/dev/null",
					  "--save-baseline", "/dev/null", "--", WL, "--quiet", NULL });
	e2e_assert_status(&r, 0);
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

/*
 * An event name or name= label with ESC or a line break put a terminal
 * escape sequence, or a forged line, into the counts table and messages.
 */
static void
test_control_characters_in_event_names(void **state)
{
	static const char *const specs[] = {
		"cpu/event=0x2e,umask=0x41,name=a\x1b[2Jb/",
		"cpu/event=0x2e,umask=0x41,name=ok\n      999      INST_RETIRED.ANY/",
		"LLC_MISSES\r",
		"LLC_MISSES\x7f",
	};
	struct e2e_machine m;
	struct emu_pmu *before;

	(void)state;
	machine(&m);
	before = e2e_state(&m);
	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		struct e2e_result r;

		e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", specs[i], "--", "/bin/echo",
						  "RAN", NULL });
		e2e_assert_status(&r, 125);
		e2e_assert_err_contains(&r, "control character");
		assert_null(strstr(r.out, "RAN"));
		for (const char *c = r.err; *c; c++)
			assert_true(*c == '\n' || ((unsigned char)*c >= 0x20 && *c != 0x7f));
		/* One line: the message itself. */
		assert_ptr_equal(strchr(r.err, '\n'), r.err + strlen(r.err) - 1);
		e2e_result_free(&r);
	}
	assert_same(&m, before);
	free(before);
	e2e_machine_free(&m);
}

/* An OSC sequence that retitles a terminal: ESC ] 0 ; ... BEL. */
#define ESCAPE "\033]0;pwned\007"

/* Nothing of @r printed a control character but line breaks and tabs (stdout and stderr). */
static void
assert_no_escape(const struct e2e_result *r, const char *what)
{
	const char *const texts[] = { r->out, r->err };

	for (size_t t = 0; t < 2; t++)
		for (const char *c = texts[t]; *c; c++)
			if (*c != '\n' && *c != '\t' && ((unsigned char)*c < 0x20 || *c == 0x7f))
				fail_msg("%s: control character 0x%02x printed: %s", what, (unsigned char)*c, texts[t]);
}

/*
 * An escape sequence anywhere text from outside reaches the terminal: the
 * command line in the header, each message that echoes an argument (the
 * command, -M, -C, -p, --duration, -r, -I, --backend, --log-fd, an
 * unknown option, help, state --watch, --check's caret line, the paths of
 * -o, --baseline, --cpu-dump and --table), a baseline's cpu_model. Each
 * shown with '?' for every control character, never raw.
 */
static void
test_control_characters_in_every_message(void **state)
{
	char path[PATH_MAX + 64], base[PATH_MAX + 32], shown[PATH_MAX + 64];
	const struct { const char *a1, *a2, *a3, *a4; } cases[] = {
		{ "-e", "LLC_MISSES", "--", ESCAPE "cmd" },
		{ "-M", ESCAPE, "--", "/bin/true" },
		{ "-C", ESCAPE, "--", "/bin/true" },
		{ "-p", ESCAPE, NULL, NULL },
		{ "--duration", ESCAPE, NULL, NULL },
		{ "-r", ESCAPE, "--", "/bin/true" },
		{ "-I", ESCAPE, "--", "/bin/true" },
		{ "--backend", ESCAPE, "--", "/bin/true" },
		{ "--log-fd", ESCAPE, "--", "/bin/true" },
		{ "--x" ESCAPE, "--", "/bin/true", NULL },
		{ "help", ESCAPE, NULL, NULL },
		{ "state", "--watch", ESCAPE, NULL },
		{ "--check", "LLC_MISSES " ESCAPE " > 1", "--", "/bin/true" },
		{ "-o", "/nonexistent/" ESCAPE "/out", "--", "/bin/true" },
		{ "--baseline", "/nonexistent/" ESCAPE, "--", "/bin/true" },
		{ "info", "--cpu-dump", "/nonexistent/" ESCAPE, NULL },
		{ "list", "--table", "/nonexistent/" ESCAPE, NULL },
	};
	struct e2e_machine m;
	struct e2e_result r;
	FILE *f;
	char *text, *model, *end;

	(void)state;
	machine(&m);
	/* The header: the command line as given, each control character '?'. */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "LLC_MISSES", "--", "/bin/sh", "-c",
					  "true", "x" ESCAPE, NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "x?]0;pwned?'");
	assert_no_escape(&r, "the header");
	e2e_result_free(&r);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *argv[12] = { E2E_PMUSTAT };
		size_t n = 1;
		bool stat = cases[i].a1[0] == '-';

		if (stat) {
			argv[n++] = "-C";
			argv[n++] = core_arg;
		}
		argv[n++] = cases[i].a1;
		argv[n++] = cases[i].a2;
		if (cases[i].a3)
			argv[n++] = cases[i].a3;
		if (cases[i].a3 && cases[i].a4)
			argv[n++] = cases[i].a4;
		argv[n] = NULL;
		e2e_run(&m, &r, argv);
		if (r.status == 0 || !strstr(r.err, "?]0;pwned?"))
			fail_msg("%s %s: exit %d, stderr: %s", cases[i].a1, cases[i].a2, r.status, r.err);
		snprintf(shown, sizeof(shown), "%s %s", cases[i].a1, cases[i].a2);
		assert_no_escape(&r, shown);
		e2e_result_free(&r);
	}
	/* A baseline whose cpu_model holds the sequence: the mismatch names it, cleaned. */
	snprintf(base, sizeof(base), "%s/b.json", m.dir);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "LLC_MISSES", "-o", "/dev/null",
					  "--save-baseline", base, "--", WL, "--quiet", NULL });
	e2e_assert_status(&r, 0);
	e2e_result_free(&r);
	text = strdup(slurp_text(base));
	assert_non_null(text);
	model = strstr(text, "\"cpu_model\": \"");
	assert_non_null(model);
	model += strlen("\"cpu_model\": \"");
	end = strchr(model, '"');
	assert_non_null(end);
	snprintf(path, sizeof(path), "%s/evil.json", m.dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%.*s\\u001b]0;pwned\\u0007%s", (int)(model - text), text, end);
	fclose(f);
	free(text);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "LLC_MISSES", "--baseline", path, "--",
					  WL, "--quiet", NULL });
	if (r.status != 125 || !strstr(r.err, "?]0;pwned?"))
		fail_msg("a baseline's cpu_model: exit %d, stderr: %s", r.status, r.err);
	assert_no_escape(&r, "a baseline's cpu_model");
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_terminating_signal_restores),
		cmocka_unit_test(test_file_size_limit_is_a_reported_write_error),
		cmocka_unit_test(test_out_of_descriptors_says_why),
		cmocka_unit_test(test_closed_standard_descriptors),
		cmocka_unit_test(test_results_lost_on_stdout_fail),
		cmocka_unit_test(test_results_lost_on_stderr_fail),
		cmocka_unit_test(test_output_and_baseline_one_file),
		cmocka_unit_test(test_control_characters_in_event_names),
		cmocka_unit_test(test_control_characters_in_every_message),
	};
	cpu_set_t cpus;
	long conf = sysconf(_SC_NPROCESSORS_CONF);
	ssize_t n;

	if (argc >= 2 && strcmp(argv[1], WRAP) == 0)
		return wrap_main(argc, argv);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0)
		return 1;
	self[n] = '\0';
	if (sched_getaffinity(0, sizeof(cpus), &cpus) != 0)
		return 1;
	/* PMUSTAT_TEST_FILTER=test_name runs that one (cmocka's pattern). */
	if (getenv("PMUSTAT_TEST_FILTER"))
		cmocka_set_test_filter(getenv("PMUSTAT_TEST_FILTER"));
	for (int c = 0; c < CPU_SETSIZE && c < EMU_MAX_CPUS; c++)
		if (CPU_ISSET(c, &cpus))
			core = c;
	snprintf(core_arg, sizeof(core_arg), "%d", core);
	ncpus = (unsigned)(conf > core ? conf : core + 1);
	if (ncpus > EMU_MAX_CPUS)
		ncpus = EMU_MAX_CPUS;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
