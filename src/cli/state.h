/*
 * state.h - `pmustat state` inside cli/: one core as shown (state.c reads
 * it, frame by frame), and its three forms (state_print.c: human, --raw,
 * --json). Private to cli/state*.c.
 */
#ifndef PMUSTAT_CLI_STATE_H
#define PMUSTAT_CLI_STATE_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include <jansson.h>

#include "base/err.h"
#include "events/cpu.h"
#include "events/event_table.h"
#include "pmus/netburst/nb_regs.h"
#include "pmu/journal.h"
#include "pmu/owner.h"
#include "pmu/snapshot.h"

#define STATE_FORMAT_VERSION 1

struct hw;
struct nb_table;

/* A NetBurst core's registers as read (state_nb.c). */
struct state_nb {
	uint64_t counter[NB_COUNTERS];
	uint64_t cccr[NB_COUNTERS];
	uint64_t escr[NB_ESCRS];	/* 0 for those the model lacks */
};

/* One core being shown; kept across --watch frames for the rates. */
struct state_core {
	int core;
	struct cpu_info cpu;
	char key[64];
	char table_name[128];
	struct event_table *table;
	struct nb_table *nb_table;	/* a NetBurst core's table instead */
	struct state_nb nb;		/* a NetBurst core's registers instead of st */
	int nb_sibling;			/* a NetBurst core's Hyper-Threading sibling (sharing its registers), or -1 */
	struct pmu_snapshot st;
	struct pmu_snapshot prev;
	struct pmu_occupancy occ;	/* who holds each counter of st: owner.h's rule */
	bool have_prev;
	char watchdog[32];
	struct pmu_owner_hints pm;	/* what is known of pmustat runs, and the watchdog */
	char live_command[256];		/* the live run's command line, may be "" */
	/* The journal, if any: its state, or why it is not trusted. */
	int journal_rc;			/* 0, -ENOENT, -EBADMSG, -errno */
	struct journal journal;
	enum journal_owner journal_owner;
	struct pmustat_error *journal_err;	/* why, when journal_rc < 0 */
	bool setup_ok;
	struct pmustat_error *error;	/* this core could not be read (this frame, or at all) */
};

/* The human form of one core; a core not read says so (its reason to stderr). */
void state_print_human(FILE *out, const struct state_core *c, double dt);
/* --raw: the MSRs as read. */
void state_print_raw(FILE *out, const struct state_core *c);
/* --json: one document (one line with --watch) for all @n cores; @error: the first failure or NULL. */
void state_print_json(const struct state_core *cores, int n, bool raw, bool watch, double dt, const char *error);

/* The NetBurst form of each (state_nb.c); state_nb_read() fills c->nb, 0 or -errno (c->error set). */
int state_nb_read(struct hw *hw, struct state_core *c);
void state_nb_print_human(FILE *out, const struct state_core *c);
void state_nb_print_raw(FILE *out, const struct state_core *c);
json_t *state_nb_json(const struct state_core *c);

#endif
