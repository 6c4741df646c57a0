/*
 * fuzz_journal.c - the crash journal (journal_read), whose register values
 * pmustat writes back to MSRs as root.
 *
 * Input: a journal body without its checksum line; the harness appends a
 * correct "fnv1a64" line, so the fuzzer gets past the checksum into the
 * parser. An input starting with '!' is written as it is (the rest of it),
 * to fuzz the checksum and framing checks too. Written as cpu0.journal in
 * a private 0700 directory and read for core 0.
 *
 * Checked: a journal that reads is for core 0, owns counters that exist,
 * takes only counters it owns, holds at most JOURNAL_MAX_REGS distinct
 * registers and JOURNAL_MAX_WROTE values, and survives
 * journal_write + journal_read unchanged; a refusal has a message.
 */
#include "fuzz_util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmu/journal.h"
#include "pmu/msr.h"
#include "base/err.h"

static uint64_t
fnv1a64(const uint8_t *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++) {
		h ^= s[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

static void
check_journal(const struct journal *j)
{
	struct journal again;
	struct pmustat_error *err = NULL;
	int ret;

	if (j->core != 0 || j->nregs > JOURNAL_MAX_REGS || j->nwrote > JOURNAL_MAX_WROTE ||
	    j->own_gp >= (1u << PMU_MAX_GP) || j->own_fixed >= (1u << PMU_MAX_FIXED) || j->pid <= 0 ||
	    (j->taken_gp & ~j->own_gp) || (j->taken_fixed & ~j->own_fixed))
		fuzz_fail("journal accepted out of range: core %d, %u regs, %u values, own 0x%x 0x%x, taken 0x%x 0x%x",
			  j->core, j->nregs, j->nwrote, j->own_gp, j->own_fixed, j->taken_gp, j->taken_fixed);
	for (unsigned i = 0; i < PMU_MAX_FIXED; i++)
		if (j->fields[i] && !(j->own_fixed & (1u << i)))
			fuzz_fail("fields of fixed counter %u, which the run does not program", i);
	for (unsigned a = 0; a < j->nregs; a++)
		for (unsigned b = a + 1; b < j->nregs; b++)
			if (j->regs[a].msr == j->regs[b].msr)
				fuzz_fail("MSR 0x%x twice", j->regs[a].msr);

	ret = journal_write(fuzz_tmpdir(), j, &err);
	if (ret != 0)
		fuzz_fail("a journal that was read cannot be written: %s", err_msg(err));
	ret = journal_read(fuzz_tmpdir(), 0, &again, &err);
	if (ret != 0)
		fuzz_fail("a journal written from one read back fails: %s", err_msg(err));
	if (again.core != j->core || again.pid != j->pid || again.start_time != j->start_time ||
	    again.own_gp != j->own_gp || again.own_fixed != j->own_fixed ||
	    again.taken_gp != j->taken_gp || again.taken_fixed != j->taken_fixed ||
	    again.status != j->status || again.nregs != j->nregs || again.nwrote != j->nwrote ||
	    memcmp(again.regs, j->regs, j->nregs * sizeof(j->regs[0])) != 0 ||
	    memcmp(again.wrote, j->wrote, j->nwrote * sizeof(j->wrote[0])) != 0 ||
	    memcmp(again.fields, j->fields, sizeof(j->fields)) != 0)
		fuzz_fail("journal changed through write and read");
	err_clear(&err);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct journal j;
	struct pmustat_error *err = NULL;
	int ret;

	if (size > (size_t)2 * JOURNAL_MAX_BYTES)
		return 0;
	if (size && data[0] == '!') {
		fuzz_write("cpu0.journal", data + 1, size - 1);
	} else {
		char line[64];
		uint8_t *buf = malloc(size + sizeof(line));
		int n;

		if (!buf)
			fuzz_fail("out of memory");
		memcpy(buf, data, size);
		n = snprintf(line, sizeof(line), "fnv1a64 0x%016" PRIx64 "\n", fnv1a64(data, size));
		memcpy(buf + size, line, (size_t)n);
		fuzz_write("cpu0.journal", buf, size + (size_t)n);
		free(buf);
	}
	ret = journal_read(fuzz_tmpdir(), 0, &j, &err);
	if (ret == 0)
		check_journal(&j);
	else if (ret != -ENOENT && !err_msg(err)[0])
		fuzz_fail("error %d without a message", ret);
	err_clear(&err);
	return 0;
}
