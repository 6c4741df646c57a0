/*
 * ratios.c - see ratios.h. The events are recognised by their generic
 * kind (event.h), which each PMU family's resolver sets from its own
 * encodings, whatever name was typed (instructions, INST_RETIRED.ANY,
 * r00c0, instr_retired).
 */
#include <stddef.h>

#include "events/event.h"
#include "report/ratios.h"

static bool
is_instructions(const struct event *e)
{
	return e->kind == EVENT_KIND_INSTRUCTIONS;
}

static bool
is_core_cycles(const struct event *e)
{
	return e->kind == EVENT_KIND_CYCLES;
}

static bool
is_branches(const struct event *e)
{
	return e->kind == EVENT_KIND_BRANCHES;
}

static bool
is_branch_misses(const struct event *e)
{
	return e->kind == EVENT_KIND_BRANCH_MISSES;
}

static bool
is_cache_misses(const struct event *e)
{
	return e->kind == EVENT_KIND_CACHE_MISSES;
}

static bool
is_cache_references(const struct event *e)
{
	return e->kind == EVENT_KIND_CACHE_REFERENCES;
}

static const struct ratio ratios[] = {
	{ is_instructions, is_core_cycles, "  insn per cycle", 1 },
	{ is_branch_misses, is_branches, "% of all branches", 100 },
	{ is_cache_misses, is_cache_references, "% of all cache refs", 100 },
};

const struct ratio *
ratio_of(const struct event *numerator)
{
	if (numerator->flags & EVENT_F_SOFTWARE)
		return NULL;
	for (size_t i = 0; i < sizeof(ratios) / sizeof(ratios[0]); i++)
		if (ratios[i].numerator(numerator))
			return &ratios[i];
	return NULL;
}

bool
ratio_is_cycles(const struct event *e)
{
	return !(e->flags & EVENT_F_SOFTWARE) && is_core_cycles(e);
}

bool
ratio_pair(const struct event *a, const struct event *b)
{
	const struct ratio *r;

	if (a->usr != b->usr || a->os != b->os)
		return false;
	if ((r = ratio_of(a)) && r->denominator(b) && !r->numerator(b))
		return true;
	return (r = ratio_of(b)) && r->denominator(a) && !r->numerator(a);
}
