#include "config.h"
#include "metrics/metric_consts.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <libcpuid/libcpuid.h>

#include "hw/hw.h"

void
metric_machine_init(struct metric_machine *m)
{
	memset(m, 0, sizeof(*m));
	m->duration_ms = -1;
}

static void
read_text(struct hw *hw, enum hw_file file, char *buf, size_t size)
{
	if (hw_read_file(hw, file, buf, size) != 0)
		buf[0] = '\0';
}

int
metric_machine_read(struct hw *hw, int cpu, struct metric_machine *m)
{
	struct cpu_raw_data_t raw;
	uint32_t max_leaf;
	int ret;

	read_text(hw, HW_FILE_SMT_ACTIVE, m->smt_active, sizeof(m->smt_active));
	read_text(hw, HW_FILE_CPUS_ONLINE, m->cpus_online, sizeof(m->cpus_online));
	read_text(hw, HW_FILE_CPU0_CORE_CPUS, m->core_cpus, sizeof(m->core_cpus));
	read_text(hw, HW_FILE_CPU0_PACKAGE_CPUS, m->package_cpus, sizeof(m->package_cpus));

	memset(&raw, 0, sizeof(raw));
	ret = hw_cpuid(hw, cpu, &raw);
	if (ret < 0)
		return ret;
	max_leaf = raw.basic_cpuid[0][EAX];
	/* Leaf 0BH sub-leaf 0 is the SMT level (ECX[15:8] = 1) on Intel. */
	if (max_leaf >= 0xb && ((raw.intel_fn11[0][ECX] >> 8) & 0xff) == 1)
		m->cpuid_smt_threads = raw.intel_fn11[0][EBX] & 0xffff;
	if (max_leaf >= 0x15) {
		m->cpuid_15h[0] = raw.basic_cpuid[0x15][EAX];
		m->cpuid_15h[1] = raw.basic_cpuid[0x15][EBX];
		m->cpuid_15h[2] = raw.basic_cpuid[0x15][ECX];
	}
	if (max_leaf >= 0x16)
		m->cpuid_16h_base_mhz = raw.basic_cpuid[0x16][EAX] & 0xffff;
	return 0;
}

unsigned
metric_cpu_list_count(const char *list)
{
	const char *p = list;
	unsigned count = 0;

	while (*p && *p != '\n') {
		char *end;
		unsigned long a = strtoul(p, &end, 10), b = a;

		if (end == p || a > 1u << 20)
			return 0;
		p = end;
		if (*p == '-') {
			b = strtoul(p + 1, &end, 10);
			if (end == p + 1 || b < a || b > 1u << 20)
				return 0;
			p = end;
		}
		count += (unsigned)(b - a + 1);
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			return 0;
	}
	return count;
}

static void
set(struct metric_consts *c, enum metric_const which, double value)
{
	c->value[which] = value;
	c->known |= 1u << which;
}

void
metric_consts_compute(const struct metric_machine *m, struct metric_consts *out)
{
	unsigned core = metric_cpu_list_count(m->core_cpus);
	unsigned package = metric_cpu_list_count(m->package_cpus);
	unsigned online = metric_cpu_list_count(m->cpus_online);
	unsigned threads = 0;
	int smt = -1;

	memset(out, 0, sizeof(*out));
	/* As perf: the kernel's word first, then the topology it shows. */
	if (m->smt_active[0] == '0' || m->smt_active[0] == '1')
		smt = m->smt_active[0] == '1';
	else if (core)
		smt = core > 1;
	else if (m->cpuid_smt_threads)
		smt = m->cpuid_smt_threads > 1;
	if (smt >= 0)
		set(out, METRIC_CONST_SMT_ON, smt);

	if (core)
		threads = core;
	else if (smt == 0)
		threads = 1;
	else if (smt == 1 && m->cpuid_smt_threads > 1)
		threads = m->cpuid_smt_threads;
	if (threads)
		set(out, METRIC_CONST_THREADS, threads);

	if (m->cpuid_15h[0] && m->cpuid_15h[1] && m->cpuid_15h[2])
		set(out, METRIC_CONST_TSC_FREQ,
		    (double)m->cpuid_15h[2] * m->cpuid_15h[1] / m->cpuid_15h[0]);
	else if (m->cpuid_15h[0] && m->cpuid_15h[1] && m->cpuid_16h_base_mhz)
		set(out, METRIC_CONST_TSC_FREQ, m->cpuid_16h_base_mhz * 1e6);
	else if (m->tsc_hz_measured > 0 && isfinite(m->tsc_hz_measured))
		set(out, METRIC_CONST_TSC_FREQ, m->tsc_hz_measured);

	if (m->duration_ms >= 0 && isfinite(m->duration_ms)) {
		set(out, METRIC_CONST_DURATION_MS, m->duration_ms);
		set(out, METRIC_CONST_DURATION_S, m->duration_ms / 1000);
	}

	if (online)
		set(out, METRIC_CONST_CPUS, online);
	if (online && package) {
		unsigned sockets = (online + package / 2) / package;

		set(out, METRIC_CONST_SOCKETS, sockets ? sockets : 1);
	}
	if (package && threads)
		set(out, METRIC_CONST_CORES_PER_SOCKET, package / threads ? package / threads : 1);
}
