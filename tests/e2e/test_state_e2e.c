/*
 * test_state_e2e.c - `pmustat state`, `pmustat reset` and the crash journal
 * end to end: the real binary on the emulated PMU (libpmuemu.so).
 *
 * The binary always keeps its journals and its locks under /run/pmustat;
 * no environment variable moves them (a root process must not let
 * one redirect where it writes). The emulated machine owns those paths:
 * libpmuemu.so puts them in the machine's own directory (emu_paths.h), so
 * pmustat writes where it does in production as far as it can tell,
 * nothing reaches the host's /run, and a journal left by a killed run here
 * cannot be picked up by another test's pmustat running at the same time.
 * The test plants and checks journals there through e2e_machine_path().
 */
#include "state_e2e.h"

int core;
char core_arg[16];
unsigned ncpus;
void
machine(struct e2e_machine *m, bool watchdog)
{
	char cpus[16];

	snprintf(cpus, sizeof(cpus), "%u", ncpus);
	if (watchdog)
		e2e_machine_new(m, (const char *[]){ "--model", "skylake", "--cpus", cpus, "--watchdog", NULL });
	else
		e2e_machine_new(m, (const char *[]){ "--model", "skylake", "--cpus", cpus, NULL });
}

void
set(const struct e2e_machine *m, uint32_t msr, uint64_t v)
{
	assert_int_equal(e2e_set_msr(m, (unsigned)core, msr, v), 0);
}

void
assert_same(const struct e2e_machine *m, const struct emu_pmu *before)
{
	struct emu_pmu *after = e2e_state(m);

	assert_int_equal(emu_pmu_diff(before, after, stderr), 0);
	free(after);
}

json_t *
parse(const char *text)
{
	json_error_t jerr;
	json_t *root = json_loads(text, 0, &jerr);

	if (!root)
		fail_msg("not JSON (%s): %s", jerr.text, text);
	return root;
}

json_t *
counter(json_t *core_obj, const char *name)
{
	size_t i;
	json_t *c;

	json_array_foreach(json_object_get(core_obj, "counters"), i, c)
		if (strcmp(json_string_value(json_object_get(c, "counter")), name) == 0)
			return c;
	fail_msg("no counter %s", name);
	return NULL;
}

const char *
str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	if (!s)
		fail_msg("no string %s", key);
	return s;
}

bool
flag(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	assert_true(json_is_boolean(v));
	return json_is_true(v);
}

bool
has_owner(json_t *core_obj, const char *owner)
{
	size_t i;
	json_t *o;

	json_array_foreach(json_object_get(core_obj, "owners"), i, o)
		if (strcmp(json_string_value(o), owner) == 0)
			return true;
	return false;
}

/* A hand-programmed PMU is decoded right, named, owned; and state writes nothing. */
static void
test_state_decodes_and_never_writes(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	struct emu_pmu *before;
	json_t *root, *c, *x;
	uint64_t w;

	(void)state;
	machine(&m, true);
	set(&m, msr_evtsel(0), 0x4100c4);	/* pmustat-style: user, EN */
	set(&m, msr_evtsel(1), 0x01d704a3);	/* perf-style: INT, edge, inv, cmask 1 */
	set(&m, msr_evtsel(3), 0x420077);	/* no such event */
	set(&m, msr_a_pmc(0), 123456);
	set(&m, MSR_IA32_FIXED_CTR_CTRL, 0xb2);
	set(&m, MSR_IA32_PERF_GLOBAL_STATUS_SET, 0x1);
	before = e2e_state(&m);
	w = e2e_writes(&m);

	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "state", "-C", core_arg, "--json", NULL });
	e2e_assert_status(&r, 0);
	root = parse(r.out);
	assert_int_equal(json_integer_value(json_object_get(root, "format_version")), 1);
	assert_true(json_is_null(json_object_get(root, "error")));
	c = json_array_get(json_object_get(root, "cores"), 0);
	assert_non_null(c);
	assert_int_equal(json_integer_value(json_object_get(c, "core")), core);
	assert_string_equal(str(c, "event_table"), "skylake");
	assert_string_equal(str(c, "global_ctrl"), "0x70000000f");
	assert_string_equal(str(c, "global_status"), "0x1");
	assert_string_equal(json_string_value(json_array_get(json_object_get(c, "overflowed"), 0)), "pmc0");
	assert_string_equal(str(c, "fixed_ctr_ctrl"), "0xb2");

	x = counter(c, "pmc0");
	assert_string_equal(str(x, "event"), "BR_INST_RETIRED.ALL_BRANCHES");
	assert_string_equal(str(x, "event_select"), "0xc4");
	assert_string_equal(str(x, "umask"), "0x0");
	assert_true(flag(x, "usr") && flag(x, "en"));
	assert_false(flag(x, "os") || flag(x, "int") || flag(x, "edge") || flag(x, "inv"));
	assert_int_equal(json_integer_value(json_object_get(x, "value")), 123456);
	assert_string_equal(str(x, "owner"), "unknown");

	x = counter(c, "pmc1");
	assert_true(flag(x, "usr") && flag(x, "os") && flag(x, "int") && flag(x, "edge") && flag(x, "inv"));
	assert_int_equal(json_integer_value(json_object_get(x, "cmask")), 1);
	assert_string_equal(str(x, "owner"), "perf");

	x = counter(c, "pmc3");
	assert_string_equal(str(x, "event"), "raw");
	x = counter(c, "pmc2");
	assert_true(json_is_null(json_object_get(x, "event")));
	assert_string_equal(str(x, "owner"), "none");

	x = counter(c, "fixed1");
	assert_string_equal(str(x, "owner"), "nmi_watchdog");
	assert_string_equal(str(x, "event"), "CPU_CLK_UNHALTED.THREAD");
	assert_true(flag(x, "os") && flag(x, "usr") && flag(x, "pmi"));
	x = counter(c, "fixed0");
	assert_true(flag(x, "usr"));
	assert_false(flag(x, "os"));
	assert_true(has_owner(c, "nmi_watchdog") && has_owner(c, "perf") && has_owner(c, "unknown"));
	assert_false(has_owner(c, "pmustat"));
	json_decref(root);
	e2e_result_free(&r);

	/* The human form says the same. */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "state", "-C", core_arg, NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_out_contains(&r, "BR_INST_RETIRED.ALL_BRANCHES");
	e2e_assert_out_contains(&r, "nmi_watchdog");
	e2e_assert_out_contains(&r, "event=0xa3 umask=0x04 usr os edge inv en int cmask=1");
	e2e_result_free(&r);

	/* Bit for bit as before, and not one MSR write. */
	assert_same(&m, before);
	assert_int_equal(e2e_writes(&m), w);
	free(before);
	e2e_machine_free(&m);
}

static void
test_state_all_raw(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	json_t *root;

	(void)state;
	machine(&m, false);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "state", "-C", "all", "--raw", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_out_contains(&r, "core 0\n");
	e2e_assert_out_contains(&r, "0x38f IA32_PERF_GLOBAL_CTRL   0x000000000000000f");
	e2e_result_free(&r);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "state", "-C", "all", "--raw", "--json", NULL });
	e2e_assert_status(&r, 0);
	root = parse(r.out);
	assert_int_equal(json_array_size(json_object_get(root, "cores")), ncpus);
	assert_string_equal(str(json_object_get(json_array_get(json_object_get(root, "cores"), 0), "msrs"), "0x38f"),
			    "0xf");
	json_decref(root);
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

/* pmustat's own failures: 125, the reason on stderr and in --json. */
static void
test_state_failures(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	json_t *root;

	(void)state;
	machine(&m, false);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "state", "-C", "1-0", "--json", NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "not a CPU list");
	root = parse(r.out);
	assert_non_null(strstr(str(root, "error"), "not a CPU list"));
	json_decref(root);
	e2e_result_free(&r);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "state", "--watch", "10", NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "at least 100");
	e2e_result_free(&r);
	e2e_machine_free(&m);

	/* No msr driver: names the fix. */
	e2e_machine_new(&m, (const char *[]){ "--model", "skylake", "--msr=absent", NULL });
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "state", "-C", "0", "--json", NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, "modprobe msr");
	root = parse(r.out);
	assert_non_null(strstr(str(root, "error"), "modprobe msr"));
	json_decref(root);
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

/* --watch with --count ends by itself; frames after the first carry rates. */
static void
test_state_watch_count(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	char *line, *save = NULL;
	int frames = 0;

	(void)state;
	machine(&m, false);
	set(&m, msr_evtsel(0), 0x4100c0);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "state", "-C", core_arg, "--watch", "100",
					  "--count", "3", "--json", NULL });
	e2e_assert_status(&r, 0);
	for (line = strtok_r(r.out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		json_t *root = parse(line);
		json_t *c = json_array_get(json_object_get(root, "cores"), 0);
		json_t *rate = json_object_get(counter(c, "pmc0"), "rate");

		if (frames == 0)
			assert_true(json_is_null(rate));
		else
			assert_true(json_is_number(rate));
		json_decref(root);
		frames++;
	}
	assert_int_equal(frames, 3);
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

/* Ctrl-C ends --watch cleanly: exit 0. */
static void
test_state_watch_ctrl_c(void **state)
{
	struct e2e_machine m;
	char out[PATH_MAX + 32], buf[4096];
	ssize_t n;
	pid_t pid;
	int fd;

	(void)state;
	machine(&m, false);
	snprintf(out, sizeof(out), "%s/watch.out", m.dir);
	pid = e2e_spawn(&m, (const char *[]){ E2E_PMUSTAT, "state", "-C", core_arg, "--watch", "100", NULL }, out);
	e2e_sleep_ms(400);
	kill(-pid, SIGINT);
	assert_int_equal(e2e_reap(pid), 0);
	fd = open(out, O_RDONLY);
	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_non_null(strstr(buf, "GLOBAL_CTRL"));
	unlink(out);
	e2e_machine_free(&m);
}

/* While a stat run counts, state names it: pid and command. */
static void
test_state_names_a_pmustat_run(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;
	json_t *root, *c;
	pid_t pid;

	(void)state;
	machine(&m, false);
	pid = e2e_spawn(&m, (const char *[]){ E2E_PMUSTAT, "-C", core_arg, "-e", "branches", WL, "--sleep", "5000", NULL },
		    NULL);
	assert_true(e2e_wait_msr(&m, (unsigned)core, msr_evtsel(0), EVTSEL_EN, EVTSEL_EN, 5000));
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "state", "-C", core_arg, "--json", NULL });
	e2e_assert_status(&r, 0);
	root = parse(r.out);
	c = json_array_get(json_object_get(root, "cores"), 0);
	assert_true(has_owner(c, "pmustat"));
	assert_int_equal(json_integer_value(json_object_get(c, "pmustat_pid")), pid);
	assert_non_null(strstr(str(c, "pmustat_command"), "emu-workload --sleep 5000"));
	assert_string_equal(str(counter(c, "pmc0"), "owner"), "pmustat");
	assert_string_equal(str(counter(c, "pmc0"), "event"), "BR_INST_RETIRED.ALL_BRANCHES");
	json_decref(root);
	e2e_result_free(&r);
	kill(-pid, SIGINT);
	e2e_reap(pid);
	e2e_machine_free(&m);
}

/* --zero: pmustat-style programming goes, the watchdog's and perf's stay (unless --force). */
static void
test_reset_zero(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;

	(void)state;
	machine(&m, true);
	set(&m, msr_evtsel(2), 0x4100c4);
	set(&m, msr_a_pmc(2), 999);
	set(&m, msr_evtsel(1), 0x5300c0 | EVTSEL_INT);
	set(&m, MSR_IA32_FIXED_CTR_CTRL, 0xb2);
	set(&m, msr_fixed_ctr(0), 55);
	set(&m, MSR_IA32_PERF_GLOBAL_STATUS_SET, 0x5);
	/* No journal says whose they are (likwid's?): without a terminal, only with --yes; nothing cleared, the fix named. */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "reset", "-C", core_arg, "--zero", NULL });
	e2e_assert_status(&r, 125);
	e2e_assert_err_contains(&r, " pmc2 fixed0 in use by an owner pmustat cannot tell");
	e2e_assert_err_contains(&r, "nothing was cleared: confirm on a terminal, or add --yes");
	assert_int_equal(e2e_msr(&m, (unsigned)core, msr_evtsel(2)), 0x4100c4);
	assert_int_equal(e2e_msr(&m, (unsigned)core, msr_pmc(2)), 999);
	e2e_result_free(&r);
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "reset", "-C", core_arg, "--zero", "--yes", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "cleared pmc2 fixed0");
	assert_int_equal(e2e_msr(&m, (unsigned)core, msr_evtsel(2)), 0);
	assert_int_equal(e2e_msr(&m, (unsigned)core, msr_pmc(2)), 0);
	assert_int_equal(e2e_msr(&m, (unsigned)core, MSR_IA32_FIXED_CTR_CTRL), 0xb0);
	assert_int_equal(e2e_msr(&m, (unsigned)core, msr_fixed_ctr(0)), 0);
	assert_int_equal(e2e_msr(&m, (unsigned)core, MSR_IA32_PERF_GLOBAL_STATUS), 0x1);
	assert_int_equal(e2e_msr(&m, (unsigned)core, msr_evtsel(1)), 0x5300c0 | EVTSEL_INT);
	e2e_result_free(&r);

	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "reset", "-C", core_arg, "--zero", "--force", "--json", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_out_contains(&r, "\"pmc1\"");
	e2e_assert_out_contains(&r, "\"fixed1\"");
	assert_int_equal(e2e_msr(&m, (unsigned)core, msr_evtsel(1)), 0);
	assert_int_equal(e2e_msr(&m, (unsigned)core, MSR_IA32_FIXED_CTR_CTRL), 0);
	e2e_result_free(&r);

	/* Nothing left: said, not silence. */
	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "reset", "-C", core_arg, "--zero", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_err_contains(&r, "pmustat reset: nothing to do: no journal of a killed run on cores ");
	e2e_assert_err_contains(&r, ", and no counter in pmustat's style to clear");
	e2e_result_free(&r);

	e2e_run(&m, &r, (const char *[]){ E2E_PMUSTAT, "reset", "--force", NULL });
	e2e_assert_status(&r, 125);
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_state_decodes_and_never_writes),
		cmocka_unit_test(test_state_all_raw),
		cmocka_unit_test(test_state_failures),
		cmocka_unit_test(test_state_watch_count),
		cmocka_unit_test(test_state_watch_ctrl_c),
		cmocka_unit_test(test_state_names_a_pmustat_run),
		cmocka_unit_test(test_reset_zero),
		cmocka_unit_test(test_reset_live_and_reused_pid),
		cmocka_unit_test(test_reset_corrupt_journal),
		cmocka_unit_test(test_sigkill_next_run_restores),
		cmocka_unit_test(test_sigkill_reset_restores),
		cmocka_unit_test(test_no_journal_left_by_normal_runs),
	};
	core = e2e_last_cpu();
	if (core < 0)
		return 1;
	snprintf(core_arg, sizeof(core_arg), "%d", core);
	ncpus = e2e_all_cpus(core);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
