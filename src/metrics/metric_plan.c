#include "config.h"
#include "metrics/metric_plan.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "events/cpu.h"
#include "events/event_spec.h"
#include "events/event_table.h"
#include "metrics/metric_table.h"
#include "pmu/counter_sched.h"
#include "base/err.h"

/* Intel's modifier text that is longer than any real one is refused as such. */
#define MOD_MAX 48

static const char *const perf_metrics_names[] = {
	[PERF_METRICS_RETIRING] = "RETIRING",
	[PERF_METRICS_BAD_SPECULATION] = "BAD_SPECULATION",
	[PERF_METRICS_FRONTEND_BOUND] = "FRONTEND_BOUND",
	[PERF_METRICS_BACKEND_BOUND] = "BACKEND_BOUND",
	[PERF_METRICS_HEAVY_OPERATIONS] = "HEAVY_OPERATIONS",
	[PERF_METRICS_BRANCH_MISPREDICTS] = "BRANCH_MISPREDICTS",
	[PERF_METRICS_FETCH_LATENCY] = "FETCH_LATENCY",
	[PERF_METRICS_MEMORY_BOUND] = "MEMORY_BOUND",
};

/* A message into @buf, cut short if it must be: messages may be long. */
static void
say(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void
say(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
}

static bool
is_uncore(const char *name)
{
	return strncasecmp(name, "UNC_", 4) == 0 || strncasecmp(name, "FREERUN_", 8) == 0;
}

static bool
has_modifier(const char *name, const char *mod)
{
	const char *p = strchr(name, ':');
	size_t len = strlen(mod);

	while (p) {
		p++;
		if (strncasecmp(p, mod, len) == 0 && (p[len] == ':' || !p[len]))
			return true;
		p = strchr(p, ':');
	}
	return false;
}

/* "A, B and 2 more" of the events read by @used that satisfy @pred. */
static void
list_events(const struct metric_desc *d, const bool *used,
	    bool (*pred)(const char *), char *buf, size_t size)
{
	unsigned shown = 0, more = 0;
	size_t len = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < d->n_events; i++) {
		if (!used[i] || !pred(d->events[i]))
			continue;
		if (shown == 2) {
			more++;
			continue;
		}
		len += (size_t)snprintf(buf + len, len < size ? size - len : 0, "%s%s",
					shown ? ", " : "", d->events[i]);
		shown++;
	}
	if (more && len < size)
		snprintf(buf + len, size - len, " and %u more", more);
}

static bool
is_retire_latency(const char *name)
{
	return has_modifier(name, "retire_latency");
}

/* In -e's message about @term, say Intel's @name instead. */
static void
name_in_message(char *msg, size_t size, const char *term, const char *name)
{
	char quoted[EVENT_NAME_MAX + 72], out[512];
	const char *hit;

	say(quoted, sizeof(quoted), "'%s'", term);
	hit = strstr(msg, quoted);
	if (!hit)
		return;
	say(out, sizeof(out), "%.*s'%s'%s", (int)(hit - msg), msg, name, hit + strlen(quoted));
	say(msg, size, "%s", out);
}

/* Parse an unsigned number of Intel's modifier text ("c8", "u0x80"). */
static bool
mod_number(const char *s, unsigned long max, unsigned long *out)
{
	char *end;

	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return false;
	*out = strtoul(s, &end, 0);
	return !*end && *out <= max;
}

/*
 * Resolve Intel's "NAME:mod:..." as -e would resolve the same event with
 * pmustat's modifiers. Returns 0, or -EINVAL with the refusal in @why.
 */
static int
resolve_event(const char *metric, const char *name, const struct event_table *et,
	      const struct pmu_caps *caps, bool usr, bool os, struct metric_plan_event *out,
	      char *why, size_t why_len)
{
	char buf[EVENT_NAME_MAX], spec[EVENT_NAME_MAX + 64], err[512];
	struct pmustat_error *perr = NULL;
	char *mods, *mod, *save = NULL;
	long umask = -1;
	unsigned long v;
	uint64_t ocr = 0;
	bool has_ocr = false;
	struct event *evs = NULL;
	size_t count = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	out->field = -1;
	if ((size_t)snprintf(out->name, sizeof(out->name), "%s", name) >= sizeof(out->name) ||
	    (size_t)snprintf(buf, sizeof(buf), "%s", name) >= sizeof(buf)) {
		say(why, why_len, "%s needs event '%.60s...', whose name is too long", metric,
			 name);
		return -EINVAL;
	}
	mods = strchr(buf, ':');
	if (mods)
		*mods++ = '\0';
	if (strcasecmp(buf, "TSC") == 0 && !mods) {
		out->kind = METRIC_EVENT_TSC;
		return 0;
	}
	if (strncasecmp(buf, "PERF_METRICS.", 13) == 0 && !mods) {
		for (unsigned f = 0; f < sizeof(perf_metrics_names) / sizeof(perf_metrics_names[0]); f++)
			if (strcasecmp(buf + 13, perf_metrics_names[f]) == 0)
				out->field = (int)f;
		if (out->field < 0) {
			say(why, why_len, "%s needs %s, which is not a field of IA32_PERF_METRICS",
				 metric, name);
			return -EINVAL;
		}
		out->kind = METRIC_EVENT_PERF_METRICS;
		snprintf(buf, sizeof(buf), "TOPDOWN.SLOTS");
	}

	/* Intel's modifiers in -e's words, or applied after resolving. */
	spec[0] = '\0';
	for (mod = mods ? strtok_r(mods, ":", &save) : NULL; mod; mod = strtok_r(NULL, ":", &save)) {
		size_t used = strlen(spec);

		if (strlen(mod) > MOD_MAX)
			goto bad_mod;
		if (strcasecmp(mod, "SUP") == 0) {
			usr = false;
			os = true;
		} else if (strcasecmp(mod, "USER") == 0) {
			usr = true;
			os = false;
		} else if (strcmp(mod, "perf_metrics") == 0) {
			/* TOPDOWN.SLOTS read alongside IA32_PERF_METRICS: the count itself. */
		} else if (strcmp(mod, "percore") == 0) {
			say(why, why_len, "%s needs %s summed over both SMT threads of the core, which pmustat does not count (it counts one thread)",
				 metric, name);
			return -EINVAL;
		} else if (strncmp(mod, "eq", 2) == 0 && mod_number(mod + 2, 1, &v)) {
			if (v) {
				say(why, why_len, "%s needs %s with the EQ bit (count when equal to cmask), which pmustat does not program",
					 metric, name);
				return -EINVAL;
			}
		} else if (mod[0] == 'c' && mod_number(mod + 1, 255, &v)) {
			snprintf(spec + used, sizeof(spec) - used, ":cmask=%lu", v);
		} else if (mod[0] == 'e' && mod_number(mod + 1, 1, &v)) {
			if (v)
				snprintf(spec + used, sizeof(spec) - used, ":edge");
		} else if (mod[0] == 'i' && mod_number(mod + 1, 1, &v)) {
			if (v)
				snprintf(spec + used, sizeof(spec) - used, ":inv");
		} else if (mod[0] == 'u' && mod_number(mod + 1, 0xff, &v) && mod[1] == '0') {
			umask = (long)v;
		} else if (strncmp(mod, "ocr_msr_val=", 12) == 0 &&
			   mod_number(mod + 12, UINT64_MAX, &v)) {
			ocr = v;
			has_ocr = true;
		} else {
			goto bad_mod;
		}
	}
	{
		char term[sizeof(buf) + sizeof(spec)];

		snprintf(term, sizeof(term), "%s%s", buf, spec);
		ret = event_spec_parse(term, et, caps, &evs, &count, &perr);
		snprintf(err, sizeof(err), "%s", err_msg(perr));
		err_free(perr);
		if (ret && ret != -ENOMEM)
			name_in_message(err, sizeof(err), term, name);
	}
	if (ret == -ENOMEM)
		return -ENOMEM;
	if (ret || count != 1) {
		if (!et || !event_table_find(et, buf))
			say(why, why_len, "%s needs event %s, which the %s table does not have",
			    metric, buf, et ? event_table_name(et) : "(no)");
		else if (out->kind == METRIC_EVENT_PERF_METRICS)
			say(why, why_len, "%s needs IA32_PERF_METRICS, read with fixed counter 3 (TOPDOWN.SLOTS): %s",
			    metric, err);
		else
			say(why, why_len, "%s needs event %s: %s", metric, name, err);
		free(evs);
		return -EINVAL;
	}
	out->ev = evs[0];
	free(evs);
	snprintf(out->ev.requested, sizeof(out->ev.requested), "%s", name);
	out->ev.usr = usr;
	out->ev.os = os;
	if (umask >= 0) {
		if (out->ev.fixed >= 0 && !out->ev.gp_mask) {
			say(why, why_len, "%s needs %s, a umask on an event that lives only on fixed counter %d",
				 metric, name, out->ev.fixed);
			return -EINVAL;
		}
		out->ev.fixed = -1;
		out->ev.umask = (uint8_t)umask;
	}
	if (has_ocr) {
		if (!out->ev.extra_msr) {
			say(why, why_len, "%s needs %s, an offcore response value for an event that has none",
				 metric, name);
			return -EINVAL;
		}
		out->ev.extra_value = ocr;
		if (out->ev.alt_msr)
			out->ev.alt_value = ocr;
	}
	return 0;

bad_mod:
	say(why, why_len, "%s needs %s, whose modifier '%.48s' pmustat does not know", metric,
		 name, mod);
	return -EINVAL;
}

/* Index of an equal event in the plan, or -1. */
static int
find_event(const struct metric_plan *plan, const struct metric_plan_event *e)
{
	for (unsigned i = 0; i < plan->n_events; i++) {
		const struct metric_plan_event *p = &plan->events[i];

		if (p->kind != e->kind)
			continue;
		if (e->kind == METRIC_EVENT_TSC ||
		    (e->kind == METRIC_EVENT_PERF_METRICS && p->field == e->field) ||
		    (e->kind == METRIC_EVENT_CORE && event_spec_same(&p->ev, &e->ev)))
			return (int)i;
	}
	return -1;
}

/* Why the metric's events (those read under the constants) cannot be counted, or "". */
static void
refuse_early(const struct metric_desc *d, const bool *used, unsigned consts_used, char *why,
	     size_t why_len)
{
	char list[METRIC_REFUSAL_MAX];

	list_events(d, used, is_uncore, list, sizeof(list));
	if (list[0]) {
		say(why, why_len, "%s needs uncore events (%s), which pmustat does not program",
			 d->name, list);
		return;
	}
	list_events(d, used, is_retire_latency, list, sizeof(list));
	if (list[0]) {
		say(why, why_len, "%s needs retire latency (%s), which pmustat does not measure (it is sampled with PEBS)",
			 d->name, list);
		return;
	}
	if (consts_used & (1u << METRIC_CONST_CHAS_PER_SOCKET)) {
		say(why, why_len, "%s needs CHAS_PER_SOCKET, an uncore constant pmustat does not know",
			 d->name);
		return;
	}
	why[0] = '\0';
}

static int
plan_metric(struct metric_plan *plan, const struct metric_desc *d, struct metric_plan_metric *pm,
	    const struct metric_consts *consts, const struct event_table *et,
	    const struct pmu_caps *caps, bool usr, bool os)
{
	struct metric_plan_event *found;
	bool *used;
	int ret = 0;

	pm->n_slots = d->n_events;
	pm->event_of_slot = malloc((d->n_events ? d->n_events : 1) * sizeof(int));
	used = calloc(d->n_events ? d->n_events : 1, sizeof(*used));
	found = calloc(d->n_events ? d->n_events : 1, sizeof(*found));
	if (!pm->event_of_slot || !used || !found) {
		ret = -ENOMEM;
		goto out;
	}
	for (unsigned i = 0; i < d->n_events; i++)
		pm->event_of_slot[i] = -1;
	metric_expr_uses(d->formula, consts, used, d->n_events, &pm->consts_used);
	refuse_early(d, used, pm->consts_used, pm->refusal, sizeof(pm->refusal));
	for (unsigned i = 0; i < d->n_events && !pm->refusal[0]; i++) {
		if (!used[i])
			continue;
		ret = resolve_event(d->name, d->events[i], et, caps, usr, os, &found[i], pm->refusal,
				    sizeof(pm->refusal));
		if (ret == -ENOMEM)
			goto out;
		ret = 0;
	}
	pm->refused = pm->refusal[0] != '\0';
	if (pm->refused)
		goto out;
	/* All or nothing: a refused metric adds no event. */
	for (unsigned i = 0; i < d->n_events; i++) {
		int k;

		if (!used[i])
			continue;
		k = find_event(plan, &found[i]);
		if (k < 0) {
			struct metric_plan_event *grown = realloc(plan->events,
				(plan->n_events + 1) * sizeof(*grown));

			if (!grown) {
				ret = -ENOMEM;
				goto out;
			}
			plan->events = grown;
			plan->events[plan->n_events] = found[i];
			k = (int)plan->n_events++;
		}
		pm->event_of_slot[i] = k;
		pm->needs_perf_metrics |= found[i].kind == METRIC_EVENT_PERF_METRICS;
		pm->needs_tsc |= found[i].kind == METRIC_EVENT_TSC;
	}
out:
	free(used);
	free(found);
	return ret;
}

int
metric_plan_build(const struct metric_table *mt, const struct metric_list *list,
		  const struct metric_consts *consts, const struct event_table *et,
		  const struct pmu_caps *caps, bool usr, bool os, struct metric_plan **out,
		  struct pmustat_error **err)
{
	struct metric_plan *plan = calloc(1, sizeof(*plan));
	int ret = 0;

	*out = NULL;
	if (plan)
		plan->metrics = calloc(list->n ? list->n : 1, sizeof(*plan->metrics));
	if (!plan || !plan->metrics) {
		free(plan);
		err_set(err, -ENOMEM, "metrics: out of memory");
		return -ENOMEM;
	}
	for (unsigned k = 0; k < list->n && ret == 0; k++) {
		const struct metric_desc *d = metric_table_get(mt, list->metric[k]);

		if (!d) {
			err_set(err, -EINVAL, "metric %u is not in the %s table", list->metric[k],
				 metric_table_name(mt));
			ret = -EINVAL;
			break;
		}
		plan->metrics[k].metric = list->metric[k];
		plan->n_metrics = k + 1;
		ret = plan_metric(plan, d, &plan->metrics[k], consts, et, caps, usr, os);
		if (ret == -ENOMEM)
			err_set(err, -ENOMEM, "metrics: out of memory");
	}
	if (ret) {
		metric_plan_free(plan);
		return ret;
	}
	*out = plan;
	return 0;
}

void
metric_plan_free(struct metric_plan *plan)
{
	if (!plan)
		return;
	for (unsigned k = 0; k < plan->n_metrics; k++)
		free(plan->metrics[k].event_of_slot);
	free(plan->metrics);
	free(plan->events);
	free(plan);
}

int
metric_plan_refusal(const struct metric_plan *plan, struct pmustat_error **err)
{
	for (unsigned k = 0; k < plan->n_metrics; k++) {
		if (plan->metrics[k].refused) {
			err_set(err, -EINVAL, "%s", plan->metrics[k].refusal);
			return -EINVAL;
		}
	}
	return 0;
}

void
metric_plan_eval(const struct metric_plan *plan, const struct metric_table *mt, unsigned k,
		 const double *values, const struct metric_consts *consts,
		 struct metric_result *out)
{
	const struct metric_plan_metric *pm = &plan->metrics[k];
	const struct metric_desc *d = metric_table_get(mt, pm->metric);
	double slots[256];
	struct metric_env env = { .events = slots, .n_events = pm->n_slots,
				  .names = d ? d->events : NULL, .consts = consts };

	if (!d || pm->refused || pm->n_slots > sizeof(slots) / sizeof(slots[0])) {
		out->valid = false;
		out->value = 0;
		say(out->why, sizeof(out->why), "%s", pm->refused ? pm->refusal :
			 "internal error: metric not in this table");
		return;
	}
	for (unsigned i = 0; i < pm->n_slots; i++)
		slots[i] = pm->event_of_slot[i] >= 0 ? values[pm->event_of_slot[i]] : NAN;
	metric_expr_eval(d->formula, &env, out);
}

int
metric_plan_fit(const struct metric_plan *plan, const struct metric_table *mt, unsigned k,
		const struct pmu_caps *caps, uint32_t gp_free, uint32_t fixed_free,
		struct metric_fit *out, struct pmustat_error **err)
{
	const struct metric_plan_metric *pm = &plan->metrics[k];
	const struct metric_desc *d = metric_table_get(mt, pm->metric);
	struct event evs[SCHED_MAX_EVENTS];
	struct sched_slot slots[SCHED_MAX_EVENTS];
	unsigned n = 0, runs = 0, bad = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	gp_free &= caps->gp_mask;
	fixed_free &= caps->fixed_mask;
	out->gp_available = (unsigned)__builtin_popcount(gp_free);
	for (unsigned i = 0; i < pm->n_slots; i++) {
		const struct metric_plan_event *e;
		bool dup = false;

		if (pm->event_of_slot[i] < 0)
			continue;
		e = &plan->events[pm->event_of_slot[i]];
		if (e->kind == METRIC_EVENT_TSC)
			continue;
		/* The IA32_PERF_METRICS fields all come with TOPDOWN.SLOTS. */
		for (unsigned j = 0; j < n && !dup; j++)
			dup = event_spec_same(&evs[j], &e->ev);
		if (dup)
			continue;
		if (n == SCHED_MAX_EVENTS) {
			err_set(err, -E2BIG, "%s needs more than %u events in one run", d->name,
				 SCHED_MAX_EVENTS);
			out->events = n + 1;
			return 0;
		}
		evs[n++] = e->ev;
	}
	out->events = n;
	if (!n) {
		out->fits = true;
		return 0;
	}
	ret = sched_plan(evs, n, caps, gp_free, fixed_free, slots, &runs, &bad, err);
	if (ret == -ENOSPC) {
		err_wrap(err, "%s can never be counted on this core", d->name);
		return 0;
	}
	if (ret)
		return ret;
	for (unsigned i = 0; i < n; i++) {
		out->gp_needed += slots[i].kind == SCHED_GP;
		out->fixed_needed += slots[i].kind == SCHED_FIXED;
	}
	out->fits = runs == 1;
	if (!out->fits && out->gp_needed > out->gp_available)
		err_set(err, -ENOSPC, "%s needs %u programmable counters in one run; this core has %u free",
			 d->name, out->gp_needed, out->gp_available);
	else if (!out->fits)
		err_set(err, -ENOSPC, "%s needs %u programmable counters in one run and this core has %u free, but its events' counter restrictions need %u runs",
			 d->name, out->gp_needed, out->gp_available, runs);
	return 0;
}
