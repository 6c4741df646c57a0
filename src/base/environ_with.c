/*
 * environ_with.c - see environ_with.h.
 */
#include "base/environ_with.h"

#include <stdlib.h>
#include <string.h>

char **
environ_with(char *const *base, char *entry)
{
	size_t n = 0, j = 0, name_len = strcspn(entry, "=") + 1;
	char **env;

	while (base && base[n])
		n++;
	env = calloc(n + 2, sizeof(*env));
	if (!env)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (strncmp(base[i], entry, name_len) != 0)
			env[j++] = base[i];
	env[j++] = entry;
	env[j] = NULL;
	return env;
}

const char *
environ_get(char *const *base, const char *name_eq)
{
	size_t len = strlen(name_eq);

	for (size_t i = 0; base && base[i]; i++)
		if (strncmp(base[i], name_eq, len) == 0)
			return base[i] + len;
	return NULL;
}
