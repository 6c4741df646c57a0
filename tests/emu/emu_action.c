/*
 * emu_action.c - parse an action (see emu_action.h). Pure: also linked
 * into emu-workload, which has no emulator core of its own.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu_action.h"

const char emu_action_syntax[] =
	"wrmsr:MSR=VAL | retire:CODE:UMASK:N | nmi[:CTRL] | take-fixed:I | "
	"pebs:I:CODE:UMASK | offcore:RSP:N | topdown:RET:BAD:FE:BE[:HEAVY:BRMISP:FETCHLAT:MEMBOUND]"
	" | nb:SEL:MASK:VALUE:N | tsc:N (retire, offcore, topdown, nb: [:u|:k])";

static int bad(char *err, size_t errsize, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int
bad(char *err, size_t errsize, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errsize, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/*
 * Split @s at ':' into at most @max numbers in @v; a last field "u" or "k"
 * sets *@ring and *@ring_given. Returns how many numbers, or -1 on a bad
 * field.
 */
static int
numbers(const char *s, uint64_t *v, int max, unsigned *ring, bool *ring_given)
{
	int n = 0;

	*ring_given = false;
	while (*s) {
		char *end;

		if ((s[0] == 'u' || s[0] == 'k') && s[1] == '\0') {
			*ring = s[0] == 'k' ? 0 : 3;
			*ring_given = true;
			return n;
		}
		if (n == max || *s == '-')
			return -1;
		errno = 0;
		v[n++] = strtoull(s, &end, 0);
		if (errno || end == s || (*end && *end != ':'))
			return -1;
		s = *end ? end + 1 : end;
	}
	return n;
}

int
emu_action_parse(const char *spec, unsigned ring, struct emu_action *a, char *err,
		 size_t errsize)
{
	const char *colon = strchr(spec, ':');
	size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
	const char *rest = colon ? colon + 1 : "";
	uint64_t v[EMU_ACTION_TD];
	bool ring_given;
	int n;

	memset(a, 0, sizeof(*a));
	a->ring = ring;
	if (len == 5 && strncmp(spec, "wrmsr", 5) == 0) {
		char *end;

		a->kind = EMU_ACT_WRMSR;
		errno = 0;
		v[0] = strtoull(rest, &end, 0);
		if (errno || end == rest || *end != '=' || v[0] > UINT32_MAX)
			return bad(err, errsize, "wrmsr wants MSR=VALUE, not '%s'", rest);
		a->msr = (uint32_t)v[0];
		rest = end + 1;
		errno = 0;
		a->val = strtoull(rest, &end, 0);
		if (errno || end == rest || *end || *rest == '-')
			return bad(err, errsize, "wrmsr wants MSR=VALUE, not '%s'", spec + 6);
		return 0;
	}
	n = numbers(rest, v, EMU_ACTION_TD, &a->ring, &ring_given);
	if (n < 0)
		return bad(err, errsize, "bad number in '%s' (want %s)", spec, emu_action_syntax);
	if (len == 6 && strncmp(spec, "retire", 6) == 0 && n == 3 && v[0] <= 0xff && v[1] <= 0xff) {
		a->kind = EMU_ACT_RETIRE;
		a->code = (uint8_t)v[0];
		a->umask = (uint8_t)v[1];
		a->n = v[2];
	} else if (len == 3 && strncmp(spec, "nmi", 3) == 0 && n <= 1 && !ring_given) {
		a->kind = EMU_ACT_NMI;
		a->has_val = n == 1;
		a->val = n == 1 ? v[0] : 0;
	} else if (len == 10 && strncmp(spec, "take-fixed", 10) == 0 && n == 1 && v[0] < 64 &&
		   !ring_given) {
		a->kind = EMU_ACT_TAKE_FIXED;
		a->index = (unsigned)v[0];
	} else if (len == 4 && strncmp(spec, "pebs", 4) == 0 && n == 3 && v[0] < 64 &&
		   v[1] <= 0xff && v[2] <= 0xff && !ring_given) {
		a->kind = EMU_ACT_PEBS;
		a->index = (unsigned)v[0];
		a->code = (uint8_t)v[1];
		a->umask = (uint8_t)v[2];
	} else if (len == 7 && strncmp(spec, "offcore", 7) == 0 && n == 2) {
		a->kind = EMU_ACT_OFFCORE;
		a->val = v[0];
		a->n = v[1];
	} else if (len == 7 && strncmp(spec, "topdown", 7) == 0 && (n == 4 || n == 8)) {
		a->kind = EMU_ACT_TOPDOWN;
		memcpy(a->slots, v, sizeof(v[0]) * (size_t)n);
	} else if (len == 2 && strncmp(spec, "nb", 2) == 0 && n == 4 && v[0] <= 63 &&
		   v[1] <= 0xffff && v[2] <= 15) {
		a->kind = EMU_ACT_NB_CLOCKS;
		a->code = (uint8_t)v[0];
		a->val = v[1];
		a->index = (unsigned)v[2];
		a->n = v[3];
	} else if (len == 3 && strncmp(spec, "tsc", 3) == 0 && n == 1 && !ring_given) {
		a->kind = EMU_ACT_TSC;
		a->n = v[0];
	} else {
		return bad(err, errsize, "bad action '%s' (want %s)", spec, emu_action_syntax);
	}
	return 0;
}
