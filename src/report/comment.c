/*
 * comment.c - see comment.h.
 */
#include <stdio.h>
#include <string.h>

#include "events/event.h"
#include "report/comment.h"
#include "report/output.h"
#include "report/ratios.h"

/* A counted row of the same run and ring filter as @row matching @pred. */
static const struct stat_row *
partner(const struct stat_report *rep, const struct stat_row *row, bool (*pred)(const struct event *))
{
	for (unsigned i = 0; i < rep->nrows; i++) {
		const struct stat_row *r = &rep->rows[i];

		if (r == row || !r->counted || r->run != row->run)
			continue;
		if (r->ev->usr != row->ev->usr || r->ev->os != row->ev->os)
			continue;
		if (pred(r->ev))
			return r;
	}
	return NULL;
}

static bool
is_task_clock(const struct stat_row *row)
{
	return (row->ev->flags & EVENT_F_SOFTWARE) && row->unit && strcmp(row->unit, "ns") == 0;
}

/* The counted task-clock of @row's run (software events count in the first), or NULL. */
static const struct stat_row *
task_clock(const struct stat_report *rep, const struct stat_row *row)
{
	for (unsigned i = 0; i < rep->nrows; i++) {
		const struct stat_row *r = &rep->rows[i];

		if (is_task_clock(r) && r->counted && r->value && r->run == row->run)
			return r;
	}
	return NULL;
}

/* perf's "/sec" with K, M, G. */
static void
per_second(double rate, char *buf, size_t size)
{
	static const char *const prefix[] = { "", "K", "M", "G" };
	unsigned p = 0;

	while (rate >= 1000 && p + 1 < sizeof(prefix) / sizeof(prefix[0])) {
		rate /= 1000;
		p++;
	}
	snprintf(buf, size, "#  %8.3f %s/sec", rate, prefix[p]);
}

/*
 * @row's count on the @c-th line of its split (--per-thread, --per-core)
 * or core (-A) in the report (-1: its sum); false when it has none there.
 */
static bool
value_at(const struct stat_report *rep, const struct stat_row *row, int c, double *v)
{
	const uint64_t *values = rep->nsplit ? row->split_values : row->cpu_values;

	if (c < 0) {
		*v = (double)row->value;
		return true;
	}
	if (!values)
		return false;
	*v = (double)values[c];
	return true;
}

void
comment_at(const struct stat_report *rep, const struct stat_row *row, int c, char *buf, size_t size)
{
	const struct ratio *r = ratio_of(row->ev);
	const struct stat_row *p;
	unsigned rounds = rep->rounds ? rep->rounds : 1;
	double v, pv;

	buf[0] = '\0';
	if (!row->counted || !value_at(rep, row, c, &v))
		return;
	if (r) {
		p = partner(rep, row, r->denominator);
		if (p && value_at(rep, p, c, &pv) && pv > 0)
			snprintf(buf, size, "#  %6.2f%s", r->scale * v / pv, r->unit);
		if (buf[0] || !ratio_is_cycles(row->ev))
			return;
	}
	if (is_task_clock(row)) {
		/* The elapsed time is every run's: only one run has one to compare with. */
		if (rep->runs <= 1 && rep->command_ran && rep->elapsed > 0)
			snprintf(buf, size, "#  %8.3f CPUs utilized", v / 1e9 / (rep->elapsed / rounds));
		return;
	}
	p = task_clock(rep, row);
	if (!p || !value_at(rep, p, c, &pv) || pv <= 0)
		return;
	if (row->ev->flags & EVENT_F_SOFTWARE)
		per_second(v / (pv / 1e9), buf, size);
	else if (ratio_is_cycles(row->ev))
		snprintf(buf, size, "#  %8.3f GHz", v / pv);
}

void
comment_of(const struct stat_report *rep, const struct stat_row *row, char *buf, size_t size)
{
	comment_at(rep, row, -1, buf, size);
}
