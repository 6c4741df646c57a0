/*
 * region_host.h - pmustat's side of the region contract (region_abi.h):
 * make the shared area for one run, hand it to the child, and read the
 * library's records back into a result value.
 *
 * The engine's part, per run (batch):
 *
 *	struct region_host_params p = { .mode = PMUSTAT_REGION_MODE_RDPMC, .nevents = n, .run = i };
 *	p.events[k] = (struct region_host_event){ .rdpmc_ecx = ..., .width = 48 };	// per event
 *	region_area_create(&p, &area, err, sizeof(err));
 *	region_area_env(area, buf, sizeof(buf));	// "PMUSTAT_REGION_FD=N" for the child's environment
 *	... fork; in the child: region_area_inherit(area); execve(...) ...
 *	... the run ends ...
 *	region_area_read(area, &result, err, sizeof(err));	// validated, or refused with a reason
 *	region_result_free(&result); region_area_free(area);
 *
 * Everything the library wrote is untrusted: the layout comes from the
 * params pmustat wrote, never from the area; every index, string and count
 * read back is checked (see region_result_parse()).
 */
#ifndef PMUSTAT_REGION_HOST_H
#define PMUSTAT_REGION_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "region_abi.h"

struct perf_seam;
struct pmustat_error;

#define REGION_HOST_DEFAULT_THREADS	256u
#define REGION_HOST_DEFAULT_RECORDS	4096u

/* One counted event, as the library will read it. */
struct region_host_event {
	/* rdpmc mode */
	uint32_t rdpmc_ecx;		/* bit 30: fixed counter */
	unsigned width;			/* counter width in bits (CPUID leaf 0xA) */
	/* perf mode */
	int perf_fd;			/* the owner's self-read event (not inherited, mmap-able), -1 */
	uint32_t perf_type;
	uint64_t perf_config, perf_config1, perf_config2;
	uint32_t perf_flags;		/* PMUSTAT_REGION_PERF_EXCLUDE_* */
};

struct region_host_params {
	enum pmustat_region_mode mode;
	unsigned nevents;		/* 1..PMUSTAT_REGION_MAX_EVENTS */
	struct region_host_event events[PMUSTAT_REGION_MAX_EVENTS];
	unsigned run;			/* which run (batch) */
	pid_t owner_tid;		/* perf mode: the task the perf_fd events count */
	unsigned thread_capacity;	/* 0: REGION_HOST_DEFAULT_THREADS */
	unsigned record_capacity;	/* 0: REGION_HOST_DEFAULT_RECORDS */
};

struct region_area;

/* Counts of one region in one thread (a record). */
struct region_thread_count {
	char name[PMUSTAT_REGION_NAME_SIZE];	/* valid UTF-8, no control characters */
	bool truncated;			/* the program's name was longer */
	unsigned thread;		/* index into region_result.threads */
	uint64_t begins;
	uint64_t calls;
	uint64_t uncounted;		/* pairs in no sum: perf mode, unread; rdpmc mode, read on two CPUs */
	uint64_t sum[PMUSTAT_REGION_MAX_EVENTS];
};

/* One region over all threads. */
struct region_total {
	char name[PMUSTAT_REGION_NAME_SIZE];
	bool truncated;
	unsigned threads;		/* threads it ran in */
	uint64_t begins;
	uint64_t calls;
	uint64_t uncounted;
	uint64_t sum[PMUSTAT_REGION_MAX_EVENTS];
	bool saturated;			/* a sum exceeded 2^64-1 and was held there */
};

struct region_thread {
	pid_t pid;
	pid_t tid;
	int perf_error;			/* -errno: its events could not be opened (perf mode) */
	uint64_t unmatched_ends;
	uint64_t depth_dropped;
	uint64_t regions_dropped;
};

struct region_result {
	uint32_t mode;			/* enum pmustat_region_mode */
	unsigned nevents;
	unsigned run;
	unsigned attached;		/* processes that linked the library and accepted the area */
	uint32_t attach_error;		/* enum pmustat_region_attach_error of a refusal */
	uint64_t threads_dropped;	/* threads that found no free slot */
	uint64_t calls_dropped;		/* pairs of those threads */
	unsigned skipped;		/* slots or records the library had not finished (killed mid-way) */
	unsigned nthreads;
	struct region_thread *threads;
	unsigned ncounts;		/* per (thread, region), by thread then name */
	struct region_thread_count *counts;
	unsigned ntotals;		/* per region, by name */
	struct region_total *totals;
};

/*
 * Make the area for one run: a sealed memfd (close-on-exec; see
 * region_area_inherit()) holding the header. 0, or -errno with a message
 * in @err: -EINVAL for params out of range, else memfd_create, ftruncate
 * or sealing failed.
 */
int region_area_create(const struct region_host_params *p, struct region_area **out,
		       struct pmustat_error **err);
void region_area_free(struct region_area *a);
int region_area_fd(const struct region_area *a);
size_t region_area_size(const struct region_area *a);

/* "PMUSTAT_REGION_FD=N" for the child's environment. 0 or -ENOSPC. */
int region_area_env(const struct region_area *a, char *buf, size_t size);
/*
 * Let the child inherit the area across execve: clears close-on-exec on the
 * fd. Call in the forked child (async-signal-safe). 0 or -errno.
 */
int region_area_inherit(const struct region_area *a);

/*
 * Perf mode: the events the owner thread reads through their mmap'ed
 * pages, opened after the area was made. Writes @owner_tid and the
 * @nfds fds into the header; meant for the forked child before execve,
 * which opens its own self-read events (perf_event_open(pid 0, cpu -1),
 * not inherited, pinned, enable_on_exec, without close-on-exec) and
 * records them here, so the parent need not know the fd numbers: the
 * reader ignores these fields, which change nothing in how counts are
 * read back. Async-signal-safe (pwrite only). 0 or -errno.
 */
int region_area_set_perf(const struct region_area *a, pid_t owner_tid, const int *fds, unsigned nfds);

/*
 * Perf mode, in the forked child before execve (async-signal-safe: system
 * calls through @p only): open the self-read event of each of the area's
 * events from its perf_type, perf_config* and perf_flags, on the calling
 * task (pid 0, any CPU), pinned (never multiplexed: off the PMU its page
 * says so), not inherited (each thread of the command opens its own),
 * disabled until the execve (enable_on_exec), without close-on-exec so
 * the command has them; then region_area_set_perf() with the caller's pid
 * and their fds. 0, or -errno of the first refusal with every fd opened
 * here closed again (*@failed: the index of the event refused, if non-NULL).
 */
int region_area_open_perf(const struct region_area *a, const struct perf_seam *p, unsigned *failed);

/*
 * Read the area back after the run and validate it against the params it
 * was made with. 0 and @r filled, or -errno with the reason in @err
 * (-EPROTO: the program overwrote the area's header or tables with things
 * the library never writes; counts would not be trustworthy).
 */
int region_area_read(const struct region_area *a, struct region_result *r, struct pmustat_error **err);

/*
 * The pure part of region_area_read(): validate @size bytes of an area made
 * from @p (@p as given to region_area_create()). Never trusts a byte of
 * @buf. 0 or -EPROTO / -ENOMEM with @err.
 */
int region_result_parse(const void *buf, size_t size, const struct region_host_params *p,
			struct region_result *r, struct pmustat_error **err);
/*
 * @r's counts (threads and counts filled by another reader: --backend
 * sim's) put in order, one per thread and name, and the totals per region
 * made from them. 0, or -ENOMEM.
 */
int region_result_totals(struct region_result *r);
void region_result_free(struct region_result *r);

/* The header region_area_create() writes for @p; -EINVAL with @err if @p is out of range. */
int region_header_init(const struct region_host_params *p, struct pmustat_region_header *h,
		       struct pmustat_error **err);

/*
 * @len bytes of a name from the program into @dst (@len + 1 bytes): valid
 * UTF-8 without control characters, so every output format can carry it;
 * anything else becomes '?'.
 */
void region_name_clean(char *dst, const char *src, size_t len);

/* A one-line description of an attach_error code. */
const char *region_attach_error_str(uint32_t code);

#endif
