/*
 * hw_files.c - the kernel files behind enum hw_file. Shared by hw_linux.c
 * and the test suite's emulated machine, so both agree on every path.
 */
#include "hw/hw.h"

static const struct {
	const char *path;
	const char *key;
} files[HW_FILE_COUNT] = {
	[HW_FILE_RDPMC] = { "/sys/bus/event_source/devices/cpu/rdpmc", "rdpmc" },
	[HW_FILE_NMI_WATCHDOG] = { "/proc/sys/kernel/nmi_watchdog", "nmi_watchdog" },
	[HW_FILE_LOCKDOWN] = { "/sys/kernel/security/lockdown", "lockdown" },
	[HW_FILE_MSR_ALLOW_WRITES] = { "/sys/module/msr/parameters/allow_writes", "msr_allow_writes" },
	[HW_FILE_PERF_EVENT_PARANOID] = { "/proc/sys/kernel/perf_event_paranoid", "perf_event_paranoid" },
	[HW_FILE_RDPMC_CPU_CORE] = { "/sys/bus/event_source/devices/cpu_core/rdpmc", "rdpmc_cpu_core" },
	[HW_FILE_RDPMC_CPU_ATOM] = { "/sys/bus/event_source/devices/cpu_atom/rdpmc", "rdpmc_cpu_atom" },
	[HW_FILE_SMT_ACTIVE] = { "/sys/devices/system/cpu/smt/active", "smt_active" },
	[HW_FILE_CPUS_ONLINE] = { "/sys/devices/system/cpu/online", "cpus_online" },
	[HW_FILE_CPU0_CORE_CPUS] = { "/sys/devices/system/cpu/cpu0/topology/core_cpus_list", "cpu0_core_cpus" },
	[HW_FILE_CPU0_PACKAGE_CPUS] = { "/sys/devices/system/cpu/cpu0/topology/package_cpus_list", "cpu0_package_cpus" },
};

const char *
hw_file_path(enum hw_file file)
{
	if ((unsigned)file >= HW_FILE_COUNT)
		return "?";
	return files[file].path;
}

const char *
hw_file_key(enum hw_file file)
{
	if ((unsigned)file >= HW_FILE_COUNT)
		return NULL;
	return files[file].key;
}
