/*
 * security_fixture.h - what the test_security_*_e2e.c programs share: one
 * emulated Skylake with the host's CPU count, counted on one core (the
 * last CPU this process may run on), and the checks they make on it and on
 * the processes they start. Each program links security_fixture.c, so a
 * helper fixed here is fixed for all of them.
 */
#ifndef PMUSTAT_SECURITY_FIXTURE_H
#define PMUSTAT_SECURITY_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <unistd.h>

#include "e2e_harness.h"
#include "emu_pmu.h"

#define WL E2E_EMU_WORKLOAD
#define NOBODY 65534
#define NEEDS_ROOT() do { if (geteuid() != 0) skip(); } while (0)

/* The core counted and its -C argument; the emulated machine's CPU count. */
extern int core;
extern char core_arg[16];
extern unsigned ncpus;

/*
 * Picks core, core_arg and ncpus, and applies PMUSTAT_TEST_FILTER (a
 * cmocka test name pattern, to run one test); -1 when the affinity cannot
 * be read. Each program's main() calls it before running its tests.
 */
int security_fixture_init(void);

void machine(struct e2e_machine *m);
void set(const struct e2e_machine *m, uint32_t msr, uint64_t v);
uint64_t get(const struct e2e_machine *m, uint32_t msr);
/* The PMU of @m is bit for bit @before. */
void assert_same(const struct e2e_machine *m, const struct emu_pmu *before);
/* Wait until @pid is gone or a zombie (not necessarily our child). */
bool wait_gone(pid_t pid, unsigned timeout_ms);
/* The file's first 64 KiB, in a buffer the next call reuses. */
char *slurp_file(const char *path);

#endif
