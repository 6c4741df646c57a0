/*
 * stat.c - see stat.h: the steps of a stat run in order. Resolve
 * everything touching nothing but CPUID (the CPU, its table, the events,
 * the gates' files); choose the backend; make the plan (around the
 * counters in use, read from the core under its lock); run the rounds;
 * restore; evaluate the gates; report. A failure anywhere still gets a
 * report (JSON consumers always get their record) and becomes the error
 * main() prints.
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/exit_codes.h"
#include "base/invoker.h"
#include "config.h"
#include "engine/core_types.h"
#include "engine/cores.h"
#include "engine/exporter.h"
#include "engine/serve_claim.h"
#include "engine/gates.h"
#include "engine/perf_counters.h"
#include "pmu/plan.h"
#include "engine/regions.h"
#include "engine/requests.h"
#include "engine/run.h"
#include "engine/stat.h"
#include "engine/stat_metrics.h"
#include "engine/target.h"
#include "events/arch_events.h"
#include "events/cpu_source.h"
#include "events/event_spec.h"
#include "events/sim_events.h"
#include "events/event_table.h"
#include "events/sw_events.h"
#include "hw/hw.h"
#include "hw/topology.h"
#include "report/json_text.h"
#include "report/outfile.h"
#include "report/output.h"

/* Everything one invocation holds. */
struct stat_state {
	struct run_ctx c;
	/* The report's --backend sim part: the report points at it, so it lives as long as the report. */
	struct stat_sim rep_sim;
	struct target t;
	bool target_open;
	struct cores cores;
	struct core_types ct;		/* a list across a hybrid's core types */
	struct stat_events ev;
	struct stat_metrics m;		/* -M */
	struct gates *g;		/* NULL without --check, --baseline or --save-baseline */
	struct invoker inv;
	struct outfile out_file;
	FILE *out;
	enum backend backend;		/* the one chosen; AUTO before the choice */
	struct stat_row *rows;
	uint64_t *cpu_values;		/* per row and core: rows' cpu_values point here */
	uint64_t *interval_cpu_deltas;	/* -I with a list of cores: per row and core */
	struct metric_row *interval_metrics;	/* -I with -M: one interval's values */
	struct stats_summary *cpu_stats;
	struct stat_cpu_counter *cpu_counters;	/* per row and core, from each core's plan */
	const char **names;		/* per hardware event, for the plan's printout */
	unsigned csv_headers;		/* --csv-header: the CSV record types named so far */
	unsigned intervals;		/* -I records emitted */
	/* --per-thread, --per-core: each line's label and each row's counts on them. */
	const char **split_labels;
	char (*core_labels)[48];
	unsigned nsplit;
	uint64_t *split_values;		/* --per-core: per row and core group */
	struct serve_claim claim;	/* pmustat serve: its cores or processes */
};

/* The cores to count on (or the dump's CPU), the first one's table. */
static int
open_target(struct stat_state *s, struct pmustat_error **err)
{
	const struct stat_opts *o = s->c.o;
	int rc;

	if (!o->cpu_dump) {
		s->c.hw = hw_linux_new();
		if (!s->c.hw)
			return err_set(err, -ENOMEM, "out of memory");
	}
	rc = cores_resolve(o, &s->cores, err);
	if (rc)
		return rc;
	rc = target_open(&s->t, s->c.hw, o->cpu_dump, s->cores.cpu[0], err);
	if (rc)
		return rc;
	s->target_open = true;
	s->c.core = s->t.core;
	s->cores.cpu[0] = s->t.core;
	s->c.cores = s->cores.cpu;
	s->c.ncores = s->cores.n;
	/* Every core the first one's CPU, or the other core type of its hybrid. */
	if (target_can_count(&s->t) && (rc = core_types_open(&s->ct, s->c.hw, &s->t, s->cores.cpu, s->cores.n, err)))
		return rc;
	if (s->t.table_rc == -ENOENT && target_can_count(&s->t))
		fprintf(stderr, "pmustat: warning: %s; architectural events only\n", err_msg(s->t.table_why));
	else if (s->t.table_rc < 0 && s->t.table_rc != -ENOENT && target_can_count(&s->t))
		return err_set(err, s->t.table_rc, "%s", err_msg(s->t.table_why));
	return 0;
}

/* A list across a hybrid's core types: the events in the other type's table too, each core its type's. */
static int
core_types_bind(struct stat_state *s, struct pmustat_error **err)
{
	int rc;

	rc = core_types_resolve(&s->ct, s->c.o, &s->t, &s->ev, err);
	if (rc || !s->ct.mixed)
		return rc;
	s->c.core_t = s->ct.core_t;
	s->c.core_ev = s->ct.core_ev;
	return 0;
}

/* --backend, and what auto finds (-v says which and why). */
static void
choose_backend(struct stat_state *s)
{
	struct run_ctx *c = &s->c;
	const struct stat_opts *o = c->o;

	if (o->backend == BACKEND_SIM) {
		/* Valgrind counts everything: no PMU, no perf_event, no plan. */
		s->backend = BACKEND_SIM;
		c->nbackends = 0;
		c->backends[c->nbackends++] = &backend_sim;
		if (o->regions && !o->dry_run)
			c->backends[c->nbackends++] = &regions_step;
		if (o->verbose)
			fprintf(stderr, "pmustat: backend sim (Valgrind's Cachegrind simulates the command)\n");
		return;
	}
	if (o->cpu_dump)
		s->backend = o->backend == BACKEND_PERF ? BACKEND_PERF : BACKEND_MSR;
	else
		s->backend = backend_choose(o->backend, s->ev.nhw, c->hw, &s->t.cpu, c->core, c->backend_why,
					    sizeof(c->backend_why));
	/*
	 * Software events only: nothing for the MSR path to do; -p, -t: a
	 * task is the kernel's to follow; -D, --control: the kernel's
	 * counters switch on and off while the command runs.
	 */
	if (s->ev.nhw == 0 || o->npids || o->ntids || o->delay_ms || o->ctl_fd >= 0 || o->cgroup)
		s->backend = BACKEND_PERF;
	c->nbackends = 0;
	c->backends[c->nbackends++] = s->backend == BACKEND_PERF ? &backend_perf : &backend_msr;
	if (s->backend == BACKEND_MSR && s->ev.nsw)
		c->backends[c->nbackends++] = &backend_perf;
	/* After the hardware backend: it reads the plan that one makes. */
	if (o->regions && !o->dry_run)
		c->backends[c->nbackends++] = &regions_step;
	if (o->verbose)
		fprintf(stderr, "pmustat: backend %s%s%s\n", backend_name(s->backend),
			c->backend_why[0] ? ": the MSR path is closed: " : "", c->backend_why);
}

/* Hardware row @r's counter (event @u) on each core, from that core's own plan. */
static void
cpu_counters_of(struct stat_state *s, unsigned r, unsigned u)
{
	struct run_ctx *c = &s->c;
	struct stat_cpu_counter *cc;

	if (!s->cpu_counters || !c->plans)
		return;
	cc = s->cpu_counters + (size_t)r * c->ncores;
	for (unsigned i = 0; i < c->ncores; i++) {
		if (!c->plans[i])
			return;
		plan_counter_name(c->plans[i], u, cc[i].counter, sizeof(cc[i].counter));
		plan_event_note(c->plans[i], u, cc[i].note, sizeof(cc[i].note));
	}
	s->rows[r].cpu_counters = cc;
}

/* One row per spelling; counters from the plan once there is one. */
static int
make_rows(struct stat_state *s, struct pmustat_error **err)
{
	const struct stat_events *ev = &s->ev;

	free(s->rows);
	free(s->cpu_counters);
	s->cpu_counters = NULL;
	s->rows = calloc(ev->nrows + ev->nunsupported + 1, sizeof(*s->rows));
	if (!s->rows)
		return err_set(err, -ENOMEM, "out of memory");
	if (s->c.plans) {
		s->cpu_counters = calloc((size_t)(ev->nrows ? ev->nrows : 1) * (s->c.ncores ? s->c.ncores : 1),
					 sizeof(*s->cpu_counters));
		if (!s->cpu_counters)
			return err_set(err, -ENOMEM, "out of memory");
	}
	/* The default set's hardware events this machine cannot count: after the others. */
	for (unsigned k = 0; k < ev->nunsupported; k++) {
		struct stat_row *row = &s->rows[ev->nrows + k];

		row->ev = &ev->unsupported[k];
		snprintf(row->counter, sizeof(row->counter), "-");
		row->status = "not supported";
	}
	for (unsigned r = 0; r < ev->nrows; r++) {
		struct stat_row *row = &s->rows[r];
		unsigned u = ev->row_event[r];
		const struct event *counted = requests_row_event(ev, r);

		row->ev = &ev->rows[r];
		snprintf(row->counter, sizeof(row->counter), "-");
		row->status = "not counted";
		if (u >= ev->nhw) {
			row->unit = sw_event_of(counted)->unit;
			row->run = 1;	/* the software events count in the first run (-I reads them there) */
			continue;
		}
		/* No counter: the row says where its count comes from, in every output. */
		if (counted->flags & EVENT_F_SIMULATED) {
			snprintf(row->counter, sizeof(row->counter), "simulated");
			row->run = 1;
			continue;
		}
		if (!s->c.plan)
			continue;
		plan_counter_name(s->c.plan, u, row->counter, sizeof(row->counter));
		row->run = s->c.plan->slots[u].run + 1;
		plan_event_note(s->c.plan, u, row->counter_note, sizeof(row->counter_note));
		cpu_counters_of(s, r, u);
	}
	return 0;
}

/* Row @r's count on each core (event @u): with -r, each core's mean (perf's figure). */
static void
fill_cpu_values(struct stat_state *s, unsigned r, unsigned u)
{
	struct run_ctx *c = &s->c;
	struct stat_row *row = &s->rows[r];
	size_t at = (size_t)r * c->ncores;

	if (!s->cpu_values || !c->core_values)
		return;
	for (unsigned i = 0; i < c->ncores; i++) {
		const uint64_t *v = c->core_values + ((size_t)u * c->ncores + i) * c->repeat;
		struct stats_summary *st = &s->cpu_stats[at + i];

		if (stats_compute(v, c->nvalues[u], st))
			return;
		s->cpu_values[at + i] = st->mean_count;
	}
	row->cpu_values = s->cpu_values + at;
	row->cpu_stats = s->cpu_stats + at;
}

/* The rounds' counts into the rows: every round's, their statistics, the mean (as perf stat -r shows). */
static void
fill_rows(struct stat_state *s)
{
	struct run_ctx *c = &s->c;

	free(s->cpu_values);
	free(s->cpu_stats);
	s->cpu_values = calloc((size_t)(s->ev.nrows ? s->ev.nrows : 1) * (c->ncores ? c->ncores : 1),
			       sizeof(*s->cpu_values));
	s->cpu_stats = calloc((size_t)(s->ev.nrows ? s->ev.nrows : 1) * (c->ncores ? c->ncores : 1),
			      sizeof(*s->cpu_stats));

	for (unsigned r = 0; r < s->ev.nrows; r++) {
		struct stat_row *row = &s->rows[r];
		unsigned u = s->ev.row_event[r];
		const struct run_count *rc;

		if (!c->counts)
			continue;
		rc = &c->counts[u];
		row->counted = rc->counted;
		row->value = rc->value;
		snprintf(row->status_buf, sizeof(row->status_buf), "%s", rc->status ? rc->status : "not counted");
		row->status = row->status_buf;
		if (rc->run)
			row->run = rc->run;
		row->perf_times = rc->perf_times;
		row->user_only = rc->user_only;
		row->enabled = rc->enabled;
		row->running = rc->running;
		if (!c->values)
			continue;
		row->values = c->values + (size_t)u * c->repeat;
		row->nvalues = c->nvalues[u];
		if (row->nvalues == 0 || stats_compute(row->values, row->nvalues, &row->stats))
			continue;
		if ((u < s->ev.nhw && s->backend == BACKEND_MSR) || rc->per_cpu)
			fill_cpu_values(s, r, u);
		/* Counted in an earlier round though not in the last: still counted. */
		if (!row->counted)
			row->status = "counted";
		row->counted = true;
		row->value = row->stats.mean_count;
	}
}

/*
 * --per-core: the counted CPUs grouped by package, die and core (SMT
 * siblings together, as perf stat --per-core), each row's per-CPU counts
 * summed over each group. A CPU whose place sysfs does not say is a group
 * of its own.
 */
static int
split_per_core(struct stat_state *s, struct pmustat_error **err)
{
	struct run_ctx *c = &s->c;
	struct cpu_topology *where = calloc(c->ncores ? c->ncores : 1, sizeof(*where));
	unsigned *group = calloc(c->ncores ? c->ncores : 1, sizeof(*group)), *members;
	unsigned n = 0;

	s->core_labels = calloc(c->ncores ? c->ncores : 1, sizeof(*s->core_labels));
	s->split_labels = calloc(c->ncores ? c->ncores : 1, sizeof(*s->split_labels));
	s->split_values = calloc((size_t)(s->ev.nrows ? s->ev.nrows : 1) * (c->ncores ? c->ncores : 1),
				 sizeof(*s->split_values));
	members = calloc(c->ncores ? c->ncores : 1, sizeof(*members));
	if (!where || !group || !members || !s->core_labels || !s->split_labels || !s->split_values) {
		free(where);
		free(group);
		free(members);
		return err_set(err, -ENOMEM, "out of memory");
	}
	for (unsigned i = 0; i < c->ncores; i++) {
		unsigned g;

		if (topology_of("/sys/devices/system/cpu", c->cores[i], &where[i]))
			where[i] = (struct cpu_topology){ -1, -1, -1 - c->cores[i] };
		for (g = 0; g < i; g++)
			if (where[g].package == where[i].package && where[g].die == where[i].die &&
			    where[g].core == where[i].core)
				break;
		group[i] = g < i ? group[g] : n++;
		members[group[i]]++;
		if (g == i)
			snprintf(s->core_labels[group[i]], sizeof(s->core_labels[0]), where[i].core >= 0 ? "S%d-D%d-C%d" : "CPU%d",
				 where[i].core >= 0 ? where[i].package : c->cores[i], where[i].die, where[i].core);
	}
	for (unsigned g = 0; g < n; g++) {
		size_t len = strlen(s->core_labels[g]);

		snprintf(s->core_labels[g] + len, sizeof(s->core_labels[0]) - len, " %u", members[g]);
		s->split_labels[g] = s->core_labels[g];
	}
	for (unsigned r = 0; r < s->ev.nrows; r++) {
		if (!s->rows[r].cpu_values)
			continue;
		for (unsigned i = 0; i < c->ncores; i++)
			s->split_values[(size_t)r * n + group[i]] += s->rows[r].cpu_values[i];
		s->rows[r].split_values = s->split_values + (size_t)r * n;
	}
	s->nsplit = n;
	free(where);
	free(group);
	free(members);
	return 0;
}

/* --per-thread: each watched thread's line, from the perf backend's counts. */
static int
split_per_thread(struct stat_state *s, struct pmustat_error **err)
{
	struct run_ctx *c = &s->c;

	if (!c->nthreads)
		return 0;
	s->split_labels = calloc(c->nthreads, sizeof(*s->split_labels));
	if (!s->split_labels)
		return err_set(err, -ENOMEM, "out of memory");
	for (unsigned t = 0; t < c->nthreads; t++)
		s->split_labels[t] = c->thread_labels[t];
	for (unsigned r = 0; r < s->ev.nrows; r++)
		if (s->rows[r].counted)
			s->rows[r].split_values = c->thread_values + (size_t)s->ev.row_event[r] * c->nthreads;
	s->nsplit = c->nthreads;
	return 0;
}

/* The -I callback (the sampler's thread): one record of this run's hardware rows. */
static void
emit_interval(void *arg, double time, const uint64_t *deltas, const uint64_t *core_deltas)
{
	static bool header_done;
	struct stat_state *s = arg;
	uint64_t row_deltas[EVENT_SPEC_MAX_EVENTS];
	struct stat_interval iv;
	unsigned n = 0;

	/* The perf backend reads its software events too; beside the MSR backend they are not sampled. */
	unsigned last = s->c.backends[0] == &backend_perf ? s->ev.nhw + s->ev.nsw : s->ev.nhw;

	/* -I N: N intervals, then no more (perf's --interval-count); the command runs on. */
	if (s->c.o->interval_count && s->intervals >= s->c.o->interval_count)
		return;
	s->intervals++;
	for (unsigned r = 0; r < s->ev.nrows && s->ev.row_event[r] < last; r++) {
		/* Per row and core (-A, --json with a list): the sampler thread's own buffer. */
		for (unsigned k = 0; s->interval_cpu_deltas && k < s->c.ncores; k++)
			s->interval_cpu_deltas[(size_t)n * s->c.ncores + k] =
				core_deltas[(size_t)k * SCHED_MAX_EVENTS + s->ev.row_event[r]];
		row_deltas[n++] = deltas[s->ev.row_event[r]];
	}
	iv.time = time;
	iv.round = s->c.round ? s->c.round : 1;
	iv.run = s->c.cur_run;
	iv.rows = s->rows;
	iv.nrows = n;
	iv.deltas = row_deltas;
	iv.cores = s->c.cores;
	iv.ncores = s->c.ncores;
	iv.cpu_deltas = s->interval_cpu_deltas;
	iv.per_cpu = s->c.o->per_cpu;
	iv.metrics = s->interval_metrics;
	iv.nmetrics = s->interval_metrics ? stat_metrics_interval(&s->m, &s->c, iv.round, iv.run, time, deltas,
								  s->interval_metrics) : 0;
	iv.header = !header_done;
	header_done = true;
	iv.csv_headers = s->c.o->csv_header ? &s->csv_headers : NULL;
	output_interval(s->out, &iv, s->c.o->sep, s->c.o->json);
}

/* --dry-run: the plan, on stderr when the record goes there; nothing is touched. */
static int
dry_run(struct stat_state *s, struct pmustat_error **err)
{
	struct run_ctx *c = &s->c;
	FILE *out = (c->o->json || c->o->sep || c->o->exposition) ? stderr : s->out;
	int rc;

	if (c->backends[0] == &backend_sim) {
		backend_sim_print_dry(c, out);
		rc = make_rows(s, err);
		for (unsigned r = 0; rc == 0 && r < s->ev.nrows; r++)
			s->rows[r].status = "not counted: dry run";
		return rc;
	}
	rc = c->backends[0] == &backend_perf ? backend_perf_plan(c, err) : backend_msr_plan_dry(c, err);
	if (rc)
		return rc;
	s->names = calloc(s->ev.nhw ? s->ev.nhw : 1, sizeof(*s->names));
	if (!s->names)
		return err_set(err, -ENOMEM, "out of memory");
	for (unsigned u = 0; u < s->ev.nhw; u++)
		s->names[u] = s->ev.hw[u].requested[0] ? s->ev.hw[u].requested : s->ev.hw[u].name;
	/* The kernel's generic events have no MSR plan: the kernel places them. */
	for (unsigned i = 0; s->ev.nhw && !s->ev.kernel_generic && i < (c->plans ? c->ncores : 1); i++)
		plan_print(c->plans ? c->plans[i] : c->plan, s->t.label, s->names, out);
	if (c->backends[0] == &backend_perf || (c->nbackends >= 2 && c->backends[1] == &backend_perf))
		backend_perf_print_dry(c, c->backends[0] == &backend_perf, out);
	rc = make_rows(s, err);
	for (unsigned r = 0; rc == 0 && r < s->ev.nrows; r++)
		s->rows[r].status = "not counted: dry run";
	return rc;
}

static void
build_report(struct stat_state *s, struct stat_report *r);

/*
 * pmustat serve's scrape (the counting thread, run.h's on_scrape): the
 * counts the backends peeked into rows, each core's own, and the
 * exposition the scrape asked for.
 */
static void
on_scrape(void *arg, struct exporter *ex)
{
	struct stat_state *s = arg;
	struct run_ctx *c = &s->c;
	struct stat_report rep;

	/* The counts so far as the one round's values, as at the end; the round's own values come after. */
	run_keep_counts(c);
	fill_rows(s);
	stat_metrics_evaluate(&s->m, c);
	build_report(s, &rep);
	rep.live = true;
	exporter_publish(ex, output_exposition_text(&rep, exporter_wanted(ex)));
	for (unsigned u = 0; u < s->ev.nhw + s->ev.nsw; u++)
		c->nvalues[u] = 0;
}

/* pmustat serve: listen once the counters are ours (a second serve on these cores failed before). */
static int
serve_start(struct stat_state *s, struct pmustat_error **err)
{
	struct run_ctx *c = &s->c;
	int rc;

	if (c->plan && c->plan->nruns > 1)
		return err_set(err, -E2BIG,
			       "serve counts every event at once, and these need %u runs of the counters (a run per batch, as a command would be run once per batch); name fewer events",
			       c->plan->nruns);
	/* The MSR backend holds the cores' locks already (hw/cpulock.h): a second serve there failed in begin(). */
	rc = s->backend == BACKEND_MSR ? 0 : serve_claim(&s->claim, c->cores, c->ncores, c->o->pids, c->o->npids, err);
	if (rc == 0)
		rc = exporter_start(c->o->serve_listen, &c->exporter, err);
	if (rc)
		return rc;
	c->on_scrape = on_scrape;
	fprintf(stderr, "pmustat serve: listening on http://%s/metrics\n", exporter_address(c->exporter));
	return 0;
}

/* Count: the backends' begin, the rounds, their end on every path. */
static int
count(struct stat_state *s, struct pmustat_error **err)
{
	struct run_ctx *c = &s->c;
	unsigned begun = 0;
	int rc = 0;

	if (c->backends[0] == &backend_perf && c->core_t && s->ev.nhw)
		return err_set(err, -ENOTSUP,
			       "a list across core types counts hardware events through the MSR backend only (the kernel has a PMU per type); list one type's cores for --backend perf%s%s",
			       c->backend_why[0] ? "; and the MSR path is closed: " : "", c->backend_why);
	if (c->backends[0] == &backend_perf) {
		rc = backend_perf_plan(c, err);
		if (rc)
			return rc;
	}
	c->counts = calloc(s->ev.nhw + s->ev.nsw + 1, sizeof(*c->counts));
	c->core_counts = calloc((size_t)(s->ev.nhw + s->ev.nsw + 1) * c->ncores, sizeof(*c->core_counts));
	if (!c->counts || !c->core_counts)
		return err_set(err, -ENOMEM, "out of memory");
	for (; begun < c->nbackends; begun++) {
		rc = c->backends[begun]->begin(c, err);
		if (rc) {
			begun++;	/* its end() cleans up what it did */
			break;
		}
	}
	if (rc == 0)
		rc = make_rows(s, err);
	if (rc == 0 && c->o->interval_ms && (c->o->cpu_list || c->o->all_cpus)) {
		s->interval_cpu_deltas = calloc((size_t)(s->ev.nrows ? s->ev.nrows : 1) * c->ncores,
						sizeof(*s->interval_cpu_deltas));
		if (!s->interval_cpu_deltas)
			rc = err_set(err, -ENOMEM, "out of memory");
	}
	if (rc == 0 && c->o->interval_ms && s->m.active && s->m.plan) {
		s->interval_metrics = calloc(s->m.plan->n_metrics ? s->m.plan->n_metrics : 1, sizeof(*s->interval_metrics));
		if (!s->interval_metrics)
			rc = err_set(err, -ENOMEM, "out of memory");
	}
	if (rc == 0 && c->o->serve_listen)
		rc = serve_start(s, err);
	if (rc == 0) {
		c->emit_interval = emit_interval;
		c->emit_arg = s;
		(void)run_rounds(c);
	}
	exporter_stop(c->exporter);
	c->exporter = NULL;
	serve_claim_release(&s->claim);
	while (begun-- > 0)
		c->backends[begun]->end(c);
	return rc;
}

/* -r: each round's wall time (its runs summed), their statistics in ns. */
static void
round_elapsed(const struct run_ctx *c, struct stats_summary *st)
{
	unsigned nruns = c->plan && c->plan->nruns ? c->plan->nruns : 1;
	uint64_t *ns;

	memset(st, 0, sizeof(*st));
	if (!c->run_seconds || c->rounds < 2 || !(ns = calloc(c->rounds, sizeof(*ns))))
		return;
	for (unsigned r = 0; r < c->rounds; r++) {
		double sec = 0;

		for (unsigned k = 0; k < nruns; k++)
			sec += c->run_seconds[(size_t)r * nruns + k];
		ns[r] = (uint64_t)(sec * 1e9 + 0.5);
	}
	(void)stats_compute(ns, c->rounds, st);
	free(ns);
}

/* The core type of core @i of the list, as the kernel names its PMU: "cpu", or "cpu_core"/"cpu_atom" on a hybrid. */
static const char *
core_pmu_of(const struct stat_state *s, unsigned i)
{
	const struct target *t = s->c.core_t ? s->c.core_t[i] : &s->t;
	const char *type = s->target_open && t->cpu.hybrid ? cpu_core_type_name(t->cpu.core_type) : NULL;

	return !type ? "cpu" : strcmp(type, "core") == 0 ? "cpu_core" : "cpu_atom";
}

/* Each row's HELP: its table's description, a software event's, or NULL. */
static void
fill_help(struct stat_state *s, unsigned nrows)
{
	for (unsigned r = 0; r < nrows; r++) {
		const struct event *ev = s->rows[r].ev;
		const struct sw_event *sw = event_is_software(ev) ? sw_event_of(ev) : NULL;
		const struct event_desc *d = !sw && s->target_open && s->t.table ? event_table_find(s->t.table, ev->name) : NULL;

		const struct arch_event *a = !sw && !d ? arch_event_by_key(ev->name) : NULL;

		s->rows[r].help = sw ? sw->desc : d ? d->description : a ? a->name : NULL;
	}
}

/*
 * --textfile DIR: the Prometheus exposition as DIR/pmustat-NAME.prom,
 * written to a temporary file and renamed (outfile.h), so node_exporter's
 * textfile collector never reads half of it.
 */
static void
write_textfile(struct stat_state *s, const struct stat_report *rep)
{
	const struct stat_opts *o = s->c.o;
	struct pmustat_error *e = NULL;
	struct outfile f;
	char name[160], path[PATH_MAX];
	char *text;

	if (o->textfile_name)
		snprintf(name, sizeof(name), "%s", o->textfile_name);
	else if (o->command) {
		const char *base = strrchr(o->command[0], '/');
		size_t n = 0;

		/* The command's file name, each character outside [A-Za-z0-9_-] as '_'. */
		for (base = base ? base + 1 : o->command[0]; *base && n + 1 < sizeof(name); base++) {
			char ch = *base;
			bool plain = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
				     ch == '_' || ch == '-';

			if (!plain)
				ch = '_';
			name[n++] = ch;
		}
		name[n] = '\0';
	} else
		snprintf(name, sizeof(name), "%s", o->npids ? "pid" : "cores");
	snprintf(path, sizeof(path), "%s/pmustat-%s.prom", o->textfile_dir, name[0] ? name : "command");
	text = output_exposition_text(rep, EXPOSITION_PROMETHEUS);
	if (!text) {
		err_set(&e, -ENOMEM, "--textfile %s: out of memory", path);
		run_fail_err(&s->c, &e);
		return;
	}
	if (outfile_open(&f, "--textfile", path, &s->inv, &e) == 0) {
		(void)outfile_write_all(&f, text, strlen(text));
		(void)outfile_commit(&f, &e);
	}
	free(text);
	if (e)
		run_fail_err(&s->c, &e);
}

/* The report of the counts so far or at the end, into @rep (pointing into @s). */
static void
build_report(struct stat_state *s, struct stat_report *r)
{
	struct run_ctx *c = &s->c;
	struct stat_report rep;
	struct stat_sim *rep_sim = &s->rep_sim;

	memset(&rep, 0, sizeof(rep));
	memset(rep_sim, 0, sizeof(*rep_sim));
	rep.version = PMUSTAT_VERSION;
	rep.cpu = s->target_open ? s->t.label : NULL;
	rep.core = c->core;
	rep.cores = c->cores;
	rep.ncores = c->ncores;
	rep.per_cpu = c->o->per_cpu;
	rep.listed_cores = c->ncores > 1 || c->o->cpu_list || c->o->all_cpus;
	rep.counts_cores = c->nbackends && run_counts_cores(c);
	rep.event_table = s->target_open && s->t.table_rc == 0 && target_can_count(&s->t) ? s->t.choice.table : NULL;
	rep.command = c->o->command;
	rep.pids = c->o->pids;
	rep.npids = c->o->npids;
	rep.tids = c->o->tids;
	rep.ntids = c->o->ntids;
	rep.metric_only = c->o->metric_only;
	rep.cgroup = c->o->cgroup;
	rep.split_labels = s->split_labels;
	rep.nsplit = s->nsplit;
	rep.exit_status = c->status;
	rep.command_ran = c->command_ran;
	rep.elapsed = c->elapsed;
	if (c->command_ran)
		round_elapsed(c, &rep.round_elapsed);
	rep.runs = c->plan ? c->plan->nruns : 0;
	rep.read_method = c->command_ran ? c->read_method : NULL;
	rep.window = c->command_ran ? c->window : NULL;
	rep.error = c->error ? err_msg(c->error) : NULL;
	rep.backend = s->backend != BACKEND_AUTO ? backend_name(s->backend) : NULL;
	if (s->backend == BACKEND_SIM) {
		rep.sim = rep_sim;
		rep_sim->valgrind_version = c->sim_version[0] ? c->sim_version : NULL;
		rep_sim->tool = c->sim_tool ? c->sim_tool : "cachegrind";
		rep_sim->glibc_tunables = sim_glibc_tunables;
		rep_sim->processes = c->sim_processes;
	}
	rep.software = s->ev.nsw > 0;
	rep.rows = s->rows;
	rep.nrows = s->rows ? s->ev.nrows + s->ev.nunsupported : 0;
	rep.not_supported_why = s->ev.nunsupported ? s->ev.unsupported_why : NULL;
	rep.sw_not_supported_why = c->sw_unsupported_why[0] ? c->sw_unsupported_why : NULL;
	rep.have_times = c->command_ran && c->o->command && !c->o->npids && !c->o->ntids;
	rep.user_time = c->user_time;
	rep.sys_time = c->sys_time;
	rep.cpu_model = s->target_open ? s->t.key : NULL;
	rep.repeat = c->o->repeat;
	rep.rounds = c->rounds;
	rep.checks = c->o->checks;
	rep.nchecks = c->o->nchecks;
	rep.check_results = s->g && s->g->evaluated && c->o->nchecks ? s->g->results : NULL;
	rep.baseline_path = c->o->baseline;
	rep.baseline = s->g && s->g->evaluated && c->o->baseline ? s->g->cmp : NULL;
	rep.nbaseline = rep.baseline ? s->g->ncmp : 0;
	rep.tolerance_both = c->o->tolerances.both;
	rep.gate_failed = s->g && s->g->failed;
	rep.json_one_line = c->o->interval_ms > 0;
	rep.verbose = c->o->verbose;
	rep.csv_header = c->o->csv_header;
	rep.csv_headers = &s->csv_headers;
	rep.regions = regions_report(c, s->rows, rep.nrows, s->ev.row_event, s->ev.nhw, &s->m);
	rep.metrics = s->m.rows;
	rep.nmetrics = s->m.nrows;
	rep.with_metrics = c->o->nmetric_specs > 0 || s->m.active;
	{
		static const char *pmus[CPU_SETSIZE];

		for (unsigned i = 0; i < c->ncores && i < CPU_SETSIZE; i++)
			pmus[i] = core_pmu_of(s, i);
		rep.core_pmu = pmus;
		rep.pmu = c->ncores ? pmus[0] : "cpu";
		for (unsigned i = 1; i < c->ncores; i++)
			if (strcmp(pmus[i], pmus[0]) != 0)
				rep.pmu = "cpu";
	}
	if (s->rows)
		fill_help(s, rep.nrows);
	*r = rep;
}

static void
report(struct stat_state *s)
{
	struct run_ctx *c = &s->c;
	struct stat_report rep;

	build_report(s, &rep);
	if (c->o->json)
		(void)output_json(s->out, &rep);
	else if (c->o->exposition)
		(void)output_exposition(s->out, &rep, (enum exposition)c->o->exposition);
	else if (c->o->sep)
		output_csv(s->out, &rep, c->o->sep);
	else if (c->command_ran)
		output_human(s->out, &rep);
	/*
	 * PASS/FAIL lines: after the table; with -x/--json they are records
	 * of the output, and repeated on stderr only when that goes to a file.
	 */
	if (c->o->textfile_dir)
		write_textfile(s, &rep);
	if (!c->o->json && !c->o->sep && !c->o->exposition)
		output_gate_lines(s->out, &rep);
	else if (s->out != stderr)
		output_gate_lines(stderr, &rep);
	if (c->o->save_baseline) {
		struct pmustat_error *e = NULL;

		if (gates_save_baseline(s->g, c->o, &rep, c->command_ran, c->status, c->notes, &e))
			run_fail_err(c, &e);
	}
	/* JSON text is UTF-8: say that some was repaired (where it does not spoil the record's stream). */
	if (c->o->json && json_text_repaired() && c->notes)
		fprintf(c->notes, "pmustat: note: text that is not valid UTF-8 (an event name, an argument) is written with U+FFFD in place of each bad byte in the JSON\n");
}

static void
state_free(struct stat_state *s)
{
	if (s->c.values)
		free(s->c.values);
	free(s->c.nvalues);
	free(s->c.run_seconds);
	free(s->c.run_tsc);
	stat_metrics_free(&s->m);
	free(s->c.counts);
	free(s->c.command_env);
	for (unsigned i = 1; s->c.plans && i < s->c.ncores; i++)
		plan_free(s->c.plans[i]);
	free(s->c.plans);
	free(s->c.nb_cores);
	regions_free(&s->c);
	plan_free(s->c.plan);
	err_free(s->c.error);
	gates_free(s->g);
	requests_free(&s->ev);
	if (s->target_open)
		target_close(&s->t);
	hw_free(s->c.hw);
	cores_free(&s->cores);
	core_types_free(&s->ct);
	free(s->c.core_values);
	free(s->c.core_counts);
	free(s->rows);
	free(s->cpu_counters);
	free(s->cpu_values);
	free(s->cpu_stats);
	free(s->interval_cpu_deltas);
	free(s->interval_metrics);
	free(s->names);
	free(s->split_labels);
	free(s->core_labels);
	free(s->split_values);
	free(s->c.thread_values);
	free(s->c.thread_labels);
}

int
stat_main(const struct stat_opts *o, struct pmustat_error **err)
{
	static struct stat_state s;
	struct pmustat_error *e = NULL;
	int status;

	memset(&s, 0, sizeof(s));
	s.c.o = o;
	s.c.t = &s.t;
	s.c.ev = &s.ev;
	s.c.core = -1;
	s.c.perf = perf_sys_linux();
	s.c.inv = &s.inv;
	/* Who the command runs as and the files are written for: never a guess. */
	if (invoker_get(&s.inv, err))
		return EXIT_PMUSTAT_FAILURE;
	output_set_big_num(!o->no_big_num);
	if (o->output && strcmp(o->output, "-") == 0) {
		/* perf's "-o -" habit: standard output, pmustat's notes staying on stderr. */
		outfile_wrap(&s.out_file, stdout, "standard output");
	} else if (o->output) {
		if ((o->append ? outfile_open_append : outfile_open)(&s.out_file, "-o", o->output, &s.inv, err))
			return EXIT_PMUSTAT_FAILURE;
	} else if (o->log_fd >= 0) {
		static char name[32];
		FILE *f = fdopen(o->log_fd, "w");

		if (!f)
			return err_set(err, -errno, "--log-fd %d: %s", o->log_fd, strerror(errno)), EXIT_PMUSTAT_FAILURE;
		snprintf(name, sizeof(name), "descriptor %d (--log-fd)", o->log_fd);
		outfile_wrap(&s.out_file, f, name);
	} else {
		outfile_wrap(&s.out_file, stderr, "standard error");
	}
	s.out = s.out_file.f;
	/* pmustat's notes go to stderr, unless -x/--json output goes there (the record stays pure). */
	s.c.notes = (o->json || o->sep || o->exposition) && s.out == stderr ? NULL : stderr;

	/* Rows exist once the events resolved, so every later failure can still list them. */
	if (open_target(&s, &e) || stat_metrics_select(&s.m, o, &s.t, &e) ||
	    requests_resolve(o, &s.t, &s.ev, stat_metrics_names, &s.m, &e) ||
	    stat_metrics_request(&s.m, o, &s.t, s.c.hw, s.c.core, &s.ev, s.c.notes, &e) ||
	    core_types_bind(&s, &e)) {
		if (o->dry_run && !o->cpu_dump && s.target_open && !target_can_count(&s.t))
			err_append(&e, "; 'pmustat --dry-run --cpu-dump FILE' prints the plan for the CPU of a libcpuid raw dump");
		run_fail_err(&s.c, &e);
		requests_free(&s.ev);
		(void)make_rows(&s, &e);
		goto out;
	}
	if (gates_prepare(&s.g, o, &s.t, &s.inv, &e)) {
		run_fail_err(&s.c, &e);
		(void)make_rows(&s, &e);
		goto out;
	}
	choose_backend(&s);
	if (o->dry_run ? dry_run(&s, &e) : count(&s, &e))
		run_fail_err(&s.c, &e);
	if (!s.rows)
		(void)make_rows(&s, &e);
	fill_rows(&s);
	if (s.c.command_ran && !s.c.error && (o->per_core ? split_per_core(&s, &e) : o->per_thread ? split_per_thread(&s, &e) : 0))
		run_fail_err(&s.c, &e);
	stat_metrics_evaluate(&s.m, &s.c);
	if (s.c.command_ran && !s.c.error && !o->dry_run &&
	    gates_evaluate(s.g, o, s.rows, s.ev.nrows, regions_report(&s.c, s.rows, s.ev.nrows, s.ev.row_event, s.ev.nhw, &s.m),
			   s.m.rows, s.m.nrows, &s.c.status, &e))
		run_fail_err(&s.c, &e);
out:
	err_clear(&e);
	report(&s);
	/*
	 * The results are written, or pmustat failed: a write that did not
	 * reach the file (a full disk, /dev/full, a closed stderr) names the
	 * file, which is then left as it was.
	 */
	if (outfile_commit(&s.out_file, &e) != 0) {
		if (s.c.error)
			err_append(&s.c.error, "; and %s", err_msg(e));
		else
			run_fail_err(&s.c, &e);
		s.c.status = EXIT_PMUSTAT_FAILURE;
		err_clear(&e);
	}
	status = s.c.status;
	if (s.c.error) {
		err_move(err, &s.c.error);
		/* The command could not run: its own status (126, 127) stays. */
		if (status != EXIT_CANNOT_EXEC && status != EXIT_NOT_FOUND)
			status = EXIT_PMUSTAT_FAILURE;
		(*err)->status = status;
	}
	state_free(&s);
	return status;
}
