/*
 * test_journal_recover.c - recovering from a journal: the owner check
 * (dead, reused, zombie, live pid), restores that leave counters taken
 * since alone, forced and legacy counters, the largest plan.
 */
#include "journal_test.h"

/* A journal of another core, or in a directory others may write, is not trusted. */
void
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

void
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
void
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
void
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
void
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
void
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
void
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
void
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
