/*
 * strbuf.h - text built piece by piece on the heap, never truncated: lists
 * in messages ("fixed1 (nmi_watchdog); pmc0 (perf)"), reasons, notes.
 *
 *	struct strbuf b = STRBUF_INIT;
 *	strbuf_printf(&b, "%s%s", b.len ? "; " : "", what);
 *	... strbuf_str(&b) ...
 *	strbuf_free(&b);
 *
 * Allocation failure is sticky: the text stops growing, strbuf_failed()
 * says so and strbuf_str() still gives what was built.
 */
#ifndef PMUSTAT_STRBUF_H
#define PMUSTAT_STRBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

struct strbuf {
	char *s;
	size_t len;
	size_t cap;
	bool failed;
};

#define STRBUF_INIT { NULL, 0, 0, false }

void strbuf_printf(struct strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strbuf_vprintf(struct strbuf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

/* The text so far ("" when empty). */
const char *strbuf_str(const struct strbuf *b);
bool strbuf_failed(const struct strbuf *b);

/* The text, now the caller's to free(); the buffer is empty again. NULL when out of memory. */
char *strbuf_take(struct strbuf *b);

void strbuf_free(struct strbuf *b);

/* A new heap string from @fmt; NULL when out of memory. */
char *str_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
