/*
 * state_nb.c - `pmustat state` of a NetBurst core (state.h): its 18
 * counters, CCCRs and the ESCRs they select, read only, each enabled
 * counter decoded to its event (the NetBurst table's name and mask bits,
 * the T0/T1 USR/OS bits, the CCCR's filter) and its probable owner, by
 * the owner rule stat and reset use (pmu_owner_scan_nb(), state.c's
 * hints: the lock, the journals of the core and its HT sibling).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "base/err.h"
#include "cli/state.h"
#include "hw/hw.h"
#include "pmus/netburst/nb_family.h"
#include "pmus/netburst/nb_regs.h"
#include "pmus/netburst/nb_table.h"

int
state_nb_read(struct hw *hw, struct state_core *c)
{
	struct state_nb *nb = &c->nb;
	uint64_t v;
	int rc = hw_msr_open(hw, c->core, false);

	if (rc)
		return err_set(&c->error, rc, "core %d: cannot open the MSR device: %s; %s", c->core, strerror(-rc),
			       hw_msr_hint(rc, false));
	for (unsigned i = 0; i < NB_COUNTERS; i++) {
		rc = hw_rdmsr(hw, c->core, nb_cccr_msr(i), &nb->cccr[i]);
		if (!rc)
			rc = hw_rdmsr(hw, c->core, nb_counter_msr(i), &nb->counter[i]);
		if (rc)
			return err_set(&c->error, rc, "core %d: reading MSR_%s or MSR_%s failed: %s; %s", c->core,
				       nb_cccr_name(i), nb_counter_name(i), strerror(-rc), hw_msr_hint(rc, false));
		nb->counter[i] &= NB_COUNTER_MASK;
	}
	for (unsigned e = 0; e < NB_ESCRS; e++) {
		const struct nb_escr *x = nb_escr_get(e);

		nb->escr[e] = 0;
		if (!nb_escr_exists(e, c->cpu.model))
			continue;
		rc = hw_rdmsr(hw, c->core, x->msr, &v);
		if (rc)
			return err_set(&c->error, rc, "core %d: reading MSR_%s failed: %s; %s", c->core, x->name,
				       strerror(-rc), hw_msr_hint(rc, false));
		nb->escr[e] = v;
	}
	return 0;
}

/* The event ESCR @e's value selects, from the table: "instr_retired:NBOGUSNTAG", or "event 0x02 mask 0x0001". */
static void
event_text(const struct state_core *c, unsigned e, uint64_t escr, char *buf, size_t size)
{
	unsigned sel = NB_ESCR_GET_SELECT(escr), mask = NB_ESCR_GET_MASK(escr);
	char masks[128];

	for (size_t i = 0; c->nb_table && i < nb_table_count(c->nb_table); i++) {
		const struct nb_event_desc *d = nb_table_get(c->nb_table, i);

		if (d->event_select != sel || !(d->escrs & (1ull << e)))
			continue;
		nb_mask_names(d, (uint16_t)mask, ':', masks, sizeof(masks));
		snprintf(buf, size, "%s%s%s", d->name, masks[0] ? ":" : "", masks);
		return;
	}
	snprintf(buf, size, "event 0x%02x mask 0x%04x", sel, mask);
}

static const char *
privilege_text(uint64_t escr, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s%s%s", escr & NB_ESCR_T0_USR ? " T0_USR" : "", escr & NB_ESCR_T0_OS ? " T0_OS" : "",
		 escr & NB_ESCR_T1_USR ? " T1_USR" : "", escr & NB_ESCR_T1_OS ? " T1_OS" : "");
	return buf[0] ? buf + 1 : "none";
}

static const char *
filter_text(uint64_t cccr, char *buf, size_t size)
{
	if (!(cccr & NB_CCCR_COMPARE))
		return "none";
	snprintf(buf, size, "threshold %s %u%s", cccr & NB_CCCR_COMPLEMENT ? "<=" : ">", NB_CCCR_GET_THRESHOLD(cccr),
		 cccr & NB_CCCR_EDGE ? ", edge" : "");
	return buf;
}

/* Who probably holds counter @i: the owner rule's (pmu_owner_scan_nb(), as stat and reset read it). */
static const char *
owner_of(const struct state_core *c, unsigned i)
{
	return pmu_owner_name(c->occ.nb[i]);
}

/* The ESCR counter @i's CCCR selects, or -1. */
static int
escr_of(const struct state_core *c, unsigned i)
{
	int e = nb_escr_for(i, NB_CCCR_GET_SELECT(c->nb.cccr[i]));

	return e >= 0 && nb_escr_exists((unsigned)e, c->cpu.model) ? e : -1;
}

void
state_nb_print_human(FILE *out, const struct state_core *c)
{
	unsigned idle = 0;

	fprintf(out, "core %d: %s, NetBurst PMU, %d counters x %d bits, %u ESCRs%s, events: %s\n", c->core, c->key,
		NB_COUNTERS, NB_COUNTER_WIDTH, nb_escr_count(c->cpu.model),
		c->cpu.netburst.ht ? ", shared by the core's two threads" : "",
		c->table_name[0] ? c->table_name : "none");
	fprintf(out, "  %-14s %-10s %15s  %-11s %-34s %-12s %-20s %s\n", "counter", "CCCR", "value", "ESCR", "event",
		"counts", "filter", "owner");
	for (unsigned i = 0; i < NB_COUNTERS; i++) {
		uint64_t cccr = c->nb.cccr[i];
		int e = escr_of(c, i);
		char ev[160] = "-", priv[48], filt[48];

		if (!(c->occ.nb_busy & (1u << i))) {
			idle++;
			continue;
		}
		if (e >= 0)
			event_text(c, (unsigned)e, c->nb.escr[e], ev, sizeof(ev));
		fprintf(out, "  %-14s 0x%08llx %15llu  %-11s %-34s %-12s %-20s %s%s%s\n", nb_counter_name(i),
			(unsigned long long)cccr, (unsigned long long)c->nb.counter[i], e >= 0 ? nb_escr_get((unsigned)e)->name : "?",
			ev, e >= 0 ? privilege_text(c->nb.escr[e], priv, sizeof(priv)) : "-", filter_text(cccr, filt, sizeof(filt)),
			owner_of(c, i), cccr & NB_CCCR_OVF ? " (overflowed)" : "",
			cccr & NB_CCCR_ENABLE ? "" : " (stopped: enable clear, its ESCR armed)");
	}
	fprintf(out, "  %u of %d counters idle (CCCR enable clear, selecting no armed ESCR)\n", idle, NB_COUNTERS);
}

void
state_nb_print_raw(FILE *out, const struct state_core *c)
{
	char name[40];

	fprintf(out, "core %d\n", c->core);
	for (unsigned i = 0; i < NB_COUNTERS; i++)
		fprintf(out, "  0x%03x %-22s 0x%016llx\n", nb_cccr_msr(i), nb_msr_name(nb_cccr_msr(i), name, sizeof(name)),
			(unsigned long long)c->nb.cccr[i]);
	for (unsigned i = 0; i < NB_COUNTERS; i++)
		fprintf(out, "  0x%03x %-22s 0x%016llx\n", nb_counter_msr(i),
			nb_msr_name(nb_counter_msr(i), name, sizeof(name)), (unsigned long long)c->nb.counter[i]);
	for (unsigned e = 0; e < NB_ESCRS; e++)
		if (nb_escr_exists(e, c->cpu.model))
			fprintf(out, "  0x%03x %-22s 0x%016llx\n", nb_escr_get(e)->msr,
				nb_msr_name(nb_escr_get(e)->msr, name, sizeof(name)), (unsigned long long)c->nb.escr[e]);
}

static json_t *
hex(uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)v);
	return json_string(buf);
}

json_t *
state_nb_json(const struct state_core *c)
{
	json_t *a = json_array();

	for (unsigned i = 0; i < NB_COUNTERS; i++) {
		uint64_t cccr = c->nb.cccr[i];
		int e = escr_of(c, i);
		char ev[160] = "", priv[48], filt[48];
		json_t *o;

		if (!(c->occ.nb_busy & (1u << i)))
			continue;
		if (e >= 0)
			event_text(c, (unsigned)e, c->nb.escr[e], ev, sizeof(ev));
		o = json_pack("{s:s, s:i, s:o, s:I, s:b, s:o, s:o, s:o, s:s, s:s, s:s}", "counter", nb_counter_name(i),
			      "index", (int)i, "cccr", hex(cccr), "value", (json_int_t)c->nb.counter[i], "overflowed",
			      (cccr & NB_CCCR_OVF) != 0, "escr", e >= 0 ? json_string(nb_escr_get((unsigned)e)->name) : json_null(),
			      "escr_value", e >= 0 ? hex(c->nb.escr[e]) : json_null(), "event", e >= 0 ? json_string(ev) : json_null(),
			      "counts", e >= 0 ? privilege_text(c->nb.escr[e], priv, sizeof(priv)) : "none",
			      "filter", filter_text(cccr, filt, sizeof(filt)), "owner", owner_of(c, i));
		json_array_append_new(a, o);
	}
	return a;
}
