/*
 * sched.h - place resolved events on counters.
 *
 * Events that can use their fixed counter do; the others go to free
 * general-purpose counters within their own gp_mask. When they do not all
 * fit, the events are split into runs (the command is run once per run),
 * each event counted exactly once, in one run. An event flagged
 * EVENT_F_TAKEN_ALONE is the only GP event of its run; events that need the
 * same extra MSR (offcore response) share a run only with the same value,
 * and an offcore event moves to the other offcore MSR when its own is taken.
 * Events of one group (event.group) go in the same run: a group that
 * cannot fit one run fails the plan (-ENOSPC), unless pmustat formed it
 * for a ratio (group_soft), which is then split.
 * Pure: no hardware.
 */
#ifndef PMUSTAT_SCHED_H
#define PMUSTAT_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pmustat_error;

struct event;
struct pmu_caps;

#define SCHED_MAX_EVENTS 64

enum sched_kind {
	SCHED_NONE = 0,
	SCHED_FIXED,
	SCHED_GP,
	SCHED_METRICS,		/* a byte of IA32_PERF_METRICS (index), in a run of fixed counter 3 */
	SCHED_NB,		/* a NetBurst counter (0-17), fed by ESCR @escr */
};

struct sched_slot {
	enum sched_kind kind;
	unsigned index;		/* fixed, GP or NetBurst counter number */
	unsigned run;		/* 0-based */
	unsigned escr;		/* SCHED_NB: the ESCR (nb_escr_get()) that selects the event */
	bool alt;		/* SCHED_GP: through the event's other offcore MSR (event.alt_msr, alt_code, alt_umask) */
};

/*
 * Place @n events. @gp_free and @fixed_free are the counters pmustat may
 * use on this core (the PMU's, less those in use by someone else). On
 * success fills @slots[0..n) and *@runs (>= 1 when n > 0) and returns 0.
 * -ENOSPC when event *@bad cannot go on any free counter even alone;
 * -E2BIG when n > SCHED_MAX_EVENTS; both with a message in @err.
 */
int
sched_plan(const struct event *ev, unsigned n, const struct pmu_caps *caps,
	   uint32_t gp_free, uint32_t fixed_free, struct sched_slot *slots,
	   unsigned *runs, unsigned *bad, struct pmustat_error **err);

/*
 * The same, with events that must share a run: @pinned[i] >= 0 puts event
 * i in that run (0-based; the events of one metric, so that its ratio
 * comes from one run), -1 leaves it to the greedy batching, which fills
 * the pinned runs first. @pinned NULL: none pinned. -ENOSPC with *@bad
 * also when pinned events do not fit their run together. A pinned run may
 * hold only events that another run also counts (then it is a run of its
 * own all the same).
 */
int
sched_plan_pinned(const struct event *ev, unsigned n, const int *pinned, const struct pmu_caps *caps,
		  uint32_t gp_free, uint32_t fixed_free, struct sched_slot *slots,
		  unsigned *runs, unsigned *bad, struct pmustat_error **err);

/*
 * The same, with @offcore_free the offcore response MSRs pmustat may
 * program (bit o: MSR_OFFCORE_RSP_o; not one another user's counters
 * read). An offcore event takes its own MSR, else the other one with its
 * own event code (slot.alt), so two offcore events with different
 * response values share a run; sched_plan_pinned() is this with both free.
 * -ENOSPC also when an offcore event can have neither.
 */
int
sched_plan_offcore(const struct event *ev, unsigned n, const int *pinned, const struct pmu_caps *caps,
		   uint32_t gp_free, uint32_t fixed_free, uint32_t offcore_free, struct sched_slot *slots,
		   unsigned *runs, unsigned *bad, struct pmustat_error **err);

/*
 * The event as @slot counts it: @ev itself, or with the other offcore
 * MSR's event code, umask and response value when slot.alt.
 */
void
sched_slot_event(const struct event *ev, const struct sched_slot *slot, struct event *out);

/* "fixed1", "pmc3", "metrics0" or "IQ_COUNTER0" into @buf; "-" for SCHED_NONE. */
void
sched_counter_name(const struct sched_slot *slot, char *buf, size_t size);

#endif
