/*
 * e2e_journal.h - where a machine keeps pmustat's crash journal, for the
 * end-to-end tests that plant, corrupt or check one (they link pmustat's
 * core for journal_path(); the harness itself does not).
 */
#ifndef PMUSTAT_E2E_JOURNAL_H
#define PMUSTAT_E2E_JOURNAL_H

#include <limits.h>
#include <stddef.h>

#include "e2e_harness.h"
#include "pmu/journal.h"

/* Core @core's journal on machine @m: JOURNAL_DIR/cpuN.journal as pmustat names it. */
static inline void
e2e_journal_file(const struct e2e_machine *m, int core, char *buf, size_t size)
{
	char path[PATH_MAX];

	journal_path(JOURNAL_DIR, core, path, sizeof(path));
	e2e_machine_path(m, path, buf, size);
}

#endif
