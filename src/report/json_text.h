/*
 * json_text.h - text from outside (arguments, file names, /proc, CPUID
 * brand strings) as a JSON string. JSON text is UTF-8 and jansson refuses
 * anything else (json_string() returns NULL, and the key goes missing);
 * here every byte sequence that is not valid UTF-8 is replaced by U+FFFD,
 * so the record always has the field and always validates.
 */
#ifndef PMUSTAT_JSON_TEXT_H
#define PMUSTAT_JSON_TEXT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* @s as a JSON string, invalid UTF-8 replaced; JSON null for NULL; NULL only when out of memory. */
json_t *
json_text(const char *s);

/* Whether @s is valid UTF-8 (Unicode 15, table 3-7: no overlong forms, surrogates or values above U+10FFFF). */
bool
json_text_valid_utf8(const char *s, size_t len);

/* How many strings json_text() had to repair so far (for a note to the user). */
unsigned
json_text_repaired(void);

#endif
