/*
 * nb_spec.c - -e terms resolved against the NetBurst table (see nb_spec.h).
 */
#include "pmus/netburst/nb_spec.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "events/event_spec.h"
#include "events/sw_events.h"
#include "pmus/netburst/nb_table.h"
#include "events/suggest.h"
#include "base/err.h"
#include "base/strbuf.h"

struct mods {
	bool u, k, ring_given;
	bool threshold_given, complement, edge;
	unsigned threshold;
	uint16_t mask;
};

static int __attribute__((format(printf, 2, 3)))
fail(struct pmustat_error **err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_setv(err, -EINVAL, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int
unknown_event(const struct nb_table *t, const char *name, struct pmustat_error **err)
{
	struct suggest s;

	suggest_init(&s, name, SUGGEST_SHOWN);
	for (size_t i = 0; i < nb_table_count(t); i++)
		suggest_consider(&s, nb_table_get(t, i)->name);
	for (size_t i = 0; i < nb_table_alias_count(t); i++)
		suggest_consider(&s, nb_table_alias(t, i)->name);
	struct strbuf b = STRBUF_INIT;

	if (!suggest_append(&s, &b))
		strbuf_printf(&b, " (pmustat list --table %s shows its events)", nb_table_name(t));
	err_set(err, -EINVAL, "unknown event '%s' for %s%s", name, nb_table_name(t), strbuf_str(&b));
	strbuf_free(&b);
	return -EINVAL;
}

static int
unknown_mask(const struct nb_event_desc *d, const char *term, const char *mod, struct pmustat_error **err)
{
	char names[256];
	size_t len = 0;

	names[0] = '\0';
	for (unsigned i = 0; i < d->n_masks && len < sizeof(names); i++)
		len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s", i ? ", " : "",
					d->masks[i].name);
	return fail(err, "'%s': '%s' is neither a mask of %s (%s) nor a modifier (u, k, uk, threshold=N, complement, edge)",
		    term, mod, d->name, names);
}

/* One ':' modifier of @term, whose event is @d. */
static int
parse_mod(const struct nb_event_desc *d, const char *term, const char *mod, struct mods *m,
	  struct pmustat_error **err)
{
	const struct nb_mask *mask;

	if (!strcasecmp(mod, "u") || !strcasecmp(mod, "k") || !strcasecmp(mod, "uk") ||
	    !strcasecmp(mod, "ku")) {
		if (m->ring_given)
			return fail(err, "'%s': give one of :u, :k and :uk", term);
		m->ring_given = true;
		m->u = strchr(mod, 'u') || strchr(mod, 'U');
		m->k = strchr(mod, 'k') || strchr(mod, 'K');
		return 0;
	}
	if (!strncasecmp(mod, "threshold=", 10)) {
		char *end;
		unsigned long v;

		errno = 0;
		v = strtoul(mod + 10, &end, 0);
		if (errno || end == mod + 10 || *end || mod[10] == '-' || v > 15)
			return fail(err, "'%s': threshold must be 0-15 (CCCR[23:20]), not '%s'",
				    term, mod + 10);
		if (m->threshold_given)
			return fail(err, "'%s': threshold given twice", term);
		m->threshold_given = true;
		m->threshold = (unsigned)v;
		return 0;
	}
	if (!strcasecmp(mod, "complement")) {
		m->complement = true;
		return 0;
	}
	if (!strcasecmp(mod, "edge")) {
		m->edge = true;
		return 0;
	}
	mask = nb_event_mask(d, mod);
	if (!mask)
		return unknown_mask(d, term, mod, err);
	m->mask |= (uint16_t)(1u << mask->bit);
	return 0;
}

/*
 * The generic kind of event @d with @mask: that of the table's alias of
 * the kind's perf name (cycles = global_power_events:RUNNING, ...: Linux
 * p4's event map) when it names the same event and masks, unfiltered.
 */
static enum event_kind
kind_of(const struct nb_table *t, const struct nb_event_desc *d, uint16_t mask, bool compare)
{
	static const struct {
		const char *alias;
		enum event_kind kind;
	} kinds[] = {
		{ "cycles", EVENT_KIND_CYCLES },
		{ "instructions", EVENT_KIND_INSTRUCTIONS },
		{ "branches", EVENT_KIND_BRANCHES },
		{ "branch-misses", EVENT_KIND_BRANCH_MISSES },
		{ "cache-references", EVENT_KIND_CACHE_REFERENCES },
		{ "cache-misses", EVENT_KIND_CACHE_MISSES },
	};

	for (size_t i = 0; !compare && i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		const struct nb_alias *a = nb_table_find_alias(t, kinds[i].alias);

		if (a && a->event == d && a->mask == mask)
			return kinds[i].kind;
	}
	return EVENT_KIND_OTHER;
}

/* Resolve one term (a NUL-terminated copy that may be cut up). */
static int
parse_term(const struct nb_table *t, unsigned model, char *term, struct nb_event *ev,
	   struct pmustat_error **err)
{
	const struct nb_event_desc *d;
	const struct nb_alias *alias;
	struct mods m;
	char *name = term, *colon = strchr(term, ':'), masks[EVENT_NAME_MAX], filters[48];
	char typed[EVENT_NAME_MAX];
	int ret;

	memset(&m, 0, sizeof(m));
	memset(ev, 0, sizeof(*ev));
	snprintf(typed, sizeof(typed), "%s", term);
	if (!*name || colon == name)
		return fail(err, "empty event name in '%s'", typed);
	if (colon)
		*colon = '\0';
	alias = nb_table_find_alias(t, name);
	d = alias ? alias->event : nb_table_find(t, name);
	if (!d)
		return unknown_event(t, name, err);
	if (alias)
		m.mask = alias->mask;
	while (colon) {
		char *mod = colon + 1;

		colon = strchr(mod, ':');
		if (colon)
			*colon = '\0';
		ret = parse_mod(d, typed, mod, &m, err);
		if (ret)
			return ret;
	}
	if (d->needs_tagging)
		return fail(err, "'%s': %s counts only uops tagged by other events (at-retirement tagging), which pmustat does not program",
			    typed, d->name);
	if (!nb_event_on_model(d, model))
		return fail(err, "'%s': %s does not exist on model %u of family 15", typed,
			    d->name, model);
	if (!m.mask)
		m.mask = d->default_mask;
	if (!m.mask)
		return fail(err, "'%s': %s needs at least one mask bit (pmustat list --long %s shows them)",
			    typed, d->name, d->name);

	ev->event_select = d->event_select;
	ev->mask = m.mask;
	ev->escrs = d->escrs;
	ev->thread_independent = d->thread_independent;
	ev->usr = m.ring_given ? m.u : true;
	ev->os = m.ring_given && m.k;
	ev->threshold = (uint8_t)m.threshold;
	ev->complement = m.complement;
	ev->edge = m.edge;
	ev->compare = m.threshold_given || m.complement || m.edge;
	ev->kind = kind_of(t, d, ev->mask, ev->compare);
	/*
	 * The canonical name is itself a term that resolves to this event:
	 * event, masks and filters (the ring, as for every PMU, is not part of it).
	 */
	nb_mask_names(d, m.mask, ':', masks, sizeof(masks));
	if (ev->compare)
		snprintf(filters, sizeof(filters), ":threshold=%u%s%s", m.threshold,
			 m.complement ? ":complement" : "", m.edge ? ":edge" : "");
	else
		filters[0] = '\0';
	if ((size_t)snprintf(ev->name, sizeof(ev->name), "%s:%s%s", d->name, masks, filters) >=
	    sizeof(ev->name))
		return fail(err, "'%s': the event's name with its masks is too long", typed);
	snprintf(ev->requested, sizeof(ev->requested), "%s", typed);
	return 0;
}

static bool
same_event(const struct nb_event *a, const struct nb_event *b)
{
	return a->event_select == b->event_select && a->escrs == b->escrs &&
	       a->mask == b->mask && a->usr == b->usr && a->os == b->os &&
	       a->compare == b->compare && a->complement == b->complement &&
	       a->edge == b->edge && a->threshold == b->threshold;
}

int
nb_spec_parse(const char *spec, const struct nb_table *table, unsigned model,
	      struct nb_event **out, size_t *count, struct pmustat_error **err)
{
	struct nb_event *evs = NULL;
	size_t n = 0, cap = 0;
	const char *p = spec;
	int ret = 0;

	*out = NULL;
	*count = 0;
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		char term[EVENT_NAME_MAX];

		if (len >= sizeof(term)) {
			ret = fail(err, "event '%.40s...' is too long", p);
			break;
		}
		if (n == EVENT_SPEC_MAX_EVENTS) {
			ret = fail(err, "more than %d events", EVENT_SPEC_MAX_EVENTS);
			break;
		}
		if (n == cap) {
			struct nb_event *grown;

			cap = cap ? 2 * cap : 8;
			grown = realloc(evs, cap * sizeof(*evs));
			if (!grown) {
				ret = err_set(err, -ENOMEM, "out of memory");
				break;
			}
			evs = grown;
		}
		memcpy(term, p, len);
		term[len] = '\0';
		ret = parse_term(table, model, term, &evs[n], err);
		if (ret)
			break;
		for (size_t i = 0; i < n; i++) {
			if (same_event(&evs[i], &evs[n])) {
				ret = fail(err, "'%s' and '%s' are the same event: give it once",
					   evs[i].requested, evs[n].requested);
				break;
			}
		}
		if (ret)
			break;
		n++;
		if (!comma)
			break;
		p = comma + 1;
	}
	if (ret) {
		free(evs);
		return ret;
	}
	*out = evs;
	*count = n;
	return 0;
}

void
nb_event_as_event(const struct nb_event *nb, struct event *out)
{
	memset(out, 0, sizeof(*out));
	snprintf(out->name, sizeof(out->name), "%s", nb->name);
	snprintf(out->requested, sizeof(out->requested), "%s", nb->requested);
	out->code = nb->event_select;
	out->cmask = nb->threshold;
	out->inv = nb->complement;
	out->edge = nb->edge;
	out->usr = nb->usr;
	out->os = nb->os;
	out->fixed = -1;
	out->gp_mask = 0;
	out->flags = EVENT_F_NETBURST | (nb->thread_independent ? EVENT_F_CORE_WIDE : 0);
	out->kind = nb->kind;
	out->nb_mask = nb->mask;
	out->nb_escrs = nb->escrs;
	out->nb_compare = nb->compare;
}

void
nb_event_from_event(const struct event *e, struct nb_event *out)
{
	memset(out, 0, sizeof(*out));
	snprintf(out->name, sizeof(out->name), "%s", e->name);
	snprintf(out->requested, sizeof(out->requested), "%s", e->requested);
	out->event_select = e->code;
	out->mask = e->nb_mask;
	out->escrs = e->nb_escrs;
	out->thread_independent = e->flags & EVENT_F_CORE_WIDE;
	out->kind = e->kind;
	out->group = e->group;
	out->group_soft = e->group_soft;
	out->usr = e->usr;
	out->os = e->os;
	out->compare = e->nb_compare;
	out->complement = e->inv;
	out->edge = e->edge;
	out->threshold = e->cmask;
}

int
nb_spec_term(const void *arg, const char *term, struct event *ev, struct pmustat_error **err)
{
	const struct nb_spec_terms *x = arg;
	char copy[EVENT_NAME_MAX], base[EVENT_NAME_MAX];
	struct nb_event nb;
	int ret;

	if (strlen(term) >= sizeof(copy))
		return fail(err, "event '%.40s...' is too long", term);
	snprintf(base, sizeof(base), "%.*s", (int)strcspn(term, ":"), term);
	if (sw_event_find(base)) {
		struct event *evs = NULL;
		size_t n = 0;

		ret = event_spec_parse(term, NULL, x->caps, &evs, &n, err);
		if (ret == 0 && n == 1)
			*ev = evs[0];
		free(evs);
		return ret;
	}
	snprintf(copy, sizeof(copy), "%s", term);
	ret = parse_term(x->table, x->model, copy, &nb, err);
	if (ret == 0)
		nb_event_as_event(&nb, ev);
	return ret;
}
