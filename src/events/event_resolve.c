/*
 * event_resolve.c - the second half of the -e grammar (event_spec.c splits
 * the list and picks the kind of term): one term's event resolved to an
 * encoding and checked against this PMU, for each kind of name (an
 * architectural alias, a table event, rHEX, a software event, cpu/.../),
 * and the modifiers applied.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/err.h"
#include "events/arch_events.h"
#include "events/cpu.h"
#include "events/event_resolve.h"
#include "events/generic_events.h"
#include "events/event_table.h"
#include "events/sw_events.h"
#include "pmu/msr.h"

int
spec_fail(struct parse_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_setv(ctx->err, -EINVAL, fmt, ap);
	va_end(ap);
	return -EINVAL;
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
int
spec_parse_modifiers(struct parse_ctx *ctx, const char *term, char *s, struct modifiers *m)
{
	while (s) {
		char *next = strchr(s, ':');
		uint64_t v;

		if (next)
			*next++ = '\0';
		if (!*s)
			return spec_fail(ctx, "empty modifier in '%s' (valid: u, k, uk, cmask=N, inv, edge)",
				    term);
		if (strcmp(s, "u") == 0 || strcmp(s, "k") == 0 ||
		    strcmp(s, "uk") == 0 || strcmp(s, "ku") == 0) {
			if (m->mode_set)
				return spec_fail(ctx, "'%s' gives the privilege level twice; use :uk for both",
					    term);
			m->mode_set = true;
			m->usr = strchr(s, 'u') != NULL;
			m->os = strchr(s, 'k') != NULL;
		} else if (strncmp(s, "cmask=", 6) == 0) {
			if (m->cmask_set)
				return spec_fail(ctx, "'%s' gives cmask twice", term);
			if (!parse_number(s + 6, 0xff, &v))
				return spec_fail(ctx, "'%s': cmask must be a number from 0 to 255", term);
			m->cmask_set = true;
			m->cmask = (uint8_t)v;
		} else if (strcmp(s, "inv") == 0) {
			if (m->inv)
				return spec_fail(ctx, "'%s' gives inv twice", term);
			m->inv = true;
		} else if (strcmp(s, "edge") == 0) {
			if (m->edge)
				return spec_fail(ctx, "'%s' gives edge twice", term);
			m->edge = true;
		} else {
			return spec_fail(ctx, "unknown modifier '%s' in '%s' (valid: u, k, uk, cmask=N, inv, edge)",
				    s, term);
		}
		s = next;
	}
	return 0;
}

/* The v6-only and AnyThread fields, checked against this PMU. */
int
spec_check_fields(struct parse_ctx *ctx, const struct event *ev, bool equal)
{
	const struct pmu_caps *caps = ctx->caps;

	if ((ev->umask_ext || equal) && caps->version < 6)
		return spec_fail(ctx, "event '%s' uses %s, a perfmon v6 field; this PMU is version %u",
			    ev->requested, equal ? "the EQ bit" : "UMASK2 (UMaskExt)",
			    caps->version);
	if (equal)
		return spec_fail(ctx, "event '%s' sets the EQ bit, which pmustat does not program",
			    ev->requested);
	if (ev->any_thread && (caps->version < 3 || caps->anythread_deprecated))
		return spec_fail(ctx, "event '%s' needs AnyThread, which this PMU %s",
			    ev->requested, caps->version < 3 ? "does not have (before perfmon v3)" :
			    "deprecates (CPUID.0AH:EDX[15])");
	return 0;
}

/* cmask/inv/edge: a GP counter only. */
int
spec_apply_modifiers(struct parse_ctx *ctx, struct event *ev, const struct modifiers *m)
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
				return spec_fail(ctx, "cmask, inv and edge need a general-purpose counter, but '%s' lives only on fixed counter %d; use %s instead",
					    ev->requested, ev->fixed, twins[ev->fixed]);
			return spec_fail(ctx, "cmask, inv and edge need a general-purpose counter, but '%s' lives only on fixed counter %d",
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

int
spec_resolve_arch(struct parse_ctx *ctx, const struct arch_event *ae, struct event *ev)
{
	const struct pmu_caps *caps = ctx->caps;

	if (!arch_event_available(caps, ae)) {
		if (ae->bit >= caps->arch_events_len)
			return spec_fail(ctx, "event '%s' (architectural \"%s\") is not available on this CPU: CPUID.0AH enumerates only %u architectural events, this is bit %u",
				    ev->requested, ae->name, caps->arch_events_len, ae->bit);
		return spec_fail(ctx, "event '%s' (architectural \"%s\") is not available on this CPU: CPUID.0AH:EBX bit %u is set",
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
			return spec_fail(ctx, "event '%s' (architectural \"%s\") counts on fixed counter %d, which this CPU does not report (CPUID.0AH); on a general-purpose counter its encoding (0x%02x/0x%02x) counts the reference clock at another rate: count that as CPU_CLK_UNHALTED.REF_XCLK or r%02x%02x",
				    ev->requested, ae->name, ae->fixed, ae->code, ae->umask, ae->umask, ae->code);
		ev->gp_mask = 0;
	}
	if (ev->fixed < 0 && !ev->gp_mask)
		return spec_fail(ctx, "event '%s': this CPU reports no general-purpose counter%s",
			    ev->requested, ae->fixed >= 0 ? " and not its fixed counter" : "");
	return 0;
}

int
spec_resolve_kernel_generic(struct parse_ctx *ctx, const struct generic_event *g, struct event *ev)
{
	if (g->perf_type == GENERIC_NO_KERNEL_TYPE)
		return spec_fail(ctx, "event '%s' (perf's name for %s) has no generic kernel event, and pmustat does not program this CPU's PMU itself",
				 ev->requested, g->desc);
	snprintf(ev->name, sizeof(ev->name), "%s", g->name);
	ev->flags |= EVENT_F_KERNEL_GENERIC;
	ev->perf_type = g->perf_type;
	ev->perf_config = g->perf_config;
	return 0;
}

int
spec_resolve_table(struct parse_ctx *ctx, const struct event_desc *d, struct event *ev)
{
	const struct pmu_caps *caps = ctx->caps;
	const char *tname = event_table_name(ctx->table);
	int ret;

	if (d->flags & EVENT_DESC_PEBS_ONLY)
		return spec_fail(ctx, "event '%s' can only be sampled with PEBS (Intel's %s data marks it PEBS-only); pmustat counts, it does not sample",
			    ev->requested, tname);
	if (d->flags & EVENT_DESC_NO_MSR_VALUE)
		return spec_fail(ctx, "event '%s' needs a request/response value in MSR_OFFCORE_RSP_0/1 that the %s table does not give; pick one of its OFFCORE_RESPONSE.* or OCR.* events",
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
			return spec_fail(ctx, "event '%s' needs MSR 0x%x%s, which pmustat does not program",
				    ev->requested, d->extra[0].msr, msr_label(d->extra[0].msr));
		/* The first offcore MSR listed; the scheduler may move to the other. */
		ev->code = d->extra[i].code;
		ev->umask = d->extra[i].umask;
		ev->extra_msr = d->extra[i].msr;
		ev->extra_value = d->extra[i].value;
		for (unsigned k = i + 1; k < d->n_extra; k++) {
			const struct event_extra *x = &d->extra[k];

			if ((x->msr == MSR_OFFCORE_RSP_0 || x->msr == MSR_OFFCORE_RSP_1) && x->msr != ev->extra_msr) {
				ev->alt_msr = x->msr;
				ev->alt_value = x->value;
				ev->alt_code = x->code;
				ev->alt_umask = x->umask;
				break;
			}
		}
	}
	ret = spec_check_fields(ctx, ev, d->equal);
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
			return spec_fail(ctx, "event '%s' lives only on fixed counter %d, which %s",
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
		return spec_fail(ctx, "event '%s' can only be counted on %s, which this CPU does not have or pmustat does not use (it has %u general-purpose counters)",
			    ev->requested, list, caps->gp_counters);
	}
	return 0;
}

int
spec_resolve_raw(struct parse_ctx *ctx, const char *hex, struct event *ev, struct modifiers *m)
{
	/* Bits perf's raw config may carry that pmustat accepts. */
	const uint64_t allowed = 0xffffull | EVTSEL_USR | EVTSEL_OS | EVTSEL_EDGE |
				 EVTSEL_ANY | EVTSEL_EN | EVTSEL_INV | EVTSEL_CMASK(0xff) |
				 EVTSEL_UMASK2(0xff);
	uint64_t cfg = 0;
	size_t n = strlen(hex), i;

	if (n == 0)
		return spec_fail(ctx, "raw event '%s' needs hex digits: rUUEE (umask, event), e.g. r412e",
			    ev->requested);
	if (n > 16)
		return spec_fail(ctx, "raw event '%s' has more than 16 hex digits", ev->requested);
	for (i = 0; i < n; i++) {
		int c = tolower((unsigned char)hex[i]);

		cfg = (cfg << 4) | (uint64_t)(isdigit(c) ? c - '0' : c - 'a' + 10);
	}
	if (cfg & ~allowed) {
		uint64_t bad = cfg & ~allowed;

		if (bad >> 32)
			return spec_fail(ctx, "raw event '%s' sets bits 0x%" PRIx64 " above bit 31 that pmustat does not program (only UMASK2, bits 47:40, on perfmon v6)",
				    ev->requested, (uint64_t)(bad & ~(uint64_t)0xffffffff));
		if (bad & (EVTSEL_PC | EVTSEL_INT))
			return spec_fail(ctx, "raw event '%s' sets %s, which pmustat controls itself",
				    ev->requested, bad & EVTSEL_INT ? "INT (bit 20)" : "PC (bit 19)");
		return spec_fail(ctx, "raw event '%s' sets bits 0x%" PRIx64 " that pmustat does not program (allowed: event, umask, edge, any, inv, cmask, usr/os and, on perfmon v6, umask2)",
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
int
spec_resolve_software(struct parse_ctx *ctx, const struct sw_event *sw, struct event *ev, char *mods)
{
	struct modifiers m = { 0 };
	int ret;

	snprintf(ev->name, sizeof(ev->name), "%s", sw->name);
	ev->flags |= EVENT_F_SOFTWARE;
	ev->usr = true;
	ev->os = true;
	ret = spec_parse_modifiers(ctx, ev->requested, mods, &m);
	if (ret)
		return ret;
	if (m.cmask_set || m.inv || m.edge)
		return spec_fail(ctx, "'%s' is a software event: cmask, inv and edge apply to PMU events only",
			    ev->requested);
	if (m.mode_set) {
		ev->usr = m.usr;
		ev->os = m.os;
	}
	return 0;
}

/* cpu/event=0x2e,umask=0x41,cmask=1,inv,edge,any,name=x/ : @body is between the slashes. */
int
spec_resolve_pmu_term(struct parse_ctx *ctx, char *body, struct event *ev)
{
	bool have_event = false;
	char *param = body;

	ev->flags |= EVENT_F_RAW;
	if (!*body)
		return spec_fail(ctx, "'%s' has no parameters; want cpu/event=0xNN,umask=0xNN/",
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
			return spec_fail(ctx, "'%s' has an empty parameter", ev->requested);
		if (strcmp(param, "name") == 0) {
			if (!eq || !*eq)
				return spec_fail(ctx, "'%s': name= needs a label", ev->requested);
			snprintf(ev->name, sizeof(ev->name), "%s", eq);
		} else if (strcmp(param, "inv") == 0 || strcmp(param, "edge") == 0 ||
			   strcmp(param, "any") == 0) {
			if (eq) {
				if (!parse_number(eq, 1, &v))
					return spec_fail(ctx, "'%s': %s takes 0 or 1", ev->requested, param);
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
				return spec_fail(ctx, "'%s': %s needs a value from 0 to 0xff",
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
			return spec_fail(ctx, "'%s': unknown parameter '%s' (valid: event, umask, umask2, cmask, inv, edge, any, name)",
				    ev->requested, param);
		}
		param = next;
	}
	if (!have_event)
		return spec_fail(ctx, "'%s' has no event=; want cpu/event=0xNN,umask=0xNN/",
			    ev->requested);
	return 0;
}
