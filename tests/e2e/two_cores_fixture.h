/*
 * two_cores_fixture.h - what the tests counting on two cores share
 * (test_multicore_*_e2e.c, test_pin_threads_e2e.c): the two CPUs counted,
 * an emulated Skylake numbered like the host up to the second of them, and
 * the checks on pmustat's JSON and on the emulated PMU. Each program links
 * two_cores_fixture.c, so a helper fixed here is fixed for all of them.
 *
 * The emulated machine has the host's CPU numbering: the tests use the
 * first two CPUs this process may run on, and skip on a host with one.
 */
#ifndef PMUSTAT_TWO_CORES_FIXTURE_H
#define PMUSTAT_TWO_CORES_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>

#include "e2e_harness.h"
#include "emu_pmu.h"

#define WL E2E_EMU_WORKLOAD

/*
 * The two cores counted: the first two CPUs we may run on (cpu1 -1 on a
 * host with one); -C with both as a list and as a range when they are
 * adjacent (the list otherwise); --cpus for a machine that has them.
 */
extern int cpu0, cpu1;
extern char list_arg[32], range_arg[32], cpus_arg[16];

#define NEED_TWO_CPUS() do { if (cpu1 < 0) skip(); } while (0)

/* cmocka group setup: picks the cores above. */
int two_cores_setup(void **state);

/* An emulated Skylake with both cores; @watchdog: the NMI watchdog holds fixed counter 1. */
void machine(struct e2e_machine *m, bool watchdog);

json_t *parse_json(const char *text);
/* The entry of "events" pmustat was asked for as @name. */
json_t *event_named(json_t *root, const char *name);
/* Event @name's per_cpu entry for @cpu (one entry per core counted: two). */
json_t *per_cpu_entry(json_t *root, const char *name, int cpu);
/* Event @name's per_cpu value on @cpu. */
long long per_cpu(json_t *root, const char *name, int cpu);
/* The counter event @name counted on @cpu, as its per_cpu entry names it. */
const char *per_cpu_counter(json_t *root, const char *name, int cpu);
/* Event @name's value, summed over the cores. */
long long value(json_t *root, const char *name);

/* The PMU of @m, every core, is bit for bit @before. */
void assert_restored(const struct e2e_machine *m, const struct emu_pmu *before);
/* How many MSR writes @cpu of @m has seen. */
uint64_t writes_on(const struct e2e_machine *m, int cpu);
bool journal_exists(const struct e2e_machine *m, int cpu);

#endif
