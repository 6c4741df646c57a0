/*
 * pmustat/region.h - count code regions with pmustat.
 *
 *	#define PMUSTAT_REGIONS		// or -DPMUSTAT_REGIONS; without it the macros vanish
 *	#include <pmustat/region.h>
 *
 *	PMUSTAT_REGION_BEGIN("solve");
 *	solve(grid);
 *	PMUSTAT_REGION_END("solve");
 *
 *	cc -DPMUSTAT_REGIONS prog.c $(pkg-config --cflags --libs pmustat-region)
 *	sudo pmustat --regions -e LLC_MISSES -- ./prog
 *
 * pmustat programs the counters and tells the library where they are; each
 * begin and end reads them in user mode (rdpmc, fenced with lfence before
 * and after, no system call) and adds the difference to the region's sums
 * in memory pmustat reads back after the run. A program not started by
 * pmustat pays a load and a branch per call, and nothing ever faults.
 *
 * Rules:
 *  - Regions are per thread; calls from any number of threads are safe.
 *  - @name identifies the region by its contents (two pointers to equal
 *    strings are one region), but it must stay valid and unchanged while
 *    the program runs: the library remembers each pointer it has seen per
 *    thread. Use string literals; a buffer rewritten with another name
 *    would be counted under the first name seen at its address. Names are
 *    reported up to 63 bytes.
 *  - Regions nest: pmustat_region_end() must close the innermost open
 *    region of the thread (else it is ignored and counted as unmatched).
 *    An outer region's counts include its inner regions'.
 *  - A region begun again while it is open in the same thread (recursion)
 *    counts every pair as a call, and its events once, over the outermost
 *    pair.
 *  - Not async-signal-safe: do not call from signal handlers. After fork()
 *    the child starts with no open regions.
 */
#ifndef PMUSTAT_REGION_H
#define PMUSTAT_REGION_H

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Called straight through the GOT, not through a PLT stub: one jump less
 * per call from position-independent code (GCC; other compilers ignore it).
 */
#if defined(__has_attribute)
#if __has_attribute(noplt)
#define PMUSTAT_REGION_NOPLT __attribute__((noplt))
#endif
#endif
#ifndef PMUSTAT_REGION_NOPLT
#define PMUSTAT_REGION_NOPLT
#endif

PMUSTAT_REGION_NOPLT void pmustat_region_begin(const char *name);
PMUSTAT_REGION_NOPLT void pmustat_region_end(const char *name);

#ifdef PMUSTAT_REGIONS
#define PMUSTAT_REGION_BEGIN(name)	pmustat_region_begin(name)
#define PMUSTAT_REGION_END(name)	pmustat_region_end(name)
#else
#define PMUSTAT_REGION_BEGIN(name)	((void)0)
#define PMUSTAT_REGION_END(name)	((void)0)
#endif

#ifdef __cplusplus
}
#endif

#endif
