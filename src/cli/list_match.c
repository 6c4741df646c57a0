/*
 * list_match.c - the pattern rule of `pmustat list` (list_metrics.h):
 * a substring, or a glob when the pattern has glob characters, both in any
 * case; a substring pattern that is a common name for something also
 * matches the names Intel's tables use for it ("llc" finds
 * LONGEST_LAT_CACHE and the L3 events, "icache" the L1 instruction cache).
 * A pattern of several words ("L2 miss") matches a thing whose texts (its
 * name, its description) hold every word, each in any of them, each word
 * with its synonyms.
 */
#include <fnmatch.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "cli/list_metrics.h"

/* Each row: names for one thing; a pattern equal to one matches text holding any. */
static const char *const synonyms[][6] = {
	{ "llc", "l3", "last level", "last-level", "longest_lat_cache", NULL },
	{ "l1d", "l1 data", "l1-dcache", "l1d_", NULL },
	{ "l1i", "icache", "instruction cache", "l1-icache", NULL },
	{ "dtlb", "data tlb", NULL },
	{ "itlb", "instruction tlb", NULL },
	{ "branch", "br_inst", "br_misp", NULL },
	{ "mispredict", "misp", NULL },
	{ "fp", "floating point", "fp_arith", NULL },
	{ "cycles", "cpu_clk_unhalted", "clockticks", NULL },
	{ "instructions", "inst_retired", NULL },
};

static bool
in_row(const char *const *row, const char *pattern)
{
	for (size_t k = 0; k < 6 && row[k]; k++)
		if (strcasecmp(row[k], pattern) == 0)
			return true;
	return false;
}

/* @pattern (one word or the whole phrase) in @text, or one of its synonyms. */
static bool
phrase_in(const char *pattern, const char *text)
{
	if (strcasestr(text, pattern))
		return true;
	for (size_t i = 0; i < sizeof(synonyms) / sizeof(synonyms[0]); i++) {
		if (!in_row(synonyms[i], pattern))
			continue;
		for (size_t k = 0; k < 6 && synonyms[i][k]; k++)
			if (strcasestr(text, synonyms[i][k]))
				return true;
	}
	return false;
}

bool
list_text_matches(const char *pattern, const char *text)
{
	return list_texts_match(pattern, &text, 1);
}

bool
list_texts_match(const char *pattern, const char *const *texts, size_t n)
{
	char word[128];
	const char *p;

	if (!pattern)
		return true;
	for (size_t i = 0; i < n; i++) {
		if (!texts[i])
			continue;
		if (strpbrk(pattern, "*?[") ? fnmatch(pattern, texts[i], FNM_CASEFOLD) == 0 : phrase_in(pattern, texts[i]))
			return true;
	}
	if (strpbrk(pattern, "*?[") || !strchr(pattern, ' '))
		return false;
	/* Every word in one of the texts. */
	for (p = pattern; *p;) {
		size_t len = strcspn(p, " "), i;

		if (len == 0) {
			p++;
			continue;
		}
		if (len >= sizeof(word))
			return false;
		memcpy(word, p, len);
		word[len] = '\0';
		for (i = 0; i < n && !(texts[i] && phrase_in(word, texts[i])); i++)
			;
		if (i == n)
			return false;
		p += len;
	}
	return true;
}
