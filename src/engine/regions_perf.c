/*
 * regions_perf.c - see regions_perf.h.
 */
#include "engine/regions_perf.h"

#include <errno.h>
#include <string.h>

#include "base/err.h"
#include "engine/perf_counters.h"
#include "events/event.h"
#include "region/rdpmc_perm.h"

int
regions_perf_usable(const struct perf_seam *p, struct hw *hw, enum hw_file rdpmc_file, const char *backend_why,
		    struct pmustat_error **err)
{
	struct perf_env env;
	int v;

	perf_env_probe(p, hw, &env);
	if (!env.cpu_pmu)
		return err_set(err, -ENODEV,
			       "--regions: with the perf backend the command reads the kernel's counters through perf's self-monitoring pages, and this kernel has no PMU driver for the CPU (no /sys/bus/event_source/devices/cpu: a virtual machine without a virtual PMU?), so it counts no hardware event in any region; give the VM a PMU, or count with the MSR backend (root, the msr driver)%s%s",
			       backend_why && backend_why[0] ? ", which is closed here: " : "",
			       backend_why ? backend_why : "");
	v = rdpmc_perm_read(hw, rdpmc_file);
	if (v == 0)
		return err_set(err, -EACCES,
			       "--regions: %s is 0, which makes rdpmc fault even in a process that mapped its perf events, so the command cannot read its counters; set it to 1, the kernel's default (echo 1 | sudo tee %s)",
			       hw_file_path(rdpmc_file), hw_file_path(rdpmc_file));
	return 0;
}

int
regions_perf_event(const struct event *ev, const struct pmu_caps *caps, struct region_host_event *out,
		   struct pmustat_error **err)
{
	struct perf_event_attr attr;
	int rc = perf_attr(ev, caps, &attr, err);

	if (rc)
		return rc;
	memset(out, 0, sizeof(*out));
	out->perf_fd = -1;
	out->perf_type = attr.type;
	out->perf_config = attr.config;
	out->perf_config1 = attr.config1;
	out->perf_config2 = attr.config2;
	out->perf_flags = (attr.exclude_user ? PMUSTAT_REGION_PERF_EXCLUDE_USER : 0u) |
			  (attr.exclude_kernel ? PMUSTAT_REGION_PERF_EXCLUDE_KERNEL : 0u) |
			  (attr.exclude_hv ? PMUSTAT_REGION_PERF_EXCLUDE_HV : 0u);
	return 0;
}
