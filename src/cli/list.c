/*
 * cmd_list.c - `pmustat list`: the events of this CPU's table (or of a
 * dumped CPU's, or of any table by name), filtered by a pattern, as text or
 * JSON. Reads CPUID only; never touches MSRs.
 */
#include "base/text.h"
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events/arch_events.h"
#include "events/sw_events.h"
#include "base/err.h"
#include "cli/cli.h"
#include "events/cpu.h"
#include "pmu/family.h"
#include "engine/target.h"
#include "events/data_dir.h"
#include "events/event_table.h"
#include "events/generic_events.h"
#include "base/exit_codes.h"
#include "hw/hw.h"
#include "cli/list_metrics.h"
#include "cli/list_tables.h"

#define LIST_FORMAT_VERSION 1

struct list_opts {
	const char *pattern;
	bool long_format;
	bool json;
	const char *cpu_dump;
	const char *table;
	int cpu;
	bool metrics;
	bool tables;
};

/* What is being listed: a table (architectural or a family's own), and/or the CPU it was chosen for. */
struct listing {
	struct event_table *table;
	const struct pmu_family *family;	/* with family_table: whose table it is */
	void *family_table;
	bool have_cpu;
	struct cpu_info cpu;
	int cpu_index;
	char metrics[MAPFILE_NAME_MAX + 1];	/* the CPU's metric table, or "" */
	char no_metrics[1100];			/* why there is none */
};

static void
list_usage(FILE *out)
{
	fprintf(out,
		"usage: pmustat list [PATTERN] [--metrics] [--long] [--json] [--cpu-dump FILE | --table NAME] [-C N]\n"
		"       pmustat list --tables [PATTERN] [--json]\n"
		"\n"
		"  PATTERN            a substring (any case) or a glob of names and descriptions;\n"
		"                     common synonyms match too (llc finds the L3 events); several\n"
		"                     words ('L2 miss', or l2 miss) match where each word is found\n"
		"  -l, --long         encodings, counters, restrictions\n"
		"      --json         one JSON object\n"
		"      --metrics      Intel's TMA and Info metrics instead of the events\n"
		"      --table NAME   any table by name instead of this CPU's\n"
		"      --tables       the tables pmustat has, and the CPUs each is for\n"
		"      --cpu-dump FILE  the table of the CPU of a libcpuid raw dump\n"
		"  -C, --cpu N        the table of CPU N (hybrids: its core type)\n");
}

#define LIST_PROG "pmustat list"
#define LIST_OPTSTRING "lC:h"

/* 0, 1 for --help (printed), or -EINVAL with the usage error. */
static int
parse_opts(int argc, char **argv, struct list_opts *o, struct pmustat_error **err)
{
	static const struct option longopts[] = {
		{ "long", no_argument, NULL, 'l' },
		{ "json", no_argument, NULL, 'j' },
		{ "cpu-dump", required_argument, NULL, 'd' },
		{ "table", required_argument, NULL, 't' },
		{ "metrics", no_argument, NULL, 'm' },
		{ "tables", no_argument, NULL, 'T' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	o->cpu = -1;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, LIST_OPTSTRING, longopts, NULL)) != -1) {
		switch (c) {
		case 'l':
			o->long_format = true;
			break;
		case 'j':
			o->json = true;
			break;
		case 'd':
			o->cpu_dump = optarg;
			break;
		case 't':
			o->table = optarg;
			break;
		case 'm':
			o->metrics = true;
			break;
		case 'T':
			o->tables = true;
			break;
		case 'C':
			if (cli_parse_cpu(optarg, &o->cpu, LIST_PROG, err))
				return -EINVAL;
			break;
		case 'h':
			list_usage(stdout);
			return 1;
		default:
			return cli_option_error(err, LIST_PROG, argv, LIST_OPTSTRING);
		}
	}
	/* Several words are one pattern, as if quoted: `list l2 miss` is `list "l2 miss"`. */
	if (optind < argc) {
		static char joined[1024];
		size_t len = 0;

		for (; optind < argc; optind++) {
			int n = snprintf(joined + len, sizeof(joined) - len, "%s%s", len ? " " : "", argv[optind]);

			if (n < 0 || (size_t)n >= sizeof(joined) - len)
				return cli_usage_error(err, LIST_PROG, "the PATTERN is too long (%zu characters at most)",
						       sizeof(joined) - 1);
			len += (size_t)n;
		}
		o->pattern = joined;
	}
	if (o->tables && (o->table || o->cpu_dump || o->cpu >= 0 || o->metrics || o->long_format))
		return cli_usage_error(err, LIST_PROG, "--tables lists every table: it takes only a PATTERN and --json");
	if (o->table && (o->cpu_dump || o->cpu >= 0))
		return cli_usage_error(err, LIST_PROG,
				       "--table names the table; --cpu-dump and -C choose one by CPU: give one of them");
	return 0;
}

static bool
desc_matches(const char *pattern, const struct event_desc *d)
{
	const char *texts[] = { d->name, d->description };

	return list_texts_match(pattern, texts, 2);
}

static void
format_counters(uint32_t mask, char *buf, size_t len)
{
	size_t used = 0;
	unsigned i = 0;

	buf[0] = '\0';
	while (i < 32 && used < len) {
		unsigned j;

		if (!(mask & (1u << i))) {
			i++;
			continue;
		}
		for (j = i; j + 1 < 32 && (mask & (1u << (j + 1))); j++)
			;
		if (j == i)
			used += (size_t)snprintf(buf + used, len - used, "%s%u", used ? "," : "", i);
		else
			used += (size_t)snprintf(buf + used, len - used, "%s%u-%u",
						 used ? "," : "", i, j);
		i = j + 1;
	}
}

static void
print_long(FILE *out, const struct event_desc *d)
{
	char ctr[96], ctr_off[96];
	unsigned i;

	if (d->fixed >= 0) {
		fprintf(out, "        fixed counter %d%s\n", d->fixed,
			d->any_thread ? ", any thread" : "");
	} else {
		fprintf(out, "        event=0x%02x,umask=0x%02x", d->code, d->umask);
		if (d->umask_ext)
			fprintf(out, ",umask2=0x%02x", d->umask_ext);
		if (d->cmask)
			fprintf(out, ",cmask=%u", d->cmask);
		if (d->inv)
			fprintf(out, ",inv");
		if (d->edge)
			fprintf(out, ",edge");
		if (d->any_thread)
			fprintf(out, ",any");
		format_counters(d->counters, ctr, sizeof(ctr));
		fprintf(out, "  counters %s", ctr);
		if (d->counters_htoff != d->counters) {
			format_counters(d->counters_htoff, ctr_off, sizeof(ctr_off));
			fprintf(out, " (HT off: %s)", ctr_off);
		}
		fputc('\n', out);
	}
	for (i = 0; i < d->n_extra; i++) {
		if (i == 0)
			fprintf(out, "        needs MSR 0x%x = 0x%llx\n", d->extra[i].msr,
				(unsigned long long)d->extra[i].value);
		else
			fprintf(out, "        or event=0x%02x,umask=0x%02x with MSR 0x%x = 0x%llx\n",
				d->extra[i].code, d->extra[i].umask, d->extra[i].msr,
				(unsigned long long)d->extra[i].value);
	}
	if (d->flags & EVENT_DESC_PEBS_ONLY)
		fprintf(out, "        PEBS only: pmustat cannot count it\n");
	if (d->flags & EVENT_DESC_NO_MSR_VALUE)
		fprintf(out, "        needs an offcore response value: pmustat cannot count it\n");
	if (d->flags & EVENT_DESC_TAKEN_ALONE)
		fprintf(out, "        taken alone: no other general-purpose event beside it\n");
	if (d->alias_of)
		fprintf(out, "        deprecated: an alias of %s\n", d->alias_of);
	else if (d->flags & EVENT_DESC_DEPRECATED)
		fprintf(out, "        deprecated\n");
	if (d->errata)
		fprintf(out, "        errata: %s\n", d->errata);
}

static bool
arch_matches(const char *pattern, const struct arch_event *ae)
{
	const char *texts[2 + 8] = { ae->key, ae->name };
	size_t n = 2;

	/* Found by perf's name for it too (cache-misses: LLC_MISSES). */
	for (size_t i = 0; i < generic_event_count() && n < sizeof(texts) / sizeof(texts[0]); i++) {
		const struct generic_event *g = generic_event_get(i);

		if (g->arch_key && strcmp(g->arch_key, ae->key) == 0)
			texts[n++] = g->name;
	}
	return list_texts_match(pattern, texts, n);
}

/* What a generic name counts here: the architectural event, the table's, or nothing. */
static const char *
generic_target(const struct generic_event *g, const struct listing *l)
{
	const struct event_desc *d;

	if (g->arch_key)
		return g->arch_key;
	d = generic_event_in_table(g, l->table);
	return d ? d->name : NULL;
}

static bool
generic_matches(const char *pattern, const struct generic_event *g, const struct listing *l)
{
	const char *texts[] = { g->name, g->desc, generic_target(g, l) };

	return list_texts_match(pattern, texts, 3);
}

/* perf's generic names, with what each counts on this table; how many. */
static size_t
print_generic(const struct list_opts *o, const struct listing *l, bool after_something)
{
	size_t shown = 0;

	for (size_t i = 0; i < generic_event_count(); i++) {
		const struct generic_event *g = generic_event_get(i);
		const char *target = generic_target(g, l);

		if (!generic_matches(o->pattern, g, l))
			continue;
		if (!shown++)
			printf("%sperf's generic names (-e takes them; what each counts here):\n",
			       after_something ? "\n" : "");
		printf("  %-24s %s\n        = %s\n", g->name, g->desc,
		       target ? target : l->table ? "nothing in this table" : "needs the CPU's event table");
	}
	return shown;
}

static bool
sw_matches(const char *pattern, const struct sw_event *sw)
{
	const char *texts[] = { sw->name, sw->alias, sw->desc };

	return list_texts_match(pattern, texts, 3);
}

static size_t
print_software(const struct list_opts *o, bool after_something)
{
	size_t i, sw_shown = 0;

	for (i = 0; i < sw_event_count(); i++) {
		const struct sw_event *sw = sw_event_get(i);

		if (!sw_matches(o->pattern, sw))
			continue;
		if (!sw_shown++)
			printf("%sSoftware events (counted by the kernel through perf_event; no PMU needed):\n",
			       after_something ? "\n" : "");
		printf("  %-24s %s\n", sw->name, sw->desc);
		if (o->long_format && sw->alias)
			printf("        also: %s\n", sw->alias);
	}
	return sw_shown;
}

/* How many of the table's events the pattern matches. */
static size_t
table_matches(const struct list_opts *o, const struct listing *l)
{
	size_t n = 0;

	for (size_t i = 0; l->table && i < event_table_count(l->table); i++)
		n += desc_matches(o->pattern, event_table_get(l->table, i));
	return n;
}

/*
 * After the events: nothing matched, said once at the end (an event found
 * in a later section is no miss); and that metrics match, with the command
 * that lists them.
 */
static void
print_pattern_notes(const struct list_opts *o, const struct listing *l, size_t shown)
{
	unsigned metrics;

	if (!o->pattern)
		return;
	if (!shown) {
		printf("(no event matches '");
		text_put(stdout, o->pattern);
		printf("'%s%s: each word of a pattern is looked for in the names and descriptions)\n",
		       l->table ? " in table " : "", l->table ? event_table_name(l->table) : "");
	}
	/* The metric table of --table's name, or of the CPU's. */
	metrics = list_metrics_matching(pmustat_events_dir(), o->table ? o->table : l->metrics, o->pattern);
	if (metrics) {
		printf("\n%u metric%s match%s too: pmustat list --metrics '", metrics, metrics > 1 ? "s" : "",
		       metrics > 1 ? "" : "es");
		text_put(stdout, o->pattern);
		printf("'\n");
	}
}

static void
print_text(const struct list_opts *o, const struct listing *l)
{
	size_t i, shown = 0;
	unsigned a, arch_shown = 0;

	if (l->family_table) {
		/* Such a family has no architectural events; its aliases stand in. */
		l->family->list_text(stdout, l->family_table, o->pattern, list_text_matches, o->long_format);
		print_software(o, true);
		return;
	}
	/* With a pattern, the table's heading only above its matches. */
	if (l->table && (!o->pattern || table_matches(o, l))) {
		printf("Events of table %s (Intel perfmon %s, version %s):\n",
		       event_table_name(l->table), event_table_source_file(l->table),
		       event_table_source_version(l->table));
		for (i = 0; i < event_table_count(l->table); i++) {
			const struct event_desc *d = event_table_get(l->table, i);

			if (!desc_matches(o->pattern, d))
				continue;
			printf("  %s\n", d->name);
			if (d->description[0])
				printf("        %s\n", d->description);
			if (o->long_format)
				print_long(stdout, d);
			shown++;
		}
	}
	for (a = 0; a < arch_event_count(); a++) {
		const struct arch_event *ae = arch_event_get(a);

		if (!arch_matches(o->pattern, ae))
			continue;
		if (!arch_shown++)
			printf("%sArchitectural events (aliases: cycles, instructions, ref-cycles, branches,\n"
			       "branch-misses, cache-references, cache-misses):\n", shown ? "\n" : "");
		printf("  %-24s %s", ae->key, ae->name);
		if (l->have_cpu && !arch_event_available(&l->cpu.pmu, ae))
			printf(" (not available on this CPU)");
		putchar('\n');
		if (o->long_format) {
			printf("        event=0x%02x,umask=0x%02x", ae->code, ae->umask);
			if (ae->fixed >= 0)
				printf("  or fixed counter %d", ae->fixed);
			printf("  CPUID.0AH:EBX bit %u\n", ae->bit);
		}
	}
	shown += arch_shown;
	shown += print_generic(o, l, shown);
	shown += print_software(o, shown);
	print_pattern_notes(o, l, shown);
}

static json_t *
counters_json(uint32_t mask)
{
	json_t *arr = json_array();
	unsigned i;

	for (i = 0; i < 32; i++)
		if (mask & (1u << i))
			json_array_append_new(arr, json_integer(i));
	return arr;
}

static json_t *
desc_json(const struct event_desc *d)
{
	json_t *o = json_object(), *msrs;
	unsigned i;

	json_object_set_new(o, "name", json_string(d->name));
	json_object_set_new(o, "event", json_integer(d->code));
	json_object_set_new(o, "umask", json_integer(d->umask));
	json_object_set_new(o, "umask_ext", json_integer(d->umask_ext));
	json_object_set_new(o, "cmask", json_integer(d->cmask));
	json_object_set_new(o, "inv", json_boolean(d->inv));
	json_object_set_new(o, "edge", json_boolean(d->edge));
	json_object_set_new(o, "any_thread", json_boolean(d->any_thread));
	json_object_set_new(o, "counters", counters_json(d->counters));
	json_object_set_new(o, "counters_ht_off", counters_json(d->counters_htoff));
	json_object_set_new(o, "fixed_counter", d->fixed >= 0 ? json_integer(d->fixed) : json_null());
	msrs = json_array();
	for (i = 0; i < d->n_extra; i++) {
		char value[24];

		snprintf(value, sizeof(value), "0x%llx", (unsigned long long)d->extra[i].value);
		json_array_append_new(msrs, json_pack("{s:i, s:i, s:i, s:s}",
						      "event", (int)d->extra[i].code,
						      "umask", (int)d->extra[i].umask,
						      "msr", (json_int_t)d->extra[i].msr,
						      "value", value));
	}
	json_object_set_new(o, "msr", msrs);
	json_object_set_new(o, "pebs_only", json_boolean(d->flags & EVENT_DESC_PEBS_ONLY));
	json_object_set_new(o, "taken_alone", json_boolean(d->flags & EVENT_DESC_TAKEN_ALONE));
	json_object_set_new(o, "deprecated", json_boolean(d->flags & EVENT_DESC_DEPRECATED));
	json_object_set_new(o, "alias_of", d->alias_of ? json_string(d->alias_of) : json_null());
	json_object_set_new(o, "errata", d->errata ? json_string(d->errata) : json_null());
	json_object_set_new(o, "description", json_string(d->description));
	return o;
}

static int
print_json(const struct list_opts *o, const struct listing *l)
{
	json_t *root = json_object(), *events = json_array(), *arch = json_array();
	json_t *sw_events = json_array(), *generic = json_array();
	size_t i;
	unsigned a;
	int ret;

	json_object_set_new(root, "format_version", json_integer(LIST_FORMAT_VERSION));
	json_object_set_new(root, "pmu", json_string(l->family_table ? l->family->name : "architectural"));
	if (l->family_table) {
		json_decref(events);
		json_object_set_new(root, "table", json_string(l->family->events_name(l->family_table)));
		json_object_set_new(root, "source", json_pack("{s:s}", "title", l->family->events_source(l->family_table)));
		json_object_set_new(root, "pattern", o->pattern ? json_string(o->pattern) : json_null());
		l->family->list_json(root, l->family_table, o->pattern, list_text_matches);
		goto software;
	}
	json_object_set_new(root, "table", l->table ? json_string(event_table_name(l->table)) : json_null());
	json_object_set_new(root, "source", l->table ?
			    json_pack("{s:s, s:s}", "file", event_table_source_file(l->table),
				      "version", event_table_source_version(l->table)) : json_null());
	json_object_set_new(root, "pattern", o->pattern ? json_string(o->pattern) : json_null());
	for (i = 0; l->table && i < event_table_count(l->table); i++) {
		const struct event_desc *d = event_table_get(l->table, i);

		if (desc_matches(o->pattern, d))
			json_array_append_new(events, desc_json(d));
	}
	json_object_set_new(root, "events", events);
	for (a = 0; a < arch_event_count(); a++) {
		const struct arch_event *ae = arch_event_get(a);

		if (!arch_matches(o->pattern, ae))
			continue;
		json_array_append_new(arch, json_pack("{s:s, s:s, s:i, s:i, s:i, s:o, s:o}",
			"name", ae->key, "sdm_name", ae->name, "event", (int)ae->code,
			"umask", (int)ae->umask, "cpuid_bit", (int)ae->bit,
			"fixed_counter", ae->fixed >= 0 ? json_integer(ae->fixed) : json_null(),
			"available", l->have_cpu ?
				json_boolean(arch_event_available(&l->cpu.pmu, ae)) : json_null()));
	}
	for (i = 0; i < generic_event_count(); i++) {
		const struct generic_event *g = generic_event_get(i);
		const char *target = generic_target(g, l);

		if (generic_matches(o->pattern, g, l))
			json_array_append_new(generic, json_pack("{s:s, s:o, s:s}", "name", g->name,
				"counts", target ? json_string(target) : json_null(), "description", g->desc));
	}
software:
	json_object_set_new(root, "architectural_events", arch);
	json_object_set_new(root, "generic_events", generic);
	for (i = 0; i < sw_event_count(); i++) {
		const struct sw_event *sw = sw_event_get(i);

		if (sw_matches(o->pattern, sw))
			json_array_append_new(sw_events, json_pack("{s:s, s:o, s:o, s:s}",
				"name", sw->name, "alias", sw->alias ? json_string(sw->alias) : json_null(),
				"unit", sw->unit ? json_string(sw->unit) : json_null(), "description", sw->desc));
	}
	json_object_set_new(root, "software_events", sw_events);
	ret = json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(root);
	putchar('\n');
	return ret;
}

/* Table @name into @l: an architectural one, or the first family's whose loader takes it. */
static int
load_table(const char *name, struct listing *l, struct pmustat_error **err)
{
	int ret = event_table_load(pmustat_events_dir(), name, &l->table, err);

	for (const struct pmu_family *const *f = pmu_families; ret == -EMEDIUMTYPE && *f; f++) {
		if (!(*f)->events_load)
			continue;
		err_clear(err);
		ret = (*f)->events_load(pmustat_events_dir(), name, &l->family_table, err);
		if (ret != -EMEDIUMTYPE)
			l->family = *f;
	}
	return ret;
}

static void
listing_free(struct listing *l)
{
	event_table_free(l->table);
	if (l->family_table)
		l->family->events_free(l->family_table);
}

/* The CPU's table, or none (architectural events only) with a warning. */
static int
load_for_cpu(const struct list_opts *o, struct listing *l, struct pmustat_error **err)
{
	struct target t;
	struct hw *hw = NULL;
	int ret;

	if (!o->cpu_dump) {
		hw = hw_linux_new();
		if (!hw)
			return err_set(err, -ENOMEM, "out of memory");
	}
	ret = target_open(&t, hw, o->cpu_dump, o->cpu, err);
	hw_free(hw);
	if (ret < 0)
		return ret;
	l->have_cpu = true;
	l->cpu = t.cpu;
	l->cpu_index = t.core;
	if (!cpu_can_count(&t.cpu))
		fprintf(stderr, "pmustat list: warning: CPU %d (%s): %s\n", t.core, t.key,
			cpu_why(&t.cpu));
	if (t.table_rc == -ENOENT || t.table_rc == 1) {
		snprintf(l->no_metrics, sizeof(l->no_metrics), "%s: no metrics",
			 t.table_rc == 1 ? cpu_why(&t.cpu) : err_msg(t.table_why));
		if (!o->metrics && t.table_rc == -ENOENT)
			fprintf(stderr, "pmustat list: warning: %s; listing the architectural events only (browse any table with --table NAME)\n",
				err_msg(t.table_why));
		target_close(&t);
		return 0;
	}
	if (t.table_rc < 0) {
		err_move(err, &t.table_why);
		target_close(&t);
		return -EINVAL;
	}
	snprintf(l->metrics, sizeof(l->metrics), "%s", t.choice.metrics);
	snprintf(l->no_metrics, sizeof(l->no_metrics),
		 "Intel publishes no metrics for table %s (CPU %s); list another table's with --table NAME",
		 t.choice.table, t.key);
	ret = target_load_table(&t, err);
	l->table = t.table;
	l->family = t.cpu.pmu.family;
	l->family_table = t.nb;
	t.table = NULL;
	t.nb = NULL;
	target_close(&t);
	return ret;
}

int
cmd_list(int argc, char **argv, struct pmustat_error **err)
{
	struct list_opts o;
	struct listing l;
	int ret;

	memset(&o, 0, sizeof(o));
	memset(&l, 0, sizeof(l));
	ret = parse_opts(argc, argv, &o, err);
	if (ret != 0)
		return ret > 0 ? 0 : EXIT_PMUSTAT_FAILURE;

	if (o.tables) {
		if (list_tables(pmustat_events_dir(), o.pattern, o.json, err) < 0)
			return EXIT_PMUSTAT_FAILURE;
		return fflush(stdout) == 0 && !ferror(stdout) ? 0 :
		       (err_set(err, -EIO, "cannot write the listing to standard output"), EXIT_PMUSTAT_FAILURE);
	}
	if (o.table) {
		ret = load_table(o.table, &l, err);
		if (ret == -ENOENT)
			list_tables_suggest(pmustat_events_dir(), o.table, err);
		if (ret < 0)
			return EXIT_PMUSTAT_FAILURE;
	} else if (load_for_cpu(&o, &l, err) < 0) {
		return EXIT_PMUSTAT_FAILURE;
	}

	if (o.metrics) {
		struct list_metrics_opts mo = { o.pattern, o.long_format, o.json };

		ret = list_metrics(pmustat_events_dir(), o.table ? o.table : l.metrics,
				   l.no_metrics, &mo, err);
		if (ret < 0 && ret != -EIO) {
			listing_free(&l);
			return EXIT_PMUSTAT_FAILURE;
		}
		err_clear(err);
	} else if (o.json) {
		ret = print_json(&o, &l);
	} else {
		print_text(&o, &l);
	}
	listing_free(&l);
	if (fflush(stdout) != 0 || ferror(stdout) || ret != 0) {
		err_set(err, -EIO, "cannot write the listing to standard output");
		return EXIT_PMUSTAT_FAILURE;
	}
	return 0;
}
