/*
 * suggest.h - "did you mean": the known names closest to a mistyped one,
 * by case-insensitive edit distance. Typos, not rewrites: a candidate is
 * kept only within a third of the typed name's length (at least 2 edits).
 * Used by every event-name resolver, whatever PMU its table is for.
 */
#ifndef PMUSTAT_SUGGEST_H
#define PMUSTAT_SUGGEST_H

#include <stddef.h>

#define SUGGEST_MAX 8

struct suggest {
	const char *typed;
	size_t limit;		/* edits allowed */
	size_t max;		/* names kept, <= SUGGEST_MAX */
	size_t n;
	struct {
		const char *name;
		size_t dist;
	} best[SUGGEST_MAX];
};

void suggest_init(struct suggest *s, const char *typed, size_t max);
/* Keep @name (not copied) if it is among the closest so far; repeats are ignored. */
void suggest_consider(struct suggest *s, const char *name);
/* The names kept, best first (ties in name order), into @out; returns how many. */
size_t suggest_result(const struct suggest *s, const char **out);

/* Case-insensitive Levenshtein distance, SIZE_MAX once it exceeds @limit. */
size_t suggest_distance(const char *a, const char *b, size_t limit);

#endif
