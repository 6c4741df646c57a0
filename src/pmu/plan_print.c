/*
 * plan_print.c - a counting plan for people (--dry-run): per run which
 * counter counts which event, then every MSR write of programming, enable
 * and disable with its reason, in the order pmustat makes them. A write of
 * a whole register reads as `wrmsr -p CORE MSR VALUE` (msr-tools' form);
 * a write of some bits or fields of a shared register names them, the rest
 * of it staying as found.
 */
#include <stdio.h>
#include <string.h>

#include "pmu/plan.h"
#include "pmu/family.h"
#include "events/cpu.h"
#include "events/event.h"
#include "pmu/pmu.h"

/* The event counted on counter @kind/@index in run @run, or -1. */
static int
event_on(const struct plan *p, unsigned run, enum sched_kind kind, unsigned index)
{
	for (unsigned k = 0; k < p->in.nevents; k++)
		if (p->slots[k].run == run && p->slots[k].kind == kind && p->slots[k].index == index)
			return (int)k;
	return -1;
}

static const char *
name_of(const char *const *names, int k)
{
	return k >= 0 ? names[k] : "?";
}

/* "0,1,33" (bit numbers) into @buf. */
static void
bits_text(uint64_t bits, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned b = 0; b < 64 && used < size; b++)
		if (bits & (1ull << b))
			used += (size_t)snprintf(buf + used, size - used, "%s%u", used ? "," : "", b);
}

/* The counters of GLOBAL_CTRL/STATUS bits @bits: "pmc0 fixed1". */
static void
counters_text(uint64_t bits, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < PMU_MAX_GP && used < size; i++)
		if (bits & (1ull << i))
			used += (size_t)snprintf(buf + used, size - used, "%spmc%u", used ? ", " : "", i);
	for (unsigned i = 0; i < PMU_MAX_FIXED && used < size; i++)
		if (bits & GLOBAL_FIXED_BIT(i))
			used += (size_t)snprintf(buf + used, size - used, "%sfixed%u", used ? ", " : "", i);
	if ((bits & GLOBAL_PERF_METRICS_BIT) && used < size)
		snprintf(buf + used, size - used, "%sIA32_PERF_METRICS", used ? ", " : "");
}

static void
print_write(const struct plan *p, unsigned run, const struct pmu_write *w, const char *step,
	    const char *const *names, FILE *out)
{
	char name[40], bits[96], who[96];
	int core = p->in.core;

	pmu_msr_name(w->msr, name, sizeof(name));
	if (w->clear_ovf) {
		bits_text(w->mask, bits, sizeof(bits));
		counters_text(w->mask, who, sizeof(who));
		fprintf(out, "    wrmsr -p %d 0x%x bits %s (those set)\t# %s: the overflow bits of %s, write 1 to clear\n",
			core, w->msr, bits, name, who);
		return;
	}
	if (w->msr == MSR_IA32_PERF_GLOBAL_CTRL) {
		bits_text(w->mask, bits, sizeof(bits));
		counters_text(w->mask, who, sizeof(who));
		fprintf(out, "    wrmsr -p %d 0x%x bits %s = %d\t# %s: %s of %s%s\n", core, w->msr, bits,
			w->value ? 1 : 0, name, w->value ? "enable" : "disable", who,
			strcmp(step, "program") == 0 ?
				(w->value ? " (EN and the fields are still clear: nothing starts)" : " (counting stays off)") :
				"");
		return;
	}
	if (w->msr == MSR_IA32_FIXED_CTR_CTRL) {
		char fields[96] = "", why[256] = "";
		size_t fu = 0, wu = 0;

		for (unsigned i = 0; i < PMU_MAX_FIXED; i++) {
			uint64_t f = 0xfull << (4 * i);
			unsigned v = (unsigned)FIXED_CTRL_FIELD(w->value, i);

			if (!(w->mask & f))
				continue;
			if (w->found & f) {
				fu += (size_t)snprintf(fields + fu, sizeof(fields) - fu, " field%u as found", i);
				wu += (size_t)snprintf(why + wu, sizeof(why) - wu, "%sfixed%u not used in run %u",
						       wu ? ", " : "", i, run + 1);
				continue;
			}
			fu += (size_t)snprintf(fields + fu, sizeof(fields) - fu, " field%u=0x%x", i, v);
			wu += (size_t)snprintf(why + wu, sizeof(why) - wu, "%s%s on fixed%u%s", wu ? ", " : "",
					       name_of(names, event_on(p, run, SCHED_FIXED, i)), i, v ? "" : " (off)");
		}
		fprintf(out, "    wrmsr -p %d 0x%x%s (the other fields as they are)\t# %s: %s\n", core, w->msr, fields,
			name, why);
		return;
	}
	for (unsigned i = 0; i < PMU_MAX_GP; i++) {
		if (w->msr == msr_evtsel(i) && w->found) {
			fprintf(out, "    wrmsr -p %d 0x%x as found\t# %s: pmc%u is not used in run %u\n", core, w->msr,
				name, i, run + 1);
			return;
		}
		if (w->msr == msr_evtsel(i)) {
			fprintf(out, "    wrmsr -p %d 0x%x 0x%llx\t# %s: %s on pmc%u%s\n", core, w->msr,
				(unsigned long long)w->value, name, name_of(names, event_on(p, run, SCHED_GP, i)), i,
				(w->value & EVTSEL_EN) ? ", EN set" : "");
			return;
		}
		if (w->msr == msr_pmc(i)) {
			fprintf(out, "    wrmsr -p %d 0x%x 0x%llx\t# %s (or IA32_A_PMC%u): %s counts from 0\n", core,
				w->msr, (unsigned long long)w->value, name, i,
				name_of(names, event_on(p, run, SCHED_GP, i)));
			return;
		}
	}
	for (unsigned i = 0; i < PMU_MAX_FIXED; i++) {
		if (w->msr == msr_fixed_ctr(i)) {
			fprintf(out, "    wrmsr -p %d 0x%x 0x%llx\t# %s: %s counts from 0\n", core, w->msr,
				(unsigned long long)w->value, name, name_of(names, event_on(p, run, SCHED_FIXED, i)));
			return;
		}
	}
	if (w->msr == MSR_IA32_PERF_METRICS) {
		fprintf(out, "    wrmsr -p %d 0x%x 0x%llx\t# %s: the top-down fractions of fixed3's slots, cleared after it (SDM)\n",
			core, w->msr, (unsigned long long)w->value, name);
		return;
	}
	fprintf(out, "    wrmsr -p %d 0x%x 0x%llx\t# %s: the offcore response of this run's events\n", core, w->msr,
		(unsigned long long)w->value, name);
}

static void
print_header(const struct plan *p, const char *cpu, FILE *out)
{
	const struct plan_input *in = &p->in;
	const struct pmu_caps *c = in->caps;

	fprintf(out, "pmustat: counting plan for core %d (%s): %u event%s, %u run%s of the command\n", in->core,
		cpu, in->nevents, in->nevents == 1 ? "" : "s", p->nruns, p->nruns == 1 ? "" : "s");
	fprintf(out, "  PMU: perfmon v%u, %u general-purpose counters x %u bits, %u fixed x %u bits\n", c->version,
		c->gp_counters, c->gp_width, c->fixed_counters, c->fixed_width);
	if (in->kernel_counts) {
		fprintf(out, "  counters: the kernel's to assign (backend perf); the runs are batches of what fits\n");
	} else if (in->occupancy_assumed) {
		fprintf(out, "  counters in use: not read (%s): all assumed free\n",
			in->assumed_why ? in->assumed_why : "no MSR access");
	} else if (in->occ.busy_gp | in->occ.busy_fixed) {
		for (unsigned i = 0; i < PMU_MAX_FIXED; i++)
			if (in->occ.busy_fixed & (1u << i))
				fprintf(out, "  in use: fixed%u (field 0x%x): %s%s\n", i, in->occ.field[i],
					pmu_owner_who(in->occ.fixed[i]), p->taken_fixed & (1u << i) ? "; taken (--force)" : "");
		for (unsigned i = 0; i < PMU_MAX_GP; i++)
			if (in->occ.busy_gp & (1u << i))
				fprintf(out, "  in use: pmc%u (IA32_PERFEVTSEL%u = 0x%llx): %s%s\n", i, i,
					(unsigned long long)in->occ.evtsel[i], pmu_owner_who(in->occ.gp[i]),
					p->taken_gp & (1u << i) ? "; taken (--force)" : "");
	} else {
		fprintf(out, "  counters in use: none\n");
	}
	if (!in->kernel_counts)
		fprintf(out, "  IA32_PERF_GLOBAL_CTRL %s: 0x%llx\n",
			in->global_ctrl_assumed ? "assumed as at power-up (every general-purpose enable set)" : "as found",
			(unsigned long long)in->global_ctrl);
}

void
plan_print(const struct plan *p, const char *cpu, const char *const *names, FILE *out)
{
	if (p->in.caps->family && p->in.caps->family->plan_print) {
		p->in.caps->family->plan_print(p, cpu, names, out);
		return;
	}
	print_header(p, cpu, out);
	for (unsigned r = 0; r < p->nruns; r++) {
		const struct pmu_program *prog = &p->runs[r];
		char counter[16], note[160];

		fprintf(out, "run %u of %u:\n", r + 1, p->nruns);
		for (unsigned k = 0; k < p->in.nevents; k++) {
			if (p->slots[k].run != r)
				continue;
			plan_counter_name(p, k, counter, sizeof(counter));
			plan_event_note(p, k, note, sizeof(note));
			fprintf(out, "  %-32s %-7s%s%s%s\n", names[k], counter, note[0] ? " (" : "", note,
				note[0] ? ")" : "");
		}
		if (p->in.kernel_counts)
			continue;
		fprintf(out, "  program, counting off:\n");
		for (unsigned i = 0; i < prog->nprogram; i++)
			print_write(p, r, &prog->program[i], "program", names, out);
		fprintf(out, "  enable (%s), in the child right before execve; the last write starts the counting:\n",
			prog->mode == PMU_ENABLE_GLOBAL ? "IA32_PERF_GLOBAL_CTRL" : "per counter: their IA32_PERF_GLOBAL_CTRL bits are set already");
		for (unsigned i = 0; i < prog->nenable; i++)
			print_write(p, r, &prog->enable[i], "enable", names, out);
		fprintf(out, "  disable when the command ends:\n");
		for (unsigned i = 0; i < prog->ndisable; i++)
			print_write(p, r, &prog->disable[i], "disable", names, out);
		fprintf(out, "  read: the counters above (rdpmc, or MSR reads) and IA32_PERF_GLOBAL_STATUS; clear our overflow bits\n");
	}
	if (!p->in.kernel_counts)
		fprintf(out, "restore: every register written back to the value found, IA32_PERF_GLOBAL_CTRL first\n");
}
