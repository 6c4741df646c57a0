/*
 * pmu.h - pmustat's use of one core's PMU: the only code that writes a
 * PMU MSR (programming a run, the crash journal's replay, `reset --zero`,
 * `info`'s write probe all come through here), and the place the
 * allow-list is enforced.
 *
 * The sequence of a stat run is: pmu_open() (open the MSR device, read and
 * save every register pmustat may touch, find who holds which counter:
 * owner.h), then per run pmu_program() with the run's write program
 * (program.h: counting off), pmu_enable() in the corked child,
 * pmu_disable() and pmu_read() in the parent, and finally pmu_restore().
 * Before it writes anything, pmu_program() checks every write of the
 * program: an allow-listed MSR, of a counter pmustat holds (free, or taken
 * with --force), only pmustat's bits and fields of a shared register, no
 * reserved bit. Another user's counters, FIXED_CTR_CTRL fields and
 * GLOBAL_CTRL bits are never changed (unless --force takes the counters,
 * and then they are restored).
 *
 * The struct is opaque. It holds everything a restore needs in place (no
 * heap use, no stdio on that path): pmu_restore_from_signal() puts the
 * PMU back from a signal handler, and pmu_enable() runs in a forked child.
 */
#ifndef PMUSTAT_PMU_H
#define PMUSTAT_PMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "events/cpu.h"
#include "pmu/counter_sched.h"
#include "pmu/msr.h"
#include "pmu/owner.h"
#include "pmu/program.h"

struct hw;
struct pmu;
struct pmustat_error;

/* One counter's reading after a run. */
struct pmu_count {
	uint64_t raw;
	bool overflowed;		/* its GLOBAL_STATUS bit; a PERF_METRICS byte: bit 48 */
	bool frozen;			/* CTR_Frz was set at the end: someone froze the PMU mid-run */
	bool taken;			/* another user programmed the counter mid-run: theirs now */
	bool stopped;			/* another user cleared its enable (EN, the fixed field) mid-run */
	uint64_t ctl;			/* then: its EVTSEL (a fixed counter: its FIXED_CTR_CTRL field) */
	/*
	 * Another user rewrote the OFFCORE_RSP MSR (filter_msr) that filters
	 * the counter's event mid-run, to filter_rsp: it counted other
	 * responses since. The MSR is theirs now; the counter is still ours.
	 */
	bool refiltered;
	uint32_t filter_msr;
	uint64_t filter_rsp;
	uint64_t value;			/* width- and overflow-aware count */
};

/*
 * Open @cpu's MSR device for writing and save the PMU state (reads only),
 * and find who holds each counter (owner.h; @hints may be NULL).
 * @uses_offcore: save MSR_OFFCORE_RSP_0/1 too. 0 and *@out (pmu_close() it
 * after the restore), or -errno with a message naming the core, the MSR
 * and the fix.
 */
int
pmu_open(struct pmu **out, struct hw *hw, int cpu, const struct pmu_caps *caps, bool uses_offcore,
	 const struct pmu_owner_hints *hints, struct pmustat_error **err);

/*
 * pmu_open() without reading the counters' values: a run on many cores
 * reads only those its plan uses, with pmu_save_counters() before the
 * journal. A counter not saved cannot be written (pmu_program() refuses).
 * @like: an open PMU of a core of the same type (same caps), whose
 * IA32_PERF_CAPABILITIES is taken instead of read again, or NULL.
 */
int
pmu_open_lean(struct pmu **out, struct hw *hw, int cpu, const struct pmu_caps *caps, bool uses_offcore,
	      const struct pmu_owner_hints *hints, const struct pmu *like, struct pmustat_error **err);

/*
 * Read and save the values of the counters @gp and @fixed not saved yet
 * (save_counters.c). @use_rdpmc: with rdpmc, the caller running on the
 * PMU's core (rdpmc_probe() said yes there), not with MSR reads. 0, or
 * -errno with @err.
 */
int
pmu_save_counters(struct pmu *p, uint32_t gp, uint32_t fixed, bool use_rdpmc, struct pmustat_error **err);

/* Free @p (NULL is fine); pmu_restore() first. */
void
pmu_close(struct pmu *p);

/* Who held each counter when pmu_open() looked. */
const struct pmu_occupancy *
pmu_occupancy(const struct pmu *p);

/* IA32_PERF_GLOBAL_CTRL as pmu_open() found it (the enable mode depends on it). */
uint64_t
pmu_found_global_ctrl(const struct pmu *p);

/* --force: take the busy counters too (they are restored after). */
void
pmu_take_busy(struct pmu *p);

/*
 * A frozen PMU (IA32_PERF_GLOBAL_STATUS.CTR_Frz, v4+, as pmu_open() found
 * it) counts nothing: -EBUSY with what froze it and how to clear it, or
 * with @force, clear it at the first pmu_program() (after the crash
 * journal, which records it) and set it back at the restore. LBR_Frz alone
 * stops no counter: 0, and @note (may be NULL) says so. Before the first
 * program.
 */
int
pmu_check_frozen(struct pmu *p, bool force, const char **note, struct pmustat_error **err);

/* Counters pmustat may use: the PMU's, less the busy ones not taken. */
uint32_t pmu_free_gp(const struct pmu *p);
uint32_t pmu_free_fixed(const struct pmu *p);

/*
 * Program run @prog->run with counting off: every write of @prog's
 * program step, checked first (nothing is written when one is refused),
 * and the enable and disable sequences made ready. 0, or -errno with a
 * message naming the core and the MSR.
 */
int
pmu_program(struct pmu *p, const struct pmu_program *prog, struct pmustat_error **err);

/*
 * Enable exactly this run's counters. For the runner's callback (@arg is
 * the struct pmu): async-signal-safe, seam writes only, and the last write
 * is the one that starts the counting.
 */
int
pmu_enable(void *arg);

/* Record that the child ran pmu_enable() (the parent did not see it). */
void
pmu_mark_enabled(struct pmu *p);

/*
 * Stop this run's counters. First, whether each is still pmustat's (its
 * EVTSEL or fixed field as the enable wrote it): one another user
 * programmed meanwhile is left as it is, and out of the restore;
 * pmu_read() reports it (struct pmu_count's taken, stopped).
 */
int
pmu_disable(struct pmu *p, struct pmustat_error **err);

/*
 * Read this run's counters (rdpmc when @use_rdpmc: the caller runs on the
 * core; MSR reads otherwise) into @counts[i] for each event i of @slots
 * placed in run @run, then clear our overflow bits.
 */
int
pmu_read(struct pmu *p, const struct sched_slot *slots, unsigned n, unsigned run, bool use_rdpmc,
	 struct pmu_count *counts, struct pmustat_error **err);

/*
 * Put every register pmustat wrote back to its saved value. 0, -errno of
 * the first failed write (the others are still attempted), or 1 when a
 * legacy counter write could not reproduce a saved value exactly.
 */
int
pmu_restore(struct pmu *p);

/*
 * Let pmu_restore_from_signal() restore @p (NULL: nothing). Call before the
 * first write.
 */
void
pmu_arm_signal_restore(struct pmu *p);

/*
 * The same for the @n PMUs of @ps (a run on several cores; the array
 * must live until disarmed with n = 0). They are restored in order.
 */
void
pmu_arm_signal_restore_all(struct pmu *const *ps, unsigned n);

/*
 * pmu_restore() of the armed PMUs, every one even after a failure: the
 * first failure (-errno), else 1 if a value was inexact, else 0;
 * async-signal-safe.
 */
int
pmu_restore_from_signal(void);

/*
 * `reset --zero`: clear the counters @gp and @fixed (their EVTSEL and
 * counter, their FIXED_CTR_CTRL fields and counter, their overflow bits),
 * on a PMU just opened; nothing is restored afterwards (pmu_close() without
 * pmu_restore()). GLOBAL_CTRL is left as it is: with EN and the fields
 * clear nothing counts. 0, or -errno with the MSR that failed.
 */
int
pmu_clear(struct pmu *p, uint32_t gp, uint32_t fixed, struct pmustat_error **err);
/* On a PMU family with its own counters, @gp names them: the family's clear() zeroes them and what programs them. */

/*
 * Whether MSR writes work on @cpu at all, by the one write that changes
 * nothing: 0 to IA32_PERF_GLOBAL_STATUS_RESET (write-1-to-clear). For a
 * PMU of version 2 or later; 0 or -errno.
 */
int
pmu_write_probe(struct hw *hw, int cpu, const struct pmu_caps *caps);

/* The accesses made so far (rdpmc not among the MSR reads), for -v. */
void
pmu_stats(const struct pmu *p, unsigned long *msr_reads, unsigned long *msr_writes,
	  unsigned long *rdpmc_reads);

/* The enable mode of the last run programmed. */
enum pmu_enable_mode
pmu_mode(const struct pmu *p);

/* "IA32_PERFEVTSEL0", "IA32_FIXED_CTR_CTRL", ... into @buf, for messages. */
const char *
pmu_msr_name(uint32_t msr, char *buf, size_t size);

/*
 * Does this PMU have IA32_PERF_METRICS (PERF_CAPABILITIES[15] and fixed
 * counter 3, as pmu_open() read them)?
 */
bool
pmu_has_perf_metrics(const struct pmu *p);

/* Is @msr one pmustat may access on this PMU? */
bool
pmu_msr_allowed(const struct pmu *p, uint32_t msr);

#endif
