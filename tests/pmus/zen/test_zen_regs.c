/*
 * AMD's core PMU registers as data (APM vol. 2; Linux
 * arch/x86/events/amd/core.c): the map from CPUID is the allow-list and
 * the restore order, the 12-bit event select is split, reserved bits and
 * HostOnly/GuestOnly are refused, the NMI watchdog's counter is told
 * from its PERF_CTL, and GlobalCtl is written only in pmustat's bits.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "events/cpu.h"
#include "pmus/zen/zen_regs.h"

static unsigned
map_of(bool ext, bool v2, unsigned counters, struct zen_reg map[ZEN_MAX_REGS])
{
	struct pmu_caps caps;

	memset(&caps, 0, sizeof(caps));
	caps.ext_counters = ext;
	caps.global_regs = v2;
	caps.gp_counters = counters;
	return zen_reg_map(&caps, map);
}

/* Zen 4/5 (PerfMonV2): six PERF_CTL/PERF_CTR pairs at 0xC001_0200 + 2i, the three global registers. */
static void
test_map_with_global_registers(void **state)
{
	struct zen_reg map[ZEN_MAX_REGS];
	unsigned n = map_of(true, true, 6, map);
	const struct zen_reg *r;

	(void)state;
	assert_int_equal(n, 15);
	for (unsigned i = 0; i < 6; i++) {
		r = zen_reg_find(map, n, 0xc0010200u + 2 * i);
		assert_non_null(r);
		assert_int_equal(r->role, ZEN_ROLE_CTL);
		assert_int_equal(r->counter, (int)i);
		r = zen_reg_find(map, n, 0xc0010201u + 2 * i);
		assert_non_null(r);
		assert_int_equal(r->role, ZEN_ROLE_CTR);
		assert_int_equal(r->writable, (1ull << 48) - 1);
	}
	/* Nothing beyond the six, and the legacy aliases are not on the list. */
	assert_null(zen_reg_find(map, n, 0xc001020cu));
	assert_null(zen_reg_find(map, n, 0xc0010000u));
	assert_null(zen_reg_find(map, n, 0xc0010004u));
	r = zen_reg_find(map, n, 0xc0000301u);
	assert_non_null(r);
	assert_int_equal(r->role, ZEN_ROLE_GLOBAL_CTL);
	assert_int_equal(r->writable, 0x3f);
	assert_int_equal(r->counter, -1);
	/* GlobalCtl goes back first: it stops the counting. */
	assert_int_equal(r->rank, 0);
	r = zen_reg_find(map, n, 0xc0000300u);
	assert_non_null(r);
	assert_int_equal(r->writable, 0);
	assert_int_equal(r->rank, ZEN_NO_RESTORE);
	r = zen_reg_find(map, n, 0xc0000302u);
	assert_non_null(r);
	assert_int_equal(r->rank, ZEN_NO_RESTORE);
	/* The map lists every CTL before any CTR (the restore order). */
	for (unsigned i = 1; i < n; i++)
		assert_true(map[i - 1].rank <= map[i].rank || map[i].rank == ZEN_NO_RESTORE ||
			    map[i - 1].rank == ZEN_NO_RESTORE);
}

/* Zen 2 (no PerfMonV2): no global registers; without PerfCtrExtCore, the four legacy pairs only. */
static void
test_map_without_global_registers(void **state)
{
	struct zen_reg map[ZEN_MAX_REGS];
	unsigned n = map_of(true, false, 6, map);

	(void)state;
	assert_int_equal(n, 12);
	assert_null(zen_reg_find(map, n, 0xc0000301u));
	assert_null(zen_reg_find(map, n, 0xc0000300u));
	assert_null(zen_reg_find(map, n, 0xc0000302u));
	n = map_of(false, false, 6, map);
	assert_int_equal(n, 8);
	for (unsigned i = 0; i < 4; i++) {
		assert_non_null(zen_reg_find(map, n, 0xc0010000u + i));
		assert_non_null(zen_reg_find(map, n, 0xc0010004u + i));
	}
	assert_null(zen_reg_find(map, n, 0xc0010200u));
}

static void
test_event_split(void **state)
{
	uint64_t ctl = zen_ctl_with_event(ZEN_CTL_EN | ZEN_CTL_USR | (0x3ull << 8), 0x1c0);

	(void)state;
	/* Bits 7:0 and 35:32. */
	assert_int_equal(ctl & 0xff, 0xc0);
	assert_int_equal((ctl >> 32) & 0xf, 0x1);
	assert_int_equal(zen_ctl_event(ctl), 0x1c0);
	assert_int_equal((ctl >> 8) & 0xff, 0x3);
	assert_true(ctl & ZEN_CTL_EN);
	assert_int_equal(zen_ctl_event(zen_ctl_with_event(ctl, 0xfff)), 0xfff);
	assert_int_equal(zen_ctl_event(0x76), 0x76);
}

static void
test_write_rules(void **state)
{
	struct zen_reg map[ZEN_MAX_REGS];
	unsigned n = map_of(true, true, 6, map);
	uint64_t ok = zen_ctl_with_event(ZEN_CTL_EN | ZEN_CTL_USR | ZEN_CTL_OS, 0x1c0);
	char name[40];

	(void)state;
	assert_string_equal(zen_write_refusal(map, n, 0xc0010200u, ok), "");
	assert_string_equal(zen_write_refusal(map, n, 0xc0010201u, (1ull << 48) - 1), "");
	assert_non_null(strstr(zen_write_refusal(map, n, 0xc0010200u, ok | ZEN_CTL_HOST_ONLY), "HostOnly"));
	assert_non_null(strstr(zen_write_refusal(map, n, 0xc0010200u, ok | ZEN_CTL_GUEST_ONLY), "GuestOnly"));
	assert_non_null(strstr(zen_write_refusal(map, n, 0xc0010200u, ok | 1ull << 21), "reserved"));
	assert_non_null(strstr(zen_write_refusal(map, n, 0xc0010200u, ok | 1ull << 19), "reserved"));
	assert_non_null(strstr(zen_write_refusal(map, n, 0xc0010200u, ok | 1ull << 36), "reserved"));
	assert_non_null(strstr(zen_write_refusal(map, n, 0xc0010200u, ok | 1ull << 42), "reserved"));
	assert_non_null(strstr(zen_write_refusal(map, n, 0xc0010200u, ok | ZEN_CTL_INT), "INT"));
	assert_non_null(strstr(zen_write_refusal(map, n, 0xc0010201u, 1ull << 48), "48 bits"));
	assert_non_null(strstr(zen_write_refusal(map, n, 0xc0000301u, 1ull << 6), "does not have"));
	assert_string_equal(zen_write_refusal(map, n, 0xc0000301u, 0x3f), "");
	assert_string_equal(zen_write_refusal(map, n, 0xc0000300u, 0), "read only");
	assert_non_null(strstr(zen_write_refusal(map, n, 0x186u, 0), "allow-list"));
	assert_non_null(strstr(zen_write_refusal(map, n, 0xc0010000u, 0), "allow-list"));
	assert_string_equal(zen_reg_name(0xc0010205u, name, sizeof(name)), "PERF_CTR2");
	assert_string_equal(zen_reg_name(0xc001020au, name, sizeof(name)), "PERF_CTL5");
	assert_string_equal(zen_reg_name(0xc0010006u, name, sizeof(name)), "PERF_CTR2 (legacy)");
	assert_string_equal(zen_reg_name(0xc0000301u, name, sizeof(name)), "PerfCntrGlobalCtl");
	assert_string_equal(zen_reg_name(0xc0000302u, name, sizeof(name)), "PerfCntrGlobalStatusClr");
}

/* Linux's NMI watchdog (cycles 0x76, INT, En), perf (INT), another tool, or nobody. */
static void
test_counter_holder(void **state)
{
	uint64_t watchdog = 0x76 | ZEN_CTL_USR | ZEN_CTL_OS | ZEN_CTL_INT | ZEN_CTL_EN;

	(void)state;
	assert_int_equal(zen_counter_holder(0), ZEN_HOLDER_NONE);
	assert_int_equal(zen_counter_holder(watchdog), ZEN_HOLDER_WATCHDOG);
	/* Stopped (En clear) it is perf's event still, not the running watchdog. */
	assert_int_equal(zen_counter_holder(watchdog & ~ZEN_CTL_EN), ZEN_HOLDER_PERF);
	assert_int_equal(zen_counter_holder(0xc0 | ZEN_CTL_INT | ZEN_CTL_EN), ZEN_HOLDER_PERF);
	assert_int_equal(zen_counter_holder(0xc0 | ZEN_CTL_USR | ZEN_CTL_EN), ZEN_HOLDER_OTHER);
	/* Event 0x076 with the high event bits set is another event. */
	assert_int_equal(zen_counter_holder(zen_ctl_with_event(watchdog, 0x176)), ZEN_HOLDER_PERF);
	assert_int_equal(zen_counter_holder(0xc0 | ZEN_CTL_USR), ZEN_HOLDER_OTHER);
}

/* GlobalCtl: only pmustat's bits change; perf's bits survive the enable and the disable. */
static void
test_global_ctl_own_bits(void **state)
{
	(void)state;
	assert_int_equal(zen_global_ctl_write(0x21, 0x06, true), 0x27);
	assert_int_equal(zen_global_ctl_write(0x27, 0x06, false), 0x21);
	/* Another user cleared one of ours meanwhile: the disable leaves theirs. */
	assert_int_equal(zen_global_ctl_write(0x31, 0x06, false), 0x31);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_map_with_global_registers),
		cmocka_unit_test(test_map_without_global_registers),
		cmocka_unit_test(test_event_split),
		cmocka_unit_test(test_write_rules),
		cmocka_unit_test(test_counter_holder),
		cmocka_unit_test(test_global_ctl_own_bits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
