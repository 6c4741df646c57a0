/*
 * test_journal.c - the crash journal (src/journal.c) in a private
 * directory, applied to the in-process emulated PMU (tests/emu): the
 * format round-trips, a damaged journal is refused before any write, the
 * owner check tells a live run from a dead, zombie or reused pid, and a
 * restore puts the saved registers back bit for bit, touching only the
 * run's bits of shared registers, and only of the counters that still hold
 * what the run wrote.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <libcpuid/libcpuid.h>

#include "events/cpu.h"
#include "emu_hw.h"
#include "emu_pmu.h"
#include "pmu/journal.h"
#include "pmu/msr.h"
#include "pmu/pmu.h"
#include "pmu/program.h"
#include "pmu/counter_sched.h"
#include "test_util.h"
#include "base/err.h"

#define CPU 1

static struct pmu *pmu;
static struct pmu_caps f_caps;	/* the PMU pmu was opened on */

struct fixture {
	char dir[PATH_MAX];
	char jdir[PATH_MAX + 16];
	struct emu_pmu *emu;
	struct hw *hw;
	struct cpu_info info;
	struct emu_pmu *before;
};

static struct fixture *
fixture_new(enum emu_model model, bool watchdog)
{
	struct fixture *f = calloc(1, sizeof(*f));
	const char *tmp = getenv("TMPDIR");
	struct cpu_raw_data_t raw;
	struct emu_config cfg;

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "%s/pmustat-journal-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(f->dir));
	/* Not created yet: journal_write() must make it, 0700. */
	snprintf(f->jdir, sizeof(f->jdir), "%s/run", f->dir);
	emu_config_default(&cfg, model);
	cfg.ncpus = 2;
	cfg.watchdog = watchdog;
	f->emu = emu_pmu_new(&cfg);
	assert_non_null(f->emu);
	f->hw = emu_hw_new(f->emu);
	assert_non_null(f->hw);
	assert_int_equal(hw_cpuid(f->hw, CPU, &raw), 0);
	cpu_decode(&raw, &f->info);
	assert_int_equal(f->info.verdict, CPU_VERDICT_OK);
	f->before = malloc(sizeof(*f->before));
	assert_non_null(f->before);
	return f;
}

static void
snapshot(struct fixture *f)
{
	memcpy(f->before, f->emu, sizeof(*f->emu));
}

static void
fixture_free(struct fixture *f)
{
	char path[PATH_MAX + 64];

	journal_remove(f->jdir, CPU);
	snprintf(path, sizeof(path), "%s/cpu%d.journal", f->jdir, CPU);
	unlink(path);
	rmdir(f->jdir);
	rmdir(f->dir);
	emu_hw_free(f->hw);
	emu_pmu_free(f->emu);
	free(f->before);
	free(f);
}

static void
wr(struct fixture *f, uint32_t msr, uint64_t v)
{
	assert_int_equal(emu_wrmsr(f->emu, CPU, msr, v), 0);
}

static uint64_t
rd(struct fixture *f, uint32_t msr)
{
	uint64_t v = 0;

	assert_int_equal(emu_rdmsr(f->emu, CPU, msr, &v), 0);
	return v;
}

/*
 * The plan program_like_a_run() carries out: branches (user and kernel) on
 * pmc0, 0xd1/0x01 on pmc2, instructions on fixed0; with @all_fixed, on
 * fixed1 and fixed2 too.
 */
static unsigned
run_plan(struct event *ev, struct sched_slot *slots, bool all_fixed)
{
	unsigned n = 0;

	ev[n] = test_event("branches", 0xc4, 0x00, 0xf);
	ev[n].os = true;
	slots[n++] = (struct sched_slot){ SCHED_GP, 0, 0 };
	ev[n] = test_event("r1d1", 0xd1, 0x01, 0xf);
	slots[n++] = (struct sched_slot){ SCHED_GP, 2, 0 };
	ev[n] = test_fixed_event("instructions", 0, 0xc0, 0x00, 0xf);
	slots[n++] = (struct sched_slot){ SCHED_FIXED, 0, 0 };
	if (all_fixed) {
		ev[n] = test_fixed_event("cycles", 1, 0x3c, 0x00, 0xf);
		slots[n++] = (struct sched_slot){ SCHED_FIXED, 1, 0 };
		ev[n] = test_fixed_event("ref-cycles", 2, 0x3c, 0x01, 0xf);
		slots[n++] = (struct sched_slot){ SCHED_FIXED, 2, 0 };
	}
	return n;
}

/* The journal of @runs runs of @ev placed by @slots, as a stat run makes it from its plan. */
static int
journal_of(struct journal *j, const struct event *ev, const struct sched_slot *slots, unsigned n,
	   unsigned runs, struct pmustat_error **err)
{
	static struct pmu_program progs[SCHED_MAX_EVENTS];
	uint32_t earlier_gp = 0, earlier_fixed = 0;

	for (unsigned r = 0; r < runs; r++) {
		int rc = pmu_program_build(&f_caps, pmu_found_global_ctrl(pmu), pmu_occupancy(pmu)->perf_metrics, ev, slots, n, r, earlier_gp,
					   earlier_fixed, &progs[r], err);

		if (rc)
			return rc;
		earlier_gp |= progs[r].gp;
		earlier_fixed |= progs[r].fixed;
	}
	return journal_from_programs(j, pmu, progs, runs, err);
}

/* What a stat run does first: open (save) and write the journal of its plan. */
static void
save_and_journal_plan(struct fixture *f, bool force, bool all_fixed, struct journal *j)
{
	struct sched_slot slots[8];
	struct event ev[8];
	struct pmustat_error *err = NULL;
	unsigned n;

	/* Defined even if a failed assertion returned (the analyzer does not know cmocka's fail() ends the test). */
	memset(j, 0, sizeof(*j));
	pmu_close(pmu);
	assert_int_equal(pmu_open(&pmu, f->hw, CPU, &f->info.pmu, false, NULL, &err), 0);
	f_caps = f->info.pmu;
	if (force)
		pmu_take_busy(pmu);
	n = run_plan(ev, slots, all_fixed);
	if (journal_of(j, ev, slots, n, 1, &err) != 0)
		fail_msg("journal_of: %s", err_msg(err));
	if (journal_write(f->jdir, j, &err) != 0)
		fail_msg("journal_write: %s", err_msg(err));
	err_clear(&err);
}

static void
save_and_journal(struct fixture *f, bool force, struct journal *j)
{
	save_and_journal_plan(f, force, false, j);
}

static int
apply(struct fixture *f, const struct journal *j, struct pmustat_error **err)
{
	struct journal_result res;

	return journal_apply(f->hw, &f->info.pmu, j, &res, err);
}

/* What a killed run leaves: its counters programmed and counting. */
static void
program_like_a_run(struct fixture *f)
{
	/* The plan's counters' bits: pmc0 and pmc2 are set at power-up, fixed0 is not. */
	wr(f, MSR_IA32_PERF_GLOBAL_CTRL, rd(f, MSR_IA32_PERF_GLOBAL_CTRL) | 0x5 | GLOBAL_FIXED_BIT(0));
	wr(f, msr_evtsel(0), 0x4300c4);
	wr(f, msr_evtsel(2), 0x4101d1);
	wr(f, MSR_IA32_FIXED_CTR_CTRL, rd(f, MSR_IA32_FIXED_CTR_CTRL) | 0x2);
	if (emu_cpu_type(f->emu, CPU)->full_width_write) {
		wr(f, msr_a_pmc(0), 12345);
		wr(f, msr_a_pmc(2), 0xffffffffffffull);
	} else {
		/* Legacy writes sign-extend bit 31: 0xffffffff lands as all ones. */
		wr(f, msr_pmc(0), 12345);
		wr(f, msr_pmc(2), 0xffffffffull);
	}
	wr(f, msr_fixed_ctr(0), 777);
	assert_int_equal(emu_retire(f->emu, CPU, 0xc4, 0x00, 3, 1000), 0);
	assert_int_equal(emu_retire(f->emu, CPU, 0xd1, 0x01, 3, 1), 0);	/* pmc2 wraps: overflow bit */
	assert_true(rd(f, MSR_IA32_PERF_GLOBAL_STATUS) & 0x4);
}

static void
test_round_trip(void **state)
{
	struct fixture *f = fixture_new(EMU_MODEL_SKYLAKE, false);
	struct journal j, back;
	struct pmustat_error *err = NULL;
	char path[PATH_MAX + 64];
	struct stat st;

	(void)state;
	wr(f, msr_evtsel(1), 0x5300c0);	/* somebody's: not the run's */
	save_and_journal(f, false, &j);
	/* Exactly the plan's counters, not every free one. */
	assert_int_equal(j.own_gp, 0x5);
	assert_int_equal(j.own_fixed, 0x1);
	assert_int_equal(j.taken_gp | j.taken_fixed, 0);
	/* GLOBAL_CTRL has every GP bit at power-up: per-counter enables, with and without EN. */
	assert_int_equal(j.nwrote, 4);
	assert_int_equal(j.fields[0], (1u << 2) | 1u);
	assert_int_equal(stat(f->jdir, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	journal_path(f->jdir, CPU, path, sizeof(path));
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	if (journal_read(f->jdir, CPU, &back, &err) != 0)
		fail_msg("journal_read: %s", err_msg(err));
	assert_int_equal(back.core, CPU);
	assert_int_equal(back.pid, getpid());
	assert_true(back.start_time == j.start_time);
	assert_int_equal(back.own_gp, j.own_gp);
	assert_int_equal(back.own_fixed, j.own_fixed);
	assert_int_equal(back.nregs, j.nregs);
	/* GLOBAL_CTRL, FIXED_CTR_CTRL, 2 x (EVTSEL, PMC), 1 fixed counter. */
	assert_int_equal(j.nregs, 2 + 4 + 1);
	assert_memory_equal(back.regs, j.regs, j.nregs * sizeof(j.regs[0]));
	assert_int_equal(back.nwrote, j.nwrote);
	assert_memory_equal(back.wrote, j.wrote, j.nwrote * sizeof(j.wrote[0]));
	assert_memory_equal(back.fields, j.fields, sizeof(j.fields));
	for (unsigned i = 0; i < j.nregs; i++)
		assert_int_not_equal(j.regs[i].msr, msr_evtsel(1));
	/* Only our process wrote it: the owner is alive. */
	assert_int_equal(journal_owner(&back), JOURNAL_OWNER_LIVE);
	assert_int_equal(journal_remove(f->jdir, CPU), 0);
	assert_int_equal(journal_read(f->jdir, CPU, &back, &err), -ENOENT);
	fixture_free(f);
	err_clear(&err);
}

static void
test_restore_bit_exact(void **state)
{
	struct fixture *f = fixture_new(EMU_MODEL_SKYLAKE, false);
	struct journal j, back;
	struct pmustat_error *err = NULL;

	(void)state;
	/* A state worth restoring: counters mid-way, an old overflow bit. */
	wr(f, msr_a_pmc(3), 0x123456789aull);
	wr(f, msr_fixed_ctr(2), 42);
	wr(f, MSR_IA32_PERF_GLOBAL_STATUS_SET, 0x8);
	snapshot(f);
	save_and_journal(f, false, &j);
	program_like_a_run(f);
	assert_true(emu_pmu_diff(f->before, f->emu, NULL) > 0);
	assert_false(journal_matches(f->jdir, CPU, f->hw));
	assert_int_equal(journal_read(f->jdir, CPU, &back, &err), 0);
	if (apply(f, &back, &err) != 0)
		fail_msg("journal_apply: %s", err_msg(err));
	assert_int_equal(emu_pmu_diff(f->before, f->emu, stderr), 0);
	/* Restored: the PMU holds what the journal saved. */
	assert_true(journal_matches(f->jdir, CPU, f->hw));
	fixture_free(f);
	err_clear(&err);
}

/* GLOBAL_CTRL and FIXED_CTR_CTRL: only the run's bits go back. */
static void
test_shared_registers_merge(void **state)
{
	struct fixture *f = fixture_new(EMU_MODEL_SKYLAKE, true);
	struct journal j;
	struct pmustat_error *err = NULL;

	(void)state;
	snapshot(f);
	save_and_journal(f, false, &j);
	assert_int_equal(j.own_fixed, 0x1);	/* the plan's: fixed0 */
	program_like_a_run(f);
	/* Meanwhile the watchdog's owner reprograms its field and turns its counter off. */
	wr(f, MSR_IA32_FIXED_CTR_CTRL, (rd(f, MSR_IA32_FIXED_CTR_CTRL) & ~0xf0ull) | 0xa0);
	wr(f, MSR_IA32_PERF_GLOBAL_CTRL, rd(f, MSR_IA32_PERF_GLOBAL_CTRL) & ~GLOBAL_FIXED_BIT(1));
	assert_int_equal(apply(f, &j, &err), 0);
	assert_int_equal(FIXED_CTRL_FIELD(rd(f, MSR_IA32_FIXED_CTR_CTRL), 1), 0xa);
	assert_int_equal(FIXED_CTRL_FIELD(rd(f, MSR_IA32_FIXED_CTR_CTRL), 0), 0);
	assert_int_equal(rd(f, MSR_IA32_PERF_GLOBAL_CTRL),
			 f->before->cpu[CPU].regs.global_ctrl & ~GLOBAL_FIXED_BIT(1));
	assert_int_equal(rd(f, msr_evtsel(0)), 0);
	assert_int_equal(rd(f, msr_evtsel(2)), 0);
	fixture_free(f);
	err_clear(&err);
}

/* A journal is checked whole before the first write. */
static void
test_apply_refuses_bad_registers(void **state)
{
	struct fixture *f = fixture_new(EMU_MODEL_SKYLAKE, false);
	struct journal j, bad;
	struct pmustat_error *err = NULL;
	unsigned writes;

	(void)state;
	save_and_journal(f, false, &j);
	program_like_a_run(f);
	snapshot(f);
	writes = emu_hw_calls(f->hw, EMU_HW_OP_WRMSR);

	/* Reserved EVTSEL bit 35 (bits 32 and 33 are IN_TX and IN_TXCP with Skylake's TSX). */
	bad = j;
	for (unsigned i = 0; i < bad.nregs; i++)
		if (bad.regs[i].msr == msr_evtsel(2))
			bad.regs[i].value = 1ull << 35;
	assert_int_equal(apply(f, &bad, &err), -EBADMSG);
	assert_non_null(strstr(err_msg(err), "IA32_PERFEVTSEL2"));
	assert_non_null(strstr(err_msg(err), "reserved"));

	/* An MSR stat mode never writes. */
	bad = j;
	bad.regs[bad.nregs++] = (struct journal_reg){ 0x1d9, 0 };	/* IA32_DEBUGCTL */
	assert_int_equal(apply(f, &bad, &err), -EBADMSG);

	/* A counter wider than 48 bits. */
	bad = j;
	for (unsigned i = 0; i < bad.nregs; i++)
		if (bad.regs[i].msr == msr_pmc(0))
			bad.regs[i].value = 1ull << 48;
	assert_int_equal(apply(f, &bad, &err), -EBADMSG);

	/* A counter the run did not own. */
	bad = j;
	bad.own_gp &= ~0x1u;
	assert_int_equal(apply(f, &bad, &err), -EBADMSG);

	/* Counters this PMU does not have. */
	bad = j;
	bad.own_gp |= 0x80;
	assert_int_equal(apply(f, &bad, &err), -EBADMSG);

	assert_int_equal(emu_hw_calls(f->hw, EMU_HW_OP_WRMSR), writes);
	assert_int_equal(emu_pmu_diff(f->before, f->emu, stderr), 0);
	fixture_free(f);
	err_clear(&err);
}

static void
write_file(const char *path, const char *text, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
}

static char *
read_all(const char *path, size_t *len)
{
	static char buf[8192];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	assert_true(n > 0);
	buf[n] = '\0';
	*len = (size_t)n;
	return buf;
}

/* Truncated at every length, or any byte changed: refused, never applied. */
static void
test_corrupt_or_truncated(void **state)
{
	struct fixture *f = fixture_new(EMU_MODEL_SKYLAKE, false);
	struct pmustat_error *err = NULL;
	char path[PATH_MAX + 64], good[8192], *text, *note = NULL;
	struct journal j, back;
	size_t len;

	(void)state;
	save_and_journal(f, false, &j);
	journal_path(f->jdir, CPU, path, sizeof(path));
	text = read_all(path, &len);
	memcpy(good, text, len);
	for (size_t cut = 0; cut < len; cut++) {
		write_file(path, good, cut);
		if (journal_read(f->jdir, CPU, &back, &err) != -EBADMSG)
			fail_msg("a journal cut at %zu of %zu bytes was accepted", cut, len);
	}
	for (size_t at = 0; at < len; at++) {
		char bad[8192];

		memcpy(bad, good, len);
		bad[at] = bad[at] == '1' ? '2' : '1';
		write_file(path, bad, len);
		if (journal_read(f->jdir, CPU, &back, &err) != -EBADMSG)
			fail_msg("a journal with byte %zu changed was accepted", at);
	}
	/* Another version, with a right checksum: still refused, and said so. */
	{
		struct journal v = j;
		char *p;

		assert_int_equal(journal_write(f->jdir, &v, &err), 0);
		text = read_all(path, &len);
		p = strstr(text, "pmustat-journal 2\n");
		assert_non_null(p);
		p[16] = '9';
		/* Recompute the checksum over the changed text. */
		{
			uint64_t h = 0xcbf29ce484222325ull;
			char *sum = strstr(text, "fnv1a64 ");

			assert_non_null(sum);
			if (!sum)
				return;
			for (char *c = text; c < sum; c++) {
				h ^= (unsigned char)*c;
				h *= 0x100000001b3ull;
			}
			snprintf(sum, 32, "fnv1a64 0x%016llx\n", (unsigned long long)h);
			len = strlen(text);
		}
		write_file(path, text, len);
		assert_int_equal(journal_read(f->jdir, CPU, &back, &err), -EBADMSG);
		assert_non_null(strstr(err_msg(err), "version 9"));
	}
	/* journal_recover reports it, writes nothing and keeps the file. */
	program_like_a_run(f);
	snapshot(f);
	assert_int_equal(journal_recover(f->jdir, CPU, f->hw, &f->info.pmu, &note, &err), -EBADMSG);
	assert_null(note);
	assert_non_null(strstr(err_msg(err), "NOT applied"));
	assert_int_equal(emu_pmu_diff(f->before, f->emu, stderr), 0);
	assert_int_equal(access(path, F_OK), 0);
	/* A symbolic link is not followed. */
	unlink(path);
	assert_int_equal(symlink("/etc/hostname", path), 0);
	assert_int_equal(journal_read(f->jdir, CPU, &back, &err), -EBADMSG);
	unlink(path);
	fixture_free(f);
	err_clear(&err);
}

/* A journal of another core, or in a directory others may write, is not trusted. */
static void
test_wrong_core_and_open_directory(void **state)
{
	struct fixture *f = fixture_new(EMU_MODEL_SKYLAKE, false);
	struct pmustat_error *err = NULL;
	char path[PATH_MAX + 64], other[PATH_MAX + 64];
	struct journal j, back;

	(void)state;
	save_and_journal(f, false, &j);
	journal_path(f->jdir, CPU, path, sizeof(path));
	journal_path(f->jdir, 0, other, sizeof(other));
	assert_int_equal(rename(path, other), 0);
	assert_int_equal(journal_read(f->jdir, 0, &back, &err), -EBADMSG);
	assert_non_null(strstr(err_msg(err), "for core 1"));
	unlink(other);
	assert_int_equal(journal_write(f->jdir, &j, &err), 0);
	assert_int_equal(chmod(f->jdir, 0777), 0);
	assert_int_equal(journal_read(f->jdir, CPU, &back, &err), -EPERM);
	assert_non_null(strstr(err_msg(err), "not private"));
	assert_int_equal(journal_write(f->jdir, &j, &err), -EPERM);
	assert_int_equal(chmod(f->jdir, 0700), 0);
	fixture_free(f);
	err_clear(&err);
}

static void
test_owner_dead_reused_live(void **state)
{
	struct journal j;
	unsigned long long start;
	pid_t child;
	int ws;

	(void)state;
	memset(&j, 0, sizeof(j));
	/* Live: this process, its own start time. */
	j.pid = getpid();
	assert_int_equal(journal_proc_start_time(j.pid, &j.start_time), 0);
	assert_int_equal(journal_owner(&j), JOURNAL_OWNER_LIVE);
	/* Reused: the pid is alive, but that process started at another time. */
	j.start_time += 1;
	assert_int_equal(journal_owner(&j), JOURNAL_OWNER_REUSED);
	/* Dead: a child that exited and was reaped. */
	child = fork();
	assert_true(child >= 0);
	if (child == 0)
		_exit(0);
	assert_int_equal(waitpid(child, &ws, 0), child);
	j.pid = child;
	assert_int_equal(journal_owner(&j), JOURNAL_OWNER_DEAD);
	assert_int_equal(journal_proc_start_time(child, &start), -ESRCH);
}

/* The next pmustat: a dead run's journal is applied and removed; a live one is left alone. */
static void
test_recover(void **state)
{
	struct fixture *f = fixture_new(EMU_MODEL_SKYLAKE, false);
	struct pmustat_error *err = NULL;
	char path[PATH_MAX + 64], *note = NULL;
	struct journal j;
	unsigned writes;

	(void)state;
	snapshot(f);
	save_and_journal(f, false, &j);
	program_like_a_run(f);
	journal_path(f->jdir, CPU, path, sizeof(path));

	/* Our own pid, our start time: a run in progress. Hands off. */
	writes = emu_hw_calls(f->hw, EMU_HW_OP_WRMSR);
	assert_int_equal(journal_recover(f->jdir, CPU, f->hw, &f->info.pmu, &note, &err), -EBUSY);
	assert_non_null(strstr(err_msg(err), "still counting"));
	assert_int_equal(emu_hw_calls(f->hw, EMU_HW_OP_WRMSR), writes);
	assert_int_equal(access(path, F_OK), 0);

	/* Same pid, another start time: the pid was reused, the run is gone. */
	j.start_time += 100;
	assert_int_equal(journal_write(f->jdir, &j, &err), 0);
	assert_int_equal(journal_recover(f->jdir, CPU, f->hw, &f->info.pmu, &note, &err), 1);
	assert_non_null(strstr(note, "another process"));
	free(note);
	assert_int_equal(emu_pmu_diff(f->before, f->emu, stderr), 0);
	assert_int_equal(access(path, F_OK), -1);
	/* Nothing left: nothing to do. */
	assert_int_equal(journal_recover(f->jdir, CPU, f->hw, &f->info.pmu, &note, &err), 0);
	assert_null(note);
	fixture_free(f);
	err_clear(&err);
}

/* --force took the watchdog's counter: its registers are in the journal and come back too. */
static void
test_forced_counters_restored(void **state)
{
	struct fixture *f = fixture_new(EMU_MODEL_SKYLAKE, true);
	struct journal j;
	struct pmustat_error *err = NULL;

	(void)state;
	snapshot(f);
	save_and_journal_plan(f, true, true, &j);
	assert_int_equal(j.own_fixed, 0x7);
	assert_int_equal(j.taken_fixed, 0x2);
	wr(f, MSR_IA32_FIXED_CTR_CTRL, 0x222);
	wr(f, msr_fixed_ctr(1), 5);
	assert_int_equal(apply(f, &j, &err), 0);
	assert_int_equal(emu_pmu_diff(f->before, f->emu, stderr), 0);
	fixture_free(f);
	err_clear(&err);
}

/* Haswell: no full-width writes; a 48-bit value cannot come back exactly (1), small ones do. */
static void
test_legacy_counter_writes(void **state)
{
	struct fixture *f = fixture_new(EMU_MODEL_HASWELL, false);
	struct journal j;
	struct pmustat_error *err = NULL;

	(void)state;
	wr(f, msr_pmc(1), 0x1234);
	snapshot(f);
	save_and_journal(f, false, &j);
	program_like_a_run(f);
	assert_int_equal(apply(f, &j, &err), 0);
	assert_int_equal(emu_pmu_diff(f->before, f->emu, stderr), 0);
	fixture_free(f);
	err_clear(&err);
}

/*
 * After the run died, someone else took two of its counters (pmc2, fixed0)
 * and a counter the run never used (pmc3): those are left exactly as they
 * are, registers, GLOBAL_CTRL bits and overflow bits; the run's remaining
 * counter (pmc0) is put back.
 */
static void
test_counters_taken_since_are_left_alone(void **state)
{
	struct fixture *f = fixture_new(EMU_MODEL_SKYLAKE, false);
	struct journal_result res;
	struct journal j;
	struct pmustat_error *err = NULL;
	uint64_t gc;

	(void)state;
	wr(f, msr_a_pmc(0), 0x1234);
	snapshot(f);
	save_and_journal(f, false, &j);
	program_like_a_run(f);
	/* Another tool, after the crash: its own programming, INT and all. */
	wr(f, msr_evtsel(2), 0x5300c5 | EVTSEL_INT);
	wr(f, msr_a_pmc(2), 999);
	wr(f, msr_evtsel(3), 0x4300c4);
	wr(f, msr_a_pmc(3), 4242);
	wr(f, MSR_IA32_FIXED_CTR_CTRL, (rd(f, MSR_IA32_FIXED_CTR_CTRL) & ~0xfull) | 0xb);
	wr(f, msr_fixed_ctr(0), 31337);
	gc = rd(f, MSR_IA32_PERF_GLOBAL_CTRL) | 0x8;
	wr(f, MSR_IA32_PERF_GLOBAL_CTRL, gc);
	assert_int_equal(journal_apply(f->hw, &f->info.pmu, &j, &res, &err), 0);
	assert_int_equal(res.restored_gp, 0x1);
	assert_int_equal(res.left_gp, 0x4);
	assert_int_equal(res.left_fixed, 0x1);
	assert_int_equal(res.left_evtsel[2], 0x5300c5 | EVTSEL_INT);
	/* Theirs: untouched. */
	assert_int_equal(rd(f, msr_evtsel(2)), 0x5300c5 | EVTSEL_INT);
	assert_int_equal(rd(f, msr_pmc(2)), 999);
	assert_int_equal(rd(f, msr_evtsel(3)), 0x4300c4);
	assert_int_equal(rd(f, msr_pmc(3)), 4242);
	assert_int_equal(FIXED_CTRL_FIELD(rd(f, MSR_IA32_FIXED_CTR_CTRL), 0), 0xb);
	assert_int_equal(rd(f, msr_fixed_ctr(0)), 31337);
	assert_true(rd(f, MSR_IA32_PERF_GLOBAL_STATUS) & 0x4);
	assert_int_equal(rd(f, MSR_IA32_PERF_GLOBAL_CTRL) & (0xcull | GLOBAL_FIXED_BIT(0)),
			 gc & (0xcull | GLOBAL_FIXED_BIT(0)));
	/* Ours: as saved. */
	assert_int_equal(rd(f, msr_evtsel(0)), f->before->cpu[CPU].regs.evtsel[0]);
	assert_int_equal(rd(f, msr_pmc(0)), 0x1234);
	assert_int_equal(rd(f, MSR_IA32_PERF_GLOBAL_CTRL) & 1, f->before->cpu[CPU].regs.global_ctrl & 1);
	fixture_free(f);
	err_clear(&err);
}

/* A run killed and not reaped yet (a zombie) is dead: it counts nothing and holds no lock. */
static void
test_owner_zombie_is_dead(void **state)
{
	struct journal j;
	char path[64], buf[512];
	int go[2], tries = 0, ws;
	pid_t child;
	char state_char = 0;

	(void)state;
	memset(&j, 0, sizeof(j));
	assert_int_equal(pipe(go), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		char c;

		close(go[1]);
		(void)read(go[0], &c, 1);
		_exit(0);
	}
	close(go[0]);
	j.pid = child;
	assert_int_equal(journal_proc_start_time(child, &j.start_time), 0);
	assert_int_equal(journal_owner(&j), JOURNAL_OWNER_LIVE);
	close(go[1]);
	/* Exited, not reaped: wait for the kernel to make it a zombie. */
	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)child);
	while (state_char != 'Z' && tries++ < 500) {
		FILE *fp = fopen(path, "r");

		assert_non_null(fp);
		if (fgets(buf, sizeof(buf), fp) && strrchr(buf, ')'))
			state_char = strrchr(buf, ')')[2];
		fclose(fp);
		usleep(2000);
	}
	assert_int_equal(state_char, 'Z');
	assert_int_equal(journal_owner(&j), JOURNAL_OWNER_DEAD);
	assert_int_equal(waitpid(child, &ws, 0), child);
}

/* The largest plan: 64 events in 16 runs of 4 counters, every value journaled, read back whole. */
static void
test_largest_plan(void **state)
{
	struct fixture *f = fixture_new(EMU_MODEL_SKYLAKE, false);
	struct sched_slot slots[SCHED_MAX_EVENTS];
	struct event ev[SCHED_MAX_EVENTS];
	struct journal j, back;
	struct pmustat_error *err = NULL;

	(void)state;
	pmu_close(pmu);
	assert_int_equal(pmu_open(&pmu, f->hw, CPU, &f->info.pmu, false, NULL, &err), 0);
	f_caps = f->info.pmu;
	for (unsigned i = 0; i < SCHED_MAX_EVENTS; i++) {
		char name[16];

		snprintf(name, sizeof(name), "r%02x%02x", i, 0x10 + i);
		ev[i] = test_event(name, (uint8_t)(0x10 + i), (uint8_t)i, 0xf);
		slots[i] = (struct sched_slot){ SCHED_GP, i % 4, i / 4 };
	}
	if (journal_of(&j, ev, slots, SCHED_MAX_EVENTS, SCHED_MAX_EVENTS / 4, &err))
		fail_msg("journal_of: %s", err_msg(err));
	assert_int_equal(j.own_gp, 0xf);
	/* Per-counter enables (GLOBAL_CTRL has the GP bits at power-up): two values an event. */
	assert_int_equal(j.nwrote, 2 * SCHED_MAX_EVENTS);
	if (journal_write(f->jdir, &j, &err))
		fail_msg("journal_write: %s", err_msg(err));
	if (journal_read(f->jdir, CPU, &back, &err))
		fail_msg("journal_read: %s", err_msg(err));
	assert_int_equal(back.nwrote, j.nwrote);
	assert_memory_equal(back.wrote, j.wrote, j.nwrote * sizeof(j.wrote[0]));
	fixture_free(f);
	err_clear(&err);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_restore_bit_exact),
		cmocka_unit_test(test_shared_registers_merge),
		cmocka_unit_test(test_apply_refuses_bad_registers),
		cmocka_unit_test(test_corrupt_or_truncated),
		cmocka_unit_test(test_wrong_core_and_open_directory),
		cmocka_unit_test(test_owner_dead_reused_live),
		cmocka_unit_test(test_recover),
		cmocka_unit_test(test_forced_counters_restored),
		cmocka_unit_test(test_legacy_counter_writes),
		cmocka_unit_test(test_counters_taken_since_are_left_alone),
		cmocka_unit_test(test_owner_zombie_is_dead),
		cmocka_unit_test(test_largest_plan),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
