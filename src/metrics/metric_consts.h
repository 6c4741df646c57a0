/*
 * metric_consts.h - the machine constants of Intel's formulas, as a pure
 * function of what the machine says.
 *
 * metric_machine_read() gathers the inputs through the hardware seam (the
 * sysfs files of enum hw_file and CPUID, so the emulator can play any
 * machine); metric_consts_compute() turns them into values. The engine adds
 * what only a run knows (its duration, a measured TSC rate) to the inputs
 * and computes again: nothing here reads a clock.
 *
 *   HYPERTHREADING_ON     /sys/devices/system/cpu/smt/active ("1"), as perf
 *                         reads it; without that file, cpu0's core has more
 *                         than one online thread (core_cpus_list); without
 *                         that, CPUID leaf 0BH says more than one thread per
 *                         core.
 *   THREADS_PER_CORE      online threads of cpu0's core (sysfs), else CPUID
 *                         0BH's SMT level when SMT is on, else 1.
 *   SYSTEM_TSC_FREQ       CPUID 15H: crystal Hz (ECX) x EBX / EAX; with no
 *                         crystal rate, CPUID 16H's base MHz (the TSC runs at
 *                         the base clock there); else the measured rate.
 *   DURATIONTIMEINMILLISECONDS, DURATIONTIMEINSECONDS   the run's wall time.
 *   SOCKET_COUNT          online CPUs / CPUs of cpu0's package (sysfs).
 *   CORES_PER_SOCKET      CPUs of cpu0's package / threads per core.
 *   system.sockets[0].cpus.count * system.socket_count   online CPUs.
 *   CHAS_PER_SOCKET       never known (uncore; such metrics are refused).
 *
 * A constant whose inputs are missing stays unknown; a formula that reads
 * it evaluates to null and says which constant was missing.
 */
#ifndef PMUSTAT_METRIC_CONSTS_H
#define PMUSTAT_METRIC_CONSTS_H

#include <stdbool.h>
#include <stdint.h>

#include "metrics/metric_expr.h"

struct hw;

#define METRIC_MACHINE_TEXT 256

/* What the machine says; an empty string is a file that was not there. */
struct metric_machine {
	char smt_active[METRIC_MACHINE_TEXT];	/* HW_FILE_SMT_ACTIVE: "1\n" */
	char cpus_online[METRIC_MACHINE_TEXT];	/* HW_FILE_CPUS_ONLINE: "0-7\n" */
	char package_cpus[METRIC_MACHINE_TEXT];	/* HW_FILE_CPU0_PACKAGE_CPUS: "0-7\n" */
	char core_cpus[METRIC_MACHINE_TEXT];	/* HW_FILE_CPU0_CORE_CPUS: "0,4\n" */
	/* CPUID (0 when the leaf is not enumerated). */
	unsigned cpuid_smt_threads;		/* 0BH sub-leaf 0, SMT level: EBX[15:0] */
	uint32_t cpuid_15h[3];			/* EAX denominator, EBX numerator, ECX crystal Hz */
	uint32_t cpuid_16h_base_mhz;		/* 16H EAX[15:0] */
	/* From the engine. */
	double tsc_hz_measured;			/* 0: not measured */
	double duration_ms;			/* < 0: no run yet */
};

/* An empty machine: nothing known, no run yet. */
void metric_machine_init(struct metric_machine *m);

/*
 * Fill @m from the seam: the files above (absent ones stay empty) and
 * CPUID of logical CPU @cpu. Returns 0, or the seam's -errno when CPUID
 * itself failed (files that cannot be read are simply unknown).
 */
int metric_machine_read(struct hw *hw, int cpu, struct metric_machine *m);

/* The constants @m determines. Pure. */
void metric_consts_compute(const struct metric_machine *m, struct metric_consts *out);

/* Number of CPUs in a sysfs list ("0-3,8-11\n" is 8); 0 when malformed or empty. */
unsigned metric_cpu_list_count(const char *list);

#endif
