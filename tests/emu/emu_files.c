/*
 * emu_files.c - the kernel's rules for writing the emulated rdpmc files
 * (see emu_files.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "emu_files.h"

bool
emu_file_writable(enum hw_file file)
{
	return file == HW_FILE_RDPMC || file == HW_FILE_RDPMC_CPU_CORE || file == HW_FILE_RDPMC_CPU_ATOM;
}

/* kstrtoul(buf, 0, &val): a number in base 0, one optional trailing newline. */
static int
parse_ulong(const char *text, unsigned long *val)
{
	char *end;

	if (*text < '0' || *text > '9')
		return -EINVAL;
	errno = 0;
	*val = strtoul(text, &end, 0);
	if (errno || end == text)
		return -EINVAL;
	if (*end == '\n')
		end++;
	return *end ? -EINVAL : 0;
}

int
emu_write_file(struct emu_pmu *pmu, enum hw_file file, const char *text)
{
	static const enum hw_file rdpmc_files[] = {
		HW_FILE_RDPMC, HW_FILE_RDPMC_CPU_CORE, HW_FILE_RDPMC_CPU_ATOM,
	};
	unsigned long val;
	char buf[8];
	bool allowed = true;

	if (!emu_file_writable(file))
		return -EINVAL;
	if (!emu_file(pmu, file))
		return -ENOENT;
	if (parse_ulong(text, &val) < 0 || val > 2)
		return -EINVAL;
	snprintf(buf, sizeof(buf), "%lu\n", val);
	emu_set_file(pmu, file, buf);
	for (size_t i = 0; i < sizeof(rdpmc_files) / sizeof(rdpmc_files[0]); i++) {
		const char *t = emu_file(pmu, rdpmc_files[i]);

		if (t && t[0] != '2')
			allowed = false;
	}
	pmu->config.rdpmc_off = !allowed;
	return 0;
}
