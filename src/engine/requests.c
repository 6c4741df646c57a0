/*
 * requests.c - see requests.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/text.h"
#include "engine/requests.h"
#include "engine/stat.h"
#include "engine/target.h"
#include "events/event_spec.h"
#include "events/sim_events.h"
#include "events/sw_events.h"
#include "pmus/netburst/nb_spec.h"
#include "pmu/counter_sched.h"
#include "report/check.h"
#include "report/ratios.h"

/* The most rows: every spelling of at most this many -e terms. */
#define MAX_ROWS EVENT_SPEC_MAX_EVENTS

static int
grow(void **array, unsigned *cap, unsigned need, size_t size)
{
	unsigned ncap;
	void *p;

	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 16;
	while (ncap < need)
		ncap *= 2;
	p = realloc(*array, (size_t)ncap * size);
	if (!p)
		return -ENOMEM;
	*array = p;
	*cap = ncap;
	return 0;
}

/* Index of the counted event that counts what @e counts, or -1. */
static int
find_same(const struct stat_events *s, const struct event *e)
{
	const struct event *list = event_is_software(e) ? s->sw : s->hw;
	unsigned n = event_is_software(e) ? s->nsw : s->nhw;

	for (unsigned i = 0; i < n; i++)
		if (event_spec_same(&list[i], e))
			return (int)(event_is_software(e) ? s->nhw + i : i);
	return -1;
}

/*
 * The same event named in a group and elsewhere: counted once, so its
 * groups become one (every event of them in one run).
 */
static void
join_groups(struct stat_events *s, unsigned idx, const struct event *e)
{
	unsigned old = s->hw[idx].group;

	if (!e->group || old == e->group)
		return;
	for (unsigned i = 0; old && i < s->nhw; i++)
		if (s->hw[i].group == old)
			s->hw[i].group = e->group;
	s->hw[idx].group = e->group;
}

static void order_rows(struct stat_events *s);

/* A new hardware event, pinned to @run (-1: any): its index, or -ENOMEM. */
static int
add_hw(struct stat_events *s, const struct event *e, int run)
{
	unsigned cap = s->cap_hw;

	if (grow((void **)&s->hw, &cap, s->nhw + 1, sizeof(*s->hw)))
		return -ENOMEM;
	cap = s->cap_hw;
	if (grow((void **)&s->pinned_run, &cap, s->nhw + 1, sizeof(*s->pinned_run)))
		return -ENOMEM;
	s->cap_hw = cap;
	for (unsigned r = 0; r < s->nrows; r++)
		if (s->row_event[r] >= s->nhw)
			s->row_event[r]++;
	s->hw[s->nhw] = *e;
	s->pinned_run[s->nhw] = run;
	return (int)s->nhw++;
}

/* A row for @e counted as hardware event @idx, unless that spelling has one. */
static int
add_row(struct stat_events *s, const struct event *e, int idx, struct pmustat_error **err)
{
	for (unsigned r = 0; r < s->nrows; r++)
		if (strcmp(s->rows[r].requested, e->requested) == 0 && (int)s->row_event[r] == idx)
			return 0;
	if (s->nrows >= MAX_ROWS)
		return err_set(err, -E2BIG, "too many events: at most %d names can be counted", MAX_ROWS);
	if (s->nrows == s->cap_rows) {
		unsigned cap = s->cap_rows;

		if (grow((void **)&s->rows, &cap, s->nrows + 1, sizeof(*s->rows)))
			return err_set(err, -ENOMEM, "out of memory");
		cap = s->cap_rows;
		if (grow((void **)&s->row_event, &cap, s->nrows + 1, sizeof(*s->row_event)))
			return err_set(err, -ENOMEM, "out of memory");
		s->cap_rows = cap;
	}
	s->rows[s->nrows] = *e;
	s->row_event[s->nrows++] = (unsigned)idx;
	return 0;
}

int
requests_add_pinned(struct stat_events *s, const struct event *e, int run, struct pmustat_error **err)
{
	int idx = -1, rc;

	/* The same event, free (an -e event: it joins this run) or already in this run. */
	for (unsigned i = 0; i < s->nhw && idx < 0; i++)
		if (event_spec_same(&s->hw[i], e) && (s->pinned_run[i] < 0 || s->pinned_run[i] == run))
			idx = (int)i;
	if (idx >= 0) {
		s->pinned_run[idx] = run;
		return idx;
	}
	if (s->nhw + s->nsw >= SCHED_MAX_EVENTS)
		return err_set(err, -E2BIG, "more than %d events; pmustat counts at most %d per invocation",
			       SCHED_MAX_EVENTS, SCHED_MAX_EVENTS);
	idx = add_hw(s, e, run);
	if (idx < 0)
		return err_set(err, -ENOMEM, "out of memory");
	rc = add_row(s, e, idx, err);
	if (rc)
		return rc;
	order_rows(s);
	return idx;
}

/* Count @e (once), reported as its own row unless that spelling is there already. */
static int
add(struct stat_events *s, const struct event *e, struct pmustat_error **err)
{
	int idx = find_same(s, e);

	for (unsigned r = 0; r < s->nrows; r++)
		if (strcmp(s->rows[r].requested, e->requested) == 0 && (int)s->row_event[r] == idx)
			return 0;
	if (s->nrows >= MAX_ROWS)
		return err_set(err, -E2BIG, "too many events: at most %d names can be counted", MAX_ROWS);
	if (idx < 0 && event_is_software(e)) {
		if (grow((void **)&s->sw, &s->cap_sw, s->nsw + 1, sizeof(*s->sw)))
			return err_set(err, -ENOMEM, "out of memory");
		s->sw[s->nsw] = *e;
		idx = (int)(s->nhw + s->nsw++);
	} else if (idx < 0) {
		idx = add_hw(s, e, -1);
		if (idx < 0)
			return err_set(err, -ENOMEM, "out of memory");
	} else if (!event_is_software(e)) {
		/* The same event by another name: it may go wherever either may go. */
		s->hw[idx].gp_mask |= e->gp_mask;
		join_groups(s, (unsigned)idx, e);
	}
	return add_row(s, e, idx, err);
}

/*
 * One -e list under --backend sim: each term a simulated event
 * (sim_events.h), with :u at most (the simulation sees user-mode code
 * only); no groups (one run counts everything).
 */
static int
add_sim_spec(struct stat_events *s, const char *spec, struct pmustat_error **err)
{
	const char *p = spec;
	int rc = 0;

	while (rc == 0 && *p) {
		size_t len = strcspn(p, ","), nlen;
		const struct sim_event *se;
		char term[EVENT_NAME_MAX], can[480];
		const char *mods;
		struct event one;

		if (len >= sizeof(term))
			return err_set(err, -EINVAL, "event '%.40s...' is too long", p);
		memcpy(term, p, len);
		term[len] = '\0';
		p += len + (p[len] == ',');
		nlen = strcspn(term, ":");
		mods = term[nlen] ? term + nlen + 1 : "";
		term[nlen] = '\0';
		se = sim_event_find(term);
		if (!se) {
			sim_event_names(can, sizeof(can));
			return err_set(err, -EINVAL, "event '%s' has no simulated meaning: --backend sim counts %s (an Intel event, cycles or a metric needs a PMU: --backend msr or perf)",
				       term, can);
		}
		if (strcmp(mods, "") != 0 && strcmp(mods, "u") != 0)
			return err_set(err, -EINVAL, "event '%s:%s': --backend sim simulates the command's user-mode code only; the only modifier it takes is :u",
				       term, mods);
		memset(&one, 0, sizeof(one));
		snprintf(one.name, sizeof(one.name), "%s", se->name);
		snprintf(one.requested, sizeof(one.requested), "%.*s%s%s", (int)(sizeof(one.requested) - 8), term,
			 mods[0] ? ":" : "", mods);
		one.fixed = -1;
		one.usr = true;
		one.flags = EVENT_F_SIMULATED;
		one.sim_fields = se->fields;
		rc = add(s, &one, err);
	}
	return rc;
}

/*
 * Event names and name= labels are printed as they were typed (the table,
 * -v, messages): a control character there would be a terminal's escape
 * sequence or a forged line of output. Refused, shown as '?' in the message.
 */
static int
check_printable(const char *spec, struct pmustat_error **err)
{
	char shown[72];
	size_t bad = 0, n = 0;
	bool found = false;

	for (size_t i = 0; spec[i]; i++) {
		unsigned char c = (unsigned char)spec[i];
		bool ctl = text_is_control(c);

		if (ctl && !found) {
			found = true;
			bad = i;
		}
		if (n < sizeof(shown) - 4) {
			shown[n] = spec[i];
			if (ctl)
				shown[n] = '?';
			n++;
		}
	}
	if (!found)
		return 0;
	shown[n] = '\0';
	if (strlen(spec) > n)
		snprintf(shown + n, sizeof(shown) - n, "...");
	return err_set(err, -EINVAL, "-e '%s': a control character (0x%02x at byte %zu) in an event or its name= label; event names are printed, so they must hold printable text only",
		       shown, (unsigned char)spec[bad], bad + 1);
}

/*
 * Parse one -e list (or name) and add its events. Architectural aliases and
 * raw events need no table, so the table (the bulk of pmustat's start-up
 * time) is read only for names that are neither.
 */
static int
add_spec(struct stat_events *s, struct target *t, const char *spec, struct pmustat_error **err)
{
	struct event *ev = NULL;
	unsigned top = s->groups;
	size_t n = 0;
	int rc;

	if (check_printable(spec, err))
		return -EINVAL;
	if (s->simulated)
		return add_sim_spec(s, spec, err);
	if (s->kernel_generic) {
		rc = event_spec_parse_kernel(spec, &t->cpu.pmu, &ev, &n, err);
		for (size_t i = 0; rc == 0 && i < n; i++)
			rc = add(s, &ev[i], err);
		free(ev);
		return rc;
	}
	if (t->cpu.netburst.present) {
		/* NetBurst's terms in the same grammar: lists, {groups}, software events. */
		struct nb_spec_terms terms = { NULL, t->cpu.model, &t->cpu.pmu };
		struct event_term_resolver family = { nb_spec_term, &terms };

		if (target_load_table(t, err))
			return -EIO;
		if (!t->nb)
			return err_set(err, -ENOENT, "core %d (%s): no NetBurst event table for this CPU%s%s", t->core,
				       t->key, t->table_why ? ": " : "", t->table_why ? err_msg(t->table_why) : "");
		terms.table = t->nb;
		rc = event_spec_parse_family(spec, &family, &ev, &n, err);
	} else {
		rc = event_spec_parse_typed(spec, t->table, &t->cpu.pmu, t->cpu.hybrid ? (int)t->cpu.core_type : 0, &ev,
					    &n, err);
		if (rc == -EINVAL && !t->table && t->table_rc == 0) {
			rc = target_load_table(t, err);
			if (rc)
				return -EIO;
			rc = event_spec_parse_typed(spec, t->table, &t->cpu.pmu,
						    t->cpu.hybrid ? (int)t->cpu.core_type : 0, &ev, &n, err);
		}
	}
	/* Each list numbers its groups from 1: past those of earlier lists. */
	for (size_t i = 0; rc == 0 && i < n; i++) {
		if (ev[i].group) {
			ev[i].group += s->groups;
			top = ev[i].group > top ? ev[i].group : top;
		}
	}
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = add(s, &ev[i], err);
	s->groups = top > s->groups ? top : s->groups;
	free(ev);
	return rc;
}

/*
 * The pairs a ratio of the table needs (instructions and cycles, branch
 * misses and branches, cache misses and references) are counted in the
 * same run when they fit one: a group of their own unless the user
 * grouped either.
 */
static void
pair_ratios(struct stat_events *s)
{
	for (unsigned i = 0; i < s->nhw; i++) {
		for (unsigned j = 0; j < s->nhw; j++) {
			if (i == j || s->hw[i].group || s->hw[j].group || !ratio_pair(&s->hw[i], &s->hw[j]))
				continue;
			s->hw[i].group = s->hw[j].group = ++s->groups;
			s->hw[i].group_soft = s->hw[j].group_soft = true;
		}
	}
}

/* Rows of hardware events first, each kind in the order asked. */
static void
order_rows(struct stat_events *s)
{
	unsigned k = 0;

	for (unsigned pass = 0; pass < 2; pass++) {
		for (unsigned r = k; r < s->nrows; r++) {
			bool hw = s->row_event[r] < s->nhw;

			if (hw != (pass == 0))
				continue;
			/* Move row r to k, keeping the others' order. */
			struct event row = s->rows[r];
			unsigned idx = s->row_event[r];

			memmove(&s->rows[k + 1], &s->rows[k], (r - k) * sizeof(*s->rows));
			memmove(&s->row_event[k + 1], &s->row_event[k], (r - k) * sizeof(*s->row_event));
			s->rows[k] = row;
			s->row_event[k] = idx;
			k++;
		}
	}
}

/* A default hardware event this CPU cannot count: a row "not supported", and why. */
static void
add_unsupported(struct stat_events *s, const struct target *t, const char *name)
{
	struct event *e;

	if (s->nunsupported >= REQUESTS_MAX_DEFAULTS)
		return;
	e = &s->unsupported[s->nunsupported++];
	memset(e, 0, sizeof(*e));
	snprintf(e->name, sizeof(e->name), "%s", name);
	snprintf(e->requested, sizeof(e->requested), "%s", name);
	e->fixed = -1;
	e->usr = true;
	snprintf(s->unsupported_why, sizeof(s->unsupported_why), "core %d (%s): %s", t->core, t->key,
		 cpu_why(&t->cpu));
}

static bool
row_named(const struct stat_events *s, const char *name)
{
	for (unsigned r = 0; r < s->nrows; r++)
		if (check_event_matches(name, s->rows[r].requested, s->rows[r].name))
			return true;
	return false;
}

/*
 * A name of a --check: an event, or with --regions REGION:EVENT, whose
 * event is counted (the region is known only after the run; a check of a
 * region the command never ran fails then, naming it).
 */
static int
add_check_name(struct stat_events *s, struct target *t, const struct stat_opts *o, const char *name,
	       struct pmustat_error **err)
{
	int rc = add_spec(s, t, name, err);

	if (rc >= 0 || rc == -EIO || rc == -ENOMEM || !strchr(name, ':'))
		return rc;
	if (!o->regions) {
		err_append(err, " (REGION:EVENT, an event of a code region, needs --regions)");
		return rc;
	}
	for (const char *c = strchr(name, ':'); c; c = strchr(c + 1, ':')) {
		struct pmustat_error *e = NULL;

		if (row_named(s, c + 1) || add_spec(s, t, c + 1, &e) >= 0) {
			err_clear(err);
			return 0;
		}
		err_clear(&e);
	}
	err_append(err, " (nor is it REGION:EVENT with an event after a ':')");
	return rc;
}

/*
 * -d, -dd, -ddd: perf's detailed events after the others. Each level adds
 * to the one before; those perf names that pmustat has no generic name
 * for (L1-icache-loads, iTLB-loads, the prefetch events of -ddd) are not
 * there. As the default set's: one this CPU or table cannot count is
 * left out (-v says which), on a CPU without a usable PMU "not supported".
 */
static int
add_detailed(struct stat_events *s, struct target *t, const struct stat_opts *o, bool cpu_bad,
	     struct pmustat_error **err)
{
	static const struct {
		unsigned level;
		const char *name;
	} detailed[] = {
		{ 1, "L1-dcache-loads" }, { 1, "L1-dcache-load-misses" }, { 1, "LLC-loads" }, { 1, "LLC-load-misses" },
		{ 2, "L1-icache-load-misses" }, { 2, "dTLB-loads" }, { 2, "dTLB-load-misses" },
		{ 2, "iTLB-load-misses" },
	};

	for (size_t i = 0; i < sizeof(detailed) / sizeof(detailed[0]) && detailed[i].level <= o->detailed; i++) {
		int rc;

		if (row_named(s, detailed[i].name))
			continue;
		if (cpu_bad) {
			add_unsupported(s, t, detailed[i].name);
			continue;
		}
		rc = add_spec(s, t, detailed[i].name, err);
		if (rc == -EIO || rc == -ENOMEM || rc == -E2BIG)
			return rc;
		if (rc < 0 && o->verbose)
			fprintf(stderr, "pmustat: -d: %s left out: %s\n", detailed[i].name, err_msg(*err));
		if (rc < 0)
			err_clear(err);
	}
	return 0;
}

int
requests_resolve(const struct stat_opts *o, struct target *t, struct stat_events *s,
		 bool (*skip)(void *ctx, const char *name), void *skip_ctx, struct pmustat_error **err)
{
	static const char *const defaults[] = {
		"instructions", "cycles", "ref-cycles", "slots", "branches", "branch-misses",
	};
	static const char *const sw_defaults[] = {
		"task-clock", "context-switches", "cpu-migrations", "page-faults",
	};
	static const char *const sim_defaults[] = {
		"instructions", "L1-dcache-loads", "L1-dcache-load-misses", "LLC-load-misses", "branches",
		"branch-misses",
	};
	bool cpu_bad = !target_can_count(t);
	int rc;

	memset(s, 0, sizeof(*s));
	s->simulated = o->backend == BACKEND_SIM;
	s->kernel_generic = cpu_bad && o->backend == BACKEND_PERF && !t->cpu.netburst.present;
	/* The simulation needs no PMU: the CPU's verdict does not matter to it. */
	if (s->simulated)
		cpu_bad = false;
	for (size_t i = 0; s->simulated && o->nspecs == 0 && i < sizeof(sim_defaults) / sizeof(sim_defaults[0]); i++) {
		rc = add_spec(s, t, sim_defaults[i], err);
		if (rc < 0)
			return rc;
	}
	/* Named events the kernel resolves need no PMU pmustat knows. */
	if (s->kernel_generic && o->nspecs)
		cpu_bad = false;
	for (unsigned i = 0; i < o->nspecs; i++) {
		rc = add_spec(s, t, o->specs[i], err);
		if (rc == -EIO || rc == -ENOMEM || rc == -E2BIG)
			return rc;
		if (rc < 0 && cpu_bad)
			return err_set(err, rc, "core %d (%s): %s; %s (software events such as task-clock and page-faults need no PMU)",
				       t->core, t->key, cpu_why(&t->cpu), err_msg(*err));
		if (rc < 0)
			return rc;
	}
	/* -M needs the PMU; -M alone counts the metrics' events, not the default set. */
	if (o->nmetric_specs > 0 && cpu_bad)
		return err_set(err, -ENODEV, "core %d (%s): %s; metrics (-M) are computed from hardware events",
			       t->core, t->key, cpu_why(&t->cpu));
	for (size_t i = 0; !s->simulated && o->nspecs == 0 && o->nmetric_specs == 0 && i < sizeof(sw_defaults) / sizeof(sw_defaults[0]); i++) {
		rc = add_spec(s, t, sw_defaults[i], err);
		if (rc < 0)
			return rc;
	}
	for (size_t i = 0; !s->simulated && o->nspecs == 0 && o->nmetric_specs == 0 && i < sizeof(defaults) / sizeof(defaults[0]); i++) {
		/* SLOTS only where fixed counter 3 exists. */
		if (strcmp(defaults[i], "slots") == 0 && !(t->cpu.pmu.fixed_mask & 0x8))
			continue;
		if (cpu_bad) {
			add_unsupported(s, t, defaults[i]);
			continue;
		}
		rc = add_spec(s, t, defaults[i], err);
		if (rc == -EIO || rc == -ENOMEM)
			return rc;
		/* A default this CPU does not have is left out, not fatal. */
		if (rc < 0 && o->verbose)
			fprintf(stderr, "pmustat: default event left out: %s\n", err_msg(*err));
		if (rc < 0)
			err_clear(err);
	}
	rc = add_detailed(s, t, o, cpu_bad, err);
	if (rc)
		return rc;
	/* An event a --check names is counted even when -e does not list it. */
	for (unsigned k = 0; k < o->nchecks; k++) {
		for (unsigned j = 0; j < o->checks[k].nevents; j++) {
			const char *name = o->checks[k].events[j];

			if (row_named(s, name) || (skip && skip(skip_ctx, name)))
				continue;
			rc = add_check_name(s, t, o, name, err);
			if (rc == -EIO || rc == -ENOMEM)
				return rc;
			if (rc < 0)
				return err_set(err, rc, "--check '%s': %s", o->checks[k].text, err_msg(*err));
		}
	}
	if (s->nrows == 0 && o->nmetric_specs == 0)
		return err_set(err, -EINVAL, "no event to count");
	if (s->nhw + s->nsw > SCHED_MAX_EVENTS)
		return err_set(err, -E2BIG, "%u events; pmustat counts at most %d per invocation", s->nhw + s->nsw,
			       SCHED_MAX_EVENTS);
	if (s->nhw && cpu_bad)
		return err_set(err, -ENODEV, "core %d (%s): %s", t->core, t->key, cpu_why(&t->cpu));
	pair_ratios(s);
	order_rows(s);
	return 0;
}

const struct event *
requests_row_event(const struct stat_events *e, unsigned r)
{
	unsigned i = e->row_event[r];

	return i < e->nhw ? &e->hw[i] : &e->sw[i - e->nhw];
}

bool
requests_uses_offcore(const struct stat_events *e)
{
	for (unsigned i = 0; i < e->nhw; i++)
		if (e->hw[i].extra_msr)
			return true;
	return false;
}

void
requests_free(struct stat_events *e)
{
	free(e->hw);
	free(e->sw);
	free(e->rows);
	free(e->row_event);
	free(e->pinned_run);
	memset(e, 0, sizeof(*e));
}
