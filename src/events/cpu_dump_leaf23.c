#include "events/cpu_dump_leaf23.h"

#include <stdio.h>
#include <string.h>

#include "events/cpu.h"

/* sscanf on purpose: the dump's lines are read with the formats libcpuid uses for them. */
/* NOLINTBEGIN(cert-err34-c) */
static bool
cpu_header(const char *line, int *cpu)
{
	return sscanf(line, "------[ CPUID Registers / Logical CPU #%d ]------", cpu) == 1 ||
	       sscanf(line, "------[ Logical CPU #%d ]------", cpu) == 1 ||
	       sscanf(line, "_________________ Logical CPU #%d _________________", cpu) == 1;
}

void
cpu_dump_leaf23(const char *path, int cpu, struct cpu_leaf23 *out)
{
	bool have[CPU_LEAF23_SUBLEAVES] = { false };
	char line[100];
	int current = 0;
	FILE *f;

	memset(out, 0, sizeof(*out));
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		uint32_t leaf, r[4], subleaf = 0;
		int n;

		if (cpu_header(line, &current))
			continue;
		if (current != cpu)
			continue;
		/* The subleaf in hex ("[SL 0A]"), which libcpuid's %02i misreads; absent means 0. */
		n = sscanf(line, "CPUID %x: %x-%x-%x-%x [SL %x]", &leaf, &r[0], &r[1], &r[2], &r[3], &subleaf);
		if (n >= 5 && leaf == 0x80000022u && subleaf == 0) {
			memcpy(out->ext22, r, sizeof(r));
			out->ext22_read = true;
			continue;
		}
		if (n < 5 || leaf != 0x23 || subleaf >= CPU_LEAF23_SUBLEAVES)
			continue;
		memcpy(out->sub[subleaf], r, sizeof(r));
		have[subleaf] = true;
	}
	fclose(f);
	out->read = have[0] && have[1];
	if (!out->read)
		memset(out->sub, 0, sizeof(out->sub));
}
/* NOLINTEND(cert-err34-c) */
