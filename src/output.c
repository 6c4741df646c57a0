/*
 * output.c - human table, CSV and JSON for a stat run.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "event.h"
#include "output.h"

void
output_thousands(uint64_t v, char *buf, size_t size)
{
	char digits[32];
	size_t n, out = 0;

	n = (size_t)snprintf(digits, sizeof(digits), "%llu", (unsigned long long)v);
	for (size_t i = 0; i < n && out + 1 < size; i++) {
		if (i > 0 && (n - i) % 3 == 0) {
			buf[out++] = ',';
			if (out + 1 >= size)
				break;
		}
		buf[out++] = digits[i];
	}
	buf[out] = '\0';
}

static bool
is_instructions(const struct event *e)
{
	return e->fixed == 0 || (e->code == 0xc0 && e->umask == 0x00);
}

static bool
is_core_cycles(const struct event *e)
{
	return e->fixed == 1 || (e->code == 0x3c && e->umask == 0x00);
}

static bool
is_branches(const struct event *e)
{
	return e->code == 0xc4 && e->umask == 0x00 && e->fixed < 0;
}

static bool
is_branch_misses(const struct event *e)
{
	return e->code == 0xc5 && e->umask == 0x00 && e->fixed < 0;
}

/* A counted row of the same run and ring filter as @row matching @pred. */
static const struct stat_row *
partner(const struct stat_report *rep, const struct stat_row *row,
	bool (*pred)(const struct event *))
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

static void
comment(const struct stat_report *rep, const struct stat_row *row, char *buf, size_t size)
{
	const struct stat_row *p;

	buf[0] = '\0';
	if (!row->counted)
		return;
	if (is_instructions(row->ev)) {
		p = partner(rep, row, is_core_cycles);
		if (p && p->value)
			snprintf(buf, size, "#  %6.2f  insn per cycle",
				 (double)row->value / (double)p->value);
	} else if (is_branch_misses(row->ev)) {
		p = partner(rep, row, is_branches);
		if (p && p->value)
			snprintf(buf, size, "#  %6.2f%% of all branches",
				 100.0 * (double)row->value / (double)p->value);
	}
}

static const char *
row_label(const struct stat_row *row)
{
	return row->ev->requested[0] ? row->ev->requested : row->ev->name;
}

static void
print_command(FILE *out, char *const *command)
{
	if (!command)
		return;
	for (unsigned i = 0; command[i]; i++)
		fprintf(out, "%s%s", i ? " " : "", command[i]);
}

void
output_human(FILE *out, const struct stat_report *rep)
{
	fprintf(out, "\n Performance counter stats for '");
	print_command(out, rep->command);
	fprintf(out, "'");
	if (rep->core >= 0)
		fprintf(out, " on core %d", rep->core);
	if (rep->runs > 1)
		fprintf(out, " (%u runs, each event counted in one)", rep->runs);
	fprintf(out, ":\n\n");

	for (unsigned i = 0; i < rep->nrows; i++) {
		const struct stat_row *row = &rep->rows[i];
		char value[40], note[EVENT_NAME_MAX + 8], where[48] = "";
		const char *label = row_label(row);

		if (row->counted && row->unit && strcmp(row->unit, "ns") == 0)
			snprintf(value, sizeof(value), "%.2f msec", (double)row->value / 1e6);
		else if (row->counted)
			output_thousands(row->value, value, sizeof(value));
		else
			snprintf(value, sizeof(value), "<%s>", row->status ? row->status : "not counted");
		comment(rep, row, note, sizeof(note));
		/* No ratio to show: say what the typed name resolved to. */
		if (!note[0] && row->ev->name[0] && strcmp(label, row->ev->name) != 0)
			snprintf(note, sizeof(note), "#  %s", row->ev->name);
		if (rep->runs > 1 && row->counted)
			snprintf(where, sizeof(where), "  (run %u, %s)", row->run, row->counter);
		/* Multiplexed or user-mode-only counts are raw: say so on the line. */
		if (row->counted && row->status && strcmp(row->status, "counted") != 0)
			fprintf(out, "%18s      %-30s %s%s  (%s)\n", value, label, note, where, row->status);
		else
			fprintf(out, "%18s      %-30s %s%s\n", value, label, note, where);
	}
	fprintf(out, "\n");
	if (rep->command_ran)
		fprintf(out, "%18.9f seconds time elapsed%s\n\n", rep->elapsed,
			rep->runs > 1 ? " (all runs)" : "");
	if (rep->read_method && rep->backend && strcmp(rep->backend, "perf") == 0)
		fprintf(out, " Counted through perf_event (backend perf): the command's own counts, all its threads and children, from its execve on.\n\n");
	else if (rep->read_method)
		fprintf(out, " Counts read with %s (backend msr). Counts are per core: anything else that ran on core %d is included.%s\n\n",
			rep->read_method, rep->core,
			rep->software ? " Software events: through perf_event, the command's own." : "");
	if (rep->error)
		fprintf(out, " pmustat failed: %s\n\n", rep->error);
}

void
output_csv(FILE *out, const struct stat_report *rep, const char *sep)
{
	for (unsigned i = 0; i < rep->nrows; i++) {
		const struct stat_row *row = &rep->rows[i];

		if (row->counted)
			fprintf(out, "%llu", (unsigned long long)row->value);
		else
			fprintf(out, "<not counted>");
		fprintf(out, "%s%s%s%s%s%s%s", sep, row->unit ? row->unit : "", sep, row_label(row), sep,
			row->ev->name, sep);
		fprintf(out, "%s%s%u%s%s\n", row->counter, sep, row->run, sep,
			row->status ? row->status : (row->counted ? "counted" : "not counted"));
	}
}

int
output_json(FILE *out, const struct stat_report *rep)
{
	json_t *root, *events, *command;
	int rc = 0;

	root = json_object();
	events = json_array();
	command = json_array();
	if (!root || !events || !command) {
		json_decref(root);
		json_decref(events);
		json_decref(command);
		return -ENOMEM;
	}
	for (unsigned i = 0; rep->command && rep->command[i]; i++)
		json_array_append_new(command, json_string(rep->command[i]));
	for (unsigned i = 0; i < rep->nrows; i++) {
		const struct stat_row *row = &rep->rows[i];
		json_t *o = json_object();

		if (!o) {
			rc = -ENOMEM;
			break;
		}
		json_object_set_new(o, "name", json_string(row->ev->name));
		json_object_set_new(o, "requested", json_string(row->ev->requested));
		json_object_set_new(o, "value", row->counted ? json_integer((json_int_t)row->value) : json_null());
		json_object_set_new(o, "counter", json_string(row->counter));
		json_object_set_new(o, "run", json_integer(row->run));
		json_object_set_new(o, "status", json_string(row->status ? row->status :
					(row->counted ? "counted" : "not counted")));
		json_object_set_new(o, "unit", row->unit ? json_string(row->unit) : json_null());
		json_object_set_new(o, "time_enabled_ns", row->perf_times ? json_integer((json_int_t)row->enabled) : json_null());
		json_object_set_new(o, "time_running_ns", row->perf_times ? json_integer((json_int_t)row->running) : json_null());
		json_array_append_new(events, o);
	}
	json_object_set_new(root, "format_version", json_integer(OUTPUT_FORMAT_VERSION));
	json_object_set_new(root, "pmustat_version", json_string(rep->version ? rep->version : ""));
	json_object_set_new(root, "cpu", rep->cpu ? json_string(rep->cpu) : json_null());
	json_object_set_new(root, "core", rep->core >= 0 ? json_integer(rep->core) : json_null());
	json_object_set_new(root, "event_table", rep->event_table ? json_string(rep->event_table) : json_null());
	json_object_set_new(root, "command", command);
	json_object_set_new(root, "exit_status", json_integer(rep->exit_status));
	json_object_set_new(root, "runs", json_integer(rep->runs));
	json_object_set_new(root, "elapsed_seconds", rep->command_ran ? json_real(rep->elapsed) : json_null());
	json_object_set_new(root, "backend", rep->backend ? json_string(rep->backend) : json_null());
	json_object_set_new(root, "read_method", rep->read_method ? json_string(rep->read_method) : json_null());
	json_object_set_new(root, "error", rep->error ? json_string(rep->error) : json_null());
	json_object_set_new(root, "events", events);
	if (rc == 0 && json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0)
		rc = -EIO;
	if (rc == 0)
		fputc('\n', out);
	json_decref(root);
	return rc;
}
