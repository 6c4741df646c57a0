/*
 * environ_with.h - a command's environment with one variable set: the
 * entries of a base environment, less any of the same name, then the new
 * entry. The array is new; its strings are borrowed (the base's and the
 * caller's), so it lives as long as they do.
 */
#ifndef PMUSTAT_ENVIRON_WITH_H
#define PMUSTAT_ENVIRON_WITH_H

/*
 * @base (NULL: empty) with @entry ("NAME=value") in place of every NAME=
 * entry. A calloc'd, NULL-terminated array (free() it, not its strings), or
 * NULL when out of memory.
 */
char **
environ_with(char *const *base, char *entry);

/* The value of NAME in @base (@name_eq is "NAME="), or NULL. */
const char *
environ_get(char *const *base, const char *name_eq);

#endif
