/*
 * nb_encode.c - ESCR and CCCR values and the writes of a run (see nb_encode.h).
 */
#include "pmus/netburst/nb_encode.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pmus/netburst/nb_sched.h"
#include "pmus/netburst/nb_spec.h"
#include "base/err.h"

uint64_t
nb_escr_value(const struct nb_event *ev, const struct nb_target *target)
{
	uint64_t v = NB_ESCR_EVENT_SELECT(ev->event_select) | NB_ESCR_EVENT_MASK(ev->mask);
	bool t1 = target->ht && target->thread == 1;

	if (ev->usr)
		v |= t1 ? NB_ESCR_T1_USR : NB_ESCR_T0_USR;
	if (ev->os)
		v |= t1 ? NB_ESCR_T1_OS : NB_ESCR_T0_OS;
	return v;
}

uint64_t
nb_cccr_value(const struct nb_event *ev, unsigned escr, bool enable)
{
	const struct nb_escr *x = nb_escr_get(escr);
	uint64_t v = NB_CCCR_REQUIRED | NB_CCCR_ESCR_SELECT(x ? x->select : 0);

	if (enable)
		v |= NB_CCCR_ENABLE;
	if (ev->compare) {
		v |= NB_CCCR_COMPARE | NB_CCCR_THRESHOLD(ev->threshold);
		if (ev->complement)
			v |= NB_CCCR_COMPLEMENT;
		if (ev->edge)
			v |= NB_CCCR_EDGE;
	}
	return v;
}

bool
nb_escr_ok(uint64_t value, bool ht)
{
	return !(value & ~nb_escr_valid_bits(ht));
}

bool
nb_cccr_ok(uint64_t value, bool ht)
{
	return !(value & ~nb_cccr_valid_bits(ht));
}

bool
nb_counter_ok(uint64_t value)
{
	return !(value & ~NB_COUNTER_MASK);
}

static void
add(struct nb_write *list, unsigned *n, uint32_t msr, uint64_t value, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static void
add(struct nb_write *list, unsigned *n, uint32_t msr, uint64_t value, const char *fmt, ...)
{
	struct nb_write *w = &list[(*n)++];
	va_list ap;

	w->msr = msr;
	w->value = value;
	va_start(ap, fmt);
	vsnprintf(w->reason, sizeof(w->reason), fmt, ap);
	va_end(ap);
}

static void
describe_filter(const struct nb_event *ev, char *buf, size_t size)
{
	if (!ev->compare) {
		snprintf(buf, size, "adds the input value each clock");
		return;
	}
	snprintf(buf, size, "compare: +1 per clock with input %s %u%s",
		 ev->complement ? "<=" : ">", ev->threshold, ev->edge ? ", rising edges only" : "");
}

/* Is slot @i of run @run possible, and alone on its ESCR and counter? */
static int
check_slot(const struct nb_event *ev, const struct nb_slot *slots, unsigned i,
	   unsigned run, const struct nb_target *target, struct pmustat_error **err)
{
	const struct nb_slot *s = &slots[i];
	const struct nb_escr *x = nb_escr_get(s->escr);

	if (!x || !nb_escr_exists(s->escr, target->model) || !(ev[i].escrs & (1ull << s->escr)) ||
	    s->counter >= NB_COUNTERS || !(x->counters & (1u << s->counter))) {
		return err_set(err, -EINVAL, "event %s cannot count on counter %u through ESCR %s",
			 ev[i].name, s->counter, x ? x->name : "?");
	}
	for (unsigned j = 0; j < i; j++) {
		if (slots[j].run != run || (slots[j].escr != s->escr && slots[j].counter != s->counter))
			continue;
		return err_set(err, -EINVAL, "events %s and %s share %s in run %u", ev[j].name, ev[i].name,
			 slots[j].escr == s->escr ? x->name : nb_counter_name(s->counter), run);
	}
	return 0;
}

int
nb_encode_run(const struct nb_event *ev, const struct nb_slot *slots, unsigned n,
	      unsigned run, const struct nb_target *target, struct nb_run_writes *out,
	      struct pmustat_error **err)
{
	memset(out, 0, sizeof(*out));
	out->run = run;
	for (unsigned i = 0; i < n; i++) {
		const struct nb_slot *s = &slots[i];
		const struct nb_escr *x;
		uint64_t escr, cccr_off, cccr_on;
		char filter[80];
		int ret;

		if (s->run != run)
			continue;
		ret = check_slot(ev, slots, i, run, target, err);
		if (ret)
			return ret;
		x = nb_escr_get(s->escr);
		escr = nb_escr_value(&ev[i], target);
		cccr_off = nb_cccr_value(&ev[i], s->escr, false);
		cccr_on = nb_cccr_value(&ev[i], s->escr, true);
		if (!nb_escr_ok(escr, target->ht) || !nb_cccr_ok(cccr_on, target->ht)) {
			return err_set(err, -EINVAL, "event %s would set a reserved bit", ev[i].name);
		}
		describe_filter(&ev[i], filter, sizeof(filter));
		add(out->program, &out->n_program, x->msr, escr,
		    "MSR_%s: %s, event select 0x%02x, mask 0x%04x, %s%s", x->name, ev[i].name,
		    ev[i].event_select, ev[i].mask, target->ht ? (target->thread ? "T1 " : "T0 ") : "",
		    ev[i].usr ? (ev[i].os ? "user+kernel" : "user") : "kernel");
		add(out->program, &out->n_program, nb_cccr_msr(s->counter), cccr_off,
		    "MSR_%s: counting off, ESCR select %u (%s), %s; %s", nb_cccr_name(s->counter),
		    x->select, x->name, target->ht ? "any thread active" : "bits 17:16 = 11b", filter);
		add(out->program, &out->n_program, nb_counter_msr(s->counter), 0,
		    "MSR_%s: zeroed", nb_counter_name(s->counter));
		add(out->enable, &out->n_enable, nb_cccr_msr(s->counter), cccr_on,
		    "MSR_%s: enable, counts %s", nb_cccr_name(s->counter), ev[i].name);
		add(out->disable, &out->n_disable, nb_cccr_msr(s->counter), cccr_off,
		    "MSR_%s: disable", nb_cccr_name(s->counter));
	}
	return 0;
}
