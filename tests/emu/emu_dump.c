/*
 * emu_dump.c - the emulated PMU's registers for people: MSR names, the
 * list of MSRs a CPU has, dump (text or JSON) and diff of two machines.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "emu_internal.h"
#include "emu_netburst.h"
#include "emu_zen.h"
#include "pmu/msr.h"

static unsigned
popcount(uint32_t mask)
{
	return (unsigned)__builtin_popcount(mask);
}

size_t
emu_msr_list(const struct emu_pmu *pmu, unsigned cpu, uint32_t *msrs, size_t max)
{
	/* Every address any model has, ascending, after the counters. */
	static const uint32_t after_evtsel[] = {
		MSR_OFFCORE_RSP_0, MSR_OFFCORE_RSP_1, EMU_MSR_DEBUGCTL,
	};
	static const uint32_t after_fixed[] = {
		EMU_MSR_PERF_METRICS, MSR_IA32_PERF_CAPABILITIES, MSR_IA32_FIXED_CTR_CTRL,
		MSR_IA32_PERF_GLOBAL_STATUS, MSR_IA32_PERF_GLOBAL_CTRL,
		MSR_IA32_PERF_GLOBAL_INUSE, EMU_MSR_PEBS_ENABLE,
	};
	uint32_t all[EMU_MAX_MSRS];
	size_t n = 0, out = 0;
	uint64_t val;

	if (cpu >= pmu->ncpus)
		return 0;
	if (pmu->types[pmu->cpu[cpu].type].netburst)
		return emu_nb_msr_list(pmu, cpu, msrs, max);
	if (pmu->types[pmu->cpu[cpu].type].zen)
		return emu_zen_msr_list(pmu, cpu, msrs, max);
	for (unsigned i = 0; i < EMU_MAX_GP; i++)
		all[n++] = MSR_IA32_PMC0 + i;
	for (unsigned i = 0; i < EMU_MAX_GP; i++)
		all[n++] = MSR_IA32_PERFEVTSEL0 + i;
	for (size_t i = 0; i < sizeof(after_evtsel) / sizeof(after_evtsel[0]); i++)
		all[n++] = after_evtsel[i];
	for (unsigned i = 0; i < EMU_MAX_FIXED; i++)
		all[n++] = MSR_IA32_FIXED_CTR0 + i;
	for (size_t i = 0; i < sizeof(after_fixed) / sizeof(after_fixed[0]); i++)
		all[n++] = after_fixed[i];
	for (unsigned i = 0; i < EMU_MAX_GP; i++) {
		all[n++] = EMU_MSR_V6_GP0_CFG_B + EMU_MSR_V6_STEP * i;
		all[n++] = EMU_MSR_V6_GP0_CFG_C + EMU_MSR_V6_STEP * i;
	}
	/*
	 * IA32_A_PMCx and the v6 aliases name the same registers as IA32_PMCx
	 * and IA32_PERFEVTSELx: listing them would repeat them. Write-only
	 * 0x390/0x391 read 0.
	 */
	for (size_t i = 0; i < n; i++) {
		if (emu_read_reg(pmu, cpu, all[i], &val) != 0)
			continue;
		if (out < max)
			msrs[out] = all[i];
		out++;
	}
	return out;
}

const char *
emu_msr_name(uint32_t msr, char *buf, size_t size)
{
	static const struct {
		uint32_t msr;
		const char *name;
	} singles[] = {
		{ MSR_OFFCORE_RSP_0, "MSR_OFFCORE_RSP_0" },
		{ MSR_OFFCORE_RSP_1, "MSR_OFFCORE_RSP_1" },
		{ EMU_MSR_DEBUGCTL, "IA32_DEBUGCTL" },
		{ EMU_MSR_PERF_METRICS, "IA32_PERF_METRICS" },
		{ MSR_IA32_PERF_CAPABILITIES, "IA32_PERF_CAPABILITIES" },
		{ MSR_IA32_FIXED_CTR_CTRL, "IA32_FIXED_CTR_CTRL" },
		{ MSR_IA32_PERF_GLOBAL_STATUS, "IA32_PERF_GLOBAL_STATUS" },
		{ MSR_IA32_PERF_GLOBAL_CTRL, "IA32_PERF_GLOBAL_CTRL" },
		{ MSR_IA32_PERF_GLOBAL_STATUS_RESET, "IA32_PERF_GLOBAL_STATUS_RESET" },
		{ MSR_IA32_PERF_GLOBAL_STATUS_SET, "IA32_PERF_GLOBAL_STATUS_SET" },
		{ MSR_IA32_PERF_GLOBAL_INUSE, "IA32_PERF_GLOBAL_INUSE" },
		{ EMU_MSR_PEBS_ENABLE, "IA32_PEBS_ENABLE" },
	};
	unsigned i;

	for (size_t k = 0; k < sizeof(singles) / sizeof(singles[0]); k++)
		if (singles[k].msr == msr) {
			snprintf(buf, size, "%s", singles[k].name);
			return buf;
		}
	if (emu_in_range(msr, MSR_IA32_PERFEVTSEL0, EMU_MAX_GP, &i))
		snprintf(buf, size, "IA32_PERFEVTSEL%u", i);
	else if (emu_in_range(msr, MSR_IA32_PMC0, EMU_MAX_GP, &i))
		snprintf(buf, size, "IA32_PMC%u", i);
	else if (emu_in_range(msr, MSR_IA32_A_PMC0, EMU_MAX_GP, &i))
		snprintf(buf, size, "IA32_A_PMC%u", i);
	else if (emu_in_range(msr, MSR_IA32_FIXED_CTR0, EMU_MAX_FIXED, &i))
		snprintf(buf, size, "IA32_FIXED_CTR%u", i);
	else if (emu_in_range(msr, EMU_MSR_V6_GP0_CTR, EMU_MAX_GP * EMU_MSR_V6_STEP, &i))
		snprintf(buf, size, "IA32_PMC_GP%u_%s", i / EMU_MSR_V6_STEP,
			 (const char *[]){ "CTR", "CFG_A", "CFG_B", "CFG_C" }[i % EMU_MSR_V6_STEP]);
	else if (emu_in_range(msr, EMU_MSR_V6_FX0_CTR, EMU_MAX_FIXED * EMU_MSR_V6_STEP, &i) &&
		 i % EMU_MSR_V6_STEP == 0)
		snprintf(buf, size, "IA32_PMC_FX%u_CTR", i / EMU_MSR_V6_STEP);
	else
		snprintf(buf, size, "MSR_0x%" PRIx32, msr);
	return buf;
}

/* NetBurst's counters share addresses with the architectural fixed counters. */
static const char *
msr_name(const struct emu_core_type *t, uint32_t msr, char *buf, size_t size)
{
	if (t->zen)
		return emu_zen_msr_name(msr, buf, size);
	return t->netburst ? emu_nb_msr_name(msr, buf, size) : emu_msr_name(msr, buf, size);
}

static void
json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(out, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", out);
		else if ((unsigned char)*s < 0x20)
			fprintf(out, "\\u%04x", (unsigned char)*s);
		else
			fputc(*s, out);
	}
	fputc('"', out);
}

static void
dump_json(const struct emu_pmu *pmu, int only, FILE *out)
{
	const struct emu_config *cfg = &pmu->config;
	uint32_t msrs[EMU_MAX_MSRS];
	bool first = true;

	fprintf(out, "{\"model\":\"%s\",\"ncpus\":%u,\"rdpmc\":%s,\"msr\":\"%s\",\"watchdog\":%s,",
		emu_model_name(cfg->model), pmu->ncpus, cfg->rdpmc_off ? "false" : "true",
		emu_msr_access_name(cfg->msr), cfg->watchdog ? "true" : "false");
	fprintf(out, "\"files\":{");
	for (int f = 0; f < HW_FILE_COUNT; f++) {
		fprintf(out, "%s\"%s\":", f ? "," : "", hw_file_key((enum hw_file)f));
		if (emu_file(pmu, f))
			json_string(out, emu_file(pmu, f));
		else
			fprintf(out, "null");
	}
	fprintf(out, "},\"cpus\":[");
	for (unsigned c = 0; c < pmu->ncpus; c++) {
		const struct emu_core_type *t = emu_cpu_type(pmu, c);
		const struct emu_stats *s = &pmu->cpu[c].stats;
		size_t n;

		if (only >= 0 && (unsigned)only != c)
			continue;
		n = emu_msr_list(pmu, c, msrs, EMU_MAX_MSRS);
		fprintf(out, "%s{\"cpu\":%u,\"type\":\"%s\",\"version\":%u,\"gp\":%u,\"gp_width\":%u,"
			"\"fixed\":%u,\"fixed_width\":%u,\"gp_mask\":\"0x%" PRIx32 "\","
			"\"fixed_mask\":\"0x%" PRIx32 "\",", first ? "" : ",", c, t->name, t->version,
			popcount(t->gp_mask), t->gp_width, popcount(t->fixed_mask), t->fixed_width,
			t->gp_mask, t->fixed_mask);
		fprintf(out, "\"stats\":{\"rdmsr\":%" PRIu64 ",\"wrmsr\":%" PRIu64
			",\"gp_faults\":%" PRIu64 ",\"rdpmc\":%" PRIu64 ",\"retired\":%" PRIu64 "},",
			s->rdmsr, s->wrmsr, s->gp_faults, s->rdpmc, s->retired);
		fprintf(out, "\"msrs\":{");
		for (size_t i = 0; i < n && i < EMU_MAX_MSRS; i++) {
			uint64_t val = 0;

			emu_read_reg(pmu, c, msrs[i], &val);
			fprintf(out, "%s\"0x%" PRIx32 "\":\"0x%" PRIx64 "\"", i ? "," : "", msrs[i], val);
		}
		fprintf(out, "}}");
		first = false;
	}
	fprintf(out, "]}\n");
}

void
emu_pmu_dump(const struct emu_pmu *pmu, int only, bool json, FILE *out)
{
	const struct emu_config *cfg = &pmu->config;
	uint32_t msrs[EMU_MAX_MSRS];
	char name[40];

	if (json) {
		dump_json(pmu, only, out);
		return;
	}
	fprintf(out, "model %s, %u CPUs, rdpmc %s, msr %s, watchdog %s\n",
		emu_model_name(cfg->model), pmu->ncpus, cfg->rdpmc_off ? "off" : "on",
		emu_msr_access_name(cfg->msr), cfg->watchdog ? "on" : "off");
	for (int f = 0; f < HW_FILE_COUNT; f++) {
		const char *text = emu_file(pmu, f);
		size_t len = text ? strcspn(text, "\n") : 0;

		fprintf(out, "  %-20s %s%.*s%s\n", hw_file_key((enum hw_file)f), text ? "\"" : "(absent)",
			(int)len, text ? text : "", text ? "\"" : "");
	}
	for (unsigned c = 0; c < pmu->ncpus; c++) {
		const struct emu_core_type *t = emu_cpu_type(pmu, c);
		const struct emu_stats *s = &pmu->cpu[c].stats;
		size_t n;

		if (only >= 0 && (unsigned)only != c)
			continue;
		if (t->netburst)
			fprintf(out, "cpu %u: %s, NetBurst, 18 counters x 40 bits, ESCR/CCCR%s", c,
				t->name, t->nb_ht ? (emu_nb_apic_id(pmu, c) & 1 ? ", HT thread 1" : ", HT thread 0") : "");
		else
			fprintf(out, "cpu %u: %s, perfmon v%u, %u GP x %u bits, %u fixed x %u bits",
				c, t->name, t->version, popcount(t->gp_mask), t->gp_width,
				popcount(t->fixed_mask), t->fixed_width);
		if (t->fixed_mask != emu_low_bits(popcount(t->fixed_mask)))
			fprintf(out, " (fixed 0x%" PRIx32 ")", t->fixed_mask);
		fprintf(out, "\n");
		fprintf(out, "  accesses: %" PRIu64 " rdmsr, %" PRIu64 " wrmsr, %" PRIu64
			" #GP, %" PRIu64 " rdpmc, %" PRIu64 " retire calls\n",
			s->rdmsr, s->wrmsr, s->gp_faults, s->rdpmc, s->retired);
		n = emu_msr_list(pmu, c, msrs, EMU_MAX_MSRS);
		for (size_t i = 0; i < n && i < EMU_MAX_MSRS; i++) {
			uint64_t val = 0;

			emu_read_reg(pmu, c, msrs[i], &val);
			fprintf(out, "  %-26s 0x%03" PRIx32 "  0x%016" PRIx64 "\n",
				msr_name(t, msrs[i], name, sizeof(name)), msrs[i], val);
		}
	}
}

unsigned
emu_pmu_diff(const struct emu_pmu *a, const struct emu_pmu *b, FILE *out)
{
	uint32_t msrs[EMU_MAX_MSRS];
	char name[40];
	unsigned diffs = 0;

	if (a->config.model != b->config.model || a->ncpus != b->ncpus ||
	    a->ntypes != b->ntypes) {
		if (out)
			fprintf(out, "machine: %s with %u CPUs -> %s with %u CPUs\n",
				emu_model_name(a->config.model), a->ncpus,
				emu_model_name(b->config.model), b->ncpus);
		return 1;
	}
	for (unsigned c = 0; c < a->ncpus; c++) {
		size_t n;

		if (a->cpu[c].type != b->cpu[c].type) {
			if (out)
				fprintf(out, "cpu %u: core type %s -> %s\n", c,
					emu_cpu_type(a, c)->name, emu_cpu_type(b, c)->name);
			diffs++;
			continue;
		}
		n = emu_msr_list(a, c, msrs, EMU_MAX_MSRS);
		for (size_t i = 0; i < n && i < EMU_MAX_MSRS; i++) {
			uint64_t va = 0, vb = 0;

			emu_read_reg(a, c, msrs[i], &va);
			emu_read_reg(b, c, msrs[i], &vb);
			if (va == vb)
				continue;
			diffs++;
			if (out)
				fprintf(out, "cpu %u %s (0x%" PRIx32 "): 0x%" PRIx64 " -> 0x%" PRIx64 "\n",
					c, msr_name(emu_cpu_type(a, c), msrs[i], name, sizeof(name)),
					msrs[i], va, vb);
		}
	}
	return diffs;
}
