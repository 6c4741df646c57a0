/*
 * suggest.h - "did you mean": the known names closest to a mistyped one.
 *
 * Feed every valid name to suggest_consider(); the best few (by
 * case-insensitive edit distance, ties in name order) are kept. Typos, not
 * rewrites: a candidate is kept only within a third of the typed name's
 * length (at least 2 edits). One ranking for every resolver of names: the
 * -e parsers of every PMU family (event_spec.c and the families' own) and -M
 * (metrics/metric_select.c).
 */
#ifndef PMUSTAT_SUGGEST_H
#define PMUSTAT_SUGGEST_H

#include <stddef.h>

struct strbuf;

#define SUGGEST_MAX	8	/* the most a caller can ask for */
#define SUGGEST_SHOWN	3	/* what an error message offers */

struct suggest {
	const char *typed;
	size_t limit;		/* edits allowed */
	size_t max;		/* names kept, <= SUGGEST_MAX */
	size_t n;
	struct {
		const char *name;	/* the candidate itself, not a copy */
		size_t dist;
	} best[SUGGEST_MAX];
};

void suggest_init(struct suggest *s, const char *typed, size_t max);
/* Keep @name (not copied) if it is among the closest so far; repeats are ignored. */
void suggest_consider(struct suggest *s, const char *name);
/* The names kept, best first (ties in name order), into @out; returns how many. */
size_t suggest_result(const struct suggest *s, const char **out);
/*
 * Append "; did you mean A, B?" (nothing without candidates) to @b.
 * Returns how many were suggested.
 */
size_t suggest_append(const struct suggest *s, struct strbuf *b);

/* Case-insensitive Levenshtein distance, SIZE_MAX once it exceeds @limit. */
size_t suggest_distance(const char *a, const char *b, size_t limit);

#endif
