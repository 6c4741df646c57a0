/*
 * bench-cores - what counting on more cores costs: MSR operations and wall
 * time of the MSR backend's whole sequence for 4 events on 1, 8, 64 and
 * 256 emulated CPUs (a figure, not a test; `meson test -C build
 * --benchmark cores-scaling`, or build/tests/engine/bench-cores under
 * tests/emu/run-under-emu, which keeps the locks and journals in the
 * emulated machine's own /run).
 *
 * The sequence is the real engine's (engine/backend_msr.c): locks,
 * journal recovery, saving every PMU, a plan per core, the journals, the
 * program, the enable the child makes before execve (called here, in
 * process: there is no command), the disable, the reads and the restore,
 * over a struct hw on an emulated Skylake (tests/emu/emu_hw.h) with as many
 * CPUs as asked, so no host affinity limits the count. Every core must come
 * back bit for bit; the benchmark fails otherwise.
 *
 *	bench-cores [N]...	(default: 1 8 64 256)
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/err.h"
#include "emu_hw.h"
#include "emu_pmu.h"
#include "pmu/plan.h"
#include "engine/requests.h"
#include "engine/run.h"
#include "engine/stat.h"
#include "engine/target.h"
#include "events/mapfile.h"
#include "hw/hw.h"

#define EVENTS "LONGEST_LAT_CACHE.MISS,LONGEST_LAT_CACHE.REFERENCE,BR_INST_RETIRED.ALL_BRANCHES,BR_MISP_RETIRED.ALL_BRANCHES"

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* MSR reads, MSR writes and rdpmc, summed over the CPUs. */
struct ops {
	uint64_t rd, wr, rdpmc;
};

static struct ops
ops_of(const struct emu_pmu *p)
{
	struct ops o = { 0, 0, 0 };

	for (unsigned c = 0; c < p->ncpus; c++) {
		o.rd += p->cpu[c].stats.rdmsr;
		o.wr += p->cpu[c].stats.wrmsr;
		o.rdpmc += p->cpu[c].stats.rdpmc;
	}
	return o;
}

/*
 * One whole sequence on @n cores; @global_free: nobody keeps the
 * counters' IA32_PERF_GLOBAL_CTRL bits set (at power-up they are, as
 * Linux leaves them), so pmustat enables through it. 0, or 1 after a message.
 */
static int
bench(unsigned n, bool global_free, struct ops *ops, double *secs)
{
	static struct stat_opts o;
	struct emu_config cfg;
	struct emu_pmu *pmu, *before = NULL;
	struct pmustat_error *err = NULL;
	struct stat_events ev;
	struct run_ctx c;
	struct runner_opts ro;
	struct target t;
	struct hw *hw;
	static const uint8_t retire[4][2] = { { 0x2e, 0x41 }, { 0x2e, 0x4f }, { 0xc4, 0x00 }, { 0xc5, 0x00 } };
	int *cores;
	double t0;
	int rc = 1;

	emu_config_default(&cfg, EMU_MODEL_SKYLAKE);
	cfg.ncpus = n;
	pmu = emu_pmu_new(&cfg);
	hw = pmu ? emu_hw_new(pmu) : NULL;
	cores = calloc(n, sizeof(*cores));
	if (!pmu || !hw || !cores) {
		fprintf(stderr, "bench-cores: %u CPUs: cannot make the machine\n", n);
		free(cores);
		hw_free(hw);
		emu_pmu_free(pmu);
		return 1;
	}
	memset(&o, 0, sizeof(o));
	o.specs[o.nspecs++] = EVENTS;
	o.repeat = 1;
	o.core = 0;
	for (unsigned i = 0; i < n; i++)
		cores[i] = (int)i;
	memset(&ev, 0, sizeof(ev));
	if (target_open(&t, hw, NULL, 0, &err) == 0) {
		/* The source tree's tables: this program is not beside a pmustat binary. */
		err_free(t.table_why);
		t.table_why = NULL;
		t.events_dir = BENCH_EVENTS_DIR;
		t.table_rc = mapfile_choose(t.events_dir, &t.cpu, &t.choice, &t.table_why);
	}
	if (err || requests_resolve(&o, &t, &ev, NULL, NULL, &err)) {
		fprintf(stderr, "bench-cores: %s\n", err_msg(err));
		goto out;
	}
	memset(&c, 0, sizeof(c));
	c.o = &o;
	c.t = &t;
	c.hw = hw;
	c.ev = &ev;
	c.core = 0;
	c.cores = cores;
	c.ncores = n;
	c.counts = calloc(ev.nhw + 1, sizeof(*c.counts));
	c.core_counts = calloc((size_t)ev.nhw * n + 1, sizeof(*c.core_counts));
	before = malloc(sizeof(*before));
	if (!c.counts || !c.core_counts || !before)
		goto out_ctx;
	for (unsigned i = 0; global_free && i < n; i++)
		(void)emu_wrmsr(pmu, i, 0x38f, 0);	/* IA32_PERF_GLOBAL_CTRL */
	for (unsigned i = 0; i < n; i++)
		pmu->cpu[i].stats = (struct emu_stats){ 0 };
	memcpy(before, pmu, sizeof(*before));
	memset(&ro, 0, sizeof(ro));
	t0 = now();
	if (backend_msr.begin(&c, &err) == 0 && backend_msr.arm(&c, 0, &ro, &err) == 0) {
		(void)ro.enable(ro.arg);	/* what the child does before execve */
		/* The command: every core counts (so the restore has counters to put back). */
		for (unsigned i = 0; i < n; i++)
			for (unsigned e = 0; e < 4; e++)
				emu_retire(pmu, i, retire[e][0], retire[e][1], 3, 1000 + i);
		if (backend_msr.stop(&c, 0, &err) == 0 && backend_msr.collect(&c, 0, &err) == 0)
			rc = 0;
	}
	backend_msr.end(&c);
	*secs = now() - t0;
	*ops = ops_of(pmu);
	if (rc || c.error) {
		fprintf(stderr, "bench-cores: %u CPUs: %s\n", n, err ? err_msg(err) : err_msg(c.error));
		rc = 1;
	} else if (c.plan->nruns != 1) {
		fprintf(stderr, "bench-cores: %u CPUs: %u runs, not 1\n", n, c.plan->nruns);
		rc = 1;
	} else {
		/* Every core back as it was (the statistics aside). */
		for (unsigned i = 0; i < n; i++)
			before->cpu[i].stats = pmu->cpu[i].stats;
		if (emu_pmu_diff(before, pmu, stderr)) {
			fprintf(stderr, "bench-cores: %u CPUs: not restored\n", n);
			rc = 1;
		}
	}
out_ctx:
	free(before);
	plan_free(c.plan);
	err_free(c.error);
	free(c.counts);
	free(c.core_counts);
out:
	err_free(err);
	requests_free(&ev);
	target_close(&t);
	free(cores);
	hw_free(hw);
	emu_pmu_free(pmu);
	return rc;
}

static int
table(const unsigned *sizes, unsigned nsizes, bool global_free)
{
	struct ops first = { 0, 0, 0 };
	unsigned n1 = 0;

	printf("\n%s\n", global_free ? "IA32_PERF_GLOBAL_CTRL bits clear (enable and disable: one write per counter, and one of GLOBAL_CTRL)"
				       : "IA32_PERF_GLOBAL_CTRL bits set, as Linux leaves them (enable and disable: one write per counter)");
	printf("%6s %9s %9s %7s %12s %10s %12s\n", "cores", "rdmsr", "wrmsr", "rdpmc", "MSR/core", "ms", "ms/core");
	for (unsigned i = 0; i < nsizes; i++) {
		struct ops o;
		double secs;
		char extra[48] = "";

		if (bench(sizes[i], global_free, &o, &secs))
			return 1;
		if (n1 && sizes[i] > n1)
			snprintf(extra, sizeof(extra), "  +%.1f MSR ops per extra core",
				 (double)(o.rd + o.wr - first.rd - first.wr) / (double)(sizes[i] - n1));
		if (!n1) {
			n1 = sizes[i];
			first = o;
		}
		printf("%6u %9llu %9llu %7llu %12.1f %10.2f %12.3f%s\n", sizes[i], (unsigned long long)o.rd,
		       (unsigned long long)o.wr, (unsigned long long)o.rdpmc, (double)(o.rd + o.wr) / sizes[i],
		       secs * 1e3, secs * 1e3 / sizes[i], extra);
	}
	return 0;
}

int
main(int argc, char **argv)
{
	static const unsigned defaults[] = { 1, 8, 64, 256 };
	unsigned sizes[32], nsizes = 0;

	for (int i = 1; i < argc && nsizes < 32; i++) {
		long v = strtol(argv[i], NULL, 10);

		if (v < 1 || v > EMU_MAX_CPUS) {
			fprintf(stderr, "usage: bench-cores [N]... (1 to %d CPUs)\n", EMU_MAX_CPUS);
			return 2;
		}
		sizes[nsizes++] = (unsigned)v;
	}
	if (nsizes == 0)
		for (unsigned i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++)
			sizes[nsizes++] = defaults[i];
	printf("MSR backend, 4 events (%s), one run, emulated Skylake;\n"
	       "lock, journal, save, plan, program, enable, count, disable, read, restore, per core\n", EVENTS);
	if (table(sizes, nsizes, false) || table(sizes, nsizes, true))
		return 1;
	return 0;
}
