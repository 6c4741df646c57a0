/*
 * stat_metrics.c - see stat_metrics.h.
 */
#include "engine/stat_metrics.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/err.h"
#include "pmu/family.h"
#include "pmu/plan.h"
#include "engine/requests.h"
#include "engine/run.h"
#include "engine/stat.h"
#include "engine/target.h"
#include "events/event_spec.h"
#include "hw/hw.h"
#include "metrics/metric_plan.h"
#include "pmu/msr.h"
#include "pmu/owner.h"
#include "pmu/snapshot.h"

/*
 * Could a --check name be a metric (then the metric table is loaded)?
 * Table events have a dot, raw and modified ones a colon or a slash,
 * perf's generic names are lower case.
 */
static bool
maybe_metric(const char *name)
{
	if (strpbrk(name, ".:-/"))
		return false;
	for (const char *p = name; *p; p++)
		if (*p == '_' || (*p >= 'A' && *p <= 'Z'))
			return true;
	return false;
}

static long
find_metric(const struct metric_table *mt, const char *name)
{
	long hit = metric_table_find(mt, name), alias = -1;

	if (hit >= 0)
		return hit;
	for (size_t i = 0; i < metric_table_count(mt); i++) {
		if (metric_name_matches(name, metric_table_get(mt, i)->name) != 1)
			continue;
		if (alias >= 0)
			return -1;	/* not one metric: no alias */
		alias = (long)i;
	}
	return alias;
}

static int
list_add(struct stat_metrics *m, unsigned metric, bool alone)
{
	unsigned k;

	for (k = 0; k < m->list.n; k++)
		if (m->list.metric[k] == metric)
			break;
	if (k == m->list.n) {
		unsigned *grown = realloc(m->list.metric, (k + 1) * sizeof(*grown));
		bool *named;

		if (!grown)
			return -ENOMEM;
		m->list.metric = grown;
		named = realloc(m->named_alone, (k + 1) * sizeof(*named));
		if (!named)
			return -ENOMEM;
		m->named_alone = named;
		m->list.cap = k + 1;
		m->list.metric[k] = metric;
		m->named_alone[k] = false;
		m->list.n = k + 1;
	}
	if (alone)
		m->named_alone[k] = true;
	return 0;
}

/*
 * One -M argument, term by term: a metric's name (Intel's, perf's, or the
 * short name of an Info metric: IPC) selects it "alone", so that a refusal
 * ends the run; a group selects its members.
 */
static int
select_spec(struct stat_metrics *m, const char *spec, struct pmustat_error **err)
{
	const char *p = spec;
	int rc = 0;

	while (rc == 0 && *p) {
		size_t n = strcspn(p, ",");
		struct metric_list one = { 0, 0, NULL };
		char term[160];
		long hit;

		snprintf(term, sizeof(term), "%.*s", (int)(n < sizeof(term) ? n : sizeof(term) - 1), p);
		p += n;
		if (*p == ',')
			p++;
		/* A name that is also a group (DSB) gives both, as perf does. */
		hit = metric_table_find(m->mt, term);
		rc = metric_table_select(m->mt, term, &one, NULL);
		if (hit < 0 && rc)
			hit = find_metric(m->mt, term);
		if (hit < 0 && rc) {
			/* Neither: the selector's own message, with its "did you mean". */
			(void)metric_table_select(m->mt, term, &one, err);
			metric_list_free(&one);
			return err_wrap(err, "-M %s", spec);
		}
		rc = 0;
		for (unsigned i = 0; rc == 0 && i < one.n; i++)
			rc = list_add(m, one.metric[i], false);
		metric_list_free(&one);
		if (rc == 0 && hit >= 0)
			rc = list_add(m, (unsigned)hit, true);
	}
	return rc ? err_set(err, rc, "out of memory") : 0;
}

int
stat_metrics_select(struct stat_metrics *m, const struct stat_opts *o, struct target *t,
		    struct pmustat_error **err)
{
	bool checks = false;
	int rc;

	memset(m, 0, sizeof(*m));
	for (unsigned k = 0; k < o->nchecks; k++)
		for (unsigned j = 0; j < o->checks[k].nevents; j++)
			checks |= maybe_metric(o->checks[k].events[j]);
	if (!o->nmetric_specs && !checks)
		return 0;
	if (t->table_rc != 0 || !t->choice.metrics[0]) {
		if (!o->nmetric_specs)
			return 0;
		if (t->cpu.pmu.family && t->cpu.pmu.family->no_metrics)
			return err_set(err, -ENOENT, "-M: pmustat has no metric table for this CPU (%s, %s): %s; count the events with -e and compute from their counts",
				       t->key, t->label, t->cpu.pmu.family->no_metrics);
		return err_set(err, -ENOENT, "-M: pmustat has no metric table for this CPU (%s, %s)%s%s", t->key,
			       t->label, t->table_why ? ": " : "", t->table_why ? err_msg(t->table_why) : "");
	}
	rc = metric_table_load(t->events_dir, t->choice.metrics, &m->mt, err);
	if (rc)
		return o->nmetric_specs ? rc : (err_clear(err), 0);
	for (unsigned i = 0; i < o->nmetric_specs; i++) {
		rc = select_spec(m, o->metric_specs[i], err);
		if (rc)
			return rc;
	}
	/* A metric a --check names is counted even when -M does not list it. */
	for (unsigned k = 0; k < o->nchecks; k++) {
		for (unsigned j = 0; j < o->checks[k].nevents; j++) {
			long hit = find_metric(m->mt, o->checks[k].events[j]);

			if (hit >= 0 && list_add(m, (unsigned)hit, true))
				return err_set(err, -ENOMEM, "out of memory");
		}
	}
	m->active = m->list.n > 0;
	return 0;
}

bool
stat_metrics_names(void *ctx, const char *name)
{
	const struct stat_metrics *m = ctx;

	return m && m->mt && m->active && find_metric(m->mt, name) >= 0;
}

/* The counters a batch may use: those nobody holds now (read without writing), or all. */
static void
free_counters(const struct stat_opts *o, const struct target *t, struct hw *hw, int core, uint32_t *gp,
	      uint32_t *fixed)
{
	const struct pmu_caps *caps = &t->cpu.pmu;
	struct pmu_owner_hints hints;
	struct pmu_occupancy occ;
	struct pmu_snapshot snap;
	char wd[32] = "";

	*gp = caps->gp_mask;
	*fixed = caps->fixed_mask;
	if (o->force || !t->live || !hw || o->backend == BACKEND_PERF ||
	    pmu_snapshot_read(hw, core, caps, &snap, NULL) != 0)
		return;
	memset(&hints, 0, sizeof(hints));
	if (hw_read_file(hw, HW_FILE_NMI_WATCHDOG, wd, sizeof(wd)) == 0)
		hints.watchdog_on = pmu_owner_watchdog_on(wd);
	pmu_snapshot_occupancy(&snap, &hints, &occ);
	*gp &= ~occ.busy_gp;
	*fixed &= ~occ.busy_fixed;
}

/*
 * Whether the core has IA32_PERF_METRICS: PERF_CAPABILITIES[15] read when
 * it can be (read only); when it cannot (a dump, no access), every PMU
 * with fixed counter 3 is taken to have it and the run finds out.
 */
static bool
has_perf_metrics(const struct target *t, struct hw *hw, int core)
{
	uint64_t cap = 0;

	if (!(t->cpu.pmu.fixed_mask & (1u << PERF_METRICS_FIXED)))
		return false;
	if (!t->live || !hw || !t->cpu.pmu.pdcm || hw_msr_open(hw, core, false) != 0 ||
	    hw_rdmsr(hw, core, MSR_IA32_PERF_CAPABILITIES, &cap) != 0)
		return true;
	return (cap & PERF_CAP_PERF_METRICS) != 0;
}

/* Metrics whose values need what this counting cannot read. */
static void
refuse_unread(struct metric_plan *plan, const struct metric_table *mt, bool tsc, bool perf_metrics,
	      bool perf_backend, bool intervals)
{
	for (unsigned k = 0; k < plan->n_metrics; k++) {
		struct metric_plan_metric *pm = &plan->metrics[k];
		const char *name = metric_table_get(mt, pm->metric)->name;

		if (pm->refused)
			continue;
		if (pm->needs_tsc && !tsc)
			snprintf(pm->refusal, sizeof(pm->refusal),
				 "%s needs the time-stamp counter (TSC) over the run, which pmustat cannot read here",
				 name);
		else if (pm->needs_perf_metrics && !perf_metrics)
			snprintf(pm->refusal, sizeof(pm->refusal),
				 "%s needs IA32_PERF_METRICS, which this core does not have (IA32_PERF_CAPABILITIES[15] is clear)",
				 name);
		else if (pm->needs_perf_metrics && perf_backend)
			snprintf(pm->refusal, sizeof(pm->refusal),
				 "%s needs IA32_PERF_METRICS, which pmustat reads with the MSR backend only (not --backend perf)",
				 name);
		else if (pm->needs_perf_metrics && intervals)
			snprintf(pm->refusal, sizeof(pm->refusal),
				 "%s needs IA32_PERF_METRICS, which pmustat reads once after the run, not every -I interval",
				 name);
		pm->refused = pm->refusal[0] != '\0';
	}
}

/* Does metric @k read plan event @i? */
static bool
uses(const struct metric_plan *plan, unsigned k, unsigned i)
{
	const struct metric_plan_metric *pm = &plan->metrics[k];

	for (unsigned s = 0; s < pm->n_slots; s++)
		if (pm->event_of_slot[s] == (int)i)
			return true;
	return false;
}

/* A byte of IA32_PERF_METRICS, as an event of run @run beside its TOPDOWN.SLOTS. */
static int
add_perf_metrics_byte(struct stat_events *ev, const struct metric_plan_event *pe, int run,
		      struct pmustat_error **err)
{
	struct event e;

	memset(&e, 0, sizeof(e));
	snprintf(e.name, sizeof(e.name), "%s", pe->name);
	snprintf(e.requested, sizeof(e.requested), "%s", pe->name);
	e.umask = (uint8_t)pe->field;
	e.fixed = -1;
	e.usr = pe->ev.usr;
	e.os = pe->ev.os;
	e.flags = EVENT_F_PERF_METRICS;
	return requests_add_pinned(ev, &e, run, err);
}

int
stat_metrics_request(struct stat_metrics *m, const struct stat_opts *o, struct target *t, struct hw *hw,
		     int core, struct stat_events *ev, FILE *notes, struct pmustat_error **err)
{
	struct metric_plan *plan;
	uint32_t gp, fixed;
	uint64_t tsc;
	unsigned *idx;
	int rc;

	if (!m->active)
		return 0;
	if (!target_can_count(t))
		return err_set(err, -ENODEV, "core %d (%s): %s; metrics need the PMU", t->core, t->key,
			       cpu_why(&t->cpu));
	rc = target_load_table(t, err);
	if (rc)
		return rc;
	metric_machine_init(&m->machine);
	if (hw && t->live)
		(void)metric_machine_read(hw, core, &m->machine);
	metric_consts_compute(&m->machine, &m->consts);
	rc = metric_plan_build(m->mt, &m->list, &m->consts, t->table, &t->cpu.pmu, true, false, &m->plan, err);
	if (rc)
		return rc;
	plan = m->plan;
	/* A CPU of a dump (--dry-run) reads nothing: the plan is what it would be. */
	refuse_unread(plan, m->mt, !hw || !t->live || hw_rdtsc(hw, &tsc) == 0, has_perf_metrics(t, hw, core),
		      o->backend == BACKEND_PERF, o->interval_ms > 0);
	free_counters(o, t, hw, core, &gp, &fixed);
	rc = metric_batch(plan, m->mt, &t->cpu.pmu, gp, fixed, &m->batches, err);
	if (rc)
		return rc;
	for (unsigned k = 0; k < plan->n_metrics; k++) {
		if (m->batches.run_of[k] != METRIC_NO_RUN)
			continue;
		if (m->named_alone[k])
			return err_set(err, -EINVAL, "%s", m->batches.why[k]);
		if (notes)
			fprintf(notes, "pmustat: warning: not counted: %s\n", m->batches.why[k]);
	}
	m->hw_of = malloc((size_t)(plan->n_metrics ? plan->n_metrics : 1) * (plan->n_events ? plan->n_events : 1) *
			  sizeof(*m->hw_of));
	idx = calloc(plan->n_events ? plan->n_events : 1, sizeof(*idx));
	if (!m->hw_of || !idx) {
		free(idx);
		return err_set(err, -ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < (size_t)plan->n_metrics * plan->n_events; i++)
		m->hw_of[i] = -1;
	/* Run by run, so that the runs' numbers are the batches'. */
	for (unsigned b = 0; b < m->batches.nruns && rc == 0; b++) {
		for (unsigned k = 0; k < plan->n_metrics && rc == 0; k++) {
			unsigned n;

			if (m->batches.run_of[k] != b)
				continue;
			n = metric_batch_events(plan, k, idx);
			for (unsigned j = 0; j < n; j++) {
				struct event e = plan->events[idx[j]].ev;
				int h;

				/* A PERF_METRICS byte stands for its TOPDOWN.SLOTS here: say so on the row. */
				if (plan->events[idx[j]].kind == METRIC_EVENT_PERF_METRICS)
					snprintf(e.requested, sizeof(e.requested), "%s", e.name);
				h = requests_add_pinned(ev, &e, (int)b, err);

				if (h < 0) {
					rc = h;
					break;
				}
				/* Every plan event this one counts: itself, and the PERF_METRICS bytes it divides. */
				for (unsigned i = 0; i < plan->n_events && rc == 0; i++) {
					const struct metric_plan_event *pe = &plan->events[i];
					int hi = h;

					if (pe->kind == METRIC_EVENT_TSC || !event_spec_same(&pe->ev, &plan->events[idx[j]].ev))
						continue;
					if (pe->kind == METRIC_EVENT_PERF_METRICS && uses(plan, k, i))
						hi = add_perf_metrics_byte(ev, pe, (int)b, err);
					if (hi < 0)
						rc = hi;
					else
						m->hw_of[(size_t)k * plan->n_events + i] = hi;
				}
				if (rc)
					break;
			}
		}
	}
	free(idx);
	if (rc)
		return err_wrap(err, "-M");
	return 0;
}

/* Median, mean, min, max and sample standard deviation of @v[0..n), n > 0 (@v is sorted). */
static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void
summarise(struct metric_row *r, double *v, unsigned n)
{
	double sum = 0, sq = 0;

	qsort(v, n, sizeof(*v), cmp_double);
	for (unsigned i = 0; i < n; i++)
		sum += v[i];
	r->nvalues = n;
	r->mean = sum / n;
	r->value = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	r->min = v[0];
	r->max = v[n - 1];
	for (unsigned i = 0; i < n; i++)
		sq += (v[i] - r->mean) * (v[i] - r->mean);
	r->stddev = n > 1 ? sqrt(sq / (n - 1)) : 0;
	r->valid = true;
}

/*
 * Metric @k's value in round @j of the counts @values/@nvalues (laid out as
 * c->values: [h * repeat + round] per hardware event h), on the @core-th
 * counted core alone (c->core_values) or summed over them when @core < 0:
 * 0, or -1 when a count of that round is missing. @region: the counts of a
 * code region, whose duration and TSC ticks are not its run's.
 */
static int
eval_round(const struct stat_metrics *m, const struct run_ctx *c, const uint64_t *values, const unsigned *nvalues,
	   bool region, unsigned k, unsigned j, int core, double *vals, struct metric_result *res)
{
	const struct metric_plan *plan = m->plan;
	unsigned b = m->batches.run_of[k];
	unsigned nruns = c->plan && c->plan->nruns ? c->plan->nruns : 1;
	struct metric_machine machine = m->machine;
	struct metric_consts consts;

	for (unsigned i = 0; i < plan->n_events; i++) {
		int h = m->hw_of[(size_t)k * plan->n_events + i];

		vals[i] = NAN;
		/* TSC: its ticks over the run, once per counted core (perf's msr/tsc/ sums them too). */
		if (!region && plan->events[i].kind == METRIC_EVENT_TSC && c->run_tsc && b < nruns &&
		    c->run_tsc[(size_t)j * nruns + b])
			vals[i] = (double)c->run_tsc[(size_t)j * nruns + b] * (core < 0 && c->ncores ? c->ncores : 1);
		if (h < 0)
			continue;
		if (j >= nvalues[h])
			return -1;
		if (core >= 0)
			vals[i] = (double)c->core_values[((size_t)h * c->ncores + (unsigned)core) * c->repeat + j];
		else
			vals[i] = (double)values[(size_t)h * c->repeat + j];
	}
	if (region)
		machine.duration_ms = -1;
	else if (c->run_seconds && b < nruns)
		machine.duration_ms = c->run_seconds[(size_t)j * nruns + b] * 1000.0;
	metric_consts_compute(&machine, &consts);
	metric_plan_eval(plan, m->mt, k, vals, &consts, res);
	return 0;
}

/* Past Intel's threshold? 1, 0, or -1 when a metric it reads has no value in @rows. */
static int
flagged(const struct stat_metrics *m, const struct metric_row *rows, unsigned nrows, const struct metric_desc *d)
{
	double vals[16];
	struct metric_env env = { .events = vals, .n_events = d->n_threshold_metrics, .names = NULL,
				  .consts = &m->consts };
	struct metric_result res;

	if (!d->threshold || d->n_threshold_metrics > sizeof(vals) / sizeof(vals[0]))
		return -1;
	for (unsigned s = 0; s < d->n_threshold_metrics; s++) {
		unsigned want = d->threshold_metrics[s];
		bool found = false;

		for (unsigned k = 0; k < nrows && !found; k++) {
			if (rows[k].name != metric_table_get(m->mt, want)->name || !rows[k].valid)
				continue;
			vals[s] = rows[k].value;
			found = true;
		}
		if (!found)
			return -1;
	}
	metric_expr_eval(d->threshold, &env, &res);
	return res.valid ? res.value != 0 : -1;
}

/* Several cores: metric @k on each, from its counts alone (with -r the median of the rounds'). */
static void
per_core(const struct stat_metrics *m, const struct run_ctx *c, struct metric_cpu_value *cpu_values, unsigned k,
	 double *vals, double *per_round, struct metric_row *r)
{
	struct metric_cpu_value *pc = cpu_values + (size_t)k * c->ncores;

	for (unsigned i = 0; i < c->ncores; i++) {
		struct metric_row one;
		struct metric_result res;
		unsigned n = 0;

		memset(&one, 0, sizeof(one));
		pc[i].cpu = c->cores[i];
		snprintf(pc[i].why, sizeof(pc[i].why), "%s", r->why);
		for (unsigned j = 0; c->values && j < c->rounds; j++) {
			if (eval_round(m, c, c->values, c->nvalues, false, k, j, (int)i, vals, &res))
				break;
			if (res.valid)
				per_round[n++] = res.value;
			else
				snprintf(pc[i].why, sizeof(pc[i].why), "%s", res.why);
		}
		if (n) {
			summarise(&one, per_round, n);
			pc[i].valid = true;
			pc[i].value = one.value;
		}
	}
	r->per_cpu = pc;
	r->ncpus = c->ncores;
}

static void
row_start(struct metric_row *r, const struct metric_desc *d)
{
	r->name = d->name;
	r->unit = d->unit;
	r->groups = d->groups;
	r->threshold = d->threshold_text;
	r->flagged = -1;
}

/*
 * Every metric's value from @values/@nvalues into @rows (n_metrics of them),
 * and with @cpu_values (several cores, the whole run) each core's: 0, or
 * -ENOMEM.
 */
static int
evaluate(const struct stat_metrics *m, const struct run_ctx *c, const uint64_t *values, const unsigned *nvalues,
	 bool region, struct metric_row *rows, struct metric_cpu_value *cpu_values)
{
	const struct metric_plan *plan = m->plan;
	double *vals, *per_round;

	vals = calloc(plan->n_events ? plan->n_events : 1, sizeof(*vals));
	per_round = calloc(c->rounds ? c->rounds : 1, sizeof(*per_round));
	if (!vals || !per_round) {
		free(vals);
		free(per_round);
		return -ENOMEM;
	}
	for (unsigned k = 0; k < plan->n_metrics; k++) {
		const struct metric_desc *d = metric_table_get(m->mt, plan->metrics[k].metric);
		struct metric_row *r = &rows[k];
		struct metric_result res;
		unsigned n = 0;

		row_start(r, d);
		if (m->batches.run_of[k] == METRIC_NO_RUN) {
			snprintf(r->why, sizeof(r->why), "%s", m->batches.why[k]);
			continue;
		}
		r->run = m->batches.run_of[k] + 1;
		snprintf(r->why, sizeof(r->why), "%s",
			 region ? "the region was not entered in the run of its events"
			 : c->command_ran ? "its events were not counted" : "not counted");
		for (unsigned j = 0; values && j < c->rounds; j++) {
			if (eval_round(m, c, values, nvalues, region, k, j, -1, vals, &res))
				break;
			if (res.valid)
				per_round[n++] = res.value;
			else
				snprintf(r->why, sizeof(r->why), "%s", res.why);
		}
		if (n)
			summarise(r, per_round, n);
		else if (region && (strstr(r->why, metric_const_name(METRIC_CONST_DURATION_MS)) ||
				    strstr(r->why, metric_const_name(METRIC_CONST_DURATION_S))))
			snprintf(r->why, sizeof(r->why),
				 "a code region has no duration of its own (DURATIONTIMEINMILLISECONDS is its run's wall time)");
		if (cpu_values)
			per_core(m, c, cpu_values, k, vals, per_round, r);
	}
	for (unsigned k = 0; k < plan->n_metrics; k++)
		if (rows[k].valid)
			rows[k].flagged = flagged(m, rows, plan->n_metrics, metric_table_get(m->mt, plan->metrics[k].metric));
	free(vals);
	free(per_round);
	return 0;
}

void
stat_metrics_evaluate(struct stat_metrics *m, const struct run_ctx *c)
{
	if (!m->active || !m->plan)
		return;
	/* Again (pmustat serve evaluates at each scrape): the new values replace the old. */
	free(m->rows);
	free(m->cpu_values);
	m->cpu_values = NULL;
	m->rows = calloc(m->plan->n_metrics ? m->plan->n_metrics : 1, sizeof(*m->rows));
	if (!m->rows)
		return;
	m->nrows = m->plan->n_metrics;
	/* Several cores: each one's value too, as the events have (-A, JSON per_cpu). */
	if (c->ncores > 1 && c->core_values && c->cores)
		m->cpu_values = calloc((size_t)(m->plan->n_metrics ? m->plan->n_metrics : 1) * c->ncores,
				       sizeof(*m->cpu_values));
	if (evaluate(m, c, c->values, c->nvalues, false, m->rows, m->cpu_values)) {
		free(m->rows);
		m->rows = NULL;
		m->nrows = 0;
	}
}

struct metric_row *
stat_metrics_evaluate_region(const struct stat_metrics *m, const struct run_ctx *c, const uint64_t *values,
			     const unsigned *nvalues, unsigned *n)
{
	struct metric_row *rows;

	*n = 0;
	if (!m || !m->active || !m->plan)
		return NULL;
	rows = calloc(m->plan->n_metrics ? m->plan->n_metrics : 1, sizeof(*rows));
	if (!rows)
		return NULL;
	if (evaluate(m, c, values, nvalues, true, rows, NULL)) {
		free(rows);
		return NULL;
	}
	*n = m->plan->n_metrics;
	return rows;
}

unsigned
stat_metrics_interval(struct stat_metrics *m, const struct run_ctx *c, unsigned round, unsigned run,
		      double time, const uint64_t *deltas, struct metric_row *rows)
{
	const struct metric_plan *plan = m->plan;
	struct metric_machine machine = m->machine;
	struct metric_consts consts;
	uint64_t tsc = 0;
	double ticks = NAN, *vals;
	unsigned n = 0;

	if (!m->active || !plan || !m->hw_of)
		return 0;
	/* A new run starts its intervals at 0 s and at the TSC read as it started. */
	if (round != m->iv_round || run != m->iv_run) {
		m->iv_round = round;
		m->iv_run = run;
		m->iv_time = 0;
		m->iv_tsc = c->tsc_start;
	}
	if (c->tsc_stopped)
		tsc = c->tsc_stop;
	else if (hw_rdtsc(c->hw, &tsc) != 0)
		tsc = 0;
	if (c->tsc_ok && tsc > m->iv_tsc)
		ticks = (double)(tsc - m->iv_tsc) * (c->ncores ? c->ncores : 1);
	machine.duration_ms = (time - m->iv_time) * 1000.0;
	m->iv_time = time;
	m->iv_tsc = tsc;
	metric_consts_compute(&machine, &consts);
	vals = calloc(plan->n_events ? plan->n_events : 1, sizeof(*vals));
	if (!vals)
		return 0;
	for (unsigned k = 0; k < plan->n_metrics; k++) {
		const struct metric_desc *d = metric_table_get(m->mt, plan->metrics[k].metric);
		struct metric_row *r = &rows[n];
		struct metric_result res;

		if (m->batches.run_of[k] == METRIC_NO_RUN || m->batches.run_of[k] + 1 != run)
			continue;
		memset(r, 0, sizeof(*r));
		row_start(r, d);
		r->run = run;
		for (unsigned i = 0; i < plan->n_events; i++) {
			int h = m->hw_of[(size_t)k * plan->n_events + i];

			vals[i] = plan->events[i].kind == METRIC_EVENT_TSC ? ticks : h >= 0 ? (double)deltas[h] : NAN;
		}
		metric_plan_eval(plan, m->mt, k, vals, &consts, &res);
		r->valid = res.valid;
		r->value = res.value;
		snprintf(r->why, sizeof(r->why), "%s", res.valid ? "" : res.why);
		n++;
	}
	for (unsigned k = 0; k < n; k++) {
		long i = metric_table_find(m->mt, rows[k].name);

		if (rows[k].valid && i >= 0)
			rows[k].flagged = flagged(m, rows, n, metric_table_get(m->mt, (size_t)i));
	}
	free(vals);
	return n;
}

void
stat_metrics_free(struct stat_metrics *m)
{
	metric_plan_free(m->plan);
	metric_batches_free(&m->batches);
	metric_list_free(&m->list);
	metric_table_free(m->mt);
	free(m->named_alone);
	free(m->hw_of);
	free(m->rows);
	free(m->cpu_values);
	memset(m, 0, sizeof(*m));
}
