/*
 * rdpmc_journal.h - the crash journal of the rdpmc file: `pmustat
 * --regions` sets /sys/bus/event_source/devices/cpu/rdpmc (or a hybrid's
 * cpu_core/ or cpu_atom/ one) to 2 for a run, so that the counted program
 * may execute rdpmc; a run killed before it put the old value back (SIGKILL,
 * OOM) would leave every process on the machine able to read the counters.
 * So the value found is written here first, DIR/rdpmc.journal, and the next
 * pmustat that counts regions, or `pmustat reset`, puts it back:
 *
 *	pmustat-rdpmc-journal 1
 *	file rdpmc			(hw_file_key(): rdpmc, rdpmc_cpu_core, rdpmc_cpu_atom)
 *	found 1				(0, 1 or 2)
 *	pid 12345
 *	start 987654			(field 22 of /proc/PID/stat)
 *
 * Written like the per-core journals (journal.h: a temporary file, fsynced,
 * renamed into a root-only directory). One per machine: the file is
 * machine-wide.
 */
#ifndef PMUSTAT_RDPMC_JOURNAL_H
#define PMUSTAT_RDPMC_JOURNAL_H

#include <stddef.h>
#include <sys/types.h>

#include "hw/hw.h"

struct pmustat_error;

#define RDPMC_JOURNAL_MAGIC	"pmustat-rdpmc-journal"
#define RDPMC_JOURNAL_VERSION	1
#define RDPMC_JOURNAL_NAME	"rdpmc.journal"

struct rdpmc_journal {
	enum hw_file file;
	int found;			/* 0, 1 or 2 */
	pid_t pid;
	unsigned long long start_time;
};

/* DIR/rdpmc.journal into @buf. */
void
rdpmc_journal_path(const char *dir, char *buf, size_t size);

/* The journal of this process for @file, which held @found. 0, or -errno with @err. */
int
rdpmc_journal_write(const char *dir, enum hw_file file, int found, struct pmustat_error **err);

/* 0; -ENOENT none; -EBADMSG corrupt (@err says how); other -errno unreadable. */
int
rdpmc_journal_read(const char *dir, struct rdpmc_journal *j, struct pmustat_error **err);

/* 0, or -errno (-ENOENT is not an error to callers). */
int
rdpmc_journal_remove(const char *dir);

/*
 * A killed run's journal: if its run is gone, put the value it found back
 * (only while the file still says 2, what the run set: a value someone set
 * since is theirs) and remove the journal. 0 no journal; 1 handled, with
 * *@note (free() it) saying what was done; -EBUSY its run is alive (left
 * alone); -EBADMSG corrupt (kept, @err); other -errno (kept, @err).
 */
int
rdpmc_journal_recover(const char *dir, struct hw *hw, char **note, struct pmustat_error **err);

/* For the fatal signal handler: unlink DIR/rdpmc.journal (armed with a directory, disarmed with NULL). */
void
rdpmc_journal_arm_signal_remove(const char *dir);
void
rdpmc_journal_remove_from_signal(void);

#endif
