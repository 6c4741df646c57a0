/*
 * metric_table.h - one CPU's metrics: Intel's TMA and Info metrics as
 * converted by scripts/perfmon2events into events/metrics/<name>.json (the
 * Metrics column of the mapfile row that gives the event table; format in
 * events/README.md), and the names -M takes.
 *
 * src/metrics/ holds everything about metrics that needs no run: this table
 * and the -M names (metric_table.c, metric_select.c), the formula language
 * (metric_expr.c parses, metric_eval.c evaluates), the machine constants
 * (metric_consts.c) and what a list of metrics needs counted
 * (metric_plan.c). It may call the event table, the -e resolver and the
 * scheduler (event_table.h, event_spec.h, sched.h), the did-you-mean ranking
 * (suggest.h), jansson, and the hardware seam for reading only (hw.h:
 * hw_read_file and hw_cpuid, in metric_consts.c); nothing here programs a
 * counter, runs a command or prints. The engine calls it; it never calls
 * the engine.
 *
 * A table is loaded only when metrics are asked for, every formula and
 * threshold is parsed at load, and it is read-only afterwards.
 */
#ifndef PMUSTAT_METRIC_TABLE_H
#define PMUSTAT_METRIC_TABLE_H

#include <stdbool.h>
#include <stddef.h>

struct pmustat_error;

struct metric_expr;
struct metric_table;

/* One metric, as published. Strings are never NULL unless said so. */
struct metric_desc {
	const char *name;		/* Intel's MetricName: "Frontend_Bound" */
	const char *perf_name;		/* perf's "tma_frontend_bound"; NULL when not a TMA metric */
	const char *groups;		/* "TmaL1;PGO", or "" */
	const char *parent;		/* parent node in the TMA tree, or "" */
	const char *category;		/* "TMA", or Intel's category of an Info-like metric */
	const char *unit;		/* "percent" (already x100), "per instruction", ..., or "" */
	const char *description;
	unsigned level;			/* depth in the TMA tree, 1-6 */
	bool tree;			/* a node of the tree, not an Info_ or Bottleneck_ metric */
	/* Intel's event names with modifiers ("ICACHE_16B.IFDATA_STALL:c1:e1"), by slot. */
	unsigned n_events;
	const char *const *events;
	const char *formula_text;
	const struct metric_expr *formula;
	/*
	 * When the value is "flagged": a formula over other metrics of this
	 * table (threshold_metrics[slot] is a metric index), or NULL.
	 */
	const char *threshold_text;
	const struct metric_expr *threshold;
	unsigned n_threshold_metrics;
	const unsigned *threshold_metrics;
};

/*
 * Load @events_dir/metrics/@name.json and parse every formula. Returns 0 and
 * *@out, or a negative errno with @err set: -ENOENT no such file, -EINVAL
 * not a valid metric table ("path: metric X: formula: column 5: ..."),
 * -ENOMEM.
 */
int metric_table_load(const char *events_dir, const char *name,
		      struct metric_table **out, struct pmustat_error **err);
/*
 * The same from the JSON alone, never the compiled table (share/pmustat/
 * tables/@name.metrics.pmt, metric_table_file.h, which metric_table_load()
 * maps when there is one): what the build's compiler (tablec) reads.
 */
int metric_table_load_json(const char *events_dir, const char *name,
			   struct metric_table **out, struct pmustat_error **err);
void metric_table_free(struct metric_table *t);

/* Name (= the event table its events are in) and upstream provenance. */
const char *metric_table_name(const struct metric_table *t);
const char *metric_table_source_file(const struct metric_table *t);
const char *metric_table_source_version(const struct metric_table *t);
const char *metric_table_tma_version(const struct metric_table *t);

/* In Intel's order: 0 <= i < metric_table_count(). */
size_t metric_table_count(const struct metric_table *t);
const struct metric_desc *metric_table_get(const struct metric_table *t, size_t i);

/* Index of the metric called @name (Intel's or perf's, any case), or -1. */
long metric_table_find(const struct metric_table *t, const char *name);

/* Metrics chosen with -M, each once, in the order first named. */
struct metric_list {
	unsigned n, cap;
	unsigned *metric;		/* indices into the table */
};

/*
 * Add what @spec names (-M's argument: NAME|GROUP[,...]) to @list; call
 * once per -M. A term is matched case-insensitively against
 *   - metric names, Intel's (Frontend_Bound) and perf's (tma_frontend_bound);
 *   - Intel's groups (TmaL1, TmaL2, Summary, Mem, ...);
 *   - perf's group names: TopdownL<N> and tma_L<N>_group (the tree nodes of
 *     level N), tma_<node>_group (the children of a tree node);
 * and selects every metric any of these match (a name that is also a group,
 * like DSB, gives both, as perf does). Returns 0; -EINVAL with @err set,
 * "unknown metric or group 'Frontend_Bond' for skylake; did you mean
 * Frontend_Bound?", and @list unchanged; -ENOMEM.
 */
int metric_table_select(const struct metric_table *t, const char *spec,
			struct metric_list *list, struct pmustat_error **err);
void metric_list_free(struct metric_list *list);

/* Does metric @i belong to group @group (Intel's, any case)? */
bool metric_in_group(const struct metric_desc *d, const char *group);

#endif
