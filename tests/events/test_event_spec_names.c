/*
 * test_event_spec_names.c - the -e grammar's names: event groups, the
 * generic cache names, the architectural events and the core type
 * spellings.
 */
#include "event_spec_test.h"

/* perf's groups: '{a,b}' marks its events with one group number, refused forms say why. */
void
test_groups(void **state)
{
	static const struct { const char *spec, *why; } bad[] = {
		{ "{branches,{cycles}}", "groups do not nest" },
		{ "{branches,cycles", "has no closing '}'" },
		{ "branches}", "'}' without its '{'" },
		{ "{branches,cycles}:u", "nothing may follow a group's '}'" },
		{ "{branches,task-clock}", "'task-clock' is a software event" },
		{ "{}", "empty event name" },
	};
	struct pmustat_error *err = NULL;
	struct event *ev = NULL;
	size_t n = 0;

	(void)state;
	assert_int_equal(event_spec_parse("instructions,{branches, branch-misses },cycles,{ r412e }", NULL, &skl_caps,
					  &ev, &n, &err), 0);
	assert_int_equal(n, 5);
	assert_int_equal(ev[0].group, 0);
	assert_int_equal(ev[1].group, 1);
	assert_int_equal(ev[2].group, 1);
	assert_string_equal(ev[2].requested, "branch-misses");
	assert_int_equal(ev[3].group, 0);
	assert_int_equal(ev[4].group, 2);
	assert_string_equal(ev[4].requested, "r412e");
	/* A second list appended numbers its groups after the first's. */
	assert_int_equal(event_spec_append("{cpu/event=0x3c,umask=0x0/,cycles:k}", NULL, &skl_caps, &ev, &n, &err), 0);
	assert_int_equal(n, 7);
	assert_int_equal(ev[5].group, 3);
	assert_int_equal(ev[6].group, 3);
	free(ev);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ev = NULL;
		if (event_spec_parse(bad[i].spec, NULL, &skl_caps, &ev, &n, &err) != -EINVAL)
			fail_msg("'%s' accepted", bad[i].spec);
		if (!strstr(err_msg(err), bad[i].why))
			fail_msg("'%s': '%s' lacks '%s'", bad[i].spec, err_msg(err), bad[i].why);
		err_clear(&err);
		free(ev);
	}
}

/* perf's hardware-cache names resolve to the table's event that counts it, where there is one. */
void
test_generic_cache_names(void **state)
{
	struct pmustat_error *err = NULL;
	struct event *ev = NULL;
	size_t n = 0;

	(void)state;
	assert_int_equal(event_spec_parse("L1-dcache-load-misses,dTLB-load-misses:k", tables[T_SKL], &skl_caps, &ev, &n,
					  &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(ev[0].name, "L1D.REPLACEMENT");
	assert_string_equal(ev[0].requested, "L1-dcache-load-misses");
	assert_int_equal(ev[0].code, 0x51);
	assert_int_equal(ev[0].umask, 0x01);
	assert_true(ev[0].usr && !ev[0].os);
	assert_string_equal(ev[1].name, "DTLB_LOAD_MISSES.MISS_CAUSES_A_WALK");
	assert_true(!ev[1].usr && ev[1].os);
	free(ev);
	/* Haswell's name for the same thing. */
	assert_int_equal(event_spec_parse("L1-dcache-loads", tables[T_HSW], &skl_caps, &ev, &n, &err), 0);
	assert_string_equal(ev[0].name, "MEM_UOPS_RETIRED.ALL_LOADS");
	free(ev);
	/* Without a table: says it needs one (the caller loads it and asks again). */
	assert_int_equal(event_spec_parse("LLC-load-misses", NULL, &skl_caps, &ev, &n, &err), -EINVAL);
	assert_non_null(strstr(err_msg(err), "needs this CPU's event table"));
	err_clear(&err);
}

/* The SDM table the lead specified, and the EBX gate. */
void
test_arch_events(void **state)
{
	static const struct { unsigned bit; uint8_t code, umask; int fixed; } sdm[] = {
		{ 0, 0x3c, 0x00, 1 }, { 1, 0xc0, 0x00, 0 }, { 2, 0x3c, 0x01, 2 },
		{ 3, 0x2e, 0x4f, -1 }, { 4, 0x2e, 0x41, -1 }, { 5, 0xc4, 0x00, -1 },
		{ 6, 0xc5, 0x00, -1 }, { 7, 0xa4, 0x01, 3 }, { 8, 0xa4, 0x02, -1 },
		{ 9, 0x73, 0x00, -1 }, { 10, 0x9c, 0x01, -1 }, { 11, 0xc2, 0x02, -1 },
		{ 12, 0xe4, 0x01, -1 },
	};
	unsigned i;

	(void)state;
	assert_int_equal(arch_event_count(), 13);
	for (i = 0; i < 13; i++) {
		const struct arch_event *ae = arch_event_get(i);

		assert_int_equal(ae->bit, sdm[i].bit);
		assert_int_equal(ae->code, sdm[i].code);
		assert_int_equal(ae->umask, sdm[i].umask);
		assert_int_equal(ae->fixed, sdm[i].fixed);
		assert_ptr_equal(arch_event_by_key(ae->key), ae);
		assert_true(arch_event_available(&lnc_caps, ae));
		assert_int_equal(arch_event_available(&skl_caps, ae), i < 7);
	}
	assert_null(arch_event_get(13));
	assert_ptr_equal(arch_event_by_key("llc_misses"), arch_event_get(4));
	assert_false(arch_event_available(&ebx_caps, arch_event_get(4)));
	assert_true(arch_event_available(&ebx_caps, arch_event_get(3)));
}

/*
 * perf's hybrid spellings cpu_core/TERM/ and cpu_atom/TERM/: TERM on a
 * core of that type (the whole spelling kept as requested), a placeholder
 * counted nowhere on the other type, refused on a CPU of one core type.
 * Lion Cove's table plays the P-core (0x40) or the E-core (0x20).
 */
void
test_core_type_spellings(void **state)
{
	struct pmustat_error *err = NULL;
	struct event *ev = NULL;
	size_t n = 0;

	(void)state;
	assert_int_equal(event_spec_parse_typed("cpu_core/INST_RETIRED.ANY/,cpu_atom/event=0xc0,umask=0/k,cycles",
						tables[T_LNC], &lnc_caps, 0x40, &ev, &n, &err), 0);
	assert_int_equal(n, 3);
	assert_string_equal(ev[0].requested, "cpu_core/INST_RETIRED.ANY/");
	assert_string_equal(ev[0].name, "INST_RETIRED.ANY");
	assert_int_equal(ev[0].code, 0xc0);
	assert_int_equal(ev[0].fixed, 0);
	assert_true(ev[0].usr && !ev[0].os);
	assert_false(ev[0].flags & EVENT_F_OTHER_CORE_TYPE);
	assert_true(ev[1].flags & EVENT_F_OTHER_CORE_TYPE);
	assert_string_equal(ev[1].requested, "cpu_atom/event=0xc0,umask=0/k");
	assert_true(ev[1].os && !ev[1].usr);
	assert_false(event_spec_same(&ev[0], &ev[1]));
	assert_string_equal(ev[2].requested, "cycles");
	free(ev);

	/* On the E-core the same list: the cpu_atom/ term is a raw event with its ring. */
	assert_int_equal(event_spec_parse_typed("cpu_core/INST_RETIRED.ANY/,cpu_atom/event=0xc0,umask=0/k",
						tables[T_LNC], &lnc_caps, 0x20, &ev, &n, &err), 0);
	assert_true(ev[0].flags & EVENT_F_OTHER_CORE_TYPE);
	assert_false(ev[1].flags & EVENT_F_OTHER_CORE_TYPE);
	assert_int_equal(ev[1].code, 0xc0);
	assert_true(ev[1].os && !ev[1].usr);
	assert_string_equal(ev[1].requested, "cpu_atom/event=0xc0,umask=0/k");
	free(ev);

	/* An unknown name is still refused on its own type. */
	assert_int_equal(event_spec_parse_typed("cpu_core/NO_SUCH_EVENT/", tables[T_LNC], &lnc_caps, 0x40, &ev, &n,
						&err), -EINVAL);
	assert_non_null(strstr(err_msg(err), "NO_SUCH_EVENT"));
	err_clear(&err);
	/* A CPU of one core type. */
	assert_int_equal(event_spec_parse("cpu_atom/INST_RETIRED.ANY/", tables[T_SKL], &skl_caps, &ev, &n, &err),
			 -EINVAL);
	assert_non_null(strstr(err_msg(err), "E-cores of a hybrid CPU"));
	err_clear(&err);
	assert_int_equal(event_spec_parse_typed("cpu_core//", tables[T_LNC], &lnc_caps, 0x40, &ev, &n, &err), -EINVAL);
	err_clear(&err);
}
