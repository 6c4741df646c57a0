/*
 * cmd_state.c - `pmustat state [-C LIST] [--json] [--raw] [--watch MS
 * [--count N]]`: what the PMU of each core holds right now, decoded, and
 * who probably programmed it.
 *
 * Read-only: the MSR devices are opened read-only and nothing is written,
 * not even a stale journal's restore (that is `pmustat reset`'s job; state
 * only says a journal is there).
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "base/err.h"
#include "cli/cli.h"
#include "config.h"
#include "events/cpu.h"
#include "hw/cpulock.h"
#include "engine/target.h"
#include "events/cpu_source.h"
#include "pmu/delta.h"
#include "events/event_table.h"
#include "base/exit_codes.h"
#include "hw/hw.h"
#include "pmu/journal.h"
#include "report/json_text.h"
#include "hw/proc.h"
#include "pmu/owner.h"
#include "pmu/snapshot.h"

#define STATE_FORMAT_VERSION 1
#define WATCH_MIN_MS 100

struct state_opts {
	const char *cpus;
	bool json;
	bool raw;
	long watch_ms;		/* 0: once */
	long count;		/* frames with --watch; 0: until ^C */
};

/* One core being shown; kept across --watch frames for the rates. */
struct state_core {
	int core;
	struct cpu_info cpu;
	char key[64];
	char table_name[128];
	struct event_table *table;
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
	char journal_err[512];
	bool setup_ok;
	char error[1024];		/* this core could not be read */
};

static volatile sig_atomic_t state_stop;

static void
on_stop(int sig)
{
	(void)sig;
	state_stop = 1;
}

static void
usage(FILE *out)
{
	fprintf(out,
		"usage: pmustat state [-C LIST] [--json] [--raw] [--watch MS [--count N]]\n"
		"\n"
		"  -C, --cpu LIST   cores to show: N, ranges and lists (0-3,6), or all\n"
		"                   (default: the last allowed CPU)\n"
		"      --json       one JSON object (one per line and frame with --watch)\n"
		"      --raw        the registers' addresses and values, not decoded\n"
		"      --watch MS   redraw every MS milliseconds (at least %d) with rates;\n"
		"                   Ctrl-C stops\n"
		"      --count N    with --watch: stop after N frames\n"
		"Reads only: never writes an MSR.\n", WATCH_MIN_MS);
}

static int
parse_long(const char *s, long min, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min)
		return -EINVAL;
	*out = v;
	return 0;
}

#define STATE_PROG "pmustat state"
#define STATE_OPTSTRING "C:h"

/* 0, 1 for --help (printed), or -EINVAL with the usage error. */
static int
parse_opts(int argc, char **argv, struct state_opts *o, struct pmustat_error **err)
{
	static const struct option longopts[] = {
		{ "cpu", required_argument, NULL, 'C' },
		{ "json", no_argument, NULL, 'j' },
		{ "raw", no_argument, NULL, 'r' },
		{ "watch", required_argument, NULL, 'w' },
		{ "count", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, STATE_OPTSTRING, longopts, NULL)) != -1) {
		switch (c) {
		case 'C':
			o->cpus = optarg;
			break;
		case 'j':
			o->json = true;
			break;
		case 'r':
			o->raw = true;
			break;
		case 'w':
			if (parse_long(optarg, WATCH_MIN_MS, &o->watch_ms))
				return cli_usage_error(err, STATE_PROG, "--watch %s: give milliseconds, at least %d",
						       optarg, WATCH_MIN_MS);
			break;
		case 'n':
			if (parse_long(optarg, 1, &o->count))
				return cli_usage_error(err, STATE_PROG, "--count %s: give a number of frames, at least 1",
						       optarg);
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			return cli_option_error(err, STATE_PROG, argv, STATE_OPTSTRING);
		}
	}
	if (optind < argc)
		return cli_usage_error(err, STATE_PROG, "unexpected argument %s", argv[optind]);
	if (o->count && !o->watch_ms)
		return cli_usage_error(err, STATE_PROG, "--count goes with --watch");
	return 0;
}

/* CPUID, event table: what does not change between frames. 0 or -1 (error set). */
static int
core_setup(struct hw *hw, struct state_core *c, bool raw)
{
	struct pmustat_error *err = NULL;
	struct target t;
	int rc;

	rc = target_open(&t, hw, NULL, c->core, &err);
	if (rc < 0) {
		snprintf(c->error, sizeof(c->error), "%s", err_msg(err));
		err_free(err);
		return -1;
	}
	c->cpu = t.cpu;
	snprintf(c->key, sizeof(c->key), "%s", t.key);
	if (!target_can_count(&t)) {
		snprintf(c->error, sizeof(c->error), "core %d (%s): %s", c->core, c->key,
			 cpu_verdict_text(c->cpu.verdict));
		target_close(&t);
		return -1;
	}
	/* No table: architectural events only, as stat mode does. */
	if (!raw && target_load_table(&t, &err) < 0)
		fprintf(stderr, "pmustat state: warning: %s; architectural event names only\n", err_msg(err));
	err_free(err);
	if (t.table) {
		c->table = t.table;
		t.table = NULL;
		snprintf(c->table_name, sizeof(c->table_name), "%s", t.choice.table);
	}
	target_close(&t);
	return 0;
}

/* One frame's reading of a core. 0 or -1 (error set). */
static int
core_read(struct hw *hw, struct state_core *c)
{
	struct pmustat_error *err = NULL;

	c->prev = c->st;
	if (pmu_snapshot_read(hw, c->core, &c->cpu.pmu, &c->st, &err) < 0) {
		snprintf(c->error, sizeof(c->error), "%s", err_msg(err));
		err_free(err);
		return -1;
	}
	if (hw_read_file(hw, HW_FILE_NMI_WATCHDOG, c->watchdog, sizeof(c->watchdog)) < 0)
		c->watchdog[0] = '\0';
	c->watchdog[strcspn(c->watchdog, "\n")] = '\0';

	memset(&c->pm, 0, sizeof(c->pm));
	c->pm.live_pid = cpulock_holder(c->core);
	c->journal_rc = journal_read(JOURNAL_DIR, c->core, &c->journal, &err);
	snprintf(c->journal_err, sizeof(c->journal_err), "%s", err_msg(err));
	err_free(err);
	if (c->journal_rc == 0) {
		c->journal_owner = journal_owner(&c->journal);
		if (c->journal_owner == JOURNAL_OWNER_LIVE && !c->pm.live_pid)
			c->pm.live_pid = c->journal.pid;
		else if (c->journal_owner != JOURNAL_OWNER_LIVE)
			c->pm.killed_pid = c->journal.pid;
	}
	if (c->pm.live_pid)
		proc_command(c->pm.live_pid, c->live_command, sizeof(c->live_command));
	c->pm.watchdog_on = pmu_owner_watchdog_on(c->watchdog);
	pmu_snapshot_occupancy(&c->st, &c->pm, &c->occ);
	return 0;
}

static double
rate(const struct state_core *c, uint64_t prev, uint64_t now, unsigned width, double dt)
{
	if (!c->have_prev || dt <= 0)
		return -1;
	return (double)delta_count(prev, now, width, false) / dt;
}

/* The owners of the busy counters, each once: "nmi_watchdog, pmustat". */
static void
owners_text(const struct state_core *c, char *buf, size_t size)
{
	bool seen[PMU_OWNER_UNKNOWN + 1] = { false };
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < PMU_MAX_FIXED; i++)
		seen[c->occ.fixed[i]] = true;
	for (unsigned i = 0; i < PMU_MAX_GP; i++)
		seen[c->occ.gp[i]] = true;
	for (int o = PMU_OWNER_NMI_WATCHDOG; o <= PMU_OWNER_UNKNOWN && used < size; o++) {
		if (!seen[o])
			continue;
		used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? ", " : "",
					 pmu_owner_name((enum pmu_owner)o));
		if (o == PMU_OWNER_PMUSTAT && used < size)
			used += (size_t)snprintf(buf + used, size - used, " (pid %ld: %s)", (long)c->pm.live_pid,
						 c->live_command[0] ? c->live_command : "?");
		else if (o == PMU_OWNER_PMUSTAT_KILLED && used < size)
			used += (size_t)snprintf(buf + used, size - used, " (pid %ld, journal left)",
						 (long)c->pm.killed_pid);
	}
	if (!buf[0])
		snprintf(buf, size, "none (no counter in use)");
}

static void
counters_list(char *buf, size_t size, uint64_t bits, uint32_t gp_mask, uint32_t fixed_mask)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < PMU_MAX_GP && used < size; i++)
		if ((gp_mask & (1u << i)) && (bits & (1ull << i)))
			used += (size_t)snprintf(buf + used, size - used, " pmc%u", i);
	for (unsigned i = 0; i < PMU_MAX_FIXED && used < size; i++)
		if ((fixed_mask & (1u << i)) && (bits & GLOBAL_FIXED_BIT(i)))
			used += (size_t)snprintf(buf + used, size - used, " fixed%u", i);
	if (!buf[0])
		snprintf(buf, size, " none");
}

static void
journal_text(const struct state_core *c, char *buf, size_t size)
{
	char path[256];

	buf[0] = '\0';
	journal_path(JOURNAL_DIR, c->core, path, sizeof(path));
	if (c->journal_rc == -ENOENT)
		return;
	if (c->journal_rc < 0)
		snprintf(buf, size, "%s; not trusted, never applied", c->journal_err);
	else if (c->journal_owner == JOURNAL_OWNER_LIVE)
		snprintf(buf, size, "%s: run pid %ld in progress", path, (long)c->journal.pid);
	else
		snprintf(buf, size, "%s: run pid %ld is gone, its counters may still be programmed; 'pmustat reset -C %d' restores what it saved",
			 path, (long)c->journal.pid, c->core);
}

static void
print_raw(FILE *out, const struct state_core *c)
{
	const struct pmu_snapshot *s = &c->st;

	printf("core %d\n", c->core);
	fprintf(out, "  0x%03x IA32_PERF_GLOBAL_CTRL   0x%016llx\n", MSR_IA32_PERF_GLOBAL_CTRL,
		(unsigned long long)s->global_ctrl);
	fprintf(out, "  0x%03x IA32_PERF_GLOBAL_STATUS 0x%016llx\n", MSR_IA32_PERF_GLOBAL_STATUS,
		(unsigned long long)s->global_status);
	if (s->has_inuse)
		fprintf(out, "  0x%03x IA32_PERF_GLOBAL_INUSE  0x%016llx\n", MSR_IA32_PERF_GLOBAL_INUSE,
			(unsigned long long)s->global_inuse);
	if (s->fixed_mask)
		fprintf(out, "  0x%03x IA32_FIXED_CTR_CTRL     0x%016llx\n", MSR_IA32_FIXED_CTR_CTRL,
			(unsigned long long)s->fixed_ctrl);
	for (unsigned i = 0; i < PMU_MAX_FIXED; i++)
		if (s->fixed_mask & (1u << i))
			fprintf(out, "  0x%03x IA32_FIXED_CTR%u        0x%016llx\n", msr_fixed_ctr(i), i,
				(unsigned long long)s->fixed_ctr[i]);
	for (unsigned i = 0; i < PMU_MAX_GP; i++) {
		if (!(s->gp_mask & (1u << i)))
			continue;
		fprintf(out, "  0x%03x IA32_PERFEVTSEL%u       0x%016llx\n", msr_evtsel(i), i,
			(unsigned long long)s->evtsel[i]);
		fprintf(out, "  0x%03x IA32_PMC%u              0x%016llx\n", msr_pmc(i), i,
			(unsigned long long)s->pmc[i]);
	}
}

static void
print_human(FILE *out, const struct state_core *c, double dt)
{
	const struct pmu_snapshot *s = &c->st;
	const struct pmu_occupancy *occ = &c->occ;
	const struct pmu_caps *p = &c->cpu.pmu;
	char list[128], owners[512], name[128], j[800];

	if (c->error[0]) {
		/* The reason goes to stderr, where pmustat's failures go; here only which core. */
		fprintf(stderr, "pmustat state: %s\n", c->error);
		fprintf(out, "core %d: not readable\n", c->core);
		return;
	}
	fprintf(out, "core %d: %s, perfmon v%u, %u GP x %u bits, %u fixed x %u bits, events: %s\n", c->core,
		c->key, p->version, p->gp_counters, p->gp_width, p->fixed_counters, p->fixed_width,
		c->table_name[0] ? c->table_name : "architectural");
	owners_text(c, owners, sizeof(owners));
	fprintf(out, "  owner           %s\n", owners);
	counters_list(list, sizeof(list), s->global_ctrl, s->gp_mask, s->fixed_mask);
	fprintf(out, "  GLOBAL_CTRL     0x%016llx  enabled:%s\n", (unsigned long long)s->global_ctrl, list);
	counters_list(list, sizeof(list), s->global_status, s->gp_mask, s->fixed_mask);
	fprintf(out, "  GLOBAL_STATUS   0x%016llx  overflowed:%s\n", (unsigned long long)s->global_status, list);
	if (s->has_inuse) {
		counters_list(list, sizeof(list), s->global_inuse, s->gp_mask, s->fixed_mask);
		fprintf(out, "  GLOBAL_INUSE    0x%016llx  in use:%s\n", (unsigned long long)s->global_inuse, list);
	}
	if (s->fixed_mask)
		fprintf(out, "  FIXED_CTR_CTRL  0x%016llx\n", (unsigned long long)s->fixed_ctrl);
	fprintf(out, "  %-7s %-18s %20s %14s  %-30s %-14s %s\n", "counter", "control", "value",
		c->have_prev ? "per second" : "", "event", "owner", "fields");
	for (unsigned i = 0; i < PMU_MAX_FIXED; i++) {
		unsigned f = (unsigned)FIXED_CTRL_FIELD(s->fixed_ctrl, i);
		char ctl[32], r[32] = "";
		double v;

		if (!(s->fixed_mask & (1u << i)))
			continue;
		snprintf(ctl, sizeof(ctl), "field 0x%x", f);
		v = rate(c, c->prev.fixed_ctr[i], s->fixed_ctr[i], p->fixed_width, dt);
		if (v >= 0)
			snprintf(r, sizeof(r), "%.0f", v);
		fprintf(out, "  fixed%-2u %-18s %20llu %14s  %-30s %-14s %s%s%s%s%s\n", i, ctl,
			(unsigned long long)s->fixed_ctr[i], r, pmu_snapshot_fixed_event_name(c->table, i),
			pmu_owner_name(occ->fixed[i]), f ? "" : "off",
			f & FIXED_CTRL_OS ? "os " : "", f & FIXED_CTRL_USR ? "usr " : "",
			f & FIXED_CTRL_ANY ? "any " : "", f & FIXED_CTRL_PMI ? "pmi" : "");
	}
	for (unsigned i = 0; i < PMU_MAX_GP; i++) {
		struct pmu_evtsel_fields e;
		char ctl[32], r[32] = "";
		double v;

		if (!(s->gp_mask & (1u << i)))
			continue;
		pmu_evtsel_decode(s->evtsel[i], &e);
		snprintf(ctl, sizeof(ctl), "EVTSEL 0x%08llx", (unsigned long long)s->evtsel[i]);
		v = rate(c, c->prev.pmc[i], s->pmc[i], p->gp_width, dt);
		if (v >= 0)
			snprintf(r, sizeof(r), "%.0f", v);
		pmu_snapshot_event_name(c->table, s->evtsel[i], name, sizeof(name));
		fprintf(out, "  pmc%-4u %-18s %20llu %14s  %-30s %-14s ", i, ctl, (unsigned long long)s->pmc[i], r,
			name[0] ? name : "-", pmu_owner_name(occ->gp[i]));
		if (s->evtsel[i] == 0) {
			fprintf(out, "off\n");
			continue;
		}
		fprintf(out, "event=0x%02x umask=0x%02x%s%s%s%s%s%s%s%s", e.event, e.umask, e.usr ? " usr" : "",
			e.os ? " os" : "", e.edge ? " edge" : "", e.inv ? " inv" : "", e.en ? " en" : "",
			e.intr ? " int" : "", e.any ? " any" : "", e.pc ? " pc" : "");
		if (e.cmask)
			fprintf(out, " cmask=%u", e.cmask);
		if (e.umask2 || e.eq)
			fprintf(out, " umask2=0x%02x%s", e.umask2, e.eq ? " eq" : "");
		fprintf(out, "\n");
	}
	journal_text(c, j, sizeof(j));
	if (j[0])
		fprintf(out, "  journal         %s\n", j);
}

static json_t *
hex(uint64_t v)
{
	char b[24];

	snprintf(b, sizeof(b), "0x%llx", (unsigned long long)v);
	return json_string(b);
}

static json_t *
counter_names(uint64_t bits, uint32_t gp_mask, uint32_t fixed_mask)
{
	json_t *a = json_array();
	char n[16];

	for (unsigned i = 0; i < PMU_MAX_GP; i++) {
		if ((gp_mask & (1u << i)) && (bits & (1ull << i))) {
			snprintf(n, sizeof(n), "pmc%u", i);
			json_array_append_new(a, json_string(n));
		}
	}
	for (unsigned i = 0; i < PMU_MAX_FIXED; i++) {
		if ((fixed_mask & (1u << i)) && (bits & GLOBAL_FIXED_BIT(i))) {
			snprintf(n, sizeof(n), "fixed%u", i);
			json_array_append_new(a, json_string(n));
		}
	}
	return a;
}

static json_t *
json_rate(const struct state_core *c, uint64_t prev, uint64_t now, unsigned width, double dt)
{
	double v = rate(c, prev, now, width, dt);

	return v >= 0 ? json_real(v) : json_null();
}

static json_t *
core_json(const struct state_core *c, bool raw, double dt)
{
	const struct pmu_snapshot *s = &c->st;
	const struct pmu_occupancy *occ = &c->occ;
	json_t *o = json_object(), *counters, *owners, *jn;
	bool seen[PMU_OWNER_UNKNOWN + 1] = { false };
	char name[128], path[256];

	json_object_set_new(o, "core", json_integer(c->core));
	if (c->error[0]) {
		json_object_set_new(o, "error", json_text(c->error));
		return o;
	}
	json_object_set_new(o, "cpu", json_string(c->key));
	json_object_set_new(o, "event_table", c->table_name[0] ? json_string(c->table_name) : json_null());
	json_object_set_new(o, "perfmon_version", json_integer(c->cpu.pmu.version));
	json_object_set_new(o, "global_ctrl", hex(s->global_ctrl));
	json_object_set_new(o, "global_status", hex(s->global_status));
	json_object_set_new(o, "overflowed", counter_names(s->global_status, s->gp_mask, s->fixed_mask));
	json_object_set_new(o, "global_inuse", s->has_inuse ? hex(s->global_inuse) : json_null());
	json_object_set_new(o, "fixed_ctr_ctrl", s->fixed_mask ? hex(s->fixed_ctrl) : json_null());

	counters = json_array();
	for (unsigned i = 0; i < PMU_MAX_FIXED; i++) {
		unsigned f = (unsigned)FIXED_CTRL_FIELD(s->fixed_ctrl, i);
		json_t *e;
		char n[16];

		if (!(s->fixed_mask & (1u << i)))
			continue;
		snprintf(n, sizeof(n), "fixed%u", i);
		e = json_pack("{s:s, s:s, s:o, s:b, s:b, s:b, s:b, s:b, s:I, s:o, s:s, s:b, s:s}",
			      "counter", n, "kind", "fixed", "field", hex(f),
			      "os", (f & FIXED_CTRL_OS) != 0, "usr", (f & FIXED_CTRL_USR) != 0,
			      "any", (f & FIXED_CTRL_ANY) != 0, "pmi", (f & FIXED_CTRL_PMI) != 0,
			      "global_enable", (s->global_ctrl & GLOBAL_FIXED_BIT(i)) != 0,
			      "value", (json_int_t)s->fixed_ctr[i],
			      "rate", json_rate(c, c->prev.fixed_ctr[i], s->fixed_ctr[i], c->cpu.pmu.fixed_width, dt),
			      "event", pmu_snapshot_fixed_event_name(c->table, i),
			      "in_use", (occ->busy_fixed & (1u << i)) != 0,
			      "owner", pmu_owner_name(occ->fixed[i]));
		json_array_append_new(counters, e);
		seen[occ->fixed[i]] = true;
	}
	for (unsigned i = 0; i < PMU_MAX_GP; i++) {
		struct pmu_evtsel_fields f;
		json_t *e;
		char n[16];

		if (!(s->gp_mask & (1u << i)))
			continue;
		snprintf(n, sizeof(n), "pmc%u", i);
		pmu_evtsel_decode(s->evtsel[i], &f);
		pmu_snapshot_event_name(c->table, s->evtsel[i], name, sizeof(name));
		e = json_pack("{s:s, s:s, s:o, s:o, s:o, s:b, s:b, s:b, s:b, s:i, s:b, s:b, s:b, s:b}",
			      "counter", n, "kind", "gp", "evtsel", hex(s->evtsel[i]),
			      "event_select", hex(f.event), "umask", hex(f.umask),
			      "usr", f.usr, "os", f.os, "edge", f.edge, "inv", f.inv, "cmask", (int)f.cmask,
			      "en", f.en, "int", f.intr, "any", f.any, "pc", f.pc);
		json_object_set_new(e, "global_enable", json_boolean(s->global_ctrl & (1ull << i)));
		json_object_set_new(e, "value", json_integer((json_int_t)s->pmc[i]));
		json_object_set_new(e, "rate", json_rate(c, c->prev.pmc[i], s->pmc[i], c->cpu.pmu.gp_width, dt));
		json_object_set_new(e, "event", name[0] ? json_string(name) : json_null());
		json_object_set_new(e, "in_use", json_boolean(occ->busy_gp & (1u << i)));
		json_object_set_new(e, "owner", json_string(pmu_owner_name(occ->gp[i])));
		json_array_append_new(counters, e);
		seen[occ->gp[i]] = true;
	}
	owners = json_array();
	for (int k = PMU_OWNER_NMI_WATCHDOG; k <= PMU_OWNER_UNKNOWN; k++)
		if (seen[k])
			json_array_append_new(owners, json_string(pmu_owner_name((enum pmu_owner)k)));
	json_object_set_new(o, "owners", owners);
	json_object_set_new(o, "pmustat_pid", c->pm.live_pid ? json_integer(c->pm.live_pid) : json_null());
	json_object_set_new(o, "pmustat_command",
			    c->pm.live_pid ? json_text(c->live_command) : json_null());
	json_object_set_new(o, "nmi_watchdog", c->watchdog[0] ? json_string(c->watchdog) : json_null());
	json_object_set_new(o, "counters", counters);

	journal_path(JOURNAL_DIR, c->core, path, sizeof(path));
	if (c->journal_rc == -ENOENT) {
		jn = json_null();
	} else if (c->journal_rc < 0) {
		jn = json_pack("{s:s, s:s, s:o}", "path", path, "state",
			       c->journal_rc == -EBADMSG ? "corrupt" : "unreadable", "error", json_text(c->journal_err));
	} else {
		static const char *const names[] = { "live", "dead", "reused" };

		jn = json_pack("{s:s, s:s, s:I, s:i}", "path", path, "state", names[c->journal_owner],
			       "pid", (json_int_t)c->journal.pid, "registers", (int)c->journal.nregs);
	}
	json_object_set_new(o, "journal", jn);
	if (raw) {
		json_t *m = json_object();
		char k[16];

#define RAW(msr, v) do { snprintf(k, sizeof(k), "0x%x", (unsigned)(msr)); json_object_set_new(m, k, hex(v)); } while (0)
		RAW(MSR_IA32_PERF_GLOBAL_CTRL, s->global_ctrl);
		RAW(MSR_IA32_PERF_GLOBAL_STATUS, s->global_status);
		if (s->has_inuse)
			RAW(MSR_IA32_PERF_GLOBAL_INUSE, s->global_inuse);
		if (s->fixed_mask)
			RAW(MSR_IA32_FIXED_CTR_CTRL, s->fixed_ctrl);
		for (unsigned i = 0; i < PMU_MAX_FIXED; i++)
			if (s->fixed_mask & (1u << i))
				RAW(msr_fixed_ctr(i), s->fixed_ctr[i]);
		for (unsigned i = 0; i < PMU_MAX_GP; i++) {
			if (s->gp_mask & (1u << i)) {
				RAW(msr_evtsel(i), s->evtsel[i]);
				RAW(msr_pmc(i), s->pmc[i]);
			}
		}
#undef RAW
		json_object_set_new(o, "msrs", m);
	}
	return o;
}

static void
print_json(const struct state_core *cores, int n, bool raw, bool watch, double dt, const char *error)
{
	json_t *root = json_object(), *a = json_array();

	json_object_set_new(root, "format_version", json_integer(STATE_FORMAT_VERSION));
	json_object_set_new(root, "pmustat_version", json_string(PMUSTAT_VERSION));
	for (int i = 0; i < n; i++)
		json_array_append_new(a, core_json(&cores[i], raw, dt));
	json_object_set_new(root, "cores", a);
	json_object_set_new(root, "error", error ? json_text(error) : json_null());
	json_dumpf(root, stdout, watch ? JSON_COMPACT | JSON_PRESERVE_ORDER : JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', stdout);
	json_decref(root);
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	/* A signal cuts it short: state_stop then ends the loop. */
	while (!state_stop && nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

int
cmd_state(int argc, char **argv, struct pmustat_error **err)
{
	struct state_opts o;
	struct state_core *cores = NULL;
	struct hw *hw = NULL;
	char first_error[1024] = "";
	int ncpus, n = 0, status = 0, rc;
	bool *set = NULL, tty;
	double t_prev = 0;
	long frame = 0;

	rc = parse_opts(argc, argv, &o, err);
	if (rc)
		return rc > 0 ? 0 : EXIT_PMUSTAT_FAILURE;
	ncpus = get_nprocs_conf();
	if (ncpus < 1)
		ncpus = 1;
	set = calloc((size_t)ncpus, sizeof(*set));
	cores = calloc((size_t)ncpus, sizeof(*cores));
	if (!set || !cores) {
		snprintf(first_error, sizeof(first_error), "out of memory");
		goto fail;
	}
	if (o.cpus) {
		if (cpu_parse_list(o.cpus, ncpus, set, err) < 0) {
			snprintf(first_error, sizeof(first_error), "%s", err_msg(*err));
			goto fail;
		}
	} else {
		int d = cpu_default_core();

		set[d >= 0 && d < ncpus ? d : 0] = true;
	}
	hw = hw_linux_new();
	if (!hw) {
		snprintf(first_error, sizeof(first_error), "out of memory");
		goto fail;
	}
	for (int i = 0; i < ncpus; i++) {
		if (!set[i])
			continue;
		cores[n].core = i;
		cores[n].setup_ok = core_setup(hw, &cores[n], o.raw) == 0;
		if (!cores[n].setup_ok && !first_error[0])
			snprintf(first_error, sizeof(first_error), "%s", cores[n].error);
		n++;
	}

	state_stop = 0;
	if (o.watch_ms) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_stop;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
	}
	tty = isatty(STDOUT_FILENO);
	for (;;) {
		double t = now_s(), dt = t_prev ? t - t_prev : 0;

		for (int i = 0; i < n; i++) {
			if (!cores[i].setup_ok)
				continue;
			cores[i].have_prev = frame > 0 && !cores[i].error[0];
			cores[i].error[0] = '\0';
			if (core_read(hw, &cores[i]) < 0 && !first_error[0])
				snprintf(first_error, sizeof(first_error), "%s", cores[i].error);
		}
		t_prev = t;
		if (o.json) {
			print_json(cores, n, o.raw, o.watch_ms != 0, dt, first_error[0] ? first_error : NULL);
		} else {
			if (o.watch_ms && tty)
				fputs("\033[H\033[2J", stdout);
			else if (o.watch_ms && frame > 0)
				fputc('\n', stdout);
			for (int i = 0; i < n; i++) {
				if (o.raw && cores[i].error[0]) {
					fprintf(stderr, "pmustat state: %s\n", cores[i].error);
					fprintf(stdout, "core %d: not readable\n", cores[i].core);
				}
				else if (o.raw)
					print_raw(stdout, &cores[i]);
				else
					print_human(stdout, &cores[i], dt);
			}
		}
		fflush(stdout);
		frame++;
		if (!o.watch_ms || state_stop || (o.count && frame >= o.count))
			break;
		sleep_ms(o.watch_ms);
		if (state_stop)
			break;
	}
	if (first_error[0]) {
		/* The human form said each core's reason with the core already. */
		if (o.json)
			err_set(err, -EIO, "%s", first_error);
		status = EXIT_PMUSTAT_FAILURE;
	}
	goto out;
fail:
	if (!*err)
		err_set(err, -ENOMEM, "%s", first_error);
	if (o.json)
		print_json(cores, 0, false, false, 0, first_error);
	status = EXIT_PMUSTAT_FAILURE;
out:
	for (int i = 0; cores && i < n; i++)
		event_table_free(cores[i].table);
	free(cores);
	free(set);
	hw_free(hw);
	return status;
}
