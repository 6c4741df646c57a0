/*
 * plan.h - the counting plan: which counter counts which event in which
 * run of the command, and every MSR write of each run (pmu/program.h), as
 * a value. Made without touching the hardware, from the events, the PMU's
 * description and who holds which counter (owner.h: read from the core, or
 * assumed free for a CPU of a dump). A run executes it through pmu.c; a
 * dry run prints it (plan_print()).
 */
#ifndef PMUSTAT_PLAN_H
#define PMUSTAT_PLAN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "pmu/counter_sched.h"
#include "pmu/owner.h"
#include "pmu/program.h"

struct event;
struct pmu_caps;
struct pmustat_error;

/* What a plan is made from. */
struct plan_input {
	int core;
	const struct pmu_caps *caps;
	const struct event *events;	/* the hardware events, each once */
	unsigned nevents;
	/* Per event: the run it must be in (the events of one metric share one), -1 any; NULL: none pinned. */
	const int *pinned_run;
	/* Who holds the counters; with occupancy_assumed, nobody (not read). */
	struct pmu_occupancy occ;
	bool occupancy_assumed;
	const char *assumed_why;	/* why nothing was read ("a CPU of a dump"), with occupancy_assumed */
	uint64_t global_ctrl;		/* IA32_PERF_GLOBAL_CTRL as found (or at power-up) */
	bool global_ctrl_assumed;
	bool force;			/* take the busy counters (--force) */
	bool no_rerun;			/* one run or a refusal (--no-rerun) */
	bool kernel_counts;		/* the perf backend: the kernel schedules, every counter is ours */
	/*
	 * Counters free here but kept unused, so that every core of a run on
	 * several counts each event in the same run of the command (or, with
	 * kernel_counts, so that the kernel has room for --regions'
	 * self-read copies of the events).
	 */
	uint32_t avoid_gp, avoid_fixed;
	/* A NetBurst PMU: counters kept unused (the other half, when both HT threads count). */
	uint32_t avoid_nb;
};

struct plan {
	struct plan_input in;		/* events and caps borrowed */
	uint32_t gp_free, fixed_free;	/* the counters the plan may use */
	uint32_t taken_gp, taken_fixed;	/* of those, another user's (--force) */
	struct sched_slot *slots;	/* per event */
	unsigned nruns;
	struct pmu_program *runs;	/* per run: its writes */
	void *family_runs;		/* the family's own detail of each run, for its plan_print() (freed with the plan) */
};

/*
 * Place the events and compute each run's writes. 0 and *@out
 * (plan_free() it), or -errno with @err: an event no free counter can
 * count (naming who holds the counters it needs, and what to do),
 * more runs than --no-rerun allows, an encoding this PMU refuses.
 */
int
plan_make(const struct plan_input *in, struct plan **out, struct pmustat_error **err);

/*
 * The plan of the kernel's generic events (EVENT_F_KERNEL_GENERIC, on a CPU
 * pmustat does not program): every event in one run, on no counter of
 * pmustat's choosing (the kernel schedules them, multiplexing if it must).
 * 0 and *@out, or -ENOMEM with @err.
 */
int
plan_make_kernel(const struct plan_input *in, struct plan **out, struct pmustat_error **err);

void
plan_free(struct plan *p);

/*
 * When event @k is not where it asked to be (a fixed-counter event on a
 * general-purpose counter with its architectural twin encoding): why, "" otherwise.
 * "fixed counter 1 is held by the NMI watchdog" into @buf.
 */
const char *
plan_event_note(const struct plan *p, unsigned k, char *buf, size_t size);

/* "pmc3" or "fixed1" for event @k. */
void
plan_counter_name(const struct plan *p, unsigned k, char *buf, size_t size);

/*
 * The plan for people: the CPU, the assumptions, and per run which counter
 * counts which event and every MSR write with its reason. @names[k] is
 * event k's label.
 */
void
plan_print(const struct plan *p, const char *cpu, const char *const *names, FILE *out);

#endif
