/*
 * fuzz_cpu_dump.c - --cpu-dump files (cpu_source_load: libcpuid's raw dump
 * reader, then cpu_decode and the PMU quirks), and what pmustat does next
 * with the CPU it decoded: the mapfile key, the shipped mapfile, and the
 * default events parsed against the decoded PMU.
 *
 * Input: the whole dump, written to a private file. Byte 0 also picks the
 * CPU asked for (-1, the dump's last, or 0..2), as -C does.
 */
#include "fuzz_util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "events/cpu.h"
#include "events/cpu_source.h"
#include "events/event.h"
#include "events/event_spec.h"
#include "events/mapfile.h"
#include "pmu/msr.h"
#include "base/err.h"

static void
check_cpu(const struct cpu_info *c)
{
	const struct pmu_caps *p = &c->pmu;
	struct pmustat_error *err = NULL;
	char key[64], table[128];
	struct event *evs = NULL;
	size_t n = 0;
	int ret;

	if (!memchr(c->vendor_id, '\0', sizeof(c->vendor_id)) ||
	    !memchr(c->brand, '\0', sizeof(c->brand)))
		fuzz_fail("vendor or brand not terminated");
	for (const char *s = c->brand; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
			fuzz_fail("control character in the brand string");
	/* CPUID may claim up to 255 GP counters; the masks saturate at 32. */
	if ((unsigned)__builtin_popcount(p->gp_mask) != (p->gp_counters < 32 ? p->gp_counters : 32) ||
	    (unsigned)__builtin_popcount(p->fixed_mask) != p->fixed_counters)
		fuzz_fail("PMU counts and masks disagree: %u GP (mask 0x%x), %u fixed (mask 0x%x)",
			  p->gp_counters, p->gp_mask, p->fixed_counters, p->fixed_mask);
	cpu_mapfile_key(c, key, sizeof(key));
	if (!memchr(key, '\0', sizeof(key)))
		fuzz_fail("mapfile key not terminated");
	(void)cpu_verdict_text(c->verdict);
	if (c->verdict != CPU_VERDICT_OK)
		return;

	/* What cmd_stat and cmd_list do next: pick a table, resolve events. */
	err_clear(&err);
	ret = mapfile_choose_table(fuzz_events_dir(), c, table, sizeof(table), &err);
	if (ret != 0 && ret != -ENOENT)
		fuzz_fail("shipped mapfile: %d %s", ret, err_msg(err));
	ret = event_spec_parse("instructions,cycles,ref-cycles,branches,branch-misses,slots,"
			       "LLC_MISSES,r412e,cpu/event=0x3c,umask=0x0/k", NULL, p, &evs, &n, &err);
	for (size_t i = 0; ret == 0 && i < n; i++) {
		if (evs[i].gp_mask & ~p->gp_mask)
			fuzz_fail("event on a GP counter the CPU lacks");
		if (evs[i].fixed >= PMU_MAX_FIXED)
			fuzz_fail("event on fixed counter %d", evs[i].fixed);
	}
	free(evs);
	err_clear(&err);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cpu_info c;
	struct pmustat_error *err = NULL;
	const char *path;
	int cpu = size ? (int)(data[0] & 3) - 1 : -1, used = -7, ret;

	path = fuzz_write("dump.txt", data, size);
	memset(&c, 0xa5, sizeof(c));
	ret = cpu_source_load(NULL, path, cpu, &c, &used, &err);
	if (ret == 0) {
		if (used < 0 || (cpu >= 0 && used != cpu))
			fuzz_fail("asked for CPU %d, described %d", cpu, used);
		check_cpu(&c);
	} else if (!err_msg(err)[0]) {
		fuzz_fail("error %d without a message", ret);
	}
	err_clear(&err);
	return 0;
}
