/*
 * serve_claim.c - see serve_claim.h.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/err.h"
#include "engine/serve_claim.h"

/* Bind the abstract name @name: the socket's fd, or -errno (-EADDRINUSE: held). */
static int
claim_name(const char *name)
{
	struct sockaddr_un a;
	size_t len = strlen(name);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	memset(&a, 0, sizeof(a));
	a.sun_family = AF_UNIX;
	memcpy(a.sun_path + 1, name, len);	/* sun_path[0] == 0: abstract */
	if (bind(fd, (struct sockaddr *)&a, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + len)) != 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	return fd;
}

int
serve_claim(struct serve_claim *cl, const int *cpus, unsigned ncpus, const pid_t *pids, unsigned npids,
	    struct pmustat_error **err)
{
	unsigned n = npids ? npids : ncpus;

	cl->n = 0;
	cl->fds = calloc(n ? n : 1, sizeof(*cl->fds));
	if (!cl->fds)
		return err_set(err, -ENOMEM, "out of memory");
	for (unsigned i = 0; i < n; i++) {
		char name[64];
		int fd;

		snprintf(name, sizeof(name), npids ? "pmustat-serve-pid%d" : "pmustat-serve-cpu%d",
			 npids ? (int)pids[i] : cpus[i]);
		fd = claim_name(name);
		if (fd == -EADDRINUSE) {
			serve_claim_release(cl);
			return err_set(err, -EBUSY, npids ?
				       "process %d is counted by another pmustat serve already; stop that one first (two exporters would export every count twice)" :
				       "core %d is counted by another pmustat serve already; stop that one first or serve other cores with -C LIST (two exporters would export every count twice)",
				       npids ? (int)pids[i] : cpus[i]);
		}
		if (fd < 0) {
			serve_claim_release(cl);
			return err_set(err, fd, "claiming %s for pmustat serve (an abstract Unix socket): %s", name,
				       strerror(-fd));
		}
		cl->fds[cl->n++] = fd;
	}
	return 0;
}

void
serve_claim_release(struct serve_claim *cl)
{
	for (unsigned i = 0; i < cl->n; i++)
		close(cl->fds[i]);
	free(cl->fds);
	cl->fds = NULL;
	cl->n = 0;
}
