/*
 * test_owner.c - who holds a counter (src/pmu/owner.c) on the registers
 * read by src/pmu/snapshot.c, on the in-process emulated PMU: a
 * hand-programmed PMU is decoded field by field, its events named from the
 * core's table, its owners guessed, and reading it never writes.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <libcpuid/libcpuid.h>

#include "config.h"
#include "events/cpu.h"
#include "emu_hw.h"
#include "emu_pmu.h"
#include "events/event_table.h"
#include "pmu/msr.h"
#include "events/cpu_source.h"
#include "pmu/owner.h"
#include "pmu/pmu.h"
#include "pmu/snapshot.h"
#include "base/err.h"

#define CPU 1
/* The source tree's events/, from meson (argv[1]). */
static const char *events_dir;

struct fixture {
	struct emu_pmu *emu;
	struct hw *hw;
	struct cpu_info info;
};

static struct fixture *
fixture_new(enum emu_model model, bool watchdog)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct cpu_raw_data_t raw;
	struct emu_config cfg;

	assert_non_null(f);
	emu_config_default(&cfg, model);
	cfg.ncpus = 2;
	cfg.watchdog = watchdog;
	f->emu = emu_pmu_new(&cfg);
	assert_non_null(f->emu);
	f->hw = emu_hw_new(f->emu);
	assert_non_null(f->hw);
	assert_int_equal(hw_cpuid(f->hw, CPU, &raw), 0);
	cpu_decode(&raw, &f->info);
	return f;
}

static void
fixture_free(struct fixture *f)
{
	emu_hw_free(f->hw);
	emu_pmu_free(f->emu);
	free(f);
}

static void
wr(struct fixture *f, uint32_t msr, uint64_t v)
{
	assert_int_equal(emu_wrmsr(f->emu, CPU, msr, v), 0);
}

static struct event_table *
table(const char *name)
{
	struct event_table *t = NULL;
	struct pmustat_error *err = NULL;

	if (event_table_load(events_dir, name, &t, &err) != 0)
		fail_msg("%s", err_msg(err));
	err_clear(&err);
	return t;
}

static void
test_decode_hand_programmed(void **state)
{
	struct fixture *f = fixture_new(EMU_MODEL_SKYLAKE, true);
	struct event_table *t = table("skylake");
	struct emu_pmu before;
	struct pmu_snapshot st;
	struct pmu_occupancy occ;
	struct pmu_evtsel_fields e;
	struct pmustat_error *err = NULL;
	char name[128];

	(void)state;
	/* pmc0: BR_INST_RETIRED.ALL_BRANCHES, user, enabled (pmustat's way). */
	wr(f, msr_evtsel(0), 0x4100c4);
	/* pmc1: perf's way: both rings, INT, edge, inv, cmask 1 on 0xa3/0x04. */
	wr(f, msr_evtsel(1), 0x01d704a3);
	/* pmc3: an encoding no table has. */
	wr(f, msr_evtsel(3), 0x420077);
	wr(f, msr_a_pmc(0), 1000);
	wr(f, MSR_IA32_FIXED_CTR_CTRL, 0xb2);	/* fixed0 user, fixed1 the watchdog */
	wr(f, MSR_IA32_PERF_GLOBAL_STATUS_SET, 0x200000001ull);
	memcpy(&before, f->emu, sizeof(before));

	assert_int_equal(pmu_snapshot_read(f->hw, CPU, &f->info.pmu, &st, &err), 0);
	/* Read only: not one write, not even an open for writing. */
	assert_int_equal(emu_hw_calls(f->hw, EMU_HW_OP_WRMSR), 0);
	assert_int_equal(emu_pmu_diff(&before, f->emu, stderr), 0);

	assert_int_equal(st.global_ctrl, 0x70000000full);
	assert_int_equal(st.global_status, 0x200000001ull);
	assert_true(st.has_inuse);
	assert_int_equal(st.fixed_ctrl, 0xb2);
	assert_int_equal(st.pmc[0], 1000);
	pmu_snapshot_occupancy(&st, NULL, &occ);
	assert_int_equal(occ.busy_gp, 0xb);
	assert_int_equal(occ.busy_fixed, 0x3);

	pmu_evtsel_decode(st.evtsel[1], &e);
	assert_int_equal(e.event, 0xa3);
	assert_int_equal(e.umask, 0x04);
	assert_int_equal(e.cmask, 1);
	assert_true(e.usr && e.os && e.edge && e.intr && e.en && e.inv);
	assert_false(e.any || e.pc);

	assert_string_equal(pmu_snapshot_event_name(t, st.evtsel[0], name, sizeof(name)),
			    "BR_INST_RETIRED.ALL_BRANCHES");
	assert_string_equal(pmu_snapshot_event_name(t, st.evtsel[3], name, sizeof(name)), "raw");
	assert_string_equal(pmu_snapshot_event_name(t, 0, name, sizeof(name)), "");
	/* Without a table: the architectural name. */
	assert_string_equal(pmu_snapshot_event_name(NULL, 0x4100c4, name, sizeof(name)), "BRANCH_INSTRUCTIONS");
	assert_string_equal(pmu_snapshot_fixed_event_name(t, 1), "CPU_CLK_UNHALTED.THREAD");

	/* Owners: the watchdog's fixed1, perf's INT counter, the rest unknown. */
	pmu_snapshot_occupancy(&st, &(struct pmu_owner_hints){ .watchdog_on = pmu_owner_watchdog_on("1\n") }, &occ);
	assert_int_equal(occ.fixed[1], PMU_OWNER_NMI_WATCHDOG);
	assert_int_equal(occ.fixed[0], PMU_OWNER_UNKNOWN);
	assert_int_equal(occ.fixed[2], PMU_OWNER_NONE);
	assert_int_equal(occ.gp[1], PMU_OWNER_PERF);
	assert_int_equal(occ.gp[0], PMU_OWNER_UNKNOWN);
	assert_int_equal(occ.gp[2], PMU_OWNER_NONE);
	/* Watchdog off: a PMI field is perf's. */
	pmu_snapshot_occupancy(&st, &(struct pmu_owner_hints){ .watchdog_on = pmu_owner_watchdog_on("0") }, &occ);
	assert_int_equal(occ.fixed[1], PMU_OWNER_PERF);
	/* A pmustat run holds the core: its kind of counters are its. */
	{
		struct pmu_owner_hints pm = { .watchdog_on = true, .live_pid = 1234 };

		pmu_snapshot_occupancy(&st, &pm, &occ);
		assert_int_equal(occ.gp[0], PMU_OWNER_PMUSTAT);
		assert_int_equal(occ.fixed[0], PMU_OWNER_PMUSTAT);
		assert_int_equal(occ.gp[1], PMU_OWNER_PERF);
		pm.live_pid = 0;
		pm.killed_pid = 99;
		pmu_snapshot_occupancy(&st, &pm, &occ);
		assert_int_equal(occ.gp[0], PMU_OWNER_PMUSTAT_KILLED);
	}
	assert_string_equal(pmu_owner_name(PMU_OWNER_NMI_WATCHDOG), "nmi_watchdog");
	event_table_free(t);
	fixture_free(f);
	err_clear(&err);
}

/* GLOBAL_INUSE alone (v4+) marks a counter busy, as pmu_open() does. */
static void
test_inuse_and_versions(void **state)
{
	struct fixture *f = fixture_new(EMU_MODEL_HASWELL, false);
	struct pmu_snapshot st;
	struct pmu_occupancy occ;
	struct pmustat_error *err = NULL;

	(void)state;
	wr(f, msr_evtsel(2), 0x4000c0);	/* EN only with event 0xc0 */
	assert_int_equal(pmu_snapshot_read(f->hw, CPU, &f->info.pmu, &st, &err), 0);
	assert_false(st.has_inuse);	/* v3 */
	pmu_snapshot_occupancy(&st, NULL, &occ);
	assert_int_equal(occ.busy_gp, 0x4);
	fixture_free(f);
	err_clear(&err);
}

/*
 * One rule: what stat's pmu_open() finds held, and whose, is what state's
 * snapshot shows, on the same registers (the watchdog, perf, someone else).
 */
static void
test_stat_and_state_agree(void **state)
{
	struct fixture *f = fixture_new(EMU_MODEL_SKYLAKE, true);
	struct pmu_owner_hints hints = { .watchdog_on = true };
	const struct pmu_occupancy *po;
	struct pmustat_error *err = NULL;
	struct pmu_snapshot st;
	struct pmu_occupancy occ;
	struct pmu *p;

	(void)state;
	wr(f, msr_evtsel(0), 0x4300c0);			/* someone's, no INT */
	wr(f, msr_evtsel(2), 0x4300c4 | EVTSEL_INT);	/* perf's */
	wr(f, MSR_IA32_FIXED_CTR_CTRL, f->emu->cpu[CPU].regs.fixed_ctr_ctrl | 0x9);	/* perf's fixed0 */
	assert_int_equal(pmu_snapshot_read(f->hw, CPU, &f->info.pmu, &st, &err), 0);
	pmu_snapshot_occupancy(&st, &hints, &occ);
	assert_int_equal(pmu_open(&p, f->hw, CPU, &f->info.pmu, false, &hints, &err), 0);
	po = pmu_occupancy(p);
	assert_int_equal(po->busy_gp, occ.busy_gp);
	assert_int_equal(po->busy_fixed, occ.busy_fixed);
	assert_memory_equal(po->gp, occ.gp, sizeof(occ.gp));
	assert_memory_equal(po->fixed, occ.fixed, sizeof(occ.fixed));
	assert_int_equal(occ.gp[0], PMU_OWNER_UNKNOWN);
	assert_int_equal(occ.gp[2], PMU_OWNER_PERF);
	assert_int_equal(occ.fixed[0], PMU_OWNER_PERF);
	assert_int_equal(occ.fixed[1], PMU_OWNER_NMI_WATCHDOG);
	/* reset --zero clears only pmustat-style programming. */
	assert_true(pmu_owner_pmustat_style(occ.gp[0]));
	assert_false(pmu_owner_pmustat_style(occ.gp[2]));
	assert_false(pmu_owner_pmustat_style(occ.fixed[1]));
	assert_int_equal(pmu_restore(p), 0);
	pmu_close(p);
	fixture_free(f);
	err_clear(&err);
}

/*
 * IA32_PEBS_ENABLE: a counter with its PEBS bit is perf's though it has no
 * INT bit. Before PEBS baseline (Skylake) bits 35:32 are GP counters'
 * load-latency enables, not fixed counters; with it (Ice Lake) bit 32+i is
 * fixed counter i.
 */
static void
test_pebs_counters_are_perfs(void **state)
{
	struct pmu_owner_regs regs;
	struct pmu_occupancy occ;

	(void)state;
	memset(&regs, 0, sizeof(regs));
	regs.gp_mask = 0xf;
	regs.fixed_mask = 0xf;
	regs.evtsel[0] = 0x4300c0;		/* EN, no INT: Linux's PEBS event */
	regs.evtsel[1] = 0x4301cd;
	regs.pebs_enable = 0x1ull | (1ull << 33);	/* PEBS_EN_PMC0, LL_EN_PMC1 */
	pmu_owner_scan(&regs, NULL, &occ);
	assert_int_equal(occ.busy_gp, 0x3);
	assert_int_equal(occ.gp[0], PMU_OWNER_PERF);
	assert_int_equal(occ.gp[1], PMU_OWNER_PERF);
	assert_int_equal(occ.busy_fixed, 0);
	assert_false(pmu_owner_pmustat_style(occ.gp[0]));

	regs.pebs_baseline = true;		/* now bit 33 is fixed counter 1's */
	regs.evtsel[1] = 0;
	pmu_owner_scan(&regs, NULL, &occ);
	assert_int_equal(occ.busy_gp, 0x1);
	assert_int_equal(occ.busy_fixed, 0x2);
	assert_int_equal(occ.fixed[1], PMU_OWNER_PERF);
}

static void
test_read_errors_name_the_fix(void **state)
{
	struct fixture *f = fixture_new(EMU_MODEL_SKYLAKE, false);
	struct pmu_snapshot st;
	struct pmustat_error *err = NULL;

	(void)state;
	f->emu->config.msr = EMU_MSR_ABSENT;
	assert_int_equal(pmu_snapshot_read(f->hw, CPU, &f->info.pmu, &st, &err), -ENOENT);
	assert_non_null(strstr(err_msg(err), "core 1"));
	assert_non_null(strstr(err_msg(err), "modprobe msr"));
	f->emu->config.msr = EMU_MSR_OK;
	emu_hw_inject(f->hw, EMU_HW_OP_RDMSR, 3, -EIO);
	assert_int_equal(pmu_snapshot_read(f->hw, CPU, &f->info.pmu, &st, &err), -EIO);
	assert_non_null(strstr(err_msg(err), "0x"));
	fixture_free(f);
	err_clear(&err);
}

static void
test_parse_cpus(void **state)
{
	bool set[8];
	struct pmustat_error *err = NULL;

	(void)state;
	assert_int_equal(cpu_parse_list("all", 8, set, &err), 0);
	for (int i = 0; i < 8; i++)
		assert_true(set[i]);
	assert_int_equal(cpu_parse_list("0-2,5", 8, set, &err), 0);
	assert_true(set[0] && set[1] && set[2] && !set[3] && !set[4] && set[5] && !set[6]);
	assert_int_equal(cpu_parse_list("7", 8, set, &err), 0);
	assert_true(set[7] && !set[0]);
	static const char *const bad[] = { "", "8", "-1", "3-1", "1,", "1,,2", "a", "1-", " 1", "0x1", "1 " };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (cpu_parse_list(bad[i], 8, set, &err) != -EINVAL)
			fail_msg("-C \"%s\" was accepted", bad[i]);
		assert_non_null(strstr(err_msg(err), "not a CPU list"));
	}
	err_clear(&err);
}

/*
 * NetBurst: an enabled CCCR and the ESCR it selects are another user's; so
 * is an ESCR armed with a thread's USR/OS bits or tag enable while no
 * enabled CCCR selects it (a tagging upstream ESCR, or a stopped user's),
 * and a stopped (disabled, non-zero) CCCR selecting an armed ESCR. An ESCR
 * that still selects an event without those bits is free, and so is a
 * zero CCCR, whatever its ESCR select 0 names.
 */
static void
test_netburst_rule(void **state)
{
	const int CRU_ESCR0 = nb_escr_find("CRU_ESCR0"), CRU_ESCR1 = nb_escr_find("CRU_ESCR1"),
		  CRU_ESCR2 = nb_escr_find("CRU_ESCR2"), BPU_ESCR0 = nb_escr_find("BPU_ESCR0"),
		  MS_ESCR1 = nb_escr_find("MS_ESCR1"), FLAME_ESCR0 = nb_escr_find("FLAME_ESCR0");
	uint64_t cccr[NB_COUNTERS] = { 0 }, escr[NB_ESCRS] = { 0 };
	const uint64_t event = NB_ESCR_EVENT_SELECT(2) | NB_ESCR_EVENT_MASK(1);
	struct pmu_occupancy occ;

	(void)state;
	assert_true(CRU_ESCR0 >= 0 && CRU_ESCR1 >= 0 && CRU_ESCR2 >= 0 && BPU_ESCR0 >= 0 && MS_ESCR1 >= 0 &&
		    FLAME_ESCR0 >= 0);
	/* Counter 12 (IQ_COUNTER0) enabled through CRU_ESCR0 (select 4). */
	cccr[12] = NB_CCCR_ENABLE | NB_CCCR_ESCR_SELECT(4) | NB_CCCR_REQUIRED;
	escr[CRU_ESCR0] = event | NB_ESCR_T0_USR;
	/* Counter 14 stopped: disabled, selecting the armed CRU_ESCR1. */
	cccr[14] = NB_CCCR_ESCR_SELECT(4) | NB_CCCR_REQUIRED;
	escr[CRU_ESCR1] = event | NB_ESCR_T1_OS;
	/* Counter 13 disabled, selecting CRU_ESCR2, which selects an event but is not armed. */
	cccr[13] = NB_CCCR_ESCR_SELECT(5) | NB_CCCR_REQUIRED;
	escr[CRU_ESCR2] = event;
	/* An upstream tagging ESCR with no counter; BPU_ESCR0 (counter 0's select 0) armed, counter 0's CCCR 0. */
	escr[MS_ESCR1] = NB_ESCR_EVENT_SELECT(1) | NB_ESCR_TAG_ENABLE;
	escr[BPU_ESCR0] = event | NB_ESCR_T0_OS;
	/* FLAME_ESCR0: tag value and event but no arming bit: free. */
	escr[FLAME_ESCR0] = event | NB_ESCR_TAG_VALUE(3);
	memset(&occ, 0, sizeof(occ));
	pmu_owner_scan_nb(cccr, escr, NULL, &occ);
	assert_int_equal(occ.nb_busy, (1u << 12) | (1u << 14));
	assert_int_equal(occ.nb_busy_escrs,
			 (1ull << CRU_ESCR0) | (1ull << CRU_ESCR1) | (1ull << MS_ESCR1) | (1ull << BPU_ESCR0));
	assert_int_equal(occ.nb_cccr[14], cccr[14]);
	assert_int_equal(occ.nb_escr[MS_ESCR1], escr[MS_ESCR1]);
	assert_int_equal(occ.nb[12], PMU_OWNER_UNKNOWN);
	assert_int_equal(occ.nb[13], PMU_OWNER_NONE);
}

/*
 * NetBurst owners, the one rule of stat, state and reset: an OVF_PMI bit
 * (Linux's p4 driver) is perf's; otherwise a live pmustat run's (its lock)
 * or a killed one's (its journal), and, where the journals were read (the
 * core's and its Hyper-Threading sibling's), only the counters they record.
 */
static void
test_netburst_owners(void **state)
{
	const int CRU_ESCR0 = nb_escr_find("CRU_ESCR0"), CRU_ESCR1 = nb_escr_find("CRU_ESCR1");
	uint64_t cccr[NB_COUNTERS] = { 0 }, escr[NB_ESCRS] = { 0 };
	const uint64_t event = NB_ESCR_EVENT_SELECT(2) | NB_ESCR_EVENT_MASK(1);
	struct pmu_owner_hints h = { 0 };
	struct pmu_occupancy occ;

	(void)state;
	cccr[12] = NB_CCCR_ENABLE | NB_CCCR_ESCR_SELECT(4) | NB_CCCR_REQUIRED;
	escr[CRU_ESCR0] = event | NB_ESCR_T0_USR;
	cccr[14] = NB_CCCR_ENABLE | NB_CCCR_ESCR_SELECT(4) | NB_CCCR_REQUIRED | NB_CCCR_OVF_PMI_T1;
	escr[CRU_ESCR1] = event | NB_ESCR_T1_USR | NB_ESCR_T1_OS;
	h.live_pid = 1234;
	memset(&occ, 0, sizeof(occ));
	pmu_owner_scan_nb(cccr, escr, &h, &occ);
	assert_int_equal(occ.nb[12], PMU_OWNER_PMUSTAT);
	assert_int_equal(occ.nb[14], PMU_OWNER_PERF);
	assert_true(pmu_owner_pmustat_style(occ.nb[12]));
	assert_false(pmu_owner_pmustat_style(occ.nb[14]));
	/* Journals read, and counter 12 in none of them: not pmustat's. */
	h.nb_journals_read = true;
	memset(&occ, 0, sizeof(occ));
	pmu_owner_scan_nb(cccr, escr, &h, &occ);
	assert_int_equal(occ.nb[12], PMU_OWNER_UNKNOWN);
	h.nb_journaled = 1u << 12;
	h.live_pid = 0;
	h.killed_pid = 99;
	memset(&occ, 0, sizeof(occ));
	pmu_owner_scan_nb(cccr, escr, &h, &occ);
	assert_int_equal(occ.nb[12], PMU_OWNER_PMUSTAT_KILLED);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_hand_programmed),
		cmocka_unit_test(test_netburst_rule),
		cmocka_unit_test(test_netburst_owners),
		cmocka_unit_test(test_inuse_and_versions),
		cmocka_unit_test(test_stat_and_state_agree),
		cmocka_unit_test(test_pebs_counters_are_perfs),
		cmocka_unit_test(test_read_errors_name_the_fix),
		cmocka_unit_test(test_parse_cpus),
	};

	if (argc != 2) {
		fprintf(stderr, "usage: %s EVENTS_DIR\n", argv[0]);
		return 2;
	}
	events_dir = argv[1];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
