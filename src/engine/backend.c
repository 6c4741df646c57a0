/*
 * backend.c - the --backend choice. The MSR checks are access.c's, minus
 * its write probe: choosing must not write an MSR (a run that then refuses,
 * e.g. counters busy, must have written nothing), so lockdown and
 * msr.allow_writes are read from their files instead.
 */
#include "engine/backend.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pmu/family.h"
#include "pmu/access.h"
#include "events/cpu.h"
#include "hw/hw.h"

int
backend_parse(const char *s, enum backend *out)
{
	if (strcmp(s, "auto") == 0)
		*out = BACKEND_AUTO;
	else if (strcmp(s, "msr") == 0)
		*out = BACKEND_MSR;
	else if (strcmp(s, "perf") == 0)
		*out = BACKEND_PERF;
	else if (strcmp(s, "sim") == 0)
		*out = BACKEND_SIM;
	else
		return -EINVAL;
	return 0;
}

const char *
backend_name(enum backend b)
{
	switch (b) {
	case BACKEND_AUTO: return "auto";
	case BACKEND_MSR: return "msr";
	case BACKEND_PERF: return "perf";
	case BACKEND_SIM: return "sim";
	}
	return "?";
}

static bool
file_says(struct hw *hw, enum hw_file file, const char *word)
{
	char buf[256];

	if (hw_read_file(hw, file, buf, sizeof(buf)) < 0)
		return false;
	return strstr(buf, word) != NULL;
}

bool
backend_msr_blocked(struct hw *hw, const struct cpu_info *cpu, int core, char *why, size_t size)
{
	struct access_report r;

	if (!cpu_can_count(cpu)) {
		snprintf(why, size, "%s", cpu_why(cpu));
		return true;
	}
	memset(&r, 0, sizeof(r));
	r.checked = true;
	r.rdpmc = ACCESS_NOT_TRIED;
	r.counters_read = ACCESS_NOT_TRIED;
	r.msr_read = hw_msr_open(hw, core, false);
	r.msr_write = r.msr_read == 0 ? hw_msr_open(hw, core, true) : ACCESS_NOT_TRIED;
	r.write_probe = ACCESS_NOT_TRIED;
	if (file_says(hw, HW_FILE_LOCKDOWN, "[integrity]"))
		snprintf(r.lockdown, sizeof(r.lockdown), "integrity");
	else if (file_says(hw, HW_FILE_LOCKDOWN, "[confidentiality]"))
		snprintf(r.lockdown, sizeof(r.lockdown), "confidentiality");
	if (file_says(hw, HW_FILE_MSR_ALLOW_WRITES, "off"))
		snprintf(r.allow_writes, sizeof(r.allow_writes), "off");
	/* What the msr driver answers to a write under either. */
	if (r.msr_write == 0 && (r.lockdown[0] || r.allow_writes[0]))
		r.write_probe = -EPERM;
	return access_blocker(&r, core, why, size);
}

enum backend
backend_choose(enum backend asked, unsigned hw_events, struct hw *hw, const struct cpu_info *cpu,
	       int core, char *why, size_t size)
{
	why[0] = '\0';
	if (asked != BACKEND_AUTO)
		return asked;
	if (hw_events == 0)
		return BACKEND_PERF;
	/* perf_event has no encoding of these events: the MSR path, or its reason why not. */
	if (cpu->pmu.family && cpu->pmu.family->msr_only)
		return BACKEND_MSR;
	if (backend_msr_blocked(hw, cpu, core, why, size))
		return BACKEND_PERF;
	return BACKEND_MSR;
}
