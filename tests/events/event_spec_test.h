/*
 * event_spec_test.h - what the event-spec test's files share: the tables
 * and PMUs it parses against.
 */
#ifndef PMUSTAT_TESTS_EVENT_SPEC_TEST_H
#define PMUSTAT_TESTS_EVENT_SPEC_TEST_H

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "events/arch_events.h"
#include "events/cpu.h"
#include "events/event.h"
#include "events/event_spec.h"
#include "events/event_table.h"
#include "base/err.h"

#define U true, false	/* usr, os: user only (the default) */

#define K false, true

#define UK true, true

#define NOFLAGS false, false, false	/* inv, edge, any */

#define ARCH EVENT_F_ARCH

#define RAW EVENT_F_RAW

#define CHECK_FIELD(got, want) do { \
	if ((uint64_t)ev->got != (uint64_t)w->want) \
		fail_msg("'%s' #%zu: " #got " is 0x%llx, want 0x%llx", c->spec, i, \
			 (unsigned long long)ev->got, (unsigned long long)w->want); \
} while (0)

/* The PMUs described by hand (test_event_spec.c). */
extern const struct pmu_caps skl_caps;
extern const struct pmu_caps skl_htoff_caps;
extern const struct pmu_caps spr_caps;
extern const struct pmu_caps lnc_caps;
extern const struct pmu_caps ebx_caps;
extern const struct pmu_caps tiny_caps;

enum { T_NONE, T_SKL, T_CLX, T_SPR, T_LNC, T_HSW, T_COUNT };

/* What one resolved event must look like; NULL name = don't check. */
struct want {
	const char *name;
	uint8_t code, umask, umask_ext, cmask;
	bool inv, edge, any, usr, os;
	int fixed;
	uint32_t gp_mask;
	uint32_t extra_msr;
	uint64_t extra_value;
	unsigned flags;
};

struct spec_case {
	const char *spec;
	int table;
	const struct pmu_caps *caps;
	size_t count;			/* 0: must fail */
	const char *error;		/* substring of the message when it fails */
	struct want want[3];		/* the first min(count, 3) events */
};

extern struct event_table *tables[T_COUNT];
extern const char *events_dir;
void check_event(const struct spec_case *c, size_t i, const struct event *ev);

void test_groups(void **state);
void test_generic_cache_names(void **state);
void test_arch_events(void **state);
void test_core_type_spellings(void **state);

#endif
