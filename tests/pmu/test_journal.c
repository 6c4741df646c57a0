/*
 * test_journal.c - the crash journal (src/journal.c) in a private
 * directory, applied to the in-process emulated PMU (tests/emu): the
 * format round-trips, a damaged journal is refused before any write, the
 * owner check tells a live run from a dead, zombie or reused pid, and a
 * restore puts the saved registers back bit for bit, touching only the
 * run's bits of shared registers, and only of the counters that still hold
 * what the run wrote.
 */
#include "journal_test.h"
#include "pmus/netburst/nb_family.h"

struct pmu *pmu;
struct pmu_caps f_caps;	/* the PMU pmu was opened on */

struct fixture *
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

void
snapshot(struct fixture *f)
{
	memcpy(f->before, f->emu, sizeof(*f->emu));
}

void
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

void
wr(struct fixture *f, uint32_t msr, uint64_t v)
{
	assert_int_equal(emu_wrmsr(f->emu, CPU, msr, v), 0);
}

uint64_t
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
unsigned
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
int
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
void
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

void
save_and_journal(struct fixture *f, bool force, struct journal *j)
{
	save_and_journal_plan(f, force, false, j);
}

int
apply(struct fixture *f, const struct journal *j, struct pmustat_error **err)
{
	struct journal_result res;

	return journal_apply(f->hw, &f->info.pmu, j, &res, err);
}

/* What a killed run leaves: its counters programmed and counting. */
void
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

/*
 * A journal is applied only on a core of the family that wrote it: a
 * NetBurst journal on an architectural PMU, and an architectural one on a
 * NetBurst PMU, are refused with both named, before anything is written.
 */
static void
test_journal_of_another_family_is_not_applied(void **state)
{
	struct fixture *f = fixture_new(EMU_MODEL_SKYLAKE, false);
	struct pmustat_error *err = NULL;
	struct journal_result res;
	struct journal j = { .core = CPU, .family = &pmu_family_netburst, .own_family = 1, .family_model = 2 };
	struct cpu_raw_data_t raw;
	struct emu_config cfg;
	struct emu_pmu *nb_emu;
	struct hw *nb_hw;
	struct cpu_info nb;

	(void)state;
	snapshot(f);
	assert_int_equal(journal_apply(f->hw, &f->info.pmu, &j, &res, &err), -EBADMSG);
	assert_non_null(strstr(err_msg(err), "written for the netburst PMU, and this CPU's is architectural"));
	err_clear(&err);
	assert_int_equal(emu_pmu_diff(f->before, f->emu, stderr), 0);

	emu_config_default(&cfg, EMU_MODEL_NETBURST);
	nb_emu = emu_pmu_new(&cfg);
	assert_non_null(nb_emu);
	nb_hw = emu_hw_new(nb_emu);
	assert_non_null(nb_hw);
	assert_int_equal(hw_cpuid(nb_hw, 0, &raw), 0);
	cpu_decode(&raw, &nb);
	j = (struct journal){ .core = 0, .own_gp = 1 };
	assert_int_equal(journal_apply(nb_hw, &nb.pmu, &j, &res, &err), -EBADMSG);
	assert_non_null(strstr(err_msg(err), "written for the architectural PMU, and this CPU's is netburst"));
	err_clear(&err);
	assert_int_equal(nb_emu->cpu[0].stats.wrmsr, 0);
	emu_hw_free(nb_hw);
	emu_pmu_free(nb_emu);
	fixture_free(f);
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
		cmocka_unit_test(test_journal_of_another_family_is_not_applied),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
