/*
 * cmd_info.c - `pmustat info`: what this CPU's PMU is, whether pmustat can
 * use it, and if not, why and what to do about it.
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/text.h"
#include "pmu/access.h"
#include "events/arch_events.h"
#include "base/err.h"
#include "cli/cli.h"
#include "config.h"
#include "events/cpu.h"
#include "engine/target.h"
#include "events/cpu_source.h"
#include "base/exit_codes.h"
#include "hw/hw.h"
#include "base/invoker.h"
#include "report/json_text.h"
#include "pmu/family.h"
#include "report/outfile.h"
#include "engine/perf_counters.h"

#define INFO_FORMAT_VERSION 1

struct info_opts {
	bool json;
	const char *cpu_dump;
	const char *save_cpu_dump;
	int cpu;
};

struct info {
	int cpu;
	const char *dump;
	struct cpu_info cpu_info;
	char table[128];
	char table_note[640];
	bool have_table;
	bool live;
	struct access_report access;
	struct perf_env perf;		/* live only */
	struct pmu_family_probe probe;	/* what the PMU's family read, live only */
	bool usable;
	char verdict[1024];
};

static void
info_usage(FILE *out)
{
	fprintf(out, "usage: pmustat info [--json] [--cpu-dump FILE] [--save-cpu-dump FILE] [-C N]\n"
		"\n"
		"  -C, --cpu N            the CPU to describe (default: the last allowed CPU)\n"
		"      --json             one JSON object\n"
		"      --cpu-dump FILE    describe the CPU of a libcpuid raw dump instead:\n"
		"                         what pmustat would do on that machine\n"
		"      --save-cpu-dump FILE  write this machine's raw CPUID to FILE (bug reports)\n"
		"CPU, PMU version and counters, the event table, msr driver, permissions,\n"
		"lockdown, rdpmc, NMI watchdog, counters in use, and a verdict with the fix.\n"
		"Exit status: 0 pmustat can count here, 1 it cannot, 125 error.\n");
}

#define INFO_PROG "pmustat info"
#define INFO_OPTSTRING "+C:h"

/* 0, 1 for --help (printed), or -EINVAL with the usage error. */
static int
parse_opts(int argc, char **argv, struct info_opts *o, struct pmustat_error **err)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "cpu-dump", required_argument, NULL, 'd' },
		{ "save-cpu-dump", required_argument, NULL, 's' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	o->cpu = -1;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, INFO_OPTSTRING, longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			o->json = true;
			break;
		case 'd':
			o->cpu_dump = optarg;
			break;
		case 's':
			o->save_cpu_dump = optarg;
			break;
		case 'C':
			if (cli_parse_cpu(optarg, &o->cpu, INFO_PROG, err))
				return -EINVAL;
			break;
		case 'h':
			info_usage(stdout);
			return 1;
		default:
			return cli_option_error(err, INFO_PROG, argv, INFO_OPTSTRING);
		}
	}
	if (optind < argc)
		return cli_usage_error(err, INFO_PROG, "unexpected argument '%s'", argv[optind]);
	if (o->cpu_dump && o->save_cpu_dump)
		return cli_usage_error(err, INFO_PROG,
				       "--cpu-dump describes another machine; --save-cpu-dump saves this one: give one of them");
	return 0;
}

/* The table the mapfile names for the CPU, or why there is none. */
static void
choose_table(struct info *in, const struct target *t)
{
	in->have_table = false;
	if (t->table_rc == 1)
		return;
	if (t->table_rc == 0) {
		in->have_table = true;
		snprintf(in->table, sizeof(in->table), "%s", t->choice.table);
	} else if (t->table_rc == -ENOENT) {
		/* No row for this CPU, or no mapfile at all: the message says which. */
		snprintf(in->table_note, sizeof(in->table_note), "%s; architectural events only",
			 err_msg(t->table_why));
	} else {
		snprintf(in->table_note, sizeof(in->table_note), "%s", err_msg(t->table_why));
	}
}

static void
judge(struct info *in)
{
	const struct cpu_info *c = &in->cpu_info;
	const struct pmu_family *fam = c->pmu.family;
	char why[160];

	in->usable = false;
	if (fam && fam->unusable && fam->unusable(&in->probe, in->cpu, why, sizeof(why))) {
		snprintf(in->verdict, sizeof(in->verdict), "cannot count: %s", why);
		return;
	}
	if (!cpu_can_count(c)) {
		snprintf(in->verdict, sizeof(in->verdict), "cannot count: %s", cpu_why(c));
		return;
	}
	if (!in->live) {
		in->usable = true;
		snprintf(in->verdict, sizeof(in->verdict),
			 "pmustat could count on that CPU (given MSR access on its machine)");
		return;
	}
	if (access_blocker(&in->access, in->cpu, in->verdict, sizeof(in->verdict))) {
		size_t len = strlen(in->verdict);

		/* The same events may still count through the kernel. */
		if (!fam || !fam->msr_only)
			snprintf(in->verdict + len, sizeof(in->verdict) - len,
				 " (or count through perf_event: --backend perf)");
		return;
	}
	in->usable = true;
	snprintf(in->verdict, sizeof(in->verdict), "pmustat can count on CPU %d (counters read with %s)",
		 in->cpu, in->access.rdpmc == 0 ? "rdpmc" : "MSR reads; rdpmc is not allowed");
}

static void
format_mask(uint32_t mask, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < 32 && len + 4 < size; i++) {
		if (mask & (1u << i))
			len += (size_t)snprintf(buf + len, size - len, "%s%u", len ? "," : "", i);
	}
}

static void
print_human(const struct info *in)
{
	const struct cpu_info *c = &in->cpu_info;
	const struct pmu_caps *p = &c->pmu;
	FILE *o = stderr;
	char key[64], mask[128];

	cpu_mapfile_key(c, key, sizeof(key));
	if (in->live) {
		fprintf(o, "CPU %d\n", in->cpu);
	} else {
		fprintf(o, "CPU %d of dump ", in->cpu);
		text_put(o, in->dump);
		fputc('\n', o);
	}
	fprintf(o, "  vendor       %s (%s)\n", cpu_vendor_name(c->vendor), c->vendor_id);
	if (c->brand[0])
		fprintf(o, "  model name   %s\n", c->brand);
	fprintf(o, "  signature    family %u (0x%X), model %u (0x%X), stepping %u  [%s]\n",
		c->family, c->family, c->model, c->model, c->stepping, key);
	if (c->hypervisor)
		fprintf(o, "  hypervisor   yes (running in a virtual machine)\n");
	if (cpu_core_type_name(c->core_type))
		fprintf(o, "  core type    %s (CPUID.1AH 0x%02X, native model 0x%06X)%s\n",
			cpu_core_type_name(c->core_type), c->core_type, c->native_model_id,
			c->hybrid ? ", hybrid part" : "");

	fprintf(o, "PMU\n");
	if (p->family && p->family->info_text) {
		p->family->info_text(c, &in->probe, in->cpu, o);
	} else if (p->version == 0) {
		fprintf(o, "  none         (no architectural perfmon)\n");
	} else {
		fprintf(o, "  version      %u\n", p->version);
		format_mask(p->gp_mask, mask, sizeof(mask));
		fprintf(o, "  GP counters  %u x %u bits (pmc %s)\n", p->gp_counters, p->gp_width, mask);
		format_mask(p->fixed_mask, mask, sizeof(mask));
		fprintf(o, "  fixed        %u x %u bits (fixed %s)\n", p->fixed_counters, p->fixed_width,
			p->fixed_counters ? mask : "none");
		if (p->quirk)
			fprintf(o, "  quirk        %s (CPUID says %u GP, %u fixed)\n", p->quirk,
				p->cpuid_gp_counters, p->cpuid_fixed_counters);
		if (p->counters_from && strcmp(p->counters_from, "CPUID.0AH") != 0)
			fprintf(o, "  enumerated   by %s (CPUID.0AH says %u GP, %u fixed)\n", p->counters_from,
				p->cpuid_gp_counters, p->cpuid_fixed_counters);
		if (p->counters_note)
			fprintf(o, "  note         %s\n", p->counters_note);
		fprintf(o, "  arch events ");
		for (unsigned i = 0; i < arch_event_count(); i++) {
			const struct arch_event *ev = arch_event_get(i);

			if (arch_event_available(p, ev))
				fprintf(o, " %s", ev->key);
		}
		fprintf(o, "\n");
		fprintf(o, "  full-width   %s\n", p->pdcm ? "IA32_PERF_CAPABILITIES present (checked when counting)" : "no PDCM: legacy counter writes");
	}
	if (cpu_can_count(c))
		fprintf(o, "event table    %s%s%s\n", in->have_table ? in->table : "none",
			in->table_note[0] ? ": " : "", in->table_note);
	if (in->live && in->access.checked)
		access_print(&in->access, in->cpu, o);
	if (in->live && in->perf.paranoid != PERF_PARANOID_UNKNOWN)
		fprintf(o, "perf_event     kernel.perf_event_paranoid = %d; software events (task-clock, page-faults, ...) count through it on any CPU\n",
			in->perf.paranoid);
	else if (in->live)
		fprintf(o, "perf_event     kernel.perf_event_paranoid = unknown; software events (task-clock, page-faults, ...) count through it on any CPU\n");
	/* No PMU here: CI gates still have a count that means the same on every runner. */
	if (in->live && !cpu_can_count(c))
		fprintf(o, "simulation     --backend sim counts instructions, cache and branch misses in Valgrind's simulation (no PMU needed, the same on every machine): the choice for CI gates here\n");
	fprintf(o, "verdict        %s\n", in->verdict);
}

static json_t *
json_mask(uint32_t mask)
{
	json_t *a = json_array();

	for (unsigned i = 0; i < 32; i++) {
		if (mask & (1u << i))
			json_array_append_new(a, json_integer(i));
	}
	return a;
}

static void
print_json(const struct info *in)
{
	const struct cpu_info *c = &in->cpu_info;
	const struct pmu_caps *p = &c->pmu;
	const char *core_type = cpu_core_type_name(c->core_type);
	json_t *root, *cpu, *pmu, *events;
	char key[64];

	cpu_mapfile_key(c, key, sizeof(key));
	/* vendor_id and brand are CPUID bytes (a dump's, perhaps): any bytes at all. */
	cpu = json_pack("{s:s, s:o, s:o, s:i, s:i, s:i, s:s, s:b, s:b}",
			"vendor", cpu_vendor_name(c->vendor),
			"vendor_id", json_text(c->vendor_id),
			"brand", json_text(c->brand),
			"family", (int)c->family,
			"model", (int)c->model,
			"stepping", (int)c->stepping,
			"mapfile_key", key,
			"hypervisor", c->hypervisor,
			"hybrid", c->hybrid);
	json_object_set_new(cpu, "core_type", core_type ? json_string(core_type) : json_null());
	json_object_set_new(cpu, "native_model_id",
			    core_type ? json_integer(c->native_model_id) : json_null());

	events = json_array();
	for (unsigned i = 0; i < arch_event_count(); i++) {
		const struct arch_event *ev = arch_event_get(i);

		if (p->version && arch_event_available(p, ev))
			json_array_append_new(events, json_string(ev->key));
	}
	pmu = json_pack("{s:i, s:i, s:i, s:i, s:i, s:o, s:o, s:o, s:b, s:s?}",
			"version", (int)p->version,
			"gp_counters", (int)p->gp_counters,
			"gp_width", (int)p->gp_width,
			"fixed_counters", (int)p->fixed_counters,
			"fixed_width", (int)p->fixed_width,
			"gp_mask", json_mask(p->gp_mask),
			"fixed_mask", json_mask(p->fixed_mask),
			"arch_events", events,
			"pdcm", p->pdcm,
			"quirk", p->quirk);
	/* Every family with its own description has its key: null on a CPU of another. */
	for (const struct pmu_family *const *f = pmu_families; *f; f++)
		if ((*f)->info_json)
			json_object_set_new(pmu, (*f)->name,
					    *f == p->family ? (*f)->info_json(c, &in->probe) : json_null());
	json_object_set_new(pmu, "counters_from", p->counters_from ? json_string(p->counters_from) : json_null());
	json_object_set_new(pmu, "counters_note", p->counters_note ? json_string(p->counters_note) : json_null());

	root = json_pack("{s:i, s:s, s:i, s:s, s:o, s:o}",
			 "format_version", INFO_FORMAT_VERSION,
			 "pmustat_version", PMUSTAT_VERSION,
			 "core", in->cpu,
			 "source", in->live ? "live" : "dump",
			 "cpu", cpu,
			 "pmu", pmu);
	json_object_set_new(root, "cpu_dump", in->live ? json_null() : json_text(in->dump));
	json_object_set_new(root, "event_table", in->have_table ? json_string(in->table) : json_null());
	json_object_set_new(root, "event_table_note",
			    in->table_note[0] ? json_string(in->table_note) : json_null());
	json_object_set_new(root, "access", in->live && in->access.checked ? access_json(&in->access) : json_null());
	json_object_set_new(root, "perf_event_paranoid",
			    in->live && in->perf.paranoid != PERF_PARANOID_UNKNOWN ?
			    json_integer(in->perf.paranoid) : json_null());
	json_object_set_new(root, "verdict", json_string(in->verdict));
	json_object_set_new(root, "usable", json_boolean(in->usable));

	json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', stdout);
	json_decref(root);
}

/*
 * Errors still get a JSON object on stdout under --json, so scripts can
 * rely on one; the message itself is main()'s to print.
 */
static int
fail(const struct info_opts *o, struct pmustat_error **err)
{
	if (o->json) {
		json_t *root = json_pack("{s:i, s:o, s:o, s:b}", "format_version", INFO_FORMAT_VERSION,
					 "error", json_text(err_msg(*err)), "verdict", json_text(err_msg(*err)),
					 "usable", 0);

		json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', stdout);
		json_decref(root);
	}
	return EXIT_PMUSTAT_FAILURE;
}

static int
save_dump(struct hw *hw, const struct info_opts *o, struct pmustat_error **err)
{
	cpu_set_t set;
	int cpus[CPU_SETSIZE];
	int n = 0;
	struct invoker inv;
	struct outfile out;

	if (o->cpu >= 0) {
		cpus[n++] = o->cpu;
	} else {
		CPU_ZERO(&set);
		if (sched_getaffinity(0, sizeof(set), &set) < 0)
			CPU_SET(0, &set);
		for (int i = 0; i < CPU_SETSIZE; i++) {
			if (CPU_ISSET(i, &set))
				cpus[n++] = i;
		}
	}
	/* As the invoking user, like every file pmustat writes for them (outfile.h). */
	if (invoker_get(&inv, err) || outfile_open(&out, "--save-cpu-dump", o->save_cpu_dump, &inv, err))
		return fail(o, err);
	if (cpu_source_save(hw, cpus, n, out.f, o->save_cpu_dump, err) < 0) {
		outfile_abort(&out);
		return fail(o, err);
	}
	if (outfile_commit(&out, err))
		return fail(o, err);
	fprintf(stderr, "pmustat info: saved the raw CPUID of %d CPU%s to ", n, n == 1 ? "" : "s");
	text_put(stderr, o->save_cpu_dump);
	fputc('\n', stderr);
	return 0;
}

int
cmd_info(int argc, char **argv, struct pmustat_error **err)
{
	struct info_opts o;
	struct target t;
	struct info *in;
	struct hw *hw = NULL;
	int ret;

	memset(&o, 0, sizeof(o));
	ret = parse_opts(argc, argv, &o, err);
	if (ret != 0)
		return ret > 0 ? 0 : EXIT_PMUSTAT_FAILURE;

	in = calloc(1, sizeof(*in));
	if (!in) {
		err_set(err, -ENOMEM, "out of memory");
		return fail(&o, err);
	}
	in->live = o.cpu_dump == NULL;
	in->dump = o.cpu_dump;
	if (in->live) {
		hw = hw_linux_new();
		if (!hw) {
			free(in);
			err_set(err, -ENOMEM, "out of memory");
			return fail(&o, err);
		}
	}
	if (o.save_cpu_dump) {
		ret = save_dump(hw, &o, err);
		if (ret != 0)
			goto out;
	}

	ret = target_open(&t, hw, o.cpu_dump, o.cpu, err);
	if (ret < 0) {
		ret = fail(&o, err);
		goto out;
	}
	in->cpu = t.core;
	in->cpu_info = t.cpu;
	choose_table(in, &t);
	target_close(&t);
	/* hw exists exactly when in->live. */
	if (hw)
		perf_env_probe(perf_sys_linux(), hw, &in->perf);
	if (hw && (cpu_can_count(&in->cpu_info)))
		access_check(hw, &in->cpu_info, in->cpu, &in->access);
	if (hw && in->cpu_info.pmu.family && in->cpu_info.pmu.family->probe)
		in->cpu_info.pmu.family->probe(hw, in->cpu, &in->probe);
	judge(in);

	if (o.json)
		print_json(in);
	else
		print_human(in);
	ret = in->usable ? 0 : EXIT_PMU_UNUSABLE;
out:
	hw_free(hw);
	free(in);
	return ret;
}
