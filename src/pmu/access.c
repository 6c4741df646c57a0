#include "pmu/access.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "events/cpu.h"
#include "hw/cpulock.h"
#include "hw/hw.h"
#include "pmu/family.h"
#include "pmu/pmu.h"
#include "pmu/snapshot.h"

static void
read_setting(struct hw *hw, enum hw_file file, char *out, size_t size)
{
	if (hw_read_file(hw, file, out, size) < 0) {
		out[0] = '\0';
		return;
	}
	out[strcspn(out, "\n")] = '\0';
}

/* /sys/kernel/security/lockdown reads "none [integrity] confidentiality". */
static void
read_lockdown(struct hw *hw, char *out, size_t size)
{
	char buf[256];
	char *open, *close;

	out[0] = '\0';
	if (hw_read_file(hw, HW_FILE_LOCKDOWN, buf, sizeof(buf)) < 0)
		return;
	open = strchr(buf, '[');
	close = open ? strchr(open, ']') : NULL;
	if (!open || !close)
		return;
	*close = '\0';
	if ((size_t)(close - open) > size)
		return;
	memcpy(out, open + 1, (size_t)(close - open));
}

/* Counters in use and their likely owners: owner.h's rule. */
static void
read_counters(struct hw *hw, const struct cpu_info *info, int cpu, struct access_report *r)
{
	struct pmu_owner_hints hints;
	struct pmu_occupancy occ;
	struct pmu_snapshot st;

	r->counters_read = pmu_snapshot_read(hw, cpu, &info->pmu, &st, NULL);
	if (r->counters_read)
		return;
	memset(&hints, 0, sizeof(hints));
	hints.watchdog_on = pmu_owner_watchdog_on(r->nmi_watchdog);
	hints.live_pid = cpulock_holder(cpu);
	pmu_snapshot_occupancy(&st, &hints, &occ);
	r->gp_busy = occ.busy_gp;
	r->fixed_busy = occ.busy_fixed;
	r->global_ctrl = st.global_ctrl;
	r->fixed_ctrl = st.fixed_ctrl;
	memcpy(r->owner_gp, occ.gp, sizeof(r->owner_gp));
	memcpy(r->owner_fixed, occ.fixed, sizeof(r->owner_fixed));
}

/* A PMU family with registers of its own (pmu/family.h), not IA32_PMCx and IA32_PERFEVTSELx. */
static bool
own_registers(const struct cpu_info *info)
{
	return info->pmu.family && info->pmu.family->open;
}

/*
 * kernel.nmi_watchdog says whether a hard-lockup detector runs, not which:
 * since Linux 6.5 the "buddy" detector may run in place of the perf NMI
 * watchdog and holds no counter. The registers say whether fixed counter 1
 * is the watchdog's.
 */
static const char *
watchdog_text(const struct access_report *r)
{
	if (!r->nmi_watchdog[0])
		return "unknown";
	if (strcmp(r->nmi_watchdog, "0") == 0)
		return "off";
	if (r->counters_read)
		return "on (kernel.nmi_watchdog; the counters were not read: whether it holds one is unknown)";
	if ((r->fixed_busy & 2) && r->owner_fixed[1] == PMU_OWNER_NMI_WATCHDOG)
		return "on (holds fixed counter 1)";
	return "on, holding no counter of this core (kernel.nmi_watchdog is 1 and fixed counter 1 is not programmed as its: Linux's buddy hard-lockup detector, 6.5 on, uses none)";
}

enum hw_file
access_rdpmc_file(const struct cpu_info *info)
{
	/* Hybrid parts have a PMU per core type, each with its own rdpmc file. */
	if (info->hybrid && info->core_type == CPU_CORE_TYPE_CORE)
		return HW_FILE_RDPMC_CPU_CORE;
	if (info->hybrid && info->core_type == CPU_CORE_TYPE_ATOM)
		return HW_FILE_RDPMC_CPU_ATOM;
	return HW_FILE_RDPMC;
}

void
access_check(struct hw *hw, const struct cpu_info *info, int cpu, struct access_report *r)
{
	memset(r, 0, sizeof(*r));
	r->checked = true;
	r->write_probe = ACCESS_NOT_TRIED;
	r->rdpmc = ACCESS_NOT_TRIED;
	r->counters_read = ACCESS_NOT_TRIED;

	r->rdpmc_source = access_rdpmc_file(info);
	read_setting(hw, r->rdpmc_source, r->rdpmc_file, sizeof(r->rdpmc_file));
	read_setting(hw, HW_FILE_NMI_WATCHDOG, r->nmi_watchdog, sizeof(r->nmi_watchdog));
	read_setting(hw, HW_FILE_MSR_ALLOW_WRITES, r->allow_writes, sizeof(r->allow_writes));
	read_lockdown(hw, r->lockdown, sizeof(r->lockdown));

	r->msr_read = hw_msr_open(hw, cpu, false);
	r->msr_write = r->msr_read == 0 ? hw_msr_open(hw, cpu, true) : ACCESS_NOT_TRIED;

	/*
	 * Opening the device for writing is allowed under lockdown and with
	 * msr.allow_writes=off; only a write tells. IA32_PERF_GLOBAL_STATUS_RESET
	 * is write-1-to-clear, so writing 0 to it changes nothing: a safe probe.
	 */
	if (r->msr_write == 0 && info->pmu.version >= 2)
		r->write_probe = pmu_write_probe(hw, cpu, &info->pmu);
	/*
	 * A family with registers of its own may have none that a write
	 * leaves unchanged whoever holds it: no probe, but what the msr
	 * driver answers to any write under lockdown or msr.allow_writes=off.
	 */
	if (r->msr_write == 0 && own_registers(info) &&
	    (strcmp(r->lockdown, "integrity") == 0 || strcmp(r->lockdown, "confidentiality") == 0 ||
	     strcmp(r->allow_writes, "off") == 0))
		r->write_probe = -EPERM;
	if (r->msr_read == 0 && !own_registers(info))
		read_counters(hw, info, cpu, r);
	if (info->pmu.version >= 2 || own_registers(info))
		r->rdpmc = hw_rdpmc_probe(hw, cpu);
}

bool
access_blocker(const struct access_report *r, int cpu, char *buf, size_t size)
{
	if (r->msr_read < 0) {
		snprintf(buf, size, "cannot count: /dev/cpu/%d/msr: %s; %s", cpu, strerror(-r->msr_read),
			 hw_msr_hint(r->msr_read, false));
		return true;
	}
	if (r->msr_write < 0) {
		snprintf(buf, size, "cannot count: /dev/cpu/%d/msr is read-only for us: %s; %s", cpu,
			 strerror(-r->msr_write), hw_msr_hint(r->msr_write, true));
		return true;
	}
	if (r->write_probe < 0) {
		const char *why = "";

		if (strcmp(r->lockdown, "integrity") == 0 || strcmp(r->lockdown, "confidentiality") == 0)
			why = " (kernel lockdown is on)";
		else if (strcmp(r->allow_writes, "off") == 0)
			why = " (msr.allow_writes=off)";
		snprintf(buf, size, "cannot count: writing MSR 0x%x on CPU %d failed: %s%s; %s",
			 MSR_IA32_PERF_GLOBAL_STATUS_RESET, cpu, strerror(-r->write_probe), why,
			 hw_msr_hint(r->write_probe, true));
		return true;
	}
	return false;
}

static const char *
status_text(int v, char *buf, size_t size)
{
	if (v == ACCESS_NOT_TRIED)
		return "not checked";
	if (v == 0)
		return "ok";
	snprintf(buf, size, "%s", strerror(-v));
	return buf;
}

static void
print_busy(FILE *out, const struct access_report *r)
{
	bool any = false;

	for (unsigned i = 0; i < PMU_MAX_FIXED; i++) {
		if (r->fixed_busy & (1u << i)) {
			fprintf(out, " fixed%u (%s)", i, pmu_owner_name(r->owner_fixed[i]));
			any = true;
		}
	}
	for (unsigned i = 0; i < PMU_MAX_GP; i++) {
		if (r->gp_busy & (1u << i)) {
			fprintf(out, " pmc%u (%s)", i, pmu_owner_name(r->owner_gp[i]));
			any = true;
		}
	}
	if (!any)
		fprintf(out, " none");
}

void
access_print(const struct access_report *r, int cpu, FILE *out)
{
	char b[128];

	fprintf(out, "access on CPU %d\n", cpu);
	fprintf(out, "  msr driver   /dev/cpu/%d/msr read %s, write %s\n", cpu,
		status_text(r->msr_read, b, sizeof(b)), r->msr_read ? "not checked" : status_text(r->msr_write, b, sizeof(b)));
	fprintf(out, "  MSR writes   %s (lockdown: %s, msr.allow_writes: %s)\n",
		status_text(r->write_probe, b, sizeof(b)),
		r->lockdown[0] ? r->lockdown : "unknown", r->allow_writes[0] ? r->allow_writes : "unknown");
	if (r->rdpmc == 0 || r->rdpmc == ACCESS_NOT_TRIED)
		fprintf(out, "  rdpmc        %s (%s: %s)\n", r->rdpmc ? "not checked" : "allowed",
			hw_file_path(r->rdpmc_source), r->rdpmc_file[0] ? r->rdpmc_file : "unreadable");
	else
		fprintf(out, "  rdpmc        not allowed (%s: %s); pmustat reads counters through MSRs; 'echo 2 | sudo tee %s' allows rdpmc\n",
			hw_file_path(r->rdpmc_source), r->rdpmc_file[0] ? r->rdpmc_file : "unreadable",
			hw_file_path(r->rdpmc_source));
	fprintf(out, "  NMI watchdog %s\n", watchdog_text(r));
	if (r->counters_read == 0) {
		fprintf(out, "  in use      ");
		print_busy(out, r);
		fprintf(out, "\n");
	}
}

static json_t *
json_status(int v)
{
	if (v == ACCESS_NOT_TRIED)
		return json_null();
	return json_string(v == 0 ? "ok" : strerror(-v));
}

static json_t *
json_setting(const char *s)
{
	return s[0] ? json_string(s) : json_null();
}

json_t *
access_json(const struct access_report *r)
{
	json_t *o = json_object();
	json_t *busy = json_array();

	json_object_set_new(o, "msr_read", json_status(r->msr_read));
	json_object_set_new(o, "msr_write", json_status(r->msr_write));
	json_object_set_new(o, "msr_write_probe", json_status(r->write_probe));
	json_object_set_new(o, "rdpmc", r->rdpmc == ACCESS_NOT_TRIED ? json_null() : json_boolean(r->rdpmc == 0));
	json_object_set_new(o, "rdpmc_sysfs", json_setting(r->rdpmc_file));
	json_object_set_new(o, "rdpmc_sysfs_path", json_string(hw_file_path(r->rdpmc_source)));
	json_object_set_new(o, "nmi_watchdog", json_setting(r->nmi_watchdog));
	json_object_set_new(o, "lockdown", json_setting(r->lockdown));
	json_object_set_new(o, "msr_allow_writes", json_setting(r->allow_writes));
	if (r->counters_read == 0) {
		json_t *owners = json_object();
		char name[16];

		for (unsigned i = 0; i < PMU_MAX_FIXED; i++) {
			if (r->fixed_busy & (1u << i)) {
				snprintf(name, sizeof(name), "fixed%u", i);
				json_array_append_new(busy, json_string(name));
				json_object_set_new(owners, name, json_string(pmu_owner_name(r->owner_fixed[i])));
			}
		}
		for (unsigned i = 0; i < PMU_MAX_GP; i++) {
			if (r->gp_busy & (1u << i)) {
				snprintf(name, sizeof(name), "pmc%u", i);
				json_array_append_new(busy, json_string(name));
				json_object_set_new(owners, name, json_string(pmu_owner_name(r->owner_gp[i])));
			}
		}
		json_object_set_new(o, "counters_in_use", busy);
		json_object_set_new(o, "counter_owners", owners);
	} else {
		json_decref(busy);
		json_object_set_new(o, "counters_in_use", json_null());
		json_object_set_new(o, "counter_owners", json_null());
	}
	return o;
}
