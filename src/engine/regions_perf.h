/*
 * regions_perf.h - `pmustat --regions` with the perf backend: the command
 * reads the kernel's counters through perf's self-monitoring pages
 * (perf_event_mmap_page: index, offset, pmc_width; rdpmc in user mode)
 * instead of counters pmustat programs (engine/regions.h, region_abi.h's
 * PMUSTAT_REGION_MODE_PERF).
 *
 * Per run, pmustat's child opens one self-read event per hardware event of
 * the run before its execve (region_area_open_perf()); the library maps
 * their pages in the command's main thread and every other thread opens
 * its own. They count beside the perf backend's whole-run counters, so
 * that backend plans each run on half the general-purpose counters
 * (backend_perf_plan()). The rdpmc file is left as it is: 1, the kernel's
 * default, already lets a process that mapped a perf event use rdpmc.
 */
#ifndef PMUSTAT_REGIONS_PERF_H
#define PMUSTAT_REGIONS_PERF_H

#include "hw/hw.h"
#include "region/region_host.h"

struct event;
struct perf_seam;
struct pmu_caps;
struct pmustat_error;

/*
 * Whether regions can be counted through perf here: the kernel has a core
 * PMU driver (else it counts no hardware event: a VM without a virtual
 * PMU), and @rdpmc_file (the core's rdpmc setting) is not 0, which would
 * deny rdpmc even to processes with a mapped event. A missing rdpmc file
 * beside a PMU driver is an older kernel: allowed. 0, or -errno with the
 * reason and what to do in @err (@backend_why: why the MSR backend was not
 * taken, "" when --backend perf was asked for).
 */
int
regions_perf_usable(const struct perf_seam *p, struct hw *hw, enum hw_file rdpmc_file, const char *backend_why,
		    struct pmustat_error **err);

/*
 * @ev as the library's other threads open it (and the child's self-read
 * event): perf_type, perf_config*, perf_flags of the perf backend's
 * encoding. 0, or -errno with @err (an encoding this PMU refuses).
 */
int
regions_perf_event(const struct event *ev, const struct pmu_caps *caps, struct region_host_event *out,
		   struct pmustat_error **err);

#endif
