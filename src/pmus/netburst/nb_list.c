/*
 * nb_list.c - the NetBurst table as `pmustat list` shows it (see nb_list.h).
 */
#include "pmus/netburst/nb_list.h"

#include <stdint.h>
#include <string.h>

#include "pmus/netburst/nb_regs.h"
#include "pmus/netburst/nb_table.h"

static bool
event_selected(const struct nb_event_desc *d, const char *pattern, nb_list_match_fn match)
{
	return match(pattern, d->name) || match(pattern, d->description);
}

static bool
alias_selected(const struct nb_alias *a, const char *pattern, nb_list_match_fn match)
{
	return match(pattern, a->name) || match(pattern, a->target) || match(pattern, a->description);
}

static void
format_counters(uint32_t counters, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (unsigned c = 0; c < NB_COUNTERS && len < size; c++)
		if (counters & (1u << c))
			len += (size_t)snprintf(buf + len, size - len, "%s%u", len ? "," : "", c);
}

static void
print_long(FILE *out, const struct nb_event_desc *d)
{
	char ctr[64];
	bool first = true;

	fprintf(out, "        ESCR event select 0x%02x, CCCR ESCR select %u, on", d->event_select,
		d->cccr_select);
	for (unsigned i = 0; i < NB_ESCRS; i++) {
		const struct nb_escr *x = nb_escr_get(i);

		if (!(d->escrs & (1ull << i)))
			continue;
		format_counters(x->counters, ctr, sizeof(ctr));
		fprintf(out, "%s %s (0x%x: counters %s)", first ? "" : ",", x->name, x->msr, ctr);
		first = false;
	}
	fputc('\n', out);
	for (unsigned i = 0; i < d->n_masks; i++) {
		const struct nb_mask *m = &d->masks[i];

		fprintf(out, "        :%-16s bit %2u%s  %s\n", m->name, m->bit,
			(d->default_mask & (1u << m->bit)) ? ", default" : "         ", m->description);
	}
	if (!d->default_mask)
		fprintf(out, "        no default mask: name at least one\n");
	if (d->models) {
		fprintf(out, "        only on models");
		for (unsigned m = 0; m < 16; m++)
			if (d->models & (1u << m))
				fprintf(out, " %u", m);
		fputc('\n', out);
	}
	if (d->needs_tagging)
		fprintf(out, "        needs at-retirement tagging: pmustat cannot count it\n");
	if (d->thread_independent)
		fprintf(out, "        thread-independent: with Hyper-Threading it counts both threads' events\n");
	if (d->note)
		fprintf(out, "        note: %s\n", d->note);
}

unsigned
nb_list_text(FILE *out, const struct nb_table *t, const char *pattern, nb_list_match_fn match,
	     bool long_format)
{
	unsigned shown = 0, aliases = 0;

	fprintf(out, "Events of table %s (NetBurst ESCR/CCCR PMU; from the %s):\n", nb_table_name(t),
		nb_table_source(t));
	for (size_t i = 0; i < nb_table_count(t); i++) {
		const struct nb_event_desc *d = nb_table_get(t, i);

		if (!event_selected(d, pattern, match))
			continue;
		fprintf(out, "  %s\n        %s\n", d->name, d->description);
		if (long_format)
			print_long(out, d);
		shown++;
	}
	if (!shown)
		fprintf(out, "  (no event matches '%s')\n", pattern);
	for (size_t i = 0; i < nb_table_alias_count(t); i++) {
		const struct nb_alias *a = nb_table_alias(t, i);

		if (!alias_selected(a, pattern, match))
			continue;
		if (!aliases++)
			fprintf(out, "\nAliases (NetBurst has no architectural events; these count the nearest equivalent):\n");
		fprintf(out, "  %-24s %s\n", a->name, a->target);
		if (long_format)
			fprintf(out, "        %s\n", a->description);
	}
	return shown + aliases;
}

static json_t *
escrs_json(const struct nb_event_desc *d)
{
	json_t *arr = json_array();

	for (unsigned i = 0; i < NB_ESCRS; i++) {
		const struct nb_escr *x = nb_escr_get(i);
		json_t *ctr = json_array();

		if (!(d->escrs & (1ull << i))) {
			json_decref(ctr);
			continue;
		}
		for (unsigned c = 0; c < NB_COUNTERS; c++)
			if (x->counters & (1u << c))
				json_array_append_new(ctr, json_integer(c));
		json_array_append_new(arr, json_pack("{s:s, s:i, s:o}", "name", x->name,
						     "msr", (json_int_t)x->msr, "counters", ctr));
	}
	return arr;
}

static json_t *
event_json(const struct nb_event_desc *d)
{
	json_t *o, *masks = json_array(), *models = json_null();

	for (unsigned i = 0; i < d->n_masks; i++)
		json_array_append_new(masks, json_pack("{s:s, s:i, s:b, s:s}",
			"name", d->masks[i].name, "bit", (int)d->masks[i].bit,
			"default", (d->default_mask >> d->masks[i].bit) & 1,
			"description", d->masks[i].description));
	if (d->models) {
		models = json_array();
		for (unsigned m = 0; m < 16; m++)
			if (d->models & (1u << m))
				json_array_append_new(models, json_integer(m));
	}
	o = json_pack("{s:s, s:i, s:i, s:o, s:o, s:i, s:b, s:b, s:o}",
		      "name", d->name, "event_select", (int)d->event_select,
		      "cccr_select", (int)d->cccr_select, "escrs", escrs_json(d),
		      "masks", masks, "default_mask", (int)d->default_mask,
		      "at_retirement", d->at_retirement, "needs_tagging", d->needs_tagging,
		      "models", models);
	json_object_set_new(o, "note", d->note ? json_string(d->note) : json_null());
	json_object_set_new(o, "description", json_string(d->description));
	return o;
}

void
nb_list_json(json_t *root, const struct nb_table *t, const char *pattern, nb_list_match_fn match)
{
	json_t *events = json_array(), *aliases = json_array();

	for (size_t i = 0; i < nb_table_count(t); i++)
		if (event_selected(nb_table_get(t, i), pattern, match))
			json_array_append_new(events, event_json(nb_table_get(t, i)));
	for (size_t i = 0; i < nb_table_alias_count(t); i++) {
		const struct nb_alias *a = nb_table_alias(t, i);

		if (alias_selected(a, pattern, match))
			json_array_append_new(aliases, json_pack("{s:s, s:s, s:s, s:i}",
				"name", a->name, "event", a->target, "description", a->description,
				"mask", (int)a->mask));
	}
	json_object_set_new(root, "events", events);
	json_object_set_new(root, "aliases", aliases);
}
