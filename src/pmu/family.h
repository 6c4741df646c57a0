/*
 * family.h - what a PMU family gives pmu/ (one core's PMU): the operations
 * in which families differ, one table per family, chosen once from CPUID
 * (struct pmu_caps.family, set by cpu_decode() through the families that
 * src/pmus/families.c registers). pmu.c calls through it and never asks
 * which family it has.
 *
 * A member left NULL (or false) is the architectural PMU's own code in
 * pmu/, the default. Only pmu/ and the family folders include this file.
 *
 * Two things are data, not calls, because they run where only
 * async-signal-safe code may: the enable in the forked child (the run's
 * sequence of writes) and the restore from a signal handler, which walks
 * the registers the family's open() listed in p->restore_order.
 */
#ifndef PMUSTAT_FAMILY_H
#define PMUSTAT_FAMILY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct cpu_info;
struct hw;
struct journal;
struct journal_result;
struct pmu_caps;
struct pmu_program;
struct strbuf;
struct cpu_raw_data_t;
struct pmu;
struct pmu_count;
struct pmu_owner_hints;
struct pmu_reg;
struct pmu_write;
struct plan;
struct pmustat_error;
struct sched_slot;

/*
 * What `info` read of a family's PMU on one CPU (its probe()): the one
 * register that says whether the PMU may be used. @live false: a CPU of a
 * dump, nothing read.
 */
struct pmu_family_probe {
	bool live;
	int read;		/* 0: read; -errno: could not */
	uint64_t value;
};

struct pmu_family {
	/* What state's and list's JSON call it ("pmu"): "architectural", ... */
	const char *name;
	/* Its name for people, in messages (as its vendor writes it). */
	const char *title;

	/*
	 * From CPUID: whether the CPU has this family's PMU; when it has,
	 * fill @out's PMU description. Families are asked in the order
	 * src/pmus/families.c lists them; the first that says yes is the
	 * CPU's.
	 */
	bool (*detect)(const struct cpu_raw_data_t *raw, struct cpu_info *out);

	/*
	 * Open @p (hw, cpu and caps set): open the MSR device for writing,
	 * save every register the family may touch, find who holds what
	 * (p->occ; @hints as pmu_open()'s, may be NULL), and list in p->restore_order the saved registers in the
	 * order they go back (those that stop counting first). 0 or -errno.
	 */
	int (*open)(struct pmu *p, const struct pmu_owner_hints *hints, struct pmustat_error **err);

	/* The allow-list: whether pmustat may write @msr on @p at all. */
	bool (*allowed)(const struct pmu *p, uint32_t msr);

	/* @msr's saved-register slot, or NULL. */
	struct pmu_reg *(*reg_of)(struct pmu *p, uint32_t msr);

	/* Why @w may not be written ("" when it may): the family's write rules. */
	const char *(*refusal)(const struct pmu *p, const struct pmu_write *w);

	/* @msr's name for messages ("IA32_PMC0"). */
	const char *(*reg_name)(uint32_t msr, char *buf, size_t size);

	/*
	 * Before the disable: find the run's counters another user took
	 * (out of the disable and the restore from then on) or stopped.
	 * 0, or -errno of the read of *@failed.
	 */
	int (*before_disable)(struct pmu *p, uint32_t *failed);

	/*
	 * Bits of a register the disable writes that it keeps as they are
	 * then (a sticky overflow flag the read still has to see).
	 */
	uint64_t disable_keeps;

	/* The counts of @run's slots (pmu_read()'s contract). */
	int (*read)(struct pmu *p, const struct sched_slot *slots, unsigned n, unsigned run, bool use_rdpmc,
		    struct pmu_count *counts, struct pmustat_error **err);

	/*
	 * Make @p (its input, free counters and slots set): place the events
	 * and compute each run's writes (NULL: pmu/'s counter-mask scheduler
	 * and EVTSEL encoder). plan_make()'s contract.
	 */
	int (*plan)(struct plan *p, struct pmustat_error **err);

	/* --dry-run: @p for people, every write with its reason (plan_print()'s contract). */
	void (*plan_print)(const struct plan *p, const char *cpu, const char *const *names, FILE *out);

	/* Zero the counters @counters (bit i: counter i) and what programs them (pmu_clear()). */
	int (*clear)(struct pmu *p, uint32_t counters, struct pmustat_error **err);

	/*
	 * The crash journal (journal.h) of a family with registers of its
	 * own, under a line named after it (NULL: pmu/'s journal):
	 * journal_from() records what a run's programs save and write;
	 * journal_wrote_ok() says whether a "wrote" line may name @msr,
	 * journal_complete() whether every counter named has its registers
	 * saved; journal_apply() puts back what is still the run's (the
	 * journal is of this family: checked before); journal_left() says
	 * which counters it left alone, for people.
	 */
	int (*journal_from)(struct journal *j, const struct pmu *p, const struct pmu_program *progs, unsigned n,
			    struct pmustat_error **err);
	bool (*journal_wrote_ok)(const struct journal *j, uint32_t msr);
	bool (*journal_complete)(const struct journal *j);
	int (*journal_apply)(struct hw *hw, const struct pmu_caps *caps, const struct journal *j,
			     struct journal_result *res, struct pmustat_error **err);
	void (*journal_left)(const struct journal_result *res, struct strbuf *b);

	/*
	 * `info` (NULL: pmu/'s, the architectural PMU's lines): probe() reads
	 * what says whether the PMU may be used on a live @cpu; unusable()
	 * says why not (into @buf) or NULL; info_text() writes the lines
	 * under "PMU", info_json() the object under pmu.<name> (a CPU of
	 * another family has null there).
	 */
	int (*probe)(struct hw *hw, int cpu, struct pmu_family_probe *out);
	const char *(*unusable)(const struct pmu_family_probe *probe, int cpu, char *buf, size_t size);
	void (*info_text)(const struct cpu_info *c, const struct pmu_family_probe *probe, int cpu, FILE *o);
	struct json_t *(*info_json)(const struct cpu_info *c, const struct pmu_family_probe *probe);

	/*
	 * An event table of the family's own (NULL: events/event_table.c's):
	 * events_load() reads table @name from @dir into *@out (-EMEDIUMTYPE:
	 * a table of another family), events_free() frees it;
	 * events_name() and events_source() for a listing's header;
	 * list_text() prints the events and aliases @match selects (how many),
	 * list_json() sets them on @root as "events" and "aliases".
	 */
	int (*events_load)(const char *dir, const char *name, void **out, struct pmustat_error **err);
	void (*events_free)(void *table);
	const char *(*events_name)(const void *table);
	const char *(*events_source)(const void *table);
	unsigned (*list_text)(FILE *out, const void *table, const char *pattern,
			      bool (*match)(const char *pattern, const char *text), bool long_format);
	void (*list_json)(struct json_t *root, const void *table, const char *pattern,
			  bool (*match)(const char *pattern, const char *text));

	/* Why no metric table can serve the family's CPUs (-M), or NULL. */
	const char *no_metrics;

	/* The kernel's perf events have no encoding of the family's events: the MSR backend only. */
	bool msr_only;

	/*
	 * Plain counters: @plain_counters registers from @plain_counter_msr
	 * on, @plain_counter_width bits wide, saved registers written whole, restored whenever written and
	 * read by the family's read(), never by rdpmc at their number. 0: the
	 * architectural PMU's (IA32_PMCx, IA32_FIXED_CTRx).
	 */
	uint32_t plain_counter_msr;
	unsigned plain_counters;
	unsigned plain_counter_width;	/* bits; rdpmc reads them by their number too */
};

/*
 * The families src/pmus/families.c registers, NULL-terminated, in the
 * order they are asked (detect()).
 */
extern const struct pmu_family *const pmu_families[];

#endif
