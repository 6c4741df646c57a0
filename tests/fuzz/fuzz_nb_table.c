/*
 * fuzz_nb_table.c - the NetBurst table loader (nb_table_load) and what
 * pmustat does with a table it accepted.
 *
 * Input: the whole file, written as fuzz.json in a private directory and
 * loaded as table "fuzz" (a valid seed says "table": "fuzz"). A table that
 * loads is walked: every event and alias is found again by name, its
 * masks by name, and each event and alias is resolved with nb_spec_parse()
 * (on models 2 and 4), so hostile selects, ESCR lists and masks reach the
 * code that turns them into ESCR and CCCR values.
 */
#include "fuzz_util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmus/netburst/nb_encode.h"
#include "pmus/netburst/nb_regs.h"
#include "pmus/netburst/nb_spec.h"
#include "pmus/netburst/nb_table.h"
#include "base/err.h"

#define RESOLVE_AT_MOST 32

static void
resolve(const struct nb_table *t, const char *name)
{
	static const struct nb_target target = { 2, true, 1 };
	struct nb_event *evs = NULL;
	size_t n = 0;
	struct pmustat_error *err = NULL;

	for (unsigned model = 2; model <= 4; model += 2) {
		err_clear(&err);
		if (nb_spec_parse(name, t, model, &evs, &n, &err) != 0) {
			if (!err_msg(err)[0] || evs)
				fuzz_fail("'%s': failed without a message", name);
			continue;
		}
		if (n != 1 || !evs[0].mask || !evs[0].escrs)
			fuzz_fail("'%s': resolved to %zu events, mask 0x%x", name, n, evs[0].mask);
		if (!nb_escr_ok(nb_escr_value(&evs[0], &target), true))
			fuzz_fail("'%s': ESCR value with a reserved bit", name);
		free(evs);
	}
	err_clear(&err);
}

static void
walk(const struct nb_table *t)
{
	char buf[256];

	if (strcmp(nb_table_name(t), "fuzz") != 0 || !nb_table_source(t))
		fuzz_fail("table name or source");
	for (size_t i = 0; i < nb_table_count(t); i++) {
		const struct nb_event_desc *d = nb_table_get(t, i);

		if (nb_table_find(t, d->name) != d)
			fuzz_fail("event %s not found by its name", d->name);
		if (!d->escrs || d->event_select > 63 || d->cccr_select > 7)
			fuzz_fail("event %s: encoding out of range", d->name);
		for (unsigned m = 0; m < d->n_masks; m++)
			if (nb_event_mask(d, d->masks[m].name) != &d->masks[m] || d->masks[m].bit > 15)
				fuzz_fail("event %s: mask %s", d->name, d->masks[m].name);
		nb_mask_names(d, 0xffff, ':', buf, sizeof(buf));
		if (i < RESOLVE_AT_MOST)
			resolve(t, d->name);
	}
	for (size_t i = 0; i < nb_table_alias_count(t) && i < RESOLVE_AT_MOST; i++) {
		const struct nb_alias *a = nb_table_alias(t, i);

		if (nb_table_find_alias(t, a->name) != a || !a->event || !a->mask)
			fuzz_fail("alias %s", a->name);
		resolve(t, a->name);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nb_table *t = NULL;
	struct pmustat_error *err = NULL;
	int ret;

	fuzz_write("fuzz.json", data, size);
	err_clear(&err);
	ret = nb_table_load(fuzz_tmpdir(), "fuzz", &t, &err);
	if (ret == 0) {
		walk(t);
		nb_table_free(t);
	} else if ((ret != -EINVAL && ret != -ENOMEM) || !err_msg(err)[0] || t) {
		fuzz_fail("load failed with %d, message '%s'", ret, err_msg(err));
	}
	err_clear(&err);
	return 0;
}
