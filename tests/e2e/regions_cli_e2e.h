/*
 * regions_cli_e2e.h - what the regions-e2e test's files share: its
 * machines, the rdpmc file and journal, and reading --regions JSON.
 */
#ifndef PMUSTAT_TESTS_REGIONS_CLI_E2E_H
#define PMUSTAT_TESTS_REGIONS_CLI_E2E_H

#include <errno.h>
#include <jansson.h>
#include <limits.h>
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
#include <unistd.h>
#include <cmocka.h>
#include "e2e_harness.h"
#include "pmu/journal.h"
#include "pmu/msr.h"
#include "pmu/rdpmc_journal.h"

#define WL E2E_EMU_WORKLOAD

extern unsigned ncpus;
extern char core_arg[16];
extern int core;
void machine(struct e2e_machine *m, const char *extra1, const char *extra2);
char *rdpmc_file(const struct e2e_machine *m, char *buf, size_t size);
void assert_rdpmc(const struct e2e_machine *m, const char *want);
bool journal_exists(const struct e2e_machine *m);
json_t *parse(const struct e2e_result *r);
json_t *region(json_t *root, const char *name);
long long region_value(json_t *root, const char *name, size_t k);
long long calls(json_t *root, const char *name);
long long event_value(json_t *root, size_t k);
void expect_region(json_t *root, const char *name, long long c, long long units);

void test_rdpmc_set_and_restored(void **state);
void test_perf_backend_leaves_room(void **state);
void test_refused(void **state);
void test_sigterm_restores(void **state);
void test_sigkill_next_run_restores(void **state);
void test_sigkill_reset_restores(void **state);
void test_corrupt_journal(void **state);

#endif
