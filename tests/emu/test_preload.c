/*
 * test_preload.c - libpmuemu.so under real programs (emu-probe,
 * emu-workload, pmu-emu): the msr driver's semantics, the kernel files,
 * rdpmc from the SIGSEGV handler, CPUID through libcpuid, per-core state
 * shared between processes, and the machine's own /run.
 */
#include <asm/prctl.h>
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "e2e_harness.h"
#include "pmu/msr.h"

#define PROBE E2E_EMU_PROBE
#define WORKLOAD E2E_EMU_WORKLOAD

static void
machine(struct e2e_machine *m, const char *model, const char *extra)
{
	const char *args[] = { "--model", model, "--cpus", "2", extra, NULL };

	e2e_machine_new(m, args);
}

static void
run_expect(const struct e2e_machine *m, const char *const argv[], int status, const char *out)
{
	struct e2e_result r;

	e2e_run(m, &r, argv);
	e2e_assert_status(&r, status);
	if (out)
		e2e_assert_out_contains(&r, out);
	e2e_result_free(&r);
}

static void
test_msr_driver_reads_and_writes(void **state)
{
	struct e2e_machine m;

	(void)state;
	machine(&m, "skylake", NULL);
	run_expect(&m, (const char *[]){ PROBE, "open", "1", "rw", "rdmsr", "1", "0x38f",
		   "wrmsr", "1", "0x186", "0x4300c0", "rdmsr", "1", "0x186", "read", "1", "0x186", NULL },
		   0, "open ok\nrdmsr 0xf\nwrmsr ok\nrdmsr 0x4300c0\nread 0x4300c0\n");
	assert_int_equal(e2e_msr(&m, 1, msr_evtsel(0)), 0x4300c0);
	assert_int_equal(e2e_msr(&m, 0, msr_evtsel(0)), 0);
	e2e_machine_free(&m);
}

static void
test_msr_driver_errors(void **state)
{
	struct e2e_machine m;

	(void)state;
	machine(&m, "skylake", NULL);
	run_expect(&m, (const char *[]){ PROBE,
		   "rdmsr", "0", "0x10",			/* not a PMU MSR: #GP */
		   "wrmsr", "0", "0x186", "0x400004300c0",	/* reserved bit 34 */
		   "wrmsr", "0", "0x38e", "0",			/* read-only */
		   "rdmsr-size", "0", "0x186", "4",		/* not 8-byte units */
		   "rdmsr-size", "0", "0x186", "16",
		   "rdmsr-ro-write", "0", "0x186",		/* fd opened O_RDONLY */
		   "open", "2", "ro",				/* no CPU 2: no node */
		   "stat", "/dev/cpu/0/msr", "stat", "/dev/cpu/2/msr", "stat", "/dev/cpu/2", NULL },
		   0, "rdmsr EIO\nwrmsr EIO\nwrmsr EIO\nrdmsr-size EINVAL\nrdmsr-size 16\n"
		   "rdmsr-ro-write EBADF\nopen ENOENT\nstat chr\nstat ENOENT\nstat ENOENT\n");
	assert_int_equal(e2e_msr(&m, 0, msr_evtsel(0)), 0);
	e2e_machine_free(&m);
}

static void
test_msr_absent(void **state)
{
	struct e2e_machine m;

	(void)state;
	machine(&m, "skylake", "--msr=absent");
	run_expect(&m, (const char *[]){ PROBE, "open", "0", "ro", "stat", "/dev/cpu/0/msr",
		   "stat", "/dev/cpu/0", "file", "/sys/module/msr/parameters/allow_writes", NULL },
		   0, "open ENOENT\nstat ENOENT\nstat dir\nfile ENOENT\n");
	e2e_machine_free(&m);
}

static void
test_msr_eacces(void **state)
{
	struct e2e_machine m;

	(void)state;
	machine(&m, "skylake", "--msr=eacces");
	run_expect(&m, (const char *[]){ PROBE, "open", "0", "ro", "open", "1", "rw", NULL },
		   0, "open EACCES\nopen EACCES\n");
	e2e_machine_free(&m);
}

static void
test_msr_eacces_for_non_root(void **state)
{
	struct e2e_machine m;

	(void)state;
	if (geteuid() != 0) {
		print_message("skipped: only root can drop to another uid\n");
		skip();
	}
	machine(&m, "skylake", NULL);
	/* The state file stays readable: libpmuemu maps it before setuid. */
	run_expect(&m, (const char *[]){ PROBE, "open", "0", "ro", "setuid", "65534",
		   "open", "0", "ro", NULL }, 0, "open ok\nopen EACCES\n");
	e2e_machine_free(&m);
}

static void
test_msr_read_only_lockdown(void **state)
{
	struct e2e_machine m;

	(void)state;
	machine(&m, "skylake", "--msr=readonly");
	run_expect(&m, (const char *[]){ PROBE, "open", "0", "rw", "rdmsr", "0", "0x38f",
		   "wrmsr", "0", "0x38f", "0", "file", "/sys/kernel/security/lockdown", NULL },
		   0, "open ok\nrdmsr 0xf\nwrmsr EPERM\nfile none [integrity] confidentiality\n");
	assert_int_equal(e2e_msr(&m, 0, MSR_IA32_PERF_GLOBAL_CTRL), 0xf);
	e2e_machine_free(&m);
	/* msr.allow_writes=off refuses writes the same way. */
	machine(&m, "skylake", NULL);
	run_expect(&m, (const char *[]){ E2E_PMU_EMU, "file", m.state, "msr_allow_writes", "off\n",
		   NULL }, 0, NULL);
	run_expect(&m, (const char *[]){ PROBE, "wrmsr", "0", "0x38f", "0", "rdmsr", "0", "0x38f", NULL },
		   0, "wrmsr EPERM\nrdmsr 0xf\n");
	e2e_machine_free(&m);
}

static void
test_kernel_files(void **state)
{
	struct e2e_machine m;

	(void)state;
	machine(&m, "skylake", "--watchdog");
	run_expect(&m, (const char *[]){ PROBE,
		   "file", "/sys/bus/event_source/devices/cpu/rdpmc",
		   "fopen", "/proc/sys/kernel/nmi_watchdog",
		   "file", "/proc/sys/kernel/perf_event_paranoid",
		   "file", "/sys/module/msr/parameters/allow_writes",
		   "stat", "/sys/bus/event_source/devices/cpu/rdpmc", NULL },
		   0, "file 2\nfopen 1\nfile 2\nfile on\nstat reg\n");
	e2e_machine_free(&m);
	machine(&m, "nopmu", "--rdpmc=off");
	run_expect(&m, (const char *[]){ PROBE, "file", "/sys/bus/event_source/devices/cpu/rdpmc",
		   NULL }, 0, "file ENOENT\n");
	e2e_machine_free(&m);
	machine(&m, "alderlake", NULL);
	run_expect(&m, (const char *[]){ PROBE, "file", "/sys/bus/event_source/devices/cpu/rdpmc",
		   "file", "/sys/bus/event_source/devices/cpu_core/rdpmc",
		   "file", "/sys/bus/event_source/devices/cpu_atom/rdpmc", NULL },
		   0, "file ENOENT\nfile 2\nfile 2\n");
	e2e_machine_free(&m);
}

static void
test_rdpmc_emulated(void **state)
{
	struct e2e_machine m;

	(void)state;
	machine(&m, "icelake", NULL);
	assert_int_equal(e2e_set_msr(&m, 0, msr_a_pmc(7), 0x123456789abcull), 0);
	assert_int_equal(e2e_set_msr(&m, 0, msr_fixed_ctr(3), 99), 0);
	run_expect(&m, (const char *[]){ PROBE, "pin", "0", "rdpmc", "7", "rdpmc", "0x40000003",
		   "rdpmc", "8", "rdpmc", "0x40000004", NULL },
		   0, "rdpmc 0x123456789abc\nrdpmc 0x63\nrdpmc SIGSEGV\nrdpmc SIGSEGV\n");
	e2e_machine_free(&m);
}

static void
test_rdpmc_not_allowed(void **state)
{
	struct e2e_machine m;

	(void)state;
	machine(&m, "skylake", "--rdpmc=off");
	/* The program's own handler sees the fault, as on hardware... */
	run_expect(&m, (const char *[]){ PROBE, "rdpmc", "0", NULL }, 0, "rdpmc SIGSEGV\n");
	run_expect(&m, (const char *[]){ PROBE, "file", "/sys/bus/event_source/devices/cpu/rdpmc",
		   NULL }, 0, "file 1\n");
	/* ...and without one the program dies of it. */
	run_expect(&m, (const char *[]){ WORKLOAD, "--rdpmc", "0", NULL }, 128 + 11, "cpu ");
	e2e_machine_free(&m);
}

/* The rdpmc file takes writes as sysfs does, and rdpmc follows it. */
static void
test_rdpmc_file_writes(void **state)
{
	static const char *const file = "/sys/bus/event_source/devices/cpu/rdpmc";
	struct e2e_machine m;

	(void)state;
	machine(&m, "skylake", "--rdpmc=off");
	run_expect(&m, (const char *[]){ PROBE, "write", file, "2\n", "file", file, "pin", "0", "rdpmc", "0",
		   NULL }, 0, "write ok\nfile 2\nrdpmc 0x0\n");
	/* The state keeps it: another process sees 2, then puts 1 back, and rdpmc faults again. */
	run_expect(&m, (const char *[]){ PROBE, "file", file, "write", file, "1", "pin", "0", "rdpmc", "0",
		   "file", file, NULL }, 0, "file 2\nwrite ok\nrdpmc SIGSEGV\nfile 1\n");
	/* What the kernel refuses, and files that take no writes. */
	run_expect(&m, (const char *[]){ PROBE, "write", file, "3", "write", file, "x", "file", file,
		   "write", "/proc/sys/kernel/nmi_watchdog", "0", NULL }, 0,
		   "write EINVAL\nwrite EINVAL\nfile 1\nwrite EACCES\n");
	e2e_machine_free(&m);
}

/* The tool programs core C; a target pinned on C counts there, elsewhere nothing. */
static void
test_counts_are_per_core(void **state)
{
	struct e2e_machine m;

	(void)state;
	if (e2e_host_cpus() < 2) {
		print_message("skipped: needs two CPUs to run on\n");
		skip();
	}
	machine(&m, "skylake", NULL);
	for (unsigned cpu = 0; cpu < 2; cpu++) {
		assert_int_equal(e2e_set_msr(&m, cpu, msr_evtsel(0),
					     EVTSEL_EVENT(0xc0) | EVTSEL_USR | EVTSEL_EN), 0);
		assert_int_equal(e2e_set_msr(&m, cpu, MSR_IA32_FIXED_CTR_CTRL, 0x1), 0);
		assert_int_equal(e2e_set_msr(&m, cpu, MSR_IA32_PERF_GLOBAL_CTRL, 0x100000001ull), 0);
	}
	run_expect(&m, (const char *[]){ "/usr/bin/taskset", "-c", "0", WORKLOAD,
		   "--retire", "0xc0:0x00:1000", "--retire", "0xc0:0x00:234:k", NULL }, 0, "cpu 0\n");
	assert_int_equal(e2e_msr(&m, 0, msr_pmc(0)), 1000);
	assert_int_equal(e2e_msr(&m, 0, msr_fixed_ctr(0)), 234);
	assert_int_equal(e2e_msr(&m, 1, msr_pmc(0)), 0);
	run_expect(&m, (const char *[]){ "/usr/bin/taskset", "-c", "1", WORKLOAD,
		   "--retire", "0xc0:0x00:7", "--kernel", NULL }, 0, "cpu 1\n");
	assert_int_equal(e2e_msr(&m, 1, msr_pmc(0)), 0);
	assert_int_equal(e2e_msr(&m, 1, msr_fixed_ctr(0)), 7);
	assert_int_equal(e2e_msr(&m, 0, msr_pmc(0)), 1000);
	e2e_machine_free(&m);
}

/* Processes that retire at once on one core lose nothing (the lock). */
static void
test_concurrent_retires(void **state)
{
	struct e2e_machine m;
	char *cmd;
	int status;

	(void)state;
	machine(&m, "skylake", NULL);
	assert_int_equal(e2e_set_msr(&m, 0, msr_evtsel(1), EVTSEL_EVENT(0xd1) | EVTSEL_UMASK(1) |
				     EVTSEL_USR | EVTSEL_EN), 0);
	/* Four workloads at once on CPU 0, 64 retires of 3 each. */
	assert_true(asprintf(&cmd,
		 "for i in 1 2 3 4; do LD_PRELOAD=%s %s=%s taskset -c 0 %s $(for j in $(seq 64); "
		 "do printf -- '--retire 0xd1:0x01:3 '; done) >/dev/null & done; wait",
		 E2E_LIBPMUEMU, "PMUSTAT_EMU_STATE", m.state, WORKLOAD) > 0);
	status = system(cmd);
	free(cmd);
	assert_int_equal(status, 0);
	assert_int_equal(e2e_msr(&m, 0, msr_pmc(1)), 4 * 64 * 3);
	e2e_machine_free(&m);
}

static void
test_cpuid_through_libcpuid(void **state)
{
	struct e2e_machine m;

	(void)state;
	machine(&m, "skylake", NULL);
	run_expect(&m, (const char *[]){ PROBE, "libcpuid", "cpuid", "0xa", "0", NULL }, 0,
		   "libcpuid GenuineIntel family 6 model 5e leafA 07300404 00000000 00000000 00000603");
	e2e_machine_free(&m);
	machine(&m, "core2", NULL);
	run_expect(&m, (const char *[]){ PROBE, "libcpuid", NULL }, 0,
		   "libcpuid GenuineIntel family 6 model 17 leafA 07280202");
	e2e_machine_free(&m);
}

/* Hybrid: CPUID answers for the CPU the caller runs on. */
static void
test_cpuid_per_core_type(void **state)
{
	struct e2e_machine m;

	(void)state;
	if (e2e_host_cpus() < 2) {
		print_message("skipped: needs two CPUs to run on\n");
		skip();
	}
	machine(&m, "alderlake", NULL);
	run_expect(&m, (const char *[]){ PROBE, "pin", "0", "libcpuid", "pin", "1", "libcpuid", NULL },
		   0, "leaf1A 40000001\nlibcpuid GenuineIntel family 6 model 97 leafA 07300605 "
		   "00000000 00000007 00008603 leaf1A 20000001\n");
	e2e_machine_free(&m);
}

/* Where the host has CPUID faulting (Intel), the instruction answers the model. */
static void
test_cpuid_instruction_faulting(void **state)
{
	struct e2e_machine m;
	struct e2e_result r;

	(void)state;
	if (syscall(SYS_arch_prctl, ARCH_GET_CPUID, 0) < 0 ||
	    syscall(SYS_arch_prctl, ARCH_SET_CPUID, 0) < 0) {
		/* AMD: no faulting; libcpuid's entry points cover it. */
		print_message("skipped: this host cannot make CPUID fault (ARCH_SET_CPUID: %s)\n", strerror(errno));
		skip();
	}
	syscall(SYS_arch_prctl, ARCH_SET_CPUID, 1);
	machine(&m, "haswell", NULL);
	e2e_run(&m, &r, (const char *[]){ PROBE, "cpuid-insn", "0xa", "0", NULL });
	e2e_assert_status(&r, 0);
	e2e_assert_out_contains(&r, "cpuid-insn 07300403 00000000 00000000 00000603\n");
	e2e_result_free(&r);
	e2e_machine_free(&m);
}

/* The preload survives exec: a shell starts the workload, which still counts. */
static void
test_survives_exec(void **state)
{
	struct e2e_machine m;

	(void)state;
	machine(&m, "haswell", NULL);
	assert_int_equal(e2e_set_msr(&m, 0, msr_evtsel(3), EVTSEL_EVENT(0xc4) | EVTSEL_USR |
				     EVTSEL_EN), 0);
	run_expect(&m, (const char *[]){ "/bin/sh", "-c",
		   "exec /usr/bin/taskset -c 0 " WORKLOAD " --retire 0xc4:0:55 --exit 3", NULL }, 3, "cpu 0");
	assert_int_equal(e2e_msr(&m, 0, msr_pmc(3)), 55);
	e2e_machine_free(&m);
}

static void
test_workload_needs_the_preload(void **state)
{
	char cmd[1024];

	(void)state;
	snprintf(cmd, sizeof(cmd), "env -u LD_PRELOAD %s --retire 0xc0:0:1 2>/dev/null", WORKLOAD);
	assert_int_equal(WEXITSTATUS(system(cmd)), 2);
}

static void
test_workload_crash(void **state)
{
	struct e2e_machine m;

	(void)state;
	machine(&m, "skylake", NULL);
	run_expect(&m, (const char *[]){ WORKLOAD, "--crash", NULL }, 128 + 11, NULL);
	e2e_machine_free(&m);
}

/* pmu-emu: save, set, diff lists each MSR; get/set fault like the CPU. */
static void
test_state_tool(void **state)
{
	struct e2e_machine m;
	char snap[PATH_MAX + 16];
	struct e2e_result r;

	(void)state;
	machine(&m, "core2", "--watchdog");
	snprintf(snap, sizeof(snap), "%s/snap", m.dir);
	run_expect(&m, (const char *[]){ E2E_PMU_EMU, "save", m.state, snap, NULL }, 0, NULL);
	run_expect(&m, (const char *[]){ E2E_PMU_EMU, "diff", snap, m.state, NULL }, 0, NULL);
	run_expect(&m, (const char *[]){ E2E_PMU_EMU, "get", m.state, "1", "0x38d", NULL }, 0, "0xb0\n");
	run_expect(&m, (const char *[]){ E2E_PMU_EMU, "set", m.state, "1", "0xc2", "0x80000000", NULL },
		   0, NULL);
	run_expect(&m, (const char *[]){ E2E_PMU_EMU, "get", m.state, "1", "0xc2", NULL }, 0,
		   "0xff80000000\n");
	e2e_run(&m, &r, (const char *[]){ E2E_PMU_EMU, "set", m.state, "0", "0x38f", "0x8", NULL });
	e2e_assert_status(&r, 1);
	e2e_assert_err_contains(&r, "#GP");
	e2e_result_free(&r);
	run_expect(&m, (const char *[]){ E2E_PMU_EMU, "diff", snap, m.state, NULL }, 1,
		   "cpu 1 IA32_PMC1 (0xc2): 0x0 -> 0xff80000000\n1 difference\n");
	run_expect(&m, (const char *[]){ E2E_PMU_EMU, "dump", m.state, "--cpu", "1", "--json", NULL }, 0,
		   "\"0xc2\":\"0xff80000000\"");
	unlink(snap);
	e2e_machine_free(&m);
}

/* The whole text of @path, or fail. */
static void
assert_file_text(const char *path, const char *want)
{
	char buf[64] = "";
	FILE *f = fopen(path, "r");

	if (!f)
		fail_msg("%s: %s", path, strerror(errno));
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	assert_string_equal(buf, want);
}

/*
 * The machine owns its /run/pmustat tree and /run/lock/pmustat-* names:
 * every path call lands in its directory, two machines do not see each
 * other's files, and the host's /run is not touched.
 */
static void
test_machine_owns_its_run(void **state)
{
	struct e2e_machine m, other;
	char tree[64], lock[64], mine[PATH_MAX], host[PATH_MAX];

	(void)state;
	snprintf(tree, sizeof(tree), "/run/pmustat/probe-%ld", (long)getpid());
	snprintf(lock, sizeof(lock), "/run/lock/pmustat-probe-%ld", (long)getpid());
	machine(&m, "skylake", NULL);
	machine(&other, "skylake", NULL);
	run_expect(&m, (const char *[]){ PROBE, "fs", "/run/pmustat", "fs", tree, "fs", lock, NULL },
		   0, "fs ok\nfs ok\nfs ok\n");
	snprintf(host, sizeof(host), "%s/kept", tree);
	e2e_machine_path(&m, host, mine, sizeof(mine));
	assert_file_text(mine, "kept\n");
	e2e_machine_path(&m, "/run/pmustat/kept", mine, sizeof(mine));
	assert_file_text(mine, "kept\n");
	assert_int_equal(access(host, F_OK), -1);
	snprintf(host, sizeof(host), "%s/kept", lock);
	e2e_machine_path(&m, host, mine, sizeof(mine));
	assert_file_text(mine, "kept\n");
	assert_int_equal(access(host, F_OK), -1);
	assert_int_equal(access(lock, F_OK), -1);

	/* Another machine has an empty /run: the same calls work there afresh. */
	run_expect(&other, (const char *[]){ PROBE, "stat", tree, "fs", "/run/pmustat", "fs", lock, NULL },
		   0, "stat ENOENT\nfs ok\nfs ok\n");
	e2e_machine_free(&other);

	/* A machine whose state is gone cannot be emulated, yet its /run still is not the host's. */
	assert_int_equal(unlink(m.state), 0);
	snprintf(lock, sizeof(lock), "/run/lock/pmustat-probe-%ld-gone", (long)getpid());
	run_expect(&m, (const char *[]){ PROBE, "fs", lock, NULL }, 0, "fs ok\n");
	snprintf(host, sizeof(host), "%s/kept", lock);
	e2e_machine_path(&m, host, mine, sizeof(mine));
	assert_file_text(mine, "kept\n");
	assert_int_equal(access(lock, F_OK), -1);
	e2e_machine_free(&m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_msr_driver_reads_and_writes),
		cmocka_unit_test(test_msr_driver_errors),
		cmocka_unit_test(test_msr_absent),
		cmocka_unit_test(test_msr_eacces),
		cmocka_unit_test(test_msr_eacces_for_non_root),
		cmocka_unit_test(test_msr_read_only_lockdown),
		cmocka_unit_test(test_kernel_files),
		cmocka_unit_test(test_rdpmc_emulated),
		cmocka_unit_test(test_rdpmc_not_allowed),
		cmocka_unit_test(test_rdpmc_file_writes),
		cmocka_unit_test(test_counts_are_per_core),
		cmocka_unit_test(test_concurrent_retires),
		cmocka_unit_test(test_cpuid_through_libcpuid),
		cmocka_unit_test(test_cpuid_per_core_type),
		cmocka_unit_test(test_cpuid_instruction_faulting),
		cmocka_unit_test(test_survives_exec),
		cmocka_unit_test(test_workload_needs_the_preload),
		cmocka_unit_test(test_workload_crash),
		cmocka_unit_test(test_state_tool),
		cmocka_unit_test(test_machine_owns_its_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
