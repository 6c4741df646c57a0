/*
 * state_print.c - the three forms of `pmustat state`: human (owner, global
 * registers, one line per counter with its event and owner), --raw (the
 * MSRs) and --json (format STATE_FORMAT_VERSION, docs/state.schema.json).
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "cli/state.h"
#include "config.h"
#include "hw/run_dir.h"
#include "pmu/delta.h"
#include "pmu/evtsel.h"
#include "pmu/msr.h"
#include "report/json_text.h"

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
		snprintf(buf, size, "%s; never applied", err_msg(c->journal_err));
	else if (c->journal_owner == JOURNAL_OWNER_LIVE)
		snprintf(buf, size, "%s: run pid %ld in progress", path, (long)c->journal.pid);
	else
		snprintf(buf, size, "%s: run pid %ld is gone, its counters may still be programmed; 'pmustat reset -C %d' restores what it saved",
			 path, (long)c->journal.pid, c->core);
}

void
state_print_raw(FILE *out, const struct state_core *c)
{
	const struct pmu_snapshot *s = &c->st;

	if (c->cpu.netburst.present) {
		state_nb_print_raw(out, c);
		return;
	}
	fprintf(out, "core %d\n", c->core);
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

void
state_print_human(FILE *out, const struct state_core *c, double dt)
{
	const struct pmu_snapshot *s = &c->st;
	const struct pmu_occupancy *occ = &c->occ;
	const struct pmu_caps *p = &c->cpu.pmu;
	char list[128], owners[512], name[128], j[800];

	if (c->error) {
		/* The reason goes to stderr, where pmustat's failures go; here only which core. */
		fprintf(stderr, "pmustat state: %s\n", err_msg(c->error));
		fprintf(out, "core %d: not readable\n", c->core);
		return;
	}
	if (c->cpu.netburst.present) {
		state_nb_print_human(out, c);
		journal_text(c, j, sizeof(j));
		fprintf(out, "  journal         %s\n", j);
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
	if (c->error) {
		json_object_set_new(o, "error", json_text(err_msg(c->error)));
		return o;
	}
	json_object_set_new(o, "cpu", json_string(c->key));
	json_object_set_new(o, "event_table", c->table_name[0] ? json_string(c->table_name) : json_null());
	if (c->cpu.netburst.present) {
		json_object_set_new(o, "pmu", json_string("netburst"));
		json_object_set_new(o, "netburst", state_nb_json(c));
		return o;
	}
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
			       c->journal_rc == -EBADMSG ? "corrupt" : "unreadable", "error", json_text(err_msg(c->journal_err)));
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

void
state_print_json(const struct state_core *cores, int n, bool raw, bool watch, double dt, const char *error)
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
