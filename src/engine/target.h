/*
 * target.h - the CPU pmustat works on, resolved once: a logical CPU of this
 * machine (CPUID through the hardware seam) or one of a libcpuid raw dump
 * (what pmustat would do on that machine, offline). From its CPUID: the
 * decoded facts (events/cpu.h), its mapfile key, and the event table and
 * metric table the mapfile names for it (events/mapfile.h), the table
 * loaded when first needed.
 *
 * The one rule for CPU -> table, for stat, info, list and state alike; each
 * decides what a missing table means to it (stat and state: architectural
 * events only; info: a note; list: a warning), from table_rc and the
 * message kept here.
 */
#ifndef PMUSTAT_TARGET_H
#define PMUSTAT_TARGET_H

#include <stdbool.h>

#include "events/cpu.h"
#include "events/mapfile.h"

struct event_table;
struct hw;
struct nb_table;
struct pmustat_error;

struct target {
	bool live;			/* a CPU of this machine; else a dump's */
	const char *dump;		/* the dump's path, as given */
	int core;			/* the logical CPU described */
	struct cpu_info cpu;
	char key[64];			/* mapfile key, "GenuineIntel-6-5E-3" */
	char label[128];		/* brand string, or the key without one */
	const char *events_dir;

	/*
	 * The mapfile's row: 0 (names below), -ENOENT (no row for this CPU:
	 * architectural events only; table_why says why), another -errno
	 * (the mapfile is unreadable or broken: table_why), or 1 when not
	 * looked up (a CPU whose PMU pmustat cannot use).
	 */
	int table_rc;
	struct pmustat_error *table_why;
	struct mapfile_choice choice;	/* table and metrics names, "" when none */

	/* Loaded by target_load_table(); NULL until then or when there is none. */
	struct event_table *table;
	struct nb_table *nb;		/* a NetBurst CPU's table instead */
};

/*
 * Describe logical CPU @core (< 0: the last one pmustat may run on, or the
 * dump's last) of this machine through @hw, or of the dump @dump when not
 * NULL (then @hw is not used). Looks the CPU up in the mapfile when its
 * PMU is one pmustat programs (architectural, or NetBurst). 0, or -errno
 * with @err: the CPU could not be read (no such CPU, a bad dump). A
 * missing or broken mapfile row is no error here: see table_rc.
 */
int
target_open(struct target *t, struct hw *hw, const char *dump, int core, struct pmustat_error **err);

/*
 * Load the table the mapfile named (once; the architectural one into
 * t->table, a NetBurst one into t->nb). 0 also when there is none to load
 * (table_rc != 0). -errno with @err when the named table cannot be read.
 */
int
target_load_table(struct target *t, struct pmustat_error **err);

/* Whether the CPU's PMU is one pmustat can program (cpu.verdict OK, or NetBurst). */
bool
target_can_count(const struct target *t);

/*
 * Live NetBurst core @core as its own CPUID says (through @hw): its
 * netburst_caps into @nb (with HT, which logical processor it is: its
 * T0/T1 bits), and into @sibling the other logical CPU of its core, which
 * shares its ESCRs, CCCRs and counters: the one whose initial APIC ID
 * differs in bit 0 only, wherever the kernel numbered it; -1 when there is
 * none (no HT, not found). 0, or -errno (no NetBurst, a dump, CPUID of
 * @core unreadable).
 */
int
target_nb_core(const struct target *t, struct hw *hw, int core, struct netburst_caps *nb, int *sibling);

void
target_close(struct target *t);

#endif
