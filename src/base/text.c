/*
 * text.c - see text.h.
 */
#include "base/text.h"

char *
text_clean(char *s, bool keep_lines)
{
	for (char *p = s; p && *p; p++)
		if (text_is_control((unsigned char)*p) && !(keep_lines && *p == '\n'))
			*p = '?';
	return s;
}

void
text_put(FILE *f, const char *s)
{
	for (; s && *s; s++)
		fputc(text_is_control((unsigned char)*s) ? '?' : *s, f);
}
