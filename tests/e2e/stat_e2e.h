/*
 * stat_e2e.h - what the e2e-stat test's files share: the core they count
 * on, its machines, and reading their JSON output and MSRs.
 */
#ifndef PMUSTAT_TESTS_STAT_E2E_H
#define PMUSTAT_TESTS_STAT_E2E_H

#include <errno.h>
#include <grp.h>
#include <pwd.h>
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
#include "emu_pmu.h"
#include "emu_state.h"
#include "pmu/msr.h"

#define WL E2E_EMU_WORKLOAD

#define USER_WORK \
	"--retire", "0xc0:0:5000", "--retire", "0x3c:0:2500", "--retire", "0x3c:1:2000", \
	"--retire", "0xc4:0:700", "--retire", "0xc5:0:7", "--retire", "0x2e:0x41:33", \
	"--retire", "0xc0:0:99999:k", "--retire", "0xc4:0:500:k"

extern char core_arg[16];
extern int core;
int setup(void **state);
void machine(struct e2e_machine *m, const char *model, bool watchdog);
void json_path(const struct e2e_machine *m, char *buf, size_t size);
json_t *load_json(const struct e2e_machine *m);
json_t *event_at(json_t *root, size_t i);
long long value_at(json_t *root, size_t i);
void assert_restored(const struct e2e_machine *m, const struct emu_pmu *before);

void test_privilege_drop(void **state);
void test_legacy_writes_haswell(void **state);
void test_hybrid_table_of_the_core(void **state);
void test_icelake_slots_by_default(void **state);
void test_msr_reads_without_rdpmc(void **state);
void test_second_pmustat_on_the_core_waits_then_names_the_pid(void **state);
void test_no_pmu_access_125_with_the_fix(void **state);
void test_core2_v2_40_bit(void **state);
void test_sigint_to_pmustat_alone_reaches_the_command(void **state);

#endif
