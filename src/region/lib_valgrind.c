/*
 * lib_valgrind.c - libpmustat-region under Valgrind (pmustat --regions
 * --backend sim): no counter can be read there, so each begin and end asks
 * Callgrind to dump the costs of the calling thread since its last dump
 * (CALLGRIND_DUMP_STATS_AT, with --separate-threads=yes), the dump's
 * trigger naming the boundary; pmustat rebuilds the regions from the
 * sequence of dumps (region_abi.h). The program is not recompiled: the
 * same library finds out at run time (RUNNING_ON_VALGRIND) that it runs
 * under Valgrind.
 *
 * Valgrind's client-request headers (valgrind/valgrind.h, callgrind.h)
 * are BSD-licensed and ship with Debian's valgrind package; without them
 * at build time (PMUSTAT_REGION_HAVE_VALGRIND unset) the library has no
 * such mode and pmustat says that no region was marked.
 */
#include "lib_region.h"

#ifdef PMUSTAT_REGION_HAVE_VALGRIND

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <valgrind/callgrind.h>
#include <valgrind/valgrind.h>

#define MARK_LEN (sizeof(PMUSTAT_REGION_SIM_MARK) - 1)

/* Whether this thread's first mark (its thread id) is out; cleared in a forked child. */
static __thread bool sim_seen;
/* The mark being written: the prefix, the kind, a space, the name. */
static __thread char sim_buf[MARK_LEN + 2 + PMUSTAT_REGION_NAME_SIZE];

/*
 * The instructions here between a region's two dumps are in its counts
 * (and in those of the regions around it): a byte copy of the name, not
 * snprintf, keeps them to a few per byte.
 */
static void
sim_mark(char kind, const char *name)
{
	unsigned i = 0;

	if (!sim_seen) {
		sim_seen = true;
		snprintf(sim_buf, sizeof(sim_buf), PMUSTAT_REGION_SIM_MARK "n %ld", (long)syscall(SYS_gettid));
		CALLGRIND_DUMP_STATS_AT(sim_buf);
		memcpy(sim_buf, PMUSTAT_REGION_SIM_MARK, MARK_LEN);
		sim_buf[MARK_LEN + 1] = ' ';
	}
	sim_buf[MARK_LEN] = kind;
	/* Names are reported up to 63 bytes, as in the area. */
	for (; i < PMUSTAT_REGION_NAME_SIZE - 1 && name[i]; i++)
		sim_buf[MARK_LEN + 2 + i] = name[i];
	sim_buf[MARK_LEN + 2 + i] = '\0';
	CALLGRIND_DUMP_STATS_AT(sim_buf);
}

static void
sim_begin(const char *name)
{
	sim_mark('b', name);
}

static void
sim_end(const char *name)
{
	sim_mark('e', name);
}

static void
sim_after_fork(void)
{
	sim_seen = false;
}

LIB_HIDDEN bool
lib_valgrind_arm(void)
{
	if (!RUNNING_ON_VALGRIND)
		return false;
	pthread_atfork(NULL, NULL, sim_after_fork);
	lib_begin_call = sim_begin;
	lib_end_call = sim_end;
	return true;
}

#else

LIB_HIDDEN bool
lib_valgrind_arm(void)
{
	return false;
}

#endif
