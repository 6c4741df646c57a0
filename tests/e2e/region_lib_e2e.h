/*
 * region_lib_e2e.h - what the region-e2e test's files share: the fixture
 * that plays pmustat's side (counters by hand, the area, the records read
 * back).
 */
#ifndef PMUSTAT_TESTS_REGION_LIB_E2E_H
#define PMUSTAT_TESTS_REGION_LIB_E2E_H

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include "e2e_harness.h"
#include "emu_state.h"
#include "pmu/msr.h"
#include "hw/perf_sys.h"
#include "region/region_host.h"
#include "base/err.h"

#define CPU 0u

#define WIDTH 48u

#define MASK ((1ull << WIDTH) - 1)

#define LLC_EVTSEL (EVTSEL_EVENT(0x2e) | EVTSEL_UMASK(0x41) | EVTSEL_USR | EVTSEL_EN)

struct fixture {
	struct e2e_machine m;
	struct region_host_params p;
	struct region_area *area;
	char env[64];
};

void setup_events(struct fixture *f, uint64_t preset, unsigned threads, unsigned records, unsigned nevents,
	     bool narrow);
void setup(struct fixture *f, uint64_t preset, unsigned threads, unsigned records);
void teardown(struct fixture *f);
void run_pinned(struct fixture *f, const char *const argv[], const char *extra_env, int want_status);
void read_result(struct fixture *f, struct region_result *r);
const struct region_total *total(const struct region_result *r, const char *name);
void expect_total(const struct region_result *r, const char *name, uint64_t calls, uint64_t units);

void test_perf_pages(void **state);
void test_perf_not_readable(void **state);
void test_perf_other_threads_open_their_own(void **state);
void test_perf_self_read_events_of_the_kernel(void **state);

#endif
