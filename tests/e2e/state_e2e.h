/*
 * state_e2e.h - what the state-e2e test's files share: its machines, their
 * MSRs, and reading pmustat state's JSON.
 */
#ifndef PMUSTAT_TESTS_STATE_E2E_H
#define PMUSTAT_TESTS_STATE_E2E_H

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <sched.h>
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
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include "e2e_harness.h"
#include "e2e_journal.h"
#include "emu_pmu.h"
#include "emu_state.h"
#include "pmu/journal.h"
#include "pmu/msr.h"
#include "base/err.h"

#define WL E2E_EMU_WORKLOAD

extern unsigned ncpus;
extern char core_arg[16];
extern int core;
void machine(struct e2e_machine *m, bool watchdog);
void set(const struct e2e_machine *m, uint32_t msr, uint64_t v);
void assert_same(const struct e2e_machine *m, const struct emu_pmu *before);
json_t *parse(const char *text);
json_t *counter(json_t *core_obj, const char *name);
const char *str(json_t *o, const char *key);
bool flag(json_t *o, const char *key);
bool has_owner(json_t *core_obj, const char *owner);

void test_reset_live_and_reused_pid(void **state);
void test_reset_corrupt_journal(void **state);
void test_sigkill_next_run_restores(void **state);
void test_sigkill_reset_restores(void **state);
void test_no_journal_left_by_normal_runs(void **state);

#endif
