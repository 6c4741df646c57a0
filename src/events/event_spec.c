/*
 * event_spec.c - the -e grammar (event_spec.h): the list split into terms,
 * each term's kind picked (event_resolve.c resolves it), unknown names
 * answered with "did you mean".
 */
#include "events/event_spec.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "events/arch_events.h"
#include "events/cpu.h"
#include "events/event_table.h"
#include "events/generic_events.h"
#include "pmu/msr.h"
#include "events/suggest.h"
#include "events/sw_events.h"
#include "base/strbuf.h"
#include "base/err.h"
#include "events/event_resolve.h"

static const char *
table_label(const struct event_table *table)
{
	return table ? event_table_name(table) : "this CPU (no event table: architectural events only)";
}

static const struct arch_event *
find_alias(const char *name)
{
	const struct generic_event *g = generic_event_find(name);

	if (g && g->arch_key)
		return arch_event_by_key(g->arch_key);
	return arch_event_by_key(name);
}

bool
event_spec_same(const struct event *a, const struct event *b)
{
	/* Software events have no encoding: their name is their identity. */
	if ((a->flags ^ b->flags) & EVENT_F_SOFTWARE)
		return false;
	if (a->flags & EVENT_F_SOFTWARE)
		return strcmp(a->name, b->name) == 0 && a->usr == b->usr && a->os == b->os;
	if ((a->flags ^ b->flags) & EVENT_F_PERF_METRICS)
		return false;
	if ((a->flags ^ b->flags) & (EVENT_F_SIMULATED | EVENT_F_KERNEL_GENERIC))
		return false;
	if (a->flags & EVENT_F_SIMULATED)
		return a->sim_fields == b->sim_fields;
	if (a->flags & EVENT_F_KERNEL_GENERIC)
		return a->perf_type == b->perf_type && a->perf_config == b->perf_config && a->usr == b->usr &&
		       a->os == b->os;
	/* Another core type's event: nothing here to compare but its spelling. */
	if ((a->flags | b->flags) & EVENT_F_OTHER_CORE_TYPE)
		return (a->flags & b->flags & EVENT_F_OTHER_CORE_TYPE) && strcasecmp(a->requested, b->requested) == 0;
	return a->code == b->code && a->umask == b->umask &&
	       a->umask_ext == b->umask_ext && a->cmask == b->cmask &&
	       a->inv == b->inv && a->edge == b->edge &&
	       a->any_thread == b->any_thread && a->usr == b->usr &&
	       a->os == b->os && a->fixed == b->fixed &&
	       a->extra_msr == b->extra_msr && a->extra_value == b->extra_value &&
	       a->nb_mask == b->nb_mask && a->nb_escrs == b->nb_escrs && a->nb_compare == b->nb_compare;
}

static bool
looks_uncore(const char *name)
{
	return strncasecmp(name, "UNC_", 4) == 0 || strncasecmp(name, "uncore", 6) == 0;
}

/* Every name -e knows for @table: the candidates of "did you mean". */
static void
consider_known_names(struct suggest *s, const struct event_table *table)
{
	size_t i;

	for (i = 0; i < arch_event_count(); i++)
		suggest_consider(s, arch_event_get(i)->key);
	for (i = 0; i < generic_event_count(); i++)
		suggest_consider(s, generic_event_get(i)->name);
	for (i = 0; i < sw_event_count(); i++)
		suggest_consider(s, sw_event_get(i)->name);
	for (i = 0; table && i < event_table_count(table); i++) {
		const struct event_desc *desc = event_table_get(table, i);

		if (!(desc->flags & EVENT_DESC_DEPRECATED))
			suggest_consider(s, desc->name);
	}
}

static int
unknown_event(struct parse_ctx *ctx, const char *name)
{
	struct strbuf b = STRBUF_INIT;
	struct suggest s;

	suggest_init(&s, name, SUGGEST_SHOWN);
	consider_known_names(&s, ctx->table);
	suggest_append(&s, &b);
	spec_fail(ctx, "unknown event '%s' for %s%s", name, table_label(ctx->table), strbuf_str(&b));
	strbuf_free(&b);
	return -EINVAL;
}

static int
term_start(struct parse_ctx *ctx, const char *text, struct event *ev);
static int
parse_term_body(struct parse_ctx *ctx, const char *text, struct event *ev);

/* The length of perf's hybrid PMU prefix of @s ("cpu_core/", "cpu_atom/"), its core type in *@type; 0 if none. */
static size_t
core_type_prefix(const char *s, int *type)
{
	if (strncasecmp(s, "cpu_core/", 9) == 0) {
		*type = CPU_CORE_TYPE_CORE;
		return 9;
	}
	if (strncasecmp(s, "cpu_atom/", 9) == 0) {
		*type = CPU_CORE_TYPE_ATOM;
		return 9;
	}
	return 0;
}

/* cpu_core/TERM/ or cpu_atom/TERM/ (@plen the prefix's length): TERM on its type, nothing on the other. */
static int
parse_typed_term(struct parse_ctx *ctx, const char *text, size_t plen, int type, struct event *ev)
{
	const char *inner = text + plen, *close = strchr(inner, '/'), *after;
	char buf[EVENT_NAME_MAX + 8];
	size_t nl;
	int ret;

	if (!close || close == inner)
		return spec_fail(ctx, "'%s': want %.*sEVENT/ or %.*sevent=0xNN,umask=0xNN/", text, (int)plen, text,
				 (int)plen, text);
	if (!ctx->core_type)
		return spec_fail(ctx, "'%s': %.*s names the %s of a hybrid CPU, and this one has a single core type; drop the '%.*s' and its closing '/'",
				 text, (int)plen, text, type == CPU_CORE_TYPE_CORE ? "P-cores" : "E-cores", (int)plen, text);
	after = close + 1;
	nl = strspn(after, "uk");
	if (ctx->core_type != type) {
		const char *mode = nl ? after : strchr(after, ':');
		size_t ml = nl ? nl : mode ? strcspn(mode + 1, ":") : 0;

		/* Its rings as spelled, for its label: the other type's cores count it. */
		if (mode && !nl)
			mode++;
		if (mode && ml && ml <= 2 && strspn(mode, "uk") >= ml) {
			ev->usr = memchr(mode, 'u', ml) != NULL;
			ev->os = memchr(mode, 'k', ml) != NULL;
		}
		ev->flags = EVENT_F_OTHER_CORE_TYPE;
		/* term_start() bounded @text to the field. */
		snprintf(ev->name, sizeof(ev->name), "%.*s", (int)sizeof(ev->name) - 1, text);
		return 0;
	}
	if (after[nl] && after[nl] != ':')
		return spec_fail(ctx, "'%s': unexpected '%s' after the closing '/'", text, after + nl);
	if (memchr(inner, '=', (size_t)(close - inner)))
		snprintf(buf, sizeof(buf), "cpu/%.*s/%s", (int)(close - inner), inner, after);
	else if (nl)
		snprintf(buf, sizeof(buf), "%.*s:%.*s%s", (int)(close - inner), inner, (int)nl, after, after + nl);
	else
		snprintf(buf, sizeof(buf), "%.*s%s", (int)(close - inner), inner, after);
	/* The inner term is parsed as a plain one: a prefix inside a prefix is no event. */
	ret = term_start(ctx, buf, ev);
	if (ret == 0)
		ret = parse_term_body(ctx, buf, ev);
	if (ret == 0)
		snprintf(ev->requested, sizeof(ev->requested), "%.*s", (int)sizeof(ev->requested) - 1, text);
	return ret;
}

/* A term's event before parsing: no counter, user mode, @text as requested; or too long. */
static int
term_start(struct parse_ctx *ctx, const char *text, struct event *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->fixed = -1;
	ev->usr = true;
	if (strlen(text) >= EVENT_NAME_MAX)
		return spec_fail(ctx, "event '%.40s...' is too long (%zu characters, at most %d)",
			    text, strlen(text), EVENT_NAME_MAX - 1);
	snprintf(ev->requested, sizeof(ev->requested), "%s", text);
	return 0;
}

/* One term, already split off the list and trimmed. */
static int
parse_term(struct parse_ctx *ctx, const char *text, struct event *ev)
{
	int type = 0;
	size_t plen;
	int ret = term_start(ctx, text, ev);

	if (ret)
		return ret;
	plen = core_type_prefix(text, &type);
	if (plen)
		return parse_typed_term(ctx, text, plen, type, ev);
	return parse_term_body(ctx, text, ev);
}

/* A term without a core type prefix, after term_start(). */
static int
parse_term_body(struct parse_ctx *ctx, const char *text, struct event *ev)
{
	char buf[EVENT_NAME_MAX];
	struct modifiers m = { 0 };
	char *mods = NULL;
	int ret;

	snprintf(buf, sizeof(buf), "%s", text);
	if (strncasecmp(buf, "cpu/", 4) == 0) {
		char *close = strchr(buf + 4, '/');
		char *after;
		size_t nl;

		if (!close)
			return spec_fail(ctx, "'%s' has no closing '/'", text);
		*close = '\0';
		after = close + 1;
		/* perf's privilege letters right after the slash: cpu/.../u, /k, /uk */
		nl = strspn(after, "uk");
		if (nl) {
			if (nl > 2 || (nl == 2 && after[0] == after[1]))
				return spec_fail(ctx, "'%s': bad privilege letters after '/' (want u, k or uk)",
					    text);
			m.mode_set = true;
			m.usr = memchr(after, 'u', nl) != NULL;
			m.os = memchr(after, 'k', nl) != NULL;
			after += nl;
		}
		if (*after && *after != ':')
			return spec_fail(ctx, "'%s': unexpected '%s' after the closing '/'", text, after);
		mods = *after == ':' ? after + 1 : NULL;
		ret = spec_resolve_pmu_term(ctx, buf + 4, ev);
		if (ret)
			return ret;
		if (!ev->name[0])
			snprintf(ev->name, sizeof(ev->name), "%.*s", (int)(close - buf + 1), text);
	} else {
		char *colon = strchr(buf, ':');

		if (colon) {
			*colon = '\0';
			mods = colon + 1;
		}
		if (!buf[0])
			return spec_fail(ctx, "'%s' has modifiers but no event name", text);
		if ((buf[0] == 'r' || buf[0] == 'R') &&
		    strspn(buf + 1, "0123456789abcdefABCDEF") == strlen(buf + 1)) {
			ret = spec_resolve_raw(ctx, buf + 1, ev, &m);
			if (ret)
				return ret;
			snprintf(ev->name, sizeof(ev->name), "%s", buf);
		} else if (strchr(buf, '/')) {
			return spec_fail(ctx, "'%s': only the core PMU 'cpu/.../' is supported (uncore and other PMUs are not)",
				    text);
		} else {
			const struct arch_event *ae = find_alias(buf);
			const struct sw_event *sw = sw_event_find(buf);
			const struct generic_event *g = generic_event_find(buf);
			const struct event_desc *d;

			if (sw) {
				ret = spec_resolve_software(ctx, sw, ev, mods);
				if (ret)
					return ret;
				mods = NULL;
			} else if (ctx->kernel_generic && g) {
				ret = spec_resolve_kernel_generic(ctx, g, ev);
			} else if (ctx->kernel_generic) {
				return spec_fail(ctx, "event '%s': pmustat does not program this CPU's PMU, so it counts perf's generic names (instructions, cycles, branch-misses, L1-dcache-load-misses, ...) through the kernel's generic events, and software events; '%s' is neither",
						 buf, buf);
			} else if (ae) {
				ret = spec_resolve_arch(ctx, ae, ev);
			} else if (ctx->table && (d = g ? generic_event_in_table(g, ctx->table) :
							      event_table_find(ctx->table, buf))) {
				/* A table event, or the one that counts what perf's cache name names. */
				ret = spec_resolve_table(ctx, d, ev);
			} else if (g && !ctx->table) {
				return spec_fail(ctx, "event '%s' (perf's name for %s) needs this CPU's event table, and there is none (architectural events only)",
						 buf, g->desc);
			} else if (g) {
				return spec_fail(ctx, "event '%s' (perf's name for %s) has no equivalent in table %s; 'pmustat list %s' shows what is there",
						 buf, g->desc, event_table_name(ctx->table), g->name);
			} else if (looks_uncore(buf)) {
				return spec_fail(ctx, "event '%s' is an uncore event; pmustat counts core PMU events only",
					    buf);
			} else {
				return unknown_event(ctx, buf);
			}
			if (ret)
				return ret;
		}
	}
	ret = spec_parse_modifiers(ctx, text, mods, &m);
	if (ret)
		return ret;
	ret = spec_apply_modifiers(ctx, ev, &m);
	if (ret)
		return ret;
	if (ev->flags & EVENT_F_RAW) {
		ret = spec_check_fields(ctx, ev, false);
		if (ret)
			return ret;
		ev->gp_mask = ctx->caps->gp_mask & GP_LIMIT_MASK;
		if (!ev->gp_mask)
			return spec_fail(ctx, "event '%s': this CPU reports no general-purpose counter",
				    text);
	}
	if (!ev->usr && !ev->os)
		return spec_fail(ctx, "event '%s' counts in neither user nor kernel mode", text);
	return 0;
}

static int
append_ctx(struct parse_ctx ctx, const char *spec, struct event **events, size_t *count);

static int
append_typed(const char *spec, const struct event_table *table, const struct pmu_caps *caps, int core_type,
	     struct event **events, size_t *count, struct pmustat_error **err)
{
	struct parse_ctx ctx = { table, caps, err, core_type, false };

	return append_ctx(ctx, spec, events, count);
}

int
event_spec_append(const char *spec, const struct event_table *table,
		  const struct pmu_caps *caps, struct event **events,
		  size_t *count, struct pmustat_error **err)
{
	return append_typed(spec, table, caps, 0, events, count, err);
}

static int
append_ctx(struct parse_ctx ctx, const char *spec, struct event **events, size_t *count)
{
	const char *p = spec;
	size_t start = *count, n = *count, cap = *count, term_no = 0;
	struct event *evs = *events;
	unsigned group = 0, next_group = 1;
	int ret = 0;

	if (!spec || !*spec)
		return spec_fail(&ctx, "empty event list");
	/* Groups of earlier lists keep their numbers. */
	for (size_t i = 0; i < start; i++)
		if (evs[i].group >= next_group)
			next_group = evs[i].group + 1;
	for (;;) {
		const char *end, *s, *e, *close;
		char text[EVENT_NAME_MAX + 1];
		bool closes = false;
		size_t len;

		term_no++;
		/* cpu/a=1,b=2/ holds commas: the term ends after its closing slash. */
		s = p;
		while (*s == ' ' || *s == '\t')
			s++;
		/* perf's groups: '{a,b}' are counted in the same run. */
		if (*s == '{') {
			if (group) {
				ret = spec_fail(&ctx, "groups do not nest: '{' inside the group before item %zu of '%.60s%s'",
						term_no, spec, strlen(spec) > 60 ? "..." : "");
				goto fail;
			}
			group = next_group++;
			s++;
			while (*s == ' ' || *s == '\t')
				s++;
		}
		end = s;
		if (strncasecmp(s, "cpu/", 4) == 0 || core_type_prefix(s, &(int){ 0 })) {
			size_t plen = strncasecmp(s, "cpu/", 4) == 0 ? 4 : 9;

			end = strchr(s + plen, '/');
			end = end ? end + 1 : s + strlen(s);
		}
		end += strcspn(end, ",");
		e = end;
		while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
		close = memchr(s, '}', (size_t)(e - s));
		if (close) {
			if (!group) {
				ret = spec_fail(&ctx, "'}' without its '{' in item %zu of '%.60s%s'", term_no, spec,
						strlen(spec) > 60 ? "..." : "");
				goto fail;
			}
			if (close + 1 != e) {
				ret = spec_fail(&ctx, "'%.*s': nothing may follow a group's '}' (modifiers such as :u go on each event of the group)",
						(int)(e - s), s);
				goto fail;
			}
			closes = true;
			e = close;
			while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
				e--;
		}
		len = (size_t)(e - s);
		if (len == 0) {
			ret = spec_fail(&ctx, "empty event name (item %zu of '%.60s%s')", term_no, spec,
				   strlen(spec) > 60 ? "..." : "");
			goto fail;
		}
		if (len > EVENT_NAME_MAX - 1) {
			ret = spec_fail(&ctx, "event '%.40s...' is too long (%zu characters, at most %d)",
				   s, len, EVENT_NAME_MAX - 1);
			goto fail;
		}
		memcpy(text, s, len);
		text[len] = '\0';

		if (n >= EVENT_SPEC_MAX_EVENTS) {
			ret = spec_fail(&ctx, "too many events: at most %d can be given with -e",
				   EVENT_SPEC_MAX_EVENTS);
			goto fail;
		}
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 8;
			struct event *grown = realloc(evs, ncap * sizeof(*evs));

			if (!grown) {
				ret = err_set(ctx.err, -ENOMEM, "out of memory parsing '%s'", text);
				goto fail;
			}
			evs = grown;
			*events = evs;
			cap = ncap;
		}
		ret = parse_term(&ctx, text, &evs[n]);
		if (ret)
			goto fail;
		if (group && (evs[n].flags & EVENT_F_SOFTWARE)) {
			ret = spec_fail(&ctx, "'%s' is a software event: the kernel counts it over the whole command, so it cannot be grouped with hardware events; put it outside the braces",
					text);
			goto fail;
		}
		evs[n].group = group;
		n++;
		if (closes)
			group = 0;
		if (!*end)
			break;
		p = end + 1;
	}
	if (group) {
		ret = spec_fail(&ctx, "the group opened with '{' in '%.60s%s' has no closing '}'", spec,
				strlen(spec) > 60 ? "..." : "");
		goto fail;
	}
	*count = n;
	return 0;
fail:
	*count = start;
	return ret;
}

int
event_spec_parse(const char *spec, const struct event_table *table,
		 const struct pmu_caps *caps, struct event **out, size_t *count,
		 struct pmustat_error **err)
{
	return event_spec_parse_typed(spec, table, caps, 0, out, count, err);
}

int
event_spec_parse_typed(const char *spec, const struct event_table *table, const struct pmu_caps *caps,
		       int core_type, struct event **out, size_t *count, struct pmustat_error **err)
{
	struct event *evs = NULL;
	size_t n = 0;
	int ret;

	*out = NULL;
	*count = 0;
	ret = append_typed(spec, table, caps, core_type, &evs, &n, err);
	if (ret) {
		free(evs);
		return ret;
	}
	*out = evs;
	*count = n;
	return 0;
}

int
event_spec_parse_kernel(const char *spec, const struct pmu_caps *caps, struct event **out, size_t *count,
			struct pmustat_error **err)
{
	struct parse_ctx ctx = { NULL, caps, err, 0, true };
	struct event *evs = NULL;
	size_t n = 0;
	int ret;

	*out = NULL;
	*count = 0;
	ret = append_ctx(ctx, spec, &evs, &n);
	if (ret) {
		free(evs);
		return ret;
	}
	*out = evs;
	*count = n;
	return 0;
}

size_t
event_spec_suggest(const char *name, const struct event_table *table,
		   const char **out, size_t max)
{
	struct suggest s;

	suggest_init(&s, name, max);
	consider_known_names(&s, table);
	return suggest_result(&s, out);
}
