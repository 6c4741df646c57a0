/*
 * cores.c - see cores.h.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "engine/cores.h"
#include "engine/stat.h"
#include "events/cpu_source.h"

static int
from_set(const cpu_set_t *set, struct cores *out, struct pmustat_error **err)
{
	unsigned n = (unsigned)CPU_COUNT(set), k = 0;

	out->cpu = calloc(n ? n : 1, sizeof(*out->cpu));
	if (!out->cpu)
		return err_set(err, -ENOMEM, "out of memory");
	for (int i = 0; i < CPU_SETSIZE && k < n; i++)
		if (CPU_ISSET(i, set))
			out->cpu[k++] = i;
	out->n = k;
	return 0;
}

int
cores_resolve(const struct stat_opts *o, struct cores *out, struct pmustat_error **err)
{
	static bool listed[CPU_SETSIZE];
	char what[64];
	cpu_set_t allowed, want;
	int rc;

	memset(out, 0, sizeof(*out));
	CPU_ZERO(&want);
	if (o->cpu_dump) {
		out->cpu = calloc(1, sizeof(*out->cpu));
		if (!out->cpu)
			return err_set(err, -ENOMEM, "out of memory");
		out->cpu[0] = o->core;
		out->n = 1;
		return 0;
	}
	if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0)
		return err_set(err, -errno, "reading the CPUs pmustat may run on (sched_getaffinity): %s",
			       strerror(errno));
	if (o->all_cpus) {
		want = allowed;
	} else if (o->cpu_list) {
		rc = cpu_parse_list(o->cpu_list, CPU_SETSIZE, listed, err);
		if (rc)
			return rc;
		for (int i = 0; i < CPU_SETSIZE; i++)
			if (listed[i])
				CPU_SET(i, &want);
	} else {
		CPU_SET(o->core >= 0 ? o->core : cpu_default_core(), &want);
	}
	/* The command runs on these CPUs: say so now, not after programming. */
	for (int i = 0; i < CPU_SETSIZE; i++) {
		if (!CPU_ISSET(i, &want) || CPU_ISSET(i, &allowed))
			continue;
		snprintf(what, sizeof(what), CPU_COUNT(&want) > 1 ? "CPU %d of -C %s" : "core %d%s", i,
			 o->cpu_list ? o->cpu_list : "");
		return err_set(err, -EINVAL,
			       "%s is outside the CPUs pmustat may run on (its affinity: taskset, cgroup cpuset); pick CPUs among those with -C, or -a for all of them",
			       what);
	}
	return from_set(&want, out, err);
}

void
cores_free(struct cores *c)
{
	free(c->cpu);
	c->cpu = NULL;
	c->n = 0;
}
