/*
 * region-script - drive libpmustat-region call by call, for the tests of
 * its bookkeeping. Each argument is one step:
 *
 *	b:NAME		pmustat_region_begin(NAME), with one pointer per NAME
 *			(the first argument that named it), as a string
 *			literal would give
 *	B:NAME		the same name from another pointer (a new copy)
 *	e:NAME		pmustat_region_end(NAME), the same pointer as b:NAME
 *	E:NAME		the same from a new copy
 *	r:N		retire N LONGEST_LAT_CACHE.MISS (0x2e/0x41) and 10 N
 *			INST_RETIRED.ANY (0xc0/0x00) in user mode
 *	c:N		retire N CPU_CLK_UNHALTED.THREAD (0x3c/0x00) in user mode
 *	b*K:PREFIX	begin K regions named PREFIX0..PREFIX(K-1), in order
 *	e*K:PREFIX	end them, in reverse order
 *	cpu:N		move to CPU N (sched_setaffinity), as the scheduler
 *			migrates a thread, e.g. between a begin and its end
 *	fork		fork; the parent waits for the child, and both go on
 *	threads:N	run the steps after this one in N threads at once, then exit
 *	null		begin(NULL) and end(NULL)
 *
 * Exit status: 0, 2 on a bad step or a failed retire.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pmustat/region.h>

#include "emu_preload_api.h"

static pmuemu_retire_fn retire_fn;

struct script {
	int argc;
	char **argv;
};

static void
die(const char *what)
{
	fprintf(stderr, "region-script: %s\n", what);
	exit(2);
}

/* Names must stay valid while the program runs (region.h's rule): kept here. */
static void *kept[4096];
static size_t nkept;

static void *
keep(void *p)
{
	if (!p)
		die("out of memory");
	if (nkept == sizeof(kept) / sizeof(kept[0]))
		die("too many names");
	kept[nkept++] = p;
	return p;
}

/*
 * The pointer b:NAME and e:NAME pass: the first argument's with these
 * contents. main() interns them all before any thread runs.
 */
static const char *
interned(const char *name)
{
	static const char *seen[256];
	static size_t nseen;

	for (size_t i = 0; i < nseen; i++)
		if (strcmp(seen[i], name) == 0)
			return seen[i];
	if (nseen == sizeof(seen) / sizeof(seen[0]))
		die("too many names");
	return seen[nseen++] = name;
}

/* K names PREFIX0.., kept. */
static char **
names(const char *prefix, long k)
{
	char **v = keep(calloc((size_t)k, sizeof(*v)));

	for (long i = 0; i < k; i++) {
		size_t len = strlen(prefix) + 24;

		v[i] = keep(malloc(len));
		snprintf(v[i], len, "%s%ld", prefix, i);
	}
	return v;
}

static void run(int argc, char **argv);

static void *
thread_main(void *arg)
{
	const struct script *s = arg;

	run(s->argc, s->argv);
	return NULL;
}

static void
run(int argc, char **argv)
{
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		char *end;
		long k;

		if (strncmp(a, "b:", 2) == 0) {
			pmustat_region_begin(interned(a + 2));
		} else if (strncmp(a, "e:", 2) == 0) {
			pmustat_region_end(interned(a + 2));
		} else if (strncmp(a, "B:", 2) == 0 || strncmp(a, "E:", 2) == 0) {
			char *copy = keep(strdup(a + 2));

			if (a[0] == 'B')
				pmustat_region_begin(copy);
			else
				pmustat_region_end(copy);
		} else if (strncmp(a, "r:", 2) == 0) {
			unsigned long long n = strtoull(a + 2, NULL, 0);

			if (!retire_fn || retire_fn(0x2e, 0x41, 3, n) != 0 || retire_fn(0xc0, 0x00, 3, 10 * n) != 0)
				die("pmuemu_retire failed (is libpmuemu.so preloaded?)");
		} else if (strncmp(a, "c:", 2) == 0) {
			if (!retire_fn || retire_fn(0x3c, 0x00, 3, strtoull(a + 2, NULL, 0)) != 0)
				die("pmuemu_retire failed (is libpmuemu.so preloaded?)");
		} else if ((a[0] == 'b' || a[0] == 'e') && a[1] == '*') {
			char **v;

			k = strtol(a + 2, &end, 10);
			if (k <= 0 || *end != ':')
				die("bad b*K:PREFIX / e*K:PREFIX");
			v = names(end + 1, k);
			for (long j = 0; j < k; j++) {
				if (a[0] == 'b')
					pmustat_region_begin(v[j]);
				else
					pmustat_region_end(v[k - 1 - j]);
			}
		} else if (strncmp(a, "cpu:", 4) == 0) {
			cpu_set_t one;

			CPU_ZERO(&one);
			CPU_SET((int)strtol(a + 4, NULL, 10), &one);
			if (sched_setaffinity(0, sizeof(one), &one) != 0)
				die("cannot move to that CPU");
		} else if (strcmp(a, "fork") == 0) {
			pid_t pid = fork();
			int status;

			if (pid < 0)
				die("fork failed");
			if (pid > 0 && (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
					WEXITSTATUS(status) != 0))
				die("the forked child failed");
		} else if (strncmp(a, "threads:", 8) == 0) {
			struct script rest = { argc - i - 1, argv + i + 1 };
			pthread_t t[64];

			k = strtol(a + 8, &end, 10);
			if (k <= 0 || k > 64 || *end)
				die("bad threads:N");
			for (long j = 0; j < k; j++)
				if (pthread_create(&t[j], NULL, thread_main, &rest) != 0)
					die("pthread_create failed");
			for (long j = 0; j < k; j++)
				pthread_join(t[j], NULL);
			return;
		} else if (strcmp(a, "null") == 0) {
			pmustat_region_begin(NULL);
			pmustat_region_end(NULL);
		} else {
			die("unknown step");
		}
	}
}

int
main(int argc, char **argv)
{
	retire_fn = (pmuemu_retire_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "pmuemu_retire");
	/* Every name interned now: the threads of threads:N only look them up. */
	for (int i = 1; i < argc; i++)
		if (strncmp(argv[i], "b:", 2) == 0 || strncmp(argv[i], "e:", 2) == 0)
			interned(argv[i] + 2);
	run(argc - 1, argv + 1);
	return 0;
}
