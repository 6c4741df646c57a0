/*
 * signals.h - a fatal signal while pmustat counts: the command gets it
 * too, the PMU is restored from the handler (pmu_restore_from_signal():
 * seam writes only), the crash journal and any temporary output file are
 * removed, and pmustat dies of the same signal. Hardware steps run with the
 * signals held, so a restore never interleaves with them.
 */
#ifndef PMUSTAT_SIGNALS_H
#define PMUSTAT_SIGNALS_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

struct runner;
struct runner_failure;

/*
 * The handler for every signal that would end pmustat by default (SIGINT,
 * SIGTERM, SIGHUP, SIGQUIT, SIGUSR1/2, SIGALRM, SIGVTALRM, SIGPROF,
 * SIGXCPU); SIGPIPE ignored, so a write fails with its error.
 */
void
signals_install(void);

/* Those signals, as a set (counting without a command waits for them). */
void
signals_fatal_set(sigset_t *set);

/* Hold (or let through) the fatal signals. */
void
signals_block(bool block);

/*
 * Uncork the child and wait for the command, the signals held from before
 * the go until the child has exec'd (or failed and been reaped), and held
 * again before its pid is forgotten, so the handler knows the child
 * whenever it may still enable counters or run: it can never restore the
 * PMU and leave behind a child that enables them afterwards. The command's
 * end is awaited without reaping it, so the pid the handler may signal
 * stays the command's until then. A signal already waiting before the go
 * ends pmustat with the command never started. Called with the signals
 * held; returns with them held.
 */
int
signals_go_and_wait(struct runner *r, struct runner_failure *rf, int *wstatus);

#endif
