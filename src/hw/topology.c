/*
 * topology.c - see topology.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "hw/topology.h"

static int
read_id(const char *sysfs_cpu, int cpu, const char *name, int *v)
{
	char path[160], text[32], *end;
	FILE *f;
	long n;

	snprintf(path, sizeof(path), "%s/cpu%d/topology/%s", sysfs_cpu, cpu, name);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (!fgets(text, sizeof(text), f)) {
		fclose(f);
		return -EINVAL;
	}
	fclose(f);
	errno = 0;
	n = strtol(text, &end, 10);
	if (errno || end == text || n < -1 || n > 1 << 20)
		return -EINVAL;
	*v = (int)n;
	return 0;
}

int
topology_of(const char *sysfs_cpu, int cpu, struct cpu_topology *t)
{
	int rc = read_id(sysfs_cpu, cpu, "physical_package_id", &t->package);

	if (rc == 0)
		rc = read_id(sysfs_cpu, cpu, "core_id", &t->core);
	if (rc == 0 && read_id(sysfs_cpu, cpu, "die_id", &t->die) != 0)
		t->die = 0;
	return rc;
}
