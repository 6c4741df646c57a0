/*
 * journal.h - the crash journal: what a stat run saved of a core's PMU,
 * on disk before the first MSR write, so that a run killed mid-count
 * (SIGKILL, OOM, power to the terminal) can be undone by the next
 * pmustat on that core or by `pmustat reset`.
 *
 * One file per core, DIR/cpuN.journal, text, versioned and checksummed:
 *
 *	pmustat-journal 2
 *	core 3
 *	pid 12345
 *	start 987654			(field 22 of /proc/PID/stat)
 *	own 0x1 0x2			(GP and fixed counters the run programs, exactly)
 *	taken 0x0 0x0			(of those, the ones --force took from another user)
 *	status 0x0			(IA32_PERF_GLOBAL_STATUS when saved)
 *	NAME 0x3000 2 0			(a PMU family with registers of its own only
 *					 (pmu/family.h), by its name: the counters
 *					 the run programs, the CPU model, whether
 *					 threads share the PMU)
 *	msr 0x186 0x0			(one line per saved register)
 *	...
 *	wrote 0x186 0x41412e		(each value the run writes to an EVTSEL or offcore MSR)
 *	field 1 0x4			(fixed counter 1: bit v set for each field value v written)
 *	fnv1a64 0x0123456789abcdef	(FNV-1a 64 of every byte above)
 *
 * Recovery (journal_apply()) puts a counter back only while it still holds
 * what the run wrote: its EVTSEL (fixed field) is one the run wrote, or
 * still the one saved when the run did not take it from another user.
 * Anything else means someone took the counter after the run died: its
 * registers, its GLOBAL_CTRL bit and its overflow bit are left alone.
 * Such a family applies the same rule to its own registers (its
 * journal_apply()); a journal of another family than the core's is never
 * applied.
 *
 * It is written to a temporary file in DIR, fsynced, renamed into place
 * and DIR fsynced; DIR is created 0700 and must be a directory of ours
 * that nobody else may write, since a journal's values are written to
 * MSRs as root. The directory is a parameter so tests can use their own;
 * the binary always uses JOURNAL_DIR.
 */
#ifndef PMUSTAT_JOURNAL_H
#define PMUSTAT_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pmu/msr.h"

struct pmustat_error;

struct hw;
struct pmu_family;
struct pmu_reg;
struct pmu;
struct pmu_caps;
struct pmu_program;

#define JOURNAL_DIR		"/run/pmustat"
#define JOURNAL_VERSION		2
#define JOURNAL_MAGIC		"pmustat-journal"
/*
 * Every register a run can program: EVTSEL+PMC x8, FIXED_CTR x4, 2 shared,
 * 2 offcore, PERF_METRICS; or a family's own, at most as many (pmu/family.h).
 */
#define JOURNAL_MAX_REGS	64
/*
 * Values written to EVTSELs and offcore MSRs: two per event (programmed,
 * then enabled) and an offcore value, for the most events a run counts
 * (SCHED_MAX_EVENTS, 64).
 */
#define JOURNAL_MAX_WROTE	192
/* Larger files are corrupt by definition. */
#define JOURNAL_MAX_BYTES	16384

struct journal_reg {
	uint32_t msr;
	uint64_t value;
};

struct journal {
	int core;
	pid_t pid;
	unsigned long long start_time;	/* clock ticks after boot */
	uint32_t own_gp;		/* counters the run programs */
	uint32_t own_fixed;
	uint32_t taken_gp;		/* of those, another user's when saved (--force) */
	uint32_t taken_fixed;
	uint64_t status;		/* GLOBAL_STATUS as found */
	unsigned nregs;
	struct journal_reg regs[JOURNAL_MAX_REGS];	/* values as saved */
	unsigned nwrote;
	struct journal_reg wrote[JOURNAL_MAX_WROTE];	/* values the run writes to EVTSELs, offcore MSRs */
	uint16_t fields[PMU_MAX_FIXED];	/* per fixed counter: bit v for each field value v written */
	/*
	 * The journal of a family with registers of its own (its line; NULL:
	 * the architectural PMU's, no line): the counters the run programs in
	 * the family's numbering, and the CPU's model and whether threads
	 * share the PMU, which must match the core's for it to be applied.
	 */
	const struct pmu_family *family;
	uint32_t own_family;
	unsigned family_model;
	bool family_ht;
};

/* What journal_apply() did, counter by counter. */
struct journal_result {
	uint32_t restored_gp, restored_fixed;	/* put back as saved */
	uint32_t left_gp, left_fixed;		/* someone else's since: left alone */
	uint64_t left_evtsel[PMU_MAX_GP];	/* what a left GP counter's EVTSEL holds */
	uint32_t restored_family, left_family;	/* a family's own counters (journal.family) */
	uint64_t left_family_ctl[32];		/* what a left one's control register holds */
};

/* Whether the run that wrote a journal is still there. */
enum journal_owner {
	JOURNAL_OWNER_LIVE,	/* pid alive with the same start time: hands off */
	JOURNAL_OWNER_DEAD,	/* no such process, or a zombie: the run was killed */
	JOURNAL_OWNER_REUSED,	/* pid alive but started at another time: the run is gone */
};

/* DIR/cpuN.journal into @buf. */
void
journal_path(const char *dir, int core, char *buf, size_t size);

/* Field 22 of /proc/@pid/stat. 0 or -errno (-ESRCH: no such process); *@start is 0 on failure. */
int
journal_proc_start_time(pid_t pid, unsigned long long *start);

/*
 * The journal of a stat run: this process; the counters @progs[0..n)
 * program on @p (after pmu_open() and pmu_take_busy()), their registers as
 * @p saved them, and every value the runs write to their control
 * registers. 0, or -errno with a message.
 */
int
journal_from_programs(struct journal *j, const struct pmu *p, const struct pmu_program *progs,
		      unsigned nprogs, struct pmustat_error **err);

/*
 * Write @j durably as DIR/cpuN.journal (replacing any older one). 0, or
 * -errno with a message naming the file in @err.
 */
int
journal_write(const char *dir, const struct journal *j, struct pmustat_error **err);

/*
 * Read DIR/cpuN.journal. 0; -ENOENT: there is none; -EBADMSG: it exists
 * but is corrupt, truncated, of another version or another core (@err
 * says what); other -errno: it could not be read.
 */
int
journal_read(const char *dir, int core, struct journal *j, struct pmustat_error **err);

/* Remove DIR/cpuN.journal. 0, or -errno (-ENOENT is not an error to callers). */
int
journal_remove(const char *dir, int core);

enum journal_owner
journal_owner(const struct journal *j);

/*
 * Put back what @j saved on @j->core, through @hw, for a PMU described by
 * @caps, of every counter that still holds what the run wrote (see the
 * top); the others are left alone and named in @res. Every register and
 * value must be one stat mode may write (pmu_msr_allowed()) of a counter
 * the run programmed, with no reserved bit; otherwise nothing at all is
 * written (-EBADMSG). Shared registers (GLOBAL_CTRL, FIXED_CTR_CTRL) get
 * back only the bits and fields of the counters put back. 0, 1 when a
 * counter could not be restored exactly (no full-width writes), or -errno,
 * with a message in @err.
 */
int
journal_apply(struct hw *hw, const struct pmu_caps *caps, const struct journal *j,
	      struct journal_result *res, struct pmustat_error **err);

/* The journal's saved value of @msr (0 when absent), and whether the run wrote @v to @msr. */
uint64_t
journal_saved_of(const struct journal *j, uint32_t msr);
bool
journal_wrote_value(const struct journal *j, uint32_t msr, uint64_t v);

/*
 * For a family's journal_from(): record saved register @r, and a value
 * the run writes to @msr (once; -E2BIG when full); whether @msr is saved.
 */
void journal_add_reg(struct journal *j, const struct pmu_reg *r);
int journal_add_wrote(struct journal *j, uint32_t msr, uint64_t v);
bool journal_has_reg(const struct journal *j, uint32_t msr);

/*
 * Whether @core's PMU holds what DIR/cpuN.journal saved (the run's
 * registers, and only the run's bits of shared ones), by MSR reads only.
 * For a restore that reported a failure: if nothing had changed (every
 * write refused, e.g. under lockdown) the journal is not needed.
 */
bool
journal_matches(const char *dir, int core, struct hw *hw);

/*
 * What the next pmustat on @core does first, under the core's lock: read
 * the journal and, if its run is gone (the lock is ours, so it does not
 * count; a zombie is gone too), apply and remove it. Returns
 *   0        no journal;
 *   1        a killed run's state was restored: *@note (free() it) says
 *            so, and names the counters someone else took since, left
 *            alone;
 *   -EBUSY   the run is still alive (@err names it): leave the core alone;
 *   -EBADMSG the journal is corrupt: reported in @err, not applied, kept;
 *   -errno   reading or restoring failed (@err); the journal is kept.
 */
int
journal_recover(const char *dir, int core, struct hw *hw, const struct pmu_caps *caps,
		char **note, struct pmustat_error **err);

/*
 * For a fatal signal handler: after the PMU was restored, remove the
 * journal armed here. Arm with a directory and core (path computed now),
 * disarm with NULL.
 */
void
journal_arm_signal_remove(const char *dir, int core);
void
journal_remove_from_signal(void);

/*
 * The same for a run on several cores: every one of @cores' journals is
 * removed by journal_remove_from_signal(). Disarm with @dir NULL. 0 or
 * -ENOMEM.
 */
int
journal_arm_signal_remove_cores(const char *dir, const int *cores, unsigned n);

#endif
