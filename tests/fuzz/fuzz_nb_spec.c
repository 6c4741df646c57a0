/*
 * fuzz_nb_spec.c - the -e grammar on a NetBurst CPU (nb_spec_parse), and
 * what follows a successful parse: scheduling (nb_sched_plan) and the
 * writes of every run (nb_encode_run).
 *
 * Input: byte 0 picks the context: bit 0 the model (2, Northwood, or 4,
 * Prescott), bit 1 Hyper-Threading, bit 2 the thread, bits 7:3 which
 * counters are busy (a pattern over the 18). The rest is what the user
 * typed. Seeds start with a printable selector, e.g. "Acycles:k".
 *
 * Checked beyond "no crash": every error has a message; every event can
 * be counted (a mask bit, an ESCR, user or kernel); every plan puts each
 * event once, one per ESCR and counter in a run, on a counter its ESCR
 * feeds; every write is to an allow-listed MSR with no reserved bit set.
 */
#include "fuzz_util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pmus/netburst/nb_encode.h"
#include "pmus/netburst/nb_regs.h"
#include "pmus/netburst/nb_sched.h"
#include "pmus/netburst/nb_spec.h"
#include "pmus/netburst/nb_table.h"
#include "base/err.h"

static struct nb_table *table;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct pmustat_error *err = NULL;

	(void)argc;
	(void)argv;
	if (nb_table_load(fuzz_events_dir(), "netburst", &table, &err) != 0)
		fuzz_fail("cannot load the netburst table: %s", err_msg(err));
	err_clear(&err);
	return 0;
}

static void
check_plan(const struct nb_event *ev, size_t n, const struct nb_slot *s, unsigned runs,
	   const struct nb_target *target, uint32_t counters_free)
{
	struct pmustat_error *err = NULL;
	for (size_t i = 0; i < n; i++) {
		if (s[i].run >= runs || !(ev[i].escrs & (1ull << s[i].escr)) ||
		    !nb_escr_exists(s[i].escr, target->model) ||
		    !(nb_escr_get(s[i].escr)->counters & counters_free & (1u << s[i].counter)))
			fuzz_fail("event %zu placed on ESCR %u counter %u run %u", i, s[i].escr,
				  s[i].counter, s[i].run);
		for (size_t j = 0; j < i; j++)
			if (s[j].run == s[i].run && (s[j].escr == s[i].escr || s[j].counter == s[i].counter))
				fuzz_fail("events %zu and %zu share an ESCR or counter", j, i);
	}
	for (unsigned r = 0; r < runs; r++) {
		struct nb_run_writes w;
		err_clear(&err);

		if (nb_encode_run(ev, s, (unsigned)n, r, target, &w, &err) != 0)
			fuzz_fail("run %u of a plan does not encode: %s", r, err_msg(err));
		for (unsigned i = 0; i < w.n_program; i++)
			if (!nb_msr_allowed(w.program[i].msr, target->model))
				fuzz_fail("write to MSR 0x%x", w.program[i].msr);
		for (unsigned i = 0; i < w.n_enable; i++)
			if (!nb_cccr_ok(w.enable[i].value, target->ht))
				fuzz_fail("CCCR value 0x%llx", (unsigned long long)w.enable[i].value);
		err_clear(&err);
	}
	err_clear(&err);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nb_target target;
	struct nb_event *evs = NULL;
	struct nb_slot slots[SCHED_MAX_EVENTS];
	uint32_t counters_free;
	unsigned runs, bad;
	size_t n = 0;
	struct pmustat_error *err = NULL;
	char *text;
	int ret;

	if (size < 1)
		return 0;
	target.model = data[0] & 1 ? 4 : 2;
	target.ht = data[0] & 2;
	target.thread = target.ht && (data[0] & 4);
	counters_free = ((1u << NB_COUNTERS) - 1) & ~((uint32_t)(data[0] >> 3) * 0x2493u);
	text = fuzz_strndup(data + 1, size - 1);

	err_clear(&err);
	ret = nb_spec_parse(text, table, target.model, &evs, &n, &err);
	if (ret) {
		if ((ret != -EINVAL && ret != -ENOMEM) || !err_msg(err)[0] || evs || n)
			fuzz_fail("error %d, message '%s'", ret, err_msg(err));
		free(text);
		err_clear(&err);
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		if (!memchr(evs[i].name, '\0', sizeof(evs[i].name)) || !evs[i].name[0] ||
		    !evs[i].mask || !evs[i].escrs || (!evs[i].usr && !evs[i].os) ||
		    evs[i].threshold > 15 || evs[i].event_select > 63)
			fuzz_fail("event '%s' cannot be counted as resolved", evs[i].requested);
		if ((evs[i].edge || evs[i].complement) && !evs[i].compare)
			fuzz_fail("event '%s': a filter without compare", evs[i].requested);
	}
	err_clear(&err);
	ret = nb_sched_plan(evs, (unsigned)n, target.model, counters_free, ~0ull, slots, &runs,
			    &bad, &err);
	if (ret == 0)
		check_plan(evs, n, slots, runs, &target, counters_free);
	else if ((ret != -ENOSPC && ret != -E2BIG) || !err_msg(err)[0])
		fuzz_fail("scheduling: %d '%s'", ret, err_msg(err));
	free(evs);
	free(text);
	err_clear(&err);
	return 0;
}
