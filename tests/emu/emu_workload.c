/*
 * emu-workload - a program to count under the emulated PMU. It "retires"
 * exactly the events it is told to on the CPU it runs on, through
 * libpmuemu.so's pmuemu_retire(), so a test knows the exact count to expect.
 *
 *	emu-workload [--kernel] [--retire CODE:UMASK:N[:u|:k]]... [--rdpmc ECX]...
 *	             [--nb SEL:MASK:INPUTS[:u|:k]]...
 *	             [--sleep MS] [--crash] [--exit N] [--quiet] [--steps N --step-ms MS]
 *
 * --nb clocks a NetBurst event (emulated NetBurst models): ESCR event select
 * SEL, sub-event bits MASK (ESCR[24:9] bits), and the input value of each
 * clock, INPUTS = VALUE[*COUNT](,VALUE[*COUNT])*, VALUE 0-15: "1*1000" is
 * 1000 clocks with input 1, "5,0,7*3" five clocks with inputs 5, 0, 7, 7, 7,
 * so threshold, complement and edge filters can be exercised exactly.
 *
 * Retires happen in order (with --steps N: the whole list N times, MS
 * milliseconds apart, for -I tests that need counts arriving over time),
 * then rdpmc reads (each printed as
 * "rdpmc 0xECX 0xVALUE" on stdout), then the sleep, then the crash (SIGSEGV)
 * or the exit. It prints "cpu N" first (unless --quiet). Without the preload library it says
 * so and exits 2.
 */
#include <dlfcn.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pmuemu.h"

#define MAX_STEPS 64

struct step {
	unsigned code, umask, ring;
	uint64_t n;
};

/* One --retire or --nb, in command-line order. */
struct action {
	const char *arg;
	bool netburst;
};

static void
usage(void)
{
	fprintf(stderr, "usage: emu-workload [--kernel] [--retire CODE:UMASK:N[:u|:k]]... "
		"[--nb SEL:MASK:INPUTS[:u|:k]]... [--rdpmc ECX]... [--sleep MS] [--crash] [--exit N] "
		"[--quiet] [--steps N --step-ms MS]\n");
	exit(2);
}

static bool
parse_step(const char *arg, unsigned default_ring, struct step *s)
{
	char *end;
	unsigned long code, umask;
	unsigned long long n;

	errno = 0;
	code = strtoul(arg, &end, 0);
	if (*end != ':' || code > 0xff)
		return false;
	umask = strtoul(end + 1, &end, 0);
	if (*end != ':' || umask > 0xff)
		return false;
	n = strtoull(end + 1, &end, 0);
	if (errno)
		return false;
	s->ring = default_ring;
	if (strcmp(end, ":k") == 0)
		s->ring = 0;
	else if (strcmp(end, ":u") == 0)
		s->ring = 3;
	else if (*end)
		return false;
	s->code = (unsigned)code;
	s->umask = (unsigned)umask;
	s->n = n;
	return true;
}

static uint64_t
do_rdpmc(uint32_t ecx)
{
	uint32_t lo, hi;

	__asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(ecx) : "memory");
	return ((uint64_t)hi << 32) | lo;
}

static void
sleep_for(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	while (ms > 0 && nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* "u", "k" or "" after the inputs of --nb: the ring, or false. */
static bool
parse_ring(const char *s, unsigned *ring)
{
	if (strcmp(s, "k") == 0)
		*ring = 0;
	else if (strcmp(s, "u") == 0)
		*ring = 3;
	else if (*s)
		return false;
	return true;
}

/* --nb SEL:MASK:INPUTS[:u|:k]: clock each run of inputs. 0, or 2 after a message. */
static int
nb_clocks(pmuemu_nb_clocks_fn clocks, const char *arg, unsigned ring)
{
	unsigned long sel, mask;
	const char *p, *suffix;
	char *end;

	errno = 0;
	sel = strtoul(arg, &end, 0);
	if (*end != ':' || sel > 0x3f)
		goto bad;
	mask = strtoul(end + 1, &end, 0);
	if (*end != ':' || mask > 0xffff || errno)
		goto bad;
	suffix = strchr(end + 1, ':');
	if (suffix && !parse_ring(suffix + 1, &ring))
		goto bad;
	/* Pass 0 checks the whole list, pass 1 clocks it: nothing counts from a bad one. */
	for (int pass = 0; pass < 2; pass++) {
		for (p = strchr(strchr(arg, ':') + 1, ':') + 1;;) {
			unsigned long value = strtoul(p, &end, 0);
			unsigned long long count = 1;
			int err;

			if (end == p || value > 15)
				goto bad;
			if (*end == '*') {
				p = end + 1;
				count = strtoull(p, &end, 0);
				if (end == p || errno)
					goto bad;
			}
			if (*end != ',' && end != (suffix ? suffix : end + strlen(end)))
				goto bad;
			err = pass ? clocks((unsigned)sel, (unsigned)mask, ring, (unsigned)value, count) : 0;
			if (err) {
				fprintf(stderr, "emu-workload: clocking %s on cpu %d: %s\n", arg,
					sched_getcpu(), strerror(-err));
				return 2;
			}
			if (*end != ',')
				break;
			p = end + 1;
		}
	}
	return 0;
bad:
	fprintf(stderr, "emu-workload: bad --nb '%s': want SEL:MASK:VALUE[*COUNT],...[:u|:k] (VALUE 0-15)\n",
		arg);
	return 2;
}

/* Every --retire and --nb, in order. 0, or 2 after a message. */
static int
retire_all(pmuemu_retire_fn retire, pmuemu_nb_clocks_fn clocks, const struct action *actions,
	   unsigned nactions, unsigned ring)
{
	for (unsigned i = 0; i < nactions; i++) {
		struct step s;
		int err;

		if (actions[i].netburst) {
			if (nb_clocks(clocks, actions[i].arg, ring))
				return 2;
			continue;
		}
		if (!parse_step(actions[i].arg, ring, &s)) {
			fprintf(stderr, "emu-workload: bad --retire '%s': want CODE:UMASK:N[:u|:k]\n",
				actions[i].arg);
			return 2;
		}
		err = retire(s.code, s.umask, s.ring, s.n);
		if (err) {
			fprintf(stderr, "emu-workload: retiring %s on cpu %d: %s\n",
				actions[i].arg, sched_getcpu(), strerror(-err));
			return 2;
		}
	}
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "retire", required_argument, NULL, 'r' },
		{ "nb", required_argument, NULL, 'b' },
		{ "kernel", no_argument, NULL, 'k' },
		{ "rdpmc", required_argument, NULL, 'p' },
		{ "sleep", required_argument, NULL, 's' },
		{ "crash", no_argument, NULL, 'c' },
		{ "exit", required_argument, NULL, 'e' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "steps", required_argument, NULL, 'n' },
		{ "step-ms", required_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 },
	};
	struct action actions[MAX_STEPS];
	uint32_t rdpmc_ecx[MAX_STEPS];
	unsigned nretire = 0, nrdpmc = 0, ring = 3;
	long sleep_ms = 0, exit_status = 0, steps = 1, step_ms = 0;
	bool crash = false, quiet = false;
	pmuemu_retire_fn retire;
	pmuemu_nb_clocks_fn clocks;
	pmuemu_active_fn active;
	int opt;

	while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (opt) {
		case 'r':
		case 'b':
			if (nretire == MAX_STEPS)
				usage();
			actions[nretire].arg = optarg;
			actions[nretire++].netburst = opt == 'b';
			break;
		case 'k':
			ring = 0;
			break;
		case 'p':
			if (nrdpmc == MAX_STEPS)
				usage();
			rdpmc_ecx[nrdpmc++] = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 's':
			sleep_ms = strtol(optarg, NULL, 0);
			break;
		case 'c':
			crash = true;
			break;
		case 'e':
			exit_status = strtol(optarg, NULL, 0);
			break;
		case 'q':
			quiet = true;
			break;
		case 'n':
			steps = strtol(optarg, NULL, 0);
			if (steps < 1)
				usage();
			break;
		case 'm':
			step_ms = strtol(optarg, NULL, 0);
			if (step_ms < 0)
				usage();
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();

	*(void **)&retire = dlsym(RTLD_DEFAULT, "pmuemu_retire");
	*(void **)&active = dlsym(RTLD_DEFAULT, "pmuemu_active");
	*(void **)&clocks = dlsym(RTLD_DEFAULT, "pmuemu_nb_clocks");
	if (!retire || !clocks || !active || !active()) {
		fprintf(stderr, "emu-workload: the PMU is not emulated: run me with "
			"LD_PRELOAD=libpmuemu.so and PMUSTAT_EMU_STATE=<state file> "
			"(tests/e2e/run-under-emu does both)\n");
		return 2;
	}
	/* Flushed now: a test may kill us (rdpmc off) and still want it. */
	if (!quiet)
		printf("cpu %d\n", sched_getcpu());
	fflush(stdout);
	for (long k = 0; k < steps; k++) {
		if (k > 0)
			sleep_for(step_ms);
		if (retire_all(retire, clocks, actions, nretire, ring))
			return 2;
	}
	for (unsigned i = 0; i < nrdpmc; i++) {
		uint64_t val = do_rdpmc(rdpmc_ecx[i]);

		printf("rdpmc 0x%" PRIx32 " 0x%" PRIx64 "\n", rdpmc_ecx[i], val);
	}
	fflush(stdout);
	if (sleep_ms > 0) {
		struct timespec ts = { sleep_ms / 1000, (sleep_ms % 1000) * 1000000 };

		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
	}
	if (crash) {
		raise(SIGSEGV);
		/* The preload forwards a sent SIGSEGV; default action ends us here. */
		return 3;
	}
	return (int)exit_status;
}
