/*
 * strbuf.c - see strbuf.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"

void
strbuf_vprintf(struct strbuf *b, const char *fmt, va_list ap)
{
	va_list again;
	size_t need;
	int n;

	if (b->failed)
		return;
	va_copy(again, ap);
	n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
	if (n < 0) {
		va_end(again);
		b->failed = true;
		return;
	}
	need = b->len + (size_t)n + 1;
	if (need > b->cap) {
		size_t cap = b->cap ? b->cap : 64;
		char *s;

		while (cap < need)
			cap *= 2;
		s = realloc(b->s, cap);
		if (!s) {
			if (b->s)
				b->s[b->len] = '\0';
			va_end(again);
			b->failed = true;
			return;
		}
		b->s = s;
		b->cap = cap;
		(void)vsnprintf(b->s + b->len, b->cap - b->len, fmt, again);
	}
	va_end(again);
	b->len += (size_t)n;
}

void
strbuf_printf(struct strbuf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vprintf(b, fmt, ap);
	va_end(ap);
}

const char *
strbuf_str(const struct strbuf *b)
{
	return b->s ? b->s : "";
}

bool
strbuf_failed(const struct strbuf *b)
{
	return b->failed;
}

char *
strbuf_take(struct strbuf *b)
{
	char *s = b->s;

	if (!s && !b->failed)
		s = calloc(1, 1);
	if (b->failed) {
		free(s);
		s = NULL;
	}
	b->s = NULL;
	b->len = b->cap = 0;
	b->failed = false;
	return s;
}

void
strbuf_free(struct strbuf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
	b->failed = false;
}

char *
str_printf(const char *fmt, ...)
{
	struct strbuf b = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vprintf(&b, fmt, ap);
	va_end(ap);
	return strbuf_take(&b);
}
