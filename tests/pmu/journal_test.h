/*
 * journal_test.h - what the pmu-journal test's files share: the fixture (a
 * journal directory and an emulated PMU) and runs programmed as pmustat
 * programs them.
 */
#ifndef PMUSTAT_TESTS_JOURNAL_TEST_H
#define PMUSTAT_TESTS_JOURNAL_TEST_H

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

struct fixture {
	char dir[PATH_MAX];
	char jdir[PATH_MAX + 16];
	struct emu_pmu *emu;
	struct hw *hw;
	struct cpu_info info;
	struct emu_pmu *before;
};

extern struct pmu_caps f_caps;
extern struct pmu *pmu;
struct fixture *fixture_new(enum emu_model model, bool watchdog);
void snapshot(struct fixture *f);
void fixture_free(struct fixture *f);
void wr(struct fixture *f, uint32_t msr, uint64_t v);
uint64_t rd(struct fixture *f, uint32_t msr);
unsigned run_plan(struct event *ev, struct sched_slot *slots, bool all_fixed);
int journal_of(struct journal *j, const struct event *ev, const struct sched_slot *slots, unsigned n,
	   unsigned runs, struct pmustat_error **err);
void save_and_journal_plan(struct fixture *f, bool force, bool all_fixed, struct journal *j);
void save_and_journal(struct fixture *f, bool force, struct journal *j);
int apply(struct fixture *f, const struct journal *j, struct pmustat_error **err);
void program_like_a_run(struct fixture *f);

void test_wrong_core_and_open_directory(void **state);
void test_owner_dead_reused_live(void **state);
void test_recover(void **state);
void test_forced_counters_restored(void **state);
void test_legacy_counter_writes(void **state);
void test_counters_taken_since_are_left_alone(void **state);
void test_owner_zombie_is_dead(void **state);
void test_largest_plan(void **state);

#endif
