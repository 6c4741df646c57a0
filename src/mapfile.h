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

struct cpu_info;

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
			 char *table, size_t table_len, char *err, size_t err_len);

#endif
