#include "access.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cpu.h"
#include "hw.h"

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

static void
read_counters(struct hw *hw, const struct cpu_info *info, int cpu, struct access_report *r)
{
	const struct pmu_caps *p = &info->pmu;
	uint64_t v;
	int ret;

	ret = hw_rdmsr(hw, cpu, MSR_IA32_PERF_GLOBAL_CTRL, &r->global_ctrl);
	if (ret == 0)
		ret = hw_rdmsr(hw, cpu, MSR_IA32_FIXED_CTR_CTRL, &r->fixed_ctrl);
	for (unsigned i = 0; ret == 0 && i < PMU_MAX_GP; i++) {
		if (!(p->gp_mask & (1u << i)))
			continue;
		ret = hw_rdmsr(hw, cpu, msr_evtsel(i), &v);
		/* In use: enabled, or programmed with an event and left disabled. */
		if (ret == 0 && ((v & EVTSEL_EN) || (v & 0xffff)))
			r->gp_busy |= 1u << i;
	}
	for (unsigned i = 0; ret == 0 && i < PMU_MAX_FIXED; i++) {
		if ((p->fixed_mask & (1u << i)) && FIXED_CTRL_FIELD(r->fixed_ctrl, i))
			r->fixed_busy |= 1u << i;
	}
	if (ret == 0 && p->version >= 4) {
		ret = hw_rdmsr(hw, cpu, MSR_IA32_PERF_GLOBAL_INUSE, &v);
		if (ret == 0) {
			r->gp_busy |= (uint32_t)v & p->gp_mask & ((1u << PMU_MAX_GP) - 1);
			r->fixed_busy |= (uint32_t)(v >> 32) & p->fixed_mask & ((1u << PMU_MAX_FIXED) - 1);
		}
	}
	r->counters_read = ret;
}

void
access_check(struct hw *hw, const struct cpu_info *info, int cpu, struct access_report *r)
{
	memset(r, 0, sizeof(*r));
	r->checked = true;
	r->write_probe = ACCESS_NOT_TRIED;
	r->rdpmc = ACCESS_NOT_TRIED;
	r->counters_read = ACCESS_NOT_TRIED;

	/* Hybrid parts have a PMU per core type, each with its own rdpmc file. */
	r->rdpmc_source = HW_FILE_RDPMC;
	if (info->hybrid && info->core_type == CPU_CORE_TYPE_CORE)
		r->rdpmc_source = HW_FILE_RDPMC_CPU_CORE;
	else if (info->hybrid && info->core_type == CPU_CORE_TYPE_ATOM)
		r->rdpmc_source = HW_FILE_RDPMC_CPU_ATOM;
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
		r->write_probe = hw_wrmsr(hw, cpu, MSR_IA32_PERF_GLOBAL_STATUS_RESET, 0);
	if (r->msr_read == 0)
		read_counters(hw, info, cpu, r);
	if (info->pmu.version >= 2)
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
		if (!(r->fixed_busy & (1u << i)))
			continue;
		fprintf(out, " fixed%u", i);
		/* Linux's NMI watchdog counts cycles on fixed counter 1: field 0xB. */
		if (i == 1 && FIXED_CTRL_FIELD(r->fixed_ctrl, 1) == 0xb && strcmp(r->nmi_watchdog, "1") == 0)
			fprintf(out, " (NMI watchdog)");
		any = true;
	}
	for (unsigned i = 0; i < PMU_MAX_GP; i++) {
		if (r->gp_busy & (1u << i)) {
			fprintf(out, " pmc%u", i);
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
	fprintf(out, "  NMI watchdog %s\n", r->nmi_watchdog[0] ? (strcmp(r->nmi_watchdog, "0") ? "on (holds fixed counter 1)" : "off") : "unknown");
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
		char name[16];

		for (unsigned i = 0; i < PMU_MAX_FIXED; i++) {
			if (r->fixed_busy & (1u << i)) {
				snprintf(name, sizeof(name), "fixed%u", i);
				json_array_append_new(busy, json_string(name));
			}
		}
		for (unsigned i = 0; i < PMU_MAX_GP; i++) {
			if (r->gp_busy & (1u << i)) {
				snprintf(name, sizeof(name), "pmc%u", i);
				json_array_append_new(busy, json_string(name));
			}
		}
		json_object_set_new(o, "counters_in_use", busy);
	} else {
		json_decref(busy);
		json_object_set_new(o, "counters_in_use", json_null());
	}
	return o;
}
