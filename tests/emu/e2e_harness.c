/*
 * e2e_harness.c - see e2e_harness.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <ftw.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "e2e_harness.h"
#include "emu_action.h"
#include "emu_paths.h"
#include "emu_state.h"

extern char **environ;

static unsigned run_serial;

static char *
slurp(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int c;

	if (!f)
		fail_msg("cannot read %s: %s", path, strerror(errno));
	while ((c = fgetc(f)) != EOF) {
		if (len + 2 > cap) {
			cap = cap ? 2 * cap : 4096;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
		buf[len++] = (char)c;
	}
	fclose(f);
	if (!buf) {
		buf = malloc(1);
		assert_non_null(buf);
	}
	buf[len] = '\0';
	return buf;
}

static bool
replaced(const char *entry)
{
	static const char *const names[] = { "LD_PRELOAD=", "ASAN_OPTIONS=", EMU_STATE_ENV "=" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strncmp(entry, names[i], strlen(names[i])) == 0)
			return true;
	return false;
}

/* Run @argv with @envp, stdout/stderr into files of @dir. */
static void
run(const char *dir, const char *const argv[], char *const envp[], struct e2e_result *r)
{
	char out[PATH_MAX + 32], err[PATH_MAX + 32];
	unsigned serial = run_serial++;
	int status;
	pid_t pid;

	snprintf(out, sizeof(out), "%s/out.%u", dir, serial);
	snprintf(err, sizeof(err), "%s/err.%u", dir, serial);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int in = open("/dev/null", O_RDONLY);

		if (o < 0 || e < 0 || in < 0)
			_exit(122);
		dup2(in, STDIN_FILENO);
		dup2(o, STDOUT_FILENO);
		dup2(e, STDERR_FILENO);
		execve(argv[0], (char *const *)argv, envp);
		dprintf(STDERR_FILENO, "e2e: cannot execute %s: %s\n", argv[0], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	while (waitpid(pid, &status, 0) < 0)
		assert_int_equal(errno, EINTR);
	r->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	r->out = slurp(out);
	r->err = slurp(err);
	unlink(out);
	unlink(err);
}

void
e2e_machine_new(struct e2e_machine *m, const char *const init_args[])
{
	const char *tmp = getenv("TMPDIR");
	const char *argv[64];
	struct e2e_result r;
	size_t n = 0;

	snprintf(m->dir, sizeof(m->dir), "%s/pmustat-e2e-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(m->dir))
		fail_msg("mkdtemp %s: %s", m->dir, strerror(errno));
	/* A command dropped to another user may need what a test puts here. */
	if (chmod(m->dir, 0755) != 0)
		fail_msg("chmod %s: %s", m->dir, strerror(errno));
	snprintf(m->state, sizeof(m->state), "%s/state", m->dir);
	snprintf(m->preload, sizeof(m->preload), "%s", E2E_LIBPMUEMU);
	snprintf(m->workload, sizeof(m->workload), "%s", E2E_EMU_WORKLOAD);
	argv[n++] = E2E_PMU_EMU;
	argv[n++] = "init";
	for (size_t i = 0; init_args && init_args[i] && n < 60; i++)
		argv[n++] = init_args[i];
	argv[n++] = m->state;
	argv[n] = NULL;
	run(m->dir, argv, environ, &r);
	if (r.status != 0)
		fail_msg("pmu-emu init failed (%d): %s", r.status, r.err);
	e2e_result_free(&r);
}

static int
remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

void
e2e_machine_free(struct e2e_machine *m)
{
	/* Journals, locks and outputs the runs left too: the directory is ours (mkdtemp). */
	if (nftw(m->dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT) != 0)
		fail_msg("cannot remove %s: %s", m->dir, strerror(errno));
}

void
e2e_copy_program(const char *from, const char *to)
{
	char buf[65536];
	ssize_t n;
	int in = open(from, O_RDONLY | O_CLOEXEC);
	int out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);

	if (in < 0 || out < 0)
		fail_msg("cannot copy %s to %s: %s", from, to, strerror(errno));
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			fail_msg("cannot write %s: %s", to, strerror(errno));
	if (n < 0 || close(out) != 0)
		fail_msg("cannot copy %s to %s: %s", from, to, strerror(errno));
	close(in);
	/* The umask may have narrowed it. */
	if (chmod(to, 0755) != 0)
		fail_msg("chmod %s: %s", to, strerror(errno));
}

void
e2e_machine_share(struct e2e_machine *m)
{
	/* The workload maps the state read-write to retire its events. */
	if (chmod(m->state, 0666) != 0)
		fail_msg("chmod %s: %s", m->state, strerror(errno));
	snprintf(m->preload, sizeof(m->preload), "%s/libpmuemu.so", m->dir);
	e2e_copy_program(E2E_LIBPMUEMU, m->preload);
	snprintf(m->workload, sizeof(m->workload), "%s/emu-workload", m->dir);
	e2e_copy_program(E2E_EMU_WORKLOAD, m->workload);
}

void
e2e_machine_path(const struct e2e_machine *m, const char *path, char *buf, size_t size)
{
	char dir[PATH_MAX + 32];

	if (emu_paths_dir(m->state, dir, sizeof(dir)) != 0 || emu_paths_map(dir, path, buf, size) != 1)
		fail_msg("%s is not one of the emulated machine's own files (emu_paths.h)", path);
}

void
e2e_run_env(const struct e2e_machine *m, struct e2e_result *r, const char *const argv[],
	    const char *const env_extra[])
{
	const char *preload = getenv("LD_PRELOAD");
	const char *asan = getenv("ASAN_OPTIONS");
	char *set[3];
	char **envp;
	size_t n = 0, count = 0;

	while (environ[count])
		count++;
	for (size_t i = 0; env_extra && env_extra[i]; i++)
		count++;
	envp = calloc(count + 4, sizeof(*envp));
	assert_non_null(envp);
	for (size_t i = 0; environ[i]; i++)
		if (!replaced(environ[i]))
			envp[n++] = environ[i];
	assert_true(asprintf(&set[0], "LD_PRELOAD=%s%s%s", m->preload,
			     preload && *preload ? ":" : "", preload ? preload : "") > 0);
	assert_true(asprintf(&set[1], "%s=%s", EMU_STATE_ENV, m->state) > 0);
	assert_true(asprintf(&set[2], "ASAN_OPTIONS=%s%sverify_asan_link_order=0",
			     asan ? asan : "", asan && *asan ? ":" : "") > 0);
	for (int i = 0; i < 3; i++)
		envp[n++] = set[i];
	for (size_t i = 0; env_extra && env_extra[i]; i++)
		envp[n++] = (char *)env_extra[i];
	envp[n] = NULL;
	run(m->dir, argv, envp, r);
	for (int i = 0; i < 3; i++)
		free(set[i]);
	free(envp);
}

void
e2e_run(const struct e2e_machine *m, struct e2e_result *r, const char *const argv[])
{
	e2e_run_env(m, r, argv, NULL);
}

void
e2e_result_free(struct e2e_result *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
}

struct emu_pmu *
e2e_state(const struct e2e_machine *m)
{
	struct emu_pmu *pmu = malloc(sizeof(*pmu));
	int err;

	assert_non_null(pmu);
	err = emu_state_read(m->state, pmu);
	if (err)
		fail_msg("reading %s: %s", m->state, strerror(-err));
	return pmu;
}

uint64_t
e2e_msr(const struct e2e_machine *m, unsigned cpu, uint32_t msr)
{
	struct emu_pmu *pmu = e2e_state(m);
	uint64_t val = 0;
	int err = emu_rdmsr(pmu, cpu, msr, &val);

	free(pmu);
	if (err)
		fail_msg("rdmsr 0x%x on emulated cpu %u: %s", msr, cpu, strerror(-err));
	return val;
}

int
e2e_set_msr(const struct e2e_machine *m, unsigned cpu, uint32_t msr, uint64_t val)
{
	struct emu_pmu *pmu;
	int err = emu_state_map(m->state, &pmu);

	if (err)
		return err;
	emu_state_lock(pmu);
	err = emu_wrmsr(pmu, cpu, msr, val);
	emu_state_unlock(pmu);
	emu_state_unmap(pmu);
	return err;
}

int
e2e_act(const struct e2e_machine *m, unsigned cpu, const char *action)
{
	struct emu_action a;
	struct emu_pmu *pmu;
	char why[512];
	int err;

	if (emu_action_parse(action, 3, &a, why, sizeof(why)) != 0)
		fail_msg("e2e_act: %s", why);
	err = emu_state_map(m->state, &pmu);
	if (err)
		return err;
	emu_state_lock(pmu);
	err = emu_act(pmu, cpu, &a);
	emu_state_unlock(pmu);
	emu_state_unmap(pmu);
	return err;
}

static void
open_ready(struct e2e_sync *s)
{
	/* Non-blocking, so opening needs no writer; poll() then waits for one. */
	s->ready_fd = open(s->ready, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (s->ready_fd < 0)
		fail_msg("open %s: %s", s->ready, strerror(errno));
}

void
e2e_sync_new(const struct e2e_machine *m, struct e2e_sync *s, const char *name)
{
	if ((size_t)snprintf(s->prefix, sizeof(s->prefix), "%s/%s", m->dir, name) >=
	    sizeof(s->prefix) ||
	    (size_t)snprintf(s->ready, sizeof(s->ready), "%s.ready", s->prefix) >= sizeof(s->ready) ||
	    (size_t)snprintf(s->go, sizeof(s->go), "%s.go", s->prefix) >= sizeof(s->go))
		fail_msg("e2e_sync_new: %s/%s: name too long", m->dir, name);
	if (mkfifo(s->ready, 0600) < 0 || mkfifo(s->go, 0600) < 0)
		fail_msg("mkfifo %s: %s", s->prefix, strerror(errno));
	open_ready(s);
}

bool
e2e_sync_wait(struct e2e_sync *s, unsigned timeout_ms)
{
	struct pollfd p = { .fd = s->ready_fd, .events = POLLIN };
	char c;
	int n;

	do
		n = poll(&p, 1, (int)timeout_ms);
	while (n < 0 && errno == EINTR);
	if (n <= 0)
		return false;
	/* The byte, or nothing if the workload closed without writing (gone). */
	return read(s->ready_fd, &c, 1) == 1;
}

void
e2e_sync_release(struct e2e_sync *s)
{
	char c = 'g';
	int fd;

	/* The workload opens .go right after writing .ready: this open meets it. */
	fd = open(s->go, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		fail_msg("open %s: %s", s->go, strerror(errno));
	/*
	 * A fresh reader for the next passage: the old one has seen its writer
	 * close and poll() would report that at once. Only now, with the
	 * workload's .ready closed (it is at .go), does the new one start
	 * without a writer, so its poll() waits for the next.
	 */
	close(s->ready_fd);
	open_ready(s);
	if (write(fd, &c, 1) != 1)
		fail_msg("write %s: %s", s->go, strerror(errno));
	close(fd);
}

void
e2e_sync_free(struct e2e_sync *s)
{
	close(s->ready_fd);
	unlink(s->ready);
	unlink(s->go);
}

unsigned
e2e_host_cpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return 1;
	return (unsigned)CPU_COUNT(&set);
}

int
e2e_last_cpu(void)
{
	cpu_set_t set;
	int last = 0;

	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return -1;
	for (int c = 0; c < CPU_SETSIZE && c < EMU_MAX_CPUS; c++)
		if (CPU_ISSET(c, &set))
			last = c;
	return last;
}

unsigned
e2e_all_cpus(int core)
{
	long conf = sysconf(_SC_NPROCESSORS_CONF);
	unsigned n = (unsigned)(conf > core ? conf : core + 1);

	return n > EMU_MAX_CPUS ? EMU_MAX_CPUS : n;
}

uint64_t
e2e_writes(const struct e2e_machine *m)
{
	struct emu_pmu *p = e2e_state(m);
	uint64_t n = 0;

	for (unsigned c = 0; c < p->ncpus; c++)
		n += p->cpu[c].stats.wrmsr;
	free(p);
	return n;
}

static void
show(const struct e2e_result *r)
{
	print_error("exit status %d\n--- stdout ---\n%s--- stderr ---\n%s--------------\n",
		    r->status, r->out ? r->out : "", r->err ? r->err : "");
}

void
e2e_assert_status(const struct e2e_result *r, int status)
{
	if (r->status != status) {
		show(r);
		fail_msg("exit status %d, want %d", r->status, status);
	}
}

void
e2e_assert_out_contains(const struct e2e_result *r, const char *needle)
{
	if (!strstr(r->out, needle)) {
		show(r);
		fail_msg("stdout lacks \"%s\"", needle);
	}
}

void
e2e_assert_err_contains(const struct e2e_result *r, const char *needle)
{
	if (!strstr(r->err, needle)) {
		show(r);
		fail_msg("stderr lacks \"%s\"", needle);
	}
}

pid_t
e2e_spawn_with(const struct e2e_machine *m, const char *const argv[], const struct e2e_spawn_opts *o)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		int out = o->out_path ? open(o->out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644) : null;

		if (o->tty_fd >= 0) {
			/* A session of its own, with the terminal as its controlling one. */
			setsid();
			(void)ioctl(o->tty_fd, TIOCSCTTY, 0);
			dup2(o->tty_fd, 0);
			dup2(o->tty_fd, 1);
			dup2(o->tty_fd, 2);
		} else {
			setpgid(0, 0);
			dup2(null, 0);
			dup2(out, 1);
			dup2(null, 2);
		}
		setenv("LD_PRELOAD", m->preload, 1);
		setenv(EMU_STATE_ENV, m->state, 1);
		setenv("ASAN_OPTIONS", "verify_asan_link_order=0", 1);
		if (o->traced) {
			if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) != 0)
				_exit(98);
			raise(SIGSTOP);
		}
		execv(argv[0], (char *const *)argv);
		_exit(99);
	}
	/* Both sides, so a signal sent right after the fork finds the group. */
	if (o->tty_fd < 0)
		setpgid(pid, pid);
	return pid;
}

pid_t
e2e_spawn(const struct e2e_machine *m, const char *const argv[], const char *out_path)
{
	const struct e2e_spawn_opts o = { .out_path = out_path, .tty_fd = -1 };

	return e2e_spawn_with(m, argv, &o);
}

int
e2e_reap(pid_t pid)
{
	int ws;

	assert_int_equal(waitpid(pid, &ws, 0), pid);
	return WIFSIGNALED(ws) ? 128 + WTERMSIG(ws) : WEXITSTATUS(ws);
}

char
e2e_proc_state(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
	fclose(f);
	return p && p[1] == ' ' ? p[2] : 0;
}

void
e2e_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

bool
e2e_wait_msr(const struct e2e_machine *m, unsigned cpu, uint32_t msr, uint64_t mask,
	     uint64_t want, unsigned timeout_ms)
{
	for (unsigned waited = 0; waited <= timeout_ms; waited += 10) {
		if ((e2e_msr(m, cpu, msr) & mask) == want)
			return true;
		e2e_sleep_ms(10);
	}
	return false;
}
