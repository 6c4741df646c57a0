/*
 * pmu-emu - make, inspect, save, compare and poke emulated PMU state files.
 *
 *	pmu-emu init --model M [--cpus N] [--pcores N] [--gp N] [--fixed N]
 *	             [--rdpmc=on|off] [--msr=ok|absent|eacces|readonly]
 *	             [--watchdog] [--perfmon=on|off] [--set [CPU:]MSR=VALUE]...
 *	             [--caller-insns N] [--ptrace=on|off]
 *	             [--kernel-ctrl VALUE [--kernel-insns N]]
 *	             [--cpuid-dir DIR] STATEFILE
 *	pmu-emu dump STATEFILE [--cpu N] [--json]
 *	pmu-emu save STATEFILE SNAPFILE
 *	pmu-emu diff SNAP1 SNAP2
 *	pmu-emu get STATEFILE CPU MSR
 *	pmu-emu set STATEFILE CPU MSR VALUE
 *	pmu-emu retire STATEFILE CPU CODE:UMASK:N[:u|:k]
 *	pmu-emu act STATEFILE CPU ACTION...
 *	pmu-emu file STATEFILE NAME (TEXT | --absent)
 *	pmu-emu models
 *
 * --set writes MSR after power-up (and --watchdog) through the CPU's rules,
 * on CPU or on every CPU: a machine that starts with other values (a
 * frozen PMU, a counter someone holds). act does each ACTION of
 * emu_action.h on CPU, in order, as that party would (nmi, take-fixed:1,
 * pebs:0:0xc0:0, wrmsr:0x38f=0, ...).
 * --caller-insns N: the caller's own user-mode code around each WRMSR
 * and each execve, N instructions retired on its CPU (emu_config).
 * --ptrace=off: ptrace() fails with EPERM (YAMA ptrace_scope 3, seccomp).
 * --kernel-ctrl VALUE: Linux's perf sets IA32_PERF_GLOBAL_CTRL to VALUE at
 * each execve and before each read of IA32_PERF_GLOBAL_STATUS, and
 * --kernel-insns N instructions of another program retire then (emu_config).
 * --perfmon=off: NetBurst's IA32_MISC_ENABLE says performance monitoring
 * is unavailable (bit 7 clear).
 * --pebs=off: a VM without PEBS (KVM's): IA32_MISC_ENABLE[11] and [12] set,
 * IA32_PEBS_ENABLE raises #GP, CPUID still has DS.
 * --ht-split: netburst-ht with CPUs k and k + N/2 as one core's threads
 * (Linux's numbering on many machines), not 2k and 2k+1.
 * init also makes the machine's own directory STATEFILE.d (its /run, see
 * emu_paths.h), emptied of what an earlier machine of that name left.
 *
 * Exit status: 0 success (diff: identical), 1 diff found differences or
 * the emulated CPU raised #GP (get/set/act, or an action found its counter
 * busy), 2 usage or I/O error. Models: pmu-emu models. --cpus defaults to
 * this host's CPU count, --msr=ok lets the caller's uid open the devices.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emu_action.h"
#include "emu_paths.h"
#include "emu_pmu.h"
#include "emu_state.h"

#define EXIT_DIFF	1
#define EXIT_USAGE	2

static void
usage(void)
{
	fprintf(stderr,
		"usage: pmu-emu init --model M [--cpus N] [--pcores N] [--gp N] [--fixed N]\n"
		"                    [--rdpmc=on|off] [--msr=ok|absent|eacces|readonly] [--watchdog] [--buddy-watchdog]\n"
		"                    [--perfmon=on|off] [--pebs=on|off] [--ht-split] [--set [CPU:]MSR=VALUE]... [--cpuid-dir DIR]\n"
		"                    [--caller-insns N] [--ptrace=on|off]\n"
		"                    [--kernel-ctrl VALUE [--kernel-insns N]]\n"
		"                    STATEFILE\n"
		"       pmu-emu dump STATEFILE [--cpu N] [--json]\n"
		"       pmu-emu save STATEFILE SNAPFILE\n"
		"       pmu-emu diff SNAP1 SNAP2\n"
		"       pmu-emu get STATEFILE CPU MSR\n"
		"       pmu-emu set STATEFILE CPU MSR VALUE\n"
		"       pmu-emu retire STATEFILE CPU CODE:UMASK:N[:u|:k]\n"
		"       pmu-emu act STATEFILE CPU ACTION...\n"
		"       pmu-emu file STATEFILE NAME (TEXT | --absent)\n"
		"       pmu-emu models\n"
		"ACTION: %s\n", emu_action_syntax);
	exit(EXIT_USAGE);
}

static unsigned long long
number(const char *what, const char *s, unsigned long long max)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || end == s || v > max) {
		fprintf(stderr, "pmu-emu: bad %s '%s'\n", what, s);
		exit(EXIT_USAGE);
	}
	return v;
}

static void
fail(const char *what, const char *path, int err)
{
	fprintf(stderr, "pmu-emu: %s %s: %s%s\n", what, path, strerror(-err),
		err == -EINVAL ? " (not a state file of this build: make it with pmu-emu init)" : "");
	exit(EXIT_USAGE);
}

static struct emu_pmu *
map_state(const char *path)
{
	struct emu_pmu *pmu;
	int err = emu_state_map(path, &pmu);

	if (err)
		fail("cannot map", path, err);
	return pmu;
}

static struct emu_pmu *
read_copy(const char *path)
{
	struct emu_pmu *pmu = malloc(sizeof(*pmu));
	int err;

	if (!pmu) {
		fprintf(stderr, "pmu-emu: out of memory\n");
		exit(EXIT_USAGE);
	}
	err = emu_state_read(path, pmu);
	if (err)
		fail("cannot read", path, err);
	return pmu;
}

/* --set [CPU:]MSR=VALUE: a WRMSR after power-up. 0, or 1 after a message. */
static int
preset(struct emu_pmu *pmu, const char *arg)
{
	const char *eq = strchr(arg, '='), *colon = strchr(arg, ':');
	unsigned first = 0, last = pmu->ncpus - 1;
	char what[64];
	uint32_t msr;
	uint64_t val;

	if (!eq || (colon && colon > eq)) {
		fprintf(stderr, "pmu-emu: bad --set '%s': want [CPU:]MSR=VALUE\n", arg);
		return 1;
	}
	if (colon) {
		snprintf(what, sizeof(what), "%.*s", (int)(colon - arg), arg);
		first = last = (unsigned)number("--set cpu", what, pmu->ncpus - 1);
		arg = colon + 1;
	}
	snprintf(what, sizeof(what), "%.*s", (int)(eq - arg), arg);
	msr = (uint32_t)number("--set msr", what, UINT32_MAX);
	val = number("--set value", eq + 1, UINT64_MAX);
	for (unsigned c = first; c <= last; c++) {
		int err = emu_wrmsr(pmu, c, msr, val);

		if (err) {
			fprintf(stderr, "pmu-emu: --set: wrmsr 0x%" PRIx32 " = 0x%" PRIx64
				" on cpu %u of the %s model: %s\n", msr, val, c,
				emu_cpu_type(pmu, c)->name,
				err == -EIO ? "#GP (no such MSR, reserved bits or read-only; "
				"GLOBAL_STATUS is set through 0x391)" : strerror(-err));
			return 1;
		}
	}
	return 0;
}

static int
cmd_init(int argc, char **argv)
{
	static const struct option options[] = {
		{ "model", required_argument, NULL, 'm' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "pcores", required_argument, NULL, 'p' },
		{ "gp", required_argument, NULL, 'g' },
		{ "fixed", required_argument, NULL, 'f' },
		{ "rdpmc", required_argument, NULL, 'r' },
		{ "msr", required_argument, NULL, 'M' },
		{ "watchdog", no_argument, NULL, 'w' },
		{ "buddy-watchdog", no_argument, NULL, 'W' },
		{ "perfmon", required_argument, NULL, 'P' },
		{ "pebs", required_argument, NULL, 'B' },
		{ "ht-split", no_argument, NULL, 'H' },
		{ "cpuid-dir", required_argument, NULL, 'd' },
		{ "set", required_argument, NULL, 's' },
		{ "caller-insns", required_argument, NULL, 'i' },
		{ "ptrace", required_argument, NULL, 't' },
		{ "kernel-ctrl", required_argument, NULL, 'k' },
		{ "kernel-insns", required_argument, NULL, 'K' },
		{ NULL, 0, NULL, 0 },
	};
	const char *sets[64];
	unsigned nsets = 0;
	struct emu_config cfg;
	struct emu_pmu *pmu;
	const char *cpuid_dir = NULL;
	char dir[PATH_MAX];
	int model = -1, msr = EMU_MSR_OK, opt, err;
	long host = sysconf(_SC_NPROCESSORS_CONF);
	unsigned ncpus = host > 0 ? (unsigned)host : 1;
	unsigned pcores = 0;
	int gp = -1, fixed = -1;
	bool rdpmc_off = false, watchdog = false, perfmon_off = false, ptrace_off = false, ht_split = false;
	bool pebs_off = false, buddy = false;
	unsigned caller_insns = 0, kernel_insns = 0;
	uint64_t kernel_ctrl = 0;

	while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (opt) {
		case 'm':
			model = emu_model_from_name(optarg);
			if (model < 0) {
				fprintf(stderr, "pmu-emu: unknown model '%s' (pmu-emu models lists them)\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'c':
			ncpus = (unsigned)number("--cpus", optarg, EMU_MAX_CPUS);
			break;
		case 'p':
			pcores = (unsigned)number("--pcores", optarg, EMU_MAX_CPUS);
			break;
		case 'g':
			gp = (int)number("--gp", optarg, EMU_MAX_GP);
			break;
		case 'f':
			fixed = (int)number("--fixed", optarg, EMU_MAX_FIXED);
			break;
		case 'r':
			if (strcmp(optarg, "on") && strcmp(optarg, "off"))
				usage();
			rdpmc_off = strcmp(optarg, "off") == 0;
			break;
		case 'M':
			msr = emu_msr_access_from_name(optarg);
			if (msr < 0)
				usage();
			break;
		case 'w':
			watchdog = true;
			break;
		case 'W':
			buddy = true;
			break;
		case 'B':
			if (strcmp(optarg, "on") && strcmp(optarg, "off"))
				usage();
			pebs_off = strcmp(optarg, "off") == 0;
			break;
		case 'P':
			if (strcmp(optarg, "on") && strcmp(optarg, "off"))
				usage();
			perfmon_off = strcmp(optarg, "off") == 0;
			break;
		case 'd':
			cpuid_dir = optarg;
			break;
		case 'H':
			ht_split = true;
			break;
		case 'i':
			caller_insns = (unsigned)number("--caller-insns", optarg, 1000000);
			break;
		case 't':
			if (strcmp(optarg, "on") && strcmp(optarg, "off"))
				usage();
			ptrace_off = strcmp(optarg, "off") == 0;
			break;
		case 'k':
			kernel_ctrl = number("--kernel-ctrl", optarg, UINT64_MAX);
			break;
		case 'K':
			kernel_insns = (unsigned)number("--kernel-insns", optarg, 1000000);
			break;
		case 's':
			if (nsets == sizeof(sets) / sizeof(sets[0]))
				usage();
			sets[nsets++] = optarg;
			break;
		default:
			usage();
		}
	}
	if (model < 0 || optind + 1 != argc || ncpus == 0)
		usage();
	if (ncpus > EMU_MAX_CPUS)
		ncpus = EMU_MAX_CPUS;
	emu_config_default(&cfg, (enum emu_model)model);
	cfg.ncpus = ncpus;
	cfg.pcores = pcores;
	cfg.gp = gp;
	cfg.fixed = fixed;
	cfg.rdpmc_off = rdpmc_off;
	cfg.msr = (enum emu_msr_access)msr;
	cfg.watchdog = watchdog;
	cfg.buddy_watchdog = buddy;
	cfg.nb_perfmon_off = perfmon_off;
	cfg.pebs_off = pebs_off;
	cfg.nb_ht_split = ht_split;
	cfg.caller_insns = caller_insns;
	cfg.ptrace_off = ptrace_off;
	cfg.kernel_ctrl = kernel_ctrl;
	cfg.kernel_insns = kernel_insns;
	pmu = calloc(1, sizeof(*pmu));
	if (!pmu)
		return EXIT_USAGE;
	err = emu_pmu_init(pmu, &cfg, cpuid_dir);
	if (err) {
		fprintf(stderr, "pmu-emu: cannot build the %s model: %s\n",
			emu_model_name(cfg.model), strerror(-err));
		return EXIT_USAGE;
	}
	for (unsigned i = 0; i < nsets; i++) {
		if (preset(pmu, sets[i])) {
			free(pmu);
			return EXIT_USAGE;
		}
	}
	/* The machine starts with these values; nobody has accessed it yet. */
	for (unsigned c = 0; c < pmu->ncpus; c++)
		memset(&pmu->cpu[c].stats, 0, sizeof(pmu->cpu[c].stats));
	pmu->msr_owner_uid = (uint32_t)geteuid();
	err = emu_state_write(argv[optind], pmu);
	free(pmu);
	if (err)
		fail("cannot write", argv[optind], err);
	/* A new machine boots with an empty /run of its own (emu_paths.h). */
	if (emu_paths_dir(argv[optind], dir, sizeof(dir)) != 0)
		fail("cannot name the machine directory of", argv[optind], -ENAMETOOLONG);
	err = emu_paths_clear(dir);
	if (!err)
		err = emu_paths_create(dir);
	if (err)
		fail("cannot make the machine directory", dir, err);
	return 0;
}

static int
cmd_dump(int argc, char **argv)
{
	static const struct option options[] = {
		{ "cpu", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	struct emu_pmu *pmu;
	bool json = false;
	int cpu = -1, opt;

	while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (opt) {
		case 'c':
			cpu = (int)number("--cpu", optarg, EMU_MAX_CPUS - 1);
			break;
		case 'j':
			json = true;
			break;
		default:
			usage();
		}
	}
	if (optind + 1 != argc)
		usage();
	pmu = read_copy(argv[optind]);
	if (cpu >= 0 && (unsigned)cpu >= pmu->ncpus) {
		fprintf(stderr, "pmu-emu: no cpu %d: the machine has %u\n", cpu, pmu->ncpus);
		return EXIT_USAGE;
	}
	emu_pmu_dump(pmu, cpu, json, stdout);
	free(pmu);
	return 0;
}

static int
cmd_save(int argc, char **argv)
{
	struct emu_pmu *pmu, *copy;
	int err;

	if (argc != 3)
		usage();
	pmu = map_state(argv[1]);
	copy = malloc(sizeof(*copy));
	if (!copy)
		return EXIT_USAGE;
	/* A consistent copy: nobody writes while we copy. */
	emu_state_lock(pmu);
	memcpy(copy, pmu, sizeof(*copy));
	emu_state_unlock(pmu);
	copy->lock = 0;
	err = emu_state_write(argv[2], copy);
	if (err)
		fail("cannot write", argv[2], err);
	free(copy);
	emu_state_unmap(pmu);
	return 0;
}

static int
cmd_diff(int argc, char **argv)
{
	struct emu_pmu *a, *b;
	unsigned n;

	if (argc != 3)
		usage();
	a = read_copy(argv[1]);
	b = read_copy(argv[2]);
	n = emu_pmu_diff(a, b, stdout);
	if (n)
		printf("%u difference%s\n", n, n == 1 ? "" : "s");
	free(a);
	free(b);
	return n ? EXIT_DIFF : 0;
}

/* get and set: through the emulated CPU's rules, so a reserved bit faults. */
static int
cmd_get_set(int argc, char **argv, bool set)
{
	struct emu_pmu *pmu;
	unsigned cpu;
	uint32_t msr;
	uint64_t val = 0;
	int err;

	if (argc != (set ? 5 : 4))
		usage();
	pmu = map_state(argv[1]);
	cpu = (unsigned)number("cpu", argv[2], EMU_MAX_CPUS);
	msr = (uint32_t)number("msr", argv[3], UINT32_MAX);
	if (set)
		val = number("value", argv[4], UINT64_MAX);
	emu_state_lock(pmu);
	err = set ? emu_wrmsr(pmu, cpu, msr, val) : emu_rdmsr(pmu, cpu, msr, &val);
	emu_state_unlock(pmu);
	emu_state_unmap(pmu);
	if (err) {
		fprintf(stderr, "pmu-emu: %s of MSR 0x%" PRIx32 " on cpu %u: %s\n",
			set ? "wrmsr" : "rdmsr", msr, cpu,
			err == -EIO ? "#GP (no such MSR, reserved bits or read-only)" : strerror(-err));
		return err == -EIO ? EXIT_DIFF : EXIT_USAGE;
	}
	if (!set)
		printf("0x%" PRIx64 "\n", val);
	return 0;
}

static int
cmd_retire(int argc, char **argv)
{
	struct emu_pmu *pmu;
	unsigned cpu, code, umask, ring = 3;
	uint64_t n;
	char *end;
	int err;

	if (argc != 4)
		usage();
	cpu = (unsigned)number("cpu", argv[2], EMU_MAX_CPUS);
	code = (unsigned)strtoul(argv[3], &end, 0);
	if (*end != ':' || code > 0xff)
		usage();
	umask = (unsigned)strtoul(end + 1, &end, 0);
	if (*end != ':' || umask > 0xff)
		usage();
	n = strtoull(end + 1, &end, 0);
	if (strcmp(end, ":k") == 0)
		ring = 0;
	else if (*end && strcmp(end, ":u") != 0)
		usage();
	pmu = map_state(argv[1]);
	emu_state_lock(pmu);
	err = emu_retire(pmu, cpu, (uint8_t)code, (uint8_t)umask, ring, n);
	emu_state_unlock(pmu);
	emu_state_unmap(pmu);
	if (err) {
		fprintf(stderr, "pmu-emu: retire on cpu %u: %s\n", cpu, strerror(-err));
		return EXIT_USAGE;
	}
	return 0;
}

static int
cmd_act(int argc, char **argv)
{
	struct emu_action acts[32];
	struct emu_pmu *pmu;
	unsigned cpu;
	int n = argc - 3, err = 0, i;
	char why[512];

	if (argc < 4 || n > 32)
		usage();
	cpu = (unsigned)number("cpu", argv[2], EMU_MAX_CPUS);
	for (i = 0; i < n; i++) {
		if (emu_action_parse(argv[3 + i], 3, &acts[i], why, sizeof(why))) {
			fprintf(stderr, "pmu-emu: %s\n", why);
			return EXIT_USAGE;
		}
	}
	pmu = map_state(argv[1]);
	emu_state_lock(pmu);
	for (i = 0; i < n && !err; i++)
		err = emu_act(pmu, cpu, &acts[i]);
	emu_state_unlock(pmu);
	emu_state_unmap(pmu);
	if (err) {
		fprintf(stderr, "pmu-emu: %s on cpu %u: %s\n", argv[2 + i], cpu,
			err == -EIO ? "#GP (no such MSR, reserved bits or read-only)" :
			err == -EBUSY ? "the counter is in use" : strerror(-err));
		return err == -EIO || err == -EBUSY ? EXIT_DIFF : EXIT_USAGE;
	}
	return 0;
}

static int
cmd_file(int argc, char **argv)
{
	struct emu_pmu *pmu;
	int file = -1;

	if (argc != 4)
		usage();
	for (int f = 0; f < HW_FILE_COUNT; f++)
		if (strcmp(argv[2], hw_file_key((enum hw_file)f)) == 0)
			file = f;
	if (file < 0) {
		fprintf(stderr, "pmu-emu: unknown file '%s' (rdpmc, nmi_watchdog, lockdown, "
			"msr_allow_writes, perf_event_paranoid, rdpmc_cpu_core, rdpmc_cpu_atom)\n", argv[2]);
		return EXIT_USAGE;
	}
	pmu = map_state(argv[1]);
	emu_state_lock(pmu);
	emu_set_file(pmu, (enum hw_file)file, strcmp(argv[3], "--absent") == 0 ? NULL : argv[3]);
	emu_state_unlock(pmu);
	emu_state_unmap(pmu);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc < 2)
		usage();
	if (strcmp(argv[1], "init") == 0)
		return cmd_init(argc - 1, argv + 1);
	if (strcmp(argv[1], "dump") == 0)
		return cmd_dump(argc - 1, argv + 1);
	if (strcmp(argv[1], "save") == 0)
		return cmd_save(argc - 1, argv + 1);
	if (strcmp(argv[1], "diff") == 0)
		return cmd_diff(argc - 1, argv + 1);
	if (strcmp(argv[1], "get") == 0)
		return cmd_get_set(argc - 1, argv + 1, false);
	if (strcmp(argv[1], "set") == 0)
		return cmd_get_set(argc - 1, argv + 1, true);
	if (strcmp(argv[1], "retire") == 0)
		return cmd_retire(argc - 1, argv + 1);
	if (strcmp(argv[1], "file") == 0)
		return cmd_file(argc - 1, argv + 1);
	if (strcmp(argv[1], "act") == 0)
		return cmd_act(argc - 1, argv + 1);
	if (strcmp(argv[1], "models") == 0) {
		for (int m = 0; m < EMU_MODEL_COUNT; m++)
			printf("%s\n", emu_model_name((enum emu_model)m));
		return 0;
	}
	usage();
}
