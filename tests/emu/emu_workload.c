/*
 * emu-workload - a program to count under the emulated PMU. It "retires"
 * exactly the events it is told to on the CPU it runs on, through
 * libpmuemu.so's pmuemu_retire() and pmuemu_act(), so a test knows the
 * exact count to expect, and it can stop between steps for the test to
 * play another party (the kernel, perf) on the PMU.
 *
 *	emu-workload [--cpu N] [--kernel] [STEP]... [--rdpmc ECX]... [--sleep MS]
 *	             [--crash] [--exit N] [--quiet] [--steps N --step-ms MS]
 *	             [--threads N [--spread]]
 *
 * STEPs run in the order given:
 *	--retire CODE:UMASK:N[:u|:k]	N events of one kind, one burst
 *	--topdown RET:BAD:FE:BE[:HEAVY:BRMISP:FETCHLAT:MEMBOUND][:u|:k]
 *					top-down slots per category
 *	--offcore RSP:N[:u|:k]		N offcore responses with request/response RSP
 *	--nb SEL:MASK:INPUTS[:u|:k]	NetBurst models: clocks of ESCR event select
 *					SEL with sub-event bits MASK (ESCR[24:9]),
 *					INPUTS = VALUE[*COUNT](,VALUE[*COUNT])* the
 *					input value (0-15) of each clock: "1*1000"
 *					is 1000 clocks with input 1, "5,0,7*3" five
 *					clocks with inputs 5, 0, 7, 7, 7, so that
 *					threshold, complement and edge filters can
 *					be exercised exactly (each run is the
 *					action nb:SEL:MASK:VALUE:COUNT)
 *	--act ACTION			any action of emu_action.h, e.g. nmi,
 *					take-fixed:1, wrmsr:0x38f=0 (as that party,
 *					on this CPU)
 *	--sync PREFIX			stop until the test says go: write a byte to
 *					the FIFO PREFIX.ready, then wait for one on
 *					PREFIX.go (tests/e2e: e2e_sync_*)
 * With --steps N the whole list runs N times, MS milliseconds apart (a
 * real gap, e.g. 5 bursts of 2^47 events 1.5 s apart for a tool that must
 * read often enough), then the rdpmc reads (each printed as "rdpmc 0xECX
 * 0xVALUE" on stdout), the sleep, the crash (SIGSEGV) or the exit. It
 * prints "cpu N" first (unless --quiet). --cpu N pins it to CPU N first
 * (a test that acts on "the workload's CPU" needs it to stay there). Without the preload library it
 * says so and exits 2; a step that fails exits 2 with the reason.
 *
 * --threads N runs the steps (with --steps, all of them) in N threads at
 * once, each retiring on the CPU it runs on: a threaded program, whose
 * total is N times the steps' wherever its threads ran. With --spread,
 * thread i first pins itself to the (i mod k)-th of the k CPUs the
 * process may run on (as likwid-pin places threads), and prints "thread
 * I cpu C" (unless --quiet), so that each CPU's share is known too.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "emu_preload_api.h"

#define MAX_STEPS 64
#define MAX_THREADS 256

enum step_kind { STEP_RETIRE, STEP_ACT, STEP_SYNC, STEP_NB };

struct step {
	enum step_kind kind;
	const char *prefix;	/* the action's name the option stands for: "topdown:" */
	const char *arg;
	struct emu_action act;
};

static void
usage(void)
{
	fprintf(stderr, "usage: emu-workload [--cpu N] [--kernel] [--retire CODE:UMASK:N[:u|:k]]... "
		"[--topdown RET:BAD:FE:BE[:HEAVY:BRMISP:FETCHLAT:MEMBOUND][:u|:k]]... "
		"[--offcore RSP:N[:u|:k]]... [--nb SEL:MASK:INPUTS[:u|:k]]... [--act ACTION]... "
		"[--sync PREFIX]... "
		"[--rdpmc ECX]... [--sleep MS] [--crash] [--exit N] [--quiet] "
		"[--steps N --step-ms MS] [--threads N [--spread]]\nACTION: %s\n", emu_action_syntax);
	exit(2);
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

/*
 * --nb SEL:MASK:INPUTS[:u|:k]: each run VALUE[*COUNT] of INPUTS as the
 * action nb:SEL:MASK:VALUE:COUNT[:u|:k], done with @act, or only checked
 * when @act is NULL. 0, -EINVAL with the reason in @err, or @act's error.
 */
static int
nb_runs(const char *arg, unsigned ring, pmuemu_act_fn act, char *err, size_t errsize)
{
	const char *sel_end = strchr(arg, ':');
	const char *inputs = sel_end ? strchr(sel_end + 1, ':') : NULL;
	const char *suffix, *p;

	if (!inputs) {
		snprintf(err, errsize, "want SEL:MASK:VALUE[*COUNT],...[:u|:k]");
		return -EINVAL;
	}
	inputs++;
	suffix = strchr(inputs, ':');
	if (!suffix)
		suffix = inputs + strlen(inputs);
	for (p = inputs;;) {
		unsigned long long value, count = 1;
		char spec[256];
		struct emu_action a;
		char *end;
		int rc;

		errno = 0;
		value = strtoull(p, &end, 0);
		if (end == p || *p == '-' || errno)
			goto bad;
		if (*end == '*') {
			p = end + 1;
			count = strtoull(p, &end, 0);
			if (end == p || *p == '-' || errno)
				goto bad;
		}
		if (*end != ',' && end != suffix)
			goto bad;
		if ((size_t)snprintf(spec, sizeof(spec), "nb:%.*s%llu:%llu%s", (int)(inputs - arg),
				     arg, value, count, suffix) >= sizeof(spec))
			goto bad;
		rc = emu_action_parse(spec, ring, &a, err, errsize);
		if (rc)
			return rc;
		if (act && (rc = act(&a)))
			return rc;
		if (end == suffix)
			return 0;
		p = end + 1;
	}
bad:
	snprintf(err, errsize, "want SEL:MASK:VALUE[*COUNT],...[:u|:k] (VALUE 0-15)");
	return -EINVAL;
}

/*
 * Parse every step once (the default ring is known only after all
 * options). 0, or 2 after a message.
 */
static int
parse_steps(struct step *steps, unsigned n, unsigned ring)
{
	for (unsigned i = 0; i < n; i++) {
		char spec[256], err[512] = "too long";

		if (steps[i].kind == STEP_SYNC)
			continue;
		if (steps[i].kind == STEP_NB) {
			/* The ring for run_steps(); the runs are parsed again there. */
			steps[i].act.ring = ring;
			if (nb_runs(steps[i].arg, ring, NULL, err, sizeof(err)) == 0)
				continue;
			fprintf(stderr, "emu-workload: bad --nb '%s': %s\n", steps[i].arg, err);
			return 2;
		}
		if ((size_t)snprintf(spec, sizeof(spec), "%s%s", steps[i].prefix, steps[i].arg) >=
		    sizeof(spec) ||
		    emu_action_parse(spec, ring, &steps[i].act, err, sizeof(err)) != 0) {
			fprintf(stderr, "emu-workload: bad step '%s': %s\n", steps[i].arg,
				err);
			return 2;
		}
	}
	return 0;
}

/* Tell the test we are here, then wait until it says go. 0 or -errno. */
static int
sync_point(const char *prefix)
{
	char ready[PATH_MAX], go[PATH_MAX], c = 'p';
	int fd;

	if ((size_t)snprintf(ready, sizeof(ready), "%s.ready", prefix) >= sizeof(ready) ||
	    (size_t)snprintf(go, sizeof(go), "%s.go", prefix) >= sizeof(go))
		return -ENAMETOOLONG;
	fd = open(ready, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, &c, 1) != 1) {
		int err = -errno;

		close(fd);
		return err;
	}
	close(fd);
	/*
	 * Wait for a byte. An end of file is the previous release's writer
	 * closing after we already read its byte: open again and wait for
	 * the next one.
	 */
	for (;;) {
		ssize_t n;

		fd = open(go, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		do
			n = read(fd, &c, 1);
		while (n < 0 && errno == EINTR);
		close(fd);
		if (n == 1)
			break;
		if (n < 0)
			return -errno;
	}
	return 0;
}

static int
run_steps(const struct step *steps, unsigned n, pmuemu_retire_fn retire, pmuemu_act_fn act)
{
	for (unsigned i = 0; i < n; i++) {
		const struct emu_action *a = &steps[i].act;
		char why[512];
		int err;

		if (steps[i].kind == STEP_SYNC)
			err = sync_point(steps[i].arg);
		else if (steps[i].kind == STEP_NB)
			err = nb_runs(steps[i].arg, a->ring, act, why, sizeof(why));
		else if (steps[i].kind == STEP_RETIRE)
			err = retire(a->code, a->umask, a->ring, a->n);
		else
			err = act(a);
		if (err) {
			fprintf(stderr, "emu-workload: %s%s on cpu %d: %s\n", steps[i].prefix,
				steps[i].arg, sched_getcpu(), strerror(-err));
			return 2;
		}
	}
	return 0;
}

/* One thread of --threads: its CPU (-1: not pinned) and the steps. */
struct worker {
	pthread_t thread;
	unsigned index;
	int cpu;
	bool quiet;
	const struct step *steps;
	unsigned nsteps;
	long repeat, step_ms;
	pmuemu_retire_fn retire;
	pmuemu_act_fn act;
	int status;
};

static void *
worker_main(void *arg)
{
	struct worker *w = arg;

	if (w->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(w->cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set) < 0) {
			fprintf(stderr, "emu-workload: thread %u cannot pin to cpu %d: %s\n", w->index, w->cpu,
				strerror(errno));
			w->status = 2;
			return NULL;
		}
		if (!w->quiet)
			printf("thread %u cpu %d\n", w->index, w->cpu);
	}
	for (long k = 0; k < w->repeat && w->status == 0; k++) {
		if (k > 0)
			sleep_for(w->step_ms);
		w->status = run_steps(w->steps, w->nsteps, w->retire, w->act);
	}
	return NULL;
}

/* The (i mod k)-th CPU of the k this process may run on. */
static int
spread_cpu(unsigned i)
{
	cpu_set_t set;
	int k, seen = 0;

	if (sched_getaffinity(0, sizeof(set), &set) < 0 || (k = CPU_COUNT(&set)) == 0)
		return -1;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set) && seen++ == (int)(i % (unsigned)k))
			return c;
	return -1;
}

/* --threads N: the steps in N threads at once. 0, or 2 after a message. */
static int
run_threads(unsigned n, bool spread, bool quiet, const struct step *steps, unsigned nsteps, long repeat,
	    long step_ms, pmuemu_retire_fn retire, pmuemu_act_fn act)
{
	static struct worker w[MAX_THREADS];
	int status = 0;

	for (unsigned i = 0; i < n; i++) {
		w[i] = (struct worker){ .index = i, .cpu = spread ? spread_cpu(i) : -1, .quiet = quiet,
					.steps = steps, .nsteps = nsteps, .repeat = repeat, .step_ms = step_ms,
					.retire = retire, .act = act };
	}
	/* Started after every CPU was chosen: the first thread's pin does not change the others'. */
	for (unsigned i = 0; i < n; i++) {
		int rc = pthread_create(&w[i].thread, NULL, worker_main, &w[i]);

		if (rc) {
			fprintf(stderr, "emu-workload: thread %u: %s\n", i, strerror(rc));
			for (unsigned j = 0; j < i; j++)
				pthread_join(w[j].thread, NULL);
			return 2;
		}
	}
	for (unsigned i = 0; i < n; i++) {
		pthread_join(w[i].thread, NULL);
		if (w[i].status)
			status = w[i].status;
	}
	return status;
}

int
main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "retire", required_argument, NULL, 'r' },
		{ "topdown", required_argument, NULL, 't' },
		{ "offcore", required_argument, NULL, 'o' },
		{ "nb", required_argument, NULL, 'b' },
		{ "act", required_argument, NULL, 'a' },
		{ "sync", required_argument, NULL, 'y' },
		{ "kernel", no_argument, NULL, 'k' },
		{ "rdpmc", required_argument, NULL, 'p' },
		{ "sleep", required_argument, NULL, 's' },
		{ "crash", no_argument, NULL, 'c' },
		{ "exit", required_argument, NULL, 'e' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "steps", required_argument, NULL, 'n' },
		{ "step-ms", required_argument, NULL, 'm' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "threads", required_argument, NULL, 'T' },
		{ "spread", no_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	static struct step steps[MAX_STEPS];
	uint32_t rdpmc_ecx[MAX_STEPS];
	unsigned nsteps = 0, nrdpmc = 0, ring = 3;
	long sleep_ms = 0, exit_status = 0, repeat = 1, step_ms = 0;
	bool crash = false, quiet = false, spread = false;
	long pin = -1, threads = 0;
	pmuemu_retire_fn retire;
	pmuemu_active_fn active;
	pmuemu_act_fn act;
	int opt;

	while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
		struct step *s = &steps[nsteps];

		switch (opt) {
		case 'r':
		case 't':
		case 'o':
		case 'b':
		case 'a':
		case 'y':
			if (nsteps == MAX_STEPS)
				usage();
			s->kind = opt == 'y' ? STEP_SYNC : opt == 'r' ? STEP_RETIRE :
				opt == 'b' ? STEP_NB : STEP_ACT;
			s->prefix = opt == 'r' ? "retire:" : opt == 't' ? "topdown:" :
				opt == 'o' ? "offcore:" : opt == 'b' ? "--nb " : "";
			s->arg = optarg;
			nsteps++;
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
			repeat = strtol(optarg, NULL, 0);
			if (repeat < 1)
				usage();
			break;
		case 'm':
			step_ms = strtol(optarg, NULL, 0);
			if (step_ms < 0)
				usage();
			break;
		case 'C':
			pin = strtol(optarg, NULL, 0);
			if (pin < 0 || pin >= CPU_SETSIZE)
				usage();
			break;
		case 'T':
			threads = strtol(optarg, NULL, 0);
			if (threads < 1 || threads > MAX_THREADS)
				usage();
			break;
		case 'S':
			spread = true;
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	if (parse_steps(steps, nsteps, ring))
		return 2;
	if (pin >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET((int)pin, &set);
		if (sched_setaffinity(0, sizeof(set), &set) < 0) {
			fprintf(stderr, "emu-workload: cannot pin to cpu %ld: %s\n", pin,
				strerror(errno));
			return 2;
		}
	}

	*(void **)&retire = dlsym(RTLD_DEFAULT, "pmuemu_retire");
	*(void **)&active = dlsym(RTLD_DEFAULT, "pmuemu_active");
	*(void **)&act = dlsym(RTLD_DEFAULT, "pmuemu_act");
	if (!retire || !active || !act || !active()) {
		fprintf(stderr, "emu-workload: the PMU is not emulated: run me with "
			"LD_PRELOAD=libpmuemu.so and PMUSTAT_EMU_STATE=<state file> "
			"(tests/emu/run-under-emu does both)\n");
		return 2;
	}
	/* Flushed now: a test may kill us (rdpmc off) and still want it. */
	if (!quiet)
		printf("cpu %d\n", sched_getcpu());
	fflush(stdout);
	if (threads > 0 && run_threads((unsigned)threads, spread, quiet, steps, nsteps, repeat, step_ms, retire, act))
		return 2;
	for (long k = 0; threads == 0 && k < repeat; k++) {
		if (k > 0)
			sleep_for(step_ms);
		if (run_steps(steps, nsteps, retire, act))
			return 2;
	}
	for (unsigned i = 0; i < nrdpmc; i++) {
		uint64_t val = do_rdpmc(rdpmc_ecx[i]);

		printf("rdpmc 0x%" PRIx32 " 0x%" PRIx64 "\n", rdpmc_ecx[i], val);
	}
	fflush(stdout);
	sleep_for(sleep_ms);
	if (crash) {
		raise(SIGSEGV);
		/* The preload forwards a sent SIGSEGV; default action ends us here. */
		return 3;
	}
	return (int)exit_status;
}
