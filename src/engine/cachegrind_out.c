/*
 * cachegrind_out.c - see cachegrind_out.h.
 */
#include "engine/cachegrind_out.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define MAX_COLUMNS 32

/* The line of @text starting with @key (at a line's start), its text after the key; NULL if none. */
static const char *
find_line(const char *text, size_t len, const char *key, size_t *line_len)
{
	size_t klen = strlen(key);

	for (size_t at = 0; at < len;) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t end = nl ? (size_t)(nl - text) : len;

		if (end - at >= klen && memcmp(text + at, key, klen) == 0) {
			*line_len = end - at - klen;
			return text + at + klen;
		}
		at = end + 1;
	}
	return NULL;
}

/* The next space-separated word of [*p, end) into @word; false at the end. */
static bool
next_word(const char **p, const char *end, char *word, size_t size)
{
	size_t n = 0;

	while (*p < end && (**p == ' ' || **p == '\t' || **p == '\r'))
		(*p)++;
	if (*p >= end)
		return false;
	while (*p < end && **p != ' ' && **p != '\t' && **p != '\r') {
		if (n + 1 < size)
			word[n++] = **p;
		(*p)++;
	}
	word[n] = '\0';
	return true;
}

static bool
parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return true;
}

int
cachegrind_out_parse(const char *text, size_t len, uint64_t values[SIM_NFIELDS], char *why, size_t why_size)
{
	int column[MAX_COLUMNS];
	unsigned ncol = 0, nval = 0;
	size_t llen;
	const char *line = find_line(text, len, "events:", &llen), *p, *end;
	char word[32];

	memset(values, 0, sizeof(uint64_t) * SIM_NFIELDS);
	if (!line)
		return snprintf(why, why_size, "no 'events:' line"), -EPROTO;
	for (p = line, end = line + llen; next_word(&p, end, word, sizeof(word));) {
		int f = sim_field_find(word);

		if (ncol >= MAX_COLUMNS)
			return snprintf(why, why_size, "more than %d columns", MAX_COLUMNS), -EPROTO;
		for (unsigned k = 0; f >= 0 && k < ncol; k++)
			if (column[k] == f)
				return snprintf(why, why_size, "column %s twice", word), -EPROTO;
		column[ncol++] = f;	/* -1: a column pmustat does not use */
	}
	line = find_line(text, len, "summary:", &llen);
	if (!line)
		line = find_line(text, len, "totals:", &llen);
	if (!line)
		return snprintf(why, why_size, "no 'summary:' line (the process did not finish?)"), -EPROTO;
	for (p = line, end = line + llen; next_word(&p, end, word, sizeof(word)); nval++) {
		uint64_t v;

		if (nval >= ncol)
			return snprintf(why, why_size, "more numbers than the %u columns", ncol), -EPROTO;
		if (!parse_u64(word, &v))
			return snprintf(why, why_size, "'%.20s' is not a count", word), -EPROTO;
		if (column[nval] >= 0)
			values[column[nval]] = v;
	}
	/* Callgrind leaves trailing zeros out; Cachegrind writes every column. */
	if (nval == 0)
		return snprintf(why, why_size, "an empty summary line"), -EPROTO;
	return 0;
}
