/*
 * e2e_harness.h - run real programs (pmustat, emu-workload, emu-probe)
 * on an emulated machine, and check what they printed, how they ended and
 * what they left in the emulated PMU. For cmocka tests; see
 * tests/e2e/test_info_emu.c for an example:
 *
 *	struct e2e_machine m;
 *	struct e2e_result r;
 *	struct emu_pmu *before, *after;
 *
 *	e2e_machine_new(&m, (const char *[]){ "--model", "skylake", "--cpus", "2", NULL });
 *	before = e2e_state(&m);
 *	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "info", "--json", NULL });
 *	e2e_assert_status(&r, 0);
 *	e2e_assert_out_contains(&r, "\"version\": 4");
 *	after = e2e_state(&m);
 *	assert_int_equal(emu_pmu_diff(before, after, stderr), 0);	// restored bit for bit
 *	e2e_result_free(&r); free(before); free(after); e2e_machine_free(&m);
 *
 * Programs run with LD_PRELOAD=libpmuemu.so (prepended to any LD_PRELOAD
 * already set), PMUSTAT_EMU_STATE=<the machine's state file> and
 * ASAN_OPTIONS+=verify_asan_link_order=0, so a sanitized pmustat accepts
 * the preload library ahead of its runtime. The shell twin of this is
 * tests/emu/run-under-emu.
 *
 * Each machine is a directory of its own (mode 0755, so that a command run
 * as another user can reach what is put there) with the state file and
 * the machine's files, STATE.d (emu_paths.h): what pmustat writes under
 * /run/pmustat and /run/lock lands there, so machines of tests running at
 * once share nothing and the host's /run is never written.
 * e2e_machine_path() names those files for the test.
 */
#ifndef PMUSTAT_E2E_HARNESS_H
#define PMUSTAT_E2E_HARNESS_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "emu_pmu.h"

/* Paths of the built programs (meson passes them as -D...). */
#ifndef E2E_PMUSTAT
#error "E2E_PMUSTAT must be defined by the build"
#endif

struct e2e_machine {
	char dir[PATH_MAX];	/* the machine's temporary directory, 0755 */
	char state[PATH_MAX + 16];	/* the state file in it */
	char preload[PATH_MAX + 32];	/* the libpmuemu.so its programs get */
	char workload[PATH_MAX + 32];	/* the emu-workload to run on it */
};

struct e2e_result {
	int status;		/* exit status, or 128 + signal, as a shell says */
	char *out;		/* everything written to stdout, NUL-terminated */
	char *err;		/* and to stderr */
};

/*
 * Make a machine with `pmu-emu init @init_args... STATE` (NULL-terminated
 * list, e.g. { "--model", "icelake", "--watchdog", NULL }). Fails the test
 * on error.
 */
void e2e_machine_new(struct e2e_machine *m, const char *const init_args[]);
/* Remove the machine's directory and everything in it. */
void e2e_machine_free(struct e2e_machine *m);

/*
 * Open machine @m to a command that runs as another user (pmustat drops
 * to SUDO_UID): the state file becomes 0666, and libpmuemu.so and
 * emu-workload are copied into the machine's 0755 directory and used from
 * then on (m->preload, m->workload). The build tree may be where that user
 * cannot go, e.g. a clone in /root (0700). Fails the test on error.
 */
void e2e_machine_share(struct e2e_machine *m);

/* Copy program @from to a new file @to, mode 0755 (fails the test on error). */
void e2e_copy_program(const char *from, const char *to);

/*
 * Where per-machine path @path (e.g. JOURNAL_DIR "/cpu1.journal", as the
 * binary names it) is on machine @m; fails the test for another path.
 */
void e2e_machine_path(const struct e2e_machine *m, const char *path, char *buf, size_t size);

/*
 * Run @argv (argv[0] a path) on the machine, wait for it, collect its
 * output. @env_extra: NULL or "NAME=value" strings added to the
 * environment (NULL-terminated). Fails the test if it cannot run at all.
 */
void e2e_run_env(const struct e2e_machine *m, struct e2e_result *r, const char *const argv[],
		 const char *const env_extra[]);
void e2e_run(const struct e2e_machine *m, struct e2e_result *r, const char *const argv[]);
void e2e_result_free(struct e2e_result *r);

/* A private copy of the machine's state now (free() it). */
struct emu_pmu *e2e_state(const struct e2e_machine *m);
/* One MSR as the emulated CPU reads it (fails the test on #GP). */
uint64_t e2e_msr(const struct e2e_machine *m, unsigned cpu, uint32_t msr);
/* Write one MSR through the CPU's rules, as pmu-emu set does; 0 or -errno. */
int e2e_set_msr(const struct e2e_machine *m, unsigned cpu, uint32_t msr, uint64_t val);

/*
 * Start @argv on the machine in its own process group without waiting (to
 * signal it): stdin and stderr /dev/null, stdout to @out_path (NULL:
 * /dev/null). Reap it with e2e_reap().
 */
pid_t e2e_spawn(const struct e2e_machine *m, const char *const argv[], const char *out_path);
/* e2e_spawn() with more say over how the program starts. */
struct e2e_spawn_opts {
	const char *out_path;	/* stdout (NULL: /dev/null); stdin and stderr /dev/null */
	int tty_fd;		/* >= 0: a terminal (a pty's slave) for stdin, stdout and stderr, in a session of its own */
	bool traced;		/* PTRACE_TRACEME, then stopped (SIGSTOP) before execve: the caller ptraces it */
};
pid_t e2e_spawn_with(const struct e2e_machine *m, const char *const argv[], const struct e2e_spawn_opts *o);
/* Wait for @pid: its exit status, or 128+N when signal N killed it. */
int e2e_reap(pid_t pid);
void e2e_sleep_ms(long ms);
/* /proc/PID/stat's state letter (any process, not only ours), or 0 when it is gone. */
char e2e_proc_state(pid_t pid);
/* Poll until (MSR & @mask) == @want on @cpu; false after @timeout_ms. */
bool e2e_wait_msr(const struct e2e_machine *m, unsigned cpu, uint32_t msr, uint64_t mask,
		  uint64_t want, unsigned timeout_ms);

/*
 * Do @action (emu_action.h: "nmi", "take-fixed:1", "pebs:0:0xc0:0",
 * "wrmsr:0x38f=0", ...) on @cpu of the machine, as that party would,
 * under the state lock: what the kernel or perf does "from outside" while
 * the target runs. 0 or emu_act()'s -errno; a misspelt action fails the
 * test.
 */
int e2e_act(const struct e2e_machine *m, unsigned cpu, const char *action);

/*
 * A point where emu-workload --sync PREFIX stops until the test says go,
 * so the test can act while the target is between two steps, with no
 * sleeps: the workload writes a byte to the FIFO PREFIX.ready, then waits
 * for one on PREFIX.go.
 *
 *	struct e2e_sync s;
 *
 *	e2e_sync_new(&m, &s, "mid");
 *	pid = e2e_spawn(&m, (const char *[]){ E2E_PMUSTAT, "-C", "1", "-e", "...", "--",
 *		E2E_EMU_WORKLOAD, "--retire", "0xc0:0:1000", "--sync", s.prefix,
 *		"--retire", "0xc0:0:1000", NULL }, out);
 *	assert_true(e2e_sync_wait(&s, 10000));	// the first 1000 are retired
 *	assert_int_equal(e2e_act(&m, 1, "nmi"), 0);
 *	e2e_sync_release(&s);			// the second 1000 follow
 *	e2e_reap(pid); e2e_sync_free(&s);
 *
 * A sync point can be passed many times (--steps, or several --sync with
 * one prefix): wait and release once per passage.
 */
struct e2e_sync {
	char prefix[PATH_MAX];		/* what to give emu-workload --sync */
	char ready[PATH_MAX + 8];
	char go[PATH_MAX + 8];
	int ready_fd;
};

/* Make the FIFOs @name.ready and @name.go in the machine's directory. */
void e2e_sync_new(const struct e2e_machine *m, struct e2e_sync *s, const char *name);
/* Wait until the workload is at the point; false after @timeout_ms or if it went away. */
bool e2e_sync_wait(struct e2e_sync *s, unsigned timeout_ms);
/* Let it go on. */
void e2e_sync_release(struct e2e_sync *s);
void e2e_sync_free(struct e2e_sync *s);

/* Number of CPUs of this host that we may run on (for pinning tests). */
unsigned e2e_host_cpus(void);
/*
 * The last CPU below EMU_MAX_CPUS that we may run on (0 if none): the
 * emulated machine has it, and a test that counts there can pin to it.
 * -1 when the affinity mask cannot be read.
 */
int e2e_last_cpu(void);
/*
 * CPUs for a machine on which -C all covers every configured CPU of the
 * host (at least @core + 1, at most EMU_MAX_CPUS).
 */
unsigned e2e_all_cpus(int core);

/* MSR writes made on the machine so far, all CPUs (a command that must write nothing). */
uint64_t e2e_writes(const struct e2e_machine *m);

/* Assertions that print the program's output when they fail. */
void e2e_assert_status(const struct e2e_result *r, int status);
void e2e_assert_out_contains(const struct e2e_result *r, const char *needle);
void e2e_assert_err_contains(const struct e2e_result *r, const char *needle);

#endif
