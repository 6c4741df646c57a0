/*
 * serve_claim.h - one `pmustat serve` per core (and per process of -p),
 * whichever backend counts: the MSR backend's core locks (hw/cpulock.h)
 * already refuse a second one there, but the perf backend takes no lock,
 * and two exporters of one core would export every count twice.
 *
 * A claim is a bound abstract Unix socket, "pmustat-serve-cpu<N>" (or
 * "-pid<N>"): the kernel frees the name when its holder ends however it
 * ends (SIGKILL included), and nothing is left in the file system.
 * Abstract names are per network namespace: a serve in another container
 * does not see them (nor does it see this one's port). The MSR backend's
 * serve holds the core locks instead; the two backends' claims are apart.
 */
#ifndef PMUSTAT_SERVE_CLAIM_H
#define PMUSTAT_SERVE_CLAIM_H

#include <sys/types.h>

struct pmustat_error;

struct serve_claim {
	int *fds;
	unsigned n;
};

/*
 * Claim the @ncpus cores @cpus, or (@npids > 0) the processes @pids. 0, or
 * -EBUSY naming the core or process another serve holds (nothing claimed
 * then), -errno otherwise.
 */
int
serve_claim(struct serve_claim *cl, const int *cpus, unsigned ncpus, const pid_t *pids, unsigned npids,
	    struct pmustat_error **err);

/* Give every claim back. */
void
serve_claim_release(struct serve_claim *cl);

#endif
