/*
 * mapfile.h - which event table serves a CPU, from events/mapfile.csv
 * (Intel's mapfile.csv, converted by scripts/perfmon2events).
 *
 * The choice is made from CPUID facts only: the vendor-family-model-stepping
 * key of cpu_mapfile_key() and, on hybrid parts, the core type and native
 * model ID of CPUID.1AH on the CPU in question. Never from libcpuid's
 * codename, which lags behind new models and names some of them wrongly.
 */
#ifndef PMUSTAT_MAPFILE_H
#define PMUSTAT_MAPFILE_H

#include <stddef.h>

struct pmustat_error;

struct cpu_info;

/* Longest table or metrics name a mapfile may give. */
#define MAPFILE_NAME_MAX 127

/* What the mapfile row for a CPU names. */
struct mapfile_choice {
	char table[MAPFILE_NAME_MAX + 1];	/* events/<table>.json */
	/*
	 * events/metrics/<metrics>.json: Intel's metrics for this CPU, or ""
	 * when Intel publishes none (E-cores, old parts) or the map predates
	 * the Metrics column.
	 */
	char metrics[MAPFILE_NAME_MAX + 1];
};

/*
 * Find the table for @cpu in @events_dir/mapfile.csv. Returns:
 *   0        and the table name in @table (e.g. "skylake",
 *            "alderlake_goldencove");
 *   -ENOENT  no row matches: the caller falls back to the architectural
 *            events and warns; @err says why (no row for the key, or a
 *            hybrid model whose core type this CPU did not report);
 *   -errno   the mapfile could not be read (-EIO when it does not exist)
 *            or parsed (-EINVAL); @err is "path:line: what" or "path: what".
 */
int mapfile_choose_table(const char *events_dir, const struct cpu_info *cpu,
			 char *table, size_t table_len, struct pmustat_error **err);

/*
 * The same choice (same row, same errors), with the metrics file the row
 * names: the one rule that maps a CPU to its data serves both.
 */
int mapfile_choose(const char *events_dir, const struct cpu_info *cpu,
		   struct mapfile_choice *out, struct pmustat_error **err);

#endif
