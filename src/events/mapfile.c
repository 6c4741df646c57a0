#include "config.h"
#include "events/mapfile.h"

#include <errno.h>
#include <limits.h>
#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events/cpu.h"
#include "base/err.h"

/* The Metrics column is optional: older maps have five columns. */
#define MAPFILE_HEADER "Family-model,Core Type,Native Model ID,Table,Version"
#define MAPFILE_HEADER_METRICS MAPFILE_HEADER ",Metrics"
#define MAPFILE_FIELDS 6
#define MAPFILE_NAME_CHARS "abcdefghijklmnopqrstuvwxyz0123456789_-"

struct mapfile_row {
	char *fields[MAPFILE_FIELDS];	/* point into the line; "" when absent */
	bool typed;
	unsigned long core_type;
	unsigned long native_model_id;
};

/*
 * Intel's keys are GenuineIntel-<family>-<model>[-<stepping>]; a pattern
 * with three dashes outside brackets has a stepping part (Linux perf's rule).
 */
static bool
pattern_has_stepping(const char *pattern)
{
	unsigned dashes = 0;
	bool in_bracket = false;

	for (; *pattern; pattern++) {
		if (*pattern == '[')
			in_bracket = true;
		else if (*pattern == ']')
			in_bracket = false;
		else if (*pattern == '-' && !in_bracket)
			dashes++;
	}
	return dashes >= 3;
}

static bool
parse_hex_field(const char *s, unsigned long max, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 16);
	return !errno && end != s && !*end && *out <= max;
}

/* Split @line of @nfields fields in place; returns a message or NULL. */
static const char *
parse_row(char *line, unsigned nfields, struct mapfile_row *row)
{
	char *p = line;
	unsigned n = 0;

	for (;;) {
		char *comma = strchr(p, ',');

		if (n == nfields)
			return "too many fields (want the header's)";
		row->fields[n++] = p;
		if (!comma)
			break;
		*comma = '\0';
		p = comma + 1;
	}
	if (n != nfields)
		return "too few fields (want the header's)";
	while (n < MAPFILE_FIELDS)
		row->fields[n++] = line + strlen(line);
	if (!*row->fields[0])
		return "empty Family-model";
	/*
	 * A key pattern needs alternation and bracket classes, never
	 * repetition: glibc's regcomp takes gigabytes and minutes on stacked
	 * quantifiers (found by tests/fuzz), so they are refused up front.
	 */
	if (strspn(row->fields[0], "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		   "0123456789-[]()|^.") != strlen(row->fields[0]))
		return "Family-model may use letters, digits, '-', '.', '|', '(', ')' and [classes] only";
	if (!*row->fields[3] || strspn(row->fields[3], MAPFILE_NAME_CHARS) != strlen(row->fields[3]))
		return "Table must be a name of [a-z0-9_-]";
	if (strspn(row->fields[5], MAPFILE_NAME_CHARS) != strlen(row->fields[5]))
		return "Metrics must be empty or a name of [a-z0-9_-]";
	row->typed = *row->fields[1] || *row->fields[2];
	if (row->typed) {
		if (!parse_hex_field(row->fields[1], 0xff, &row->core_type))
			return "Core Type is not a hex byte";
		if (!parse_hex_field(row->fields[2], 0xffffff, &row->native_model_id))
			return "Native Model ID is not 24-bit hex";
	}
	return NULL;
}

/* What makes a key pattern more than a literal (parse_row allows no other). */
#define PATTERN_METACHARS "[]()|^."

/*
 * Whether the ERE @pattern matches the whole of @key. Almost every row is a
 * literal key, compared as a string; a pattern is compiled only when its
 * literal prefix (without alternation, one the key must start with) fits.
 */
static int
key_matches(const char *pattern, const char *key, bool *match)
{
	size_t literal = strcspn(pattern, PATTERN_METACHARS);
	char anchored[512];
	regex_t re;
	int rc;

	if (!pattern[literal]) {
		*match = strcmp(pattern, key) == 0;
		return 0;
	}
	if (!strchr(pattern, '|') && strncmp(pattern, key, literal) != 0) {
		*match = false;
		return 0;
	}
	if ((size_t)snprintf(anchored, sizeof(anchored), "^(%s)$", pattern) >=
	    sizeof(anchored))
		return -ENAMETOOLONG;
	if (regcomp(&re, anchored, REG_EXTENDED | REG_NOSUB) != 0)
		return -EINVAL;
	rc = regexec(&re, key, 0, NULL, 0);
	regfree(&re);
	*match = rc == 0;
	return 0;
}

/* Copies the row's names; false when one does not fit. */
static bool
choose_row(struct mapfile_choice *c, const struct mapfile_row *row)
{
	return (size_t)snprintf(c->table, sizeof(c->table), "%s", row->fields[3]) <
		       sizeof(c->table) &&
	       (size_t)snprintf(c->metrics, sizeof(c->metrics), "%s", row->fields[5]) <
		       sizeof(c->metrics);
}

int
mapfile_choose(const char *events_dir, const struct cpu_info *cpu,
	       struct mapfile_choice *out, struct pmustat_error **err)
{
	char path[PATH_MAX];
	char key[64], key_no_stepping[64];
	char *line = NULL, *dash;
	size_t cap = 0;
	ssize_t len;
	unsigned lineno = 0;
	bool header_seen = false, hybrid_rows = false;
	unsigned nfields = 0;
	/* A row for this core type beats a plain row for the model. */
	struct mapfile_choice typed_choice = { "", "" }, plain_choice = { "", "" };
	bool typed_fits = true, plain_fits = true;
	const struct mapfile_choice *chosen;
	FILE *f;
	int ret = 0;

	if ((size_t)snprintf(path, sizeof(path), "%s/mapfile.csv", events_dir) >=
	    sizeof(path)) {
		return err_set(err, -ENAMETOOLONG, "%s/mapfile.csv: path too long", events_dir);
	}
	cpu_mapfile_key(cpu, key, sizeof(key));
	snprintf(key_no_stepping, sizeof(key_no_stepping), "%s", key);
	dash = strrchr(key_no_stepping, '-');
	if (dash)
		*dash = '\0';

	f = fopen(path, "re");
	if (!f) {
		/* -ENOENT means "no row" to callers: a missing file is not that. */
		ret = errno == ENOENT ? -EIO : -errno;
		return err_set(err, ret, "%s: %s (pmustat's event tables are missing: it looks beside its binary, in ../share/pmustat/events, then in its configured prefix; install it with 'meson install', and move or copy the installed tree as a whole, not the binary alone)",
			 path, strerror(errno));
	}
	while ((len = getline(&line, &cap, f)) >= 0) {
		struct mapfile_row row;
		const char *what;
		bool match;

		lineno++;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (len == 0 || line[0] == '#')
			continue;
		if (!header_seen) {
			if (strcmp(line, MAPFILE_HEADER_METRICS) == 0) {
				nfields = MAPFILE_FIELDS;
			} else if (strcmp(line, MAPFILE_HEADER) == 0) {
				nfields = MAPFILE_FIELDS - 1;
			} else {
				ret = err_set(err, -EINVAL, "%s:%u: header is not \"%s\"",
					 path, lineno, MAPFILE_HEADER_METRICS);
				goto out;
			}
			header_seen = true;
			continue;
		}
		what = parse_row(line, nfields, &row);
		if (what) {
			ret = err_set(err, -EINVAL, "%s:%u: %s", path, lineno, what);
			goto out;
		}
		ret = key_matches(row.fields[0],
				  pattern_has_stepping(row.fields[0]) ? key : key_no_stepping,
				  &match);
		if (ret) {
			err_set(err, ret, "%s:%u: '%s' is not a valid extended regular expression",
				 path, lineno, row.fields[0]);
			goto out;
		}
		if (!match)
			continue;
		/* Every row is checked, so a broken line later on is still reported. */
		if (row.typed) {
			hybrid_rows = true;
			if (!typed_choice.table[0] &&
			    row.core_type == (unsigned long)cpu->core_type &&
			    row.native_model_id == cpu->native_model_id)
				typed_fits = choose_row(&typed_choice, &row);
		} else if (!plain_choice.table[0]) {
			plain_fits = choose_row(&plain_choice, &row);
		}
	}
	if (ferror(f)) {
		ret = -EIO;
		err_set(err, -EIO, "%s:%u: read error", path, lineno);
		goto out;
	}
	if (!header_seen) {
		ret = err_set(err, -EINVAL, "%s:%u: no header line", path, lineno);
		goto out;
	}
	chosen = typed_choice.table[0] ? &typed_choice : &plain_choice;
	if (!chosen->table[0]) {
		if (hybrid_rows)
			err_set(err, -ENOENT, "%s: no row for %s with core type 0x%02x, native model ID 0x%06x (CPUID.1AH)",
				 path, key, (unsigned)cpu->core_type,
				 (unsigned)cpu->native_model_id);
		else
			err_set(err, -ENOENT, "%s: no event table for %s", path, key);
		ret = -ENOENT;
		goto out;
	}
	if (chosen == &typed_choice ? !typed_fits : !plain_fits) {
		ret = err_set(err, -ENAMETOOLONG, "%s: table name '%s...' too long", path, chosen->table);
		goto out;
	}
	*out = *chosen;
	ret = 0;
out:
	free(line);
	fclose(f);
	return ret;
}

int
mapfile_choose_table(const char *events_dir, const struct cpu_info *cpu,
		     char *table, size_t table_len, struct pmustat_error **err)
{
	struct mapfile_choice c;
	int ret = mapfile_choose(events_dir, cpu, &c, err);

	if (ret < 0)
		return ret;
	if (strlen(c.table) >= table_len) {
		return err_set(err, -ENAMETOOLONG, "%s/mapfile.csv: table name '%s' too long", events_dir,
			 c.table);
	}
	memcpy(table, c.table, strlen(c.table) + 1);
	return 0;
}
