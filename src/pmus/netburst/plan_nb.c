/*
 * plan_nb.c - see plan_nb.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "pmu/plan.h"
#include "pmus/netburst/plan_nb.h"
#include "events/cpu.h"
#include "events/event.h"
#include "pmus/netburst/nb_encode.h"
#include "pmus/netburst/nb_sched.h"
#include "pmus/netburst/nb_spec.h"

uint64_t
plan_nb_escrs_alone(const struct pmu_occupancy *occ)
{
	uint64_t escrs = occ->nb_busy_escrs;

	for (unsigned i = 0; i < NB_COUNTERS; i++) {
		int x = nb_escr_for(i, NB_CCCR_GET_SELECT(occ->nb_cccr[i]));

		if ((occ->nb_busy & (1u << i)) && x >= 0)
			escrs &= ~(1ull << x);
	}
	return escrs;
}

void
plan_nb_describe_busy(const struct pmu_occupancy *occ, unsigned i, char *buf, size_t size)
{
	const struct nb_escr *x = nb_escr_get((unsigned)nb_escr_for(i, NB_CCCR_GET_SELECT(occ->nb_cccr[i])));

	if (occ->nb_cccr[i] & NB_CCCR_ENABLE)
		snprintf(buf, size, "%s (MSR_%s = 0x%llx, enabled)", nb_counter_name(i), nb_cccr_name(i),
			 (unsigned long long)occ->nb_cccr[i]);
	else
		snprintf(buf, size, "%s (MSR_%s = 0x%llx, stopped: disabled, selecting the armed %s)",
			 nb_counter_name(i), nb_cccr_name(i), (unsigned long long)occ->nb_cccr[i], x ? x->name : "?");
}

void
plan_nb_describe_escr(const struct pmu_occupancy *occ, unsigned e, char *buf, size_t size)
{
	const struct nb_escr *x = nb_escr_get(e);

	snprintf(buf, size, "%s (MSR_%s = 0x%llx, armed: USR/OS or tag bits set, though no enabled CCCR selects it)",
		 x ? x->name : "?", x ? x->name : "?", (unsigned long long)occ->nb_escr[e]);
}

/* "IQ_COUNTER0 (MSR_IQ_CCCR0 = 0x..., enabled), CRU_ESCR1 (...)": who holds what, for a refusal. */
/* The plan's per-run writes with their reasons (plan.h's family_runs). */
static struct nb_run_writes *
nb_runs(const struct plan *p)
{
	return p->family_runs;
}

static void
busy_text(const struct plan_input *in, char *buf, size_t size)
{
	uint64_t alone = plan_nb_escrs_alone(&in->occ);
	size_t used = 0;
	char one[256];

	buf[0] = '\0';
	for (unsigned i = 0; i < NB_COUNTERS + NB_ESCRS && used < size; i++) {
		if (i < NB_COUNTERS && (in->occ.nb_busy & (1u << i)))
			plan_nb_describe_busy(&in->occ, i, one, sizeof(one));
		else if (i >= NB_COUNTERS && (alone & (1ull << (i - NB_COUNTERS))))
			plan_nb_describe_escr(&in->occ, i - NB_COUNTERS, one, sizeof(one));
		else
			continue;
		used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? ", " : "", one);
	}
}

/* A run's writes as the pmu layer's program: whole registers, nothing kept as found. */
static void
to_program(const struct nb_run_writes *w, const struct sched_slot *slots, unsigned n, unsigned run,
	   struct pmu_program *prog)
{
	memset(prog, 0, sizeof(*prog));
	prog->run = run;
	prog->mode = PMU_ENABLE_PER_COUNTER;
	for (unsigned k = 0; k < n; k++)
		if (slots[k].run == run && slots[k].kind == SCHED_NB)
			prog->nb |= 1u << slots[k].index;
	for (unsigned i = 0; i < w->n_program && prog->nprogram < PMU_PROGRAM_MAX; i++)
		prog->program[prog->nprogram++] = (struct pmu_write){ w->program[i].msr, UINT64_MAX,
								      w->program[i].value, 0, false };
	for (unsigned i = 0; i < w->n_enable && prog->nenable < PMU_SEQ_MAX; i++)
		prog->enable[prog->nenable++] = (struct pmu_write){ w->enable[i].msr, UINT64_MAX,
								    w->enable[i].value, 0, false };
	for (unsigned i = 0; i < w->n_disable && prog->ndisable < PMU_SEQ_MAX; i++)
		prog->disable[prog->ndisable++] = (struct pmu_write){ w->disable[i].msr, UINT64_MAX,
								      w->disable[i].value, 0, false };
}

int
plan_nb_make(struct plan *p, struct pmustat_error **err)
{
	const struct plan_input *in = &p->in;
	const struct pmu_caps *caps = in->caps;
	struct nb_target target = { caps->nb_model, caps->nb_ht, caps->nb_ht ? caps->nb_thread : 0 };
	uint32_t counters_free = ((1u << NB_COUNTERS) - 1) & ~in->occ.nb_busy & ~in->avoid_nb;
	uint64_t escrs_free = ~in->occ.nb_busy_escrs;
	struct nb_event *ev;
	struct nb_slot *ns;
	unsigned *of, n = 0, bad = 0;
	char busy[2048];
	int rc;

	ev = calloc(in->nevents ? in->nevents : 1, sizeof(*ev));
	ns = calloc(in->nevents ? in->nevents : 1, sizeof(*ns));
	of = calloc(in->nevents ? in->nevents : 1, sizeof(*of));
	if (!ev || !ns || !of) {
		free(ev);
		free(ns);
		free(of);
		return err_set(err, -ENOMEM, "out of memory");
	}
	for (unsigned k = 0; k < in->nevents; k++)
		nb_event_from_event(&in->events[k], &ev[k]);
	p->nruns = 0;
	rc = in->nevents ? nb_sched_plan(ev, in->nevents, caps->nb_model, counters_free, escrs_free, ns, &p->nruns,
					 &bad, err) : 0;
	/* The sibling's half, only preferred while it is not counted: an event that fits only there takes it. */
	if (rc == -ENOSPC && in->avoid_nb && in->avoid_nb_soft) {
		err_clear(err);
		counters_free |= in->avoid_nb & ~in->occ.nb_busy;
		rc = nb_sched_plan(ev, in->nevents, caps->nb_model, counters_free, escrs_free, ns, &p->nruns, &bad, err);
	}
	/*
	 * The events the sibling thread counts for both (core_wide_on_sibling)
	 * are placed as there, so that both threads have the same runs, but
	 * not programmed here: @ev and @ns keep the others, in order.
	 */
	for (unsigned k = 0; rc == 0 && k < in->nevents; k++) {
		if (in->core_wide_on_sibling && (in->events[k].flags & EVENT_F_CORE_WIDE)) {
			p->slots[k] = (struct sched_slot){ SCHED_NONE, 0, ns[k].run, 0 };
			continue;
		}
		of[n] = k;
		ev[n] = ev[k];
		ns[n++] = ns[k];
	}
	if (rc == -ENOSPC && (in->occ.nb_busy || in->occ.nb_busy_escrs)) {
		busy_text(in, busy, sizeof(busy));
		rc = err_set(err, -ENOSPC,
			     "core %d: counters busy: %s. In use by another user: %s. Stop that user or pick another core with -C (pmustat never takes a NetBurst counter or ESCR another user holds)",
			     in->core, err_msg(*err), busy);
	} else if (rc < 0) {
		rc = err_set(err, rc, "core %d: %s", in->core, err_msg(*err));
	}
	if (rc == -ENOSPC && in->avoid_nb && !in->avoid_nb_soft)
		err_append(err, "; its Hyper-Threading sibling is counted too, and the two threads share the ESCRs and counters: each counts on its own half (thread 0 the ESCR0s' counters, thread 1 the ESCR1s'), so count fewer events, or one thread of the core per run");
	if (rc == 0 && p->nruns > 1 && in->no_rerun)
		rc = err_set(err, -E2BIG,
			     "core %d: the %u events need %u runs of the command (two events on one ESCR, or more than its counters) and --no-rerun forbids that; count fewer events",
			     in->core, in->nevents, p->nruns);
	if (rc == 0) {
		p->runs = calloc(p->nruns ? p->nruns : 1, sizeof(*p->runs));
		p->family_runs = calloc(p->nruns ? p->nruns : 1, sizeof(struct nb_run_writes));
		if (!p->runs || !p->family_runs)
			rc = err_set(err, -ENOMEM, "out of memory");
	}
	for (unsigned j = 0; rc == 0 && j < n; j++)
		p->slots[of[j]] = (struct sched_slot){ SCHED_NB, ns[j].counter, ns[j].run, ns[j].escr };
	for (unsigned r = 0; rc == 0 && r < p->nruns; r++) {
		rc = nb_encode_run(ev, ns, n, r, &target, nb_runs(p) + r, err);
		if (rc == 0)
			to_program(nb_runs(p) + r, p->slots, in->nevents, r, &p->runs[r]);
	}
	free(ev);
	free(ns);
	free(of);
	return rc;
}

static void
print_writes(const struct plan *p, const struct nb_write *w, unsigned n, FILE *out)
{
	for (unsigned i = 0; i < n; i++)
		fprintf(out, "    wrmsr -p %d 0x%x 0x%llx\t# %s\n", p->in.core, w[i].msr, (unsigned long long)w[i].value,
			w[i].reason);
}

void
plan_nb_print(const struct plan *p, const char *cpu, const char *const *names, FILE *out)
{
	const struct plan_input *in = &p->in;
	const struct pmu_caps *c = in->caps;

	fprintf(out, "pmustat: counting plan for core %d (%s): %u event%s, %u run%s of the command\n", in->core,
		cpu, in->nevents, in->nevents == 1 ? "" : "s", p->nruns, p->nruns == 1 ? "" : "s");
	fprintf(out, "  PMU: NetBurst, %d counters x %d bits, %u ESCRs (model %u)%s\n", NB_COUNTERS,
		NB_COUNTER_WIDTH, nb_escr_count(c->nb_model), c->nb_model,
		c->nb_ht ? (c->nb_thread ? ", Hyper-Threading: logical processor 1 (T1 bits)"
					 : ", Hyper-Threading: logical processor 0 (T0 bits)")
			 : "");
	if (in->occupancy_assumed) {
		fprintf(out, "  counters in use: not read (%s): all assumed free\n",
			in->assumed_why ? in->assumed_why : "no MSR access");
	} else if (in->occ.nb_busy || in->occ.nb_busy_escrs) {
		uint64_t alone = plan_nb_escrs_alone(&in->occ);
		char one[256];

		for (unsigned i = 0; i < NB_COUNTERS; i++) {
			if (!(in->occ.nb_busy & (1u << i)))
				continue;
			plan_nb_describe_busy(&in->occ, i, one, sizeof(one));
			fprintf(out, "  in use: %s: another user's\n", one);
		}
		for (unsigned e = 0; e < NB_ESCRS; e++) {
			if (!(alone & (1ull << e)))
				continue;
			plan_nb_describe_escr(&in->occ, e, one, sizeof(one));
			fprintf(out, "  in use: %s: another user's\n", one);
		}
	} else {
		fprintf(out, "  counters in use: none\n");
	}
	for (unsigned r = 0; r < p->nruns; r++) {
		const struct nb_run_writes *w = nb_runs(p) + r;

		fprintf(out, "run %u of %u:\n", r + 1, p->nruns);
		for (unsigned k = 0; k < in->nevents; k++) {
			const struct sched_slot *s = &p->slots[k];
			const struct nb_escr *x = nb_escr_get(s->escr);

			if (s->kind == SCHED_NONE && s->run == r && in->core_wide_on_sibling)
				fprintf(out, "  %-32s counted on core %d for both Hyper-Threading threads (thread-independent)\n",
					names[k], in->sibling_core);
			else if (s->run == r && s->kind == SCHED_NB)
				fprintf(out, "  %-32s %s via %s\n", names[k], nb_counter_name(s->index), x ? x->name : "?");
		}
		fprintf(out, "  program, counting off:\n");
		print_writes(p, w->program, w->n_program, out);
		fprintf(out, "  enable (the CCCRs' enable bits), in the child right before execve; the last write starts the last counter:\n");
		print_writes(p, w->enable, w->n_enable, out);
		fprintf(out, "  disable when the command ends:\n");
		print_writes(p, w->disable, w->n_disable, out);
		fprintf(out, "  read: the counters above (rdpmc, or MSR reads) and their CCCRs' OVF flags (40-bit wraps); clear the flags\n");
	}
	fprintf(out, "restore: every register written back to the value found, the CCCRs first\n");
}
