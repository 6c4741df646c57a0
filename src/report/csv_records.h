/*
 * csv_records.h - the -x SEP output's records: each its own fixed column
 * list, the record's type in its first field, so that a CSV parser reads
 * every line and a script splits them by that field. This table is the
 * contract (man pmustat(1), OUTPUT FORMATS: CSV) and the one place each
 * column list lives; a record is padded to its columns, never longer.
 */
#ifndef PMUSTAT_CSV_RECORDS_H
#define PMUSTAT_CSV_RECORDS_H

#include <stdbool.h>
#include <stdio.h>

enum csv_record {
	CSV_COUNT,		/* an event's count */
	CSV_METRIC,		/* -M: a metric's value */
	CSV_REGION,		/* --regions: a region's count of an event */
	CSV_REGION_THREAD,	/* --regions --per-thread */
	CSV_REGION_METRIC,	/* --regions -M */
	CSV_CHECK,		/* --check */
	CSV_BASELINE,		/* --baseline */
	CSV_INTERVAL,		/* -I: an event's count over the interval */
	CSV_INTERVAL_METRIC,	/* -I -M */
	CSV_NRECORDS
};

/* The record type's name ("count", "interval-metric"): its first field. */
const char *
csv_record_name(enum csv_record r);

/* Its columns after the first, comma-separated as the man page lists them ("cpu,value,unit,..."). */
const char *
csv_record_columns(enum csv_record r);

/*
 * One stream of records. With @headers (--csv-header) not NULL, the first
 * record of each type is preceded by "#TYPE" SEP its column names; the
 * bits of *@headers (one per type) say which were printed, so that a
 * stream written in several calls (-I) names each type once.
 */
struct csv_writer {
	FILE *out;
	const char *sep;
	unsigned *headers;
	enum csv_record rec;
	unsigned nfields;		/* written in the current record, its type included */
};

void
csv_begin(struct csv_writer *w, enum csv_record r);

/* One text field, RFC 4180 quoted when it holds SEP, a quote or a line break. */
void
csv_text(struct csv_writer *w, const char *text);

void
csv_printf(struct csv_writer *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A number in plain decimal notation (never 1e+06), to 15 significant digits, no trailing zeros. */
void
csv_plain(struct csv_writer *w, double v);

/* Empty fields up to the record's columns, then the line's end. */
void
csv_end(struct csv_writer *w);

/* One field as csv_text() writes it, after @sep unless @first (the old interface of metric and region output). */
void
csv_field_raw(FILE *out, const char *sep, bool first, const char *text);

#endif
