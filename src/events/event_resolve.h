/*
 * event_resolve.h - inside the -e grammar, between event_spec.c (the list,
 * the kind of each term) and event_resolve.c (each kind resolved to an
 * encoding this PMU can count). Private to events/.
 */
#ifndef PMUSTAT_EVENT_RESOLVE_H
#define PMUSTAT_EVENT_RESOLVE_H

#include <stdbool.h>
#include <stdint.h>

#include "events/event.h"
#include "pmu/msr.h"

struct arch_event;
struct event_desc;
struct event_table;
struct pmu_caps;
struct pmustat_error;
struct sw_event;

#define GP_LIMIT_MASK	((1u << PMU_MAX_GP) - 1)

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

/* One parse: what the terms are resolved against, where a refusal goes. */
struct generic_event;

struct parse_ctx {
	const struct event_table *table;
	const struct pmu_caps *caps;
	struct pmustat_error **err;
	int core_type;		/* a hybrid's core's CPUID.1AH type (cpu_core/, cpu_atom/); 0: none */
	bool kernel_generic;	/* perf's generic names as the kernel's generic events (event_spec_parse_kernel()) */
};

/* Refuse the term: *ctx->err set, -EINVAL returned. */
int spec_fail(struct parse_ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* All return 0, or -EINVAL (-ENOMEM) with *ctx->err set. */
int spec_parse_modifiers(struct parse_ctx *ctx, const char *term, char *s, struct modifiers *m);
int spec_check_fields(struct parse_ctx *ctx, const struct event *ev, bool equal);
int spec_apply_modifiers(struct parse_ctx *ctx, struct event *ev, const struct modifiers *m);
int spec_resolve_arch(struct parse_ctx *ctx, const struct arch_event *ae, struct event *ev);
int spec_resolve_table(struct parse_ctx *ctx, const struct event_desc *d, struct event *ev);
int spec_resolve_raw(struct parse_ctx *ctx, const char *hex, struct event *ev, struct modifiers *m);
int spec_resolve_software(struct parse_ctx *ctx, const struct sw_event *sw, struct event *ev, char *mods);
int spec_resolve_pmu_term(struct parse_ctx *ctx, char *body, struct event *ev);
int spec_resolve_kernel_generic(struct parse_ctx *ctx, const struct generic_event *g, struct event *ev);

#endif
