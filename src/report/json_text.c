/*
 * json_text.c - see json_text.h.
 */
#include <stdlib.h>
#include <string.h>

#include "report/json_text.h"

static unsigned repaired;

/*
 * Length of the valid UTF-8 sequence at @s (at most @n bytes), or 0 when
 * the bytes there start no valid sequence: then the first byte alone is
 * replaced (the "maximal subpart" rule would merge a few more; one U+FFFD
 * per bad byte is as safe and simpler).
 */
static size_t
seq_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4;
	else
		return 0;
	/* The second byte's range: no overlong forms, surrogates or > U+10FFFF. */
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

bool
json_text_valid_utf8(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0; i < len; ) {
		size_t k = seq_len(p + i, len - i);

		if (!k)
			return false;
		i += k;
	}
	return true;
}

json_t *
json_text(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len, out = 0;
	char *buf;
	json_t *j;

	if (!s)
		return json_null();
	len = strlen(s);
	if (json_text_valid_utf8(s, len))
		return json_stringn(s, len);
	/* Each bad byte becomes the three bytes of U+FFFD. */
	buf = malloc(3 * len + 1);
	if (!buf)
		return NULL;
	for (size_t i = 0; i < len; ) {
		size_t k = seq_len(p + i, len - i);

		if (k) {
			memcpy(buf + out, s + i, k);
			out += k;
			i += k;
		} else {
			memcpy(buf + out, "\xef\xbf\xbd", 3);
			out += 3;
			i++;
		}
	}
	buf[out] = '\0';
	repaired++;
	j = json_stringn(buf, out);
	free(buf);
	return j;
}

unsigned
json_text_repaired(void)
{
	return repaired;
}
