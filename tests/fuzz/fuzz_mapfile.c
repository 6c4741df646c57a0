/*
 * fuzz_mapfile.c - events/mapfile.csv (mapfile_choose_table).
 *
 * Input: the whole file, written as mapfile.csv in a private directory.
 * It is asked for the table of a few CPUs (plain, stepping-keyed, hybrid
 * P- and E-core, AMD), so every row kind is matched against real keys.
 * Checked: a chosen table is a non-empty [a-z0-9_-] name that fits; every
 * failure has a message and one of the documented errnos.
 */
#include "fuzz_util.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "events/cpu.h"
#include "events/mapfile.h"
#include "base/err.h"

static struct cpu_info cpus[5];

static void
set_cpu(struct cpu_info *c, const char *vendor, unsigned family, unsigned model,
	unsigned stepping, enum cpu_core_type type, uint32_t native)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->vendor_id, sizeof(c->vendor_id), "%s", vendor);
	c->vendor = strcmp(vendor, "GenuineIntel") == 0 ? CPU_VENDOR_INTEL : CPU_VENDOR_AMD;
	c->family = family;
	c->model = model;
	c->stepping = stepping;
	c->core_type = type;
	c->hybrid = type != CPU_CORE_TYPE_NONE;
	c->native_model_id = native;
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	set_cpu(&cpus[0], "GenuineIntel", 6, 0x5e, 3, CPU_CORE_TYPE_NONE, 0);	/* Skylake */
	set_cpu(&cpus[1], "GenuineIntel", 6, 0x55, 7, CPU_CORE_TYPE_NONE, 0);	/* Cascade Lake */
	set_cpu(&cpus[2], "GenuineIntel", 6, 0x97, 2, CPU_CORE_TYPE_CORE, 1);	/* ADL P */
	set_cpu(&cpus[3], "GenuineIntel", 6, 0x97, 2, CPU_CORE_TYPE_ATOM, 1);	/* ADL E */
	set_cpu(&cpus[4], "AuthenticAMD", 25, 0x61, 2, CPU_CORE_TYPE_NONE, 0);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pmustat_error *err = NULL;
	fuzz_write("mapfile.csv", data, size);
	for (size_t i = 0; i < sizeof(cpus) / sizeof(cpus[0]); i++) {
		err_clear(&err);
		char table[128];
		/* Small on purpose: names that do not fit must be refused. */
		size_t table_len = i == 1 ? 8 : sizeof(table);
		int ret;

		memset(table, 0x55, sizeof(table));
		ret = mapfile_choose_table(fuzz_tmpdir(), &cpus[i], table, table_len, &err);
		if (ret == 0) {
			size_t len = strnlen(table, table_len);

			if (len == 0 || len == table_len)
				fuzz_fail("CPU %zu: empty or unterminated table name", i);
			if (strspn(table, "abcdefghijklmnopqrstuvwxyz0123456789_-") != len)
				fuzz_fail("CPU %zu: table name '%s'", i, table);
		} else {
			if (ret != -ENOENT && ret != -EINVAL && ret != -ENAMETOOLONG &&
			    ret != -EIO && ret != -ENOMEM)
				fuzz_fail("CPU %zu: unexpected return %d (%s)", i, ret, err_msg(err));
			if (!err_msg(err)[0])
				fuzz_fail("CPU %zu: error %d without a message", i, ret);
		}
		err_clear(&err);
	}
	err_clear(&err);
	return 0;
}
