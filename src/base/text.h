/*
 * text.h - what pmustat never prints as it came: a control character (C0
 * or DEL) in text from outside (a command line, an event name, a region's
 * name) would be a terminal's escape sequence or a forged line of output.
 */
#ifndef PMUSTAT_TEXT_H
#define PMUSTAT_TEXT_H

#include <stdbool.h>

static inline bool
text_is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

#endif
