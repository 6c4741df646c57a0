/*
 * text.h - what pmustat never prints as it came: a control character (C0
 * or DEL) in text from outside (a command line, an event name, a region's
 * name, a path, a baseline's field) would be a terminal's escape sequence
 * or a forged line of output. Each is shown as '?', wherever such text
 * reaches a terminal: every error message (err.c), the header's command
 * line, the paths and fields pmustat echoes.
 */
#ifndef PMUSTAT_TEXT_H
#define PMUSTAT_TEXT_H

#include <stdbool.h>
#include <stdio.h>

static inline bool
text_is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

/*
 * Every control character of @s as '?', in place; with @keep_lines a line
 * break stays one (a message of several lines of pmustat's own, whose
 * outside text was cleaned before). Returns @s.
 */
char *
text_clean(char *s, bool keep_lines);

/* @s on @f with every control character as '?'. */
void
text_put(FILE *f, const char *s);

#endif
