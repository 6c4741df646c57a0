#include "config.h"
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
#include "pmu/msr.h"
#include "events/suggest.h"
#include "events/sw_events.h"
#include "base/strbuf.h"
#include "base/err.h"

#define GP_LIMIT_MASK	((1u << PMU_MAX_GP) - 1)

/* Familiar names for the architectural events (perf's generic names). */
static const struct {
	const char *name;
	const char *key;	/* arch_events.h key */
} generic_aliases[] = {
	{ "cycles", "CORE_CYCLES" },
	{ "instructions", "INSTRUCTIONS_RETIRED" },
	{ "ref-cycles", "REF_CYCLES" },
	{ "branches", "BRANCH_INSTRUCTIONS" },
	{ "branch-instructions", "BRANCH_INSTRUCTIONS" },
	{ "branch-misses", "BRANCH_MISSES" },
	{ "cache-references", "LLC_REFERENCES" },
	{ "cache-misses", "LLC_MISSES" },
	{ "slots", "TOPDOWN_SLOTS" },
};

#define N_GENERIC (sizeof(generic_aliases) / sizeof(generic_aliases[0]))

/* What the user asked for on top of the event itself. */
struct modifiers {
	bool mode_set;
	bool usr;
	bool os;
	bool cmask_set;
	uint8_t cmask;
	bool inv;
	bool edge;
};

struct parse_ctx {
	const struct event_table *table;
	const struct pmu_caps *caps;
	struct pmustat_error **err;
};

static int
fail(struct parse_ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int
fail(struct parse_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_setv(ctx->err, -EINVAL, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static const char *
table_label(const struct event_table *table)
{
	return table ? event_table_name(table) : "this CPU (no event table: architectural events only)";
}

static const struct arch_event *
find_alias(const char *name)
{
	size_t i;

	for (i = 0; i < N_GENERIC; i++)
		if (strcasecmp(generic_aliases[i].name, name) == 0)
			return arch_event_by_key(generic_aliases[i].key);
	return arch_event_by_key(name);
}

/* Number in [0, max]: decimal or 0x hex, nothing else. */
static bool
parse_number(const char *s, uint64_t max, uint64_t *out)
{
	char *end;

	if (!*s || *s == '-' || *s == '+' || isspace((unsigned char)*s))
		return false;
	errno = 0;
	*out = strtoull(s, &end, 0);
	return !errno && !*end && *out <= max;
}

static const char *
msr_label(uint32_t msr)
{
	switch (msr) {
	case 0x3f6:
		return " (MSR_PEBS_LD_LAT, the load-latency threshold)";
	case 0x3f7:
		return " (MSR_PEBS_FRONTEND)";
	case 0x3e0:
	case 0x3e1:
	case 0x3e2:
	case 0x3e3:
		return " (a memory-response MSR)";
	default:
		return "";
	}
}

static void
format_mask(uint32_t mask, char *buf, size_t len)
{
	size_t used = 0;
	unsigned i;

	buf[0] = '\0';
	for (i = 0; i < 32 && used < len; i++)
		if (mask & (1u << i))
			used += snprintf(buf + used, len - used, "%sPMC%u",
					 used ? "," : "", i);
}

/* Parse ":mod:mod..." (@s points after the first ':', or is NULL). */
static int
parse_modifiers(struct parse_ctx *ctx, const char *term, char *s, struct modifiers *m)
{
	while (s) {
		char *next = strchr(s, ':');
		uint64_t v;

		if (next)
			*next++ = '\0';
		if (!*s)
			return fail(ctx, "empty modifier in '%s' (valid: u, k, uk, cmask=N, inv, edge)",
				    term);
		if (strcmp(s, "u") == 0 || strcmp(s, "k") == 0 ||
		    strcmp(s, "uk") == 0 || strcmp(s, "ku") == 0) {
			if (m->mode_set)
				return fail(ctx, "'%s' gives the privilege level twice; use :uk for both",
					    term);
			m->mode_set = true;
			m->usr = strchr(s, 'u') != NULL;
			m->os = strchr(s, 'k') != NULL;
		} else if (strncmp(s, "cmask=", 6) == 0) {
			if (m->cmask_set)
				return fail(ctx, "'%s' gives cmask twice", term);
			if (!parse_number(s + 6, 0xff, &v))
				return fail(ctx, "'%s': cmask must be a number from 0 to 255", term);
			m->cmask_set = true;
			m->cmask = (uint8_t)v;
		} else if (strcmp(s, "inv") == 0) {
			if (m->inv)
				return fail(ctx, "'%s' gives inv twice", term);
			m->inv = true;
		} else if (strcmp(s, "edge") == 0) {
			if (m->edge)
				return fail(ctx, "'%s' gives edge twice", term);
			m->edge = true;
		} else {
			return fail(ctx, "unknown modifier '%s' in '%s' (valid: u, k, uk, cmask=N, inv, edge)",
				    s, term);
		}
		s = next;
	}
	return 0;
}

/* The v6-only and AnyThread fields, checked against this PMU. */
static int
check_fields(struct parse_ctx *ctx, const struct event *ev, bool equal)
{
	const struct pmu_caps *caps = ctx->caps;

	if ((ev->umask_ext || equal) && caps->version < 6)
		return fail(ctx, "event '%s' uses %s, a perfmon v6 field; this PMU is version %u",
			    ev->requested, equal ? "the EQ bit" : "UMASK2 (UMaskExt)",
			    caps->version);
	if (equal)
		return fail(ctx, "event '%s' sets the EQ bit, which pmustat does not program",
			    ev->requested);
	if (ev->any_thread && (caps->version < 3 || caps->anythread_deprecated))
		return fail(ctx, "event '%s' needs AnyThread, which this PMU %s",
			    ev->requested, caps->version < 3 ? "does not have (before perfmon v3)" :
			    "deprecates (CPUID.0AH:EDX[15])");
	return 0;
}

/* cmask/inv/edge: a GP counter only. */
static int
apply_modifiers(struct parse_ctx *ctx, struct event *ev, const struct modifiers *m)
{
	static const char *const twins[] = {
		"INSTRUCTIONS_RETIRED", "CORE_CYCLES", "REF_CYCLES", "TOPDOWN_SLOTS",
	};

	if (m->mode_set) {
		ev->usr = m->usr;
		ev->os = m->os;
	}
	if (!m->cmask_set && !m->inv && !m->edge)
		return 0;
	if (ev->fixed >= 0) {
		if (!ev->gp_mask) {
			if (ev->fixed < 4)
				return fail(ctx, "cmask, inv and edge need a general-purpose counter, but '%s' lives only on fixed counter %d; use %s instead",
					    ev->requested, ev->fixed, twins[ev->fixed]);
			return fail(ctx, "cmask, inv and edge need a general-purpose counter, but '%s' lives only on fixed counter %d",
				    ev->requested, ev->fixed);
		}
		ev->fixed = -1;
	}
	if (m->cmask_set)
		ev->cmask = m->cmask;
	ev->inv = ev->inv || m->inv;
	ev->edge = ev->edge || m->edge;
	return 0;
}

static int
resolve_arch(struct parse_ctx *ctx, const struct arch_event *ae, struct event *ev)
{
	const struct pmu_caps *caps = ctx->caps;

	if (!arch_event_available(caps, ae)) {
		if (ae->bit >= caps->arch_events_len)
			return fail(ctx, "event '%s' (architectural \"%s\") is not available on this CPU: CPUID.0AH enumerates only %u architectural events, this is bit %u",
				    ev->requested, ae->name, caps->arch_events_len, ae->bit);
		return fail(ctx, "event '%s' (architectural \"%s\") is not available on this CPU: CPUID.0AH:EBX bit %u is set",
			    ev->requested, ae->name, ae->bit);
	}
	snprintf(ev->name, sizeof(ev->name), "%s", ae->key);
	ev->code = ae->code;
	ev->umask = ae->umask;
	ev->gp_mask = caps->gp_mask & GP_LIMIT_MASK;
	if (ae->fixed >= 0 && ae->fixed < PMU_MAX_FIXED &&
	    (caps->fixed_mask & (1u << ae->fixed)))
		ev->fixed = ae->fixed;
	ev->flags |= EVENT_F_ARCH;
	/* Its GP encoding counts another clock (REF_XCLK): the fixed counter or nothing. */
	if (ae->fixed >= 0 && !ae->fixed_twin) {
		if (ev->fixed < 0)
			return fail(ctx, "event '%s' (architectural \"%s\") counts on fixed counter %d, which this CPU does not report (CPUID.0AH); on a general-purpose counter its encoding (0x%02x/0x%02x) counts the reference clock at another rate: count that as CPU_CLK_UNHALTED.REF_XCLK or r%02x%02x",
				    ev->requested, ae->name, ae->fixed, ae->code, ae->umask, ae->umask, ae->code);
		ev->gp_mask = 0;
	}
	if (ev->fixed < 0 && !ev->gp_mask)
		return fail(ctx, "event '%s': this CPU reports no general-purpose counter%s",
			    ev->requested, ae->fixed >= 0 ? " and not its fixed counter" : "");
	return 0;
}

static int
resolve_table(struct parse_ctx *ctx, const struct event_desc *d, struct event *ev)
{
	const struct pmu_caps *caps = ctx->caps;
	const char *tname = event_table_name(ctx->table);
	int ret;

	if (d->flags & EVENT_DESC_PEBS_ONLY)
		return fail(ctx, "event '%s' can only be sampled with PEBS (Intel's %s data marks it PEBS-only); pmustat counts, it does not sample",
			    ev->requested, tname);
	if (d->flags & EVENT_DESC_NO_MSR_VALUE)
		return fail(ctx, "event '%s' needs a request/response value in MSR_OFFCORE_RSP_0/1 that the %s table does not give; pick one of its OFFCORE_RESPONSE.* or OCR.* events",
			    ev->requested, tname);
	snprintf(ev->name, sizeof(ev->name), "%s", d->alias_of ? d->alias_of : d->name);
	ev->code = d->code;
	ev->umask = d->umask;
	ev->umask_ext = d->umask_ext;
	ev->cmask = d->cmask;
	ev->inv = d->inv;
	ev->edge = d->edge;
	ev->any_thread = d->any_thread;
	if (d->flags & EVENT_DESC_TAKEN_ALONE)
		ev->flags |= EVENT_F_TAKEN_ALONE;
	if (d->flags & EVENT_DESC_DEPRECATED)
		ev->flags |= EVENT_F_DEPRECATED;
	if (d->n_extra) {
		unsigned i;

		for (i = 0; i < d->n_extra; i++)
			if (d->extra[i].msr == MSR_OFFCORE_RSP_0 ||
			    d->extra[i].msr == MSR_OFFCORE_RSP_1)
				break;
		if (i == d->n_extra)
			return fail(ctx, "event '%s' needs MSR 0x%x%s, which pmustat does not program",
				    ev->requested, d->extra[0].msr, msr_label(d->extra[0].msr));
		/* The first offcore MSR listed; the scheduler may move to the other. */
		ev->code = d->extra[i].code;
		ev->umask = d->extra[i].umask;
		ev->extra_msr = d->extra[i].msr;
		ev->extra_value = d->extra[i].value;
	}
	ret = check_fields(ctx, ev, d->equal);
	if (ret)
		return ret;

	if (d->fixed >= 0) {
		const struct arch_event *twin = arch_event_fixed_twin(d->fixed);
		bool have_fixed = d->fixed < PMU_MAX_FIXED && (caps->fixed_mask & (1u << d->fixed));

		/*
		 * Intel's table puts it on its fixed counter only; where the
		 * architectural GP encoding counts the same (INST_RETIRED.ANY,
		 * CPU_CLK_UNHALTED.THREAD), a general-purpose counter with that
		 * encoding serves when the fixed one is someone else's.
		 */
		if (twin && arch_event_available(caps, twin) && !d->umask_ext && (caps->gp_mask & GP_LIMIT_MASK)) {
			ev->code = twin->code;
			ev->umask = twin->umask;
			ev->gp_mask = caps->gp_mask & GP_LIMIT_MASK;
			ev->fixed = have_fixed ? d->fixed : -1;
			return 0;
		}
		if (!have_fixed)
			return fail(ctx, "event '%s' lives only on fixed counter %d, which %s",
				    ev->requested, d->fixed,
				    d->fixed >= PMU_MAX_FIXED ? "pmustat does not program" :
				    "this CPU does not report (CPUID.0AH)");
		ev->fixed = d->fixed;
		ev->gp_mask = 0;
		return 0;
	}
	/*
	 * SNB…CLX publish a second list for HT off, when the core gives one
	 * thread all 8 PMCs; CPUID then reports 8 instead of 4.
	 */
	ev->gp_mask = (caps->gp_counters > 4 ? d->counters_htoff : d->counters) &
		      caps->gp_mask & GP_LIMIT_MASK;
	if (!ev->gp_mask) {
		char list[128];

		format_mask(caps->gp_counters > 4 ? d->counters_htoff : d->counters,
			    list, sizeof(list));
		return fail(ctx, "event '%s' can only be counted on %s, which this CPU does not have or pmustat does not use (it has %u general-purpose counters)",
			    ev->requested, list, caps->gp_counters);
	}
	return 0;
}

static int
resolve_raw(struct parse_ctx *ctx, const char *hex, struct event *ev, struct modifiers *m)
{
	/* Bits perf's raw config may carry that pmustat accepts. */
	const uint64_t allowed = 0xffffull | EVTSEL_USR | EVTSEL_OS | EVTSEL_EDGE |
				 EVTSEL_ANY | EVTSEL_EN | EVTSEL_INV | EVTSEL_CMASK(0xff) |
				 EVTSEL_UMASK2(0xff);
	uint64_t cfg = 0;
	size_t n = strlen(hex), i;

	if (n == 0)
		return fail(ctx, "raw event '%s' needs hex digits: rUUEE (umask, event), e.g. r412e",
			    ev->requested);
	if (n > 16)
		return fail(ctx, "raw event '%s' has more than 16 hex digits", ev->requested);
	for (i = 0; i < n; i++) {
		int c = tolower((unsigned char)hex[i]);

		cfg = (cfg << 4) | (uint64_t)(isdigit(c) ? c - '0' : c - 'a' + 10);
	}
	if (cfg & ~allowed) {
		uint64_t bad = cfg & ~allowed;

		if (bad >> 32)
			return fail(ctx, "raw event '%s' sets bits 0x%" PRIx64 " above bit 31 that pmustat does not program (only UMASK2, bits 47:40, on perfmon v6)",
				    ev->requested, (uint64_t)(bad & ~(uint64_t)0xffffffff));
		if (bad & (EVTSEL_PC | EVTSEL_INT))
			return fail(ctx, "raw event '%s' sets %s, which pmustat controls itself",
				    ev->requested, bad & EVTSEL_INT ? "INT (bit 20)" : "PC (bit 19)");
		return fail(ctx, "raw event '%s' sets bits 0x%" PRIx64 " that pmustat does not program (allowed: event, umask, edge, any, inv, cmask, usr/os and, on perfmon v6, umask2)",
			    ev->requested, bad);
	}
	if (cfg & (EVTSEL_USR | EVTSEL_OS)) {
		m->mode_set = true;
		m->usr = cfg & EVTSEL_USR;
		m->os = cfg & EVTSEL_OS;
	}
	ev->code = cfg & 0xff;
	ev->umask = (cfg >> 8) & 0xff;
	ev->edge = cfg & EVTSEL_EDGE;
	ev->any_thread = cfg & EVTSEL_ANY;
	ev->inv = cfg & EVTSEL_INV;
	ev->cmask = (cfg >> 24) & 0xff;
	ev->umask_ext = (cfg >> 40) & 0xff;
	ev->flags |= EVENT_F_RAW;
	return 0;
}

/*
 * A kernel software event: counted by the kernel, in both rings unless a
 * :u or :k says otherwise (perf's default; user-only context-switches
 * would always read 0). No PMU field applies, so cmask, inv and edge are
 * refused. Needs no PMU at all.
 */
static int
resolve_software(struct parse_ctx *ctx, const struct sw_event *sw, struct event *ev, char *mods)
{
	struct modifiers m = { 0 };
	int ret;

	snprintf(ev->name, sizeof(ev->name), "%s", sw->name);
	ev->flags |= EVENT_F_SOFTWARE;
	ev->usr = true;
	ev->os = true;
	ret = parse_modifiers(ctx, ev->requested, mods, &m);
	if (ret)
		return ret;
	if (m.cmask_set || m.inv || m.edge)
		return fail(ctx, "'%s' is a software event: cmask, inv and edge apply to PMU events only",
			    ev->requested);
	if (m.mode_set) {
		ev->usr = m.usr;
		ev->os = m.os;
	}
	return 0;
}

/* cpu/event=0x2e,umask=0x41,cmask=1,inv,edge,any,name=x/ : @body is between the slashes. */
static int
resolve_pmu_term(struct parse_ctx *ctx, char *body, struct event *ev)
{
	bool have_event = false;
	char *param = body;

	ev->flags |= EVENT_F_RAW;
	if (!*body)
		return fail(ctx, "'%s' has no parameters; want cpu/event=0xNN,umask=0xNN/",
			    ev->requested);
	while (param) {
		char *next = strchr(param, ',');
		char *eq;
		uint64_t v;
		bool flag_value = true;

		if (next)
			*next++ = '\0';
		eq = strchr(param, '=');
		if (eq)
			*eq++ = '\0';
		if (!*param)
			return fail(ctx, "'%s' has an empty parameter", ev->requested);
		if (strcmp(param, "name") == 0) {
			if (!eq || !*eq)
				return fail(ctx, "'%s': name= needs a label", ev->requested);
			snprintf(ev->name, sizeof(ev->name), "%s", eq);
		} else if (strcmp(param, "inv") == 0 || strcmp(param, "edge") == 0 ||
			   strcmp(param, "any") == 0) {
			if (eq) {
				if (!parse_number(eq, 1, &v))
					return fail(ctx, "'%s': %s takes 0 or 1", ev->requested, param);
				flag_value = v;
			}
			if (param[0] == 'i')
				ev->inv = flag_value;
			else if (param[0] == 'e')
				ev->edge = flag_value;
			else
				ev->any_thread = flag_value;
		} else if (strcmp(param, "event") == 0 || strcmp(param, "umask") == 0 ||
			   strcmp(param, "umask2") == 0 || strcmp(param, "cmask") == 0) {
			if (!eq || !parse_number(eq, 0xff, &v))
				return fail(ctx, "'%s': %s needs a value from 0 to 0xff",
					    ev->requested, param);
			if (strcmp(param, "event") == 0) {
				ev->code = (uint8_t)v;
				have_event = true;
			} else if (strcmp(param, "umask") == 0) {
				ev->umask = (uint8_t)v;
			} else if (strcmp(param, "umask2") == 0) {
				ev->umask_ext = (uint8_t)v;
			} else {
				ev->cmask = (uint8_t)v;
			}
		} else {
			return fail(ctx, "'%s': unknown parameter '%s' (valid: event, umask, umask2, cmask, inv, edge, any, name)",
				    ev->requested, param);
		}
		param = next;
	}
	if (!have_event)
		return fail(ctx, "'%s' has no event=; want cpu/event=0xNN,umask=0xNN/",
			    ev->requested);
	return 0;
}

bool
event_spec_same(const struct event *a, const struct event *b)
{
	/* Software events have no encoding: their name is their identity. */
	if ((a->flags ^ b->flags) & EVENT_F_SOFTWARE)
		return false;
	if (a->flags & EVENT_F_SOFTWARE)
		return strcmp(a->name, b->name) == 0 && a->usr == b->usr && a->os == b->os;
	return a->code == b->code && a->umask == b->umask &&
	       a->umask_ext == b->umask_ext && a->cmask == b->cmask &&
	       a->inv == b->inv && a->edge == b->edge &&
	       a->any_thread == b->any_thread && a->usr == b->usr &&
	       a->os == b->os && a->fixed == b->fixed &&
	       a->extra_msr == b->extra_msr && a->extra_value == b->extra_value;
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
	for (i = 0; i < N_GENERIC; i++)
		suggest_consider(s, generic_aliases[i].name);
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
	fail(ctx, "unknown event '%s' for %s%s", name, table_label(ctx->table), strbuf_str(&b));
	strbuf_free(&b);
	return -EINVAL;
}

/* One term, already split off the list and trimmed. */
static int
parse_term(struct parse_ctx *ctx, const char *text, struct event *ev)
{
	char buf[EVENT_NAME_MAX];
	struct modifiers m = { 0 };
	char *mods = NULL;
	int ret;

	memset(ev, 0, sizeof(*ev));
	ev->fixed = -1;
	ev->usr = true;
	if (strlen(text) >= sizeof(buf))
		return fail(ctx, "event '%.40s...' is too long (%zu characters, at most %zu)",
			    text, strlen(text), sizeof(buf) - 1);
	snprintf(ev->requested, sizeof(ev->requested), "%s", text);
	snprintf(buf, sizeof(buf), "%s", text);

	if (strncasecmp(buf, "cpu/", 4) == 0) {
		char *close = strchr(buf + 4, '/');
		char *after;
		size_t nl;

		if (!close)
			return fail(ctx, "'%s' has no closing '/'", text);
		*close = '\0';
		after = close + 1;
		/* perf's privilege letters right after the slash: cpu/.../u, /k, /uk */
		nl = strspn(after, "uk");
		if (nl) {
			if (nl > 2 || (nl == 2 && after[0] == after[1]))
				return fail(ctx, "'%s': bad privilege letters after '/' (want u, k or uk)",
					    text);
			m.mode_set = true;
			m.usr = memchr(after, 'u', nl) != NULL;
			m.os = memchr(after, 'k', nl) != NULL;
			after += nl;
		}
		if (*after && *after != ':')
			return fail(ctx, "'%s': unexpected '%s' after the closing '/'", text, after);
		mods = *after == ':' ? after + 1 : NULL;
		ret = resolve_pmu_term(ctx, buf + 4, ev);
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
			return fail(ctx, "'%s' has modifiers but no event name", text);
		if ((buf[0] == 'r' || buf[0] == 'R') &&
		    strspn(buf + 1, "0123456789abcdefABCDEF") == strlen(buf + 1)) {
			ret = resolve_raw(ctx, buf + 1, ev, &m);
			if (ret)
				return ret;
			snprintf(ev->name, sizeof(ev->name), "%s", buf);
		} else if (strchr(buf, '/')) {
			return fail(ctx, "'%s': only the core PMU 'cpu/.../' is supported (uncore and other PMUs are not)",
				    text);
		} else {
			const struct arch_event *ae = find_alias(buf);
			const struct sw_event *sw = sw_event_find(buf);
			const struct event_desc *d;

			if (sw) {
				ret = resolve_software(ctx, sw, ev, mods);
				if (ret)
					return ret;
				mods = NULL;
			} else if (ae) {
				ret = resolve_arch(ctx, ae, ev);
			} else if (ctx->table && (d = event_table_find(ctx->table, buf))) {
				ret = resolve_table(ctx, d, ev);
			} else if (looks_uncore(buf)) {
				return fail(ctx, "event '%s' is an uncore event; pmustat counts core PMU events only",
					    buf);
			} else {
				return unknown_event(ctx, buf);
			}
			if (ret)
				return ret;
		}
	}
	ret = parse_modifiers(ctx, text, mods, &m);
	if (ret)
		return ret;
	ret = apply_modifiers(ctx, ev, &m);
	if (ret)
		return ret;
	if (ev->flags & EVENT_F_RAW) {
		ret = check_fields(ctx, ev, false);
		if (ret)
			return ret;
		ev->gp_mask = ctx->caps->gp_mask & GP_LIMIT_MASK;
		if (!ev->gp_mask)
			return fail(ctx, "event '%s': this CPU reports no general-purpose counter",
				    text);
	}
	if (!ev->usr && !ev->os)
		return fail(ctx, "event '%s' counts in neither user nor kernel mode", text);
	return 0;
}

int
event_spec_append(const char *spec, const struct event_table *table,
		  const struct pmu_caps *caps, struct event **events,
		  size_t *count, struct pmustat_error **err)
{
	struct parse_ctx ctx = { table, caps, err };
	const char *p = spec;
	size_t start = *count, n = *count, cap = *count, term_no = 0;
	struct event *evs = *events;
	int ret = 0;

	if (!spec || !*spec)
		return fail(&ctx, "empty event list");
	for (;;) {
		const char *end, *s, *e;
		char text[EVENT_NAME_MAX + 1];
		size_t len;

		term_no++;
		/* cpu/a=1,b=2/ holds commas: the term ends after its closing slash. */
		s = p;
		while (*s == ' ' || *s == '\t')
			s++;
		end = s;
		if (strncasecmp(s, "cpu/", 4) == 0) {
			end = strchr(s + 4, '/');
			end = end ? end + 1 : s + strlen(s);
		}
		end += strcspn(end, ",");
		e = end;
		while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
		len = (size_t)(e - s);
		if (len == 0) {
			ret = fail(&ctx, "empty event name (item %zu of '%.60s%s')", term_no, spec,
				   strlen(spec) > 60 ? "..." : "");
			goto fail;
		}
		if (len > EVENT_NAME_MAX - 1) {
			ret = fail(&ctx, "event '%.40s...' is too long (%zu characters, at most %d)",
				   s, len, EVENT_NAME_MAX - 1);
			goto fail;
		}
		memcpy(text, s, len);
		text[len] = '\0';

		if (n >= EVENT_SPEC_MAX_EVENTS) {
			ret = fail(&ctx, "too many events: at most %d can be given with -e",
				   EVENT_SPEC_MAX_EVENTS);
			goto fail;
		}
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 8;
			struct event *grown = realloc(evs, ncap * sizeof(*evs));

			if (!grown) {
				ret = err_set(err, -ENOMEM, "out of memory parsing '%s'", text);
				goto fail;
			}
			evs = grown;
			*events = evs;
			cap = ncap;
		}
		ret = parse_term(&ctx, text, &evs[n]);
		if (ret)
			goto fail;
		n++;
		if (!*end)
			break;
		p = end + 1;
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
	struct event *evs = NULL;
	size_t n = 0;
	int ret;

	*out = NULL;
	*count = 0;
	ret = event_spec_append(spec, table, caps, &evs, &n, err);
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
