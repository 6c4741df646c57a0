/*
 * csv_records.c - see csv_records.h.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/csv_records.h"

static const struct {
	const char *name;
	const char *columns;
} records[CSV_NRECORDS] = {
	[CSV_COUNT] = { "count", "cpu,value,unit,event,name,counter,run,status,reason,runs,mean,median,min,max,stddev,stderr_percent" },
	[CSV_METRIC] = { "metric", "cpu,value,unit,name,run,status,reason,flagged,runs,mean,median,min,max,stddev,stderr_percent" },
	[CSV_REGION] = { "region", "region,calls,value,event,name" },
	[CSV_REGION_THREAD] = { "region-thread", "region,tid,calls,value,event,name" },
	[CSV_REGION_METRIC] = { "region-metric", "region,value,unit,name,run,status,reason,flagged" },
	[CSV_CHECK] = { "check", "result,lhs,rhs,expression" },
	[CSV_BASELINE] = { "baseline", "result,value,baseline,change_percent,tolerance_percent,event" },
	[CSV_INTERVAL] = { "interval", "time,round,run,cpu,value,unit,event" },
	[CSV_INTERVAL_METRIC] = { "interval-metric", "time,round,run,value,unit,name,status,reason,flagged" },
};

const char *
csv_record_name(enum csv_record r)
{
	return records[r].name;
}

const char *
csv_record_columns(enum csv_record r)
{
	return records[r].columns;
}

/* Fields of @r, its type included. */
static unsigned
field_count(enum csv_record r)
{
	unsigned n = 2;

	for (const char *c = records[r].columns; *c; c++)
		n += *c == ',';
	return n;
}

void
csv_field_raw(FILE *out, const char *sep, bool first, const char *text)
{
	if (!first)
		fputs(sep, out);
	if (!strstr(text, sep) && !strpbrk(text, "\"\r\n")) {
		fputs(text, out);
		return;
	}
	fputc('"', out);
	for (const char *c = text; *c; c++) {
		if (*c == '"')
			fputc('"', out);
		fputc(*c, out);
	}
	fputc('"', out);
}

void
csv_begin(struct csv_writer *w, enum csv_record r)
{
	w->rec = r;
	if (w->headers && !(*w->headers & (1u << r))) {
		char name[32];
		const char *c = records[r].columns;

		*w->headers |= 1u << r;
		snprintf(name, sizeof(name), "#%s", records[r].name);
		csv_field_raw(w->out, w->sep, true, name);
		while (*c) {
			size_t n = strcspn(c, ",");
			char col[32];

			snprintf(col, sizeof(col), "%.*s", (int)n, c);
			csv_field_raw(w->out, w->sep, false, col);
			c += n + (c[n] == ',');
		}
		fputc('\n', w->out);
	}
	csv_field_raw(w->out, w->sep, true, records[r].name);
	w->nfields = 1;
}

void
csv_text(struct csv_writer *w, const char *text)
{
	/* Never past the record's columns: the contract is the table above. */
	if (w->nfields >= field_count(w->rec))
		abort();
	csv_field_raw(w->out, w->sep, false, text);
	w->nfields++;
}

void
csv_printf(struct csv_writer *w, const char *fmt, ...)
{
	char buf[64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	csv_text(w, buf);
}

void
csv_plain(struct csv_writer *w, double v)
{
	char buf[512];
	int decimals;
	size_t n;

	if (!isfinite(v)) {
		csv_text(w, "");
		return;
	}
	/* 15 significant digits (what a double holds), at least 6 decimals, in fixed notation. */
	decimals = v != 0 ? 14 - (int)floor(log10(fabs(v))) : 0;
	if (decimals < 6)
		decimals = 6;
	if (decimals > 40)
		decimals = 40;
	snprintf(buf, sizeof(buf), "%.*f", decimals, v);
	n = strlen(buf);
	while (n > 0 && buf[n - 1] == '0')
		buf[--n] = '\0';
	if (n > 0 && buf[n - 1] == '.')
		buf[--n] = '\0';
	if (strcmp(buf, "-0") == 0)
		strcpy(buf, "0");
	csv_text(w, buf);
}

void
csv_end(struct csv_writer *w)
{
	while (w->nfields < field_count(w->rec))
		csv_text(w, "");
	fputc('\n', w->out);
}
