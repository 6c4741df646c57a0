/*
 * label.c - see label.h.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "events/event.h"
#include "report/label.h"

const char *
label_privilege(const struct event *e)
{
	if (e->usr && e->os)
		return "uk";
	return e->os ? "k" : "u";
}

/* Whether the letters [@s, @s + @n) are a privilege modifier: u, k, uk or ku. */
static bool
privilege_letters(const char *s, size_t n)
{
	return n > 0 && n <= 2 && strspn(s, "uk") >= n;
}

/* Whether @name's own spelling names its rings (":u", ":k:cmask=1", "cpu/.../uk", "cpu_core/.../k"). */
static bool
spells_privilege(const char *name)
{
	const char *p;

	if (strncasecmp(name, "cpu/", 4) == 0 || strncasecmp(name, "cpu_core/", 9) == 0 ||
	    strncasecmp(name, "cpu_atom/", 9) == 0) {
		p = strchr(strchr(name, '/') + 1, '/');
		return p && (p[1] == 'u' || p[1] == 'k');
	}
	for (p = strchr(name, ':'); p; p = strchr(p + 1, ':')) {
		size_t n = strcspn(p + 1, ":");

		if (privilege_letters(p + 1, n))
			return true;
	}
	return false;
}

void
label_of(const struct event *e, char *buf, size_t size)
{
	const char *name = e->requested[0] ? e->requested : e->name;
	const char *ring = label_privilege(e);
	size_t len = strlen(name);

	if (strcmp(ring, "uk") == 0 || spells_privilege(name))
		snprintf(buf, size, "%s", name);
	else if (len && name[len - 1] == '/')
		snprintf(buf, size, "%s%s", name, ring);	/* perf's cpu/.../u */
	else
		snprintf(buf, size, "%s:%s", name, ring);
}
