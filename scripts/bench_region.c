/*
 * bench-region - what one libpmustat-region begin/end pair costs, with 4
 * events (a figure, not a test; `meson test --benchmark` or run it).
 *
 * Instructions: the pair is single-stepped with ptrace in a child that runs
 * with a real pmustat area in its environment; every instruction the CPU
 * executes between two markers counts, the call and its argument included.
 * rdpmc faults on machines without a usable PMU, so the tracer executes it
 * for the child (one instruction, a made-up counter value). The same window
 * without the pair is subtracted. Nanoseconds: timed loops where rdpmc
 * works; everywhere, a copy of the library with rdtsc in place of rdpmc
 * (the same instructions; rdtsc's latency stands in for rdpmc's), and the
 * library in a program not started by pmustat.
 *
 * `bench-region --trace shared|static|idle [same|alternate|recursive]`
 * prints the instructions of the measured window instead (from the stop in
 * raise() to marker(), pairs included), each as OBJECT+OFFSET (for
 * addr2line -f or objdump).
 *
 * likwid's marker API is not run here (it needs a PMU and its access
 * daemon): its cost is given as the system calls its code makes per
 * LIKWID_MARKER_START/STOP, with the cost of those calls measured here.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/err.h"
#include "hw/hw.h"
#include "region/region_host.h"

#define NEVENTS 4
#define GOAL_INSNS 60
#define GOAL_NS 100

/* --trace: print every step of the counted pair. */
static bool trace;

struct steps {
	long total;
	long rdpmc;
	long lfence;
	long at[2 * PMUSTAT_REGION_MAX_EVENTS];	/* step number of each rdpmc */
};

static void
die(const char *what)
{
	fprintf(stderr, "bench-region: %s: %s\n", what, strerror(errno));
	exit(1);
}

static uint64_t
peek(pid_t pid, uint64_t addr)
{
	errno = 0;
	return (uint64_t)ptrace(PTRACE_PEEKTEXT, pid, (void *)addr, NULL);
}

/* The fake value rdpmc gives the traced child; @regs at the faulting rdpmc. */
static void
emulate_rdpmc(pid_t pid, struct user_regs_struct *regs, uint64_t value)
{
	regs->rax = value & 0xffffffffu;
	regs->rdx = value >> 32;
	regs->rip += 2;
	if (ptrace(PTRACE_SETREGS, pid, NULL, regs) < 0)
		die("PTRACE_SETREGS");
}

/* Where @rip is in @pid: its mapped file and the offset in it. */
static void
print_location(pid_t pid, uint64_t rip)
{
	char path[64], line[512], file[400];
	unsigned long long start, end, off;
	FILE *maps;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	maps = fopen(path, "r");
	if (!maps)
		die(path);
	while (fgets(line, sizeof(line), maps)) {
		file[0] = '\0';
		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %399s", &start, &end, &off, file) >= 3 &&
		    rip >= start && rip < end) {
			printf("%s+0x%llx\n", file[0] ? file : "?", (unsigned long long)(rip - start + off));
			fclose(maps);
			return;
		}
	}
	fclose(maps);
	printf("0x%llx\n", (unsigned long long)rip);
}

/* Single-step @pid from its stop to @marker; rdpmc executed on its behalf (@nevents per read). */
static void
step_to(pid_t pid, uint64_t marker, unsigned nevents, struct steps *s)
{
	struct user_regs_struct regs;
	uint64_t fake = 1000;
	int status;

	memset(s, 0, sizeof(*s));
	for (;;) {
		if (ptrace(PTRACE_GETREGS, pid, NULL, &regs) < 0)
			die("PTRACE_GETREGS");
		if (regs.rip == marker)
			return;
		uint64_t insn = peek(pid, regs.rip);

		if (trace)
			print_location(pid, regs.rip);

		if ((insn & 0xffff) == 0x330f) {
			/* rdpmc: done here, whether or not it would fault. */
			if (s->rdpmc < 2 * (long)nevents && s->rdpmc < 2 * (long)PMUSTAT_REGION_MAX_EVENTS)
				s->at[s->rdpmc] = s->total;
			s->rdpmc++;
			fake += 7;
			emulate_rdpmc(pid, &regs, fake);
			s->total++;
			continue;
		}
		if ((insn & 0xffffff) == 0xe8ae0f)
			s->lfence++;
		if (ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL) < 0)
			die("PTRACE_SINGLESTEP");
		if (waitpid(pid, &status, 0) < 0)
			die("waitpid");
		if (!WIFSTOPPED(status) || WSTOPSIG(status) != SIGTRAP) {
			fprintf(stderr, "bench-region: the traced child stopped with status 0x%x at 0x%llx\n",
				status, (unsigned long long)regs.rip);
			exit(1);
		}
		s->total++;
	}
}

/* Let the child run to its next SIGSTOP, executing the rdpmc it faults on. */
static void
run_to_stop(pid_t pid)
{
	struct user_regs_struct regs;
	int status, sig = 0;

	for (;;) {
		if (ptrace(PTRACE_CONT, pid, NULL, (void *)(long)sig) < 0)
			die("PTRACE_CONT");
		if (waitpid(pid, &status, 0) < 0)
			die("waitpid");
		if (!WIFSTOPPED(status)) {
			fprintf(stderr, "bench-region: the child ended (status 0x%x)\n", status);
			exit(1);
		}
		sig = WSTOPSIG(status);
		if (sig == SIGSTOP)
			return;
		if (sig == SIGSEGV) {
			if (ptrace(PTRACE_GETREGS, pid, NULL, &regs) < 0)
				die("PTRACE_GETREGS");
			if ((peek(pid, regs.rip) & 0xffff) == 0x330f) {
				emulate_rdpmc(pid, &regs, 1000);
				sig = 0;
			}
		}
	}
}

static void
wait_stop(pid_t pid, int sig)
{
	int status;

	if (waitpid(pid, &status, 0) < 0)
		die("waitpid");
	if (!WIFSTOPPED(status) || WSTOPSIG(status) != sig) {
		fprintf(stderr, "bench-region: child status 0x%x, expected a stop by signal %d\n", status, sig);
		exit(1);
	}
}

/*
 * Instructions of the pairs of @pattern (bench-region-child count) in
 * @prog; @env: the variable of an area with @nevents events, or NULL
 * (inactive).
 */
static long
count_pairs(const char *prog, const char *env, const char *pattern, unsigned nevents, struct steps *pair)
{
	struct steps with, without;
	uint64_t marker;
	int pfd[2], status;
	char fdarg[16];
	pid_t pid;

	if (pipe(pfd) < 0)
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		char *envp[] = { (char *)env, NULL };
		char count[] = "count";

		close(pfd[0]);
		snprintf(fdarg, sizeof(fdarg), "%d", pfd[1]);
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		execve(prog, (char *[]){ (char *)prog, count, fdarg, (char *)pattern, NULL },
		       env ? envp : (char *[]){ NULL });
		_exit(127);
	}
	close(pfd[1]);
	wait_stop(pid, SIGTRAP);	/* at execve */
	ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)PTRACE_O_EXITKILL);
	run_to_stop(pid);
	if (read(pfd[0], &marker, sizeof(marker)) != (ssize_t)sizeof(marker)) {
		fprintf(stderr, "bench-region: %s did not start\n", prog);
		exit(1);
	}
	close(pfd[0]);
	step_to(pid, marker, nevents, &with);
	trace = false;
	run_to_stop(pid);
	step_to(pid, marker, nevents, &without);
	ptrace(PTRACE_CONT, pid, NULL, NULL);
	waitpid(pid, &status, 0);
	*pair = with;
	return with.total - without.total;
}

/* Timed runs of each figure: the least is reported (other load on the machine only adds). */
#define TIMED_RUNS 5

/* ns per pair from `prog time N`, or a negative value when it failed (rdpmc faulted). */
static double
time_pair(const char *prog, const char *env, long n)
{
	char cmd[1024], line[128];
	double best = -1;

	snprintf(cmd, sizeof(cmd), "env -i %s %s time %ld 2>/dev/null", env ? env : "", prog, n);
	for (int run = 0; run < TIMED_RUNS; run++) {
		double ns = -1;
		FILE *f = popen(cmd, "r");

		if (!f)
			return -1;
		while (fgets(line, sizeof(line), f))
			sscanf(line, "ns-per-pair %lf", &ns);
		if (pclose(f) != 0 || ns < 0)
			return -1;
		if (best < 0 || ns < best)
			best = ns;
	}
	return best;
}

static double
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/*
 * ns of what a pair of NEVENTS events cannot do without, with rdtsc for
 * rdpmc: lfence, the reads, lfence, twice. The floor of the rdtsc figure.
 */
static double
time_fenced_reads(long n)
{
	double t0, ns, best = -1;
	uint32_t lo, hi;

	for (int run = 0; run < TIMED_RUNS; run++) {
		t0 = now_ns();
		for (long i = 0; i < n; i++) {
			for (int side = 0; side < 2; side++) {
				__asm__ volatile("lfence" ::: "memory");
				for (int e = 0; e < NEVENTS; e++)
					__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
				__asm__ volatile("lfence" ::: "memory");
			}
		}
		ns = (now_ns() - t0) / (double)n;
		if (best < 0 || ns < best)
			best = ns;
	}
	return best;
}

/* What likwid's marker calls cost in system calls, measured here. */
static void
likwid_model(void)
{
	enum { N = 20000 };
	cpu_set_t set;
	double t0, gettid_ns, affinity_ns, trip_ns;
	int sv[2], fd;
	uint64_t rec[4] = { 0 };
	pid_t pid;

	t0 = now_ns();
	for (int i = 0; i < N; i++)
		syscall(SYS_gettid);
	gettid_ns = (now_ns() - t0) / N;
	t0 = now_ns();
	for (int i = 0; i < N; i++)
		sched_getaffinity(0, sizeof(set), &set);
	affinity_ns = (now_ns() - t0) / N;

	/* The access daemon: a process that answers each record with one pread. */
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
		die("socketpair");
	pid = fork();
	if (pid == 0) {
		fd = open("/dev/zero", O_RDONLY);
		close(sv[0]);
		while (read(sv[1], rec, sizeof(rec)) == (ssize_t)sizeof(rec)) {
			if (pread(fd, &rec[1], 8, 0x38f) < 0 || write(sv[1], rec, sizeof(rec)) < 0)
				_exit(1);
		}
		_exit(0);
	}
	close(sv[1]);
	t0 = now_ns();
	for (int i = 0; i < N; i++) {
		if (write(sv[0], rec, sizeof(rec)) < 0 || read(sv[0], rec, sizeof(rec)) < 0)
			die("socket");
	}
	trip_ns = (now_ns() - t0) / N;
	close(sv[0]);
	waitpid(pid, NULL, 0);

	printf("likwid marker API (RRZE-HPC/likwid d9c523b1, from its code, not run: it needs a PMU):\n"
	       "  LIKWID_MARKER_START and _STOP each: gettid() (libperfctr.c), then\n"
	       "  perfmon_readCountersThread_*: GLOBAL_CTRL read, write 0, restore (3 MSR accesses through\n"
	       "  the access daemon: a socket write and read each, access_client.c) and per counter an\n"
	       "  rdpmc after sched_getaffinity() (access_x86_rdpmc.c; pread of /dev/cpu/N/msr without rdpmc)\n"
	       "  = 1 + 6 + %d = %d system calls per call, %d per pair with %d events, plus 6 daemon wake-ups.\n",
	       NEVENTS, 7 + NEVENTS, 2 * (7 + NEVENTS), NEVENTS);
	printf("  measured here: gettid %.0f ns, sched_getaffinity %.0f ns, daemon round trip %.0f ns\n"
	       "  => at least %.0f ns per pair before any counter is read (libpmustat-region: 0 system calls)\n",
	       gettid_ns, affinity_ns, trip_ns,
	       2 * (gettid_ns + 3 * trip_ns + NEVENTS * affinity_ns));
}

/* An area of @nevents rdpmc events (GP counters 0.., width 48) and its variable in @env. */
static struct region_area *
make_area(unsigned nevents, char *env, size_t size)
{
	struct region_host_params p = { .mode = PMUSTAT_REGION_MODE_RDPMC, .nevents = nevents };
	struct region_area *area;
	struct pmustat_error *err = NULL;

	for (unsigned i = 0; i < nevents; i++)
		p.events[i] = (struct region_host_event){ .rdpmc_ecx = i, .width = 48, .perf_fd = -1 };
	if (region_area_create(&p, &area, &err) < 0 || region_area_inherit(area) < 0 ||
	    region_area_env(area, env, size) < 0) {
		fprintf(stderr, "bench-region: %s\n", err_msg(err));
		exit(1);
	}
	return area;
}

int
main(int argc, char **argv)
{
	static const unsigned by_events[] = { 1, 2, 4, 8, 16 };
	const char *shared = BENCH_CHILD_SHARED, *stat = BENCH_CHILD_STATIC, *tsc = BENCH_CHILD_RDTSC;
	const char *trace_what = (argc == 3 || argc == 4) && strcmp(argv[1], "--trace") == 0 ? argv[2] : NULL;
	const char *trace_pattern = argc == 4 ? argv[3] : "same";
	struct region_area *area;
	struct steps s;
	char env[64];
	long n = argc == 2 ? atol(argv[1]) : 2000000;
	long insns;
	struct hw *hw;
	double ns;
	bool rdpmc_works;

	if (trace_what && ((strcmp(trace_what, "shared") != 0 && strcmp(trace_what, "static") != 0 &&
			    strcmp(trace_what, "idle") != 0) ||
			   (strcmp(trace_pattern, "same") != 0 && strcmp(trace_pattern, "alternate") != 0 &&
			    strcmp(trace_pattern, "recursive") != 0))) {
		fprintf(stderr, "usage: bench-region [PAIRS] | --trace shared|static|idle [same|alternate|recursive]\n");
		return 2;
	}
	area = make_area(NEVENTS, env, sizeof(env));
	if (trace_what) {
		trace = true;
		count_pairs(strcmp(trace_what, "static") == 0 ? stat : shared,
			    strcmp(trace_what, "idle") == 0 ? NULL : env, trace_pattern, NEVENTS, &s);
		region_area_free(area);
		return 0;
	}
	hw = hw_linux_new();
	rdpmc_works = hw && hw_rdpmc_probe(hw, sched_getcpu()) == 0;
	hw_free(hw);

	printf("libpmustat-region: one begin/end pair, %d events, rdpmc mode\n\n", NEVENTS);
	printf("instructions per pair (single-stepped; call and argument included; goal <= %d):\n", GOAL_INSNS);
	insns = count_pairs(shared, env, "same", NEVENTS, &s);
	printf("  shared library                      %4ld   (%ld rdpmc, %ld lfence)\n", insns, s.rdpmc,
	       s.lfence);
	insns = count_pairs(stat, env, "same", NEVENTS, &s);
	printf("  static library                      %4ld\n", insns);
	/* Event i counts what retires between its read at the begin and its read at the end. */
	printf("    of them inside an event's window  %ld..%ld (event 1..%d: between its two rdpmc; an\n"
	       "                                             instructions event counts them in every pair)\n",
	       s.at[NEVENTS] - s.at[0] - 1, s.at[2 * NEVENTS - 1] - s.at[NEVENTS - 1] - 1, NEVENTS);
	insns = count_pairs(stat, env, "alternate", NEVENTS, &s);
	printf("  two names taking turns, per pair    %4ld   (static; each begin misses the frame's name)\n",
	       insns / 2);
	insns = count_pairs(stat, env, "recursive", NEVENTS, &s);
	printf("  inside an open pair of its region   %4ld   (static; recursion: %ld rdpmc)\n", insns, s.rdpmc);
	insns = count_pairs(shared, NULL, "same", NEVENTS, &s);
	printf("  not started by pmustat              %4ld   (shared; %ld rdpmc)\n", insns, s.rdpmc);
	region_area_free(area);

	printf("  by number of events (static):      ");
	for (size_t i = 0; i < sizeof(by_events) / sizeof(by_events[0]); i++) {
		char env_n[64];
		struct region_area *a = make_area(by_events[i], env_n, sizeof(env_n));

		printf(" %u: %ld", by_events[i], count_pairs(stat, env_n, "same", by_events[i], &s));
		region_area_free(a);
	}
	printf("\n");

	area = make_area(NEVENTS, env, sizeof(env));
	printf("\nnanoseconds per pair (%ld pairs, minus an empty loop; least of %d runs; goal <= %d):\n", n,
	       TIMED_RUNS, GOAL_NS);
	if (rdpmc_works && (ns = time_pair(shared, env, n)) >= 0)
		printf("  with rdpmc                          %6.1f\n", ns);
	else
		printf("  with rdpmc                          not measured: rdpmc faults on this machine\n");
	ns = time_pair(tsc, env, n);
	printf("  rdtsc standing in for rdpmc         %6.1f   (static; same instructions, rdtsc's latency)\n",
	       ns);
	printf("  the fenced rdtsc reads alone        %6.1f   (lfence, %d rdtsc, lfence, twice; no library)\n",
	       time_fenced_reads(n), NEVENTS);
	ns = time_pair(shared, NULL, n);
	printf("  not started by pmustat              %6.1f\n\n", ns);

	likwid_model();
	region_area_free(area);
	return 0;
}
