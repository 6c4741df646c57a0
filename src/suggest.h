/*
 * suggest.h - "did you mean": the candidates closest to a misspelt name.
 *
 * Feed every valid name to suggest_consider(); the best few (by
 * case-insensitive edit distance, ties in name order) are kept. Names
 * further than a third of the typed name's length (at least 2) are typos
 * too far gone to suggest. Used by the -e parser and by -M.
 */
#ifndef PMUSTAT_SUGGEST_H
#define PMUSTAT_SUGGEST_H

#include <stddef.h>

#define SUGGEST_MAX 3

struct suggest {
	const char *name;		/* what was typed */
	size_t limit;			/* largest distance still suggested */
	size_t max;			/* how many to keep, <= SUGGEST_MAX */
	size_t n;
	const char *best[SUGGEST_MAX];	/* the candidates themselves, not copies */
	size_t dist[SUGGEST_MAX];
};

void suggest_init(struct suggest *s, const char *name, size_t max);
void suggest_consider(struct suggest *s, const char *candidate);

/*
 * Append "; did you mean A, B?" (nothing without candidates) to the
 * message in @buf of @size. Returns how many were suggested.
 */
size_t suggest_append(const struct suggest *s, char *buf, size_t size);

#endif
