/*
 * baseline.c - load, validate and compare baselines.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/baseline.h"
#include "report/check.h"
#include "report/output.h"
#include "base/err.h"

static int
berr(struct pmustat_error **err, int rc, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int
berr(struct pmustat_error **err, int rc, const char *path, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_setv(err, rc, fmt, ap);
	va_end(ap);
	err_wrap(err, "baseline %s", path);
	return rc;
}

/* Read at most BASELINE_MAX_BYTES of a regular file into a NUL-terminated buffer. */
static int
read_bounded(const char *path, char **buf, size_t *len, struct pmustat_error **err)
{
	struct stat st;
	size_t got = 0;
	int fd, rc = 0;

	*buf = NULL;
	/*
	 * No symlink (pmustat may run as root: never read a file through a
	 * link someone else planted), and no blocking on a FIFO before the
	 * S_ISREG check below.
	 */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW);
	if (fd < 0 && errno == ELOOP)
		return berr(err, -ELOOP, path, "is a symbolic link; give the file itself");
	if (fd < 0)
		return berr(err, -errno, path, "cannot open: %s", strerror(errno));
	if (fstat(fd, &st) != 0) {
		rc = berr(err, -errno, path, "cannot stat: %s", strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = berr(err, -EINVAL, path, "not a regular file");
		goto out;
	}
	if (st.st_size > (off_t)BASELINE_MAX_BYTES) {
		rc = berr(err, -EFBIG, path, "%lld bytes; a baseline is at most %u MiB (is this the right file?)",
			  (long long)st.st_size, BASELINE_MAX_BYTES >> 20);
		goto out;
	}
	*buf = malloc((size_t)st.st_size + 1);
	if (!*buf) {
		rc = berr(err, -ENOMEM, path, "out of memory");
		goto out;
	}
	/* The size may change under us: never read past what was allocated. */
	while (got < (size_t)st.st_size) {
		ssize_t r = read(fd, *buf + got, (size_t)st.st_size - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = berr(err, -errno, path, "cannot read: %s", strerror(errno));
			goto out;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	(*buf)[got] = '\0';
	*len = got;
out:
	if (rc) {
		free(*buf);
		*buf = NULL;
	}
	close(fd);
	return rc;
}

/* A string field that fits @size; "" for null when @nullable. */
static int
get_string(json_t *obj, const char *key, bool nullable, char *dst, size_t size, const char *path,
	   const char *where, struct pmustat_error **err)
{
	json_t *v = json_object_get(obj, key);
	const char *s;

	if (nullable && json_is_null(v)) {
		dst[0] = '\0';
		return 0;
	}
	if (!v)
		return berr(err, -EINVAL, path, "%s%s: missing", where, key);
	if (!json_is_string(v))
		return berr(err, -EINVAL, path, "%s%s: not a string%s", where, key,
			    nullable ? " or null" : "");
	s = json_string_value(v);
	if (strlen(s) != json_string_length(v))
		return berr(err, -EINVAL, path, "%s%s: contains a NUL byte", where, key);
	if (strlen(s) >= size)
		return berr(err, -EINVAL, path, "%s%s: longer than %zu bytes", where, key, size - 1);
	memcpy(dst, s, strlen(s) + 1);
	return 0;
}

static int
load_event(json_t *o, unsigned i, struct baseline_event *e, const char *path, struct pmustat_error **err)
{
	char where[48];
	json_t *v, *stats;
	int rc;

	snprintf(where, sizeof(where), "events[%u].", i);
	if (!json_is_object(o))
		return berr(err, -EINVAL, path, "events[%u]: not an object", i);
	rc = get_string(o, "name", false, e->name, sizeof(e->name), path, where, err);
	if (!rc)
		rc = get_string(o, "requested", false, e->requested, sizeof(e->requested), path, where, err);
	if (rc)
		return rc;
	if (!e->name[0])
		return berr(err, -EINVAL, path, "%sname: empty", where);
	v = json_object_get(o, "value");
	if (!v)
		return berr(err, -EINVAL, path, "%svalue: missing", where);
	if (json_is_null(v))
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return berr(err, -EINVAL, path, "%svalue: not a count (an integer >= 0, or null)", where);
	e->counted = true;
	e->value = (double)json_integer_value(v);
	/* With -r the median is the figure, and it may be a half. */
	stats = json_object_get(o, "stats");
	if (!stats || json_is_null(stats))
		return 0;
	if (!json_is_object(stats))
		return berr(err, -EINVAL, path, "%sstats: not an object or null", where);
	v = json_object_get(stats, "median");
	if (!json_is_number(v) || json_number_value(v) < 0 || !isfinite(json_number_value(v)))
		return berr(err, -EINVAL, path, "%sstats.median: not a number >= 0", where);
	e->value = json_number_value(v);
	return 0;
}

void
baseline_region_name(char *buf, size_t size, const char *region, const char *event)
{
	snprintf(buf, size, "%s:%s", region, event);
}

/* A --regions record's "regions": each region's events as REGION:EVENT entries after the events. */
static int
load_regions(json_t *regions, struct baseline *b, const char *path, struct pmustat_error **err)
{
	size_t i, k;
	json_t *g, *ev;

	if (!regions || json_is_null(regions))
		return 0;
	if (!json_is_array(regions))
		return berr(err, -EINVAL, path, "regions: not an array");
	json_array_foreach(regions, i, g) {
		char name[BASELINE_NAME_MAX], where[48];
		json_t *events = json_object_get(g, "events");

		snprintf(where, sizeof(where), "regions[%zu].", i);
		if (!json_is_object(g))
			return berr(err, -EINVAL, path, "regions[%zu]: not an object", i);
		if (get_string(g, "name", false, name, sizeof(name), path, where, err))
			return -EINVAL;
		if (!json_is_array(events))
			return berr(err, -EINVAL, path, "%sevents: missing or not an array", where);
		json_array_foreach(events, k, ev) {
			struct baseline_event *e;
			char ev_name[BASELINE_NAME_MAX], ev_requested[BASELINE_NAME_MAX];

			if (b->nevents >= BASELINE_MAX_ENTRIES)
				return berr(err, -EINVAL, path, "regions: more than %d events in all", BASELINE_MAX_ENTRIES);
			e = &b->events[b->nevents];
			/* Its errors name "events[k]": of the region named in @where's entry. */
			if (load_event(ev, (unsigned)k, e, path, err))
				return -EINVAL;
			memcpy(ev_name, e->name, sizeof(ev_name));
			memcpy(ev_requested, e->requested, sizeof(ev_requested));
			baseline_region_name(e->name, sizeof(e->name), name, ev_name);
			baseline_region_name(e->requested, sizeof(e->requested), name, ev_requested);
			b->nevents++;
		}
	}
	return 0;
}

/*
 * A -M record's "metrics": each metric by its name after the events, its
 * value (with -r already the median) a number of any sign, or null (none).
 */
static int
load_metrics(json_t *metrics, struct baseline *b, const char *path, struct pmustat_error **err)
{
	size_t i;
	json_t *m;

	if (!metrics || json_is_null(metrics))
		return 0;
	if (!json_is_array(metrics))
		return berr(err, -EINVAL, path, "metrics: not an array");
	json_array_foreach(metrics, i, m) {
		struct baseline_event *e;
		char where[48];
		json_t *v;

		snprintf(where, sizeof(where), "metrics[%zu].", i);
		if (!json_is_object(m))
			return berr(err, -EINVAL, path, "metrics[%zu]: not an object", i);
		if (b->nevents >= BASELINE_MAX_ENTRIES)
			return berr(err, -EINVAL, path, "metrics: more than %d events and metrics in all",
				    BASELINE_MAX_ENTRIES);
		e = &b->events[b->nevents];
		memset(e, 0, sizeof(*e));
		if (get_string(m, "name", false, e->name, sizeof(e->name), path, where, err))
			return -EINVAL;
		if (!e->name[0])
			return berr(err, -EINVAL, path, "%sname: empty", where);
		memcpy(e->requested, e->name, sizeof(e->requested));
		v = json_object_get(m, "value");
		if (!v)
			return berr(err, -EINVAL, path, "%svalue: missing", where);
		if (!json_is_null(v)) {
			if (!json_is_number(v) || !isfinite(json_number_value(v)))
				return berr(err, -EINVAL, path, "%svalue: not a number or null", where);
			e->counted = true;
			e->value = json_number_value(v);
		}
		b->nevents++;
	}
	return 0;
}

int
baseline_load(const char *path, struct baseline *b, struct pmustat_error **err)
{
	json_error_t jerr;
	json_t *root = NULL, *v, *events;
	char *buf;
	size_t len = 0;
	int rc;

	memset(b, 0, sizeof(*b));
	rc = read_bounded(path, &buf, &len, err);
	if (rc)
		return rc;
	root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
	free(buf);
	if (!root) {
		/* jansson adds "near '<text of the file>'": the file's content is not ours to echo. */
		char *near = strstr(jerr.text, " near ");

		if (near)
			*near = '\0';
		return berr(err, -EINVAL, path, "not JSON: line %d, column %d: %s (save one with --save-baseline)",
			    jerr.line, jerr.column, jerr.text);
	}
	rc = -EINVAL;
	if (!json_is_object(root)) {
		berr(err, rc, path, "not a JSON object (save one with --save-baseline)");
		goto out;
	}
	v = json_object_get(root, "format_version");
	if (!json_is_integer(v)) {
		berr(err, rc, path, "format_version: missing or not an integer (save one with --save-baseline)");
		goto out;
	}
	if (json_integer_value(v) < 1 || json_integer_value(v) > OUTPUT_FORMAT_VERSION) {
		berr(err, rc, path, "format_version: %lld; this pmustat reads 1 to %d",
		     (long long)json_integer_value(v), OUTPUT_FORMAT_VERSION);
		goto out;
	}
	v = json_object_get(root, "exit_status");
	if (!json_is_integer(v)) {
		berr(err, rc, path, "exit_status: missing or not an integer");
		goto out;
	}
	if (json_integer_value(v) != 0 || !json_is_null(json_object_get(root, "error"))) {
		berr(err, rc, path, "exit_status: %lld: the run it records failed; save a baseline from a run that exits 0",
		     (long long)json_integer_value(v));
		goto out;
	}
	if (get_string(root, "cpu_model", false, b->cpu_model, sizeof(b->cpu_model), path, "", err) ||
	    get_string(root, "cpu", true, b->cpu, sizeof(b->cpu), path, "", err) ||
	    get_string(root, "event_table", true, b->event_table, sizeof(b->event_table), path, "", err))
		goto out;
	/* Older records may lack them: hardware counts. */
	if ((json_object_get(root, "backend") &&
	     get_string(root, "backend", true, b->backend, sizeof(b->backend), path, "", err)) ||
	    (json_is_object(json_object_get(root, "simulator")) &&
	     get_string(json_object_get(root, "simulator"), "version", true, b->sim_version, sizeof(b->sim_version), path,
			"simulator.", err)))
		goto out;
	events = json_object_get(root, "events");
	if (!json_is_array(events)) {
		berr(err, rc, path, "events: missing or not an array");
		goto out;
	}
	if (json_array_size(events) > BASELINE_MAX_EVENTS) {
		berr(err, rc, path, "events: %zu entries; at most %d", json_array_size(events),
		     BASELINE_MAX_EVENTS);
		goto out;
	}
	for (size_t i = 0; i < json_array_size(events); i++)
		if (load_event(json_array_get(events, i), (unsigned)i, &b->events[i], path, err))
			goto out;
	b->nevents = (unsigned)json_array_size(events);
	if (load_regions(json_object_get(root, "regions"), b, path, err) ||
	    load_metrics(json_object_get(root, "metrics"), b, path, err))
		goto out;
	rc = 0;
out:
	json_decref(root);
	return rc;
}

static int
parse_percent(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || !isfinite(v) || v < 0)
		return -EINVAL;
	if (*end == '%')
		end++;
	if (*end)
		return -EINVAL;
	*out = v;
	return 0;
}

int
baseline_parse_tolerance(const char *arg, struct baseline_tolerances *t, struct pmustat_error **err)
{
	const char *eq = strrchr(arg, '=');
	struct baseline_tolerance *pe;
	double v;

	if (!eq) {
		if (parse_percent(arg, &v)) {
			return err_set(err, -EINVAL, "--tolerance %s: want a percentage (2%%) or EVENT=PERCENT", arg);
		}
		t->default_percent = v;
		return 0;
	}
	if (eq == arg || (size_t)(eq - arg) >= BASELINE_NAME_MAX || parse_percent(eq + 1, &v)) {
		return err_set(err, -EINVAL, "--tolerance %s: want EVENT=PERCENT (INST_RETIRED.ANY=1%%)", arg);
	}
	if (t->n >= BASELINE_MAX_TOLERANCES) {
		return err_set(err, -EINVAL, "--tolerance: at most %d per-event tolerances", BASELINE_MAX_TOLERANCES);
	}
	pe = &t->per_event[t->n++];
	memcpy(pe->event, arg, (size_t)(eq - arg));
	pe->event[eq - arg] = '\0';
	pe->percent = v;
	return 0;
}

double
baseline_tolerance_for(const struct baseline_tolerances *t, const struct baseline_event *e)
{
	/* The last one given wins, as with any repeated option. */
	for (unsigned i = t->n; i-- > 0;)
		if (check_event_matches(t->per_event[i].event, e->requested, e->name))
			return t->per_event[i].percent;
	return t->default_percent;
}

/*
 * The baseline's event for @cur[i]: the same typed name, or failing that
 * the same resolved name when neither has a ring modifier ("instructions"
 * then, INST_RETIRED.ANY now). An event listed twice (-e cycles,cycles)
 * pairs its k-th occurrence with the baseline's k-th.
 */
static bool
same_requested(const struct baseline_event *a, const struct baseline_event *b)
{
	return strcasecmp(a->requested, b->requested) == 0;
}

static bool
same_name(const struct baseline_event *a, const struct baseline_event *b)
{
	return strcasecmp(a->name, b->name) == 0 && !strchr(a->requested, ':') && !strchr(b->requested, ':');
}

static const struct baseline_event *
find(const struct baseline *b, const struct baseline_event *cur, unsigned i,
     bool (*same)(const struct baseline_event *, const struct baseline_event *))
{
	unsigned k = 0;

	for (unsigned j = 0; j < i; j++)
		k += same(&cur[j], &cur[i]);
	for (unsigned j = 0; j < b->nevents; j++)
		if (same(&b->events[j], &cur[i]) && k-- == 0)
			return &b->events[j];
	return NULL;
}

unsigned
baseline_compare(const struct baseline *b, const struct baseline_event *cur, unsigned n,
		 const struct baseline_tolerances *t, struct baseline_cmp *out)
{
	unsigned failed = 0;

	for (unsigned i = 0; i < n; i++) {
		const struct baseline_event *base = find(b, cur, i, same_requested);
		struct baseline_cmp *c = &out[i];

		if (!base)
			base = find(b, cur, i, same_name);
		memset(c, 0, sizeof(*c));
		snprintf(c->event, sizeof(c->event), "%s", cur[i].requested[0] ? cur[i].requested : cur[i].name);
		c->tolerance_percent = baseline_tolerance_for(t, &cur[i]);
		c->value = cur[i].value;
		if (!base) {
			c->passed = true;
			continue;
		}
		c->in_baseline = true;
		c->base = base->value;
		c->counted = cur[i].counted && base->counted;
		if (!c->counted) {
			failed++;
			continue;
		}
		if (c->base == 0)
			c->change_percent = c->value == 0 ? 0 : INFINITY;
		else
			c->change_percent = 100.0 * (c->value - c->base) / fabs(c->base);	/* a metric may be < 0 */
		if (t->both)
			c->passed = fabs(c->change_percent) <= c->tolerance_percent;
		else
			c->passed = c->change_percent <= c->tolerance_percent;
		if (!c->passed)
			failed++;
	}
	return failed;
}

