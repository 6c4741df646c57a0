/*
 * backend_sim.c - --backend sim: Valgrind's Cachegrind simulates the
 * command and counts; pmustat reads its totals. No PMU, no perf_event:
 * counts that are the same on every x86-64 machine for the same binary
 * and input (CI runners without a PMU).
 *
 * Each run is `valgrind --tool=cachegrind --cache-sim=yes --branch-sim=yes
 * --I1=.. --D1=.. --LL=.. --trace-children=yes -- COMMAND`, with the
 * command resolved as without (127, 126), its environment plus
 * sim_glibc_tunables, and Valgrind's own output (its log, one counts file
 * per process) in a private directory, never on the command's streams.
 * The exit status is the command's: Valgrind exits with it, and dies of
 * the signal that killed it.
 *
 * A command that forks or execs (a shell script around the benchmark):
 * every process is simulated (--trace-children=yes) and the counts are
 * the sum over them. Valgrind writes a process's counts when it exits, so
 * a process that execs is counted from its last execve on: what the shell
 * of a script ran before exec'ing the benchmark is not included.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/environ_with.h"
#include "base/err.h"
#include "base/invoker.h"
#include "engine/cachegrind_out.h"
#include "engine/callgrind_regions.h"
#include "engine/requests.h"
#include "engine/run.h"
#include "engine/stat.h"
#include "events/sim_events.h"

extern char **environ;

/* valgrind, its options, "--", the command, then at most this many arguments of its. */
#define SIM_OPTS 16

struct sim_state {
	char dir[PATH_MAX];		/* private: Valgrind's log and counts files */
	char valgrind[PATH_MAX];
	char opt[SIM_OPTS][PATH_MAX + 64];
	char **argv;			/* the wrapper's argv (runner.h wrap) */
	char **env;			/* the command's environment, with GLIBC_TUNABLES */
	char *tunables;			/* its GLIBC_TUNABLES= entry */
	char dashes[3];			/* "--": the end of Valgrind's options */
	bool regions;			/* --regions: Callgrind, its dumps at the library's marks */
	struct region_result result;	/* --regions: the last run's */
	uint32_t fields[PMUSTAT_REGION_MAX_EVENTS];	/* each event's columns, for the regions' sums */
	unsigned nfields;
};

static struct sim_state *
state(struct run_ctx *c)
{
	return c->state[0];
}

/* @name along PATH, as execvp would find it (an executable file, not a directory), into @out: 0 or -ENOENT. */
static int
find_in_path(const char *name, char *out, size_t size)
{
	const char *path = getenv("PATH");
	struct stat st;

	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t len = strcspn(path, ":");

		if (len && (size_t)snprintf(out, size, "%.*s/%s", (int)len, path, name) < size &&
		    stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0)
			return 0;
		path += len + (path[len] == ':');
	}
	return -ENOENT;
}

/* `valgrind --version` ("valgrind-3.19.0") into @out; "" when it says nothing. */
static void
valgrind_version(const char *valgrind, char *out, size_t size)
{
	int fds[2];
	pid_t pid;
	ssize_t n = 0, got;

	out[0] = '\0';
	if (pipe2(fds, O_CLOEXEC) != 0)
		return;
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		if (null < 0 || dup2(null, 0) < 0 || dup2(fds[1], 1) < 0 || dup2(null, 2) < 0)
			_exit(127);
		execl(valgrind, valgrind, "--version", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	while (pid > 0 && (size_t)n + 1 < size &&
	       ((got = read(fds[0], out + n, size - 1 - (size_t)n)) > 0 || (got < 0 && errno == EINTR)))
		n += got > 0 ? got : 0;
	close(fds[0]);
	out[n] = '\0';
	out[strcspn(out, "\r\n")] = '\0';
	if (strncmp(out, "valgrind-", 9) == 0)
		memmove(out, out + 9, strlen(out + 9) + 1);
	while (pid > 0 && waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

/* Valgrind's files of the last run: each removed (@keep_log: its log kept for a message). */
static void
clear_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			(void)unlinkat(dirfd(d), de->d_name, 0);
	closedir(d);
}

static int
sim_begin(struct run_ctx *c, struct pmustat_error **err)
{
	struct sim_state *s = calloc(1, sizeof(*s));
	const char *tmp = getenv("TMPDIR");

	if (!s)
		return err_set(err, -ENOMEM, "out of memory");
	c->state[0] = s;
	if (find_in_path("valgrind", s->valgrind, sizeof(s->valgrind)))
		return err_set(err, -ENOENT,
			       "--backend sim counts through Valgrind, and there is no valgrind on PATH: install it (apt-get install valgrind)");
	valgrind_version(s->valgrind, c->sim_version, sizeof(c->sim_version));
	if (!c->sim_version[0])
		return err_set(err, -ENOEXEC, "%s --version printed no version: is it Valgrind? (apt-get install valgrind)",
			       s->valgrind);
	if (!tmp || !*tmp || tmp[0] != '/')
		tmp = "/tmp";
	snprintf(s->dir, sizeof(s->dir), "%s/pmustat-sim-XXXXXX", tmp);
	if (!mkdtemp(s->dir)) {
		int e = errno;

		s->dir[0] = '\0';
		return err_set(err, -e, "--backend sim: cannot make a directory for Valgrind's files in %s: %s", tmp,
			       strerror(e));
	}
	/* The command (Valgrind) runs as the invoking user: its files are theirs to write. */
	if (c->inv && invoker_is_other(c->inv) && !c->o->as_root && chown(s->dir, c->inv->uid, c->inv->gid) != 0)
		return err_set(err, -errno, "--backend sim: chown %s: %s", s->dir, strerror(errno));
	c->read_method = "simulation";
	c->window = "exact";
	s->regions = c->o->regions;
	c->sim_tool = s->regions ? "callgrind" : "cachegrind";
	for (unsigned u = 0; u < c->ev->nhw && u < PMUSTAT_REGION_MAX_EVENTS; u++)
		s->fields[s->nfields++] = c->ev->hw[u].sim_fields;
	return 0;
}

static void
sim_end(struct run_ctx *c)
{
	struct sim_state *s = state(c);

	if (!s)
		return;
	if (s->dir[0]) {
		clear_dir(s->dir);
		(void)rmdir(s->dir);
	}
	region_result_free(&s->result);
	free(s->argv);
	free(s->env);
	free(s->tunables);
	free(s);
	c->state[0] = NULL;
}

/* The command's environment with ours first in GLIBC_TUNABLES (a user's own tunables after it win). */
static int
make_env(struct sim_state *s, char *const *base, struct pmustat_error **err)
{
	const char *theirs = environ_get(base, "GLIBC_TUNABLES=");

	free(s->env);
	free(s->tunables);
	s->env = NULL;
	if (asprintf(&s->tunables, "GLIBC_TUNABLES=%s%s%s", sim_glibc_tunables, theirs && *theirs ? ":" : "",
		     theirs ? theirs : "") < 0) {
		s->tunables = NULL;
		return err_set(err, -ENOMEM, "out of memory for the command's environment");
	}
	s->env = environ_with(base, s->tunables);
	if (!s->env)
		return err_set(err, -ENOMEM, "out of memory for the command's environment");
	return 0;
}

/*
 * The options every simulated run gets, into @opt; their number. With
 * @regions, Callgrind (Cachegrind 3.19 takes no client requests): the
 * same simulation, one dump per thread at each of the library's marks.
 */
static unsigned
valgrind_options(const char *dir, bool regions, char opt[SIM_OPTS][PATH_MAX + 64])
{
	const char *tool = regions ? "callgrind" : "cachegrind";
	unsigned n = 0;

	snprintf(opt[n++], sizeof(opt[0]), "--tool=%s", tool);
	snprintf(opt[n++], sizeof(opt[0]), "--cache-sim=yes");
	snprintf(opt[n++], sizeof(opt[0]), "--branch-sim=yes");
	for (unsigned i = 0; i < 3; i++)
		snprintf(opt[n++], sizeof(opt[0]), "--%s=%u,%u,%u", sim_caches[i].name, sim_caches[i].size,
			 sim_caches[i].assoc, sim_caches[i].line);
	snprintf(opt[n++], sizeof(opt[0]), "--trace-children=yes");
	if (regions) {
		snprintf(opt[n++], sizeof(opt[0]), "--separate-threads=yes");
		snprintf(opt[n++], sizeof(opt[0]), "--combine-dumps=yes");
		snprintf(opt[n++], sizeof(opt[0]), "--dump-instr=no");
		snprintf(opt[n++], sizeof(opt[0]), "--dump-line=no");
	}
	snprintf(opt[n++], sizeof(opt[0]), "--%s-out-file=%s/%s.out.%%p", tool, dir, tool);
	snprintf(opt[n++], sizeof(opt[0]), "--log-file=%s/valgrind.log.%%p", dir);
	return n;
}

static int
sim_arm(struct run_ctx *c, unsigned run, struct runner_opts *ro, struct pmustat_error **err)
{
	struct sim_state *s = state(c);
	unsigned nargs = 0, nopt, k = 0;

	(void)run;
	clear_dir(s->dir);
	while (c->o->command[nargs])
		nargs++;
	nopt = valgrind_options(s->dir, s->regions, s->opt);
	free(s->argv);
	s->argv = calloc(nopt + nargs + 3, sizeof(*s->argv));
	if (!s->argv)
		return err_set(err, -ENOMEM, "out of memory");
	s->argv[k++] = s->valgrind;
	for (unsigned i = 0; i < nopt; i++)
		s->argv[k++] = s->opt[i];
	snprintf(s->dashes, sizeof(s->dashes), "--");
	s->argv[k++] = s->dashes;
	ro->wrap_at = k;
	s->argv[k++] = c->o->command[0];
	for (unsigned i = 1; i < nargs; i++)
		s->argv[k++] = c->o->command[i];
	s->argv[k] = NULL;
	if (make_env(s, ro->envp ? ro->envp : environ, err))
		return -ENOMEM;
	ro->wrap = s->argv;
	ro->envp = s->env;
	return 0;
}

/* Up to @size - 1 bytes of @dir/@name into @buf (NUL-terminated): its length, or -errno. */
static ssize_t
read_small(int dfd, const char *name, char *buf, size_t size)
{
	int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	size_t n = 0;
	ssize_t got;

	if (fd < 0)
		return -errno;
	while (n + 1 < size && ((got = read(fd, buf + n, size - 1 - n)) > 0 || (got < 0 && errno == EINTR)))
		n += got > 0 ? (size_t)got : 0;
	close(fd);
	buf[n] = '\0';
	return (ssize_t)n;
}

/* The last line Valgrind logged (why it ran nothing), into @why. */
static void
last_log_line(struct sim_state *s, char *why, size_t size)
{
	DIR *d = opendir(s->dir);
	struct dirent *de;
	char buf[4096];

	why[0] = '\0';
	while (d && (de = readdir(d))) {
		ssize_t n;
		char *end, *start;

		if (strncmp(de->d_name, "valgrind.log.", 13) != 0 ||
		    (n = read_small(dirfd(d), de->d_name, buf, sizeof(buf))) <= 0)
			continue;
		end = buf + n;
		while (end > buf && (end[-1] == '\n' || end[-1] == '\r'))
			*--end = '\0';
		start = strrchr(buf, '\n');
		snprintf(why, size, "%.400s", start ? start + 1 : buf);
	}
	if (d)
		closedir(d);
}

/*
 * One process's counts file, a line at a time (a program's per-line costs,
 * or a dump per region boundary, make large files): a Cachegrind file's
 * events and summary lines, a Callgrind file's parts (callgrind_regions.h)
 * with their regions into s->result. Its totals into @one; 0, -errno
 * (-EPROTO: why in @why).
 */
static int
read_counts(struct sim_state *s, int dfd, const char *name, uint64_t one[SIM_NFIELDS], char *why, size_t why_size)
{
	bool cg = strncmp(name, "cachegrind.out.", 15) == 0;
	struct callgrind_reader cr;
	char events[256] = "", summary[512] = "", *line = NULL, text[sizeof(events) + sizeof(summary) + 2];
	int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW), rc = 0, rc2;
	size_t cap = 0;
	ssize_t len;
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;

	if (!f) {
		rc = -errno;
		if (fd >= 0)
			close(fd);
		return rc;
	}
	if (!cg)
		rc = callgrind_regions_begin(&cr, &s->result, s->fields, (pid_t)strtol(name + 14, NULL, 10), one, why,
					     why_size);
	while (rc == 0 && (len = getline(&line, &cap, f)) >= 0) {
		size_t n = (size_t)len - (len > 0 && line[len - 1] == '\n');

		if (!cg)
			rc = callgrind_regions_line(&cr, line, n);
		else if (strncmp(line, "events:", 7) == 0 || strncmp(line, "summary:", 8) == 0)
			snprintf(line[0] == 'e' ? events : summary, line[0] == 'e' ? sizeof(events) : sizeof(summary),
				 "%.*s", (int)(n < 511 ? n : 511), line);
	}
	if (rc == 0 && ferror(f))
		rc = -EIO;
	free(line);
	fclose(f);
	if (!cg) {
		rc2 = callgrind_regions_end(&cr);
		return rc ? rc : rc2;
	}
	if (rc)
		return rc;
	snprintf(text, sizeof(text), "%s\n%s\n", events, summary);
	return cachegrind_out_parse(text, strlen(text), one, why, why_size);
}

/* Every process's totals summed into @sum: the number of processes, or -errno with @err. */
static int
sum_processes(struct sim_state *s, uint64_t sum[SIM_NFIELDS], struct pmustat_error **err)
{
	DIR *d = opendir(s->dir);
	struct dirent *de;
	int n = 0, rc = 0;

	memset(sum, 0, sizeof(uint64_t) * SIM_NFIELDS);
	region_result_free(&s->result);
	s->result.nevents = s->regions ? s->nfields : 0;
	if (!d)
		return err_set(err, -errno, "--backend sim: %s: %s", s->dir, strerror(errno));
	while (rc == 0 && (de = readdir(d))) {
		uint64_t one[SIM_NFIELDS] = { 0 };
		char why[128] = "";

		if (strncmp(de->d_name, "cachegrind.out.", 15) != 0 && strncmp(de->d_name, "callgrind.out.", 14) != 0)
			continue;
		rc = read_counts(s, dirfd(d), de->d_name, one, why, sizeof(why));
		if (rc == -EPROTO)
			rc = err_set(err, rc, "--backend sim: Valgrind's counts file %s/%s: %s", s->dir, de->d_name, why);
		else if (rc)
			rc = err_set(err, rc, "--backend sim: reading %s/%s: %s", s->dir, de->d_name, strerror(-rc));
		for (int f = 0; rc == 0 && f < SIM_NFIELDS; f++)
			sum[f] += one[f];
		n += rc == 0;
	}
	closedir(d);
	if (rc == 0 && s->regions && region_result_totals(&s->result) < 0)
		rc = err_set(err, -ENOMEM, "out of memory for the regions");
	return rc ? rc : n;
}

static int
sim_collect(struct run_ctx *c, unsigned run, struct pmustat_error **err)
{
	struct sim_state *s = state(c);
	uint64_t sum[SIM_NFIELDS];
	int n = sum_processes(s, sum, err);

	if (n < 0)
		return n;
	if (n == 0) {
		char why[512];

		last_log_line(s, why, sizeof(why));
		return err_set(err, -EPROTO, "--backend sim: Valgrind wrote no counts%s%s", why[0] ? ": " : "", why);
	}
	c->sim_processes = (unsigned)n;
	for (unsigned u = 0; u < c->ev->nhw; u++) {
		struct run_count *rc = &c->counts[u];

		rc->counted = true;
		rc->status = "counted";
		rc->value = sim_event_value(c->ev->hw[u].sim_fields, sum);
		rc->run = run + 1;
	}
	clear_dir(s->dir);
	return 0;
}

static void
sim_discard(struct run_ctx *c, unsigned run)
{
	struct sim_state *s = state(c);

	(void)run;
	if (s && s->dir[0])
		clear_dir(s->dir);
}

void
backend_sim_take_regions(struct run_ctx *c, struct region_result *r)
{
	struct sim_state *s = state(c);

	memset(r, 0, sizeof(*r));
	if (!s)
		return;
	*r = s->result;
	memset(&s->result, 0, sizeof(s->result));
}

void
backend_sim_print_dry(struct run_ctx *c, FILE *out)
{
	char opt[SIM_OPTS][PATH_MAX + 64];
	unsigned n = valgrind_options("DIR", c->o->regions, opt);

	fprintf(out, "pmustat: dry run, backend sim: %u event(s), simulated; each run of the command is\n  GLIBC_TUNABLES=%s%s valgrind",
		c->ev->nhw, sim_glibc_tunables, c->o->regions ? " " PMUSTAT_REGION_ENV_SIM "=1" : "");
	for (unsigned i = 0; i < n; i++)
		fprintf(out, " %s", opt[i]);
	fprintf(out, " -- COMMAND\n  (DIR: a private directory, removed afterwards)\n");
	for (unsigned u = 0; u < c->ev->nhw; u++) {
		fprintf(out, "  %s:", c->ev->hw[u].requested);
		for (int f = 0; f < SIM_NFIELDS; f++)
			if (c->ev->hw[u].sim_fields & SIM_BIT(f))
				fprintf(out, " %s", sim_field_name((enum sim_field)f));
		fprintf(out, "\n");
	}
}

const struct backend_ops backend_sim = {
	.name = "sim",
	.begin = sim_begin,
	.end = sim_end,
	.arm = sim_arm,
	.attach = run_attach_nothing,
	.stop = run_stop_nothing,
	.collect = sim_collect,
	.discard = sim_discard,
};
