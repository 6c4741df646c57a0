/*
 * signals.c - see signals.h.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/types.h>

#include "engine/interval.h"
#include "engine/runner.h"
#include "engine/signals.h"
#include "pmu/journal.h"
#include "pmu/pmu.h"
#include "pmu/rdpmc_journal.h"
#include "region/rdpmc_perm.h"
#include "report/outfile.h"

/* The command, while it may run: the handler passes the signal on. */
static volatile sig_atomic_t stat_child;

/*
 * Every signal whose default action ends the process and that a run can
 * meet without a bug of its own: a terminal, kill, timeout(1) -s, a batch
 * system's RLIMIT_CPU (SIGXCPU), an alarm or profiling timer inherited.
 * Left at its default, any of them would end pmustat with the counters
 * still programmed and the command running on. (SIGPIPE is ignored here,
 * SIGXFSZ in main(): a failed write is then an error pmustat reports.)
 */
static const int stat_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM,
				    SIGVTALRM, SIGPROF, SIGXCPU };

static void
on_signal(int sig, siginfo_t *si, void *uc)
{
	pid_t child = (pid_t)stat_child;
	sigset_t set;

	(void)uc;
	if (child > 0 && (sig == SIGINT || sig == SIGQUIT)) {
		/*
		 * The terminal sends ^C and ^\ to the command too; only a
		 * signal sent to pmustat alone (kill) is passed on. The
		 * command's end then restores on the normal path.
		 */
		if (si && si->si_code == SI_USER && si->si_pid != child)
			kill(child, sig);
		return;
	}
	if (child > 0)
		kill(child, sig);
	/* No -I sample may read a counter once the restore has begun. */
	interval_halt_from_signal();
	/*
	 * The journal is the only record of what to put back if a write
	 * failed; an inexact legacy counter value (1) is as good as it gets.
	 */
	if (pmu_restore_from_signal() >= 0)
		journal_remove_from_signal();
	/* --regions: rdpmc restricted again as it was found. */
	if (rdpmc_perm_restore_from_signal() >= 0)
		rdpmc_journal_remove_from_signal();
	/* Output files are left as they were. */
	outfile_remove_from_signal();
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
}

void
signals_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(stat_signals) / sizeof(stat_signals[0]); i++)
		sigaddset(&sa.sa_mask, stat_signals[i]);
	for (size_t i = 0; i < sizeof(stat_signals) / sizeof(stat_signals[0]); i++)
		sigaction(stat_signals[i], &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

void
signals_fatal_set(sigset_t *set)
{
	sigemptyset(set);
	for (size_t i = 0; i < sizeof(stat_signals) / sizeof(stat_signals[0]); i++)
		sigaddset(set, stat_signals[i]);
}

void
signals_block(bool block)
{
	sigset_t set;

	signals_fatal_set(&set);
	sigprocmask(block ? SIG_BLOCK : SIG_UNBLOCK, &set, NULL);
}

/* Is one of the fatal signals waiting (held)? */
static bool
signal_pending(void)
{
	sigset_t set;

	if (sigpending(&set) != 0)
		return false;
	for (size_t i = 0; i < sizeof(stat_signals) / sizeof(stat_signals[0]); i++)
		if (sigismember(&set, stat_signals[i]) == 1)
			return true;
	return false;
}

int
signals_go_and_wait(struct runner *r, struct runner_failure *rf, int *ws)
{
	int rc;

	if (signal_pending()) {
		runner_cancel(r);
		/* The handler restores and ends pmustat with the signal. */
		signals_block(false);
		signals_block(true);
		rf->stage = RUNNER_CHILD_LOST;
		rf->err = EINTR;
		return -EINTR;
	}
	rc = runner_go(r, rf, ws);
	if (rc)
		return rc;
	stat_child = r->pid;
	signals_block(false);
	do
		rc = runner_await(r);
	while (rc == -EINTR);
	signals_block(true);
	stat_child = 0;
	return rc ? rc : runner_wait(r, ws);
}
