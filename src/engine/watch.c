/*
 * watch.c - one run without a command (run.h): the counted cores for
 * --duration or until ^C, or an existing process (-p PID, through the
 * perf backend) until it ends, the time is up or ^C. The backends take
 * the same steps as for a command (arm, attach, stop, collect); pmustat
 * itself enables the counters, then waits on a signalfd (the fatal
 * signals stay held: any of them (signals.h) ends the counting like the
 * time running out, and the counts are reported), the process's
 * pidfd and the time left.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/err.h"
#include "engine/run.h"
#include "engine/signals.h"
#include "engine/stat.h"
#include "hw/proc.h"

static void
close_all(const int *fds, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		close(fds[i]);
}

/*
 * Wait for the end of the counting: a held fatal signal (its number in
 * *@sig), every process of @pfds[0..@npfd) ending, every thread of
 * @tids[0..@ntids) ending (-t: looked at every THREAD_LOOK_MS, a thread
 * having no pidfd of its own), or @ms (0: no limit). 0, or -errno.
 */
#define THREAD_LOOK_MS 50

/* Whether every thread of @tids has ended (gone, or a zombie). */
static bool
threads_gone(const pid_t *tids, unsigned ntids)
{
	for (unsigned i = 0; i < ntids; i++) {
		unsigned long long start;
		char state;

		if (proc_stat(tids[i], &state, &start) == 0 && state != 'Z' && state != 'X')
			return false;
	}
	return true;
}

static int
wait_end(const int *pfds, unsigned npfd, const pid_t *tids, unsigned ntids, unsigned ms, int *sig)
{
	sigset_t set;
	struct pollfd fds[1 + STAT_MAX_PIDS];
	double end = clock_monotonic_seconds() + ms / 1000.0;
	unsigned live = npfd;
	int sfd, rc = 0;

	*sig = 0;
	signals_fatal_set(&set);
	sfd = signalfd(-1, &set, SFD_CLOEXEC);
	if (sfd < 0)
		return -errno;
	fds[0].fd = sfd;
	fds[0].events = POLLIN;
	for (unsigned i = 0; i < npfd; i++) {
		fds[1 + i].fd = pfds[i];
		fds[1 + i].events = POLLIN;
	}
	for (;;) {
		int timeout = -1;

		if (ms) {
			double left = end - clock_monotonic_seconds();

			if (left <= 0)
				break;
			timeout = (int)(left * 1000.0) + 1;
		}
		if (ntids && threads_gone(tids, ntids))
			break;
		if (ntids && (timeout < 0 || timeout > THREAD_LOOK_MS))
			timeout = THREAD_LOOK_MS;
		rc = poll(fds, 1 + npfd, timeout);
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc < 0) {
			rc = -errno;
			break;
		}
		rc = 0;
		if (fds[0].revents & POLLIN) {
			struct signalfd_siginfo si;

			if (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
				*sig = (int)si.ssi_signo;
			break;
		}
		/* An ended process is out of the poll (a negative fd is skipped): the last one ends it. */
		for (unsigned i = 0; i < npfd; i++)
			if (fds[1 + i].fd >= 0 && fds[1 + i].revents) {
				fds[1 + i].fd = -1;
				live--;
			}
		if (npfd && !live)
			break;
	}
	close(sfd);
	return rc;
}

int
run_watch(struct run_ctx *c, unsigned run)
{
	struct pmustat_error *err = NULL, *stop_err = NULL;
	const struct backend_ops *sampler = NULL;
	struct runner_opts ro;
	unsigned npids = c->o->npids;
	int pfds[STAT_MAX_PIDS];
	double t0;
	int sig = 0, rc = 0;

	memset(&ro, 0, sizeof(ro));
	for (unsigned i = 0; i < npids; i++) {
		pfds[i] = proc_pidfd(c->o->pids[i]);
		if (pfds[i] < 0) {
			rc = pfds[i];
			close_all(pfds, i);
			return run_fail(c, rc, "-p %d: %s", (int)c->o->pids[i],
					rc == -ESRCH ? "no such process" : strerror(-rc)), -1;
		}
	}
	for (unsigned b = 0; b < c->nbackends && rc == 0; b++)
		rc = c->backends[b]->arm(c, run, &ro, &err);
	for (unsigned b = 0; b < c->nbackends && rc == 0; b++)
		rc = c->backends[b]->attach(c, run, -1, &err);
	/* The MSR backend's enable, which a command's child would make right before execve. */
	if (rc == 0 && ro.enable && (rc = ro.enable(ro.arg)) != 0)
		err_set(&err, rc, "enabling the counters: %s", strerror(-rc));
	if (rc) {
		run_discard(c, run);
		close_all(pfds, npids);
		return run_fail_err(c, &err), -1;
	}
	(void)run_keep_off(c->cores, c->ncores);
	/* Without -p, -t or --duration only a signal ends it: say so, as a forgotten COMMAND looks the same. */
	if (!npids && !c->o->ntids && !c->o->duration_ms && c->notes)
		fprintf(c->notes, "pmustat: no command: counting until ^C (SIGINT) or SIGTERM; --duration TIME bounds it\n");
	t0 = clock_monotonic_seconds();
	if (c->backends[0]->sample_start) {
		c->cur_run = run + 1;
		sampler = c->backends[0];
		if (sampler->sample_start(c, run, &err)) {
			sampler = NULL;
			rc = -1;
		}
	}
	if (rc == 0)
		rc = wait_end(pfds, npids, c->o->tids, c->o->ntids, c->o->duration_ms, &sig);
	if (sampler)
		sampler->sample_stop(c, run);
	for (unsigned b = 0; b < c->nbackends; b++) {
		if (c->backends[b]->stop(c, run, &err) && !stop_err)
			err_move(&stop_err, &err);
		err_clear(&err);
	}
	c->elapsed += clock_monotonic_seconds() - t0;
	close_all(pfds, npids);
	if (stop_err || err || rc) {
		run_discard(c, run);
		if (stop_err)
			return run_fail_err(c, &stop_err), -1;
		if (err)
			return run_fail_err(c, &err), -1;
		return run_fail(c, rc, "waiting for the end of the counting: %s", strerror(-rc)), -1;
	}
	if (sig && c->o->verbose)
		fprintf(stderr, "pmustat: %s: counting ended\n", strsignal(sig));
	c->command_ran = true;
	if (run_collect(c, run, sampler))
		return -1;
	/* As perf stat: the counting's end, whatever ended it, is a success. */
	c->status = 0;
	return sig ? 1 : 0;
}
