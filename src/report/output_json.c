/*
 * output_json.c - the --json record of a stat run (man/pmustat-output.schema.json);
 * the table and CSV are output.c's.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events/event.h"
#include "report/json_text.h"
#include "report/label.h"
#include "report/metric_output.h"
#include "events/sim_events.h"
#include "report/output.h"
#include "report/region_output.h"

static json_t *
json_values(const struct stat_row *row)
{
	json_t *a = json_array();

	for (unsigned i = 0; a && i < row->nvalues; i++)
		json_array_append_new(a, json_integer((json_int_t)row->values[i]));
	return a;
}

/* A double as JSON; null when not finite (JSON has no infinity). */
json_t *
output_json_num(double v)
{
	if (!isfinite(v))
		return json_null();
	if (v == floor(v) && fabs(v) < 9e15)
		return json_integer((json_int_t)v);
	return json_real(v);
}

static json_t *
json_stats(const struct stat_row *row)
{
	return output_json_stats(&row->stats, row->nvalues);
}

json_t *
output_json_stats(const struct stats_summary *st, unsigned nvalues)
{
	json_t *o;

	if (nvalues == 0)
		return json_null();
	o = json_object();
	if (!o)
		return NULL;
	json_object_set_new(o, "runs", json_integer(st->n));
	json_object_set_new(o, "mean", output_json_num(st->mean));
	json_object_set_new(o, "median", output_json_num(st->median));
	json_object_set_new(o, "min", json_integer((json_int_t)st->min));
	json_object_set_new(o, "max", json_integer((json_int_t)st->max));
	json_object_set_new(o, "stddev", output_json_num(st->stddev));
	json_object_set_new(o, "rel_stddev_percent", output_json_num(st->rel_stddev_percent));
	return o;
}

static json_t *
json_checks(const struct stat_report *rep, json_t *failed)
{
	json_t *a = json_array();

	for (unsigned i = 0; a && rep->check_results && i < rep->nchecks; i++) {
		const struct check_result *r = &rep->check_results[i];
		json_t *o = json_object();

		if (!o)
			break;
		json_object_set_new(o, "expression", json_text(rep->checks[i].text));
		json_object_set_new(o, "passed", json_boolean(r->passed));
		json_object_set_new(o, "value", r->defined ? output_json_num(r->lhs) : json_null());
		json_object_set_new(o, "limit", r->defined ? output_json_num(r->rhs) : json_null());
		json_object_set_new(o, "error", r->defined ? json_null() : json_text(r->why));
		json_array_append_new(a, o);
		if (!r->passed)
			json_array_append_new(failed, json_text(rep->checks[i].text));
	}
	return a;
}

static json_t *
json_baseline(const struct stat_report *rep, json_t *failed)
{
	json_t *o, *a;

	if (!rep->baseline)
		return json_null();
	o = json_object();
	a = json_array();
	if (!o || !a) {
		json_decref(o);
		json_decref(a);
		return NULL;
	}
	json_object_set_new(o, "file", json_text(rep->baseline_path ? rep->baseline_path : ""));
	json_object_set_new(o, "tolerance_both", json_boolean(rep->tolerance_both));
	for (unsigned i = 0; i < rep->nbaseline; i++) {
		const struct baseline_cmp *c = &rep->baseline[i];
		json_t *e;
		char what[BASELINE_NAME_MAX + 16];

		if (!c->in_baseline)
			continue;
		e = json_object();
		if (!e)
			break;
		json_object_set_new(e, "requested", json_text(c->event));
		json_object_set_new(e, "passed", json_boolean(c->passed));
		json_object_set_new(e, "value", c->counted ? output_json_num(c->value) : json_null());
		json_object_set_new(e, "baseline", c->counted ? output_json_num(c->base) : json_null());
		json_object_set_new(e, "change_percent", c->counted ? output_json_num(c->change_percent) : json_null());
		json_object_set_new(e, "tolerance_percent", output_json_num(c->tolerance_percent));
		json_array_append_new(a, e);
		if (!c->passed) {
			snprintf(what, sizeof(what), "baseline %s", c->event);
			json_array_append_new(failed, json_text(what));
		}
	}
	json_object_set_new(o, "comparisons", a);
	return o;
}

/* [{"cpu": N, "value": V, "counter": C}, ...] of a row counted per core, else null. */
static json_t *
json_per_cpu(const struct stat_report *rep, const struct stat_row *row)
{
	json_t *a;

	if (!row->counted || !row->cpu_values)
		return json_null();
	a = json_array();
	for (unsigned c = 0; a && c < rep->ncores; c++) {
		json_t *o = json_object();

		json_object_set_new(o, "cpu", json_integer(rep->cores[c]));
		json_object_set_new(o, "value", json_integer((json_int_t)row->cpu_values[c]));
		json_object_set_new(o, "counter",
				    json_string(row->cpu_counters ? row->cpu_counters[c].counter : row->counter));
		json_array_append_new(a, o);
	}
	return a ? a : json_null();
}

/* --backend sim: the simulator, its cache model and what was fixed for the command. */
static json_t *
json_sim(const struct stat_sim *sim)
{
	json_t *o = json_object(), *caches = json_object();

	json_object_set_new(o, "name", json_string("valgrind"));
	json_object_set_new(o, "version", sim->valgrind_version ? json_text(sim->valgrind_version) : json_null());
	json_object_set_new(o, "tool", json_string(sim->tool));
	for (unsigned i = 0; i < 3; i++) {
		json_t *c = json_object();

		json_object_set_new(c, "size", json_integer(sim_caches[i].size));
		json_object_set_new(c, "assoc", json_integer(sim_caches[i].assoc));
		json_object_set_new(c, "line", json_integer(sim_caches[i].line));
		json_object_set_new(caches, sim_caches[i].name, c);
	}
	json_object_set_new(o, "caches", caches);
	json_object_set_new(o, "glibc_tunables", json_string(sim->glibc_tunables));
	json_object_set_new(o, "processes", json_integer(sim->processes));
	return o;
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
		json_array_append_new(command, json_text(rep->command[i]));
	for (unsigned i = 0; i < rep->nrows; i++) {
		const struct stat_row *row = &rep->rows[i];
		json_t *o = json_object();

		if (!o) {
			rc = -ENOMEM;
			break;
		}
		json_object_set_new(o, "name", json_text(row->ev->name));
		json_object_set_new(o, "requested", json_text(row->ev->requested));
		json_object_set_new(o, "privilege", json_string(label_privilege(row->ev)));
		json_object_set_new(o, "value", row->counted ? json_integer((json_int_t)row->value) : json_null());
		json_object_set_new(o, "counter", json_string(row->counter));
		json_object_set_new(o, "counter_note", row->counter_note[0] ? json_string(row->counter_note) : json_null());
		json_object_set_new(o, "run", json_integer(row->run));
		json_object_set_new(o, "status", json_text(row->status ? row->status :
					(row->counted ? "counted" : "not counted")));
		json_object_set_new(o, "values", json_values(row));
		json_object_set_new(o, "stats", json_stats(row));
		json_object_set_new(o, "unit", row->unit ? json_string(row->unit) : json_null());
		json_object_set_new(o, "time_enabled_ns", row->perf_times ? json_integer((json_int_t)row->enabled) : json_null());
		json_object_set_new(o, "time_running_ns", row->perf_times ? json_integer((json_int_t)row->running) : json_null());
		if (rep->listed_cores)
			json_object_set_new(o, "per_cpu", json_per_cpu(rep, row));
		json_array_append_new(events, o);
	}
	json_object_set_new(root, "format_version", json_integer(OUTPUT_FORMAT_VERSION));
	json_object_set_new(root, "type", json_string("stat"));
	json_object_set_new(root, "pmustat_version", json_string(rep->version ? rep->version : ""));
	json_object_set_new(root, "cpu", rep->cpu ? json_text(rep->cpu) : json_null());
	json_object_set_new(root, "cpu_model", rep->cpu_model ? json_string(rep->cpu_model) : json_null());
	json_object_set_new(root, "core", rep->core >= 0 ? json_integer(rep->core) : json_null());
	if (rep->listed_cores) {
		json_t *cores = json_array();

		for (unsigned c = 0; c < rep->ncores; c++)
			json_array_append_new(cores, json_integer(rep->cores[c]));
		json_object_set_new(root, "cores", cores);
	}
	json_object_set_new(root, "event_table", rep->event_table ? json_string(rep->event_table) : json_null());
	json_object_set_new(root, "command", command);
	if (rep->npids) {
		json_t *pids = json_array();

		for (unsigned i = 0; i < rep->npids; i++)
			json_array_append_new(pids, json_integer(rep->pids[i]));
		json_object_set_new(root, "pid", json_integer(rep->pids[0]));
		json_object_set_new(root, "pids", pids);
	}
	json_object_set_new(root, "exit_status", json_integer(rep->exit_status));
	json_object_set_new(root, "runs", json_integer(rep->runs));
	json_object_set_new(root, "repeat", json_integer(rep->repeat ? rep->repeat : 1));
	json_object_set_new(root, "elapsed_seconds", rep->command_ran ? json_real(rep->elapsed) : json_null());
	json_object_set_new(root, "user_seconds",
			    rep->command_ran && rep->have_times ? json_real(rep->user_time) : json_null());
	json_object_set_new(root, "sys_seconds",
			    rep->command_ran && rep->have_times ? json_real(rep->sys_time) : json_null());
	if (rep->sw_not_supported_why) {
		char why[1200];

		snprintf(why, sizeof(why), "%s%ssoftware events: %s", rep->not_supported_why ? rep->not_supported_why : "",
			 rep->not_supported_why ? "; " : "", rep->sw_not_supported_why);
		json_object_set_new(root, "not_supported_reason", json_text(why));
	} else {
		json_object_set_new(root, "not_supported_reason",
				    rep->not_supported_why ? json_text(rep->not_supported_why) : json_null());
	}
	json_object_set_new(root, "backend", rep->backend ? json_string(rep->backend) : json_null());
	if (rep->sim)
		json_object_set_new(root, "simulator", json_sim(rep->sim));
	json_object_set_new(root, "read_method", rep->read_method ? json_string(rep->read_method) : json_null());
	json_object_set_new(root, "window", rep->window ? json_string(rep->window) : json_null());
	json_object_set_new(root, "error", rep->error ? json_text(rep->error) : json_null());
	json_object_set_new(root, "events", events);
	if (rep->regions)
		json_object_set_new(root, "regions", region_output_json(rep->regions, rep->rows, rep->nrows));
	if (rep->with_metrics) {
		json_t *metrics = metric_output_json(rep->metrics, rep->nmetrics, rep->repeat > 1);

		if (!metrics)
			rc = -ENOMEM;
		json_object_set_new(root, "metrics", metrics);
	}
	{
		json_t *failed = json_array();

		json_object_set_new(root, "checks", json_checks(rep, failed));
		json_object_set_new(root, "baseline", json_baseline(rep, failed));
		json_object_set_new(root, "gate_failed", json_boolean(rep->gate_failed));
		json_object_set_new(root, "failed", failed);
	}
	if (rc == 0 && json_dumpf(root, out, (rep->json_one_line ? JSON_COMPACT : JSON_INDENT(2)) |
				   JSON_PRESERVE_ORDER) != 0)
		rc = -EIO;
	if (rc == 0)
		fputc('\n', out);
	json_decref(root);
	return rc;
}
