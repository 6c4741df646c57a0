/*
 * fuzz_event_spec.c - the -e grammar (event_spec_parse/append/suggest).
 *
 * Input: byte 0 picks the context, the rest is what the user typed. Bits
 * 1:0 of byte 0 pick the event table (none, skylake, icelake,
 * alderlake_goldencove), bits 4:2 the PMU (see caps[] below). The text is
 * split at newlines into separate -e options (event_spec_append, as
 * cmd_stat does); the whole text also goes through event_spec_parse in one
 * piece; unknown names reach the did-you-mean ranking through the error path.
 * Seeds start with a printable selector, e.g. "Acycles:k".
 *
 * Checked beyond "no crash": every error has a message; every event
 * returned can be programmed on the PMU it was parsed for (a GP mask within
 * the PMU's counters, a fixed counter that exists, user or kernel mode).
 */
#include "fuzz_util.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "events/cpu.h"
#include "events/event.h"
#include "events/event_spec.h"
#include "events/event_table.h"
#include "pmu/msr.h"
#include "base/err.h"

static const char *const table_names[] = { NULL, "skylake", "icelake", "alderlake_goldencove" };
static struct event_table *tables[4];

/* PMUs as cpu_decode() reports them for real and odd CPUs. */
static const struct pmu_caps caps[8] = {
	/* Skylake client: v4, 4 GP, 3 fixed, all arch events. */
	{ .version = 4, .gp_counters = 4, .gp_mask = 0xf, .gp_width = 48, .fixed_counters = 3,
	  .fixed_mask = 0x7, .fixed_width = 48, .arch_events_len = 7 },
	/* Ice Lake: v5, 8 GP, 4 fixed, AnyThread deprecated. */
	{ .version = 5, .gp_counters = 8, .gp_mask = 0xff, .gp_width = 48, .fixed_counters = 4,
	  .fixed_mask = 0xf, .fixed_width = 48, .arch_events_len = 8, .anythread_deprecated = true },
	/* Perfmon v6 (UMASK2, EQ), 10 GP: more than pmustat programs. */
	{ .version = 6, .gp_counters = 10, .gp_mask = 0x3ff, .gp_width = 48, .fixed_counters = 4,
	  .fixed_mask = 0xf, .fixed_width = 48, .arch_events_len = 13 },
	/* Core 2: v2, 2 GP, 3 fixed. */
	{ .version = 2, .gp_counters = 2, .gp_mask = 0x3, .gp_width = 40, .fixed_counters = 3,
	  .fixed_mask = 0x7, .fixed_width = 40, .arch_events_len = 7 },
	/* A VM with GP counters only, some arch events missing. */
	{ .version = 2, .gp_counters = 4, .gp_mask = 0xf, .gp_width = 48,
	  .arch_events_len = 7, .arch_events_unavailable = 0x55 },
	/* Fixed counters only. */
	{ .version = 4, .fixed_counters = 3, .fixed_mask = 0x7, .fixed_width = 48,
	  .arch_events_len = 7 },
	/* v5 with holes in the fixed mask and a sparse GP mask. */
	{ .version = 5, .gp_counters = 3, .gp_mask = 0x13, .gp_width = 48, .fixed_counters = 3,
	  .fixed_mask = 0x0b, .fixed_width = 48, .arch_events_len = 31 },
	/* Everything CPUID can claim. */
	{ .version = 255, .gp_counters = 255, .gp_mask = 0xffffffff, .gp_width = 255,
	  .fixed_counters = 32, .fixed_mask = 0xffffffff, .fixed_width = 255,
	  .arch_events_len = 255 },
};

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct pmustat_error *err = NULL;

	(void)argc;
	(void)argv;
	for (size_t i = 1; i < sizeof(tables) / sizeof(tables[0]); i++) {
		if (event_table_load(fuzz_events_dir(), table_names[i], &tables[i], &err) != 0)
			fuzz_fail("cannot load the %s table: %s", table_names[i], err_msg(err));
	}
	err_clear(&err);
	return 0;
}

static void
check_events(const struct event *evs, size_t n, const struct pmu_caps *pmu)
{
	for (size_t i = 0; i < n; i++) {
		const struct event *ev = &evs[i];

		if (!memchr(ev->name, '\0', sizeof(ev->name)) ||
		    !memchr(ev->requested, '\0', sizeof(ev->requested)) || !ev->name[0])
			fuzz_fail("event %zu: name not terminated or empty", i);
		/* Kernel software events (task-clock, ...) use no PMU counter. */
		if (ev->flags & EVENT_F_SOFTWARE) {
			if (ev->gp_mask || ev->fixed >= 0 || ev->extra_msr)
				fuzz_fail("software event '%s' on a PMU counter", ev->requested);
			continue;
		}
		if (ev->gp_mask & ~(pmu->gp_mask & ((1u << PMU_MAX_GP) - 1)))
			fuzz_fail("event '%s': GP mask 0x%x beyond the PMU's 0x%x",
				  ev->requested, ev->gp_mask, pmu->gp_mask);
		if (ev->fixed >= 0 && (ev->fixed >= PMU_MAX_FIXED ||
				       !(pmu->fixed_mask & (1u << ev->fixed))))
			fuzz_fail("event '%s': fixed counter %d does not exist", ev->requested,
				  ev->fixed);
		if (ev->fixed < 0 && !ev->gp_mask)
			fuzz_fail("event '%s': no counter at all", ev->requested);
		if (!ev->usr && !ev->os)
			fuzz_fail("event '%s': neither user nor kernel", ev->requested);
		if (ev->umask_ext && pmu->version < 6)
			fuzz_fail("event '%s': UMASK2 on a v%u PMU", ev->requested, pmu->version);
		if (ev->extra_msr && ev->extra_msr != MSR_OFFCORE_RSP_0 &&
		    ev->extra_msr != MSR_OFFCORE_RSP_1)
			fuzz_fail("event '%s': extra MSR 0x%x", ev->requested, ev->extra_msr);
	}
}

static void
check_error(int ret, const struct pmustat_error *err)
{
	if (ret != -EINVAL && ret != -ENOMEM)
		fuzz_fail("unexpected return %d", ret);
	if (!err_msg(err)[0])
		fuzz_fail("error %d without a message", ret);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct event_table *table;
	const struct pmu_caps *pmu;
	struct event *evs = NULL;
	size_t n = 0;
	struct pmustat_error *err = NULL;
	char *text, *line, *save = NULL;
	int ret;

	if (size < 1)
		return 0;
	table = tables[data[0] & 3];
	pmu = &caps[(data[0] >> 2) & 7];
	text = fuzz_strndup(data + 1, size - 1);

	err_clear(&err);
	ret = event_spec_parse(text, table, pmu, &evs, &n, &err);
	if (ret == 0)
		check_events(evs, n, pmu);
	else if (evs || n)
		fuzz_fail("failed parse returned events");
	else
		check_error(ret, err);
	free(evs);

	/* The same text as several -e options. */
	evs = NULL;
	n = 0;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t before = n;

		err_clear(&err);
		ret = event_spec_append(line, table, pmu, &evs, &n, &err);
		if (ret) {
			check_error(ret, err);
			if (n != before)
				fuzz_fail("failed append changed the count");
		}
	}
	check_events(evs, n, pmu);
	free(evs);
	free(text);
	err_clear(&err);
	return 0;
}
