/*
 * regions.c - see regions.h.
 */
#include "engine/regions.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/environ_with.h"
#include "base/err.h"
#include "pmu/family.h"
#include "pmu/plan.h"
#include "engine/regions_perf.h"
#include "engine/requests.h"
#include "engine/stat_metrics.h"
#include "engine/stat.h"
#include "engine/target.h"
#include "events/event.h"
#include "hw/hw.h"
#include "pmu/access.h"
#include "pmu/journal.h"
#include "pmu/msr.h"
#include "pmu/rdpmc_journal.h"
#include "region/rdpmc_perm.h"
#include "region/region_host.h"
#include "report/check.h"
#include "report/output.h"

extern char **environ;

#define ENV_PREFIX PMUSTAT_REGION_ENV_FD "="

/* One region over the rounds. */
struct region_acc {
	char name[PMUSTAT_REGION_NAME_SIZE];
	bool truncated;
	uint64_t calls;
	unsigned threads;
	unsigned calls_round, calls_run;	/* the calls are those of the lowest run of the latest round */
	uint64_t *values;			/* [u * repeat + i]: event u's sum in round i */
	unsigned *nvalues;			/* per hardware event */
};

struct regions {
	bool perf_mode;				/* the perf backend's counters, through their self-monitoring pages */
	bool sim_mode;				/* --backend sim: Callgrind's dumps at the marks (callgrind_regions.h) */
	const struct perf_seam *perf;
	struct rdpmc_perm perm;
	bool journaled;
	/* The current run. */
	struct region_area *area;
	unsigned map[PMUSTAT_REGION_MAX_EVENTS];	/* area event k -> hardware event */
	unsigned nmap;
	char env_var[64];
	char **envp;
	/* What the runs gave. */
	bool attached;
	struct region_acc *acc;
	unsigned nacc;
	struct region_result last;		/* the last round's, when the plan has one run: per thread */
	unsigned last_map[PMUSTAT_REGION_MAX_EVENTS];
	bool have_last;
	/* The report. */
	struct region_out *out;
	struct region_value *vals;
	struct region_thread_out *threads;
	struct metric_row **metrics;		/* per region: -M's values from its sums */
	uint64_t *thread_sums;
	bool *thread_counted;
	struct region_report report;
};

/* The child, before the enable: the area is the command's too (not counted: before the enable). */
static int
regions_inherit(void *arg)
{
	struct regions *s = arg;
	int rc = region_area_inherit(s->area);

	/* Perf mode: the self-read events are the command's own, opened now, enabled by its execve. */
	if (rc == 0 && s->perf_mode)
		rc = region_area_open_perf(s->area, s->perf, NULL);
	return rc;
}

static int
refuse(struct pmustat_error **err, int rc, const char *why)
{
	return err_set(err, rc, "--regions: %s", why);
}

static int
regions_begin(struct run_ctx *c, struct pmustat_error **err)
{
	enum hw_file file = access_rdpmc_file(&c->t->cpu);
	struct regions *s;
	char why[512], *note = NULL;
	int rc, found;

	if (c->ev->nhw == 0)
		return refuse(err, -EINVAL, "regions count hardware events (software ones are not read with rdpmc); give some with -e");
	if (c->backends[0] == &backend_perf) {
		rc = regions_perf_usable(c->perf, c->hw, file, c->backend_why, err);
		if (rc)
			return rc;
	}
	if (c->backends[0] == &backend_sim && c->ev->nhw > PMUSTAT_REGION_MAX_EVENTS)
		return refuse(err, -E2BIG, "a region records at most 16 events; give fewer with -e");
	s = calloc(1, sizeof(*s));
	if (!s)
		return err_set(err, -ENOMEM, "out of memory");
	c->regions = s;
	s->perm.found = -1;
	/* The simulation reads no counter: nothing to allow, the library marks the boundaries for Callgrind. */
	if (c->backends[0] == &backend_sim) {
		s->sim_mode = true;
		snprintf(s->env_var, sizeof(s->env_var), "%s=1", PMUSTAT_REGION_ENV_SIM);
		return 0;
	}
	if (c->backends[0] == &backend_perf) {
		/* The kernel's rdpmc setting already serves processes with mapped events: nothing to change. */
		s->perf_mode = true;
		s->perf = c->perf;
		if (c->o->verbose)
			fprintf(stderr, "pmustat: --regions: the command reads its counters through perf's self-monitoring pages (perf backend); %s left as it is\n",
				hw_file_path(file));
		return 0;
	}
	/* A killed run's setting first: its journal says what it found. */
	rc = rdpmc_journal_recover(JOURNAL_DIR, c->hw, &note, err);
	if (rc == 1 && note)
		fprintf(stderr, "pmustat: %s\n", note);
	free(note);
	if (rc < 0)
		return err_set(err, rc, "--regions: %s", err_msg(*err));
	found = rdpmc_perm_read(c->hw, file);
	if (found < 0) {
		rdpmc_perm_explain(file, found, why, sizeof(why));
		return refuse(err, found, why);
	}
	/* The journal before the change: a run killed from here on is undone by the next one. */
	if (found != RDPMC_ALLOW_ANY) {
		rdpmc_journal_arm_signal_remove(JOURNAL_DIR);
		rc = rdpmc_journal_write(JOURNAL_DIR, file, found, err);
		if (rc) {
			rdpmc_journal_arm_signal_remove(NULL);
			return err_set(err, rc, "--regions: %s; pmustat keeps a journal so that a killed run can put %s back, and changes it only with one",
				       err_msg(*err), hw_file_path(file));
		}
		s->journaled = true;
	}
	rc = rdpmc_perm_allow(c->hw, file, &s->perm);
	rdpmc_perm_arm_signal_restore(c->hw, &s->perm);
	if (rc) {
		rdpmc_perm_explain(file, rc, why, sizeof(why));
		return refuse(err, rc, why);
	}
	if (c->o->verbose && s->perm.changed)
		fprintf(stderr, "pmustat: --regions: %s set to 2 (was %d) while the command runs: any process on this machine can read the counters with rdpmc meanwhile; put back at the end\n",
			hw_file_path(file), s->perm.found);
	else if (c->o->verbose)
		fprintf(stderr, "pmustat: --regions: %s is already 2 (rdpmc allowed for every process); left as it is\n",
			hw_file_path(file));
	return 0;
}

static void
drop_area(struct regions *s)
{
	region_area_free(s->area);
	s->area = NULL;
}

static void
regions_end(struct run_ctx *c)
{
	struct regions *s = c->regions;
	bool changed;
	int rc;

	if (!s)
		return;
	drop_area(s);
	free(s->envp);
	s->envp = NULL;
	rdpmc_perm_arm_signal_restore(NULL, NULL);
	changed = s->perm.changed;
	rc = rdpmc_perm_restore(c->hw, &s->perm);
	if (rc) {
		char why[512];

		rdpmc_perm_explain(s->perm.file, rc, why, sizeof(why));
		run_fail(c, rc, "--regions: could not put %d back into %s: %s; rdpmc stays allowed for every process until it is ('pmustat reset' retries)",
			 s->perm.found, hw_file_path(s->perm.file), why);
	} else if (s->journaled) {
		(void)rdpmc_journal_remove(JOURNAL_DIR);
	}
	rdpmc_journal_arm_signal_remove(NULL);
	s->journaled = false;
	if (c->o->verbose && changed && rc == 0)
		fprintf(stderr, "pmustat: --regions: %s is %d again\n", hw_file_path(s->perm.file), s->perm.found);
}

/* The command's environment with PMUSTAT_REGION_FD (any inherited one replaced). */
static int
make_env(struct regions *s, char *const *base, struct pmustat_error **err)
{
	free(s->envp);
	s->envp = environ_with(base, s->env_var);
	if (!s->envp)
		return err_set(err, -ENOMEM, "out of memory for the command's environment");
	return 0;
}

static int
regions_arm(struct run_ctx *c, unsigned run, struct runner_opts *ro, struct pmustat_error **err)
{
	struct regions *s = c->regions;
	struct region_host_params p;
	int rc;

	drop_area(s);
	if (s->sim_mode) {
		/* Every event counts in the one run: region event k is hardware event k. */
		for (s->nmap = 0; s->nmap < c->ev->nhw; s->nmap++)
			s->map[s->nmap] = s->nmap;
		rc = make_env(s, ro->envp ? ro->envp : environ, err);
		ro->envp = s->envp;
		return rc;
	}
	memset(&p, 0, sizeof(p));
	p.mode = s->perf_mode ? PMUSTAT_REGION_MODE_PERF : PMUSTAT_REGION_MODE_RDPMC;
	p.run = run;
	s->nmap = 0;
	for (unsigned u = 0; u < c->ev->nhw; u++) {
		const struct sched_slot *slot = &c->plan->slots[u];
		bool fixed = slot->kind == SCHED_FIXED;

		if (slot->run != run || slot->kind == SCHED_NONE)
			continue;
		/* A byte of IA32_PERF_METRICS is no perf event (the perf backend does not count it either). */
		if (s->perf_mode && (c->ev->hw[u].flags & EVENT_F_PERF_METRICS))
			continue;
		if (s->nmap == PMUSTAT_REGION_MAX_EVENTS)
			return err_set(err, -E2BIG, "--regions: run %u counts more than %u events, the most a region records; give fewer with -e",
				       run + 1, PMUSTAT_REGION_MAX_EVENTS);
		p.events[s->nmap] = (struct region_host_event){
			.rdpmc_ecx = fixed ? RDPMC_FIXED | slot->index : slot->index,
			/* A counter of the family's own is read by its number too, at its width. */
			.width = slot->kind == SCHED_NB && c->t->cpu.pmu.family ? c->t->cpu.pmu.family->plain_counter_width
				 : fixed		 ? c->t->cpu.pmu.fixed_width
							 : c->t->cpu.pmu.gp_width,
			.perf_fd = -1,
		};
		if (s->perf_mode && (rc = regions_perf_event(&c->ev->hw[u], &c->t->cpu.pmu, &p.events[s->nmap], err)))
			return err_set(err, rc, "--regions: %s", err_msg(*err));
		s->map[s->nmap++] = u;
	}
	p.nevents = s->nmap;
	/* Nothing a region can count in this run: the command runs without the area. */
	if (p.nevents == 0)
		return 0;
	rc = region_area_create(&p, &s->area, err);
	if (rc)
		return rc;
	if (region_area_env(s->area, s->env_var, sizeof(s->env_var)) != 0)
		return err_set(err, -ENOSPC, "--regions: the area's fd does not fit the environment variable");
	rc = make_env(s, ro->envp ? ro->envp : environ, err);
	if (rc)
		return rc;
	ro->envp = s->envp;
	ro->inherit = regions_inherit;
	ro->inherit_arg = s;
	return 0;
}

static struct region_acc *
acc_of(struct run_ctx *c, const struct region_total *t)
{
	struct regions *s = c->regions;
	struct region_acc *a, *grown;

	for (unsigned i = 0; i < s->nacc; i++)
		if (strcmp(s->acc[i].name, t->name) == 0)
			return &s->acc[i];
	grown = realloc(s->acc, (s->nacc + 1) * sizeof(*s->acc));
	if (!grown)
		return NULL;
	s->acc = grown;
	a = &s->acc[s->nacc];
	memset(a, 0, sizeof(*a));
	a->values = calloc((size_t)c->ev->nhw * c->repeat + 1, sizeof(*a->values));
	a->nvalues = calloc(c->ev->nhw + 1, sizeof(*a->nvalues));
	if (!a->values || !a->nvalues) {
		free(a->values);
		free(a->nvalues);
		return NULL;
	}
	snprintf(a->name, sizeof(a->name), "%s", t->name);
	s->nacc++;
	return a;
}

/* Pairs in no sum (perf mode: events off the PMU; rdpmc mode: read on two CPUs), threads whose events could not open. */
static void
notes_perf(FILE *n, unsigned run, const struct region_result *r)
{
	uint64_t uncounted = 0;
	unsigned refused = 0;
	int why = 0;

	for (unsigned i = 0; i < r->ntotals; i++)
		uncounted += r->totals[i].uncounted;
	for (unsigned i = 0; i < r->nthreads; i++) {
		if (r->threads[i].perf_error) {
			refused++;
			why = r->threads[i].perf_error;
		}
	}
	if (uncounted && r->mode == PMUSTAT_REGION_MODE_RDPMC)
		fprintf(n, "pmustat: warning: --regions: run %u: %llu pair(s) ran on two CPUs (the thread moved between its begin and its end, whose rdpmc reads were then two cores' counters) and are in the calls but in no sum; pin the command's threads (--pin-threads, taskset) to count them\n",
			run + 1, (unsigned long long)uncounted);
	else if (uncounted)
		fprintf(n, "pmustat: warning: --regions: run %u: %llu pair(s) could not read their counters (the kernel had an event off the PMU: another user of the counters, or too many events) and are in the calls but in no sum\n",
			run + 1, (unsigned long long)uncounted);
	if (refused)
		fprintf(n, "pmustat: warning: --regions: run %u: %u thread(s) could not open their own events (%s); their pairs are in no sum\n",
			run + 1, refused, strerror(-why));
}

/* What the library could not record, said once per run of the first round. */
static void
notes_of(struct run_ctx *c, unsigned run, const struct region_result *r)
{
	uint64_t unmatched = 0, deep = 0, dropped = 0;
	FILE *n = c->notes ? c->notes : NULL;

	if (!n || c->round > 1)
		return;
	if (r->attached == 0 && r->attach_error)
		fprintf(n, "pmustat: --regions: run %u: the command refused the region area: %s\n", run + 1,
			region_attach_error_str(r->attach_error));
	for (unsigned i = 0; i < r->nthreads; i++) {
		unmatched += r->threads[i].unmatched_ends;
		deep += r->threads[i].depth_dropped;
		dropped += r->threads[i].regions_dropped;
	}
	if (r->threads_dropped || r->calls_dropped)
		fprintf(n, "pmustat: warning: --regions: run %u: %llu thread(s) found no slot (%llu pairs not recorded)\n",
			run + 1, (unsigned long long)r->threads_dropped, (unsigned long long)r->calls_dropped);
	if (dropped)
		fprintf(n, "pmustat: warning: --regions: run %u: %llu pair(s) of regions found no record (too many region names)\n",
			run + 1, (unsigned long long)dropped);
	if (deep)
		fprintf(n, "pmustat: warning: --regions: run %u: %llu begin(s) nested deeper than %u were not counted\n",
			run + 1, (unsigned long long)deep, PMUSTAT_REGION_MAX_DEPTH);
	if (unmatched)
		fprintf(n, "pmustat: warning: --regions: run %u: %llu end(s) did not close the innermost open region and were ignored\n",
			run + 1, (unsigned long long)unmatched);
	notes_perf(n, run, r);
	if (r->skipped)
		fprintf(n, "pmustat: warning: --regions: run %u: %u record(s) left unfinished (a thread killed mid-way) were skipped\n",
			run + 1, r->skipped);
}

static int
regions_collect(struct run_ctx *c, unsigned run, struct pmustat_error **err)
{
	struct regions *s = c->regions;
	struct region_result r;
	int rc;

	if (s->sim_mode) {
		backend_sim_take_regions(c, &r);
		if (r.nthreads == 0 && c->notes && c->round <= 1)
			fprintf(c->notes, "pmustat: --regions: %s marked no region under Valgrind: it does not call libpmustat-region, or its libpmustat-region was built without Valgrind's headers (valgrind/callgrind.h)\n",
				c->o->command[0]);
		r.attached = r.nthreads > 0;
	} else if (!s->area) {
		return 0;
	} else {
		rc = region_area_read(s->area, &r, err);
		drop_area(s);
		if (rc)
			return err_set(err, rc, "--regions: %s", err_msg(*err));
	}
	notes_of(c, run, &r);
	if (r.attached)
		s->attached = true;
	for (unsigned i = 0; i < r.ntotals; i++) {
		const struct region_total *t = &r.totals[i];
		struct region_acc *a = acc_of(c, t);

		if (!a) {
			region_result_free(&r);
			return err_set(err, -ENOMEM, "out of memory for the regions' counts");
		}
		a->truncated |= t->truncated;
		if (a->calls_round != c->round || run < a->calls_run) {
			a->calls = t->calls;
			a->threads = t->threads;
			a->calls_round = c->round;
			a->calls_run = run;
		}
		for (unsigned k = 0; k < r.nevents && k < s->nmap; k++) {
			unsigned u = s->map[k];

			if (a->nvalues[u] < c->repeat)
				a->values[(size_t)u * c->repeat + a->nvalues[u]++] = t->sum[k];
		}
	}
	if (!c->plan || c->plan->nruns == 1) {
		if (s->have_last)
			region_result_free(&s->last);
		s->last = r;
		memcpy(s->last_map, s->map, sizeof(s->map));
		s->have_last = true;
	} else {
		region_result_free(&r);
	}
	return 0;
}

static void
regions_discard(struct run_ctx *c, unsigned run)
{
	(void)run;
	if (c->regions)
		drop_area(c->regions);
}

const struct backend_ops regions_step = {
	.name = "regions",
	.begin = regions_begin,
	.end = regions_end,
	.arm = regions_arm,
	.attach = run_attach_nothing,
	.stop = run_stop_nothing,
	.collect = regions_collect,
	.discard = regions_discard,
};

/* Region @g's threads, from the last round of a one-run plan. */
static int
per_thread(struct regions *s, const struct region_acc *a, struct region_out *g, unsigned nrows,
	   const unsigned *row_event, unsigned nhw, unsigned *used)
{
	const struct region_result *r = &s->last;

	g->per_thread = s->threads + *used;
	g->nper_thread = 0;
	for (unsigned i = 0; i < r->ncounts; i++) {
		const struct region_thread_count *tc = &r->counts[i];
		struct region_thread_out *th;
		uint64_t *sums = s->thread_sums + (size_t)*used * nrows;
		bool *counted = s->thread_counted + (size_t)*used * nrows;

		if (strcmp(tc->name, a->name) != 0)
			continue;
		th = &s->threads[(*used)++];
		th->tid = tc->thread < r->nthreads ? r->threads[tc->thread].tid : -1;
		th->calls = tc->calls;
		for (unsigned row = 0; row < nrows; row++) {
			counted[row] = false;
			for (unsigned k = 0; k < r->nevents && row_event[row] < nhw; k++) {
				if (s->last_map[k] == row_event[row]) {
					sums[row] = tc->sum[k];
					counted[row] = true;
				}
			}
		}
		th->sums = sums;
		th->counted = counted;
		g->nper_thread++;
	}
	return 0;
}

static void
free_metrics(struct regions *s)
{
	for (unsigned i = 0; s->metrics && i < s->nacc; i++)
		free(s->metrics[i]);
	free(s->metrics);
	s->metrics = NULL;
}

const struct region_report *
regions_report(struct run_ctx *c, const struct stat_row *rows, unsigned nrows, const unsigned *row_event,
	       unsigned nhw, const struct stat_metrics *m)
{
	struct regions *s = c->regions;
	unsigned nthreads = 0, used = 0;

	(void)rows;
	if (!s)
		return NULL;
	free_metrics(s);
	free(s->out);
	free(s->vals);
	free(s->threads);
	free(s->thread_sums);
	free(s->thread_counted);
	if (s->have_last)
		nthreads = s->last.ncounts;
	s->out = calloc(s->nacc + 1, sizeof(*s->out));
	s->vals = calloc((size_t)(s->nacc + 1) * (nrows + 1), sizeof(*s->vals));
	s->threads = calloc(nthreads + 1, sizeof(*s->threads));
	s->thread_sums = calloc((size_t)(nthreads + 1) * (nrows + 1), sizeof(*s->thread_sums));
	s->thread_counted = calloc((size_t)(nthreads + 1) * (nrows + 1), sizeof(*s->thread_counted));
	s->metrics = calloc(s->nacc + 1, sizeof(struct metric_row *));
	if (!s->out || !s->vals || !s->threads || !s->thread_sums || !s->thread_counted || !s->metrics)
		return NULL;
	for (unsigned i = 0; i < s->nacc; i++) {
		const struct region_acc *a = &s->acc[i];
		struct region_out *g = &s->out[i];
		struct region_value *v = s->vals + (size_t)i * nrows;

		snprintf(g->name, sizeof(g->name), "%s", a->name);
		g->truncated = a->truncated;
		g->calls = a->calls;
		g->threads = a->threads;
		g->ev = v;
		for (unsigned row = 0; row < nrows; row++) {
			unsigned u = row_event[row];

			if (u >= nhw)
				continue;
			v[row].applies = true;
			v[row].values = a->values + (size_t)u * c->repeat;
			v[row].nvalues = a->nvalues[u];
			if (v[row].nvalues == 0 || stats_compute(v[row].values, v[row].nvalues, &v[row].stats))
				continue;
			v[row].counted = true;
			v[row].value = (uint64_t)(v[row].stats.median + 0.5);
		}
		if (s->have_last)
			(void)per_thread(s, a, g, nrows, row_event, nhw, &used);
		/* -M: the same metrics, each from the region's sums of its run. */
		s->metrics[i] = stat_metrics_evaluate_region(m, c, a->values, a->nvalues, &g->nmetrics);
		g->metrics = s->metrics[i];
	}
	s->report.regions = s->out;
	s->report.nregions = s->nacc;
	s->report.attached = s->attached;
	s->report.per_thread = c->o->per_cpu;
	s->report.runs = c->plan ? c->plan->nruns : 1;
	s->report.with_metrics = m && m->active;
	s->report.repeat = c->repeat > 1;
	return &s->report;
}

const struct region_value *
regions_lookup(const struct region_report *r, const struct stat_row *rows, unsigned nrows, const char *query)
{
	for (unsigned i = 0; r && i < r->nregions; i++) {
		const struct region_out *g = &r->regions[i];
		size_t len = strlen(g->name);

		if (strncmp(query, g->name, len) != 0 || query[len] != ':')
			continue;
		for (unsigned row = 0; row < nrows; row++) {
			const struct region_value *v = &g->ev[row];

			if (v->applies && check_event_matches(query + len + 1, rows[row].ev->requested, rows[row].ev->name))
				return v;
		}
	}
	return NULL;
}

void
regions_free(struct run_ctx *c)
{
	struct regions *s = c->regions;

	if (!s)
		return;
	drop_area(s);
	free(s->envp);
	for (unsigned i = 0; i < s->nacc; i++) {
		free(s->acc[i].values);
		free(s->acc[i].nvalues);
	}
	free(s->acc);
	if (s->have_last)
		region_result_free(&s->last);
	free_metrics(s);
	free(s->out);
	free(s->vals);
	free(s->threads);
	free(s->thread_sums);
	free(s->thread_counted);
	free(s);
	c->regions = NULL;
}
