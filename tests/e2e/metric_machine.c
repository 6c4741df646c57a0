/*
 * metric-machine [CPU]: the machine constants of Intel's formulas as
 * pmustat computes them on this machine, through its real hardware seam
 * (hw_linux.c: the sysfs files, libcpuid's CPUID of CPU, default 0), for
 * test-metric-consts-e2e, which runs it on emulated machines. Prints the
 * files read ("file KEY TEXT", "file KEY absent"), then "NAME VALUE" or
 * "NAME unknown" per constant. Exit 0, or 1 when CPUID cannot be read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw/hw.h"
#include "metrics/metric_consts.h"

static void
print_file(enum hw_file file, const char *text)
{
	if (text[0])
		printf("file %s %.*s\n", hw_file_key(file), (int)strcspn(text, "\n"), text);
	else
		printf("file %s absent\n", hw_file_key(file));
}

int
main(int argc, char **argv)
{
	int cpu = argc > 1 ? atoi(argv[1]) : 0;
	struct metric_machine m;
	struct metric_consts c;
	struct hw *hw = hw_linux_new();
	int ret;

	if (!hw) {
		fprintf(stderr, "metric-machine: out of memory\n");
		return 1;
	}
	metric_machine_init(&m);
	ret = metric_machine_read(hw, cpu, &m);
	hw_free(hw);
	if (ret < 0) {
		fprintf(stderr, "metric-machine: CPUID of CPU %d: %s\n", cpu, strerror(-ret));
		return 1;
	}
	print_file(HW_FILE_SMT_ACTIVE, m.smt_active);
	print_file(HW_FILE_CPUS_ONLINE, m.cpus_online);
	print_file(HW_FILE_CPU0_CORE_CPUS, m.core_cpus);
	print_file(HW_FILE_CPU0_PACKAGE_CPUS, m.package_cpus);
	metric_consts_compute(&m, &c);
	for (int i = 0; i < METRIC_CONST_COUNT; i++) {
		if (c.known & (1u << i))
			printf("%s %.17g\n", metric_const_name((enum metric_const)i), c.value[i]);
		else
			printf("%s unknown\n", metric_const_name((enum metric_const)i));
	}
	return 0;
}
