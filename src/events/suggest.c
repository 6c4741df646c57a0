#include "config.h"
#include "base/strbuf.h"
#include "events/suggest.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Longer names are never suggested: the row below lives on the stack. */
#define SUGGEST_NAME_MAX 160

size_t
suggest_distance(const char *a, const char *b, size_t limit)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	size_t row[SUGGEST_NAME_MAX + 1];

	if (la > SUGGEST_NAME_MAX || lb > SUGGEST_NAME_MAX)
		return SIZE_MAX;
	if ((la > lb ? la - lb : lb - la) > limit)
		return SIZE_MAX;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		size_t diag = row[0], best;

		row[0] = i;
		best = row[0];
		for (j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t cost = tolower((unsigned char)a[i - 1]) !=
				      tolower((unsigned char)b[j - 1]);
			size_t v = diag + cost;

			if (up + 1 < v)
				v = up + 1;
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			row[j] = v;
			diag = up;
			if (v < best)
				best = v;
		}
		if (best > limit)
			return SIZE_MAX;
	}
	return row[lb];
}

void
suggest_init(struct suggest *s, const char *typed, size_t max)
{
	size_t len = strlen(typed);

	memset(s, 0, sizeof(*s));
	s->typed = typed;
	s->max = max > SUGGEST_MAX ? SUGGEST_MAX : max;
	s->limit = len / 3 > 2 ? len / 3 : 2;
}

void
suggest_consider(struct suggest *s, const char *name)
{
	size_t dist = suggest_distance(s->typed, name, s->limit), i, pos;

	if (dist > s->limit)
		return;
	for (i = 0; i < s->n; i++)
		if (strcasecmp(s->best[i].name, name) == 0)
			return;
	for (pos = 0; pos < s->n; pos++)
		if (dist < s->best[pos].dist ||
		    (dist == s->best[pos].dist && strcasecmp(name, s->best[pos].name) < 0))
			break;
	if (pos == s->max)
		return;
	if (s->n < s->max)
		s->n++;
	memmove(&s->best[pos + 1], &s->best[pos], (s->n - pos - 1) * sizeof(s->best[0]));
	s->best[pos].name = name;
	s->best[pos].dist = dist;
}

size_t
suggest_result(const struct suggest *s, const char **out)
{
	for (size_t i = 0; i < s->n; i++)
		out[i] = s->best[i].name;
	return s->n;
}

size_t
suggest_append(const struct suggest *s, struct strbuf *b)
{
	for (size_t i = 0; i < s->n; i++)
		strbuf_printf(b, "%s%s", i ? ", " : "; did you mean ", s->best[i].name);
	if (s->n)
		strbuf_printf(b, "?");
	return s->n;
}
